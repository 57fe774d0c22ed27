//! The REST endpoints over the service's operations: each GET of the table of
//! operations parses its query (and `{model_id}`), runs the operation and
//! answers with the envelope and the caching headers; each POST (the estimate,
//! the cost of a usage record) reads its JSON body; `GET /api/v1/openapi.json` serves the document.
//!
//! A model id may hold slashes (provider API ids such as `openrouter:openai/o3`
//! or Fireworks' `accounts/fireworks/models/...`): under `/api/v1/models/` the
//! id is every segment up to the suffix of a model operation (`/history`), so
//! it may be sent raw or with `/` encoded as `%2F` alike
//! ([`super::routes::model_operation`]).

use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use salvo::prelude::*;
use serde_json::Value;

use super::cache::send_envelope;
use super::routes::asked_model_operation;
use crate::error::ApiError;
use crate::service::operations::{Operation, Post, Read};
use crate::service::params::{Query, check_model_id};
use crate::service::{body, fields, state};

/// The largest body a POST endpoint reads.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// A read operation's GET endpoint.
pub(super) struct Endpoint {
    pub(super) operation: &'static Operation,
    pub(super) read: Read,
}

#[async_trait]
impl Answer for Endpoint {
    async fn answer(
        &self,
        req: &mut Request,
        depot: &Depot,
        res: &mut Response,
    ) -> Result<(), ApiError> {
        let operation = self.operation;
        let q = Query::parse(req.uri().query(), operation.params)?;
        let id = if operation.takes_model_id() {
            let id = asked_model_operation(req)
                .map(|(_, id)| id.to_owned())
                .unwrap_or_default();
            check_model_id("model_id", &id)?;
            Some(id)
        } else {
            None
        };
        let result = self.read.run(state(depot), id.as_deref(), &q).await?;
        send_envelope(req, res, &q.normalized(), result)
    }
}

/// An endpoint's answer: the response, or the error it renders.
#[async_trait]
pub(super) trait Answer: Send + Sync + 'static {
    async fn answer(
        &self,
        req: &mut Request,
        depot: &Depot,
        res: &mut Response,
    ) -> Result<(), ApiError>;
}

/// The salvo handler of an [`Answer`].
pub(super) struct Answering<T>(pub(super) T);

#[async_trait]
impl<T: Answer> Handler for Answering<T> {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        _ctrl: &mut FlowCtrl,
    ) {
        if let Err(err) = self.0.answer(req, depot, res).await {
            res.render(err);
        }
    }
}

fn is_json(req: &Request) -> bool {
    // A body without a Content-Type is refused too (spec 4.5: application/json).
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            let essence = ct
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            essence == "application/json" || essence.ends_with("+json")
        })
}

/// A POST's body: JSON sent as such (422 otherwise), at most `max` bytes.
pub(super) async fn json_body(req: &mut Request, max: usize) -> Result<Value, ApiError> {
    if !is_json(req) {
        return Err(ApiError::validation(vec![fields::item(
            &[],
            "content_type",
            "the body must be JSON, sent with Content-Type: application/json",
            None,
        )]));
    }
    fields::parse_json(&body::read(req, max).await?)
}

/// A POST endpoint of the table of operations: a JSON body in, the envelope out, never cached.
pub(super) struct PostEndpoint(pub(super) Post);

#[async_trait]
impl Answer for PostEndpoint {
    async fn answer(
        &self,
        req: &mut Request,
        depot: &Depot,
        res: &mut Response,
    ) -> Result<(), ApiError> {
        Query::parse(req.uri().query(), &[])?;
        let body = json_body(req, MAX_BODY_BYTES).await?;
        let bytes = self.0.run(state(depot), body).await?;
        let _ = res.add_header(CACHE_CONTROL, "no-store", true);
        let _ = res.add_header(CONTENT_TYPE, "application/json; charset=utf-8", true);
        res.body = salvo::http::ResBody::Once(bytes.into());
        Ok(())
    }
}

#[handler]
pub(super) async fn openapi(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    Query::parse(req.uri().query(), &[])?;
    let _ = res.add_header(CONTENT_TYPE, "application/json", true);
    let _ = res.add_header(CACHE_CONTROL, "public, max-age=3600", true);
    res.body = salvo::http::ResBody::Once(state(depot).openapi.clone());
    Ok(())
}
