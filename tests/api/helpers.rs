//! The harness: the shared container, per-test databases, and a server per test.

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use pricing::publish::snapshot::Snapshot;
use pricing::publish::{self, Options};
use serde_json::Value;
use testcontainers::core::{IntoContainerPort, WaitFor};
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, GenericImage, ImageExt};
use time::OffsetDateTime;
use tokio::sync::oneshot;
use tokio_postgres::Config;

use crate::contract::Contract;

const TEMPLATE: &str = "pricing_template";
/// Settings for throwaway databases: speed over durability.
const PG_ARGS: &[&str] = &[
    "postgres",
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=400",
];

/// The image the tests run PostgreSQL from: `name:tag`.
pub fn pg_image() -> (String, String) {
    let image = std::env::var("PRICING_TEST_PG_IMAGE").unwrap_or_else(|_| "postgres:15".into());
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name.to_owned(), tag.to_owned()),
        _ => (image, "latest".to_owned()),
    }
}

/// Starts a PostgreSQL container; `host_port` pins the published port (so that
/// a restarted container keeps its address), `None` lets Docker pick one.
pub async fn start_postgres(host_port: Option<u16>) -> (ContainerAsync<GenericImage>, Config) {
    start_postgres_with(host_port, &[]).await
}

/// [`start_postgres`] with these environment variables for the image's
/// entrypoint (e.g. `PRICING_PG_PRIMARY`: a streaming standby of that primary).
pub async fn start_postgres_with(
    host_port: Option<u16>,
    env: &[(&str, &str)],
) -> (ContainerAsync<GenericImage>, Config) {
    let (name, tag) = pg_image();
    let image = GenericImage::new(name, tag)
        .with_exposed_port(5432.tcp())
        .with_wait_for(WaitFor::message_on_either_std(
            "database system is ready to accept connections",
        ));
    let mut request = image
        .with_env_var("POSTGRES_PASSWORD", "postgres")
        .with_env_var("POSTGRES_HOST_AUTH_METHOD", "trust")
        // scripts/test.sh removes the containers of its run by this label.
        .with_label(
            "pricing-tests",
            std::env::var("PRICING_TEST_RUN")
                .unwrap_or_else(|_| format!("pid-{}", std::process::id())),
        )
        .with_cmd(PG_ARGS.iter().copied())
        .with_startup_timeout(Duration::from_secs(120));
    for (name, value) in env {
        request = request.with_env_var(*name, *value);
    }
    if let Some(port) = host_port {
        request = request.with_mapped_port(port, 5432.tcp());
    }
    let container = request
        .start()
        .await
        .expect("start PostgreSQL (is Docker running and the image present? see README)");
    let port = container
        .get_host_port_ipv4(5432.tcp())
        .await
        .expect("published port");
    let mut config = Config::new();
    config
        .host("127.0.0.1")
        .port(port)
        .user("postgres")
        .password("postgres")
        .dbname("postgres");
    wait_until_connectable(&config).await;
    (container, config)
}

/// A PostgreSQL container of its own, published on a port chosen now so that
/// it keeps its address across a stop and start, migrated, with fixture A
/// published.
pub async fn restartable_postgres() -> (ContainerAsync<GenericImage>, Config, publish::Report) {
    let (container, config) = start_postgres(Some(free_port())).await;
    let mut owner = connect(&config).await;
    pricing::store::db::migrate(&mut owner)
        .await
        .expect("migrate");
    let published = publish_fixture_with(&mut owner, "snapshot-a.json").await;
    (container, config, published)
}

/// A TCP port free now, for a container that must keep its address across a
/// stop and start.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// The official image logs "ready" once for its init-time server (socket only):
/// poll until TCP connections really succeed.
pub async fn wait_until_connectable(config: &Config) {
    eventually(
        "PostgreSQL accepts connections",
        Duration::from_secs(30),
        async || config.connect(tokio_postgres::NoTls).await.ok().map(drop),
    )
    .await;
}

