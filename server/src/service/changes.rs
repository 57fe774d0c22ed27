//! `GET /api/v1/changes`: the feed of published events, newest first
//! (sql/35_list_changes.sql). The public feeds (feeds.rs) read the same function.

use super::params::{MAX_WATCHED, Query};
use super::respond::call_json;
use super::state::AppState;
use super::vocab::EVENT_TYPES;
use crate::error::ApiError;

pub const PARAMS: &[&str] = &[
    "model",
    "since",
    "until",
    "event_type",
    "provider",
    "min_significance",
    "limit",
    "cursor",
];

/// The parameters of the public feeds (http/feeds.rs): the same filters, the
/// cursor aside, since a feed is one page, the newest.
pub const FEED_PARAMS: &[&str] = PARAMS.split_last().expect("PARAMS is not empty").1;

/// The filters of the changes feed, shared with the public feeds.
#[derive(Debug)]
pub(crate) struct Filters<'q> {
    models: Option<Vec<String>>,
    since: Option<time::Date>,
    until: Option<time::Date>,
    event_type: Option<&'q str>,
    provider: Option<&'q str>,
    min_significance: Option<i32>,
    limit: i32,
    cursor: Option<&'q str>,
}

impl<'q> Filters<'q> {
    /// Reads the filters; `default_limit` differs between the API and the feeds.
    pub(crate) fn parse(q: &'q Query, default_limit: i32) -> Result<Self, ApiError> {
        Ok(Self {
            models: watch_list(q)?,
            since: q.date("since")?,
            until: q.date("until")?,
            event_type: q.one_of("event_type", EVENT_TYPES)?,
            provider: q.name("provider", "a provider slug such as openai")?,
            min_significance: q
                .int("min_significance", 0, 100)?
                .and_then(|n| i32::try_from(n).ok()),
            limit: q
                .int("limit", 1, 100)?
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or(default_limit),
            cursor: q.cursor()?,
        })
    }

    /// Calls `api.list_changes`.
    pub(crate) async fn fetch(&self, state: &AppState) -> Result<serde_json::Value, ApiError> {
        call_json(
            state,
            "select api.list_changes($1::date, $2::date, $3::text, $4::text, $5::int4, $6::int4, \
             $7::text, $8::text[])",
            &[
                &self.since,
                &self.until,
                &self.event_type,
                &self.provider,
                &self.min_significance,
                &self.limit,
                &self.cursor,
                &self.models,
            ],
        )
        .await
    }
}

/// The watch list of `model`: 1 to [`MAX_WATCHED`] model ids or aliases
/// (resolved by `api.list_changes`).
fn watch_list(q: &Query) -> Result<Option<Vec<String>>, ApiError> {
    let models = q.ids("model")?;
    if let Some(models) = &models
        && models.len() > MAX_WATCHED
    {
        return Err(ApiError::invalid(
            "model",
            format!(
                "`model` names {} models; a watch list holds at most {MAX_WATCHED}",
                models.len()
            ),
            &format!("a comma-separated list of up to {MAX_WATCHED} model ids"),
        ));
    }
    Ok(models)
}

/// `api.list_changes` for the parameters of `GET /api/v1/changes`.
pub async fn list_changes(state: &AppState, q: &Query) -> Result<serde_json::Value, ApiError> {
    Filters::parse(q, 20)?.fetch(state).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_feeds_take_every_filter_but_the_cursor() {
        assert_eq!(PARAMS.last(), Some(&"cursor"));
        assert_eq!(FEED_PARAMS, &PARAMS[..PARAMS.len() - 1]);
    }
}
