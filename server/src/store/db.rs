//! Database access: the request pool (role `pricing_web`), the migrator, and
//! which publish is served.
//!
//! `migrate` runs the versioned migrations of `migrations/` (refinery), then
//! re-creates schemas `api` and `publish` from `sql/` in one transaction when the hash of those
//! files changed, all under an advisory lock so that concurrent starts are safe.

use std::time::Duration;

use anyhow::Context as _;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use tokio_postgres::{Client, Config, NoTls};

mod embedded {
    refinery::embed_migrations!("../migrations");
}

/// The files of schema `api`, in the order they are applied.
const API_SQL: &[(&str, &str)] = &[
    ("00_schema.sql", include_str!("../../../sql/00_schema.sql")),
    ("10_served.sql", include_str!("../../../sql/10_served.sql")),
    ("20_health.sql", include_str!("../../../sql/20_health.sql")),
    ("21_format.sql", include_str!("../../../sql/21_format.sql")),
    ("22_errors.sql", include_str!("../../../sql/22_errors.sql")),
    (
        "23_cursors.sql",
        include_str!("../../../sql/23_cursors.sql"),
    ),
    (
        "24_resolution.sql",
        include_str!("../../../sql/24_resolution.sql"),
    ),
    ("25_prices.sql", include_str!("../../../sql/25_prices.sql")),
    ("26_events.sql", include_str!("../../../sql/26_events.sql")),
    (
        "31_list_models.sql",
        include_str!("../../../sql/31_list_models.sql"),
    ),
    (
        "32_get_model.sql",
        include_str!("../../../sql/32_get_model.sql"),
    ),
    (
        "33_model_history.sql",
        include_str!("../../../sql/33_model_history.sql"),
    ),
    (
        "34_compare.sql",
        include_str!("../../../sql/34_compare.sql"),
    ),
    (
        "35_list_changes.sql",
        include_str!("../../../sql/35_list_changes.sql"),
    ),
    (
        "36_estimate_prices.sql",
        include_str!("../../../sql/36_estimate_prices.sql"),
    ),
    (
        "37_price_dump.sql",
        include_str!("../../../sql/37_price_dump.sql"),
    ),
    (
        "38_last_sync.sql",
        include_str!("../../../sql/38_last_sync.sql"),
    ),
    (
        "39_webhooks.sql",
        include_str!("../../../sql/39_webhooks.sql"),
    ),
    (
        "50_publish.sql",
        include_str!("../../../sql/50_publish.sql"),
    ),
    ("52_sync.sql", include_str!("../../../sql/52_sync.sql")),
    (
        "55_listing.sql",
        include_str!("../../../sql/55_listing.sql"),
    ),
    ("60_keys.sql", include_str!("../../../sql/60_keys.sql")),
    (
        "61_resolve_key.sql",
        include_str!("../../../sql/61_resolve_key.sql"),
    ),
    ("62_admit.sql", include_str!("../../../sql/62_admit.sql")),
    (
        "63_sweep_counters.sql",
        include_str!("../../../sql/63_sweep_counters.sql"),
    ),
    (
        "64_issue_key_on_request.sql",
        include_str!("../../../sql/64_issue_key_on_request.sql"),
    ),
    (
        "65_webhook_deliveries.sql",
        include_str!("../../../sql/65_webhook_deliveries.sql"),
    ),
    ("99_grants.sql", include_str!("../../../sql/99_grants.sql")),
];

/// The schemas created by the files of `API_SQL`, dropped before they are re-created.
const REBUILT_SCHEMAS: &[&str] = &["api", "publish", "keys"];

/// Arbitrary constant naming the migration lock for `pg_advisory_lock`.
const MIGRATION_LOCK: i64 = 0x0070_7269_6369_6e67; // "pricing"

/// How long a request may wait for a connection or for a new one to be made:
/// short, so that an unreachable database becomes a prompt 503, not a hang.
const POOL_TIMEOUT: Duration = Duration::from_millis(700);

/// Parses a `postgres://` URL or a libpq key=value string.
pub fn parse_url(url: &str) -> anyhow::Result<Config> {
    url.parse::<Config>().with_context(
        || "the database URL is not valid (expected postgres://user:pass@host:port/dbname)",
    )
}

/// The pool the HTTP server reads data through. Its connections run as role
/// `pricing_web`, which can reach schema `api` only, with a statement timeout.
pub fn web_pool(config: &Config, max_size: usize) -> anyhow::Result<Pool> {
    role_pool(config, max_size, "pricing-serve")
}

