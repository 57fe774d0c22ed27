//! Shard leases: admission in memory, exact across processes.
//!
//! The subjects are split into [`SHARDS`] shards by the first byte of the
//! SHA-256 of their name (`api._shard` computes the same). A process that
//! holds a shard's lease (`pricing.admission_shards`) is the only one that
//! admits that shard's subjects on the plans admitted in memory (a burst
//! limit under 10 a second: the anonymous and free plans, whose callers never
//! get a lease, see [`in_memory`]): it loads the shard's live counts when it
//! claims the lease and then counts those subjects itself, a subject it has
//! not seen being one with no count, so that their requests never wait for
//! the database. `api.admit_batch` answers for no subject of a shard another
//! process holds: it marks the shard wanted, the holder writes the shard's
//! counts back and gives the lease up (for [`SHARED_COOLDOWN`] nobody claims
//! it again), and the asking process asks again; from then on the database
//! counts the shard's subjects, as it counts every other subject.
//!
//! The rounds (one task per process): every [`RENEW_EVERY`], and within
//! [`ROUND_EVERY`] when a subject has [`WRITE_AT`] requests not yet written
//! or a shard is to be given up, one `api.shard_round` call renews the held
//! leases (for [`SHARD_LEASE`]), writes back the counts of the subjects with
//! [`WRITE_AT`] requests not yet written (and, [`TRICKLE`] a round at most,
//! those that waited [`WRITE_EVERY`]), gives up the leases wanted elsewhere
//! after writing their counts, and learns which are wanted;
//! every [`CLAIM_EVERY`] the plans are read again and the free shards this
//! process saw requests for are claimed (`api.claim_shards`); at start,
//! every free shard.
//!
//! Invariants:
//! - A subject on a plan admitted in memory is counted by one party at a
//!   time: the holder of its shard's lease, or the database when nobody holds
//!   it. A claim locks the shard row before it reads the shard's counts, and
//!   `api.admit_batch` reads the shard rows `FOR KEY SHARE`, so no admission
//!   by the database is missed by a claim; a shard being claimed or given up
//!   admits nothing in this process until that is done (a request of a shard
//!   being claimed waits; one of a shard being given up or not renewed in
//!   time is asked of the database, which defers it while the lease is this
//!   process's own).
//! - The holder admits in memory only until [`LEASE_MARGIN`] before its
//!   lease ends by its own clock (measured from when it sent the renewal,
//!   so before the database's end of the lease), and admits at most
//!   [`PENDING_CAP`] requests of one subject that are not yet written back
//!   (a further one waits for the next round).
//! - A lease that ends without being given back (the process died, or could
//!   not reach the database for [`SHARD_LEASE`]) is settled by the next
//!   process that touches the shard: every subject of the shard is charged
//!   [`PENDING_CAP`] requests in the window that contains the lease's end,
//!   and its burst bucket counts as empty at that time (`pricing.admission_taints`).
//!   So a process that dies loses at most what it had not written back, and
//!   its subjects pay for that with a little of their quota: never more than
//!   the quota is admitted, and at most [`PENDING_CAP`] less.
//! - Memory is bounded: counts equal to no count (window over, bucket full)
//!   are dropped, and a shard with more than [`MAX_SHARD_SUBJECTS`] counts is
//!   given up (and not claimed while it has as many live rows).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use sha2::{Digest as _, Sha256};

use deadpool_postgres::Pool;

use super::connection::on_connection;
use super::decision::{Decision, Refusal, Subject};
use super::grants::Grant;
use crate::telemetry::Throttle;

/// How many shards the subjects are split into (`api._shard`).
pub const SHARDS: usize = 64;
/// How long a lease lasts past each renewal.
pub const SHARD_LEASE: Duration = Duration::from_secs(1);
/// A holder stops admitting in memory this long before its lease ends by its
/// own clock (for a round that is late, and the clocks' drift).
pub const LEASE_MARGIN: Duration = Duration::from_millis(300);
/// How often a process holding leases looks for work of a round: counts at
/// [`WRITE_AT`], a shard to give up or not renewed in time.
pub const ROUND_EVERY: Duration = Duration::from_millis(10);
/// How often a round runs when there is no such work: it renews the leases,
/// writes the counts listed [`WRITE_EVERY`] ago and learns which shards are
/// wanted elsewhere, so a request deferred for a shard held here waits about
/// this long. (A round every [`ROUND_EVERY`] would cost the database a
/// statement renewing every lease 100 times a second, busy or not.)
pub const RENEW_EVERY: Duration = Duration::from_millis(100);
/// How often the plans are read again and free shards claimed.
pub const CLAIM_EVERY: Duration = Duration::from_millis(250);
/// A subject's admissions are written back in the next round once this many
/// are not yet written.
pub const WRITE_AT: u8 = 2;
/// A subject's admissions not yet written are written back once they have
/// waited this long, [`TRICKLE`] of them a round at most. Nothing but an
/// operator's `keys list` reads them meanwhile (the shard's other counts are
/// written at a handover, and the taint covers them if the process dies):
/// a burst of new addresses shorter than this costs the database no write.
pub const WRITE_EVERY: Duration = Duration::from_secs(10);
/// [`WRITE_EVERY`] in the milliseconds of [`Shards::stamp`].
const WRITE_EVERY_MS: u32 = WRITE_EVERY.as_millis() as u32;
/// The most counts a round writes because they waited [`WRITE_EVERY`] (at
/// most one such write every [`RENEW_EVERY`]: 2,560 a second). A flood of
/// new addresses, one request each, would otherwise have the database write
/// a row for every request (a fifth of the machine's time, measured at 55,000
/// a second: docs/keys.md); past this they wait in memory for the subject's
/// next admissions, a handover or the stop, and the taint of a lease that
/// ends without being given back covers them all the same.
pub const TRICKLE: usize = 256;
/// The most admissions of one subject not yet written back; also what each
/// subject of a shard is charged when its lease ends without being given
/// back.
pub const PENDING_CAP: u8 = 4;
/// A shard given up because another process wanted it is not claimed again
/// for this long.
pub const SHARED_COOLDOWN: Duration = Duration::from_secs(30);
/// The most subjects counted in memory per shard (a 40-byte entry each, 55 to
/// 130 bytes of the process's memory as measured: docs/keys.md).
pub const MAX_SHARD_SUBJECTS: usize = 65_536;
/// The most counts of held shards a round writes back (a shard being given
/// up writes all of its, in statements of this many): a round stays short,
/// so that the leases it renews never run out behind a large write.
const MAX_WRITE: usize = 4096;
/// How often counts equal to no count are dropped.
const EVICT_EVERY: Duration = Duration::from_secs(5);

