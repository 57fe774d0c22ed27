//! The calculator in plain Rust: what the WASM exports do, minus the conversion from and to
//! JavaScript values, so it is tested natively like any other crate.
//!
//! The shapes follow `POST /api/v1/estimate`: each model row comes back with its own fields
//! (`model_id`, `name`, `prices`, ...) plus `tokens_per_month`, `cost_per_month`,
//! `applied_prices` and `assumptions`, ordered by exact total cost and then by `model_id`; the
//! workload is echoed under `assumptions` with its preset note under `notes`. So a row of the
//! server's answer can be fed back in unchanged and gives the same decimal strings.

use estimator::{
    Assumptions, CostEstimate, EstimateError, ModelPrices, MonthlyTokens, Preset, ResolvedWorkload,
    Workload, WorkloadError, estimate, format_exact, sort_by_total_cost, write_money,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// One model to estimate: its prices (USD per 1M tokens, as `POST /api/v1/estimate` reports
/// them under `prices`) and any other fields, which are echoed back untouched.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ModelInput {
    /// The estimator's input.
    pub prices: ModelPrices,
    /// Everything else the caller sent with the model (`model_id`, `name`, `channel`, ...).
    #[serde(flatten)]
    pub fields: Map<String, Value>,
}

impl ModelInput {
    fn model_id(&self) -> &str {
        row_model_id(&self.fields)
    }
}

/// The answer of [`estimate_models`], shaped like `data` of `POST /api/v1/estimate` (less the
/// server's own facts: price rule, publish date).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimates {
    /// The workload as estimated.
    pub assumptions: WorkloadEcho,
    /// One row per model, cheapest first, equal totals by `model_id`.
    pub estimates: Vec<EstimateRow>,
}

/// The workload as estimated: volumes resolved from the preset, monthly tokens, and the preset
/// note under `notes` (the server's names).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadEcho {
    requests_per_month: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<Preset>,
    input_tokens_per_request: u64,
    output_tokens_per_request: u64,
    cache_hit_rate: String,
    batch_share: String,
    tokens_per_month: MonthlyTokens,
    notes: Assumptions,
}

impl From<&ResolvedWorkload> for WorkloadEcho {
    fn from(w: &ResolvedWorkload) -> Self {
        WorkloadEcho {
            requests_per_month: w.requests_per_month(),
            preset: w.preset(),
            input_tokens_per_request: w.input_tokens_per_request(),
            output_tokens_per_request: w.output_tokens_per_request(),
            cache_hit_rate: format_exact(w.cache_hit_rate()),
            batch_share: format_exact(w.batch_share()),
            tokens_per_month: *w.tokens_per_month(),
            notes: w.assumptions(),
        }
    }
}

/// A model's own fields, its prices, and its estimate (`tokens_per_month`, `cost_per_month`,
/// `applied_prices`, `assumptions`) side by side in one object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EstimateRow {
    /// The fields the model came with.
    #[serde(flatten)]
    pub fields: Map<String, Value>,
    /// The prices estimated with.
    pub prices: ModelPrices,
    /// The estimate.
    #[serde(flatten)]
    pub estimate: CostEstimate,
}

/// Fields of a row that are computed here, so never echoed from the input (a row of the
/// server's answer can be passed back in as it is).
const COMPUTED: [&str; 4] = [
    "tokens_per_month",
    "cost_per_month",
    "applied_prices",
    "assumptions",
];

/// Estimates `workload` for every model.
pub fn estimate_models(
    workload: &Workload,
    models: Vec<ModelInput>,
) -> Result<Estimates, CalcError> {
    let resolved = workload.validate()?;

    let mut rows = Vec::with_capacity(models.len());
    for (i, mut model) in models.into_iter().enumerate() {
        let cost = estimate(&resolved, &model.prices).map_err(|e| unpriceable(i, &model, e))?;
        for key in COMPUTED {
            model.fields.remove(key);
        }
        rows.push(EstimateRow {
            fields: model.fields,
            prices: model.prices,
            estimate: cost,
        });
    }
    sort_by_total_cost(
        &mut rows,
        |row| &row.estimate,
        |row| row_model_id(&row.fields),
    );
    Ok(Estimates {
        assumptions: WorkloadEcho::from(&resolved),
        estimates: rows,
    })
}

/// Why model `i` cannot be priced for the workload, naming the price or the volume to blame.
fn unpriceable(i: usize, model: &ModelInput, e: EstimateError) -> CalcError {
    let field = match e {
        EstimateError::NegativePrice { field, .. } => format!("models[{i}].prices.{field}"),
        EstimateError::CostOverflow => "requests_per_month".to_owned(),
    };
    CalcError {
        code: "INVALID_ARGUMENT",
        message: format!(
            "the workload cannot be priced for {}: {e}",
            model.model_id()
        ),
        field: Some(field),
    }
}

