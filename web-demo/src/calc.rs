//! The calculator in plain Rust: what the WASM exports do, minus the conversion from and to
//! JavaScript values, so it is tested natively like any other crate.
//!
//! The rows of an estimate are the estimator's report ([`estimator::estimate_models`]), the
//! code `POST /api/v1/estimate` runs too, so the page and the server agree to the last decimal;
//! this module adds what only the page needs (cost series for the chart, the preset list) and
//! the error shape the page shows.

use estimator::{
    Estimates, ModelInput, Preset, ResolvedWorkload, UnpriceableModel, Workload, WorkloadError,
    write_money,
};
use serde::Serialize;

/// Why a calculation was refused: shaped like the server's error object, so the page shows both
/// the same way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CalcError {
    /// `VALIDATION_FAILED` (the input could not be read) or `INVALID_ARGUMENT` (a value is out
    /// of its range, or a price makes the cost unrepresentable).
    pub code: &'static str,
    /// What went wrong, for people.
    pub message: String,
    /// The field to blame, when there is one (`cache_hit_rate`, `models[1].prices`, ...).
    pub field: Option<String>,
}

impl CalcError {
    /// Input that does not have the expected shape or types.
    pub fn unreadable(what: &str, err: impl std::fmt::Display) -> Self {
        CalcError {
            code: "VALIDATION_FAILED",
            message: format!("{what}: {err}"),
            field: Some(what.to_owned()),
        }
    }
}

impl From<WorkloadError> for CalcError {
    fn from(e: WorkloadError) -> Self {
        CalcError {
            code: "INVALID_ARGUMENT",
            message: e.to_string(),
            field: Some(e.field().as_str().to_owned()),
        }
    }
}

impl From<UnpriceableModel> for CalcError {
    fn from(e: UnpriceableModel) -> Self {
        CalcError {
            code: "INVALID_ARGUMENT",
            message: e.to_string(),
            field: Some(e.field()),
        }
    }
}

/// Estimates `workload` for every model: the estimator's report, as the server builds it.
pub fn estimate_models(
    workload: &Workload,
    models: Vec<ModelInput>,
) -> Result<Estimates, CalcError> {
    Ok(estimator::estimate_models(&workload.validate()?, models)?)
}

/// Estimates every model at every volume `passes` times, keeping nothing: how many estimates
/// were made. The same estimates as [`estimate_series`] makes, without reading anything from
/// JavaScript per call or rendering anything back: what the series is measured against.
pub fn estimate_repeatedly(
    workload: &Workload,
    models: &[ModelInput],
    volumes: &[u64],
    passes: u32,
) -> Result<u32, CalcError> {
    let resolved = volumes
        .iter()
        .map(|&requests_per_month| at_volume(workload, requests_per_month))
        .collect::<Result<Vec<_>, _>>()?;
    let mut count = 0u32;
    for _ in 0..passes {
        for workload in &resolved {
            for (i, model) in models.iter().enumerate() {
                let cost = model.estimate(i, std::hint::black_box(workload))?;
                std::hint::black_box(cost);
                count = count.saturating_add(1);
            }
        }
    }
    Ok(count)
}

/// One model's monthly totals along a cost series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelSeries {
    /// The model's `model_id`, as it came in.
    pub model_id: String,
    /// The total cost per month (USD, six decimals, as `cost_per_month.total` of an estimate) at
    /// each volume, in the order of the volumes, separated by commas: one string per model
    /// crosses into JavaScript instead of one per point.
    pub totals: String,
}

/// Reads the requests-per-month volumes of a series as JavaScript numbers hold them: whole,
/// at least 1 and exact (at most 2^53 - 1).
pub fn volumes_from_numbers(numbers: &[f64]) -> Result<Vec<u64>, CalcError> {
    const MAX_EXACT: f64 = 9_007_199_254_740_991.0;
    numbers
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            if n.is_finite() && n.fract() == 0.0 && (1.0..=MAX_EXACT).contains(&n) {
                // Whole and within 2^53: the conversion is exact.
                Ok(n as u64)
            } else {
                Err(CalcError {
                    code: "INVALID_ARGUMENT",
                    message: format!(
                        "volume {i} must be a whole number of requests per month from 1 to \
                         9007199254740991, got {n}"
                    ),
                    field: Some(format!("volumes[{i}]")),
                })
            }
        })
        .collect()
}

/// The total monthly cost of every model at every volume of requests per month, the rest of
/// `workload` (token volumes, cache-hit rate, batch share) held: the calculator's chart, a
/// whole series in one call. Each total is the one [`estimate_models`] gives for that volume.
pub fn estimate_series(
    workload: &Workload,
    models: &[ModelInput],
    volumes: &[u64],
) -> Result<Vec<ModelSeries>, CalcError> {
    // Six decimals, a few digits and a comma per point.
    let mut totals: Vec<String> = models
        .iter()
        .map(|_| String::with_capacity(volumes.len() * 16))
        .collect();
    for &requests_per_month in volumes {
        let resolved = at_volume(workload, requests_per_month)?;
        for (i, (model, out)) in models.iter().zip(&mut totals).enumerate() {
            let (_, _, cost) = model.estimate(i, &resolved)?;
            if !out.is_empty() {
                out.push(',');
            }
            write_money(out, cost.cost_per_month.total);
        }
    }
    Ok(models
        .iter()
        .zip(totals)
        .map(|(model, totals)| ModelSeries {
            model_id: model.model_id().to_owned(),
            totals,
        })
        .collect())
}

