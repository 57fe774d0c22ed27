//! `POST /api/v1/estimate`: monthly cost of a token workload.
//!
//! The body is read here: not JSON, a wrong JSON type or a missing
//! `requests_per_month` is a 422 with `detail`; an unknown field is a 400
//! `INVALID_ARGUMENT`. Ranges and the preset's names are the `estimator`
//! crate's (`Workload::validate`, `Preset::from_str`): its errors become 400
//! `INVALID_ARGUMENT` here. The prices come from one SQL function
//! (`api.estimate_prices`, sql/36_estimate_prices.sql, which states the price
//! rule); the rows and their arithmetic are the estimator's
//! (`estimate_models`), the code the browser calculator runs too.

use std::str::FromStr;
use std::sync::Arc;

use estimator::{
    CacheTtl, EstimateRow, Estimates, ModelInput, Preset, Region, ResolvedWorkload, ServiceTier,
    Workload, WorkloadError, WorkloadField, estimate_models,
};
use rust_decimal::Decimal;
use serde::{Deserialize as _, Serialize};
use serde_json::{Value, json};
use time::Date;

use super::fields::{body_object, choice, item, read_string, reject_unknown};
use super::params::{DATE_MESSAGE, check_model_id, parse_date};
use super::respond::call_json;
use super::state::AppState;
use super::vocab::SCHEMA_VERSION;
use crate::error::{ApiError, ValidationItem};

/// The body fields, in the order they are checked.
const FIELDS: &[&str] = &[
    "requests_per_month",
    "preset",
    "input_tokens_per_request",
    "output_tokens_per_request",
    "cache_hit_rate",
    "batch_share",
    "cache_write_share",
    "cache_ttl",
    "service_tier",
    "region",
    "time_window_share",
    "model_ids",
    "as_of",
];
const MAX_MODEL_IDS: usize = 10;

/// The price rule, echoed in every estimate (sql/36_estimate_prices.sql).
pub const PRICE_RULE: &str = "prices of the model's reference channel in effect on \
    prices_as_of (the day of the served publish, or the body's as_of): the official channel \
    when it has standard input and output prices, else the channel with the lowest blended \
    price (3 x input + output) / 4 among those with both (an embedding or rerank model, which \
    returns no output tokens, needs an input price only: official, else the lowest); \
    standard-tier input, output and cached-input prices, and batch-tier prices where published";

/// The body, read and type-checked; ranges are the estimator's to check.
#[derive(Debug, Default)]
struct Body {
    requests_per_month: Option<Integer>,
    preset: Option<String>,
    input_tokens_per_request: Option<Integer>,
    output_tokens_per_request: Option<Integer>,
    cache_hit_rate: Option<Decimal>,
    batch_share: Option<Decimal>,
    cache_write_share: Option<Decimal>,
    cache_ttl: Option<String>,
    service_tier: Option<String>,
    region: Option<String>,
    time_window_share: Option<Decimal>,
    model_ids: Option<Vec<String>>,
    as_of: Option<Date>,
}

/// A JSON integer: in range of u64, or out of it (negative or huge).
#[derive(Debug, Clone, Copy)]
enum Integer {
    Fits(u64),
    OutOfRange,
}

fn read_integer(name: &str, v: &Value, errors: &mut Vec<ValidationItem>) -> Option<Integer> {
    if let Some(n) = v.as_u64() {
        return Some(Integer::Fits(n));
    }
    if v.as_i64().is_some() {
        return Some(Integer::OutOfRange);
    }
    match v.as_f64() {
        // An integer too large for u64 arrives as a float without a fraction.
        Some(f) if f.fract() == 0.0 && f.abs() >= 1e18 => Some(Integer::OutOfRange),
        _ => {
            errors.push(item(
                &[json!(name)],
                "int_type",
                "Input should be a valid integer",
                Some(v.clone()),
            ));
            None
        }
    }
}

fn read_rate(name: &str, v: &Value, errors: &mut Vec<ValidationItem>) -> Option<Decimal> {
    // The number's shortest text, so 0.333 is read as exactly 0.333.
    let parsed = match v {
        Value::Number(n) => n
            .as_u64()
            .map(Decimal::from)
            .or_else(|| n.as_i64().map(Decimal::from))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.is_finite())
                    .and_then(|f| Decimal::from_str(&f.to_string()).ok())
            }),
        _ => None,
    };
    if parsed.is_none() {
        errors.push(item(
            &[json!(name)],
            "float_type",
            "Input should be a valid number",
            Some(v.clone()),
        ));
    }
    parsed
}

