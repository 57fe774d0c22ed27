//! Quota and burst accounting (spec part 8, docs/keys.md).
//!
//! The database is the source of truth: `api.admit()` counts in a fixed window
//! per subject and checks a token bucket, atomically, so that every server
//! process sharing the database draws on one budget and a quota is never
//! over-admitted. [`Accountant::admit`] is the one entry point, for the REST
//! hoop and for the MCP channel alike.
//!
//! The parts:
//! - [`admission`]: requests waiting for admission, of any number of
//!   subjects, go to the database together, one `api.admit_batch()` call with
//!   one entry per subject (its waiting requests as the cost), sent when the
//!   previous call has returned and its clients are back with their next
//!   requests (held at most [`BATCH_WAIT`]), one call at a time.
//!   Many anonymous clients sending a few requests each therefore share calls.
//! - [`grants`]: what the database answered, turned into one decision per
//!   request, and units given back.
//! - [`lease`]: a busy subject is also served from a *lease*: a call may ask
//!   for more units than it has requests waiting, about [`LEASE_SPAN`] of the
//!   subject's recent rate, and the units granted beyond its requests serve
//!   the next requests without a call. The database counts leased units when
//!   it grants them, so a lease never over-admits a quota, and they are taken
//!   only while the window has plenty left (at most
//!   1/[`LEASE_SHARE_OF_REMAINING`] of it) and never more than the bucket
//!   refills in [`LEASE_TTL`]; a lease is used up or expires within
//!   [`LEASE_TTL`], and its unused units are given back (`api.release()`),
//!   also when the server stops. Only a process that dies without stopping
//!   loses its leases' unused units, which then count as used: never more
//!   than one lease per subject, and nothing for a subject at a human rate or
//!   near its limits (such a subject never gets a lease).
//! - [`refusals`]: after a refusal the database would refuse the subject
//!   again until a time it names; the server refuses it itself until then.
//! - [`upkeep`]: expired leases given back, idle subjects forgotten, the
//!   database's counters swept.
//!
//! Accounting fails open only when the database is unreachable: when no
//! connection comes within [`ACCOUNTING_TIMEOUT`], or the connection fails or
//! stops answering for [`ANSWER_TIMEOUT`], the request goes ahead uncounted
//! (and without rate-limit headers). A call sent on a live connection is
//! waited for, however loaded the database: a slow database slows admission
//! and never waives it, so no process admits past a quota while the database
//! answers. Endpoints that need the database answer 503 anyway.

mod admission;
mod grants;
mod lease;
mod refusals;
mod upkeep;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use tokio::sync::oneshot;

use crate::telemetry::Throttle;

pub use admission::BATCH_WAIT;
pub use lease::{LEASE_SHARE_OF_REMAINING, LEASE_SPAN, LEASE_TTL};
pub use upkeep::SWEEP_EVERY;

use admission::Queue;
use grants::Release;
use refusals::Blocked;

/// How long a call of the accounting waits for a database connection before
/// its requests are let through uncounted (the database is unreachable).
pub const ACCOUNTING_TIMEOUT: Duration = Duration::from_millis(1500);
/// How long a call sent on a connection is waited for: beyond the control
/// pool's statement timeout (server/src/store/db.rs), so that the database's own
/// bound ends a slow statement, and only a connection that stopped answering
/// altogether is given up on here.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(6);
/// A subject whose quota is used up is refused without asking the database
/// until its window ends, but asked again after this long in case its plan's
/// quota was raised meanwhile.
pub const EXHAUSTED_RECHECK: Duration = Duration::from_secs(30);

/// Whom a request is charged to, on which plan.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Subject {
    id: String,
    plan: Arc<str>,
}

impl Subject {
    /// An anonymous caller, by address: IPv4 per address, IPv6 per /64 (one
    /// customer's network), an IPv4-mapped IPv6 address as the IPv4 one.
    pub fn anonymous(ip: IpAddr) -> Self {
        // Shared: a new one per request would cost an allocation each.
        static ANONYMOUS: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("anonymous"));
        Self {
            id: address_id(ip),
            plan: ANONYMOUS.clone(),
        }
    }

    /// The keys an address asks for (POST /api/v1/keys), on plan
    /// `key_requests`: counted per address as [`Self::anonymous`] counts it.
    pub fn key_requests(ip: IpAddr) -> Self {
        Self {
            id: format!("keys-for:{}", address_id(ip)),
            plan: Arc::from(KEY_REQUESTS_PLAN),
        }
    }

    /// A key holder, by key id.
    pub fn key(id: i64, plan: Arc<str>) -> Self {
        Self {
            id: format!("key:{id}"),
            plan,
        }
    }

    /// The counter name: `ip:...`, `keys-for:ip:...` or `key:<id>`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The plan whose limits apply.
    pub fn plan(&self) -> &str {
        &self.plan
    }
}

