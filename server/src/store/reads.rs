//! Where the data reads go: the primary's data pool, or streaming read
//! replicas (`pricing serve --read-database-url`, repeatable).
//!
//! Only the `api` reads behind the data endpoints use replicas; admission,
//! keys, the health probe and the publish listener stay on the primary.
//! A replica may lag behind the primary. Every `api` read answers with the
//! publish it was computed from, and a replica's answer is used only when that
//! publish is at least the one the server's publish listener last heard of on
//! the primary; otherwise the same read runs again on the primary. So a
//! replica that has not replayed a publish yet is read from the primary until
//! it has caught up, and no answer ever carries an older publish than the one
//! the server serves. Without a connected listener (nothing known of the
//! primary's publish) every read goes to the primary.
//!
//! A replica that cannot be reached (or whose connection breaks, or that
//! cancels a read for a conflict with recovery) is skipped for
//! [`REPLICA_RETRY`], its reads going to the primary meanwhile; then it is
//! tried again, so reads come back to it by themselves when it is back.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

use crate::error::ApiError;
use crate::telemetry::Throttle;

/// The statement budget of each `api` function, in milliseconds: about a
/// hundred times its p99 at the database on the full dataset (docs/api.md,
/// "Caching"), so that only a call stuck behind a lock or a pathological
/// input reaches it. Listings scan more than point lookups; the dump moves
/// its 0.9 MB.
const BUDGETS_MS: &[(&str, u32)] = &[
    ("api.list_models", 500),
    ("api.list_changes", 500),
    ("api.get_model", 250),
    ("api.model_history", 250),
    ("api.compare", 250),
    ("api.estimate_prices", 250),
    ("api.price_dump", 1000),
];

/// The `api` function a statement calls (`select api.f($1, ...)` or
/// `select ... from api.f()`) and its budget from [`BUDGETS_MS`].
fn budget_of(sql: &str) -> (&str, u32) {
    let function = sql
        .find("api.")
        .map(|at| &sql[at..])
        .and_then(|rest| rest.split_once('('))
        .map_or(sql, |(name, _)| name);
    let budget = BUDGETS_MS
        .iter()
        .find(|(name, _)| *name == function)
        .map_or(250, |(_, ms)| *ms);
    (function, budget)
}

/// How long a replica that failed is left out before it is tried again.
pub const REPLICA_RETRY: Duration = Duration::from_secs(1);

/// A replica's read that takes longer than this is given up and run on the
/// primary (a replica that stopped answering, not a slow query: the call's
/// statement budget bounds those).
const REPLICA_TIMEOUT: Duration = Duration::from_secs(6);

/// One read replica.
#[derive(Debug)]
struct Replica {
    /// `host:port`, for logs and /healthz.
    name: String,
    pool: Pool,
    /// Ms since [`Reads::started`] before which it is left out.
    down_until: AtomicU64,
}

/// The data pools: the primary's and the replicas'.
#[derive(Debug)]
pub struct Reads {
    primary: Pool,
    replicas: Vec<Replica>,
    /// Round robin over the replicas.
    next: AtomicUsize,
    started: Instant,
    from_replicas: AtomicU64,
    behind: AtomicU64,
    failed: AtomicU64,
}

impl Reads {
    /// Every read on `primary`.
    pub fn new(primary: Pool) -> Self {
        Self {
            primary,
            replicas: Vec::new(),
            next: AtomicUsize::new(0),
            started: Instant::now(),
            from_replicas: AtomicU64::new(0),
            behind: AtomicU64::new(0),
            failed: AtomicU64::new(0),
        }
    }

    /// Reads on these replicas (name, pool) as well.
    pub fn with_replicas(mut self, replicas: Vec<(String, Pool)>) -> Self {
        self.replicas = replicas
            .into_iter()
            .map(|(name, pool)| Replica {
                name,
                pool,
                down_until: AtomicU64::new(0),
            })
            .collect();
        self
    }

