//! GET /api/v1/compare: rows in the order of ids with canonical ids, metric
//! subsets, benchmark scores and price per point, and the errors.

use rust_decimal::Decimal;
use serde_json::Value;

use crate::helpers::{enc, fixture_app};

fn rows(body: &Value) -> Vec<Value> {
    body["data"]["rows"].as_array().expect("rows").clone()
}

fn dec(v: &Value) -> Decimal {
    v.as_str()
        .expect("decimal string")
        .parse()
        .expect("decimal")
}

#[tokio::test]
async fn compare_returns_rows_in_the_order_of_ids_with_canonical_ids() {
    let (_db, app) = fixture_app().await;
    let ids = [
        "google:gemini-4-argon",
        "openai:o3-2025-04-16",
        "sao10k:l3-8b-lunaris",
    ];
    let body = app
        .call(&format!("/api/v1/compare?ids={}", enc(&ids.join(","))))
        .await
        .expect(200)
        .json();
    let got: Vec<&str> = body["data"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        got,
        ["google:gemini-4-argon", "openai:o3", "sao10k:l3-8b-lunaris"]
    );
    let r = rows(&body);
    assert_eq!(r[1]["requested_id"], "openai:o3-2025-04-16");
    assert_eq!(body["data"]["benchmark"], "aggregate");
    // all metrics by default; prices of the reference channel
    for metric in [
        "price_input",
        "price_output",
        "price_blended",
        "context_window",
        "benchmark_score",
        "price_per_point",
    ] {
        assert!(r[0].get(metric).is_some(), "{metric}");
    }
    assert_eq!(r[1]["channel"], "official");
    assert_eq!(r[1]["price_blended"], "3.5");
    assert_eq!(
        r[2]["channel"], "novita",
        "no official price: the cheapest channel"
    );
    assert_eq!(body["pagination"]["count"], 3);
}

#[tokio::test]
async fn price_per_point_is_the_blended_price_over_the_benchmark_score() {
    let (db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/compare?ids=google:gemini-4-argon,openai:o3,openai:gpt-4o")
        .await
        .expect(200)
        .json();
    let r = rows(&body);
    assert_eq!(
        r[0]["benchmark_score"], "100",
        "the best arena_overall rating"
    );
    let best: Decimal = db
        .client()
        .await
        .query_one(
            "select max(score) from pricing.benchmarks where benchmark = 'arena_overall'",
            &[],
        )
        .await
        .expect("best")
        .get(0);
    let o3: Decimal = db
        .client()
        .await
        .query_one("select score from pricing.benchmarks where model_id = 'openai:o3' and benchmark = 'arena_overall'", &[])
        .await
        .expect("o3")
        .get(0);
    let aggregate = (Decimal::from(100) * o3 / best).round_dp(2);
    assert_eq!(dec(&r[1]["benchmark_score"]), aggregate);
    assert_eq!(
        dec(&r[1]["price_per_point"]),
        (dec(&r[1]["price_blended"]) / aggregate).round_dp(6)
    );
    // a model without an Arena rating gets nulls, not an error
    assert!(r[2]["benchmark_score"].is_null());
    assert!(r[2]["price_per_point"].is_null());
    assert!(!r[2]["price_blended"].is_null());
    assert!(
        body["hint"]
            .as_str()
            .is_some_and(|h| h.contains("no aggregate score"))
    );

    let named = app
        .call("/api/v1/compare?ids=openai:o3,google:gemini-4-argon&benchmark=arena_coding&metrics=benchmark_score,price_per_point")
        .await
        .expect(200)
        .json();
    let score: Decimal = db
        .client()
        .await
        .query_one("select score from pricing.benchmarks where model_id = 'openai:o3' and benchmark = 'arena_coding'", &[])
        .await
        .expect("score")
        .get(0);
    assert_eq!(dec(&rows(&named)[0]["benchmark_score"]), score.normalize());
}

#[tokio::test]
async fn metrics_select_the_columns() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/compare?ids=openai:o3,openai:gpt-4o&metrics=price_input,context_window")
        .await
        .expect(200)
        .json();
    for row in rows(&body) {
        assert!(row.get("price_input").is_some() && row.get("context_window").is_some());
        for absent in [
            "price_output",
            "price_blended",
            "benchmark_score",
            "price_per_point",
        ] {
            assert!(row.get(absent).is_none(), "{absent}");
        }
    }
    assert_eq!(
        body["data"]["metrics"],
        serde_json::json!(["price_input", "context_window"])
    );
}

#[tokio::test]
async fn compare_fails_with_suggestions_for_an_unknown_id_and_by_name_for_bad_values() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/compare?ids=openai:o3,google:gemini-4-argn")
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "MODEL_NOT_FOUND");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("gemini-4-argn"))
    );
    assert_eq!(body["error"]["did_you_mean"][0], "google:gemini-4-argon");

    for (query, parameter) in [
        ("ids=openai:o3", "ids"),
        ("ids=a:1,a:2,a:3,a:4,a:5,a:6", "ids"),
        ("ids=openai:o3,openai:o3-2025-04-16", "ids"),
        (
            "ids=openai:o3,openai:gpt-4o&metrics=price_input,speed",
            "metrics",
        ),
        ("ids=openai:o3,openai:gpt-4o&benchmark=mmlu", "benchmark"),
    ] {
        let body = app
            .call(&format!("/api/v1/compare?{query}"))
            .await
            .expect(400)
            .json();
        assert_eq!(body["error"]["code"], "INVALID_ARGUMENT", "{query}");
        assert_eq!(body["error"]["parameter"], parameter, "{query}");
    }
    let body = app
        .call("/api/v1/compare?ids=openai:o3,openai:gpt-4o&benchmark=mmlu")
        .await
        .expect(400)
        .json();
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("arena_overall")),
        "lists the names"
    );
    let body = app.call("/api/v1/compare").await.expect(422).json();
    assert_eq!(body["detail"][0]["type"], "missing");
}