/// How long [`eventually`] waits between two probes.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Probes until `probe` answers `Some`, for at most `within`, and returns what
/// it found; panics naming `what` otherwise. The one way the tests wait for
/// something that happens in the background (a notification, a reconnect, a
/// restarted database), bounded and never a fixed sleep.
pub async fn eventually<T>(
    what: &str,
    within: Duration,
    mut probe: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

/// Awaits every task, in order: their results.
pub async fn futures_join<T>(handles: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    let handles: Vec<_> = handles.collect();
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await.expect("task"));
    }
    out
}

/// The items of a list answer (`data.items`).
pub fn items(body: &Value) -> Vec<Value> {
    body["data"]["items"].as_array().expect("items").clone()
}

/// The container shared by every test of this binary, with the migrated template.
struct Shared {
    config: Config,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        // The container lives on a runtime of its own that outlasts every test's runtime.
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Runtime::new().expect("runtime");
            runtime.block_on(async move {
                let (container, config) = start_postgres(None).await;
                let admin = connect(&config).await;
                admin
                    .batch_execute(&format!("create database {TEMPLATE}"))
                    .await
                    .expect("create template");
                let mut template = config.clone();
                template.dbname(TEMPLATE);
                let mut client = connect(&template).await;
                pricing::store::db::migrate(&mut client)
                    .await
                    .expect("migrate template");
                drop(client);
                tx.send(config).expect("hand over config");
                // Keep the container (and its runtime) alive for the whole process.
                let _container = container;
                std::future::pending::<()>().await;
            });
        });
        let config = rx.recv().expect("shared PostgreSQL started");
        Shared { config }
    })
}

pub async fn connect(config: &Config) -> tokio_postgres::Client {
    pricing::store::db::connect(config).await.expect("connect")
}

/// A database of its own for one test, cloned from the migrated template.
#[derive(Debug)]
pub struct TestDb {
    pub config: Config,
}

impl TestDb {
    pub async fn new() -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let shared = shared();
        let name = format!(
            "t{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let admin = connect(&shared.config).await;
        admin
            .batch_execute(&format!("create database {name} template {TEMPLATE}"))
            .await
            .expect("clone template");
        let mut config = shared.config.clone();
        config.dbname(&name);
        Self { config }
    }

    pub async fn client(&self) -> tokio_postgres::Client {
        connect(&self.config).await
    }

    /// The one integer `sql` selects (a count, a sum), over a connection of its own.
    pub async fn scalar_i64(&self, sql: &str) -> i64 {
        self.client()
            .await
            .query_one(sql, &[])
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .get(0)
    }
}

/// A running server over a test database, stopped when dropped.
#[derive(Debug)]
pub struct TestApp {
    pub addr: SocketAddr,
    pub http: reqwest::Client,
    contract: tokio::sync::OnceCell<&'static Contract>,
    /// The server's state: its `access()` is what the MCP channel will call.
    pub state: pricing::service::AppState,
    _stop: oneshot::Sender<()>,
}

/// How a test server differs from the default one.
#[derive(Debug, Default, Clone)]
pub struct AppOptions {
    pub trusted_proxies: Vec<pricing::access::net::Cidr>,
    pub key_cache_ttl: Option<Duration>,
    pub pool_size: Option<usize>,
    /// The in-process response cache, kept current by a publish listener.
    pub response_cache: bool,
    /// `--public-url`.
    pub public_url: Option<String>,
    /// Webhooks with these settings: the endpoints and a delivery worker.
    pub webhooks: Option<pricing::webhooks::Settings>,
    /// The addresses GET /metrics answers (`--metrics-from`); loopback when `None`.
    pub metrics_from: Option<Vec<pricing::access::net::Cidr>>,
}

impl TestApp {
    pub async fn spawn(config: &Config) -> Self {
        Self::spawn_with(config, AppOptions::default()).await
    }

