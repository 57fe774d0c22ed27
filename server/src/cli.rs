//! The `pricing` command line (README.md, "Command line", lists the commands).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use tokio_postgres::Config;

use crate::access::keys;
use crate::access::net::Cidr;
use crate::app::App;
use crate::publish;
use crate::publish::snapshot::{Checks, Snapshot};
use crate::publish::sync;
use crate::service::{AppState, cache};
use crate::store::cluster::{self, LocalCluster, Supervision};
use crate::store::db;
use crate::telemetry::LogFormat;
use crate::webhooks::{self, Webhooks};

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
    /// Serve the MCP tools to a local MCP client over stdin/stdout (over HTTP, `serve` mounts them at /mcp).
    Mcp(McpArgs),
    /// Publish a snapshot (docs/snapshot-format.md): diff, write, emit events, atomically.
    Publish(PublishArgs),
    /// Build a snapshot from every source's newest release and publish it, or say why not (docs/publishing.md, "Sync").
    Sync(SyncCommandArgs),
    /// Issue, list and revoke API keys; show and set plan limits (docs/keys.md).
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Issue a key and print it (shown this once: it is stored only as a hash).
    Issue(IssueArgs),
    /// List keys by prefix with plan, label, dates (a key issued on request and never used:
    /// when it expires unless used) and use of the current window.
    List(DatabaseArgs),
    /// Revoke a key; servers refuse it within 30 s (their key cache TTL).
    Revoke {
        /// The key's prefix as `pricing keys list` shows it (pr_live_ and 12 characters).
        prefix: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Show each plan's quota, window and burst rate.
    Plans(DatabaseArgs),
    /// Change a plan's limits; accounting uses them from the next request on.
    SetPlan(SetPlanArgs),
}

#[derive(Debug, Args)]
struct IssueArgs {
    /// The plan (tier) of the key: free or internal.
    #[arg(long)]
    tier: String,
    /// When the key stops working: an RFC 3339 time or a duration from now
    /// (e.g. 30d, 12h, 90m, 1w2d).
    #[arg(long, value_parser = parse_expiry)]
    expires: Option<Expiry>,
    /// Free text to recognise the key by in listings (who has it, what for).
    #[arg(long)]
    label: Option<String>,
    #[command(flatten)]
    database: DatabaseArgs,
}

#[derive(Debug, Args)]
struct SetPlanArgs {
    /// The plan: anonymous, free, internal.
    name: String,
    /// Requests per window, or `unlimited`.
    #[arg(long, value_parser = parse_limit)]
    quota: Option<Limit>,
    /// Window length in seconds.
    #[arg(long)]
    window_seconds: Option<i32>,
    /// Requests per second (burst), or `unlimited`.
    #[arg(long, value_parser = parse_limit)]
    burst: Option<Limit>,
    #[command(flatten)]
    database: DatabaseArgs,
}

/// A plan limit: a positive count or none.
#[derive(Debug, Clone, Copy)]
struct Limit(Option<i32>);

fn parse_limit(s: &str) -> Result<Limit, String> {
    if s.eq_ignore_ascii_case("unlimited") {
        return Ok(Limit(None));
    }
    s.parse::<i32>()
        .ok()
        .filter(|n| *n >= 1)
        .map(|n| Limit(Some(n)))
        .ok_or_else(|| format!("`{s}` is neither a positive number nor `unlimited`"))
}

/// An expiry as given on the command line.
#[derive(Debug, Clone, Copy)]
enum Expiry {
    At(time::OffsetDateTime),
    After(time::Duration),
}

impl Expiry {
    fn resolve(self) -> time::OffsetDateTime {
        match self {
            Self::At(at) => at,
            Self::After(after) => time::OffsetDateTime::now_utc() + after,
        }
    }
}

fn parse_expiry(s: &str) -> Result<Expiry, String> {
    if let Ok(at) = parse_timestamp(s) {
        return Ok(Expiry::At(at));
    }
    parse_duration(s).map(Expiry::After).ok_or_else(|| {
        format!("`{s}` is neither an RFC 3339 time (2026-01-31T00:00:00Z) nor a duration (30d, 12h, 1w2d)")
    })
}

