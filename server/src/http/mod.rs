//! The HTTP server: routes, shared state, access log, rate limits and error catcher.

pub(crate) mod body;
pub mod cache;
pub(crate) mod changes;
pub(crate) mod compare;
mod cors;
mod demo;
mod dumps;
pub(crate) mod estimate;
mod feeds;
mod health;
pub(crate) mod limits;
pub(crate) mod models;
mod openapi;
pub mod params;
pub mod respond;
pub mod vocab;

pub use demo::DEFAULT_DEMO_DIR;
pub use openapi::OPENAPI_JSON;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use deadpool_postgres::Pool;
use salvo::catcher::Catcher;
use salvo::conn::tcp::TcpAcceptor;
use salvo::http::StatusCode;
use salvo::prelude::*;
use salvo::routing::filters::{self, Filter as _};

use crate::access::{Access, Caller};
use crate::error::{ApiError, ErrorCode};
use crate::net::Cidr;
use crate::reads::Reads;

/// What every handler can reach, injected into the depot.
#[derive(Debug, Clone)]
pub struct AppState {
    /// Data reads (the `api` functions behind the endpoints): the primary's
    /// data pool and any read replicas.
    reads: Arc<Reads>,
    /// Accounting, key resolution and the health probe: a pool of their own,
    /// so that data requests holding every data connection cannot make
    /// quotas fail open or health report the database unreachable.
    control: Pool,
    key_cache_ttl: Duration,
    started: Instant,
    trusted_proxies: Arc<[Cidr]>,
    access: Access,
    cache: Arc<cache::ResponseCache>,
    listen: Option<tokio_postgres::Config>,
    /// The built browser calculator served at `/demo/` (see demo.rs).
    demo_dir: PathBuf,
}

impl AppState {
    /// State over a pool of `pricing_web` connections, for data reads and
    /// control traffic alike (see [`Self::with_control_pool`]).
    pub fn new(pool: Pool, trusted_proxies: Vec<Cidr>) -> Self {
        Self {
            access: Access::new(pool.clone()),
            control: pool.clone(),
            key_cache_ttl: crate::keys::DEFAULT_CACHE_TTL,
            reads: Arc::new(Reads::new(pool)),
            started: Instant::now(),
            trusted_proxies: trusted_proxies.into(),
            cache: Arc::new(cache::ResponseCache::new(cache::Limits::default())),
            listen: None,
            demo_dir: PathBuf::from(DEFAULT_DEMO_DIR),
        }
    }

    /// The same state with the response cache on: it is used while a
    /// connection made with `config` LISTENs for new publishes.
    pub fn with_response_cache(
        mut self,
        config: tokio_postgres::Config,
        limits: cache::Limits,
    ) -> Self {
        self.cache = Arc::new(cache::ResponseCache::new(limits));
        self.listen = Some(config);
        self
    }

    /// The same state with another API key cache TTL (zero: no caching).
    pub fn with_key_cache_ttl(mut self, ttl: Duration) -> Self {
        self.key_cache_ttl = ttl;
        self.access = Access::with_key_cache_ttl(self.control.clone(), ttl);
        self
    }

    /// The same state with quota accounting, key resolution and the health
    /// probe on `control` (see [`crate::db::control_pool`]) instead of the
    /// data pool.
    pub fn with_control_pool(mut self, control: Pool) -> Self {
        self.access = Access::with_key_cache_ttl(control.clone(), self.key_cache_ttl);
        self.control = control;
        self
    }

    /// The same state with the data reads spread over these read replicas
    /// (name, pool) as well (see [`crate::reads`]).
    pub fn with_read_replicas(mut self, replicas: Vec<(String, Pool)>) -> Self {
        self.reads = Arc::new(Reads::new(self.reads.primary().clone()).with_replicas(replicas));
        self
    }

    /// Key resolution and quota accounting, also for channels other than REST (MCP).
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// The response cache, also for channels other than REST (MCP).
    pub fn cache(&self) -> &cache::ResponseCache {
        &self.cache
    }

