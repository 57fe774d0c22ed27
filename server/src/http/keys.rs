//! `POST /api/v1/keys`: a free key for whoever asks (spec part 5, rule 7;
//! docs/keys.md, "Keys on request"). Counted against the client address's
//! daily budget of key requests (plan `key_requests`), not its anonymous
//! quota, so that a visitor who used that up can still ask; the answer
//! carries that budget's `X-RateLimit-*` headers, and over it a 429 with
//! `Retry-After`. A key never used stops working after
//! [`keys::UNUSED_KEY_TTL`].

use salvo::http::StatusCode;
use salvo::http::header::{CACHE_CONTROL, HeaderValue, RETRY_AFTER};
use salvo::prelude::*;
use serde_json::{Value, json};

use crate::access::KeyRequest;
use crate::access::keys::{self, IssuedOnRequest};
use crate::access::limits::{access, request_client, write_headers};
use crate::access::quota::{Decision, Refusal};
use crate::error::{ApiError, ErrorCode};
use crate::service::params::Query;
use crate::service::vocab::SCHEMA_VERSION;

#[handler]
pub(super) async fn issue_key(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let _ = res.add_header(CACHE_CONTROL, "no-store", true);
    Query::parse(req.uri().query(), &[])?;
    let client = request_client(req, depot)?;
    let (decision, outcome) = access(depot).request_key(client).await;
    write_headers(res, &decision);
    let issued = match outcome.map_err(|err| match err.downcast_ref::<tokio_postgres::Error>() {
        Some(db) => ApiError::from_db(db),
        None => ApiError::unavailable(&format!("{err:#}")),
    })? {
        KeyRequest::Issued(issued) => issued,
        KeyRequest::Refused { by, retry_after } => {
            res.headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(retry_after));
            return Err(refused(by, &decision, retry_after));
        }
    };
    tracing::info!(
        key = %keys::display_prefix(issued.key.lookup()),
        "issued a free key on request"
    );
    res.status_code(StatusCode::CREATED);
    res.render(Json(answer(&issued)));
    Ok(())
}

/// The answer, in the envelope of spec part 2.1: the key (shown this once),
/// its plan's limits and when it expires unless used.
fn answer(issued: &IssuedOnRequest) -> Value {
    let expires = keys::timestamp(issued.unused_expires_at);
    json!({
        "schema_version": SCHEMA_VERSION,
        "as_of": keys::timestamp(issued.as_of),
        "data": {
            "key": issued.key.expose(),
            "prefix": keys::display_prefix(issued.key.lookup()),
            "plan": issued.plan,
            "quota": issued.quota,
            "window_seconds": issued.window_seconds,
            "burst_per_second": issued.burst_per_second,
            "created_at": keys::timestamp(issued.created_at),
            "unused_expires_at": expires,
        },
        "pagination": {"count": 1, "total_count": 1, "has_more": false, "next_cursor": null},
        "truncated": false,
        "hint": format!(
            "send the key as the X-API-Key header (or Authorization: Bearer) on REST and MCP; \
             it is shown this once, and stops working at {expires} unless it is used before"
        ),
    })
}

/// The 429 of a key request over the address's budget.
fn refused(by: Refusal, decision: &Decision, wait: u32) -> ApiError {
    let seconds = if wait == 1 { "second" } else { "seconds" };
    match (by, decision.window()) {
        (Refusal::Quota, Some(window)) => {
            let until = time::OffsetDateTime::from_unix_timestamp(window.reset)
                .map(keys::timestamp)
                .unwrap_or_default();
            ApiError::new(
                ErrorCode::RateLimited,
                format!(
                    "this address has asked for {} free keys today, the most a day allows; \
                     the next can be issued from {until}",
                    window.limit
                ),
                format!("use a key issued before, or wait {wait} {seconds} (Retry-After)"),
            )
        }
        _ => ApiError::new(
            ErrorCode::RateLimited,
            "too many key requests in a short time",
            format!("wait {wait} {seconds} (Retry-After)"),
        ),
    }
}