/// The plan counting the keys an address asks for (migrations/V18).
pub const KEY_REQUESTS_PLAN: &str = "key_requests";

/// An address as the counters name it: IPv4 per address, IPv6 per /64, an
/// IPv4-mapped IPv6 address as the IPv4 one.
fn address_id(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => format!("ip:{v4}"),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => format!("ip:{v4}"),
            None => {
                let s = v6.segments();
                let net = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
                format!("ip:{net}/64")
            }
        },
    }
}

/// The quota window a response reports in its `X-RateLimit-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The plan's quota per window.
    pub limit: u32,
    /// Requests left in the current window.
    pub remaining: u32,
    /// Unix seconds at which the current window ends and the quota is whole again.
    pub reset: i64,
}

/// Which limit refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The quota of the current window is used up.
    Quota,
    /// Too many requests in too short a time.
    Burst,
}

/// The outcome of [`Accountant::admit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Counted and admitted; no window for a plan without quota.
    Admitted(Option<Window>),
    /// Refused: wait `retry_after` seconds.
    Refused {
        /// Which limit.
        by: Refusal,
        /// Seconds to wait.
        retry_after: u32,
        /// The current window, if the plan has a quota.
        window: Option<Window>,
    },
    /// Admitted without counting: the plan has no limits.
    Unmetered,
    /// Admitted without counting: the accounting failed (fail open).
    Unaccounted,
}

impl Decision {
    /// Whether the request may go ahead.
    pub fn is_admitted(&self) -> bool {
        !matches!(self, Self::Refused { .. })
    }

    /// The window to report, if any.
    pub fn window(&self) -> Option<Window> {
        match self {
            Self::Admitted(window) | Self::Refused { window, .. } => *window,
            Self::Unmetered | Self::Unaccounted => None,
        }
    }
}

type Waiters = Vec<oneshot::Sender<Decision>>;

#[derive(Debug)]
struct Inner {
    pool: Pool,
    /// Per subject: waiting requests, the call in flight, leases; and the
    /// subjects due for the next call.
    queue: Mutex<Queue>,
    /// Wakes the dispatcher holding the next call when its batch has filled.
    filled: tokio::sync::Notify,
    /// Leased units that expired unused, to give back.
    releases: Mutex<Vec<Release>>,
    /// Subjects the database refused, until it would admit them again.
    blocked: Mutex<HashMap<Subject, Blocked>>,
    /// Failures are logged at most once per 10 s.
    failure_log: Throttle,
    requests: AtomicU64,
    calls: AtomicU64,
    failures: AtomicU64,
    refused_locally: AtomicU64,
    leased: AtomicU64,
    released: AtomicU64,
}

/// Counters since start, for `/healthz`: how well requests batch, how often
/// the accounting failed open, how much was leased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Requests counted (or attempted).
    pub requests: u64,
    /// Calls of `api.admit_batch()`.
    pub db_calls: u64,
    /// Requests admitted uncounted because the accounting failed.
    pub failed_open: u64,
    /// Requests refused without a call: a refusal by the database still held.
    pub refused_locally: u64,
    /// Units granted ahead of requests (leases).
    pub leased: u64,
    /// Leased units given back unused (`api.release()`).
    pub released: u64,
}

/// Counts requests against their subject's plan in the database.
#[derive(Debug, Clone)]
pub struct Accountant {
    inner: Arc<Inner>,
}

impl Accountant {
    /// An accountant over `pool` (the server's control pool: the accounting
    /// must not wait behind data reads).
    pub fn new(pool: Pool) -> Self {
        Self {
            inner: Arc::new(Inner {
                pool,
                queue: Mutex::new(Queue::default()),
                filled: tokio::sync::Notify::new(),
                releases: Mutex::new(Vec::new()),
                blocked: Mutex::new(HashMap::new()),
                failure_log: Throttle::new(Duration::from_secs(10)),
                requests: AtomicU64::new(0),
                calls: AtomicU64::new(0),
                failures: AtomicU64::new(0),
                refused_locally: AtomicU64::new(0),
                leased: AtomicU64::new(0),
                released: AtomicU64::new(0),
            }),
        }
    }

