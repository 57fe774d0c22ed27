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
//! as one call of cost N; the database grants them in order.
//!
//! A busy subject is also served from a *lease*: a call may ask for more units
//! than it has requests waiting, about [`LEASE_SPAN`] of the subject's recent
//! rate, and the units granted beyond its requests serve the next requests
//! without a call. The database counts leased units when it grants them, so a
//! lease never over-admits a quota, and they are taken only while the window
//! has plenty left (at most 1/[`LEASE_SHARE_OF_REMAINING`] of it) and never
//! more than the bucket refills in [`LEASE_TTL`]; a lease is used up or
//! expires within [`LEASE_TTL`], and its unused units are given back
//! (`api.release()`), also when the server stops. Only a process that dies
//! without stopping loses its leases' unused units, which then count as used:
//! never more than one lease per subject, and nothing for a subject at a
//! human rate or near its limits (such a subject never gets a lease).
//!
//! Accounting fails open: when the database cannot be asked within
//! [`ACCOUNTING_TIMEOUT`], the request goes ahead uncounted (and without
//! rate-limit headers). Endpoints that need the database answer 503 anyway.

use std::collections::{HashMap, VecDeque};
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
/// A lease holds about this long of its subject's recent traffic.
pub const LEASE_SPAN: Duration = Duration::from_millis(10);
/// Leased units not used within this long go back to the database; it also
/// bounds a lease by what the subject's bucket refills in that time.
pub const LEASE_TTL: Duration = Duration::from_millis(100);
/// A lease takes at most this fraction (1/N) of what is left of the window.
pub const LEASE_SHARE_OF_REMAINING: u32 = 64;
/// The most units leased at once.
const MAX_LEASE: u32 = 1024;
/// A subject with nothing pending is forgotten after this long.
const IDLE_SLOT: Duration = Duration::from_secs(2);

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
    /// The plan's burst_per_second (None: unlimited).
    burst: Option<i32>,
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

/// Units a call took ahead of requests: `grant.decision(next)` is the next one.
#[derive(Debug)]
struct Lease {
    grant: Grant,
    next: usize,
    expires: Instant,
}

impl Lease {
    fn left(&self) -> usize {
        self.grant.granted.saturating_sub(self.next)
    }

    /// Its unused units, to give back.
    fn release(&self, subject: &Subject) -> Option<Release> {
        let units = u32::try_from(self.left()).unwrap_or(u32::MAX);
        (units > 0).then(|| Release {
            subject: subject.clone(),
            reset_at: self.grant.reset_at,
            units,
        })
    }
}

/// One subject's requests in this process.
#[derive(Debug)]
struct Slot {
    /// Requests waiting for the next call.
    waiters: Waiters,
    /// Whether a call (flush) is running for this subject.
    in_flight: bool,
    /// Units granted ahead, oldest first.
    leases: VecDeque<Lease>,
    /// Requests since the last call began, and when it began: the rate a
    /// lease is sized by.
    demand: u32,
    last_call: Option<Instant>,
    /// From the last answer: what was left of the window (None: no quota)
    /// and the plan's burst rate (None: unlimited).
    window_left: Option<u32>,
    burst: Option<i32>,
    /// The last time a request arrived.
    seen: Instant,
}

impl Slot {
    fn new(now: Instant) -> Self {
        Self {
            waiters: Vec::new(),
            in_flight: false,
            leases: VecDeque::new(),
            demand: 0,
            last_call: None,
            window_left: None,
            burst: None,
            seen: now,
        }
    }

    /// The next leased unit's decision, dropping expired and used-up leases
    /// (the unused units of expired ones go to `expired`).
    fn take_leased(
        &mut self,
        subject: &Subject,
        now: Instant,
        expired: &mut Vec<Release>,
    ) -> Option<Decision> {
        while let Some(lease) = self.leases.front_mut() {
            if lease.left() > 0 && lease.expires > now {
                let decision = lease.grant.decision(lease.next);
                lease.next += 1;
                return Some(decision);
            }
            expired.extend(lease.release(subject));
            self.leases.pop_front();
        }
        None
    }

