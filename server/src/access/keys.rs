//! API keys (spec part 5, docs/keys.md): the key format, the owner's side
//! (issue, list, revoke, plans; schema `keys`), and the server's side: resolving
//! a presented key on the web pool, with a short-lived in-memory cache.
//!
//! A key is `pr_live_` followed by 43 base62 characters drawn from the OS
//! random source (256 bits). The database keeps only the first 12 of those
//! characters (the lookup prefix, shown by `pricing keys list`) and the SHA-256
//! of the whole key; the key itself is printed once, when it is issued.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use deadpool_postgres::Pool;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use tokio_postgres::Client;
use tokio_postgres::error::SqlState;

/// Every live key starts with this.
pub const KEY_PREFIX: &str = "pr_live_";
/// Base62 characters after the prefix: 43 x log2(62) > 256 bits.
const SECRET_LEN: usize = 43;
/// Characters of the secret that name the key in the database and in listings.
pub const LOOKUP_LEN: usize = 12;
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// How long a resolved key (or the absence of one) is trusted without asking
/// the database again: revoking a key takes effect within this time.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(30);

/// How long a key's check waits for the database before the request goes
/// ahead uncounted (the fail-open bound of admission, docs/keys.md): a
/// database that stopped answering cannot end the statement itself.
const KEY_CHECK_TIMEOUT: Duration = crate::access::quota::ANSWER_TIMEOUT;

/// A key issued on request (POST /api/v1/keys) that is not used within this
/// time stops working; its first use lifts that expiry.
pub const UNUSED_KEY_TTL: time::Duration = time::Duration::days(7);
/// Past this many cached keys, stale entries are dropped (and if that is not
/// enough, all of them), so that random keys cannot grow the cache unbounded.
const MAX_CACHED: usize = 10_000;

/// A newly generated key. `Debug` shows the lookup prefix only.
pub struct NewKey {
    key: String,
}

impl std::fmt::Debug for NewKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewKey")
            .field("prefix", &display_prefix(self.lookup()))
            .finish_non_exhaustive()
    }
}

impl NewKey {
    /// Draws a key from the operating system's random source.
    pub fn generate() -> anyhow::Result<Self> {
        let mut key = String::with_capacity(KEY_PREFIX.len() + SECRET_LEN);
        key.push_str(KEY_PREFIX);
        let mut buf = [0u8; 64];
        while key.len() < KEY_PREFIX.len() + SECRET_LEN {
            getrandom::fill(&mut buf)
                .map_err(|e| anyhow::anyhow!("reading the OS random source: {e}"))?;
            // 248 = 4 x 62: dropping larger bytes keeps every character equally likely.
            for byte in buf.iter().filter(|b| **b < 248) {
                if key.len() == KEY_PREFIX.len() + SECRET_LEN {
                    break;
                }
                key.push(char::from(BASE62[usize::from(*byte % 62)]));
            }
        }
        Ok(Self { key })
    }

    /// The whole key: show it to the operator once, store it nowhere.
    pub fn expose(&self) -> &str {
        &self.key
    }

    /// The lookup prefix (12 characters after `pr_live_`).
    pub fn lookup(&self) -> &str {
        &self.key[KEY_PREFIX.len()..KEY_PREFIX.len() + LOOKUP_LEN]
    }
}