    pub async fn spawn_with(config: &Config, options: AppOptions) -> Self {
        let mut owner = connect(config).await;
        pricing::store::db::migrate(&mut owner)
            .await
            .expect("migrate");
        // As `pricing serve` has them: accounting, keys and health apart.
        let (pool, control) =
            pricing::store::db::server_pools(config, options.pool_size.unwrap_or(4))
                .await
                .expect("pools");
        let mut state = pricing::service::AppState::new(pool, options.trusted_proxies)
            .with_control_pool(control);
        if options.response_cache {
            state = state.with_response_cache(config.clone(), Default::default());
        }
        if let Some(url) = &options.public_url {
            state = state.with_public_url(url);
        }
        if let Some(settings) = options.webhooks {
            let pool = pricing::store::db::webhook_pool(config).expect("webhook pool");
            state = state.with_webhooks(pricing::webhooks::Webhooks::new(settings, pool));
        }
        if let Some(allowed) = options.metrics_from {
            state = state.with_metrics_from(allowed);
        }
        Self::spawn_on(state, options.key_cache_ttl).await
    }

    /// A server over a state built by the test (e.g. a pool to nowhere).
    pub async fn spawn_on(
        state: pricing::service::AppState,
        key_cache_ttl: Option<Duration>,
    ) -> Self {
        let state = match key_cache_ttl {
            Some(ttl) => state.with_key_cache_ttl(ttl),
            None => state,
        };
        let app = pricing::App::bind("127.0.0.1:0", state.clone())
            .await
            .expect("bind");
        let addr = app.local_addr();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(app.run(async move {
            let _ = stopped.await;
        }));
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("http client");
        Self {
            addr,
            http,
            contract: tokio::sync::OnceCell::new(),
            state,
            _stop: stop,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(self.url(path)).send().await.expect("request")
    }

    /// The OpenAPI document this server serves, compiled.
    async fn contract(&self) -> &'static Contract {
        *self
            .contract
            .get_or_init(|| async {
                let text = self
                    .get("/api/v1/openapi.json")
                    .await
                    .text()
                    .await
                    .expect("openapi.json");
                Contract::for_document(&text)
            })
            .await
    }

    /// Sends `request` and checks the response against the served OpenAPI
    /// document (path, method, status, content type and body schema).
    pub async fn send(&self, method: &str, path: &str, request: reqwest::RequestBuilder) -> Reply {
        let res = request.send().await.expect("request");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let text = res.text().await.expect("body");
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let path_only = path.split('?').next().unwrap_or(path);
        self.contract()
            .await
            .check(method, path_only, status, &content_type, &text);
        Reply {
            status,
            headers,
            text,
        }
    }

    /// Checks a webhook delivery's body against the served document's `webhooks`.
    pub async fn check_webhook(&self, name: &str, body: &str) {
        self.contract().await.check_webhook(name, body);
    }

    /// DELETE `path` with extra headers, checked against the contract.
    pub async fn delete_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self.http.delete(self.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send("DELETE", path, request).await
    }

    /// POST a JSON body with extra headers, checked against the contract.
    pub async fn post_json_with(&self, path: &str, body: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self
            .http
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_owned());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send("POST", path, request).await
    }

    /// GET `path`, checked against the contract.
    pub async fn call(&self, path: &str) -> Reply {
        self.send("GET", path, self.http.get(self.url(path))).await
    }

    /// GET `path` with extra headers, checked against the contract.
    pub async fn call_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self.http.get(self.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send("GET", path, request).await
    }

    /// POST a JSON body (any text, sent as application/json), checked against the contract.
    pub async fn post_json(&self, path: &str, body: &str) -> Reply {
        let request = self
            .http
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_owned());
        self.send("POST", path, request).await
    }
}

/// A response that passed the contract check.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The error code of an error body.
    pub fn error_code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Asserts the status, showing the body when it differs.
    #[track_caller]
    pub fn expect(self, status: u16) -> Self {
        assert_eq!(self.status, status, "body: {}", self.text);
        self
    }
}

/// A database with both fixtures published (A then B) and a server over it.
pub async fn fixture_app() -> (TestDb, TestApp) {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    publish_fixture(&db, "snapshot-b.json").await;
    let app = data_app(&db).await;
    (db, app)
}