/// Reads the body's fields: 422 for what cannot be read, 400 for unknown fields.
fn read_body(value: Value) -> Result<Body, ApiError> {
    let fields = body_object(value)?;

    let mut errors = Vec::new();
    let mut body = Body::default();
    match fields.get("requests_per_month") {
        None => errors.push(item(
            &[json!("requests_per_month")],
            "missing",
            "Field required",
            None,
        )),
        Some(v) => body.requests_per_month = read_integer("requests_per_month", v, &mut errors),
    }
    body.preset = read_string(&fields, "preset", &mut errors);
    if let Some(v) = fields.get("input_tokens_per_request") {
        body.input_tokens_per_request = read_integer("input_tokens_per_request", v, &mut errors);
    }
    if let Some(v) = fields.get("output_tokens_per_request") {
        body.output_tokens_per_request = read_integer("output_tokens_per_request", v, &mut errors);
    }
    if let Some(v) = fields.get("cache_hit_rate") {
        body.cache_hit_rate = read_rate("cache_hit_rate", v, &mut errors);
    }
    if let Some(v) = fields.get("batch_share") {
        body.batch_share = read_rate("batch_share", v, &mut errors);
    }
    if let Some(v) = fields.get("cache_write_share") {
        body.cache_write_share = read_rate("cache_write_share", v, &mut errors);
    }
    body.cache_ttl = read_string(&fields, "cache_ttl", &mut errors);
    body.service_tier = read_string(&fields, "service_tier", &mut errors);
    body.region = read_string(&fields, "region", &mut errors);
    if let Some(v) = fields.get("time_window_share") {
        body.time_window_share = read_rate("time_window_share", v, &mut errors);
    }
    if let Some(v) = fields.get("model_ids") {
        match v.as_array() {
            None => errors.push(item(
                &[json!("model_ids")],
                "list_type",
                "Input should be a valid array",
                Some(v.clone()),
            )),
            Some(items) => {
                let mut ids = Vec::with_capacity(items.len());
                for (i, id) in items.iter().enumerate() {
                    match id.as_str() {
                        Some(s) => ids.push(s.to_owned()),
                        None => errors.push(item(
                            &[json!("model_ids"), json!(i)],
                            "string_type",
                            "Input should be a valid string",
                            Some(id.clone()),
                        )),
                    }
                }
                body.model_ids = Some(ids);
            }
        }
    }
    if let Some(v) = fields.get("as_of") {
        match v.as_str().and_then(parse_date) {
            Some(day) => body.as_of = Some(day),
            None => errors.push(item(
                &[json!("as_of")],
                "date_parsing",
                DATE_MESSAGE,
                Some(v.clone()),
            )),
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    for id in body.model_ids.iter().flatten() {
        check_model_id("model_ids", id)?;
    }
    reject_unknown(&fields, FIELDS)?;
    Ok(body)
}

/// A count as the workload takes it; one beyond `u64` is out of range as 0 is.
fn count(field: WorkloadField, v: Option<Integer>) -> Result<Option<u64>, WorkloadError> {
    match v {
        None => Ok(None),
        Some(Integer::Fits(n)) => Ok(Some(n)),
        Some(Integer::OutOfRange) => Err(WorkloadError::BelowOne { field }),
    }
}

/// A workload field's named value (see [`choice`]).
fn workload_choice<T: FromStr>(
    field: WorkloadField,
    value: Option<&str>,
) -> Result<Option<T>, ApiError> {
    choice(field.as_str(), field.allowed(), value)
}

/// What `api.estimate_prices` answered, and its models read once into what
/// the estimator takes: a request shares them, rather than copying and reading
/// the JSON again.
pub(crate) struct RateCards {
    /// The answer as the function gave it.
    pub(crate) value: Value,
    /// Its `models` read as [`ModelInput`]s, or why they could not be.
    models: Result<Vec<ModelInput>, String>,
}

/// `api.estimate_prices` for `ids` (null: the default selection) on `day` (null: the served
/// day) and `channel` (null: each model's reference channel), kept by the response cache: the
/// answer depends on these and the publish only.
pub(crate) async fn rate_cards(
    state: &AppState,
    ids: &Option<Vec<String>>,
    day: Option<Date>,
    channel: Option<&str>,
) -> Result<Arc<RateCards>, ApiError> {
    state
        .cache()
        .shared(
            "api.estimate_prices",
            &json!([ids, day.map(|d| d.to_string()), channel]),
            |cards: &RateCards| cards.value.to_string().len(),
            async {
                let value = call_json(
                    state,
                    "select api.estimate_prices($1::text[], $2::date, $3::text)",
                    &[ids, &day, &channel],
                )
                .await?;
                let models =
                    Vec::<ModelInput>::deserialize(&value["models"]).map_err(|e| e.to_string());
                Ok(RateCards { value, models })
            },
        )
        .await
}

/// The envelope of a POST answer: `data` and `count` items on one page, as
/// JSON text. Written from typed parts at once: building a `Value` of the
/// answer first (a map insert per field) and then writing it cost POST
/// /estimate about a third of its time in profiles.
pub(crate) fn post_envelope<T: Serialize>(
    as_of: &Value,
    data: &T,
    count: usize,
) -> Result<Vec<u8>, ApiError> {
    #[derive(Serialize)]
    struct Pagination {
        count: usize,
        total_count: usize,
        has_more: bool,
        next_cursor: Option<String>,
    }
    #[derive(Serialize)]
    struct Envelope<'a, T> {
        schema_version: &'static str,
        as_of: &'a Value,
        data: &'a T,
        pagination: Pagination,
        truncated: bool,
    }
    serde_json::to_vec(&Envelope {
        schema_version: SCHEMA_VERSION,
        as_of,
        data,
        pagination: Pagination {
            count,
            total_count: count,
            has_more: false,
            next_cursor: None,
        },
        truncated: false,
    })
    .map_err(|e| ApiError::internal("writing an answer", &e))
}

fn invalid_workload(e: &WorkloadError) -> ApiError {
    ApiError::invalid(e.field().as_str(), e.to_string(), e.allowed())
}

/// The workload of the body, validated by the estimator (400 naming the field).
fn workload(body: &Body) -> Result<estimator::ResolvedWorkload, ApiError> {
    let requests = count(WorkloadField::RequestsPerMonth, body.requests_per_month)
        .map_err(|e| invalid_workload(&e))?
        .unwrap_or(0);
    let preset = workload_choice::<Preset>(WorkloadField::Preset, body.preset.as_deref())?;
    let cache_ttl =
        workload_choice::<CacheTtl>(WorkloadField::CacheTtl, body.cache_ttl.as_deref())?;
    let service_tier =
        workload_choice::<ServiceTier>(WorkloadField::ServiceTier, body.service_tier.as_deref())?;
    let region = workload_choice::<Region>(WorkloadField::Region, body.region.as_deref())?;
    let workload = Workload {
        requests_per_month: requests,
        preset,
        input_tokens_per_request: count(
            WorkloadField::InputTokensPerRequest,
            body.input_tokens_per_request,
        )
        .map_err(|e| invalid_workload(&e))?,
        output_tokens_per_request: count(
            WorkloadField::OutputTokensPerRequest,
            body.output_tokens_per_request,
        )
        .map_err(|e| invalid_workload(&e))?,
        cache_hit_rate: body.cache_hit_rate.unwrap_or(Decimal::ZERO),
        batch_share: body.batch_share.unwrap_or(Decimal::ZERO),
        cache_write_share: body.cache_write_share.unwrap_or(Decimal::ZERO),
        cache_ttl: cache_ttl.unwrap_or_default(),
        service_tier: service_tier.unwrap_or_default(),
        region,
        time_window_share: body.time_window_share,
    };
    // The count of model_ids is checked between the workload's ranges and its
    // volumes: the order in which this endpoint has always reported faults.
    let checked = workload.check_ranges().map_err(|e| invalid_workload(&e))?;
    if let Some(ids) = &body.model_ids
        && !(1..=MAX_MODEL_IDS).contains(&ids.len())
    {
        return Err(ApiError::invalid(
            "model_ids",
            format!(
                "`model_ids` must list 1 to {MAX_MODEL_IDS} models; got {}",
                ids.len()
            ),
            "an array of 1 to 10 model ids, or leave it out for the 10 cheapest active chat models",
        ));
    }
    checked.resolve().map_err(|e| invalid_workload(&e))
}

/// The estimate for a body already parsed as JSON (the REST body, through
/// [`parse_json`], or the MCP tool's arguments): its fields read (422) and
/// validated (400), the prices from `api.estimate_prices`, the estimates from
/// the estimator crate, and the envelope.
pub async fn estimate_envelope(state: &AppState, body: Value) -> Result<Vec<u8>, ApiError> {
    let body = read_body(body)?;
    let resolved = workload(&body)?;

    let cards = rate_cards(state, &body.model_ids, body.as_of, None).await?;
    let result = &cards.value;
    let models = cards
        .models
        .clone()
        .map_err(|e| ApiError::internal("reading prices for an estimate", &e))?;
    let report = estimate_models(&resolved, models).map_err(|e| {
        ApiError::invalid("requests_per_month", e.to_string(), "a smaller workload")
    })?;
    let Estimates {
        assumptions,
        estimates,
    } = &report;
    let data = EstimateData {
        assumptions: EstimateAssumptions {
            workload: assumptions,
            price_rule: PRICE_RULE,
            model_selection: if result["default_selection"].as_bool() == Some(true) {
                "cheapest_active_chat"
            } else {
                "requested"
            },
            prices_as_of: &result["prices_as_of"],
            currency: "USD",
            period: "month",
        },
        estimates,
    };
    post_envelope(&result["as_of"], &data, estimates.len())
}

/// `data` of an estimate's answer: the estimator's report, its assumptions
/// with the server's own facts beside the workload's.
#[derive(Serialize)]
struct EstimateData<'a> {
    assumptions: EstimateAssumptions<'a>,
    estimates: &'a [EstimateRow],
}

