//! `GET /api/v1/health` (readiness: database reachable, last publish) and
//! `GET /healthz` (liveness: the process answers; it also shows the last
//! `pricing sync` run). Neither needs a key or counts
//! against a quota.

use std::time::Duration;

use salvo::http::StatusCode;
use salvo::prelude::*;
use serde_json::json;
use time::format_description::well_known::Rfc3339;

use crate::service::state;
use crate::telemetry::Throttle;

/// The whole health check, connection included, must finish within this.
const HEALTH_TIMEOUT: Duration = Duration::from_millis(800);

#[handler]
pub(super) async fn health(depot: &mut Depot, res: &mut Response) {
    // The control pool: data requests cannot hold all of its connections.
    let pool = &state(depot).control;
    match tokio::time::timeout(HEALTH_TIMEOUT, crate::store::db::health(pool)).await {
        Ok(Ok(as_of)) => {
            let as_of = as_of.and_then(|t| t.format(&Rfc3339).ok());
            res.render(Json(json!({"status": "ok", "db": "ok", "as_of": as_of})));
        }
        outcome => {
            let reason = match outcome {
                Ok(Err(err)) => format!("{err:#}"),
                _ => "timed out".to_owned(),
            };
            static LOG: Throttle = Throttle::new(Duration::from_secs(10));
            if let Some(suppressed) = LOG.admit() {
                tracing::warn!(
                    %reason,
                    suppressed,
                    "health: database unreachable (logged at most once per 10 s)"
                );
            }
            res.status_code(StatusCode::SERVICE_UNAVAILABLE);
            res.render(Json(
                json!({"status": "unavailable", "db": "unreachable", "as_of": null}),
            ));
        }
    }
}

#[handler]
pub(super) async fn healthz(depot: &mut Depot, res: &mut Response) {
    let state = state(depot);
    // Liveness does not depend on the database: without an answer in time the
    // last sync is reported unknown (null), and /api/v1/health says why.
    let last_sync =
        tokio::time::timeout(HEALTH_TIMEOUT, crate::store::db::last_sync(&state.control))
            .await
            .ok()
            .and_then(Result::ok)
            .flatten();
    let pool = state.reads.primary().status();
    let control = state.control.status();
    res.render(Json(json!({
        "status": "ok",
        "service": "pricing",
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_seconds": state.started.elapsed().as_secs(),
        "pool": {"size": pool.size, "available": pool.available, "waiting": pool.waiting},
        "control_pool": {"size": control.size, "available": control.available, "waiting": control.waiting},
        "reads": state.reads.stats(),
        "quota_accounting": state.access.accountant().stats(),
        "response_cache": state.cache.stats(),
        "last_sync": last_sync,
        "embedded_database": state.embedded.as_ref().map(|s| s.stats()),
    })));
}
