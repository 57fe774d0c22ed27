//! Which model route a request asks for. A model id may hold slashes (provider
//! API ids such as `openrouter:openai/o3`), so one wildcard route per model
//! operation takes the rest of the path and answers when the path ends with
//! the operation's suffix ([`model_operation`]). The router's filters, the
//! endpoint and the request metrics all ask, once per request
//! ([`asked_model_operation`]): kept apart from the endpoints, so that the
//! metrics can name a request's route without depending on what answers it.

use std::borrow::Cow;
use std::sync::LazyLock;

use salvo::prelude::*;

use crate::service::operations::{OPERATIONS, Operation};

/// The model operation a path (as sent, percent-encoded) asks for, with its
/// model id decoded: the segments after the operation's prefix
/// (`/api/v1/models/`), less the literal segments of its suffix (`history`),
/// each decoded and joined with `/`. The operation with the longest suffix
/// that leaves an id wins, so `.../openrouter:openai/o3/history` is the
/// history of `openrouter:openai/o3`, and an id whose last part is itself
/// `history` is sent with that slash encoded (`...%2Fhistory`). Empty
/// segments are skipped, as the router skips them.
pub(crate) fn model_operation(path: &str) -> Option<(&'static Operation, String)> {
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
pub(crate) fn asked_model_operation(req: &mut Request) -> Option<(&'static Operation, &str)> {
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
pub(crate) fn asked_operation(req: &Request) -> Option<&'static Operation> {
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
