//! Pricing a resolved workload against one model's prices.
//!
//! The traffic is billed in six buckets: standard and batch share, each split into uncached
//! input, cached input and output. Each bucket is billed at one effective price:
//!
//! | bucket | effective price per 1M tokens |
//! |---|---|
//! | uncached input | `input` |
//! | cached input | `min(cached_input ?? input, input)` |
//! | output | `output` |
//! | batch uncached input | `min(batch_input ?? input, input)` |
//! | batch cached input | `min(batch_cached_input ?? cap, cap)`, `cap = min(cached, batch input)` |
//! | batch output | `min(batch_output ?? output, output)` |
//!
//! A missing discount price falls back to the price it would discount, and a discount price
//! above that price (bad data) is capped at it. So caching and batch never raise the cost and
//! never get a discount that was not published; every fallback or cap is listed in the
//! estimate's [`Assumptions`].

use std::cmp::Ordering;
use std::fmt;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::assumption::{Assumption, Assumptions};
use crate::money::serde_helpers;
use crate::workload::{MonthlyTokens, ResolvedWorkload};

/// One model's prices in USD per 1M tokens, as published.
///
/// Decimals deserialize from strings or JSON numbers and serialize as strings; absent optional
/// prices are left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelPrices {
    /// Standard input price.
    #[serde(deserialize_with = "serde_helpers::decimal")]
    pub input: Decimal,
    /// Standard output price.
    #[serde(deserialize_with = "serde_helpers::decimal")]
    pub output: Decimal,
    /// Price of input tokens served from the prompt cache, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub cached_input: Option<Decimal>,
    /// Batch API input price, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub batch_input: Option<Decimal>,
    /// Batch API output price, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub batch_output: Option<Decimal>,
    /// Batch API price of cached input tokens, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub batch_cached_input: Option<Decimal>,
}

impl ModelPrices {
    /// Standard prices only; no cached-input or batch prices.
    pub const fn new(input: Decimal, output: Decimal) -> Self {
        ModelPrices {
            input,
            output,
            cached_input: None,
            batch_input: None,
            batch_output: None,
            batch_cached_input: None,
        }
    }

    /// The same prices with a cached-input price.
    pub const fn with_cached_input(mut self, cached_input: Decimal) -> Self {
        self.cached_input = Some(cached_input);
        self
    }

    /// The same prices with batch input and output prices.
    pub const fn with_batch(mut self, batch_input: Decimal, batch_output: Decimal) -> Self {
        self.batch_input = Some(batch_input);
        self.batch_output = Some(batch_output);
        self
    }

    /// The same prices with a batch cached-input price.
    pub const fn with_batch_cached_input(mut self, batch_cached_input: Decimal) -> Self {
        self.batch_cached_input = Some(batch_cached_input);
        self
    }

    /// Rejects a negative price; the first one found is reported.
    fn check(&self) -> Result<(), EstimateError> {
        let fields = [
            (PriceField::Input, Some(self.input)),
            (PriceField::Output, Some(self.output)),
            (PriceField::CachedInput, self.cached_input),
            (PriceField::BatchInput, self.batch_input),
            (PriceField::BatchOutput, self.batch_output),
            (PriceField::BatchCachedInput, self.batch_cached_input),
        ];
        for (field, price) in fields {
            if let Some(value) = price
                && value.is_sign_negative()
                && !value.is_zero()
            {
                return Err(EstimateError::NegativePrice { field, value });
            }
        }
        Ok(())
    }
}

/// A price field of [`ModelPrices`], named as on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PriceField {
    /// `input`
    Input,
    /// `output`
    Output,
    /// `cached_input`
    CachedInput,
    /// `batch_input`
    BatchInput,
    /// `batch_output`
    BatchOutput,
    /// `batch_cached_input`
    BatchCachedInput,
}

impl PriceField {
    /// The field's wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            PriceField::Input => "input",
            PriceField::Output => "output",
            PriceField::CachedInput => "cached_input",
            PriceField::BatchInput => "batch_input",
            PriceField::BatchOutput => "batch_output",
            PriceField::BatchCachedInput => "batch_cached_input",
        }
    }
}

impl fmt::Display for PriceField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a model could not be estimated. Both point at bad price data, not at the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EstimateError {
    /// A price is negative.
    #[error("price `{field}` must be >= 0 USD per 1M tokens, got {value}")]
    NegativePrice {
        /// The offending price.
        field: PriceField,
        /// Its value.
        value: Decimal,
    },
    /// The cost does not fit in a decimal (about 7.9 × 10^28 USD): the price is absurd.
    #[error("monthly cost exceeds the decimal range (about 7.9e28 USD); check the prices")]
    CostOverflow,
}