#[derive(Serialize)]
struct EstimateAssumptions<'a> {
    #[serde(flatten)]
    workload: &'a ResolvedWorkload,
    price_rule: &'static str,
    model_selection: &'static str,
    prices_as_of: &'a Value,
    currency: &'static str,
    period: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::service::fields::parse_json;

    fn read(text: &str) -> Result<Body, ApiError> {
        parse_json(text.as_bytes()).and_then(read_body)
    }

    #[test]
    fn unreadable_bodies_are_422_with_detail() {
        for (body, kind) in [
            ("", "missing"),
            ("{", "json_invalid"),
            ("[1]", "model_attributes_type"),
            ("{}", "missing"),
            (r#"{"requests_per_month": "10"}"#, "int_type"),
            (r#"{"requests_per_month": 1.5}"#, "int_type"),
            (
                r#"{"requests_per_month": 1, "cache_hit_rate": "0.5"}"#,
                "float_type",
            ),
            (
                r#"{"requests_per_month": 1, "model_ids": "a:b"}"#,
                "list_type",
            ),
            (
                r#"{"requests_per_month": 1, "model_ids": ["a:b", 3]}"#,
                "string_type",
            ),
            (
                r#"{"requests_per_month": 1, "preset": null}"#,
                "string_type",
            ),
            (
                r#"{"requests_per_month": 1, "as_of": "2025-13-01"}"#,
                "date_parsing",
            ),
            (
                r#"{"requests_per_month": 1, "as_of": 20250501}"#,
                "date_parsing",
            ),
        ] {
            let err = read(body).expect_err(body);
            assert_eq!(err.code(), ErrorCode::ValidationFailed, "{body}");
            assert_eq!(err.body()["detail"][0]["type"], kind, "{body}");
        }
        let err = read(r#"{"requests_per_month": 1, "model_ids": ["a:b", 3]}"#).expect_err("index");
        assert_eq!(
            err.body()["detail"][0]["loc"],
            json!(["body", "model_ids", 1])
        );
    }

    #[test]
    fn out_of_range_values_and_unknown_fields_are_400() {
        for (body, field) in [
            (
                r#"{"requests_per_month": 0, "preset": "chatbot"}"#,
                "requests_per_month",
            ),
            (
                r#"{"requests_per_month": -3, "preset": "chatbot"}"#,
                "requests_per_month",
            ),
            (
                r#"{"requests_per_month": 100000000000000000000000, "preset": "chatbot"}"#,
                "requests_per_month",
            ),
            (r#"{"requests_per_month": 1, "preset": "poetry"}"#, "preset"),
            (
                r#"{"requests_per_month": 1, "preset": "chatbot", "cache_hit_rate": 1.5}"#,
                "cache_hit_rate",
            ),
            (
                r#"{"requests_per_month": 1, "preset": "chatbot", "batch_share": -0.1}"#,
                "batch_share",
            ),
            (
                r#"{"requests_per_month": 1, "preset": "chatbot", "model_ids": []}"#,
                "model_ids",
            ),
            (
                r#"{"requests_per_month": 1, "preset": "chatbot", "colour": "red"}"#,
                "colour",
            ),
            // The count of model_ids comes before the missing token volumes.
            (r#"{"requests_per_month": 1, "model_ids": []}"#, "model_ids"),
        ] {
            let err = read(body).and_then(|b| workload(&b)).expect_err(body);
            assert_eq!(err.code(), ErrorCode::InvalidArgument, "{body}");
            assert_eq!(err.body()["error"]["parameter"], field, "{body}");
        }
    }

    #[test]
    fn rates_are_read_exactly_as_written() {
        let body =
            read(r#"{"requests_per_month": 7, "preset": "chatbot", "cache_hit_rate": 0.333}"#)
                .expect("valid");
        assert_eq!(body.cache_hit_rate, Some(Decimal::new(333, 3)));
    }

    #[test]
    fn as_of_is_read_as_a_calendar_day() {
        let body = read(r#"{"requests_per_month": 7, "preset": "chatbot", "as_of": "2025-05-01"}"#)
            .expect("valid");
        assert_eq!(
            body.as_of,
            Some(Date::from_calendar_date(2025, time::Month::May, 1).expect("a day"))
        );
    }
}