/// A server for tests of the data endpoints: the anonymous plan of this test's
/// own database is raised far beyond what a test sends, so that the data, not
/// the rate limits (tests/api/quota.rs), is what is tested. Still counted.
pub async fn data_app(db: &TestDb) -> TestApp {
    data_app_with(db, AppOptions::default()).await
}

/// [`data_app`] with other options.
pub async fn data_app_with(db: &TestDb, options: AppOptions) -> TestApp {
    db.client()
        .await
        .execute(
            "update pricing.plans set quota = 1000000000, burst_per_second = 1000000
             where name = 'anonymous'",
            &[],
        )
        .await
        .expect("raise the anonymous plan");
    TestApp::spawn_with(&db.config, options).await
}

/// Publishes the bundled dataset (data/snapshot.json.gz) as of its own day, so
/// that "current" means the data's day whenever the test runs.
pub async fn publish_bundled(db: &TestDb) {
    let snapshot =
        Snapshot::from_bytes(publish::BUNDLED_SNAPSHOT).expect("bundled snapshot parses");
    let options = Options {
        at: Some(snapshot.generated_at),
        ..Options::default()
    };
    publish::publish(&mut db.client().await, &snapshot, options)
        .await
        .expect("the bundled dataset publishes");
}

/// A database with the bundled dataset published and a server over it.
pub async fn bundled_app() -> (TestDb, TestApp) {
    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let app = data_app(&db).await;
    (db, app)
}

/// Percent-encodes one path segment or query value.
pub fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The bytes of a file in tests/fixtures.
pub fn fixture_bytes(name: &str) -> Vec<u8> {
    let path = format!("{}/../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

pub fn fixture(name: &str) -> Snapshot {
    Snapshot::from_bytes(&fixture_bytes(name)).expect("fixture parses")
}

/// Publishes a fixture (real data, tests/fixtures) at its own `generated_at`.
pub async fn publish_fixture(db: &TestDb, name: &str) -> publish::Report {
    publish_fixture_with(&mut db.client().await, name).await
}

/// Publishes a fixture at its own time over an owner connection.
pub async fn publish_fixture_with(
    client: &mut tokio_postgres::Client,
    name: &str,
) -> publish::Report {
    let snapshot = fixture(name);
    publish_at_with(client, &snapshot, snapshot.generated_at).await
}

/// Publishes a snapshot as of `at`.
pub async fn publish_at(db: &TestDb, snapshot: &Snapshot, at: OffsetDateTime) -> publish::Report {
    publish_at_with(&mut db.client().await, snapshot, at).await
}

/// Publishes a snapshot as of `at` over an owner connection.
async fn publish_at_with(
    client: &mut tokio_postgres::Client,
    snapshot: &Snapshot,
    at: OffsetDateTime,
) -> publish::Report {
    publish::publish(
        client,
        snapshot,
        Options {
            at: Some(at),
            ..Options::default()
        },
    )
    .await
    .unwrap_or_else(|e| panic!("publish as of {at}: {e}"))
}

/// A `postgres://` URL for a test database, for commands run as processes.
pub fn database_url(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        _ => "127.0.0.1".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgres://{}:{}@{host}:{port}/{}",
        config.get_user().unwrap_or("postgres"),
        config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .unwrap_or_default(),
        config.get_dbname().unwrap_or("postgres"),
    )
}

/// `pricing serve` on `database` with `args`, on any free port, trusting
/// X-Forwarded-For from localhost, with JSON logs on a piped stderr (for
/// [`Served::start`]).
pub fn serve_command(database: &Config, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_pricing"));
    cmd.args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--trusted-proxies",
        "127.0.0.1/32",
    ])
    .args(args)
    .env("DATABASE_URL", database_url(database))
    .env("PRICING_LOG_FORMAT", "json")
    .env("RUST_LOG", "info")
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .kill_on_drop(true);
    cmd
}

