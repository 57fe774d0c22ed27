//! Calling one `api.*` function and answering with its result: the envelope of
//! spec part 2.1, and the caching headers of a GET.
//!
//! Caching (docs/api.md): the data changes only when a publish lands, so every
//! cacheable GET carries `Cache-Control: public, max-age=60` and an `ETag`
//! derived from the served publish, the current UTC day (defaults such as
//! `until=today` depend on it) and the request's path and normalized query
//! (parameters sorted, the API key left out). A request whose `If-None-Match`
//! names that ETag gets `304 Not Modified` without a body.

use std::time::Duration;

use salvo::http::StatusCode;
use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use salvo::prelude::*;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

use super::AppState;
use crate::error::ApiError;
use crate::telemetry::Throttle;

/// `Cache-Control` of every cacheable GET.
pub const CACHE_CONTROL_VALUE: &str = "public, max-age=60";

/// The envelope's `schema_version` (spec part 9).
pub const SCHEMA_VERSION: &str = "1";

/// The statement budget of each `api` function, in milliseconds: about a
/// hundred times its p99 at the database on the full dataset (docs/api.md,
/// "Caching"), so that only a call stuck behind a lock or a pathological
/// input reaches it. Listings scan more than point lookups; the dump moves
/// its 0.9 MB.
const BUDGETS_MS: &[(&str, u32)] = &[
    ("api.list_models", 500),
    ("api.list_changes", 500),
    ("api.get_model", 250),
    ("api.model_history", 250),
    ("api.compare", 250),
    ("api.estimate_prices", 250),
    ("api.price_dump", 1000),
];

/// The `api` function a statement calls (`select api.f($1, ...)` or
/// `select ... from api.f()`) and its budget from [`BUDGETS_MS`].
fn budget_of(sql: &str) -> (&str, u32) {
    let function = sql
        .find("api.")
        .map(|at| &sql[at..])
        .and_then(|rest| rest.split_once('('))
        .map_or(sql, |(name, _)| name);
    let budget = BUDGETS_MS
        .iter()
        .find(|(name, _)| *name == function)
        .map_or(250, |(_, ms)| *ms);
    (function, budget)
}