/// The lookup prefix of `key` when it has the shape of a live key.
pub fn lookup_of(key: &str) -> Option<&str> {
    let secret = key.strip_prefix(KEY_PREFIX)?;
    (secret.len() == SECRET_LEN && secret.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then(|| &secret[..LOOKUP_LEN])
}

/// How a key is named in listings and logs: `pr_live_` plus its lookup prefix.
pub fn display_prefix(lookup: &str) -> String {
    format!("{KEY_PREFIX}{lookup}")
}

/// A key's time as listings and answers show it: RFC 3339 in UTC, whole seconds.
pub fn timestamp(t: OffsetDateTime) -> String {
    t.to_offset(time::UtcOffset::UTC)
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// The SHA-256 of a key, as stored (lower-case hex).
pub fn sha256_hex(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// A key as `pricing keys issue` reports it.
#[derive(Debug)]
pub struct Issued {
    /// The key, to be printed once.
    pub key: NewKey,
    /// Its plan.
    pub plan: String,
    /// When it was stored.
    pub created_at: OffsetDateTime,
    /// When it stops working, if ever.
    pub expires_at: Option<OffsetDateTime>,
}

/// Issues a key on `plan` through `keys.issue()` (owner connection).
pub async fn issue(
    client: &Client,
    plan: &str,
    label: Option<&str>,
    expires_at: Option<OffsetDateTime>,
) -> anyhow::Result<Issued> {
    let (key, row) = store_new(|lookup, sha256| async move {
        client
            .query_one(
                "select created_at from keys.issue($1, $2, $3, $4, $5)",
                &[&lookup, &sha256, &plan, &label, &expires_at],
            )
            .await
    })
    .await?
    .map_err(db_error)?;
    Ok(Issued {
        key,
        plan: plan.to_owned(),
        created_at: row.get(0),
        expires_at,
    })
}

/// Draws a key and stores it with `store` (given its lookup prefix and
/// SHA-256), drawing again when the prefix is taken (one in 2^71). The inner
/// error is the database's.
async fn store_new<T, F, Fut>(
    mut store: F,
) -> anyhow::Result<Result<(NewKey, T), tokio_postgres::Error>>
where
    F: FnMut(String, String) -> Fut,
    Fut: Future<Output = Result<T, tokio_postgres::Error>>,
{
    for _ in 0..3 {
        let key = NewKey::generate()?;
        match store(key.lookup().to_owned(), sha256_hex(key.expose())).await {
            Ok(stored) => return Ok(Ok((key, stored))),
            Err(err) if err.code() == Some(&SqlState::UNIQUE_VIOLATION) => continue,
            Err(err) => return Ok(Err(err)),
        }
    }
    bail!("could not find a free lookup prefix in three draws; is the random source broken?")
}

/// A key issued on request, with the limits of its plan.
#[derive(Debug)]
pub struct IssuedOnRequest {
    /// The key, shown to the caller once.
    pub key: NewKey,
    /// When it was stored.
    pub created_at: OffsetDateTime,
    /// When it stops working unless it is used before.
    pub unused_expires_at: OffsetDateTime,
    /// Its plan (`free`).
    pub plan: String,
    /// Its plan's quota per window (None: unlimited).
    pub quota: Option<i32>,
    /// Its plan's window length.
    pub window_seconds: i32,
    /// Its plan's requests per second (None: unlimited).
    pub burst_per_second: Option<i32>,
    /// The served publish's time (the envelope's `as_of`).
    pub as_of: OffsetDateTime,
}

/// Issues a free key through `api.issue_key_on_request()` (the web role may
/// call it; it issues on plan `free` only). The caller has counted the request
/// against the client's `key_requests` budget. A database error stays a
/// [`tokio_postgres::Error`] (downcast it to tell an outage from a fault).
pub async fn issue_on_request(pool: &Pool) -> anyhow::Result<IssuedOnRequest> {
    let client = pool.get().await.context("no database connection")?;
    let unused_expires_at = OffsetDateTime::now_utc() + UNUSED_KEY_TTL;
    let client = &client;
    let (key, row) = store_new(|lookup, sha256| async move {
        client
            .query_one(
                "select created_at, plan, quota, window_seconds, burst_per_second, as_of
                 from api.issue_key_on_request($1, $2, $3)",
                &[&lookup, &sha256, &unused_expires_at],
            )
            .await
    })
    .await??;
    Ok(IssuedOnRequest {
        key,
        created_at: row.get(0),
        unused_expires_at,
        plan: row.get(1),
        quota: row.get(2),
        window_seconds: row.get(3),
        burst_per_second: row.get(4),
        as_of: row.get(5),
    })
}

/// Accepts a key's lookup prefix with or without `pr_live_`, or a whole key.
pub fn normalize_prefix(given: &str) -> anyhow::Result<String> {
    let given = given.trim();
    if let Some(lookup) = lookup_of(given) {
        return Ok(lookup.to_owned());
    }
    let bare = given.strip_prefix(KEY_PREFIX).unwrap_or(given);
    if bare.len() == LOOKUP_LEN && bare.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(bare.to_owned())
    } else {
        bail!(
            "`{given}` is not a key prefix: expected {KEY_PREFIX} and {LOOKUP_LEN} letters or digits, as `pricing keys list` shows"
        )
    }
}

/// What `revoke` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Revoked {
    /// When the key was (or had been) revoked.
    pub revoked_at: OffsetDateTime,
    /// False when it had been revoked before.
    pub newly: bool,
}

/// Revokes the key with this prefix through `keys.revoke()` (owner connection).
/// Servers stop accepting it within their key cache TTL.
pub async fn revoke(client: &Client, prefix: &str) -> anyhow::Result<Revoked> {
    let lookup = normalize_prefix(prefix)?;
    let row = client
        .query_one("select revoked_at, newly from keys.revoke($1)", &[&lookup])
        .await
        .map_err(db_error)?;
    Ok(Revoked {
        revoked_at: row.get(0),
        newly: row.get(1),
    })
}

/// One line of `pricing keys list`.
#[derive(Debug, Clone)]
pub struct Listing {
    /// `pr_live_` and the lookup prefix.
    pub prefix: String,
    /// Plan name.
    pub plan: String,
    /// Free text given at issue.
    pub label: Option<String>,
    /// Issue time.
    pub created_at: OffsetDateTime,
    /// Expiry, if any.
    pub expires_at: Option<OffsetDateTime>,
    /// Revocation time, if revoked.
    pub revoked_at: Option<OffsetDateTime>,
    /// Requests used in the current quota window (None: none, or no quota).
    pub used: Option<i32>,
    /// The plan's quota per window (None: unlimited).
    pub quota: Option<i32>,
    /// A key issued on request and never used: when it expires unless used.
    pub unused_expires_at: Option<OffsetDateTime>,
}

/// Every key, newest first; never the keys themselves.
pub async fn list(client: &Client) -> anyhow::Result<Vec<Listing>> {
    let rows = client
        .query(
            "select lookup_prefix, plan, label, created_at, expires_at, revoked_at, used, quota,
                    unused_expires_at
             from keys.list()",
            &[],
        )
        .await
        .map_err(db_error)?;
    Ok(rows
        .iter()
        .map(|row| Listing {
            prefix: display_prefix(row.get(0)),
            plan: row.get(1),
            label: row.get(2),
            created_at: row.get(3),
            expires_at: row.get(4),
            revoked_at: row.get(5),
            used: row.get(6),
            quota: row.get(7),
            unused_expires_at: row.get(8),
        })
        .collect())
}

/// A plan's limits; `None` is unlimited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// `anonymous`, `free`, `internal`, ...
    pub name: String,
    /// Requests per window.
    pub quota: Option<i32>,
    /// Window length.
    pub window_seconds: i32,
    /// Requests per second (token bucket of this size, refilling at this rate).
    pub burst_per_second: Option<i32>,
}

