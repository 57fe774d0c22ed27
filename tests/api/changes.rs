//! GET /api/v1/changes: newest first, each filter with exact counts, cursor
//! walks, the 365-day rule.

use std::collections::BTreeSet;

use crate::helpers::{TestDb, fixture_app, items};

const WINDOW: &str = "since=2025-12-02&until=2026-12-01";

async fn count(db: &TestDb, filter: &str) -> i64 {
    db.scalar_i64(&format!(
        "select count(*) from pricing.events e \
         where e.effective_date between '2025-12-02' and '2026-12-01' {filter}"
    ))
    .await
}

#[tokio::test]
async fn changes_are_newest_first_and_the_walk_visits_each_event_once() {
    let (db, app) = fixture_app().await;
    let base = format!("/api/v1/changes?{WINDOW}&limit=7");
    let mut all = Vec::new();
    let mut url = base.clone();
    loop {
        let body = app.call(&url).await.expect(200).json();
        all.extend(items(&body));
        match body["pagination"]["next_cursor"].as_str() {
            Some(c) => url = format!("{base}&cursor={c}"),
            None => {
                assert_eq!(body["pagination"]["total_count"], all.len());
                break;
            }
        }
    }
    assert_eq!(all.len() as i64, count(&db, "").await);
    let keys: Vec<(String, i64)> = all
        .iter()
        .map(|e| {
            (
                e["effective_date"].as_str().expect("date").to_owned(),
                e["id"].as_i64().expect("id"),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(keys, sorted, "effective_date, id descending");
    let unique: BTreeSet<i64> = keys.iter().map(|k| k.1).collect();
    assert_eq!(unique.len(), keys.len());
    // every event type of the fixture pair is in the feed
    let types: BTreeSet<&str> = all
        .iter()
        .map(|e| e["event_type"].as_str().expect("type"))
        .collect();
    assert_eq!(types.len(), 6, "{types:?}");
}

#[tokio::test]
async fn changes_filter_by_type_provider_and_significance() {
    let (db, app) = fixture_app().await;
    for event_type in [
        "price_change",
        "price_change_scheduled",
        "deprecation",
        "retirement",
        "model_launch",
        "limit_change",
    ] {
        let body = app
            .call(&format!(
                "/api/v1/changes?{WINDOW}&event_type={event_type}&limit=100"
            ))
            .await
            .expect(200)
            .json();
        assert!(items(&body).iter().all(|e| e["event_type"] == event_type));
        assert_eq!(
            body["pagination"]["total_count"],
            count(&db, &format!("and e.event_type = '{event_type}'")).await,
            "{event_type}"
        );
    }
    let body = app
        .call(&format!(
            "/api/v1/changes?{WINDOW}&provider=openai&limit=100"
        ))
        .await
        .expect(200)
        .json();
    assert!(items(&body).iter().all(|e| e["provider"] == "openai"));
    assert_eq!(
        body["pagination"]["total_count"],
        count(&db, "and e.provider = 'openai'").await
    );
    let body = app
        .call(&format!(
            "/api/v1/changes?{WINDOW}&min_significance=70&limit=100"
        ))
        .await
        .expect(200)
        .json();
    assert!(
        items(&body)
            .iter()
            .all(|e| e["significance"].as_i64().expect("score") >= 70)
    );
    assert_eq!(
        body["pagination"]["total_count"],
        count(&db, "and e.significance >= 70").await
    );

    // a scheduled change carries both prices and its future date
    let body = app
        .call(&format!(
            "/api/v1/changes?{WINDOW}&event_type=price_change_scheduled"
        ))
        .await
        .expect(200)
        .json();
    let e = &items(&body)[0];
    assert_eq!(e["model_id"], "google:gemini-4-argon");
    assert_eq!(e["effective_date"], "2026-12-01");
    assert_eq!(e["unit"], "usd_per_1m_tokens");
    assert!(e["old_value"].is_string() && e["new_value"].is_string());
}

#[tokio::test]
async fn the_changes_window_may_span_at_most_365_days() {
    let (_db, app) = fixture_app().await;
    app.call("/api/v1/changes?since=2025-11-30&until=2026-11-30")
        .await
        .expect(200);
    let body = app
        .call("/api/v1/changes?since=2025-11-29&until=2026-11-30")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["code"], "WINDOW_TOO_LARGE");
    let body = app
        .call("/api/v1/changes?since=2026-11-30&until=2026-01-01")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["code"], "INVALID_ARGUMENT");
    // defaults: the last 365 days up to today, with scheduled events included
    let body = app.call("/api/v1/changes").await.expect(200).json();
    let today = time::OffsetDateTime::now_utc().date();
    assert_eq!(body["data"]["until"], today.to_string());
    assert_eq!(
        body["data"]["since"],
        (today - time::Duration::days(365)).to_string()
    );
    assert_eq!(body["data"]["includes_scheduled"], true);
}

#[tokio::test]
async fn changes_reject_bad_filters_by_name() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/changes?provider=antropic")
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "PROVIDER_NOT_FOUND");
    assert_eq!(body["error"]["did_you_mean"][0], "anthropic");
    for (query, parameter) in [
        ("event_type=price_drop", "event_type"),
        ("min_significance=101", "min_significance"),
        ("min_significance=-1", "min_significance"),
        ("limit=0", "limit"),
        ("models=openai:o3", "models"),
    ] {
        let body = app
            .call(&format!("/api/v1/changes?{query}"))
            .await
            .expect(400)
            .json();
        assert_eq!(body["error"]["parameter"], parameter, "{query}");
    }
    app.call("/api/v1/changes?until=tomorrow").await.expect(422);
    let body = app
        .call(&format!("/api/v1/changes?{WINDOW}&limit=2"))
        .await
        .expect(200)
        .json();
    let cursor = body["pagination"]["next_cursor"].as_str().expect("more");
    let reply = app
        .call(&format!(
            "/api/v1/changes?{WINDOW}&limit=2&event_type=price_change&cursor={cursor}"
        ))
        .await
        .expect(400);
    assert_eq!(reply.error_code(), "INVALID_CURSOR");
}
