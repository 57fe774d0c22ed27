//! The in-process response cache: hits, invalidation by a publish,
//! compressed variants, 304 and quota accounting on hits.

use std::io::Read as _;
use std::time::Duration;

use serde_json::Value;

use crate::helpers::{AppOptions, TestApp, TestDb, data_app_with, eventually, publish_fixture};

const PATH: &str = "/api/v1/models?limit=3&sort=context_desc";

/// A server with the response cache on, once its publish listener listens.
pub(crate) async fn cached_app(db: &TestDb) -> TestApp {
    let app = data_app_with(
        db,
        AppOptions {
            response_cache: true,
            ..AppOptions::default()
        },
    )
    .await;
    eventually(
        "the publish listener listens",
        Duration::from_secs(10),
        async || (cache_stats(&app).await["enabled"] == true).then_some(()),
    )
    .await;
    app
}

async fn cache_stats(app: &TestApp) -> Value {
    app.call("/healthz").await.expect(200).json()["response_cache"].clone()
}

#[tokio::test]
async fn a_second_identical_get_is_a_hit_and_a_publish_drops_it() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;

    let first = app.call(PATH).await.expect(200);
    assert_eq!(first.header("x-cache"), Some("miss"));
    let second = app.call(PATH).await.expect(200);
    assert_eq!(second.header("x-cache"), Some("hit"));
    assert_eq!(second.text, first.text);
    assert_eq!(second.header("etag"), first.header("etag"));
    assert_eq!(second.header("cache-control"), Some("public, max-age=60"));
    // Parameter order and the API key do not make another entry.
    let key = crate::keys::issue(&db, "free").await;
    let reordered = app
        .call(&format!(
            "/api/v1/models?sort=context_desc&key={key}&limit=3"
        ))
        .await
        .expect(200);
    assert_eq!(reordered.header("x-cache"), Some("hit"));
    assert!(cache_stats(&app).await["hits"].as_u64().unwrap_or(0) >= 2);

    let before = first.json()["as_of"].clone();
    publish_fixture(&db, "snapshot-b.json").await;
    // The notification reaches the listener within moments.
    let now = eventually("publish B is served", Duration::from_secs(5), async || {
        let now = app.call(PATH).await.expect(200);
        (now.json()["as_of"] != before).then_some(now)
    })
    .await;
    assert_ne!(now.header("etag"), first.header("etag"));
    let again = app.call(PATH).await.expect(200);
    assert_eq!(again.header("x-cache"), Some("hit"));
    assert_ne!(again.json()["as_of"], before);
}

#[tokio::test]
async fn hits_answer_304_and_are_counted_against_the_quota() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let key = crate::keys::issue(&db, "free").await;
    let path = format!("{PATH}&key={key}");

    let first = app.call(&path).await.expect(200);
    let etag = first.header("etag").expect("ETag").to_owned();
    let remaining = |r: &crate::helpers::Reply| -> i64 {
        r.header("x-ratelimit-remaining")
            .expect("X-RateLimit-Remaining")
            .parse()
            .expect("a number")
    };
    let hit = app.call(&path).await.expect(200);
    assert_eq!(hit.header("x-cache"), Some("hit"));
    assert_eq!(remaining(&hit), remaining(&first) - 1);

    let not_modified = app
        .call_with(&path, &[("if-none-match", &etag)])
        .await
        .expect(304);
    assert!(not_modified.text.is_empty());
    assert_eq!(not_modified.header("x-cache"), Some("hit"));
    assert_eq!(not_modified.header("etag"), Some(etag.as_str()));
    assert_eq!(remaining(&not_modified), remaining(&hit) - 1);
    // A miss asked with If-None-Match answers 304 too.
    let fresh = app
        .call_with(
            &format!("/api/v1/models?limit=2&key={key}"),
            &[("if-none-match", "*")],
        )
        .await
        .expect(304);
    assert_eq!(fresh.header("x-cache"), Some("miss"));
}