/// A read replica's data pool (same role and settings as [`web_pool`]),
/// named `host:port` for logs.
pub fn replica_pool(url: &str, max_size: usize) -> anyhow::Result<(String, Pool)> {
    let config = parse_url(url).context("--read-database-url")?;
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    Ok((format!("{host}:{port}"), web_pool(&config, max_size)?))
}

/// Connections of the control pool: one accounting call at a time
/// (server/src/access/quota/admission.rs), the release of leases, key look-ups and
/// the health probe, each finding one free.
pub const CONTROL_POOL_SIZE: usize = 6;

/// The server's control pool (quota accounting, key resolution, the health
/// probe), apart from the data pool so that a burst of expensive data requests
/// cannot starve it; same role and settings as [`web_pool`].
pub fn control_pool(config: &Config) -> anyhow::Result<Pool> {
    role_pool(config, CONTROL_POOL_SIZE, "pricing-control")
}

/// Connections of the webhook delivery worker: its rounds and the records of
/// its attempts, apart from the request and control pools.
pub const WEBHOOK_POOL_SIZE: usize = 2;

/// The webhook delivery worker's pool (see [`crate::webhooks::worker`]); same
/// role and settings as [`web_pool`].
pub fn webhook_pool(config: &Config) -> anyhow::Result<Pool> {
    role_pool(config, WEBHOOK_POOL_SIZE, "pricing-webhooks")
}

fn role_pool(config: &Config, max_size: usize, application_name: &str) -> anyhow::Result<Pool> {
    let mut config = config.clone();
    config
        .options("-c role=pricing_web -c statement_timeout=5s")
        .application_name(application_name)
        .connect_timeout(POOL_TIMEOUT);
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(max_size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(POOL_TIMEOUT))
        .create_timeout(Some(POOL_TIMEOUT))
        .recycle_timeout(Some(POOL_TIMEOUT))
        .build()
        .context("building the connection pool")
}

/// The server's data pool (`data_size` connections) and control pool, each
/// with its connections opened ahead of the first requests.
pub async fn server_pools(config: &Config, data_size: usize) -> anyhow::Result<(Pool, Pool)> {
    let data = web_pool(config, data_size)?;
    let control = control_pool(config)?;
    warm(&control, CONTROL_POOL_SIZE).await;
    warm(&data, data_size).await;
    Ok((data, control))
}

/// Opens `n` connections of `pool` before the first requests, so that a burst
/// at start does not pay for connecting (nor time out on it, making quota
/// accounting fail open). A failure is only logged: requests connect on demand.
async fn warm(pool: &Pool, n: usize) {
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        match pool.get().await {
            Ok(client) => held.push(client),
            Err(err) => {
                tracing::warn!(error = %err, "could not open a pooled connection ahead of requests");
                return;
            }
        }
    }
}

/// Opens one owner connection (for migrations and publishing).
pub async fn connect(config: &Config) -> anyhow::Result<Client> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .context("connecting to PostgreSQL")?;
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::warn!(error = %err, "database connection closed with an error");
        }
    });
    Ok(client)
}

/// What `migrate` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigrateReport {
    /// Versioned migrations applied by this run.
    pub migrations_applied: usize,
    /// Whether schema `api` was re-created (false: `sql/` unchanged).
    pub api_rebuilt: bool,
}

