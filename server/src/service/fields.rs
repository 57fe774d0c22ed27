//! The fields of a posted JSON body (`POST /api/v1/estimate`, `/cost`,
//! `/webhooks`): what is not JSON, not an object or a field of the wrong JSON
//! type is a 422 with `detail` items (`ValidationItem`); a field the body does
//! not take, or a named value outside its list, is a 400 `INVALID_ARGUMENT`.

use std::str::FromStr;

use serde_json::{Value, json};

use crate::error::{ApiError, ValidationItem, excerpt};

/// A 422 `detail` item about the body at `loc`.
pub(crate) fn item(
    loc: &[Value],
    kind: &'static str,
    msg: &str,
    input: Option<Value>,
) -> ValidationItem {
    let mut full = vec![json!("body")];
    full.extend_from_slice(loc);
    ValidationItem {
        loc: full,
        msg: msg.to_owned(),
        kind,
        input,
        ctx: None,
    }
}

/// A string field, if present: a 422 item for another JSON type.
pub(crate) fn read_string(
    fields: &serde_json::Map<String, Value>,
    name: &str,
    errors: &mut Vec<ValidationItem>,
) -> Option<String> {
    let v = fields.get(name)?;
    let s = v.as_str().map(str::to_owned);
    if s.is_none() {
        errors.push(item(
            &[json!(name)],
            "string_type",
            "Input should be a valid string",
            Some(v.clone()),
        ));
    }
    s
}

/// Parses a posted body as JSON: 422 for what is not JSON.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Value, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::validation(vec![item(
            &[],
            "missing",
            "Field required: the request body is required (a JSON object)",
            None,
        )]));
    }
    serde_json::from_slice(bytes).map_err(|e| {
        ApiError::validation(vec![ValidationItem {
            loc: vec![json!("body"), json!(e.column())],
            msg: "JSON decode error".into(),
            kind: "json_invalid",
            input: None,
            ctx: Some(json!({"error": e.to_string()})),
        }])
    })
}

/// A body's fields: 422 for a body that is not a JSON object.
pub(crate) fn body_object(value: Value) -> Result<serde_json::Map<String, Value>, ApiError> {
    match value {
        Value::Object(fields) => Ok(fields),
        other => Err(ApiError::validation(vec![item(
            &[],
            "model_attributes_type",
            "Input should be a valid JSON object",
            Some(other),
        )])),
    }
}

/// 400 for a body field outside `known`, naming the fields the body takes.
pub(crate) fn reject_unknown(
    fields: &serde_json::Map<String, Value>,
    known: &[&str],
) -> Result<(), ApiError> {
    match fields.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(unknown) => {
            let unknown = excerpt(unknown);
            Err(ApiError::invalid(
                &unknown,
                format!(
                    "unknown body field `{unknown}`; the body takes: {}",
                    known.join(", ")
                ),
                &format!(
                    "one of the fields {}, or leave `{unknown}` out",
                    known.join(", ")
                ),
            ))
        }
    }
}

/// A named value of the body field `name` (a preset, a TTL, a tier), if given: 400 naming what
/// it allows.
pub(crate) fn choice<T: FromStr>(
    name: &str,
    allowed: &str,
    value: Option<&str>,
) -> Result<Option<T>, ApiError> {
    value
        .map(|v| {
            T::from_str(v).map_err(|_| {
                ApiError::invalid(
                    name,
                    format!("`{name}` must be {allowed}; got `{}`", excerpt(v)),
                    allowed,
                )
            })
        })
        .transpose()
}
