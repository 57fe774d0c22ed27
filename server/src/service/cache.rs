//! The in-process response cache of cacheable GETs (docs/api.md, "Caching").
//!
//! A `200` answer of a data endpoint under `/api/v1`, of a feed or of the dump
//! is kept in memory, keyed by the host, the request path and its query with
//! the parameters sorted and the API key left out, together with the publish
//! generation and the UTC day it was computed in. MCP tool calls keep their
//! results the same way, keyed by tool and arguments, and estimates their
//! prices, keyed by the models asked for. An HTTP answer is served again,
//! pre-compressed (gzip, br) when the client accepts it, until the generation
//! changes: the server LISTENs on channel
//! `pricing_publish` (publish.apply notifies it) on a dedicated connection and
//! bumps the generation on every notification and on every (re)connection,
//! since a notification may have been missed while the connection was down.
//! While that connection is down the cache is not used at all.
//!
//! Hits still pass the rate-limit hoop (it runs first), answer `304` on
//! `If-None-Match` and carry `X-Cache: hit` (misses `X-Cache: miss`).
//! The cache is bounded in entries and bytes; the oldest entries go first.

use std::collections::{HashMap, VecDeque};
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use salvo::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_ENCODING, CONTENT_TYPE, ETAG,
    HOST, HeaderName, HeaderValue, IF_NONE_MATCH, VARY,
};
use salvo::http::{Method, ResBody, StatusCode};
use salvo::prelude::*;
use serde_json::Value;
use tokio_postgres::{AsyncMessage, Config, NoTls};

use super::state::state;

/// The notification channel publish.apply notifies with the new publish id.
pub const CHANNEL: &str = "pricing_publish";

const X_CACHE: HeaderName = HeaderName::from_static("x-cache");

/// Bodies shorter than this are not compressed.
const COMPRESS_MIN_BYTES: usize = 512;

/// How long the listener waits before reconnecting.
const RECONNECT_DELAY: Duration = Duration::from_secs(1);

/// Bounds of the cache.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// At most this many entries.
    pub entries: usize,
    /// At most this many bytes of bodies (all variants).
    pub bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            entries: 10_000,
            bytes: 128 << 20,
        }
    }
}

/// A cached HTTP answer.
#[derive(Debug)]
struct Entry {
    etag: HeaderValue,
    content_type: HeaderValue,
    cache_control: HeaderValue,
    /// The dump's file name.
    disposition: Option<HeaderValue>,
    identity: Bytes,
    gzip: Option<Bytes>,
    br: Option<Bytes>,
}

impl Entry {
    fn size(&self) -> usize {
        self.identity.len()
            + self.gzip.as_ref().map_or(0, Bytes::len)
            + self.br.as_ref().map_or(0, Bytes::len)
    }
}

/// A value kept for the generation and UTC day it was computed in.
#[derive(Debug)]
struct Cached<V> {
    generation: u64,
    day: time::Date,
    /// The bytes of its bodies.
    size: usize,
    value: V,
}

impl<V> Cached<V> {
    /// What it counts against the byte bound: its bodies, key and headers.
    fn cost(&self) -> usize {
        self.size + ENTRY_OVERHEAD
    }
}

/// Entries of one kind, oldest first in `order`.
#[derive(Debug)]
struct Store<V> {
    map: HashMap<String, Arc<Cached<V>>>,
    order: VecDeque<String>,
    bytes: usize,
}

impl<V> Default for Store<V> {
    fn default() -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
        }
    }
}

/// Both stores, under one lock and one set of bounds.
#[derive(Debug, Default)]
struct Stores {
    /// HTTP answers (REST GETs).
    http: Store<Entry>,
    /// JSON values: results of MCP tool calls (the REST envelopes) and the
    /// prices of estimates.
    values: Store<Value>,
}

impl Stores {
    fn entries(&self) -> usize {
        self.http.map.len() + self.values.map.len()
    }

    fn bytes(&self) -> usize {
        self.http.bytes + self.values.bytes
    }
}

