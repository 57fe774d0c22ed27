//! The workload: how much traffic to price, as sent in the body of `POST /api/v1/estimate`.
//!
//! [`Workload`] is the request as received; [`Workload::validate`] checks it and resolves the
//! token volumes into a [`ResolvedWorkload`], which also holds the monthly token split that every
//! model's estimate reuses, so estimating N models splits the traffic once, not N times.

use std::fmt;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::assumption::{Assumption, Assumptions};
use crate::condition::Region;
use crate::money::serde_helpers;
use crate::preset::{Preset, PresetList};
use crate::rates::{CacheTtl, ServiceTier};

/// The largest number of input (or output) tokens per month a workload may have: 10^18.
///
/// That is far above any real workload (roughly a hundred thousand times the monthly traffic
/// of the largest providers); the bound keeps token counts within `u64` and every cost within
/// the 28 significant digits of [`Decimal`], so realistic prices never overflow.
pub const MAX_TOKENS_PER_MONTH: u64 = 1_000_000_000_000_000_000;

/// A workload as sent in the REST body (spec 4.5); `model_ids` is not part of it.
///
/// `cache_hit_rate` and `batch_share` deserialize from decimal strings (`"0.25"`) or JSON
/// numbers (`0.25`, read exactly as written, not as the nearest binary fraction) and serialize
/// as strings. Unknown fields are ignored, so the server may flatten this into its own body.
///
/// Volumes: explicit `input_tokens_per_request` / `output_tokens_per_request` win over the
/// `preset`'s; a missing one is taken from the preset; without a preset both are required.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Workload {
    /// Requests (model calls) per month; at least 1.
    pub requests_per_month: u64,
    /// Task preset with typical token volumes per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// Input tokens per request; at least 1. Overrides the preset's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens_per_request: Option<u64>,
    /// Output tokens per request; at least 1. Overrides the preset's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_per_request: Option<u64>,
    /// Share of input tokens served from the prompt cache, 0 to 1 (default 0).
    #[serde(default, deserialize_with = "serde_helpers::decimal_or_zero")]
    pub cache_hit_rate: Decimal,
    /// Share of requests processed through the batch API, 0 to 1 (default 0).
    #[serde(default, deserialize_with = "serde_helpers::decimal_or_zero")]
    pub batch_share: Decimal,
    /// Share of input tokens written into the prompt cache, 0 to 1 (default 0); with
    /// `cache_hit_rate` at most 1.
    #[serde(default, deserialize_with = "serde_helpers::decimal_or_zero")]
    pub cache_write_share: Decimal,
    /// How long cache writes keep the tokens (default `5m`).
    #[serde(default)]
    pub cache_ttl: CacheTtl,
    /// The service tier of the non-batch share: `standard` (default), `flex` or `priority`.
    #[serde(default)]
    pub service_tier: ServiceTier,
    /// Where the requests are served (a region the channel names, `eu`); `None`: the channel's
    /// default region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
    /// Share of requests inside the card's time windows, 0 to 1; `None`: the share of the
    /// week's hours the windows cover. Ignored on a card without windowed rates.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub time_window_share: Option<Decimal>,
}

impl Workload {
    /// A workload taking its token volumes from `preset`, with no caching and no batch.
    pub const fn from_preset(requests_per_month: u64, preset: Preset) -> Self {
        Workload {
            requests_per_month,
            preset: Some(preset),
            input_tokens_per_request: None,
            output_tokens_per_request: None,
            cache_hit_rate: Decimal::ZERO,
            batch_share: Decimal::ZERO,
            cache_write_share: Decimal::ZERO,
            cache_ttl: CacheTtl::FiveMinutes,
            service_tier: ServiceTier::Standard,
            region: None,
            time_window_share: None,
        }
    }

    /// A workload with explicit token volumes per request, with no caching and no batch.
    pub const fn from_volumes(
        requests_per_month: u64,
        input_tokens_per_request: u64,
        output_tokens_per_request: u64,
    ) -> Self {
        Workload {
            requests_per_month,
            preset: None,
            input_tokens_per_request: Some(input_tokens_per_request),
            output_tokens_per_request: Some(output_tokens_per_request),
            cache_hit_rate: Decimal::ZERO,
            batch_share: Decimal::ZERO,
            cache_write_share: Decimal::ZERO,
            cache_ttl: CacheTtl::FiveMinutes,
            service_tier: ServiceTier::Standard,
            region: None,
            time_window_share: None,
        }
    }

