//! Admission in batches across subjects. A request that no lease and no local
//! refusal can answer waits in its subject's [`Slot`]; the subject is queued
//! once. One dispatcher task per accountant sends the queued subjects to the
//! database together, as one `api.admit_batch()` call with one entry per
//! subject (cost: its waiting requests plus the lease it wants), one call at
//! a time. After a call returns, the next one is held until as many subjects
//! are queued as the returned call carried plus those that queued during it
//! (its clients come back with their next requests), or for at most
//! [`BATCH_WAIT`]. A subject has at most one call in flight, so its requests
//! are granted in arrival order. The dispatcher stops when nothing is queued
//! or in flight once the hold is over, and the next request starts it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use deadpool_postgres::Pool;

use super::connection::ANSWER_TIMEOUT;
use super::connection::on_connection;
use super::decision::{Decision, Subject, Waiters};
use super::grants::{Grant, Release};
use super::lease::Slot;
use super::refusals::Refusals;
use super::shards::{Local, ROUND_EVERY, Shards};
use crate::telemetry::Throttle;

/// A subject with nothing pending is forgotten after this long.
const IDLE_SLOT: Duration = Duration::from_secs(2);

/// The accounting's state, shared by the requests, the dispatcher and the
/// upkeep.
#[derive(Debug)]
pub(super) struct Inner {
    pub(super) pool: Pool,
    /// Per subject: waiting requests, the call in flight, leases; and the
    /// subjects due for the next call.
    queue: Mutex<Queue>,
    /// Wakes the dispatcher holding the next call when its batch has filled.
    filled: tokio::sync::Notify,
    /// Leased units that expired unused, to give back.
    releases: Mutex<Vec<Release>>,
    /// Subjects the database refused, until it would admit them again.
    pub(super) refusals: Refusals,
    /// The shard leases this process holds and their subjects' counts.
    pub(super) shards: Shards,
    /// Failures are logged at most once per 10 s.
    failure_log: Throttle,
    pub(super) requests: AtomicU64,
    pub(super) calls: AtomicU64,
    pub(super) failures: AtomicU64,
    pub(super) refused_locally: AtomicU64,
    pub(super) leased: AtomicU64,
    pub(super) released: AtomicU64,
    pub(super) deferred: AtomicU64,
}

