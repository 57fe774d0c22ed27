//! The REST endpoints over the service's operations: each GET of the table of
//! operations parses its query (and `{model_id}`), runs the operation and
//! answers with the envelope and the caching headers; each POST (the estimate,
//! the cost of a usage record) reads its JSON body; `GET /api/v1/openapi.json` serves the document.
//!
//! A model id may hold slashes (provider API ids such as `openrouter:openai/o3`
//! or Fireworks' `accounts/fireworks/models/...`): under `/api/v1/models/` the
//! id is every segment up to the suffix of a model operation (`/history`), so
//! it may be sent raw or with `/` encoded as `%2F` alike ([`model_operation`]).

use std::borrow::Cow;
use std::sync::LazyLock;

use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use salvo::prelude::*;
use serde_json::Value;

use super::cache::send_envelope;
use crate::error::ApiError;
use crate::service::operations::{OPERATIONS, Operation, Post, Read};
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

/// The model operation a path (as sent, percent-encoded) asks for, with its
/// model id decoded: the segments after the operation's prefix
/// (`/api/v1/models/`), less the literal segments of its suffix (`history`),
/// each decoded and joined with `/`. The operation with the longest suffix
/// that leaves an id wins, so `.../openrouter:openai/o3/history` is the
/// history of `openrouter:openai/o3`, and an id whose last part is itself
/// `history` is sent with that slash encoded (`...%2Fhistory`). Empty
/// segments are skipped, as the router skips them.
pub(super) fn model_operation(path: &str) -> Option<(&'static Operation, String)> {
    // Decoded one by one: a segment holding an encoded `/` is never a literal.
    // Borrowed where nothing is encoded: the router's filters and the metrics
    // ask this of every request to a model route.
    let segments: Vec<Cow<'_, str>> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| percent_encoding::percent_decode_str(s).decode_utf8_lossy())
        .collect();
    MODEL_ROUTES
        .iter()
        .filter_map(|route| {
            let rest = segments.get(route.prefix.len()..)?;
            let id = rest.get(..rest.len().checked_sub(route.suffix.len())?)?;
            let matches = segments[..route.prefix.len()]
                .iter()
                .map(AsRef::as_ref)
                .eq(route.prefix.iter().copied())
                && rest[id.len()..]
                    .iter()
                    .map(AsRef::as_ref)
                    .eq(route.suffix.iter().copied())
                && !id.is_empty();
            matches.then_some((route.suffix.len(), route.operation, id))
        })
        .max_by_key(|(suffix, _, _)| *suffix)
        .map(|(_, operation, id)| (operation, id.join("/")))
}

/// The model operation a request asks for and its model id
/// ([`model_operation`] of its path), found once per request and kept in its
/// extensions: the router's filter of each model route, the endpoint and the
/// metrics' route label ([`asked_operation`]) all ask.
pub(super) fn asked_model_operation(req: &mut Request) -> Option<(&'static Operation, &str)> {
    if req.extensions().get::<AskedModelOperation>().is_none() {
        let asked = AskedModelOperation(model_operation(req.uri().path()));
        req.extensions_mut().insert(asked);
    }
    let AskedModelOperation(asked) = req.extensions().get::<AskedModelOperation>()?;
    asked
        .as_ref()
        .map(|(operation, id)| (*operation, id.as_str()))
}

/// The model operation a request was found to ask for, if a model route's
/// filter looked ([`asked_model_operation`]).
pub(super) fn asked_operation(req: &Request) -> Option<&'static Operation> {
    let AskedModelOperation(asked) = req.extensions().get::<AskedModelOperation>()?;
    asked.as_ref().map(|(operation, _)| *operation)
}

/// What [`asked_model_operation`] found, in the request's extensions.
#[derive(Clone)]
struct AskedModelOperation(Option<(&'static Operation, String)>);

/// An operation whose path holds `{model_id}`, with the literal segments
/// before and after it.
struct ModelRoute {
    operation: &'static Operation,
    prefix: Vec<&'static str>,
    suffix: Vec<&'static str>,
}

static MODEL_ROUTES: LazyLock<Vec<ModelRoute>> = LazyLock::new(|| {
    let literals = |part: &'static str| -> Vec<&'static str> {
        part.split('/').filter(|s| !s.is_empty()).collect()
    };
    OPERATIONS
        .iter()
        .filter_map(|operation| {
            let (prefix, suffix) = operation.path.split_once("{model_id}")?;
            Some(ModelRoute {
                operation,
                prefix: literals(prefix),
                suffix: literals(suffix),
            })
        })
        .collect()
});

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

#[cfg(test)]
mod tests {
    use super::model_operation;

    fn asks(path: &str) -> Option<(&'static str, String)> {
        model_operation(path).map(|(op, id)| (op.path, id))
    }

    #[test]
    fn model_ids_with_slashes_resolve_raw_or_encoded_and_history_stays_a_suffix() {
        let card = "/api/v1/models/{model_id}";
        let history = "/api/v1/models/{model_id}/history";
        let o3 = "openrouter:openai/o3".to_owned();
        assert_eq!(
            asks("/api/v1/models/openrouter:openai/o3"),
            Some((card, o3.clone()))
        );
        assert_eq!(
            asks("/api/v1/models/openrouter:openai%2Fo3"),
            Some((card, o3.clone()))
        );
        assert_eq!(
            asks("/api/v1/models/openrouter:openai%2fo3/"),
            Some((card, o3.clone()))
        );
        assert_eq!(
            asks("/api/v1/models/openrouter:openai/o3/history"),
            Some((history, o3.clone()))
        );
        assert_eq!(
            asks("/api/v1/models/openrouter:openai%2Fo3/history"),
            Some((history, o3))
        );
        let fireworks = "fireworks:accounts/fireworks/models/deepseek-v3".to_owned();
        assert_eq!(
            asks("/api/v1/models/fireworks:accounts/fireworks/models/deepseek-v3/history"),
            Some((history, fireworks))
        );
        assert_eq!(
            asks("/api/v1/models/history"),
            Some((card, "history".to_owned()))
        );
        assert_eq!(
            asks("/api/v1/models/a%2Fhistory"),
            Some((card, "a/history".to_owned()))
        );
        assert_eq!(
            asks("/api/v1/models/a/history/history"),
            Some((history, "a/history".to_owned()))
        );
        assert_eq!(
            asks("/api/v1/models/openai:o3"),
            Some((card, "openai:o3".to_owned()))
        );
        assert_eq!(asks("/api/v1/models"), None);
        assert_eq!(asks("/api/v1/compare"), None);
    }
}
