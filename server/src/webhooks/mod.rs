//! Webhooks (docs/webhooks.md): a key holder subscribes an https URL to the
//! change events with the filters of /api/v1/changes; after each publish,
//! every new event a subscription matches is delivered to it once, as a JSON
//! POST signed the Standard Webhooks way ([`signing`]), retried with backoff
//! for a day; announced shutdowns of the models it watches are recalled 90,
//! 30 and 7 days ahead. Subscriptions and deliveries live in PostgreSQL
//! (sql/39_webhooks.sql, sql/65_webhook_deliveries.sql); the delivery worker
//! of each server ([`worker`]) takes due deliveries from there, so a restart
//! loses nothing and servers share the work. Destinations are checked by
//! [`destination`].

pub mod destination;
pub mod signing;
pub mod worker;

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::Pool;
use serde_json::{Map, Value, json};

use crate::error::{ApiError, ErrorCode, excerpt};
use crate::service::estimate::{item, read_string, reject_unknown};
use crate::service::params::check_model_id;
use crate::service::vocab::EVENT_TYPES;

/// The fields of a subscription's body.
const FIELDS: &[&str] = &["url", "model", "provider", "event_type", "min_significance"];

/// How webhooks are sent, and the limits of each key (docs/webhooks.md, "Limits").
#[derive(Debug, Clone)]
pub struct Settings {
    /// Run a delivery worker in this server; without one, subscriptions are
    /// still managed here and their deliveries wait for a server that has one.
    pub deliver: bool,
    /// Allow destinations on loopback, private and link-local addresses, and plain http.
    pub allow_private: bool,
    /// Subscriptions a key may have.
    pub max_per_key: i32,
    /// Delivery attempts a key's subscriptions may make per clock hour (more wait for the next).
    pub attempts_per_key_hour: i32,
    /// The wait after the n-th failed attempt (the last one repeats).
    pub retry_schedule: Vec<Duration>,
    /// How long after it was made a delivery is retried; then it has failed.
    pub give_up_after: Duration,
    /// How long one attempt may take, connecting included.
    pub timeout: Duration,
    /// Attempts in flight at once per server (one per subscription at most).
    pub slots: usize,
    /// How often the worker looks for new publishes and due deliveries.
    pub poll: Duration,
    /// Days before an announced shutdown that a reminder is sent.
    pub reminder_days: Vec<i32>,
}

impl Default for Settings {
    fn default() -> Self {
        let minutes = |m: u64| Duration::from_secs(60 * m);
        Self {
            deliver: true,
            allow_private: false,
            max_per_key: 20,
            attempts_per_key_hour: 1000,
            retry_schedule: vec![
                Duration::from_secs(5),
                minutes(1),
                minutes(5),
                minutes(30),
                minutes(120),
                minutes(360),
                minutes(720),
            ],
            give_up_after: Duration::from_secs(24 * 3600),
            timeout: Duration::from_secs(10),
            slots: 8,
            poll: Duration::from_secs(5),
            reminder_days: vec![90, 30, 7],
        }
    }
}

impl Settings {
    /// The wait before the attempt after the `attempt`-th (1 = the first).
    pub fn retry_after(&self, attempt: i32) -> Duration {
        let at = usize::try_from(attempt.max(1) - 1).unwrap_or(0);
        self.retry_schedule
            .get(at)
            .or(self.retry_schedule.last())
            .copied()
            .unwrap_or(self.give_up_after)
    }
}

/// Webhooks of one server: the settings and the pool of its worker.
#[derive(Debug, Clone)]
pub struct Webhooks {
    pub(crate) settings: Arc<Settings>,
    pub(crate) pool: Pool,
    pub(crate) stats: Arc<worker::Stats>,
}

impl Webhooks {
    /// Webhooks sent through `pool` (role `pricing_web`, see
    /// [`crate::store::db::webhook_pool`]).
    pub fn new(settings: Settings, pool: Pool) -> Self {
        Self {
            settings: Arc::new(settings),
            pool,
            stats: Arc::default(),
        }
    }

    /// What the worker has done since start.
    pub fn stats(&self) -> &worker::Stats {
        &self.stats
    }
}

/// A subscription as registered: the body of `POST /api/v1/webhooks`.
#[derive(Debug)]
struct NewSubscription {
    url: String,
    models: Option<Vec<String>>,
    provider: Option<String>,
    event_types: Option<Vec<String>>,
    min_significance: Option<i32>,
}

