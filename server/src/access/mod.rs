//! Who is calling and whether they may: the one path, shared by REST and MCP,
//! from a request's credential and client address to a counted [`Decision`].
//!
//! REST uses [`KeyPolicy::Strict`]: a key that is unknown, revoked or expired
//! is refused (401 `INVALID_API_KEY`), though the request still counts against
//! the caller's anonymous budget, so that guessing keys is not free. MCP uses
//! [`KeyPolicy::Lenient`]: such a key silently falls back to anonymous (spec
//! part 5, rule 6).

pub mod keys;
pub mod limits;
pub mod net;
pub mod quota;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::Pool;
use salvo::http::HeaderMap;

use self::keys::{IssuedOnRequest, KeyStatus, KeyStore, ValidKey};
use crate::access::quota::{Accountant, Decision, Refusal, Subject};
use crate::telemetry::Throttle;

/// What to do with a key that does not work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPolicy {
    /// Report it (REST).
    Strict,
    /// Treat the caller as anonymous (MCP).
    Lenient,
}

/// Why a presented key was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyProblem {
    /// Malformed, or never issued.
    Unknown,
    /// Revoked.
    Revoked,
    /// Past its expiry.
    Expired,
}

impl KeyProblem {
    /// The message of the 401 body.
    pub fn message(self) -> &'static str {
        match self {
            Self::Unknown => "the API key is not known",
            Self::Revoked => "the API key has been revoked",
            Self::Expired => "the API key has expired",
        }
    }
}

/// The party a request is charged to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// No (usable) key: charged to the client address.
    Anonymous(IpAddr),
    /// A valid key.
    Key(ValidKey),
}

impl Caller {
    /// How the caller appears in logs: `anonymous` or the key's prefix, never the key.
    pub fn log_name(&self) -> String {
        match self {
            Self::Anonymous(_) => "anonymous".to_owned(),
            Self::Key(key) => keys::display_prefix(&key.lookup),
        }
    }

    /// The plan the caller is on.
    pub fn plan(&self) -> &str {
        match self {
            Self::Anonymous(_) => "anonymous",
            Self::Key(key) => &key.plan,
        }
    }
}

/// The outcome of [`Access::admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    /// Whom the request was charged to.
    pub caller: Caller,
    /// Admitted or refused, with the window to report.
    pub decision: Decision,
    /// Under [`KeyPolicy::Strict`]: the key was sent but does not work.
    pub key_problem: Option<KeyProblem>,
}

/// The outcome of [`Access::request_key`].
#[derive(Debug)]
pub enum KeyRequest {
    /// Over the address's budget of key requests: wait `retry_after` seconds.
    Refused {
        /// Which limit.
        by: Refusal,
        /// Seconds to wait.
        retry_after: u32,
    },
    /// A new key.
    Issued(IssuedOnRequest),
}

/// Key resolution and accounting, shared by every channel of one server.
#[derive(Debug, Clone)]
pub struct Access {
    keys: Arc<KeyStore>,
    accountant: Accountant,
    /// Proxies whose `X-Forwarded-For` names the client (see [`net::client_ip`]).
    trusted_proxies: Arc<[net::Cidr]>,
}

impl Access {
    /// Over the web pool, caching keys for [`keys::DEFAULT_CACHE_TTL`].
    pub fn new(pool: Pool) -> Self {
        Self::with_key_cache_ttl(pool, keys::DEFAULT_CACHE_TTL)
    }

    /// Over the web pool with another key cache TTL (zero: ask every time).
    pub fn with_key_cache_ttl(pool: Pool, ttl: Duration) -> Self {
        Self {
            keys: Arc::new(KeyStore::new(pool.clone(), ttl)),
            accountant: Accountant::new(pool),
            trusted_proxies: Arc::from([]),
        }
    }

    /// The same access, trusting these proxies to name the client.
    pub fn with_trusted_proxies(mut self, trusted_proxies: Arc<[net::Cidr]>) -> Self {
        self.trusted_proxies = trusted_proxies;
        self
    }

    /// The proxies trusted to name the client.
    pub fn trusted_proxies(&self) -> &[net::Cidr] {
        &self.trusted_proxies
    }

    /// The accountant, for callers that already know their subject.
    pub fn accountant(&self) -> &Accountant {
        &self.accountant
    }

