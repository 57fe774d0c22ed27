//! What a snapshot says about where its history comes from reaches the
//! events: step `sources` become the price events' `detail.sources` and
//! `corroboration` and weigh into significance; a model's `limits` history
//! becomes `limit_change` events dated at its entries, emitted once; and
//! lifecycle events are dated by the model's own dates, never by the publish.
//!
//! The snapshots are fixture B with the additive fields of pricing-snapshot
//! v1 set on a few rows, all real: which pinned litellm releases show a value
//! was read from the releases' price files (o3's 10 -> 2 input cut: 1.71.3
//! shows 10, 1.73.6 and 1.74.12 show 2, on `o3` and `azure/o3`; genai-prices
//! 0.2.3 dates the official cut 2025-06-10; `amazon.nova-pro-v1:0` max output
//! 4096 from 1.56.5 to 1.71.3, 10000 from 1.73.6 (2025-06-28) to 1.109.1;
//! `claude-sonnet-4-5` context 200000 from 1.79.0, 1000000 in 1.104.5
//! (2026-09-26) and 1.106.1, 200000 again in 1.109.1 (2026-11-12)).

use std::time::Duration;

use pricing::publish::Options;
use pricing::publish::snapshot::Snapshot;
use serde_json::{Value, json};

use crate::helpers::{TestDb, data_app, fixture, fixture_bytes, publish_at, publish_fixture};

/// Fixture B with step sources on o3's input cut and limits histories on
/// two models.
fn snapshot_b_with_sources() -> Snapshot {
    let mut b: Value = serde_json::from_slice(&fixture_bytes("snapshot-b.json")).expect("JSON");
    for series in b["prices"].as_array_mut().expect("prices") {
        let key = (
            series["model"].as_str(),
            series["channel"].as_str(),
            series["component"].as_str(),
            series["tier"].as_str(),
        );
        let sources = match key {
            (Some("openai:o3"), Some("official"), Some("input"), Some("standard")) => {
                json!(["genai-prices 0.2.3", "litellm 1.73.6", "litellm 1.74.12"])
            }
            (Some("openai:o3"), Some("azure"), Some("input"), Some("standard")) => {
                json!(["litellm 1.73.6", "litellm 1.74.12"])
            }
            _ => continue,
        };
        let steps = series["history"].as_array_mut().expect("history");
        let cut = steps
            .iter_mut()
            .find(|s| s["price"] == "2")
            .expect("the step to 2");
        cut["sources"] = sources;
    }
    for model in b["models"].as_array_mut().expect("models") {
        let limits = match model["id"].as_str() {
            Some("amazon:nova-pro") => json!([
                {"from": "2024-12-03", "context_window": 300000, "max_output_tokens": 4096,
                 "sources": ["litellm 1.56.5", "litellm 1.71.3"]},
                {"from": "2025-06-28", "context_window": 300000, "max_output_tokens": 10000,
                 "sources": ["litellm 1.109.1", "litellm 1.73.6"]}
            ]),
            Some("anthropic:claude-sonnet-4-5") => json!([
                {"from": "2025-09-29", "context_window": 200000, "max_output_tokens": 64000,
                 "sources": ["litellm 1.79.0"]},
                {"from": "2026-09-26", "context_window": 1000000, "max_output_tokens": 64000,
                 "sources": ["litellm 1.104.5", "litellm 1.106.1"]},
                {"from": "2026-11-12", "context_window": 200000, "max_output_tokens": 64000,
                 "sources": ["litellm 1.109.1"]}
            ]),
            _ => continue,
        };
        model["limits"] = limits;
    }
    Snapshot::from_bytes(&serde_json::to_vec(&b).expect("bytes")).expect("parses")
}

