//! POST /api/v1/estimate: every vector of estimator/vectors/vectors.json
//! through the REST API on real fixture models, checked string for string
//! against the estimator crate run natively on the same published prices; the
//! default model set; the 400 / 422 / 404 rules.

use std::str::FromStr;

use estimator::{ModelPrices, Workload, estimate};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::helpers::{TestDb, fixture_app};

const VECTORS: &str = include_str!("../../estimator/vectors/vectors.json");

/// Real fixture models, with the channel the price rule picks for each:
/// official with cached, batch, flex and priority tiers; official with cached
/// input; official with a scheduled change; no official price (novita).
const MODELS: &[(&str, &str)] = &[
    ("openai:o3", "official"),
    ("openai:gpt-4o", "official"),
    ("google:gemini-4-argon", "official"),
    ("sao10k:l3-8b-lunaris", "novita"),
];

/// The vector's workload as a REST body: rates as JSON numbers (the API takes
/// numbers, as the spec says), the rest unchanged.
pub(crate) fn body(workload: &Value, model_ids: &[&str]) -> Value {
    let mut body = workload.as_object().expect("workload object").clone();
    for rate in [
        "cache_hit_rate",
        "batch_share",
        "cache_write_share",
        "time_window_share",
    ] {
        if let Some(Value::String(text)) = body.get(rate) {
            let number = serde_json::Number::from_str(text).expect("a number");
            body.insert(rate.into(), Value::Number(number));
        }
    }
    body.insert("model_ids".into(), json!(model_ids));
    Value::Object(body)
}

/// The published prices of a model on a channel in effect on the served day,
/// read straight from the tables (standard and batch tiers).
async fn published_prices(db: &TestDb, model: &str, channel: &str) -> ModelPrices {
    let rows = db
        .client()
        .await
        .query(
            "select p.tier::text, p.component::text, p.usd_per_1m
             from pricing.prices p,
                  (select (as_of at time zone 'UTC')::date as day from pricing.publishes order by id desc limit 1) s
             where p.model_id = $1 and p.channel::text = $2 and p.tier in ('standard', 'batch')
               and p.valid_from <= s.day and (p.valid_to is null or p.valid_to > s.day)",
            &[&model, &channel],
        )
        .await
        .expect("prices");
    let mut fields = serde_json::Map::new();
    for row in rows {
        let tier: String = row.get(0);
        let component: String = row.get(1);
        let price: Decimal = row.get(2);
        let key = if tier == "batch" {
            format!("batch_{component}")
        } else {
            component
        };
        fields.insert(key, json!(price.normalize().to_string()));
    }
    serde_json::from_value(Value::Object(fields)).expect("model prices")
}

