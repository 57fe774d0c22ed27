//! Property tests of the billing rules: monotonicity in every workload knob and the breakdown
//! identities.
//!
//! The ranges (up to 10^9 requests of up to 10^6 tokens, rates with three decimals, prices up to
//! $1,000 with four decimals) keep every intermediate within 28 significant digits, so the
//! properties are checked on exact values.

use estimator::{
    CostEstimate, Decimal, ModelPrices, ResolvedWorkload, Workload, estimate, format_money,
};
use proptest::prelude::*;

fn rate() -> impl Strategy<Value = Decimal> {
    (0u32..=1_000).prop_map(|n| Decimal::new(i64::from(n), 3))
}

fn price() -> impl Strategy<Value = Decimal> {
    (0i64..=10_000_000).prop_map(|n| Decimal::new(n, 4))
}

fn prices() -> impl Strategy<Value = ModelPrices> {
    // an output price may be absent: a model that returns no output tokens
    (
        price(),
        proptest::option::of(price()),
        proptest::option::of(price()),
        proptest::option::of(price()),
        proptest::option::of(price()),
        proptest::option::of(price()),
        proptest::option::of(price()),
        proptest::option::of(price()),
    )
        .prop_map(
            |(
                input,
                output,
                cached_input,
                batch_input,
                batch_output,
                batch_cached_input,
                cache_write,
                batch_cache_write,
            )| {
                ModelPrices {
                    input,
                    output,
                    cached_input,
                    cache_write,
                    batch_input,
                    batch_output,
                    batch_cached_input,
                    batch_cache_write,
                }
            },
        )
}

#[derive(Clone, Copy, Debug)]
struct Knobs {
    requests: u64,
    input: u64,
    output: u64,
    cache: Decimal,
    batch: Decimal,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        1u64..=1_000_000_000,
        1u64..=1_000_000,
        1u64..=1_000_000,
        rate(),
        rate(),
    )
        .prop_map(|(requests, input, output, cache, batch)| Knobs {
            requests,
            input,
            output,
            cache,
            batch,
        })
}

fn resolve(k: Knobs) -> ResolvedWorkload {
    Workload::from_volumes(k.requests, k.input, k.output)
        .with_cache_hit_rate(k.cache)
        .with_batch_share(k.batch)
        .validate()
        .expect("generated workloads are valid")
}

fn run(k: Knobs, p: &ModelPrices) -> CostEstimate {
    estimate(&resolve(k), p).expect("generated prices are valid")
}

/// The rendered total, read back: monotonicity must survive rounding too.
fn rendered_total(e: &CostEstimate) -> Decimal {
    format_money(e.cost_per_month.total)
        .parse()
        .expect("money renders as a decimal")
}

fn ordered(a: Decimal, b: Decimal) -> (Decimal, Decimal) {
    if a <= b { (a, b) } else { (b, a) }
}

