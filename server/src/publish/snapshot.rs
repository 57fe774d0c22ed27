//! The canonical snapshot format (pricing-snapshot v1, docs/snapshot-format.md)
//! and its row checks. A snapshot is the whole published state: providers,
//! models with aliases, price series with their history, conditional rates
//! (context-length tiers and cache writes), and benchmarks.

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::Path;

use anyhow::{Context as _, bail};
use estimator::{Region, TimeWindow};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};
use time::{Date, OffsetDateTime};

/// The enums of the data model, as the database spells them.
pub const CHANNELS: &[&str] = &[
    "official",
    "openrouter",
    "aws_bedrock",
    "azure",
    "vertex",
    "together",
    "fireworks",
    "groq",
    "novita",
];
const COMPONENTS: &[&str] = &["input", "output", "cached_input"];
/// The components of a conditional rate: the standard ones and cache writes.
const CONDITIONAL_COMPONENTS: &[&str] = &["input", "output", "cached_input", "cache_write"];
/// How long a cache write keeps its tokens, where the provider prices it apart.
const CACHE_TTLS: &[&str] = &["5m", "1h"];
const TIERS: &[&str] = &["standard", "batch", "flex", "priority"];
const STATUSES: &[&str] = &["active", "deprecated", "retired"];
const MODALITIES: &[&str] = &["text", "image", "audio", "video"];
const ALIAS_KINDS: &[&str] = &["provider_api_id", "renamed_slug"];
/// How a launch date is known (docs/snapshot-format.md section 5.5), strongest first.
const LAUNCH_BASES: &[&str] = &[
    "announced",
    "maker_api",
    "first_listed",
    "reported",
    "source_listed",
];
const DATE_PRECISIONS: &[&str] = &["day", "month"];
/// The longest `launch_source` the database keeps (a URL, a release, a commit).
const MAX_LAUNCH_SOURCE: usize = 300;
/// What a model is for (tools/dataset/pipeline/kinds.py decides it).
pub const KINDS: &[&str] = &[
    "chat",
    "embedding",
    "rerank",
    "image",
    "audio",
    "video",
    "ocr",
    "moderation",
];
/// `numeric(20, 10)` holds at most 10 decimal places.
const MAX_PRICE_SCALE: u32 = 10;

/// A parsed snapshot and the SHA-256 of its bytes.
#[derive(Debug, Deserialize)]
pub struct Snapshot {
    format: String,
    version: u32,
    /// When the newest source was published.
    #[serde(with = "time::serde::rfc3339")]
    pub generated_at: OffsetDateTime,
    #[serde(default)]
    sources: serde_json::Value,
    providers: Vec<Provider>,
    models: Vec<Model>,
    prices: Vec<PriceSeries>,
    /// Absent in a snapshot without conditional rates.
    #[serde(default)]
    conditional_prices: Vec<ConditionalSeries>,
    #[serde(default)]
    benchmarks: Vec<Benchmark>,
    #[serde(skip)]
    sha256: String,
}

#[derive(Debug, Deserialize)]
struct Provider {
    slug: String,
    name: String,
}

#[derive(Debug, Deserialize)]
struct Model {
    id: String,
    provider: String,
    name: String,
    /// Absent in a snapshot written before kinds existed: unknown.
    #[serde(default)]
    kind: Option<String>,
    modality: String,
    #[serde(default)]
    input_modalities: Vec<String>,
    #[serde(default)]
    output_modalities: Vec<String>,
    status: String,
    context_window: Option<i64>,
    max_output_tokens: Option<i64>,
    launch_date: Option<Date>,
    /// How the launch date is known, what says so and whether it is a day or a month; absent
    /// in a snapshot of an older build (then no launch is known).
    #[serde(default)]
    launch_basis: Option<String>,
    #[serde(default)]
    launch_source: Option<String>,
    #[serde(default)]
    launch_precision: Option<String>,
    deprecation_date: Option<Date>,
    retirement_date: Option<Date>,
    successor: Option<String>,
    #[serde(default)]
    aliases: Vec<Alias>,
    /// The context-window / max-output history, ascending by `from`.
    #[serde(default)]
    limits: Vec<Limits>,
    /// The providers' lifecycle statements of the model, one per channel.
    #[serde(default)]
    lifecycle: Vec<Statement>,
}

/// What a provider's page says of a model's lifecycle on one channel
/// (docs/snapshot-format.md 5.2).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Statement {
    channel: String,
    announced: Option<Date>,
    shutdown: Option<Date>,
    not_before: Option<Date>,
    successor: Option<String>,
    source: String,
    url: Option<String>,
    decides: bool,
}

