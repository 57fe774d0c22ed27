//! Read replicas (server/src/store/reads.rs): a primary and a real streaming
//! standby, both from the local image, and two servers reading from the
//! standby.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::Value;
use tokio_postgres::Config;

use crate::helpers::{
    Served, connect, database_url, enc, eventually, free_port, publish_fixture_with,
    restartable_postgres, serve_command, start_postgres_with, wait_until_connectable,
};

/// The `api` functions behind the data endpoints.
const DATA_FUNCTIONS: &[&str] = &[
    "list_models",
    "get_model",
    "model_history",
    "compare",
    "list_changes",
    "estimate_prices",
    "price_dump",
];

/// Calls of each of [`DATA_FUNCTIONS`] on a server, by function.
async fn calls(config: &Config) -> HashMap<String, i64> {
    connect(config)
        .await
        .query(
            "select funcname::text, calls from pg_stat_user_functions
             where schemaname = 'api' and funcname = any($1)",
            &[&DATA_FUNCTIONS],
        )
        .await
        .expect("function statistics")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

/// Polls (bounded) until `check` holds for the standby's function calls; a
/// backend reports its statistics within seconds, not at once.
async fn until_calls(standby: &Config, what: &str, check: impl Fn(&HashMap<String, i64>) -> bool) {
    eventually(what, Duration::from_secs(60), async || {
        check(&calls(standby).await).then_some(())
    })
    .await;
}

async fn list_calls(config: &Config) -> i64 {
    calls(config).await.get("list_models").copied().unwrap_or(0)
}

/// Where a server's data reads went (`reads` of /healthz).
async fn reads(http: &reqwest::Client, server: &Served) -> Value {
    server.healthz(http).await["reads"].clone()
}

/// One answer: status, `as_of` and the publish its ETag names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    status: u16,
    as_of: Option<String>,
    etag_publish: Option<i64>,
}

/// A new client address per request, so that no quota or burst binds.
fn next_address() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("10.77.{}.{}", n / 250, n % 250 + 1)
}

async fn get(http: &reqwest::Client, url: &str) -> Answer {
    let res = http
        .get(url)
        .header("x-forwarded-for", next_address())
        .send()
        .await
        .expect("request");
    let status = res.status().as_u16();
    let etag_publish = res
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("\"p"))
        .and_then(|v| v.split('-').next())
        .and_then(|v| v.parse().ok());
    let body: Value = res.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        as_of: body["as_of"].as_str().map(str::to_owned),
        etag_publish,
    }
}