    /// Resolves `credential` (if any) and counts the request: against the key,
    /// or against `client` for anonymous callers and for a key that does not
    /// work. A key on a plan without limits is never counted (no database
    /// work once the key is cached). A key that cannot be checked because the
    /// database is unreachable is let through uncounted (fail open).
    pub async fn admit(
        &self,
        credential: Option<&str>,
        client: IpAddr,
        policy: KeyPolicy,
    ) -> Admission {
        let status = match credential {
            None => None,
            Some(key) => match self.keys.resolve(key).await {
                Ok(status) => Some(status),
                Err(err) => {
                    static LOG: Throttle = Throttle::new(Duration::from_secs(10));
                    if let Some(suppressed) = LOG.admit() {
                        tracing::warn!(
                            error = %format!("{err:#}"),
                            suppressed,
                            "could not check an API key; admitting uncounted (logged at most once per 10 s)"
                        );
                    }
                    return Admission {
                        caller: Caller::Anonymous(client),
                        decision: Decision::Unaccounted,
                        key_problem: None,
                    };
                }
            },
        };
        let key_problem = match &status {
            Some(KeyStatus::Valid(key)) => {
                let decision = if key.metered {
                    let subject = Subject::key(key.id, key.plan.clone());
                    self.accountant.admit(&subject).await
                } else {
                    Decision::Unmetered
                };
                return Admission {
                    caller: Caller::Key(key.clone()),
                    decision,
                    key_problem: None,
                };
            }
            None => None,
            Some(KeyStatus::Unknown) => Some(KeyProblem::Unknown),
            Some(KeyStatus::Revoked) => Some(KeyProblem::Revoked),
            Some(KeyStatus::Expired) => Some(KeyProblem::Expired),
        };
        let decision = self.accountant.admit(&Subject::anonymous(client)).await;
        Admission {
            caller: Caller::Anonymous(client),
            decision,
            key_problem: key_problem.filter(|_| policy == KeyPolicy::Strict),
        }
    }

    /// A request for a free key from `client` (POST /api/v1/keys): counted
    /// against the address's daily budget of key requests (plan
    /// `key_requests`, not the anonymous quota, so that a caller who used
    /// that up can still ask), and when admitted, a key issued. The decision
    /// carries the budget's window for the rate-limit headers; the error is
    /// a key that could not be stored.
    pub async fn request_key(&self, client: IpAddr) -> (Decision, anyhow::Result<KeyRequest>) {
        let decision = self.accountant.admit(&Subject::key_requests(client)).await;
        let outcome = match decision {
            Decision::Refused {
                by, retry_after, ..
            } => Ok(KeyRequest::Refused { by, retry_after }),
            _ => self.keys.issue_on_request().await.map(KeyRequest::Issued),
        };
        (decision, outcome)
    }

    /// The MCP channel's entry: the credential from the HTTP request's headers
    /// and query, a bad key falling back to anonymous.
    pub async fn admit_mcp(
        &self,
        headers: &HeaderMap,
        query: Option<&str>,
        client: IpAddr,
    ) -> Admission {
        let credential = credential_from(headers, query);
        self.admit(credential.as_deref(), client, KeyPolicy::Lenient)
            .await
    }
}

/// The key a request carries, by precedence: `X-API-Key`, then
/// `Authorization: Bearer`, then the `key` query parameter, each read alike:
/// surrounding spaces trimmed, an empty value counting as absent. Another
/// `Authorization` scheme is not a key.
pub fn credential<'a>(
    x_api_key: Option<&'a str>,
    authorization: Option<&'a str>,
    query_key: Option<&'a str>,
) -> Option<&'a str> {
    let bearer = authorization.and_then(|value| {
        let (scheme, token) = value.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    });
    [x_api_key, bearer, query_key]
        .map(|key| key.map(str::trim))
        .into_iter()
        .flatten()
        .find(|key| !key.is_empty())
}

/// [`credential`] from a request's headers and raw query string.
pub fn credential_from(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let query_key = query.and_then(query_key);
    credential(
        header("x-api-key"),
        header("authorization"),
        query_key.as_deref(),
    )
    .map(str::to_owned)
}

/// The API key parameter (spec part 5): accepted on every `/api/v1` endpoint.
pub const KEY_PARAM: &str = "key";

/// The first `key` parameter of a raw query string, decoded.
pub fn query_key(query: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == KEY_PARAM)
        .map(|(_, value)| value.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_api_key_wins_over_bearer_which_wins_over_the_query() {
        assert_eq!(
            credential(Some("a"), Some("Bearer b"), Some("c")),
            Some("a")
        );
        assert_eq!(credential(None, Some("Bearer b"), Some("c")), Some("b"));
        assert_eq!(credential(None, Some("bearer  b "), None), Some("b"));
        assert_eq!(credential(None, None, Some("c")), Some("c"));
        assert_eq!(credential(None, None, None), None);
    }

    #[test]
    fn empty_values_and_other_schemes_are_not_keys() {
        assert_eq!(
            credential(Some(" "), Some("Basic dXNlcg=="), Some("c")),
            Some("c")
        );
        assert_eq!(credential(Some(""), Some("Bearer"), None), None);
        assert_eq!(credential(None, None, Some("")), None);
    }

    #[test]
    fn the_query_key_is_decoded_and_the_first_one_counts() {
        assert_eq!(
            query_key("limit=5&key=pr_live_a%2Bb&key=second").as_deref(),
            Some("pr_live_a+b")
        );
        assert_eq!(query_key("k%65y=x").as_deref(), Some("x"));
        assert_eq!(query_key("keyword=x"), None);
    }

    #[test]
    fn credentials_are_read_from_headers_and_query() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "authorization",
            "Bearer from-header".parse().expect("value"),
        );
        assert_eq!(
            credential_from(&headers, Some("key=from-query")).as_deref(),
            Some("from-header")
        );
        headers.insert("x-api-key", "from-x-api-key".parse().expect("value"));
        assert_eq!(
            credential_from(&headers, None).as_deref(),
            Some("from-x-api-key")
        );
    }
}