fn row_model_id(fields: &Map<String, Value>) -> &str {
    fields.get("model_id").and_then(Value::as_str).unwrap_or("")
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
        .map(|&requests_per_month| {
            Workload {
                requests_per_month,
                ..*workload
            }
            .validate()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut count = 0u32;
    for _ in 0..passes {
        for workload in &resolved {
            for (i, model) in models.iter().enumerate() {
                let cost = estimate(std::hint::black_box(workload), &model.prices)
                    .map_err(|e| unpriceable(i, model, e))?;
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
        let resolved = Workload {
            requests_per_month,
            ..*workload
        }
        .validate()?;
        for (i, (model, out)) in models.iter().zip(&mut totals).enumerate() {
            let cost = estimate(&resolved, &model.prices).map_err(|e| unpriceable(i, model, e))?;
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
    use serde_json::json;

    use super::*;

    fn models(json: Value) -> Vec<ModelInput> {
        serde_json::from_value(json).expect("model rows")
    }

    fn to_value(result: Result<Estimates, CalcError>) -> Value {
        serde_json::to_value(result.expect("estimates")).expect("serializes")
    }

    #[test]
    fn rows_come_back_cheapest_first_with_their_own_fields() {
        let workload: Workload =
            serde_json::from_value(json!({"requests_per_month": 1000, "preset": "chatbot"}))
                .expect("workload");
        let out = to_value(estimate_models(
            &workload,
            models(json!([
                {"model_id": "b:dear", "name": "Dear", "prices": {"input": "3", "output": "15"}},
                {"model_id": "a:cheap", "channel": "official", "prices": {"input": 0.15, "output": "0.6"}},
            ])),
        ));
        let rows = out["estimates"].as_array().expect("rows");
        assert_eq!(rows[0]["model_id"], "a:cheap");
        assert_eq!(rows[0]["channel"], "official");
        assert_eq!(rows[0]["prices"], json!({"input": "0.15", "output": "0.6"}));
        // 1.5M input × $0.15 + 0.4M output × $0.60
        assert_eq!(rows[0]["cost_per_month"]["total"], "0.465000");
        assert_eq!(rows[1]["name"], "Dear");
        assert_eq!(rows[1]["cost_per_month"]["total"], "10.500000");
        assert_eq!(out["assumptions"]["input_tokens_per_request"], 1500);
        assert_eq!(out["assumptions"]["notes"][0]["code"], "preset_volumes");
    }

    #[test]
    fn a_row_passed_back_in_is_recomputed_not_echoed() {
        let workload = Workload::from_volumes(1_000_000, 1, 1);
        let row = json!({
            "model_id": "a:a",
            "prices": {"input": "2", "output": "4"},
            "cost_per_month": {"total": "999"},
            "assumptions": [{"code": "no_batch_price"}],
        });
        let out = to_value(estimate_models(&workload, models(json!([row]))));
        assert_eq!(out["estimates"][0]["cost_per_month"]["total"], "6.000000");
        assert_eq!(out["estimates"][0]["assumptions"], json!([]));
    }

    #[test]
    fn the_workload_echo_has_the_servers_fields() {
        let workload = Workload::from_preset(2, Preset::Classification)
            .with_cache_hit_rate("0.50".parse().expect("rate"));
        let out = to_value(estimate_models(&workload, Vec::new()));
        assert_eq!(
            out["assumptions"],
            json!({
                "requests_per_month": 2,
                "preset": "classification",
                "input_tokens_per_request": 500,
                "output_tokens_per_request": 10,
                "cache_hit_rate": "0.5",
                "batch_share": "0",
                "tokens_per_month": {
                    "input": "1000",
                    "uncached_input": "500",
                    "cached_input": "500",
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

    #[test]
    fn equal_totals_are_ordered_by_model_id() {
        let workload = Workload::from_volumes(1, 1, 1);
        let same = json!({"input": "1", "output": "1"});
        let out = to_value(estimate_models(
            &workload,
            models(json!([
                {"model_id": "z:z", "prices": same},
                {"model_id": "m:m", "prices": same},
            ])),
        ));
        assert_eq!(out["estimates"][0]["model_id"], "m:m");
        assert_eq!(out["estimates"][1]["model_id"], "z:z");
    }

    #[test]
    fn a_bad_workload_names_its_field() {
        let workload = Workload::from_volumes(1, 1, 1).with_batch_share(2.into());
        let err = estimate_models(&workload, Vec::new()).expect_err("out of range");
        assert_eq!(err.code, "INVALID_ARGUMENT");
        assert_eq!(err.field.as_deref(), Some("batch_share"));
        assert_eq!(
            err.message,
            "`batch_share` must be a number from 0 to 1, got 2"
        );
    }

    #[test]
    fn a_negative_price_names_the_model_row() {
        let err = estimate_models(
            &Workload::from_volumes(1, 1, 1),
            models(json!([
                {"model_id": "ok:ok", "prices": {"input": "1", "output": "1"}},
                {"model_id": "bad:bad", "prices": {"input": "1", "output": "-2"}},
            ])),
        )
        .expect_err("negative");
        assert_eq!(err.field.as_deref(), Some("models[1].prices.output"));
        assert!(err.message.contains("bad:bad"), "{}", err.message);
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
            assert_eq!(model.model_id, row_model_id(&rows[i].fields));
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
