//! Regional and time-window rates (a conditional row's `region` and
//! `time_window`): published, served on the card, in history and its events,
//! the feeds and the dump, in `api.estimate_prices`' rates, and billed by
//! POST /api/v1/estimate and POST /api/v1/cost (and the MCP cost tool).
//!
//! The rows are real, as litellm 1.109.1 states them:
//! - DeepSeek V4 Pro on DeepSeek's API (`deepseek/deepseek-v4-pro`): 1.32 /
//!   3.96 / cached 0.044 per 1M, and `off_peak_pricing` 0.66 / 1.98 / 0.022 in
//!   every hour but Monday to Friday 01:00-04:00 and 06:00-10:00 UTC; so the
//!   standard rate is the off-peak one and the conditional row the peak one;
//! - Claude Sonnet 4.5 on Bedrock: 3 / 15 on the global endpoint, 3.3 / 16.5
//!   in the `eu` data zone (`eu.anthropic.claude-sonnet-4-5-20250929-v1:0`);
//! - Claude 3.5 Haiku on Bedrock's `eu` zone (`eu.anthropic.claude-3-5-haiku-
//!   20241022-v1:0`): input 1 until Anthropic's cut of 2024-12-03, 0.80 after,
//!   as its global rate (a regional series that moves).

use serde_json::{Value, json};

use crate::conditional::{
    CLAUDE, HAIKU, SOURCE, VERIFIED, conditional_rows, moved, parse, series, snapshot_doc,
};
use crate::helpers::{TestApp, TestDb, data_app, fixture_bytes, items, publish_at};

const DEEPSEEK: &str = "deepseek:deepseek-v4-pro";

/// DeepSeek V4 Pro's peak hours (UTC).
fn peak() -> Value {
    json!({"name": "peak", "spans": [
        {"weekdays": [1, 2, 3, 4, 5], "from": "01:00", "to": "04:00"},
        {"weekdays": [1, 2, 3, 4, 5], "from": "06:00", "to": "10:00"}]})
}

/// A series of `model` on `channel`.
fn on(channel: &str, mut row: Value) -> Value {
    row["channel"] = json!(channel);
    row
}

/// `row` under a region or a time window (the writer states all four keys).
fn under(mut row: Value, region: Option<&str>, window: Option<Value>) -> Value {
    row["condition"] = json!({"above_input_tokens": null, "cache_ttl": null,
                              "region": region, "time_window": window});
    row
}

/// Claude 3.5 Haiku's `component` on Bedrock: `old` from its launch, `new` from Anthropic's cut
/// of 2024-12-03.
fn haiku_cut(component: &str, old: &str, new: &str) -> Value {
    on(
        "aws_bedrock",
        moved(
            series(HAIKU, component, "2024-11-04", old),
            "2024-12-03",
            new,
        ),
    )
}

