//! Admission in batches across subjects. A request that no lease and no local
//! refusal can answer waits in its subject's [`Slot`]; the subject is queued
//! once. One dispatcher task per accountant sends the queued subjects to the
//! database together, as one `api.admit_batch()` call with one entry per
//! subject (cost: its waiting requests plus the lease it wants), when the
//! previous call returns or when it is late (out for twice the recent calls'
//! time, at least [`BATCH_WAIT`]), whichever is first, with at most
//! [`MAX_CALLS_IN_FLIGHT`] calls running. A subject has at most one call
//! in flight, so its requests are granted in arrival order. The dispatcher
//! stops when nothing is queued or in flight, and the next request starts it.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::task::JoinSet;

use super::grants::Grant;
use super::lease::Slot;
use super::{Decision, Inner, Subject, Waiters, on_connection};

/// A call in flight is late, and the next is sent beside it, after twice the
/// recent calls' time but never before this long.
pub const BATCH_WAIT: Duration = Duration::from_millis(1);
/// The most calls of one accountant running at once: the accounting shares
/// its pool with key resolution and the health probe, which must find a
/// connection.
const MAX_CALLS_IN_FLIGHT: usize = 2;
/// The most requests of one subject in one call.
const MAX_PER_SUBJECT: usize = 1024;
/// The most subjects in one call.
const MAX_SUBJECTS: usize = 1024;

/// Every subject's slot, and the subjects due for the next call.
#[derive(Debug, Default)]
pub(super) struct Queue {
    pub(super) slots: HashMap<Subject, Slot>,
    /// Subjects with requests waiting (or a lease wanted) and no call in
    /// flight, in the order they became due.
    ready: Vec<Subject>,
    /// Whether the dispatcher task runs.
    dispatching: bool,
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
    /// (its call's return queues it again). Returns whether the dispatcher
    /// must be started.
    fn enqueue(&mut self, subject: &Subject) -> bool {
        let Some(slot) = self.slots.get_mut(subject) else {
            return false;
        };
        if slot.queued || slot.in_flight {
            return false;
        }
        slot.queued = true;
        self.ready.push(subject.clone());
        !std::mem::replace(&mut self.dispatching, true)
    }

    /// The next call: the queued subjects (at most [`MAX_SUBJECTS`]), each
    /// with its waiting requests (at most [`MAX_PER_SUBJECT`]) and the lease
    /// it wants, marked in flight. A subject with neither is dropped from
    /// the queue.
    fn assemble(&mut self, now: Instant) -> Vec<Entry> {
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
        if queue.enqueue(subject) {
            tokio::spawn(dispatch(self.clone()));
        }
    }

