//! Free keys on request (POST /api/v1/keys, docs/keys.md, "Keys on request"):
//! a new key works on REST and MCP at once; an address gets five a UTC day,
//! then 429 with `Retry-After`, without touching its anonymous quota, which
//! may be used up; a key never used expires, and its first use lifts that.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{AppOptions, Reply, TestApp, TestDb, data_app, publish_fixture};
use crate::mcp::over_http;

const KEYS: &str = "/api/v1/keys";
const NOWHERE: &str = "/api/v1/nothing";

/// POST /api/v1/keys, checked against the OpenAPI document.
async fn ask(app: &TestApp) -> Reply {
    app.send("POST", KEYS, app.http.post(app.url(KEYS))).await
}

fn number(reply: &Reply, header: &str) -> i64 {
    reply
        .header(header)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{header} missing: {:?}", reply.headers))
}

/// GET `path` with `key`: the status and X-RateLimit-Remaining.
async fn with_key(app: &TestApp, path: &str, key: &str) -> (u16, Option<i64>) {
    let res = app
        .http
        .get(app.url(path))
        .header("X-API-Key", key)
        .send()
        .await
        .expect("request");
    let remaining = res
        .headers()
        .get("x-ratelimit-remaining")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    (res.status().as_u16(), remaining)
}

#[tokio::test]
async fn a_key_issued_on_request_works_on_rest_and_mcp_at_once() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = data_app(&db).await;

    let reply = ask(&app).await.expect(201);
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(
        number(&reply, "x-ratelimit-limit"),
        5,
        "the address's key requests a day"
    );
    assert_eq!(number(&reply, "x-ratelimit-remaining"), 4);
    let body = reply.json();
    let data = &body["data"];
    let key = data["key"].as_str().expect("key").to_owned();
    assert_eq!(pricing::access::keys::lookup_of(&key), Some(&key[8..20]));
    assert_eq!(data["prefix"], key[..20]);
    assert_eq!(data["plan"], "free");
    assert_eq!(data["quota"], 1000);
    assert_eq!(data["window_seconds"], 86400);
    assert_eq!(data["burst_per_second"], 5);
    assert_eq!(body["truncated"], false);
    assert!(body["as_of"].is_string(), "the envelope's as_of: {body}");
    let created = time::OffsetDateTime::parse(
        data["created_at"].as_str().expect("created_at"),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("created_at");
    let unused = time::OffsetDateTime::parse(
        data["unused_expires_at"]
            .as_str()
            .expect("unused_expires_at"),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("unused_expires_at");
    let ttl = unused - created;
    assert!(
        ttl > time::Duration::days(7) - time::Duration::minutes(1)
            && ttl <= time::Duration::days(7) + time::Duration::seconds(1),
        "unused for 7 days, it expires: {ttl}"
    );

    // REST at once: counted on the free plan, the key's own budget.
    let rest = app
        .send(
            "GET",
            "/api/v1/models",
            app.http
                .get(app.url("/api/v1/models?limit=1"))
                .header("X-API-Key", &key),
        )
        .await
        .expect(200);
    assert_eq!(number(&rest, "x-ratelimit-limit"), 1000);
    assert_eq!(number(&rest, "x-ratelimit-remaining"), 999);

    // MCP at once, with the same key: the tool call draws on the key's budget.
    let calls = json!([{"tool": "pricing_list_models", "arguments": {"limit": 1}}]);
    let out = over_http(&app, &[&format!("X-API-Key={key}")], &calls).await;
    assert_eq!(
        out["results"][0]["is_error"], false,
        "{}",
        out["results"][0]
    );
    assert_eq!(
        with_key(&app, NOWHERE, &key).await,
        (404, Some(997)),
        "one REST request, one MCP call, this one"
    );
}

#[tokio::test]
async fn an_address_gets_five_keys_a_day_then_429_with_retry_after_until_the_next_day() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    // The anonymous hour as it is, without its burst limit: the GETs below
    // come closer than 2 a second.
    db.client()
        .await
        .execute(
            "update pricing.plans set burst_per_second = null where name = 'anonymous'",
            &[],
        )
        .await
        .expect("plan");
    let app = TestApp::spawn(&db.config).await;
    let anonymous_left = || async {
        app.get(NOWHERE)
            .await
            .headers()
            .get("x-ratelimit-remaining")
            .and_then(|v| v.to_str().ok()?.parse::<i64>().ok())
            .expect("anonymous X-RateLimit-Remaining")
    };
    let mut keys = Vec::new();
    let mut before = None;
    for left in (0..5).rev() {
        let reply = ask(&app).await.expect(201);
        assert_eq!(number(&reply, "x-ratelimit-remaining"), left);
        keys.push(
            reply.json()["data"]["key"]
                .as_str()
                .expect("key")
                .to_owned(),
        );
        if before.is_none() {
            before = Some(anonymous_left().await);
        }
    }
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 5, "five different keys");

    let refused = ask(&app).await.expect(429);
    assert_eq!(refused.error_code(), "RATE_LIMITED");
    assert_eq!(number(&refused, "x-ratelimit-limit"), 5);
    assert_eq!(number(&refused, "x-ratelimit-remaining"), 0);
    let reset = number(&refused, "x-ratelimit-reset");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    assert_eq!(reset % 86400, 0, "the window is the UTC day");
    assert!(reset > now && reset <= now + 86400);
    let retry_after = number(&refused, "retry-after");
    assert!(
        (reset - now - retry_after).abs() <= 2,
        "Retry-After {retry_after} s: until the next UTC day ({} s)",
        reset - now
    );
    let message = refused.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("5 free keys today"), "{message}");
    let issued: i64 = db
        .scalar_i64("select count(*) from pricing.api_keys where label = 'issued on request'")
        .await;
    assert_eq!(issued, 5, "the refused request stored no key");

    // The four key requests and the refused one in between did not touch the
    // address's anonymous quota: only this GET did.
    assert_eq!(anonymous_left().await, before.expect("measured") - 1);
}

