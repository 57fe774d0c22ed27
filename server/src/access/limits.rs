//! Keys and rate limits on REST: a service hoop, so that it runs before routing
//! and also for paths no route matches. Every request under `/api/v1` except
//! health (and CORS preflights) is resolved and counted through
//! [`crate::access`]; its response carries `X-RateLimit-Limit`,
//! `X-RateLimit-Remaining` and `X-RateLimit-Reset` (when the plan has a quota
//! and the accounting answered), whatever its status. A refused request gets
//! 429 `RATE_LIMITED` with `Retry-After`; a key that does not work, 401
//! `INVALID_API_KEY`. Paths outside `/api/v1` are not counted here: `/mcp`
//! counts its tool calls itself, through the same [`crate::access::Access`].

use std::net::{IpAddr, Ipv4Addr};

use salvo::http::Method;
use salvo::http::header::{HeaderName, HeaderValue, RETRY_AFTER};
use salvo::prelude::*;
use time::format_description::well_known::Rfc3339;

use crate::access::net::client_ip;
use crate::access::quota::{Decision, Refusal};
use crate::access::{Access, Caller, KEY_PARAM, KeyPolicy, credential_from};
use crate::error::{ApiError, ErrorCode, excerpt};

const LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
const REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
const RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

/// The access of the service, injected into the depot for every request
/// (see `crate::app::service`).
pub(crate) fn access(depot: &Depot) -> &Access {
    depot
        .get_typed::<Access>()
        .unwrap_or_else(|_| unreachable!("Access is injected for every route"))
}

/// Whether a request is counted here: under `/api/v1`, not health, not
/// OPTIONS, and not a request for a free key (`POST /api/v1/keys` counts
/// against the address's key requests instead: crate::http::keys).
pub(crate) fn is_counted(method: &Method, path: &str) -> bool {
    if method == Method::OPTIONS {
        return false;
    }
    match path.strip_prefix("/api/v1") {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            let rest = rest.trim_end_matches('/');
            rest != "/health" && !(method == Method::POST && rest == KEYS_PATH)
        }
        _ => false,
    }
}

/// The path under `/api/v1` where free keys are issued on request.
pub(crate) const KEYS_PATH: &str = "/keys";

/// The socket peer's IP address, if the connection has one.
fn peer_addr(req: &Request) -> Option<IpAddr> {
    req.remote_addr()
        .as_ipv4()
        .map(|a| (*a.ip()).into())
        .or_else(|| req.remote_addr().as_ipv6().map(|a| (*a.ip()).into()))
}

/// The client address (see [`crate::access::net::client_ip`]); `0.0.0.0` when the
/// connection has no IP peer. `INVALID_ARGUMENT` when a trusted proxy's
/// `X-Forwarded-For` does not name the client by an address.
pub(crate) fn client_addr(
    req: &Request,
    trusted: &[crate::access::net::Cidr],
) -> Result<IpAddr, ApiError> {
    let Some(peer) = peer_addr(req) else {
        return Ok(Ipv4Addr::UNSPECIFIED.into());
    };
    let forwarded = req
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok());
    client_ip(peer, forwarded, trusted).map_err(|entry| {
        ApiError::invalid(
            "X-Forwarded-For",
            format!(
                "the X-Forwarded-For header names the client as `{}`, which is not an IP address",
                excerpt(entry)
            ),
            "a list of IP addresses: the proxy in front of this service must append the client's address",
        )
    })
}

/// The client address a hoop worked out for this request, kept in the depot
/// so that the access log does not work it out again.
#[derive(Debug, Clone, Copy)]
struct Client(IpAddr);

/// The client address to log: the one the rate limit (or the MCP hoop) found,
/// else found now; a request refused for its X-Forwarded-For is logged with
/// its peer.
pub(crate) fn logged_client(req: &Request, depot: &Depot) -> IpAddr {
    if let Ok(Client(client)) = depot.get_typed::<Client>() {
        return *client;
    }
    client_addr(req, access(depot).trusted_proxies())
        .ok()
        .or_else(|| peer_addr(req))
        .unwrap_or(Ipv4Addr::UNSPECIFIED.into())
}

/// The request's client address ([`client_addr`]), kept for the access log.
pub(crate) fn request_client(req: &Request, depot: &mut Depot) -> Result<IpAddr, ApiError> {
    let client = client_addr(req, access(depot).trusted_proxies())?;
    depot.insert_typed(Client(client));
    Ok(client)
}

/// The client address of an MCP request, for its tool calls' accounting.
#[derive(Debug, Clone, Copy)]
pub struct McpClient(pub IpAddr);

/// Before `/mcp`: records the client address where the MCP layer finds it
/// (the request's extensions travel with it into the MCP service).
#[handler]
pub(crate) async fn mcp_client(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    match client_addr(req, access(depot).trusted_proxies()) {
        Ok(client) => {
            req.extensions_mut().insert(McpClient(client));
            depot.insert_typed(Client(client));
        }
        Err(err) => {
            err.render(res);
            ctrl.skip_rest();
        }
    }
}

