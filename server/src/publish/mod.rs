//! `pricing publish`: one snapshot becomes the served state in one transaction.
//!
//! The rows are checked here (snapshot.rs), loaded into stage tables, and the
//! database diffs them against what is published, writes the new state and
//! emits the events (`publish.apply` in sql/50_publish.sql). Any failure rolls
//! the whole publish back, so the previous publish stays served. The two
//! other ways in: the bundled dataset on a database where nothing was ever
//! published ([`publish_bundled_if_empty`]), and `pricing sync` ([`sync`]).

pub mod snapshot;
pub mod sync;

use rust_decimal::Decimal;
use time::{Date, OffsetDateTime};
use tokio_postgres::Client;

use crate::publish::snapshot::{BadRow, Checks, Snapshot, Staged, StagedPrice};
use crate::store::db;

/// How to publish.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The publish time (`as_of`); now when `None`.
    pub at: Option<OffsetDateTime>,
    /// Publish without the bad rows instead of rejecting the snapshot.
    pub skip_bad_rows: bool,
    /// The row checks.
    pub checks: Checks,
    /// Limits on what the publish may drop or move (`pricing sync`); none for `pricing publish`.
    pub guard: Option<Guard>,
}

/// Limits a publish must stay within, checked in its transaction against the
/// prices in effect before and after it (`pricing sync`'s guard rails).
#[derive(Debug, Clone, Copy)]
pub struct Guard {
    /// Largest share (0 to 1) of the models with a price in effect, or of the
    /// prices in effect, that a publish may take away.
    pub max_drop_share: Decimal,
    /// Most prices in effect whose figure a publish may change.
    pub max_moved: i64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            at: None,
            skip_bad_rows: false,
            checks: Checks {
                max_move_factor: Decimal::from(DEFAULT_MAX_MOVE_FACTOR),
            },
            guard: None,
        }
    }
}

/// The dataset shipped with the service (data/snapshot.json.gz, see
/// data/PROVENANCE.md), published on first start of an empty database.
pub const BUNDLED_SNAPSHOT: &[u8] = include_bytes!("../../../data/snapshot.json.gz");

/// A step moving a price by more than this factor is refused unless allowed.
pub const DEFAULT_MAX_MOVE_FACTOR: u32 = 20;

/// Why a publish did not happen.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The snapshot has bad rows and `skip_bad_rows` was not given.
    #[error("the snapshot was rejected: {} bad rows{}", .0.len(), list(.0))]
    Rejected(Vec<BadRow>),
    /// The publish would drop or move more than its guard allows; nothing was published.
    #[error(
        "refused: {0}; the last publish stays served (raise the limit with the flag named to publish anyway)"
    )]
    Refused(String),
    /// Anything else (database, I/O); nothing was published.
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

fn list(rows: &[BadRow]) -> String {
    const SHOWN: usize = 50;
    let mut out: String = rows
        .iter()
        .take(SHOWN)
        .map(|r| format!("\n  {}: {}", r.row, r.reason))
        .collect();
    if rows.len() > SHOWN {
        out.push_str(&format!("\n  ... and {} more", rows.len() - SHOWN));
    }
    out.push_str("\nfix the rows, or publish without them with --skip-bad-rows");
    out
}

/// What a publish did.
#[derive(Debug)]
pub struct Report {
    /// The new publish time.
    pub as_of: OffsetDateTime,
    /// The rows left out (only with `skip_bad_rows`).
    pub skipped: Vec<BadRow>,
    /// Counts from the database: models, rows inserted and deleted, events by type.
    pub summary: serde_json::Value,
}

/// On a database where nothing was ever published, publishes the bundled
/// dataset ([`BUNDLED_SNAPSHOT`]); returns the time of the served publish.
pub async fn publish_bundled_if_empty(client: &mut Client) -> anyhow::Result<OffsetDateTime> {
    if let Some(served) = db::served(client).await? {
        return Ok(served.as_of);
    }
    tracing::info!("nothing published yet: publishing the bundled dataset");
    let snapshot = Snapshot::from_bytes(BUNDLED_SNAPSHOT)?;
    let report = publish(client, &snapshot, Options::default()).await?;
    tracing::info!(summary = %report.summary, "bundled dataset published");
    Ok(report.as_of)
}

/// Publishes `snapshot`, or nothing at all.
pub async fn publish(
    client: &mut Client,
    snapshot: &Snapshot,
    options: Options,
) -> Result<Report, PublishError> {
    let (staged, bad) = snapshot.check(options.checks);
    if !bad.is_empty() && !options.skip_bad_rows {
        return Err(PublishError::Rejected(bad));
    }
    for row in &bad {
        tracing::warn!(row = %row.row, reason = %row.reason, "left out");
    }
    let (as_of, summary) = write(client, snapshot, &staged, options.at, options.guard).await?;
    Ok(Report {
        as_of,
        skipped: bad,
        summary,
    })
}

