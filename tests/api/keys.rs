//! API keys on REST: the three ways to send one and their precedence, 401 for
//! keys that do not work, the anonymous fallback the MCP channel uses, keys
//! kept out of the database and out of the logs, and `pricing keys`.

use std::net::IpAddr;
use std::process::Stdio;
use std::time::Duration;

use pricing::access::quota::Decision;
use pricing::access::{Caller, KeyPolicy, KeyProblem};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use crate::helpers::{AppOptions, TestApp, TestDb, database_url, eventually};

const NOWHERE: &str = "/api/v1/nothing";

pub async fn issue(db: &TestDb, plan: &str) -> String {
    let client = db.client().await;
    pricing::access::keys::issue(&client, plan, Some("test"), None)
        .await
        .expect("issue a key")
        .key
        .expose()
        .to_owned()
}

/// A key of the right shape that was never issued.
fn unknown_key() -> String {
    format!("pr_live_{}", "Zz9".repeat(15).get(..43).expect("43 chars"))
}

fn header(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn limit(res: &reqwest::Response) -> Option<u32> {
    header(res, "x-ratelimit-limit").and_then(|v| v.parse().ok())
}

fn remaining(res: &reqwest::Response) -> Option<u32> {
    header(res, "x-ratelimit-remaining").and_then(|v| v.parse().ok())
}

fn localhost() -> IpAddr {
    "127.0.0.1".parse().expect("ip")
}

#[tokio::test]
async fn a_key_is_accepted_in_x_api_key_in_a_bearer_header_and_in_the_query() {
    let db = TestDb::new().await;
    let key = issue(&db, "free").await;
    let app = TestApp::spawn(&db.config).await;

    let anonymous = app.get(NOWHERE).await;
    assert_eq!(anonymous.status(), 404);
    assert_eq!(limit(&anonymous), Some(60), "no key: the anonymous plan");

    let url = app.url(NOWHERE);
    let requests = [
        app.http.get(&url).header("X-API-Key", &key),
        app.http.get(&url).bearer_auth(&key),
        app.http.get(format!("{url}?key={key}")),
    ];
    let mut left = Vec::new();
    for request in requests {
        let res = request.send().await.expect("request");
        assert_eq!(res.status(), 404);
        assert_eq!(limit(&res), Some(1000), "counted on the free plan");
        left.push(remaining(&res).expect("remaining"));
    }
    assert_eq!(left, [999, 998, 997], "all three drew on the key's budget");
}

#[tokio::test]
async fn x_api_key_takes_precedence_over_bearer_and_bearer_over_the_query() {
    let db = TestDb::new().await;
    let good = issue(&db, "free").await;
    let bad = unknown_key();
    let app = TestApp::spawn(&db.config).await;
    let url = app.url(NOWHERE);
    let send = |x_api_key: Option<&str>, bearer: Option<&str>, query: Option<&str>| {
        let mut request = match query {
            Some(key) => app.http.get(format!("{url}?key={key}")),
            None => app.http.get(&url),
        };
        if let Some(key) = x_api_key {
            request = request.header("X-API-Key", key);
        }
        if let Some(key) = bearer {
            request = request.bearer_auth(key);
        }
        async move { request.send().await.expect("request").status().as_u16() }
    };
    assert_eq!(send(Some(&good), Some(&bad), Some(&bad)).await, 404);
    assert_eq!(send(Some(&bad), Some(&good), Some(&good)).await, 401);
    assert_eq!(send(None, Some(&good), Some(&bad)).await, 404);
    assert_eq!(send(None, Some(&bad), Some(&good)).await, 401);
    assert_eq!(send(None, None, Some(&good)).await, 404);
}

#[tokio::test]
async fn an_unknown_or_malformed_key_gets_401_with_the_error_body_and_rate_limit_headers() {
    let db = TestDb::new().await;
    let app = TestApp::spawn(&db.config).await;
    for key in [unknown_key(), "nonsense".to_owned()] {
        let res = app
            .http
            .get(app.url(NOWHERE))
            .header("X-API-Key", &key)
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), 401);
        assert_eq!(
            limit(&res),
            Some(60),
            "a bad key is charged to the caller's anonymous budget"
        );
        assert!(header(&res, "retry-after").is_none());
        let body: Value = res.json().await.expect("json");
        assert_eq!(body["error"]["code"], "INVALID_API_KEY");
        assert_eq!(body["error"]["message"], "the API key is not known");
        assert_eq!(
            body["error"]["next_step"],
            "request a new free key or omit the key"
        );
    }
}

