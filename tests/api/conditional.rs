//! Conditional rates (snapshot `conditional_prices`): published beside the
//! standard prices, served in the card's `pricing.conditional`, as lines of
//! their own in the CSV dump and in `api.estimate_prices`' `rates`; a bad
//! conditional row rejects the whole snapshot. MCP's pricing_get_model, over
//! the same service, answers the same card.
//!
//! The snapshot is small and real: Gemini 2.5 Pro on Google's API (1.25 / 10
//! per 1M input / output, cached input 0.125; above 200,000 input tokens 2.5 /
//! 15 / 0.25) and Claude Sonnet 4.5 on Anthropic's (3 / 15, cached input 0.3;
//! cache writes 3.75 for 5 minutes, 6 for 1 hour).

use pricing::publish::snapshot::Snapshot;
use pricing::publish::{self, Options, PublishError};
use serde_json::{Value, json};

use crate::helpers::{TestDb, data_app, items, publish_at};

pub(crate) const VERIFIED: &str = "2026-11-12T00:00:00Z";
pub(crate) const SOURCE: &str = "litellm 1.109.1";
const GEMINI: &str = "google:gemini-2.5-pro";
pub(crate) const CLAUDE: &str = "anthropic:claude-sonnet-4-5";

/// A price series as the snapshot has it: one step from `from`.
pub(crate) fn series(model: &str, component: &str, from: &str, price: &str) -> Value {
    json!({"model": model, "channel": "official", "component": component, "tier": "standard",
           "history": [{"from": from, "price": price}],
           "last_verified_at": VERIFIED, "source": SOURCE})
}

/// A conditional series: a price series with its condition.
fn conditional(
    model: &str,
    component: &str,
    from: &str,
    price: &str,
    above: Option<i64>,
    ttl: Option<&str>,
) -> Value {
    let mut row = series(model, component, from, price);
    row["condition"] = json!({"above_input_tokens": above, "cache_ttl": ttl});
    row
}

/// The real conditional rates of the two models.
pub(crate) fn conditional_rows() -> Vec<Value> {
    vec![
        conditional(GEMINI, "input", "2025-06-17", "2.5", Some(200_000), None),
        conditional(GEMINI, "output", "2025-06-17", "15", Some(200_000), None),
        conditional(
            GEMINI,
            "cached_input",
            "2025-06-17",
            "0.25",
            Some(200_000),
            None,
        ),
        conditional(
            CLAUDE,
            "cache_write",
            "2025-09-29",
            "3.75",
            None,
            Some("5m"),
        ),
        conditional(CLAUDE, "cache_write", "2025-09-29", "6", None, Some("1h")),
    ]
}

/// The snapshot, generated on `day`, with `conditional_prices` when given.
fn snapshot(day: &str, conditional_prices: Option<Vec<Value>>) -> Snapshot {
    parse(&snapshot_doc(day, conditional_prices))
}

pub(crate) fn parse(doc: &Value) -> Snapshot {
    Snapshot::from_bytes(&serde_json::to_vec(doc).expect("json")).expect("parses")
}

/// The snapshot document of `snapshot`, to add rows to.
pub(crate) fn snapshot_doc(day: &str, conditional_prices: Option<Vec<Value>>) -> Value {
    let model = |id: &str, provider: &str, name: &str, inputs: Value, context, output, launch| {
        json!({"id": id, "provider": provider, "name": name, "kind": "chat", "modality": "text",
               "input_modalities": inputs, "output_modalities": ["text"], "status": "active",
               "context_window": context, "max_output_tokens": output, "launch_date": launch,
               "deprecation_date": null, "retirement_date": null, "successor": null})
    };
    let mut doc = json!({
        "format": "pricing-snapshot",
        "version": 1,
        "generated_at": format!("{day}T00:00:00Z"),
        "sources": [{"id": "litellm", "package": "litellm", "license": "MIT",
                     "released": "2026-11-12", "versions": ["1.109.1"]}],
        "providers": [{"slug": "anthropic", "name": "Anthropic"},
                      {"slug": "google", "name": "Google"}],
        "models": [
            model(CLAUDE, "anthropic", "Claude Sonnet 4.5", json!(["text", "image"]),
                  200_000, 64_000, "2025-09-29"),
            model(GEMINI, "google", "Gemini 2.5 Pro", json!(["text", "image", "audio", "video"]),
                  1_048_576, 65_536, "2025-06-17"),
        ],
        "prices": [
            series(CLAUDE, "input", "2025-09-29", "3"),
            series(CLAUDE, "output", "2025-09-29", "15"),
            series(CLAUDE, "cached_input", "2025-09-29", "0.3"),
            series(GEMINI, "input", "2025-06-17", "1.25"),
            series(GEMINI, "output", "2025-06-17", "10"),
            series(GEMINI, "cached_input", "2025-06-17", "0.125"),
        ],
    });
    if let Some(rows) = conditional_prices {
        doc["conditional_prices"] = Value::from(rows);
    }
    doc
}