#[tokio::test]
async fn every_vector_prices_real_models_exactly_like_the_crate_natively() {
    let (db, app) = fixture_app().await;
    let vectors: Vec<Value> = serde_json::from_str(VECTORS).expect("vectors");
    let ids: Vec<&str> = MODELS.iter().map(|(id, _)| *id).collect();
    let mut prices = Vec::new();
    for (id, channel) in MODELS {
        prices.push(published_prices(&db, id, channel).await);
    }
    let mut checked = 0;
    for case in &vectors {
        let name = case["name"].as_str().expect("name");
        let request = body(&case["workload"], &ids);
        let reply = app
            .post_json("/api/v1/estimate", &request.to_string())
            .await;
        if let Some(expected) = case.get("expected_error") {
            assert_eq!(reply.status, 400, "{name}: {}", reply.text);
            let error = &reply.json()["error"];
            assert_eq!(error["code"], "INVALID_ARGUMENT", "{name}");
            assert_eq!(error["parameter"], expected["field"], "{name}: {error}");
            checked += 1;
            continue;
        }
        let response = reply.expect(200).json();
        let workload: Workload =
            serde_json::from_value(case["workload"].clone()).expect("workload");
        let resolved = workload.validate().expect("valid workload");
        assert_eq!(
            response["data"]["assumptions"]["tokens_per_month"],
            case["expected"]["tokens_per_month"],
            "{name}: the volumes echo the vector's"
        );
        let rows = response["data"]["estimates"].as_array().expect("estimates");
        assert_eq!(rows.len(), MODELS.len(), "{name}");
        for ((id, channel), model_prices) in MODELS.iter().zip(&prices) {
            let row = rows
                .iter()
                .find(|r| r["model_id"] == *id)
                .unwrap_or_else(|| panic!("{name}: {id}"));
            assert_eq!(row["channel"], *channel, "{name}: {id}: the price rule");
            assert_eq!(
                serde_json::from_value::<ModelPrices>(row["prices"].clone()).expect("prices"),
                *model_prices,
                "{name}: {id}: the published prices"
            );
            let native = serde_json::to_value(estimate(&resolved, model_prices).expect("estimate"))
                .expect("json");
            for part in [
                "tokens_per_month",
                "cost_per_month",
                "applied_prices",
                "assumptions",
            ] {
                assert_eq!(row[part], native[part], "{name}: {id}: {part}");
            }
        }
        let totals: Vec<Decimal> = rows
            .iter()
            .map(|r| {
                r["cost_per_month"]["total"]
                    .as_str()
                    .expect("total")
                    .parse()
                    .expect("decimal")
            })
            .collect();
        assert!(
            totals.windows(2).all(|w| w[0] <= w[1]),
            "{name}: cheapest first: {totals:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, vectors.len());
    assert!(checked >= 20, "the vector file has its cases");
}

#[tokio::test]
async fn without_model_ids_the_cheapest_active_chat_models_are_estimated() {
    let (db, app) = fixture_app().await;
    let response = app
        .post_json(
            "/api/v1/estimate",
            r#"{"requests_per_month": 1000, "preset": "rag_qa"}"#,
        )
        .await
        .expect(200)
        .json();
    let data = &response["data"];
    assert_eq!(
        data["assumptions"]["model_selection"],
        "cheapest_active_chat"
    );
    assert_eq!(data["assumptions"]["notes"][0]["code"], "preset_volumes");
    assert!(
        data["assumptions"]["price_rule"]
            .as_str()
            .is_some_and(|r| r.contains("official"))
    );
    let expected: i64 = db
        .client()
        .await
        .query_one(
            "select least(10, count(*)) from pricing.model_listing
             where scope = 'any' and status = 'active' and kind = 'chat'
               and input_usd is not null and output_usd is not null",
            &[],
        )
        .await
        .expect("count")
        .get(0);
    let rows = data["estimates"].as_array().expect("estimates");
    assert_eq!(rows.len() as i64, expected);
    assert!(rows.iter().all(|r| r["status"] == "active"));
    assert_eq!(response["pagination"]["count"], rows.len());
    assert_eq!(response["schema_version"], "1");
}

#[tokio::test]
async fn model_ids_resolve_like_the_model_card_and_unknown_ones_are_suggested() {
    let (_db, app) = fixture_app().await;
    let response = app
        .post_json(
            "/api/v1/estimate",
            r#"{"requests_per_month": 10, "preset": "chatbot", "model_ids": ["openai:o3-2025-04-16", "openrouter:openai/gpt-4o"]}"#,
        )
        .await
        .expect(200)
        .json();
    let mut got: Vec<(&str, &str)> = response["data"]["estimates"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["requested_id"].as_str().expect("requested"),
                r["model_id"].as_str().expect("id"),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("openai:o3-2025-04-16", "openai:o3"),
            ("openrouter:openai/gpt-4o", "openai:gpt-4o")
        ]
    );

    let body = app
        .post_json(
            "/api/v1/estimate",
            r#"{"requests_per_month": 10, "preset": "chatbot", "model_ids": ["openai:gpt-4oo"]}"#,
        )
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "MODEL_NOT_FOUND");
    assert_eq!(body["error"]["did_you_mean"][0], "openai:gpt-4o");

    // retired, no prices in effect
    let body = app
        .post_json("/api/v1/estimate", r#"{"requests_per_month": 10, "preset": "chatbot", "model_ids": ["openai:gpt-4-0613"]}"#)
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "NO_PRICE_DATA");
    let eleven: Vec<String> = (0..11).map(|i| format!("x:{i}")).collect();
    let body = app
        .post_json(
            "/api/v1/estimate",
            &json!({"requests_per_month": 1, "preset": "chatbot", "model_ids": eleven}).to_string(),
        )
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["parameter"], "model_ids");
}