    /// Serves the browser calculator at `/demo/` from `dir` instead of [`DEFAULT_DEMO_DIR`].
    pub fn with_demo_dir(mut self, dir: PathBuf) -> Self {
        self.demo_dir = dir;
        self
    }
}

/// A bound, not yet running, server.
#[derive(Debug)]
pub struct App {
    acceptor: TcpAcceptor,
    addr: SocketAddr,
    state: AppState,
}

impl App {
    /// Binds `listen` (use port 0 for any free port).
    pub async fn bind(listen: &str, state: AppState) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("listening on {listen}"))?;
        let addr = listener.local_addr()?;
        let acceptor = TcpAcceptor::try_from(listener)?;
        Ok(Self {
            acceptor,
            addr,
            state,
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `shutdown` completes, then drains in-flight requests (10 s at most).
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) {
        let server = Server::new(self.acceptor);
        let handle = server.handle();
        tokio::spawn(async move {
            shutdown.await;
            tracing::info!("shutting down: finishing in-flight requests");
            handle.stop_graceful(Some(Duration::from_secs(10)));
        });
        tracing::info!(addr = %self.addr, "serving");
        let accountant = self.state.access.accountant().clone();
        let listener = self
            .state
            .listen
            .clone()
            .map(|config| tokio::spawn(self.state.cache.clone().listen(config)));
        let server = server.serve(service(self.state, self.addr.ip().is_loopback()));
        accountant.upkeep_while(server).await;
        if let Some(listener) = listener {
            listener.abort();
        }
    }
}

/// The whole service: routes, state, access log, rate limits and the JSON
/// error catcher. The hoops are the service's, not the router's, so that they
/// also run for paths no route matches (those 404s are logged and counted).
pub fn service(state: AppState, loopback: bool) -> Service {
    // The browser calculator (web-demo/): static files, outside the API.
    let demo = demo::router(&state.demo_dir);
    let router = Router::new()
        .push(Router::with_path("healthz").push(read(health::healthz)))
        .push(
            Router::with_path("api/v1")
                .push(Router::with_path("health").push(read(health::health)))
                .push(Router::with_path("openapi.json").push(read(openapi::openapi)))
                .push(
                    Router::new()
                        .hoop(cache::response_cache)
                        .push(
                            Router::with_path("models").push(read(models::list)).push(
                                Router::with_path("{model_id}")
                                    .push(read(models::card))
                                    .push(Router::with_path("history").push(read(models::history))),
                            ),
                        )
                        .push(Router::with_path("compare").push(read(compare::compare)))
                        .push(Router::with_path("changes").push(read(changes::changes))),
                )
                .push(Router::with_path("estimate").post(estimate::estimate_cost)),
        )
        .push(
            Router::new()
                .hoop(cache::response_cache)
                .push(
                    Router::with_path("feeds")
                        .push(Router::with_path("changes.xml").push(read(feeds::changes_xml)))
                        .push(Router::with_path("changes.json").push(read(feeds::changes_json))),
                )
                .push(Router::with_path("dumps/prices.csv").push(read(dumps::prices_csv))),
        )
        .push(
            Router::with_path("mcp")
                .hoop(limits::mcp_client)
                .hoop(crate::mcp::jsonrpc_guard)
                .goal(TowerServiceCompat::<salvo::http::ReqBody, _, _, _>::compat(
                    crate::mcp::streamable_http(state.clone(), loopback),
                )),
        )
        .push(demo);
    Service::new(router)
        .hoop(affix_state::inject(Arc::new(state)))
        .hoop(access_log)
        .hoop(cors::cors)
        .hoop(limits::rate_limit)
        .catcher(Catcher::new(json_errors))
}

/// A read route: GET, and HEAD with the same handler (salvo sends a HEAD
/// answer's headers without its body).
fn read<H: Handler>(goal: H) -> Router {
    Router::with_filter(filters::get().or(filters::head())).goal(goal)
}