/// `1w2d3h4m5s` and any part of it; at least one part.
fn parse_duration(s: &str) -> Option<time::Duration> {
    let mut total = time::Duration::ZERO;
    let mut digits = String::new();
    let mut parts = 0;
    for c in s.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let n: i64 = digits.parse().ok()?;
        digits.clear();
        total += match c {
            'w' => time::Duration::weeks(n),
            'd' => time::Duration::days(n),
            'h' => time::Duration::hours(n),
            'm' => time::Duration::minutes(n),
            's' => time::Duration::seconds(n),
            _ => return None,
        };
        parts += 1;
    }
    (digits.is_empty() && parts > 0 && total.is_positive()).then_some(total)
}

#[derive(Debug, Args)]
struct SyncCommandArgs {
    #[command(flatten)]
    sync: SyncArgs,
    #[command(flatten)]
    database: DatabaseArgs,
}

/// The options of a sync, shared by `pricing sync` and `pricing serve --sync-every`.
#[derive(Debug, Args)]
struct SyncArgs {
    /// The directory holding the dataset build (the repository's tools/dataset).
    #[arg(long, env = "PRICING_TOOLS_DIR", default_value = "tools/dataset")]
    tools_dir: PathBuf,
    /// The sync's own state (its release list, last snapshot and report); default DATA_DIR/sync.
    #[arg(long, env = "PRICING_SYNC_DIR")]
    work_dir: Option<PathBuf>,
    /// Read new releases from this directory (<package>/<version>/<data file>, release.json)
    /// instead of the package registry.
    #[arg(long)]
    releases: Option<PathBuf>,
    /// The release list a first sync starts from (default: tools/dataset/sources.json).
    #[arg(long)]
    base: Option<PathBuf>,
    /// Longest the dataset build may run, e.g. 30m.
    #[arg(long, value_parser = parse_std_duration, default_value = "30m")]
    sync_timeout: Duration,
    /// Refuse a publish that takes away more than this share (0 to 1) of the models with a
    /// price in effect, or of the prices in effect.
    #[arg(long, default_value = "0.1", value_parser = parse_share)]
    max_drop_share: rust_decimal::Decimal,
    /// Refuse a publish that changes more than this many prices in effect.
    #[arg(long, default_value_t = 200)]
    max_moved_prices: i64,
    /// A step that moves a price by more than this factor is a bad row (as in `pricing publish`).
    #[arg(long, default_value_t = rust_decimal::Decimal::from(publish::DEFAULT_MAX_MOVE_FACTOR))]
    max_move_factor: rust_decimal::Decimal,
}

impl SyncArgs {
    fn options(&self, data_dir: &std::path::Path) -> sync::Options {
        sync::Options {
            tools_dir: self.tools_dir.clone(),
            work_dir: self
                .work_dir
                .clone()
                .unwrap_or_else(|| data_dir.join("sync")),
            releases: self.releases.clone(),
            base: self.base.clone(),
            timeout: self.sync_timeout,
            checks: Checks {
                max_move_factor: self.max_move_factor,
            },
            guard: publish::Guard {
                max_drop_share: self.max_drop_share,
                max_moved: self.max_moved_prices,
            },
        }
    }
}

fn parse_share(s: &str) -> Result<rust_decimal::Decimal, String> {
    s.parse::<rust_decimal::Decimal>()
        .ok()
        .filter(|d| (rust_decimal::Decimal::ZERO..=rust_decimal::Decimal::ONE).contains(d))
        .ok_or_else(|| format!("`{s}` is not a share from 0 to 1, like 0.1"))
}