#[tokio::test]
async fn a_revoked_key_gets_401() {
    let db = TestDb::new().await;
    let key = issue(&db, "free").await;
    let revoked = pricing::access::keys::revoke(&db.client().await, &key)
        .await
        .expect("revoke");
    assert!(revoked.newly);
    let app = TestApp::spawn(&db.config).await;
    let res = app
        .http
        .get(app.url(NOWHERE))
        .bearer_auth(&key)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 401);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"]["code"], "INVALID_API_KEY");
    assert_eq!(body["error"]["message"], "the API key has been revoked");
}

#[tokio::test]
async fn a_key_revoked_while_in_use_is_refused_once_its_cache_entry_is_stale() {
    let db = TestDb::new().await;
    let key = issue(&db, "free").await;
    // TTL zero: every request asks the database, as every request does once
    // the default 30 s have passed.
    let options = AppOptions {
        key_cache_ttl: Some(Duration::ZERO),
        ..AppOptions::default()
    };
    let app = TestApp::spawn_with(&db.config, options).await;
    let with_key = || {
        app.http
            .get(app.url(NOWHERE))
            .header("X-API-Key", &key)
            .send()
    };
    assert_eq!(with_key().await.expect("request").status(), 404);
    pricing::access::keys::revoke(&db.client().await, &key[..20])
        .await
        .expect("revoke by prefix");
    assert_eq!(with_key().await.expect("request").status(), 401);
}

#[tokio::test]
async fn an_expired_key_gets_401() {
    let db = TestDb::new().await;
    let client = db.client().await;
    let expires = time::OffsetDateTime::now_utc() + time::Duration::hours(1);
    let key = pricing::access::keys::issue(&client, "free", None, Some(expires))
        .await
        .expect("issue")
        .key
        .expose()
        .to_owned();
    client
        .execute(
            "update pricing.api_keys set expires_at = now() - interval '1 second'
             where lookup_prefix = $1",
            &[&&key[8..20]],
        )
        .await
        .expect("let it expire");
    let app = TestApp::spawn(&db.config).await;
    let res = app
        .http
        .get(format!("{}?key={key}", app.url(NOWHERE)))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 401);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error"]["message"], "the API key has expired");
}

#[tokio::test]
async fn keys_are_not_issued_on_the_anonymous_plan_nor_already_expired() {
    let db = TestDb::new().await;
    let client = db.client().await;
    let err = pricing::access::keys::issue(&client, "anonymous", None, None)
        .await
        .expect_err("no anonymous keys");
    assert!(format!("{err}").contains("free, internal"), "{err}");
    let past = time::OffsetDateTime::now_utc() - time::Duration::minutes(1);
    pricing::access::keys::issue(&client, "free", None, Some(past))
        .await
        .expect_err("no expired keys");
}

#[tokio::test]
async fn the_mcp_path_falls_back_to_anonymous_for_a_key_that_does_not_work() {
    let db = TestDb::new().await;
    let good = issue(&db, "free").await;
    let revoked = issue(&db, "free").await;
    pricing::access::keys::revoke(&db.client().await, &revoked)
        .await
        .expect("revoke");
    let app = TestApp::spawn(&db.config).await;
    let access = app.state.access();

    for bad in [unknown_key(), revoked.clone()] {
        let lenient = access
            .admit(Some(&bad), localhost(), KeyPolicy::Lenient)
            .await;
        assert_eq!(lenient.caller, Caller::Anonymous(localhost()));
        assert_eq!(lenient.key_problem, None, "silently");
        assert_eq!(lenient.decision.window().map(|w| w.limit), Some(60));
    }
    let strict = access
        .admit(Some(&revoked), localhost(), KeyPolicy::Strict)
        .await;
    assert_eq!(strict.key_problem, Some(KeyProblem::Revoked));

    let mut headers = salvo::http::HeaderMap::new();
    headers.insert(
        "authorization",
        format!("Bearer {good}").parse().expect("header"),
    );
    let admitted = access.admit_mcp(&headers, None, localhost()).await;
    assert!(matches!(admitted.caller, Caller::Key(ref k) if k.plan.as_ref() == "free"));
    assert_eq!(admitted.decision.window().map(|w| w.limit), Some(1000));
}