/// The limits a model had from `from` on, and the source releases showing them.
#[derive(Debug, Deserialize)]
struct Limits {
    from: Date,
    context_window: Option<i64>,
    max_output_tokens: Option<i64>,
    #[serde(default)]
    sources: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct Alias {
    id: String,
    kind: String,
    channel: Option<String>,
}

#[derive(Debug, Deserialize)]
struct PriceSeries {
    model: String,
    channel: String,
    component: String,
    tier: String,
    history: Vec<Step>,
    #[serde(with = "time::serde::rfc3339")]
    last_verified_at: OffsetDateTime,
    source: String,
}

/// A price series that applies only under its condition.
#[derive(Debug, Deserialize)]
struct ConditionalSeries {
    #[serde(flatten)]
    series: PriceSeries,
    condition: Condition,
}

#[derive(Debug, Deserialize)]
struct Condition {
    above_input_tokens: Option<i64>,
    cache_ttl: Option<String>,
    /// Absent in snapshots written before regional rates: the default region.
    #[serde(default)]
    region: Option<String>,
    /// Read as JSON here and checked by [`check_condition`], so that a bad window is a bad row
    /// named like the others rather than an unreadable snapshot.
    #[serde(default)]
    time_window: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Step {
    from: Date,
    /// Absent: a bad row. `null`: not offered from `from` on.
    #[serde(default, deserialize_with = "present")]
    price: Option<Option<String>>,
    /// The source releases that show this step, `<source id> <version>`.
    #[serde(default)]
    sources: Option<Vec<String>>,
    /// The provider states the price is promotional.
    #[serde(default)]
    promotion: Option<Promotion>,
}

/// A promotional price: the last day it applies where the provider names one,
/// and the provider's page that says so.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Promotion {
    until: Option<Date>,
    url: String,
}

/// The longest page address a promotion may name.
const MAX_URL_LEN: usize = 500;

/// Checks a step's promotion: on a price, ending on or after the step's day,
/// with an http(s) address; returns it as the JSON the database stores.
fn check_promotion(step: &Step, price: Option<Decimal>) -> Result<Option<String>, String> {
    let Some(p) = &step.promotion else {
        return Ok(None);
    };
    if price.is_none() {
        return Err("a promotion needs a price; leave it out on a null step".into());
    }
    if p.until.is_some_and(|until| until < step.from) {
        return Err(format!(
            "promotion.until {} is before the step's day {}",
            p.until.map(|d| d.to_string()).unwrap_or_default(),
            step.from
        ));
    }
    if !page_address(&p.url) {
        return Err(format!(
            "promotion.url must be the provider's page, an http(s) address of at most {MAX_URL_LEN} characters"
        ));
    }
    serde_json::to_string(p)
        .map(Some)
        .map_err(|e| format!("promotion: {e}"))
}

/// A provider's page: an http(s) address of at most MAX_URL_LEN characters.
fn page_address(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() <= MAX_URL_LEN
        && !url.contains(char::is_whitespace)
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize)]
struct Benchmark {
    model: String,
    benchmark: String,
    score: Decimal,
    source: String,
    date: Date,
}

/// One rejected row: where it is and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    /// The row, e.g. `prices: openai:o3 official input standard from 2025-06-10`.
    pub row: String,
    /// What is wrong with it.
    pub reason: String,
}

/// How strict the checks are.
#[derive(Debug, Clone, Copy)]
pub struct Checks {
    /// A step that moves a price by more than this factor (up or down) is a bad row.
    pub max_move_factor: Decimal,
}

/// A checked snapshot, as column-shaped rows ready for the stage tables.
#[derive(Debug, Default)]
pub struct Staged {
    pub providers: Vec<(String, String)>,
    pub models: Vec<StagedModel>,
    pub aliases: Vec<(String, String, String, Option<String>)>,
    pub prices: Vec<StagedPrice>,
    pub conditional_prices: Vec<StagedPrice>,
    pub limits: Vec<StagedLimits>,
    pub lifecycle: Vec<StagedStatement>,
    pub benchmarks: Vec<(String, String, Decimal, String, Date)>,
}

/// A provider's lifecycle statement of a model on one channel, checked.
#[derive(Debug)]
pub struct StagedStatement {
    pub model_id: String,
    pub channel: String,
    pub announced: Option<Date>,
    pub shutdown: Option<Date>,
    pub not_before: Option<Date>,
    pub successor: Option<String>,
    pub source: String,
    pub url: Option<String>,
    pub decides: bool,
}

/// One entry of a model's limits history.
#[derive(Debug)]
pub struct StagedLimits {
    pub model_id: String,
    pub valid_from: Date,
    pub context_window: Option<i32>,
    pub max_output_tokens: Option<i32>,
    pub sources: Option<Vec<String>>,
}