/// A list of source releases as JSON text: it travels in a `text[]` and is
/// cast to `jsonb`, since unnest cannot take an array of arrays.
fn json_list(list: Option<&[String]>) -> Option<String> {
    list.map(|l| serde_json::Value::from(l).to_string())
}

/// Writes the publish in one transaction; returns its time (`at`, else the
/// time the publish lock was taken: after every publish that held it before)
/// and its summary.
async fn write(
    client: &mut Client,
    snapshot: &Snapshot,
    staged: &Staged,
    at: Option<OffsetDateTime>,
    guard: Option<Guard>,
) -> Result<(OffsetDateTime, serde_json::Value), PublishError> {
    let tx = client.transaction().await.map_err(anyhow::Error::from)?;
    let locked: OffsetDateTime = tx
        .query_one("select publish.lock()", &[])
        .await
        .map_err(anyhow::Error::from)?
        .get(0);
    let as_of = at.unwrap_or(locked);
    if guard.is_some() {
        tx.execute(
            "create temp table guard_before on commit drop as
             select * from publish.served_prices(($1::timestamptz at time zone 'UTC')::date)",
            &[&as_of],
        )
        .await
        .map_err(anyhow::Error::from)?;
    }
    let summary = stage_and_apply(&tx, snapshot, staged, as_of).await?;
    if let Some(guard) = guard {
        check_guard(&tx, as_of, guard).await?;
    }
    tx.commit().await.map_err(anyhow::Error::from)?;
    Ok((as_of, summary))
}

/// Refuses the publish in `tx` when it took away or moved more than `guard` allows.
async fn check_guard(
    tx: &tokio_postgres::Transaction<'_>,
    as_of: OffsetDateTime,
    guard: Guard,
) -> Result<(), PublishError> {
    let row = tx
        .query_one(
            "with after as (
                 select * from publish.served_prices(($1::timestamptz at time zone 'UTC')::date)
             )
             select (select count(distinct model_id) from guard_before),
                    (select count(distinct model_id) from after),
                    (select count(*) from guard_before),
                    (select count(*) from after),
                    (select count(*) from guard_before as b
                     join after as a using (model_id, channel, component, tier)
                     where a.usd_per_1m <> b.usd_per_1m)",
            &[&as_of],
        )
        .await
        .map_err(anyhow::Error::from)?;
    let (models_before, models_after): (i64, i64) = (row.get(0), row.get(1));
    let (prices_before, prices_after, moved): (i64, i64, i64) =
        (row.get(2), row.get(3), row.get(4));
    for (what, before, after) in [
        ("models with a price in effect", models_before, models_after),
        ("prices in effect", prices_before, prices_after),
    ] {
        if before > 0
            && Decimal::from(before - after) > guard.max_drop_share * Decimal::from(before)
        {
            return Err(PublishError::Refused(format!(
                "{what} would go from {before} to {after}, more than --max-drop-share {} of them",
                guard.max_drop_share
            )));
        }
    }
    if moved > guard.max_moved {
        return Err(PublishError::Refused(format!(
            "{moved} prices in effect would change, more than --max-moved-prices {}",
            guard.max_moved
        )));
    }
    Ok(())
}

