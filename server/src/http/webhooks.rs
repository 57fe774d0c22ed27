//! `POST`, `GET /api/v1/webhooks` and `DELETE /api/v1/webhooks/{webhook_id}`:
//! a key holder's webhook subscriptions (crate::webhooks, docs/webhooks.md).
//! The key is the one the rate-limit hoop resolved; without one the answer is
//! 401 `KEY_REQUIRED`. Never cached.

use salvo::http::StatusCode;
use salvo::http::header::CACHE_CONTROL;
use salvo::prelude::*;
use serde_json::Value;

use crate::access::Caller;
use crate::error::{ApiError, ErrorCode};
use crate::service::params::Query;
use crate::service::state;
use crate::service::webhooks;
use crate::webhooks::Webhooks;

/// The largest subscription body read.
const MAX_BODY_BYTES: usize = 16 * 1024;

/// Checks the query (nothing but `key`) and answers the id of the caller's
/// key and the server's webhooks.
fn holder<'d>(req: &Request, depot: &'d Depot) -> Result<(i64, &'d Webhooks), ApiError> {
    Query::parse(req.uri().query(), &[])?;
    let Ok(Caller::Key(key)) = depot.get_typed::<Caller>() else {
        return Err(ApiError::new(
            ErrorCode::KeyRequired,
            "webhooks belong to a key: this request carries none",
            "send your API key (X-API-Key, Authorization: Bearer, or ?key=); free keys are issued on request",
        ));
    };
    let webhooks = state(depot).webhooks().ok_or_else(|| {
        ApiError::new(
            ErrorCode::ServiceUnavailable,
            "this server does not deliver webhooks",
            "ask the operator; `pricing serve` delivers them by default",
        )
    })?;
    Ok((key.id, webhooks))
}

fn send(res: &mut Response, status: StatusCode, body: Value) {
    let _ = res.add_header(CACHE_CONTROL, "no-store", true);
    res.status_code(status);
    res.render(Json(body));
}

#[handler]
pub(super) async fn create(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let (key, webhooks) = holder(req, depot)?;
    let body = super::endpoints::json_body(req, MAX_BODY_BYTES).await?;
    let created = webhooks::create(webhooks, &state(depot).control, key, body).await?;
    send(res, StatusCode::CREATED, created);
    Ok(())
}

#[handler]
pub(super) async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let (key, webhooks) = holder(req, depot)?;
    let listed = webhooks::list(webhooks, &state(depot).control, key).await?;
    send(res, StatusCode::OK, listed);
    Ok(())
}

#[handler]
pub(super) async fn delete(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let (key, _) = holder(req, depot)?;
    let id = req.param::<String>("webhook_id").unwrap_or_default();
    let deleted = webhooks::delete(&state(depot).control, key, &id).await?;
    send(res, StatusCode::OK, deleted);
    Ok(())
}