#[tokio::test]
async fn gzip_and_br_are_negotiated_on_misses_and_hits() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let plain = app.call(PATH).await.expect(200).text;

    for round in ["miss-or-hit", "hit"] {
        let res = app
            .http
            .get(app.url(PATH))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), 200, "{round}");
        assert_eq!(res.headers()["content-encoding"], "gzip");
        assert_eq!(res.headers()["vary"], "Accept-Encoding");
        let bytes = res.bytes().await.expect("body");
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .expect("gunzip");
        assert_eq!(text, plain);

        let res = app
            .http
            .get(app.url(PATH))
            .header("accept-encoding", "gzip, deflate, br")
            .send()
            .await
            .expect("request");
        assert_eq!(res.headers()["content-encoding"], "br");
        let bytes = res.bytes().await.expect("body");
        let mut text = String::new();
        brotli::Decompressor::new(&bytes[..], 4096)
            .read_to_string(&mut text)
            .expect("unbrotli");
        assert_eq!(text, plain);
    }
    // A client that accepts neither gets the identity body.
    let res = app
        .http
        .get(app.url(PATH))
        .header("accept-encoding", "br;q=0, identity")
        .send()
        .await
        .expect("request");
    assert!(res.headers().get("content-encoding").is_none());
    assert_eq!(res.text().await.expect("body"), plain);
}

#[tokio::test]
async fn a_lost_listener_connection_turns_the_cache_off_until_it_reconnects() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let first = app.call(PATH).await.expect(200);
    assert_eq!(app.call(PATH).await.header("x-cache"), Some("hit"));
    let generation = cache_stats(&app).await["generation"].as_u64();

    // The listener's connection dies (as in a database restart); a publish
    // lands while it is down, so its notification is never received.
    let killed: i64 = db
        .client()
        .await
        .query_one(
            "select count(pg_terminate_backend(pid)) from pg_stat_activity
             where application_name = 'pricing-listen' and datname = current_database()",
            &[],
        )
        .await
        .expect("terminate the listener")
        .get(0);
    assert_eq!(killed, 1);
    publish_fixture(&db, "snapshot-b.json").await;

    let before = first.json()["as_of"].clone();
    eventually("publish B is served", Duration::from_secs(5), async || {
        (app.call(PATH).await.expect(200).json()["as_of"] != before).then_some(())
    })
    .await;
    // It reconnects by itself, with a new generation, and caches again.
    eventually(
        "the listener reconnects",
        Duration::from_secs(10),
        async || {
            let stats = cache_stats(&app).await;
            (stats["enabled"] == true && stats["generation"].as_u64() > generation).then_some(())
        },
    )
    .await;
    app.call(PATH).await.expect(200);
    let hit = app.call(PATH).await.expect(200);
    assert_eq!(hit.header("x-cache"), Some("hit"));
    assert_ne!(hit.json()["as_of"], before);
}

#[tokio::test]
async fn mcp_tool_results_come_from_the_cache_until_a_publish() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let mcp = pricing::mcp::PricingMcp::new(app.state.clone());
    let args = serde_json::json!({"limit": 3, "sort": "context_desc"});
    let hits = || async { cache_stats(&app).await["hits"].as_u64().unwrap_or(0) };

    let first = mcp
        .run("pricing_list_models", args.clone())
        .await
        .expect("first call");
    let before = hits().await;
    let again = mcp
        .run("pricing_list_models", args.clone())
        .await
        .expect("second call");
    assert_eq!(again, first);
    assert_eq!(hits().await, before + 1, "the second call is a hit");
    // The same data as REST, whichever answered first.
    let rest = app.call(PATH).await.expect(200).json();
    assert_eq!(rest["data"], first["data"]);

    publish_fixture(&db, "snapshot-b.json").await;
    eventually(
        "the publish reaches the MCP results",
        Duration::from_secs(5),
        async || {
            let now = mcp
                .run("pricing_list_models", args.clone())
                .await
                .expect("call");
            (now["as_of"] != first["as_of"]).then_some(())
        },
    )
    .await;
}

