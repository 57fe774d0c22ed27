//! Quota and burst accounting (spec part 8, docs/keys.md).
//!
//! The database is the source of truth: `api.admit()` counts in a fixed window
//! per subject and checks a token bucket, atomically, so that every server
//! process sharing the database draws on one budget and a quota is never
//! over-admitted. [`Accountant::admit`] is the one entry point, for the REST
//! hoop and for the MCP channel alike.
//!
//! The parts, each using only those listed before it (none of them uses
//! this module):
//! - [`decision`]: the values (the subject, its window, the decision).
//! - [`connection`]: the one way to the database, bounded twice (below).
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
//! - [`admission`]: the accounting's shared state, and the batches: requests
//!   waiting for admission, of any number of subjects, go to the database
//!   together, one `api.admit_batch()` call with one entry per subject (its
//!   waiting requests as the cost), sent when the previous call has returned
//!   and its clients are back with their next requests (held at most
//!   [`BATCH_WAIT`]), one call at a time. Many anonymous clients sending a
//!   few requests each therefore share calls.
//! - here: the [`Accountant`], the one entry point, and its upkeep beside a
//!   running server (expired leases given back, idle subjects forgotten, the
//!   database's counters swept every [`SWEEP_EVERY`]).
//!
//! Accounting fails open only when the database is unreachable: when no
//! connection comes within [`ACCOUNTING_TIMEOUT`], or the connection fails or
//! stops answering for [`ANSWER_TIMEOUT`], the request goes ahead uncounted
//! (and without rate-limit headers). A call sent on a live connection is
//! waited for, however loaded the database: a slow database slows admission
//! and never waives it, so no process admits past a quota while the database
//! answers. Endpoints that need the database answer 503 anyway.

mod admission;
mod connection;
mod decision;
mod grants;
mod lease;
mod refusals;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use deadpool_postgres::Pool;
use tokio::sync::oneshot;

pub use admission::BATCH_WAIT;
pub use connection::{ACCOUNTING_TIMEOUT, ANSWER_TIMEOUT};
pub use decision::{Decision, EXHAUSTED_RECHECK, KEY_REQUESTS_PLAN, Refusal, Subject, Window};
pub use lease::{LEASE_SHARE_OF_REMAINING, LEASE_SPAN, LEASE_TTL};

use admission::Inner;

/// How often a server deletes ended windows and full buckets.
pub const SWEEP_EVERY: Duration = Duration::from_secs(300);

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
            inner: Arc::new(Inner::new(pool)),
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
        if let Some(refused) = self.inner.refusals.known(subject) {
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

impl Accountant {
    /// Deletes ended windows and full buckets; returns the rows deleted.
    pub async fn sweep(&self) -> anyhow::Result<i64> {
        let client = self.inner.pool.get().await?;
        let row = client
            .query_one("select api.sweep_counters()", &[])
            .await
            .context("sweeping quota counters")?;
        Ok(row.get(0))
    }

    /// Gives back every leased unit not used yet (and those that expired):
    /// for a server that stops.
    async fn release_leases(&self) {
        {
            let mut queue = self.inner.lock();
            let mut releases = self.inner.releases();
            for (subject, slot) in queue.slots.iter_mut() {
                releases.extend(slot.leases.drain(..).filter_map(|l| l.release(subject)));
            }
        }
        self.inner.give_back().await;
    }

    /// Runs `work` (a server) with the accountant's upkeep beside it, then
    /// gives back the leases left: see [`Self::spawn_sweeper`].
    pub async fn upkeep_while<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let sweeper = self.spawn_sweeper();
        let outcome = work.await;
        sweeper.abort();
        self.release_leases().await;
        outcome
    }

    /// Every [`LEASE_TTL`]: gives back expired leases and forgets idle
    /// subjects and refusals that no longer hold; every [`SWEEP_EVERY`]:
    /// sweeps the database's counters. Until the task is aborted.
    fn spawn_sweeper(&self) -> tokio::task::JoinHandle<()> {
        let accountant = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(LEASE_TTL);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // The first sweep one period after start, not at once.
            let mut last_sweep = Instant::now();
            loop {
                tick.tick().await;
                accountant.inner.expire_leases();
                accountant.inner.give_back().await;
                if last_sweep.elapsed() < SWEEP_EVERY {
                    continue;
                }
                last_sweep = Instant::now();
                accountant.inner.refusals.forget_stale();
                match accountant.sweep().await {
                    Ok(deleted) => tracing::debug!(deleted, "quota counters swept"),
                    Err(err) => {
                        tracing::warn!(error = %format!("{err:#}"), "sweeping quota counters failed")
                    }
                }
            }
        })
    }
}
