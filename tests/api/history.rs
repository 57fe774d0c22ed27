//! GET /api/v1/models/{model_id}/history: change events oldest first, the
//! daily series, cursor walks, the 365-day rule, NO_PRICE_DATA.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::helpers::{fixture_app, items};

#[tokio::test]
async fn history_lists_price_changes_oldest_first() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models/openai:o3-2025-04-16/history?channel=official&since=2025-01-01&until=2025-12-31")
        .await
        .expect(200)
        .json();
    assert_eq!(body["data"]["model_id"], "openai:o3", "canonical id");
    assert_eq!(body["data"]["granularity"], "changes");
    let events = items(&body);
    let cut = events
        .iter()
        .find(|e| e["component"] == "input" && e["tier"] == "standard")
        .expect("the June 2025 input cut");
    assert_eq!(cut["effective_date"], "2025-06-10");
    assert_eq!(
        (cut["old_value"].as_str(), cut["new_value"].as_str()),
        (Some("10"), Some("2"))
    );
    assert_eq!(cut["change_pct"], "-80");
    let keys: Vec<(String, i64)> = events
        .iter()
        .map(|e| {
            (
                e["effective_date"].as_str().expect("date").to_owned(),
                e["id"].as_i64().expect("id"),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "oldest first");

    let inputs = app
        .call("/api/v1/models/openai:o3/history?channel=official&component=input&since=2025-01-01&until=2025-12-31")
        .await
        .expect(200)
        .json();
    assert!(items(&inputs).iter().all(|e| e["component"] == "input"));
}

#[tokio::test]
async fn daily_history_gives_the_price_in_effect_each_day() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models/openai:o3/history?granularity=daily&channel=official&component=input&since=2025-06-08&until=2025-06-12")
        .await
        .expect(200)
        .json();
    let standard: Vec<(String, String)> = items(&body)
        .iter()
        .filter(|p| p["tier"] == "standard")
        .map(|p| {
            (
                p["date"].as_str().expect("date").to_owned(),
                p["usd_per_1m"].as_str().expect("price").to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("2025-06-08", "10"),
        ("2025-06-09", "10"),
        ("2025-06-10", "2"),
        ("2025-06-11", "2"),
        ("2025-06-12", "2"),
    ]
    .iter()
    .map(|(d, p)| ((*d).to_owned(), (*p).to_owned()))
    .collect();
    assert_eq!(standard, expected);
}

#[tokio::test]
async fn a_daily_walk_with_cursors_visits_every_point_once() {
    let (_db, app) = fixture_app().await;
    let base = "/api/v1/models/openai:o3/history?granularity=daily&channel=official&since=2025-09-01&until=2025-09-30&limit=17";
    let mut seen = Vec::new();
    let mut url = base.to_owned();
    let mut total = None;
    loop {
        let body = app.call(&url).await.expect(200).json();
        total.get_or_insert(body["pagination"]["total_count"].as_u64().expect("total"));
        for p in items(&body) {
            seen.push(format!(
                "{} {} {} {}",
                p["date"], p["channel"], p["component"], p["tier"]
            ));
        }
        match body["pagination"]["next_cursor"].as_str() {
            Some(c) => url = format!("{base}&cursor={c}"),
            None => break,
        }
    }
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no point twice");
    assert_eq!(Some(seen.len() as u64), total, "total_count is exact");
    // 30 days; standard input, output and cached input all month, flex and priority from 09-23
    assert_eq!(seen.len(), 30 * 3 + 8 * 3 * 2);
}

#[tokio::test]
async fn history_windows_may_span_at_most_365_days() {
    let (_db, app) = fixture_app().await;
    app.call("/api/v1/models/openai:o3/history?since=2025-01-01&until=2026-01-01")
        .await
        .expect(200);
    let body = app
        .call("/api/v1/models/openai:o3/history?since=2025-01-01&until=2026-01-02")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["code"], "WINDOW_TOO_LARGE");
    assert!(
        body["error"]["next_step"]
            .as_str()
            .is_some_and(|s| s.contains("365"))
    );
    // since alone runs to today: a start years back is too wide
    let body = app
        .call("/api/v1/models/openai:o3/history?since=2020-01-01")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["code"], "WINDOW_TOO_LARGE");
    let body = app
        .call("/api/v1/models/openai:o3/history?since=2025-02-01&until=2025-01-01")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["code"], "INVALID_ARGUMENT");
    assert_eq!(body["error"]["parameter"], "since");
}

#[tokio::test]
async fn without_until_the_history_includes_scheduled_changes() {
    let (_db, app) = fixture_app().await;
    let open = app
        .call("/api/v1/models/google:gemini-4-argon/history?channel=official&since=2026-06-01")
        .await
        .expect(200)
        .json();
    assert_eq!(open["data"]["includes_scheduled"], true);
    assert!(items(&open).iter().any(
        |e| e["event_type"] == "price_change_scheduled" && e["effective_date"] == "2026-12-01"
    ));
    let closed = app
        .call("/api/v1/models/google:gemini-4-argon/history?channel=official&since=2026-06-01&until=2026-11-12")
        .await
        .expect(200)
        .json();
    assert!(
        items(&closed)
            .iter()
            .all(|e| e["event_type"] != "price_change_scheduled")
    );
}

#[tokio::test]
async fn a_model_without_rows_on_the_channel_has_no_price_data() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models/openai:o3/history?channel=novita&since=2025-01-01&until=2025-12-31")
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "NO_PRICE_DATA");
    assert!(
        body["error"]["next_step"]
            .as_str()
            .is_some_and(|s| s.contains("official"))
    );
    assert!(
        body["error"]["channels_with_prices"]
            .as_array()
            .is_some_and(|c| c.contains(&Value::from("official")))
    );
    // A window without changes is an empty page, not an error.
    let body = app
        .call("/api/v1/models/openai:o3/history?channel=official&since=2024-01-01&until=2024-12-31")
        .await
        .expect(200)
        .json();
    assert_eq!(body["pagination"]["total_count"], 0);
}

#[tokio::test]
async fn history_of_an_unknown_model_or_with_bad_values_fails_by_name() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models/openai:o4/history")
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "MODEL_NOT_FOUND");
    assert!(
        body["error"]["did_you_mean"]
            .as_array()
            .is_some_and(|d| !d.is_empty())
    );
    for (query, parameter) in [
        ("component=total", "component"),
        ("granularity=hourly", "granularity"),
        ("limit=500", "limit"),
    ] {
        let body = app
            .call(&format!("/api/v1/models/openai:o3/history?{query}"))
            .await
            .expect(400)
            .json();
        assert_eq!(body["error"]["parameter"], parameter, "{query}");
    }
    app.call("/api/v1/models/openai:o3/history?since=2025-13-01")
        .await
        .expect(422);
    // A cursor replayed with another channel
    let body = app
        .call("/api/v1/models/openai:o3/history?granularity=daily&channel=official&since=2025-09-01&until=2025-09-30&limit=5")
        .await
        .expect(200)
        .json();
    let cursor = body["pagination"]["next_cursor"].as_str().expect("more");
    let reply = app
        .call(&format!("/api/v1/models/openai:o3/history?granularity=daily&channel=azure&since=2025-09-01&until=2025-09-30&limit=5&cursor={cursor}"))
        .await
        .expect(400);
    assert_eq!(reply.error_code(), "INVALID_CURSOR");
}
