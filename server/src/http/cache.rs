//! HTTP caching (docs/api.md, "Caching"). The data changes only when a publish
//! lands, so every cacheable GET carries `Cache-Control: public, max-age=60`
//! and an `ETag` derived from the served publish, the current UTC day
//! (defaults such as `until=today` depend on it) and the request's path and
//! normalized query (parameters sorted, the API key left out); a request whose
//! `If-None-Match` names it gets `304 Not Modified` without a body.
//!
//! The [`response_cache`] hoop keeps the `200` answers of the data endpoints
//! under `/api/v1`, of the feeds and of the dump in the service's cache
//! ([`crate::service::cache`]), pre-compressed (gzip, br), and the first
//! route, [`hits`], serves them again until a publish lands, before the
//! router looks for the request's own route. The key is what changes the bytes: the path
//! and the query with its parameters sorted and the API key left out, never
//! the request's `Host` (links in the feeds come from the configured public
//! URL), so that no header a client makes up can fill the cache. Hits still
//! pass the rate-limit hoop (it runs first), answer `304` on `If-None-Match`
//! and carry `X-Cache: hit` (misses `X-Cache: miss`). The feeds and the dump
//! are counted against no quota when served from the cache; a request that
//! would compute one anew is admitted against the caller's plan first, so
//! that nobody can make the database work for free.

use std::io::Write as _;
use std::sync::Arc;

use bytes::Bytes;
use salvo::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_ENCODING, CONTENT_TYPE, ETAG,
    HeaderName, HeaderValue, IF_NONE_MATCH, VARY,
};
use salvo::http::{Method, ResBody, StatusCode};
use salvo::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::metrics;
use crate::access::limits;
use crate::error::ApiError;
use crate::service::cache::{Lookup, Representation, ResponseCache};
use crate::service::respond::envelope;
use crate::service::state;

/// `Cache-Control` of every cacheable GET.
pub const CACHE_CONTROL_VALUE: &str = "public, max-age=60";

const X_CACHE: HeaderName = HeaderName::from_static("x-cache");

/// Bodies shorter than this are not compressed.
const COMPRESS_MIN_BYTES: usize = 512;

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
        .map(str::trim)
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

/// The cache key: the path and the query in its canonical form (names sorted,
/// a list's repeated keys joined, the `key` parameter left out:
/// [`crate::service::params::canonical_query`]), so that the forms of one
/// request share one entry.
fn cache_key(req: &Request) -> String {
    let mut key = req.uri().path().to_owned();
    key.push('?');
    key.push_str(&crate::service::params::canonical_query(
        req.uri().query().unwrap_or(""),
    ));
    key
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Identity,
    Gzip,
    Br,
}

/// The best encoding the client accepts (br, then gzip), by `Accept-Encoding`.
fn negotiate(req: &Request) -> Encoding {
    let mut gzip = false;
    let mut br = false;
    for value in req.headers().get_all(ACCEPT_ENCODING) {
        for item in value.to_str().unwrap_or("").split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            match coding.as_str() {
                "gzip" | "x-gzip" => gzip = true,
                "br" => br = true,
                "*" => {
                    gzip = true;
                    br = true;
                }
                _ => {}
            }
        }
    }
    if br {
        Encoding::Br
    } else if gzip {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

fn gzip(body: &[u8]) -> Option<Bytes> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    enc.write_all(body).ok()?;
    enc.finish().ok().map(Bytes::from)
}

fn brotli(body: &[u8]) -> Option<Bytes> {
    let mut out = Vec::new();
    {
        let mut enc = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        enc.write_all(body).ok()?;
        enc.flush().ok()?;
    }
    Some(Bytes::from(out))
}

/// Writes a kept representation as the response (status 200 or 304).
fn answer(req: &Request, res: &mut Response, entry: &Representation, hit: bool) {
    let headers = res.headers_mut();
    headers.insert(ETAG, entry.etag.clone());
    headers.insert(CACHE_CONTROL, entry.cache_control.clone());
    headers.insert(
        X_CACHE,
        HeaderValue::from_static(if hit { "hit" } else { "miss" }),
    );
    headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    if not_modified(req, entry.etag.to_str().unwrap_or("")) {
        res.status_code(StatusCode::NOT_MODIFIED);
        res.body = ResBody::None;
        return;
    }
    res.status_code(StatusCode::OK);
    let (body, coding) = match negotiate(req) {
        Encoding::Br if entry.br.is_some() => (entry.br.clone(), Some("br")),
        Encoding::Br | Encoding::Gzip if entry.gzip.is_some() => (entry.gzip.clone(), Some("gzip")),
        _ => (None, None),
    };
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, entry.content_type.clone());
    if let Some(disposition) = &entry.disposition {
        headers.insert(CONTENT_DISPOSITION, disposition.clone());
    }
    match (body, coding) {
        (Some(body), Some(coding)) => {
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static(coding));
            res.body = ResBody::Once(body);
        }
        _ => {
            headers.remove(CONTENT_ENCODING);
            res.body = ResBody::Once(entry.identity.clone());
        }
    }
}

