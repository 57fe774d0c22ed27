//! The one place where errors become the spec's error body:
//! `{"error": {"code", "message", "next_step", ...}}` with the matching HTTP status.
//!
//! Errors a client causes start in SQL: the `api` functions raise them with
//! SQLSTATEs of class `PR` (sql/22_errors.sql), a JSON object in DETAIL (merged
//! into the error object, e.g. `did_you_mean`) and the next step in HINT.
//! [`ApiError::from_db`] is the table from those SQLSTATEs to the spec's codes.

use std::time::Duration;

use salvo::http::StatusCode;
use salvo::prelude::{Json, Response, Scribe};
use serde_json::{Map, Value, json};

use crate::telemetry::Throttle;

/// How much of a bad value an error message quotes, in characters.
const EXCERPT_CHARS: usize = 40;

/// A bad value as an error message quotes it: at most its first 40 characters.
pub fn excerpt(v: &str) -> String {
    shorten(v, EXCERPT_CHARS)
}

/// `v` cut to its first `max` characters, saying how long it was.
pub fn shorten(v: &str, max: usize) -> String {
    match v.char_indices().nth(max) {
        None => v.to_owned(),
        Some((end, _)) => format!("{}... ({} characters)", &v[..end], v.chars().count()),
    }
}

/// The spec's error codes (part 7), plus the service-level ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// A model id that resolves neither as an id nor as an alias (404).
    ModelNotFound,
    /// An unknown provider slug (404).
    ProviderNotFound,
    /// The model exists but has no price rows for the channel or tier asked for (404).
    NoPriceData,
    /// A cursor that is malformed, altered, or from other filters or another publish (400).
    InvalidCursor,
    /// A `since`..`until` window over 365 days (400).
    WindowTooLarge,
    /// A value outside its enum or range, or an unknown parameter (400).
    InvalidArgument,
    /// A request that could not be read: not JSON, a wrong type, a missing
    /// required field or a parameter that does not parse (422, with `detail`).
    ValidationFailed,
    /// The database cannot answer right now (503).
    ServiceUnavailable,
    /// No route matches the path.
    NotFound,
    /// The route exists but not for this method.
    MethodNotAllowed,
    /// The route exists but not for this client (`GET /metrics` outside `--metrics-from`).
    Forbidden,
    /// Anything unexpected; logged with details, shown without them.
    Internal,
    /// A key was sent but is unknown, revoked or expired (REST only).
    InvalidApiKey,
    /// Plan quota or burst rate exceeded.
    RateLimited,
    /// The request body did not arrive in time (408; the connection is closed).
    RequestTimeout,
    /// An endpoint for key holders was called without a key (401).
    KeyRequired,
    /// The key holder has no webhook subscription with this id (404).
    WebhookNotFound,
    /// A per-key limit (webhook subscriptions) is reached (409).
    LimitExceeded,
}

impl ErrorCode {
    /// The code as written in the body.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ModelNotFound => "MODEL_NOT_FOUND",
            Self::ProviderNotFound => "PROVIDER_NOT_FOUND",
            Self::NoPriceData => "NO_PRICE_DATA",
            Self::InvalidCursor => "INVALID_CURSOR",
            Self::WindowTooLarge => "WINDOW_TOO_LARGE",
            Self::InvalidArgument => "INVALID_ARGUMENT",
            Self::ValidationFailed => "VALIDATION_FAILED",
            Self::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            Self::NotFound => "NOT_FOUND",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::Forbidden => "FORBIDDEN",
            Self::Internal => "INTERNAL",
            Self::InvalidApiKey => "INVALID_API_KEY",
            Self::RateLimited => "RATE_LIMITED",
            Self::RequestTimeout => "REQUEST_TIMEOUT",
            Self::KeyRequired => "KEY_REQUIRED",
            Self::WebhookNotFound => "WEBHOOK_NOT_FOUND",
            Self::LimitExceeded => "LIMIT_EXCEEDED",
        }
    }

    /// The HTTP status that goes with the code.
    pub fn status(self) -> StatusCode {
        match self {
            Self::ModelNotFound
            | Self::ProviderNotFound
            | Self::NoPriceData
            | Self::NotFound
            | Self::WebhookNotFound => StatusCode::NOT_FOUND,
            Self::InvalidCursor | Self::WindowTooLarge | Self::InvalidArgument => {
                StatusCode::BAD_REQUEST
            }
            Self::ValidationFailed => StatusCode::UNPROCESSABLE_ENTITY,
            Self::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Self::InvalidApiKey | Self::KeyRequired => StatusCode::UNAUTHORIZED,
            Self::LimitExceeded => StatusCode::CONFLICT,
            Self::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Self::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        }
    }

    /// The code raised by the `api` SQL functions for this error, if any.
    fn from_sqlstate(state: &str) -> Option<Self> {
        Some(match state {
            "PRARG" => Self::InvalidArgument,
            "PRCUR" => Self::InvalidCursor,
            "PRWIN" => Self::WindowTooLarge,
            "PRMNF" => Self::ModelNotFound,
            "PRPNF" => Self::ProviderNotFound,
            "PRNPD" => Self::NoPriceData,
            "PRNOD" => Self::ServiceUnavailable,
            "PRWNF" => Self::WebhookNotFound,
            "PRLIM" => Self::LimitExceeded,
            _ => return None,
        })
    }
}

