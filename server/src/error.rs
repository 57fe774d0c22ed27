//! The one place where errors become the spec's error body:
//! `{"error": {"code", "message", "next_step", ...}}` with the matching HTTP status.

use salvo::http::StatusCode;
use salvo::prelude::{Json, Response, Scribe};
use serde_json::{Map, Value, json};

/// The spec's error codes (part 7), plus the service-level ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// No route matches the path.
    NotFound,
    /// The route exists but not for this method.
    MethodNotAllowed,
    /// Anything unexpected; logged with details, shown without them.
    Internal,
    /// A key was sent but is unknown, revoked or expired (REST only).
    InvalidApiKey,
    /// Plan quota or burst rate exceeded.
    RateLimited,
}

impl ErrorCode {
    /// The code as written in the body.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "NOT_FOUND",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::Internal => "INTERNAL",
            Self::InvalidApiKey => "INVALID_API_KEY",
            Self::RateLimited => "RATE_LIMITED",
        }
    }

    /// The HTTP status that goes with the code.
    pub fn status(self) -> StatusCode {
        match self {
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Self::InvalidApiKey => StatusCode::UNAUTHORIZED,
            Self::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        }
    }
}

/// An error as the client sees it.
#[derive(Debug, Clone)]
pub struct ApiError {
    code: ErrorCode,
    message: String,
    next_step: String,
    extra: Map<String, Value>,
}

impl ApiError {
    /// An error with the message and the step the client can take next.
    pub fn new(code: ErrorCode, message: impl Into<String>, next_step: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            next_step: next_step.into(),
            extra: Map::new(),
        }
    }

    /// The body, `{"error": {...}}`.
    pub fn body(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), json!(self.code.as_str()));
        error.insert("message".into(), json!(self.message));
        error.insert("next_step".into(), json!(self.next_step));
        error.extend(self.extra.clone());
        json!({ "error": error })
    }
}

impl Scribe for ApiError {
    fn render(self, res: &mut Response) {
        res.status_code(self.code.status());
        res.render(Json(self.body()));
    }
}
