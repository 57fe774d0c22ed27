//! Quotas and burst limits (spec part 8): headers on every counted response,
//! 429 with Retry-After, health and other paths uncounted, one budget across
//! server processes and across the REST hoop and a direct `admit` (the MCP
//! channel's path), the client address behind a trusted proxy, and failing
//! open without a database.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pricing::access::KeyPolicy;
use pricing::access::quota::{Decision, Subject};
use serde_json::Value;

use crate::helpers::{AppOptions, TestApp, TestDb, eventually, futures_join};
use crate::keys::issue;

/// Units counted in every subject's quota window.
const WINDOWS_USED: &str = "select coalesce(sum(used), 0)::int8 from pricing.admission_counters";

const NOWHERE: &str = "/api/v1/nothing";

/// Sets a plan's limits in this test's own database (None: unlimited).
pub(crate) async fn set_plan(db: &TestDb, plan: &str, quota: Option<i32>, burst: Option<i32>) {
    db.client()
        .await
        .execute(
            "update pricing.plans set quota = $2, burst_per_second = $3 where name = $1",
            &[&plan, &quota, &burst],
        )
        .await
        .expect("set plan");
}

/// Every shard given up to the database for an hour, as after a handover
/// (docs/keys.md, "Another process"): no process claims one, and the
/// database counts every subject, also those of the plans admitted in memory.
pub(crate) async fn shards_counted_by_the_database(db: &TestDb) {
    db.client()
        .await
        .execute(
            "insert into pricing.admission_shards (shard, shared_until)
             select s, now() + interval '1 hour' from generate_series(0, 63) as s
             on conflict (shard) do update set shared_until = excluded.shared_until",
            &[],
        )
        .await
        .expect("shards given to the database");
}

/// Gives `plan` a quota window that cannot end while a test runs: windows
/// are aligned to the Unix epoch, and this one runs from it to 2038-01-19.
/// A test that counts a quota exactly would otherwise see a second window
/// (and a fresh quota) whenever it runs across the top of an hour (or
/// midnight UTC, for a day's window).
pub(crate) async fn set_window_past_the_test(db: &TestDb, plan: &str) {
    db.client()
        .await
        .execute(
            "update pricing.plans set window_seconds = 2147483647 where name = $1",
            &[&plan],
        )
        .await
        .expect("set window");
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    limit: u32,
    remaining: u32,
    reset: i64,
}

