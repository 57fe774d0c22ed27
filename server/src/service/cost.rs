//! `POST /api/v1/cost`: the cost of one usage record as a provider's API reports it, on a given
//! day, line by line.
//!
//! The body names the model, the usage record (OpenTelemetry GenAI attributes or the raw usage
//! object of the OpenAI, Anthropic or Gemini API) and optionally when it happened (`at`), the
//! channel and the service tier. The rates are those of `api.estimate_prices` for that model,
//! day and channel (its `rates`: every rate with its condition); reading the record and billing
//! it are the estimator's (`read_usage`, `bill`), the rule `POST /api/v1/estimate` bills with.
//! A model or day the data does not cover is the SQL function's MODEL_NOT_FOUND or
//! NO_PRICE_DATA, never a cost of 0.

use estimator::{RateCard, Region, Served, ServiceTier, USAGE_FORMATS, When, bill, read_usage};
use serde_json::{Map, Value, json};
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime};

use super::estimate::{post_envelope, rate_cards};
use super::fields::{body_object, choice, item, read_string, reject_unknown};
use super::params::check_model_id;
use super::state::AppState;
use crate::error::{ApiError, excerpt};
use crate::publish::snapshot::CHANNELS;

/// The body fields.
const FIELDS: &[&str] = &[
    "model_id",
    "usage",
    "usage_format",
    "at",
    "channel",
    "service_tier",
    "region",
];

const TIERS_ALLOWED: &str = "one of standard, batch, flex, priority";
const AT_MESSAGE: &str =
    "Input should be a date (YYYY-MM-DD) or an RFC 3339 timestamp (2025-06-01T12:00:00Z)";

/// The body, read and type-checked.
struct Body {
    model_id: String,
    usage: Map<String, Value>,
    usage_format: Option<String>,
    day: Option<Date>,
    /// The minute of the week of a timestamp `at` (not of a date-only one).
    minute_of_week: Option<u32>,
    channel: Option<String>,
    service_tier: Option<String>,
    region: Option<String>,
}

fn read_body(value: Value) -> Result<Body, ApiError> {
    let fields = body_object(value)?;
    let mut errors = Vec::new();
    let model_id = read_string(&fields, "model_id", &mut errors);
    let usage = match fields.get("usage") {
        Some(Value::Object(map)) => Some(map.clone()),
        Some(other) => {
            errors.push(item(
                &[json!("usage")],
                "dict_type",
                "Input should be a valid object: the usage record as the API returned it",
                Some(other.clone()),
            ));
            None
        }
        None => None,
    };
    for name in ["model_id", "usage"] {
        if !fields.contains_key(name) {
            errors.push(item(&[json!(name)], "missing", "Field required", None));
        }
    }
    let usage_format = read_string(&fields, "usage_format", &mut errors);
    let channel = read_string(&fields, "channel", &mut errors);
    let service_tier = read_string(&fields, "service_tier", &mut errors);
    let region = read_string(&fields, "region", &mut errors);
    let at = read_string(&fields, "at", &mut errors);
    let timestamp = at.as_deref().and_then(|v| {
        OffsetDateTime::parse(v, &Rfc3339)
            .ok()
            .map(|t| t.to_offset(time::UtcOffset::UTC))
    });
    let minute_of_week = timestamp.map(|t| {
        u32::from(t.weekday().number_days_from_monday()) * 24 * 60
            + u32::from(t.hour()) * 60
            + u32::from(t.minute())
    });
    let day = at.as_deref().and_then(|v| {
        let day = super::params::parse_date(v).or_else(|| timestamp.map(OffsetDateTime::date));
        if day.is_none() {
            errors.push(item(
                &[json!("at")],
                "datetime_parsing",
                AT_MESSAGE,
                Some(json!(v)),
            ));
        }
        day
    });
    match (model_id, usage) {
        (Some(model_id), Some(usage)) if errors.is_empty() => {
            check_model_id("model_id", &model_id)?;
            reject_unknown(&fields, FIELDS)?;
            Ok(Body {
                model_id,
                usage,
                usage_format,
                day,
                minute_of_week,
                channel,
                service_tier,
                region,
            })
        }
        _ => Err(ApiError::validation(errors)),
    }
}

/// The cost of a body already parsed as JSON (the REST body or the MCP tool's arguments),
/// its envelope as JSON text.
pub async fn cost_envelope(state: &AppState, body: Value) -> Result<Vec<u8>, ApiError> {
    let body = read_body(body)?;
    if let Some(channel) = &body.channel
        && !CHANNELS.contains(&channel.as_str())
    {
        let allowed = format!("one of {}", CHANNELS.join(", "));
        return Err(ApiError::invalid(
            "channel",
            format!("`channel` must be {allowed}; got `{}`", excerpt(channel)),
            &allowed,
        ));
    }
    let named = choice::<ServiceTier>("service_tier", TIERS_ALLOWED, body.service_tier.as_deref())?;
    let region = choice::<Region>("region", Region::ALLOWED, body.region.as_deref())?;
    let served = Served {
        region,
        when: body.minute_of_week.map_or(When::Unknown, When::At),
    };
    let tokens = read_usage(&body.usage, body.usage_format.as_deref()).map_err(|e| match e {
        // a record of no tokens is well-formed JSON that cannot be billed: 422, like a
        // body that does not validate, naming what was read
        estimator::UsageError::NoTokens { .. } => ApiError::validation(vec![item(
            &[json!("usage")],
            "value_error",
            &e.to_string(),
            None,
        )]),
        // a format's name is wrong only when one was given
        estimator::UsageError::BadFormatName(_) => ApiError::invalid(
            "usage_format",
            e.to_string(),
            &format!("one of {USAGE_FORMATS}"),
        ),
        _ => ApiError::invalid(
            "usage",
            e.to_string(),
            &format!("a usage record in one of the formats {USAGE_FORMATS}"),
        ),
    })?;
    // the body's tier, else the one the record names (Anthropic's `service_tier`)
    let asked = named.or(tokens.service_tier);

    let ids = Some(vec![body.model_id.clone()]);
    let cards = rate_cards(state, &ids, body.day, body.channel.as_deref()).await?;
    let result = &cards.value;
    let model = &result["models"][0];
    let card: RateCard = serde_json::from_value(model["rates"].clone())
        .map_err(|e| ApiError::internal("reading rates for a cost", &e))?;
    let billed = bill(&card, tokens, asked.unwrap_or_default(), served).ok_or_else(|| {
        ApiError::internal(
            "billing a usage record",
            &"the rates lack the standard input or output rate the SQL function guarantees",
        )
    })?;
    let mut data =
        serde_json::to_value(&billed).map_err(|e| ApiError::internal("writing a cost", &e))?;
    if let Some(out) = data.as_object_mut() {
        for key in [
            "requested_id",
            "model_id",
            "name",
            "provider",
            "channel",
            "last_verified_at",
            "is_stale",
        ] {
            out.insert(key.to_owned(), model[key].clone());
        }
        out.insert("prices_as_of".into(), result["prices_as_of"].clone());
        out.insert("service_tier_asked".into(), json!(asked));
        out.insert("region".into(), json!(region));
        out.insert("currency".into(), json!("USD"));
    }
    post_envelope(&result["as_of"], &data, 1)
}