#[derive(Debug)]
pub struct StagedModel {
    pub id: String,
    pub provider: String,
    pub slug: String,
    pub name: String,
    pub modality: String,
    pub input_modalities: Vec<String>,
    pub output_modalities: Vec<String>,
    pub status: String,
    pub context_window: Option<i32>,
    pub max_output_tokens: Option<i32>,
    pub launch_date: Option<Date>,
    pub launch: Option<StagedLaunch>,
    pub deprecation_date: Option<Date>,
    pub retirement_date: Option<Date>,
    pub successor: Option<String>,
    pub kind: Option<String>,
}

/// How a model's launch date is known: basis, source and precision, checked.
#[derive(Debug)]
pub struct StagedLaunch {
    pub basis: String,
    pub source: String,
    pub precision: String,
}

/// When a conditional rate applies; both `None` on a standard price row.
#[derive(Debug, Clone, Default)]
pub struct StagedCondition {
    /// The rate prices a whole request whose input tokens exceed this.
    pub above_input_tokens: Option<i32>,
    /// A cache write's time to live (`5m`, `1h`), where the source states it.
    pub cache_ttl: Option<String>,
    /// Where the rate applies; `None`: the channel's default region.
    pub region: Option<String>,
    /// The UTC hours of the week the rate applies in, as checked JSON text.
    pub time_window: Option<String>,
}

/// One price row: `usd_per_1m` in effect over `[valid_from, valid_to)`.
#[derive(Debug)]
pub struct StagedPrice {
    pub model_id: String,
    pub channel: String,
    pub component: String,
    pub tier: String,
    pub usd_per_1m: Decimal,
    pub valid_from: Date,
    pub valid_to: Option<Date>,
    pub last_verified_at: OffsetDateTime,
    pub source: String,
    /// The source releases that show the step starting at `valid_from`.
    pub sources: Option<Vec<String>>,
    pub condition: StagedCondition,
    /// The promotion the price is under (`{"until", "url"}` as JSON), if any.
    pub promotion: Option<String>,
}

