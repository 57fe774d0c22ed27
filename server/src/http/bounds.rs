//! What every request must be before anything else reads it: one `Host`
//! header (two could name different hosts to different readers) and a body
//! sent as it is (no `Content-Encoding`: a compressed body would be read as
//! plain JSON). A request outside them gets the spec's error body with the
//! CORS headers, like every other answer (this hoop runs after CORS and
//! before keys and quotas, so it is never counted). Requests the HTTP layer
//! underneath cannot parse into a request at all (a path over 64 KiB,
//! headers over about 400 KiB, a malformed header line) never reach the
//! service: that layer answers them 414, 431 or 400 itself, without a body
//! (docs/api.md, "Limits").

use salvo::http::header::{CONTENT_ENCODING, HOST};
use salvo::prelude::*;

use crate::error::ApiError;

/// What is wrong with the request's framing, if anything.
fn check(req: &Request) -> Option<ApiError> {
    let headers = req.headers();
    let hosts = headers.get_all(HOST).iter().count();
    if hosts > 1 {
        return Some(ApiError::invalid(
            "Host",
            format!("the request has {hosts} Host headers"),
            "a single Host header",
        ));
    }
    let encoding = headers
        .get(CONTENT_ENCODING)
        .map(|v| v.to_str().unwrap_or("?"));
    if let Some(encoding) = encoding.filter(|e| !e.trim().eq_ignore_ascii_case("identity")) {
        return Some(ApiError::invalid(
            "Content-Encoding",
            format!(
                "the body is sent with Content-Encoding `{}`; bodies are read as sent",
                crate::error::excerpt(encoding)
            ),
            "no Content-Encoding: send the body uncompressed",
        ));
    }
    None
}

/// The hoop: answers a request outside the bounds, passes the rest.
#[handler]
pub(crate) async fn bounds(req: &mut Request, res: &mut Response, ctrl: &mut FlowCtrl) {
    if let Some(err) = check(req) {
        err.render(res);
        ctrl.skip_rest();
    }
}
