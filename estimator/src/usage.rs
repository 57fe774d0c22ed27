//! The cost of one usage record, as a provider's API reports it: token counts under the
//! OpenTelemetry GenAI names or the raw usage objects of the OpenAI, Anthropic and Gemini APIs,
//! billed line by line at the rates of a [`RateCard`] (`POST /api/v1/cost`).
//!
//! The providers count differently, and each reader states how:
//! - OpenTelemetry (`gen_ai.usage.*`): `input_tokens` includes cache reads and cache writes,
//!   `output_tokens` includes reasoning tokens (the semantic conventions' definitions).
//! - OpenAI Chat Completions (`prompt_tokens`, `completion_tokens`, `*_details`) and Responses
//!   (`input_tokens`, `output_tokens`, `input_tokens_details`): the prompt count includes
//!   `cached_tokens`; the completion count includes `reasoning_tokens`.
//! - Anthropic (`input_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`,
//!   `output_tokens`, optional `cache_creation.ephemeral_5m_input_tokens` / `_1h_`): the input
//!   count excludes cache reads and writes; writes without the breakdown are 5-minute writes
//!   (Anthropic's default TTL).
//! - Gemini (`usageMetadata` or its fields): `promptTokenCount` includes
//!   `cachedContentTokenCount`; `thoughtsTokenCount` is billed as output beside
//!   `candidatesTokenCount`; `toolUsePromptTokenCount` is input.

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::assumption::{Assumption, Assumptions};
use crate::condition::{Region, WindowName};
use crate::money::serde_helpers;
use crate::rates::{CacheTtl, Component, Promotion, Rate, RateCard, Served, ServiceTier, When};

/// The usage formats read, by name.
pub const USAGE_FORMATS: &str = "otel, openai, anthropic, gemini";

/// A usage record's tokens, on one scale: every count whole and none counted twice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UsageTokens {
    /// Input tokens neither read from nor written into the cache.
    pub input: u64,
    /// Input tokens read from the cache.
    pub cached_input: u64,
    /// Input tokens written into the cache for 5 minutes.
    pub cache_write_5m: u64,
    /// Input tokens written into the cache for 1 hour.
    pub cache_write_1h: u64,
    /// Output tokens, reasoning tokens included.
    pub output: u64,
    /// Of `output`, the reasoning (thinking) tokens.
    pub reasoning: u64,
    /// The service tier the record names (Anthropic's `service_tier`), if any.
    #[serde(skip)]
    pub service_tier: Option<ServiceTier>,
}

impl UsageTokens {
    /// Every input token of the request, cached and written ones included: what a context
    /// threshold is compared with.
    pub fn prompt(&self) -> u64 {
        self.input + self.cached_input + self.cache_write_5m + self.cache_write_1h
    }
}

/// Why a usage record could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    /// The record matches none of the formats.
    #[error(
        "the usage record is none of the formats read ({USAGE_FORMATS}): pass the API's usage \
         object as it came (e.g. {{\"prompt_tokens\": 1200, \"completion_tokens\": 300}}), or the \
         OpenTelemetry attributes (gen_ai.usage.input_tokens, gen_ai.usage.output_tokens, ...)"
    )]
    UnknownFormat,
    /// The format named is not one of those read.
    #[error("`usage_format` must be one of {USAGE_FORMATS}; got `{0}`")]
    BadFormatName(String),
    /// A count is not a whole number from 0 to 10^15.
    #[error("`usage.{0}` must be a whole number of tokens from 0 to 10^15")]
    BadCount(String),
    /// The parts exceed their total (cached tokens above the prompt count).
    #[error("`usage.{0}` is larger than the total it is part of")]
    PartAboveTotal(String),
    /// A field holds a value of the wrong kind or outside the values it takes.
    #[error("`usage.{field}` must be {allowed}")]
    BadValue {
        /// The field, dot-separated.
        field: String,
        /// What it takes.
        allowed: &'static str,
    },
    /// Read in `format`, the record counts no token at all: it is of another format, or its
    /// counts are under other names. Billing it would be a silent $0.
    #[error(
        "read as `{format}`, the usage record counts no tokens ({expected}); it has {found}: \
         pass the record as the API returned it, or name its format in `usage_format`"
    )]
    NoTokens {
        /// The format it was read in.
        format: &'static str,
        /// The fields that format counts.
        expected: &'static str,
        /// The record's own top-level fields (at most 8, each cut to 40 characters).
        found: String,
    },
}

/// The largest token count of one record that is read: 10^15 (far above any context window).
const MAX_COUNT: u64 = 1_000_000_000_000_000;

