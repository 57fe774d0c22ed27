//! `GET /metrics`: the server's counters in the Prometheus text format
//! (version 0.0.4), for a scraper on the operator's side (docs/deployment.md,
//! "Metrics"). It answers only the client addresses of `--metrics-from`
//! (loopback by default; others get 403 `FORBIDDEN`) and is not counted
//! against any quota (it lies outside `/api/v1`).
//!
//! Requests are counted by the [`observe`] hoop, by route (the path template
//! the router matched, so the label set stays as small as the route table;
//! `unmatched` for paths no route serves) and status, with a latency histogram
//! per route; the rest is read at scrape time from what already counts it:
//! the response cache, the pools, the quota accounting, the read replicas and
//! the database (the served publish and the last sync).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use salvo::http::StatusCode;
use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use salvo::prelude::*;
use time::OffsetDateTime;

use super::routes::asked_operation;
use crate::access::limits::client_addr;
use crate::error::{ApiError, ErrorCode};
use crate::service::cache::Lookup;
use crate::service::{AppState, state};

/// The content type of the text format.
pub const CONTENT_TYPE_VALUE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds of the latency histogram's buckets, in microseconds (0.5 ms to 10 s).
const BUCKETS_MICROS: [u64; 14] = [
    500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000,
    2_500_000, 5_000_000, 10_000_000,
];

/// The statuses counted one by one: 100 to 599.
const STATUSES: std::ops::RangeInclusive<u16> = 100..=599;

/// How long a scrape waits for the database's answers (the served publish,
/// the last sync); without them in time the ages are left out.
const DB_TIMEOUT: Duration = Duration::from_millis(800);

/// One route's counters.
#[derive(Debug)]
struct Route {
    /// Requests by status, `status - 100`.
    statuses: Box<[AtomicU64]>,
    /// Requests by latency bucket (not cumulative; the last one is over every bound).
    buckets: [AtomicU64; BUCKETS_MICROS.len() + 1],
    micros: AtomicU64,
}

impl Default for Route {
    fn default() -> Self {
        Self {
            statuses: STATUSES.map(|_| AtomicU64::new(0)).collect(),
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            micros: AtomicU64::new(0),
        }
    }
}

/// The request counters of one service, injected into every request's depot
/// (`crate::app::service`).
#[derive(Debug, Default)]
pub struct Requests {
    /// By route label, without its leading `/`.
    routes: RwLock<HashMap<String, Arc<Route>>>,
}

impl Requests {
    fn route(&self, label: &str) -> Arc<Route> {
        let found = self
            .routes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(label)
            .cloned();
        found.unwrap_or_else(|| {
            let mut routes = self.routes.write().unwrap_or_else(|e| e.into_inner());
            routes.entry(label.to_owned()).or_default().clone()
        })
    }

    fn record(&self, label: &str, status: u16, took: Duration) {
        let route = self.route(label);
        let status = status.clamp(*STATUSES.start(), *STATUSES.end()) - STATUSES.start();
        route.statuses[usize::from(status)].fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let bucket = BUCKETS_MICROS
            .iter()
            .position(|bound| micros <= *bound)
            .unwrap_or(BUCKETS_MICROS.len());
        route.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        route.micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// The request families, routes in name order.
    fn render(&self, out: &mut Exposition) {
        let mut routes: Vec<(String, Arc<Route>)> = self
            .routes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(label, route)| (label.clone(), route.clone()))
            .collect();
        routes.sort_by(|a, b| a.0.cmp(&b.0));
        let label = |route: &str| {
            if route == UNMATCHED {
                route.to_owned()
            } else {
                format!("/{route}")
            }
        };
        out.family(
            "pricing_http_requests_total",
            "counter",
            "HTTP requests answered, by route (the path template; `unmatched`: no route) and status.",
        );
        for (name, route) in &routes {
            for (status, count) in STATUSES.zip(route.statuses.iter()) {
                let count = count.load(Ordering::Relaxed);
                if count > 0 {
                    out.sample(
                        "pricing_http_requests_total",
                        &[("route", &label(name)), ("status", &status.to_string())],
                        count as f64,
                    );
                }
            }
        }
        let name = "pricing_http_request_duration_seconds";
        out.family(
            name,
            "histogram",
            "Time from a request's arrival to its answer (rate limiting included), by route.",
        );
        for (route_name, route) in &routes {
            let route_label = label(route_name);
            let mut cumulative = 0;
            for (i, count) in route.buckets.iter().enumerate() {
                cumulative += count.load(Ordering::Relaxed);
                let le = BUCKETS_MICROS
                    .get(i)
                    .map_or_else(|| "+Inf".to_owned(), |b| seconds(*b).to_string());
                out.sample(
                    &format!("{name}_bucket"),
                    &[("route", &route_label), ("le", &le)],
                    cumulative as f64,
                );
            }
            let sum = seconds(route.micros.load(Ordering::Relaxed));
            out.sample(&format!("{name}_sum"), &[("route", &route_label)], sum);
            out.sample(
                &format!("{name}_count"),
                &[("route", &route_label)],
                cumulative as f64,
            );
        }
    }
}