/// Brings the database to the current schema. Safe to run concurrently.
pub async fn migrate(client: &mut Client) -> anyhow::Result<MigrateReport> {
    client
        .execute("select pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .context("taking the migration lock")?;
    let result = migrate_locked(client).await;
    // Unlock even after a failure; a lost connection releases it anyway.
    let _ = client
        .execute("select pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await;
    result
}

async fn migrate_locked(client: &mut Client) -> anyhow::Result<MigrateReport> {
    let report = embedded::migrations::runner()
        .run_async(client)
        .await
        .context("running the versioned migrations")?;
    let migrations_applied = report.applied_migrations().len();

    let hash = api_sql_hash();
    let current: Option<String> = client
        .query_opt("select sha256 from pricing.api_schema_state", &[])
        .await?
        .map(|row| row.get(0));
    if current.as_deref() == Some(hash.as_str()) {
        return Ok(MigrateReport {
            migrations_applied,
            api_rebuilt: false,
        });
    }
    let tx = client.transaction().await?;
    // Every schema that sql/ creates holds only views and functions: drop them
    // all, or a rebuild fails on the first `create schema` of one that exists.
    tx.batch_execute(&format!(
        "drop schema if exists {} cascade",
        REBUILT_SCHEMAS.join(", ")
    ))
    .await?;
    for (name, body) in API_SQL {
        tx.batch_execute(body)
            .await
            .with_context(|| format!("applying sql/{name}"))?;
    }
    tx.execute(
        "insert into pricing.api_schema_state (sha256) values ($1)
         on conflict (singleton) do update set sha256 = excluded.sha256, applied_at = now()",
        &[&hash],
    )
    .await?;
    tx.commit().await?;
    tracing::info!(sha256 = %&hash[..12], "schema api re-created from sql/");
    Ok(MigrateReport {
        migrations_applied,
        api_rebuilt: true,
    })
}

fn api_sql_hash() -> String {
    sql_hash(API_SQL)
}

/// The hash that decides whether `api` is re-created: over every file's name
/// and text, in order, each ended by a zero byte so that no two lists of files
/// hash alike by moving text between a name and a body or between files.
fn sql_hash(files: &[(&str, &str)]) -> String {
    let mut hasher = Sha256::new();
    for (name, body) in files {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(body.as_bytes());
        hasher.update([0]);
    }
    hex::encode(hasher.finalize())
}

/// The publish being served (`api._served`, sql/10_served.sql).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// Its id in `pricing.publishes`.
    pub id: i64,
    /// Its publish time.
    pub as_of: OffsetDateTime,
    /// The sha256 of the snapshot it published, if recorded.
    pub snapshot_sha256: Option<String>,
}

/// The served publish, or `None` while nothing has been published; on an
/// owner connection (the web role may not call `api._served`).
pub async fn served(client: &Client) -> anyhow::Result<Option<Served>> {
    let row = client
        .query_opt(
            "select id, as_of, snapshot_sha256 from api._served(false)",
            &[],
        )
        .await
        .context("reading the served publish")?;
    Ok(row.map(|row| Served {
        id: row.get(0),
        as_of: row.get(1),
        snapshot_sha256: row.get(2),
    }))
}

/// Calls `api.health()`: the time of the served publish, if any.
pub async fn health(pool: &Pool) -> anyhow::Result<Option<OffsetDateTime>> {
    let client = pool.get().await?;
    let row = client
        .query_one("select as_of from api.health()", &[])
        .await?;
    Ok(row.get(0))
}

/// The newest sync run as `{at, ok, message}`, or `None` when none has run.
pub async fn last_sync(pool: &Pool) -> anyhow::Result<Option<serde_json::Value>> {
    let client = pool.get().await?;
    let row = client.query_one("select api.last_sync()", &[]).await?;
    Ok(row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_sql_files_are_listed_in_file_name_order() {
        let names: Vec<_> = API_SQL.iter().map(|(n, _)| *n).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(
            names, sorted,
            "sql/ files must be applied in file-name order"
        );
    }

    #[test]
    fn any_change_to_sql_changes_the_hash() {
        let base = [("a.sql", "select 1;"), ("b.sql", "select 2;")];
        let hash = sql_hash(&base);
        assert_eq!(hash.len(), 64);
        for changed in [
            vec![("a.sql", "select 1;"), ("b.sql", "select 3;")],
            vec![("a.sql", "select 1;"), ("c.sql", "select 2;")],
            vec![("b.sql", "select 2;"), ("a.sql", "select 1;")],
            vec![("a.sql", "select 1;")],
            vec![("a.sql", "select 1;b.sql"), ("", "select 2;")],
        ] {
            assert_ne!(sql_hash(&changed), hash, "{changed:?}");
        }
        let mut edited: Vec<_> = API_SQL.to_vec();
        let (name, body) = edited[0];
        let longer = format!("{body}\n");
        edited[0] = (name, &longer);
        assert_ne!(sql_hash(&edited), api_sql_hash());
    }

    #[test]
    fn every_file_in_sql_dir_is_applied() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../sql");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("sql/ exists")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sql"))
            .collect();
        on_disk.sort();
        let listed: Vec<String> = API_SQL.iter().map(|(n, _)| (*n).to_owned()).collect();
        assert_eq!(on_disk, listed, "list every sql/ file in API_SQL");
    }
}
