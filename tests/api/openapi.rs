//! GET /api/v1/openapi.json: OpenAPI 3.1.0, interface version 0.5.0, every
//! route and enum the server has, examples that obey their own schemas.

use pricing::service::vocab;
use serde_json::Value;

use crate::contract::Contract;
use crate::helpers::{TestApp, TestDb};

async fn document() -> (TestApp, Value, String) {
    let db = TestDb::new().await;
    let app = TestApp::spawn(&db.config).await;
    let reply = app.call("/api/v1/openapi.json").await.expect(200);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/json"))
    );
    let text = reply.text.clone();
    (app, reply.json(), text)
}

fn enum_of(doc: &Value, path: &str, name: &str) -> Vec<String> {
    let params = doc["paths"][path]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    let param = params
        .iter()
        .map(|p| match p["$ref"].as_str() {
            Some(r) => doc.pointer(r.trim_start_matches('#')).expect("ref").clone(),
            None => p.clone(),
        })
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{path}: parameter {name}"));
    let mut schema = param["schema"].clone();
    if schema["type"] == "array" {
        schema = schema["items"].clone();
    }
    if let Some(r) = schema["$ref"].as_str() {
        schema = doc.pointer(r.trim_start_matches('#')).expect("ref").clone();
    }
    schema["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .map(|v| v.as_str().expect("string").to_owned())
        .collect()
}

#[tokio::test]
async fn the_document_is_openapi_3_1_with_interface_version_0_5_0_and_every_route() {
    let (_app, doc, _) = document().await;
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "0.5.0");
    let paths: Vec<&str> = doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .map(String::as_str)
        .collect();
    for (path, method) in [
        ("/api/v1/models", "get"),
        ("/api/v1/models/{model_id}", "get"),
        ("/api/v1/models/{model_id}/history", "get"),
        ("/api/v1/compare", "get"),
        ("/api/v1/changes", "get"),
        ("/api/v1/estimate", "post"),
        ("/api/v1/cost", "post"),
        ("/api/v1/keys", "post"),
        ("/api/v1/health", "get"),
        ("/api/v1/openapi.json", "get"),
        ("/healthz", "get"),
        ("/metrics", "get"),
        ("/llms.txt", "get"),
        ("/feeds/changes.xml", "get"),
        ("/feeds/changes.json", "get"),
        ("/dumps/prices.csv", "get"),
        ("/api/v1/webhooks", "get"),
        ("/api/v1/webhooks", "post"),
        ("/api/v1/webhooks/{webhook_id}", "delete"),
    ] {
        assert!(paths.contains(&path), "{path} documented");
        assert!(doc["paths"][path][method].is_object(), "{method} {path}");
    }
    assert_eq!(
        paths.len(),
        18,
        "no path the server does not serve: {paths:?}"
    );
    for header in [
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Retry-After",
    ] {
        assert!(doc["components"]["headers"][header].is_object(), "{header}");
    }
    let rate_limited = &doc["components"]["responses"]["TooManyRequests"]["headers"];
    assert!(rate_limited["Retry-After"].is_object());
    assert!(doc["components"]["schemas"]["ValidationError"]["properties"]["detail"].is_object());
}

#[tokio::test]
async fn the_document_lists_exactly_the_values_the_server_accepts() {
    let (_app, doc, _) = document().await;
    let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(enum_of(&doc, "/api/v1/models", "sort"), owned(vocab::SORTS));
    assert_eq!(
        enum_of(&doc, "/api/v1/models", "status"),
        owned(vocab::STATUSES)
    );
    assert_eq!(
        enum_of(&doc, "/api/v1/models", "modality"),
        owned(vocab::MODALITIES)
    );
    assert_eq!(
        enum_of(&doc, "/api/v1/models", "channel"),
        owned(vocab::CHANNELS)
    );
    assert_eq!(enum_of(&doc, "/api/v1/models", "kind"), owned(vocab::KINDS));
    assert_eq!(
        enum_of(&doc, "/api/v1/models/{model_id}", "include"),
        owned(vocab::INCLUDES)
    );
    assert_eq!(
        enum_of(&doc, "/api/v1/models/{model_id}/history", "component"),
        owned(vocab::COMPONENTS)
    );
    assert_eq!(
        enum_of(&doc, "/api/v1/models/{model_id}/history", "granularity"),
        owned(vocab::GRANULARITIES)
    );
    assert_eq!(
        enum_of(&doc, "/api/v1/compare", "metrics"),
        owned(vocab::METRICS)
    );
    assert_eq!(
        enum_of(&doc, "/api/v1/changes", "event_type"),
        owned(vocab::EVENT_TYPES)
    );
    let presets: Vec<String> =
        doc["components"]["schemas"]["EstimateRequest"]["properties"]["preset"]["enum"]
            .as_array()
            .expect("presets")
            .iter()
            .map(|v| v.as_str().expect("preset").to_owned())
            .collect();
    let expected: Vec<String> = estimator::Preset::ALL
        .iter()
        .map(|p| p.as_str().to_owned())
        .collect();
    assert_eq!(presets, expected);
    // Every list of channels in the document, inline copies in schemas
    // included, is the server's.
    let channel_lists = enums_naming(&doc, "openrouter");
    assert!(channel_lists.len() >= 2, "{channel_lists:?}");
    for list in channel_lists {
        assert_eq!(list, owned(vocab::CHANNELS));
    }
}

/// Every `enum` anywhere in `value` that lists `member`.
fn enums_naming(value: &Value, member: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    match value {
        Value::Object(fields) => {
            if let Some(list) = fields.get("enum").and_then(Value::as_array)
                && list.iter().any(|v| v == member)
            {
                found.push(
                    list.iter()
                        .map(|v| v.as_str().expect("string").to_owned())
                        .collect(),
                );
            }
            for v in fields.values() {
                found.extend(enums_naming(v, member));
            }
        }
        Value::Array(items) => {
            for v in items {
                found.extend(enums_naming(v, member));
            }
        }
        _ => {}
    }
    found
}

#[tokio::test]
async fn every_example_in_the_document_obeys_its_own_schema() {
    let (_app, doc, text) = document().await;
    let contract = Contract::for_document(&text);
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("operations") {
            for (status, response) in operation["responses"].as_object().expect("responses") {
                let response = match response["$ref"].as_str() {
                    Some(r) => doc.pointer(r.trim_start_matches('#')).expect("ref"),
                    None => response,
                };
                let Some(content) = response["content"].as_object() else {
                    continue;
                };
                for (media, body) in content {
                    let Some(examples) = body["examples"].as_object() else {
                        continue;
                    };
                    for example in examples.values() {
                        let concrete = path
                            .replace("{model_id}", "openai:o3")
                            .replace("{webhook_id}", "7");
                        contract.check(
                            &method.to_uppercase(),
                            &concrete,
                            status.parse().expect("status"),
                            media,
                            &example["value"].to_string(),
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    // the bodies of the webhooks (the top-level `webhooks` of OpenAPI 3.1)
    for (name, item) in doc["webhooks"].as_object().expect("webhooks") {
        let body = &item["post"]["requestBody"]["content"]["application/json"];
        let examples = body["examples"].as_object().expect("webhook examples");
        for example in examples.values() {
            contract.check_webhook(name, &example["value"].to_string());
            checked += 1;
        }
    }
    assert!(checked >= 10, "examples checked: {checked}");
}
