//! Throughput of the estimator: model-estimates per second on one core.
//!
//! Target: at least one million per second natively. Run with
//! `cargo bench -p estimator`; prints `estimator: N model-estimates/s`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use estimator::{Decimal, ModelPrices, Preset, Workload, estimate};

fn dec(text: &str) -> Decimal {
    text.parse().expect("valid decimal")
}

/// A spread of price shapes: full price lists, missing cached or batch prices, capped data.
fn models() -> Vec<ModelPrices> {
    let full = ModelPrices::new(dec("3"), dec("15"))
        .with_cached_input(dec("0.3"))
        .with_batch(dec("1.5"), dec("7.5"))
        .with_batch_cached_input(dec("0.15"));
    vec![
        full,
        ModelPrices::new(dec("0.15"), dec("0.6")).with_cached_input(dec("0.075")),
        ModelPrices::new(dec("2.5"), dec("10")).with_batch(dec("1.25"), dec("5")),
        ModelPrices::new(dec("0.0375"), dec("0.15")),
        ModelPrices::new(dec("1.25"), dec("10")).with_cached_input(dec("0.3125")),
        ModelPrices::new(dec("0.8"), dec("4")).with_cached_input(dec("1.2")),
        ModelPrices::new(dec("15"), dec("75"))
            .with_cached_input(dec("1.5"))
            .with_batch(dec("7.5"), dec("37.5")),
        ModelPrices::new(dec("0.1"), dec("0.4")).with_batch(dec("0.05"), dec("0.2")),
    ]
}

fn main() {
    let workload = Workload::from_preset(250_000, Preset::Chatbot)
        .with_cache_hit_rate(dec("0.333"))
        .with_batch_share(dec("0.25"))
        .validate()
        .expect("valid workload");
    let models = models();

    // Warm up, then run whole passes over the models for at least a second.
    let mut checksum = Decimal::ZERO;
    for prices in models.iter().cycle().take(100_000) {
        let e = estimate(black_box(&workload), black_box(prices)).expect("estimates");
        checksum += black_box(e).cost_per_month.total;
    }

    let mut count: u64 = 0;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) {
        for _ in 0..1_000 {
            for prices in &models {
                let e = estimate(black_box(&workload), black_box(prices)).expect("estimates");
                black_box(e);
            }
        }
        count += 1_000 * models.len() as u64;
    }
    let elapsed = start.elapsed();
    let per_second = count as f64 / elapsed.as_secs_f64();
    black_box(checksum);

    println!(
        "estimator: {:.0} model-estimates/s ({count} in {:.3} s, {:.0} ns each)",
        per_second,
        elapsed.as_secs_f64(),
        elapsed.as_nanos() as f64 / count as f64
    );
}
