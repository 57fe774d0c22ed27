//! Calling one `api.*` function, and the envelope of spec part 2.1 around its
//! result.

use serde_json::{Map, Value, json};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::state::AppState;
use super::vocab::SCHEMA_VERSION;
use crate::error::ApiError;

/// Runs `sql` (one call of an `api` function returning jsonb with its
/// `publish`) on a pooled connection, of a read replica that has the served
/// publish or of the primary (see [`crate::store::reads`]), and returns its value.
pub async fn call_json(
    state: &AppState,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Value, ApiError> {
    let row = read(state, sql, params, |row| {
        row.try_get::<_, Value>(0).ok()?["publish"].as_i64()
    })
    .await?;
    row.try_get::<_, Value>(0)
        .map_err(|e| ApiError::internal("reading an api result", &e))
}

/// Runs `sql` (one `api` read answering one row) where data reads go;
/// `publish_of` finds the publish the row was computed from.
pub async fn read(
    state: &AppState,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    publish_of: impl Fn(&Row) -> Option<i64>,
) -> Result<Row, ApiError> {
    state
        .reads
        .query_one(sql, params, || state.cache.latest_publish(), publish_of)
        .await
}

/// The publish a result was computed from, and the envelope around it.
#[derive(Debug)]
pub struct Enveloped {
    /// Id of the served publish.
    pub publish: i64,
    /// `{schema_version, as_of, data, pagination, truncated, hint?}`.
    pub body: Value,
}

/// Wraps the result of an `api` function (`{as_of, publish, data, pagination,
/// hint}`) in the spec's envelope. Nothing is ever cut short, so `truncated`
/// is false.
pub fn envelope(mut result: Value) -> Enveloped {
    let publish = result["publish"].as_i64().unwrap_or_default();
    let mut body = Map::new();
    body.insert("schema_version".into(), json!(SCHEMA_VERSION));
    body.insert("as_of".into(), result["as_of"].take());
    body.insert("data".into(), result["data"].take());
    body.insert("pagination".into(), result["pagination"].take());
    body.insert("truncated".into(), json!(false));
    if let Some(hint) = result["hint"].as_str() {
        body.insert("hint".into(), json!(hint));
    }
    Enveloped {
        publish,
        body: Value::Object(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_keeps_data_and_pagination_and_drops_a_null_hint() {
        let result = json!({
            "as_of": "2026-10-01T00:00:00Z", "publish": 7,
            "data": {"items": []}, "pagination": {"count": 0}, "hint": null
        });
        let e = envelope(result);
        assert_eq!(e.publish, 7);
        assert_eq!(
            e.body,
            json!({
                "schema_version": "1", "as_of": "2026-10-01T00:00:00Z",
                "data": {"items": []}, "pagination": {"count": 0}, "truncated": false
            })
        );
    }
}
