//! Runs the shared test vectors (`vectors/vectors.json`) natively.
//!
//! The same file is meant to run through `POST /api/v1/estimate` and in WASM; every run must
//! produce byte-identical strings. Expected values come from the independent reference in
//! `vectors/reference.py`, and several are worked by hand in each vector's `hand_check`.

use estimator::{ModelPrices, Workload, estimate};
use serde_json::Value;

const VECTORS: &str = include_str!("../vectors/vectors.json");

fn vectors() -> Vec<Value> {
    serde_json::from_str(VECTORS).expect("vectors.json is a JSON array")
}

fn run(case: &Value) -> Result<Value, String> {
    let workload: Workload =
        serde_json::from_value(case["workload"].clone()).map_err(|e| format!("workload: {e}"))?;
    let prices: ModelPrices =
        serde_json::from_value(case["prices"].clone()).map_err(|e| format!("prices: {e}"))?;
    let resolved = match workload.validate() {
        Ok(resolved) => resolved,
        Err(err) => return Ok(serde_json::json!({ "error_field": err.field().as_str() })),
    };
    let estimate = estimate(&resolved, &prices).map_err(|e| format!("estimate: {e}"))?;
    serde_json::to_value(estimate).map_err(|e| format!("serialize: {e}"))
}

#[test]
fn every_vector_gives_the_expected_strings() {
    let vectors = vectors();
    let mut failures = Vec::new();
    for case in &vectors {
        let name = case["name"].as_str().expect("every vector has a name");
        let actual = match run(case) {
            Ok(actual) => actual,
            Err(err) => {
                failures.push(format!("{name}: {err}"));
                continue;
            }
        };
        if let Some(expected_error) = case.get("expected_error") {
            if actual.get("error_field") != Some(&expected_error["field"]) {
                failures.push(format!(
                    "{name}: expected an error on {}, got {actual}",
                    expected_error["field"]
                ));
            }
            continue;
        }
        let expected = &case["expected"];
        for part in ["tokens_per_month", "cost_per_month"] {
            if actual[part] != expected[part] {
                failures.push(format!(
                    "{name}: {part}\n  expected {}\n  actual   {}",
                    expected[part], actual[part]
                ));
            }
        }
        let codes: Vec<Value> = actual["assumptions"]
            .as_array()
            .expect("assumptions serialize as an array")
            .iter()
            .map(|a| a["code"].clone())
            .collect();
        if Value::Array(codes.clone()) != expected["assumptions"] {
            failures.push(format!(
                "{name}: assumptions\n  expected {}\n  actual   {codes:?}",
                expected["assumptions"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}

#[test]
fn the_vector_file_is_well_formed() {
    let vectors = vectors();
    assert!(vectors.len() >= 12, "at least 12 vectors");
    let mut names: Vec<&str> = vectors
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    names.sort_unstable();
    let total = names.len();
    names.dedup();
    assert_eq!(names.len(), total, "vector names are unique");
    for case in &vectors {
        let has_expected = case.get("expected").is_some();
        let has_error = case.get("expected_error").is_some();
        assert!(
            has_expected != has_error,
            "{}: exactly one of expected / expected_error",
            case["name"]
        );
        // Rates are decimal strings in the file, so every consumer reads the same digits.
        for rate in ["cache_hit_rate", "batch_share"] {
            if let Some(value) = case["workload"].get(rate) {
                assert!(value.is_string(), "{}: {rate} is a string", case["name"]);
            }
        }
    }
}

#[test]
fn rates_as_json_numbers_give_the_same_strings_as_rates_as_strings() {
    for case in vectors() {
        if case.get("expected").is_none() {
            continue;
        }
        let mut numeric = case.clone();
        for rate in ["cache_hit_rate", "batch_share"] {
            if let Some(Value::String(text)) = case["workload"].get(rate) {
                let number: serde_json::Number =
                    text.parse().expect("rate parses as a JSON number");
                numeric["workload"][rate] = Value::Number(number);
            }
        }
        assert_eq!(
            run(&numeric).expect("runs"),
            run(&case).expect("runs"),
            "{}",
            case["name"]
        );
    }
}

/// The rate-card vectors (`vectors/conditions.json`: a region, a time window), which
/// `web-demo/tests/vectors.test.mjs` runs in WASM and `tests/api/regional.rs` through
/// `POST /api/v1/estimate` on the same published rates.
#[test]
fn every_condition_vector_gives_the_expected_total_and_assumptions() {
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("../vectors/conditions.json")).expect("a JSON array");
    assert!(cases.len() >= 6);
    for case in &cases {
        let name = &case["name"];
        let workload: Workload =
            serde_json::from_value(case["workload"].clone()).expect("workload");
        let model: estimator::ModelInput = serde_json::from_value(serde_json::json!({
            "model_id": case["model_id"],
            "prices": {"input": "0", "output": "0"},
            "rates": case["rates"],
        }))
        .expect("a model with rates");
        let out = estimator::estimate_models(&workload.validate().expect("valid"), vec![model])
            .expect("priced");
        let row = serde_json::to_value(&out.estimates[0]).expect("serializes");
        assert_eq!(
            row["cost_per_month"]["total"], case["expected"]["total"],
            "{name}"
        );
        let codes: Vec<Value> = out.estimates[0]
            .estimate
            .assumptions
            .iter()
            .map(|a| Value::from(a.code()))
            .collect();
        assert_eq!(
            Value::from(codes),
            case["expected"]["assumptions"],
            "{name}"
        );
    }
}