/// Each format by name, with the fields it counts (for [`UsageError::NoTokens`]).
const FORMATS: &[(&str, &str)] = &[
    (
        "otel",
        "gen_ai.usage.input_tokens, gen_ai.usage.output_tokens, ...",
    ),
    (
        "openai",
        "prompt_tokens and completion_tokens, or input_tokens and output_tokens",
    ),
    (
        "anthropic",
        "input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens",
    ),
    (
        "gemini",
        "usageMetadata.promptTokenCount, usageMetadata.candidatesTokenCount, ...",
    ),
];

/// Reads a usage record: in `format` when named, else the format its fields show. A record
/// that counts no token in its format is an error, never a bill of 0.
pub fn read_usage(
    record: &Map<String, Value>,
    format: Option<&str>,
) -> Result<UsageTokens, UsageError> {
    let name = match format {
        Some(name) => name,
        None => detect(record).ok_or(UsageError::UnknownFormat)?,
    };
    let Some(&(format, expected)) = FORMATS.iter().find(|(f, _)| *f == name) else {
        return Err(UsageError::BadFormatName(name.to_owned()));
    };
    let tokens = match format {
        "otel" => otel(record),
        "openai" => openai(record),
        "anthropic" => anthropic(record),
        _ => gemini(match record.get("usageMetadata") {
            None => record,
            Some(Value::Object(inner)) => inner,
            Some(_) => {
                return Err(UsageError::BadValue {
                    field: "usageMetadata".into(),
                    allowed: "an object (Gemini's usage metadata)",
                });
            }
        }),
    }?;
    if tokens.prompt() + tokens.output == 0 {
        let mut found: Vec<String> = record.keys().take(8).map(|k| clip(k, 40)).collect();
        if record.len() > 8 {
            found.push(format!("... ({} fields)", record.len()));
        }
        return Err(UsageError::NoTokens {
            format,
            expected,
            found: if found.is_empty() {
                "no fields".into()
            } else {
                format!("the fields {}", found.join(", "))
            },
        });
    }
    Ok(tokens)
}

/// At most `n` characters of `s`, an ellipsis marking a cut.
fn clip(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_owned(),
    }
}

/// The format a record's own fields show. Anthropic's fields are looked for before OpenAI's:
/// its `input_tokens` / `output_tokens` are OpenAI's Responses names too, and its record
/// without cache fields still names its `service_tier` or `server_tool_use`.
fn detect(r: &Map<String, Value>) -> Option<&'static str> {
    let has = |k: &str| r.contains_key(k);
    if r.keys().any(|k| k.starts_with("gen_ai.usage.")) {
        Some("otel")
    } else if has("usageMetadata") || has("promptTokenCount") || has("candidatesTokenCount") {
        Some("gemini")
    } else if has("cache_creation_input_tokens")
        || has("cache_read_input_tokens")
        || has("cache_creation")
        || has("service_tier")
        || has("server_tool_use")
    {
        Some("anthropic")
    } else if has("prompt_tokens") || has("completion_tokens") || has("input_tokens") {
        // A record with input and output counts only reads the same in both formats.
        Some("openai")
    } else {
        None
    }
}

/// The count at `path` (dot-separated object keys), 0 when absent or null.
fn count(r: &Map<String, Value>, path: &str) -> Result<u64, UsageError> {
    let mut parts = path.split('.');
    let first = parts.next().unwrap_or_default();
    let mut v = r.get(first);
    for p in parts {
        v = v.and_then(|x| x.get(p));
    }
    token_count(v, path)
}

/// A token count read from `v` (named `name` in an error): 0 when absent or null.
fn token_count(v: Option<&Value>, name: &str) -> Result<u64, UsageError> {
    match v {
        None | Some(Value::Null) => Ok(0),
        Some(x) => x
            .as_u64()
            .filter(|n| *n <= MAX_COUNT)
            .ok_or_else(|| UsageError::BadCount(name.to_owned())),
    }
}

fn part(total: u64, part: u64, name: &str) -> Result<u64, UsageError> {
    total
        .checked_sub(part)
        .ok_or_else(|| UsageError::PartAboveTotal(name.to_owned()))
}