#[tokio::test]
async fn keys_are_stored_only_as_a_sha256_with_a_lookup_prefix_out_of_the_web_roles_reach() {
    let db = TestDb::new().await;
    let key = issue(&db, "free").await;
    let client = db.client().await;
    let row = client
        .query_one(
            "select lookup_prefix, key_sha256, plan, label from pricing.api_keys",
            &[],
        )
        .await
        .expect("one key");
    let (lookup, sha256): (String, String) = (row.get(0), row.get(1));
    assert_eq!(lookup, key[8..20]);
    assert_eq!(sha256, pricing::access::keys::sha256_hex(&key));
    let stored: String = client
        .query_one(
            "select row_to_json(k)::text from pricing.api_keys as k",
            &[],
        )
        .await
        .expect("row")
        .get(0);
    assert!(!stored.contains(&key[8..]), "the secret is not stored");

    let mut config = db.config.clone();
    config.options("-c role=pricing_web");
    let web = crate::helpers::connect(&config).await;
    for sql in [
        "select keys.issue('AAAAAAAAAAAA', 'x', 'internal', null, null)",
        "select lookup_prefix from pricing.api_keys",
        "update pricing.plans set quota = null",
    ] {
        let denied = web.batch_execute(sql).await.expect_err(sql);
        assert_eq!(
            denied.code(),
            Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{sql}"
        );
    }
}

#[tokio::test]
async fn an_internal_key_is_never_counted_and_gets_no_rate_limit_headers() {
    let db = TestDb::new().await;
    let key = issue(&db, "internal").await;
    let app = TestApp::spawn(&db.config).await;
    for _ in 0..20 {
        let res = app
            .http
            .get(app.url(NOWHERE))
            .header("X-API-Key", &key)
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), 404);
        assert!(header(&res, "x-ratelimit-limit").is_none());
    }
    let counters: i64 = db
        .client()
        .await
        .query_one("select count(*) from pricing.admission_counters", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(counters, 0, "no counter was written");
    let admission = app
        .state
        .access()
        .admit(Some(&key), localhost(), KeyPolicy::Strict)
        .await;
    assert_eq!(admission.decision, Decision::Unmetered);
}

/// `pricing` as a process on the test database.
fn pricing(db: &TestDb) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pricing"));
    cmd.env("DATABASE_URL", database_url(&db.config))
        .env("PRICING_LOG_FORMAT", "json")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    cmd
}

async fn run(db: &TestDb, args: &[&str]) -> (String, String) {
    let out = pricing(db).args(args).output().await.expect("run pricing");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "pricing {args:?} failed: {stdout}{stderr}"
    );
    (stdout, stderr)
}

/// How many RFC 3339 UTC times (2026-01-31T00:00:00Z) a listing line shows.
fn timestamps(line: &str) -> usize {
    line.split_whitespace()
        .filter(|w| w.len() == 20 && w.ends_with('Z') && w.as_bytes()[10] == b'T')
        .count()
}

