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
//! - [`shards`]: the subjects of plans with a burst under 10 a second
//!   (anonymous, free) are split into 64 shards; a process holding a shard's
//!   lease admits its subjects in memory, without waiting for the database,
//!   and writes their counts back; the database defers them for every other
//!   process, and the holder hands the shard over when one asks.
//! - [`admission`]: the accounting's shared state, and the batches: requests
//!   waiting for admission, of any number of subjects, go to the database
//!   together, one `api.admit_batch()` call with one entry per subject (its
//!   waiting requests as the cost), sent when the previous call has returned
//!   and its clients are back with their next requests (held at most
//!   [`BATCH_WAIT`]), one call at a time. Many anonymous clients sending a
//!   few requests each therefore share calls. A request is first asked of
//!   the shards; one the database defers is asked again after
//!   [`DEFER_RETRY`].
//! - here: the [`Accountant`], the one entry point, and its upkeep beside a
//!   running server (expired leases given back, idle subjects forgotten, the
//!   database's counters swept every [`SWEEP_EVERY`]; the shard rounds and
//!   claims).
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
mod shards;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use deadpool_postgres::Pool;

pub use admission::{BATCH_WAIT, DEFER_RETRY};
pub use connection::{ACCOUNTING_TIMEOUT, ANSWER_TIMEOUT};
pub use decision::{Decision, EXHAUSTED_RECHECK, KEY_REQUESTS_PLAN, Refusal, Subject, Window};
pub use lease::{LEASE_SHARE_OF_REMAINING, LEASE_SPAN, LEASE_TTL};
pub use shards::{
    CLAIM_EVERY, LEASE_MARGIN, MAX_SHARD_SUBJECTS, PENDING_CAP, RENEW_EVERY, ROUND_EVERY,
    SHARD_LEASE, SHARDS, SHARED_COOLDOWN, WRITE_AT, WRITE_EVERY,
};

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
    /// Requests decided in memory, their shard's lease being this process's.
    pub in_memory: u64,
    /// Shard leases this process holds now.
    pub shards_held: u64,
    /// Calls of `api.shard_round()` (renewals and counts written back).
    pub shard_rounds: u64,
    /// Calls of `api.claim_shards()`.
    pub shard_claims: u64,
    /// Requests the database deferred because another process held their
    /// shard (asked again once it gave the lease up).
    pub deferred: u64,
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
        self.inner.admit(subject).await
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
            in_memory: load(&self.inner.shards.in_memory),
            shards_held: u64::try_from(self.inner.shards.held()).unwrap_or(u64::MAX),
            shard_rounds: load(&self.inner.shards.rounds),
            shard_claims: load(&self.inner.shards.claims),
            deferred: load(&self.inner.deferred),
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

    /// Runs `work` (a server) with the accountant's upkeep beside it: see
    /// [`Self::spawn_sweeper`], and the shard rounds
    /// (server/src/access/quota/shards.rs), which admit in memory the subjects
    /// of the shards this process holds. Then gives back the leases left and
    /// gives up the shards after writing their counts back.
    pub async fn upkeep_while<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let sweeper = self.spawn_sweeper();
        let (stop, stopped) = tokio::sync::watch::channel(false);
        // Stopped between rounds and claims, not aborted: a round's counts in
        // flight are written or listed again, a claim's shards held or
        // given up, never dropped.
        let (inner, watch) = (self.inner.clone(), stopped.clone());
        let rounds = tokio::spawn(async move { inner.shards.run_rounds(watch).await });
        let inner = self.inner.clone();
        let claims = tokio::spawn(async move { inner.shards.run_claims(stopped).await });
        let outcome = work.await;
        sweeper.abort();
        let _ = stop.send(true);
        let _ = rounds.await;
        let _ = claims.await;
        self.inner.shards.release_shards().await;
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