fn header<T: std::str::FromStr>(res: &reqwest::Response, name: &str) -> Option<T> {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

fn limits(res: &reqwest::Response) -> Option<Limits> {
    Some(Limits {
        limit: header(res, "x-ratelimit-limit")?,
        remaining: header(res, "x-ratelimit-remaining")?,
        reset: header(res, "x-ratelimit-reset")?,
    })
}

fn has_no_limits(res: &reqwest::Response) -> bool {
    [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "retry-after",
    ]
    .iter()
    .all(|h| res.headers().get(*h).is_none())
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Checks a 429: the error body and Retry-After within `retry_after`.
async fn assert_rate_limited(res: reqwest::Response, retry_after: std::ops::RangeInclusive<i64>) {
    assert_eq!(res.status(), 429);
    let wait: i64 = header(&res, "retry-after").expect("Retry-After on a 429");
    assert!(
        retry_after.contains(&wait),
        "Retry-After {wait} not in {retry_after:?}"
    );
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"]["code"], "RATE_LIMITED");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    assert!(
        body["error"]["next_step"]
            .as_str()
            .is_some_and(|s| s.contains("Retry-After")),
        "{body}"
    );
}

#[tokio::test]
async fn anonymous_requests_count_down_to_429_with_retry_after_until_the_hour_ends() {
    let db = TestDb::new().await;
    set_plan(&db, "anonymous", Some(3), Some(1000)).await;
    let app = TestApp::spawn(&db.config).await;
    let before = unix_now();
    let mut resets = Vec::new();
    for expected in [2, 1, 0] {
        let res = app.get(NOWHERE).await;
        assert_eq!(res.status(), 404, "errors are counted too");
        assert!(res.headers().get("retry-after").is_none());
        let limits = limits(&res).expect("rate-limit headers on a 404");
        assert_eq!((limits.limit, limits.remaining), (3, expected));
        resets.push(limits.reset);
    }
    let reset = resets[0];
    assert!(resets.iter().all(|r| *r == reset));
    assert_eq!(reset % 3600, 0, "fixed windows end on the hour");
    assert!(
        reset > before && reset <= before + 3600,
        "{reset} vs {before}"
    );

    let refused = app.get(NOWHERE).await;
    let after = unix_now();
    assert_eq!(
        limits(&refused),
        Some(Limits {
            limit: 3,
            remaining: 0,
            reset
        })
    );
    assert_rate_limited(refused, (reset - after).max(1)..=(reset - before)).await;
}

#[tokio::test]
async fn a_used_up_quota_is_refused_without_asking_the_database_again() {
    let db = TestDb::new().await;
    set_plan(&db, "anonymous", Some(2), Some(1000)).await;
    let app = TestApp::spawn(&db.config).await;
    let accountant = app.state.access().accountant();
    for _ in 0..3 {
        app.get(NOWHERE).await;
    }
    let calls = accountant.stats().db_calls;
    assert_eq!(calls, 3, "two admitted, one refused by the database");
    for _ in 0..5 {
        let res = app.get(NOWHERE).await;
        assert_eq!(limits(&res).map(|l| (l.limit, l.remaining)), Some((2, 0)));
        assert_rate_limited(res, 1..=3600).await;
    }
    let stats = accountant.stats();
    assert_eq!(
        stats.db_calls, calls,
        "no further call until the window ends"
    );
    assert_eq!(stats.refused_locally, 5);
    let healthz: Value = app.get("/healthz").await.json().await.expect("json");
    assert_eq!(healthz["quota_accounting"]["refused_locally"], 5);
}

#[tokio::test]
async fn a_caller_over_its_burst_rate_is_refused_locally_until_a_token_is_due() {
    let db = TestDb::new().await;
    // One token a second: after a refusal, the next token is up to 1 s away.
    set_plan(&db, "anonymous", Some(1000), Some(1)).await;
    // The database path's refusals (a shard's holder refuses in memory).
    shards_counted_by_the_database(&db).await;
    let app = TestApp::spawn(&db.config).await;
    let accountant = app.state.access().accountant();
    assert_eq!(app.get(NOWHERE).await.status(), 404);
    let refused = app.get(NOWHERE).await;
    assert_rate_limited(refused, 1..=1).await;
    let calls = accountant.stats().db_calls;
    let again = app.get(NOWHERE).await;
    assert_eq!(
        limits(&again).map(|l| l.limit),
        Some(1000),
        "the window is still reported"
    );
    assert_rate_limited(again, 1..=1).await;
    let stats = accountant.stats();
    assert_eq!(stats.db_calls, calls, "refused without a call");
    assert_eq!(stats.refused_locally, 1);
}

#[tokio::test]
async fn the_real_anonymous_plan_admits_sixty_requests_an_hour_and_refuses_the_sixty_first() {
    let db = TestDb::new().await;
    // The real quota (60 an hour); only the burst is raised, so that the test
    // need not pace itself at 2 requests a second.
    set_plan(&db, "anonymous", Some(60), Some(1000)).await;
    let app = TestApp::spawn(&db.config).await;
    for n in 1..=60 {
        let res = app.get(NOWHERE).await;
        assert_eq!(res.status(), 404, "request {n}");
        let limits = limits(&res).expect("headers");
        assert_eq!((limits.limit, limits.remaining), (60, 60 - n));
    }
    assert_rate_limited(app.get(NOWHERE).await, 1..=3600).await;
}

#[tokio::test]
async fn a_free_key_counts_down_its_daily_quota_to_429_apart_from_the_anonymous_budget() {
    let db = TestDb::new().await;
    set_plan(&db, "free", Some(4), Some(1000)).await;
    let key = issue(&db, "free").await;
    let app = TestApp::spawn(&db.config).await;
    let with_key = || {
        app.http
            .get(app.url(NOWHERE))
            .header("X-API-Key", &key)
            .send()
    };
    for expected in [3, 2, 1, 0] {
        let res = with_key().await.expect("request");
        let limits = limits(&res).expect("headers");
        assert_eq!((limits.limit, limits.remaining), (4, expected));
        assert_eq!(limits.reset % 86_400, 0, "daily windows end at 00:00 UTC");
    }
    let refused = with_key().await.expect("request");
    assert_eq!(limits(&refused).map(|l| l.remaining), Some(0));
    assert_rate_limited(refused, 1..=86_400).await;

    let anonymous = app.get(NOWHERE).await;
    assert_eq!(limits(&anonymous).map(|l| l.remaining), Some(59));
}

#[tokio::test]
async fn requests_beyond_the_burst_rate_get_429_with_retry_after_one_second() {
    let db = TestDb::new().await;
    // The real burst (2 a second), with the quota out of the way.
    set_plan(&db, "anonymous", Some(100_000), Some(2)).await;
    let app = Arc::new(TestApp::spawn(&db.config).await);
    let started = Instant::now();
    let responses = futures_join((0..20).map(|_| {
        let app = app.clone();
        tokio::spawn(async move { app.get(NOWHERE).await })
    }))
    .await;
    let elapsed = started.elapsed().as_secs_f64();
    let admitted = responses.iter().filter(|r| r.status() == 404).count();
    // A bucket of 2 that refills at 2 a second.
    let most = 2 + (2.0 * elapsed).floor() as usize;
    assert!(
        (2..=most).contains(&admitted),
        "{admitted} admitted in {elapsed:.2} s"
    );
    let mut refused = responses.into_iter().filter(|r| r.status() == 429);
    let first = refused.next().expect("some requests were refused");
    assert_eq!(
        limits(&first).map(|l| l.limit),
        Some(100_000),
        "a burst refusal still reports the quota"
    );
    assert_rate_limited(first, 1..=1).await;
}

#[tokio::test]
async fn a_free_key_is_held_to_five_requests_a_second() {
    let db = TestDb::new().await;
    let key = issue(&db, "free").await;
    let app = Arc::new(TestApp::spawn(&db.config).await);
    let key = Arc::new(key);
    let started = Instant::now();
    let statuses = futures_join((0..25).map(|_| {
        let (app, key) = (app.clone(), key.clone());
        tokio::spawn(async move {
            let res = app
                .http
                .get(app.url(NOWHERE))
                .header("X-API-Key", key.as_str())
                .send()
                .await
                .expect("request");
            res.status().as_u16()
        })
    }))
    .await;
    let elapsed = started.elapsed().as_secs_f64();
    let admitted = statuses.iter().filter(|s| **s == 404).count();
    let most = 5 + (5.0 * elapsed).floor() as usize;
    assert!(
        (5..=most).contains(&admitted),
        "{admitted} admitted in {elapsed:.2} s: {statuses:?}"
    );
    assert!(statuses.iter().all(|s| *s == 404 || *s == 429));
}

#[tokio::test]
async fn two_servers_on_one_database_admit_exactly_the_free_quota_to_fifty_concurrent_clients() {
    let db = TestDb::new().await;
    // The real daily quota of 1,000; the burst is raised so that only the quota binds.
    set_plan(&db, "free", Some(1000), Some(100_000)).await;
    let key = Arc::new(issue(&db, "free").await);
    let options = AppOptions {
        pool_size: Some(8),
        ..AppOptions::default()
    };
    let apps = Arc::new([
        TestApp::spawn_with(&db.config, options.clone()).await,
        TestApp::spawn_with(&db.config, options).await,
    ]);
    let clients = (0..50).map(|client| {
        let (apps, key) = (apps.clone(), key.clone());
        tokio::spawn(async move {
            let mut statuses = Vec::new();
            for n in 0..24 {
                let app = &apps[(client + n) % 2];
                let res = app
                    .http
                    .get(app.url(NOWHERE))
                    .header("X-API-Key", key.as_str())
                    .send()
                    .await
                    .expect("request");
                statuses.push(res.status().as_u16());
            }
            statuses
        })
    });
    let statuses: Vec<u16> = futures_join(clients).await.into_iter().flatten().collect();
    assert_eq!(statuses.len(), 1200);
    assert_eq!(statuses.iter().filter(|s| **s == 404).count(), 1000);
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 200);
    assert_eq!(db.scalar_i64(WINDOWS_USED).await, 1000);
}