/// A plan's limits as the database had them at the last read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    quota: Option<u32>,
    window: i64,
    burst: Option<u32>,
    /// Whether its subjects are admitted in memory by their shard's holder
    /// (`api._in_memory`: a burst under 10 a second, which never gets a
    /// lease, server/src/access/quota/lease.rs, so that each of their
    /// requests would otherwise wait for the database).
    in_memory: bool,
}

impl Plan {
    /// Microseconds per token, rounded up (`api._burst_step`).
    fn step(&self) -> Option<i64> {
        self.burst
            .map(|b| (1_000_000 + i64::from(b) - 1) / i64::from(b.max(1)))
    }
}

/// The names of the plans admitted in memory, sorted.
fn in_memory(plans: &HashMap<String, Plan>) -> Vec<String> {
    let mut names: Vec<String> = plans
        .iter()
        .filter(|(_, p)| p.in_memory)
        .map(|(n, _)| n.clone())
        .collect();
    names.sort();
    names
}

/// One subject's count, as `pricing.admission_counters` holds it, with the
/// admissions not yet written back.
#[derive(Debug, Clone, Copy, Default)]
struct Count {
    window_end: i64,
    used: u32,
    tat_us: i64,
    /// Admitted since the last write was taken.
    pending: u8,
    /// Admitted and being written by a round in flight.
    writing: u8,
    /// Whether the subject is in its shard's `listed`.
    listed: bool,
    /// Whether the subject is in its shard's `urgent`.
    urgent: bool,
}

impl Count {
    /// Equal to no count at `now_us`: nothing used in a window still
    /// running, a full bucket, nothing left to write.
    fn is_void(&self, now_us: i64) -> bool {
        self.window_end * 1_000_000 <= now_us
            && self.tat_us <= now_us
            && self.pending == 0
            && self.writing == 0
            && !self.listed
            && !self.urgent
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Not held: the database counts the shard's subjects.
    Free,
    /// A claim is in flight: requests wait for its outcome.
    Claiming,
    /// Held: admitted in memory until `until`.
    Held { until: Instant },
    /// Held, but not renewed in time (a slow round): nothing admitted until
    /// the next round renews it (then held again, its counts intact) or
    /// learns another process settled it.
    Lapsed,
    /// Being given up (wanted elsewhere, too big, or its lease nearly over):
    /// requests wait until its counts are written and the lease is free.
    Closing,
}

/// A shard's counts by subject key. The key is already 64 bits of SHA-256
/// ([`locate`]), so it is its own hash: hashing it again (SipHash) was a
/// measurable share of an admission.
type Counts = HashMap<u64, Count, BuildHasherDefault<KeyHasher>>;

/// The hasher of [`Counts`]: the key as given.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed (write_u64); fold anything else in.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

#[derive(Debug)]
struct Shard {
    status: Status,
    counts: Counts,
    /// Subjects with admissions not yet written back, each once, oldest
    /// first, with when they were listed ([`Shards::stamp`]). A flood of
    /// new addresses leaves one here for each count it makes (past the
    /// [`TRICKLE`]): 48 bytes each, the key in the counts computed again
    /// from the subject ([`locate`]) when it is written.
    listed: VecDeque<(Subject, u32)>,
    /// Subjects with [`WRITE_AT`] admissions not yet written back, each
    /// once: written in the next round.
    urgent: Vec<Subject>,
    /// Taints of the shard (Unix microseconds, units), for subjects counted
    /// anew.
    taints: Vec<(i64, u32)>,
}

impl Shard {
    fn new() -> Self {
        Self {
            status: Status::Free,
            counts: Counts::default(),
            listed: VecDeque::new(),
            urgent: Vec::new(),
            taints: Vec::new(),
        }
    }