fn seconds(micros: u64) -> f64 {
    micros as f64 / 1e6
}

/// The route label of a request no route matched.
const UNMATCHED: &str = "unmatched";

/// The route label of a request: for an answer from the response cache, the
/// route that computed it (`cache::hits` answers before any route matches);
/// the operation's path for a model route (one wildcard route serves the card
/// and the history); else the template the router matched.
pub(crate) fn route_label(req: &Request) -> &str {
    if let Some(Lookup::Hit(hit)) = req.extensions().get::<Lookup>() {
        return &hit.route;
    }
    let matched = req.matched_path();
    if matched.is_empty() {
        return UNMATCHED;
    }
    // A model route matched only once its filter found the operation.
    if matched.contains("{*+model_path}")
        && let Some(operation) = asked_operation(req)
    {
        return operation.path.trim_start_matches('/');
    }
    matched
}

/// Counts every request of the service, after everything else has answered it.
#[handler]
pub(crate) async fn observe(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    let started = Instant::now();
    ctrl.call_next(req, depot, res).await;
    let status = res.status_code.unwrap_or(StatusCode::OK).as_u16();
    if let Ok(requests) = depot.get_typed::<Arc<Requests>>() {
        requests.record(route_label(req), status, started.elapsed());
    }
}

/// Text in the exposition format.
struct Exposition(String);

impl Exposition {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.0, "# HELP {name} {help}\n# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.0.push_str(name);
        if !labels.is_empty() {
            self.0.push('{');
            for (i, (label, value)) in labels.iter().enumerate() {
                if i > 0 {
                    self.0.push(',');
                }
                let escaped = value
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('\n', "\\n");
                let _ = write!(self.0, "{label}=\"{escaped}\"");
            }
            self.0.push('}');
        }
        let _ = writeln!(self.0, " {value}");
    }

    /// A family of one sample without labels.
    fn single(&mut self, name: &str, kind: &str, help: &str, value: f64) {
        self.family(name, kind, help);
        self.sample(name, &[], value);
    }
}

/// The pools' gauges: connections open and in use, the bound, waiters.
fn pools(out: &mut Exposition, state: &AppState) {
    let mut pools: Vec<(String, &Pool)> = vec![
        ("data".to_owned(), state.reads.primary()),
        ("control".to_owned(), &state.control),
    ];
    pools.extend(
        state
            .reads
            .replica_pools()
            .map(|(name, pool)| (format!("replica {name}"), pool)),
    );
    let statuses: Vec<(String, deadpool_postgres::Status)> = pools
        .into_iter()
        .map(|(name, pool)| (name, pool.status()))
        .collect();
    let each =
        |out: &mut Exposition, name: &str, value: &dyn Fn(&deadpool_postgres::Status) -> usize| {
            for (pool, status) in &statuses {
                out.sample(name, &[("pool", pool)], value(status) as f64);
            }
        };
    out.family(
        "pricing_db_pool_connections_in_use",
        "gauge",
        "Connections of the pool lent out now (data: the data reads; control: accounting, keys, health; replica: a read replica's).",
    );
    each(out, "pricing_db_pool_connections_in_use", &|s| {
        s.size.saturating_sub(s.available)
    });
    out.family(
        "pricing_db_pool_connections_open",
        "gauge",
        "Connections of the pool open now.",
    );
    each(out, "pricing_db_pool_connections_open", &|s| s.size);
    out.family(
        "pricing_db_pool_connections_max",
        "gauge",
        "Most connections the pool opens.",
    );
    each(out, "pricing_db_pool_connections_max", &|s| s.max_size);
    out.family(
        "pricing_db_pool_waiting",
        "gauge",
        "Tasks waiting now for a connection of the pool.",
    );
    each(out, "pricing_db_pool_waiting", &|s| s.waiting);
}