    /// The same workload with the given cache hit rate.
    pub const fn with_cache_hit_rate(mut self, cache_hit_rate: Decimal) -> Self {
        self.cache_hit_rate = cache_hit_rate;
        self
    }

    /// The same workload with the given batch share.
    pub const fn with_batch_share(mut self, batch_share: Decimal) -> Self {
        self.batch_share = batch_share;
        self
    }

    /// The same workload with the given share of input tokens written into the cache, kept for
    /// `ttl`.
    pub const fn with_cache_writes(mut self, cache_write_share: Decimal, ttl: CacheTtl) -> Self {
        self.cache_write_share = cache_write_share;
        self.cache_ttl = ttl;
        self
    }

    /// The same workload on the given service tier.
    pub const fn with_service_tier(mut self, service_tier: ServiceTier) -> Self {
        self.service_tier = service_tier;
        self
    }

    /// Checks every field and resolves the token volumes.
    ///
    /// Fields are checked in this order, and the first failure is returned:
    /// `requests_per_month`, `input_tokens_per_request`, `output_tokens_per_request`,
    /// `cache_hit_rate`, `batch_share`, `cache_write_share` (with `cache_hit_rate` at most 1),
    /// `service_tier` (not `batch`: that is `batch_share`), the presence of volumes, the monthly
    /// token totals. This
    /// is the only range check of the workload: the server and the browser calculator both
    /// answer with its errors.
    pub fn validate(&self) -> Result<ResolvedWorkload, WorkloadError> {
        self.check_ranges()?.resolve()
    }

    /// The first half of [`Workload::validate`]: every field in its range (counts at least 1,
    /// rates from 0 to 1), in the order `validate` checks them. A caller with checks of its own
    /// to make between the two halves (the server's count of `model_ids`) calls them apart.
    pub fn check_ranges(&self) -> Result<RangesChecked, WorkloadError> {
        let at_least_one = |field, value: u64| {
            if value == 0 {
                Err(WorkloadError::BelowOne { field })
            } else {
                Ok(value)
            }
        };
        let requests = at_least_one(WorkloadField::RequestsPerMonth, self.requests_per_month)?;
        let explicit_input = self
            .input_tokens_per_request
            .map(|v| at_least_one(WorkloadField::InputTokensPerRequest, v))
            .transpose()?;
        let explicit_output = self
            .output_tokens_per_request
            .map(|v| at_least_one(WorkloadField::OutputTokensPerRequest, v))
            .transpose()?;
        let cache_hit_rate = check_rate(WorkloadField::CacheHitRate, self.cache_hit_rate)?;
        let batch_share = check_rate(WorkloadField::BatchShare, self.batch_share)?;
        let cache_write_share = check_rate(WorkloadField::CacheWriteShare, self.cache_write_share)?;
        if cache_hit_rate + cache_write_share > Decimal::ONE {
            return Err(WorkloadError::OutOfRange {
                field: WorkloadField::CacheWriteShare,
                value: cache_write_share,
            });
        }
        if self.service_tier == ServiceTier::Batch {
            return Err(WorkloadError::BatchServiceTier);
        }
        let time_window_share = self
            .time_window_share
            .map(|share| check_rate(WorkloadField::TimeWindowShare, share))
            .transpose()?;
        Ok(RangesChecked(Workload {
            requests_per_month: requests,
            preset: self.preset,
            input_tokens_per_request: explicit_input,
            output_tokens_per_request: explicit_output,
            cache_hit_rate,
            batch_share,
            cache_write_share,
            time_window_share,
            ..*self
        }))
    }
}

/// A workload whose fields are each in range ([`Workload::check_ranges`]); resolving it checks
/// the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangesChecked(Workload);