impl Snapshot {
    /// Reads a snapshot file, gzip-compressed (`.gz`) or plain JSON.
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("reading the snapshot {}", path.display()))?;
        Self::from_bytes(&bytes).with_context(|| format!("in the snapshot {}", path.display()))
    }

    /// Parses snapshot bytes, gzip-compressed or plain JSON.
    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Self> {
        let sha256 = hex::encode(Sha256::digest(bytes));
        let mut json = Vec::new();
        let json: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
            flate2::read::GzDecoder::new(bytes)
                .read_to_end(&mut json)
                .context("decompressing (gzip)")?;
            &json
        } else {
            bytes
        };
        let mut snapshot: Self =
            serde_json::from_slice(json).context("parsing the snapshot JSON")?;
        if snapshot.format != "pricing-snapshot" || snapshot.version != 1 {
            bail!(
                "unsupported snapshot format {} v{} (expected pricing-snapshot v1)",
                snapshot.format,
                snapshot.version
            );
        }
        snapshot.sha256 = sha256;
        Ok(snapshot)
    }

    /// SHA-256 of the snapshot file's bytes.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Where the data came from, recorded with the publish.
    pub fn sources(&self) -> &serde_json::Value {
        &self.sources
    }

    /// Checks every row; returns the good rows and the bad ones. A bad row is
    /// left out of the stage together with what depends on it.
    pub fn check(&self, checks: Checks) -> (Staged, Vec<BadRow>) {
        let mut bad = Vec::new();
        let mut staged = Staged::default();
        let source_ids = self.source_ids();

        let mut providers = HashSet::new();
        for p in &self.providers {
            if valid_slug(&p.slug) && providers.insert(p.slug.as_str()) {
                staged.providers.push((p.slug.clone(), p.name.clone()));
            } else {
                bad.push(BadRow {
                    row: format!("providers: {}", p.slug),
                    reason: "the slug must be unique, lowercase [a-z0-9-] and start with a letter or digit (at most 128 characters)".into(),
                });
            }
        }

        let mut models: HashMap<&str, &str> = HashMap::new();
        for m in &self.models {
            match check_model(m, &providers) {
                Ok(model) => {
                    if models.insert(m.id.as_str(), m.provider.as_str()).is_some() {
                        bad.push(BadRow {
                            row: format!("models: {}", m.id),
                            reason: "duplicate model id".into(),
                        });
                        continue;
                    }
                    staged.models.push(model);
                    stage_limits(m, &source_ids, &mut staged.limits, &mut bad);
                    stage_lifecycle(m, &mut staged.lifecycle, &mut bad);
                }
                Err(reason) => bad.push(BadRow {
                    row: format!("models: {}", m.id),
                    reason,
                }),
            }
        }
        // A successor must itself be published.
        for st in &mut staged.lifecycle {
            if let Some(successor) = &st.successor
                && !models.contains_key(successor.as_str())
            {
                bad.push(BadRow {
                    row: format!("models: {} lifecycle {}", st.model_id, st.channel),
                    reason: format!("successor {successor} is not in the snapshot; left out"),
                });
                st.successor = None;
            }
        }
        for model in &mut staged.models {
            if let Some(successor) = &model.successor
                && !models.contains_key(successor.as_str())
            {
                bad.push(BadRow {
                    row: format!("models: {}", model.id),
                    reason: format!("successor {successor} is not in the snapshot; left out"),
                });
                model.successor = None;
            }
        }

        let mut aliases = HashSet::new();
        for m in self
            .models
            .iter()
            .filter(|m| models.contains_key(m.id.as_str()))
        {
            for a in &m.aliases {
                let row = || format!("aliases: {} -> {}", a.id, m.id);
                let reason = if models.contains_key(a.id.as_str()) {
                    Some("an alias cannot be a canonical model id".to_owned())
                } else if !a.id.contains(':') {
                    Some("an alias has the form <provider_slug>:<id>".to_owned())
                } else if !ALIAS_KINDS.contains(&a.kind.as_str()) {
                    Some(format!(
                        "unknown alias kind `{}` (one of {})",
                        a.kind,
                        ALIAS_KINDS.join(", ")
                    ))
                } else if a.channel.as_deref().is_some_and(|c| !CHANNELS.contains(&c)) {
                    Some(format!(
                        "unknown channel `{}`",
                        a.channel.as_deref().unwrap_or_default()
                    ))
                } else if !aliases.insert(a.id.as_str()) {
                    Some("the alias names two models".to_owned())
                } else {
                    None
                };
                match reason {
                    Some(reason) => bad.push(BadRow { row: row(), reason }),
                    None => staged.aliases.push((
                        a.id.clone(),
                        m.id.clone(),
                        a.kind.clone(),
                        a.channel.clone(),
                    )),
                }
            }
        }

        let mut series = HashSet::new();
        for s in &self.prices {
            let row = format!("prices: {}", series_key(s));
            let checked = check_series(s, COMPONENTS, &models)
                .and_then(|()| unique_series(&mut series, &row));
            match checked {
                Ok(()) => stage_series(
                    s,
                    &row,
                    StagedCondition::default(),
                    checks,
                    &source_ids,
                    &mut staged.prices,
                    &mut bad,
                ),
                Err(reason) => bad.push(BadRow { row, reason }),
            }
        }

        for c in &self.conditional_prices {
            let s = &c.series;
            let mut row = format!("conditional_prices: {}", series_key(s));
            if let Some(n) = c.condition.above_input_tokens {
                row.push_str(&format!(" above {n}"));
            }
            if let Some(ttl) = &c.condition.cache_ttl {
                row.push_str(&format!(" ttl {ttl}"));
            }
            if let Some(region) = &c.condition.region {
                row.push_str(&format!(" region {region}"));
            }
            if let Some(window) = &c.condition.time_window {
                row.push_str(&format!(" window {window}"));
            }
            let checked = check_series(s, CONDITIONAL_COMPONENTS, &models)
                .and_then(|()| check_condition(&s.component, &c.condition))
                .and_then(|condition| unique_series(&mut series, &row).map(|()| condition));
            match checked {
                Ok(condition) => stage_series(
                    s,
                    &row,
                    condition,
                    checks,
                    &source_ids,
                    &mut staged.conditional_prices,
                    &mut bad,
                ),
                Err(reason) => bad.push(BadRow { row, reason }),
            }
        }

        let mut benchmarks = HashSet::new();
        for b in &self.benchmarks {
            let row = format!("benchmarks: {} {}", b.model, b.benchmark);
            if !models.contains_key(b.model.as_str()) {
                bad.push(BadRow {
                    row,
                    reason: format!("model {} is not in the snapshot", b.model),
                });
            } else if b.benchmark.is_empty()
                || !b
                    .benchmark
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
            {
                bad.push(BadRow {
                    row,
                    reason: "benchmark names are lowercase [a-z0-9_]".into(),
                });
            } else if !benchmarks.insert((b.model.as_str(), b.benchmark.as_str())) {
                bad.push(BadRow {
                    row,
                    reason: "duplicate benchmark score".into(),
                });
            } else {
                staged.benchmarks.push((
                    b.model.clone(),
                    b.benchmark.clone(),
                    b.score,
                    b.source.clone(),
                    b.date,
                ));
            }
        }
        (staged, bad)
    }

    /// The ids of the snapshot's `sources[]`, which step and limit sources name.
    fn source_ids(&self) -> HashSet<&str> {
        self.sources
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["id"].as_str())
            .collect()
    }
}

