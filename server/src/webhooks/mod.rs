//! Webhooks (docs/webhooks.md), the sending side: a key holder subscribes an
//! https URL to the change events with the filters of /api/v1/changes
//! (`crate::service::webhooks`, the endpoints); after each publish, every new
//! event a subscription matches is delivered to it once, as a JSON POST signed
//! the Standard Webhooks way ([`signing`]), retried with backoff for a day;
//! announced shutdowns of the models it watches are recalled 90, 30 and 7 days
//! ahead. Subscriptions and deliveries live in PostgreSQL (sql/39_webhooks.sql,
//! sql/65_webhook_deliveries.sql); the delivery worker of each server
//! ([`worker`]) takes due deliveries from there, so a restart loses nothing and
//! servers share the work. Destinations are checked by [`destination`].

pub mod destination;
pub mod signing;
pub mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool_postgres::Pool;

/// How webhooks are sent, and the limits of each key (docs/webhooks.md, "Limits").
#[derive(Debug, Clone)]
pub struct Settings {
    /// Run a delivery worker in this server; without one, subscriptions are
    /// still managed here and their deliveries wait for a server that has one.
    pub deliver: bool,
    /// Allow destinations on loopback, private and link-local addresses, and plain http.
    pub allow_private: bool,
    /// Subscriptions a key may have.
    pub max_per_key: i32,
    /// Delivery attempts a key's subscriptions may make per clock hour (more wait for the next).
    pub attempts_per_key_hour: i32,
    /// The wait after the n-th failed attempt (the last one repeats).
    pub retry_schedule: Vec<Duration>,
    /// How long after it was made a delivery is retried; then it has failed.
    pub give_up_after: Duration,
    /// How long one attempt may take, connecting included.
    pub timeout: Duration,
    /// Attempts in flight at once per server (one per subscription at most).
    pub slots: usize,
    /// How often the worker looks for new publishes and due deliveries.
    pub poll: Duration,
    /// Days before an announced shutdown that a reminder is sent.
    pub reminder_days: Vec<i32>,
}

impl Default for Settings {
    fn default() -> Self {
        let minutes = |m: u64| Duration::from_secs(60 * m);
        Self {
            deliver: true,
            allow_private: false,
            max_per_key: 20,
            attempts_per_key_hour: 1000,
            retry_schedule: vec![
                Duration::from_secs(5),
                minutes(1),
                minutes(5),
                minutes(30),
                minutes(120),
                minutes(360),
                minutes(720),
            ],
            give_up_after: Duration::from_secs(24 * 3600),
            timeout: Duration::from_secs(10),
            slots: 8,
            poll: Duration::from_secs(5),
            reminder_days: vec![90, 30, 7],
        }
    }
}

impl Settings {
    /// The wait before the attempt after the `attempt`-th (1 = the first).
    pub fn retry_after(&self, attempt: i32) -> Duration {
        let at = usize::try_from(attempt.max(1) - 1).unwrap_or(0);
        self.retry_schedule
            .get(at)
            .or(self.retry_schedule.last())
            .copied()
            .unwrap_or(self.give_up_after)
    }
}

/// Webhooks of one server: the settings and the pool of its worker.
#[derive(Debug, Clone)]
pub struct Webhooks {
    pub(crate) settings: Arc<Settings>,
    pub(crate) pool: Pool,
    pub(crate) stats: Arc<Stats>,
}

impl Webhooks {
    /// Webhooks sent through `pool` (role `pricing_web`, see
    /// [`crate::store::db::webhook_pool`]).
    pub fn new(settings: Settings, pool: Pool) -> Self {
        Self {
            settings: Arc::new(settings),
            pool,
            stats: Arc::default(),
        }
    }

    /// What the worker has done since start.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
}

/// What the worker has done since the server started.
#[derive(Debug, Default)]
pub struct Stats {
    /// Rounds of the worker's loop.
    pub rounds: AtomicU64,
    /// Attempts made.
    pub attempts: AtomicU64,
    /// Attempts answered with a 2xx.
    pub delivered: AtomicU64,
}

impl Stats {
    /// Rounds so far.
    pub fn rounds(&self) -> u64 {
        self.rounds.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_retry_schedule_backs_off_and_repeats_its_last_wait() {
        let s = Settings::default();
        assert_eq!(s.retry_after(1), Duration::from_secs(5));
        assert_eq!(s.retry_after(2), Duration::from_secs(60));
        assert_eq!(s.retry_after(7), Duration::from_secs(12 * 3600));
        assert_eq!(s.retry_after(20), Duration::from_secs(12 * 3600));
        // eight attempts within 20.6 hours, the ninth clamped to the day's end
        let total: Duration = (1..=7).map(|n| s.retry_after(n)).sum();
        assert_eq!(total, Duration::from_secs(74_165));
        assert!(total < s.give_up_after && total + s.retry_after(8) > s.give_up_after);
    }
}
