//! The in-process cache of what a publish computed (docs/api.md, "Caching"):
//! transport-free. It keeps two kinds of entries under one bound in entries
//! and bytes (the oldest go first), each with the publish generation and the
//! UTC day it was computed in: JSON values (the results of MCP tool calls,
//! keyed by tool and arguments, and the prices of estimates, keyed by the
//! models asked for) and [`Representation`]s, the finished bodies of GET
//! answers that `crate::http::cache` keys by request and serves again.
//!
//! Entries live until the generation changes: the server LISTENs on channel
//! `pricing_publish` (publish.apply notifies it) on a dedicated connection and
//! bumps the generation on every notification and on every (re)connection,
//! since a notification may have been missed while the connection was down.
//! While that connection is down the cache is not used at all, and the
//! listener reconnects with a growing delay (1 s doubling to 10 s) logging
//! the loss once per outage, not once per attempt.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use salvo::http::HeaderValue;
use serde_json::Value;
use tokio_postgres::{AsyncMessage, Config, NoTls};

/// The notification channel publish.apply notifies with the new publish id.
pub const CHANNEL: &str = "pricing_publish";

/// How long the listener waits before its first reconnection; each failed
/// attempt doubles it, up to [`MAX_RECONNECT_DELAY`].
const RECONNECT_DELAY: Duration = Duration::from_secs(1);
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(10);

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

/// The finished body of a GET answer with the headers that describe it, in
/// every encoding it is kept in.
#[derive(Debug, Clone)]
pub struct Representation {
    // The headers are kept as sent, so that a hit copies them (a reference
    // count) rather than checking and copying their text again.
    /// `ETag`.
    pub etag: HeaderValue,
    /// `Content-Type`.
    pub content_type: HeaderValue,
    /// `Cache-Control`.
    pub cache_control: HeaderValue,
    /// `Content-Disposition` (the dump's file name).
    pub disposition: Option<HeaderValue>,
    /// The route that computed it, as the request metrics name it: a hit
    /// is answered before its route is matched, and counts under this one.
    pub route: String,
    /// The body as computed.
    pub identity: Bytes,
    /// The body gzip-compressed, when worth it.
    pub gzip: Option<Bytes>,
    /// The body brotli-compressed, when worth it.
    pub br: Option<Bytes>,
}

/// What the first route of the service (`http::cache::hits`) found in the
/// cache for a GET, kept in the request's extensions: the kept answer, or the
/// key to keep the answer under once it is computed. The request metrics read
/// a hit's route from it.
#[derive(Clone, Debug)]
pub enum Lookup {
    /// The answer kept for the request.
    Hit(Arc<Representation>),
    /// None kept: the key to keep one under.
    Miss(String),
}

impl Representation {
    fn size(&self) -> usize {
        self.identity.len()
            + self.gzip.as_ref().map_or(0, Bytes::len)
            + self.br.as_ref().map_or(0, Bytes::len)
    }
}

/// What a lookup counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tally {
    /// Hits and misses.
    Misses,
    /// Hits only.
    HitsOnly,
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

/// A value of any type, shared by the requests that read it.
type Shared = Arc<dyn std::any::Any + Send + Sync>;

/// Both stores, under one lock and one set of bounds.
#[derive(Debug, Default)]
struct Stores {
    /// Finished GET answers.
    http: Store<Arc<Representation>>,
    /// Values: results of MCP tool calls (the REST envelopes, JSON) and the
    /// prices of estimates (read once into what the estimator takes).
    values: Store<Shared>,
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

    /// Whether the cache is in use (its listener is connected).
    pub fn enabled(&self) -> bool {
        self.listening.load(Ordering::SeqCst)
    }

    /// The generation now: an answer computed from here on is kept under it.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// The representation kept under `key` for this generation and `day`
    /// (a hit, or a miss when there is none).
    pub fn representation(&self, key: &str, day: time::Date) -> Option<Arc<Representation>> {
        self.get(|s| &s.http, key, day, Tally::Misses)
            .map(|hit| hit.value.clone())
    }

    /// The same for a request that may not be a cacheable one (looked up
    /// before its route is known): a hit when there is one, and no miss,
    /// which [`Self::representation`] counts once the route is known.
    pub fn kept_representation(&self, key: &str, day: time::Date) -> Option<Arc<Representation>> {
        self.get(|s| &s.http, key, day, Tally::HitsOnly)
            .map(|hit| hit.value.clone())
    }