fn parse_std_duration(s: &str) -> Result<Duration, String> {
    parse_duration(s)
        .and_then(|d| Duration::try_from(d).ok())
        .ok_or_else(|| format!("`{s}` is not a duration like 30s, 15m, 6h or 1d"))
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

/// A base URL: `http://` or `https://`, a host, an optional port and path; no
/// query, fragment, credentials or characters that would need escaping.
fn parse_public_url(s: &str) -> Result<String, String> {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .ok_or_else(|| format!("`{s}` must start with http:// or https://"))?;
    let host = rest.split('/').next().unwrap_or_default();
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~/:[]%".contains(c);
    if host.is_empty() || host.contains('@') || !rest.chars().all(allowed) || s.len() > 200 {
        return Err(format!(
            "`{s}` is not a base URL like https://prices.example.com or http://host:8080/pricing \
             (no query, fragment or credentials; at most 200 characters)"
        ));
    }
    Ok(s.trim_end_matches('/').to_owned())
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
struct McpArgs {
    /// Speak MCP over stdin/stdout (the only transport of this command).
    #[arg(long, required = true)]
    stdio: bool,
    #[command(flatten)]
    database: DatabaseArgs,
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
    /// The base URL clients reach the service at (e.g. https://prices.example.com), for the
    /// links in the feeds and the OpenAPI document's server; default: http:// and the
    /// address listened on. Never taken from a request's Host header.
    #[arg(long, env = "PRICING_PUBLIC_URL", value_parser = parse_public_url)]
    public_url: Option<String>,
    /// Comma-separated CIDR blocks of the clients that may read GET /metrics (the
    /// client address as for quotas: the peer, or X-Forwarded-For from a trusted proxy).
    #[arg(
        long,
        env = "PRICING_METRICS_FROM",
        value_delimiter = ',',
        default_values_t = crate::access::net::LOOPBACK
    )]
    metrics_from: Vec<Cidr>,
    /// Connections in the request pool (and in each read replica's).
    #[arg(long, env = "PRICING_POOL_SIZE", default_value_t = 16)]
    pool_size: usize,
    /// A streaming read replica of the database (repeatable; env: comma-separated):
    /// the data reads go to the replicas, admission, keys and the publish
    /// listener stay on the primary (docs/deployment.md).
    #[arg(
        long = "read-database-url",
        env = "PRICING_READ_DATABASE_URLS",
        value_delimiter = ','
    )]
    read_database_urls: Vec<String>,
    /// The built browser calculator served at /demo/ (scripts/build-web-demo.sh writes it).
    #[arg(long, env = "PRICING_DEMO_DIR", default_value = crate::http::DEFAULT_DEMO_DIR)]
    demo_dir: PathBuf,
    /// Most answers kept in the response cache (0: keep none, every request is a miss).
    #[arg(long, env = "PRICING_CACHE_ENTRIES", default_value_t = cache::Limits::default().entries)]
    cache_entries: usize,
    /// Most mebibytes of answers kept in the response cache.
    #[arg(long, env = "PRICING_CACHE_MIB", default_value_t = cache::Limits::default().bytes >> 20)]
    cache_mib: usize,
    /// Run `pricing sync` in the background this often (e.g. 6h); off by default. One sync
    /// runs at a time across every server on the database.
    #[arg(long, env = "PRICING_SYNC_EVERY", value_parser = parse_std_duration)]
    sync_every: Option<Duration>,
    #[command(flatten)]
    sync: SyncArgs,
    /// Let webhooks go to loopback, private and link-local addresses, and over plain http
    /// (for tests and private deployments; docs/webhooks.md, "Safety").
    #[arg(long, env = "PRICING_WEBHOOK_ALLOW_PRIVATE")]
    webhook_allow_private: bool,
    /// Send no webhooks from this server (subscriptions are still kept; another server on the
    /// database delivers them).
    #[arg(long, env = "PRICING_NO_WEBHOOK_DELIVERY")]
    no_webhook_delivery: bool,
}