/// Loads the stage tables and applies them (`publish.apply`) inside `tx`;
/// returns the publish's summary.
async fn stage_and_apply(
    tx: &tokio_postgres::Transaction<'_>,
    snapshot: &Snapshot,
    staged: &Staged,
    as_of: OffsetDateTime,
) -> anyhow::Result<serde_json::Value> {
    tx.batch_execute("select publish.create_stage()").await?;
    tracing::info!(
        providers = staged.providers.len(),
        models = staged.models.len(),
        price_rows = staged.prices.len(),
        "loading the stage"
    );
    let (slugs, names): (Vec<&str>, Vec<&str>) = staged
        .providers
        .iter()
        .map(|(s, n)| (s.as_str(), n.as_str()))
        .unzip();
    tx.execute(
        "insert into stage_providers select * from unnest($1::text[], $2::text[])",
        &[&slugs, &names],
    )
    .await?;

    let m = &staged.models;
    let col =
        |f: fn(&crate::publish::snapshot::StagedModel) -> &str| m.iter().map(f).collect::<Vec<_>>();
    // Modality arrays travel as text like {text,image}: unnest cannot take an array of arrays.
    let pg_array = |v: &[String]| format!("{{{}}}", v.join(","));
    let input_modalities: Vec<String> = m.iter().map(|x| pg_array(&x.input_modalities)).collect();
    let output_modalities: Vec<String> = m.iter().map(|x| pg_array(&x.output_modalities)).collect();
    let context: Vec<Option<i32>> = m.iter().map(|x| x.context_window).collect();
    let max_output: Vec<Option<i32>> = m.iter().map(|x| x.max_output_tokens).collect();
    let launch: Vec<Option<Date>> = m.iter().map(|x| x.launch_date).collect();
    let launch_of = |f: fn(&crate::publish::snapshot::StagedLaunch) -> &str| {
        m.iter()
            .map(|x| x.launch.as_ref().map(f))
            .collect::<Vec<_>>()
    };
    let deprecation: Vec<Option<Date>> = m.iter().map(|x| x.deprecation_date).collect();
    let retirement: Vec<Option<Date>> = m.iter().map(|x| x.retirement_date).collect();
    let successor: Vec<Option<&str>> = m.iter().map(|x| x.successor.as_deref()).collect();
    let kind: Vec<Option<&str>> = m.iter().map(|x| x.kind.as_deref()).collect();
    tx.execute(
        "insert into stage_models
         select id, provider, slug, name, modality::pricing.modality,
                input_m::pricing.modality[], output_m::pricing.modality[], status::pricing.lifecycle,
                context_window, max_output_tokens, launch_date, deprecation_date, retirement_date, successor,
                launch_basis::pricing.launch_basis, launch_source, launch_precision::pricing.date_precision,
                kind::pricing.model_kind
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                     $8::text[], $9::int4[], $10::int4[], $11::date[], $12::date[], $13::date[], $14::text[],
                     $15::text[], $16::text[], $17::text[], $18::text[])
              as u(id, provider, slug, name, modality, input_m, output_m, status, context_window,
                   max_output_tokens, launch_date, deprecation_date, retirement_date, successor,
                   launch_basis, launch_source, launch_precision, kind)",
        &[
            &col(|x| &x.id),
            &col(|x| &x.provider),
            &col(|x| &x.slug),
            &col(|x| &x.name),
            &col(|x| &x.modality),
            &input_modalities,
            &output_modalities,
            &col(|x| &x.status),
            &context,
            &max_output,
            &launch,
            &deprecation,
            &retirement,
            &successor,
            &launch_of(|l| &l.basis),
            &launch_of(|l| &l.source),
            &launch_of(|l| &l.precision),
            &kind,
        ],
    )
    .await?;

    let a = &staged.aliases;
    let alias: Vec<&str> = a.iter().map(|x| x.0.as_str()).collect();
    let model: Vec<&str> = a.iter().map(|x| x.1.as_str()).collect();
    let kind: Vec<&str> = a.iter().map(|x| x.2.as_str()).collect();
    let channel: Vec<Option<&str>> = a.iter().map(|x| x.3.as_deref()).collect();
    tx.execute(
        "insert into stage_aliases
         select alias, model_id, kind::pricing.alias_kind, channel::pricing.channel
         from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as u(alias, model_id, kind, channel)",
        &[&alias, &model, &kind, &channel],
    )
    .await?;

    load_prices(
        tx,
        "insert into stage_prices
         select model_id, channel::pricing.channel, component::pricing.component,
                tier::pricing.service_tier, usd_per_1m, valid_from, valid_to, last_verified_at, source,
                sources::jsonb, promotion::jsonb",
        &staged.prices,
    )
    .await?;
    load_prices(
        tx,
        "insert into stage_conditional_prices
         select model_id, channel::pricing.channel, component, tier::pricing.service_tier,
                usd_per_1m, valid_from, valid_to, last_verified_at, source, sources::jsonb,
                promotion::jsonb, above_input_tokens, cache_ttl, region, time_window::jsonb",
        &staged.conditional_prices,
    )
    .await?;

    let l = &staged.limits;
    let model: Vec<&str> = l.iter().map(|x| x.model_id.as_str()).collect();
    let from: Vec<Date> = l.iter().map(|x| x.valid_from).collect();
    let context: Vec<Option<i32>> = l.iter().map(|x| x.context_window).collect();
    let max_output: Vec<Option<i32>> = l.iter().map(|x| x.max_output_tokens).collect();
    let sources: Vec<Option<String>> = l.iter().map(|x| json_list(x.sources.as_deref())).collect();
    tx.execute(
        "insert into stage_limits
         select model_id, valid_from, context_window, max_output_tokens, sources::jsonb
         from unnest($1::text[], $2::date[], $3::int4[], $4::int4[], $5::text[])
              as u(model_id, valid_from, context_window, max_output_tokens, sources)",
        &[&model, &from, &context, &max_output, &sources],
    )
    .await?;

    let l = &staged.lifecycle;
    let model: Vec<&str> = l.iter().map(|x| x.model_id.as_str()).collect();
    let channel: Vec<&str> = l.iter().map(|x| x.channel.as_str()).collect();
    let announced: Vec<Option<Date>> = l.iter().map(|x| x.announced).collect();
    let shutdown: Vec<Option<Date>> = l.iter().map(|x| x.shutdown).collect();
    let not_before: Vec<Option<Date>> = l.iter().map(|x| x.not_before).collect();
    let successor: Vec<Option<&str>> = l.iter().map(|x| x.successor.as_deref()).collect();
    let source: Vec<&str> = l.iter().map(|x| x.source.as_str()).collect();
    let url: Vec<Option<&str>> = l.iter().map(|x| x.url.as_deref()).collect();
    let decides: Vec<bool> = l.iter().map(|x| x.decides).collect();
    tx.execute(
        "insert into stage_lifecycle
         select model_id, channel::pricing.channel, announced, shutdown, not_before, successor, source, url, decides
         from unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::date[], $6::text[], $7::text[],
                     $8::text[], $9::bool[])
              as u(model_id, channel, announced, shutdown, not_before, successor, source, url, decides)",
        &[&model, &channel, &announced, &shutdown, &not_before, &successor, &source, &url, &decides],
    )
    .await?;

    let b = &staged.benchmarks;
    let model: Vec<&str> = b.iter().map(|x| x.0.as_str()).collect();
    let name: Vec<&str> = b.iter().map(|x| x.1.as_str()).collect();
    let score: Vec<Decimal> = b.iter().map(|x| x.2).collect();
    let source: Vec<&str> = b.iter().map(|x| x.3.as_str()).collect();
    let date: Vec<Date> = b.iter().map(|x| x.4).collect();
    tx.execute(
        "insert into stage_benchmarks
         select * from unnest($1::text[], $2::text[], $3::numeric[], $4::text[], $5::date[])",
        &[&model, &name, &score, &source, &date],
    )
    .await?;

    tracing::info!(
        conditional_price_rows = staged.conditional_prices.len(),
        "diffing against the published state and writing"
    );
    let row = tx
        .query_one(
            "select publish.apply($1, $2, $3)",
            &[&as_of, &snapshot.sha256(), snapshot.sources()],
        )
        .await?;
    Ok(row.get(0))
}