    /// Keeps `value` under `key`, computed in `generation` on `day` (dropped
    /// when the generation has moved on since).
    pub fn keep_representation(
        &self,
        key: String,
        generation: u64,
        day: time::Date,
        value: Representation,
    ) {
        let size = value.size();
        self.insert(
            |s| &mut s.http,
            key,
            Cached {
                generation,
                day,
                size,
                value: Arc::new(value),
            },
        );
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
        tally: Tally,
    ) -> Option<Arc<Cached<V>>> {
        let generation = self.generation.load(Ordering::SeqCst);
        let store = self.lock();
        let found = pick(&store)
            .map
            .get(key)
            .filter(|e| e.generation == generation && e.day == day)
            .cloned();
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        } else if tally == Tally::Misses {
            self.misses.fetch_add(1, Ordering::Relaxed);
        }
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
        let shared = self
            .shared(what, args, |v: &Value| v.to_string().len(), compute)
            .await?;
        Ok(Arc::unwrap_or_clone(shared))
    }

    /// [`Self::value`] for a value of any type, shared rather than copied:
    /// `size` tells the bytes it counts against the bound. A key is always
    /// kept with one type (`what` names both); an entry of another type is a
    /// miss.
    pub async fn shared<T, E>(
        &self,
        what: &str,
        args: &Value,
        size: impl FnOnce(&T) -> usize,
        compute: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<Arc<T>, E>
    where
        T: Send + Sync + 'static,
    {
        if !self.enabled() {
            return compute.await.map(Arc::new);
        }
        // serde_json maps are sorted by key: equal arguments, equal text.
        let key = format!("{what}\n{args}");
        let day = time::OffsetDateTime::now_utc().date();
        if let Some(hit) = self.get(|s| &s.values, &key, day, Tally::Misses)
            && let Ok(value) = hit.value.clone().downcast::<T>()
        {
            return Ok(value);
        }
        let generation = self.generation.load(Ordering::SeqCst);
        let value = Arc::new(compute.await?);
        let size = size(&value);
        let shared: Shared = value.clone();
        self.insert(
            |s| &mut s.values,
            key,
            Cached {
                generation,
                day,
                size,
                value: shared,
            },
        );
        Ok(value)
    }

    /// Keeps the generation current: LISTENs on [`CHANNEL`] over a dedicated
    /// connection, reconnecting when it is lost after [`RECONNECT_DELAY`],
    /// doubled after each failed attempt up to [`MAX_RECONNECT_DELAY`].
    pub async fn listen(self: Arc<Self>, config: Config) {
        let mut delay = RECONNECT_DELAY;
        // Whether the outage under way was logged: one line when it begins
        // (and an info line when the listener is back), none per attempt.
        let mut logged = false;
        loop {
            let mut connected = false;
            let outcome = self.listen_once(&config, &mut connected).await;
            if connected {
                // A session was up: its loss begins a new outage.
                delay = RECONNECT_DELAY;
                logged = false;
            }
            if let Err(err) = outcome
                && !logged
            {
                tracing::warn!(
                    error = %format!("{err:#}"),
                    "publish listener: connection lost; response cache off, reconnecting with backoff"
                );
                logged = true;
            }
            self.listening.store(false, Ordering::SeqCst);
            self.bump();
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(MAX_RECONNECT_DELAY);
        }
    }

    /// One connection's life: connect, LISTEN, bump on every notification.
    /// `connected` is set once the LISTEN is in place.
    async fn listen_once(&self, config: &Config, connected: &mut bool) -> anyhow::Result<()> {
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
            let publish = crate::store::db::served(&client)
                .await
                .ok()
                .flatten()
                .map(|served| served.id);
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
        *connected = true;
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
            let value = Representation {
                etag: HeaderValue::from_static("\"e\""),
                content_type: HeaderValue::from_static("application/json"),
                cache_control: HeaderValue::from_static("public"),
                disposition: None,
                route: "api/v1/models".into(),
                identity: Bytes::from(vec![b'x'; n]),
                gzip: None,
                br: None,
            };
            // computed in the first generation: after a bump, too old
            cache.keep_representation(key.into(), 0, day, value);
        };
        let has = |key: &str| cache.representation(key, day).is_some();
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