#[tokio::test]
async fn a_busy_key_is_served_from_leases_and_the_units_it_did_not_use_go_back() {
    let db = TestDb::new().await;
    set_plan(&db, "free", Some(1_000_000), None).await;
    let key = Arc::new(issue(&db, "free").await);
    let app = Arc::new(
        TestApp::spawn_with(
            &db.config,
            AppOptions {
                pool_size: Some(8),
                ..AppOptions::default()
            },
        )
        .await,
    );
    let (clients, each) = (16, 100);
    let replies = futures_join((0..clients).map(|_| {
        let (app, key) = (app.clone(), key.clone());
        tokio::spawn(async move {
            let mut replies = Vec::new();
            for _ in 0..each {
                let res = app
                    .http
                    .get(app.url(NOWHERE))
                    .header("X-API-Key", key.as_str())
                    .send()
                    .await
                    .expect("request");
                replies.push((res.status().as_u16(), limits(&res).map(|l| l.remaining)));
            }
            replies
        })
    }))
    .await
    .into_iter()
    .flatten()
    .collect::<Vec<_>>();
    let requests = clients * each;
    assert!(replies.iter().all(|(status, _)| *status == 404));
    let stats = app.state.access().accountant().stats();
    assert!(
        replies.iter().all(|(_, r)| r.is_some()),
        "every request counted: {stats:?}"
    );
    // Every admitted request took its own unit: no remaining count twice, but for units of a
    // lease that expired during the run (a slow machine) and went back: each of those can be
    // granted again, at a count already seen.
    let remaining: std::collections::BTreeSet<u32> =
        replies.iter().filter_map(|(_, r)| *r).collect();
    let released = usize::try_from(stats.released).expect("count");
    assert!(
        remaining.len() + released >= requests,
        "one unit per request: {} distinct counts for {requests} requests; {stats:?}",
        remaining.len()
    );
    assert!(stats.leased > 0, "a busy key gets leases: {stats:?}");
    assert!(
        stats.db_calls * 2 < u64::try_from(requests).expect("count"),
        "leases save calls: {stats:?}"
    );
    // Leases left unused expire and go back: the window counts what was used.
    let requests = i64::try_from(requests).expect("count");
    eventually(
        "unused leased units go back: the window counts the requests",
        std::time::Duration::from_secs(5),
        async || (db.scalar_i64(WINDOWS_USED).await == requests).then_some(()),
    )
    .await;
}