impl RangesChecked {
    /// The second half of [`Workload::validate`]: the token volumes resolved (from the preset
    /// or given), their presence and the monthly totals checked, the traffic split.
    pub fn resolve(self) -> Result<ResolvedWorkload, WorkloadError> {
        let Workload {
            requests_per_month: requests,
            preset,
            input_tokens_per_request: explicit_input,
            output_tokens_per_request: explicit_output,
            cache_hit_rate,
            batch_share,
            cache_write_share,
            cache_ttl,
            service_tier,
            region,
            time_window_share,
        } = self.0;
        let (input, output, assumption) = match (preset, explicit_input, explicit_output) {
            (None, Some(input), Some(output)) => (input, output, None),
            (None, input, output) => {
                return Err(WorkloadError::MissingTokenVolumes {
                    input: input.is_none(),
                    output: output.is_none(),
                });
            }
            (Some(preset), input, output) => {
                let volumes = preset.volumes();
                let assumption = match (input, output) {
                    (None, None) => Assumption::PresetVolumes(preset),
                    (None, Some(_)) => Assumption::PresetInputVolume(preset),
                    (Some(_), None) => Assumption::PresetOutputVolume(preset),
                    (Some(_), Some(_)) => Assumption::PresetIgnored(preset),
                };
                (
                    input.unwrap_or(volumes.input_tokens_per_request),
                    output.unwrap_or(volumes.output_tokens_per_request),
                    Some(assumption),
                )
            }
        };

        let monthly = |field, per_request: u64| {
            let tokens = u128::from(requests) * u128::from(per_request);
            u64::try_from(tokens)
                .ok()
                .filter(|t| *t <= MAX_TOKENS_PER_MONTH)
                .ok_or(WorkloadError::TooManyTokens { field, tokens })
        };
        let input_tokens = monthly(WorkloadField::InputTokensPerRequest, input)?;
        let output_tokens = monthly(WorkloadField::OutputTokensPerRequest, output)?;

        let split = TrafficSplit::new(
            input_tokens,
            output_tokens,
            [cache_hit_rate, cache_write_share],
            batch_share,
        );
        Ok(ResolvedWorkload {
            requests_per_month: requests,
            preset,
            input_tokens_per_request: input,
            output_tokens_per_request: output,
            cache_hit_rate,
            batch_share,
            cache_write_share,
            cache_ttl,
            service_tier,
            region,
            time_window_share,
            tokens_per_month: split.tokens,
            assumptions: Assumptions::from_workload(assumption),
            split: split.millions,
        })
    }
}

impl TryFrom<Workload> for ResolvedWorkload {
    type Error = WorkloadError;

    fn try_from(workload: Workload) -> Result<Self, Self::Error> {
        workload.validate()
    }
}

/// A rate must lie in 0..=1; `-0` is read as 0 so it never prints as "-0".
fn check_rate(field: WorkloadField, value: Decimal) -> Result<Decimal, WorkloadError> {
    if value.is_zero() {
        Ok(Decimal::ZERO)
    } else if value.is_sign_negative() || value > Decimal::ONE {
        Err(WorkloadError::OutOfRange { field, value })
    } else {
        Ok(value)
    }
}

/// A validated workload with its volumes resolved and its monthly traffic split.
///
/// Built only by [`Workload::validate`]. Serializes as an echo of what was estimated, as
/// `assumptions` of an estimate's answer names it: the resolved request fields,
/// `tokens_per_month` and the preset assumptions under `notes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResolvedWorkload {
    requests_per_month: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<Preset>,
    input_tokens_per_request: u64,
    output_tokens_per_request: u64,
    #[serde(serialize_with = "serde_helpers::exact::serialize")]
    cache_hit_rate: Decimal,
    #[serde(serialize_with = "serde_helpers::exact::serialize")]
    batch_share: Decimal,
    #[serde(serialize_with = "serde_helpers::exact::serialize")]
    cache_write_share: Decimal,
    cache_ttl: CacheTtl,
    service_tier: ServiceTier,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
    #[serde(
        serialize_with = "serde_helpers::optional_exact",
        skip_serializing_if = "Option::is_none"
    )]
    time_window_share: Option<Decimal>,
    tokens_per_month: MonthlyTokens,
    #[serde(rename = "notes")]
    assumptions: Assumptions,
    #[serde(skip)]
    split: SplitMillions,
}

impl ResolvedWorkload {
    /// Requests per month.
    pub const fn requests_per_month(&self) -> u64 {
        self.requests_per_month
    }

    /// The preset named in the request, if any (whether or not its volumes were used).
    pub const fn preset(&self) -> Option<Preset> {
        self.preset
    }

    /// Input tokens per request after resolving the preset.
    pub const fn input_tokens_per_request(&self) -> u64 {
        self.input_tokens_per_request
    }

    /// Output tokens per request after resolving the preset.
    pub const fn output_tokens_per_request(&self) -> u64 {
        self.output_tokens_per_request
    }

    /// Share of input tokens served from cache, in 0..=1.
    pub const fn cache_hit_rate(&self) -> Decimal {
        self.cache_hit_rate
    }

    /// Share of requests sent through the batch API, in 0..=1.
    pub const fn batch_share(&self) -> Decimal {
        self.batch_share
    }

    /// Share of input tokens written into the cache, in 0..=1.
    pub const fn cache_write_share(&self) -> Decimal {
        self.cache_write_share
    }

