//! The shared vectors (`estimator/vectors/vectors.json`) through the binding's own layer,
//! natively: the WASM exports add only the conversion from and to JavaScript values, and
//! `vectors.test.mjs` runs the same file through them under node.

use estimator::ModelInput;
use serde_json::Value;
use web_demo::calc::estimate_models;

const VECTORS: &str = include_str!("../../estimator/vectors/vectors.json");

#[test]
fn every_vector_gives_the_expected_strings_through_the_binding_layer() {
    let vectors: Vec<Value> = serde_json::from_str(VECTORS).expect("a JSON array");
    assert!(vectors.len() >= 12);
    for case in &vectors {
        let name = &case["name"];
        let workload = serde_json::from_value(case["workload"].clone()).expect("workload");
        let model: ModelInput = serde_json::from_value(
            serde_json::json!({"model_id": "v:v", "prices": case["prices"]}),
        )
        .expect("prices");
        let result = estimate_models(&workload, vec![model]);
        if let Some(expected) = case.get("expected_error") {
            let err = result.expect_err(&name.to_string());
            assert_eq!(err.field.as_deref(), expected["field"].as_str(), "{name}");
            continue;
        }
        let out = result.unwrap_or_else(|e| panic!("{name}: {}", e.message));
        let out = serde_json::to_value(out).expect("serializes");
        let row = &out["estimates"][0];
        let expected = &case["expected"];
        assert_eq!(
            row["tokens_per_month"], expected["tokens_per_month"],
            "{name}"
        );
        assert_eq!(row["cost_per_month"], expected["cost_per_month"], "{name}");
        let codes: Vec<&Value> = row["assumptions"]
            .as_array()
            .expect("assumptions")
            .iter()
            .map(|a| &a["code"])
            .collect();
        let want: Vec<&Value> = expected["assumptions"]
            .as_array()
            .expect("codes")
            .iter()
            .collect();
        assert_eq!(codes, want, "{name}");
    }
}