fn state(depot: &Depot) -> &AppState {
    // Injected by the service's first hoop for every request.
    depot
        .get_typed::<Arc<AppState>>()
        .unwrap_or_else(|_| unreachable!("AppState is injected for every route"))
}

/// How much of a request's path and of its query the access log keeps, in
/// characters: a line stays short whatever the client sends.
const MAX_LOGGED_CHARS: usize = 256;

/// Logs one line per request. Keys never reach the log: the `key` query
/// parameter is redacted and a caller is named by its key's prefix only.
#[handler]
async fn access_log(req: &mut Request, depot: &mut Depot, res: &mut Response, ctrl: &mut FlowCtrl) {
    let started = Instant::now();
    ctrl.call_next(req, depot, res).await;
    if !tracing::enabled!(tracing::Level::INFO) {
        return;
    }
    let client = limits::logged_client(req, depot);
    let caller = depot.get_typed::<Caller>().ok().map(Caller::log_name);
    let query = redact_query(req.uri().query().unwrap_or(""));
    tracing::info!(
        method = %req.method(),
        path = %params::shorten(req.uri().path(), MAX_LOGGED_CHARS),
        query = %params::shorten(&query, MAX_LOGGED_CHARS),
        status = res.status_code.unwrap_or(StatusCode::OK).as_u16(),
        micros = started.elapsed().as_micros() as u64,
        client = %client,
        caller = caller.as_deref().unwrap_or("-"),
        "request"
    );
}

/// Replaces with `REDACTED` the value of every parameter that is `key` once
/// decoded (`k%65y` too: the server would take it as the key) or whose value
/// looks like a key, whatever the parameter.
fn redact_query(query: &str) -> String {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let Some((raw_name, _)) = pair.split_once('=') else {
                return pair.to_owned();
            };
            let secret = form_urlencoded::parse(pair.as_bytes()).any(|(name, value)| {
                name == "key" || value.trim_start().starts_with(crate::keys::KEY_PREFIX)
            });
            if secret {
                format!("{raw_name}=REDACTED")
            } else {
                pair.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Renders statuses no handler wrote a body for (unknown path, wrong method) as
/// the spec's error object.
#[handler]
async fn json_errors(req: &Request, res: &mut Response, ctrl: &mut FlowCtrl) {
    let status = res.status_code.unwrap_or(StatusCode::NOT_FOUND);
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::new(
            ErrorCode::NotFound,
            format!("no such path: {}", params::excerpt(req.uri().path())),
            "see GET /api/v1/openapi.json for the paths this service serves",
        ),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::new(
            ErrorCode::MethodNotAllowed,
            format!(
                "{} is not allowed on {}",
                req.method(),
                params::excerpt(req.uri().path())
            ),
            "use GET or HEAD (or POST for /api/v1/estimate)",
        ),
        _ if status.is_server_error() => ApiError::new(
            ErrorCode::Internal,
            "the service failed to answer this request",
            "retry; if it keeps failing, report it with the request URL",
        ),
        _ => return,
    };
    error.render(res);
    ctrl.skip_rest();
}

#[cfg(test)]
mod tests {
    use super::redact_query;

    #[test]
    fn key_parameters_are_redacted_from_logged_queries() {
        assert_eq!(
            redact_query("limit=5&key=pr_live_secret&keyword=x"),
            "limit=5&key=REDACTED&keyword=x"
        );
        assert_eq!(redact_query(""), "");
    }

    #[test]
    fn encoded_key_names_and_key_like_values_are_redacted_too() {
        assert_eq!(redact_query("k%65y=secret&a=1"), "k%65y=REDACTED&a=1");
        assert_eq!(
            redact_query("api_key=pr_live_secret&q=pr"),
            "api_key=REDACTED&q=pr"
        );
        assert_eq!(redact_query("token=pr%5Flive%5Fsecret"), "token=REDACTED");
        assert_eq!(redact_query("key"), "key");
    }
}