/// Every plan, by name.
pub async fn plans(client: &Client) -> anyhow::Result<Vec<Plan>> {
    let rows = client
        .query(
            "select name, quota, window_seconds, burst_per_second from keys.plans()",
            &[],
        )
        .await
        .map_err(db_error)?;
    Ok(rows
        .iter()
        .map(|row| Plan {
            name: row.get(0),
            quota: row.get(1),
            window_seconds: row.get(2),
            burst_per_second: row.get(3),
        })
        .collect())
}

/// Sets a plan's limits; accounting uses them from the next request on.
pub async fn set_plan(client: &Client, plan: &Plan) -> anyhow::Result<()> {
    client
        .execute(
            "select keys.set_plan($1, $2, $3, $4)",
            &[
                &plan.name,
                &plan.quota,
                &plan.window_seconds,
                &plan.burst_per_second,
            ],
        )
        .await
        .map_err(db_error)?;
    Ok(())
}

/// A database error as the operator should read it: message and hint.
fn db_error(err: tokio_postgres::Error) -> anyhow::Error {
    match err.as_db_error() {
        Some(db) => match db.hint() {
            Some(hint) => anyhow::anyhow!("{} ({hint})", db.message()),
            None => anyhow::anyhow!("{}", db.message()),
        },
        None => anyhow::Error::new(err).context("talking to PostgreSQL"),
    }
}

/// A key that may be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidKey {
    /// `pricing.api_keys.id`, the accounting subject.
    pub id: i64,
    /// The lookup prefix, for logs.
    pub lookup: String,
    /// Its plan.
    pub plan: Arc<str>,
    /// False for a plan with no limits at all: never counted.
    pub metered: bool,
}

/// What a presented key turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyStatus {
    /// Usable.
    Valid(ValidKey),
    /// Malformed, or not issued here.
    Unknown,
    /// Revoked by the operator.
    Revoked,
    /// Past its expiry.
    Expired,
}

#[derive(Debug, Clone)]
struct Record {
    key: ValidKey,
    expires_at: Option<OffsetDateTime>,
    revoked: bool,
}

#[derive(Debug)]
struct Cached {
    record: Option<Record>,
    fetched: Instant,
}

/// Resolves presented keys through `api.resolve_key()`, caching each answer
/// (including "no such key") for the TTL. Expiry is checked on every use, so it
/// is exact; a revocation is seen once the cached entry is older than the TTL.
#[derive(Debug)]
pub struct KeyStore {
    pool: Pool,
    ttl: Duration,
    cache: Mutex<HashMap<[u8; 32], Cached>>,
}

