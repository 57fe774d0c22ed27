//! Monthly cost estimation for token-priced AI model workloads, in exact decimals.
//!
//! This crate is the pure core behind `POST /api/v1/estimate` and the browser calculator: no
//! I/O, no async, no platform bindings. The server calls it natively and a thin WASM crate calls
//! it in the browser; both pass the serde types below through JSON unchanged, and both render
//! the same decimal strings because all arithmetic is [`rust_decimal`] integer arithmetic.
//!
//! # Flow
//!
//! 1. Take a [`Workload`] (the REST body minus `model_ids`) and [`Workload::validate`] it into a
//!    [`ResolvedWorkload`]: token volumes resolved from the [`Preset`] or given explicitly, rates
//!    checked, monthly traffic split into standard/batch and uncached/cached buckets once.
//! 2. [`estimate`] it against each model's [`ModelPrices`] (USD per 1M tokens), or use
//!    [`estimate_many`]; optionally [`sort_by_total_cost`].
//!    Or let [`estimate_models`] do step 2 for a list of [`ModelInput`]s and build the
//!    per-model report of `POST /api/v1/estimate` ([`Estimates`]), as the server and the
//!    browser calculator both do.
//! 3. Serialize the [`CostEstimate`]s: money as strings with six decimals ([`format_money`]),
//!    token volumes and prices as exact strings, assumptions as `{code, text}` objects.
//!
//! # Billing model
//!
//! `batch_share` is the share of requests sent through a batch API, so it applies to input and
//! output tokens alike; `cache_hit_rate` is the share of input tokens served from cache, in the
//! standard and the batch share alike. A missing cached or batch price falls back to the
//! standard price, and a discount price above the standard price is capped at it, so raising
//! either rate never raises the cost; each fallback is listed as an [`Assumption`]. The docs
//! of [`estimate()`] have the table of effective prices.
//!
//! # Exactness and rounding
//!
//! Costs are computed exactly and rounded only when rendered: six decimal places, half away from
//! zero, the rule of PostgreSQL's `round(numeric, 6)` ([`format_money`]). Monthly tokens are
//! bounded by [`MAX_TOKENS_PER_MONTH`] (10^18). A product that would need more than the 28
//! significant digits of [`Decimal`] (only with rates or prices of many digits on huge volumes)
//! is rounded by `rust_decimal` at the 28th digit, identically on every platform and far below
//! the rendered millionth of a dollar. No floating point is used anywhere.
//!
//! # Example
//!
//! ```
//! use estimator::{estimate, format_money, Assumption, ModelPrices, Preset, Workload};
//! use rust_decimal::Decimal;
//!
//! // 10,000 chatbot requests a month (1,500 input / 400 output tokens each), half the input
//! // served from cache, on a model at $3 input / $0.30 cached input / $15 output per 1M tokens.
//! let workload = Workload::from_preset(10_000, Preset::Chatbot)
//!     .with_cache_hit_rate(Decimal::new(5, 1))
//!     .validate()?;
//! let prices = ModelPrices::new(Decimal::from(3), Decimal::from(15))
//!     .with_cached_input(Decimal::new(30, 2));
//! let estimate = estimate(&workload, &prices)?;
//!
//! // 7.5M uncached × $3 + 7.5M cached × $0.30 + 4M output × $15
//! let cost = estimate.cost_per_month;
//! assert_eq!(format_money(cost.input), "22.500000");
//! assert_eq!(format_money(cost.cached_input), "2.250000");
//! assert_eq!(format_money(cost.output), "60.000000");
//! assert_eq!(format_money(cost.total), "84.750000");
//! assert_eq!(cost.total, cost.input + cost.cached_input + cost.output);
//!
//! // Only the preset was assumed: the model has a cached price and no traffic is batch.
//! let assumptions: Vec<_> = estimate.assumptions.iter().collect();
//! assert_eq!(assumptions, [Assumption::PresetVolumes(Preset::Chatbot)]);
//! assert_eq!(
//!     assumptions[0].to_string(),
//!     "preset chatbot: 1,500 input / 400 output tokens per request"
//! );
//!
//! // The REST body deserializes directly; rates may be strings or numbers.
//! let body = r#"{"requests_per_month": 10000, "preset": "chatbot", "cache_hit_rate": 0.5}"#;
//! let same: Workload = serde_json::from_str(body)?;
//! assert_eq!(same.validate()?, workload);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod assumption;
mod condition;
mod estimate;
mod money;
mod preset;
mod prices;
mod rates;
mod report;
mod usage;
mod workload;

pub use assumption::{Assumption, Assumptions};
pub use condition::{MINUTES_PER_WEEK, Region, Span, TimeWindow, WindowName};
pub use estimate::{
    AppliedPrices, CostBreakdown, CostEstimate, EstimateError, cmp_total_cost, estimate,
    estimate_many, sort_by_total_cost,
};
pub use money::{
    MONEY_ROUNDING, MONEY_SCALE, format_exact, format_money, round_money, write_exact, write_money,
};
pub use preset::{Preset, RequestVolumes, UnknownPreset};
pub use prices::{ModelPrices, PriceField};
pub use rates::{
    CacheTtl, Component, Conditions, Promotion, Rate, RateCard, Selected, Served, ServiceTier, When,
};
pub use report::{EstimateRow, Estimates, ModelInput, UnpriceableModel, estimate_models};
pub use rust_decimal::Decimal;
pub use usage::{Bill, LineItem, USAGE_FORMATS, UsageError, UsageTokens, bill, read_usage};
pub use workload::{
    MAX_TOKENS_PER_MONTH, MonthlyTokens, RangesChecked, ResolvedWorkload, Workload, WorkloadError,
    WorkloadField,
};
