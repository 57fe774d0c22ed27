//! Local refusals. A count never goes down within a window and a bucket
//! refills no faster than its rate, so after the database refuses a subject it
//! would refuse it again until the time it named (`wait_us`): the server
//! refuses that subject itself until then, measured from when it sent the
//! call, so never for longer than the database would.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::decision::{Decision, EXHAUSTED_RECHECK, Refusal, Subject, Window, unix_now};
use super::grants::Grant;

/// Past this many remembered refused subjects, the stale ones are dropped
/// (and if that is not enough, all of them: they are only a shortcut).
const MAX_BLOCKED: usize = 100_000;

/// A refusal that holds until `until`: the end of the quota window (capped
/// at [`EXHAUSTED_RECHECK`]) or the time the token bucket refills by one.
#[derive(Debug, Clone, Copy)]
struct Blocked {
    by: Refusal,
    window: Option<Window>,
    until: Instant,
}

/// The subjects the database refused, until it would admit them again.
#[derive(Debug, Default)]
pub(super) struct Refusals(Mutex<HashMap<Subject, Blocked>>);

impl Refusals {
    fn lock(&self) -> MutexGuard<'_, HashMap<Subject, Blocked>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The refusal `subject` would get from the database now, if one holds.
    pub(super) fn known(&self, subject: &Subject) -> Option<Decision> {
        let mut blocked = self.lock();
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

    /// Forgets the refusals that no longer hold.
    pub(super) fn forget_stale(&self) {
        let now = Instant::now();
        self.lock().retain(|_, b| b.until > now);
    }

    /// Remembers the refusal of a call sent at `sent`: the database measured
    /// `wait_us` from a moment after that, so this never blocks for longer.
    pub(super) fn remember(&self, subject: &Subject, grant: &Grant, sent: Instant) {
        let (Some(by), Some(wait_us)) = (grant.refused_by, grant.wait_us) else {
            return;
        };
        let mut wait = Duration::from_micros(u64::try_from(wait_us).unwrap_or(0));
        if by == Refusal::Quota {
            wait = wait.min(EXHAUSTED_RECHECK);
        }
        let mut blocked = self.lock();
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
}