/// The prices each bucket was actually billed at, in USD per 1M tokens, after fallbacks and caps.
/// Serialized as exact decimal strings without trailing zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AppliedPrices {
    /// Uncached input of the standard share.
    #[serde(
        serialize_with = "serde_helpers::serialize_exact",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub input: Decimal,
    /// Cached input of the standard share.
    #[serde(
        serialize_with = "serde_helpers::serialize_exact",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub cached_input: Decimal,
    /// Output of the standard share.
    #[serde(
        serialize_with = "serde_helpers::serialize_exact",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub output: Decimal,
    /// Uncached input of the batch share.
    #[serde(
        serialize_with = "serde_helpers::serialize_exact",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub batch_input: Decimal,
    /// Cached input of the batch share.
    #[serde(
        serialize_with = "serde_helpers::serialize_exact",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub batch_cached_input: Decimal,
    /// Output of the batch share.
    #[serde(
        serialize_with = "serde_helpers::serialize_exact",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub batch_output: Decimal,
}

/// Monthly cost in USD, by token kind and by traffic share.
///
/// Values are exact. Serialized, each is rounded on its own by [`crate::format_money`] (6
/// places, half away from zero), so the rendered parts can differ from the rendered total by a
/// few millionths of a dollar.
///
/// Identities (exact): `total = input + cached_input + output`
/// and `total = standard_traffic + batch_traffic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CostBreakdown {
    /// Uncached input tokens, standard and batch share together.
    #[serde(
        serialize_with = "serde_helpers::serialize_money",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub input: Decimal,
    /// Cached input tokens, standard and batch share together.
    #[serde(
        serialize_with = "serde_helpers::serialize_money",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub cached_input: Decimal,
    /// Output tokens, standard and batch share together.
    #[serde(
        serialize_with = "serde_helpers::serialize_money",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub output: Decimal,
    /// The whole monthly cost.
    #[serde(
        serialize_with = "serde_helpers::serialize_money",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub total: Decimal,
    /// The part of `total` for the standard (non-batch) share of requests.
    #[serde(
        serialize_with = "serde_helpers::serialize_money",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub standard_traffic: Decimal,
    /// The part of `total` for the batch share of requests (`batch_share` of all input and
    /// output tokens), billed at the batch prices or, where a model has none, at the fallbacks
    /// its assumptions name. Already included in `input`, `cached_input` and `output`; not an
    /// extra addend.
    #[serde(
        serialize_with = "serde_helpers::serialize_money",
        deserialize_with = "serde_helpers::decimal"
    )]
    pub batch_traffic: Decimal,
}

/// The estimate for one model: volumes, cost, the prices applied and the assumptions made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CostEstimate {
    /// Token volumes per month (the same for every model of one workload).
    pub tokens_per_month: MonthlyTokens,
    /// Cost per month in USD.
    pub cost_per_month: CostBreakdown,
    /// The effective price of each bucket, in USD per 1M tokens.
    pub applied_prices: AppliedPrices,
    /// The preset assumption of the workload, then this model's price fallbacks.
    pub assumptions: Assumptions,
}