    /// Each replica's name (`host:port`) and data pool.
    pub fn replica_pools(&self) -> impl Iterator<Item = (&str, &Pool)> {
        self.replicas.iter().map(|r| (r.name.as_str(), &r.pool))
    }

    /// The primary's data pool.
    pub fn primary(&self) -> &Pool {
        &self.primary
    }

    /// Runs `sql` (one `api` read answering one row) on a replica that is up,
    /// else on the primary. `publish_of` says which publish a row was computed
    /// from; `latest` the newest publish known on the primary (None: unknown,
    /// read the primary). A replica's row older than `latest` (asked after the
    /// read, so that a publish heard meanwhile counts) is not used.
    pub async fn query_one(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        latest: impl Fn() -> Option<i64>,
        publish_of: impl Fn(&Row) -> Option<i64>,
    ) -> Result<Row, ApiError> {
        if latest().is_some()
            && let Some(replica) = self.pick()
        {
            match tokio::time::timeout(REPLICA_TIMEOUT, query(&replica.pool, sql, params)).await {
                Ok(Ok(row)) => {
                    if latest().is_some_and(|l| publish_of(&row).is_some_and(|p| p >= l)) {
                        self.from_replicas.fetch_add(1, Ordering::Relaxed);
                        return Ok(row);
                    }
                    self.behind.fetch_add(1, Ordering::Relaxed);
                }
                Ok(Err(Failure::Answer(err))) => return Err(err),
                Ok(Err(Failure::Server(_, reason))) => self.leave_out(replica, &reason),
                Err(_) => self.leave_out(replica, &format!("no answer within {REPLICA_TIMEOUT:?}")),
            }
        }
        query(&self.primary, sql, params)
            .await
            .map_err(|(Failure::Answer(err) | Failure::Server(err, _))| err)
    }

    /// The next replica that is not left out, round robin.
    fn pick(&self) -> Option<&Replica> {
        let n = self.replicas.len();
        if n == 0 {
            return None;
        }
        let now = self.now_ms();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..n)
            .map(|i| &self.replicas[(start + i) % n])
            .find(|r| r.down_until.load(Ordering::Relaxed) <= now)
    }

    fn leave_out(&self, replica: &Replica, reason: &str) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        let until = self.now_ms() + u64::try_from(REPLICA_RETRY.as_millis()).unwrap_or(u64::MAX);
        let before = replica.down_until.swap(until, Ordering::Relaxed);
        // One line per outage, not one per read.
        if before <= self.now_ms().saturating_sub(1000) {
            tracing::warn!(
                replica = %replica.name,
                %reason,
                "read replica failed; reading from the primary, retrying in {REPLICA_RETRY:?}"
            );
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// For /healthz: the data pools and where reads went since start.
    pub fn stats(&self) -> serde_json::Value {
        let now = self.now_ms();
        let pool = |p: &Pool| {
            let s = p.status();
            serde_json::json!({"size": s.size, "available": s.available, "waiting": s.waiting})
        };
        let load = |n: &AtomicU64| n.load(Ordering::Relaxed);
        serde_json::json!({
            "replicas": self.replicas.iter().map(|r| serde_json::json!({
                "name": r.name,
                "up": r.down_until.load(Ordering::Relaxed) <= now,
                "pool": pool(&r.pool),
            })).collect::<Vec<_>>(),
            "from_replicas": load(&self.from_replicas),
            "replica_behind": load(&self.behind),
            "replica_failed": load(&self.failed),
        })
    }
}

/// Why a read did not answer a row.
enum Failure {
    /// The database answered with an error (bad input, a missing model): the
    /// same on every server, the caller's answer.
    Answer(ApiError),
    /// The server could not answer: unreachable, connection lost, shutting
    /// down, or a read cancelled for a conflict with recovery (with the
    /// reason, for the log).
    Server(ApiError, String),
}

/// How long past a call's statement budget the server itself waits for the
/// answer (the round trip and the cancellation's own) before it gives up.
const BUDGET_GRACE: Duration = Duration::from_millis(250);

