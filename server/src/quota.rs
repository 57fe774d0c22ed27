//! Quota and burst accounting (spec part 8, docs/keys.md).
//!
//! The database is the source of truth: `api.admit()` counts in a fixed window
//! per subject and checks a token bucket, atomically, so that every server
//! process sharing the database draws on one budget and a quota is never
//! over-admitted. [`Accountant::admit`] is the one entry point, for the REST
//! hoop and for the MCP channel alike.
//!
//! To stay cheap, the requests of one subject that arrive while a call for
//! that subject is in flight wait for it and then go to the database together,
//! as one call of cost N; the database grants them in order. No unit is ever
//! reserved ahead of a request, so nothing is lost or over-granted when a
//! process stops.
//!
//! Accounting fails open: when the database cannot be asked within
//! [`ACCOUNTING_TIMEOUT`], the request goes ahead uncounted (and without
//! rate-limit headers). Endpoints that need the database answer 503 anyway.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use deadpool_postgres::Pool;
use tokio::sync::oneshot;

/// How long a request waits for its accounting before it is let through uncounted.
pub const ACCOUNTING_TIMEOUT: Duration = Duration::from_millis(1500);
/// How often a server deletes ended windows and full buckets.
pub const SWEEP_EVERY: Duration = Duration::from_secs(300);
/// The most requests sent to the database in one call.
const MAX_BATCH: usize = 1024;
/// A subject whose quota is used up is refused without asking the database
/// until its window ends, but asked again after this long in case its plan's
/// quota was raised meanwhile.
pub const EXHAUSTED_RECHECK: Duration = Duration::from_secs(30);
/// Past this many remembered refused subjects, the stale ones are dropped
/// (and if that is not enough, all of them: they are only a shortcut).
const MAX_BLOCKED: usize = 100_000;

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
        let id = match ip {
            IpAddr::V4(v4) => format!("ip:{v4}"),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => format!("ip:{v4}"),
                None => {
                    let s = v6.segments();
                    let net = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
                    format!("ip:{net}/64")
                }
            },
        };
        Self {
            id,
            plan: Arc::from("anonymous"),
        }
    }

    /// A key holder, by key id.
    pub fn key(id: i64, plan: Arc<str>) -> Self {
        Self {
            id: format!("key:{id}"),
            plan,
        }
    }

    /// The counter name: `ip:...` or `key:<id>`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The plan whose limits apply.
    pub fn plan(&self) -> &str {
        &self.plan
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

/// One answer of `api.admit()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Grant {
    granted: usize,
    quota: Option<i32>,
    used: Option<i32>,
    reset_at: Option<i64>,
    retry_after: Option<i32>,
    refused_by: Option<Refusal>,
    wait_us: Option<i64>,
}

impl Grant {
    /// The decision for the `index`-th request (0-based) of the batch.
    fn decision(&self, index: usize) -> Decision {
        let window = |used_before_this: i64| -> Option<Window> {
            let (quota, reset) = (self.quota?, self.reset_at?);
            Some(Window {
                limit: u32::try_from(quota).unwrap_or(0),
                remaining: u32::try_from(i64::from(quota) - used_before_this).unwrap_or(0),
                reset,
            })
        };
        let used = i64::from(self.used.unwrap_or(0));
        if index < self.granted {
            // Used after this request: what was used before the batch, plus
            // the requests of the batch up to and including this one.
            let granted = i64::try_from(self.granted).unwrap_or(i64::MAX);
            let index = i64::try_from(index).unwrap_or(i64::MAX);
            Decision::Admitted(window(used - granted + index + 1))
        } else {
            Decision::Refused {
                by: self.refused_by.unwrap_or(Refusal::Burst),
                retry_after: self
                    .retry_after
                    .and_then(|s| u32::try_from(s).ok())
                    .unwrap_or(1)
                    .max(1),
                window: window(used),
            }
        }
    }
}

type Waiters = Vec<oneshot::Sender<Decision>>;

#[derive(Debug)]
struct Inner {
    pool: Pool,
    /// Subjects with a call in flight, and the requests waiting for the next one.
    pending: Mutex<HashMap<Subject, Waiters>>,
    /// Subjects the database refused, until it would admit them again.
    blocked: Mutex<HashMap<Subject, Blocked>>,
    /// When a failure was last logged (ms since `started`), to log one per 10 s.
    last_failure_log: AtomicU64,
    started: Instant,
    requests: AtomicU64,
    calls: AtomicU64,
    failures: AtomicU64,
    refused_locally: AtomicU64,
}

/// A refusal that holds until `until`: the end of the quota window (capped
/// at [`EXHAUSTED_RECHECK`]) or the time the token bucket refills by one.
#[derive(Debug, Clone, Copy)]
struct Blocked {
    by: Refusal,
    window: Option<Window>,
    until: Instant,
}

