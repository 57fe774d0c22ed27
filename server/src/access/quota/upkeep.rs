//! Upkeep beside a running server: expired leases given back, idle subjects
//! and stale refusals forgotten, the database's counters swept; and every
//! lease given back when the server stops.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::lease::LEASE_TTL;
use super::{Accountant, Inner, on_connection};

/// How often a server deletes ended windows and full buckets.
pub const SWEEP_EVERY: Duration = Duration::from_secs(300);
/// A subject with nothing pending is forgotten after this long.
const IDLE_SLOT: Duration = Duration::from_secs(2);

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
                accountant.inner.forget_stale_refusals();
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

impl Inner {
    /// Drops expired leases (queuing their unused units) and forgets
    /// subjects with nothing pending that were not seen for [`IDLE_SLOT`].
    fn expire_leases(&self) {
        let now = Instant::now();
        let mut queue = self.lock();
        let mut releases = self.releases();
        queue.slots.retain(|subject, slot| {
            while slot.leases.front().is_some_and(|l| l.expires <= now) {
                releases.extend(slot.leases.pop_front().and_then(|l| l.release(subject)));
            }
            !slot.is_idle(now, IDLE_SLOT)
        });
    }

    /// Gives the queued units back to the database (`api.release()`). Units
    /// that cannot be given back stay counted: the subject loses them, and
    /// nobody is ever over-admitted.
    async fn give_back(&self) {
        let queued = std::mem::take(&mut *self.releases());
        for release in queued {
            match on_connection(&self.pool, |client| release.call(client)).await {
                Ok(()) => {
                    self.released
                        .fetch_add(u64::from(release.units), Ordering::Relaxed);
                }
                Err(reason) => self.log_failure(&release.subject, &reason),
            }
        }
    }
}
