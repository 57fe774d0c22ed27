//! The data endpoints while the database is down, or before anything was
//! published: 503 SERVICE_UNAVAILABLE with the error body, never a 500; and
//! they recover by themselves.

use std::time::{Duration, Instant};

use crate::helpers::{TestApp, TestDb, eventually, restartable_postgres};

const DATA_PATHS: &[&str] = &[
    "/api/v1/models",
    "/api/v1/models/openai:o3",
    "/api/v1/models/openai:o3/history",
    "/api/v1/compare?ids=openai:o3,openai:gpt-4o",
    "/api/v1/changes",
    "/feeds/changes.xml",
    "/feeds/changes.json",
    "/dumps/prices.csv",
];

#[tokio::test]
async fn data_endpoints_answer_503_while_the_database_is_down_and_recover() {
    let (container, config, _) = restartable_postgres().await;
    let app = TestApp::spawn(&config).await;
    app.call("/api/v1/models").await.expect(200);

    container.stop().await.expect("stop PostgreSQL");
    for path in DATA_PATHS {
        let asked = Instant::now();
        let reply = app.call(path).await.expect(503);
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "{path}: a prompt answer"
        );
        assert_eq!(reply.error_code(), "SERVICE_UNAVAILABLE", "{path}");
        assert!(reply.header("retry-after").is_some(), "{path}");
    }
    let reply = app
        .post_json(
            "/api/v1/estimate",
            r#"{"requests_per_month": 1, "preset": "chatbot"}"#,
        )
        .await
        .expect(503);
    assert_eq!(reply.error_code(), "SERVICE_UNAVAILABLE");

    container.start().await.expect("start PostgreSQL again");
    eventually(
        "data endpoints recover",
        Duration::from_secs(60),
        async || {
            let reply = app.call("/api/v1/models").await;
            if reply.status == 200 {
                return Some(());
            }
            assert_eq!(reply.status, 503, "{}", reply.text);
            None
        },
    )
    .await;
}

#[tokio::test]
async fn before_the_first_publish_data_endpoints_say_so_with_503() {
    let db = TestDb::new().await;
    let app = crate::helpers::data_app(&db).await;
    for path in DATA_PATHS {
        let reply = app.call(path).await.expect(503);
        let body = reply.json();
        assert_eq!(body["error"]["code"], "SERVICE_UNAVAILABLE", "{path}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("published")),
            "{path}: {body}"
        );
    }
}