    /// Takes in the answer to a call for `n` requests sent at `sent`: what is
    /// left of the window, the plan's burst, and the units beyond the `n` as
    /// a lease (returns how many).
    fn keep(&mut self, grant: Grant, n: usize, sent: Instant) -> usize {
        self.window_left = grant
            .quota
            .map(|q| u32::try_from(q - grant.used.unwrap_or(q)).unwrap_or(0));
        self.burst = grant.burst;
        let leased = grant.granted.saturating_sub(n);
        if leased > 0 {
            let window_end = grant.reset_at.map_or(LEASE_TTL, |end| {
                Duration::from_secs(u64::try_from(end - unix_now()).unwrap_or(0))
            });
            self.leases.push_back(Lease {
                grant,
                next: n,
                expires: sent + LEASE_TTL.min(window_end),
            });
        }
        leased
    }

    /// Requests that arrived while a call was in flight take leased units
    /// first; the rest wait for the next call.
    fn serve_waiters(&mut self, subject: &Subject, expired: &mut Vec<Release>) {
        let now = Instant::now();
        for waiter in std::mem::take(&mut self.waiters) {
            match self.take_leased(subject, now, expired) {
                Some(decision) => {
                    // A waiter that gave up (client gone) is simply skipped.
                    let _ = waiter.send(decision);
                }
                None => self.waiters.push(waiter),
            }
        }
    }

    /// Whether less than half a lease is left: time to ask for the next.
    fn wants_lease(&self, now: Instant) -> bool {
        let left: usize = self.leases.iter().map(Lease::left).sum();
        left * 2 < usize::try_from(self.lease_size(now)).unwrap_or(0)
    }

    /// How many units the next call should take ahead of its requests: about
    /// [`LEASE_SPAN`] of the demand since the last call, within the limits
    /// the module documentation gives. Zero for a subject seen once.
    fn lease_size(&self, now: Instant) -> u32 {
        let Some(last) = self.last_call else {
            return 0;
        };
        let elapsed = now.saturating_duration_since(last).as_micros().max(1);
        let wanted = u128::from(self.demand) * LEASE_SPAN.as_micros() / elapsed;
        let mut size = u32::try_from(wanted).unwrap_or(u32::MAX).min(MAX_LEASE);
        if let Some(left) = self.window_left {
            size = size.min(left / LEASE_SHARE_OF_REMAINING);
        }
        if let Some(burst) = self.burst {
            let per_ttl =
                u128::from(u32::try_from(burst).unwrap_or(0)) * LEASE_TTL.as_micros() / 1_000_000;
            size = size.min(u32::try_from(per_ttl).unwrap_or(u32::MAX));
        }
        size
    }
}

/// The subject's slot, made when it has none (the subject is cloned only then:
/// this runs for every counted request).
fn slot_of<'a>(
    slots: &'a mut HashMap<Subject, Slot>,
    subject: &Subject,
    now: Instant,
) -> &'a mut Slot {
    if !slots.contains_key(subject) {
        slots.insert(subject.clone(), Slot::new(now));
    }
    slots
        .get_mut(subject)
        .unwrap_or_else(|| unreachable!("inserted above"))
}

/// Units to give back to the database.
#[derive(Debug)]
struct Release {
    subject: Subject,
    reset_at: Option<i64>,
    units: u32,
}