/// The whole exposition of `state` and `requests`.
async fn exposition(state: &AppState, requests: &Requests) -> String {
    let mut out = Exposition(String::new());
    requests.render(&mut out);

    let cache = state.cache().stats();
    let count = |field: &str| cache[field].as_u64().unwrap_or(0) as f64;
    out.single(
        "pricing_response_cache_hits_total",
        "counter",
        "Answers served from the response cache (REST GETs, MCP tool results, estimate prices).",
        count("hits"),
    );
    out.single(
        "pricing_response_cache_misses_total",
        "counter",
        "Look-ups of the response cache that found nothing current.",
        count("misses"),
    );
    out.single(
        "pricing_response_cache_entries",
        "gauge",
        "Entries in the response cache.",
        count("entries"),
    );
    out.single(
        "pricing_response_cache_bytes",
        "gauge",
        "Bytes of the response cache's entries (bodies, all encodings).",
        count("bytes"),
    );
    out.single(
        "pricing_response_cache_enabled",
        "gauge",
        "1 while the response cache is in use (its publish listener is connected).",
        f64::from(u8::from(cache["enabled"].as_bool() == Some(true))),
    );

    pools(&mut out, state);

    let admission = state.access.accountant().stats();
    out.single(
        "pricing_admission_called_requests_total",
        "counter",
        "Requests whose admission went to the database in a call (those served from a lease did not).",
        admission.requests as f64,
    );
    out.single(
        "pricing_admission_leased_units_total",
        "counter",
        "Quota units granted to busy subjects ahead of their requests (leases).",
        admission.leased as f64,
    );
    out.single(
        "pricing_admission_calls_total",
        "counter",
        "Calls of the quota accounting's database function (api.admit_batch).",
        admission.db_calls as f64,
    );
    out.single(
        "pricing_admission_failed_open_total",
        "counter",
        "Requests let through uncounted because the quota accounting failed (fail-open).",
        admission.failed_open as f64,
    );

    let reads = state.reads.stats();
    out.family(
        "pricing_replica_reads_total",
        "counter",
        "Data reads sent to a read replica, by outcome (answered; behind: not used, the replica lagged; failed: run on the primary).",
    );
    for (outcome, field) in [
        ("answered", "from_replicas"),
        ("behind", "replica_behind"),
        ("failed", "replica_failed"),
    ] {
        let value = reads[field].as_u64().unwrap_or(0) as f64;
        out.sample(
            "pricing_replica_reads_total",
            &[("outcome", outcome)],
            value,
        );
    }

    let control = &state.control;
    let (served, last_sync) = tokio::join!(
        tokio::time::timeout(DB_TIMEOUT, crate::store::db::health(control)),
        tokio::time::timeout(DB_TIMEOUT, crate::store::db::last_sync(control)),
    );
    let now = OffsetDateTime::now_utc();
    let served = served.ok().and_then(Result::ok);
    out.single(
        "pricing_database_up",
        "gauge",
        "1 when the database answered this scrape within 0.8 s.",
        f64::from(u8::from(served.is_some())),
    );
    if let Some(Some(as_of)) = served {
        out.single(
            "pricing_publish_age_seconds",
            "gauge",
            "Seconds since the served publish's as_of.",
            (now - as_of).as_seconds_f64(),
        );
    }
    let synced = last_sync
        .ok()
        .and_then(Result::ok)
        .flatten()
        .and_then(|run| {
            let at = run["at"].as_str()?;
            OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339).ok()
        });
    if let Some(at) = synced {
        out.single(
            "pricing_last_sync_age_seconds",
            "gauge",
            "Seconds since the last `pricing sync` run on this database finished (absent: none has run).",
            (now - at).as_seconds_f64(),
        );
    }
    if let Some(embedded) = &state.embedded {
        out.single(
            "pricing_embedded_database_restarts_total",
            "counter",
            "Times this server started the embedded PostgreSQL's postmaster again after it died (absent: not on the embedded default).",
            embedded.restarts() as f64,
        );
    }
    out.single(
        "pricing_uptime_seconds",
        "gauge",
        "Seconds since this server process started.",
        state.started.elapsed().as_secs_f64(),
    );
    out.0
}

/// `GET /metrics`.
#[handler]
pub(super) async fn metrics(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let state = state(depot);
    let allowed = client_addr(req, state.access().trusted_proxies())
        .is_ok_and(|client| state.metrics_from.iter().any(|cidr| cidr.contains(client)));
    if !allowed {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "GET /metrics answers only the addresses the operator allows",
            "scrape it from an address listed in `pricing serve --metrics-from` (default: this machine)",
        ));
    }
    crate::service::params::Query::parse(req.uri().query(), &[])?;
    let requests = depot
        .get_typed::<Arc<Requests>>()
        .map_err(|_| ApiError::internal("metrics", &"no request counters"))?;
    let text = exposition(state, requests).await;
    let _ = res.add_header(CONTENT_TYPE, CONTENT_TYPE_VALUE, true);
    let _ = res.add_header(CACHE_CONTROL, "no-store", true);
    let _ = res.write_body(text.into_bytes());
    Ok(())
}
