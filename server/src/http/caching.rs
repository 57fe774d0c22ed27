//! The caching headers of a GET (docs/api.md, "Caching"): the data changes
//! only when a publish lands, so every cacheable GET carries
//! `Cache-Control: public, max-age=60` and an `ETag` derived from the served
//! publish, the current UTC day (defaults such as `until=today` depend on it)
//! and the request's path and normalized query (parameters sorted, the API key
//! left out). A request whose `If-None-Match` names that ETag gets
//! `304 Not Modified` without a body.

use salvo::http::StatusCode;
use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use salvo::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::service::respond::envelope;

/// `Cache-Control` of every cacheable GET.
pub const CACHE_CONTROL_VALUE: &str = "public, max-age=60";

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
    fn etags_change_with_the_publish_and_the_request() {
        let a = etag(1, "/api/v1/models", "limit=5");
        assert_eq!(a, etag(1, "/api/v1/models", "limit=5"));
        assert_ne!(a, etag(2, "/api/v1/models", "limit=5"));
        assert_ne!(a, etag(1, "/api/v1/models", "limit=6"));
        assert!(a.starts_with("\"p1-") && a.ends_with('"'));
    }
}