#[derive(Debug)]
struct Inner {
    pool: Pool,
    /// Per subject: waiting requests, the call in flight, leases.
    slots: Mutex<HashMap<Subject, Slot>>,
    /// Leased units that expired unused, to give back.
    releases: Mutex<Vec<Release>>,
    /// Subjects the database refused, until it would admit them again.
    blocked: Mutex<HashMap<Subject, Blocked>>,
    /// When a failure was last logged (ms since `started`), to log one per 10 s.
    last_failure_log: AtomicU64,
    started: Instant,
    requests: AtomicU64,
    calls: AtomicU64,
    failures: AtomicU64,
    refused_locally: AtomicU64,
    leased: AtomicU64,
    released: AtomicU64,
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
/// the accounting failed open, how much was leased.
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
    /// An accountant over the web pool.
    pub fn new(pool: Pool) -> Self {
        Self {
            inner: Arc::new(Inner {
                pool,
                slots: Mutex::new(HashMap::new()),
                releases: Mutex::new(Vec::new()),
                blocked: Mutex::new(HashMap::new()),
                last_failure_log: AtomicU64::new(u64::MAX),
                started: Instant::now(),
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
            let mut slots = self.inner.lock();
            let slot = slot_of(&mut slots, subject, now);
            slot.seen = now;
            slot.demand = slot.demand.saturating_add(1);
            let leased = slot.take_leased(subject, now, &mut expired);
            // Ask ahead when half a lease is gone, so that requests rarely wait.
            let ahead = leased.is_some() && !slot.in_flight && slot.wants_lease(now);
            if ahead {
                slot.in_flight = true;
                tokio::spawn(flush(self.inner.clone(), subject.clone()));
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
            let mut slots = self.inner.lock();
            let slot = slot_of(&mut slots, subject, now);
            slot.waiters.push(tx);
            if !slot.in_flight {
                slot.in_flight = true;
                tokio::spawn(flush(self.inner.clone(), subject.clone()));
            }
        }
        // A closed channel means the flushing task died: fail open.
        rx.await.unwrap_or(Decision::Unaccounted)
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
            let mut slots = self.inner.lock();
            let mut releases = self.inner.releases();
            for (subject, slot) in slots.iter_mut() {
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
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Subject, Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn releases(&self) -> std::sync::MutexGuard<'_, Vec<Release>> {
        self.releases.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops expired leases (queuing their unused units) and forgets
    /// subjects with nothing pending that were not seen for [`IDLE_SLOT`].
    fn expire_leases(&self) {
        let now = Instant::now();
        let mut slots = self.lock();
        let mut releases = self.releases();
        slots.retain(|subject, slot| {
            while slot.leases.front().is_some_and(|l| l.expires <= now) {
                releases.extend(slot.leases.pop_front().and_then(|l| l.release(subject)));
            }
            slot.in_flight
                || !slot.waiters.is_empty()
                || !slot.leases.is_empty()
                || now.saturating_duration_since(slot.seen) < IDLE_SLOT
        });
    }

    /// Gives the queued units back to the database (`api.release()`). Units
    /// that cannot be given back stay counted: the subject loses them, and
    /// nobody is ever over-admitted.
    async fn give_back(&self) {
        let queued = std::mem::take(&mut *self.releases());
        for release in queued {
            match in_time(call_release(&self.pool, &release)).await {
                Ok(()) => {
                    self.released
                        .fetch_add(u64::from(release.units), Ordering::Relaxed);
                }
                Err(reason) => self.log_failure(&release.subject, &reason),
            }
        }
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

/// Sends the subject's waiting requests to the database, batch by batch, with
/// the units of a lease when the subject is busy, until none is left waiting.
async fn flush(inner: Arc<Inner>, subject: Subject) {
    let mut guard = FlushGuard {
        inner: inner.clone(),
        subject: subject.clone(),
        done: false,
    };
    loop {
        let now = Instant::now();
        let (batch, ahead): (Waiters, u32) = {
            let mut slots = inner.lock();
            let Some(slot) = slots.get_mut(&subject) else {
                guard.done = true;
                return;
            };
            let n = slot.waiters.len().min(MAX_BATCH);
            if n == 0 && !slot.wants_lease(now) {
                slot.in_flight = false;
                guard.done = true;
                return;
            }
            let ahead = slot.lease_size(now);
            slot.demand = 0;
            slot.last_call = Some(now);
            (slot.waiters.drain(..n).collect(), ahead)
        };
        let n = batch.len();
        inner
            .requests
            .fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
        inner.calls.fetch_add(1, Ordering::Relaxed);
        let cost = n + usize::try_from(ahead).unwrap_or(0);
        match in_time(call_admit(&inner.pool, &subject, cost)).await {
            Ok(grant) => {
                if grant.granted < n {
                    inner.remember_refused(&subject, &grant, now);
                }
                for (index, waiter) in batch.into_iter().enumerate() {
                    // A waiter that gave up (client gone) is simply skipped.
                    let _ = waiter.send(grant.decision(index));
                }
                let mut slots = inner.lock();
                if let Some(slot) = slots.get_mut(&subject) {
                    let leased = slot.keep(grant, n, now);
                    inner
                        .leased
                        .fetch_add(u64::try_from(leased).unwrap_or(u64::MAX), Ordering::Relaxed);
                    let mut expired = Vec::new();
                    slot.serve_waiters(&subject, &mut expired);
                    inner.releases().append(&mut expired);
                }
            }
            Err(reason) => {
                inner
                    .failures
                    .fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
                inner.log_failure(&subject, &reason);
                for waiter in batch {
                    let _ = waiter.send(Decision::Unaccounted);
                }
            }
        }
    }
}

/// A database call of the accounting, given [`ACCOUNTING_TIMEOUT`]; the
/// reason for the log when it fails or does not answer in time.
async fn in_time<T>(
    call: impl std::future::Future<Output = anyhow::Result<T>>,
) -> Result<T, String> {
    match tokio::time::timeout(ACCOUNTING_TIMEOUT, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(format!("{err:#}")),
        Err(_) => Err(format!("no answer within {ACCOUNTING_TIMEOUT:?}")),
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
            "select granted, quota, used, reset_at, retry_after, refused_by, wait_us, burst
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
        burst: row.get(7),
    })
}

async fn call_release(pool: &Pool, release: &Release) -> anyhow::Result<()> {
    let client = pool.get().await.context("no database connection")?;
    let statement = client
        .prepare_cached("select api.release($1, $2, $3, $4)")
        .await?;
    let units = i32::try_from(release.units).context("release too large")?;
    client
        .execute(
            &statement,
            &[
                &release.subject.id(),
                &release.subject.plan(),
                &release.reset_at,
                &units,
            ],
        )
        .await?;
    Ok(())
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
            burst: Some(5),
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
            burst: None,
        };
        assert_eq!(grant.decision(0), Decision::Admitted(None));
        assert!(!grant.decision(1).is_admitted());
        assert_eq!(grant.decision(1).window(), None);
    }

    fn busy_slot(demand: u32, window_left: Option<u32>, burst: Option<i32>) -> (Slot, Instant) {
        let start = Instant::now();
        let mut slot = Slot::new(start);
        slot.last_call = Some(start);
        slot.demand = demand;
        slot.window_left = window_left;
        slot.burst = burst;
        (slot, start + Duration::from_millis(1))
    }

    #[test]
    fn a_lease_holds_about_ten_milliseconds_of_the_recent_rate() {
        // 50 requests in 1 ms: 50,000 a second, so 500 in 10 ms.
        let (slot, now) = busy_slot(50, None, None);
        assert_eq!(slot.lease_size(now), 500);
        // 1 request in 1 ms: 10; a subject seen once gets none.
        assert_eq!(busy_slot(1, None, None).0.lease_size(now), 10);
        assert_eq!(Slot::new(now).lease_size(now), 0);
        assert_eq!(busy_slot(100_000, None, None).0.lease_size(now), MAX_LEASE);
    }

    #[test]
    fn no_lease_near_the_quota_or_beyond_what_the_bucket_refills_in_the_ttl() {
        let (slot, now) = busy_slot(50, Some(6_400), None);
        assert_eq!(slot.lease_size(now), 100, "1/64 of what is left");
        assert_eq!(busy_slot(50, Some(63), None).0.lease_size(now), 0);
        // The real plans: 2 and 5 a second refill nothing in 100 ms.
        assert_eq!(busy_slot(50, Some(1000), Some(5)).0.lease_size(now), 0);
        assert_eq!(busy_slot(50, None, Some(2)).0.lease_size(now), 0);
        assert_eq!(busy_slot(50, None, Some(1000)).0.lease_size(now), 100);
    }

    #[test]
    fn leased_units_count_down_and_expired_ones_are_given_back() {
        let grant = Grant {
            granted: 4,
            quota: Some(100),
            used: Some(10),
            reset_at: Some(3600),
            retry_after: None,
            refused_by: None,
            wait_us: None,
            burst: None,
        };
        let subject = Subject::anonymous("203.0.113.9".parse().expect("ip"));
        let now = Instant::now();
        let mut slot = Slot::new(now);
        // The call's first request took unit 0; units 1..4 are the lease.
        slot.leases.push_back(Lease {
            grant,
            next: 1,
            expires: now + LEASE_TTL,
        });
        let mut expired = Vec::new();
        let remaining = |d: Option<Decision>| d.and_then(|d| d.window()).map(|w| w.remaining);
        assert_eq!(
            remaining(slot.take_leased(&subject, now, &mut expired)),
            Some(92)
        );
        assert_eq!(
            remaining(slot.take_leased(&subject, now, &mut expired)),
            Some(91)
        );
        assert!(expired.is_empty());
        let later = now + LEASE_TTL;
        assert_eq!(slot.take_leased(&subject, later, &mut expired), None);
        assert_eq!(expired.len(), 1);
        assert_eq!((expired[0].units, expired[0].reset_at), (1, Some(3600)));
        assert!(slot.leases.is_empty());
    }
}