impl Inner {
    pub(super) fn new(pool: Pool) -> Self {
        Self {
            queue: Mutex::new(Queue::default()),
            filled: tokio::sync::Notify::new(),
            releases: Mutex::new(Vec::new()),
            refusals: Refusals::default(),
            shards: Shards::new(pool.clone()),
            failure_log: Throttle::new(Duration::from_secs(10)),
            requests: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            refused_locally: AtomicU64::new(0),
            leased: AtomicU64::new(0),
            released: AtomicU64::new(0),
            deferred: AtomicU64::new(0),
            pool,
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn releases(&self) -> MutexGuard<'_, Vec<Release>> {
        self.releases.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn log_failure(&self, subject: &Subject, reason: &str) {
        if let Some(suppressed) = self.failure_log.admit() {
            tracing::warn!(
                subject = subject.id(),
                %reason,
                suppressed,
                "quota accounting failed; admitting uncounted (logged at most once per 10 s)"
            );
        }
    }

    /// Counts one request of `subject`: admitted or refused, with the window
    /// to report. Never fails: an accounting error admits uncounted.
    pub(super) async fn admit(self: &Arc<Self>, subject: &Subject) -> Decision {
        let started = Instant::now();
        // In memory when this process holds the subject's shard; a shard
        // being claimed or given up, or a subject at its cap of admissions
        // not written back, waits a round. The wait counts against the
        // ANSWER_TIMEOUT of the whole admission.
        loop {
            match self.shards.admit(subject) {
                Local::Decided(decision) => {
                    self.requests.fetch_add(1, Ordering::Relaxed);
                    return decision;
                }
                Local::Database => break,
                Local::Wait if started.elapsed() >= ANSWER_TIMEOUT => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    self.log_failure(
                        subject,
                        &format!("no shard round within {ANSWER_TIMEOUT:?}"),
                    );
                    return Decision::Unaccounted;
                }
                Local::Wait => tokio::time::sleep(ROUND_EVERY).await,
            }
        }
        let now = Instant::now();
        let mut expired = Vec::new();
        let leased = {
            let mut queue = self.lock();
            let slot = queue.slot(subject, now);
            slot.seen = now;
            slot.demand = slot.demand.saturating_add(1);
            let leased = slot.take_leased(subject, now, &mut expired);
            // Ask ahead when half a lease is gone, so that requests rarely wait.
            if leased.is_some() && slot.wants_lease(now) {
                self.enqueue(&mut queue, subject);
            }
            leased
        };
        if !expired.is_empty() {
            self.releases().append(&mut expired);
        }
        if let Some(decision) = leased {
            return decision;
        }
        // A count never goes down within a window, and a bucket refills no
        // faster than its rate: after a refusal, the database would refuse
        // every request until the time it named. (Leased units, granted
        // before, are still good.)
        if let Some(refused) = self.refusals.known(subject) {
            self.refused_locally.fetch_add(1, Ordering::Relaxed);
            return refused;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        {
            let mut queue = self.lock();
            queue.slot(subject, now).waiters.push(tx);
            self.enqueue(&mut queue, subject);
        }
        // A closed channel means the call's task died: fail open. A request
        // waits for its admission at most ANSWER_TIMEOUT in all, also when it
        // queued behind a call to a database that stopped answering (its own
        // call would wait that long again): then it goes ahead uncounted.
        match tokio::time::timeout(ANSWER_TIMEOUT.saturating_sub(started.elapsed()), rx).await {
            Ok(decision) => decision.unwrap_or(Decision::Unaccounted),
            Err(_) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
                self.log_failure(subject, &format!("no decision within {ANSWER_TIMEOUT:?}"));
                Decision::Unaccounted
            }
        }
    }

    /// Drops expired leases (queuing their unused units) and forgets
    /// subjects with nothing pending that were not seen for [`IDLE_SLOT`].
    pub(super) fn expire_leases(&self) {
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
    pub(super) async fn give_back(&self) {
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

/// The longest the next call is held for its batch to fill after one
/// returns.
pub const BATCH_WAIT: Duration = Duration::from_millis(1);
/// The most requests of one subject in one call.
const MAX_PER_SUBJECT: usize = 1024;
/// The most subjects in one call.
const MAX_SUBJECTS: usize = 1024;
/// A subject the database deferred (another process holds its shard) is
/// asked for again after this long: about a round of the holder
/// (server/src/access/quota/shards.rs), which gives the lease up.
pub const DEFER_RETRY: Duration = Duration::from_millis(10);

/// Every subject's slot, and the subjects due for the next call.
#[derive(Debug, Default)]
pub(super) struct Queue {
    pub(super) slots: HashMap<Subject, Slot>,
    /// Subjects with requests waiting (or a lease wanted) and no call in
    /// flight, in the order they became due.
    ready: Vec<Subject>,
    /// Whether the dispatcher task runs.
    dispatching: bool,
    /// While the dispatcher holds the next call: the number of queued
    /// subjects at which it is woken to send it (0: not holding).
    want: usize,
}

/// What [`Queue::enqueue`] asks of the dispatcher.
#[derive(Debug, PartialEq, Eq)]
enum Wake {
    Nothing,
    /// It does not run: start it.
    Start,
    /// It holds the next call and the batch has filled: wake it.
    Filled,
}

impl Queue {
    /// The subject's slot, made when it has none (the subject is cloned only
    /// then: this runs for every counted request).
    pub(super) fn slot(&mut self, subject: &Subject, now: Instant) -> &mut Slot {
        if !self.slots.contains_key(subject) {
            self.slots.insert(subject.clone(), Slot::new(now));
        }
        self.slots
            .get_mut(subject)
            .unwrap_or_else(|| unreachable!("inserted above"))
    }

    /// Queues the subject for the next call unless it is queued or in flight
    /// (its call's return queues it again). Returns what the dispatcher must
    /// be told.
    fn enqueue(&mut self, subject: &Subject) -> Wake {
        let Some(slot) = self.slots.get_mut(subject) else {
            return Wake::Nothing;
        };
        if slot.queued || slot.in_flight || slot.deferred_until.is_some() {
            return Wake::Nothing;
        }
        slot.queued = true;
        self.ready.push(subject.clone());
        if !std::mem::replace(&mut self.dispatching, true) {
            Wake::Start
        } else if self.want > 0 && self.ready.len() == self.want {
            Wake::Filled
        } else {
            Wake::Nothing
        }
    }

    /// The next call: the queued subjects (at most [`MAX_SUBJECTS`]), each
    /// with its waiting requests (at most [`MAX_PER_SUBJECT`]) and the lease
    /// it wants, marked in flight. A subject with neither is dropped from
    /// the queue.
    fn assemble(&mut self, now: Instant) -> Vec<Entry> {
        self.want = 0;
        let take = self.ready.len().min(MAX_SUBJECTS);
        let mut entries = Vec::with_capacity(take);
        for subject in self.ready.drain(..take) {
            let Some(slot) = self.slots.get_mut(&subject) else {
                continue;
            };
            slot.queued = false;
            let n = slot.waiters.len().min(MAX_PER_SUBJECT);
            if slot.in_flight || (n == 0 && !slot.wants_lease(now)) {
                continue;
            }
            let ahead = slot.lease_size(now);
            slot.demand = 0;
            slot.last_call = Some(now);
            slot.in_flight = true;
            entries.push(Entry {
                subject,
                waiters: slot.waiters.drain(..n).collect(),
                ahead,
            });
        }
        entries
    }
}

/// One subject's part of a call.
#[derive(Debug)]
struct Entry {
    subject: Subject,
    /// Its requests, in arrival order.
    waiters: Waiters,
    /// Units asked for ahead of them (a lease).
    ahead: u32,
}

impl Entry {
    fn cost(&self) -> usize {
        self.waiters.len() + usize::try_from(self.ahead).unwrap_or(0)
    }
}

impl Inner {
    /// Queues the subject (see [`Queue::enqueue`]) and starts the dispatcher
    /// when it is not running.
    pub(super) fn enqueue(self: &Arc<Self>, queue: &mut Queue, subject: &Subject) {
        match queue.enqueue(subject) {
            Wake::Start => drop(tokio::spawn(dispatch(self.clone()))),
            Wake::Filled => self.filled.notify_one(),
            Wake::Nothing => {}
        }
    }

    /// Takes in a call's answers: decisions to its requests, leases kept,
    /// requests that arrived meanwhile served from them, subjects with
    /// requests left queued again. `grants` is None when the call failed:
    /// its requests go ahead uncounted (fail open). A grant that is None was
    /// deferred (another process holds the subject's shard): its requests
    /// wait again, ahead of those that arrived meanwhile, and the subject is
    /// asked for again after [`DEFER_RETRY`].
    fn settle(
        self: &Arc<Self>,
        entries: Vec<Entry>,
        grants: Option<Vec<Option<Grant>>>,
        sent: Instant,
    ) {
        let mut kept = Vec::with_capacity(entries.len());
        let mut deferred = Vec::new();
        for (index, entry) in entries.into_iter().enumerate() {
            let answer = grants.as_ref().and_then(|g| g.get(index)).copied();
            if let Some(None) = answer {
                deferred.push(entry);
                continue;
            }
            let grant = answer.flatten();
            let n = entry.waiters.len();
            for (i, waiter) in entry.waiters.into_iter().enumerate() {
                // A waiter that gave up (client gone) is simply skipped.
                let _ = waiter.send(grant.map_or(Decision::Unaccounted, |g| g.decision(i)));
            }
            if let Some(grant) = grant.filter(|g| g.granted < n) {
                self.refusals.remember(&entry.subject, &grant, sent);
            }
            kept.push((entry.subject, grant, n));
        }
        let mut expired = Vec::new();
        let mut leased = 0;
        {
            let mut queue = self.lock();
            for entry in deferred {
                let requests = u64::try_from(entry.waiters.len()).unwrap_or(u64::MAX);
                self.deferred.fetch_add(requests, Ordering::Relaxed);
                let Some(slot) = queue.slots.get_mut(&entry.subject) else {
                    continue;
                };
                slot.in_flight = false;
                slot.deferred_until = Some(Instant::now() + DEFER_RETRY);
                // Asked again through the whole admission: the shard may be
                // this process's own by now (claimed after the request
                // queued), and then only its memory may count it.
                let inner = self.clone();
                let (subject, waiters) = (entry.subject, entry.waiters);
                drop(tokio::spawn(async move {
                    tokio::time::sleep(DEFER_RETRY).await;
                    {
                        let mut queue = inner.lock();
                        if let Some(slot) = queue.slots.get_mut(&subject) {
                            slot.deferred_until = None;
                        }
                        inner.enqueue(&mut queue, &subject);
                    }
                    for waiter in waiters {
                        let decision = inner.admit(&subject).await;
                        // A waiter that gave up (client gone) is skipped.
                        let _ = waiter.send(decision);
                    }
                }));
            }
            for (subject, grant, n) in kept {
                let Some(slot) = queue.slots.get_mut(&subject) else {
                    continue;
                };
                slot.in_flight = false;
                if let Some(grant) = grant {
                    leased += slot.keep(grant, n, sent);
                    slot.serve_waiters(&subject, &mut expired);
                }
                if !slot.waiters.is_empty() || slot.wants_lease(Instant::now()) {
                    self.enqueue(&mut queue, &subject);
                } else if slot.never_leases() && slot.is_idle(sent, Duration::ZERO) {
                    // Nothing pending and nothing it could be leased: its
                    // slot would only be kept for the idle scan to find, and
                    // many clients sending a few requests each would fill
                    // the map that scan walks under the queue lock.
                    queue.slots.remove(&subject);
                }
            }
        }
        self.leased
            .fetch_add(u64::try_from(leased).unwrap_or(u64::MAX), Ordering::Relaxed);
        if !expired.is_empty() {
            self.releases().append(&mut expired);
        }
    }
}

/// Sends queued subjects to the database until none is queued or in flight,
/// one call at a time: a second call beside a slow one would split the
/// batch the first one's clients come back to, and cost the database a call
/// more for the same requests. After a call returns, its clients come back
/// with their next requests: the next call is held (see [`Hold`]) so that it
/// carries them beside those that queued meanwhile, instead of two half
/// batches.
async fn dispatch(inner: Arc<Inner>) {
    let mut hold = Hold::none(Instant::now());
    loop {
        let entries = {
            let mut queue = inner.lock();
            let ready = queue.ready.len();
            let now = Instant::now();
            // Stopping as soon as a call's answers leave nothing queued would
            // send the first of its clients to come back alone (a new
            // dispatcher holds nothing) and the others in a second call.
            if ready == 0 && hold.is_over(now) {
                queue.dispatching = false;
                return;
            }
            if hold.lets_go(ready, now) {
                queue.assemble(now)
            } else {
                // Held: the request that fills the batch wakes us.
                queue.want = hold.want;
                Vec::new()
            }
        };
        if entries.is_empty() {
            tokio::select! {
                () = inner.filled.notified() => {}
                () = tokio::time::sleep_until(hold.ends().into()) => {}
            }
            continue;
        }
        // Its own task: a call that panics ends there (its guard forgets its
        // subjects), not in the dispatcher every later request depends on.
        let subjects = entries.len();
        let carried = tokio::spawn(call(inner.clone(), entries))
            .await
            .map_or(0, |()| subjects);
        let ready = inner.lock().ready.len();
        hold = Hold::after(carried, ready, Instant::now());
    }
}

/// The next call held after one returned at `since`, until `want` subjects
/// are queued (those it carried, who come back with their next requests,
/// and those that queued during it) or [`BATCH_WAIT`] has passed. A subject
/// at a human rate does not come back within that bound, so under light
/// load the hold has long expired when the next request comes, which then
/// goes out at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hold {
    want: usize,
    since: Instant,
}

impl Hold {
    /// No hold: the next call goes out at once.
    fn none(now: Instant) -> Self {
        Self {
            want: 0,
            since: now,
        }
    }

    /// After a call that carried `returned` subjects came back at `now`,
    /// with `ready` subjects queued meanwhile.
    fn after(returned: usize, ready: usize, now: Instant) -> Self {
        Self {
            want: (returned + ready).min(MAX_SUBJECTS),
            since: now,
        }
    }

    /// When the hold's bound passes.
    fn ends(self) -> Instant {
        self.since + BATCH_WAIT
    }

    /// Whether the hold's bound has passed at `now`.
    fn is_over(self, now: Instant) -> bool {
        now >= self.ends()
    }

    /// Whether `ready` queued subjects go out at `now`: once the hold is
    /// filled or over.
    fn lets_go(self, ready: usize, now: Instant) -> bool {
        ready > 0 && (ready >= self.want || self.is_over(now))
    }
}

/// One `api.admit_batch()` call for `entries`, settled whatever its outcome.
async fn call(inner: Arc<Inner>, entries: Vec<Entry>) {
    let sent = Instant::now();
    let mut guard = CallGuard {
        inner: inner.clone(),
        entries,
    };
    let entries = &guard.entries;
    let requests: usize = entries.iter().map(|e| e.waiters.len()).sum();
    let requests = u64::try_from(requests).unwrap_or(u64::MAX);
    inner.requests.fetch_add(requests, Ordering::Relaxed);
    inner.calls.fetch_add(1, Ordering::Relaxed);
    let owner = inner.shards.owner;
    let grants =
        match on_connection(&inner.pool, |client| admit_batch(client, entries, owner)).await {
            Ok(grants) => Some(grants),
            Err(reason) => {
                inner.failures.fetch_add(requests, Ordering::Relaxed);
                if let Some(first) = entries.first() {
                    inner.log_failure(&first.subject, &reason);
                }
                None
            }
        };
    let entries = std::mem::take(&mut guard.entries);
    inner.settle(entries, grants, sent);
}

/// Holds a call's entries until it is settled. When its task ends early (a
/// panic), forgets their subjects, so that their next requests start anew;
/// the call's own requests fail open, their channels being dropped.
struct CallGuard {
    inner: Arc<Inner>,
    entries: Vec<Entry>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        if self.entries.is_empty() {
            return;
        }
        let mut queue = self.inner.lock();
        for entry in &self.entries {
            queue.slots.remove(&entry.subject);
        }
    }
}

/// `api.admit_batch()` over `entries` as process `owner`: one grant per
/// entry, in their order (None: deferred).
async fn admit_batch(
    client: deadpool_postgres::Object,
    entries: &[Entry],
    owner: i64,
) -> anyhow::Result<Vec<Option<Grant>>> {
    let statement = client
        .prepare_cached(
            "select ord, granted, quota, used, reset_at, retry_after, refused_by, wait_us, burst,
                    deferred
             from api.admit_batch($1, $2, $3, $4)",
        )
        .await?;
    let subjects: Vec<&str> = entries.iter().map(|e| e.subject.id()).collect();
    let plans: Vec<&str> = entries.iter().map(|e| e.subject.plan()).collect();
    let costs = entries
        .iter()
        .map(|e| i32::try_from(e.cost()))
        .collect::<Result<Vec<i32>, _>>()
        .context("batch too large")?;
    let rows = client
        .query(&statement, &[&subjects, &plans, &costs, &owner])
        .await?;
    let mut grants = vec![None; entries.len()];
    for row in &rows {
        let ord: i32 = row.try_get(0)?;
        let slot = usize::try_from(ord)
            .ok()
            .and_then(|o| o.checked_sub(1))
            .and_then(|i| grants.get_mut(i))
            .context("api.admit_batch answered for an entry it was not given")?;
        *slot = Some(Grant::from_batch_row(row, 1)?);
    }
    grants
        .into_iter()
        .map(|g| g.context("api.admit_batch left an entry unanswered"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(n: u8) -> Subject {
        Subject::anonymous(std::net::IpAddr::from([192, 0, 2, n]))
    }

    /// Queues one waiting request of `subject`, as `Accountant::admit` does.
    fn wait(queue: &mut Queue, subject: &Subject, now: Instant) -> Wake {
        let (tx, _rx) = tokio::sync::oneshot::channel();
        queue.slot(subject, now).waiters.push(tx);
        queue.enqueue(subject)
    }

    #[test]
    fn one_call_carries_every_queued_subject_once_with_its_requests() {
        let now = Instant::now();
        let mut queue = Queue::default();
        let (a, b) = (subject(1), subject(2));
        assert_eq!(
            wait(&mut queue, &a, now),
            Wake::Start,
            "the first request starts the dispatcher"
        );
        assert_eq!(wait(&mut queue, &b, now), Wake::Nothing);
        assert_eq!(wait(&mut queue, &a, now), Wake::Nothing);
        let entries = queue.assemble(now);
        let summary: Vec<_> = entries
            .iter()
            .map(|e| (e.subject.id().to_owned(), e.cost()))
            .collect();
        assert_eq!(
            summary,
            [
                ("ip:192.0.2.1".to_owned(), 2),
                ("ip:192.0.2.2".to_owned(), 1)
            ]
        );
        assert!(queue.slots.values().all(|s| s.in_flight && !s.queued));
        assert!(queue.ready.is_empty());
    }

    #[test]
    fn a_subject_in_flight_is_not_sent_again_until_its_call_returns() {
        let now = Instant::now();
        let mut queue = Queue::default();
        let a = subject(1);
        wait(&mut queue, &a, now);
        assert_eq!(queue.assemble(now).len(), 1);
        // Arrives while the call is in flight: waits, not queued.
        wait(&mut queue, &a, now);
        assert!(queue.ready.is_empty());
        assert!(queue.assemble(now).is_empty());
        assert_eq!(queue.slots[&a].waiters.len(), 1);
    }

    #[test]
    fn after_a_call_returns_the_next_is_held_until_its_clients_are_back_or_the_bound() {
        let back = Instant::now();
        // 30 subjects came back; 20 queued while they were out.
        let hold = Hold::after(30, 20, back);
        assert_eq!(hold.want, 50);
        assert!(!hold.lets_go(20, back));
        assert!(!hold.lets_go(49, back + BATCH_WAIT / 2));
        assert!(hold.lets_go(50, back), "filled: at once");
        assert!(hold.lets_go(21, back + BATCH_WAIT), "the bound");
        assert!(!hold.lets_go(0, back + BATCH_WAIT), "nothing queued");
        // With nothing queued the dispatcher waits out the hold for the
        // returned call's clients before it stops.
        assert!(!hold.is_over(back + BATCH_WAIT / 2));
        assert!(hold.is_over(back + BATCH_WAIT));
        // Light load: one subject came back, none waited; its next request,
        // or anyone's, goes out at once; so does the first call of all.
        assert!(Hold::after(1, 0, back).lets_go(1, back));
        assert!(Hold::none(back).lets_go(1, back));
        assert_eq!(Hold::after(MAX_SUBJECTS, 9, back).want, MAX_SUBJECTS);
    }

    #[test]
    fn a_request_that_fills_a_held_batch_wakes_the_dispatcher_once() {
        let now = Instant::now();
        let mut queue = Queue::default();
        assert_eq!(wait(&mut queue, &subject(1), now), Wake::Start);
        queue.want = 3;
        assert_eq!(wait(&mut queue, &subject(2), now), Wake::Nothing);
        assert_eq!(wait(&mut queue, &subject(3), now), Wake::Filled);
        assert_eq!(wait(&mut queue, &subject(4), now), Wake::Nothing);
        assert_eq!(queue.assemble(now).len(), 4);
        assert_eq!(queue.want, 0, "sent: no longer held");
    }

    #[test]
    fn a_call_takes_at_most_its_share_of_subjects_and_requests() {
        let now = Instant::now();
        let mut queue = Queue::default();
        let many = subject(1);
        for _ in 0..MAX_PER_SUBJECT + 5 {
            wait(&mut queue, &many, now);
        }
        for n in 0..MAX_SUBJECTS {
            let s = Subject::anonymous(std::net::IpAddr::from([10, 0, (n >> 8) as u8, n as u8]));
            wait(&mut queue, &s, now);
        }
        let entries = queue.assemble(now);
        assert_eq!(entries.len(), MAX_SUBJECTS);
        assert_eq!(entries[0].cost(), MAX_PER_SUBJECT);
        assert_eq!(queue.slots[&many].waiters.len(), 5);
        assert_eq!(
            queue.ready.len(),
            1,
            "the last subject waits for the next call"
        );
    }
}