/// Checks a step's or limit entry's `sources`: `<source id> <version>` strings
/// naming sources of the snapshot, sorted and unique, at least one (unknown is
/// an absent field, not an empty list).
fn check_sources(sources: Option<&[String]>, ids: &HashSet<&str>) -> Result<(), String> {
    let Some(sources) = sources else {
        return Ok(());
    };
    if sources.is_empty() {
        return Err(
            "sources must name at least one source release; leave the field out when unknown"
                .into(),
        );
    }
    for source in sources {
        match source.split_once(' ') {
            Some((id, version))
                if ids.contains(id) && !version.is_empty() && !version.contains(' ') => {}
            _ => {
                let mut known: Vec<&str> = ids.iter().copied().collect();
                known.sort_unstable();
                return Err(format!(
                    "source `{source}` is not `<source id> <version>` with a source id of the snapshot's sources ({})",
                    known.join(", ")
                ));
            }
        }
    }
    if !sources.is_sorted_by(|a, b| a < b) {
        return Err("sources must be sorted and unique".into());
    }
    Ok(())
}

/// Positive and within `integer`, or a bad value.
fn positive_limit(v: Option<i64>, what: &str) -> Result<Option<i32>, String> {
    v.map(|n| {
        i32::try_from(n)
            .ok()
            .filter(|n| *n > 0)
            .ok_or(format!("{what} must be a positive integer"))
    })
    .transpose()
}

/// Turns a model's limits history into rows; a bad entry is left out.
fn stage_limits(
    m: &Model,
    source_ids: &HashSet<&str>,
    rows: &mut Vec<StagedLimits>,
    bad: &mut Vec<BadRow>,
) {
    let mut last: Option<Date> = None;
    for entry in &m.limits {
        let checked = if last.is_some_and(|from| from >= entry.from) {
            Err("limits entries must be in ascending date order, dates unique".to_owned())
        } else {
            check_sources(entry.sources.as_deref(), source_ids).and_then(|()| {
                Ok((
                    positive_limit(entry.context_window, "context_window")?,
                    positive_limit(entry.max_output_tokens, "max_output_tokens")?,
                ))
            })
        };
        match checked {
            Ok((context_window, max_output_tokens)) => {
                last = Some(entry.from);
                rows.push(StagedLimits {
                    model_id: m.id.clone(),
                    valid_from: entry.from,
                    context_window,
                    max_output_tokens,
                    sources: entry.sources.clone(),
                });
            }
            Err(reason) => bad.push(BadRow {
                row: format!("models: {} limits from {}", m.id, entry.from),
                reason,
            }),
        }
    }
}

/// Checks a model's lifecycle statements: a channel of the nine, once each;
/// a shutdown not before the announcement; the notice named; the page an
/// http(s) address; at most one statement the status rests on, and a
/// deprecated or retired model resting on one.
fn stage_lifecycle(m: &Model, rows: &mut Vec<StagedStatement>, bad: &mut Vec<BadRow>) {
    let mut seen = HashSet::new();
    let decides = m.lifecycle.iter().filter(|st| st.decides).count();
    if decides > 1 || (decides == 0 && m.status != "active" && !m.lifecycle.is_empty()) {
        bad.push(BadRow {
            row: format!("models: {} lifecycle", m.id),
            reason: format!(
                "{decides} statements marked `decides`: a model's status rests on exactly one (none when active)"
            ),
        });
        return;
    }
    for st in &m.lifecycle {
        let reason = if !CHANNELS.contains(&st.channel.as_str()) {
            Some(format!(
                "unknown channel `{}` (one of {})",
                st.channel,
                CHANNELS.join(", ")
            ))
        } else if !seen.insert(st.channel.as_str()) {
            Some("two statements of one channel".to_owned())
        } else if st.announced.zip(st.shutdown).is_some_and(|(a, s)| s < a) {
            Some("shutdown before the announcement".to_owned())
        } else if st.source.is_empty() || st.source.len() > 200 {
            Some("source must name the notice (1 to 200 characters)".to_owned())
        } else if st.url.as_deref().is_some_and(|u| !page_address(u)) {
            Some(format!(
                "url must be the provider's page, an http(s) address of at most {MAX_URL_LEN} characters"
            ))
        } else {
            None
        };
        match reason {
            Some(reason) => bad.push(BadRow {
                row: format!("models: {} lifecycle {}", m.id, st.channel),
                reason,
            }),
            None => rows.push(StagedStatement {
                model_id: m.id.clone(),
                channel: st.channel.clone(),
                announced: st.announced,
                shutdown: st.shutdown,
                not_before: st.not_before,
                successor: st.successor.clone(),
                source: st.source.clone(),
                url: st.url.clone(),
                decides: st.decides,
            }),
        }
    }
}

