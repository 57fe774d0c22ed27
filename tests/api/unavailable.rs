//! The data endpoints while the database is down, frozen, or before anything
//! was published: 503 SERVICE_UNAVAILABLE with the error body, never a 500,
//! within the requests' budgets, with a log that stays quiet; and they
//! recover by themselves.

use std::time::{Duration, Instant};

use pricing::access::quota::SHARD_LEASE;

use crate::helpers::{
    AppOptions, Served, TestApp, TestDb, connect, eventually, futures_join, restartable_postgres,
    serve_command,
};

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
    let app = TestApp::spawn_with(
        &config,
        AppOptions {
            trusted_proxies: vec!["127.0.0.1".parse().expect("cidr")],
            ..AppOptions::default()
        },
    )
    .await;
    app.call("/api/v1/models").await.expect(200);

    container.stop().await.expect("stop PostgreSQL");
    // Each from a client of its own (one client asking them all at once
    // is past the anonymous burst, refused by its shard's holder as long as
    // the lease it holds lasts).
    for (n, path) in DATA_PATHS.iter().enumerate() {
        let asked = Instant::now();
        let client = format!("192.0.2.{}", n + 1);
        let reply = app
            .call_with(path, &[("X-Forwarded-For", &client)])
            .await
            .expect(503);
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "{path}: a prompt answer"
        );
        assert_eq!(reply.error_code(), "SERVICE_UNAVAILABLE", "{path}");
        assert!(reply.header("retry-after").is_some(), "{path}");
    }
    // Past the end of the shard leases the process holds (not renewed
    // without the database): a request of those shards is not held waiting
    // for a round that cannot come, but goes ahead uncounted, as on the
    // database path.
    tokio::time::sleep(SHARD_LEASE + Duration::from_millis(300)).await;
    let asked = Instant::now();
    app.call_with("/api/v1/models", &[("X-Forwarded-For", "192.0.2.99")])
        .await
        .expect(503);
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "past the leases: a prompt answer"
    );
    let reply = app
        .post_json_with(
            "/api/v1/estimate",
            r#"{"requests_per_month": 1, "preset": "chatbot"}"#,
            &[("X-Forwarded-For", "192.0.2.100")],
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
            match reply.status {
                200 => Some(()),
                // Polled every 50 ms, an anonymous client is past its plan's
                // burst (2 a second) as soon as requests are counted again
                // (its shard's lease renewed, or the database answering):
                // it waits as the answer tells it, as a client should.
                429 => {
                    let wait: u64 = reply
                        .header("retry-after")
                        .and_then(|v| v.parse().ok())
                        .expect("a 429 names its wait in Retry-After");
                    tokio::time::sleep(Duration::from_secs(wait)).await;
                    None
                }
                status => {
                    assert_eq!(status, 503, "{}", reply.text);
                    None
                }
            }
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

/// A key issued on the database of `config`.
async fn issue_on(config: &tokio_postgres::Config, plan: &str) -> String {
    pricing::access::keys::issue(&connect(config).await, plan, Some("test"), None)
        .await
        .expect("issue a key")
        .key
        .expose()
        .to_owned()
}

/// Log lines of `served` whose message contains `text`.
fn logged(served: &Served, text: &str) -> usize {
    served
        .log_lines()
        .iter()
        .filter(|l| l.contains(text))
        .count()
}

#[tokio::test]
async fn an_outage_under_load_writes_a_few_warnings_not_one_per_request() {
    let (container, config, _) = restartable_postgres().await;
    let served = Served::start(serve_command(&config, &[])).await;
    let http = reqwest::Client::new();
    eventually(
        "the publish listener listens",
        Duration::from_secs(30),
        async || (served.healthz(&http).await["response_cache"]["enabled"] == true).then_some(()),
    )
    .await;
    container.stop().await.expect("stop PostgreSQL");
    // Keys of the right shape the server never saw: each must be checked
    // against the database, and each check fails.
    let requests = (0..300).map(|i| {
        let http = http.clone();
        let url = served.url("/api/v1/models?limit=1");
        tokio::spawn(async move {
            let key = format!("pr_live_{:0>43}", i);
            http.get(url)
                .header("x-api-key", key)
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0)
        })
    });
    let statuses = futures_join(requests).await;
    assert!(statuses.iter().all(|s| *s == 503), "{statuses:?}");
    // The publish listener keeps trying meanwhile.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let key_warnings = logged(&served, "could not check an API key");
    let listener_warnings = logged(&served, "publish listener: connection lost");
    let unavailable = logged(&served, "database unavailable");
    assert!(
        key_warnings <= 1,
        "{key_warnings} key warnings for 300 requests within 10 s"
    );
    assert!(
        listener_warnings <= 1,
        "{listener_warnings} listener warnings in one outage"
    );
    assert!(
        unavailable <= 1,
        "{unavailable} unavailable warnings within 10 s"
    );
    container.start().await.expect("start PostgreSQL again");
}

#[tokio::test]
async fn a_frozen_database_holds_no_request_past_its_budget_or_the_fail_open_bound() {
    let (container, config, _) = restartable_postgres().await;
    let served = Served::start(serve_command(&config, &[])).await;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client");
    let internal = issue_on(&config, "internal").await;
    served
        .warm_cache(&http, "/api/v1/models?limit=2", ("x-api-key", &internal))
        .await;
    // The key is now known to the server (cached for 30 s): no database
    // work to admit it.
    container
        .pause()
        .await
        .expect("freeze PostgreSQL (docker pause)");
    let asked = Instant::now();
    let read = http
        .get(served.url("/api/v1/models/openai:o3"))
        .header("x-api-key", &internal)
        .send()
        .await
        .expect("uncached read");
    let read_took = asked.elapsed();
    assert_eq!(read.status(), 503);
    let body: serde_json::Value = read.json().await.expect("error body");
    assert_eq!(body["error"]["code"], "SERVICE_UNAVAILABLE", "{body}");
    // get_model's budget is 250 ms; the server gives up 250 ms past it.
    assert!(
        read_took < Duration::from_secs(3),
        "the uncached read took {read_took:?}"
    );

    // An anonymous caller waits for admission at most the documented 6 s,
    // then is admitted uncounted and served from the cache; also one that
    // came a second later and queued behind the first one's call.
    let anonymous = |address: &'static str| {
        let (http, url) = (http.clone(), served.url("/api/v1/models?limit=2"));
        tokio::spawn(async move {
            let asked = Instant::now();
            let status = http
                .get(url)
                .header("x-forwarded-for", address)
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0);
            (status, asked.elapsed())
        })
    };
    let first = anonymous("198.51.100.7");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let second = anonymous("198.51.100.8");
    for (status, took) in futures_join([first, second].into_iter()).await {
        assert_eq!(status, 200);
        assert!(
            took < Duration::from_millis(7500),
            "a cached anonymous read took {took:?}"
        );
        println!("frozen database: cached anonymous read 200 in {took:?}");
    }
    println!("frozen database: uncached read 503 in {read_took:?}");
    container.unpause().await.expect("thaw PostgreSQL");
    eventually("reads recover", Duration::from_secs(30), async || {
        let status = http
            .get(served.url("/api/v1/models/openai:o3"))
            .header("x-api-key", &internal)
            .send()
            .await
            .ok()?
            .status();
        (status == 200).then_some(())
    })
    .await;
}