#[tokio::test]
async fn two_servers_on_one_database_share_the_anonymous_quota_under_concurrency() {
    let db = TestDb::new().await;
    set_plan(&db, "anonymous", Some(100), Some(100_000)).await;
    let apps = Arc::new([
        TestApp::spawn(&db.config).await,
        TestApp::spawn(&db.config).await,
    ]);
    let statuses: Vec<u16> = futures_join((0..50).map(|client| {
        let apps = apps.clone();
        tokio::spawn(async move {
            let mut statuses = Vec::new();
            for n in 0..4 {
                let res = apps[(client + n) % 2].get(NOWHERE).await;
                statuses.push(res.status().as_u16());
            }
            statuses
        })
    }))
    .await
    .into_iter()
    .flatten()
    .collect();
    assert_eq!(statuses.iter().filter(|s| **s == 404).count(), 100);
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 100);
}

#[tokio::test]
async fn health_is_never_counted_and_carries_no_rate_limit_headers() {
    let db = TestDb::new().await;
    set_plan(&db, "anonymous", Some(1), Some(1000)).await;
    let app = TestApp::spawn(&db.config).await;
    for path in ["/api/v1/health", "/healthz", "/api/v1/health", "/healthz"] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 200, "{path}");
        assert!(has_no_limits(&res), "{path}");
    }
    let first = app.get(NOWHERE).await;
    assert_eq!(
        limits(&first).map(|l| l.remaining),
        Some(0),
        "the first counted request"
    );
    assert_eq!(app.get(NOWHERE).await.status(), 429);
    let res = app.get("/api/v1/health").await;
    assert_eq!(res.status(), 200, "health answers with the quota used up");
    assert!(has_no_limits(&res));
}