/// The snapshot of conditional.rs with DeepSeek V4 Pro's peak rates, and
/// Claude Sonnet 4.5's (in place of its official ones) and Claude 3.5 Haiku's
/// Bedrock rates with those of the `eu` zone.
fn snapshot_doc_regional() -> Value {
    let mut doc = snapshot_doc("2026-11-12", Some(conditional_rows()));
    // Sonnet 4.5 on Bedrock only, so that Bedrock is its reference channel and the estimate
    // prices its rates there.
    for list in ["prices", "conditional_prices"] {
        doc[list]
            .as_array_mut()
            .expect(list)
            .retain(|row| row["model"] != CLAUDE);
    }
    doc["providers"]
        .as_array_mut()
        .expect("providers")
        .push(json!({"slug": "deepseek", "name": "DeepSeek"}));
    let models = doc["models"].as_array_mut().expect("models");
    for (id, provider, name, context, output, launch) in [
        (
            DEEPSEEK,
            "deepseek",
            "DeepSeek V4 Pro",
            1_000_000,
            393_216,
            "2026-04-24",
        ),
        (
            HAIKU,
            "anthropic",
            "Claude Haiku 3.5",
            200_000,
            8_192,
            "2024-11-04",
        ),
    ] {
        models.push(json!({
            "id": id, "provider": provider, "name": name, "kind": "chat", "modality": "text",
            "input_modalities": ["text"], "output_modalities": ["text"], "status": "active",
            "context_window": context, "max_output_tokens": output, "launch_date": launch,
            "deprecation_date": null, "retirement_date": null, "successor": null}));
    }
    let ds = "2026-11-10";
    let bedrock = "2025-11-22";
    let prices = doc["prices"].as_array_mut().expect("prices");
    prices.extend([
        series(DEEPSEEK, "input", ds, "0.66"),
        series(DEEPSEEK, "output", ds, "1.98"),
        series(DEEPSEEK, "cached_input", ds, "0.022"),
        on("aws_bedrock", series(CLAUDE, "input", bedrock, "3")),
        on("aws_bedrock", series(CLAUDE, "output", bedrock, "15")),
        haiku_cut("input", "1", "0.8"),
        haiku_cut("output", "5", "4"),
    ]);
    let rows = doc["conditional_prices"].as_array_mut().expect("rows");
    rows.extend([
        under(series(DEEPSEEK, "input", ds, "1.32"), None, Some(peak())),
        under(series(DEEPSEEK, "output", ds, "3.96"), None, Some(peak())),
        under(
            series(DEEPSEEK, "cached_input", ds, "0.044"),
            None,
            Some(peak()),
        ),
        under(
            on("aws_bedrock", series(CLAUDE, "input", bedrock, "3.3")),
            Some("eu"),
            None,
        ),
        under(
            on("aws_bedrock", series(CLAUDE, "output", bedrock, "16.5")),
            Some("eu"),
            None,
        ),
        under(haiku_cut("input", "1", "0.8"), Some("eu"), None),
    ]);
    doc
}