#[tokio::test]
async fn a_visitor_whose_anonymous_quota_is_used_up_can_still_get_a_key() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    db.client()
        .await
        .execute(
            "update pricing.plans set quota = 2 where name = 'anonymous'",
            &[],
        )
        .await
        .expect("plan");
    let app = TestApp::spawn(&db.config).await;
    for _ in 0..2 {
        assert_eq!(app.get(NOWHERE).await.status(), 404);
    }
    let refused = app.get(NOWHERE).await;
    assert_eq!(refused.status(), 429, "the anonymous quota is used up");

    // Not checked against the served OpenAPI document here: fetching it would
    // be a request of the used-up anonymous quota.
    let res = app.http.post(app.url(KEYS)).send().await.expect("request");
    assert_eq!(res.status(), 201);
    let body: Value = res.json().await.expect("json");
    let key = body["data"]["key"].as_str().expect("key").to_owned();
    assert_eq!(with_key(&app, NOWHERE, &key).await, (404, Some(999)));
    assert_eq!(
        app.get(NOWHERE).await.status(),
        429,
        "still used up without the key"
    );
}

#[tokio::test]
async fn a_key_never_used_expires_and_its_first_use_lifts_that_expiry() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    // Every request asks the database about the key (no 30 s cache).
    let options = AppOptions {
        key_cache_ttl: Some(Duration::ZERO),
        ..AppOptions::default()
    };
    let app = TestApp::spawn_with(&db.config, options).await;
    let unused = ask(&app).await.expect(201).json()["data"]["key"]
        .as_str()
        .expect("key")
        .to_owned();
    let used = ask(&app).await.expect(201).json()["data"]["key"]
        .as_str()
        .expect("key")
        .to_owned();
    assert_eq!(with_key(&app, NOWHERE, &used).await.0, 404, "used once");

    // A week goes by.
    let owner = db.client().await;
    owner
        .execute(
            "update pricing.api_keys set unused_expires_at = now() - interval '1 second'
             where label = 'issued on request'",
            &[],
        )
        .await
        .expect("a week later");
    let res = app
        .http
        .get(app.url(NOWHERE))
        .header("X-API-Key", &unused)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 401, "never used: expired");
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"]["message"], "the API key has expired");
    assert_eq!(
        with_key(&app, NOWHERE, &used).await.0,
        404,
        "used before: still works"
    );

    let rows = owner
        .query(
            "select first_used_at is not null from pricing.api_keys
             where label = 'issued on request' order by id",
            &[],
        )
        .await
        .expect("keys");
    let marked: Vec<bool> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(marked, [false, true], "an expired key is not marked used");

    let listed = pricing::access::keys::list(&owner).await.expect("list");
    let unused_listed = listed
        .iter()
        .find(|k| k.prefix == unused[..20])
        .expect("listed");
    assert!(unused_listed.unused_expires_at.is_some());
    let used_listed = listed
        .iter()
        .find(|k| k.prefix == used[..20])
        .expect("listed");
    assert_eq!(used_listed.unused_expires_at, None, "used: no such expiry");
}

#[tokio::test]
async fn keys_are_not_issued_from_the_command_line_on_the_key_requests_plan() {
    let db = TestDb::new().await;
    let err = pricing::access::keys::issue(&db.client().await, "key_requests", None, None)
        .await
        .expect_err("not a key plan");
    assert!(
        err.to_string()
            .contains("there is no key plan named key_requests"),
        "{err:#}"
    );
}
