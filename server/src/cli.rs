//! The `pricing` command line (design.md section 3).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use tokio_postgres::Config;

use crate::cluster::LocalCluster;
use crate::db;
use crate::http::{App, AppState};
use crate::net::Cidr;
use crate::publish;
use crate::snapshot::{Checks, Snapshot};
use crate::telemetry::LogFormat;

/// The Model Pricing Service.
#[derive(Debug, Parser)]
#[command(name = "pricing", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Log line format (stderr).
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t,
        env = "PRICING_LOG_FORMAT"
    )]
    pub log_format: LogFormat,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the REST API (on the embedded default database unless --database-url is given).
    Serve(ServeArgs),
    /// Bring the database schema up to date, then exit.
    Migrate(DatabaseArgs),
    /// Publish a snapshot (docs/snapshot-format.md): diff, write, emit events, atomically.
    Publish(PublishArgs),
}

#[derive(Debug, Args)]
struct PublishArgs {
    /// The snapshot file (.json or .json.gz).
    snapshot: PathBuf,
    /// The publish time (RFC 3339, e.g. 2025-07-01T00:00:00Z); default now.
    #[arg(long, value_parser = parse_timestamp)]
    at: Option<time::OffsetDateTime>,
    /// Publish without the bad rows instead of rejecting the snapshot.
    #[arg(long)]
    skip_bad_rows: bool,
    /// A step that moves a price by more than this factor is a bad row.
    #[arg(long, default_value_t = rust_decimal::Decimal::from(publish::DEFAULT_MAX_MOVE_FACTOR))]
    max_move_factor: rust_decimal::Decimal,
    #[command(flatten)]
    database: DatabaseArgs,
}

fn parse_timestamp(s: &str) -> Result<time::OffsetDateTime, String> {
    time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
        .map_err(|e| format!("`{s}` is not an RFC 3339 timestamp like 2025-07-01T00:00:00Z: {e}"))
}

#[derive(Debug, Args)]
struct DatabaseArgs {
    /// PostgreSQL URL; without it, the embedded cluster in --data-dir is used.
    #[arg(long, env = "DATABASE_URL")]
    database_url: Option<String>,
    /// Where the embedded cluster lives.
    #[arg(long, env = "PRICING_DATA_DIR", default_value = ".pricing-data")]
    data_dir: PathBuf,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "PRICING_LISTEN", default_value = "127.0.0.1:8080")]
    listen: String,
    #[command(flatten)]
    database: DatabaseArgs,
    /// Comma-separated CIDR blocks whose X-Forwarded-For is trusted for the client IP.
    #[arg(long, env = "PRICING_TRUSTED_PROXIES", value_delimiter = ',')]
    trusted_proxies: Vec<Cidr>,
    /// Connections in the request pool.
    #[arg(long, env = "PRICING_POOL_SIZE", default_value_t = 16)]
    pool_size: usize,
    /// The built browser calculator served at /demo/ (scripts/build-web-demo.sh writes it).
    #[arg(long, env = "PRICING_DEMO_DIR", default_value = crate::http::DEFAULT_DEMO_DIR)]
    demo_dir: PathBuf,
}

/// Runs the parsed command.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => with_database(&args.database, |config| serve(config, &args)).await,
        Command::Publish(args) => {
            let snapshot = Snapshot::read(&args.snapshot)?;
            let options = publish::Options {
                at: args.at,
                skip_bad_rows: args.skip_bad_rows,
                checks: Checks {
                    max_move_factor: args.max_move_factor,
                },
            };
            with_database(&args.database, |config| async move {
                let mut client = db::connect(&config).await?;
                db::migrate(&mut client).await?;
                let started = std::time::Instant::now();
                let report = publish::publish(&mut client, &snapshot, options).await?;
                println!(
                    "published {} in {:.2} s as of {}; {} bad rows left out\n{}",
                    args.snapshot.display(),
                    started.elapsed().as_secs_f64(),
                    report
                        .as_of
                        .format(&time::format_description::well_known::Rfc3339)?,
                    report.skipped.len(),
                    serde_json::to_string_pretty(&report.summary)?
                );
                Ok(())
            })
            .await
        }
        Command::Migrate(args) => {
            with_database(&args, |config| async move {
                let mut client = db::connect(&config).await?;
                let report = db::migrate(&mut client).await?;
                println!(
                    "migrations applied: {}; schema api {}",
                    report.migrations_applied,
                    if report.api_rebuilt {
                        "re-created"
                    } else {
                        "unchanged"
                    }
                );
                Ok(())
            })
            .await
        }
    }
}

/// Runs `work` against the given database, or against the embedded cluster,
/// which is stopped afterwards whatever `work` returned.
async fn with_database<F, Fut>(args: &DatabaseArgs, work: F) -> anyhow::Result<()>
where
    F: FnOnce(Config) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    if let Some(url) = &args.database_url {
        return work(db::parse_url(url)?).await;
    }
    let cluster = LocalCluster::start(&args.data_dir).await?;
    let result = work(cluster.config()).await;
    let stopped = cluster.stop().await;
    result.and(stopped)
}

async fn serve(config: Config, args: &ServeArgs) -> anyhow::Result<()> {
    let as_of = prepare_with_retry(&config).await?;
    tracing::info!(%as_of, "serving publish");

    let pool = db::web_pool(&config, args.pool_size)?;
    let app = App::bind(
        &args.listen,
        AppState::new(pool, args.trusted_proxies.clone()).with_demo_dir(args.demo_dir.clone()),
    )
    .await?;
    app.run(shutdown_signal()).await;
    Ok(())
}

/// A database that is still starting is waited for (30 s), not failed on.
async fn prepare_with_retry(config: &Config) -> anyhow::Result<time::OffsetDateTime> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match db::prepare(config).await {
            Ok(as_of) => return Ok(as_of),
            Err(err) if tokio::time::Instant::now() < deadline => {
                tracing::warn!(error = %format!("{err:#}"), "database not reachable yet; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(err) => {
                return Err(err).context("the database was not ready within 30 s; check --database-url and the error above");
            }
        }
    }
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = ctrl_c.await;
        }
    }
}
