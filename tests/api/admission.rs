//! Admission in batches across subjects (server/src/access/quota/admission.rs): many
//! anonymous clients sharing calls, exact across server processes; and the
//! control pool that keeps accounting and health apart from data reads.

use std::sync::Arc;
use std::time::Duration;

use pricing::access::quota::CLAIM_EVERY;

use crate::helpers::{
    Served, TestApp, TestDb, eventually, futures_join, publish_fixture, serve_command,
};
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

/// Shard leases (server/src/access/quota/shards.rs): on a plan admitted in
/// memory (a burst under 10 a second), `quota` an hour-long window.
async fn plan_in_memory(db: &TestDb, quota: i32) {
    set_plan(db, "anonymous", Some(quota), Some(9)).await;
    set_window_past_the_test(db, "anonymous").await;
}

/// Sends `n` requests from each address in `addresses` to `pick(address,
/// round)`, every address in parallel: the statuses per address.
async fn from_each(
    http: &reqwest::Client,
    addresses: std::ops::Range<usize>,
    n: usize,
    pick: impl Fn(usize, usize) -> String + Clone + Send + 'static,
) -> Vec<(usize, Vec<Seen>)> {
    futures_join(addresses.map(|a| {
        let (http, pick) = (http.clone(), pick.clone());
        tokio::spawn(async move {
            let mut seen = Vec::new();
            for round in 0..n {
                seen.push(send(&http, &pick(a, round), ("x-forwarded-for", &address(a))).await);
            }
            (a, seen)
        })
    }))
    .await
}

fn admitted(seen: &[Seen]) -> usize {
    seen.iter().filter(|r| r.status == 200).count()
}

async fn used(db: &TestDb, a: usize) -> Option<i32> {
    db.client()
        .await
        .query_opt(
            "select used from pricing.admission_counters where subject = $1",
            &[&format!("ip:{}", address(a))],
        )
        .await
        .expect("counter")
        .map(|row| row.get(0))
}

/// Waits until the database holds `n` used for each of `addresses`: a
/// holder writes counts back within WRITE_EVERY (10 s).
async fn written_back(db: &TestDb, addresses: std::ops::Range<usize>, n: i32) {
    eventually("counts written back", Duration::from_secs(20), async || {
        for a in addresses.clone() {
            if used(db, a).await != Some(n) {
                return None;
            }
        }
        Some(())
    })
    .await;
}

async fn stats(server: &Served, http: &reqwest::Client) -> serde_json::Value {
    server.healthz(http).await["quota_accounting"].clone()
}

/// A fresh database whose anonymous plan is admitted in memory (5 an hour),
/// one server on it with its cache warm, and a client.
async fn one_server_in_memory() -> (TestDb, Arc<Served>, reqwest::Client) {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    plan_in_memory(&db, 5).await;
    let server = Arc::new(serve(&db).await);
    let http = reqwest::Client::new();
    server
        .warm_cache(&http, LIST, ("x-forwarded-for", "192.0.2.250"))
        .await;
    (db, server, http)
}

/// Waits until `server` holds every shard: it claims every free one at
/// start (server/src/access/quota/shards.rs), and a claim that fails on a
/// busy machine is made again for the shards requests are seen for.
/// Those requests come from addresses of their own (10.15.*), apart from
/// the tests' (10.14.*, [`address`]).
async fn every_shard_held(server: &Served, http: &reqwest::Client) {
    let mut round = 0;
    while stats(server, http).await["shards_held"].as_u64() != Some(64) {
        assert!(round < 40, "the shards were not all claimed");
        futures_join((0..250).map(|n| {
            let (http, url) = (http.clone(), server.url(LIST));
            tokio::spawn(async move {
                send(
                    &http,
                    &url,
                    ("x-forwarded-for", &format!("10.15.{round}.{}", n + 1)),
                )
                .await
            })
        }))
        .await;
        round += 1;
        tokio::time::sleep(CLAIM_EVERY * 2).await;
    }
}

/// For [`from_each`]: every request to `server`'s list.
fn list_of(server: &Arc<Served>) -> impl Fn(usize, usize) -> String + Clone + Send + 'static {
    let server = server.clone();
    move |_, _| server.url(LIST)
}