fn otel(r: &Map<String, Value>) -> Result<UsageTokens, UsageError> {
    // OpenTelemetry attributes are flat keys with dots in them, not nested objects.
    let key = |k: &str| token_count(r.get(k), k);
    let all_input = key("gen_ai.usage.input_tokens")?;
    let cached = key("gen_ai.usage.cache_read.input_tokens")?;
    let writes = key("gen_ai.usage.cache_creation.input_tokens")?;
    let output = key("gen_ai.usage.output_tokens")?;
    let reasoning = key("gen_ai.usage.reasoning.output_tokens")?;
    let input = part(
        all_input,
        cached + writes,
        "gen_ai.usage.cache_read.input_tokens",
    )?;
    part(output, reasoning, "gen_ai.usage.reasoning.output_tokens")?;
    Ok(UsageTokens {
        input,
        cached_input: cached,
        cache_write_5m: writes,
        output,
        reasoning,
        ..UsageTokens::default()
    })
}

fn openai(r: &Map<String, Value>) -> Result<UsageTokens, UsageError> {
    let chat = r.contains_key("prompt_tokens") || r.contains_key("completion_tokens");
    let (prompt, completion) = if chat {
        ("prompt_tokens", "completion_tokens")
    } else {
        ("input_tokens", "output_tokens")
    };
    let all_input = count(r, prompt)?;
    let cached_path = format!("{prompt}_details.cached_tokens");
    let cached = count(r, &cached_path)?;
    let output = count(r, completion)?;
    let reasoning_path = format!("{completion}_details.reasoning_tokens");
    let reasoning = count(r, &reasoning_path)?;
    part(output, reasoning, &reasoning_path)?;
    Ok(UsageTokens {
        input: part(all_input, cached, &cached_path)?,
        cached_input: cached,
        output,
        reasoning,
        ..UsageTokens::default()
    })
}

fn anthropic(r: &Map<String, Value>) -> Result<UsageTokens, UsageError> {
    if !matches!(
        r.get("cache_creation"),
        None | Some(Value::Null | Value::Object(_))
    ) {
        return Err(UsageError::BadValue {
            field: "cache_creation".into(),
            allowed: "an object with ephemeral_5m_input_tokens and ephemeral_1h_input_tokens",
        });
    }
    let five = count(r, "cache_creation.ephemeral_5m_input_tokens")?;
    let hour = count(r, "cache_creation.ephemeral_1h_input_tokens")?;
    // The breakdown is part of the total of writes; writes it does not place are 5-minute
    // writes (Anthropic's default TTL). A breakdown alone is the whole of the writes.
    let five = match r.get("cache_creation_input_tokens") {
        None | Some(Value::Null) => five,
        _ => {
            let writes = count(r, "cache_creation_input_tokens")?;
            five + part(
                writes,
                five + hour,
                "cache_creation.ephemeral_5m_input_tokens",
            )?
        }
    };
    let service_tier = match r.get("service_tier") {
        None | Some(Value::Null) => None,
        Some(v) => Some(match v.as_str() {
            Some("batch") => ServiceTier::Batch,
            Some("priority") => ServiceTier::Priority,
            Some("standard") => ServiceTier::Standard,
            _ => {
                return Err(UsageError::BadValue {
                    field: "service_tier".into(),
                    allowed: "one of standard, priority, batch",
                });
            }
        }),
    };
    Ok(UsageTokens {
        input: count(r, "input_tokens")?,
        cached_input: count(r, "cache_read_input_tokens")?,
        cache_write_5m: five,
        cache_write_1h: hour,
        output: count(r, "output_tokens")?,
        reasoning: 0,
        service_tier,
    })
}

fn gemini(r: &Map<String, Value>) -> Result<UsageTokens, UsageError> {
    let prompt = count(r, "promptTokenCount")? + count(r, "toolUsePromptTokenCount")?;
    let cached = count(r, "cachedContentTokenCount")?;
    let thoughts = count(r, "thoughtsTokenCount")?;
    Ok(UsageTokens {
        input: part(prompt, cached, "cachedContentTokenCount")?,
        cached_input: cached,
        output: count(r, "candidatesTokenCount")? + thoughts,
        reasoning: thoughts,
        ..UsageTokens::default()
    })
}

/// One billed part of a usage record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineItem {
    /// What was billed: `input`, `cached_input`, `cache_write` or `output`.
    pub component: Component,
    /// How many tokens.
    pub tokens: u64,
    /// The rate, USD per 1M tokens.
    #[serde(with = "serde_helpers::exact")]
    pub usd_per_1m: Decimal,
    /// `tokens × usd_per_1m / 10^6`, six decimals.
    #[serde(with = "serde_helpers::money")]
    pub cost: Decimal,
    /// The rate's service tier.
    pub tier: ServiceTier,
    /// The rate's context threshold, when the request exceeded one.
    pub above_input_tokens: Option<u64>,
    /// For a cache write, its TTL.
    pub cache_ttl: Option<CacheTtl>,
    /// The rate's region; `None`: the channel's default region.
    pub region: Option<Region>,
    /// The time window the rate applies in; `None`: a rate without one.
    pub time_window: Option<WindowName>,
    /// The source release that shows the rate.
    pub source: Option<String>,
    /// Why another component's rate billed these tokens, when the channel publishes none of
    /// their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<&'static str>,
    /// The rate is promotional: until when, and the provider's page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promotion: Option<Promotion>,
}

