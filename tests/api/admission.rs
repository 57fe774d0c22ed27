//! Admission in batches across subjects (server/src/access/quota/admission.rs): many
//! anonymous clients sharing calls, exact across server processes; and the
//! control pool that keeps accounting and health apart from data reads.

use std::sync::Arc;

use crate::helpers::{Served, TestApp, TestDb, futures_join, publish_fixture, serve_command};
use crate::keys::issue;
use crate::quota::{set_plan, set_window_past_the_test};

const LIST: &str = "/api/v1/models?limit=5";

async fn serve(db: &TestDb) -> Served {
    Served::start(serve_command(&db.config, &[])).await
}

/// One reply: status, Retry-After, and whether it carried the rate-limit headers.
#[derive(Debug, Clone, Copy)]
struct Seen {
    status: u16,
    retry_after: Option<u32>,
    counted: bool,
}

async fn send(http: &reqwest::Client, url: &str, header: (&str, &str)) -> Seen {
    let res = http
        .get(url)
        .header(header.0, header.1)
        .send()
        .await
        .expect("request");
    let value = |name: &str| res.headers().get(name).and_then(|v| v.to_str().ok());
    Seen {
        status: res.status().as_u16(),
        retry_after: value("retry-after").and_then(|v| v.parse().ok()),
        counted: value("x-ratelimit-remaining").is_some(),
    }
}

fn address(n: usize) -> String {
    format!("10.14.{}.{}", n / 250, n % 250 + 1)
}

#[tokio::test]
async fn two_server_processes_admit_exactly_sixty_per_address_and_a_thousand_per_free_key() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    // The real quotas; the burst is raised so that only the quotas bind here.
    set_plan(&db, "anonymous", Some(60), Some(100_000)).await;
    set_plan(&db, "free", Some(1000), Some(100_000)).await;
    // Exactly 60 (and 1,000) only if the test runs in one window of each.
    set_window_past_the_test(&db, "anonymous").await;
    set_window_past_the_test(&db, "free").await;
    let key = Arc::new(issue(&db, "free").await);
    let servers = Arc::new([serve(&db).await, serve(&db).await]);
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()
        .expect("client");
    // A warm cache, as in production: the data reads are not what is tested.
    for server in servers.iter() {
        server
            .warm_cache(&http, LIST, ("x-forwarded-for", "192.0.2.250"))
            .await;
    }
    let (tasks, addresses, each, key_each) = (64, 200, 61, 20);
    let replies = futures_join((0..tasks).map(|task| {
        let (servers, key, http) = (servers.clone(), key.clone(), http.clone());
        tokio::spawn(async move {
            let mine: Vec<usize> = (task..addresses).step_by(tasks).collect();
            let mut seen = Vec::new();
            for round in 0..each {
                for &n in &mine {
                    let server = &servers[(n + round) % 2];
                    let reply =
                        send(&http, &server.url(LIST), ("x-forwarded-for", &address(n))).await;
                    seen.push((Some(n), reply));
                }
                if round < key_each {
                    let server = &servers[(task + round) % 2];
                    let reply = send(&http, &server.url(LIST), ("x-api-key", &key)).await;
                    seen.push((None, reply));
                }
            }
            seen
        })
    }))
    .await
    .into_iter()
    .flatten()
    .collect::<Vec<_>>();

    let uncounted: Vec<&Seen> = replies
        .iter()
        .filter(|(_, r)| !r.counted)
        .map(|(_, r)| r)
        .collect();
    assert!(
        uncounted.is_empty(),
        "every reply counted; not: {} of {}, first {:?}",
        uncounted.len(),
        replies.len(),
        uncounted.first()
    );
    for n in 0..addresses {
        let mine: Vec<Seen> = replies
            .iter()
            .filter(|(a, _)| *a == Some(n))
            .map(|(_, r)| *r)
            .collect();
        assert_eq!(mine.len(), each);
        assert_eq!(
            mine.iter().filter(|r| r.status == 200).count(),
            60,
            "{}",
            address(n)
        );
        let refused: Vec<&Seen> = mine.iter().filter(|r| r.status == 429).collect();
        assert_eq!(refused.len(), 1, "{}", address(n));
        assert!(refused[0].retry_after.is_some_and(|s| s >= 1));
    }
    let keyed: Vec<Seen> = replies
        .iter()
        .filter(|(a, _)| a.is_none())
        .map(|(_, r)| *r)
        .collect();
    assert_eq!(keyed.len(), tasks * key_each);
    assert_eq!(keyed.iter().filter(|r| r.status == 200).count(), 1000);
    assert_eq!(
        keyed.iter().filter(|r| r.status == 429).count(),
        tasks * key_each - 1000
    );
    let used: Vec<(String, i32)> = db
        .client()
        .await
        .query("select subject, used from pricing.admission_counters", &[])
        .await
        .expect("windows")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    assert_eq!(
        used.len(),
        addresses + 2,
        "200 addresses, the key, the warm-up"
    );
    for (subject, used) in &used {
        let quota = match subject.as_str() {
            "ip:192.0.2.250" => 2,
            s if s.starts_with("key:") => 1000,
            _ => 60,
        };
        assert_eq!(*used, quota, "{subject}");
    }

    // Each address sends one request at a time, so only batching across
    // subjects can make calls fewer than requests.
    let mut calls = 0;
    let mut requests = 0;
    for server in servers.iter() {
        let healthz = server.healthz(&http).await;
        calls += healthz["quota_accounting"]["db_calls"]
            .as_u64()
            .expect("calls");
        requests += healthz["quota_accounting"]["requests"]
            .as_u64()
            .expect("requests");
    }
    assert!(
        requests > 0 && calls * 2 < requests,
        "{calls} calls for {requests} requests"
    );

    // The real burst of 2 a second still holds: of five at once from one
    // address, two are admitted and the rest wait a second.
    set_plan(&db, "anonymous", Some(60), Some(2)).await;
    let burst = futures_join((0..5).map(|i| {
        let (servers, http) = (servers.clone(), http.clone());
        tokio::spawn(async move {
            let url = servers[i % 2].url(LIST);
            send(&http, &url, ("x-forwarded-for", "192.0.2.77")).await
        })
    }))
    .await;
    assert_eq!(
        burst.iter().filter(|r| r.status == 200).count(),
        2,
        "{burst:?}"
    );
    assert!(
        burst
            .iter()
            .filter(|r| r.status == 429)
            .all(|r| r.retry_after == Some(1)),
        "{burst:?}"
    );
}