    /// Counts one request of `subject`: admitted or refused, with the window
    /// to report. Never fails: an accounting error admits uncounted.
    pub async fn admit(&self, subject: &Subject) -> Decision {
        let now = Instant::now();
        let mut expired = Vec::new();
        let leased = {
            let mut queue = self.inner.lock();
            let slot = queue.slot(subject, now);
            slot.seen = now;
            slot.demand = slot.demand.saturating_add(1);
            let leased = slot.take_leased(subject, now, &mut expired);
            // Ask ahead when half a lease is gone, so that requests rarely wait.
            if leased.is_some() && slot.wants_lease(now) {
                self.inner.enqueue(&mut queue, subject);
            }
            leased
        };
        if !expired.is_empty() {
            self.inner.releases().append(&mut expired);
        }
        if let Some(decision) = leased {
            return decision;
        }
        // A count never goes down within a window, and a bucket refills no
        // faster than its rate: after a refusal, the database would refuse
        // every request until the time it named. (Leased units, granted
        // before, are still good.)
        if let Some(refused) = self.inner.known_refused(subject) {
            self.inner.refused_locally.fetch_add(1, Ordering::Relaxed);
            return refused;
        }
        let (tx, rx) = oneshot::channel();
        {
            let mut queue = self.inner.lock();
            queue.slot(subject, now).waiters.push(tx);
            self.inner.enqueue(&mut queue, subject);
        }
        // A closed channel means the call's task died: fail open. A request
        // waits for its admission at most ANSWER_TIMEOUT in all, also when it
        // queued behind a call to a database that stopped answering (its own
        // call would wait that long again): then it goes ahead uncounted.
        match tokio::time::timeout(ANSWER_TIMEOUT, rx).await {
            Ok(decision) => decision.unwrap_or(Decision::Unaccounted),
            Err(_) => {
                self.inner.failures.fetch_add(1, Ordering::Relaxed);
                self.inner
                    .log_failure(subject, &format!("no decision within {ANSWER_TIMEOUT:?}"));
                Decision::Unaccounted
            }
        }
    }

    /// Counters since start.
    pub fn stats(&self) -> Stats {
        let load = |n: &AtomicU64| n.load(Ordering::Relaxed);
        Stats {
            requests: load(&self.inner.requests),
            db_calls: load(&self.inner.calls),
            failed_open: load(&self.inner.failures),
            refused_locally: load(&self.inner.refused_locally),
            leased: load(&self.inner.leased),
            released: load(&self.inner.released),
        }
    }
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn releases(&self) -> std::sync::MutexGuard<'_, Vec<Release>> {
        self.releases.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn log_failure(&self, subject: &Subject, reason: &str) {
        if let Some(suppressed) = self.failure_log.admit() {
            tracing::warn!(
                subject = subject.id(),
                %reason,
                suppressed,
                "quota accounting failed; admitting uncounted (logged at most once per 10 s)"
            );
        }
    }
}

/// One statement of the accounting on a control connection: the connection
/// within [`ACCOUNTING_TIMEOUT`], then the answer within [`ANSWER_TIMEOUT`].
/// The reason for the log when either fails.
async fn on_connection<T, F>(
    pool: &Pool,
    work: impl FnOnce(deadpool_postgres::Object) -> F,
) -> Result<T, String>
where
    F: std::future::Future<Output = anyhow::Result<T>>,
{
    let client = match tokio::time::timeout(ACCOUNTING_TIMEOUT, pool.get()).await {
        Ok(Ok(client)) => client,
        Ok(Err(err)) => return Err(format!("no database connection: {err}")),
        Err(_) => {
            return Err(format!(
                "no database connection within {ACCOUNTING_TIMEOUT:?}"
            ));
        }
    };
    match tokio::time::timeout(ANSWER_TIMEOUT, work(client)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(format!("{err:#}")),
        Err(_) => Err(format!("no answer within {ANSWER_TIMEOUT:?}")),
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_subjects_group_ipv6_by_64_and_unmap_ipv4() {
        let ip = |s: &str| s.parse::<IpAddr>().expect("ip");
        assert_eq!(Subject::anonymous(ip("203.0.113.9")).id(), "ip:203.0.113.9");
        assert_eq!(
            Subject::anonymous(ip("::ffff:203.0.113.9")).id(),
            "ip:203.0.113.9"
        );
        assert_eq!(
            Subject::anonymous(ip("2001:db8:1:2:aaaa::1")).id(),
            Subject::anonymous(ip("2001:db8:1:2:bbbb::2")).id()
        );
        assert_eq!(
            Subject::anonymous(ip("2001:db8:1:2::1")).id(),
            "ip:2001:db8:1:2::/64"
        );
        assert_eq!(Subject::anonymous(ip("::1")).plan(), "anonymous");
    }
}