    /// Takes in a call's answers: decisions to its requests, leases kept,
    /// requests that arrived meanwhile served from them, subjects with
    /// requests left queued again. `grants` is None when the call failed:
    /// its requests go ahead uncounted (fail open).
    fn settle(self: &Arc<Self>, entries: Vec<Entry>, grants: Option<Vec<Grant>>, sent: Instant) {
        let mut kept = Vec::with_capacity(entries.len());
        for (index, entry) in entries.into_iter().enumerate() {
            let grant = grants.as_ref().and_then(|g| g.get(index)).copied();
            let n = entry.waiters.len();
            for (i, waiter) in entry.waiters.into_iter().enumerate() {
                // A waiter that gave up (client gone) is simply skipped.
                let _ = waiter.send(grant.map_or(Decision::Unaccounted, |g| g.decision(i)));
            }
            if let Some(grant) = grant.filter(|g| g.granted < n) {
                self.remember_refused(&entry.subject, &grant, sent);
            }
            kept.push((entry.subject, grant, n));
        }
        let mut expired = Vec::new();
        let mut leased = 0;
        {
            let mut queue = self.lock();
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

/// Sends queued subjects to the database until none is queued or in flight.
/// A call goes out at once when none is in flight; otherwise the requests
/// queued meanwhile wait for it to return, so that a call carries everything
/// that arrived during the one before. Only a call that is late (out for
/// [`late_after`] the recent calls' time) gets a second call beside it.
async fn dispatch(inner: Arc<Inner>) {
    let mut calls = JoinSet::new();
    let mut newest = Instant::now();
    let mut typical = BATCH_WAIT / 2;
    loop {
        while let Some(took) = calls.try_join_next() {
            typical = recent(typical, Some(took));
        }
        let now = Instant::now();
        let bound = late_after(typical);
        let entries = {
            let mut queue = inner.lock();
            let entries = if may_send(calls.len(), newest, now, bound) {
                queue.assemble(now)
            } else {
                Vec::new()
            };
            if entries.is_empty() && calls.is_empty() && queue.ready.is_empty() {
                queue.dispatching = false;
                return;
            }
            entries
        };
        if !entries.is_empty() {
            calls.spawn(call(inner.clone(), entries));
            newest = now;
        }
        if calls.is_empty() {
            continue;
        }
        if calls.len() < MAX_CALLS_IN_FLIGHT {
            // Past the bound with nothing queued: look again a bound later
            // (requests queued while the dispatcher runs do not wake it).
            let mut due = newest + bound;
            if due <= now {
                due = now + BATCH_WAIT;
            }
            tokio::select! {
                took = calls.join_next() => typical = recent(typical, took),
                () = tokio::time::sleep_until(due.into()) => {}
            }
        } else {
            let took = calls.join_next().await;
            typical = recent(typical, took);
        }
    }
}

/// The recent calls' time: a moving average of their durations (a call
/// whose task failed leaves it as it is).
fn recent(typical: Duration, took: Option<Result<Duration, tokio::task::JoinError>>) -> Duration {
    match took {
        Some(Ok(took)) => (typical * 7 + took) / 8,
        _ => typical,
    }
}

/// When a call in flight counts as late: out for twice the recent calls'
/// time, and at least [`BATCH_WAIT`].
fn late_after(typical: Duration) -> Duration {
    (typical * 2).max(BATCH_WAIT)
}

/// Whether the next call may go out, with `in_flight` calls out and the
/// newest sent at `newest`: at once when none is out, else once the newest
/// has been out for `bound` and there is room for one more.
fn may_send(in_flight: usize, newest: Instant, now: Instant, bound: Duration) -> bool {
    in_flight == 0 || (in_flight < MAX_CALLS_IN_FLIGHT && now >= newest + bound)
}

/// One `api.admit_batch()` call for `entries`, settled whatever its outcome.
async fn call(inner: Arc<Inner>, entries: Vec<Entry>) -> Duration {
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
    let grants = match on_connection(&inner.pool, |client| admit_batch(client, entries)).await {
        Ok(grants) => Some(grants),
        Err(reason) => {
            inner.failures.fetch_add(requests, Ordering::Relaxed);
            if let Some(first) = entries.first() {
                inner.log_failure(&first.subject, &reason);
            }
            None
        }
    };
    let took = sent.elapsed();
    let entries = std::mem::take(&mut guard.entries);
    inner.settle(entries, grants, sent);
    took
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

/// `api.admit_batch()` over `entries`: one grant per entry, in their order.
async fn admit_batch(
    client: deadpool_postgres::Object,
    entries: &[Entry],
) -> anyhow::Result<Vec<Grant>> {
    let statement = client
        .prepare_cached(
            "select ord, granted, quota, used, reset_at, retry_after, refused_by, wait_us, burst
             from api.admit_batch($1, $2, $3)",
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
        .query(&statement, &[&subjects, &plans, &costs])
        .await?;
    let mut grants = vec![None; entries.len()];
    for row in &rows {
        let ord: i32 = row.try_get(0)?;
        let slot = usize::try_from(ord)
            .ok()
            .and_then(|o| o.checked_sub(1))
            .and_then(|i| grants.get_mut(i))
            .context("api.admit_batch answered for an entry it was not given")?;
        *slot = Some(Grant::from_row(row, 1)?);
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
    fn wait(queue: &mut Queue, subject: &Subject, now: Instant) -> bool {
        let (tx, _rx) = tokio::sync::oneshot::channel();
        queue.slot(subject, now).waiters.push(tx);
        queue.enqueue(subject)
    }

    #[test]
    fn one_call_carries_every_queued_subject_once_with_its_requests() {
        let now = Instant::now();
        let mut queue = Queue::default();
        let (a, b) = (subject(1), subject(2));
        assert!(
            wait(&mut queue, &a, now),
            "the first request starts the dispatcher"
        );
        assert!(!wait(&mut queue, &b, now));
        assert!(!wait(&mut queue, &a, now));
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
    fn the_next_call_waits_for_the_one_in_flight_unless_it_is_late() {
        let sent = Instant::now();
        let ms = Duration::from_millis;
        // Calls of 3 ms: one is late after 6 ms; quick calls, after 1 ms.
        let bound = late_after(ms(3));
        assert_eq!(bound, ms(6));
        assert_eq!(late_after(ms(0)), BATCH_WAIT);
        assert!(may_send(0, sent, sent, bound), "nothing in flight: at once");
        assert!(!may_send(1, sent, sent + ms(5), bound));
        assert!(may_send(1, sent, sent + ms(6), bound));
        assert!(!may_send(MAX_CALLS_IN_FLIGHT, sent, sent + ms(60), bound));
        // The recent time follows the calls, an eighth at a time.
        assert_eq!(recent(ms(8), Some(Ok(ms(16)))), ms(9));
        assert_eq!(recent(ms(8), None), ms(8));
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
