//! Webhooks (docs/webhooks.md) against real receivers on 127.0.0.1 (the
//! operator's flag on): a publish that adds events delivers each matching one
//! once per subscription, signed the Standard Webhooks way; a receiver that
//! answers 500 twice gets the event exactly once more, across a server
//! restart; a destination on a private address is refused without the flag,
//! at registration and at delivery; announced shutdowns are recalled 90, 30
//! and 7 days ahead, to the receiver of docs/webhooks.md itself.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac as _};
use pricing::webhooks::Settings;
use salvo::conn::tcp::TcpAcceptor;
use salvo::prelude::*;
use serde_json::{Value, json};
use sha2::Sha256;

use crate::helpers::{
    AppOptions, TestApp, TestDb, data_app_with, eventually, free_port, publish_bundled,
    publish_fixture,
};

/// Settings for tests: private receivers allowed, quick rounds and retries,
/// and no reminders by the clock (the reminder test makes them for chosen days).
fn settings(retry: Duration) -> Settings {
    Settings {
        allow_private: true,
        retry_schedule: vec![retry],
        poll: Duration::from_millis(50),
        timeout: Duration::from_secs(5),
        reminder_days: Vec::new(),
        ..Settings::default()
    }
}

/// A server over `db` with webhooks on these settings.
async fn webhook_app(db: &TestDb, settings: Settings) -> TestApp {
    let options = AppOptions {
        webhooks: Some(settings),
        ..AppOptions::default()
    };
    data_app_with(db, options).await
}

/// A key of the free plan, its limits raised far beyond what a test sends.
async fn free_key(db: &TestDb) -> String {
    let owner = db.client().await;
    owner
        .execute(
            "update pricing.plans set quota = 1000000, burst_per_second = 100000 where name = 'free'",
            &[],
        )
        .await
        .expect("raise the free plan");
    pricing::access::keys::issue(&owner, "free", Some("webhooks test"), None)
        .await
        .expect("issue a key")
        .key
        .expose()
        .to_owned()
}

/// One request a receiver got.
#[derive(Debug, Clone)]
struct Hit {
    at: std::time::Instant,
    path: String,
    id: String,
    timestamp: String,
    signature: String,
    body: String,
    answered: u16,
}

/// A receiver on 127.0.0.1: records every POST; answers 500 to the first
/// `failures` requests of the first delivery that reaches `/all`, nothing
/// for 30 s at `/slow`, 204 to everything else.
#[derive(Clone)]
struct Receiver {
    hits: Arc<Mutex<Vec<Hit>>>,
    failures: usize,
}

#[async_trait]
impl Handler for Receiver {
    async fn handle(
        &self,
        req: &mut Request,
        _depot: &mut Depot,
        res: &mut Response,
        _ctrl: &mut FlowCtrl,
    ) {
        let header = |name: &str| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned()
        };
        let (id, timestamp, signature) = (
            header("webhook-id"),
            header("webhook-timestamp"),
            header("webhook-signature"),
        );
        let path = req.uri().path().to_owned();
        let body = String::from_utf8(req.payload().await.expect("body").to_vec()).expect("utf-8");
        let answered = {
            let mut hits = self.hits.lock().expect("hits");
            let first = hits
                .iter()
                .find(|h| h.path == "/all")
                .map_or(id.clone(), |h| h.id.clone());
            let earlier = hits.iter().filter(|h| h.id == id).count();
            let answered = match path.as_str() {
                "/slow" => 0,
                "/all" if id == first && earlier < self.failures => 500,
                _ => 204,
            };
            hits.push(Hit {
                at: std::time::Instant::now(),
                path,
                id,
                timestamp,
                signature,
                body,
                answered,
            });
            answered
        };
        if answered == 0 {
            tokio::time::sleep(Duration::from_secs(30)).await;
            return;
        }
        res.status_code(StatusCode::from_u16(answered).expect("status"));
    }
}

