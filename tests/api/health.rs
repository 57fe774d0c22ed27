//! GET /api/v1/health and GET /healthz, including a database that goes away
//! under a running server and comes back.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{TestApp, TestDb, eventually, publish_fixture, restartable_postgres};

#[tokio::test]
async fn health_reports_ok_with_the_publish_time() {
    let db = TestDb::new().await;
    let app = TestApp::spawn(&db.config).await;
    let body: Value = app.get("/api/v1/health").await.json().await.expect("json");
    assert_eq!(body["status"], "ok");
    assert!(body["as_of"].is_null(), "nothing published yet: {body}");
    let report = publish_fixture(&db, "snapshot-a.json").await;
    let res = app.get("/api/v1/health").await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers().get("x-ratelimit-limit").is_none(),
        "health carries no rate-limit headers"
    );
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["status"], "ok");
    assert_eq!(body["db"], "ok");
    let as_of = body["as_of"].as_str().expect("as_of is a string");
    let parsed = time::OffsetDateTime::parse(as_of, &time::format_description::well_known::Rfc3339)
        .expect("as_of is RFC 3339");
    assert_eq!(
        parsed, report.as_of,
        "as_of is the time of the last publish"
    );
}

#[tokio::test]
async fn healthz_answers_without_the_database() {
    let (container, config, _) = restartable_postgres().await;
    let app = TestApp::spawn(&config).await;
    container.stop().await.expect("stop PostgreSQL");
    // The database is down indeed: what needs it says so.
    assert_eq!(app.get("/api/v1/health").await.status(), 503);
    let res = app.get("/healthz").await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

#[tokio::test]
async fn unknown_paths_get_the_error_body() {
    let db = TestDb::new().await;
    let app = TestApp::spawn(&db.config).await;
    let res = app.get("/api/v1/nothing-here").await;
    assert_eq!(res.status(), 404);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"]["code"], "NOT_FOUND");
    assert!(
        body["error"]["next_step"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
}

#[tokio::test]
async fn health_follows_the_database_down_and_back_up_without_a_restart() {
    let (container, config, published) = restartable_postgres().await;
    let app = TestApp::spawn(&config).await;
    assert_eq!(app.get("/api/v1/health").await.status(), 200);

    container.stop().await.expect("stop PostgreSQL");
    let asked = Instant::now();
    let res = app.get("/api/v1/health").await;
    let took = asked.elapsed();
    assert_eq!(res.status(), 503);
    assert!(took < Duration::from_secs(1), "503 took {took:?}");
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["status"], "unavailable");
    assert_eq!(body["db"], "unreachable");

    container.start().await.expect("start PostgreSQL again");
    let body: Value = eventually("health comes back", Duration::from_secs(60), async || {
        let res = app.get("/api/v1/health").await;
        if res.status() == 200 {
            Some(res.json().await.expect("json"))
        } else {
            None
        }
    })
    .await;
    assert_eq!(body["db"], "ok");
    let as_of = time::OffsetDateTime::parse(
        body["as_of"].as_str().expect("as_of"),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("RFC 3339");
    assert_eq!(as_of, published.as_of, "the publish survived the restart");
}
