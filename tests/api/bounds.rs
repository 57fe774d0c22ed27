//! Bounded cost per request: inputs too long to be real are refused where
//! parameters are parsed, before any database work; a call stuck in the
//! database is cut by its statement budget and fails alone; slow bodies are
//! cut with 408; lists, keys and X-Forwarded-For are read strictly; HEAD,
//! OPTIONS and CORS answer on every read route. (The figures under a burst of
//! such requests come from scripts/bench-bounds.sh, not from timed tests.)

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::helpers::{AppOptions, TestApp, data_app_with, enc, eventually, fixture_app};
use crate::keys::issue;

/// A model id of 30 KB, as a hostile client sends it.
fn long_id() -> String {
    format!("openai:{}", "a".repeat(30_000))
}

/// The error of a refusal that must be short: the code, and no echo of the
/// whole value.
fn assert_short_refusal(path: &str, status: u16, body: &str) {
    assert_eq!(status, 400, "{}: {body}", &path[..path.len().min(80)]);
    let json: Value = serde_json::from_str(body).expect("JSON error");
    assert_eq!(json["error"]["code"], "INVALID_ARGUMENT", "{body}");
    assert!(body.len() < 1_000, "a short body, got {} bytes", body.len());
}

#[tokio::test]
async fn a_30_kb_model_id_is_refused_on_every_path_that_takes_one() {
    let (_db, app) = fixture_app().await;
    let id = long_id();
    let slug = "p".repeat(30_000);
    for path in [
        format!("/api/v1/models/{id}"),
        format!("/api/v1/models/{id}/history"),
        format!("/api/v1/compare?ids=openai:o3,{id}"),
        format!("/api/v1/models?provider={slug}"),
        format!("/api/v1/models?query={slug}"),
        format!("/api/v1/changes?provider={slug}"),
        format!("/api/v1/compare?ids=openai:o3,openai:gpt-4.1&benchmark={slug}"),
        format!("/api/v1/models?cursor={slug}"),
        format!("/api/v1/models?sort={slug}"),
        format!("/api/v1/models?{slug}=1"),
    ] {
        let reply = app.call(&path).await;
        assert_short_refusal(&path, reply.status, &reply.text);
    }
    let reply = app
        .post_json(
            "/api/v1/estimate",
            &json!({"requests_per_month": 1000, "preset": "chatbot", "model_ids": [id]})
                .to_string(),
        )
        .await;
    assert_short_refusal("/api/v1/estimate", reply.status, &reply.text);
    // The longest id accepted is still looked up (and suggested for).
    let reply = app
        .call(&format!("/api/v1/models/openai:{}", "o".repeat(193)))
        .await
        .expect(404);
    assert_eq!(reply.error_code(), "MODEL_NOT_FOUND");
}

#[tokio::test]
async fn a_query_over_64_kib_is_the_http_layers_414_as_the_document_says() {
    let (_db, app) = fixture_app().await;
    // Over the HTTP layer's bound on a request line (docs/api.md, "Limits"):
    // hyper answers before the service sees a request, and the OpenAPI
    // document lists that answer on every operation.
    let head = format!(
        "GET /feeds/changes.json?model={} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        "m".repeat(70_000),
        app.addr
    );
    let answer = raw_exchange(&app, &head, Duration::from_secs(20)).await;
    assert!(
        answer.starts_with("HTTP/1.1 414"),
        "{}",
        &answer[..answer.len().min(200)]
    );
    let doc: serde_json::Value =
        serde_json::from_str(&app.call("/api/v1/openapi.json").await.expect(200).text)
            .expect("the document");
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("operations") {
            assert_eq!(
                operation["responses"]["414"]["$ref"], "#/components/responses/UriTooLong",
                "{method} {path}"
            );
        }
    }
}

#[tokio::test]
async fn messages_quote_a_short_prefix_of_a_bad_value() {
    let (_db, app) = fixture_app().await;
    let bad = format!("cheapest{}", "x".repeat(500));
    let reply = app
        .call(&format!("/api/v1/models?sort={bad}"))
        .await
        .expect(400);
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("cheapestxxx"), "{message}");
    assert!(message.contains("508 characters"), "{message}");
    assert!(message.len() < 300, "{message}");
    let missing = app
        .get(&format!("/api/v1/nothing/{}", "y".repeat(5_000)))
        .await;
    assert_eq!(missing.status(), 404);
    let text = missing.text().await.expect("body");
    assert!(text.len() < 1_000, "{text}");
}

