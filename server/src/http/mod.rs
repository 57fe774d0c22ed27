//! The REST transport: the routes over the service's operations, the public
//! feeds and dump, health, webhook subscriptions, the browser pages, and the hoops of every request
//! (access log, CORS, the JSON error catcher) that `crate::app` mounts.

pub(crate) mod bounds;
pub mod cache;
pub(crate) mod cors;
mod demo;
mod dumps;
mod endpoints;
mod feeds;
mod health;
mod keys;
mod llms;
pub mod metrics;
mod routes;
mod webhooks;

pub use demo::DEFAULT_DEMO_DIR;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use salvo::http::StatusCode;
use salvo::prelude::*;
use salvo::routing::filters::{self, Filter as _};

use self::endpoints::{Answering, Endpoint};
use crate::access::{Caller, limits};
use crate::error::{ApiError, ErrorCode};
use crate::service::cache::ResponseCache;
use crate::service::operations::{Kind, OPERATIONS};

/// The REST routes (and the browser pages): the GET of every read operation
/// of the service, the estimate, health, the metrics, the OpenAPI document,
/// `/llms.txt`, free keys on request, webhooks, the public feeds and the CSV
/// dump.
pub fn router(demo_dir: &Path, cache: Arc<ResponseCache>) -> Router {
    // The data endpoints answer from the response cache when they can.
    let mut data = Router::new().hoop(cache::response_cache);
    let mut posts = Router::new();
    for operation in OPERATIONS {
        let path = operation.path.trim_start_matches("/api/v1/");
        match operation.kind {
            Kind::Read(op) => {
                let endpoint = read(Answering(Endpoint {
                    operation,
                    read: op,
                }));
                data = data.push(match path.split_once("{model_id}") {
                    // A model id may span segments (provider API ids hold
                    // slashes): the route takes the rest of the path, and
                    // answers when the path ends with this operation's suffix
                    // (`/history` or none; `routes::model_operation`).
                    Some((prefix, _)) => Router::with_path(format!("{prefix}{{*+model_path}}"))
                        .filter_fn(move |req, _| {
                            routes::asked_model_operation(req)
                                .is_some_and(|(asked, _)| asked.path == operation.path)
                        })
                        .push(endpoint),
                    None => Router::with_path(path).push(endpoint),
                });
            }
            Kind::Post(post) => {
                posts = posts
                    .push(Router::with_path(path).post(Answering(endpoints::PostEndpoint(post))));
            }
        }
    }
    Router::new()
        .push(cache::hits(cache))
        .push(Router::with_path("healthz").push(read(health::healthz)))
        .push(Router::with_path("metrics").push(read(metrics::metrics)))
        .push(Router::with_path("llms.txt").push(read(llms::llms_txt)))
        .push(
            Router::with_path("api/v1")
                .push(Router::with_path("health").push(read(health::health)))
                .push(Router::with_path("openapi.json").push(read(endpoints::openapi)))
                .push(Router::with_path("keys").post(keys::issue_key))
                .push(data)
                .push(posts)
                .push(
                    Router::with_path("webhooks")
                        .push(read(webhooks::list))
                        .post(webhooks::create)
                        .push(Router::with_path("{webhook_id}").delete(webhooks::delete)),
                ),
        )
        .push(
            Router::new()
                .hoop(cache::response_cache)
                .push(
                    Router::with_path("feeds")
                        .push(Router::with_path("changes.xml").push(read(feeds::changes_xml)))
                        .push(Router::with_path("changes.json").push(read(feeds::changes_json))),
                )
                .push(Router::with_path("dumps/prices.csv").push(read(dumps::prices_csv))),
        )
        // The browser pages (web-demo/): static files, outside the API.
        .push(demo::router(demo_dir))
}

/// A read route: GET, and HEAD with the same handler (salvo sends a HEAD
/// answer's headers without its body).
fn read<H: Handler>(goal: H) -> Router {
    Router::with_filter(filters::get().or(filters::head())).goal(goal)
}

/// How much of a request's path and of its query the access log keeps, in
/// characters: a line stays short whatever the client sends.
const MAX_LOGGED_CHARS: usize = 256;

/// Logs one line per request. Keys never reach the log: the `key` query
/// parameter is redacted and a caller is named by its key's prefix only.
#[handler]
pub(crate) async fn access_log(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    let started = Instant::now();
    ctrl.call_next(req, depot, res).await;
    if !tracing::enabled!(tracing::Level::INFO) {
        return;
    }
    let client = limits::logged_client(req, depot);
    let caller = depot.get_typed::<Caller>().ok().map(Caller::log_name);
    let query = redact_query(req.uri().query().unwrap_or(""));
    tracing::info!(
        method = %req.method(),
        path = %crate::error::shorten(&redact_path(req.uri().path()), MAX_LOGGED_CHARS),
        query = %crate::error::shorten(&query, MAX_LOGGED_CHARS),
        status = res.status_code.unwrap_or(StatusCode::OK).as_u16(),
        micros = started.elapsed().as_micros() as u64,
        client = %client,
        caller = caller.as_deref().unwrap_or("-"),
        "request"
    );
}