/// tests/fixtures/regional.json is this snapshot, for the browser test of the calculator
/// (tests/browser/conditions.test.mjs); `PRICING_WRITE_FIXTURES=1` rewrites it.
#[test]
fn the_fixture_file_is_the_regional_snapshot() {
    let doc = snapshot_doc_regional();
    if std::env::var_os("PRICING_WRITE_FIXTURES").is_some() {
        let path = format!(
            "{}/../tests/fixtures/regional.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = serde_json::to_string_pretty(&doc).expect("json") + "\n";
        std::fs::write(&path, text).expect("write the fixture");
    }
    let fixture: Value = serde_json::from_slice(&fixture_bytes("regional.json")).expect("json");
    assert_eq!(
        fixture, doc,
        "tests/fixtures/regional.json is stale: run this test with PRICING_WRITE_FIXTURES=1"
    );
}

async fn published() -> (TestDb, TestApp) {
    let db = TestDb::new().await;
    let snapshot = parse(&snapshot_doc_regional());
    let report = publish_at(&db, &snapshot, snapshot.generated_at).await;
    // Gemini's 3 rows of conditional.rs, 3 peak rows, 2 eu rows and the eu Haiku series' 2 steps
    assert_eq!(
        report.summary["conditional_rows_inserted"], 10,
        "{:?}",
        report.summary
    );
    let app = data_app(&db).await;
    (db, app)
}

async fn post(app: &TestApp, path: &str, body: &Value) -> Value {
    app.post_json(path, &body.to_string())
        .await
        .expect(200)
        .json()["data"]
        .clone()
}

fn codes(assumptions: &Value) -> Vec<String> {
    assumptions
        .as_array()
        .expect("assumptions")
        .iter()
        .map(|a| a["code"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// (component, rate, cost, time_window, region) of each line item.
fn lines(cost: &Value) -> Vec<(String, String, String, Value, Value)> {
    cost["line_items"]
        .as_array()
        .expect("line items")
        .iter()
        .map(|l| {
            (
                l["component"].as_str().unwrap_or_default().to_owned(),
                l["usd_per_1m"].as_str().unwrap_or_default().to_owned(),
                l["cost"].as_str().unwrap_or_default().to_owned(),
                l["time_window"].clone(),
                l["region"].clone(),
            )
        })
        .collect()
}

/// The card's `pricing.conditional` rows of `id`.
async fn conditional_rows_of(app: &TestApp, id: &str) -> Vec<Value> {
    let card = app
        .call(&format!("/api/v1/models/{id}?include=pricing"))
        .await
        .expect(200)
        .json();
    card["data"]["pricing"]["conditional"]
        .as_array()
        .expect("rows")
        .clone()
}

/// Three fields of each row, by JSON pointer (null where absent).
fn triples(rows: &[Value], pointers: [&str; 3]) -> Vec<(Value, Value, Value)> {
    let at = |row: &Value, i: usize| row.pointer(pointers[i]).cloned().unwrap_or(Value::Null);
    rows.iter()
        .map(|row| (at(row, 0), at(row, 1), at(row, 2)))
        .collect()
}

fn line(c: &str, rate: &str, cost: &str, window: Value) -> (String, String, String, Value, Value) {
    (c.into(), rate.into(), cost.into(), window, Value::Null)
}

#[tokio::test]
async fn a_usage_record_in_deepseek_peak_hours_is_billed_at_peak_rates() {
    let (_db, app) = published().await;
    // An OpenAI-format usage object: 1.2M prompt tokens of which 0.2M cached, 0.3M completion.
    let usage = json!({"prompt_tokens": 1_200_000, "completion_tokens": 300_000,
                       "prompt_tokens_details": {"cached_tokens": 200_000}});
    let cost = |at: &str| {
        let body = json!({"model_id": DEEPSEEK, "at": at, "usage": usage});
        let app = &app;
        async move { post(app, "/api/v1/cost", &body).await }
    };
    let peak_lines = vec![
        line("input", "1.32", "1.320000", json!("peak")),
        line("cached_input", "0.044", "0.008800", json!("peak")),
        line("output", "3.96", "1.188000", json!("peak")),
    ];
    let standard_lines = vec![
        line("input", "0.66", "0.660000", Value::Null),
        line("cached_input", "0.022", "0.004400", Value::Null),
        line("output", "1.98", "0.594000", Value::Null),
    ];
    // Tuesday 2026-11-24 02:30 UTC is inside 01:00-04:00.
    let tuesday_peak = cost("2026-11-24T02:30:00Z").await;
    assert_eq!(lines(&tuesday_peak), peak_lines);
    assert_eq!(tuesday_peak["total"], "2.516800");
    assert_eq!(codes(&tuesday_peak["assumptions"]), Vec::<String>::new());
    // The same instant written with an offset is the same UTC time.
    let offset = cost("2026-11-24T03:30:00+01:00").await;
    assert_eq!(offset["total"], "2.516800");
    // Tuesday noon and Saturday 02:30 are outside every span.
    for at in ["2026-11-24T12:00:00Z", "2026-11-28T02:30:00Z"] {
        let off = cost(at).await;
        assert_eq!(lines(&off), standard_lines, "{at}");
        assert_eq!(off["total"], "1.258400", "{at}");
    }
    // A date without a time: standard rates, and it says so.
    let day = cost("2026-11-24").await;
    assert_eq!(day["total"], "1.258400");
    assert_eq!(codes(&day["assumptions"]), ["time_of_day_unknown"]);
    // A card without windows assumes nothing about the time of day.
    let claude = post(
        &app,
        "/api/v1/cost",
        &json!({"model_id": CLAUDE, "at": "2026-11-24",
                "usage": {"input_tokens": 1000, "output_tokens": 100}}),
    )
    .await;
    assert_eq!(codes(&claude["assumptions"]), Vec::<String>::new());
}

#[tokio::test]
async fn an_estimate_bills_the_time_window_share_of_its_requests_at_peak_rates() {
    let (_db, app) = published().await;
    let estimate = |extra: Value| {
        let mut body = json!({"requests_per_month": 1000, "input_tokens_per_request": 10000,
                              "output_tokens_per_request": 1000, "model_ids": [DEEPSEEK]});
        body.as_object_mut()
            .expect("object")
            .extend(extra.as_object().expect("object").clone());
        let app = &app;
        async move { post(app, "/api/v1/estimate", &body).await }
    };
    // 10M input and 1M output tokens: at standard rates 10 x 0.66 + 1.98 = 8.58, at peak
    // 10 x 1.32 + 3.96 = 17.16.
    for (share, total, input) in [(0, "8.580000", "0.66"), (1, "17.160000", "1.32")] {
        let data = estimate(json!({"time_window_share": share})).await;
        let row = &data["estimates"][0];
        assert_eq!(row["cost_per_month"]["total"], total, "{share}");
        assert_eq!(row["applied_prices"]["input"], input, "{share}");
        assert_eq!(row["conditions"]["time_window"], "peak");
        assert_eq!(row["conditions"]["time_window_share"], share.to_string());
        assert!(!codes(&row["assumptions"]).contains(&"time_window_share_by_hours".into()));
        assert_eq!(data["assumptions"]["time_window_share"], share.to_string());
    }
    // No share: the 35 peak hours of the week's 168, 8.58 + (17.16 - 8.58) x 35/168 = 10.3675.
    let data = estimate(json!({})).await;
    let row = &data["estimates"][0];
    assert_eq!(row["cost_per_month"]["total"], "10.367500");
    assert!(codes(&row["assumptions"]).contains(&"time_window_share_by_hours".into()));
    assert!(
        row["conditions"]["time_window_share"]
            .as_str()
            .is_some_and(|s| s.starts_with("0.208333333")),
        "{row}"
    );
    // A share outside 0..1 is refused, naming the field and the range.
    let reply = app
        .post_json(
            "/api/v1/estimate",
            &json!({"requests_per_month": 1, "preset": "chatbot", "time_window_share": 1.5})
                .to_string(),
        )
        .await
        .expect(400);
    let error = &reply.json()["error"];
    assert_eq!(error["code"], "INVALID_ARGUMENT");
    assert_eq!(error["parameter"], "time_window_share");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("from 0 to 1")),
        "{error}"
    );
}

#[tokio::test]
async fn a_region_bills_its_own_rates_and_a_region_without_rates_the_default_ones() {
    let (_db, app) = published().await;
    let usage = json!({"input_tokens": 1_000_000, "output_tokens": 100_000});
    let body = |region: &str| {
        json!({"model_id": CLAUDE, "channel": "aws_bedrock", "region": region,
               "at": "2026-11-24T12:00:00Z", "usage": usage})
    };
    // eu: 1M x 3.3 + 0.1M x 16.5 = 4.95
    let eu = post(&app, "/api/v1/cost", &body("eu")).await;
    assert_eq!(
        lines(&eu),
        [
            (
                "input".into(),
                "3.3".into(),
                "3.300000".into(),
                Value::Null,
                json!("eu")
            ),
            (
                "output".into(),
                "16.5".into(),
                "1.650000".into(),
                Value::Null,
                json!("eu")
            ),
        ]
    );
    assert_eq!(eu["total"], "4.950000");
    assert_eq!(eu["region"], "eu");
    assert_eq!(codes(&eu["assumptions"]), Vec::<String>::new());
    // apac: no apac rate on the card, so the global 3 / 15 and `no_region_price`.
    let apac = post(&app, "/api/v1/cost", &body("apac")).await;
    assert_eq!(apac["total"], "4.500000");
    assert_eq!(codes(&apac["assumptions"]), ["no_region_price"]);
    // A region that is no region name is refused.
    let reply = app
        .post_json("/api/v1/cost", &body("EU West").to_string())
        .await
        .expect(400);
    assert_eq!(reply.json()["error"]["parameter"], "region");

    // The estimate on the model's reference channel, Bedrock: eu bills 3.3 / 16.5 (1M x 3.3 +
    // 0.1M x 16.5 = 4.95), apac the global 3 / 15 with `no_region_price`.
    for (region, input, total, assumed) in [
        ("eu", "3.3", "4.950000", vec![]),
        ("apac", "3", "4.500000", vec!["no_region_price".to_owned()]),
    ] {
        let body = json!({"requests_per_month": 1000, "input_tokens_per_request": 1000,
                          "output_tokens_per_request": 100, "region": region,
                          "model_ids": [CLAUDE]});
        let data = post(&app, "/api/v1/estimate", &body).await;
        let row = &data["estimates"][0];
        assert_eq!(row["channel"], "aws_bedrock");
        assert_eq!(row["applied_prices"]["input"], input, "{region}");
        assert_eq!(row["cost_per_month"]["total"], total, "{region}");
        assert_eq!(codes(&row["assumptions"]), assumed, "{region}");
        assert_eq!(data["assumptions"]["region"], region);
    }
}

#[tokio::test]
async fn the_card_the_dump_and_estimate_prices_state_region_and_time_window() {
    let (db, app) = published().await;
    let conditional = conditional_rows_of(&app, DEEPSEEK).await;
    assert_eq!(conditional.len(), 3);
    for (row, (component, usd)) in conditional.iter().zip([
        ("input", "1.32"),
        ("output", "3.96"),
        ("cached_input", "0.044"),
    ]) {
        assert_eq!(
            (
                &row["component"],
                &row["usd_per_1m"],
                &row["time_window"],
                &row["region"]
            ),
            (&json!(component), &json!(usd), &peak(), &Value::Null)
        );
        assert_eq!(row["reprices_whole_request"], false);
        assert_eq!(row["source"], SOURCE);
    }
    let rows = conditional_rows_of(&app, CLAUDE).await;
    let eu = triples(&rows, ["/component", "/usd_per_1m", "/region"]);
    assert_eq!(
        eu,
        [
            (json!("input"), json!("3.3"), json!("eu")),
            (json!("output"), json!("16.5"), json!("eu"))
        ]
    );

    // The dump: a line per regional or windowed rate, the window in its compact form.
    let csv = app.call("/dumps/prices.csv").await.expect(200).text;
    let tail = format!("{VERIFIED},false,{SOURCE}");
    for expected in [
        format!(
            "{DEEPSEEK},deepseek,DeepSeek V4 Pro,official,input,standard,1.32,2026-11-10,,{tail},,,,\
             \"peak 12345 01:00-04:00, 12345 06:00-10:00\",false,,chat"
        ),
        format!(
            "{DEEPSEEK},deepseek,DeepSeek V4 Pro,official,input,standard,0.66,2026-11-10,,{tail},,,,,false,,chat"
        ),
        format!(
            "{CLAUDE},anthropic,Claude Sonnet 4.5,aws_bedrock,output,standard,16.5,2025-11-22,,{tail},,,eu,,false,,chat"
        ),
    ] {
        assert!(
            csv.split("\r\n").any(|l| l == expected),
            "the dump has {expected}"
        );
    }

    // api.estimate_prices' rates carry both conditions.
    let rates = db
        .client()
        .await
        .query_one(
            "select api.estimate_prices(array[$1, $2], null, null) -> 'models'",
            &[&DEEPSEEK, &CLAUDE],
        )
        .await
        .expect("estimate_prices")
        .get::<_, Value>(0);
    let windowed = rates[0]["rates"]
        .as_array()
        .expect("rates")
        .iter()
        .filter(|r| r["time_window"] == peak())
        .count();
    assert_eq!(windowed, 3, "{rates}");
    let regional = rates[1]["rates"]
        .as_array()
        .expect("rates")
        .iter()
        .filter(|r| r["region"] == "eu")
        .count();
    assert_eq!(regional, 2, "{rates}");
}

#[tokio::test]
async fn a_regional_rate_that_moves_has_its_own_event_daily_series_and_feed_title() {
    let (_db, app) = published().await;
    let history = app
        .call(&format!(
            "/api/v1/models/{HAIKU}/history?channel=aws_bedrock&component=input&since=2024-11-01&until=2024-12-31"
        ))
        .await
        .expect(200)
        .json();
    let events = items(&history);
    let condition = |region: Value| {
        json!({"above_input_tokens": null, "cache_ttl": null, "region": region,
               "time_window": null, "reprices_whole_request": false})
    };
    let moves = triples(&events, ["/old_value", "/new_value", "/condition"]);
    assert_eq!(
        moves,
        [
            (json!("1"), json!("0.8"), Value::Null),
            (json!("1"), json!("0.8"), condition(json!("eu")))
        ],
        "{events:?}"
    );

    // Daily: the global and the eu series side by side, each day, the global first.
    let daily = app
        .call(&format!(
            "/api/v1/models/{HAIKU}/history?granularity=daily&channel=aws_bedrock&component=input&since=2024-12-02&until=2024-12-03&limit=3"
        ))
        .await
        .expect(200)
        .json();
    let points = triples(
        &items(&daily),
        ["/date", "/usd_per_1m", "/condition/region"],
    );
    assert_eq!(
        points,
        [
            (json!("2024-12-02"), json!("1"), Value::Null),
            (json!("2024-12-02"), json!("1"), json!("eu")),
            (json!("2024-12-03"), json!("0.8"), Value::Null),
        ]
    );
    // the cursor is keyed on the full condition: the next page starts with the eu point
    let cursor = daily["pagination"]["next_cursor"]
        .as_str()
        .expect("a cursor");
    let next = app
        .call(&format!(
            "/api/v1/models/{HAIKU}/history?granularity=daily&channel=aws_bedrock&component=input&since=2024-12-02&until=2024-12-03&limit=3&cursor={cursor}"
        ))
        .await
        .expect(200)
        .json();
    assert_eq!(items(&next).len(), 1);
    assert_eq!(items(&next)[0]["condition"], condition(json!("eu")));
    assert_eq!(items(&next)[0]["date"], "2024-12-03");

    // The feed's title names the region.
    let feed = app
        .call("/feeds/changes.json?since=2024-12-01&until=2024-12-31")
        .await
        .expect(200)
        .json();
    let titles: Vec<&str> = feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["title"].as_str())
        .collect();
    assert!(
        titles.contains(
            &"Claude Haiku 3.5: input eu price 1 → 0.8 USD per 1M tokens (aws_bedrock, standard)"
        ),
        "{titles:?}"
    );
}

#[tokio::test]
async fn the_mcp_cost_tool_bills_a_region_and_a_peak_hour_like_rest() {
    let (_db, app) = published().await;
    let body = json!({"model_id": DEEPSEEK, "at": "2026-11-24T02:30:00Z",
                      "usage": {"prompt_tokens": 1_200_000, "completion_tokens": 300_000,
                                "prompt_tokens_details": {"cached_tokens": 200_000}}});
    let regional = json!({"model_id": CLAUDE, "channel": "aws_bedrock", "region": "eu",
                          "usage": {"input_tokens": 1_000_000, "output_tokens": 100_000}});
    let calls = json!([{"tool": "pricing_cost_usage", "arguments": body},
                       {"tool": "pricing_cost_usage", "arguments": regional}]);
    let out = crate::mcp::over_http(&app, &[], &calls).await;
    for (result, body, total) in [
        (&out["results"][0], &body, "2.516800"),
        (&out["results"][1], &regional, "4.950000"),
    ] {
        assert_eq!(result["is_error"], false, "{result}");
        let rest = app
            .post_json("/api/v1/cost", &body.to_string())
            .await
            .expect(200)
            .json();
        assert_eq!(result["structured"]["data"], rest["data"]);
        assert_eq!(rest["data"]["total"], total);
    }
}

#[tokio::test]
async fn a_bad_region_or_time_window_rejects_the_snapshot_naming_the_row() {
    let db = TestDb::new().await;
    let mut doc = snapshot_doc_regional();
    let overlapping = json!({"name": "peak", "spans": [
        {"weekdays": [1, 2, 3, 4, 5], "from": "01:00", "to": "04:00"},
        {"weekdays": [5], "from": "03:00", "to": "05:00"}]});
    let rows = doc["conditional_prices"].as_array_mut().expect("rows");
    rows.extend([
        under(
            on(
                "aws_bedrock",
                series(CLAUDE, "cached_input", "2025-11-22", "0.33"),
            ),
            Some("EU"),
            None,
        ),
        under(
            series(DEEPSEEK, "output", "2026-11-10", "3.96"),
            None,
            Some(overlapping),
        ),
        under(
            series(HAIKU, "output", "2026-11-10", "4"),
            None,
            Some(json!({"name": "night", "spans": []})),
        ),
    ]);
    let snapshot = parse(&doc);
    let err = pricing::publish::publish(
        &mut db.client().await,
        &snapshot,
        pricing::publish::Options {
            at: Some(snapshot.generated_at),
            ..pricing::publish::Options::default()
        },
    )
    .await
    .expect_err("bad rows reject the snapshot");
    let pricing::publish::PublishError::Rejected(bad) = &err else {
        panic!("{err:#}")
    };
    let named: Vec<(&str, &str)> = bad
        .iter()
        .map(|r| (r.row.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(named.len(), 3, "{named:?}");
    assert!(named.iter().any(|(row, reason)| {
        *row == "conditional_prices: anthropic:claude-sonnet-4-5 aws_bedrock cached_input standard region EU"
            && reason.starts_with("region `EU` must be a region the channel names")
    }), "{named:?}");
    assert!(
        named.iter().any(|(row, reason)| {
            row.starts_with(
                "conditional_prices: deepseek:deepseek-v4-pro official output standard window",
            ) && *reason == "time_window span 1 overlaps another span on weekday 5"
        }),
        "{named:?}"
    );
    assert!(
        named.iter().any(|(row, reason)| {
            row.starts_with(
                "conditional_prices: anthropic:claude-3-5-haiku-20241022 official output",
            ) && reason.starts_with("time_window must be {\"name\": \"peak\" or \"off_peak\"")
        }),
        "{named:?}"
    );
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.publishes")
            .await,
        0
    );
}

/// estimator/vectors/conditions.json through POST /api/v1/estimate: its rate cards are the
/// published rates of its models here, and every case gives the total and the assumptions the
/// estimator natively and the WASM build give (estimator/tests/vectors.rs,
/// web-demo/tests/vectors.test.mjs).
#[tokio::test]
async fn the_condition_vectors_give_the_same_totals_through_the_api() {
    let (db, app) = published().await;
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("../../estimator/vectors/conditions.json"))
            .expect("vectors");
    for case in &cases {
        let name = &case["name"];
        let id = case["model_id"].as_str().expect("model id");
        // the vector's card is the model's published one
        let published = db
            .client()
            .await
            .query_one(
                "select api.estimate_prices(array[$1], null, null) -> 'models' -> 0 -> 'rates'",
                &[&id],
            )
            .await
            .expect("rates")
            .get::<_, Value>(0);
        let fields = ["component", "tier", "region", "time_window", "usd_per_1m"];
        let pick = |rates: &Value| {
            let mut rows: Vec<Vec<Value>> = rates
                .as_array()
                .expect("rates")
                .iter()
                .map(|r| fields.iter().map(|f| r[*f].clone()).collect())
                .collect();
            rows.sort_by_key(|r| r.iter().map(Value::to_string).collect::<Vec<_>>());
            rows
        };
        assert_eq!(pick(&published), pick(&case["rates"]), "{name}");
        let data = post(
            &app,
            "/api/v1/estimate",
            &crate::estimate::body(&case["workload"], &[id]),
        )
        .await;
        let row = &data["estimates"][0];
        assert_eq!(
            row["cost_per_month"]["total"], case["expected"]["total"],
            "{name}"
        );
        let want: Vec<String> = case["expected"]["assumptions"]
            .as_array()
            .expect("codes")
            .iter()
            .map(|c| c.as_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(codes(&row["assumptions"]), want, "{name}");
    }
}