    /// How long cache writes keep the tokens.
    pub const fn cache_ttl(&self) -> CacheTtl {
        self.cache_ttl
    }

    /// The service tier of the non-batch share.
    pub const fn service_tier(&self) -> ServiceTier {
        self.service_tier
    }

    /// The region asked for; `None`: the channel's default.
    pub const fn region(&self) -> Option<Region> {
        self.region
    }

    /// The share of requests inside time windows, when given.
    pub const fn time_window_share(&self) -> Option<Decimal> {
        self.time_window_share
    }

    /// The monthly token volumes, split by cache and batch.
    pub const fn tokens_per_month(&self) -> &MonthlyTokens {
        &self.tokens_per_month
    }

    /// The assumptions made about the workload itself (the preset); every estimate repeats them.
    pub const fn assumptions(&self) -> Assumptions {
        self.assumptions
    }

    pub(crate) const fn split(&self) -> &SplitMillions {
        &self.split
    }
}

/// Monthly token volumes of a workload.
///
/// `input` and `output` are whole numbers. The cache and batch splits are exact expected values
/// (`input × cache_hit_rate` and so on) and may be fractional. Every value serializes as a
/// decimal string without trailing zeros, because volumes can exceed what a JavaScript number
/// holds exactly.
///
/// Identities: `input = uncached_input + cached_input + cache_write`; `batch_input <= input`;
/// `batch_output <= output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MonthlyTokens {
    /// All input tokens: `requests_per_month × input_tokens_per_request`.
    #[serde(with = "serde_helpers::exact")]
    pub input: Decimal,
    /// Input tokens not served from cache, billed at the (batch) input price.
    #[serde(with = "serde_helpers::exact")]
    pub uncached_input: Decimal,
    /// Input tokens served from cache: `input × cache_hit_rate`.
    #[serde(with = "serde_helpers::exact")]
    pub cached_input: Decimal,
    /// Input tokens written into the cache: `input × cache_write_share`.
    #[serde(with = "serde_helpers::exact")]
    pub cache_write: Decimal,
    /// All output tokens: `requests_per_month × output_tokens_per_request`.
    #[serde(with = "serde_helpers::exact")]
    pub output: Decimal,
    /// Input tokens of the batch share, cached and uncached: `input × batch_share`.
    #[serde(with = "serde_helpers::exact")]
    pub batch_input: Decimal,
    /// Output tokens of the batch share: `output × batch_share`.
    #[serde(with = "serde_helpers::exact")]
    pub batch_output: Decimal,
}

/// The eight billing buckets in millions of tokens, ready to multiply by prices per 1M tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SplitMillions {
    pub(crate) uncached_input: Decimal,
    pub(crate) cached_input: Decimal,
    pub(crate) output: Decimal,
    pub(crate) batch_uncached_input: Decimal,
    pub(crate) batch_cached_input: Decimal,
    pub(crate) batch_output: Decimal,
    pub(crate) cache_write: Decimal,
    pub(crate) batch_cache_write: Decimal,
    /// Some input is cached: cached-input prices matter.
    pub(crate) has_cached: bool,
    /// Some input is written into the cache: cache-write prices matter.
    pub(crate) has_cache_write: bool,
    /// Some traffic is batch: batch prices matter.
    pub(crate) has_batch: bool,
}

struct TrafficSplit {
    tokens: MonthlyTokens,
    millions: SplitMillions,
}

impl TrafficSplit {
    /// Splits monthly traffic by batch share, then the input by cache hit rate and cache-write
    /// share (`[hit, write]`, together at most 1).
    ///
    /// Each complement is taken by subtraction (`standard = all - batch`), so the buckets add up
    /// to the totals exactly and each bucket moves monotonically with its rate. The values are
    /// at most 10^18 and the rates at most 1, so no product here can overflow.
    fn new(input: u64, output: u64, cache: [Decimal; 2], batch_share: Decimal) -> Self {
        let [cache_hit_rate, cache_write_share] = cache;
        let input = Decimal::from(input);
        let output = Decimal::from(output);

        let batch_input = input * batch_share;
        let standard_input = input - batch_input;
        let batch_output = output * batch_share;
        let standard_output = output - batch_output;

        let cached = standard_input * cache_hit_rate;
        let writes = standard_input * cache_write_share;
        let uncached = standard_input - cached - writes;
        let batch_cached = batch_input * cache_hit_rate;
        let batch_writes = batch_input * cache_write_share;
        let batch_uncached = batch_input - batch_cached - batch_writes;

        let million = Decimal::from(1_000_000);
        let per_million = |tokens: Decimal| tokens / million;
        TrafficSplit {
            tokens: MonthlyTokens {
                input,
                uncached_input: uncached + batch_uncached,
                cached_input: cached + batch_cached,
                cache_write: writes + batch_writes,
                output,
                batch_input,
                batch_output,
            },
            millions: SplitMillions {
                uncached_input: per_million(uncached),
                cached_input: per_million(cached),
                output: per_million(standard_output),
                batch_uncached_input: per_million(batch_uncached),
                batch_cached_input: per_million(batch_cached),
                batch_output: per_million(batch_output),
                cache_write: per_million(writes),
                batch_cache_write: per_million(batch_writes),
                has_cached: !cache_hit_rate.is_zero(),
                has_cache_write: !cache_write_share.is_zero(),
                has_batch: !batch_share.is_zero(),
            },
        }
    }
}