#[tokio::test]
async fn one_process_holding_the_shards_admits_in_memory_exactly_and_writes_the_counts_back() {
    let (db, server, http) = one_server_in_memory().await;
    every_shard_held(&server, &http).await;
    let before = stats(&server, &http).await;
    let rest = from_each(&http, 0..200, 7, list_of(&server)).await;
    for (a, seen) in &rest {
        assert_eq!(admitted(seen), 5, "{}", address(*a));
        let refused: Vec<&Seen> = seen.iter().filter(|r| r.status == 429).collect();
        assert_eq!(refused.len(), 2, "{}", address(*a));
        assert!(
            refused
                .iter()
                .all(|r| r.retry_after.is_some_and(|s| s > 60))
        );
    }
    let after = stats(&server, &http).await;
    let in_memory = after["in_memory"].as_u64().expect("in_memory")
        - before["in_memory"].as_u64().expect("in_memory");
    let calls =
        after["db_calls"].as_u64().expect("calls") - before["db_calls"].as_u64().expect("calls");
    assert!(in_memory > 1000, "{before} {after}");
    assert!(
        calls < 50,
        "admitted in memory, not by api.admit_batch: {before} {after}"
    );
    written_back(&db, 0..200, 5).await;
}

/// A flood of new addresses, one request each, leaves most counts in
/// memory (a round writes at most TRICKLE of them for their age, 2,560 a
/// second: server/src/access/quota/shards.rs): a clean stop writes every one
/// back, however many more than one statement's MAX_WRITE (4,096) there are.
#[tokio::test]
async fn a_clean_stop_writes_back_every_count_a_flood_left_in_memory() {
    /// Addresses per wave; the waves go on until more counts are left to
    /// write than two statements take (however fast this machine sends).
    const WAVE: usize = 4_000;
    const LEFT: i64 = 2 * 4096;
    const SENDERS: usize = 64;
    let (db, server, http) = one_server_in_memory().await;
    every_shard_held(&server, &http).await;
    let written = async || {
        db.client()
            .await
            .query_one(
                "select count(*) from pricing.admission_counters
                 where subject like 'ip:10.14.%' and used = 1",
                &[],
            )
            .await
            .expect("written")
            .get::<_, i64>(0)
    };
    let before = stats(&server, &http).await["in_memory"]
        .as_u64()
        .expect("in_memory");
    let mut sent = 0;
    loop {
        assert!(
            sent + WAVE <= 60_000,
            "the server admitted new addresses no faster than the trickle writes them"
        );
        let wave = sent..sent + WAVE;
        let admitted: usize = futures_join((0..SENDERS).map(|sender| {
            let (http, url) = (http.clone(), server.url(LIST));
            let addresses = wave.clone().skip(sender).step_by(SENDERS);
            tokio::spawn(async move {
                let mut admitted = 0;
                for a in addresses {
                    let seen = send(&http, &url, ("x-forwarded-for", &address(a))).await;
                    admitted += usize::from(seen.status == 200);
                }
                admitted
            })
        }))
        .await
        .into_iter()
        .sum();
        assert_eq!(admitted, WAVE, "one request each, all within the plan");
        sent += WAVE;
        if sent as i64 - written().await > LEFT {
            break;
        }
    }
    let in_memory = stats(&server, &http).await["in_memory"]
        .as_u64()
        .expect("in_memory")
        - before;
    assert!(
        in_memory as usize >= sent,
        "the flood was admitted from the shard leases: {in_memory}"
    );
    // No connection left open: the stop does not wait for one (the rounds
    // would meanwhile write the counts for their age).
    drop(http);
    Arc::into_inner(server)
        .expect("one owner")
        .terminate()
        .await;
    assert_eq!(written().await, sent as i64, "every count written back");
}