/// Runs `sql` (one call of an `api` function) on a connection of `pool`
/// under the function's statement budget and returns its row. A call over
/// budget is cancelled by PostgreSQL and fails alone with 503, logged at most
/// once per 10 s with the function's name, instead of holding the connection.
/// The server holds the budget too: a call with no answer [`BUDGET_GRACE`]
/// past it (a database that stopped answering, which cannot cancel anything
/// itself) fails with the same 503, its connection is closed rather than
/// given back to the pool, and a cancel request is sent for the call.
async fn query(pool: &Pool, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, Failure> {
    let client = pool.get().await.map_err(|e| {
        let reason = format!("no database connection: {e}");
        Failure::Server(ApiError::from(e), reason)
    })?;
    let (function, budget_ms) = budget_of(sql);
    let limit = Duration::from_millis(u64::from(budget_ms)) + BUDGET_GRACE;
    match tokio::time::timeout(limit, call(&client, sql, params)).await {
        Ok(answer) => answer,
        Err(_) => {
            let cancel = client.cancel_token();
            // Closed, not pooled: the connection is still busy with the call.
            drop(deadpool_postgres::Object::take(client));
            tokio::spawn(async move {
                let _ = tokio::time::timeout(
                    Duration::from_secs(5),
                    cancel.cancel_query(tokio_postgres::NoTls),
                )
                .await;
            });
            log_over_budget(function, budget_ms);
            Err(Failure::Server(
                ApiError::over_budget(budget_ms),
                format!("no answer within {limit:?}"),
            ))
        }
    }
}

/// A call over its statement budget, logged at most once per 10 s.
fn log_over_budget(function: &str, budget_ms: u32) {
    static LOG: Throttle = Throttle::new(Duration::from_secs(10));
    if let Some(suppressed) = LOG.admit() {
        tracing::warn!(
            function,
            budget_ms,
            suppressed,
            "statement budget exceeded; call cancelled (logged at most once per 10 s)"
        );
    }
}

/// The call itself on `client`: its budget set, the statement, the budget reset.
async fn call(
    client: &deadpool_postgres::Client,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Row, Failure> {
    let (function, budget_ms) = budget_of(sql);
    let classify = |err: tokio_postgres::Error| match err.code() {
        Some(code) if *code == SqlState::QUERY_CANCELED => {
            log_over_budget(function, budget_ms);
            Failure::Answer(ApiError::over_budget(budget_ms))
        }
        Some(code)
            if *code != SqlState::T_R_SERIALIZATION_FAILURE
                && *code != SqlState::ADMIN_SHUTDOWN
                && *code != SqlState::CRASH_SHUTDOWN
                && *code != SqlState::CANNOT_CONNECT_NOW =>
        {
            Failure::Answer(ApiError::from(err))
        }
        _ => {
            let reason = format!("{err:#}");
            Failure::Server(ApiError::from(err), reason)
        }
    };
    let (set_budget, statement, reset) = tokio::try_join!(
        client.prepare_cached("select set_config('statement_timeout', $1, false)"),
        client.prepare_cached(sql),
        client.prepare_cached("reset statement_timeout")
    )
    .map_err(classify)?;
    let budget = format!("{budget_ms}ms");
    let budget_params: [&(dyn ToSql + Sync); 1] = [&budget];
    // Sent together (tokio-postgres pipelines them): one round trip. The
    // reset gives the connection back with the pool's own timeout, for the
    // other users of the pool.
    let (_, row, _) = tokio::try_join!(
        client.query_one(&set_budget, &budget_params),
        client.query_one(&statement, params),
        client.execute(&reset, &[])
    )
    .map_err(classify)?;
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_api_call_has_a_budget_by_its_function_name() {
        assert_eq!(
            budget_of("select api.list_models($1::text, $2::text)"),
            ("api.list_models", 500)
        );
        assert_eq!(
            budget_of("select publish, csv from api.price_dump()"),
            ("api.price_dump", 1000)
        );
        assert_eq!(
            budget_of("select api.get_model($1::text)"),
            ("api.get_model", 250)
        );
    }
}