/// A provider slug: `[a-z0-9][a-z0-9-]*`, at most [`MAX_SLUG_CHARS`] characters.
fn valid_slug(slug: &str) -> bool {
    slug_of(slug, b"-")
}

/// A model slug (docs/snapshot-format.md, section 5): `[a-z0-9][a-z0-9.-]*`,
/// at most [`MAX_SLUG_CHARS`] characters.
fn valid_model_slug(slug: &str) -> bool {
    slug_of(slug, b"-.")
}

/// Lowercase letters, digits and `others`, starting with a letter or digit,
/// at most [`MAX_SLUG_CHARS`] characters.
fn slug_of(slug: &str, others: &[u8]) -> bool {
    let letter_or_digit = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut bytes = slug.bytes();
    slug.len() <= MAX_SLUG_CHARS
        && bytes.next().is_some_and(letter_or_digit)
        && bytes.all(|c| letter_or_digit(c) || others.contains(&c))
}

/// The longest slug a publish takes.
const MAX_SLUG_CHARS: usize = 128;

fn check_model(m: &Model, providers: &HashSet<&str>) -> Result<StagedModel, String> {
    let Some((provider, slug)) = m.id.split_once(':') else {
        return Err("the id has the form <provider_slug>:<model_slug>".into());
    };
    if !valid_model_slug(slug) {
        return Err(format!(
            "the model slug must be lowercase [a-z0-9.-], start with a letter or digit and have \
             at most {MAX_SLUG_CHARS} characters"
        ));
    }
    if provider != m.provider || !providers.contains(provider) || slug.is_empty() {
        return Err(format!(
            "provider `{}` is not a provider of the snapshot, or not the id's prefix",
            m.provider
        ));
    }
    let modality = |v: &str| -> Result<String, String> {
        if MODALITIES.contains(&v) {
            Ok(v.to_owned())
        } else {
            Err(format!(
                "unknown modality `{v}` (one of {})",
                MODALITIES.join(", ")
            ))
        }
    };
    let modalities =
        |vs: &[String]| -> Result<Vec<String>, String> { vs.iter().map(|v| modality(v)).collect() };
    if let Some(kind) = m.kind.as_deref().filter(|k| !KINDS.contains(k)) {
        return Err(format!(
            "unknown kind `{kind}` (one of {})",
            KINDS.join(", ")
        ));
    }
    if !STATUSES.contains(&m.status.as_str()) {
        return Err(format!(
            "unknown status `{}` (one of {})",
            m.status,
            STATUSES.join(", ")
        ));
    }
    Ok(StagedModel {
        id: m.id.clone(),
        provider: m.provider.clone(),
        slug: slug.to_owned(),
        name: m.name.clone(),
        modality: modality(&m.modality)?,
        input_modalities: modalities(&m.input_modalities)?,
        output_modalities: modalities(&m.output_modalities)?,
        status: m.status.clone(),
        context_window: positive_limit(m.context_window, "context_window")?,
        max_output_tokens: positive_limit(m.max_output_tokens, "max_output_tokens")?,
        launch_date: m.launch_date,
        launch: check_launch(m)?,
        deprecation_date: m.deprecation_date,
        retirement_date: m.retirement_date,
        successor: m.successor.clone(),
        kind: m.kind.clone(),
    })
}

/// A launch date comes with its basis, source and precision or without any of
/// them (an older build's snapshot); a month's date is its first day.
fn check_launch(m: &Model) -> Result<Option<StagedLaunch>, String> {
    let (Some(date), Some(basis), Some(source), Some(precision)) = (
        m.launch_date,
        &m.launch_basis,
        &m.launch_source,
        &m.launch_precision,
    ) else {
        if m.launch_basis.is_some() || m.launch_source.is_some() || m.launch_precision.is_some() {
            return Err(
                "launch_basis, launch_source and launch_precision come together, with a launch_date"
                    .into(),
            );
        }
        return Ok(None);
    };
    if !LAUNCH_BASES.contains(&basis.as_str()) {
        return Err(format!(
            "unknown launch_basis `{basis}` (one of {})",
            LAUNCH_BASES.join(", ")
        ));
    }
    if !DATE_PRECISIONS.contains(&precision.as_str()) {
        return Err(format!(
            "unknown launch_precision `{precision}` (one of {})",
            DATE_PRECISIONS.join(", ")
        ));
    }
    if precision == "month" && date.day() != 1 {
        return Err("a launch_date of precision month is the month's first day".into());
    }
    if source.trim().is_empty() || source.chars().count() > MAX_LAUNCH_SOURCE {
        return Err(format!(
            "launch_source must be 1 to {MAX_LAUNCH_SOURCE} characters"
        ));
    }
    Ok(Some(StagedLaunch {
        basis: basis.clone(),
        source: source.clone(),
        precision: precision.clone(),
    }))
}