/// A list of strings in a body field: 422 for another JSON type.
fn read_strings(
    fields: &Map<String, Value>,
    name: &str,
    errors: &mut Vec<crate::error::ValidationItem>,
) -> Option<Vec<String>> {
    let v = fields.get(name)?;
    let Some(values) = v.as_array() else {
        errors.push(item(
            &[json!(name)],
            "list_type",
            "Input should be a valid array",
            Some(v.clone()),
        ));
        return None;
    };
    let mut out = Vec::with_capacity(values.len());
    for (i, value) in values.iter().enumerate() {
        match value.as_str() {
            Some(s) => out.push(s.to_owned()),
            None => errors.push(item(
                &[json!(name), json!(i)],
                "string_type",
                "Input should be a valid string",
                Some(value.clone()),
            )),
        }
    }
    Some(out)
}

impl NewSubscription {
    /// Reads the body: 422 for what cannot be read, 400 for values outside
    /// their range and for unknown fields.
    fn read(body: Value) -> Result<Self, ApiError> {
        let fields = crate::service::estimate::body_object(body)?;
        let mut errors = Vec::new();
        let url = read_string(&fields, "url", &mut errors);
        if !fields.contains_key("url") {
            errors.push(item(&[json!("url")], "missing", "Field required", None));
        }
        let models = read_strings(&fields, "model", &mut errors);
        let provider = read_string(&fields, "provider", &mut errors);
        let event_types = read_strings(&fields, "event_type", &mut errors);
        let min_significance = match fields.get("min_significance") {
            None => None,
            Some(v) => match v.as_i64() {
                Some(n) => Some(n),
                None => {
                    errors.push(item(
                        &[json!("min_significance")],
                        "int_type",
                        "Input should be a valid integer",
                        Some(v.clone()),
                    ));
                    None
                }
            },
        };
        if !errors.is_empty() {
            return Err(ApiError::validation(errors));
        }
        reject_unknown(&fields, FIELDS)?;
        let url = url.unwrap_or_default();
        crate::service::params::check_length("url", &url, destination::MAX_URL_CHARS, "a URL")?;
        if let Some(models) = &models {
            let what = "a list of 1 to 50 model ids";
            if models.is_empty() || models.len() > crate::service::changes::MAX_WATCHED {
                return Err(ApiError::invalid(
                    "model",
                    format!("`model` names {} models", models.len()),
                    what,
                ));
            }
            for id in models {
                check_model_id("model", id)?;
            }
        }
        if let Some(provider) = &provider {
            crate::service::params::check_length(
                "provider",
                provider,
                crate::service::params::MAX_SLUG_CHARS,
                "a provider slug",
            )?;
        }
        let types: Vec<&str> = EVENT_TYPES
            .iter()
            .copied()
            .filter(|t| *t != "all")
            .collect();
        if let Some(event_types) = &event_types {
            let allowed = format!("a list of event types from {}", types.join(", "));
            if event_types.is_empty() {
                return Err(ApiError::invalid(
                    "event_type",
                    "`event_type` is empty",
                    &allowed,
                ));
            }
            if let Some(bad) = event_types.iter().find(|t| !types.contains(&t.as_str())) {
                return Err(ApiError::invalid(
                    "event_type",
                    format!("`event_type` lists `{}`", excerpt(bad)),
                    &allowed,
                ));
            }
        }
        let min_significance = match min_significance {
            Some(n) if !(0..=100).contains(&n) => {
                return Err(ApiError::invalid(
                    "min_significance",
                    format!("`min_significance` must be from 0 to 100; got {n}"),
                    "an integer from 0 to 100",
                ));
            }
            n => n.and_then(|n| i32::try_from(n).ok()),
        };
        Ok(Self {
            url,
            models,
            provider,
            event_types,
            min_significance,
        })
    }
}