#[tokio::test]
async fn feeds_and_the_dump_are_cached_once_whatever_the_host_header_says() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;

    let first = app.call("/dumps/prices.csv").await.expect(200);
    let again = app.call("/dumps/prices.csv").await.expect(200);
    assert_eq!(
        (first.header("x-cache"), again.header("x-cache")),
        (Some("miss"), Some("hit"))
    );
    assert_eq!(again.text, first.text);
    for header in [
        "content-type",
        "content-disposition",
        "etag",
        "cache-control",
    ] {
        assert_eq!(again.header(header), first.header(header), "{header}");
    }

    let feed = "/feeds/changes.json?limit=5";
    let here = app.call(feed).await.expect(200);
    // The feed links to the service's own address, never to the Host a
    // client sends: another Host is the same entry, the same bytes.
    let there = app
        .call_with(feed, &[("host", "prices.example")])
        .await
        .expect(200);
    assert_eq!(there.header("x-cache"), Some("hit"));
    assert_eq!(there.text, here.text);
    assert_eq!(there.header("etag"), here.header("etag"));
    assert!(!there.text.contains("prices.example"));
    assert!(
        here.text
            .contains(&format!("http://{}/api/v1/models/", app.addr))
    );
}

#[tokio::test]
async fn a_flood_of_made_up_hosts_neither_fills_nor_empties_the_cache() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let key = crate::keys::issue(&db, "internal").await;
    let paths = [
        "/dumps/prices.csv",
        "/feeds/changes.xml?limit=3",
        "/feeds/changes.json",
        "/api/v1/models?limit=2",
        "/api/v1/changes?limit=2",
    ];
    for path in paths {
        app.call_with(path, &[("x-api-key", &key)])
            .await
            .expect(200);
    }
    let before = cache_stats(&app).await;
    for i in 0..200 {
        let path = paths[i % paths.len()];
        let host = format!("h{i}-{}.example", i * 7919);
        let reply = app
            .call_with(path, &[("host", &host), ("x-api-key", &key)])
            .await
            .expect(200);
        assert_eq!(
            reply.header("x-cache"),
            Some("hit"),
            "{path} under Host {host}"
        );
        assert!(!reply.text.contains(&host));
    }
    let after = cache_stats(&app).await;
    assert_eq!(after["entries"], before["entries"], "{before} -> {after}");
    assert_eq!(after["bytes"], before["bytes"]);
    assert_eq!(
        after["misses"], before["misses"],
        "no made-up Host made the server compute an answer again"
    );
}

#[tokio::test]
async fn a_feed_not_in_the_cache_is_counted_against_the_callers_plan_a_cached_one_is_free() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    // An anonymous quota of 3 an hour (after the data app raised it), so
    // that the count is plain to see.
    crate::quota::set_plan(&db, "anonymous", Some(3), None).await;

    // The same feed, asked again and again: computed once, then free.
    for _ in 0..10 {
        app.call("/feeds/changes.xml?limit=2").await.expect(200);
    }
    // Feeds the cache does not hold make the database work: each is counted
    // against the anonymous quota, the fourth refused.
    let mut refused = None;
    for n in 3..6 {
        let reply = app.call(&format!("/feeds/changes.json?limit={n}")).await;
        if reply.status == 429 {
            refused = Some(reply);
            break;
        }
        reply.expect(200);
    }
    let refused = refused.expect("variants beyond the quota are refused");
    assert_eq!(refused.error_code(), "RATE_LIMITED");
    assert!(refused.header("retry-after").is_some());
    // A cached answer is still served to the refused client.
    app.call("/feeds/changes.xml?limit=2").await.expect(200);
}

#[tokio::test]
async fn estimates_are_computed_each_time_from_cached_prices() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let estimate = |requests: u32| {
        let app = &app;
        async move {
            let body = serde_json::json!({"requests_per_month": requests, "preset": "chatbot"});
            let res = app
                .http
                .post(app.url("/api/v1/estimate"))
                .json(&body)
                .send()
                .await
                .expect("request");
            assert_eq!(res.status(), 200);
            res.json::<Value>().await.expect("json")
        }
    };
    let first = estimate(1000).await;
    let before = cache_stats(&app).await["hits"].as_u64().unwrap_or(0);
    // Another workload over the same models: the prices come from the cache.
    let second = estimate(2000).await;
    assert_eq!(cache_stats(&app).await["hits"].as_u64(), Some(before + 1));
    assert_eq!(
        second["data"]["estimates"].as_array().map(Vec::len),
        first["data"]["estimates"].as_array().map(Vec::len)
    );
    assert_ne!(
        second["data"], first["data"],
        "computed for its own workload"
    );
    assert_eq!(estimate(1000).await["data"], first["data"]);
}