/// A database with the snapshot of 2026-11-12 published.
async fn published() -> TestDb {
    let db = TestDb::new().await;
    let snapshot = snapshot("2026-11-12", Some(conditional_rows()));
    let report = publish_at(&db, &snapshot, snapshot.generated_at).await;
    assert_eq!(report.summary["conditional_rows_inserted"], 5);
    db
}

/// The card's `pricing` section for `id`, `query` appended.
async fn pricing(app: &crate::helpers::TestApp, id: &str, query: &str) -> Value {
    app.call(&format!("/api/v1/models/{id}?include=pricing{query}"))
        .await
        .expect(200)
        .json()["data"]["pricing"]
        .clone()
}

/// (component, usd_per_1m, above_input_tokens, cache_ttl, reprices_whole_request) of each row.
fn conditions(rows: &Value) -> Vec<(String, String, Value, Value, Value)> {
    rows.as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["component"].as_str().expect("component").to_owned(),
                r["usd_per_1m"].as_str().expect("price").to_owned(),
                r["above_input_tokens"].clone(),
                r["cache_ttl"].clone(),
                r["reprices_whole_request"].clone(),
            )
        })
        .collect()
}

fn row(
    component: &str,
    price: &str,
    above: Value,
    ttl: Value,
    whole: bool,
) -> (String, String, Value, Value, Value) {
    (
        component.to_owned(),
        price.to_owned(),
        above,
        ttl,
        json!(whole),
    )
}

#[tokio::test]
async fn the_card_lists_the_conditional_rates_in_effect_beside_the_standard_ones() {
    let db = published().await;
    let app = data_app(&db).await;

    let gemini = pricing(&app, GEMINI, "").await;
    assert_eq!(
        conditions(&gemini["conditional"]),
        vec![
            row("input", "2.5", json!(200_000), Value::Null, true),
            row("output", "15", json!(200_000), Value::Null, true),
            row("cached_input", "0.25", json!(200_000), Value::Null, true),
        ]
    );
    let first = &gemini["conditional"][0];
    for (field, value) in [
        ("channel", json!("official")),
        ("tier", json!("standard")),
        ("unit", json!("usd_per_1m_tokens")),
        ("valid_from", json!("2025-06-17")),
        ("valid_to", Value::Null),
        ("last_verified_at", json!(VERIFIED)),
        ("is_stale", json!(false)),
        ("source", json!(SOURCE)),
    ] {
        assert_eq!(first[field], value, "{field}");
    }
    // The standard rates stay where they were, without a condition.
    let standard: Vec<(&str, &str)> = gemini["in_effect"]
        .as_array()
        .expect("in_effect")
        .iter()
        .map(|r| {
            assert!(r.get("above_input_tokens").is_none(), "{r}");
            (
                r["component"].as_str().expect("component"),
                r["usd_per_1m"].as_str().expect("price"),
            )
        })
        .collect();
    assert_eq!(
        standard,
        vec![
            ("input", "1.25"),
            ("output", "10"),
            ("cached_input", "0.125")
        ]
    );

    let claude = pricing(&app, CLAUDE, "").await;
    assert_eq!(
        conditions(&claude["conditional"]),
        vec![
            row("cache_write", "6", Value::Null, json!("1h"), false),
            row("cache_write", "3.75", Value::Null, json!("5m"), false),
        ],
        "ordered by cache_ttl after channel, tier, component and threshold"
    );

    // A day before Gemini 2.5 Pro's prices began: no conditional rate either.
    let before = pricing(&app, GEMINI, "&as_of=2025-06-16").await;
    assert_eq!(before["conditional"], json!([]));
    assert_eq!(before["in_effect"], json!([]));
}