/// A field of the workload, named as on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadField {
    /// `requests_per_month`
    RequestsPerMonth,
    /// `preset`
    Preset,
    /// `input_tokens_per_request`
    InputTokensPerRequest,
    /// `output_tokens_per_request`
    OutputTokensPerRequest,
    /// `cache_hit_rate`
    CacheHitRate,
    /// `batch_share`
    BatchShare,
    /// `cache_write_share`
    CacheWriteShare,
    /// `cache_ttl`
    CacheTtl,
    /// `service_tier`
    ServiceTier,
    /// `region`
    Region,
    /// `time_window_share`
    TimeWindowShare,
}

/// The allowed values of `preset`, as one string (checked against [`Preset::ALL`] in a test).
const PRESET_ALLOWED: &str = "one of chatbot, summarization, extraction, coding_agent, \
                              translation, rag_qa, classification";

impl WorkloadField {
    /// The field's name in the REST body.
    pub const fn as_str(self) -> &'static str {
        match self {
            WorkloadField::RequestsPerMonth => "requests_per_month",
            WorkloadField::Preset => "preset",
            WorkloadField::InputTokensPerRequest => "input_tokens_per_request",
            WorkloadField::OutputTokensPerRequest => "output_tokens_per_request",
            WorkloadField::CacheHitRate => "cache_hit_rate",
            WorkloadField::BatchShare => "batch_share",
            WorkloadField::CacheWriteShare => "cache_write_share",
            WorkloadField::CacheTtl => "cache_ttl",
            WorkloadField::ServiceTier => "service_tier",
            WorkloadField::Region => "region",
            WorkloadField::TimeWindowShare => "time_window_share",
        }
    }

    /// The values the field allows, in words.
    pub const fn allowed(self) -> &'static str {
        match self {
            WorkloadField::RequestsPerMonth
            | WorkloadField::InputTokensPerRequest
            | WorkloadField::OutputTokensPerRequest => "an integer >= 1",
            WorkloadField::Preset => PRESET_ALLOWED,
            WorkloadField::CacheHitRate | WorkloadField::BatchShare => "a number from 0 to 1",
            WorkloadField::CacheWriteShare => {
                "a number from 0 to 1, at most 1 - cache_hit_rate (a token is read from the \
                 cache, written into it, or neither)"
            }
            WorkloadField::CacheTtl => CacheTtl::ALLOWED,
            WorkloadField::ServiceTier => ServiceTier::INTERACTIVE_ALLOWED,
            WorkloadField::Region => Region::ALLOWED,
            WorkloadField::TimeWindowShare => {
                "a number from 0 to 1 (the share of requests inside the card's time windows), \
                 or leave it out for the share of the week's hours they cover"
            }
        }
    }
}

impl fmt::Display for WorkloadField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a workload was rejected. Each error names the field (see [`WorkloadError::field`]) and
/// what it allows, so a server can answer `INVALID_ARGUMENT` with a useful message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WorkloadError {
    /// A count (requests or tokens per request) is below 1; a server also answers with it for
    /// a count beyond `u64`, which never reaches a [`Workload`].
    #[error("`{field}` must be {}", field.allowed())]
    BelowOne {
        /// The offending field.
        field: WorkloadField,
    },
    /// A rate lies outside 0 to 1.
    #[error("`{field}` must be {}; got {value}", field.allowed())]
    OutOfRange {
        /// The offending field.
        field: WorkloadField,
        /// The value received.
        value: Decimal,
    },
    /// Neither a preset nor both explicit token volumes were given.
    #[error("{}", MissingVolumes { input: *input, output: *output })]
    MissingTokenVolumes {
        /// `input_tokens_per_request` was missing.
        input: bool,
        /// `output_tokens_per_request` was missing.
        output: bool,
    },
    /// `requests_per_month × tokens per request` exceeds [`MAX_TOKENS_PER_MONTH`].
    #[error(
        "`requests_per_month` × `{field}` must be at most 10^18 tokens per month, got {tokens}"
    )]
    TooManyTokens {
        /// The token field whose monthly total is too large.
        field: WorkloadField,
        /// The monthly total that was asked for.
        tokens: u128,
    },
    /// `service_tier` names `batch`, which is the traffic share `batch_share` instead.
    #[error(
        "`service_tier` must be {}; batch traffic is given by `batch_share`",
        ServiceTier::INTERACTIVE_ALLOWED
    )]
    BatchServiceTier,
}