/// The first column of each row of a query, as text.
async fn texts(db: &TestDb, sql: &str) -> Vec<String> {
    db.client()
        .await
        .query(sql, &[])
        .await
        .expect(sql)
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// The published limit changes, each as a JSON array of `columns`, in order
/// of model, day and limit.
async fn limit_changes(db: &TestDb, columns: &str) -> Vec<Value> {
    db.client()
        .await
        .query(
            &format!(
                "select jsonb_build_array({columns}) from pricing.events
                 where event_type = 'limit_change'
                 order by model_id, effective_date, detail ->> 'limit'"
            ),
            &[],
        )
        .await
        .expect("limit changes")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

#[tokio::test]
async fn step_sources_reach_the_event_detail_and_weigh_into_significance() {
    let db = TestDb::new().await;
    let snapshot = snapshot_b_with_sources();
    publish_at(&db, &snapshot, snapshot.generated_at).await;
    let app = data_app(&db).await;

    let history = app
        .call("/api/v1/models/openai:o3/history?component=input&since=2025-01-01&until=2025-12-31")
        .await
        .expect(200)
        .json();
    let items = history["data"]["items"].as_array().expect("items");
    let cut = |channel: &str| {
        items
            .iter()
            .find(|e| e["channel"] == channel && e["tier"] == "standard")
            .unwrap_or_else(|| panic!("the {channel} input cut in {history}"))
            .clone()
    };
    let (official, azure) = (cut("official"), cut("azure"));
    assert_eq!(official["effective_date"], "2025-06-10");
    assert_eq!(
        official["detail"]["sources"],
        json!(["genai-prices 0.2.3", "litellm 1.73.6", "litellm 1.74.12"])
    );
    assert_eq!(official["detail"]["corroboration"], 2);
    assert_eq!(azure["effective_date"], "2025-06-21");
    assert_eq!(azure["detail"]["corroboration"], 1);
    // The same 10 -> 2 cut of the same model: one source on a reseller scores
    // below two on the maker's own API, by the documented weights.
    let (o, a) = (
        official["significance"].as_i64().expect("score"),
        azure["significance"].as_i64().expect("score"),
    );
    assert!(o > a, "official {o}, azure {a}");

    // A step the snapshot gives no sources for has none: unknown, not invented.
    let output = app
        .call("/api/v1/models/openai:o3/history?component=output&channel=official&since=2025-01-01&until=2025-12-31")
        .await
        .expect(200)
        .json();
    let out_cut = &output["data"]["items"][0];
    assert_eq!(out_cut["effective_date"], "2025-06-10");
    assert!(out_cut["detail"]["sources"].is_null(), "{out_cut}");
    assert!(out_cut["detail"]["corroboration"].is_null(), "{out_cut}");
}

#[tokio::test]
async fn a_limits_history_emits_limit_changes_at_their_dates_once() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let snapshot = snapshot_b_with_sources();
    publish_at(&db, &snapshot, snapshot.generated_at).await;

    let events = limit_changes(
        &db,
        "model_id, effective_date, detail -> 'limit', old_value, new_value,
         detail -> 'sources', detail -> 'corroboration', detail -> 'date_basis'",
    )
    .await;
    let expected = vec![
        json!([
            "amazon:nova-pro",
            "2025-06-28",
            "max_output_tokens",
            "4096",
            "10000",
            ["litellm 1.109.1", "litellm 1.73.6"],
            1,
            "limits_history"
        ]),
        json!([
            "anthropic:claude-sonnet-4-5",
            "2026-09-26",
            "context_window",
            "200000",
            "1000000",
            ["litellm 1.104.5", "litellm 1.106.1"],
            1,
            "limits_history"
        ]),
        json!([
            "anthropic:claude-sonnet-4-5",
            "2026-11-12",
            "context_window",
            "1000000",
            "200000",
            ["litellm 1.109.1"],
            1,
            "limits_history"
        ]),
        // No limits history for sonar: its change between the publishes is
        // seen on the publish day, as before.
        json!([
            "perplexity:sonar",
            "2026-11-12",
            "max_output_tokens",
            "4096",
            "128000",
            null,
            null,
            "publish"
        ]),
    ];
    assert_eq!(events, expected);

    // Publishing the same snapshot again emits nothing new.
    let report = publish_at(
        &db,
        &snapshot,
        snapshot.generated_at + Duration::from_secs(3600),
    )
    .await;
    assert_eq!(report.summary["events"], json!({}), "{}", report.summary);
}

#[tokio::test]
async fn sources_that_name_no_source_of_the_snapshot_are_bad_rows() {
    let mut b: Value = serde_json::from_slice(&fixture_bytes("snapshot-b.json")).expect("JSON");
    b["prices"][0]["history"][0]["sources"] = json!(["nowhere 1.0"]);
    b["prices"][1]["history"][0]["sources"] = json!([]);
    let model = b["models"][0]["id"].as_str().expect("id").to_owned();
    b["models"][0]["limits"] = json!([
        {"from": "2025-01-02", "context_window": 1000, "max_output_tokens": null,
         "sources": ["litellm 1.56.5"]},
        {"from": "2025-01-01", "context_window": 2000, "max_output_tokens": null,
         "sources": ["litellm 1.59.12", "litellm 1.56.5"]}
    ]);
    let snapshot = Snapshot::from_bytes(&serde_json::to_vec(&b).expect("bytes")).expect("parses");
    let (_, bad) = snapshot.check(Options::default().checks);
    let reasons: Vec<String> = bad
        .iter()
        .map(|r| format!("{}: {}", r.row, r.reason))
        .collect();
    assert_eq!(bad.len(), 3, "{reasons:#?}");
    assert!(
        reasons[0].contains(&format!("models: {model} limits from 2025-01-01"))
            && reasons[0].contains("ascending"),
        "{reasons:#?}"
    );
    assert!(
        reasons[1].starts_with("prices: ") && reasons[1].contains("source `nowhere 1.0`"),
        "{reasons:#?}"
    );
    assert!(
        reasons[2].starts_with("prices: ") && reasons[2].contains("at least one source release"),
        "{reasons:#?}"
    );
}

#[tokio::test]
async fn a_limits_history_does_not_repeat_a_change_already_seen_on_a_publish_day() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    // Fixture B without limits histories, published five days after its
    // date: Claude Sonnet 4.5's context 1000000 -> 200000 is seen then.
    let plain = fixture("snapshot-b.json");
    let seen_on = plain.generated_at + Duration::from_secs(5 * 86400);
    publish_at(&db, &plain, seen_on).await;
    let with_history = snapshot_b_with_sources();
    publish_at(&db, &with_history, seen_on + Duration::from_secs(86400)).await;

    let events = limit_changes(
        &db,
        "model_id, effective_date, old_value, new_value, detail -> 'date_basis'",
    )
    .await;
    // The history adds the changes not seen before (nova-pro's 2025 output
    // limit, Sonnet's 2026-09-26 context rise), not the cut already published.
    let expected = vec![
        json!([
            "amazon:nova-pro",
            "2025-06-28",
            "4096",
            "10000",
            "limits_history"
        ]),
        json!([
            "anthropic:claude-sonnet-4-5",
            "2026-09-26",
            "200000",
            "1000000",
            "limits_history"
        ]),
        json!([
            "anthropic:claude-sonnet-4-5",
            "2026-11-17",
            "1000000",
            "200000",
            "publish"
        ]),
        json!([
            "perplexity:sonar",
            "2026-11-17",
            "4096",
            "128000",
            "publish"
        ]),
    ];
    assert_eq!(events, expected);
}