#[tokio::test]
async fn paths_outside_api_v1_are_not_counted_nor_feeds_served_from_the_cache() {
    let db = TestDb::new().await;
    // Published data, so the feeds and the dump answer 200 (a 503 carries Retry-After).
    crate::helpers::publish_fixture(&db, "snapshot-a.json").await;
    set_plan(&db, "anonymous", Some(3), Some(1000)).await;
    let app = TestApp::spawn_with(
        &db.config,
        crate::helpers::AppOptions {
            response_cache: true,
            ..Default::default()
        },
    )
    .await;
    crate::helpers::eventually(
        "the response cache is in use",
        Duration::from_secs(10),
        async || {
            let health: serde_json::Value = app.get("/healthz").await.json().await.ok()?;
            (health["response_cache"]["enabled"] == true).then_some(())
        },
    )
    .await;
    // The feed and the dump are computed once each (counted: 2 of 3), then
    // served from the cache, free; other paths outside /api/v1 are free.
    for path in [
        "/feeds/changes.json",
        "/dumps/prices.csv",
        "/feeds/changes.json",
        "/dumps/prices.csv",
        "/feeds/changes.json",
        "/nothing",
        "/api/v10/x",
    ] {
        let res = app.get(path).await;
        assert!(has_no_limits(&res), "{path}");
    }
    assert_eq!(
        limits(&app.get(NOWHERE).await).map(|l| l.remaining),
        Some(0)
    );
}

#[tokio::test]
async fn the_http_hoop_and_a_direct_admit_draw_from_one_budget() {
    let db = TestDb::new().await;
    set_plan(&db, "anonymous", Some(4), Some(1000)).await;
    let app = TestApp::spawn(&db.config).await;
    let localhost: IpAddr = "127.0.0.1".parse().expect("ip");
    assert_eq!(
        limits(&app.get(NOWHERE).await).map(|l| l.remaining),
        Some(3)
    );

    // As the MCP channel will: through the server's own Access ...
    let mcp = app
        .state
        .access()
        .admit(None, localhost, KeyPolicy::Lenient)
        .await;
    assert_eq!(mcp.decision.window().map(|w| w.remaining), Some(2));
    // ... or straight to the accountant with a subject.
    let direct = app
        .state
        .access()
        .accountant()
        .admit(&Subject::anonymous(localhost))
        .await;
    assert_eq!(direct.window().map(|w| w.remaining), Some(1));

    assert_eq!(
        limits(&app.get(NOWHERE).await).map(|l| l.remaining),
        Some(0)
    );
    let refused = app
        .state
        .access()
        .admit(None, localhost, KeyPolicy::Lenient)
        .await;
    assert!(matches!(refused.decision, Decision::Refused { .. }));
    assert_eq!(app.get(NOWHERE).await.status(), 429);
}