impl WorkloadError {
    /// The field to blame: for missing volumes, the missing one, or `preset` when both are.
    pub const fn field(&self) -> WorkloadField {
        match *self {
            WorkloadError::BelowOne { field }
            | WorkloadError::OutOfRange { field, .. }
            | WorkloadError::TooManyTokens { field, .. } => field,
            WorkloadError::MissingTokenVolumes {
                input: true,
                output: true,
            } => WorkloadField::Preset,
            WorkloadError::MissingTokenVolumes { input: true, .. } => {
                WorkloadField::InputTokensPerRequest
            }
            WorkloadError::MissingTokenVolumes { .. } => WorkloadField::OutputTokensPerRequest,
            WorkloadError::BatchServiceTier => WorkloadField::ServiceTier,
        }
    }

    /// What the blamed field allows, in words.
    pub const fn allowed(&self) -> &'static str {
        match self {
            WorkloadError::TooManyTokens { .. } => {
                "an integer >= 1 such that requests_per_month × tokens per request <= 10^18"
            }
            _ => self.field().allowed(),
        }
    }
}

struct MissingVolumes {
    input: bool,
    output: bool,
}

impl fmt::Display for MissingVolumes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let missing = match (self.input, self.output) {
            (true, true) => {
                return write!(
                    f,
                    "no token volumes: pass `preset` (one of {PresetList}) or both \
                     `input_tokens_per_request` and `output_tokens_per_request`"
                );
            }
            (true, false) => WorkloadField::InputTokensPerRequest,
            _ => WorkloadField::OutputTokensPerRequest,
        };
        write!(
            f,
            "`{missing}` is missing: pass it too, or pass `preset` (one of {PresetList}) to take \
             it from the preset"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(text: &str) -> Decimal {
        text.parse().expect("valid decimal")
    }

    #[test]
    fn a_preset_supplies_both_volumes() {
        let w = Workload::from_preset(10, Preset::Chatbot)
            .validate()
            .expect("valid");
        assert_eq!(w.input_tokens_per_request(), 1_500);
        assert_eq!(w.output_tokens_per_request(), 400);
        assert_eq!(w.tokens_per_month().input, dec("15000"));
        assert_eq!(w.tokens_per_month().output, dec("4000"));
        let listed: Vec<_> = w.assumptions().iter().collect();
        assert_eq!(listed, [Assumption::PresetVolumes(Preset::Chatbot)]);
    }

    #[test]
    fn explicit_volumes_override_the_preset() {
        let mut workload = Workload::from_preset(1, Preset::Chatbot);
        workload.output_tokens_per_request = Some(50);
        let w = workload.validate().expect("valid");
        assert_eq!(
            (w.input_tokens_per_request(), w.output_tokens_per_request()),
            (1_500, 50)
        );
        assert!(
            w.assumptions()
                .contains(Assumption::PresetInputVolume(Preset::Chatbot))
        );

        workload.input_tokens_per_request = Some(7);
        let w = workload.validate().expect("valid");
        assert_eq!(
            (w.input_tokens_per_request(), w.output_tokens_per_request()),
            (7, 50)
        );
        assert!(
            w.assumptions()
                .contains(Assumption::PresetIgnored(Preset::Chatbot))
        );
    }

    #[test]
    fn explicit_volumes_alone_make_no_assumption() {
        let w = Workload::from_volumes(3, 100, 20)
            .validate()
            .expect("valid");
        assert!(w.assumptions().is_empty());
        assert_eq!(w.tokens_per_month().input, dec("300"));
        assert_eq!(w.tokens_per_month().output, dec("60"));
    }

    #[test]
    fn missing_volumes_say_what_to_pass() {
        let mut workload = Workload::from_volumes(1, 1, 1);
        workload.input_tokens_per_request = None;
        workload.output_tokens_per_request = None;
        let err = workload.validate().expect_err("no volumes");
        assert_eq!(err.field(), WorkloadField::Preset);
        assert!(
            err.to_string().starts_with(
                "no token volumes: pass `preset` (one of chatbot, summarization, extraction"
            ),
            "{err}"
        );

        workload.input_tokens_per_request = Some(10);
        let err = workload.validate().expect_err("no output volume");
        assert_eq!(
            err,
            WorkloadError::MissingTokenVolumes {
                input: false,
                output: true
            }
        );
        assert_eq!(err.field(), WorkloadField::OutputTokensPerRequest);
        assert!(
            err.to_string()
                .starts_with("`output_tokens_per_request` is missing: pass it too"),
            "{err}"
        );
    }

    #[test]
    fn zero_counts_are_rejected_by_field() {
        let err = Workload::from_volumes(0, 1, 1)
            .validate()
            .expect_err("zero requests");
        assert_eq!(err.field(), WorkloadField::RequestsPerMonth);
        assert_eq!(
            err.to_string(),
            "`requests_per_month` must be an integer >= 1"
        );
        let err = Workload::from_volumes(1, 0, 1)
            .validate()
            .expect_err("zero input");
        assert_eq!(err.field(), WorkloadField::InputTokensPerRequest);
        let err = Workload::from_volumes(1, 1, 0)
            .validate()
            .expect_err("zero output");
        assert_eq!(err.field(), WorkloadField::OutputTokensPerRequest);
        let mut with_preset = Workload::from_preset(1, Preset::Extraction);
        with_preset.output_tokens_per_request = Some(0);
        assert_eq!(
            with_preset.validate().expect_err("zero output").field(),
            WorkloadField::OutputTokensPerRequest
        );
    }

    #[test]
    fn rates_outside_zero_to_one_are_rejected() {
        for (text, field) in [
            ("1.0001", WorkloadField::CacheHitRate),
            ("-0.1", WorkloadField::CacheHitRate),
            ("2", WorkloadField::BatchShare),
            ("-0.000001", WorkloadField::BatchShare),
        ] {
            let workload = Workload::from_volumes(1, 1, 1);
            let workload = match field {
                WorkloadField::CacheHitRate => workload.with_cache_hit_rate(dec(text)),
                _ => workload.with_batch_share(dec(text)),
            };
            let err = workload.validate().expect_err("out of range");
            assert_eq!(err.field(), field);
            assert_eq!(
                err.to_string(),
                format!("`{field}` must be a number from 0 to 1; got {text}")
            );
        }
        for edge in ["0", "1", "1.000", "-0", "0.5"] {
            Workload::from_volumes(1, 1, 1)
                .with_cache_hit_rate(dec(edge))
                .with_batch_share(dec(edge))
                .validate()
                .expect("in range");
        }
    }

    #[test]
    fn monthly_tokens_are_bounded() {
        Workload::from_volumes(1_000_000_000, 1_000_000_000, 1)
            .validate()
            .expect("exactly 10^18 is allowed");
        let err = Workload::from_volumes(1_000_000_000, 1, 1_000_000_001)
            .validate()
            .expect_err("over 10^18");
        assert_eq!(err.field(), WorkloadField::OutputTokensPerRequest);
        assert_eq!(
            err,
            WorkloadError::TooManyTokens {
                field: WorkloadField::OutputTokensPerRequest,
                tokens: 1_000_000_001_000_000_000
            }
        );
        let err = Workload::from_volumes(u64::MAX, u64::MAX, 1)
            .validate()
            .expect_err("far over");
        assert_eq!(err.field(), WorkloadField::InputTokensPerRequest);
    }

    #[test]
    fn the_split_adds_up_to_the_totals() {
        let w = Workload::from_volumes(7, 1_000, 333)
            .with_cache_hit_rate(dec("0.333"))
            .with_batch_share(dec("0.25"))
            .validate()
            .expect("valid");
        let t = w.tokens_per_month();
        assert_eq!(t.uncached_input + t.cached_input, t.input);
        assert_eq!(t.cached_input, dec("2331")); // 7,000 × 0.333
        assert_eq!(t.batch_input, dec("1750")); // 7,000 × 0.25
        assert_eq!(t.batch_output, dec("582.75")); // 2,331 × 0.25
        let s = w.split();
        let million = Decimal::from(1_000_000);
        assert_eq!(
            (s.uncached_input + s.cached_input + s.batch_uncached_input + s.batch_cached_input)
                * million,
            t.input
        );
        assert_eq!((s.output + s.batch_output) * million, t.output);
    }

    #[test]
    fn rates_deserialize_from_strings_and_numbers_exactly() {
        let from_numbers: Workload = serde_json::from_str(
            r#"{"requests_per_month": 5, "preset": "rag_qa", "cache_hit_rate": 0.333, "batch_share": 1}"#,
        )
        .expect("numbers");
        assert_eq!(from_numbers.cache_hit_rate, dec("0.333"));
        assert_eq!(from_numbers.cache_hit_rate.to_string(), "0.333");
        assert_eq!(from_numbers.batch_share, Decimal::ONE);

        let from_strings: Workload = serde_json::from_str(
            r#"{"requests_per_month": 5, "preset": "rag_qa", "cache_hit_rate": "0.333", "batch_share": "1"}"#,
        )
        .expect("strings");
        assert_eq!(from_strings, from_numbers);

        let tiny: Workload = serde_json::from_str(
            r#"{"requests_per_month": 1, "preset": "chatbot", "cache_hit_rate": 1e-7, "batch_share": "2.5e-1"}"#,
        )
        .expect("exponents");
        assert_eq!(tiny.cache_hit_rate, dec("0.0000001"));
        assert_eq!(tiny.batch_share, dec("0.25"));
    }

    #[test]
    fn absent_or_null_rates_default_to_zero() {
        let w: Workload = serde_json::from_str(
            r#"{"requests_per_month": 5, "input_tokens_per_request": 3, "output_tokens_per_request": 4, "cache_hit_rate": null}"#,
        )
        .expect("valid");
        assert_eq!(w, Workload::from_volumes(5, 3, 4));
    }

    #[test]
    fn malformed_rates_and_presets_fail_to_deserialize() {
        for body in [
            r#"{"requests_per_month": 1, "preset": "chatbot", "cache_hit_rate": "half"}"#,
            r#"{"requests_per_month": 1, "preset": "chatbot", "batch_share": true}"#,
            r#"{"requests_per_month": 1, "preset": "chat"}"#,
            r#"{"requests_per_month": -1, "preset": "chatbot"}"#,
            r#"{"preset": "chatbot"}"#,
        ] {
            assert!(serde_json::from_str::<Workload>(body).is_err(), "{body}");
        }
    }

    #[test]
    fn a_workload_round_trips_through_json_with_string_rates() {
        let workload = Workload::from_preset(1_000, Preset::Translation)
            .with_cache_hit_rate(dec("0.25"))
            .with_batch_share(dec("0.5"));
        let json = serde_json::to_value(workload).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({
                "requests_per_month": 1000,
                "preset": "translation",
                "cache_hit_rate": "0.25",
                "batch_share": "0.5",
                "cache_write_share": "0",
                "cache_ttl": "5m",
                "service_tier": "standard",
            })
        );
        assert_eq!(
            serde_json::from_value::<Workload>(json).expect("deserializes"),
            workload
        );
    }

    #[test]
    fn a_json_number_rate_is_read_through_its_shortest_text() {
        // 0.1 + 0.2 is 0.30000000000000004 as an f64; the text that reads back as that f64 is
        // what the caller sent, so it is what the estimator uses.
        let w: Workload = serde_json::from_str(
            r#"{"requests_per_month": 1, "preset": "chatbot", "cache_hit_rate": 0.30000000000000004}"#,
        )
        .expect("valid");
        assert_eq!(w.cache_hit_rate, dec("0.30000000000000004"));
    }

    #[test]
    fn preset_allowed_text_lists_every_preset() {
        assert_eq!(PRESET_ALLOWED, format!("one of {PresetList}"));
    }

    #[test]
    fn the_resolved_workload_echoes_what_was_estimated() {
        let w = Workload::from_preset(2, Preset::Classification)
            .with_cache_hit_rate(dec("0.50"))
            .validate()
            .expect("valid");
        let json = serde_json::to_value(w).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({
                "requests_per_month": 2,
                "preset": "classification",
                "input_tokens_per_request": 500,
                "output_tokens_per_request": 10,
                "cache_hit_rate": "0.5",
                "batch_share": "0",
                "cache_write_share": "0",
                "cache_ttl": "5m",
                "service_tier": "standard",
                "tokens_per_month": {
                    "input": "1000",
                    "uncached_input": "500",
                    "cached_input": "500",
                    "cache_write": "0",
                    "output": "20",
                    "batch_input": "0",
                    "batch_output": "0",
                },
                "notes": [{
                    "code": "preset_volumes",
                    "preset": "classification",
                    "text": "preset classification: 500 input / 10 output tokens per request",
                }],
            })
        );
    }
}