/// The first route of the service: a GET or HEAD whose answer the cache
/// holds is answered here, before the router looks for the request's own
/// route (matching the data routes, model ids spanning segments included,
/// was the largest cost of a hit). The service's hoops (access log, metrics,
/// CORS, bounds, rate limits) run first all the same. Any other request
/// falls through to the routes, with the key it was looked up under, so
/// that [`response_cache`] keeps its answer without computing the key again.
pub(crate) fn hits(cache: Arc<ResponseCache>) -> Router {
    Router::with_path("{**rest}")
        .filter_fn(move |req, _| {
            if !matches!(*req.method(), Method::GET | Method::HEAD) || !cache.enabled() {
                return false;
            }
            let key = cache_key(req);
            let day = time::OffsetDateTime::now_utc().date();
            match cache.kept_representation(&key, day) {
                Some(hit) => {
                    req.extensions_mut().insert(Lookup::Hit(hit));
                    true
                }
                None => {
                    req.extensions_mut().insert(Lookup::Miss(key));
                    false
                }
            }
        })
        .goal(serve_hit)
}

/// The goal of [`hits`]: the kept answer.
#[handler]
async fn serve_hit(req: &mut Request, res: &mut Response) {
    if let Some(Lookup::Hit(hit)) = req.extensions().get::<Lookup>().cloned() {
        answer(req, res, &hit, true);
    }
}

/// The cache hoop of the cacheable GET routes: computes and keeps what
/// [`hits`] did not find.
#[handler]
pub(crate) async fn response_cache(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    let cache = state(depot).cache.clone();
    let counted = limits::is_counted(req.method(), req.uri().path());
    if !matches!(*req.method(), Method::GET | Method::HEAD) || !cache.enabled() {
        if !counted && !limits::admit_work(req, depot, res).await {
            ctrl.skip_rest();
            return;
        }
        ctrl.call_next(req, depot, res).await;
        return;
    }
    let key = match req.extensions_mut().remove::<Lookup>() {
        Some(Lookup::Miss(key)) => key,
        _ => cache_key(req),
    };
    let day = time::OffsetDateTime::now_utc().date();
    // Kept meanwhile by a request like this one that was computed first.
    if let Some(hit) = cache.representation(&key, day) {
        answer(req, res, &hit, true);
        ctrl.skip_rest();
        return;
    }
    if !counted && !limits::admit_work(req, depot, res).await {
        ctrl.skip_rest();
        return;
    }
    let generation = cache.generation();
    // The handler answers 304 itself on If-None-Match; ask it for the body so
    // that it can be cached, and decide on 304 here.
    let inm = req.headers_mut().remove(IF_NONE_MATCH);
    ctrl.call_next(req, depot, res).await;
    if let Some(inm) = inm {
        req.headers_mut().insert(IF_NONE_MATCH, inm);
    }
    if res.status_code.unwrap_or(StatusCode::OK) != StatusCode::OK {
        return;
    }
    let identity = match &res.body {
        ResBody::Once(bytes) => bytes.clone(),
        _ => return,
    };
    let kept = |name| res.headers().get(name).cloned();
    let (Some(etag), Some(content_type), Some(cache_control)) =
        (kept(ETAG), kept(CONTENT_TYPE), kept(CACHE_CONTROL))
    else {
        return;
    };
    let (gzip, br) = if identity.len() >= COMPRESS_MIN_BYTES {
        (gzip(&identity), brotli(&identity))
    } else {
        (None, None)
    };
    let entry = Representation {
        etag,
        content_type,
        cache_control,
        disposition: kept(CONTENT_DISPOSITION),
        route: metrics::route_label(req).to_owned(),
        identity,
        gzip,
        br,
    };
    answer(req, res, &entry, false);
    cache.keep_representation(key, generation, day, entry);
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
