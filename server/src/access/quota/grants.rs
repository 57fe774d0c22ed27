//! What `api.admit_batch()` answered for one subject, turned into one decision
//! per request; and units given back to the database (`api.release()`).

use anyhow::Context as _;

use super::decision::{Decision, Refusal, Subject, Window};

/// The answer for one subject of a batch (the columns of `api.admit()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Grant {
    pub(super) granted: usize,
    pub(super) quota: Option<i32>,
    pub(super) used: Option<i32>,
    pub(super) reset_at: Option<i64>,
    pub(super) retry_after: Option<i32>,
    pub(super) refused_by: Option<Refusal>,
    pub(super) wait_us: Option<i64>,
    /// The plan's burst_per_second (None: unlimited).
    pub(super) burst: Option<i32>,
}

impl Grant {
    /// Reads a row of `api.admit_batch()` (from its `granted` column at
    /// `first`): the grant, or None when the database deferred the subject
    /// (another process holds its shard).
    pub(super) fn from_batch_row(
        row: &tokio_postgres::Row,
        first: usize,
    ) -> anyhow::Result<Option<Self>> {
        if row.try_get::<_, bool>(first + 8)? {
            return Ok(None);
        }
        Self::from_row(row, first).map(Some)
    }
}

impl Grant {
    /// Reads the columns of `api.admit()` starting at column `first`.
    pub(super) fn from_row(row: &tokio_postgres::Row, first: usize) -> anyhow::Result<Self> {
        let granted: i32 = row.try_get(first)?;
        Ok(Self {
            granted: usize::try_from(granted).unwrap_or(0),
            quota: row.try_get(first + 1)?,
            used: row.try_get(first + 2)?,
            reset_at: row.try_get(first + 3)?,
            retry_after: row.try_get(first + 4)?,
            refused_by: match row.try_get::<_, Option<&str>>(first + 5)? {
                Some("quota") => Some(Refusal::Quota),
                Some(_) => Some(Refusal::Burst),
                None => None,
            },
            wait_us: row.try_get(first + 6)?,
            burst: row.try_get(first + 7)?,
        })
    }

    /// The decision for the `index`-th request (0-based) of the subject's
    /// requests in the call.
    pub(super) fn decision(&self, index: usize) -> Decision {
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
            // Used after this request: what was used before the call, plus
            // the subject's requests of the call up to and including this one.
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

/// Units to give back to the database.
#[derive(Debug)]
pub(super) struct Release {
    pub(super) subject: Subject,
    pub(super) reset_at: Option<i64>,
    pub(super) units: u32,
}

impl Release {
    /// Gives the units back with `api.release()` on `client`.
    pub(super) async fn call(&self, client: deadpool_postgres::Object) -> anyhow::Result<()> {
        let statement = client
            .prepare_cached("select api.release($1, $2, $3, $4)")
            .await?;
        let units = i32::try_from(self.units).context("release too large")?;
        client
            .execute(
                &statement,
                &[
                    &self.subject.id(),
                    &self.subject.plan(),
                    &self.reset_at,
                    &units,
                ],
            )
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_counts_down_in_order_and_refuses_the_rest() {
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
}
