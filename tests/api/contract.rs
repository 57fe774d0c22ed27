//! The OpenAPI contract: every response a test receives through
//! [`TestApp::call`](crate::helpers::TestApp) is checked against the schema the
//! served `/api/v1/openapi.json` gives for its path, method, status and
//! content type (JSON Schema 2020-12, formats checked, `$ref`s resolved within
//! the document). A response the document does not describe fails the test.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::{Draft, Validator};
use serde_json::Value;

/// A loaded OpenAPI document with its compiled response schemas.
pub struct Contract {
    doc: Value,
    text: String,
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

/// Escapes one JSON-pointer token.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

impl std::fmt::Debug for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Contract")
    }
}

impl Contract {
    /// The contract for the document `text`, compiled once per process.
    pub fn for_document(text: &str) -> &'static Contract {
        static LOADED: OnceLock<Contract> = OnceLock::new();
        let contract = LOADED.get_or_init(|| Contract {
            doc: serde_json::from_str(text).expect("the served openapi.json is JSON"),
            text: text.to_owned(),
            validators: Mutex::new(HashMap::new()),
        });
        assert_eq!(
            contract.text, text,
            "every server in this test run serves the same openapi.json"
        );
        contract
    }

    /// The path template of the document that `path` (as sent, percent-encoded) matches.
    /// A `{model_id}` may span several segments (a provider API id sent with raw
    /// slashes): the template with the longest literal suffix wins, as on the server.
    pub fn template(&self, path: &str) -> Option<String> {
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let paths = self.doc["paths"].as_object()?;
        let literal =
            |t: &str, s: &str| t == s || (t.starts_with('{') && t.ends_with('}') && !s.is_empty());
        paths
            .keys()
            .filter_map(|template| {
                let parts: Vec<&str> = template.trim_start_matches('/').split('/').collect();
                if parts.len() == segments.len()
                    && parts.iter().zip(&segments).all(|(t, s)| literal(t, s))
                {
                    return Some((usize::MAX, template));
                }
                let at = parts.iter().position(|p| *p == "{model_id}")?;
                let (before, after) = (&parts[..at], &parts[at + 1..]);
                let spans = segments.len() > before.len() + after.len()
                    && before.iter().zip(&segments).all(|(t, s)| t == s)
                    && after
                        .iter()
                        .rev()
                        .zip(segments.iter().rev())
                        .all(|(t, s)| t == s);
                spans.then_some((after.len(), template))
            })
            .max_by_key(|(rank, _)| *rank)
            .map(|(_, template)| template.clone())
    }

    /// Follows a `{"$ref": "#/..."}` to its target, as a JSON pointer.
    fn resolve(&self, pointer: String) -> String {
        match self.doc.pointer(&pointer).and_then(|v| v["$ref"].as_str()) {
            Some(target) => self.resolve(target.trim_start_matches('#').to_owned()),
            None => pointer,
        }
    }

    /// Checks one response; panics with the reasons when it breaks the document.
    pub fn check(&self, method: &str, path: &str, status: u16, content_type: &str, body: &str) {
        let template = self
            .template(path)
            .unwrap_or_else(|| panic!("{method} {path}: no such path in openapi.json"));
        let operation = format!("/paths/{}/{}", token(&template), method.to_lowercase());
        assert!(
            self.doc.pointer(&operation).is_some(),
            "{method} {template}: no such operation in openapi.json"
        );
        let response = self.resolve(format!("{operation}/responses/{status}"));
        let Some(described) = self.doc.pointer(&response) else {
            panic!("{method} {template}: status {status} is not documented; body: {body}");
        };
        let media = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        let Some(content) = described["content"].as_object() else {
            assert!(
                body.is_empty(),
                "{method} {template} {status}: documented without a body, got {body}"
            );
            return;
        };
        assert!(
            content.contains_key(&media),
            "{method} {template} {status}: content type {content_type} is not documented ({:?})",
            content.keys().collect::<Vec<_>>()
        );
        let schema_pointer = format!("{response}/content/{}/schema", token(&media));
        if !media.contains("json") {
            return;
        }
        let instance: Value = serde_json::from_str(body).unwrap_or_else(|e| {
            panic!("{method} {template} {status}: body is not JSON ({e}): {body}")
        });
        let validator = self.validator(&schema_pointer);
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| format!("  at {}: {e}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {path} {status} breaks openapi.json ({schema_pointer}):\n{}\nbody: {body}",
            errors.join("\n")
        );
    }

    /// Checks the body of a delivery of the webhook `name` (the document's
    /// top-level `webhooks`) against its request body schema.
    pub fn check_webhook(&self, name: &str, body: &str) {
        let pointer = format!(
            "/webhooks/{}/post/requestBody/content/application~1json/schema",
            token(name)
        );
        assert!(
            self.doc.pointer(&pointer).is_some(),
            "webhook {name}: no request body schema in openapi.json"
        );
        let instance: Value = serde_json::from_str(body)
            .unwrap_or_else(|e| panic!("webhook {name}: body is not JSON ({e}): {body}"));
        let errors: Vec<String> = self
            .validator(&pointer)
            .iter_errors(&instance)
            .map(|e| format!("  at {}: {e}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "webhook {name}: the delivery breaks openapi.json:\n{}\nbody: {body}",
            errors.join("\n")
        );
    }

    /// The compiled schema at `pointer`, with the whole document as the root
    /// so that its `#/components/...` references resolve.
    fn validator(&self, pointer: &str) -> Arc<Validator> {
        // A failed check elsewhere must not hide this one behind a poisoned lock.
        let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cache.get(pointer) {
            return Arc::clone(v);
        }
        let mut root = self.doc.clone();
        // As a URI fragment, the pointer's braces are percent-encoded.
        let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
        root["$ref"] = Value::String(format!("#{fragment}"));
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|e| panic!("schema at {pointer} does not compile: {e}"));
        let validator = Arc::new(validator);
        cache.insert(pointer.to_owned(), Arc::clone(&validator));
        validator
    }
}
