//! Pricing a resolved workload against one model's prices.

use std::cmp::Ordering;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::assumption::{Assumption, Assumptions};
use crate::money::serde_helpers;
use crate::prices::{ModelPrices, PriceField};
use crate::workload::{MonthlyTokens, ResolvedWorkload};

/// Rejects a negative price; the first one found is reported.
fn check(prices: &ModelPrices) -> Result<(), EstimateError> {
    for (field, price) in prices.fields() {
        if let Some(value) = price
            && value.is_sign_negative()
            && !value.is_zero()
        {
            return Err(EstimateError::NegativePrice { field, value });
        }
    }
    Ok(())
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
    #[serde(with = "serde_helpers::exact")]
    pub input: Decimal,
    /// Cached input of the standard share.
    #[serde(with = "serde_helpers::exact")]
    pub cached_input: Decimal,
    /// Output of the standard share.
    #[serde(with = "serde_helpers::exact")]
    pub output: Decimal,
    /// Uncached input of the batch share.
    #[serde(with = "serde_helpers::exact")]
    pub batch_input: Decimal,
    /// Cached input of the batch share.
    #[serde(with = "serde_helpers::exact")]
    pub batch_cached_input: Decimal,
    /// Output of the batch share.
    #[serde(with = "serde_helpers::exact")]
    pub batch_output: Decimal,
    /// Cache writes of the standard share.
    #[serde(with = "serde_helpers::exact")]
    pub cache_write: Decimal,
    /// Cache writes of the batch share.
    #[serde(with = "serde_helpers::exact")]
    pub batch_cache_write: Decimal,
}