/// Counters since start, for `/healthz`: how well requests batch, how often
/// the accounting failed open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Requests counted (or attempted).
    pub requests: u64,
    /// Calls of `api.admit()`.
    pub db_calls: u64,
    /// Requests admitted uncounted because the accounting failed.
    pub failed_open: u64,
    /// Requests refused without a call: a refusal by the database still held.
    pub refused_locally: u64,
}

/// Counts requests against their subject's plan in the database.
#[derive(Debug, Clone)]
pub struct Accountant {
    inner: Arc<Inner>,
}

impl Accountant {
    /// An accountant over the web pool.
    pub fn new(pool: Pool) -> Self {
        Self {
            inner: Arc::new(Inner {
                pool,
                pending: Mutex::new(HashMap::new()),
                blocked: Mutex::new(HashMap::new()),
                last_failure_log: AtomicU64::new(u64::MAX),
                started: Instant::now(),
                requests: AtomicU64::new(0),
                calls: AtomicU64::new(0),
                failures: AtomicU64::new(0),
                refused_locally: AtomicU64::new(0),
            }),
        }
    }

    /// Counts one request of `subject`: admitted or refused, with the window
    /// to report. Never fails: an accounting error admits uncounted.
    pub async fn admit(&self, subject: &Subject) -> Decision {
        // A count never goes down within a window, and a bucket refills no
        // faster than its rate: after a refusal, the database would refuse
        // every request until the time it named.
        if let Some(refused) = self.inner.known_refused(subject) {
            self.inner.refused_locally.fetch_add(1, Ordering::Relaxed);
            return refused;
        }
        let (tx, rx) = oneshot::channel();
        let lead = {
            let mut pending = self.inner.lock();
            match pending.get_mut(subject) {
                Some(waiters) => {
                    waiters.push(tx);
                    false
                }
                None => {
                    pending.insert(subject.clone(), vec![tx]);
                    true
                }
            }
        };
        if lead {
            tokio::spawn(flush(self.inner.clone(), subject.clone()));
        }
        // A closed channel means the flushing task died: fail open.
        rx.await.unwrap_or(Decision::Unaccounted)
    }

    /// Counters since start.
    pub fn stats(&self) -> Stats {
        Stats {
            requests: self.inner.requests.load(Ordering::Relaxed),
            db_calls: self.inner.calls.load(Ordering::Relaxed),
            failed_open: self.inner.failures.load(Ordering::Relaxed),
            refused_locally: self.inner.refused_locally.load(Ordering::Relaxed),
        }
    }

    /// Deletes ended windows and full buckets; returns the rows deleted.
    pub async fn sweep(&self) -> anyhow::Result<i64> {
        let client = self.inner.pool.get().await?;
        let row = client
            .query_one("select api.sweep_counters()", &[])
            .await
            .context("sweeping quota counters")?;
        Ok(row.get(0))
    }

