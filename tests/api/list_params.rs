//! List parameters (`ids`, `metrics`, `include`) take comma-separated entries,
//! repeated keys (as generated clients send arrays) or both, with the same
//! answer, ETag and cache entry, the same bounds counted over every entry;
//! any other parameter given twice is still `INVALID_ARGUMENT`.

use crate::cache::cached_app;
use crate::helpers::{TestDb, fixture_app, publish_fixture};

#[tokio::test]
async fn repeated_keys_and_commas_give_the_same_answer_on_compare_include_and_metrics() {
    let (_db, app) = fixture_app().await;
    for (commas, repeated) in [
        (
            "/api/v1/compare?ids=google:gemini-4-argon,openai:o3-2025-04-16,sao10k:l3-8b-lunaris",
            "/api/v1/compare?ids=google:gemini-4-argon&ids=openai:o3-2025-04-16&ids=sao10k:l3-8b-lunaris",
        ),
        (
            "/api/v1/compare?ids=openai:o3,openai:gpt-4o&metrics=price_input,context_window",
            "/api/v1/compare?metrics=price_input&ids=openai:o3&metrics=context_window&ids=openai:gpt-4o",
        ),
        (
            "/api/v1/compare?ids=openai:o3,openai:gpt-4o,google:gemini-4-argon",
            "/api/v1/compare?ids=openai:o3,openai:gpt-4o&ids=google:gemini-4-argon",
        ),
        (
            "/api/v1/models/google:gemini-4-argon?include=pricing,benchmarks,aliases",
            "/api/v1/models/google:gemini-4-argon?include=pricing&include=benchmarks&include=aliases",
        ),
    ] {
        let a = app.call(commas).await.expect(200);
        let b = app.call(repeated).await.expect(200);
        assert_eq!(a.json(), b.json(), "{repeated} answers as {commas}");
        assert_eq!(
            a.header("etag"),
            b.header("etag"),
            "one request, one ETag: {repeated}"
        );
    }
    // The order of repeated keys is the order of the rows.
    let rows = |body: serde_json::Value| -> Vec<String> {
        body["data"]["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r["id"].as_str().expect("id").to_owned())
            .collect()
    };
    let body = app
        .call("/api/v1/compare?ids=openai:gpt-4o&ids=openai:o3")
        .await
        .expect(200)
        .json();
    assert_eq!(rows(body), ["openai:gpt-4o", "openai:o3"]);
    let metrics = app
        .call("/api/v1/compare?ids=openai:o3&ids=openai:gpt-4o&metrics=price_input&metrics=context_window")
        .await
        .expect(200)
        .json();
    assert_eq!(
        metrics["data"]["metrics"],
        serde_json::json!(["price_input", "context_window"])
    );
    assert!(metrics["data"]["rows"][0].get("price_output").is_none());
}

#[tokio::test]
async fn the_bounds_count_every_entry_of_every_key() {
    let (_db, app) = fixture_app().await;
    for (query, parameter, says) in [
        ("ids=openai:o3", "ids", "got 1"),
        (
            "ids=a:1,a:2,a:3&ids=a:4,a:5&ids=a:6",
            "ids",
            "2 to 5 models; got 6",
        ),
        ("ids=openai:o3&ids=openai:o3", "ids", "more than once"),
        ("ids=openai:o3,openai:gpt-4o&ids=", "ids", "empty entry"),
        (
            "ids=openai:o3,openai:gpt-4o&metrics=price_input&metrics=price_input",
            "metrics",
            "more than once",
        ),
        (
            "ids=openai:o3,openai:gpt-4o&metrics=price_input&metrics=speed",
            "metrics",
            "speed",
        ),
        (
            "ids=openai:o3&ids=openai:gpt-4o&benchmark=aggregate&benchmark=arena_overall",
            "benchmark",
            "given more than once",
        ),
    ] {
        let body = app
            .call(&format!("/api/v1/compare?{query}"))
            .await
            .expect(400)
            .json();
        assert_eq!(body["error"]["code"], "INVALID_ARGUMENT", "{query}");
        assert_eq!(body["error"]["parameter"], parameter, "{query}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(says)),
            "{query}: {body}"
        );
    }
    let many: Vec<String> = (0..101).map(|i| format!("include=x{i}")).collect();
    let body = app
        .call(&format!("/api/v1/models/openai:o3?{}", many.join("&")))
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["parameter"], "include");
    let body = app
        .call("/api/v1/models/openai:o3?include=pricing&include=pricing")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["parameter"], "include");
    // Other parameters given twice stay refused, by name.
    for (path, parameter) in [
        ("/api/v1/models?limit=5&limit=6", "limit"),
        ("/api/v1/models?provider=openai&provider=openai", "provider"),
        (
            "/api/v1/models/openai:o3?as_of=2025-01-01&as_of=2025-01-01",
            "as_of",
        ),
        ("/api/v1/changes?cursor=&cursor=", "cursor"),
        (
            "/api/v1/models/openai:o3/history?channel=official&channel=openrouter",
            "channel",
        ),
    ] {
        let body = app.call(path).await.expect(400).json();
        assert_eq!(body["error"]["parameter"], parameter, "{path}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("given more than once")),
            "{path}: {body}"
        );
    }
}

#[tokio::test]
async fn both_forms_share_one_cache_entry_and_the_order_of_keys_is_kept() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let first = app
        .call("/api/v1/compare?ids=openai:o3,openai:gpt-4o")
        .await
        .expect(200);
    assert_eq!(first.header("x-cache"), Some("miss"));
    let again = app
        .call("/api/v1/compare?ids=openai:o3&ids=openai:gpt-4o")
        .await
        .expect(200);
    assert_eq!(again.header("x-cache"), Some("hit"), "the same request");
    assert_eq!(first.text, again.text);
    let reversed = app
        .call("/api/v1/compare?ids=openai:gpt-4o&ids=openai:o3")
        .await
        .expect(200);
    assert_eq!(
        reversed.header("x-cache"),
        Some("miss"),
        "another order is another answer"
    );
    assert_eq!(reversed.json()["data"]["rows"][0]["id"], "openai:gpt-4o");
}