/// Monthly cost in USD, by token kind and by traffic share.
///
/// Values are exact. Serialized, each is rounded on its own by [`crate::format_money`] (6
/// places, half away from zero), so the rendered parts can differ from the rendered total by a
/// few millionths of a dollar.
///
/// Identities (exact): `total = input + cached_input + cache_write + output`
/// and `total = standard_traffic + batch_traffic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CostBreakdown {
    /// Uncached input tokens, standard and batch share together.
    #[serde(with = "serde_helpers::money")]
    pub input: Decimal,
    /// Cached input tokens, standard and batch share together.
    #[serde(with = "serde_helpers::money")]
    pub cached_input: Decimal,
    /// Input tokens written into the prompt cache, standard and batch share together.
    #[serde(with = "serde_helpers::money")]
    pub cache_write: Decimal,
    /// Output tokens, standard and batch share together.
    #[serde(with = "serde_helpers::money")]
    pub output: Decimal,
    /// The whole monthly cost.
    #[serde(with = "serde_helpers::money")]
    pub total: Decimal,
    /// The part of `total` for the standard (non-batch) share of requests.
    #[serde(with = "serde_helpers::money")]
    pub standard_traffic: Decimal,
    /// The part of `total` for the batch share of requests (`batch_share` of all input and
    /// output tokens), billed at the batch prices or, where a model has none, at the fallbacks
    /// its assumptions name. Already included in `input`, `cached_input`, `cache_write` and
    /// `output`; not an extra addend.
    #[serde(with = "serde_helpers::money")]
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
/// The traffic is billed in eight buckets: the standard and the batch share, each split into
/// uncached input, cached input, cache writes and output. Each bucket is billed at one
/// effective price:
///
/// | bucket | effective price per 1M tokens |
/// |---|---|
/// | uncached input | `input` |
/// | cached input | `min(cached_input ?? input, input)` |
/// | output | `output ?? 0` (no output price: a model that returns no output tokens) |
/// | batch uncached input | `min(batch_input ?? input, input)` |
/// | batch cached input | `min(batch_cached_input ?? cap, cap)` with `cap = min(cached, batch uncached)` |
/// | batch output | `min(batch_output ?? output, output)` |
/// | cache writes | `cache_write ?? input` |
/// | batch cache writes | `min(batch_cache_write ?? writes, writes)` with `writes` the cache-write price |
///
/// A cache write costs more than plain input where a provider charges for it (Anthropic: 1.25x
/// for 5 minutes); without a published write price the tokens are billed as plain input, which is
/// what providers that do not charge writes (OpenAI) bill. A missing discount price falls back to
/// the price it would discount, and a discount price
/// above that price (bad data) is capped at it. So caching and batch never raise the cost and
/// never get a discount that was not published; each fallback or cap that touched a bucket with
/// tokens in it is listed in the estimate's [`Assumptions`].
///
/// Allocation-free; costs are exact (see the crate docs for the limits of exactness). Fails
/// only on bad price data: a negative price, or a price so large the cost overflows.
pub fn estimate(
    workload: &ResolvedWorkload,
    prices: &ModelPrices,
) -> Result<CostEstimate, EstimateError> {
    check(prices)?;
    let split = workload.split();

    let input = prices.input;
    let output = prices.output.unwrap_or(Decimal::ZERO);
    let cached_input = prices.cached_input.unwrap_or(input).min(input);
    let batch_input = prices.batch_input.unwrap_or(input).min(input);
    let batch_output = prices.batch_output.unwrap_or(output).min(output);
    let batch_cached_cap = cached_input.min(batch_input);
    let batch_cached_input = prices
        .batch_cached_input
        .unwrap_or(batch_cached_cap)
        .min(batch_cached_cap);
    let cache_write = prices.cache_write.unwrap_or(input);
    let batch_cache_write = prices
        .batch_cache_write
        .unwrap_or(cache_write)
        .min(cache_write);

    let mut assumptions = workload.assumptions();
    let cached = split.has_cached;
    let writes = split.has_cache_write;
    let batch = split.has_batch;
    let no_batch_price = prices.batch_input.is_none()
        && prices.batch_output.is_none()
        && prices.batch_cached_input.is_none()
        && prices.batch_cache_write.is_none();
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
        batch && !no_batch_price && prices.batch_output.is_none() && prices.output.is_some(),
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
    assumptions.add_if(
        writes && prices.cache_write.is_none(),
        Assumption::NoCacheWritePrice,
    );
    assumptions.add_if(prices.output.is_none(), Assumption::NoOutputPrice);
    assumptions.add_if(
        batch && writes && !no_batch_price && prices.batch_cache_write.is_none(),
        Assumption::NoBatchCacheWritePrice,
    );
    assumptions.add_if(
        batch && writes && above(prices.batch_cache_write, cache_write),
        Assumption::BatchCacheWritePriceCapped,
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
    let std_writes = mul(split.cache_write, cache_write)?;
    let batch_writes = mul(split.batch_cache_write, batch_cache_write)?;

    let cost_input = add(std_uncached, batch_uncached)?;
    let cost_cached = add(std_cached, batch_cached)?;
    let cost_writes = add(std_writes, batch_writes)?;
    let cost_output = add(std_output, batch_out)?;
    let standard_traffic = add(add(add(std_uncached, std_cached)?, std_writes)?, std_output)?;
    let batch_traffic = add(
        add(add(batch_uncached, batch_cached)?, batch_writes)?,
        batch_out,
    )?;
    let total = add(
        add(add(cost_input, cost_cached)?, cost_writes)?,
        cost_output,
    )?;

    Ok(CostEstimate {
        tokens_per_month: *workload.tokens_per_month(),
        cost_per_month: CostBreakdown {
            input: cost_input,
            cached_input: cost_cached,
            cache_write: cost_writes,
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
            cache_write,
            batch_cache_write,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::Preset;
    use crate::workload::Workload;

    fn dec(text: &str) -> Decimal {
        text.parse().expect("valid decimal")
    }

    /// 1M input and 1M output tokens a month: costs read directly as prices.
    fn million(cache: &str, batch: &str) -> ResolvedWorkload {
        Workload::from_volumes(1_000, 1_000, 1_000)
            .with_cache_hit_rate(dec(cache))
            .with_batch_share(dec(batch))
            .validate()
            .expect("valid workload")
    }

    fn prices(input: &str, output: &str) -> ModelPrices {
        ModelPrices::new(dec(input), dec(output))
    }

    fn listed(estimate: &CostEstimate) -> Vec<Assumption> {
        estimate.assumptions.iter().collect()
    }

    fn assert_identities(e: &CostEstimate) {
        let c = e.cost_per_month;
        assert_eq!(c.total, c.input + c.cached_input + c.output);
        assert_eq!(c.total, c.standard_traffic + c.batch_traffic);
    }

    #[test]
    fn standard_traffic_is_tokens_times_price() {
        let e = estimate(&million("0", "0"), &prices("3", "15")).expect("estimate");
        let c = e.cost_per_month;
        assert_eq!(
            (c.input, c.cached_input, c.output, c.total),
            (dec("3"), dec("0"), dec("15"), dec("18"))
        );
        assert_eq!((c.standard_traffic, c.batch_traffic), (dec("18"), dec("0")));
        assert!(e.assumptions.is_empty());
        assert_identities(&e);
    }

    #[test]
    fn cached_tokens_use_the_cached_price() {
        let e = estimate(
            &million("0.25", "0"),
            &prices("4", "10").with_cached_input(dec("0.4")),
        )
        .expect("estimate");
        let c = e.cost_per_month;
        assert_eq!(c.input, dec("3")); // 0.75M × $4
        assert_eq!(c.cached_input, dec("0.1")); // 0.25M × $0.40
        assert_eq!(c.total, dec("13.1"));
        assert!(e.assumptions.is_empty());
        assert_identities(&e);
    }

    #[test]
    fn without_a_cached_price_cached_tokens_cost_the_input_price() {
        let e = estimate(&million("0.25", "0"), &prices("4", "10")).expect("estimate");
        assert_eq!(e.cost_per_month.cached_input, dec("1")); // 0.25M × $4
        assert_eq!(e.cost_per_month.total, dec("14"));
        assert_eq!(e.applied_prices.cached_input, dec("4"));
        assert_eq!(listed(&e), [Assumption::NoCachedInputPrice]);
    }

    #[test]
    fn a_cached_price_above_the_input_price_is_capped() {
        let e = estimate(
            &million("0.5", "0"),
            &prices("2", "8").with_cached_input(dec("2.5")),
        )
        .expect("estimate");
        assert_eq!(e.cost_per_month.total, dec("10")); // as if nothing were cached
        assert_eq!(listed(&e), [Assumption::CachedInputPriceCapped]);
    }

    #[test]
    fn cached_price_gaps_are_not_mentioned_without_caching() {
        let e = estimate(&million("0", "0"), &prices("2", "8")).expect("estimate");
        assert!(e.assumptions.is_empty());
    }

    #[test]
    fn the_batch_share_uses_batch_prices() {
        let e = estimate(
            &million("0", "0.5"),
            &prices("2", "8").with_batch(dec("1"), dec("4")),
        )
        .expect("estimate");
        let c = e.cost_per_month;
        // standard: 0.5M × $2 + 0.5M × $8 = $5; batch: 0.5M × $1 + 0.5M × $4 = $2.50
        assert_eq!(c.standard_traffic, dec("5"));
        assert_eq!(c.batch_traffic, dec("2.5"));
        assert_eq!(c.input, dec("1.5"));
        assert_eq!(c.output, dec("6"));
        assert_eq!(c.total, dec("7.5"));
        assert!(e.assumptions.is_empty());
        assert_identities(&e);
    }

    #[test]
    fn without_batch_prices_the_batch_share_costs_standard_prices() {
        let e = estimate(&million("0", "0.5"), &prices("2", "8")).expect("estimate");
        assert_eq!(e.cost_per_month.total, dec("10"));
        assert_eq!(e.cost_per_month.batch_traffic, dec("5"));
        assert_eq!(listed(&e), [Assumption::NoBatchPrice]);
    }

    #[test]
    fn a_missing_batch_output_price_falls_back_alone() {
        let mut p = prices("2", "8");
        p.batch_input = Some(dec("1"));
        let e = estimate(&million("0", "1"), &p).expect("estimate");
        assert_eq!(e.cost_per_month.total, dec("9")); // 1M × $1 + 1M × $8
        assert_eq!(e.cost_per_month.standard_traffic, dec("0"));
        assert_eq!(listed(&e), [Assumption::NoBatchOutputPrice]);

        let mut p = prices("2", "8");
        p.batch_output = Some(dec("4"));
        let e = estimate(&million("0", "1"), &p).expect("estimate");
        assert_eq!(e.cost_per_month.total, dec("6"));
        assert_eq!(listed(&e), [Assumption::NoBatchInputPrice]);
    }

    #[test]
    fn batch_prices_above_standard_are_capped() {
        let e = estimate(
            &million("0", "1"),
            &prices("2", "8").with_batch(dec("3"), dec("9")),
        )
        .expect("estimate");
        assert_eq!(e.cost_per_month.total, dec("10"));
        assert_eq!(
            listed(&e),
            [
                Assumption::BatchInputPriceCapped,
                Assumption::BatchOutputPriceCapped
            ]
        );
    }

    #[test]
    fn batch_cached_tokens_use_the_batch_cached_price() {
        let p = prices("2", "8")
            .with_cached_input(dec("0.2"))
            .with_batch(dec("1"), dec("4"))
            .with_batch_cached_input(dec("0.1"));
        let e = estimate(&million("0.5", "1"), &p).expect("estimate");
        let c = e.cost_per_month;
        assert_eq!(c.input, dec("0.5")); // 0.5M × $1
        assert_eq!(c.cached_input, dec("0.05")); // 0.5M × $0.10
        assert_eq!(c.output, dec("4"));
        assert_eq!(c.batch_traffic, c.total);
        assert!(e.assumptions.is_empty());
        assert_identities(&e);
    }

    #[test]
    fn without_a_batch_cached_price_the_lower_of_cached_and_batch_input_applies() {
        let p = prices("2", "8")
            .with_cached_input(dec("0.2"))
            .with_batch(dec("1"), dec("4"));
        let e = estimate(&million("0.5", "1"), &p).expect("estimate");
        assert_eq!(e.applied_prices.batch_cached_input, dec("0.2"));
        assert_eq!(e.cost_per_month.cached_input, dec("0.1"));
        assert_eq!(listed(&e), [Assumption::NoBatchCachedInputPrice]);

        // No cached price at all: the batch input price is the lower one.
        let p = prices("2", "8").with_batch(dec("1"), dec("4"));
        let e = estimate(&million("0.5", "1"), &p).expect("estimate");
        assert_eq!(e.applied_prices.batch_cached_input, dec("1"));
        assert_eq!(
            listed(&e),
            [
                Assumption::NoCachedInputPrice,
                Assumption::NoBatchCachedInputPrice
            ]
        );
    }

    #[test]
    fn a_batch_cached_price_above_its_cap_is_capped() {
        let p = prices("2", "8")
            .with_cached_input(dec("0.2"))
            .with_batch(dec("1"), dec("4"))
            .with_batch_cached_input(dec("0.5"));
        let e = estimate(&million("1", "1"), &p).expect("estimate");
        assert_eq!(e.applied_prices.batch_cached_input, dec("0.2"));
        assert_eq!(listed(&e), [Assumption::BatchCachedInputPriceCapped]);
    }

    #[test]
    fn without_any_batch_price_batch_cached_tokens_cost_the_cached_price() {
        let p = prices("2", "8").with_cached_input(dec("0.2"));
        let e = estimate(&million("1", "1"), &p).expect("estimate");
        assert_eq!(e.applied_prices.batch_cached_input, dec("0.2"));
        assert_eq!(e.cost_per_month.total, dec("8.2"));
        assert_eq!(listed(&e), [Assumption::NoBatchPrice]);
    }

    #[test]
    fn the_preset_assumption_comes_first() {
        let w = Workload::from_preset(1, Preset::Summarization)
            .with_batch_share(dec("0.1"))
            .validate()
            .expect("valid");
        let e = estimate(&w, &prices("1", "1")).expect("estimate");
        assert_eq!(
            listed(&e),
            [
                Assumption::PresetVolumes(Preset::Summarization),
                Assumption::NoBatchPrice
            ]
        );
    }

    #[test]
    fn negative_prices_are_rejected_by_field() {
        let err = estimate(&million("0", "0"), &prices("-1", "1")).expect_err("negative");
        assert_eq!(
            err,
            EstimateError::NegativePrice {
                field: PriceField::Input,
                value: dec("-1")
            }
        );
        assert_eq!(
            err.to_string(),
            "price `input` must be >= 0 USD per 1M tokens, got -1"
        );
        let err = estimate(
            &million("0", "0"),
            &prices("1", "1").with_batch_cached_input(dec("-0.01")),
        )
        .expect_err("negative");
        assert_eq!(
            err,
            EstimateError::NegativePrice {
                field: PriceField::BatchCachedInput,
                value: dec("-0.01")
            }
        );
    }

    #[test]
    fn free_models_cost_nothing_even_with_negative_zero() {
        let e = estimate(&million("0.5", "0.5"), &prices("-0", "0")).expect("estimate");
        assert!(e.cost_per_month.total.is_zero());
        assert_eq!(crate::format_money(e.cost_per_month.total), "0.000000");
    }

    #[test]
    fn an_absurd_price_overflows_with_an_error() {
        let w = Workload::from_volumes(1_000_000_000, 1_000_000_000, 1)
            .validate()
            .expect("valid");
        let err =
            estimate(&w, &ModelPrices::new(Decimal::MAX, Decimal::ZERO)).expect_err("overflow");
        assert_eq!(err, EstimateError::CostOverflow);
    }

    #[test]
    fn many_models_keep_their_order_and_sort_by_total() {
        let w = million("0", "0");
        let models = [prices("3", "3"), prices("-1", "1"), prices("1", "1")];
        let results = estimate_many(&w, &models);
        assert_eq!(results.len(), 3);
        assert!(results[1].is_err());
        let mut rows: Vec<(String, CostEstimate)> = ["x", "y", "z"]
            .into_iter()
            .zip(results)
            .filter_map(|(id, r)| r.ok().map(|e| (id.to_owned(), e)))
            .collect();
        rows.push(("w".to_owned(), rows[0].1));
        sort_by_total_cost(&mut rows, |(_, e)| e, |(id, _)| id.as_str());
        let ids: Vec<_> = rows.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["z", "w", "x"]);
    }

    #[test]
    fn an_estimate_serializes_with_fixed_scale_money_and_exact_volumes() {
        let w = Workload::from_volumes(3, 1_000, 100)
            .with_cache_hit_rate(dec("0.333"))
            .validate()
            .expect("valid");
        let e =
            estimate(&w, &prices("0.15", "0.6").with_cached_input(dec("0.075"))).expect("estimate");
        let json = serde_json::to_value(e).expect("serializes");
        // uncached 2,001 × 0.15 / 1M = 0.00030015; cached 999 × 0.075 / 1M = 0.000074925;
        // output 300 × 0.6 / 1M = 0.00018; total 0.000555075.
        assert_eq!(
            json,
            serde_json::json!({
                "tokens_per_month": {
                    "input": "3000",
                    "uncached_input": "2001",
                    "cached_input": "999",
                    "cache_write": "0",
                    "output": "300",
                    "batch_input": "0",
                    "batch_output": "0",
                },
                "cost_per_month": {
                    "input": "0.000300",
                    "cached_input": "0.000075",
                    "cache_write": "0.000000",
                    "output": "0.000180",
                    "total": "0.000555",
                    "standard_traffic": "0.000555",
                    "batch_traffic": "0.000000",
                },
                "applied_prices": {
                    "input": "0.15",
                    "cached_input": "0.075",
                    "output": "0.6",
                    "batch_input": "0.15",
                    "batch_cached_input": "0.075",
                    "batch_output": "0.6",
                    "cache_write": "0.15",
                    "batch_cache_write": "0.15",
                },
                "assumptions": [],
            })
        );
        let back: CostEstimate = serde_json::from_value(json).expect("deserializes");
        assert_eq!(back.tokens_per_month, e.tokens_per_month);
        assert_eq!(back.cost_per_month.total, dec("0.000555"));
        assert_eq!(back.assumptions, e.assumptions);
    }

    #[test]
    fn prices_deserialize_from_strings_or_numbers_and_skip_absent_ones() {
        let p: ModelPrices = serde_json::from_str(
            r#"{"input": "2.5", "output": 10, "cached_input": 1.25, "batch_input": null}"#,
        )
        .expect("prices");
        assert_eq!(p, prices("2.5", "10").with_cached_input(dec("1.25")));
        assert_eq!(
            serde_json::to_value(p).expect("serializes"),
            serde_json::json!({"input": "2.5", "output": "10", "cached_input": "1.25"})
        );
    }
}