/// `workload` at `requests_per_month` requests a month, the rest held, validated: one point of a
/// series.
fn at_volume(
    workload: &Workload,
    requests_per_month: u64,
) -> Result<ResolvedWorkload, WorkloadError> {
    Workload {
        requests_per_month,
        ..*workload
    }
    .validate()
}

/// A task preset as the page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PresetInfo {
    /// The name the estimate body takes (`chatbot`, `rag_qa`, ...).
    pub name: &'static str,
    /// Input tokens per request.
    pub input_tokens_per_request: u64,
    /// Output tokens per request.
    pub output_tokens_per_request: u64,
    /// One line about the task.
    pub description: &'static str,
}

/// The presets with their token volumes and descriptions, so the page never restates them.
pub fn presets() -> Vec<PresetInfo> {
    Preset::ALL
        .iter()
        .map(|p| {
            let v = p.volumes();
            PresetInfo {
                name: p.as_str(),
                input_tokens_per_request: v.input_tokens_per_request,
                output_tokens_per_request: v.output_tokens_per_request,
                description: p.description(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn models(json: Value) -> Vec<ModelInput> {
        serde_json::from_value(json).expect("model rows")
    }

    fn to_value(result: Result<Estimates, CalcError>) -> Value {
        serde_json::to_value(result.expect("estimates")).expect("serializes")
    }

    #[test]
    fn a_bad_workload_names_its_field() {
        let workload = Workload::from_volumes(1, 1, 1).with_batch_share(2.into());
        let err = estimate_models(&workload, Vec::new()).expect_err("out of range");
        assert_eq!(err.code, "INVALID_ARGUMENT");
        assert_eq!(err.field.as_deref(), Some("batch_share"));
        assert_eq!(
            err.message,
            "`batch_share` must be a number from 0 to 1; got 2"
        );
    }

    #[test]
    fn repeated_estimates_are_counted() {
        let rows = models(
            json!([{"prices": {"input": "1", "output": "2"}}, {"prices": {"input": "3", "output": "4"}}]),
        );
        let workload = Workload::from_volumes(1, 1, 1);
        assert_eq!(
            estimate_repeatedly(&workload, &rows, &[1, 10, 100], 3),
            Ok(18)
        );
    }

    #[test]
    fn a_series_gives_the_totals_of_one_estimate_per_volume() {
        let workload: Workload = serde_json::from_value(json!({
            "requests_per_month": 1, "preset": "rag_qa", "cache_hit_rate": "0.3", "batch_share": 0.2,
        }))
        .expect("workload");
        let rows = models(json!([
            {"model_id": "a:dear", "prices": {"input": "3", "output": "15", "cached_input": "0.3", "batch_input": "1.5"}},
            {"model_id": "b:cheap", "prices": {"input": "0.15", "output": "0.6"}},
        ]));
        let volumes = [1, 999, 25_000, 7_777_777];
        let series = estimate_series(&workload, &rows, &volumes).expect("series");
        assert_eq!(series.len(), 2);
        for (i, model) in series.iter().enumerate() {
            assert_eq!(model.model_id, rows[i].model_id());
            let totals: Vec<&str> = model.totals.split(',').collect();
            assert_eq!(totals.len(), volumes.len());
            for (&requests_per_month, total) in volumes.iter().zip(totals) {
                let one = Workload {
                    requests_per_month,
                    ..workload
                };
                let expected = to_value(estimate_models(&one, vec![rows[i].clone()]));
                assert_eq!(
                    expected["estimates"][0]["cost_per_month"]["total"], total,
                    "{} at {requests_per_month}",
                    model.model_id
                );
            }
        }
        // 25,000 requests × (3,000 input, 300 output) of b:cheap, 30 % cached at the input price.
        assert_eq!(series[1].totals.split(',').nth(2), Some("15.750000"));
    }

    #[test]
    fn a_series_names_what_it_cannot_price() {
        let rows = models(json!([{"model_id": "x:neg", "prices": {"input": "1", "output": "-1"}}]));
        let err = estimate_series(&Workload::from_volumes(1, 1, 1), &rows, &[5])
            .expect_err("negative price");
        assert_eq!(err.field.as_deref(), Some("models[0].prices.output"));
        assert!(err.message.contains("x:neg"), "{}", err.message);
    }

    #[test]
    fn series_volumes_must_be_whole_exact_and_positive() {
        assert_eq!(volumes_from_numbers(&[1.0, 2.5e6]), Ok(vec![1, 2_500_000]));
        for (bad, index) in [
            (vec![1.0, 0.0], 1),
            (vec![1.5], 0),
            (vec![2.0, 3.0, f64::NAN], 2),
            (vec![9_007_199_254_740_992.0], 0),
        ] {
            let err = volumes_from_numbers(&bad).expect_err("rejected");
            assert_eq!(err.field, Some(format!("volumes[{index}]")), "{bad:?}");
        }
    }

    #[test]
    fn presets_list_every_preset_with_its_volumes() {
        let list = presets();
        assert_eq!(list.len(), Preset::ALL.len());
        assert_eq!(list[0].name, "chatbot");
        assert_eq!(list[0].input_tokens_per_request, 1500);
        assert_eq!(list[0].output_tokens_per_request, 400);
    }
}