/// Runs one `api` call of the webhooks on the control pool (these are
/// writes, on the primary, and quick), answering its JSON.
async fn call(
    pool: &Pool,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Value, ApiError> {
    let client = pool.get().await?;
    let row = client.query_one(sql, params).await?;
    row.try_get::<_, Value>(0)
        .map_err(|e| ApiError::internal("reading a webhooks result", &e))
}

/// The answer of a webhooks endpoint: `schema_version` and `data`.
fn answer(mut result: Value) -> Value {
    json!({
        "schema_version": crate::service::respond::SCHEMA_VERSION,
        "data": result["data"].take(),
    })
}

/// `POST /api/v1/webhooks`: registers a subscription of key `key_id` and
/// answers it with its signing secret (shown this once).
pub async fn create(
    webhooks: &Webhooks,
    control: &Pool,
    key_id: i64,
    body: Value,
) -> Result<Value, ApiError> {
    let new = NewSubscription::read(body)?;
    let settings = &webhooks.settings;
    let url = destination::check_url(&new.url, settings.allow_private)
        .await
        .map_err(|refused| {
            ApiError::invalid(
                "url",
                refused.to_string(),
                if settings.allow_private {
                    "an https or http URL whose host resolves"
                } else {
                    "an https URL whose host resolves only to public addresses"
                },
            )
        })?;
    let secret =
        signing::new_secret().map_err(|e| ApiError::internal("drawing a webhook secret", &e))?;
    let mut result = answer(
        call(
            control,
            "select api.create_webhook($1, $2, $3::text[], $4, $5::text[], $6::int4, $7, $8::int4)",
            &[
                &key_id,
                &url.as_str(),
                &new.models,
                &new.provider,
                &new.event_types,
                &new.min_significance,
                &secret,
                &settings.max_per_key,
            ],
        )
        .await?,
    );
    result["data"]["secret"] = json!(secret);
    Ok(result)
}

/// How many of a subscription's newest deliveries `GET /api/v1/webhooks` shows.
const RECENT_DELIVERIES: i32 = 10;

/// `GET /api/v1/webhooks`: the key's subscriptions with their last deliveries.
pub async fn list(webhooks: &Webhooks, control: &Pool, key_id: i64) -> Result<Value, ApiError> {
    let mut result = answer(
        call(
            control,
            "select api.list_webhooks($1, $2::int4)",
            &[&key_id, &RECENT_DELIVERIES],
        )
        .await?,
    );
    let s = &webhooks.settings;
    result["data"]["limits"] = json!({
        "subscriptions_per_key": s.max_per_key,
        "attempts_per_key_hour": s.attempts_per_key_hour,
    });
    Ok(result)
}

/// `DELETE /api/v1/webhooks/{webhook_id}`: removes one of the key's subscriptions.
pub async fn delete(control: &Pool, key_id: i64, id: &str) -> Result<Value, ApiError> {
    let not_found = || {
        ApiError::new(
            ErrorCode::WebhookNotFound,
            format!("this key has no webhook subscription `{}`", excerpt(id)),
            "GET /api/v1/webhooks lists the subscriptions of this key",
        )
    };
    let id: i64 = id.parse().map_err(|_| not_found())?;
    Ok(answer(
        call(
            control,
            "select api.delete_webhook($1, $2)",
            &[&key_id, &id],
        )
        .await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_retry_schedule_backs_off_and_repeats_its_last_wait() {
        let s = Settings::default();
        assert_eq!(s.retry_after(1), Duration::from_secs(5));
        assert_eq!(s.retry_after(2), Duration::from_secs(60));
        assert_eq!(s.retry_after(7), Duration::from_secs(12 * 3600));
        assert_eq!(s.retry_after(20), Duration::from_secs(12 * 3600));
        // eight attempts within 20.6 hours, the ninth clamped to the day's end
        let total: Duration = (1..=7).map(|n| s.retry_after(n)).sum();
        assert_eq!(total, Duration::from_secs(74_165));
        assert!(total < s.give_up_after && total + s.retry_after(8) > s.give_up_after);
    }

    #[test]
    fn a_subscription_body_is_checked_field_by_field() {
        let ok = NewSubscription::read(json!({
            "url": "https://hooks.example.com/p", "model": ["openai:o3"],
            "event_type": ["retirement", "price_change"], "min_significance": 40
        }))
        .expect("valid");
        assert_eq!(ok.models.as_deref(), Some(&["openai:o3".to_owned()][..]));
        let code = |v: Value| NewSubscription::read(v).expect_err("refused").code();
        assert_eq!(code(json!({})), ErrorCode::ValidationFailed);
        assert_eq!(code(json!({"url": 5})), ErrorCode::ValidationFailed);
        assert_eq!(
            code(json!({"url": "https://x.example", "model": "openai:o3"})),
            ErrorCode::ValidationFailed
        );
        assert_eq!(
            code(json!({"url": "https://x.example", "event_type": ["all"]})),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            code(json!({"url": "https://x.example", "min_significance": 101})),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            code(json!({"url": "https://x.example", "model": []})),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            code(json!({"url": "https://x.example", "colour": "red"})),
            ErrorCode::InvalidArgument
        );
    }
}