/// Loads price rows into a stage table: `insert` is the statement up to its
/// select list, over the columns of `u` (every field of [`StagedPrice`]).
async fn load_prices(
    tx: &tokio_postgres::Transaction<'_>,
    insert: &str,
    p: &[StagedPrice],
) -> anyhow::Result<()> {
    let text = |f: fn(&StagedPrice) -> &str| p.iter().map(f).collect::<Vec<_>>();
    let price: Vec<Decimal> = p.iter().map(|x| x.usd_per_1m).collect();
    let from: Vec<Date> = p.iter().map(|x| x.valid_from).collect();
    let to: Vec<Option<Date>> = p.iter().map(|x| x.valid_to).collect();
    let verified: Vec<OffsetDateTime> = p.iter().map(|x| x.last_verified_at).collect();
    let sources: Vec<Option<String>> = p.iter().map(|x| json_list(x.sources.as_deref())).collect();
    let above: Vec<Option<i32>> = p.iter().map(|x| x.condition.above_input_tokens).collect();
    let ttl: Vec<Option<&str>> = p.iter().map(|x| x.condition.cache_ttl.as_deref()).collect();
    let promotion: Vec<Option<&str>> = p.iter().map(|x| x.promotion.as_deref()).collect();
    let region: Vec<Option<&str>> = p.iter().map(|x| x.condition.region.as_deref()).collect();
    let window: Vec<Option<&str>> = p
        .iter()
        .map(|x| x.condition.time_window.as_deref())
        .collect();
    tx.execute(
        &format!(
            "{insert}
             from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::numeric[], $6::date[],
                         $7::date[], $8::timestamptz[], $9::text[], $10::text[], $11::int4[],
                         $12::text[], $13::text[], $14::text[], $15::text[])
                  as u(model_id, channel, component, tier, usd_per_1m, valid_from, valid_to,
                       last_verified_at, source, sources, above_input_tokens, cache_ttl,
                       promotion, region, time_window)"
        ),
        &[
            &text(|x| &x.model_id),
            &text(|x| &x.channel),
            &text(|x| &x.component),
            &text(|x| &x.tier),
            &price,
            &from,
            &to,
            &verified,
            &text(|x| &x.source),
            &sources,
            &above,
            &ttl,
            &promotion,
            &region,
            &window,
        ],
    )
    .await?;
    Ok(())
}