/// Runs the parsed command.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => {
            with_own_database(&args.database, |config, embedded| {
                serve(config, embedded, &args)
            })
            .await
        }
        Command::Mcp(args) => {
            if !args.stdio {
                anyhow::bail!("pass --stdio (over HTTP, `pricing serve` serves MCP at /mcp)");
            }
            with_database(&args.database, |config, _| mcp_stdio(config)).await
        }
        Command::Publish(args) => {
            let snapshot = Snapshot::read(&args.snapshot)?;
            let options = publish::Options {
                at: args.at,
                skip_bad_rows: args.skip_bad_rows,
                checks: Checks {
                    max_move_factor: args.max_move_factor,
                },
                guard: None,
            };
            with_database(&args.database, |config, _| async move {
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
        Command::Sync(args) => {
            let options = args.sync.options(&args.database.data_dir);
            with_database(&args.database, |config, _| async move {
                let mut client = db::connect(&config).await?;
                db::migrate(&mut client).await?;
                let started = std::time::Instant::now();
                let outcome =
                    sync::run(&config, &options, "pricing sync", sync::WhenBusy::Skip).await?;
                println!(
                    "{} ({:.1} s)",
                    outcome.message(),
                    started.elapsed().as_secs_f64()
                );
                if let sync::Outcome::Published { summary, .. } = &outcome {
                    println!("{}", serde_json::to_string_pretty(summary)?);
                }
                Ok(())
            })
            .await
        }
        Command::Keys { command } => keys_command(command).await,
        Command::Migrate(args) => {
            with_database(&args, |config, _| async move {
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

async fn keys_command(command: KeysCommand) -> anyhow::Result<()> {
    match command {
        KeysCommand::Issue(args) => {
            let expires_at = args.expires.map(Expiry::resolve);
            with_owner(&args.database, |client| async move {
                let issued =
                    keys::issue(&client, &args.tier, args.label.as_deref(), expires_at).await?;
                println!("{}", issued.key.expose());
                eprintln!(
                    "issued {} on plan {}, created {}, expires {}; the key is shown this once",
                    keys::display_prefix(issued.key.lookup()),
                    issued.plan,
                    rfc3339(Some(issued.created_at)),
                    rfc3339(issued.expires_at),
                );
                Ok(())
            })
            .await
        }
        KeysCommand::List(database) => {
            with_owner(&database, |client| async move {
                let rows: Vec<[String; 8]> = keys::list(&client)
                    .await?
                    .into_iter()
                    .map(|k| {
                        [
                            k.prefix,
                            k.plan,
                            k.label.unwrap_or_else(|| "-".into()),
                            rfc3339(Some(k.created_at)),
                            rfc3339(k.expires_at),
                            rfc3339(k.unused_expires_at),
                            rfc3339(k.revoked_at),
                            match k.quota {
                                Some(quota) => format!("{}/{quota}", k.used.unwrap_or(0)),
                                None => "unmetered".into(),
                            },
                        ]
                    })
                    .collect();
                print_table(
                    [
                        "PREFIX",
                        "PLAN",
                        "LABEL",
                        "CREATED",
                        "EXPIRES",
                        "IF_UNUSED_EXPIRES",
                        "REVOKED",
                        "USED",
                    ],
                    &rows,
                );
                Ok(())
            })
            .await
        }
        KeysCommand::Revoke { prefix, database } => {
            with_owner(&database, |client| async move {
                let revoked = keys::revoke(&client, &prefix).await?;
                let at = rfc3339(Some(revoked.revoked_at));
                if revoked.newly {
                    println!(
                        "revoked at {at}; servers refuse it within {} s",
                        keys::DEFAULT_CACHE_TTL.as_secs()
                    );
                } else {
                    println!("already revoked at {at}");
                }
                Ok(())
            })
            .await
        }
        KeysCommand::Plans(database) => {
            with_owner(&database, |client| async move {
                print_plans(&keys::plans(&client).await?);
                Ok(())
            })
            .await
        }
        KeysCommand::SetPlan(args) => {
            with_owner(&args.database, |client| async move {
                let plans = keys::plans(&client).await?;
                let Some(mut plan) = plans.into_iter().find(|p| p.name == args.name) else {
                    anyhow::bail!(
                        "there is no plan named {} (see `pricing keys plans`)",
                        args.name
                    );
                };
                if let Some(Limit(quota)) = args.quota {
                    plan.quota = quota;
                }
                if let Some(window) = args.window_seconds {
                    plan.window_seconds = window;
                }
                if let Some(Limit(burst)) = args.burst {
                    plan.burst_per_second = burst;
                }
                keys::set_plan(&client, &plan).await?;
                print_plans(&[plan]);
                Ok(())
            })
            .await
        }
    }
}

/// Runs `work` on an owner connection to a migrated database.
async fn with_owner<F, Fut>(args: &DatabaseArgs, work: F) -> anyhow::Result<()>
where
    F: FnOnce(tokio_postgres::Client) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    with_database(args, |config, _| async move {
        let mut client = db::connect(&config).await?;
        db::migrate(&mut client).await?;
        work(client).await
    })
    .await
}

fn print_plans(plans: &[keys::Plan]) {
    let limit = |n: Option<i32>| n.map_or_else(|| "unlimited".to_owned(), |n| n.to_string());
    let rows: Vec<[String; 4]> = plans
        .iter()
        .map(|p| {
            [
                p.name.clone(),
                limit(p.quota),
                p.window_seconds.to_string(),
                limit(p.burst_per_second),
            ]
        })
        .collect();
    print_table(
        ["PLAN", "QUOTA", "WINDOW_SECONDS", "BURST_PER_SECOND"],
        &rows,
    );
}

fn rfc3339(t: Option<time::OffsetDateTime>) -> String {
    t.map_or_else(|| "-".to_owned(), keys::timestamp)
}

/// Prints left-aligned columns separated by two spaces.
fn print_table<const N: usize>(header: [&str; N], rows: &[[String; N]]) {
    let mut widths = header.map(str::len);
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == N {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<width$}  "));
            }
        }
        println!("{}", out.trim_end());
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}

/// Runs `work` against the given database, or against the embedded cluster:
/// the one a running server holds (reached through its socket), else one
/// started for `work` (supervised while `work` runs, its supervision handed to
/// `work`) and stopped afterwards whatever `work` returned.
async fn with_database<F, Fut>(args: &DatabaseArgs, work: F) -> anyhow::Result<()>
where
    F: FnOnce(Config, Option<Arc<Supervision>>) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    if args.database_url.is_none()
        && let Some(config) = cluster::attach(&args.data_dir).await?
    {
        return work(config, None).await;
    }
    with_own_database(args, work).await
}

/// [`with_database`] for `pricing serve`, which never shares its data dir:
/// a second server on it is refused.
async fn with_own_database<F, Fut>(args: &DatabaseArgs, work: F) -> anyhow::Result<()>
where
    F: FnOnce(Config, Option<Arc<Supervision>>) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    if let Some(url) = &args.database_url {
        return work(db::parse_url(url)?, None).await;
    }
    let cluster = LocalCluster::start(&args.data_dir).await?;
    let (supervision, watching) = cluster.supervise();
    let result = work(cluster.config(), Some(supervision)).await;
    watching.abort();
    let stopped = cluster.stop().await;
    result.and(stopped)
}

/// `pricing mcp --stdio`: the same tools as /mcp, for one local client.
async fn mcp_stdio(config: Config) -> anyhow::Result<()> {
    use rmcp::ServiceExt as _;
    let as_of = prepare_with_retry(&config).await?;
    tracing::info!(%as_of, "serving MCP over stdio");
    let state = AppState::new(db::web_pool(&config, 4)?, Vec::new());
    let accountant = state.access().accountant().clone();
    let running = crate::mcp::PricingMcp::new(state)
        .serve(crate::mcp::stdio_transport())
        .await
        .context("starting the MCP session on stdio")?;
    accountant
        .upkeep_while(running.waiting())
        .await
        .context("the MCP session on stdio")?;
    Ok(())
}

async fn serve(
    config: Config,
    embedded: Option<Arc<Supervision>>,
    args: &ServeArgs,
) -> anyhow::Result<()> {
    let as_of = prepare_with_retry(&config).await?;
    tracing::info!(%as_of, "serving publish");

    let (pool, control) = db::server_pools(&config, args.pool_size).await?;
    let replicas = args
        .read_database_urls
        .iter()
        .map(|url| db::replica_pool(url, args.pool_size))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let webhooks = Webhooks::new(
        webhooks::Settings {
            deliver: !args.no_webhook_delivery,
            allow_private: args.webhook_allow_private,
            ..webhooks::Settings::default()
        },
        db::webhook_pool(&config)?,
    );
    let mut state = AppState::new(pool, args.trusted_proxies.clone());
    if let Some(url) = &args.public_url {
        state = state.with_public_url(url);
    }
    if let Some(supervision) = embedded {
        state = state.with_embedded(supervision);
    }
    let app = App::bind(
        &args.listen,
        state
            .with_control_pool(control)
            .with_webhooks(webhooks)
            .with_read_replicas(replicas)
            .with_metrics_from(args.metrics_from.clone())
            .with_response_cache(
                config.clone(),
                cache::Limits {
                    entries: args.cache_entries,
                    bytes: args.cache_mib << 20,
                },
            ),
    )
    .await?
    .with_demo_dir(args.demo_dir.clone());
    let syncing = args.sync_every.map(|every| {
        let options = args.sync.options(&args.database.data_dir);
        tokio::spawn(sync_every(config.clone(), options, every))
    });
    app.run(shutdown_signal()).await;
    if let Some(task) = syncing {
        task.abort(); // stops a running build too: its child process is killed on drop
    }
    Ok(())
}

/// `serve --sync-every`: a sync at start and after each period; a failed or
/// refused one is logged and recorded, and the last publish stays served.
async fn sync_every(config: Config, options: sync::Options, every: Duration) {
    let runner = format!("pricing serve (pid {})", std::process::id());
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match sync::run(&config, &options, &runner, sync::WhenBusy::Wait).await {
            Ok(outcome) => tracing::info!(outcome = %outcome.message(), "sync"),
            Err(err) => {
                tracing::warn!(error = %format!("{err:#}"), "sync failed; the last publish stays served")
            }
        }
    }
}

