//! Calling one `api.*` function and answering with its result: the envelope of
//! spec part 2.1, and the caching headers of a GET.
//!
//! Caching (docs/api.md): the data changes only when a publish lands, so every
//! cacheable GET carries `Cache-Control: public, max-age=60` and an `ETag`
//! derived from the served publish, the current UTC day (defaults such as
//! `until=today` depend on it) and the request's path and normalized query
//! (parameters sorted, the API key left out). A request whose `If-None-Match`
//! names that ETag gets `304 Not Modified` without a body.

use salvo::http::StatusCode;
use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use salvo::prelude::*;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use crate::error::ApiError;
use crate::http::AppState;

/// `Cache-Control` of every cacheable GET.
pub const CACHE_CONTROL_VALUE: &str = "public, max-age=60";

/// The envelope's `schema_version` (spec part 9).
pub const SCHEMA_VERSION: &str = "1";

/// Runs `sql` (one call of an `api` function returning jsonb with its
/// `publish`) on a pooled connection, of a read replica that has the served
/// publish or of the primary (see [`crate::store::reads`]), and returns its value.
pub async fn call_json(
    state: &AppState,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Value, ApiError> {
    let row = read(state, sql, params, |row| {
        row.try_get::<_, Value>(0).ok()?["publish"].as_i64()
    })
    .await?;
    row.try_get::<_, Value>(0)
        .map_err(|e| ApiError::internal("reading an api result", &e))
}

/// Runs `sql` (one `api` read answering one row) where data reads go;
/// `publish_of` finds the publish the row was computed from.
pub async fn read(
    state: &AppState,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    publish_of: impl Fn(&Row) -> Option<i64>,
) -> Result<Row, ApiError> {
    state
        .reads
        .query_one(sql, params, || state.cache.latest_publish(), publish_of)
        .await
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
    fn etags_change_with_the_publish_and_the_request() {
        let a = etag(1, "/api/v1/models", "limit=5");
        assert_eq!(a, etag(1, "/api/v1/models", "limit=5"));
        assert_ne!(a, etag(2, "/api/v1/models", "limit=5"));
        assert_ne!(a, etag(1, "/api/v1/models", "limit=6"));
        assert!(a.starts_with("\"p1-") && a.ends_with('"'));
    }
}