/// The bill of one usage record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bill {
    /// The tokens as read.
    pub tokens: UsageTokens,
    /// The tier billed (standard when the tier asked for has no rates on the channel).
    pub service_tier: ServiceTier,
    /// The service tier asked for has no rates on the channel.
    pub service_tier_missing: bool,
    /// The line items with tokens, in the order input, cached input, cache writes, output.
    pub line_items: Vec<LineItem>,
    /// The sum of the line items, exact, shown with six decimals.
    #[serde(with = "serde_helpers::money")]
    pub total: Decimal,
    /// What was assumed: a region without rates (`no_region_price`), an unknown time of day on
    /// a card with time windows (`time_of_day_unknown`).
    pub assumptions: Assumptions,
}

/// Bills `tokens` on `tier` at `card`'s rates, served where and when `served` says; `None` when
/// the card has no standard input and output rates (the caller's data does not cover the model
/// that day).
pub fn bill(
    card: &RateCard,
    tokens: UsageTokens,
    tier: ServiceTier,
    served: Served,
) -> Option<Bill> {
    let selected = card.select(tokens.prompt(), tier, CacheTtl::FiveMinutes, served);
    let hour = card.select(tokens.prompt(), tier, CacheTtl::OneHour, served);
    let input = selected.interactive(Component::Input)?;
    selected.interactive(Component::Output)?;
    let million = Decimal::from(1_000_000);
    let mut line_items = Vec::new();
    let mut line = |component, count: u64, rate: Option<&Rate>, fallback| {
        if count == 0 {
            return;
        }
        let (rate, fallback) = match rate {
            Some(r) => (r, None),
            None => (input, Some(fallback)),
        };
        line_items.push(LineItem {
            component,
            tokens: count,
            usd_per_1m: rate.usd_per_1m,
            cost: Decimal::from(count) * rate.usd_per_1m / million,
            tier: rate.tier,
            above_input_tokens: rate.above_input_tokens,
            cache_ttl: rate.cache_ttl,
            region: rate.region,
            time_window: rate.time_window.as_ref().map(|w| w.name),
            source: rate.source.clone(),
            fallback,
            promotion: rate.promotion.clone(),
        });
    };
    let no_write = "no cache-write rate published: billed at the input rate";
    line(Component::Input, tokens.input, Some(input), "");
    line(
        Component::CachedInput,
        tokens.cached_input,
        selected.interactive(Component::CachedInput),
        "no cached-input rate published: billed at the input rate",
    );
    line(
        Component::CacheWrite,
        tokens.cache_write_5m,
        selected.interactive(Component::CacheWrite),
        no_write,
    );
    line(
        Component::CacheWrite,
        tokens.cache_write_1h,
        hour.interactive(Component::CacheWrite),
        no_write,
    );
    line(
        Component::Output,
        tokens.output,
        selected.interactive(Component::Output),
        "",
    );
    let total = line_items.iter().map(|l| l.cost).sum();
    let c = &selected.conditions;
    let mut assumptions = Assumptions::default();
    assumptions.add_if(c.region_missing, Assumption::NoRegionPrice);
    assumptions.add_if(
        served.when == When::Unknown && card.time_windows().next().is_some(),
        Assumption::TimeOfDayUnknown,
    );
    Some(Bill {
        tokens,
        service_tier: selected.conditions.service_tier,
        service_tier_missing: selected.conditions.service_tier_missing,
        line_items,
        total,
        assumptions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(json: &str) -> Map<String, Value> {
        serde_json::from_str(json).expect("a JSON object")
    }

    fn rate(component: Component, above: Option<u64>, ttl: Option<CacheTtl>, usd: &str) -> Rate {
        Rate {
            component,
            tier: ServiceTier::Standard,
            above_input_tokens: above,
            cache_ttl: ttl,
            region: None,
            time_window: None,
            usd_per_1m: usd.parse().expect("decimal"),
            source: Some("litellm 1.109.1".into()),
            promotion: None,
        }
    }

    #[test]
    fn each_format_is_read_on_one_scale() {
        // An Anthropic Messages API usage object with both cache TTLs.
        let a = read_usage(
            &obj(r#"{"input_tokens": 50, "cache_creation_input_tokens": 3000,
                "cache_read_input_tokens": 10000, "output_tokens": 700,
                "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 2000},
                "service_tier": "standard"}"#),
            None,
        )
        .expect("anthropic");
        assert_eq!(
            (a.input, a.cached_input, a.cache_write_5m, a.cache_write_1h),
            (50, 10000, 1000, 2000)
        );
        assert_eq!(a.prompt(), 13050);
        assert_eq!(a.service_tier, Some(ServiceTier::Standard));

        // OpenAI Chat Completions: cached and reasoning tokens are parts of the totals.
        let o = read_usage(
            &obj(
                r#"{"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 192}}"#,
            ),
            None,
        )
        .expect("openai");
        assert_eq!(
            (o.input, o.cached_input, o.output, o.reasoning),
            (86, 1920, 300, 192)
        );

        let otel = read_usage(
            &obj(r#"{"gen_ai.usage.input_tokens": 13050, "gen_ai.usage.cache_read.input_tokens": 10000,
                "gen_ai.usage.cache_creation.input_tokens": 3000, "gen_ai.usage.output_tokens": 700}"#),
            None,
        )
        .expect("otel");
        assert_eq!(
            (otel.input, otel.cached_input, otel.cache_write_5m),
            (50, 10000, 3000)
        );

        let g = read_usage(
            &obj(r#"{"usageMetadata": {"promptTokenCount": 300000, "cachedContentTokenCount": 100000,
                "candidatesTokenCount": 800, "thoughtsTokenCount": 200, "totalTokenCount": 301000}}"#),
            None,
        )
        .expect("gemini");
        assert_eq!(
            (g.input, g.cached_input, g.output, g.reasoning),
            (200000, 100000, 1000, 200)
        );
    }

    #[test]
    fn bad_records_say_what_is_wrong() {
        assert_eq!(
            read_usage(&obj(r#"{"tokens": 5}"#), None),
            Err(UsageError::UnknownFormat)
        );
        assert_eq!(
            read_usage(&obj(r#"{"prompt_tokens": -1}"#), None),
            Err(UsageError::BadCount("prompt_tokens".into()))
        );
        assert_eq!(
            read_usage(
                &obj(r#"{"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 9}}"#),
                None
            ),
            Err(UsageError::PartAboveTotal(
                "prompt_tokens_details.cached_tokens".into()
            ))
        );
        assert_eq!(
            read_usage(&obj(r#"{"prompt_tokens": 5}"#), Some("bedrock")),
            Err(UsageError::BadFormatName("bedrock".into()))
        );
    }

    #[test]
    fn a_record_is_billed_line_by_line_with_its_conditions() {
        let card = RateCard(vec![
            rate(Component::Input, None, None, "3"),
            rate(Component::Output, None, None, "15"),
            rate(Component::CachedInput, None, None, "0.3"),
            rate(
                Component::CacheWrite,
                None,
                Some(CacheTtl::FiveMinutes),
                "3.75",
            ),
            rate(Component::CacheWrite, None, Some(CacheTtl::OneHour), "6"),
        ]);
        let tokens = UsageTokens {
            input: 50,
            cached_input: 10000,
            cache_write_5m: 1000,
            cache_write_1h: 2000,
            output: 700,
            ..UsageTokens::default()
        };
        let b = bill(&card, tokens, ServiceTier::Standard, Served::DEFAULT).expect("priced");
        let costs: Vec<_> = b.line_items.iter().map(|l| l.cost.to_string()).collect();
        // 50 × 3 = 0.00015; 10,000 × 0.3 = 0.003; 1,000 × 3.75 = 0.00375; 2,000 × 6 = 0.012;
        // 700 × 15 = 0.0105 (per 1M)
        assert_eq!(costs, ["0.00015", "0.003", "0.00375", "0.012", "0.0105"]);
        assert_eq!(b.total.to_string(), "0.02940");
        assert_eq!(b.line_items[3].cache_ttl, Some(CacheTtl::OneHour));

        let no_cache = RateCard(card.0[..2].to_vec());
        let b = bill(&no_cache, tokens, ServiceTier::Standard, Served::DEFAULT).expect("priced");
        assert_eq!(b.line_items[1].usd_per_1m.to_string(), "3");
        assert!(b.line_items[1].fallback.is_some());
        assert!(
            bill(
                &RateCard(vec![]),
                tokens,
                ServiceTier::Standard,
                Served::DEFAULT
            )
            .is_none()
        );
    }
}
