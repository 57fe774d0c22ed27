//! Watch lists on the bundled dataset (data/snapshot.json.gz, published as of
//! its own day): `model` on /api/v1/changes and both feeds names the models a
//! user depends on, by any id that resolves; a shutdown a provider announced
//! for a later day is there ahead, with its successor.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::helpers::{TestApp, TestDb, data_app, items, publish_bundled};

/// A year in which both watched models had events: o3's launch (2025-04-16)
/// and its price cut (2025-06-10), DeepSeek Chat's repricings (2025-02-08,
/// 2025-09-05, 2025-09-29).
const WINDOW: &str = "since=2025-01-01&until=2025-12-31";

async fn bundled() -> (TestDb, TestApp) {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let app = data_app(&db).await;
    (db, app)
}

/// Every event of `path` (a /changes query), page after page.
async fn walk(app: &TestApp, path: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut url = path.to_owned();
    loop {
        let body = app.call(&url).await.expect(200).json();
        all.extend(items(&body));
        match body["pagination"]["next_cursor"].as_str() {
            Some(cursor) => url = format!("{path}&cursor={cursor}"),
            None => return all,
        }
    }
}

fn ids(events: &[Value]) -> Vec<i64> {
    events
        .iter()
        .map(|e| e["id"].as_i64().expect("id"))
        .collect()
}

#[tokio::test]
async fn a_watch_list_gives_the_events_of_its_models_and_no_other() {
    let (db, app) = bundled().await;
    let watched = ["openai:o3", "deepseek:deepseek-chat"];
    let events = walk(
        &app,
        &format!("/api/v1/changes?model=openai:o3,deepseek:deepseek-chat&{WINDOW}&limit=100"),
    )
    .await;
    let models: BTreeSet<&str> = events
        .iter()
        .map(|e| e["model_id"].as_str().expect("model_id"))
        .collect();
    assert_eq!(
        models,
        watched.into_iter().collect(),
        "both models, only them"
    );
    let expected = db
        .scalar_i64(
            "select count(*) from pricing.events
             where model_id in ('openai:o3', 'deepseek:deepseek-chat')
               and effective_date between '2025-01-01' and '2025-12-31'",
        )
        .await;
    assert_eq!(events.len() as i64, expected);
    let unique: BTreeSet<i64> = ids(&events).into_iter().collect();
    assert_eq!(unique.len(), events.len(), "each event once");

    // o3's own API id and DeepSeek Chat's OpenRouter id name the same models
    let by_alias = walk(
        &app,
        &format!(
            "/api/v1/changes?model=openai:o3-2025-04-16,openrouter:deepseek/deepseek-chat&{WINDOW}&limit=100"
        ),
    )
    .await;
    assert_eq!(ids(&by_alias), ids(&events));

    // the other filters still apply within the list
    let launches = app
        .call(&format!(
            "/api/v1/changes?model=openai:o3,deepseek:deepseek-chat&{WINDOW}&event_type=model_launch"
        ))
        .await
        .expect(200)
        .json();
    let launches = items(&launches);
    assert!(!launches.is_empty());
    assert!(launches.iter().all(|e| e["event_type"] == "model_launch"));
}

#[tokio::test]
async fn a_watch_list_refuses_unknown_repeated_and_too_many_models() {
    let (_db, app) = bundled().await;
    let unknown = app
        .call("/api/v1/changes?model=openai:o3,openai:o33x")
        .await
        .expect(404);
    let error = &unknown.json()["error"];
    assert_eq!(error["code"], "MODEL_NOT_FOUND");
    assert_eq!(error["parameter"], "model");
    assert!(
        error["did_you_mean"]
            .as_array()
            .is_some_and(|s| s.iter().any(|id| id == "openai:o3")),
        "{error}"
    );
    // one model by its id and by its API id
    let twice = app
        .call("/api/v1/changes?model=openai:o3,openai:o3-2025-04-16")
        .await
        .expect(400);
    assert_eq!(twice.error_code(), "INVALID_ARGUMENT");
    let many: Vec<String> = (0..51).map(|i| format!("openai:m{i}")).collect();
    let too_many = app
        .call(&format!("/api/v1/changes?model={}", many.join(",")))
        .await
        .expect(400);
    assert_eq!(too_many.json()["error"]["parameter"], "model");
    let empty = app.call("/api/v1/changes?model=").await.expect(400);
    assert_eq!(empty.error_code(), "INVALID_ARGUMENT");
    // the feeds answer the same errors
    let feed = app.get("/feeds/changes.json?model=openai:o33x").await;
    assert_eq!(feed.status(), 404);
}