#[tokio::test]
async fn the_csv_dump_has_a_line_per_conditional_rate_with_its_condition() {
    let db = published().await;
    let app = data_app(&db).await;
    let csv = app.call("/dumps/prices.csv").await.expect(200).text;
    let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
    assert_eq!(
        lines[0],
        "model_id,provider,model_name,channel,component,tier,usd_per_1m_tokens,valid_from,\
         valid_to,last_verified_at,is_stale,source,above_input_tokens,cache_ttl,region,\
         time_window,promotional,promotion_until,kind"
    );
    let line = |id: &str, provider: &str, name: &str, rest: &str| {
        format!("{id},{provider},{name},official,{rest},,,false,,chat")
    };
    let claude = |rest: &str| line(CLAUDE, "anthropic", "Claude Sonnet 4.5", rest);
    let gemini = |rest: &str| line(GEMINI, "google", "Gemini 2.5 Pro", rest);
    let tail = format!("{VERIFIED},false,{SOURCE}");
    assert_eq!(
        lines[1..],
        [
            claude(&format!("input,standard,3,2025-09-29,,{tail},,")),
            claude(&format!("output,standard,15,2025-09-29,,{tail},,")),
            claude(&format!("cached_input,standard,0.3,2025-09-29,,{tail},,")),
            claude(&format!("cache_write,standard,6,2025-09-29,,{tail},,1h")),
            claude(&format!("cache_write,standard,3.75,2025-09-29,,{tail},,5m")),
            gemini(&format!("input,standard,1.25,2025-06-17,,{tail},,")),
            gemini(&format!("input,standard,2.5,2025-06-17,,{tail},200000,")),
            gemini(&format!("output,standard,10,2025-06-17,,{tail},,")),
            gemini(&format!("output,standard,15,2025-06-17,,{tail},200000,")),
            gemini(&format!("cached_input,standard,0.125,2025-06-17,,{tail},,")),
            gemini(&format!(
                "cached_input,standard,0.25,2025-06-17,,{tail},200000,"
            )),
        ]
    );
}