/// A `pricing serve` process, killed when dropped.
pub struct Served {
    pub child: tokio::process::Child,
    /// `host:port` it listens on.
    pub addr: String,
    /// Every log line it wrote after it began serving.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Served {
    /// Starts `cmd` (a `pricing serve` with JSON logs on a piped stderr) and
    /// reads its log until it says where it listens.
    pub async fn start(mut cmd: tokio::process::Command) -> Self {
        use tokio::io::AsyncBufReadExt as _;
        let mut child = cmd.spawn().expect("spawn pricing");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        let addr = tokio::time::timeout(Duration::from_secs(120), async {
            while let Some(line) = lines.next_line().await.expect("read log") {
                let Ok(entry) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if entry["fields"]["message"] == "serving" {
                    return entry["fields"]["addr"].as_str().expect("addr").to_owned();
                }
            }
            panic!("pricing serve exited before serving");
        })
        .await
        .expect("pricing serve did not start within 120 s");
        // Keep draining the log so the server never blocks on a full pipe;
        // its warnings go to the test's output (shown when the test fails),
        // and every line is kept for the test to read.
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = log.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("\"WARN\"") || line.contains("\"ERROR\"") {
                    eprintln!("pricing serve: {line}");
                }
                kept.lock().expect("log").push(line);
            }
        });
        Self { child, addr, log }
    }

    /// The log lines written so far (JSON lines, after it began serving).
    pub fn log_lines(&self) -> Vec<String> {
        self.log.lock().expect("log").clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Stops it as an operator does (SIGTERM) and checks that it exits
    /// cleanly within 30 s.
    pub async fn terminate(mut self) {
        let pid = self.child.id().expect("pid").to_string();
        let status = tokio::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .await
            .expect("kill");
        assert!(status.success());
        let exit = tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .expect("pricing serve stops within 30 s of SIGTERM")
            .expect("wait");
        assert!(exit.success(), "clean exit on SIGTERM: {exit}");
    }

    /// Its `/healthz` document.
    pub async fn healthz(&self, http: &reqwest::Client) -> Value {
        http.get(self.url("/healthz"))
            .send()
            .await
            .expect("healthz")
            .json()
            .await
            .expect("healthz json")
    }

    /// Waits (bounded) until its response cache is in use (the publish
    /// listener connected), then asks for `path` once with `header`, so that
    /// `path` is cached.
    pub async fn warm_cache(&self, http: &reqwest::Client, path: &str, header: (&str, &str)) {
        eventually(
            "the response cache is in use",
            Duration::from_secs(30),
            async || (self.healthz(http).await["response_cache"]["enabled"] == true).then_some(()),
        )
        .await;
        let res = http
            .get(self.url(path))
            .header(header.0, header.1)
            .send()
            .await
            .expect("warm-up request");
        assert_eq!(res.status(), 200, "warm-up of {path}");
    }
}

/// The interpreter of a test venv: `$env` when set, else `target/<venv>`
/// (made by scripts/ensure-mcp-client.sh or scripts/ensure-client-tools.sh,
/// which scripts/test.sh runs).
pub fn venv_python(env: &str, venv: &str) -> String {
    std::env::var(env)
        .unwrap_or_else(|_| format!("{}/../target/{venv}/bin/python", env!("CARGO_MANIFEST_DIR")))
}

/// Runs the repository's Python script `script` (a path from the repository
/// root) on `python` with `args`, `input` on its stdin, and returns the JSON
/// it prints; panics with its stderr when it fails or takes over 300 s.
pub async fn python_json(python: &str, script: &str, args: &[String], input: &str) -> Value {
    use tokio::io::AsyncWriteExt as _;
    let script = format!("{}/../{script}", env!("CARGO_MANIFEST_DIR"));
    let mut child = tokio::process::Command::new(python)
        .arg(&script)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("run {python} (see scripts/test.sh for the venv): {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(input.as_bytes())
        .await
        .expect("write input");
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(300), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{script} finishes within 300 s"))
        .expect("script output");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{script} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}