#[tokio::test]
async fn a_shard_held_by_one_process_is_handed_over_and_counted_exactly_by_both() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    plan_in_memory(&db, 5).await;
    // The first server, up before the second, holds every shard.
    let http = reqwest::Client::new();
    let first = serve(&db).await;
    every_shard_held(&first, &http).await;
    let servers = Arc::new([first, serve(&db).await]);
    for server in servers.iter() {
        server
            .warm_cache(&http, LIST, ("x-forwarded-for", "192.0.2.250"))
            .await;
    }
    let first = {
        let servers = servers.clone();
        move |_: usize, _: usize| servers[0].url(LIST)
    };
    assert!(
        from_each(&http, 0..100, 1, first)
            .await
            .iter()
            .all(|(_, s)| admitted(s) == 1)
    );
    // Then both, in turn: the second's requests wait for the first to hand
    // the shards over.
    let both = {
        let servers = servers.clone();
        move |a: usize, round: usize| servers[(a + round) % 2].url(LIST)
    };
    for (a, seen) in from_each(&http, 0..100, 6, both).await {
        assert_eq!(admitted(&seen), 4, "{}", address(a));
    }
    let deferred = stats(&servers[1], &http).await["deferred"]
        .as_u64()
        .expect("deferred");
    assert!(
        deferred > 0,
        "the second server's requests waited for a handover"
    );
    for a in 0..100 {
        assert_eq!(used(&db, a).await, Some(5), "{}", address(a));
    }
}

#[tokio::test]
async fn a_process_killed_holding_shards_loses_no_more_than_its_pending_cap_and_never_over_admits()
{
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    plan_in_memory(&db, 12).await;
    // The doomed process, up first, holds every shard.
    let http = reqwest::Client::new();
    let mut doomed = serve(&db).await;
    every_shard_held(&doomed, &http).await;
    let survivor = serve(&db).await;
    doomed
        .warm_cache(&http, LIST, ("x-forwarded-for", "192.0.2.250"))
        .await;
    survivor
        .warm_cache(&http, LIST, ("x-forwarded-for", "192.0.2.250"))
        .await;
    let to = |url: String| move |_: usize, _: usize| url.clone();
    let doomed_url = doomed.url(LIST);
    from_each(&http, 0..100, 1, to(doomed_url.clone())).await;
    // Addresses 0..50: 3 more, then time for every count to be written back
    // (WRITE_EVERY, 10 s); 50..100: 3 more just before the process is killed.
    let written = from_each(&http, 0..50, 3, to(doomed_url.clone())).await;
    assert!(written.iter().all(|(_, s)| admitted(s) == 3));
    written_back(&db, 0..50, 4).await;
    let pending = from_each(&http, 50..100, 3, to(doomed_url)).await;
    assert!(pending.iter().all(|(_, s)| admitted(s) == 3));
    // The shards the doomed process holds when it dies: their subjects are
    // charged the cap. A shard the doomed process gave up when the
    // survivor's warm-up asked for it is counted by the database, with
    // nothing to charge.
    let client = db.client().await;
    let held: Vec<i16> = client
        .query(
            "select shard from pricing.admission_shards where owner is not null",
            &[],
        )
        .await
        .expect("held shards")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(stats(&survivor, &http).await["shards_held"], 0);
    let mut in_held = Vec::new();
    for a in 0..100 {
        let shard: i32 = client
            .query_one(
                "select get_byte(sha256(convert_to($1, 'UTF8')), 0) % 64",
                &[&format!("ip:{}", address(a))],
            )
            .await
            .expect("shard")
            .get(0);
        in_held.push(held.contains(&i16::try_from(shard).expect("shard")));
    }
    // Key requests, a plan not admitted in memory: counted by the database,
    // in shards the doomed process holds, and so not charged its taint.
    for seen in ask_keys(&http, &doomed.url("/api/v1/keys"), 20).await {
        assert_eq!(seen, (201, Some(4)));
    }
    doomed.child.start_kill().expect("kill");
    let _ = doomed.child.wait().await;
    // Its leases end within SHARD_LEASE; the survivor's first request of a
    // shard then charges the shard's subjects the dead holder's pending cap
    // (4), their buckets empty at the lease's end: past a second more they
    // are full again.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let survivor_url = survivor.url(LIST);
    let after = from_each(&http, 0..100, 12, to(survivor_url)).await;
    for (a, seen) in &after {
        let total = 4 + admitted(seen);
        if !in_held[*a] {
            // Counted by the database all along: the whole quota.
            assert_eq!(total, 12, "{} (shard not held)", address(*a));
        } else if *a < 50 {
            // Everything it admitted was written: the quota less the cap.
            assert_eq!(total, 12 - 4, "{}", address(*a));
        } else {
            assert!((8..=11).contains(&total), "{}: {total}", address(*a));
        }
    }
    for seen in ask_keys(&http, &survivor.url("/api/v1/keys"), 20).await {
        assert_eq!(seen, (201, Some(3)), "the second of five key requests");
    }
    let taints: i64 = db
        .client()
        .await
        .query_one("select count(*) from pricing.admission_taints", &[])
        .await
        .expect("taints")
        .get(0);
    assert!(
        taints > 0,
        "the dead process's leases were settled as taints"
    );
}