#[tokio::test]
async fn unreadable_bodies_are_422_and_out_of_range_values_are_400() {
    let (_db, app) = fixture_app().await;
    for (body, kind, loc) in [
        ("not json", "json_invalid", None),
        ("", "missing", None),
        (
            r#"{"preset": "chatbot"}"#,
            "missing",
            Some(json!(["body", "requests_per_month"])),
        ),
        (
            r#"{"requests_per_month": "many", "preset": "chatbot"}"#,
            "int_type",
            Some(json!(["body", "requests_per_month"])),
        ),
        (
            r#"{"requests_per_month": 5, "preset": "chatbot", "cache_hit_rate": "half"}"#,
            "float_type",
            Some(json!(["body", "cache_hit_rate"])),
        ),
        (
            r#"{"requests_per_month": 5, "preset": 3}"#,
            "string_type",
            Some(json!(["body", "preset"])),
        ),
    ] {
        let reply = app.post_json("/api/v1/estimate", body).await.expect(422);
        let parsed = reply.json();
        assert_eq!(parsed["detail"][0]["type"], kind, "{body}");
        if let Some(loc) = loc {
            assert_eq!(parsed["detail"][0]["loc"], loc, "{body}");
        }
        assert!(
            parsed["error"]["next_step"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
    }
    for (body, parameter) in [
        (
            r#"{"requests_per_month": 0, "preset": "chatbot"}"#,
            "requests_per_month",
        ),
        (r#"{"requests_per_month": 5, "preset": "poem"}"#, "preset"),
        (
            r#"{"requests_per_month": 5, "preset": "chatbot", "batch_share": 2}"#,
            "batch_share",
        ),
        (
            r#"{"requests_per_month": 5, "input_tokens_per_request": 10}"#,
            "output_tokens_per_request",
        ),
        (
            r#"{"requests_per_month": 5, "preset": "chatbot", "currency": "EUR"}"#,
            "currency",
        ),
    ] {
        let parsed = app
            .post_json("/api/v1/estimate", body)
            .await
            .expect(400)
            .json();
        assert_eq!(parsed["error"]["code"], "INVALID_ARGUMENT", "{body}");
        assert_eq!(parsed["error"]["parameter"], parameter, "{body}");
    }
}

#[tokio::test]
async fn as_of_prices_a_workload_on_a_past_day_from_the_bundled_data() {
    let db = TestDb::new().await;
    crate::helpers::publish_bundled(&db).await;
    let app = crate::helpers::data_app(&db).await;
    let estimate = |day: &'static str| {
        let app = &app;
        async move {
            let body = json!({
                "requests_per_month": 1000, "input_tokens_per_request": 1000,
                "output_tokens_per_request": 1000, "model_ids": ["openai:o3"], "as_of": day,
            });
            app.post_json("/api/v1/estimate", &body.to_string())
                .await
                .expect(200)
                .json()
        }
    };
    // OpenAI cut o3 from 10 / 40 to 2 / 8 per 1M tokens on 2025-06-10.
    for (day, input, output, cost) in [
        ("2025-05-01", "10", "40", "50.000000"),
        ("2025-07-01", "2", "8", "10.000000"),
    ] {
        let answer = estimate(day).await;
        let data = &answer["data"];
        assert_eq!(data["assumptions"]["prices_as_of"], day);
        let row = &data["estimates"][0];
        assert_eq!(row["channel"], "official", "{day}");
        assert_eq!(row["applied_prices"]["input"], input, "{day}");
        assert_eq!(row["applied_prices"]["output"], output, "{day}");
        assert_eq!(row["cost_per_month"]["total"], cost, "{day}");
    }

    // A day before the model was sold: no price then, and the answer says which day.
    let body = json!({"requests_per_month": 1, "preset": "chatbot", "model_ids": ["openai:o3"],
                      "as_of": "2024-01-01"});
    let reply = app.post_json("/api/v1/estimate", &body.to_string()).await;
    assert_eq!(reply.error_code(), "NO_PRICE_DATA");
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("on 2024-01-01"), "{message}");

    // Without model_ids, the cheapest active chat models of that day, priced that day.
    let body = json!({"requests_per_month": 1, "preset": "chatbot", "as_of": "2025-05-01"});
    let answer = app
        .post_json("/api/v1/estimate", &body.to_string())
        .await
        .expect(200)
        .json();
    assert_eq!(
        answer["data"]["assumptions"]["model_selection"],
        "cheapest_active_chat"
    );
    assert_eq!(
        answer["data"]["estimates"].as_array().map(Vec::len),
        Some(10)
    );
}