impl KeyStore {
    /// A store over the web pool.
    pub fn new(pool: Pool, ttl: Duration) -> Self {
        Self {
            pool,
            ttl,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Issues a free key on request ([`issue_on_request`]) over this store's pool.
    pub async fn issue_on_request(&self) -> anyhow::Result<IssuedOnRequest> {
        issue_on_request(&self.pool).await
    }

    /// What `presented` is. Errs only when the database cannot be asked.
    pub async fn resolve(&self, presented: &str) -> anyhow::Result<KeyStatus> {
        let Some(lookup) = lookup_of(presented) else {
            return Ok(KeyStatus::Unknown);
        };
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let cached = {
            let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            cache
                .get(&digest)
                .filter(|c| c.fetched.elapsed() < self.ttl)
                .map(|c| c.record.clone())
        };
        let record = match cached {
            Some(record) => record,
            None => {
                // Kept from before the read: a revocation that lands during
                // the read is seen within the TTL of it, not later.
                let asked = Instant::now();
                let record = tokio::time::timeout(
                    KEY_CHECK_TIMEOUT,
                    self.fetch(lookup, &hex::encode(digest)),
                )
                .await
                .map_err(|_| anyhow::anyhow!("no answer within {KEY_CHECK_TIMEOUT:?}"))??;
                self.remember(digest, record.clone(), asked);
                record
            }
        };
        Ok(match record {
            None => KeyStatus::Unknown,
            Some(r) if r.revoked => KeyStatus::Revoked,
            Some(r) if r.expires_at.is_some_and(|t| t <= OffsetDateTime::now_utc()) => {
                KeyStatus::Expired
            }
            Some(r) => KeyStatus::Valid(r.key),
        })
    }

    async fn fetch(&self, lookup: &str, sha256: &str) -> anyhow::Result<Option<Record>> {
        let client = self.pool.get().await.context("no database connection")?;
        let statement = client
            .prepare_cached(
                "select key_id, plan, metered, expires_at, revoked_at
                 from api.resolve_key($1, $2)",
            )
            .await?;
        let row = client.query_opt(&statement, &[&lookup, &sha256]).await?;
        Ok(row.map(|row| Record {
            key: ValidKey {
                id: row.get(0),
                lookup: lookup.to_owned(),
                plan: Arc::from(row.get::<_, &str>(1)),
                metered: row.get(2),
            },
            expires_at: row.get(3),
            revoked: row.get::<_, Option<OffsetDateTime>>(4).is_some(),
        }))
    }

    fn remember(&self, digest: [u8; 32], record: Option<Record>, fetched: Instant) {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= MAX_CACHED {
            cache.retain(|_, c| c.fetched.elapsed() < self.ttl);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        cache.insert(digest, Cached { record, fetched });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_have_the_live_prefix_and_256_bits_of_base62() {
        let key = NewKey::generate().expect("key");
        let text = key.expose();
        assert!(text.starts_with("pr_live_"));
        assert_eq!(text.len(), 8 + 43);
        assert!(text[8..].bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_eq!(lookup_of(text), Some(key.lookup()));
        assert_eq!(key.lookup().len(), 12);
        let other = NewKey::generate().expect("key");
        assert_ne!(text, other.expose());
        assert!(!format!("{key:?}").contains(text), "Debug hides the key");
    }

    #[test]
    fn malformed_keys_have_no_lookup_prefix() {
        assert_eq!(lookup_of("pr_live_short"), None);
        assert_eq!(lookup_of(&format!("pr_test_{}", "a".repeat(43))), None);
        assert_eq!(lookup_of(&format!("pr_live_{}-", "a".repeat(42))), None);
        assert_eq!(
            lookup_of(&format!("pr_live_{}", "a".repeat(43))),
            Some("aaaaaaaaaaaa")
        );
    }

    #[test]
    fn prefixes_are_accepted_with_or_without_pr_live() {
        assert_eq!(
            normalize_prefix("pr_live_AbCdEfGhIjKl").expect("prefix"),
            "AbCdEfGhIjKl"
        );
        assert_eq!(
            normalize_prefix("AbCdEfGhIjKl").expect("prefix"),
            "AbCdEfGhIjKl"
        );
        let key = NewKey::generate().expect("key");
        assert_eq!(
            normalize_prefix(key.expose()).expect("prefix"),
            key.lookup()
        );
        assert!(normalize_prefix("pr_live_abc").is_err());
    }

    #[test]
    fn the_stored_hash_is_the_sha256_of_the_whole_key() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