impl Receiver {
    /// Serves on a free port of 127.0.0.1; its base URL.
    async fn start(failures: usize) -> (Self, String) {
        let receiver = Self {
            hits: Arc::default(),
            failures,
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let acceptor = TcpAcceptor::try_from(listener).expect("acceptor");
        let router = Router::with_path("{name}").post(receiver.clone());
        tokio::spawn(Server::new(acceptor).serve(router));
        (receiver, format!("http://{addr}"))
    }

    fn hits(&self) -> Vec<Hit> {
        self.hits.lock().expect("hits").clone()
    }
}

/// Checks a delivery as a receiver would (Standard Webhooks): the HMAC-SHA256
/// under the secret's bytes of `{id}.{timestamp}.{body}`, and a recent timestamp.
fn verify(secret: &str, hit: &Hit) {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").expect("whsec_ prefix"))
        .expect("base64 secret");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("key");
    mac.update(format!("{}.{}.{}", hit.id, hit.timestamp, hit.body).as_bytes());
    let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    assert_eq!(hit.signature, expected, "signature of {}", hit.id);
    let sent: i64 = hit.timestamp.parse().expect("unix seconds");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    assert!((now - sent).abs() < 300, "timestamp {sent} is recent");
    // the same body signed with another secret does not verify
    let mut other = Hmac::<Sha256>::new_from_slice(b"not the secret").expect("key");
    other.update(format!("{}.{}.{}", hit.id, hit.timestamp, hit.body).as_bytes());
    assert_ne!(
        hit.signature,
        format!("v1,{}", STANDARD.encode(other.finalize().into_bytes()))
    );
}

async fn subscribe(app: &TestApp, key: &str, body: Value) -> Value {
    app.post_json_with("/api/v1/webhooks", &body.to_string(), &[("x-api-key", key)])
        .await
        .expect(201)
        .json()
}

/// The first column of every row `sql` selects.
async fn column<T: for<'a> tokio_postgres::types::FromSql<'a>>(
    client: &tokio_postgres::Client,
    sql: &str,
) -> Vec<T> {
    client
        .query(sql, &[])
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// The ids of the events of the newest publish that `filter` (SQL on `e`) keeps.
async fn new_events(db: &TestDb, filter: &str) -> BTreeSet<i64> {
    let sql = format!(
        "select e.id from pricing.events as e
         where e.publish_id = (select max(id) from pricing.publishes) {filter}"
    );
    column(&db.client().await, &sql).await.into_iter().collect()
}

/// The reason an attempt failed, of a delivery whose subscription `filter`
/// (SQL on `w`) keeps, once one is recorded.
async fn recorded_error(owner: &tokio_postgres::Client, filter: &str) -> String {
    let sql = format!(
        "select d.last_error from pricing.webhook_deliveries as d
         join pricing.webhooks as w on w.id = d.webhook_id
         where d.last_error is not null {filter}
         limit 1"
    );
    eventually(
        "an attempt's failure recorded",
        Duration::from_secs(60),
        async || column::<String>(owner, &sql).await.pop(),
    )
    .await
}

fn event_id(hit: &Hit) -> i64 {
    let body: Value = serde_json::from_str(&hit.body).expect("JSON body");
    body["data"]["id"].as_i64().expect("data.id")
}

#[tokio::test]
async fn a_publish_delivers_each_new_event_once_signed_and_retried_across_a_restart() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let key = free_key(&db).await;
    let (receiver, base) = Receiver::start(2).await;
    // the first attempts are recorded before the second comes due
    let app = webhook_app(&db, settings(Duration::from_secs(2))).await;

    let all = subscribe(&app, &key, json!({"url": format!("{base}/all")})).await;
    let secret = all["data"]["secret"].as_str().expect("secret").to_owned();
    assert_eq!(all["data"]["model"], Value::Null);
    let watch = subscribe(
        &app,
        &key,
        json!({"url": format!("{base}/watch"),
               "model": ["openrouter:openai/gpt-4o", "openai:o3", "deepseek:deepseek-chat"],
               "event_type": ["price_change", "deprecation"], "min_significance": 13}),
    )
    .await;
    assert_eq!(
        watch["data"]["model"],
        json!(["openai:gpt-4o", "openai:o3", "deepseek:deepseek-chat"])
    );
    let watch_secret = watch["data"]["secret"].as_str().expect("secret").to_owned();
    assert_ne!(secret, watch_secret);

    publish_fixture(&db, "snapshot-b.json").await;
    let expected_all = new_events(&db, "").await;
    let expected_watch = new_events(
        &db,
        "and e.model_id in ('openai:gpt-4o', 'openai:o3', 'deepseek:deepseek-chat')
         and e.event_type in ('price_change', 'deprecation') and e.significance >= 13",
    )
    .await;
    let listing: Vec<String> = column(
        &db.client().await,
        "select model_id || ' ' || event_type || ' ' || significance from pricing.events
         where publish_id = (select max(id) from pricing.publishes) order by 1",
    )
    .await;
    assert!(
        expected_all.len() > expected_watch.len() && !expected_watch.is_empty(),
        "{listing:#?}"
    );

    // the first delivery to /all is refused once and recorded; then this server stops
    let first = eventually(
        "a first refused attempt",
        Duration::from_secs(60),
        async || receiver.hits().into_iter().find(|h| h.path == "/all"),
    )
    .await;
    let owner = db.client().await;
    eventually(
        "the refusal recorded",
        Duration::from_secs(30),
        async || {
            let row = owner
                .query_one(
                    "select attempts, leased_until is null, status, last_status
                 from pricing.webhook_deliveries where message_id = $1",
                    &[&first.id],
                )
                .await
                .expect("delivery");
            let (attempts, recorded, status, last): (i32, bool, String, Option<i32>) =
                (row.get(0), row.get(1), row.get(2), row.get(3));
            (attempts == 1 && recorded && status == "pending" && last == Some(500)).then_some(())
        },
    )
    .await;
    let addr = app.addr;
    drop(app);
    eventually(
        "the first server is down",
        Duration::from_secs(30),
        async || {
            tokio::net::TcpStream::connect(addr)
                .await
                .is_err()
                .then_some(())
        },
    )
    .await;

    // a new server takes up what is owed
    let app = webhook_app(&db, settings(Duration::from_secs(2))).await;
    eventually(
        "every delivery made",
        Duration::from_secs(120),
        async || {
            let pending: i64 = owner
                .query_one(
                    "select count(*) from pricing.webhook_deliveries where status <> 'delivered'",
                    &[],
                )
                .await
                .expect("count")
                .get(0);
            (pending == 0).then_some(())
        },
    )
    .await;
    let stats = app.state.webhooks().expect("webhooks").stats();
    let rounds = stats.rounds();
    eventually(
        "five more rounds of the worker",
        Duration::from_secs(30),
        async || (stats.rounds() >= rounds + 5).then_some(()),
    )
    .await;

    let hits = receiver.hits();
    let to = |path: &str| -> Vec<&Hit> { hits.iter().filter(|h| h.path == path).collect() };
    // the refused one: 500, 500, then exactly one more, the 200
    let retried: Vec<u16> = to("/all")
        .iter()
        .filter(|h| h.id == first.id)
        .map(|h| h.answered)
        .collect();
    assert_eq!(retried, [500, 500, 204]);
    let mut per_message: BTreeMap<&str, usize> = BTreeMap::new();
    for hit in to("/all") {
        *per_message.entry(hit.id.as_str()).or_default() += 1;
        verify(&secret, hit);
        app.check_webhook("pricingEvent", &hit.body).await;
    }
    assert!(
        per_message
            .iter()
            .all(|(id, n)| *n == 1 || *id == first.id.as_str()),
        "every other delivery sent once: {per_message:?}"
    );
    let delivered: BTreeSet<i64> = to("/all").iter().map(|h| event_id(h)).collect();
    assert_eq!(
        delivered, expected_all,
        "each new event, to the subscription without filters"
    );
    assert_eq!(to("/all").len(), expected_all.len() + 2);
    for hit in to("/watch") {
        verify(&watch_secret, hit);
    }
    let watched: Vec<i64> = to("/watch").iter().map(|h| event_id(h)).collect();
    assert_eq!(watched.len(), expected_watch.len(), "each once");
    assert_eq!(watched.into_iter().collect::<BTreeSet<_>>(), expected_watch);
    let body: Value = serde_json::from_str(&to("/all")[0].body).expect("JSON");
    assert_eq!(body["type"], "event.published");

    // the key's listing shows both, with their deliveries
    let listed = app
        .call_with("/api/v1/webhooks", &[("x-api-key", &key)])
        .await
        .expect(200)
        .json();
    let items = listed["data"]["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["deliveries"]["delivered"], expected_all.len());
    assert_eq!(items[0]["deliveries"]["failed"], 0);
    assert!(items[0].get("secret").is_none(), "the secret is shown once");
    assert_eq!(listed["data"]["limits"]["subscriptions_per_key"], 20);
    let recent = &items[1]["deliveries"]["recent"][0];
    assert_eq!(recent["status"], "delivered");
    assert_eq!(recent["last_status"], 204);

    // removal, by its key only
    let id = watch["data"]["id"].as_i64().expect("id").to_string();
    let path = format!("/api/v1/webhooks/{id}");
    let anonymous = app.delete_with(&path, &[]).await.expect(401);
    assert_eq!(anonymous.error_code(), "KEY_REQUIRED");
    app.delete_with(&path, &[("x-api-key", &key)])
        .await
        .expect(200);
    let again = app
        .delete_with(&path, &[("x-api-key", &key)])
        .await
        .expect(404);
    assert_eq!(again.error_code(), "WEBHOOK_NOT_FOUND");
    let listed = app
        .call_with("/api/v1/webhooks", &[("x-api-key", &key)])
        .await
        .expect(200)
        .json();
    assert_eq!(listed["data"]["items"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn a_private_destination_is_refused_without_the_operators_flag() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let key = free_key(&db).await;
    let (receiver, base) = Receiver::start(0).await;
    let strict = Settings {
        allow_private: false,
        ..settings(Duration::from_millis(200))
    };
    let app = webhook_app(&db, strict.clone()).await;
    let port = free_port();
    for url in [
        format!("{base}/all"),
        format!("https://127.0.0.1:{port}/hook"),
        format!("https://localhost:{port}/hook"),
        "https://169.254.169.254/latest/meta-data".to_owned(),
        "https://[::1]/hook".to_owned(),
        "https://10.1.2.3/hook".to_owned(),
        "https://[::ffff:192.168.0.1]/hook".to_owned(),
        "https://hooks.invalid/pricing".to_owned(),
    ] {
        let refused = app
            .post_json_with(
                "/api/v1/webhooks",
                &json!({"url": url}).to_string(),
                &[("x-api-key", &key)],
            )
            .await
            .expect(400);
        let error = &refused.json()["error"];
        assert_eq!(error["code"], "INVALID_ARGUMENT", "{url}");
        assert_eq!(error["parameter"], "url", "{url}");
    }
    let refused = app
        .post_json_with(
            "/api/v1/webhooks",
            &json!({"url": format!("https://127.0.0.1:{port}/")}).to_string(),
            &[("x-api-key", &key)],
        )
        .await
        .json();
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("127.0.0.1") && m.contains("loopback")),
        "{refused}"
    );
    // without a key there is nothing to subscribe
    let anonymous = app
        .post_json(
            "/api/v1/webhooks",
            &json!({"url": "https://hooks.example.com/"}).to_string(),
        )
        .await
        .expect(401);
    assert_eq!(anonymous.error_code(), "KEY_REQUIRED");
    drop(app);

    // registered where the flag was on; delivered where it is off: refused
    // by the resolver at the attempt, the receiver never reached
    let app = webhook_app(&db, settings(Duration::from_millis(200))).await;
    let receiver_port = base.rsplit(':').next().expect("port");
    subscribe(
        &app,
        &key,
        json!({"url": format!("https://localhost:{receiver_port}/all")}),
    )
    .await;
    drop(app);
    let _app = webhook_app(&db, strict).await;
    publish_fixture(&db, "snapshot-b.json").await;
    let owner = db.client().await;
    let error = recorded_error(&owner, "").await;
    assert!(error.contains("a loopback address"), "{error}");
    assert!(receiver.hits().is_empty(), "nothing reached the receiver");
}

#[tokio::test]
async fn an_announced_shutdown_is_recalled_90_30_and_7_days_ahead_to_the_documented_receiver() {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let key = free_key(&db).await;
    let app = webhook_app(&db, settings(Duration::from_millis(200))).await;
    let port = free_port();
    let made = subscribe(
        &app,
        &key,
        json!({"url": format!("http://127.0.0.1:{port}/pricing"), "model": ["openai:o3"]}),
    )
    .await;
    let secret = made["data"]["secret"].as_str().expect("secret").to_owned();
    // a watched model without an announced shutdown gets no reminder
    subscribe(
        &app,
        &key,
        json!({"url": format!("http://127.0.0.1:{port}/other"), "model": ["deepseek:deepseek-chat"]}),
    )
    .await;

    // the receiver of docs/webhooks.md, as written there
    let docs = std::fs::read_to_string(format!(
        "{}/../docs/webhooks.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("docs/webhooks.md");
    let code = docs
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("a python block in docs/webhooks.md");
    let mut python = tokio::process::Command::new("python3")
        .arg("-c")
        .arg(code)
        .env("WEBHOOK_SECRET", &secret)
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3");
    let stdout = python.stdout.take().expect("stdout");
    let lines = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = Arc::clone(&lines);
    tokio::spawn(async move {
        use tokio::io::AsyncBufReadExt as _;
        let mut reader = tokio::io::BufReader::new(stdout).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            sink.lock()
                .expect("lines")
                .push(serde_json::from_str(&line).expect("a JSON line"));
        }
    });

    // OpenAI's notice of 2026-06-11: o3 leaves the API on 2026-12-11. The
    // worker makes reminders by today's date; here they are made for chosen
    // days, as the worker would on them. Only OpenAI's own statement is kept
    // in this test's database, so that the stages are those of one shutdown
    // (Azure's schedule ends o3 there on 2026-11-19, with stages of its own).
    let owner = db.client().await;
    owner
        .execute(
            "delete from pricing.lifecycle_statements
             where model_id = 'openai:o3' and channel <> 'official'",
            &[],
        )
        .await
        .expect("keep OpenAI's statement of o3 only");
    let remind = async |day: &str| -> i32 {
        owner
            .query_one(
                "select api.webhook_remind($1::text::date, '{90,30,7}')",
                &[&day],
            )
            .await
            .expect("remind")
            .get(0)
    };
    assert_eq!(remind("2026-09-11").await, 0, "91 days ahead: no stage yet");
    assert_eq!(remind("2026-09-12").await, 1, "90 days ahead");
    assert_eq!(remind("2026-09-12").await, 0, "a stage once");
    assert_eq!(
        remind("2026-10-01").await,
        0,
        "71 days ahead: stage 90 is done"
    );
    assert_eq!(remind("2026-11-11").await, 1, "30 days ahead");
    assert_eq!(remind("2026-12-04").await, 1, "7 days ahead");
    assert_eq!(remind("2026-12-10").await, 0);
    assert_eq!(
        remind("2026-12-11").await,
        0,
        "the day itself is no longer ahead"
    );

    let received = eventually("three reminders", Duration::from_secs(60), async || {
        let got = lines.lock().expect("lines").clone();
        (got.len() >= 3).then_some(got)
    })
    .await;
    let days: BTreeSet<i64> = received
        .iter()
        .map(|r| r["days_left"].as_i64().expect("days_left"))
        .collect();
    assert_eq!(days, BTreeSet::from([90, 30, 7]));
    assert_eq!(received.len(), 3, "each once");
    for r in &received {
        assert_eq!(r["type"], "retirement.reminder");
        assert_eq!(r["event_type"], "retirement");
        assert_eq!(r["model_id"], "openai:o3");
        assert_eq!(r["effective_date"], "2026-12-11");
        assert_eq!(r["successor"], "openai:gpt-5.6-sol");
    }
    // the documented receiver verified each; a wrong secret would have been refused
    let bodies: Vec<String> = column(
        &owner,
        "select payload::text from pricing.webhook_deliveries order by id",
    )
    .await;
    assert_eq!(bodies.len(), 3, "only o3's subscription was reminded");
    for body in &bodies {
        app.check_webhook("pricingEvent", body).await;
    }
    let _ = python.kill().await;
}

#[tokio::test]
async fn a_slow_receiver_holds_its_own_slot_only() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let key = free_key(&db).await;
    let (receiver, base) = Receiver::start(0).await;
    // two slots, one-second attempts; a timed-out delivery waits 60 s
    let app = webhook_app(
        &db,
        Settings {
            slots: 2,
            timeout: Duration::from_secs(1),
            ..settings(Duration::from_secs(60))
        },
    )
    .await;
    subscribe(&app, &key, json!({"url": format!("{base}/slow")})).await;
    subscribe(&app, &key, json!({"url": format!("{base}/fast")})).await;
    publish_fixture(&db, "snapshot-b.json").await;
    let expected = new_events(&db, "").await;

    let hits = eventually(
        "every delivery to the fast receiver, three attempts at the slow one",
        Duration::from_secs(120),
        async || {
            let hits = receiver.hits();
            let fast: BTreeSet<i64> = hits
                .iter()
                .filter(|h| h.path == "/fast")
                .map(event_id)
                .collect();
            let slow = hits.iter().filter(|h| h.path == "/slow").count();
            (fast.len() == expected.len() && slow >= 3).then_some(hits)
        },
    )
    .await;
    // the hanging receiver got one attempt at a time, each cut off after a
    // second, while the other subscription got everything
    let slow: Vec<&Hit> = hits.iter().filter(|h| h.path == "/slow").collect();
    assert!(
        slow.len() < expected.len(),
        "the slow one is still owed deliveries"
    );
    for pair in slow.windows(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(
            gap >= Duration::from_millis(900),
            "two attempts at once: {gap:?} apart"
        );
    }
    let owner = db.client().await;
    let error = recorded_error(&owner, "and w.url like '%/slow'").await;
    assert!(error.contains("timed out"), "{error}");
}

#[tokio::test]
async fn deliveries_are_claimed_one_per_subscription_within_the_keys_hourly_attempts() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let key = free_key(&db).await;
    // a server without a worker: the test takes the worker's part in SQL
    let app = webhook_app(
        &db,
        Settings {
            deliver: false,
            ..settings(Duration::from_secs(5))
        },
    )
    .await;
    subscribe(&app, &key, json!({"url": "http://127.0.0.1:9/a"})).await;
    subscribe(
        &app,
        &key,
        json!({"url": "http://127.0.0.1:9/b", "event_type": ["deprecation"]}),
    )
    .await;
    publish_fixture(&db, "snapshot-b.json").await;
    let owner = db.client().await;
    let one = async |sql: &str| -> i64 {
        owner
            .query_one(sql, &[])
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .get(0)
    };
    let all = new_events(&db, "").await.len() as i64;
    let deprecations = new_events(&db, "and e.event_type = 'deprecation'")
        .await
        .len() as i64;
    assert_eq!(
        one("select api.webhook_fanout()::int8").await,
        all + deprecations
    );
    assert_eq!(
        one("select api.webhook_fanout()::int8").await,
        0,
        "once per subscription and event"
    );
    let claim = "select count(*) from api.webhook_claim(8, '1 minute', 100)";
    // two servers claiming at once: what one is claiming, the other skips
    let mut first = db.client().await;
    let tx = first.transaction().await.expect("begin");
    let claimed: i64 = tx.query_one(claim, &[]).await.expect("claim").get(0);
    assert_eq!(claimed, 2, "one per subscription");
    assert_eq!(one(claim).await, 0, "the other server skips them");
    tx.commit().await.expect("commit");
    assert_eq!(one(claim).await, 0, "none while each has one in flight");

    // a failed attempt frees its subscription; a success is final
    let leased: Vec<i64> = column(
        &owner,
        "select id from pricing.webhook_deliveries where leased_until is not null order by id",
    )
    .await;
    let record = async |id: i64, delivered: bool| -> Option<String> {
        owner
            .query_one(
                "select api.webhook_record($1, $2, 500, 'test', '0 seconds', '1 day')",
                &[&id, &delivered],
            )
            .await
            .expect("record")
            .get(0)
    };
    assert_eq!(record(leased[0], false).await.as_deref(), Some("pending"));
    assert_eq!(record(leased[1], true).await.as_deref(), Some("delivered"));
    assert_eq!(
        record(leased[1], false).await.as_deref(),
        Some("delivered"),
        "a delivered one stays delivered"
    );
    assert_eq!(one(claim).await, 2);
    // the key has made 4 attempts this hour: with a limit of 4, nothing more
    assert_eq!(
        one("select count(*) from api.webhook_claim(8, '1 minute', 4)").await,
        0
    );
    // a day after it was made, a failed attempt is the last
    owner
        .execute(
            "update pricing.webhook_deliveries set created_at = now() - interval '25 hours'
             where id = $1",
            &[&leased[0]],
        )
        .await
        .expect("age");
    owner
        .execute(
            "update pricing.webhook_deliveries set leased_until = now() + interval '1 minute'
             where id = $1",
            &[&leased[0]],
        )
        .await
        .expect("lease");
    assert_eq!(record(leased[0], false).await.as_deref(), Some("failed"));
}