#[tokio::test]
async fn error_responses_under_api_v1_carry_the_rate_limit_headers() {
    let db = TestDb::new().await;
    set_plan(&db, "anonymous", Some(60), Some(1000)).await;
    let app = TestApp::spawn(&db.config).await;
    let not_found = app.get("/api/v1/no/such/path?x=1").await;
    assert_eq!(not_found.status(), 404);
    assert!(limits(&not_found).is_some());
    let posted = app
        .http
        .post(app.url(NOWHERE))
        .send()
        .await
        .expect("request");
    assert!(limits(&posted).is_some(), "{}", posted.status());
    let bad_key = app
        .http
        .get(app.url(NOWHERE))
        .header("X-API-Key", "pr_live_nope")
        .send()
        .await
        .expect("request");
    assert_eq!(bad_key.status(), 401);
    assert!(limits(&bad_key).is_some());
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget() {
    let db = TestDb::new().await;
    set_plan(&db, "anonymous", Some(1), Some(1000)).await;
    let trusted = AppOptions {
        trusted_proxies: vec!["127.0.0.1".parse().expect("cidr")],
        ..AppOptions::default()
    };
    let proxied = TestApp::spawn_with(&db.config, trusted).await;
    let direct = TestApp::spawn(&db.config).await;
    let from = |app: &TestApp, client: &str| {
        app.http
            .get(app.url(NOWHERE))
            .header("X-Forwarded-For", client.to_owned())
            .send()
    };
    let status = |res: reqwest::Response| res.status().as_u16();
    assert_eq!(
        status(from(&proxied, "203.0.113.1").await.expect("req")),
        404
    );
    assert_eq!(
        status(from(&proxied, "203.0.113.2").await.expect("req")),
        404
    );
    assert_eq!(
        status(from(&proxied, "203.0.113.1").await.expect("req")),
        429
    );
    // Not trusted: the header is ignored, both requests are the peer's.
    assert_eq!(
        status(from(&direct, "198.51.100.1").await.expect("req")),
        404
    );
    assert_eq!(
        status(from(&direct, "198.51.100.2").await.expect("req")),
        429
    );
}

#[tokio::test]
async fn without_a_database_requests_go_through_uncounted_rather_than_fail() {
    let db = TestDb::new().await;
    let key = issue(&db, "free").await;
    let mut nowhere = db.config.clone();
    nowhere.port(1);
    let pool = pricing::store::db::web_pool(&nowhere, 2).expect("pool");
    let app = TestApp::spawn_on(pricing::service::AppState::new(pool, Vec::new()), None).await;
    let res = app.get(NOWHERE).await;
    assert_eq!(res.status(), 404, "fail open: no 500, no 429");
    assert!(has_no_limits(&res));
    let res = app
        .http
        .get(app.url(NOWHERE))
        .bearer_auth(&key)
        .send()
        .await
        .expect("request");
    assert_eq!(
        res.status(),
        404,
        "a key that cannot be checked is not refused"
    );
    assert_eq!(app.get("/api/v1/health").await.status(), 503);
}

#[tokio::test]
async fn admit_grants_a_batch_up_to_the_burst_and_gives_back_the_quota_it_refuses() {
    let db = TestDb::new().await;
    let mut client = db.client().await;
    let tx = client.transaction().await.expect("begin");
    tx.execute(
        "update pricing.plans set quota = 100, burst_per_second = 5 where name = 'anonymous'",
        &[],
    )
    .await
    .expect("plan");
    let row = tx
        .query_one(
            "select granted, quota, used, retry_after, refused_by, wait_us
             from api.admit('ip:192.0.2.1', 'anonymous', 8)",
            &[],
        )
        .await
        .expect("admit");
    let answer: (i32, Option<i32>, Option<i32>, Option<i32>, Option<String>) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    assert_eq!(
        answer,
        (5, Some(100), Some(5), Some(1), Some("burst".into()))
    );
    let wait_us: i64 = row.get(5);
    assert!(
        (1..=200_000).contains(&wait_us),
        "one token (200 ms at 5 a second) is due within 200 ms: {wait_us}"
    );
    let used: i32 = tx
        .query_one(
            "select used from pricing.admission_counters where subject = 'ip:192.0.2.1'",
            &[],
        )
        .await
        .expect("window")
        .get(0);
    assert_eq!(used, 5, "the three refused requests used no quota");
    tx.rollback().await.expect("rollback");
}

#[tokio::test]
async fn admit_never_grants_past_the_quota_and_says_when_it_refills() {
    let db = TestDb::new().await;
    let mut client = db.client().await;
    let tx = client.transaction().await.expect("begin");
    tx.execute(
        "update pricing.plans set quota = 10, burst_per_second = null where name = 'free'",
        &[],
    )
    .await
    .expect("plan");
    let admit = "select granted, used, reset_at, retry_after, refused_by,
                        extract(epoch from now())::bigint
                 from api.admit('key:1', 'free', $1)";
    let row = tx.query_one(admit, &[&25_i32]).await.expect("admit");
    let (granted, used, reset, wait, by, now): (i32, i32, i64, i32, String, i64) = (
        row.get(0),
        row.get(1),
        row.get(2),
        row.get(3),
        row.get(4),
        row.get(5),
    );
    assert_eq!((granted, used, by.as_str()), (10, 10, "quota"));
    assert_eq!(reset % 86_400, 0);
    assert!(
        (i64::from(wait) - (reset - now)).abs() <= 1,
        "{wait} vs {}",
        reset - now
    );
    let row = tx.query_one(admit, &[&1_i32]).await.expect("admit");
    assert_eq!(row.get::<_, i32>(0), 0);
    let err = tx
        .query_one("select granted from api.admit('x', 'no-such-plan', 1)", &[])
        .await
        .expect_err("unknown plan");
    assert_eq!(
        err.code(),
        Some(&tokio_postgres::error::SqlState::INVALID_PARAMETER_VALUE)
    );
}

#[tokio::test]
async fn release_gives_back_quota_and_bucket_tokens_but_never_below_zero() {
    let db = TestDb::new().await;
    let mut client = db.client().await;
    let tx = client.transaction().await.expect("begin");
    tx.execute(
        "update pricing.plans set quota = 100, burst_per_second = 10 where name = 'free'",
        &[],
    )
    .await
    .expect("plan");
    let row = tx
        .query_one(
            "select granted, used, reset_at, burst from api.admit('key:7', 'free', 8)",
            &[],
        )
        .await
        .expect("admit");
    let (granted, used, reset, burst): (i32, i32, i64, Option<i32>) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!((granted, used, burst), (8, 8, Some(10)));
    let release = "select api.release('key:7', 'free', $1, $2)";
    let given: i32 = tx
        .query_one(release, &[&reset, &5_i32])
        .await
        .expect("release")
        .get(0);
    assert_eq!(given, 5);
    // The bucket has its 5 tokens back too: 7 more fit (2 left + 5), not 8.
    let row = tx
        .query_one(
            "select granted, used from api.admit('key:7', 'free', 8)",
            &[],
        )
        .await
        .expect("admit");
    assert_eq!((row.get::<_, i32>(0), row.get::<_, i32>(1)), (7, 10));
    let given: i32 = tx
        .query_one(release, &[&reset, &50_i32])
        .await
        .expect("release")
        .get(0);
    assert_eq!(given, 10, "never below zero used");
    let given: i32 = tx
        .query_one(release, &[&(reset - 86_400), &1_i32])
        .await
        .expect("release")
        .get(0);
    assert_eq!(given, 0, "a window that is gone");
}

#[tokio::test]
async fn counters_with_an_ended_window_and_a_full_bucket_are_swept() {
    let db = TestDb::new().await;
    let client = db.client().await;
    // .1: window ended, bucket full long ago (swept); .2: window ended,
    // bucket still drawn; .3: window current, bucket full.
    client
        .batch_execute(
            "insert into pricing.admission_counters
                 (subject, window_end, used, quota, tat_us, burst, asked, last_grant, shard)
             select s, e, 1, 60, (extract(epoch from t) * 1e6)::bigint, 2, 1, 1,
                    get_byte(sha256(convert_to(s, 'UTF8')), 0) % 64
             from (values
                 ('ip:192.0.2.1', now() - interval '1 hour', now() - interval '1 hour'),
                 ('ip:192.0.2.2', now() - interval '1 hour', now() + interval '1 second'),
                 ('ip:192.0.2.3', date_trunc('hour', now()) + interval '1 hour',
                  now() - interval '1 hour')
             ) as v (s, e, t);",
        )
        .await
        .expect("counters");
    let app = TestApp::spawn(&db.config).await;
    let deleted = app
        .state
        .access()
        .accountant()
        .sweep()
        .await
        .expect("sweep");
    assert_eq!(deleted, 1);
    let left: Vec<String> = client
        .query(
            "select subject from pricing.admission_counters order by subject",
            &[],
        )
        .await
        .expect("left")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        left,
        ["ip:192.0.2.2", "ip:192.0.2.3"],
        "the drawn bucket and the current window stay"
    );
}