#[tokio::test]
async fn two_servers_read_from_a_streaming_standby_and_fall_back_to_the_primary() {
    let (primary_container, primary, first) = restartable_postgres().await;
    let owner = connect(&primary).await;
    // Function call counts show where each read ran; the standby copies the
    // setting with the primary's configuration.
    for sql in [
        "alter system set track_functions = 'all'",
        "select pg_reload_conf()",
    ] {
        owner.batch_execute(sql).await.expect("track functions");
    }
    owner
        .execute(
            "update pricing.plans set quota = 3, burst_per_second = 1000 where name = 'anonymous'",
            &[],
        )
        .await
        .expect("anonymous plan");
    // The standby reaches the primary on Docker's bridge network.
    let inspect = std::process::Command::new("docker")
        .args([
            "inspect",
            "--format",
            "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}",
            primary_container.id(),
        ])
        .output()
        .expect("docker inspect");
    let bridge = String::from_utf8_lossy(&inspect.stdout)
        .split_whitespace()
        .next()
        .expect("the primary's address")
        .to_owned();
    let (standby_container, standby) = start_postgres_with(
        Some(free_port()),
        &[("PRICING_PG_PRIMARY", &format!("{bridge}:5432"))],
    )
    .await;
    let in_recovery: bool = connect(&standby)
        .await
        .query_one("select pg_is_in_recovery()", &[])
        .await
        .expect("recovery")
        .get(0);
    assert!(in_recovery, "the standby is a standby");
    let standby_url = database_url(&standby);
    let servers = [
        Served::start(serve_command(
            &primary,
            &["--read-database-url", &standby_url],
        ))
        .await,
        Served::start(serve_command(
            &primary,
            &["--read-database-url", &standby_url],
        ))
        .await,
    ];
    let http = reqwest::Client::new();
    for server in &servers {
        server
            .warm_cache(
                &http,
                "/api/v1/models?limit=2",
                ("x-forwarded-for", &next_address()),
            )
            .await;
    }
    let list: Value = http
        .get(servers[0].url("/api/v1/models?limit=2"))
        .header("x-forwarded-for", next_address())
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("json");
    let ids: Vec<&str> = list["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["id"].as_str().expect("id"))
        .collect();
    let id = enc(ids[0]);

    // Every data endpoint, on both servers, answers from the standby.
    let primary_before = calls(&primary).await;
    for server in &servers {
        for path in [
            "/api/v1/models?limit=3".to_owned(),
            format!("/api/v1/models/{id}?include=pricing"),
            format!("/api/v1/models/{id}/history"),
            format!("/api/v1/compare?ids={}", enc(&ids.join(","))),
            "/api/v1/changes".to_owned(),
            "/feeds/changes.json".to_owned(),
            "/dumps/prices.csv".to_owned(),
        ] {
            let res = http
                .get(server.url(&path))
                .header("x-forwarded-for", next_address())
                .send()
                .await
                .expect("request");
            assert_eq!(res.status(), 200, "{path}");
        }
        let res = http
            .post(server.url("/api/v1/estimate"))
            .header("x-forwarded-for", next_address())
            .header("content-type", "application/json")
            .body(format!(
                r#"{{"requests_per_month": 10, "preset": "chatbot", "model_ids": ["{}"]}}"#,
                ids[0]
            ))
            .send()
            .await
            .expect("estimate");
        assert_eq!(res.status(), 200, "estimate");
    }
    until_calls(&standby, "every data function ran on the standby", |c| {
        DATA_FUNCTIONS
            .iter()
            .all(|f| c.get(*f).copied().unwrap_or(0) > 0)
    })
    .await;
    assert_eq!(
        calls(&primary).await,
        primary_before,
        "no data read ran on the primary"
    );

    // Quotas stay exact on the primary: 3 of 5 from one address, across both.
    let mut admitted = 0;
    for i in 0..5 {
        let res = http
            .get(servers[i % 2].url("/api/v1/models?limit=2"))
            .header("x-forwarded-for", "198.51.100.7")
            .send()
            .await
            .expect("request");
        admitted += usize::from(res.status() == 200);
    }
    assert_eq!(admitted, 3);
    let used: i32 = owner
        .query_one(
            "select used from pricing.admission_counters where subject = 'ip:198.51.100.7'",
            &[],
        )
        .await
        .expect("window on the primary")
        .get(0);
    assert_eq!(used, 3);

    // A publish the standby has not replayed is read from the primary: the
    // new as_of and ETag at once, never the old data under them.
    let standby_owner = connect(&standby).await;
    standby_owner
        .batch_execute("select pg_wal_replay_pause()")
        .await
        .expect("pause replay");
    let mut owner = owner;
    let second = publish_fixture_with(&mut owner, "snapshot-b.json").await;
    assert!(second.as_of > first.as_of);
    let newest: i64 = owner
        .query_one("select max(id) from pricing.publishes", &[])
        .await
        .expect("publishes")
        .get(0);
    let new_as_of = |a: &Answer| a.etag_publish == Some(newest);
    let mut pairs: HashMap<i64, Option<String>> = HashMap::new();
    let mut seen = |a: &Answer| {
        let publish = a.etag_publish.expect("an ETag");
        let as_of = pairs.entry(publish).or_insert_with(|| a.as_of.clone());
        assert_eq!(*as_of, a.as_of, "one as_of per publish: {a:?}");
    };
    for server in &servers {
        eventually(
            "the new publish is served",
            Duration::from_secs(30),
            async || {
                let answer = get(&http, &server.url("/api/v1/models?limit=4")).await;
                assert_eq!(answer.status, 200);
                seen(&answer);
                new_as_of(&answer).then_some(())
            },
        )
        .await;
    }
    for server in &servers {
        let reads = reads(&http, server).await;
        assert!(
            reads["replica_behind"].as_u64() > Some(0),
            "the lagging standby's answers were not used: {reads}"
        );
    }

    // Once replayed, the standby serves the new publish again.
    standby_owner
        .batch_execute("select pg_wal_replay_resume()")
        .await
        .expect("resume replay");
    let before = list_calls(&standby).await;
    for (n, server) in servers.iter().enumerate() {
        let from_replicas = || async { reads(&http, server).await["from_replicas"].as_u64() };
        let start = from_replicas().await;
        let mut limit = 10 + 10 * n;
        eventually(
            "reads return to the standby",
            Duration::from_secs(30),
            async || {
                // A new page each time: a cache miss, read from the database.
                let answer =
                    get(&http, &server.url(&format!("/api/v1/models?limit={limit}"))).await;
                assert_eq!(answer.status, 200);
                seen(&answer);
                assert!(
                    new_as_of(&answer),
                    "never the old publish again: {answer:?}"
                );
                limit += 1;
                (from_replicas().await > start).then_some(())
            },
        )
        .await;
    }
    until_calls(&standby, "reads after replay ran on the standby", |c| {
        c.get("list_models").copied().unwrap_or(0) > before
    })
    .await;

    // A stopped standby: reads fall back to the primary; back, it is used again.
    standby_container.stop().await.expect("stop the standby");
    for server in &servers {
        let answer = get(&http, &server.url("/api/v1/models?limit=40")).await;
        assert_eq!(answer.status, 200, "read from the primary");
        assert!(new_as_of(&answer));
    }
    standby_container.start().await.expect("start the standby");
    wait_until_connectable(&standby).await;
    let before = list_calls(&standby).await;
    let mut limit = 41;
    eventually(
        "reads return to the restarted standby",
        Duration::from_secs(60),
        async || {
            for server in &servers {
                let answer =
                    get(&http, &server.url(&format!("/api/v1/models?limit={limit}"))).await;
                assert_eq!(answer.status, 200);
                assert!(new_as_of(&answer));
            }
            limit += 1;
            (list_calls(&standby).await > before).then_some(())
        },
    )
    .await;
}
