//! CORS for a public read-only API: any origin may read every response
//! (`Access-Control-Allow-Origin: *`, errors included, and the rate-limit
//! headers exposed to scripts), and a preflight (`OPTIONS`) is answered here,
//! before keys and quotas, so that it is never counted (docs/keys.md). No
//! credentials are involved: keys travel in headers a page sets itself.
//! `/mcp` is left to the MCP layer, which guards its own origins.

use salvo::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ALLOW, HeaderValue,
};
use salvo::http::{Method, StatusCode};
use salvo::prelude::*;

/// The methods the service answers (POST on /api/v1/estimate, /api/v1/cost
/// and /api/v1/webhooks, DELETE on a webhook subscription).
const METHODS: &str = "GET, HEAD, POST, DELETE, OPTIONS";
/// The request headers a page may send: a key, a JSON body, a revalidation.
const REQUEST_HEADERS: &str = "X-API-Key, Authorization, Content-Type, If-None-Match";
/// The response headers a page may read besides the CORS-safelisted ones.
const EXPOSED_HEADERS: &str =
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag";
/// How long a browser may keep a preflight's answer, in seconds.
const PREFLIGHT_MAX_AGE: &str = "86400";

fn is_mcp(path: &str) -> bool {
    path == "/mcp" || path.starts_with("/mcp/")
}

#[handler]
pub(crate) async fn cors(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    if is_mcp(req.uri().path()) {
        return;
    }
    let headers = res.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(
        ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    if req.method() == Method::OPTIONS {
        headers.insert(ALLOW, HeaderValue::from_static(METHODS));
        headers.insert(
            ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(METHODS),
        );
        headers.insert(
            ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(REQUEST_HEADERS),
        );
        headers.insert(
            ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(PREFLIGHT_MAX_AGE),
        );
        res.status_code(StatusCode::NO_CONTENT);
        ctrl.skip_rest();
        return;
    }
    ctrl.call_next(req, depot, res).await;
}