proptest! {
    #[test]
    fn cost_never_decreases_as_requests_grow(k in knobs(), more in 0u64..=1_000_000_000, p in prices()) {
        let bigger = Knobs { requests: k.requests.saturating_add(more).min(1_000_000_000), ..k };
        let (small, large) = (run(k, &p), run(bigger, &p));
        prop_assert!(small.cost_per_month.total <= large.cost_per_month.total);
        prop_assert!(small.cost_per_month.input <= large.cost_per_month.input);
        prop_assert!(small.cost_per_month.cached_input <= large.cost_per_month.cached_input);
        prop_assert!(small.cost_per_month.output <= large.cost_per_month.output);
        prop_assert!(rendered_total(&small) <= rendered_total(&large));
    }

    #[test]
    fn raising_the_cache_hit_rate_never_raises_cost(k in knobs(), other in rate(), p in prices()) {
        let (low, high) = ordered(k.cache, other);
        let at_low = run(Knobs { cache: low, ..k }, &p);
        let at_high = run(Knobs { cache: high, ..k }, &p);
        prop_assert!(at_high.cost_per_month.total <= at_low.cost_per_month.total);
        prop_assert!(rendered_total(&at_high) <= rendered_total(&at_low));
    }

    #[test]
    fn raising_the_batch_share_never_raises_cost(k in knobs(), other in rate(), p in prices()) {
        let (low, high) = ordered(k.batch, other);
        let at_low = run(Knobs { batch: low, ..k }, &p);
        let at_high = run(Knobs { batch: high, ..k }, &p);
        prop_assert!(at_high.cost_per_month.total <= at_low.cost_per_month.total);
        prop_assert!(rendered_total(&at_high) <= rendered_total(&at_low));
    }

    #[test]
    fn the_total_is_the_sum_of_its_parts(k in knobs(), p in prices()) {
        let c = run(k, &p).cost_per_month;
        prop_assert_eq!(c.total, c.input + c.cached_input + c.cache_write + c.output);
        prop_assert_eq!(c.total, c.standard_traffic + c.batch_traffic);
        prop_assert!(c.input >= Decimal::ZERO && c.cached_input >= Decimal::ZERO);
        prop_assert!(c.output >= Decimal::ZERO && c.batch_traffic >= Decimal::ZERO);
    }

    #[test]
    fn cache_writes_keep_the_identities_and_bill_every_input_token_once(
        k in knobs(), write in rate(), p in prices()
    ) {
        let write = (write * (Decimal::ONE - k.cache)).trunc_with_scale(3);
        let w = Workload::from_volumes(k.requests, k.input, k.output)
            .with_cache_hit_rate(k.cache)
            .with_batch_share(k.batch)
            .with_cache_writes(write, estimator::CacheTtl::FiveMinutes)
            .validate()
            .expect("hit rate and write share add up to at most 1");
        let e = estimate(&w, &p).expect("generated prices are valid");
        let (c, t) = (e.cost_per_month, e.tokens_per_month);
        prop_assert_eq!(c.total, c.input + c.cached_input + c.cache_write + c.output);
        prop_assert_eq!(c.total, c.standard_traffic + c.batch_traffic);
        prop_assert_eq!(t.input, t.uncached_input + t.cached_input + t.cache_write);
        prop_assert!(c.cache_write >= Decimal::ZERO && t.uncached_input >= Decimal::ZERO);
    }

    #[test]
    fn discounts_never_exceed_the_list_price(k in knobs(), p in prices()) {
        let list = run(Knobs { cache: Decimal::ZERO, batch: Decimal::ZERO, ..k }, &p);
        let with_discounts = run(k, &p);
        prop_assert!(with_discounts.cost_per_month.total <= list.cost_per_month.total);
        let tokens = list.tokens_per_month;
        let million = Decimal::from(1_000_000);
        prop_assert_eq!(
            list.cost_per_month.total,
            tokens.input * p.input / million
                + tokens.output * p.output.unwrap_or(Decimal::ZERO) / million
        );
    }

    #[test]
    fn token_splits_add_up(k in knobs()) {
        let w = resolve(k);
        let t = w.tokens_per_month();
        prop_assert_eq!(t.input, Decimal::from(k.requests * k.input));
        prop_assert_eq!(t.output, Decimal::from(k.requests * k.output));
        prop_assert_eq!(t.uncached_input + t.cached_input, t.input);
        prop_assert_eq!(t.cached_input, t.input * k.cache);
        prop_assert_eq!(t.batch_input, t.input * k.batch);
        prop_assert_eq!(t.batch_output, t.output * k.batch);
    }

    #[test]
    fn json_number_rates_are_read_exactly(n in 0u32..=1_000_000) {
        let rate = Decimal::new(i64::from(n), 6);
        let body = format!(
            r#"{{"requests_per_month": 1, "preset": "chatbot", "cache_hit_rate": {rate}, "batch_share": "{rate}"}}"#
        );
        let w: Workload = serde_json::from_str(&body).expect("valid body");
        prop_assert_eq!(w.cache_hit_rate, rate);
        prop_assert_eq!(w.batch_share, rate);
    }
}
