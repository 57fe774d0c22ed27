//! `GET /api/v1/compare`: 2-5 models side by side (sql/34_compare.sql).

use serde_json::Value;

use super::params::Query;
use super::respond::call_json;
use super::state::AppState;
use super::vocab::METRICS;
use crate::error::ApiError;

pub const PARAMS: &[&str] = &["ids", "metrics", "benchmark"];

/// `api.compare` for the parameters of `GET /api/v1/compare`.
pub async fn compare_models(state: &AppState, q: &Query) -> Result<Value, ApiError> {
    q.required("ids")?;
    let ids = q.ids("ids")?.unwrap_or_default();
    if !(2..=5).contains(&ids.len()) {
        return Err(ApiError::invalid(
            "ids",
            format!("`ids` must name 2 to 5 models; got {}", ids.len()),
            "a comma-separated list of 2 to 5 model ids",
        ));
    }
    let metrics = q.list_of("metrics", METRICS)?;
    let benchmark = q.name(
        "benchmark",
        "aggregate or a benchmark name such as arena_overall",
    )?;
    call_json(
        state,
        "select api.compare($1::text[], $2::text[], $3::text)",
        &[&ids, &metrics, &benchmark],
    )
    .await
}
