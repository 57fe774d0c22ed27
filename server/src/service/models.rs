//! `GET /api/v1/models`, `GET /api/v1/models/{model_id}` and
//! `GET /api/v1/models/{model_id}/history`: parse, call one `api` function
//! (sql/31_list_models.sql, 32_get_model.sql, 33_model_history.sql), wrap.

use serde_json::Value;

use super::params::{MAX_QUERY_CHARS, Query};
use super::respond::call_json;
use super::state::AppState;
use super::vocab::{
    CHANNELS, COMPONENTS, GRANULARITIES, INCLUDES, KINDS, MODALITIES, SORTS, STATUSES,
};
use crate::error::ApiError;

pub const LIST_PARAMS: &[&str] = &[
    "query",
    "provider",
    "modality",
    "status",
    "channel",
    "min_context",
    "max_input_price",
    "sort",
    "limit",
    "cursor",
    "as_of",
    "kind",
];
pub const CARD_PARAMS: &[&str] = &["include", "as_of"];
pub const HISTORY_PARAMS: &[&str] = &[
    "component",
    "channel",
    "since",
    "until",
    "granularity",
    "limit",
    "cursor",
];

fn to_i32(v: Option<i64>) -> Option<i32> {
    v.and_then(|n| i32::try_from(n).ok())
}

/// `api.list_models` for the parameters of `GET /api/v1/models`.
pub async fn list_models(state: &AppState, q: &Query) -> Result<Value, ApiError> {
    let text = q.text("query", MAX_QUERY_CHARS)?;
    let provider = q.name("provider", "a provider slug such as openai")?;
    let modality = q.one_of("modality", MODALITIES)?;
    let status = q.one_of("status", STATUSES)?;
    let channel = q.one_of("channel", CHANNELS)?;
    let min_context = to_i32(q.int("min_context", 1, i64::from(i32::MAX))?);
    let max_input_price = q.decimal("max_input_price")?;
    let sort = q.one_of("sort", SORTS)?;
    let limit = to_i32(q.int("limit", 1, 100)?).unwrap_or(20);
    let cursor = q.cursor()?;
    let as_of = q.date("as_of")?;
    let kinds = q.list_of("kind", KINDS)?;
    call_json(
        state,
        "select api.list_models($1::text, $2::text, $3::text, $4::text, $5::text, $6::int4, \
         $7::numeric, $8::text, $9::int4, $10::text, $11::date, $12::text[])",
        &[
            &text,
            &provider,
            &modality,
            &status,
            &channel,
            &min_context,
            &max_input_price,
            &sort,
            &limit,
            &cursor,
            &as_of,
            &kinds,
        ],
    )
    .await
}

/// `api.get_model` for the parameters of `GET /api/v1/models/{model_id}`.
pub async fn get_model(state: &AppState, id: &str, q: &Query) -> Result<Value, ApiError> {
    let include = q.list_of("include", INCLUDES)?;
    let as_of = q.date("as_of")?;
    call_json(
        state,
        "select api.get_model($1::text, $2::text[], $3::date)",
        &[&id, &include, &as_of],
    )
    .await
}

/// `api.model_history` for the parameters of `GET /api/v1/models/{model_id}/history`.
pub async fn model_history(state: &AppState, id: &str, q: &Query) -> Result<Value, ApiError> {
    let component = q.one_of("component", COMPONENTS)?;
    let channel = q.one_of("channel", CHANNELS)?;
    let since = q.date("since")?;
    let until = q.date("until")?;
    let granularity = q.one_of("granularity", GRANULARITIES)?;
    let limit = to_i32(q.int("limit", 1, 100)?).unwrap_or(50);
    let cursor = q.cursor()?;
    call_json(
        state,
        "select api.model_history($1::text, $2::text, $3::text, $4::date, $5::date, $6::text, \
         $7::int4, $8::text)",
        &[
            &id,
            &component,
            &channel,
            &since,
            &until,
            &granularity,
            &limit,
            &cursor,
        ],
    )
    .await
}