#[handler]
pub(crate) async fn rate_limit(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    if !is_counted(req.method(), req.uri().path()) {
        return;
    }
    let access = access(depot);
    let client = match client_addr(req, access.trusted_proxies()) {
        Ok(client) => client,
        Err(err) => {
            err.render(res);
            ctrl.skip_rest();
            return;
        }
    };
    if let Some(query) = req.uri().query()
        && form_urlencoded::parse(query.as_bytes())
            .filter(|(name, _)| name == KEY_PARAM)
            .nth(1)
            .is_some()
    {
        ApiError::invalid(
            KEY_PARAM,
            "query parameter `key` is given more than once",
            "a single key (or send it in the X-API-Key header)",
        )
        .render(res);
        ctrl.skip_rest();
        return;
    }
    let credential = credential_from(req.headers(), req.uri().query());
    let admission = access
        .admit(credential.as_deref(), client, KeyPolicy::Strict)
        .await;
    write_headers(res, &admission.decision);
    let caller = admission.caller;
    if refused(res, &caller, &admission.decision) {
        ctrl.skip_rest();
    } else if let Some(problem) = admission.key_problem {
        ApiError::new(
            ErrorCode::InvalidApiKey,
            problem.message(),
            "request a new free key or omit the key",
        )
        .render(res);
        ctrl.skip_rest();
    }
    depot.insert_typed(caller);
    depot.insert_typed(Client(client));
}

/// Renders a refusal (429 with `Retry-After`); false when `decision` admits.
fn refused(res: &mut Response, caller: &Caller, decision: &Decision) -> bool {
    let Decision::Refused {
        by, retry_after, ..
    } = *decision
    else {
        return false;
    };
    res.headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(retry_after));
    rate_limited(caller, by, decision, retry_after).render(res);
    true
}

/// Admits a request outside `/api/v1` that makes the database work (a feed
/// or the dump not served from the response cache) against the caller's
/// plan, as an API request is: false when it was refused (429 with
/// `Retry-After`, or a bad `X-Forwarded-For`), the answer written. A key that
/// does not work counts as no key: feed readers keep their URLs for years.
pub(crate) async fn admit_work(req: &Request, depot: &mut Depot, res: &mut Response) -> bool {
    let access = access(depot);
    let client = match client_addr(req, access.trusted_proxies()) {
        Ok(client) => client,
        Err(err) => {
            err.render(res);
            return false;
        }
    };
    let credential = credential_from(req.headers(), req.uri().query());
    let admission = access
        .admit(credential.as_deref(), client, KeyPolicy::Lenient)
        .await;
    let refused = refused(res, &admission.caller, &admission.decision);
    depot.insert_typed(admission.caller);
    depot.insert_typed(Client(client));
    !refused
}

/// The `X-RateLimit-*` headers of the window `decision` reports, if any.
pub(crate) fn write_headers(res: &mut Response, decision: &Decision) {
    if let Some(window) = decision.window() {
        let headers = res.headers_mut();
        headers.insert(LIMIT, HeaderValue::from(window.limit));
        headers.insert(REMAINING, HeaderValue::from(window.remaining));
        headers.insert(RESET, HeaderValue::from(window.reset));
    }
}

pub(crate) fn rate_limited(
    caller: &Caller,
    by: Refusal,
    decision: &Decision,
    wait: u32,
) -> ApiError {
    let plan = caller.plan();
    let seconds = if wait == 1 { "second" } else { "seconds" };
    match by {
        Refusal::Quota => {
            let until = decision
                .window()
                .and_then(|w| time::OffsetDateTime::from_unix_timestamp(w.reset).ok())
                .and_then(|t| t.format(&Rfc3339).ok())
                .map(|t| format!(" until {t}"))
                .unwrap_or_default();
            let limit = decision
                .window()
                .map(|w| format!(" of {} requests", w.limit))
                .unwrap_or_default();
            let next_step = match caller {
                Caller::Anonymous(_) => format!(
                    "wait {wait} {seconds} (Retry-After), or send a free API key for a larger quota"
                ),
                Caller::Key(_) => format!("wait {wait} {seconds} (Retry-After)"),
            };
            ApiError::new(
                ErrorCode::RateLimited,
                format!("the {plan} quota{limit} is used up{until}"),
                next_step,
            )
        }
        Refusal::Burst => ApiError::new(
            ErrorCode::RateLimited,
            format!("too many requests per second for the {plan} plan"),
            format!("wait {wait} {seconds} (Retry-After) and space out requests"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_v1_is_counted_except_health_and_preflights() {
        assert!(is_counted(&Method::GET, "/api/v1/models"));
        assert!(is_counted(&Method::POST, "/api/v1/estimate"));
        assert!(is_counted(&Method::GET, "/api/v1/nothing"));
        assert!(is_counted(&Method::GET, "/api/v1"));
        assert!(is_counted(&Method::GET, "/api/v1/openapi.json"));
        assert!(!is_counted(&Method::GET, "/api/v1/health"));
        assert!(!is_counted(&Method::GET, "/api/v1/health/"));
        assert!(!is_counted(&Method::OPTIONS, "/api/v1/models"));
        assert!(!is_counted(&Method::GET, "/healthz"));
        assert!(!is_counted(&Method::GET, "/api/v10/models"));
        assert!(!is_counted(&Method::POST, "/mcp"));
        assert!(!is_counted(&Method::GET, "/feeds/changes.xml"));
        assert!(!is_counted(&Method::POST, "/api/v1/keys"));
        assert!(is_counted(&Method::GET, "/api/v1/keys"));
    }
}
