//! What every operation and transport can reach: the data reads, the response
//! cache, access (keys and quotas) and the control pool; one [`AppState`] per
//! server, injected into every request's depot by `crate::app::service`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use salvo::Depot;

use super::cache;
use crate::access::Access;
use crate::access::net::{Cidr, LOOPBACK};
use crate::store::reads::Reads;
use crate::webhooks::Webhooks;

/// What every handler can reach, injected into the depot.
#[derive(Debug, Clone)]
pub struct AppState {
    /// Data reads (the `api` functions behind the endpoints): the primary's
    /// data pool and any read replicas.
    pub(crate) reads: Arc<Reads>,
    /// Accounting, key resolution and the health probe: a pool of their own,
    /// so that data requests holding every data connection cannot make
    /// quotas fail open or health report the database unreachable.
    pub(crate) control: Pool,
    key_cache_ttl: Duration,
    pub(crate) started: Instant,
    pub(crate) access: Access,
    pub(crate) cache: Arc<cache::ResponseCache>,
    pub(crate) listen: Option<tokio_postgres::Config>,
    /// The base URL the service is reached at, for the links it writes
    /// (feeds); never taken from a request's `Host` header.
    pub(crate) public_url: Arc<str>,
    /// Whether `public_url` was configured (`--public-url`), rather than
    /// made from the address the server listens on.
    pub(crate) public_url_configured: bool,
    /// The OpenAPI document as served: its server is the configured public
    /// URL, else `/` (this server).
    pub(crate) openapi: bytes::Bytes,
    /// The embedded cluster's supervision, when the server runs on it.
    pub(crate) embedded: Option<Arc<crate::store::cluster::Supervision>>,
    /// Webhook subscriptions and their delivery worker; `None`: the webhook
    /// endpoints answer 503 and nothing is delivered by this server.
    pub(crate) webhooks: Option<Webhooks>,
    /// The client addresses `GET /metrics` answers (`--metrics-from`).
    pub(crate) metrics_from: Arc<[Cidr]>,
}

impl AppState {
    /// State over a pool of `pricing_web` connections, for data reads and
    /// control traffic alike (see [`Self::with_control_pool`]).
    pub fn new(pool: Pool, trusted_proxies: Vec<Cidr>) -> Self {
        Self {
            access: Access::new(pool.clone()).with_trusted_proxies(trusted_proxies.into()),
            control: pool.clone(),
            key_cache_ttl: crate::access::keys::DEFAULT_CACHE_TTL,
            reads: Arc::new(Reads::new(pool)),
            started: Instant::now(),
            cache: Arc::new(cache::ResponseCache::new(cache::Limits::default())),
            listen: None,
            public_url: Arc::from("http://localhost"),
            public_url_configured: false,
            openapi: bytes::Bytes::from_static(super::OPENAPI_JSON.as_bytes()),
            embedded: None,
            webhooks: None,
            metrics_from: LOOPBACK.into(),
        }
    }

    /// The same state with the base URL the service is reached at
    /// (`--public-url`): the links in the feeds and the OpenAPI document's
    /// server name it.
    pub fn with_public_url(mut self, url: &str) -> Self {
        self.public_url = Arc::from(url.trim_end_matches('/'));
        self.public_url_configured = true;
        self.openapi = super::openapi::with_server(&self.public_url);
        self
    }

    /// The base URL made from the address the server listens on, unless one
    /// was configured.
    pub(crate) fn default_public_url(&mut self, listen: std::net::SocketAddr) {
        if !self.public_url_configured {
            self.public_url = Arc::from(format!("http://{listen}"));
        }
    }

    /// The same state reporting the embedded cluster's supervision in /healthz.
    pub fn with_embedded(mut self, supervision: Arc<crate::store::cluster::Supervision>) -> Self {
        self.embedded = Some(supervision);
        self
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
        self.access = Access::with_key_cache_ttl(self.control.clone(), ttl)
            .with_trusted_proxies(self.access.trusted_proxies().into());
        self
    }

    /// The same state with quota accounting, key resolution and the health
    /// probe on `control` (see [`crate::store::db::control_pool`]) instead of the
    /// data pool.
    pub fn with_control_pool(mut self, control: Pool) -> Self {
        self.access = Access::with_key_cache_ttl(control.clone(), self.key_cache_ttl)
            .with_trusted_proxies(self.access.trusted_proxies().into());
        self.control = control;
        self
    }

    /// The same state with the data reads spread over these read replicas
    /// (name, pool) as well (see [`crate::store::reads`]).
    pub fn with_read_replicas(mut self, replicas: Vec<(String, Pool)>) -> Self {
        self.reads = Arc::new(Reads::new(self.reads.primary().clone()).with_replicas(replicas));
        self
    }

    /// The same state with webhooks: the endpoints, and a delivery worker
    /// while the server runs.
    pub fn with_webhooks(mut self, webhooks: Webhooks) -> Self {
        self.webhooks = Some(webhooks);
        self
    }

    /// The webhooks of this server, if it has them.
    pub fn webhooks(&self) -> Option<&Webhooks> {
        self.webhooks.as_ref()
    }

    /// The same state with `GET /metrics` answering these client addresses
    /// instead of [`LOOPBACK`].
    pub fn with_metrics_from(mut self, allowed: Vec<Cidr>) -> Self {
        self.metrics_from = allowed.into();
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
}

/// The state of the server a request came to.
pub fn state(depot: &Depot) -> &AppState {
    // Injected by the service's first hoop for every request.
    depot
        .get_typed::<Arc<AppState>>()
        .unwrap_or_else(|_| unreachable!("AppState is injected for every route"))
}
