//! Lifecycle from the providers' own statements, on the bundled dataset
//! (data/snapshot.json.gz) published as of its own day: no status without a
//! statement, the successor the page names on the card and the events, and a
//! shutdown announced for a later day published ahead.

use serde_json::Value;

use crate::helpers::{TestDb, data_app, items, publish_bundled};

const OPENAI_PAGE: &str = "https://developers.openai.com/api/docs/deprecations";

#[tokio::test]
async fn no_model_is_deprecated_or_retired_without_a_providers_statement() {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    // every deprecated or retired model rests on exactly one statement, and its
    // dates and successor are that statement's (or, for a model its maker does
    // not deprecate, the channels' own)
    let bare = db
        .scalar_i64(
            "select count(*) from pricing.models as m
             where m.status <> 'active'
               and (select count(*) from pricing.lifecycle_statements as l
                    where l.model_id = m.id and l.decides) <> 1",
        )
        .await;
    assert_eq!(bare, 0, "deprecated or retired models without a statement");
    let undated = db
        .scalar_i64(
            "select count(*) from pricing.models as m
             where (m.deprecation_date is not null and not exists (
                        select from pricing.lifecycle_statements as l
                        where l.model_id = m.id and l.announced = m.deprecation_date))
                or (m.retirement_date is not null and not exists (
                        select from pricing.lifecycle_statements as l
                        where l.model_id = m.id and l.shutdown = m.retirement_date))
                or (m.successor is not null and not exists (
                        select from pricing.lifecycle_statements as l
                        where l.model_id = m.id and l.successor = m.successor))",
        )
        .await;
    assert_eq!(
        undated, 0,
        "lifecycle dates or successors no statement gives"
    );
    let statuses = db
        .scalar_i64("select count(*) from pricing.models where status <> 'active'")
        .await;
    assert!(statuses >= 100, "deprecated and retired models: {statuses}");

    // through the API: each deprecated model of the first page names its page
    let app = data_app(&db).await;
    let body = app
        .call("/api/v1/models?status=deprecated&limit=50")
        .await
        .expect(200)
        .json();
    let listed = items(&body);
    assert!(!listed.is_empty());
    for item in listed {
        let id = item["id"].as_str().expect("id");
        let card = app
            .call(&format!("/api/v1/models/{}", crate::helpers::enc(id)))
            .await
            .expect(200)
            .json();
        let source = &card["data"]["status_source"];
        assert!(
            source["url"]
                .as_str()
                .is_some_and(|u| u.starts_with("https://"))
                && source["source"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("provider ")),
            "{id}: status_source {source}"
        );
    }
}

#[tokio::test]
async fn a_shutdown_announced_for_a_later_day_is_published_ahead_with_its_successor() {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let app = data_app(&db).await;
    // OpenAI's notice of 2026-06-11: gpt-5-2025-08-07 removed from the API on
    // 2026-12-11, recommended replacement gpt-5.6-sol; the data is of 2026-11-12
    let body = app
        .call("/api/v1/changes?event_type=retirement&provider=openai&since=2026-11-13&until=2027-03-01&limit=100")
        .await
        .expect(200)
        .json();
    let gpt5: Vec<Value> = items(&body)
        .into_iter()
        .filter(|e| e["model_id"] == "openai:gpt-5")
        .collect();
    assert_eq!(gpt5.len(), 1, "{body}");
    let e = &gpt5[0];
    assert_eq!(e["effective_date"], "2026-12-11");
    assert_eq!(e["channel"], "official");
    assert_eq!(e["detail"]["successor"], "openai:gpt-5.6-sol");
    assert!(e["detail"]["successor_name"].as_str().is_some());
    assert_eq!(e["detail"]["announced"], "2026-06-11");
    assert_eq!(e["detail"]["url"], OPENAI_PAGE);
    assert!(
        e["published_at"].as_str().expect("published_at") < "2026-12-11",
        "published ahead of its day: {e}"
    );
    // the feed says it is coming, and names the successor
    let feed = app
        .get("/feeds/changes.json?event_type=retirement&provider=openai&since=2026-11-13&until=2027-03-01")
        .await
        .text()
        .await
        .expect("feed");
    assert!(
        feed.contains("will be retired 2026-12-11; successor openai:gpt-5.6-sol"),
        "{feed}"
    );
}

