//! The webhook subscriptions of a key holder (docs/webhooks.md):
//! `POST /api/v1/webhooks` (the body checked here, the destination by
//! [`crate::webhooks::destination`], a signing secret drawn once),
//! `GET /api/v1/webhooks` and `DELETE /api/v1/webhooks/{webhook_id}`, each
//! one `api` call (sql/39_webhooks.sql) on the control pool. What is sent
//! to them, and when, is the delivery worker's ([`crate::webhooks`]).

use deadpool_postgres::Pool;
use serde_json::{Map, Value, json};

use super::fields::{body_object, item, read_string, reject_unknown};
use super::params::{MAX_SLUG_CHARS, MAX_WATCHED, check_length, check_model_id};
use super::vocab::{EVENT_TYPES, SCHEMA_VERSION};
use crate::error::{ApiError, ErrorCode, excerpt};
use crate::webhooks::{Webhooks, destination, signing};

/// The fields of a subscription's body.
const FIELDS: &[&str] = &["url", "model", "provider", "event_type", "min_significance"];

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
        let fields = body_object(body)?;
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
        check_length("url", &url, destination::MAX_URL_CHARS, "a URL")?;
        if let Some(models) = &models {
            let what = "a list of 1 to 50 model ids";
            if models.is_empty() || models.len() > MAX_WATCHED {
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
            check_length("provider", provider, MAX_SLUG_CHARS, "a provider slug")?;
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
        "schema_version": SCHEMA_VERSION,
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