/// Everything a server needs before it serves: the schema migrated, and on a
/// database where nothing was ever published, the bundled dataset published.
/// Returns the served publish time.
async fn prepare(config: &Config) -> anyhow::Result<time::OffsetDateTime> {
    let mut owner = db::connect(config).await?;
    db::migrate(&mut owner).await?;
    publish::publish_bundled_if_empty(&mut owner).await
}

/// A database that is still starting is waited for (30 s), not failed on.
async fn prepare_with_retry(config: &Config) -> anyhow::Result<time::OffsetDateTime> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match prepare(config).await {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_served_to_this_machine_unless_told_otherwise() {
        let serve = |args: &[&str]| match Cli::try_parse_from(args) {
            Ok(Cli {
                command: Command::Serve(serve),
                ..
            }) => serve.metrics_from,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            serve(&["pricing", "serve"]),
            crate::access::net::LOOPBACK.to_vec()
        );
        assert_eq!(
            serve(&["pricing", "serve", "--metrics-from", "10.0.0.5/32,::1"]),
            vec![
                "10.0.0.5/32".parse::<Cidr>().expect("cidr"),
                "::1/128".parse().expect("cidr"),
            ]
        );
        assert!(Cli::try_parse_from(["pricing", "serve", "--metrics-from", "nowhere"]).is_err());
    }

    #[test]
    fn expiries_are_rfc3339_times_or_durations_from_now() {
        assert_eq!(parse_duration("30d"), Some(time::Duration::days(30)));
        assert_eq!(
            parse_duration("1w2d3h4m5s"),
            Some(
                time::Duration::weeks(1)
                    + time::Duration::days(2)
                    + time::Duration::hours(3)
                    + time::Duration::minutes(4)
                    + time::Duration::seconds(5)
            )
        );
        assert_eq!(parse_duration("12"), None);
        assert_eq!(parse_duration("0d"), None);
        assert_eq!(parse_duration("5y"), None);
        assert!(matches!(
            parse_expiry("2030-01-31T00:00:00Z"),
            Ok(Expiry::At(_))
        ));
        assert!(parse_expiry("soon").is_err());
    }

    #[test]
    fn plan_limits_are_positive_numbers_or_unlimited() {
        assert_eq!(parse_limit("unlimited").map(|l| l.0), Ok(None));
        assert_eq!(parse_limit("5").map(|l| l.0), Ok(Some(5)));
        assert!(parse_limit("0").is_err());
    }
}