#[tokio::test]
async fn requests_holding_every_data_connection_leave_health_up_and_a_free_key_counted() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    set_plan(&db, "free", Some(1000), Some(100_000)).await;
    let key = issue(&db, "free").await;
    let mut owner = db.client().await;
    pricing::store::db::migrate(&mut owner)
        .await
        .expect("migrate");
    let data = pricing::store::db::web_pool(&db.config, 2).expect("data pool");
    let control = pricing::store::db::control_pool(&db.config).expect("control pool");
    let state =
        pricing::service::AppState::new(data.clone(), Vec::new()).with_control_pool(control);
    let app = Arc::new(TestApp::spawn_on(state, None).await);
    // Expensive data requests in progress: every data connection taken.
    let held = [
        data.get().await.expect("connection"),
        data.get().await.expect("connection"),
    ];
    let burst: Vec<_> = (0..16)
        .map(|_| {
            let (app, key) = (app.clone(), key.clone());
            tokio::spawn(async move { send(&app.http, &app.url(LIST), ("x-api-key", &key)).await })
        })
        .collect();
    let health = app.get("/api/v1/health").await;
    assert_eq!(health.status(), 200, "health says the database is up");
    let burst = futures_join(burst.into_iter()).await;
    assert!(
        burst.iter().all(|r| r.status == 503 && r.counted),
        "data requests wait for a data connection, then 503, counted: {burst:?}"
    );
    drop(held);
    let after = send(&app.http, &app.url(LIST), ("x-api-key", &key)).await;
    assert_eq!(after.status, 200);
    let used: i32 = db
        .client()
        .await
        .query_one(
            "select used from pricing.admission_counters where subject like 'key:%'",
            &[],
        )
        .await
        .expect("window")
        .get(0);
    assert_eq!(used, 17, "the key was charged for every admitted request");
}