#[tokio::test]
async fn admit_batch_answers_each_entry_by_its_position_and_refuses_unequal_arrays() {
    let db = TestDb::new().await;
    let mut client = db.client().await;
    let tx = client.transaction().await.expect("begin");
    tx.execute(
        "update pricing.plans set quota = 3, burst_per_second = 100 where name = 'anonymous'",
        &[],
    )
    .await
    .expect("plan");
    let batch = "select ord, granted, used from api.admit_batch($1, $2, $3) order by ord";
    let rows = tx
        .query(
            batch,
            &[
                &vec!["ip:192.0.2.2", "ip:192.0.2.1"],
                &vec!["anonymous", "anonymous"],
                &vec![2_i32, 5],
            ],
        )
        .await
        .expect("admit_batch");
    let answers: Vec<(i32, i32, i32)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(answers, [(1, 2, 2), (2, 3, 3)], "the quota of 3 binds each");
    // A window full, a fresh one, a window with room for one, in one call.
    let rows = tx
        .query(
            batch,
            &[
                &vec!["ip:192.0.2.1", "ip:192.0.2.3", "ip:192.0.2.2"],
                &vec!["anonymous", "anonymous", "anonymous"],
                &vec![1_i32, 1, 1],
            ],
        )
        .await
        .expect("admit_batch");
    let answers: Vec<(i32, i32, i32)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(answers, [(1, 0, 3), (2, 1, 1), (3, 1, 3)]);
    tx.execute("savepoint refusals", &[])
        .await
        .expect("savepoint");
    for (subjects, plans, costs, what) in [
        (vec!["ip:192.0.2.3"], vec![], vec![1_i32], "unequal arrays"),
        (
            vec!["ip:192.0.2.4", "ip:192.0.2.4"],
            vec!["anonymous", "anonymous"],
            vec![1, 1],
            "a subject twice",
        ),
        (
            vec!["ip:192.0.2.4"],
            vec!["anonymous"],
            vec![0],
            "a cost of 0",
        ),
        (
            vec!["ip:192.0.2.4"],
            vec!["no-such-plan"],
            vec![1],
            "no plan",
        ),
    ] {
        let err = tx
            .query(batch, &[&subjects, &plans, &costs])
            .await
            .expect_err(what);
        assert_eq!(
            err.code(),
            Some(&tokio_postgres::error::SqlState::INVALID_PARAMETER_VALUE),
            "{what}"
        );
        tx.execute("rollback to savepoint refusals", &[])
            .await
            .expect("rollback to savepoint");
    }
}