    /// Forgets what it counted: the shard is not held any more.
    fn free(&mut self) {
        self.status = Status::Free;
        self.counts = Counts::default();
        self.listed = VecDeque::new();
        self.urgent = Vec::new();
        self.taints = Vec::new();
    }
}

/// A subject not counted yet: no count, or the shard's taints that fall
/// in the current window (as `api.admit_batch` starts a new row).
fn fresh(taints: &[(i64, u32)], plan: &Plan, now_us: i64) -> Count {
    let mut count = Count {
        tat_us: now_us,
        ..Count::default()
    };
    let Some(&(last_at, _)) = taints.last() else {
        return count;
    };
    let end = window_end(plan, now_us);
    let start_us = (end - plan.window) * 1_000_000;
    let units: u32 = taints
        .iter()
        .filter(|(at, _)| *at >= start_us)
        .map(|(_, units)| units)
        .sum();
    if let Some(quota) = plan.quota {
        count.window_end = end;
        count.used = units.min(quota);
    }
    if let (Some(burst), Some(step)) = (plan.burst, plan.step()) {
        count.tat_us = now_us.max(last_at + i64::from(burst) * step);
    }
    count
}

/// The end (Unix seconds) of the plan's window that contains `now_us`.
fn window_end(plan: &Plan, now_us: i64) -> i64 {
    let now_s = now_us.div_euclid(1_000_000);
    now_s - now_s.rem_euclid(plan.window) + plan.window
}

/// Admits one request on `count` at `now_us` as `api.admit_batch` would with
/// a cost of 1; the count changes only when it is admitted.
fn decide(count: &mut Count, plan: &Plan, now_us: i64) -> Grant {
    let now_s = now_us.div_euclid(1_000_000);
    let end = window_end(plan, now_us);
    let used = if count.window_end == end {
        count.used
    } else {
        0
    };
    let tat = count.tat_us.max(now_us);
    let step = plan.step();
    let quota_left = plan.quota.map(|q| q.saturating_sub(used));
    let tokens = plan
        .burst
        .zip(step)
        .map(|(b, s)| (i64::from(b) * s - (tat - now_us)) / s);
    let mut grant = Grant {
        granted: 0,
        quota: plan.quota.map(|q| i32::try_from(q).unwrap_or(i32::MAX)),
        used: None,
        reset_at: plan.quota.map(|_| end),
        retry_after: None,
        refused_by: None,
        wait_us: None,
        burst: plan.burst.map(|b| i32::try_from(b).unwrap_or(i32::MAX)),
    };
    if quota_left == Some(0) {
        grant.refused_by = Some(Refusal::Quota);
        grant.wait_us = Some(end * 1_000_000 - now_us);
        grant.retry_after = Some(i32::try_from((end - now_s).max(1)).unwrap_or(i32::MAX));
    } else if tokens.is_some_and(|t| t < 1) {
        let burst_wait =
            tat - now_us - (i64::from(plan.burst.unwrap_or(1)) - 1) * step.unwrap_or(0);
        grant.refused_by = Some(Refusal::Burst);
        grant.wait_us = Some(burst_wait.max(0));
        grant.retry_after =
            Some(i32::try_from(((burst_wait + 999_999) / 1_000_000).max(1)).unwrap_or(i32::MAX));
    } else {
        grant.granted = 1;
        count.window_end = end;
        count.used = if plan.quota.is_some() { used + 1 } else { 0 };
        count.tat_us = tat + step.unwrap_or(0);
    }
    if plan.quota.is_some() {
        let used_now = if grant.granted == 1 { count.used } else { used };
        grant.used = Some(i32::try_from(used_now).unwrap_or(i32::MAX));
    }
    grant
}

/// Where a request's admission is decided.
#[derive(Debug)]
pub(super) enum Local {
    /// Decided in memory.
    Decided(Decision),
    /// Its shard is being claimed, or the subject has [`PENDING_CAP`]
    /// admissions not written back: ask again after a round.
    Wait,
    /// By the database (`api.admit_batch`): its plan is not admitted in
    /// memory, or its shard is not held here, is being given up or was not
    /// renewed in time.
    Database,
}

/// The shards of one process.
#[derive(Debug)]
pub(super) struct Shards {
    /// The control pool (the accounting's, server/src/store/db.rs).
    pool: Pool,
    /// Failed rounds and claims are logged at most once per 10 s.
    failure_log: Throttle,
    /// This process's number in `pricing.admission_shards.owner`.
    pub(super) owner: i64,
    shards: Box<[Mutex<Shard>]>,
    /// Requests of each free shard that went to the database since the last
    /// claim: the shards worth claiming.
    seen: Box<[AtomicU32]>,
    plans: RwLock<Arc<HashMap<String, Plan>>>,
    /// Wakes the rounds early (a shard to give up, a subject at its cap).
    wake: tokio::sync::Notify,
    /// What [`Shards::stamp`] counts from.
    epoch: Instant,
    held: AtomicUsize,
    pub(super) in_memory: AtomicU64,
    pub(super) rounds: AtomicU64,
    pub(super) claims: AtomicU64,
}

impl Shards {
    pub(super) fn new(pool: Pool) -> Self {
        let mut bytes = [0u8; 8];
        // Without the OS random source the clock's nanoseconds must do: the
        // number only has to differ between live processes.
        if getrandom::fill(&mut bytes).is_err() {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            bytes = (nanos as u64 ^ u64::from(std::process::id())).to_le_bytes();
        }
        Self {
            pool,
            failure_log: Throttle::new(Duration::from_secs(10)),
            owner: i64::from_le_bytes(bytes),
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::new())).collect(),
            seen: (0..SHARDS).map(|_| AtomicU32::new(0)).collect(),
            plans: RwLock::new(Arc::new(HashMap::new())),
            wake: tokio::sync::Notify::new(),
            epoch: Instant::now(),
            held: AtomicUsize::new(0),
            in_memory: AtomicU64::new(0),
            rounds: AtomicU64::new(0),
            claims: AtomicU64::new(0),
        }
    }

    fn shard(&self, index: usize) -> MutexGuard<'_, Shard> {
        self.shards[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn plan(&self, name: &str) -> Option<Plan> {
        self.plans
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .copied()
    }

    /// `at` in milliseconds since the process started, wrapping: 4 bytes
    /// instead of an `Instant`'s 16 in every listed subject. Ages are taken
    /// with `wrapping_sub`, right below 49 days; none is near that, as the
    /// trickle writes the oldest first, 2,560 a second, and at most 64 x
    /// [`MAX_SHARD_SUBJECTS`] are kept (28 minutes of it).
    fn stamp(&self, at: Instant) -> u32 {
        at.duration_since(self.epoch).as_millis() as u32
    }

    /// The plans admitted in memory, as last read.
    fn in_memory(&self) -> Vec<String> {
        in_memory(&self.plans.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// How many leases this process holds.
    pub(super) fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Admits `subject` in memory when this process holds its shard.
    pub(super) fn admit(&self, subject: &Subject) -> Local {
        let Some(plan) = self.plan(subject.plan()).filter(|p| p.in_memory) else {
            return Local::Database;
        };
        let (index, key) = locate(subject.id());
        let mut shard = self.shard(index);
        let now = Instant::now();
        match shard.status {
            Status::Free => {
                self.seen[index].fetch_add(1, Ordering::Relaxed);
                return Local::Database;
            }
            Status::Claiming => return Local::Wait,
            // Not admitted here until a round is through: asked of the
            // database, which defers them while the lease is still this
            // process's (its next round gives the shard up or renews it) and
            // counts them once it is not. With the database unreachable they
            // go ahead uncounted within the database path's bound, as every
            // other request does, instead of waiting out a round that cannot
            // come.
            Status::Closing | Status::Lapsed => return Local::Database,
            Status::Held { until } if until <= now => {
                shard.status = Status::Lapsed;
                self.wake.notify_one();
                return Local::Database;
            }
            Status::Held { .. } => {}
        }
        let now_us = unix_now_us();
        let full = shard.counts.len() >= MAX_SHARD_SUBJECTS;
        let Shard {
            counts,
            listed,
            urgent,
            status,
            taints,
        } = &mut *shard;
        let count = match counts.entry(key) {
            Entry::Occupied(seen) => seen.into_mut(),
            Entry::Vacant(_) if full => {
                *status = Status::Closing;
                self.wake.notify_one();
                return Local::Database;
            }
            Entry::Vacant(new) => new.insert(fresh(taints, &plan, now_us)),
        };
        let before = *count;
        let grant = decide(count, &plan, now_us);
        if grant.granted == 1 {
            if count.pending + count.writing >= PENDING_CAP {
                *count = before;
                self.wake.notify_one();
                return Local::Wait;
            }
            count.pending += 1;
            if !count.listed {
                count.listed = true;
                listed.push_back((subject.clone(), self.stamp(now)));
            }
            if count.pending >= WRITE_AT && !count.urgent {
                count.urgent = true;
                urgent.push(subject.clone());
                self.wake.notify_one();
            }
        }
        self.in_memory.fetch_add(1, Ordering::Relaxed);
        Local::Decided(grant.decision(0))
    }
}

/// A subject's shard and its key in the shard's counts.
fn locate(id: &str) -> (usize, u64) {
    let digest = Sha256::digest(id.as_bytes());
    let mut key = [0u8; 8];
    key.copy_from_slice(&digest[8..16]);
    (usize::from(digest[0]) % SHARDS, u64::from_le_bytes(key))
}

fn unix_now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn shard_id(index: usize) -> i16 {
    i16::try_from(index).unwrap_or(i16::MAX)
}

/// Counts taken for one round's write.
struct Write {
    subjects: Vec<Subject>,
    window_ends: Vec<i64>,
    used: Vec<i32>,
    tat_us: Vec<i64>,
    /// (shard, key, units) for each, to settle after the call.
    taken: Vec<(usize, u64, u8)>,
}

impl Write {
    /// Takes `count`'s admissions not written yet, if any.
    fn take(&mut self, index: usize, key: u64, subject: Subject, count: &mut Count) {
        if count.pending == 0 {
            return;
        }
        self.subjects.push(subject);
        self.window_ends.push(count.window_end);
        self.used
            .push(i32::try_from(count.used).unwrap_or(i32::MAX));
        self.tat_us.push(count.tat_us);
        self.taken.push((index, key, count.pending));
        count.writing += count.pending;
        count.pending = 0;
    }

    fn new() -> Self {
        Self {
            subjects: Vec::new(),
            window_ends: Vec::new(),
            used: Vec::new(),
            tat_us: Vec::new(),
            taken: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.subjects.len()
    }
}

impl Shards {
    /// Runs the rounds until `stop` turns true (or its sender is dropped).
    pub(super) async fn run_rounds(&self, mut stop: tokio::sync::watch::Receiver<bool>) {
        let mut last_evict = Instant::now();
        let mut last_round: Option<Instant> = None;
        while !*stop.borrow() {
            if last_evict.elapsed() >= EVICT_EVERY {
                last_evict = Instant::now();
                self.evict();
            }
            if self.held() > 0 {
                let renew = last_round.is_none_or(|at| at.elapsed() >= RENEW_EVERY);
                if renew || self.due() {
                    if renew {
                        last_round = Some(Instant::now());
                    }
                    self.round(SHARED_COOLDOWN, if renew { TRICKLE } else { 0 })
                        .await;
                }
            }
            let pause = if self.held() > 0 {
                ROUND_EVERY
            } else {
                CLAIM_EVERY
            };
            tokio::select! {
                _ = stop.changed() => {}
                () = self.wake.notified() => {}
                () = tokio::time::sleep(pause) => {}
            }
        }
    }

    /// Every [`CLAIM_EVERY`] reads the plans and claims the free shards this
    /// process saw requests for, until `stop` turns true: a task of its own,
    /// so that loading a shard's counts never holds up the renewals.
    pub(super) async fn run_claims(&self, mut stop: tokio::sync::watch::Receiver<bool>) {
        let mut started = false;
        while !*stop.borrow() {
            self.read_plans().await;
            // At start every free shard is claimed, not only those requests
            // were seen for: a process that comes up under traffic (a
            // restart, a deploy) would otherwise send a round of each
            // shard's first requests to the database and then make them
            // wait for the claim. Shards another process holds stay its own.
            if !started && !self.in_memory().is_empty() {
                started = true;
                for seen in &self.seen {
                    seen.fetch_add(1, Ordering::Relaxed);
                }
            }
            self.claim().await;
            tokio::select! {
                _ = stop.changed() => {}
                () = tokio::time::sleep(CLAIM_EVERY) => {}
            }
        }
    }

    /// Gives up every lease, after writing back its counts: for a process
    /// that stops. Another process may claim them at once.
    pub(super) async fn release_shards(&self) {
        for index in 0..SHARDS {
            let mut shard = self.shard(index);
            if matches!(shard.status, Status::Held { .. } | Status::Lapsed) {
                shard.status = Status::Closing;
            }
        }
        for _ in 0..3 {
            if self.closing().next().is_none() {
                return;
            }
            self.round(Duration::ZERO, 0).await;
        }
    }

    fn closing(&self) -> impl Iterator<Item = usize> + '_ {
        (0..SHARDS).filter(|&i| self.shard(i).status == Status::Closing)
    }

    /// Reads the plans; when the set of plans admitted in memory changed,
    /// gives up every lease (their shards' counts of the other plans' subjects
    /// are the database's).
    async fn read_plans(&self) {
        let read = on_connection(&self.pool, |client| async move {
            let rows = client
                .query(
                    "select name, quota, window_seconds, burst_per_second, in_memory \
                     from api.admission_plans()",
                    &[],
                )
                .await?;
            let mut plans = HashMap::new();
            for row in rows {
                let quota: Option<i32> = row.try_get(1)?;
                let window: i32 = row.try_get(2)?;
                let burst: Option<i32> = row.try_get(3)?;
                plans.insert(
                    row.try_get::<_, String>(0)?,
                    Plan {
                        quota: quota.map(|q| u32::try_from(q).unwrap_or(0)),
                        window: i64::from(window.max(1)),
                        burst: burst.map(|b| u32::try_from(b).unwrap_or(0)),
                        in_memory: row.try_get(4)?,
                    },
                );
            }
            Ok(plans)
        })
        .await;
        let plans = match read {
            Ok(plans) => plans,
            Err(reason) => {
                self.log_shard_failure(&reason);
                return;
            }
        };
        let changed = self.in_memory() != in_memory(&plans);
        *self.plans.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(plans);
        if changed {
            for index in 0..SHARDS {
                let mut shard = self.shard(index);
                if matches!(shard.status, Status::Held { .. } | Status::Lapsed) {
                    shard.status = Status::Closing;
                }
            }
        }
    }

    /// Claims the free shards this process saw requests for, and loads their
    /// counts.
    async fn claim(&self) {
        let mut wanted = Vec::new();
        for index in 0..SHARDS {
            if self.seen[index].swap(0, Ordering::Relaxed) == 0 {
                continue;
            }
            let mut shard = self.shard(index);
            if shard.status == Status::Free {
                shard.status = Status::Claiming;
                wanted.push(index);
            }
        }
        if wanted.is_empty() {
            return;
        }
        self.claims.fetch_add(1, Ordering::Relaxed);
        let owner = self.owner;
        let ids: Vec<i16> = wanted.iter().map(|&i| shard_id(i)).collect();
        let plans = self.in_memory();
        let loaded = on_connection(&self.pool, |client| async move {
            let lease_ms = i32::try_from(SHARD_LEASE.as_millis()).unwrap_or(i32::MAX);
            let max_rows = i32::try_from(MAX_SHARD_SUBJECTS / 2).unwrap_or(i32::MAX);
            let rows = client
                .query(
                    "select shard, taint_at_us, taint_units \
                     from api.claim_shards($1, $2, $3, $4, $5, $6)",
                    &[
                        &owner,
                        &ids,
                        &lease_ms,
                        &i32::from(PENDING_CAP),
                        &max_rows,
                        &plans,
                    ],
                )
                .await
                .context("claiming shards")?;
            let mut claimed = HashMap::new();
            for row in &rows {
                let shard: i16 = row.try_get(0)?;
                let at: Vec<i64> = row.try_get(1)?;
                let units: Vec<i32> = row.try_get(2)?;
                let taints = at
                    .into_iter()
                    .zip(units.into_iter().map(|u| u32::try_from(u).unwrap_or(0)))
                    .collect::<Vec<_>>();
                claimed.insert(
                    usize::try_from(shard).unwrap_or(SHARDS),
                    (taints, Counts::default()),
                );
            }
            if claimed.is_empty() {
                return Ok(claimed);
            }
            let held: Vec<i16> = claimed.keys().map(|&i| shard_id(i)).collect();
            let rows = client
                .query(
                    "select subject, window_end, used, tat_us from api.shard_counters($1, $2)",
                    &[&owner, &held],
                )
                .await
                .context("loading the claimed shards' counts")?;
            for row in &rows {
                let subject: &str = row.try_get(0)?;
                let (index, key) = locate(subject);
                let count = Count {
                    window_end: row.try_get(1)?,
                    used: u32::try_from(row.try_get::<_, i32>(2)?).unwrap_or(0),
                    tat_us: row.try_get(3)?,
                    ..Count::default()
                };
                if let Some((_, counts)) = claimed.get_mut(&index) {
                    counts.insert(key, count);
                }
            }
            Ok(claimed)
        })
        .await;
        let mut claimed = match loaded {
            Ok(claimed) => claimed,
            Err(reason) => {
                // A claim that committed but was not loaded is given up by
                // expiry (a taint): rare, and never over-admitting.
                self.log_shard_failure(&reason);
                HashMap::new()
            }
        };
        // Loading many counts may take a good part of the lease: it is
        // renewed before the shards admit anything.
        let held: Vec<usize> = claimed.keys().copied().collect();
        let renewed = if held.is_empty() {
            Vec::new()
        } else {
            let sent = Instant::now();
            match self
                .send_round(&held, &[], SHARED_COOLDOWN, &Write::new())
                .await
            {
                Ok(answers) => answers
                    .into_iter()
                    .filter(|&(_, still, _)| still)
                    .map(|(index, _, _)| (index, sent))
                    .collect(),
                Err(reason) => {
                    self.log_shard_failure(&reason);
                    Vec::new()
                }
            }
        };
        for index in wanted {
            let mut shard = self.shard(index);
            let renewal = renewed.iter().find(|(i, _)| *i == index).map(|(_, at)| *at);
            match (claimed.remove(&index), renewal) {
                (Some((taints, counts)), Some(at)) => {
                    shard.status = Status::Held {
                        until: at + SHARD_LEASE - LEASE_MARGIN,
                    };
                    shard.taints = taints;
                    shard.counts = counts;
                }
                // Claimed but not renewed: given up by the next round.
                (Some(_), None) => shard.status = Status::Closing,
                (None, _) => {
                    shard.status = Status::Free;
                    continue;
                }
            }
            self.held.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Drops the counts equal to no count.
    fn evict(&self) {
        let now_us = unix_now_us();
        for index in 0..SHARDS {
            let mut shard = self.shard(index);
            if matches!(shard.status, Status::Held { .. }) {
                shard.counts.retain(|_, count| !count.is_void(now_us));
            }
        }
    }

    /// Whether a round has work before [`RENEW_EVERY`]: counts at
    /// [`WRITE_AT`], a shard being given up, or one not renewed in time.
    fn due(&self) -> bool {
        (0..SHARDS).any(|index| {
            let shard = self.shard(index);
            !shard.urgent.is_empty() || matches!(shard.status, Status::Closing | Status::Lapsed)
        })
    }

    /// One round: takes the counts to write (of the held shards, those with
    /// [`WRITE_AT`] admissions not written and at most `trickle` of those
    /// listed [`WRITE_EVERY`] ago, at most [`MAX_WRITE`] in all; every one of
    /// a shard being given up), renews, writes, gives up, and takes in the
    /// answer.
    async fn round(&self, cooldown: Duration, trickle: usize) {
        let now = Instant::now();
        let mut held = Vec::new();
        let mut release = Vec::new();
        let mut write = Write::new();
        let mut trickled = 0;
        let stamp = self.stamp(now);
        for index in 0..SHARDS {
            let mut shard = self.shard(index);
            if let Status::Held { until } = shard.status
                && until <= now
            {
                shard.status = Status::Lapsed;
            }
            let whole = match shard.status {
                Status::Held { .. } | Status::Lapsed => {
                    held.push(index);
                    false
                }
                Status::Closing => {
                    release.push(index);
                    true
                }
                Status::Free | Status::Claiming => continue,
            };
            let Shard {
                counts,
                listed,
                urgent,
                ..
            } = &mut *shard;
            let room = |write: &Write| whole || write.len() < MAX_WRITE;
            while room(&write) {
                let Some(subject) = urgent.pop() else {
                    break;
                };
                let key = locate(subject.id()).1;
                if let Some(count) = counts.get_mut(&key) {
                    count.urgent = false;
                    write.take(index, key, subject, count);
                }
            }
            while room(&write)
                && listed.front().is_some_and(|&(_, at)| {
                    whole || (trickled < trickle && stamp.wrapping_sub(at) >= WRITE_EVERY_MS)
                })
            {
                trickled += usize::from(!whole);
                let Some((subject, _)) = listed.pop_front() else {
                    break;
                };
                let key = locate(subject.id()).1;
                if let Some(count) = counts.get_mut(&key) {
                    count.listed = false;
                    write.take(index, key, subject, count);
                }
            }
        }
        if held.is_empty() && release.is_empty() {
            return;
        }
        let sent = Instant::now();
        let outcome = self.send_round(&held, &release, cooldown, &write).await;
        self.rounds.fetch_add(1, Ordering::Relaxed);
        match outcome {
            Ok(answers) => {
                for (index, key, units) in write.taken {
                    if let Some(count) = self.shard(index).counts.get_mut(&key) {
                        count.writing = count.writing.saturating_sub(units);
                    }
                }
                for (index, still, wanted) in answers {
                    let mut shard = self.shard(index);
                    if !still {
                        // Settled by another process: what was not written
                        // is covered by its taint.
                        if matches!(
                            shard.status,
                            Status::Held { .. } | Status::Lapsed | Status::Closing
                        ) {
                            self.held.fetch_sub(1, Ordering::Relaxed);
                        }
                        shard.free();
                    } else if wanted {
                        shard.status = Status::Closing;
                        self.wake.notify_one();
                    } else if matches!(shard.status, Status::Held { .. } | Status::Lapsed) {
                        shard.status = Status::Held {
                            until: sent + SHARD_LEASE - LEASE_MARGIN,
                        };
                    }
                }
                for index in release {
                    let mut shard = self.shard(index);
                    if shard.status == Status::Closing {
                        self.held.fetch_sub(1, Ordering::Relaxed);
                        shard.free();
                    }
                }
            }
            Err(reason) => {
                self.log_shard_failure(&reason);
                // Not written: pending again, and listed again (urgent when
                // it has as many).
                for ((index, key, units), subject) in write.taken.into_iter().zip(write.subjects) {
                    let mut shard = self.shard(index);
                    let Shard {
                        counts,
                        listed,
                        urgent,
                        ..
                    } = &mut *shard;
                    if let Some(count) = counts.get_mut(&key) {
                        count.writing = count.writing.saturating_sub(units);
                        count.pending = count.pending.saturating_add(units);
                        if count.pending >= WRITE_AT && !count.urgent {
                            count.urgent = true;
                            urgent.push(subject.clone());
                        }
                        if !count.listed {
                            count.listed = true;
                            listed.push_back((subject, self.stamp(Instant::now())));
                        }
                    }
                }
            }
        }
    }

    /// `api.shard_round` for `held` and `release`, writing `write` in chunks
    /// of [`MAX_WRITE`] (the leases renewed with each, given up with the
    /// last). Returns, per held shard, whether it is still held and whether
    /// it is wanted elsewhere.
    async fn send_round(
        &self,
        held: &[usize],
        release: &[usize],
        cooldown: Duration,
        write: &Write,
    ) -> Result<Vec<(usize, bool, bool)>, String> {
        let owner = self.owner;
        let held_ids: Vec<i16> = held.iter().map(|&i| shard_id(i)).collect();
        let release_ids: Vec<i16> = release.iter().map(|&i| shard_id(i)).collect();
        // The chunks before the last renew the shards being given up with the
        // held ones: `api.shard_round` writes only the counts of shards it
        // renews or releases, and they are released with the last chunk.
        let all_ids: Vec<i16> = held_ids.iter().chain(&release_ids).copied().collect();
        let lease_ms = i32::try_from(SHARD_LEASE.as_millis()).unwrap_or(i32::MAX);
        let cooldown_ms = i32::try_from(cooldown.as_millis()).unwrap_or(i32::MAX);
        on_connection(&self.pool, |client| async move {
            let statement = client
                .prepare_cached(
                    "select shard, held, wanted
                     from api.shard_round($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                )
                .await?;
            let chunks = write.len().div_ceil(MAX_WRITE).max(1);
            let no_release: Vec<i16> = Vec::new();
            let mut answers = Vec::new();
            for chunk in 0..chunks {
                let range = chunk * MAX_WRITE..((chunk + 1) * MAX_WRITE).min(write.len());
                let last = chunk + 1 == chunks;
                let subjects = &write.subjects[range.clone()];
                let ids: Vec<&str> = subjects.iter().map(Subject::id).collect();
                let shards: Vec<i16> = write.taken[range.clone()]
                    .iter()
                    .map(|&(index, _, _)| shard_id(index))
                    .collect();
                let plans: Vec<&str> = subjects.iter().map(Subject::plan).collect();
                let rows = client
                    .query(
                        &statement,
                        &[
                            &owner,
                            if last { &held_ids } else { &all_ids },
                            &lease_ms,
                            if last { &release_ids } else { &no_release },
                            &cooldown_ms,
                            &ids,
                            &shards,
                            &plans,
                            &&write.window_ends[range.clone()],
                            &&write.used[range.clone()],
                            &&write.tat_us[range],
                        ],
                    )
                    .await?;
                if last {
                    for row in &rows {
                        let shard: i16 = row.try_get(0)?;
                        answers.push((
                            usize::try_from(shard).unwrap_or(SHARDS),
                            row.try_get(1)?,
                            row.try_get(2)?,
                        ));
                    }
                }
            }
            Ok(answers)
        })
        .await
    }

    fn log_shard_failure(&self, reason: &str) {
        if let Some(suppressed) = self.failure_log.admit() {
            tracing::warn!(
                %reason,
                suppressed,
                "shard lease round failed; its shards wait or go to the database (logged at most once per 10 s)"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANONYMOUS: Plan = Plan {
        quota: Some(60),
        window: 3600,
        burst: Some(2),
        in_memory: true,
    };

    #[test]
    fn a_shard_is_the_first_byte_of_the_sha256_modulo_64() {
        // As PostgreSQL computes it: select api._shard('ip:1.2.3.4'), api._shard('ip:1.2.3.5')
        assert_eq!((locate("ip:1.2.3.4").0, locate("ip:1.2.3.5").0), (0, 22));
        let digest = Sha256::digest(b"ip:203.0.113.9");
        assert_eq!(locate("ip:203.0.113.9").0, usize::from(digest[0]) % 64);
        assert_ne!(locate("ip:203.0.113.9").1, locate("ip:203.0.113.10").1);
    }

    #[test]
    fn in_memory_counts_as_the_database_does() {
        let now_us = 1_800_000_000_000_000 + 1_234_567;
        let mut count = Count {
            tat_us: now_us,
            ..Count::default()
        };
        let a = decide(&mut count, &ANONYMOUS, now_us);
        let b = decide(&mut count, &ANONYMOUS, now_us);
        let c = decide(&mut count, &ANONYMOUS, now_us);
        assert_eq!((a.granted, b.granted, c.granted), (1, 1, 0));
        assert_eq!(b.used, Some(2));
        assert_eq!(c.refused_by, Some(Refusal::Burst));
        assert_eq!(c.retry_after, Some(1));
        // Half a second later, one token is back.
        let later = now_us + 500_000;
        assert_eq!(decide(&mut count, &ANONYMOUS, later).granted, 1);
        assert_eq!(decide(&mut count, &ANONYMOUS, later).granted, 0);
        // The quota: 60 an hour, then refused until the hour ends.
        let mut full = Count {
            window_end: window_end(&ANONYMOUS, now_us),
            used: 60,
            tat_us: now_us,
            ..Count::default()
        };
        let refused = decide(&mut full, &ANONYMOUS, now_us);
        assert_eq!(refused.refused_by, Some(Refusal::Quota));
        assert_eq!(
            refused.wait_us,
            Some(window_end(&ANONYMOUS, now_us) * 1_000_000 - now_us)
        );
        // The next window starts from nothing.
        let next = window_end(&ANONYMOUS, now_us) * 1_000_000;
        let admitted = decide(&mut full, &ANONYMOUS, next);
        assert_eq!((admitted.granted, admitted.used), (1, Some(1)));
    }

    #[test]
    fn a_subject_counted_anew_is_charged_the_taints_of_its_window() {
        let now_us = 1_800_000_000_000_000 + 1_234_567;
        let start_us = (window_end(&ANONYMOUS, now_us) - 3600) * 1_000_000;
        let mut shard = Shard::new();
        assert_eq!(fresh(&shard.taints, &ANONYMOUS, now_us).used, 0);
        shard.taints = vec![(start_us - 1, 4), (now_us - 100_000, 4)];
        let fresh = fresh(&shard.taints, &ANONYMOUS, now_us);
        assert_eq!(fresh.used, 4, "only the taint in this window");
        // Its bucket counts as emptied at the taint: 2 tokens at 0.5 s each.
        assert_eq!(fresh.tat_us, now_us - 100_000 + 1_000_000);
    }
}