/// (component, above_input_tokens, cache_ttl, usd_per_1m) of each rate.
fn rates(model: &Value) -> Vec<(String, Value, Value, String)> {
    model["rates"]
        .as_array()
        .expect("rates")
        .iter()
        .map(|r| {
            assert_eq!(r["tier"], "standard");
            assert_eq!(r["source"], SOURCE);
            assert_eq!(r["last_verified_at"], VERIFIED);
            (
                r["component"].as_str().expect("component").to_owned(),
                r["above_input_tokens"].clone(),
                r["cache_ttl"].clone(),
                r["usd_per_1m"].as_str().expect("price").to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn estimate_prices_returns_every_rate_of_the_channel_and_takes_a_channel() {
    let db = published().await;
    let mut client = db.client().await;
    let tx = client.transaction().await.expect("begin");
    // As the server calls it: the web role, which cannot name schema pricing's types.
    tx.batch_execute("set local role pricing_web")
        .await
        .expect("web role");
    let ids = vec![GEMINI, CLAUDE];
    let call = async |channel: Option<&str>| -> Result<Value, tokio_postgres::Error> {
        tx.query_one(
            "select api.estimate_prices($1::text[], null, $2::text)",
            &[&ids, &channel],
        )
        .await
        .map(|row| row.get(0))
    };
    let reference = call(None).await.expect("reference channel");
    let t = |s: &str| s.to_owned();
    let n = Value::Null;
    assert_eq!(
        rates(&reference["models"][0]),
        vec![
            (t("input"), n.clone(), n.clone(), t("1.25")),
            (t("input"), json!(200_000), n.clone(), t("2.5")),
            (t("output"), n.clone(), n.clone(), t("10")),
            (t("output"), json!(200_000), n.clone(), t("15")),
            (t("cached_input"), n.clone(), n.clone(), t("0.125")),
            (t("cached_input"), json!(200_000), n.clone(), t("0.25")),
        ]
    );
    assert_eq!(
        rates(&reference["models"][1]),
        vec![
            (t("input"), n.clone(), n.clone(), t("3")),
            (t("output"), n.clone(), n.clone(), t("15")),
            (t("cached_input"), n.clone(), n.clone(), t("0.3")),
            (t("cache_write"), n.clone(), json!("1h"), t("6")),
            (t("cache_write"), n.clone(), json!("5m"), t("3.75")),
        ]
    );
    // The standard prices are served as before.
    assert_eq!(
        reference["models"][0]["prices"],
        json!({"input": "1.25", "output": "10", "cached_input": "0.125"})
    );

    // Named, the channel prices every model; official is both models' reference.
    assert_eq!(call(Some("official")).await.expect("official"), reference);
    let err = call(Some("vertex"))
        .await
        .expect_err("neither model is priced on Vertex AI here");
    let db_error = err.as_db_error().expect("db error");
    assert_eq!(db_error.code().code(), "PRNPD");
    assert!(
        db_error.message().contains("on channel vertex"),
        "{}",
        db_error.message()
    );
    tx.rollback().await.expect("rollback");
}

#[tokio::test]
async fn a_bad_conditional_row_rejects_the_whole_snapshot_and_the_last_publish_stays_served() {
    let db = published().await;
    let app = data_app(&db).await;
    let served = app.call("/dumps/prices.csv").await.expect(200).text;

    let mut rows = conditional_rows();
    rows.push(conditional(
        GEMINI,
        "reasoning",
        "2025-06-17",
        "3",
        Some(200_000),
        None,
    ));
    rows.push(conditional(
        CLAUDE,
        "input",
        "2025-09-29",
        "6",
        Some(200_000),
        Some("5m"),
    ));
    rows.push(conditional(
        CLAUDE,
        "output",
        "2025-09-29",
        "22.5",
        Some(0),
        None,
    ));
    rows.push(conditional(CLAUDE, "input", "2025-09-29", "3", None, None));
    let mut doc = snapshot_doc("2026-11-13", Some(rows));
    // a promotion that ends before its step begins, and one on a step with no price
    doc["prices"][3]["history"][0]["promotion"] =
        json!({"until": "2025-01-01", "url": "https://ai.google.dev/gemini-api/docs/pricing"});
    doc["prices"][4]["history"]
        .as_array_mut()
        .expect("history")
        .push(json!({"from": "2026-01-01", "price": null,
                     "promotion": {"until": null, "url": "https://ai.google.dev/gemini-api/docs/pricing"}}));
    let later = parse(&doc);
    let err = publish::publish(
        &mut db.client().await,
        &later,
        Options {
            at: Some(later.generated_at),
            ..Options::default()
        },
    )
    .await
    .expect_err("bad conditional rows reject the snapshot");
    let PublishError::Rejected(bad) = &err else {
        panic!("{err:#}")
    };
    let named: Vec<(&str, &str)> = bad
        .iter()
        .map(|r| (r.row.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(named.len(), 6, "{named:?}");
    for (row, reason) in [
        (
            "prices: google:gemini-2.5-pro official input standard from 2025-06-17",
            "promotion.until 2025-01-01 is before the step's day 2025-06-17",
        ),
        (
            "prices: google:gemini-2.5-pro official output standard from 2026-01-01",
            "a promotion needs a price; leave it out on a null step",
        ),
        (
            "conditional_prices: google:gemini-2.5-pro official reasoning standard above 200000",
            "unknown component `reasoning` (one of input, output, cached_input, cache_write)",
        ),
        (
            "conditional_prices: anthropic:claude-sonnet-4-5 official input standard above 200000 ttl 5m",
            "cache_ttl is only for component cache_write; make it null on input",
        ),
        (
            "conditional_prices: anthropic:claude-sonnet-4-5 official output standard above 0",
            "above_input_tokens must be a positive integer",
        ),
        (
            "conditional_prices: anthropic:claude-sonnet-4-5 official input standard",
            "no condition: the unconditional input rate belongs in prices[]",
        ),
    ] {
        assert!(named.contains(&(row, reason)), "{row}: {named:?}");
    }
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.publishes")
            .await,
        1,
        "nothing more published"
    );
    assert_eq!(
        app.call("/dumps/prices.csv").await.expect(200).text,
        served,
        "the previous publish is still what is served"
    );
}

#[tokio::test]
async fn a_snapshot_without_conditional_prices_publishes_with_none() {
    let db = TestDb::new().await;
    let plain = snapshot("2026-11-12", None);
    let report = publish_at(&db, &plain, plain.generated_at).await;
    assert_eq!(report.summary["conditional_rows_inserted"], 0);
    let app = data_app(&db).await;
    let gemini = pricing(&app, GEMINI, "").await;
    assert_eq!(gemini["conditional"], json!([]));
    assert_eq!(gemini["in_effect"].as_array().map(Vec::len), Some(3));
}

#[tokio::test]
async fn a_later_publish_replaces_a_conditional_series_that_changed() {
    let db = published().await;
    // The same rates, but Gemini's long-context input published from a later day.
    let mut rows = conditional_rows();
    rows[0] = conditional(GEMINI, "input", "2025-07-01", "2.5", Some(200_000), None);
    let later = snapshot("2026-11-13", Some(rows));
    let report = publish_at(&db, &later, later.generated_at).await;
    assert_eq!(report.summary["conditional_rows_inserted"], 1);
    assert_eq!(report.summary["conditional_rows_deleted"], 1);
    let app = data_app(&db).await;
    let gemini = pricing(&app, GEMINI, "").await;
    assert_eq!(gemini["conditional"][0]["valid_from"], "2025-07-01");
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.conditional_prices")
            .await,
        5
    );
}

#[tokio::test]
async fn mcp_pricing_get_model_returns_the_conditional_rates_like_rest() {
    let db = published().await;
    let app = data_app(&db).await;
    let calls = json!([{"tool": "pricing_get_model",
                        "arguments": {"model_id": GEMINI, "include": ["pricing"]}}]);
    let out = crate::mcp::over_http(&app, &[], &calls).await;
    let result = &out["results"][0];
    assert_eq!(result["is_error"], false, "{result}");
    let rest = app
        .call(&format!("/api/v1/models/{GEMINI}?include=pricing"))
        .await
        .expect(200)
        .json();
    assert_eq!(result["structured"], rest);
    assert_eq!(
        result["structured"]["data"]["pricing"]["conditional"][1]["usd_per_1m"],
        "15"
    );
}

pub(crate) const HAIKU: &str = "anthropic:claude-3-5-haiku-20241022";

/// A series of two steps: `old` from `from`, `new` from `to`.
pub(crate) fn moved(mut row: Value, to: &str, new: &str) -> Value {
    row["history"]
        .as_array_mut()
        .expect("history")
        .push(json!({"from": to, "price": new}));
    row
}

/// The snapshot with Claude 3.5 Haiku's cut of 2024-12-03 (Anthropic's "lowering the price of
/// Claude 3.5 Haiku to $0.80 per million input tokens and $4 per million output tokens", post of
/// that day at https://claude.com/blog/trainium2-and-distillation): input 1 -> 0.8, output 5 ->
/// 4, cache reads 0.1 -> 0.08, and 5-minute cache writes, billed at 1.25x input, 1.25 -> 1.
fn haiku_cut() -> Snapshot {
    let mut doc = snapshot_doc("2026-11-12", Some(conditional_rows()));
    doc["models"].as_array_mut().expect("models").push(json!({
        "id": HAIKU, "provider": "anthropic", "name": "Claude Haiku 3.5", "modality": "text",
        "input_modalities": ["text"], "output_modalities": ["text"], "status": "active",
        "context_window": 200_000, "max_output_tokens": 8_192, "launch_date": "2024-11-04",
        "deprecation_date": null, "retirement_date": null, "successor": null}));
    let cut = "2024-12-03";
    let prices = doc["prices"].as_array_mut().expect("prices");
    for (component, old, new) in [
        ("input", "1", "0.8"),
        ("output", "5", "4"),
        ("cached_input", "0.1", "0.08"),
    ] {
        prices.push(moved(series(HAIKU, component, "2024-11-04", old), cut, new));
    }
    doc["conditional_prices"]
        .as_array_mut()
        .expect("conditional")
        .push(moved(
            conditional(HAIKU, "cache_write", "2024-11-04", "1.25", None, Some("5m")),
            cut,
            "1",
        ));
    parse(&doc)
}

#[tokio::test]
async fn a_conditional_rate_that_moves_has_its_own_price_event_and_daily_series() {
    let db = TestDb::new().await;
    let snapshot = haiku_cut();
    publish_at(&db, &snapshot, snapshot.generated_at).await;
    let app = data_app(&db).await;

    // changes: the cache write's move is one event of its own, with its condition; the standard
    // rates' events have none, and the conditional move weighs less than the input's
    let history = app
        .call(&format!(
            "/api/v1/models/{HAIKU}/history?since=2024-11-01&until=2024-12-31"
        ))
        .await
        .expect(200)
        .json();
    let events = items(&history);
    let by = |component: &str| -> Value {
        let found: Vec<&Value> = events
            .iter()
            .filter(|e| e["component"] == component)
            .collect();
        assert_eq!(found.len(), 1, "one {component} event: {events:?}");
        found[0].clone()
    };
    let write = by("cache_write");
    assert_eq!(
        (
            &write["old_value"],
            &write["new_value"],
            &write["effective_date"]
        ),
        (&json!("1.25"), &json!("1"), &json!("2024-12-03"))
    );
    assert_eq!(
        write["condition"],
        json!({"above_input_tokens": null, "cache_ttl": "5m", "region": null, "time_window": null,
               "reprices_whole_request": false})
    );
    let input = by("input");
    assert_eq!(input["condition"], Value::Null);
    assert!(
        write["significance"].as_i64() < input["significance"].as_i64(),
        "a conditional rate's move weighs less: {write} {input}"
    );
    assert_eq!(events.len(), 4);

    // the feed carries the same event, its condition included
    let feed = app
        .call("/api/v1/changes?since=2024-12-01&until=2024-12-31&event_type=price_change")
        .await
        .expect(200)
        .json();
    assert!(items(&feed).contains(&write), "the feed lists {write}");

    // daily: the cache write is a series of its own beside the standard ones, read across pages
    let base = format!(
        "/api/v1/models/{HAIKU}/history?granularity=daily&since=2024-12-02&until=2024-12-03&limit=3"
    );
    let (mut points, mut url) = (Vec::new(), base.clone());
    loop {
        let body = app.call(&url).await.expect(200).json();
        assert_eq!(body["pagination"]["total_count"], 8);
        points.extend(items(&body).into_iter().map(|p| {
            (
                p["date"].as_str().expect("date").to_owned(),
                p["component"].as_str().expect("component").to_owned(),
                p["usd_per_1m"].as_str().expect("price").to_owned(),
                p["condition"]["cache_ttl"].clone(),
            )
        }));
        match body["pagination"]["next_cursor"].as_str() {
            Some(c) => url = format!("{base}&cursor={c}"),
            None => break,
        }
    }
    let point = |day: &str, component: &str, price: &str, ttl: Value| {
        (day.to_owned(), component.to_owned(), price.to_owned(), ttl)
    };
    assert_eq!(
        points,
        vec![
            point("2024-12-02", "input", "1", Value::Null),
            point("2024-12-02", "output", "5", Value::Null),
            point("2024-12-02", "cached_input", "0.1", Value::Null),
            point("2024-12-02", "cache_write", "1.25", json!("5m")),
            point("2024-12-03", "input", "0.8", Value::Null),
            point("2024-12-03", "output", "4", Value::Null),
            point("2024-12-03", "cached_input", "0.08", Value::Null),
            point("2024-12-03", "cache_write", "1", json!("5m")),
        ]
    );

    // publishing the same snapshot again emits no event
    let again = publish_at(
        &db,
        &snapshot,
        snapshot.generated_at + time::Duration::hours(1),
    )
    .await;
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.events where event_type = 'price_change'")
            .await,
        4,
        "{:?}",
        again.summary
    );
}