/// POST `url` (a key request) once from each of `n` addresses (10.16.0.*):
/// the statuses and X-RateLimit-Remaining.
async fn ask_keys(http: &reqwest::Client, url: &str, n: u8) -> Vec<(u16, Option<u32>)> {
    futures_join((1..=n).map(|n| {
        let (http, url) = (http.clone(), url.to_owned());
        tokio::spawn(async move {
            let res = http
                .post(url)
                .header("x-forwarded-for", format!("10.16.0.{n}"))
                .send()
                .await
                .expect("key request");
            let remaining = res
                .headers()
                .get("x-ratelimit-remaining")
                .and_then(|v| v.to_str().ok()?.parse().ok());
            (res.status().as_u16(), remaining)
        })
    }))
    .await
}

/// A subject whose plan is not admitted in memory (a key on a plan with a
/// burst of 10 a second or more; an address's key requests, which have no
/// burst) is counted by the database whoever holds its shard
/// (`admission_shards.plans`, sql/62_admit.sql): never deferred to the
/// holder, and so never left uncounted after waiting for it.
#[tokio::test]
async fn subjects_of_plans_not_in_memory_are_counted_by_the_database_in_held_shards() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    plan_in_memory(&db, 5).await;
    set_plan(&db, "free", Some(1000), Some(100_000)).await;
    set_window_past_the_test(&db, "free").await;
    let key = Arc::new(issue(&db, "free").await);
    let server = Arc::new(serve(&db).await);
    let http = reqwest::Client::new();
    server
        .warm_cache(&http, LIST, ("x-forwarded-for", "192.0.2.250"))
        .await;
    every_shard_held(&server, &http).await;
    let before = stats(&server, &http).await;
    let keyed = futures_join((0..8).map(|_| {
        let (server, key, http) = (server.clone(), key.clone(), http.clone());
        tokio::spawn(async move {
            let mut seen = Vec::new();
            for _ in 0..5 {
                seen.push(send(&http, &server.url(LIST), ("x-api-key", &key)).await);
            }
            seen
        })
    }))
    .await;
    for seen in keyed.iter().flatten() {
        assert_eq!(seen.status, 200);
        assert!(seen.counted, "the key's request was counted: {seen:?}");
    }
    for seen in ask_keys(&http, &server.url("/api/v1/keys"), 20).await {
        assert_eq!(
            seen,
            (201, Some(4)),
            "the address's key request was counted"
        );
    }
    let after = stats(&server, &http).await;
    for field in ["deferred", "failed_open"] {
        assert_eq!(after[field], before[field], "{field}: {before} {after}");
    }
    // Exactly its 40 once the units leased ahead of its requests and not
    // used are given back (server/src/access/quota/lease.rs).
    eventually("the key's count", Duration::from_secs(10), async || {
        let used: i32 = db
            .client()
            .await
            .query_one(
                "select c.used from pricing.admission_counters as c
                 join pricing.api_keys as k on c.subject = 'key:' || k.id
                 where k.plan = 'free'",
                &[],
            )
            .await
            .expect("the key's count")
            .get(0);
        (used == 40).then_some(())
    })
    .await;
    let plans: Vec<(String, bool)> = db
        .client()
        .await
        .query(
            "select name, in_memory from api.admission_plans() order by name",
            &[],
        )
        .await
        .expect("plans")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        plans,
        [
            ("anonymous".to_owned(), true),
            ("free".to_owned(), false),
            ("internal".to_owned(), false),
            ("key_requests".to_owned(), false),
        ],
        "the plans admitted in memory: a burst under 10 a second"
    );
}