#[tokio::test]
async fn lifecycle_events_are_dated_by_the_models_dates_and_not_emitted_without_one() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    // Fixture B, with two dates unknown: DeepSeek Chat deprecated without a
    // deprecation date, GPT-4 0613 retired without a retirement date;
    // published a month after its date, so that the publish day is no day of
    // its history.
    let mut b: Value = serde_json::from_slice(&fixture_bytes("snapshot-b.json")).expect("JSON");
    for model in b["models"].as_array_mut().expect("models") {
        match model["id"].as_str() {
            Some("deepseek:deepseek-chat") => model["deprecation_date"] = Value::Null,
            Some("openai:gpt-4-0613") => model["retirement_date"] = Value::Null,
            _ => {}
        }
    }
    let snapshot = Snapshot::from_bytes(&serde_json::to_vec(&b).expect("bytes")).expect("parses");
    let at = snapshot.generated_at + Duration::from_secs(30 * 86400);
    publish_at(&db, &snapshot, at).await;

    let undated = texts(
        &db,
        &format!(
            "select e.event_type || ' ' || e.model_id from pricing.events as e
             where e.effective_date = '{}'
               and e.detail ->> 'date_basis' is distinct from 'publish'
             order by 1",
            at.date()
        ),
    )
    .await;
    assert!(undated.is_empty(), "dated by the publish: {undated:?}");
    let misdated = texts(
        &db,
        "select e.event_type || ' ' || e.model_id || ' ' || e.effective_date
         from pricing.events as e
         join pricing.models as m on m.id = e.model_id
         where case e.event_type
             when 'deprecation' then e.effective_date <> (e.detail ->> 'deprecation_date')::date
             when 'retirement' then e.effective_date <> m.retirement_date
             when 'model_launch' then e.effective_date <> coalesce(m.launch_date,
                 (select min(p.valid_from) from pricing.prices as p where p.model_id = m.id))
             else false end
         order by 1",
    )
    .await;
    assert!(misdated.is_empty(), "{misdated:?}");
    let lifecycle = texts(
        &db,
        "select event_type || ' ' || model_id || ' ' || effective_date from pricing.events
         where event_type in ('deprecation', 'retirement')
           and model_id in ('deepseek:deepseek-chat', 'openai:gpt-4-0613', 'openai:gpt-4.1')
         order by model_id, effective_date",
    )
    .await;
    // GPT-4 0613's deprecation was published with fixture A; nothing for the
    // two unknown dates; GPT-4.1's deprecation at its date.
    assert_eq!(
        lifecycle,
        vec![
            "deprecation openai:gpt-4-0613 2026-08-12",
            "deprecation openai:gpt-4.1 2026-10-15",
        ]
    );
}