/// Runs `sql` (one call of an `api` function) on a pooled connection under
/// the function's statement budget and returns its row. A call over budget
/// is cancelled by PostgreSQL and fails alone with 503, logged once with the
/// function's name, instead of holding the connection.
pub async fn call_row(
    state: &AppState,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Row, ApiError> {
    let (function, budget_ms) = budget_of(sql);
    let client = state.pool.get().await?;
    let (set_budget, statement, reset) = tokio::try_join!(
        client.prepare_cached("select set_config('statement_timeout', $1, false)"),
        client.prepare_cached(sql),
        client.prepare_cached("reset statement_timeout")
    )?;
    let budget = format!("{budget_ms}ms");
    let budget_params: [&(dyn ToSql + Sync); 1] = [&budget];
    // Sent together (tokio-postgres pipelines them): one round trip. The
    // reset gives the connection back with the pool's own timeout, for the
    // other users of the pool.
    let outcome = tokio::try_join!(
        client.query_one(&set_budget, &budget_params),
        client.query_one(&statement, params),
        client.execute(&reset, &[])
    );
    match outcome {
        Ok((_, row, _)) => Ok(row),
        Err(err) if err.code() == Some(&SqlState::QUERY_CANCELED) => {
            static LOG: Throttle = Throttle::new(Duration::from_secs(10));
            if let Some(suppressed) = LOG.admit() {
                tracing::warn!(
                    function,
                    budget_ms,
                    suppressed,
                    "statement budget exceeded; call cancelled (logged at most once per 10 s)"
                );
            }
            Err(ApiError::over_budget(budget_ms))
        }
        Err(err) => Err(err.into()),
    }
}

/// [`call_row`] for a function returning jsonb: its value.
pub async fn call_json(
    state: &AppState,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Value, ApiError> {
    call_row(state, sql, params)
        .await?
        .try_get::<_, Value>(0)
        .map_err(|e| ApiError::internal("reading an api result", &e))
}

/// The publish a result was computed from, and the envelope around it.
#[derive(Debug)]
pub struct Enveloped {
    /// Id of the served publish.
    pub publish: i64,
    /// `{schema_version, as_of, data, pagination, truncated, hint?}`.
    pub body: Value,
}

/// Wraps the result of an `api` function (`{as_of, publish, data, pagination,
/// hint}`) in the spec's envelope. Nothing is ever cut short, so `truncated`
/// is false.
pub fn envelope(mut result: Value) -> Enveloped {
    let publish = result["publish"].as_i64().unwrap_or_default();
    let mut body = Map::new();
    body.insert("schema_version".into(), json!(SCHEMA_VERSION));
    body.insert("as_of".into(), result["as_of"].take());
    body.insert("data".into(), result["data"].take());
    body.insert("pagination".into(), result["pagination"].take());
    body.insert("truncated".into(), json!(false));
    if let Some(hint) = result["hint"].as_str() {
        body.insert("hint".into(), json!(hint));
    }
    Enveloped {
        publish,
        body: Value::Object(body),
    }
}

/// The ETag of a response: publish, UTC day, path and normalized query.
pub fn etag(publish: i64, path: &str, normalized_query: &str) -> String {
    let today = time::OffsetDateTime::now_utc().date();
    let mut hasher = Sha256::new();
    hasher.update(format!("{publish}\n{today}\n{path}\n{normalized_query}"));
    format!("\"p{publish}-{}\"", &hex::encode(hasher.finalize())[..20])
}

/// Whether `If-None-Match` names `etag` (weak or strong, or `*`).
fn not_modified(req: &Request, etag: &str) -> bool {
    req.headers()
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

/// Answers a cacheable GET: the caching headers, then `304` when the client
/// has this version, else the body with its content type.
pub fn send_cached(
    req: &Request,
    res: &mut Response,
    etag: &str,
    content_type: &'static str,
    body: Vec<u8>,
) {
    let _ = res.add_header(ETAG, etag, true);
    let _ = res.add_header(CACHE_CONTROL, CACHE_CONTROL_VALUE, true);
    if not_modified(req, etag) {
        res.status_code(StatusCode::NOT_MODIFIED);
        return;
    }
    let _ = res.add_header(CONTENT_TYPE, content_type, true);
    let _ = res.write_body(body);
}

/// Answers a cacheable GET with an enveloped JSON result.
pub fn send_envelope(
    req: &Request,
    res: &mut Response,
    normalized_query: &str,
    result: Value,
) -> Result<(), ApiError> {
    let enveloped = envelope(result);
    let tag = etag(enveloped.publish, req.uri().path(), normalized_query);
    let bytes = serde_json::to_vec(&enveloped.body)
        .map_err(|e| ApiError::internal("serializing a response", &e))?;
    send_cached(req, res, &tag, "application/json", bytes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_keeps_data_and_pagination_and_drops_a_null_hint() {
        let result = json!({
            "as_of": "2026-10-01T00:00:00Z", "publish": 7,
            "data": {"items": []}, "pagination": {"count": 0}, "hint": null
        });
        let e = envelope(result);
        assert_eq!(e.publish, 7);
        assert_eq!(
            e.body,
            json!({
                "schema_version": "1", "as_of": "2026-10-01T00:00:00Z",
                "data": {"items": []}, "pagination": {"count": 0}, "truncated": false
            })
        );
    }

    #[test]
    fn every_api_call_has_a_budget_by_its_function_name() {
        assert_eq!(
            budget_of("select api.list_models($1::text, $2::text)"),
            ("api.list_models", 500)
        );
        assert_eq!(
            budget_of("select publish, csv from api.price_dump()"),
            ("api.price_dump", 1000)
        );
        assert_eq!(
            budget_of("select api.get_model($1::text)"),
            ("api.get_model", 250)
        );
    }

    #[test]
    fn etags_change_with_the_publish_and_the_request() {
        let a = etag(1, "/api/v1/models", "limit=5");
        assert_eq!(a, etag(1, "/api/v1/models", "limit=5"));
        assert_ne!(a, etag(2, "/api/v1/models", "limit=5"));
        assert_ne!(a, etag(1, "/api/v1/models", "limit=6"));
        assert!(a.starts_with("\"p1-") && a.ends_with('"'));
    }
}