#[tokio::test]
async fn the_feeds_take_the_watch_list_and_carry_the_same_events() {
    let (_db, app) = bundled().await;
    let query = format!("model=openai:o3,deepseek:deepseek-chat&{WINDOW}");
    let changes = app
        .call(&format!("/api/v1/changes?{query}&limit=50"))
        .await
        .expect(200)
        .json();
    let expected = ids(&items(&changes));
    assert!(!expected.is_empty());

    let json_feed = app
        .call(&format!("/feeds/changes.json?{query}"))
        .await
        .expect(200)
        .json();
    let from_json: Vec<i64> = json_feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["_pricing"]["id"].as_i64().expect("id"))
        .collect();
    assert_eq!(from_json, expected);

    let xml = app
        .call(&format!("/feeds/changes.xml?{query}"))
        .await
        .expect(200)
        .text;
    let guids: Vec<i64> = xml
        .split("<guid isPermaLink=\"false\">pricing-event-")
        .skip(1)
        .map(|rest| rest.split('<').next().expect("id").parse().expect("id"))
        .collect();
    assert_eq!(guids, expected);
    assert!(xml.contains("/api/v1/models/openai%3Ao3</link>"));
    assert!(!xml.contains("/api/v1/models/openai%3Agpt-5</link>"));
}

#[tokio::test]
async fn an_announced_shutdown_is_in_the_watch_list_ahead_with_its_successor() {
    let (db, app) = bundled().await;
    // OpenAI's deprecations page, notice of 2026-06-11: o3 leaves the API on
    // 2026-12-11, recommended replacement gpt-5.6-sol; the data is of 2026-11-12
    let body = app
        .call("/api/v1/changes?model=openai:o3&event_type=retirement&since=2026-11-13&until=2026-12-31")
        .await
        .expect(200)
        .json();
    // ... and Microsoft's retirement schedule ends o3 on Azure on 2026-11-19
    // (tools/dataset/notices/azure.json), ahead too, newest first
    let events = items(&body);
    assert_eq!(events.len(), 2, "{body}");
    assert_eq!(
        (&events[1]["channel"], &events[1]["effective_date"]),
        (
            &serde_json::json!("azure"),
            &serde_json::json!("2026-11-19")
        )
    );
    let e = &events[0];
    assert_eq!(e["effective_date"], "2026-12-11");
    assert_eq!(e["channel"], "official");
    assert_eq!(e["detail"]["successor"], "openai:gpt-5.6-sol");
    assert_eq!(e["detail"]["announced"], "2026-06-11");
    assert_eq!(body["data"]["until"], "2026-12-31");
    assert!(e["published_at"].as_str().expect("published_at") < "2026-12-11");
    // every shutdown published ahead is one a provider's page still gives
    let unstated = db
        .scalar_i64(
            "select count(*) from pricing.events as e
             where e.event_type = 'retirement'
               and e.effective_date > (select max(as_of) from pricing.publishes)::date
               and not exists (
                   select from pricing.lifecycle_statements as l
                   where l.model_id = e.model_id and l.channel = coalesce(e.channel, 'official')
                     and l.shutdown = e.effective_date)",
        )
        .await;
    assert_eq!(unstated, 0, "retirements ahead without a statement");
    // the deprecation that announced it names the same day
    let deprecation = app
        .call("/api/v1/changes?model=openai:o3&event_type=deprecation&since=2026-06-01&until=2026-06-30")
        .await
        .expect(200)
        .json();
    let d = &items(&deprecation)[0];
    assert_eq!(d["effective_date"], "2026-06-11");
    assert_eq!(d["detail"]["shutdown"], "2026-12-11");

    // a feed reader with this watch list sees it coming
    let xml = app
        .call("/feeds/changes.xml?model=openai:o3&since=2026-11-13&until=2026-12-31")
        .await
        .expect(200)
        .text;
    assert!(
        xml.contains("<title>o3 will be retired 2026-12-11; successor openai:gpt-5.6-sol</title>"),
        "{xml}"
    );
    assert!(xml.contains("<pubDate>Fri, 11 Dec 2026 00:00:00 +0000</pubDate>"));
    let json_feed = app
        .call("/feeds/changes.json?model=openai:o3&since=2026-11-13&until=2026-12-31")
        .await
        .expect(200)
        .json();
    assert_eq!(
        json_feed["items"][0]["date_published"],
        "2026-12-11T00:00:00Z"
    );
}