#[tokio::test]
async fn keys_are_issued_listed_and_revoked_from_the_command_line() {
    let db = TestDb::new().await;
    let (stdout, stderr) = run(
        &db,
        &[
            "keys",
            "issue",
            "--tier",
            "free",
            "--expires",
            "30d",
            "--label",
            "cli test",
        ],
    )
    .await;
    let key = stdout.trim().to_owned();
    assert!(pricing::access::keys::lookup_of(&key).is_some(), "{stdout}");
    let prefix = key[..20].to_owned();
    assert!(stderr.contains(&prefix), "{stderr}");
    assert!(!stderr.contains(&key), "the key is printed once, on stdout");

    let app = TestApp::spawn(&db.config).await;
    let res = app
        .http
        .get(app.url(NOWHERE))
        .header("X-API-Key", &key)
        .send()
        .await
        .expect("request");
    assert_eq!(limit(&res), Some(1000));

    // The free plan is admitted in memory by the shard's holder, which
    // writes a single admission back within WRITE_EVERY (10 s): what `keys
    // list` reads (docs/keys.md, "Shard leases").
    let line = eventually(
        "the key's use listed",
        Duration::from_secs(20),
        async || {
            let (list, _) = run(&db, &["keys", "list"]).await;
            assert!(!list.contains(&key[8..]), "list never prints keys: {list}");
            let line = list
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("{prefix} listed: {list}"))
                .to_owned();
            line.ends_with("1/1000").then_some(line)
        },
    )
    .await;
    assert!(line.contains("free") && line.contains("cli test"), "{line}");
    assert_eq!(timestamps(&line), 2, "created and expires: {line}");

    let (revoked, _) = run(&db, &["keys", "revoke", &prefix]).await;
    assert!(revoked.starts_with("revoked at"), "{revoked}");
    let (again, _) = run(&db, &["keys", "revoke", &prefix]).await;
    assert!(again.starts_with("already revoked"), "{again}");
    let (list, _) = run(&db, &["keys", "list"]).await;
    let line = list
        .lines()
        .find(|l| l.starts_with(&prefix))
        .expect("still listed");
    assert_eq!(
        timestamps(line),
        3,
        "created, expires and revoked times are shown: {line}"
    );

    let (plans, _) = run(
        &db,
        &[
            "keys",
            "set-plan",
            "free",
            "--quota",
            "2000",
            "--burst",
            "unlimited",
        ],
    )
    .await;
    assert!(plans.contains("free  2000"), "{plans}");
    let (plans, _) = run(&db, &["keys", "plans"]).await;
    assert!(
        plans
            .lines()
            .any(|l| l.split_whitespace().take(2).eq(["internal", "unlimited"])),
        "{plans}"
    );
}

#[tokio::test]
async fn the_key_query_value_never_reaches_the_log() {
    let db = TestDb::new().await;
    let key = issue(&db, "free").await;
    let mut child = pricing(&db)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pricing serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut log = Vec::new();
    let addr = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.expect("log") {
            let entry: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            log.push(line);
            if entry["fields"]["message"] == "serving" {
                return entry["fields"]["addr"].as_str().expect("addr").to_owned();
            }
        }
        panic!("pricing serve exited: {log:?}");
    })
    .await
    .expect("serving within 60 s");

    let http = reqwest::Client::new();
    let queries = [
        format!("key={key}&limit=5"),
        format!("k%65y={key}"),
        format!("api_key={key}"),
        // `;` is no separator of the query's parameters, but it must not
        // carry a key past the redaction either
        format!("limit=1;key={key}"),
        format!("limit=1%3Bkey%3D{key}"),
    ];
    for query in &queries {
        let res = http
            .get(format!("http://{addr}{NOWHERE}?{query}"))
            .send()
            .await
            .expect("request");
        assert!(
            [400, 401, 404, 422, 429].contains(&res.status().as_u16()),
            "{query}: {}",
            res.status()
        );
    }
    let requests = tokio::time::timeout(Duration::from_secs(30), async {
        let mut requests = Vec::new();
        while let Some(line) = lines.next_line().await.expect("log") {
            let entry: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            log.push(line);
            if entry["fields"]["message"] == "request" {
                requests.push(entry);
                if requests.len() == queries.len() {
                    return requests;
                }
            }
        }
        panic!("the log ended early: {log:?}");
    })
    .await
    .expect("a request line each");
    let _ = child.start_kill();

    let secret = &key[8..];
    for line in &log {
        assert!(
            !line.contains(secret),
            "the key leaked into the log: {line}"
        );
    }
    assert_eq!(
        requests[0]["fields"]["query"], "key=REDACTED&limit=5",
        "{requests:?}"
    );
    assert_eq!(
        requests[0]["fields"]["caller"],
        Value::String(key[..20].to_owned()),
        "callers are logged by key prefix"
    );
}