/// The query as logged: the value of every parameter that is `key` once
/// decoded (`k%65y` too: the server would take it as the key) or whose decoded
/// name or value holds a key's prefix anywhere is `REDACTED`, whichever of `&`
/// and `;` separates the parameters (a client's `;` must not smuggle a key
/// past this). A query that does not decode to text is not logged at all.
fn redact_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for piece in query.split_inclusive(['&', ';']) {
        let (pair, separator) = match piece.char_indices().last() {
            Some((at, c @ ('&' | ';'))) => (&piece[..at], Some(c)),
            _ => (piece, None),
        };
        let Some(decoded) = decode(pair) else {
            return format!(
                "[query of {} bytes not logged: not text once decoded]",
                query.len()
            );
        };
        let (raw_name, name) = match (pair.split_once('='), decoded.split_once('=')) {
            (Some((raw, _)), Some((name, _))) => (raw, name),
            _ => (pair, decoded.as_str()),
        };
        let prefix = crate::access::keys::KEY_PREFIX;
        if name.contains(prefix) {
            out.push_str("REDACTED");
        } else if pair.contains('=')
            && (name == crate::access::KEY_PARAM || decoded.contains(prefix))
        {
            out.push_str(raw_name);
            out.push_str("=REDACTED");
        } else {
            out.push_str(pair);
        }
        out.extend(separator);
    }
    out
}

/// The path as logged: a segment that holds a key's prefix once decoded is
/// `REDACTED` (a key pasted into a URL's path).
fn redact_path(path: &str) -> String {
    path.split('/')
        .map(|segment| match decode(segment) {
            Some(text) if !text.contains(crate::access::keys::KEY_PREFIX) => segment,
            _ => "REDACTED",
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `text` with `+` as a space and its percent escapes decoded; `None` when
/// the bytes are not UTF-8.
fn decode(text: &str) -> Option<String> {
    let spaced = text.replace('+', " ");
    String::from_utf8(percent_encoding::percent_decode_str(&spaced).collect::<Vec<u8>>()).ok()
}

/// Renders statuses no handler wrote a body for (unknown path, wrong method) as
/// the spec's error object.
#[handler]
pub(crate) async fn json_errors(req: &Request, res: &mut Response, ctrl: &mut FlowCtrl) {
    let status = res.status_code.unwrap_or(StatusCode::NOT_FOUND);
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::new(
            ErrorCode::NotFound,
            format!("no such path: {}", crate::error::excerpt(req.uri().path())),
            "see GET /api/v1/openapi.json for the paths this service serves",
        ),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::new(
            ErrorCode::MethodNotAllowed,
            format!(
                "{} is not allowed on {}",
                req.method(),
                crate::error::excerpt(req.uri().path())
            ),
            "use GET or HEAD (or POST for /api/v1/estimate, /api/v1/cost and /api/v1/keys)",
        ),
        _ if status.is_server_error() => ApiError::new(
            ErrorCode::Internal,
            "the service failed to answer this request",
            "retry; if it keeps failing, report it with the request URL",
        ),
        _ => return,
    };
    error.render(res);
    ctrl.skip_rest();
}

#[cfg(test)]
mod tests {
    use super::{redact_path, redact_query};

    #[test]
    fn key_parameters_are_redacted_from_logged_queries() {
        assert_eq!(
            redact_query("limit=5&key=pr_live_secret&keyword=x"),
            "limit=5&key=REDACTED&keyword=x"
        );
        assert_eq!(redact_query(""), "");
    }

    #[test]
    fn encoded_key_names_and_key_like_values_are_redacted_too() {
        assert_eq!(redact_query("k%65y=secret&a=1"), "k%65y=REDACTED&a=1");
        assert_eq!(
            redact_query("api_key=pr_live_secret&q=pr"),
            "api_key=REDACTED&q=pr"
        );
        assert_eq!(redact_query("token=pr%5Flive%5Fsecret"), "token=REDACTED");
        assert_eq!(redact_query("key"), "key");
    }

    #[test]
    fn a_key_is_redacted_whatever_separates_it_and_undecodable_queries_are_not_logged() {
        assert_eq!(
            redact_query("limit=1;key=pr_live_secret"),
            "limit=1;key=REDACTED"
        );
        assert_eq!(redact_query("q=a;b=pr_live_s&c=1"), "q=a;b=REDACTED&c=1");
        assert_eq!(redact_query("x=1%3Bkey%3Dpr_live_s"), "x=REDACTED");
        assert_eq!(redact_query("pr_live_secret"), "REDACTED");
        assert_eq!(
            redact_path("/api/v1/models/pr_live_s/history"),
            "/api/v1/models/REDACTED/history"
        );
        assert_eq!(
            redact_query("q=%FF%FE"),
            "[query of 8 bytes not logged: not text once decoded]"
        );
    }
}