    /// Sweeps the database's counters, and forgets refusals that no longer
    /// hold, every [`SWEEP_EVERY`] until the task is aborted.
    pub fn spawn_sweeper(&self) -> tokio::task::JoinHandle<()> {
        let accountant = self.clone();
        tokio::spawn(async move {
            // The first sweep one period after start, not at once.
            let mut every =
                tokio::time::interval_at(tokio::time::Instant::now() + SWEEP_EVERY, SWEEP_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
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
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Subject, Waiters>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn known_refused(&self, subject: &Subject) -> Option<Decision> {
        let mut blocked = self.blocked.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = *blocked.get(subject)?;
        let wait = entry.until.saturating_duration_since(Instant::now());
        let retry_after = match entry.by {
            Refusal::Quota => entry.window.map_or(0, |w| w.reset - unix_now()),
            Refusal::Burst => i64::try_from(wait.as_micros().div_ceil(1_000_000)).unwrap_or(1),
        };
        if wait.is_zero() || retry_after <= 0 {
            blocked.remove(subject);
            return None;
        }
        Some(Decision::Refused {
            by: entry.by,
            retry_after: u32::try_from(retry_after).unwrap_or(u32::MAX),
            window: entry.window,
        })
    }

    fn forget_stale_refusals(&self) {
        let now = Instant::now();
        self.blocked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, b| b.until > now);
    }

    /// Remembers the refusal of a call sent at `sent`: the database measured
    /// `wait_us` from a moment after that, so this never blocks for longer.
    fn remember_refused(&self, subject: &Subject, grant: &Grant, sent: Instant) {
        let (Some(by), Some(wait_us)) = (grant.refused_by, grant.wait_us) else {
            return;
        };
        let mut wait = Duration::from_micros(u64::try_from(wait_us).unwrap_or(0));
        if by == Refusal::Quota {
            wait = wait.min(EXHAUSTED_RECHECK);
        }
        let mut blocked = self.blocked.lock().unwrap_or_else(PoisonError::into_inner);
        if blocked.len() >= MAX_BLOCKED {
            let now = Instant::now();
            blocked.retain(|_, b| b.until > now);
            if blocked.len() >= MAX_BLOCKED {
                blocked.clear();
            }
        }
        blocked.insert(
            subject.clone(),
            Blocked {
                by,
                window: grant.decision(usize::MAX).window(),
                until: sent + wait,
            },
        );
    }

    fn log_failure(&self, subject: &Subject, reason: &str) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last = self.last_failure_log.load(Ordering::Relaxed);
        if (last == u64::MAX || now.saturating_sub(last) >= 10_000)
            && self
                .last_failure_log
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(
                subject = subject.id(),
                %reason,
                "quota accounting failed; admitting uncounted (logged once per 10 s)"
            );
        }
    }
}

/// Removes the subject's entry if its flushing task ends early (a panic), so
/// that its waiters are released (fail open) and the next request leads anew.
struct FlushGuard {
    inner: Arc<Inner>,
    subject: Subject,
    done: bool,
}

impl Drop for FlushGuard {
    fn drop(&mut self) {
        if !self.done {
            self.inner.lock().remove(&self.subject);
        }
    }
}

/// Sends the subject's waiting requests to the database, batch by batch,
/// until none is left.
async fn flush(inner: Arc<Inner>, subject: Subject) {
    let mut guard = FlushGuard {
        inner: inner.clone(),
        subject: subject.clone(),
        done: false,
    };
    loop {
        let batch: Waiters = {
            let mut pending = inner.lock();
            let Some(waiters) = pending.get_mut(&subject) else {
                guard.done = true;
                return;
            };
            if waiters.is_empty() {
                pending.remove(&subject);
                guard.done = true;
                return;
            }
            let n = waiters.len().min(MAX_BATCH);
            waiters.drain(..n).collect()
        };
        let n = u64::try_from(batch.len()).unwrap_or(u64::MAX);
        inner.requests.fetch_add(n, Ordering::Relaxed);
        inner.calls.fetch_add(1, Ordering::Relaxed);
        let sent = Instant::now();
        let answer = tokio::time::timeout(
            ACCOUNTING_TIMEOUT,
            call_admit(&inner.pool, &subject, batch.len()),
        )
        .await;
        match answer {
            Ok(Ok(grant)) => {
                inner.remember_refused(&subject, &grant, sent);
                for (index, waiter) in batch.into_iter().enumerate() {
                    // A waiter that gave up (client gone) is simply skipped.
                    let _ = waiter.send(grant.decision(index));
                }
            }
            outcome => {
                let reason = match outcome {
                    Ok(Err(err)) => format!("{err:#}"),
                    _ => format!("no answer within {ACCOUNTING_TIMEOUT:?}"),
                };
                inner.failures.fetch_add(n, Ordering::Relaxed);
                inner.log_failure(&subject, &reason);
                for waiter in batch {
                    let _ = waiter.send(Decision::Unaccounted);
                }
            }
        }
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

async fn call_admit(pool: &Pool, subject: &Subject, cost: usize) -> anyhow::Result<Grant> {
    let client = pool.get().await.context("no database connection")?;
    let statement = client
        .prepare_cached(
            "select granted, quota, used, reset_at, retry_after, refused_by, wait_us
             from api.admit($1, $2, $3)",
        )
        .await?;
    let cost = i32::try_from(cost).context("batch too large")?;
    let row = client
        .query_one(&statement, &[&subject.id(), &subject.plan(), &cost])
        .await?;
    let granted: i32 = row.get(0);
    Ok(Grant {
        granted: usize::try_from(granted).unwrap_or(0),
        quota: row.get(1),
        used: row.get(2),
        reset_at: row.get(3),
        retry_after: row.get(4),
        refused_by: match row.get::<_, Option<&str>>(5) {
            Some("quota") => Some(Refusal::Quota),
            Some(_) => Some(Refusal::Burst),
            None => None,
        },
        wait_us: row.get(6),
    })
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

    #[test]
    fn a_batch_grant_counts_down_in_order_and_refuses_the_rest() {
        let grant = Grant {
            granted: 2,
            quota: Some(10),
            used: Some(10),
            reset_at: Some(3600),
            retry_after: Some(120),
            refused_by: Some(Refusal::Quota),
            wait_us: Some(120_000_000),
        };
        let window = |remaining| {
            Some(Window {
                limit: 10,
                remaining,
                reset: 3600,
            })
        };
        assert_eq!(grant.decision(0), Decision::Admitted(window(1)));
        assert_eq!(grant.decision(1), Decision::Admitted(window(0)));
        assert_eq!(
            grant.decision(2),
            Decision::Refused {
                by: Refusal::Quota,
                retry_after: 120,
                window: window(0)
            }
        );
    }

    #[test]
    fn a_plan_without_quota_reports_no_window() {
        let grant = Grant {
            granted: 1,
            quota: None,
            used: None,
            reset_at: None,
            retry_after: Some(1),
            refused_by: Some(Refusal::Burst),
            wait_us: Some(400_000),
        };
        assert_eq!(grant.decision(0), Decision::Admitted(None));
        assert!(!grant.decision(1).is_admitted());
        assert_eq!(grant.decision(1).window(), None);
    }
}
