//! Leases: units a call takes ahead of a busy subject's requests, and the
//! per-subject state they live in ([`Slot`]). Sizing is pure and tested here.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::decision::{Decision, Subject, Waiters, unix_now};
use super::grants::{Grant, Release};

/// A lease holds about this long of its subject's recent traffic; the next
/// call goes out with half of it left, so a call may take this long's half
/// before the subject's requests wait for it (on a loaded machine, 10 ms
/// left them waiting: docs/keys.md).
pub const LEASE_SPAN: Duration = Duration::from_millis(40);
/// Leased units not used within this long go back to the database; it also
/// bounds a lease by what the subject's bucket refills in that time.
pub const LEASE_TTL: Duration = Duration::from_millis(100);
/// A lease takes at most this fraction (1/N) of what is left of the window.
pub const LEASE_SHARE_OF_REMAINING: u32 = 64;
/// The most units leased at once.
const MAX_LEASE: u32 = 4096;

/// Units a call took ahead of requests: `grant.decision(next)` is the next one.
#[derive(Debug)]
pub(super) struct Lease {
    pub(super) grant: Grant,
    pub(super) next: usize,
    pub(super) expires: Instant,
}

impl Lease {
    fn left(&self) -> usize {
        self.grant.granted.saturating_sub(self.next)
    }

    /// Its unused units, to give back.
    pub(super) fn release(&self, subject: &Subject) -> Option<Release> {
        let units = u32::try_from(self.left()).unwrap_or(u32::MAX);
        (units > 0).then(|| Release {
            subject: subject.clone(),
            reset_at: self.grant.reset_at,
            units,
        })
    }
}

/// Tokens a bucket of `burst` a second refills in [`LEASE_TTL`]: the most a
/// lease may hold.
fn refill_per_ttl(burst: i32) -> u32 {
    let per_ttl = u128::from(u32::try_from(burst).unwrap_or(0)) * LEASE_TTL.as_micros() / 1_000_000;
    u32::try_from(per_ttl).unwrap_or(u32::MAX)
}

/// A subject's limits as its last answer gave them.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// What was left of the window (None: no quota).
    window_left: Option<u32>,
    /// The plan's burst rate (None: unlimited).
    burst: Option<i32>,
}

/// One subject's requests in this process.
#[derive(Debug)]
pub(super) struct Slot {
    /// Requests waiting for the next call.
    pub(super) waiters: Waiters,
    /// Whether a call for this subject is running.
    pub(super) in_flight: bool,
    /// Whether the subject is queued for the next call.
    pub(super) queued: bool,
    /// Units granted ahead, oldest first.
    pub(super) leases: VecDeque<Lease>,
    /// Requests since the last call began, and when it began: the rate a
    /// lease is sized by.
    pub(super) demand: u32,
    pub(super) last_call: Option<Instant>,
    /// From the last answer (None: none yet, the plan's limits unknown).
    limits: Option<Limits>,
    /// The last time a request arrived.
    pub(super) seen: Instant,
    /// Deferred by the database (another process holds the subject's
    /// shard): not queued again before a timer does it.
    pub(super) deferred_until: Option<Instant>,
}

impl Slot {
    pub(super) fn new(now: Instant) -> Self {
        Self {
            waiters: Vec::new(),
            in_flight: false,
            queued: false,
            leases: VecDeque::new(),
            demand: 0,
            last_call: None,
            limits: None,
            seen: now,
            deferred_until: None,
        }
    }

    /// The next leased unit's decision, dropping expired and used-up leases
    /// (the unused units of expired ones go to `expired`).
    pub(super) fn take_leased(
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
    pub(super) fn keep(&mut self, grant: Grant, n: usize, sent: Instant) -> usize {
        self.limits = Some(Limits {
            window_left: grant
                .quota
                .map(|q| u32::try_from(q - grant.used.unwrap_or(q)).unwrap_or(0)),
            burst: grant.burst,
        });
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
    pub(super) fn serve_waiters(&mut self, subject: &Subject, expired: &mut Vec<Release>) {
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
    pub(super) fn wants_lease(&self, now: Instant) -> bool {
        let left: usize = self.leases.iter().map(Lease::left).sum();
        left * 2 < usize::try_from(self.lease_size(now)).unwrap_or(0)
    }

    /// How many units the next call should take ahead of its requests: about
    /// [`LEASE_SPAN`] of the demand since the last call, within the limits
    /// the module documentation gives. Zero until an answer gave the
    /// subject's limits (a subject seen once, or whose calls were deferred:
    /// a lease sized without them could take a small quota's rest, which
    /// the requests at another process then find used).
    pub(super) fn lease_size(&self, now: Instant) -> u32 {
        let (Some(last), Some(limits)) = (self.last_call, self.limits) else {
            return 0;
        };
        let elapsed = now.saturating_duration_since(last).as_micros().max(1);
        let wanted = u128::from(self.demand) * LEASE_SPAN.as_micros() / elapsed;
        let mut size = u32::try_from(wanted).unwrap_or(u32::MAX).min(MAX_LEASE);
        if let Some(left) = limits.window_left {
            size = size.min(left / LEASE_SHARE_OF_REMAINING);
        }
        if let Some(burst) = limits.burst {
            size = size.min(refill_per_ttl(burst));
        }
        size
    }

    /// Whether the subject's plan, as of the last answer, refills less than
    /// one token in [`LEASE_TTL`], so that it never gets a lease (the
    /// built-in anonymous and free plans).
    pub(super) fn never_leases(&self) -> bool {
        self.limits
            .and_then(|l| l.burst)
            .is_some_and(|burst| refill_per_ttl(burst) == 0)
    }

    /// Whether the slot holds nothing worth keeping: no call, no waiters, no
    /// lease, and not seen for `idle`.
    pub(super) fn is_idle(&self, now: Instant, idle: Duration) -> bool {
        !self.in_flight
            && !self.queued
            && self.waiters.is_empty()
            && self.leases.is_empty()
            && now.saturating_duration_since(self.seen) >= idle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy_slot(demand: u32, window_left: Option<u32>, burst: Option<i32>) -> (Slot, Instant) {
        let start = Instant::now();
        let mut slot = Slot::new(start);
        slot.last_call = Some(start);
        slot.demand = demand;
        slot.limits = Some(Limits { window_left, burst });
        (slot, start + Duration::from_millis(1))
    }

    #[test]
    fn a_lease_holds_about_forty_milliseconds_of_the_recent_rate() {
        // 50 requests in 1 ms: 50,000 a second, so 2,000 in 40 ms.
        let (slot, now) = busy_slot(50, None, None);
        assert_eq!(slot.lease_size(now), 2000);
        // 1 request in 1 ms: 40; a subject seen once gets none.
        assert_eq!(busy_slot(1, None, None).0.lease_size(now), 40);
        assert_eq!(Slot::new(now).lease_size(now), 0);
        assert_eq!(busy_slot(100_000, None, None).0.lease_size(now), MAX_LEASE);
        // Called, but no answer gave its limits yet (deferred): none.
        let mut deferred = busy_slot(50, None, None).0;
        deferred.limits = None;
        assert_eq!(deferred.lease_size(now), 0);
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
        // Which is known as soon as the plan's burst is: such a subject's
        // slot need not be kept between its requests.
        assert!(busy_slot(50, None, Some(5)).0.never_leases());
        assert!(!busy_slot(50, None, Some(10)).0.never_leases());
        assert!(!busy_slot(50, None, None).0.never_leases());
        assert!(!Slot::new(now).never_leases(), "not known before an answer");
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
