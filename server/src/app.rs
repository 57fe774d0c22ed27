//! The server: binds a listener and serves the REST routes ([`crate::http`])
//! and the MCP endpoint ([`crate::mcp`]) over one [`AppState`].

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use salvo::catcher::Catcher;
use salvo::conn::tcp::TcpAcceptor;
use salvo::prelude::*;

use crate::access::limits;
use crate::service::AppState;
use crate::{http, mcp};

/// A bound, not yet running, server.
#[derive(Debug)]
pub struct App {
    acceptor: TcpAcceptor,
    addr: SocketAddr,
    state: AppState,
    demo_dir: PathBuf,
}

impl App {
    /// Binds `listen` (use port 0 for any free port).
    pub async fn bind(listen: &str, mut state: AppState) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("listening on {listen}"))?;
        let addr = listener.local_addr()?;
        state.default_public_url(addr);
        let acceptor = TcpAcceptor::try_from(listener)?;
        Ok(Self {
            acceptor,
            addr,
            state,
            demo_dir: PathBuf::from(http::DEFAULT_DEMO_DIR),
        })
    }

    /// Serves the browser pages at `/demo/` from `dir` instead of [`http::DEFAULT_DEMO_DIR`].
    pub fn with_demo_dir(mut self, dir: PathBuf) -> Self {
        self.demo_dir = dir;
        self
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
        let (stop_webhooks, webhooks_stopped) = tokio::sync::oneshot::channel();
        let webhooks = self
            .state
            .webhooks
            .clone()
            .filter(|webhooks| webhooks.settings.deliver)
            .map(|webhooks| tokio::spawn(crate::webhooks::worker::run(webhooks, webhooks_stopped)));
        let loopback = self.addr.ip().is_loopback();
        let server = server.serve(service(self.state, &self.demo_dir, loopback));
        accountant.upkeep_while(server).await;
        if let Some(listener) = listener {
            listener.abort();
        }
        if let Some(webhooks) = webhooks {
            // Attempts in flight end within their timeout and are recorded.
            let _ = stop_webhooks.send(());
            let _ = webhooks.await;
        }
    }
}

/// The whole service: the REST routes and the MCP endpoint over one state,
/// with the access log, the request metrics, CORS, rate limits and the JSON
/// error catcher. The hoops are the service's, not the router's, so that they
/// also run for paths no route matches (those 404s are logged and counted).
pub fn service(state: AppState, demo_dir: &Path, loopback: bool) -> Service {
    let router = Router::new()
        .push(http::router(demo_dir, state.cache.clone()))
        .push(mcp::router(state.clone(), loopback));
    Service::new(router)
        .hoop(
            affix_state::inject(state.access().clone())
                .inject(Arc::new(state))
                .inject(Arc::new(http::metrics::Requests::default())),
        )
        .hoop(http::access_log)
        .hoop(http::metrics::observe)
        .hoop(http::cors::cors)
        .hoop(http::bounds::bounds)
        .hoop(limits::rate_limit)
        .catcher(Catcher::new(http::json_errors))
}