#[tokio::test]
async fn list_parameters_refuse_empty_and_repeated_entries() {
    let (_db, app) = fixture_app().await;
    for path in [
        "/api/v1/compare?ids=openai:o3,,openai:gpt-4.1",
        "/api/v1/compare?ids=openai:o3,openai:gpt-4.1&metrics=price_input,price_input",
        "/api/v1/compare?ids=openai:o3,openai:gpt-4.1&metrics=",
        "/api/v1/models/openai:o3?include=pricing,,aliases",
        "/api/v1/models/openai:o3?include=",
    ] {
        let reply = app.call(path).await.expect(400);
        assert_eq!(reply.error_code(), "INVALID_ARGUMENT", "{path}");
        assert!(
            reply.json()["error"]["parameter"].is_string(),
            "{path}: {}",
            reply.text
        );
    }
    app.call("/api/v1/compare?ids=openai:o3,%20openai:gpt-4.1&metrics=price_input")
        .await
        .expect(200);
}

#[tokio::test]
async fn a_key_is_read_alike_in_the_query_and_the_headers_and_only_once() {
    let (db, app) = fixture_app().await;
    let key = issue(&db, "free").await;
    let padded = app
        .call(&format!(
            "/api/v1/models?limit=1&key={}",
            enc(&format!(" {key} "))
        ))
        .await
        .expect(200);
    assert_eq!(padded.header("x-ratelimit-limit"), Some("1000"));
    let header = app
        .call_with(
            "/api/v1/models?limit=1",
            &[("X-API-Key", &format!(" {key} "))],
        )
        .await
        .expect(200);
    assert_eq!(header.header("x-ratelimit-limit"), Some("1000"));
    let twice = app
        .call(&format!("/api/v1/changes?key={key}&key={key}"))
        .await
        .expect(400);
    assert_eq!(twice.error_code(), "INVALID_ARGUMENT");
    assert_eq!(twice.json()["error"]["parameter"], "key");
}

/// Every GET route, with a query where it needs one.
const READ_ROUTES: &[&str] = &[
    "/healthz",
    "/api/v1/health",
    "/api/v1/openapi.json",
    "/api/v1/models?limit=2",
    "/api/v1/models/openai:o3",
    "/api/v1/models/openai:o3/history",
    "/api/v1/compare?ids=openai:o3,openai:gpt-4.1",
    "/api/v1/changes",
    "/feeds/changes.xml",
    "/feeds/changes.json",
    "/dumps/prices.csv",
];

#[tokio::test]
async fn head_and_options_answer_on_every_read_route_with_cors_headers() {
    let (_db, app) = fixture_app().await;
    for path in READ_ROUTES {
        let get = app.get(path).await;
        assert_eq!(get.status(), 200, "GET {path}");
        assert_eq!(
            get.headers()["access-control-allow-origin"],
            "*",
            "GET {path}"
        );
        let content_type = get.headers()["content-type"].clone();
        let head = app.http.head(app.url(path)).send().await.expect("HEAD");
        assert_eq!(head.status(), 200, "HEAD {path}");
        assert_eq!(head.headers()["content-type"], content_type, "HEAD {path}");
        assert_eq!(head.headers()["access-control-allow-origin"], "*");
        assert!(head.bytes().await.expect("body").is_empty(), "HEAD {path}");

        let preflight = app
            .http
            .request(reqwest::Method::OPTIONS, app.url(path))
            .header("Origin", "https://example.org")
            .header("Access-Control-Request-Method", "GET")
            .header("Access-Control-Request-Headers", "x-api-key")
            .send()
            .await
            .expect("OPTIONS");
        assert_eq!(preflight.status(), 204, "OPTIONS {path}");
        let h = preflight.headers();
        assert_eq!(h["access-control-allow-origin"], "*");
        let methods = h["access-control-allow-methods"].to_str().unwrap_or("");
        assert!(
            methods.contains("GET") && methods.contains("HEAD"),
            "{methods}"
        );
        let allowed = h["access-control-allow-headers"]
            .to_str()
            .unwrap_or("")
            .to_ascii_lowercase();
        assert!(allowed.contains("x-api-key"), "{allowed}");
        assert!(h.contains_key("access-control-max-age"));
    }
    // Errors carry CORS too, and expose the rate-limit headers to scripts.
    let missing = app.get("/api/v1/nothing").await;
    assert_eq!(missing.status(), 404);
    assert_eq!(missing.headers()["access-control-allow-origin"], "*");
    let exposed = missing.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap_or("")
        .to_owned();
    assert!(exposed.contains("X-RateLimit-Remaining"), "{exposed}");
}

#[tokio::test]
async fn preflights_are_not_counted_against_quotas() {
    let (_db, app) = fixture_app().await;
    let remaining = |res: &reqwest::Response| -> u64 {
        res.headers()["x-ratelimit-remaining"]
            .to_str()
            .ok()
            .and_then(|v| v.parse().ok())
            .expect("remaining")
    };
    let before = remaining(&app.get("/api/v1/changes").await);
    for _ in 0..3 {
        let preflight = app
            .http
            .request(reqwest::Method::OPTIONS, app.url("/api/v1/changes"))
            .header("Origin", "https://example.org")
            .header("Access-Control-Request-Method", "GET")
            .send()
            .await
            .expect("OPTIONS");
        assert_eq!(preflight.status(), 204);
        assert!(!preflight.headers().contains_key("x-ratelimit-remaining"));
    }
    let after = remaining(&app.get("/api/v1/changes").await);
    assert_eq!(after, before - 1, "only the two GETs were counted");
}