/// Estimates the monthly cost of `workload` for one model.
///
/// Allocation-free; costs are exact (see the crate docs for the limits of exactness).
pub fn estimate(
    workload: &ResolvedWorkload,
    prices: &ModelPrices,
) -> Result<CostEstimate, EstimateError> {
    prices.check()?;
    let split = workload.split();

    let input = prices.input;
    let output = prices.output;
    let cached_input = prices.cached_input.unwrap_or(input).min(input);
    let batch_input = prices.batch_input.unwrap_or(input).min(input);
    let batch_output = prices.batch_output.unwrap_or(output).min(output);
    let batch_cached_cap = cached_input.min(batch_input);
    let batch_cached_input = prices
        .batch_cached_input
        .unwrap_or(batch_cached_cap)
        .min(batch_cached_cap);

    let mut assumptions = workload.assumptions();
    let cached = split.has_cached;
    let batch = split.has_batch;
    let no_batch_price = prices.batch_input.is_none()
        && prices.batch_output.is_none()
        && prices.batch_cached_input.is_none();
    let above = |price: Option<Decimal>, cap: Decimal| price.is_some_and(|p| p > cap);
    assumptions.add_if(
        cached && prices.cached_input.is_none(),
        Assumption::NoCachedInputPrice,
    );
    assumptions.add_if(
        cached && above(prices.cached_input, input),
        Assumption::CachedInputPriceCapped,
    );
    assumptions.add_if(batch && no_batch_price, Assumption::NoBatchPrice);
    assumptions.add_if(
        batch && !no_batch_price && prices.batch_input.is_none(),
        Assumption::NoBatchInputPrice,
    );
    assumptions.add_if(
        batch && !no_batch_price && prices.batch_output.is_none(),
        Assumption::NoBatchOutputPrice,
    );
    assumptions.add_if(
        batch && above(prices.batch_input, input),
        Assumption::BatchInputPriceCapped,
    );
    assumptions.add_if(
        batch && above(prices.batch_output, output),
        Assumption::BatchOutputPriceCapped,
    );
    assumptions.add_if(
        batch && cached && !no_batch_price && prices.batch_cached_input.is_none(),
        Assumption::NoBatchCachedInputPrice,
    );
    assumptions.add_if(
        batch && cached && above(prices.batch_cached_input, batch_cached_cap),
        Assumption::BatchCachedInputPriceCapped,
    );

    let mul = |millions: Decimal, price: Decimal| {
        millions
            .checked_mul(price)
            .ok_or(EstimateError::CostOverflow)
    };
    let add = |a: Decimal, b: Decimal| a.checked_add(b).ok_or(EstimateError::CostOverflow);

    let std_uncached = mul(split.uncached_input, input)?;
    let std_cached = mul(split.cached_input, cached_input)?;
    let std_output = mul(split.output, output)?;
    let batch_uncached = mul(split.batch_uncached_input, batch_input)?;
    let batch_cached = mul(split.batch_cached_input, batch_cached_input)?;
    let batch_out = mul(split.batch_output, batch_output)?;

    let cost_input = add(std_uncached, batch_uncached)?;
    let cost_cached = add(std_cached, batch_cached)?;
    let cost_output = add(std_output, batch_out)?;
    let standard_traffic = add(add(std_uncached, std_cached)?, std_output)?;
    let batch_traffic = add(add(batch_uncached, batch_cached)?, batch_out)?;
    let total = add(add(cost_input, cost_cached)?, cost_output)?;

    Ok(CostEstimate {
        tokens_per_month: *workload.tokens_per_month(),
        cost_per_month: CostBreakdown {
            input: cost_input,
            cached_input: cost_cached,
            output: cost_output,
            total,
            standard_traffic,
            batch_traffic,
        },
        applied_prices: AppliedPrices {
            input,
            cached_input,
            output,
            batch_input,
            batch_cached_input,
            batch_output,
        },
        assumptions,
    })
}

/// Estimates `workload` for each model, in the given order.
pub fn estimate_many<'a>(
    workload: &ResolvedWorkload,
    models: impl IntoIterator<Item = &'a ModelPrices>,
) -> Vec<Result<CostEstimate, EstimateError>> {
    models
        .into_iter()
        .map(|prices| estimate(workload, prices))
        .collect()
}

/// Sorts items by exact total monthly cost, cheapest first; equal totals by `tie_key`,
/// ascending. The sort is stable.
///
/// ```
/// use estimator::{estimate, sort_by_total_cost, ModelPrices, Preset, Workload};
/// use rust_decimal::Decimal;
///
/// let workload = Workload::from_preset(1_000, Preset::Chatbot).validate()?;
/// let mut rows = vec![
///     ("b:model", estimate(&workload, &ModelPrices::new(Decimal::ONE, Decimal::TWO))?),
///     ("a:model", estimate(&workload, &ModelPrices::new(Decimal::ONE, Decimal::TWO))?),
///     ("c:model", estimate(&workload, &ModelPrices::new(Decimal::ONE, Decimal::ONE))?),
/// ];
/// sort_by_total_cost(&mut rows, |(_, e)| e, |(id, _)| id);
/// let ids: Vec<_> = rows.iter().map(|(id, _)| *id).collect();
/// assert_eq!(ids, ["c:model", "a:model", "b:model"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sort_by_total_cost<T, K: Ord + ?Sized>(
    items: &mut [T],
    estimate: impl Fn(&T) -> &CostEstimate,
    tie_key: impl Fn(&T) -> &K,
) {
    items.sort_by(|a, b| {
        cmp_total_cost(estimate(a), estimate(b)).then_with(|| tie_key(a).cmp(tie_key(b)))
    });
}

/// Orders two estimates by exact total cost (for callers that sort their own way).
pub fn cmp_total_cost(a: &CostEstimate, b: &CostEstimate) -> Ordering {
    a.cost_per_month.total.cmp(&b.cost_per_month.total)
}