/// One item of the 422 body's `detail` array (spec part 7).
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationItem {
    /// Where: `["body", "requests_per_month"]`, `["query", "limit"]`, `["body", "model_ids", 3]`.
    pub loc: Vec<Value>,
    /// What is wrong, for people.
    pub msg: String,
    /// What is wrong, for programs: `missing`, `int_type`, `json_invalid`, ...
    pub kind: &'static str,
    /// The offending value, when there is one.
    pub input: Option<Value>,
    /// Context such as the expected type.
    pub ctx: Option<Value>,
}

impl ValidationItem {
    fn to_json(&self) -> Value {
        let mut item = Map::new();
        item.insert("loc".into(), Value::Array(self.loc.clone()));
        item.insert("msg".into(), json!(self.msg));
        item.insert("type".into(), json!(self.kind));
        if let Some(input) = &self.input {
            item.insert("input".into(), input.clone());
        }
        if let Some(ctx) = &self.ctx {
            item.insert("ctx".into(), ctx.clone());
        }
        Value::Object(item)
    }
}

/// An error as the client sees it.
#[derive(Debug, Clone)]
pub struct ApiError {
    code: ErrorCode,
    message: String,
    next_step: String,
    extra: Map<String, Value>,
    detail: Vec<ValidationItem>,
}

impl ApiError {
    /// An error with the message and the step the client can take next.
    pub fn new(code: ErrorCode, message: impl Into<String>, next_step: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            next_step: next_step.into(),
            extra: Map::new(),
            detail: Vec::new(),
        }
    }

    /// `INVALID_ARGUMENT` naming the parameter and what it allows.
    pub fn invalid(parameter: &str, message: impl Into<String>, allowed: &str) -> Self {
        Self::new(
            ErrorCode::InvalidArgument,
            message,
            format!("pass {parameter} as {allowed}"),
        )
        .with("parameter", json!(parameter))
        .with("allowed", json!(allowed))
    }

    /// A 422 with the `detail` array.
    pub fn validation(items: Vec<ValidationItem>) -> Self {
        let first = items
            .first()
            .map(|i| {
                let loc: Vec<String> = i
                    .loc
                    .iter()
                    .map(|l| match l {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect();
                format!("{}: {}", loc.join("."), i.msg)
            })
            .unwrap_or_default();
        let mut error = Self::new(
            ErrorCode::ValidationFailed,
            format!("the request could not be read: {first}"),
            "fix the fields listed in detail (see GET /api/v1/openapi.json for their types) and send the request again",
        );
        error.detail = items;
        error
    }

    /// Adds a field to the error object (`did_you_mean`, `parameter`, ...).
    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.extra.insert(key.to_owned(), value);
        self
    }

    /// The code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The 503 for a database that cannot be reached or does not answer in time.
    pub fn unavailable(reason: &str) -> Self {
        static LOG: Throttle = Throttle::new(Duration::from_secs(10));
        if let Some(suppressed) = LOG.admit() {
            tracing::warn!(%reason, suppressed, "database unavailable (logged at most once per 10 s)");
        }
        Self::new(
            ErrorCode::ServiceUnavailable,
            "the pricing database is not reachable right now",
            "retry in a few seconds; GET /api/v1/health shows when the service is ready again",
        )
    }

    /// The 503 for a call that ran past its statement budget (store/reads.rs).
    pub fn over_budget(budget_ms: u32) -> Self {
        Self::new(
            ErrorCode::ServiceUnavailable,
            format!("the database did not answer this request within its budget of {budget_ms} ms"),
            "retry in a few seconds; if it keeps failing, narrow the request (fewer models, a shorter window)",
        )
    }

    /// The unexpected: logged in full, shown as a 500 without details.
    pub fn internal(context: &str, err: &dyn std::fmt::Display) -> Self {
        tracing::error!(error = %err, "{context}");
        Self::new(
            ErrorCode::Internal,
            "the service failed to answer this request",
            "retry; if it keeps failing, report it with the request URL",
        )
    }

    /// Maps an error from an `api.*` call: the `PR` SQLSTATEs to the spec's
    /// codes, a lost or overloaded database to 503, anything else to 500.
    pub fn from_db(err: &tokio_postgres::Error) -> Self {
        let Some(db) = err.as_db_error() else {
            // No server answer at all: connection refused, closed or broken.
            return Self::unavailable(&err.to_string());
        };
        let state = db.code().code();
        if let Some(code) = ErrorCode::from_sqlstate(state) {
            let mut error = Self::new(
                code,
                db.message(),
                db.hint()
                    .unwrap_or("see GET /api/v1/openapi.json for the parameters"),
            );
            if let Some(Value::Object(extra)) =
                db.detail().and_then(|d| serde_json::from_str(d).ok())
            {
                error.extra.extend(extra);
            }
            return error;
        }
        if state == "22021" || state == "22P05" {
            // Text the database cannot store (a NUL byte, an unmappable character).
            return Self::new(
                ErrorCode::InvalidArgument,
                "a parameter holds characters that cannot be processed",
                "send UTF-8 text without NUL characters",
            );
        }
        match &state[..2] {
            // connection exceptions, insufficient resources, operator intervention
            // (statement timeout, shutdown, "cannot connect now")
            "08" | "53" | "57" => Self::unavailable(&err.to_string()),
            _ => Self::internal("database error", err),
        }
    }

    /// The body, `{"error": {...}}`, plus `detail` for a 422.
    pub fn body(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), json!(self.code.as_str()));
        error.insert("message".into(), json!(self.message));
        error.insert("next_step".into(), json!(self.next_step));
        error.extend(self.extra.clone());
        let mut body = Map::new();
        body.insert("error".into(), Value::Object(error));
        if self.code == ErrorCode::ValidationFailed {
            body.insert(
                "detail".into(),
                Value::Array(self.detail.iter().map(ValidationItem::to_json).collect()),
            );
        }
        Value::Object(body)
    }
}