/// A series' model, channel, component and tier, as rows name it.
fn series_key(s: &PriceSeries) -> String {
    format!("{} {} {} {}", s.model, s.channel, s.component, s.tier)
}

/// Checks what names a series: a model of the snapshot, a channel, one of
/// `components` and a service tier.
fn check_series(
    s: &PriceSeries,
    components: &[&str],
    models: &HashMap<&str, &str>,
) -> Result<(), String> {
    if !models.contains_key(s.model.as_str()) {
        Err(format!("model {} is not in the snapshot", s.model))
    } else if !CHANNELS.contains(&s.channel.as_str()) {
        Err(format!(
            "unknown channel `{}` (one of {})",
            s.channel,
            CHANNELS.join(", ")
        ))
    } else if !components.contains(&s.component.as_str()) {
        Err(format!(
            "unknown component `{}` (one of {})",
            s.component,
            components.join(", ")
        ))
    } else if !TIERS.contains(&s.tier.as_str()) {
        Err(format!(
            "unknown service tier `{}` (one of {})",
            s.tier,
            TIERS.join(", ")
        ))
    } else {
        Ok(())
    }
}

/// A series (named by its row) may appear once.
fn unique_series(seen: &mut HashSet<String>, row: &str) -> Result<(), String> {
    if seen.insert(row.to_owned()) {
        Ok(())
    } else {
        Err("the series appears twice".to_owned())
    }
}

/// Checks a conditional rate's condition against its component: a positive
/// threshold, a cache time to live only on a cache write, a region name, a
/// well-formed time window (`estimator::TimeWindow::check`), and a condition
/// at all (the unconditional rate of a component is the standard price).
fn check_condition(component: &str, c: &Condition) -> Result<StagedCondition, String> {
    let above_input_tokens = positive_limit(c.above_input_tokens, "above_input_tokens")?;
    if let Some(ttl) = &c.cache_ttl {
        if component != "cache_write" {
            return Err(format!(
                "cache_ttl is only for component cache_write; make it null on {component}"
            ));
        }
        if !CACHE_TTLS.contains(&ttl.as_str()) {
            return Err(format!(
                "unknown cache_ttl `{ttl}` (one of {}, or null when the source does not say)",
                CACHE_TTLS.join(", ")
            ));
        }
    }
    if let Some(region) = &c.region
        && region.parse::<Region>().is_err()
    {
        return Err(format!(
            "region `{}` must be {}, or null for the channel's default region",
            crate::error::excerpt(region),
            Region::ALLOWED
        ));
    }
    let time_window = c
        .time_window
        .as_ref()
        .map(|v| {
            let window = TimeWindow::deserialize(v).map_err(|e| {
                format!(
                    "time_window must be {{\"name\": \"peak\" or \"off_peak\", \"spans\": \
                     [{{\"weekdays\": [1..7], \"from\": \"HH:MM\", \"to\": \"HH:MM\"}}]}}: {e}"
                )
            })?;
            window.check()?;
            serde_json::to_string(&window).map_err(|e| e.to_string())
        })
        .transpose()?;
    if above_input_tokens.is_none()
        && component != "cache_write"
        && c.region.is_none()
        && time_window.is_none()
    {
        return Err(format!(
            "no condition: the unconditional {component} rate belongs in prices[]"
        ));
    }
    Ok(StagedCondition {
        above_input_tokens,
        cache_ttl: c.cache_ttl.clone(),
        region: c.region.clone(),
        time_window,
    })
}