#[tokio::test]
async fn an_estimate_needs_a_json_content_type() {
    let (_db, app) = fixture_app().await;
    let body = json!({"requests_per_month": 1000, "preset": "chatbot"}).to_string();
    for content_type in [None, Some("text/plain")] {
        let mut request = app
            .http
            .post(app.url("/api/v1/estimate"))
            .body(body.clone());
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        let reply = app.send("POST", "/api/v1/estimate", request).await;
        assert_eq!(reply.status, 422, "{content_type:?}: {}", reply.text);
    }
    app.post_json("/api/v1/estimate", &body).await.expect(200);
}

/// Sends `head` (and whatever follows it) on a raw connection and reads the
/// answer until the server closes it, within `bound`.
async fn raw_exchange(app: &TestApp, head: &str, bound: Duration) -> String {
    let mut stream = tokio::net::TcpStream::connect(app.addr)
        .await
        .expect("connect");
    stream.write_all(head.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(bound, stream.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes within the bound")
        .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_stalled_body_is_cut_with_408_and_the_connection_closed() {
    let (_db, app) = fixture_app().await;
    // Ten of the hundred bytes announced, then nothing.
    let head = format!(
        "POST /api/v1/estimate HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"requests",
        app.addr
    );
    let answer = raw_exchange(&app, &head, Duration::from_secs(20)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("REQUEST_TIMEOUT"), "{answer}");
}

#[tokio::test]
async fn a_malformed_chunked_body_gets_its_own_message() {
    let (_db, app) = fixture_app().await;
    let head = format!(
        "POST /api/v1/estimate HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n",
        app.addr
    );
    let answer = raw_exchange(&app, &head, Duration::from_secs(20)).await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("chunked"), "{answer}");
    assert!(!answer.contains("larger than"), "{answer}");
}

#[tokio::test]
async fn a_forwarded_client_that_is_not_an_address_is_refused_not_pooled_with_the_proxy() {
    let db = crate::helpers::TestDb::new().await;
    crate::helpers::publish_fixture(&db, "snapshot-b.json").await;
    let app = data_app_with(
        &db,
        AppOptions {
            trusted_proxies: vec!["127.0.0.1".parse().expect("cidr")],
            ..AppOptions::default()
        },
    )
    .await;
    let refused = app
        .call_with("/api/v1/changes", &[("X-Forwarded-For", "notanip")])
        .await
        .expect(400);
    assert_eq!(refused.json()["error"]["parameter"], "X-Forwarded-For");
    app.call_with(
        "/api/v1/changes",
        &[("X-Forwarded-For", "203.0.113.7:5555")],
    )
    .await
    .expect(200);
    // The proxy's own budget holds only the test's fetch of openapi.json.
    let windows: Vec<(String, i32)> = db
        .client()
        .await
        .query(
            "select subject, used from pricing.admission_counters where quota is not null order by subject",
            &[],
        )
        .await
        .expect("windows")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        windows,
        vec![
            ("ip:127.0.0.1".to_owned(), 1),
            ("ip:203.0.113.7".to_owned(), 1)
        ]
    );
}

#[tokio::test]
async fn a_call_over_its_statement_budget_fails_alone_and_health_stays_up() {
    let (db, app) = fixture_app().await;
    let mut owner = db.client().await;
    let lock = owner.transaction().await.expect("begin");
    lock.batch_execute("lock table pricing.model_listing in access exclusive mode")
        .await
        .expect("lock the listing");
    let stuck = app.call("/api/v1/models?limit=2").await.expect(503);
    assert_eq!(stuck.error_code(), "SERVICE_UNAVAILABLE");
    assert!(stuck.text.contains("budget of 500 ms"), "{}", stuck.text);
    app.call("/api/v1/health").await.expect(200);
    app.call("/api/v1/changes?limit=2").await.expect(200);
    lock.rollback().await.expect("unlock");
    app.call("/api/v1/models?limit=2").await.expect(200);
}

#[tokio::test]
async fn suggestions_read_only_the_first_64_characters_of_an_unknown_id() {
    let (db, _app) = fixture_app().await;
    let client = db.client().await;
    let prefix = format!("openai:o3{}", "-".repeat(55));
    let row = client
        .query_one(
            "select api._model_suggestions($1) = api._model_suggestions($1 || repeat('z', 100000))",
            &[&prefix],
        )
        .await
        .expect("suggestions");
    assert!(row.get::<_, bool>(0));
}

#[tokio::test]
async fn a_free_key_is_charged_for_every_request_admitted_beside_a_burst_of_long_ids() {
    let (db, app) = fixture_app().await;
    let key = issue(&db, "free").await;
    let app = std::sync::Arc::new(app);
    let id = std::sync::Arc::new(long_id());
    let burst: Vec<_> = (0..50)
        .map(|_| {
            let (app, id) = (app.clone(), id.clone());
            tokio::spawn(async move { app.get(&format!("/api/v1/models/{id}")).await.status() })
        })
        .collect();
    let mut admitted = 0;
    for i in 0..5 {
        let res = app
            .http
            .get(app.url(&format!("/api/v1/models?limit={}", i + 1)))
            .header("X-API-Key", &key)
            .send()
            .await
            .expect("request");
        if res.status() == 200 {
            admitted += 1;
        }
    }
    for handle in burst {
        assert_eq!(handle.await.expect("burst request"), 400);
    }
    assert!(admitted > 0);
    // A free key's admissions may be counted in memory by the process that
    // holds its shard, and written back within a second (docs/keys.md,
    // "Shard leases").
    let used = || async {
        db.client()
            .await
            .query_one(
                "select coalesce(sum(used), 0)::int4 from pricing.admission_counters where subject like 'key:%'",
                &[],
            )
            .await
            .expect("used")
            .get::<_, i32>(0)
    };
    // A free key is counted in memory by its shard's holder: its last
    // admission reaches the database within WRITE_EVERY (10 s).
    eventually(
        "every admitted request charged",
        Duration::from_secs(20),
        async || (used().await == admitted).then_some(()),
    )
    .await;
}

#[tokio::test]
async fn two_host_headers_a_compressed_body_and_a_huge_content_length_are_refused_at_once() {
    let (_db, app) = fixture_app().await;
    let answer = raw_exchange(
        &app,
        "GET /api/v1/models?limit=1 HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\
         Connection: close\r\n\r\n",
        Duration::from_secs(10),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("INVALID_ARGUMENT") && answer.contains("2 Host headers"),
        "{answer}"
    );
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("access-control-allow-origin: *"),
        "{answer}"
    );

    let gzip = app
        .http
        .post(app.url("/api/v1/estimate"))
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .body(vec![0x1f, 0x8b, 0x08, 0x00])
        .send()
        .await
        .expect("post");
    assert_eq!(gzip.status(), 400);
    let body: Value = gzip.json().await.expect("error body");
    assert_eq!(body["error"]["parameter"], "Content-Encoding", "{body}");

    // A body announced at 10^12 bytes is refused before any byte of it is
    // awaited (not after the 5 s body timeout).
    let started = std::time::Instant::now();
    let answer = raw_exchange(
        &app,
        &format!(
            "POST /api/v1/estimate HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: 1000000000000\r\nConnection: close\r\n\r\n{{",
            app.addr
        ),
        Duration::from_secs(10),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("larger than"), "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "refused at once, not after the body timeout: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn forty_unknown_ids_at_once_are_all_404_on_the_full_dataset() {
    let db = crate::helpers::TestDb::new().await;
    crate::helpers::publish_bundled(&db).await;
    let app = data_app_with(
        &db,
        AppOptions {
            pool_size: Some(16),
            ..AppOptions::default()
        },
    )
    .await;
    let key = issue(&db, "internal").await;
    let app = std::sync::Arc::new(app);
    let asks: Vec<_> = (0..40)
        .map(|i| {
            let (app, key) = (app.clone(), key.clone());
            tokio::spawn(async move {
                let path = format!("/api/v1/models/anthropic:claude-opus-{i}x9");
                app.call_with(&path, &[("x-api-key", &key)]).await
            })
        })
        .collect();
    let mut suggested = 0;
    for reply in crate::helpers::futures_join(asks.into_iter()).await {
        assert_eq!(reply.status, 404, "{}", reply.text);
        assert_eq!(reply.error_code(), "MODEL_NOT_FOUND");
        let did_you_mean = reply.json()["error"]["did_you_mean"].clone();
        let names = did_you_mean
            .as_array()
            .expect("did_you_mean, empty at worst");
        suggested += usize::from(!names.is_empty());
    }
    assert!(suggested >= 1, "some of them still get suggestions");
    // One at a time, each gets its suggestions.
    let reply = app
        .call_with(
            "/api/v1/models/anthropic:claude-opus-4x9",
            &[("x-api-key", &key)],
        )
        .await
        .expect(404);
    assert!(
        reply.json()["error"]["did_you_mean"]
            .as_array()
            .is_some_and(|names| names.iter().any(|n| n
                .as_str()
                .is_some_and(|n| n.starts_with("anthropic:claude-opus")))),
        "{}",
        reply.text
    );
}