/// Every entry is counted this much larger than its bodies (key, headers).
const ENTRY_OVERHEAD: usize = 256;

/// The shared cache and publish generation.
#[derive(Debug)]
pub struct ResponseCache {
    generation: AtomicU64,
    listening: AtomicBool,
    /// The newest publish id the listener heard of (0: none yet).
    publish: AtomicI64,
    limits: Limits,
    store: Mutex<Stores>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl ResponseCache {
    /// An empty cache, not in use until its listener is connected.
    pub fn new(limits: Limits) -> Self {
        Self {
            generation: AtomicU64::new(0),
            listening: AtomicBool::new(false),
            publish: AtomicI64::new(0),
            limits,
            store: Mutex::new(Stores::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Drops everything cached so far (a new publish landed, or one may have).
    pub fn bump(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let mut store = self.lock();
        *store = Stores::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Stores> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn enabled(&self) -> bool {
        self.listening.load(Ordering::SeqCst)
    }

    /// The newest publish on the primary, while the listener is connected
    /// (read replicas are used only for answers at least this new).
    pub fn latest_publish(&self) -> Option<i64> {
        let publish = self.publish.load(Ordering::SeqCst);
        (self.enabled() && publish > 0).then_some(publish)
    }

    /// Takes in a publish heard of; set before the generation is bumped, so
    /// that a read begun after the bump already requires it.
    fn heard(&self, publish: Option<i64>) {
        if let Some(publish) = publish {
            self.publish.fetch_max(publish, Ordering::SeqCst);
        }
    }

    /// Hits and misses so far, for /healthz.
    pub fn stats(&self) -> serde_json::Value {
        let store = self.lock();
        serde_json::json!({
            "enabled": self.enabled(),
            "generation": self.generation.load(Ordering::SeqCst),
            "entries": store.entries(),
            "bytes": store.bytes(),
            "hits": self.hits.load(Ordering::Relaxed),
            "misses": self.misses.load(Ordering::Relaxed),
        })
    }

    fn get<V>(
        &self,
        pick: impl FnOnce(&Stores) -> &Store<V>,
        key: &str,
        day: time::Date,
    ) -> Option<Arc<Cached<V>>> {
        let generation = self.generation.load(Ordering::SeqCst);
        let store = self.lock();
        let found = pick(&store)
            .map
            .get(key)
            .filter(|e| e.generation == generation && e.day == day)
            .cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    fn insert<V>(
        &self,
        pick: impl FnOnce(&mut Stores) -> &mut Store<V>,
        key: String,
        entry: Cached<V>,
    ) {
        let size = entry.cost();
        if size > self.limits.bytes || self.limits.entries == 0 {
            return;
        }
        let mut stores = self.lock();
        // Re-checked under the lock: a bump since the request began drops it.
        if entry.generation != self.generation.load(Ordering::SeqCst) {
            return;
        }
        // The bounds hold for both kinds together; the new entry's kind gives
        // up its own oldest entries until it fits.
        let others = (stores.entries(), stores.bytes());
        let store = pick(&mut stores);
        let (other_entries, other_bytes) = (others.0 - store.map.len(), others.1 - store.bytes);
        if let Some(old) = store.map.remove(&key) {
            store.bytes -= old.cost();
            store.order.retain(|k| k != &key);
        }
        while other_entries + store.map.len() >= self.limits.entries
            || other_bytes + store.bytes + size > self.limits.bytes
        {
            let Some(oldest) = store.order.pop_front() else {
                break;
            };
            if let Some(old) = store.map.remove(&oldest) {
                store.bytes -= old.cost();
            }
        }
        store.bytes += size;
        store.order.push_back(key.clone());
        store.map.insert(key, Arc::new(entry));
    }

    /// The value of `what` (an MCP tool, an api function) for `args`, from
    /// the cache when this publish (and UTC day) already computed it, else
    /// from `compute` (and then kept, when it succeeded and the cache is in
    /// use).
    pub async fn value<E>(
        &self,
        what: &str,
        args: &Value,
        compute: impl std::future::Future<Output = Result<Value, E>>,
    ) -> Result<Value, E> {
        if !self.enabled() {
            return compute.await;
        }
        // serde_json maps are sorted by key: equal arguments, equal text.
        let key = format!("{what}\n{args}");
        let day = time::OffsetDateTime::now_utc().date();
        if let Some(hit) = self.get(|s| &s.values, &key, day) {
            return Ok(hit.value.clone());
        }
        let generation = self.generation.load(Ordering::SeqCst);
        let value = compute.await?;
        let size = value.to_string().len();
        self.insert(
            |s| &mut s.values,
            key,
            Cached {
                generation,
                day,
                size,
                value: value.clone(),
            },
        );
        Ok(value)
    }

    /// Keeps the generation current: LISTENs on [`CHANNEL`] over a dedicated
    /// connection, reconnecting after [`RECONNECT_DELAY`] when it is lost.
    pub async fn listen(self: Arc<Self>, config: Config) {
        loop {
            if let Err(err) = self.listen_once(&config).await {
                tracing::warn!(error = %format!("{err:#}"), "publish listener: connection lost");
            }
            self.listening.store(false, Ordering::SeqCst);
            self.bump();
            tokio::time::sleep(RECONNECT_DELAY).await;
        }
    }

    async fn listen_once(&self, config: &Config) -> anyhow::Result<()> {
        let mut config = config.clone();
        config
            .application_name("pricing-listen")
            .connect_timeout(Duration::from_secs(5))
            // A silently dead TCP connection must not keep the cache on.
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(10));
        let (client, mut connection) = config.connect(NoTls).await?;
        let (done_tx, mut done_rx) = tokio::sync::oneshot::channel::<anyhow::Result<()>>();
        let (notify_tx, mut notify_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let driver = tokio::spawn(async move {
            let outcome = loop {
                match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                    Some(Ok(AsyncMessage::Notification(n))) => {
                        let _ = notify_tx.send(n.payload().to_owned());
                    }
                    Some(Ok(_)) => {}
                    Some(Err(err)) => break Err(anyhow::Error::from(err)),
                    None => break Ok(()),
                }
            };
            let _ = done_tx.send(outcome);
        });
        let ready = async {
            client.batch_execute(&format!("listen {CHANNEL}")).await?;
            // Whatever landed while we were not listening: re-read the publish.
            let publish = client
                .query_opt("select max(id) from pricing.publishes", &[])
                .await
                .ok()
                .flatten()
                .and_then(|row| row.get::<_, Option<i64>>(0));
            anyhow::Ok(publish)
        };
        let publish = match ready.await {
            Ok(p) => p,
            Err(err) => {
                driver.abort();
                return Err(err);
            }
        };
        self.heard(publish);
        self.bump();
        self.listening.store(true, Ordering::SeqCst);
        tracing::info!(publish = ?publish, "publish listener: listening");
        loop {
            tokio::select! {
                Some(payload) = notify_rx.recv() => {
                    tracing::info!(publish = %payload, "new publish: response cache dropped");
                    self.heard(payload.parse().ok());
                    self.bump();
                }
                outcome = &mut done_rx => {
                    drop(client);
                    return outcome.unwrap_or(Ok(()));
                }
            }
        }
    }
}

/// The cache key: host (the feeds link to it), path and the query in its
/// canonical form (names sorted, a list's repeated keys joined, the `key`
/// parameter left out: [`super::params::canonical_query`]).
fn cache_key(req: &Request) -> String {
    let host = req
        .headers()
        .get(HOST)
        .map_or(&b""[..], HeaderValue::as_bytes);
    let mut key = String::from_utf8_lossy(host).into_owned();
    key.push_str(req.uri().path());
    key.push('?');
    key.push_str(&super::params::canonical_query(
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

fn if_none_match(req: &Request, etag: &HeaderValue) -> bool {
    let Ok(etag) = etag.to_str() else {
        return false;
    };
    req.headers()
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

/// Writes a cached entry as the response (status 200 or 304).
fn answer(req: &Request, res: &mut Response, entry: &Entry, hit: bool) {
    let headers = res.headers_mut();
    headers.insert(ETAG, entry.etag.clone());
    headers.insert(CACHE_CONTROL, entry.cache_control.clone());
    headers.insert(
        X_CACHE,
        HeaderValue::from_static(if hit { "hit" } else { "miss" }),
    );
    headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    if if_none_match(req, &entry.etag) {
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

/// The cache hoop of the cacheable GET routes.
#[handler]
pub(crate) async fn response_cache(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    let cache = state(depot).cache.clone();
    if !matches!(*req.method(), Method::GET | Method::HEAD) || !cache.enabled() {
        ctrl.call_next(req, depot, res).await;
        return;
    }
    let key = cache_key(req);
    let day = time::OffsetDateTime::now_utc().date();
    if let Some(hit) = cache.get(|s| &s.http, &key, day) {
        answer(req, res, &hit.value, true);
        ctrl.skip_rest();
        return;
    }
    let generation = cache.generation.load(Ordering::SeqCst);
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
    let header = |name| res.headers().get(name).cloned();
    let (Some(etag), Some(content_type), Some(cache_control)) =
        (header(ETAG), header(CONTENT_TYPE), header(CACHE_CONTROL))
    else {
        return;
    };
    let (gzip, br) = if identity.len() >= COMPRESS_MIN_BYTES {
        (gzip(&identity), brotli(&identity))
    } else {
        (None, None)
    };
    let entry = Entry {
        etag,
        content_type,
        cache_control,
        disposition: header(CONTENT_DISPOSITION),
        identity,
        gzip,
        br,
    };
    answer(req, res, &entry, false);
    let size = entry.size();
    cache.insert(
        |s| &mut s.http,
        key,
        Cached {
            generation,
            day,
            size,
            value: entry,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_bytes_are_bounded_and_a_bump_drops_everything() {
        let cache = ResponseCache::new(Limits {
            entries: 2,
            bytes: 10_000,
        });
        let day = time::OffsetDateTime::now_utc().date();
        let put = |key: &str, n: usize| {
            let value = Entry {
                etag: HeaderValue::from_static("\"e\""),
                content_type: HeaderValue::from_static("application/json"),
                cache_control: HeaderValue::from_static("public"),
                disposition: None,
                identity: Bytes::from(vec![b'x'; n]),
                gzip: None,
                br: None,
            };
            let size = value.size();
            cache.insert(
                |s| &mut s.http,
                key.into(),
                Cached {
                    // computed in the first generation: after a bump, too old
                    generation: 0,
                    day,
                    size,
                    value,
                },
            );
        };
        let has = |key: &str| cache.get(|s| &s.http, key, day).is_some();
        put("a", 10);
        put("b", 10);
        put("c", 10);
        assert!(!has("a"));
        assert!(has("b") && has("c"));
        put("d", 9_600);
        assert!(!has("b") && !has("c"));
        cache.bump();
        assert!(!has("d"));
        put("e", 10);
        assert!(!has("e"), "an entry of an old generation");
    }

    #[tokio::test]
    async fn values_are_kept_per_arguments_until_a_bump() {
        let cache = ResponseCache::new(Limits::default());
        cache.listening.store(true, Ordering::SeqCst);
        let compute = |n: u64| async move { Ok::<_, ()>(serde_json::json!({ "n": n })) };
        let args = serde_json::json!({"limit": 5, "query": "o3"});
        let same = serde_json::json!({"query": "o3", "limit": 5});
        assert_eq!(
            cache.value("t", &args, compute(1)).await,
            Ok(serde_json::json!({"n": 1}))
        );
        assert_eq!(
            cache.value("t", &same, compute(2)).await,
            Ok(serde_json::json!({"n": 1}))
        );
        assert_eq!(
            cache.value("u", &args, compute(3)).await,
            Ok(serde_json::json!({"n": 3}))
        );
        cache.bump();
        assert_eq!(
            cache.value("t", &args, compute(4)).await,
            Ok(serde_json::json!({"n": 4}))
        );
    }
}