/// Turns a series' steps into rows, each under `condition`; `series` names the
/// series in bad rows. A bad step is left out, so the price before it stays in
/// effect until the next good step.
fn stage_series(
    s: &PriceSeries,
    series: &str,
    condition: StagedCondition,
    checks: Checks,
    source_ids: &HashSet<&str>,
    rows: &mut Vec<StagedPrice>,
    bad: &mut Vec<BadRow>,
) {
    let mut good: Vec<(&Step, Option<Decimal>, Option<String>)> =
        Vec::with_capacity(s.history.len());
    let mut last_price: Option<Decimal> = None;
    for step in &s.history {
        let row = || format!("{series} from {}", step.from);
        if good.last().is_some_and(|(last, ..)| last.from >= step.from) {
            bad.push(BadRow {
                row: row(),
                reason: "steps must be in ascending date order".into(),
            });
            continue;
        }
        if let Err(reason) = check_sources(step.sources.as_deref(), source_ids) {
            bad.push(BadRow { row: row(), reason });
            continue;
        }
        let price = match &step.price {
            None => {
                bad.push(BadRow {
                    row: row(),
                    reason: "missing price (use null for \"no longer offered\")".into(),
                });
                continue;
            }
            Some(None) => None,
            Some(Some(text)) => match text.parse::<Decimal>() {
                Ok(p) if p.is_sign_negative() && !p.is_zero() => {
                    bad.push(BadRow {
                        row: row(),
                        reason: format!("negative price {text}"),
                    });
                    continue;
                }
                Ok(p) if p.normalize().scale() > MAX_PRICE_SCALE => {
                    bad.push(BadRow {
                        row: row(),
                        reason: format!(
                            "price {text} has more than {MAX_PRICE_SCALE} decimal places"
                        ),
                    });
                    continue;
                }
                Ok(p) => Some(p.normalize()),
                Err(_) => {
                    bad.push(BadRow {
                        row: row(),
                        reason: format!("price `{text}` is not a decimal number"),
                    });
                    continue;
                }
            },
        };
        if let (Some(old), Some(new)) = (last_price, price)
            && !old.is_zero()
            && !new.is_zero()
        {
            let factor = if new > old { new / old } else { old / new };
            if factor > checks.max_move_factor {
                bad.push(BadRow {
                    row: row(),
                    reason: format!(
                        "moves the price from {old} to {new}, more than the {}x limit (--max-move-factor)",
                        checks.max_move_factor
                    ),
                });
                continue;
            }
        }
        let promotion = match check_promotion(step, price) {
            Ok(promotion) => promotion,
            Err(reason) => {
                bad.push(BadRow { row: row(), reason });
                continue;
            }
        };
        if price.is_some() {
            last_price = price;
        }
        good.push((step, price, promotion));
    }
    for (i, (step, price, promotion)) in good.iter().enumerate() {
        let Some(price) = price else { continue };
        rows.push(StagedPrice {
            model_id: s.model.clone(),
            channel: s.channel.clone(),
            component: s.component.clone(),
            tier: s.tier.clone(),
            usd_per_1m: *price,
            valid_from: step.from,
            valid_to: good.get(i + 1).map(|(next, ..)| next.from),
            last_verified_at: s.last_verified_at,
            source: s.source.clone(),
            sources: step.sources.clone(),
            condition: condition.clone(),
            promotion: promotion.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::CHANNELS;

    /// The part of a repository file after the first `after`, up to the next `until`.
    fn excerpt(path: &str, after: &str, until: &str) -> String {
        let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("reading {full}: {e}"));
        let start = text
            .find(after)
            .unwrap_or_else(|| panic!("{path}: `{after}` not found"))
            + after.len();
        let rest = &text[start..];
        rest[..rest.find(until).expect("the list ends")].to_owned()
    }

    /// [`CHANNELS`] is the one channel list: the database's enum
    /// (migrations/) and the OpenAPI document are checked against it by
    /// tests/api/sql_functions.rs and tests/api/openapi.rs,
    /// scripts/record-responses.py reads the OpenAPI document's, and the copies
    /// in other languages are read here.
    #[test]
    fn every_copy_of_the_channel_list_is_this_one() {
        // "a", "b": the quoted strings are every other piece between quotes.
        let quoted = |list: String| -> Vec<String> {
            list.split('"')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect()
        };
        let options = |list: String| -> Vec<String> {
            list.split("<option>")
                .skip(1)
                .map(|o| o[..o.find("</option>").expect("closed")].to_owned())
                .collect()
        };
        let copies = [
            (
                "tools/dataset/pipeline/resolve.py",
                quoted(excerpt(
                    "tools/dataset/pipeline/resolve.py",
                    "\nCHANNELS = (",
                    ")",
                )),
            ),
            (
                "web-demo/www/model.js",
                quoted(excerpt(
                    "web-demo/www/model.js",
                    "\nconst CHANNELS = [",
                    "]",
                )),
            ),
            (
                "web-demo/www/models.html",
                options(excerpt(
                    "web-demo/www/models.html",
                    "<select id=\"f-channel\"",
                    "</select>",
                )),
            ),
        ];
        for (path, copy) in copies {
            assert_eq!(copy, CHANNELS, "the channel list of {path}");
        }
    }
}
