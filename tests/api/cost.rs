//! POST /api/v1/cost and the conditional rates of POST /api/v1/estimate, on
//! the bundled dataset: real usage objects of the Anthropic and OpenAI APIs
//! billed at the providers' published rates to the cent, Gemini 2.5 Pro's
//! context tier and Claude's cache writes in an estimate; the errors of a
//! model or day the data does not cover.

use serde_json::{Value, json};

use crate::helpers::{TestApp, bundled_app};

/// `data` of a 200 answer of POST /api/v1/cost for `body`.
async fn cost(app: &TestApp, body: &Value) -> Value {
    app.post_json("/api/v1/cost", &body.to_string())
        .await
        .expect(200)
        .json()["data"]
        .clone()
}

fn items(data: &Value) -> Vec<(String, u64, String, String)> {
    data["line_items"]
        .as_array()
        .expect("line items")
        .iter()
        .map(|l| {
            (
                l["component"].as_str().unwrap_or_default().to_owned(),
                l["tokens"].as_u64().unwrap_or_default(),
                l["usd_per_1m"].as_str().unwrap_or_default().to_owned(),
                l["cost"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn item(component: &str, tokens: u64, rate: &str, cost: &str) -> (String, u64, String, String) {
    (component.into(), tokens, rate.into(), cost.into())
}

/// A body of POST /api/v1/cost: an Anthropic Messages API usage object
/// (Claude Sonnet 4.5; Anthropic's pricing page: input $3, 5-minute cache
/// write $3.75, 1-hour write $6, cache read $0.30, output $15 per 1M tokens).
pub(crate) fn anthropic_usage() -> Value {
    json!({
        "model_id": "anthropic:claude-sonnet-4-5",
        "at": "2026-11-01T09:30:00Z",
        "usage": {"input_tokens": 2095, "cache_creation_input_tokens": 2500,
                  "cache_read_input_tokens": 12000, "output_tokens": 503,
                  "cache_creation": {"ephemeral_5m_input_tokens": 1500, "ephemeral_1h_input_tokens": 1000},
                  "service_tier": "standard"},
    })
}

#[tokio::test]
async fn real_usage_records_are_billed_at_the_published_rates() {
    let (_db, app) = bundled_app().await;

    let data = &cost(&app, &anthropic_usage()).await;
    assert_eq!(data["channel"], "official");
    assert_eq!(data["prices_as_of"], "2026-11-01");
    assert_eq!(
        items(data),
        [
            item("input", 2095, "3", "0.006285"),
            item("cached_input", 12000, "0.3", "0.003600"),
            item("cache_write", 1500, "3.75", "0.005625"),
            item("cache_write", 1000, "6", "0.006000"),
            item("output", 503, "15", "0.007545"),
        ]
    );
    assert_eq!(data["total"], "0.029055");
    let writes = &data["line_items"][2];
    assert_eq!(writes["cache_ttl"], "5m");
    assert_eq!(data["line_items"][3]["cache_ttl"], "1h");
    assert!(
        writes["source"]
            .as_str()
            .is_some_and(|s| s.starts_with("litellm ")),
        "every rate names its source: {writes}"
    );

    // An OpenAI Chat Completions usage object for o3 after the cut of
    // 2025-06-10 (OpenAI: input $2, cached input $0.50, output $8 per 1M):
    // cached tokens are part of prompt_tokens, reasoning part of completion.
    let body = json!({
        "model_id": "openai:o3",
        "at": "2025-07-01",
        "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                  "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 192, "audio_tokens": 0}},
    });
    let data = &cost(&app, &body).await;
    assert_eq!(
        items(data),
        [
            item("input", 86, "2", "0.000172"),
            item("cached_input", 1920, "0.5", "0.000960"),
            item("output", 300, "8", "0.002400"),
        ]
    );
    assert_eq!(data["tokens"]["reasoning"], 192);
    assert_eq!(data["total"], "0.003532");

    // Gemini 2.5 Pro above 200,000 prompt tokens: the whole request at 2.50 / 15.
    let body = json!({
        "model_id": "google:gemini-2.5-pro",
        "usage": {"usageMetadata": {"promptTokenCount": 250000, "candidatesTokenCount": 800,
                                    "thoughtsTokenCount": 200, "totalTokenCount": 251000}},
    });
    let data = &cost(&app, &body).await;
    assert_eq!(
        items(data),
        [
            item("input", 250000, "2.5", "0.625000"),
            item("output", 1000, "15", "0.015000"),
        ]
    );
    assert_eq!(data["line_items"][0]["above_input_tokens"], 200000);
}

#[tokio::test]
async fn what_the_data_does_not_cover_is_an_error_never_zero() {
    let (_db, app) = bundled_app().await;
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5});
    for (body, status, code) in [
        (
            json!({"model_id": "openai:o33", "usage": usage}),
            404,
            "MODEL_NOT_FOUND",
        ),
        (
            json!({"model_id": "openai:o3", "usage": usage, "at": "2020-01-01"}),
            404,
            "NO_PRICE_DATA",
        ),
        (
            json!({"model_id": "openai:o3", "usage": {"tokens": 5}}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            json!({"model_id": "openai:o3", "usage": usage, "usage_format": "bedrock"}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            json!({"model_id": "openai:o3", "usage": usage, "channel": "moon"}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            json!({"model_id": "openai:o3", "usage": usage, "service_tier": "turbo"}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            json!({"model_id": "openai:o3", "usage": usage, "extra": 1}),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            json!({"model_id": "openai:o3", "usage": usage, "at": "yesterday"}),
            422,
            "VALIDATION_FAILED",
        ),
        (json!({"model_id": "openai:o3"}), 422, "VALIDATION_FAILED"),
        (
            json!({"model_id": "openai:o3", "usage": [1]}),
            422,
            "VALIDATION_FAILED",
        ),
    ] {
        let reply = app.post_json("/api/v1/cost", &body.to_string()).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text);
        assert_eq!(reply.error_code(), code, "{body}");
        let next = &reply.json()["error"]["next_step"];
        assert!(
            next.as_str().is_some_and(|s| !s.is_empty()),
            "{body}: a next step"
        );
    }
}

#[tokio::test]
async fn an_estimate_prices_context_tiers_cache_writes_and_service_tiers() {
    let (_db, app) = bundled_app().await;
    let estimate = |body: Value| {
        let app = &app;
        async move {
            let answer = app
                .post_json("/api/v1/estimate", &body.to_string())
                .await
                .expect(200)
                .json();
            answer["data"]["estimates"][0].clone()
        }
    };

    // Gemini 2.5 Pro: 300,000 input tokens per request are above 200,000, so
    // the whole request is billed at 2.50 / 15; at 100,000 at 1.25 / 10.
    for (input, in_rate, out_rate, total, threshold) in [
        (300_000, "2.5", "15", "765.000000", json!(200000)),
        (100_000, "1.25", "10", "135.000000", Value::Null),
    ] {
        let row = estimate(
            json!({"requests_per_month": 1000, "input_tokens_per_request": input,
                                  "output_tokens_per_request": 1000,
                                  "model_ids": ["google:gemini-2.5-pro"]}),
        )
        .await;
        assert_eq!(row["applied_prices"]["input"], in_rate, "{input}");
        assert_eq!(row["applied_prices"]["output"], out_rate, "{input}");
        assert_eq!(row["cost_per_month"]["total"], total, "{input}");
        assert_eq!(
            row["conditions"]["above_input_tokens"], threshold,
            "{input}"
        );
        let tiered = row["assumptions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["code"] == "context_tier_rates"));
        assert_eq!(tiered, !threshold.is_null(), "{input}: {row}");
    }

    // Claude Sonnet 4.5 with a fifth of the input written into the cache for
    // 5 minutes (3.75 per 1M) and half read from it (0.30): 2M x 3.75 +
    // 5M x 0.30 + 3M x 3 + 1M x 15 = 33; for 1 hour (6 per 1M) 37.50.
    for (ttl, rate, total) in [("5m", "3.75", "33.000000"), ("1h", "6", "37.500000")] {
        let row = estimate(
            json!({"requests_per_month": 1000, "input_tokens_per_request": 10000,
                                  "output_tokens_per_request": 1000, "cache_hit_rate": 0.5,
                                  "cache_write_share": 0.2, "cache_ttl": ttl,
                                  "model_ids": ["anthropic:claude-sonnet-4-5"]}),
        )
        .await;
        assert_eq!(row["applied_prices"]["cache_write"], rate, "{ttl}");
        assert_eq!(
            row["cost_per_month"]["cache_write"],
            if ttl == "5m" { "7.500000" } else { "12.000000" }
        );
        assert_eq!(row["cost_per_month"]["total"], total, "{ttl}");
    }

    // o3's priority tier (OpenAI: 3.50 / 14 per 1M) bills the non-batch share.
    let row = estimate(
        json!({"requests_per_month": 1000, "input_tokens_per_request": 1000,
                              "output_tokens_per_request": 1000, "service_tier": "priority",
                              "model_ids": ["openai:o3"]}),
    )
    .await;
    assert_eq!(row["conditions"]["service_tier"], "priority");
    assert_eq!(row["applied_prices"]["input"], "3.5");
    assert_eq!(row["cost_per_month"]["total"], "17.500000");
}

#[tokio::test]
async fn a_promotional_price_says_until_when_in_the_card_dump_estimate_and_cost() {
    let (_db, app) = bundled_app().await;
    // Google's page of 2026-08-13: "Gemini 3.7 Flash will be available at an introductory price
    // of $0.75/1M input tokens and $3.75/1M output tokens ... Introductory pricing expires on
    // December 31, 2026; after, $1.50/1M input tokens and $7.50/1M output tokens will apply."
    let url = "https://ai.google.dev/gemini-api/docs/latest-model";
    let promotion = json!({"until": "2026-12-31", "url": url});
    let id = "google:gemini-3.7-flash";
    let card = app
        .call(&format!("/api/v1/models/{id}?include=pricing"))
        .await
        .expect(200)
        .json();
    let rows = |section: &str| -> Vec<(String, String, Value)> {
        card["data"]["pricing"][section]
            .as_array()
            .expect(section)
            .iter()
            .filter(|r| r["channel"] == "official" && r["tier"] == "standard")
            .map(|r| {
                (
                    r["component"].as_str().expect("component").to_owned(),
                    r["usd_per_1m"].as_str().expect("price").to_owned(),
                    r["promotion"].clone(),
                )
            })
            .collect()
    };
    let row = |c: &str, p: &str, promo: &Value| (c.to_owned(), p.to_owned(), promo.clone());
    assert_eq!(
        rows("in_effect"),
        [
            row("input", "0.75", &promotion),
            row("output", "3.75", &promotion),
            // the page states no cache price: the cache read is no promotion
            row("cached_input", "0.15", &Value::Null)
        ]
    );
    assert_eq!(
        rows("scheduled"),
        [
            row("input", "1.5", &Value::Null),
            row("output", "7.5", &Value::Null)
        ]
    );

    // OpenAI's changelog of 2026-08-21: "GPT-5.6 Sol's promotional pricing is available at least
    // through November 21, 2026": promotional, no end named.
    let sol = app
        .call("/api/v1/models/openai:gpt-5.6-sol?include=pricing")
        .await
        .expect(200)
        .json();
    let input = sol["data"]["pricing"]["in_effect"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| {
            r["channel"] == "official" && r["tier"] == "standard" && r["component"] == "input"
        })
        .expect("GPT-5.6 Sol's input")
        .clone();
    assert_eq!(
        (&input["usd_per_1m"], &input["promotion"]["until"]),
        (&json!("4"), &Value::Null)
    );

    let dump = app.call("/dumps/prices.csv").await.expect(200).text;
    let line = dump
        .split("\r\n")
        .find(|l| {
            l.starts_with(&format!("{id},google,")) && l.contains(",official,input,standard,")
        })
        .expect("the dump's line");
    assert!(line.ends_with(",true,2026-12-31,chat"), "{line}");

    let estimate = app
        .post_json(
            "/api/v1/estimate",
            &json!({"requests_per_month": 1000, "input_tokens_per_request": 1000,
                    "output_tokens_per_request": 1000, "model_ids": [id]})
            .to_string(),
        )
        .await
        .expect(200)
        .json();
    let estimated = &estimate["data"]["estimates"][0];
    assert_eq!(estimated["cost_per_month"]["total"], "4.500000");
    assert!(
        estimated["assumptions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["code"] == "promotional_rate")),
        "{estimated}"
    );

    let billed = cost(
        &app,
        &json!({"model_id": id, "at": "2026-11-20T12:00:00Z",
                "usage": {"prompt_tokens": 1000, "completion_tokens": 1000}}),
    )
    .await;
    assert_eq!(billed["total"], "0.004500");
    assert_eq!(billed["line_items"][0]["promotion"], promotion);
}

#[tokio::test]
async fn regional_and_peak_hour_rates_of_the_bundled_data_bill_usage_and_estimates() {
    let (_db, app) = bundled_app().await;

    // DeepSeek V4 Pro on DeepSeek's API (litellm 1.104.5+: list 1.32 / 3.96,
    // cache hit 0.044 in the peak hours Monday to Friday 01:00-04:00 and
    // 06:00-10:00 UTC; off_peak_pricing 0.66 / 1.98 / 0.022 the rest of the
    // week). An OpenAI-format usage of 1.2M prompt tokens (0.2M cached) and
    // 0.3M completion tokens.
    let usage = json!({"prompt_tokens": 1_200_000, "completion_tokens": 300_000,
                       "prompt_tokens_details": {"cached_tokens": 200_000}});
    let at = |at: &str| json!({"model_id": "deepseek:deepseek-v4-pro", "at": at, "usage": usage});
    // Tuesday 2026-11-10 02:30 UTC is a peak hour.
    let peak = &cost(&app, &at("2026-11-10T02:30:00Z")).await;
    assert_eq!(
        items(peak),
        [
            item("input", 1_000_000, "1.32", "1.320000"),
            item("cached_input", 200_000, "0.044", "0.008800"),
            item("output", 300_000, "3.96", "1.188000"),
        ]
    );
    assert_eq!(peak["line_items"][0]["time_window"], "peak");
    assert_eq!(peak["total"], "2.516800");
    // Tuesday noon and Saturday 2026-11-07 02:30 UTC are off-peak: the standard rates.
    for when in ["2026-11-10T12:00:00Z", "2026-11-07T02:30:00Z"] {
        let off = &cost(&app, &at(when)).await;
        assert_eq!(
            items(off),
            [
                item("input", 1_000_000, "0.66", "0.660000"),
                item("cached_input", 200_000, "0.022", "0.004400"),
                item("output", 300_000, "1.98", "0.594000"),
            ],
            "{when}"
        );
        assert_eq!(off["line_items"][0]["time_window"], Value::Null, "{when}");
    }
    // A day without a time of day: the standard rates, and the answer says so.
    let day = &cost(&app, &at("2026-11-10")).await;
    assert_eq!(day["total"], "1.258400");
    let assumed = |data: &Value, code: &str| {
        data["assumptions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["code"] == code))
    };
    assert!(assumed(day, "time_of_day_unknown"), "{day}");

    // An estimate of 1,000 requests x 10,000 input / 1,000 output tokens:
    // 10M x 0.66 + 1M x 1.98 = 8.58 off-peak, 17.16 at peak; without a share,
    // the 35 peak hours of the week's 168.
    let estimate = |share: Value| {
        let mut body = json!({"requests_per_month": 1000, "input_tokens_per_request": 10000,
                              "output_tokens_per_request": 1000,
                              "model_ids": ["deepseek:deepseek-v4-pro"]});
        if !share.is_null() {
            body["time_window_share"] = share;
        }
        let app = &app;
        async move {
            app.post_json("/api/v1/estimate", &body.to_string())
                .await
                .expect(200)
                .json()["data"]["estimates"][0]
                .clone()
        }
    };
    for (share, total) in [
        (json!(0), "8.580000"),
        (json!(1), "17.160000"),
        (Value::Null, "10.367500"),
    ] {
        let row = estimate(share.clone()).await;
        assert_eq!(row["cost_per_month"]["total"], total, "{share}");
        assert_eq!(
            assumed(&row, "time_window_share_by_hours"),
            share.is_null(),
            "{share}: {row}"
        );
    }

    // Claude Sonnet 4.5 on Bedrock's EU data zone (litellm's
    // eu.anthropic.claude-sonnet-4-5-20250929-v1:0: 3.3 / 16.5, the global
    // row 3 / 15), a request of 100,000 input tokens (below the 200,000
    // threshold) and 10,000 output: 0.1M x 3.3 + 0.01M x 16.5 = 0.495;
    // Bedrock sells it in no apac zone, so apac bills the global rates and
    // says so.
    let bedrock = |region: &str| {
        json!({"model_id": "anthropic:claude-sonnet-4-5", "channel": "aws_bedrock",
               "at": "2026-11-10", "region": region,
               "usage": {"input_tokens": 100_000, "output_tokens": 10_000}})
    };
    let eu = &cost(&app, &bedrock("eu")).await;
    assert_eq!(
        items(eu),
        [
            item("input", 100_000, "3.3", "0.330000"),
            item("output", 10_000, "16.5", "0.165000"),
        ]
    );
    assert_eq!(eu["line_items"][0]["region"], "eu");
    assert_eq!(eu["total"], "0.495000");
    let apac = &cost(&app, &bedrock("apac")).await;
    assert_eq!(apac["total"], "0.450000");
    assert!(assumed(apac, "no_region_price"), "{apac}");
}

#[tokio::test]
async fn a_record_that_bills_no_tokens_or_holds_an_unknown_value_is_refused_never_zero() {
    let (_db, app) = bundled_app().await;
    let model = "anthropic:claude-sonnet-4-5";
    for (usage, format, status, field) in [
        // read as OpenTelemetry, it has none of the gen_ai.usage.* names
        (
            json!({"input_tokens": 1_000_000, "output_tokens": 1}),
            Some("otel"),
            422,
            "usage",
        ),
        (json!({"usageMetadata": [1]}), None, 400, "usage"),
        (
            json!({"prompt_tokens": 0, "completion_tokens": 0}),
            None,
            422,
            "usage",
        ),
        // Anthropic's fields, with values it never sends
        (
            json!({"input_tokens": 10, "output_tokens": 1, "service_tier": "turbo"}),
            None,
            400,
            "usage",
        ),
        (
            json!({"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 5,
                   "cache_creation": "5m"}),
            None,
            400,
            "usage",
        ),
        (
            json!({"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 5,
                   "cache_creation": {"ephemeral_5m_input_tokens": 4, "ephemeral_1h_input_tokens": 4}}),
            None,
            400,
            "usage",
        ),
    ] {
        let mut body = json!({"model_id": model, "usage": usage});
        if let Some(format) = format {
            body["usage_format"] = json!(format);
        }
        let reply = app.post_json("/api/v1/cost", &body.to_string()).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text);
        let body = reply.json();
        let error = &body["error"];
        if status == 422 {
            assert_eq!(
                body["detail"][0]["loc"],
                json!(["body", field]),
                "{}",
                reply.text
            );
            assert!(
                body["detail"][0]["msg"]
                    .as_str()
                    .is_some_and(|m| m.contains("counts no tokens")),
                "names what was read: {}",
                reply.text
            );
        } else {
            assert_eq!(error["parameter"], field, "{}", reply.text);
        }
    }
}

#[tokio::test]
async fn an_anthropic_record_is_known_by_its_own_fields_and_bills_its_tier() {
    let (_db, app) = bundled_app().await;
    // Anthropic's Message Batches report the batch tier in the usage object;
    // no cache field is needed to read it as Anthropic's.
    let data = cost(
        &app,
        &json!({"model_id": "anthropic:claude-sonnet-4-5", "at": "2026-11-20",
                "usage": {"input_tokens": 1_000_000, "output_tokens": 1, "service_tier": "batch"}}),
    )
    .await;
    assert_eq!(data["service_tier"], "batch", "{data}");
    assert_eq!(data["total"], "1.500008", "{data}");
    // Writes the breakdown does not place are 5-minute writes.
    let data = cost(
        &app,
        &json!({"model_id": "anthropic:claude-sonnet-4-5", "at": "2026-11-20",
                "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 1_000_000,
                          "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 400_000}}}),
    )
    .await;
    let writes: Vec<(Value, Value)> = data["line_items"]
        .as_array()
        .expect("line items")
        .iter()
        .map(|l| (l["tokens"].clone(), l["cache_ttl"].clone()))
        .collect();
    assert_eq!(
        writes,
        [(json!(600_000), json!("5m")), (json!(400_000), json!("1h"))],
        "{data}"
    );
}