#[tokio::test]
async fn the_card_names_the_successor_and_each_channels_statement() {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let app = data_app(&db).await;
    // o4-mini: OpenAI's notice of 2026-04-22, shutdown 2026-10-23, substitute
    // gpt-5.6-terra; Azure sells it on its own schedule
    let card = app
        .call("/api/v1/models/openai:o4-mini?include=deprecation")
        .await
        .expect(200)
        .json();
    let d = &card["data"];
    assert_eq!(d["status"], "deprecated");
    assert_eq!(d["deprecation_date"], "2026-04-22");
    assert_eq!(d["retirement_date"], "2026-10-23");
    assert_eq!(d["successor"], "openai:gpt-5.6-terra");
    assert_eq!(d["status_source"]["channel"], "official");
    assert_eq!(d["status_source"]["url"], OPENAI_PAGE);
    let events = d["deprecation"]["events"].as_array().expect("events");
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|e| {
            (
                e["event_type"].as_str().unwrap_or_default(),
                e["effective_date"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    // Azure's own retirement schedule ends its channel on 2026-11-19
    // (tools/dataset/notices/azure.json), after the data's day: published ahead
    assert_eq!(
        kinds,
        [
            ("retirement", "2026-11-19"),
            ("retirement", "2026-10-23"),
            ("deprecation", "2026-04-22")
        ]
    );
    assert!(
        events
            .iter()
            .all(|e| e["detail"]["successor"] == "openai:gpt-5.6-terra")
    );

    // Claude 3.5 Haiku: Anthropic retired it on 2026-02-19 (replacement Claude
    // Haiku 4.5); Amazon Bedrock's model card ends Bedrock on 2026-06-19, an
    // event naming the channel (OpenRouter's listing, still confirmed on
    // 2026-11-09, keeps the model deprecated rather than retired)
    let card = app
        .call("/api/v1/models/anthropic:claude-3-5-haiku-20241022?include=deprecation")
        .await
        .expect(200)
        .json();
    let d = &card["data"];
    assert_eq!(d["retirement_date"], "2026-02-19");
    assert_eq!(d["successor"], "anthropic:claude-haiku-4-5");
    let bedrock: Vec<&Value> = d["lifecycle"]
        .as_array()
        .expect("lifecycle")
        .iter()
        .filter(|st| st["channel"] == "aws_bedrock")
        .collect();
    assert_eq!(bedrock.len(), 1);
    assert_eq!(bedrock[0]["shutdown"], "2026-06-19");
    assert_eq!(bedrock[0]["decides"], false);
    assert!(
        d["deprecation"]["events"]
            .as_array()
            .expect("events")
            .iter()
            .any(|e| e["event_type"] == "retirement"
                && e["channel"] == "aws_bedrock"
                && e["effective_date"] == "2026-06-19")
    );
}

#[tokio::test]
async fn a_model_no_source_lists_any_more_is_stale_not_retired() {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let app = data_app(&db).await;
    // Moonshot's kimi-latest-32k: the release sources stop listing it on
    // 2026-01-28; no page of Moonshot's says it was shut down
    let card = app
        .call("/api/v1/models/moonshotai:kimi-latest-32k")
        .await
        .expect(200)
        .json();
    let d = &card["data"];
    assert_eq!(d["status"], "active");
    assert_eq!(d["status_source"], Value::Null);
    assert_eq!(d["retirement_date"], Value::Null);
    let prices = d["prices"].as_array().expect("prices");
    assert!(!prices.is_empty());
    assert!(prices.iter().all(|p| p["is_stale"] == true), "{prices:?}");
}

#[tokio::test]
async fn a_lifecycle_statement_that_cannot_be_true_is_a_bad_row() {
    use pricing::publish::snapshot::Snapshot;
    use pricing::publish::{self, Options, PublishError};

    let db = TestDb::new().await;
    let mut doc: Value =
        serde_json::from_slice(&crate::helpers::fixture_bytes("snapshot-b.json")).expect("json");
    let models = doc["models"].as_array_mut().expect("models");
    let statement = |channel: &str, shutdown: &str, decides: bool| {
        serde_json::json!({"channel": channel, "announced": "2026-04-22", "shutdown": shutdown,
                           "not_before": null, "successor": null, "source": "provider n",
                           "url": OPENAI_PAGE, "decides": decides})
    };
    // a shutdown before its announcement, a channel outside the nine, two
    // statements the status rests on, a successor the snapshot lacks
    models[0]["lifecycle"] = serde_json::json!([statement("official", "2026-01-01", false)]);
    models[1]["status"] = "active".into();
    models[1]["lifecycle"] = serde_json::json!([statement("replicate", "2026-10-23", false)]);
    models[2]["status"] = "deprecated".into();
    models[2]["lifecycle"] = serde_json::json!([
        statement("official", "2026-10-23", true),
        statement("azure", "2026-10-23", true)
    ]);
    let mut with_successor = statement("official", "2026-10-23", false);
    with_successor["successor"] = "openai:no-such-model".into();
    models[3]["status"] = "active".into();
    models[3]["lifecycle"] = serde_json::json!([with_successor]);
    let snapshot = Snapshot::from_bytes(&serde_json::to_vec(&doc).expect("json")).expect("parses");
    let err = publish::publish(&mut db.client().await, &snapshot, Options::default())
        .await
        .expect_err("bad statements reject the snapshot");
    let PublishError::Rejected(rows) = &err else {
        panic!("{err:#}")
    };
    for reason in [
        "shutdown before the announcement",
        "unknown channel `replicate`",
        "2 statements marked `decides`",
        "successor openai:no-such-model is not in the snapshot",
    ] {
        assert!(
            rows.iter()
                .any(|r| r.reason.contains(reason) && r.row.contains("lifecycle")),
            "no bad row for `{reason}`: {rows:?}"
        );
    }
}