impl From<deadpool_postgres::PoolError> for ApiError {
    fn from(err: deadpool_postgres::PoolError) -> Self {
        match &err {
            deadpool_postgres::PoolError::Backend(db) => Self::from_db(db),
            _ => Self::unavailable(&err.to_string()),
        }
    }
}

impl From<tokio_postgres::Error> for ApiError {
    fn from(err: tokio_postgres::Error) -> Self {
        Self::from_db(&err)
    }
}

impl Scribe for ApiError {
    fn render(self, res: &mut Response) {
        res.status_code(self.code.status());
        // An error is about this request only: never store it.
        let _ = res.add_header("cache-control", "no-store", true);
        if self.code == ErrorCode::ServiceUnavailable {
            let _ = res.add_header("retry-after", "5", true);
        }
        if self.code == ErrorCode::RequestTimeout {
            // The rest of the body may still arrive: the connection cannot be reused.
            let _ = res.add_header("connection", "close", true);
        }
        res.render(Json(self.body()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_code_has_its_status() {
        let table = [
            (ErrorCode::ModelNotFound, "MODEL_NOT_FOUND", 404),
            (ErrorCode::ProviderNotFound, "PROVIDER_NOT_FOUND", 404),
            (ErrorCode::NoPriceData, "NO_PRICE_DATA", 404),
            (ErrorCode::InvalidCursor, "INVALID_CURSOR", 400),
            (ErrorCode::WindowTooLarge, "WINDOW_TOO_LARGE", 400),
            (ErrorCode::InvalidArgument, "INVALID_ARGUMENT", 400),
            (ErrorCode::ValidationFailed, "VALIDATION_FAILED", 422),
            (ErrorCode::ServiceUnavailable, "SERVICE_UNAVAILABLE", 503),
        ];
        for (code, name, status) in table {
            assert_eq!(code.as_str(), name);
            assert_eq!(code.status().as_u16(), status, "{name}");
        }
    }

    #[test]
    fn the_sql_states_map_to_the_spec_codes() {
        assert_eq!(
            ErrorCode::from_sqlstate("PRMNF"),
            Some(ErrorCode::ModelNotFound)
        );
        assert_eq!(
            ErrorCode::from_sqlstate("PRCUR"),
            Some(ErrorCode::InvalidCursor)
        );
        assert_eq!(ErrorCode::from_sqlstate("P0001"), None);
    }

    #[test]
    fn a_validation_error_carries_detail_and_a_next_step() {
        let body = ApiError::validation(vec![ValidationItem {
            loc: vec![json!("body"), json!("requests_per_month")],
            msg: "Field required".into(),
            kind: "missing",
            input: None,
            ctx: None,
        }])
        .body();
        assert_eq!(body["detail"][0]["type"], "missing");
        assert_eq!(
            body["detail"][0]["loc"],
            json!(["body", "requests_per_month"])
        );
        assert!(
            body["error"]["next_step"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|s| s.contains("body.requests_per_month"))
        );
    }

    #[test]
    fn invalid_arguments_name_the_parameter_and_what_it_allows() {
        let body =
            ApiError::invalid("limit", "limit must be 1-100", "an integer from 1 to 100").body();
        assert_eq!(body["error"]["code"], "INVALID_ARGUMENT");
        assert_eq!(body["error"]["parameter"], "limit");
        assert_eq!(body["error"]["allowed"], "an integer from 1 to 100");
    }
}
