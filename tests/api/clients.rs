//! A Python client generated from the served OpenAPI document by
//! openapi-python-client (pinned; venv target/py-clients, made by
//! scripts/ensure-client-tools.sh), as most REST users call an API
//! (tests/clients/generated_client.py): the generator must read the document
//! without a warning, and every operation of the generated client is called
//! with real arguments against the bundled dataset. Each answer must parse
//! into the generated models and write back to exactly the JSON the server
//! sent, and equal the answer to the same request written by hand: lists
//! comma-separated where the generated client repeats the key, model ids with
//! raw slashes where it encodes them, defaults left out where it sends the
//! documented ones. So the document and the server cannot drift apart for
//! generated clients.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::helpers::{TestApp, python_json, venv_python};

/// What of an answer must equal the hand-written request's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Same {
    /// The whole JSON body.
    Json,
    /// The whole text body.
    Text,
    /// The status alone (the body moves between two requests: uptime, counters).
    Status,
}

/// One call of the generated client and its hand-written twin.
struct Call {
    operation: &'static str,
    arguments: Value,
    /// `GET path` or, with a body, `POST path` (`DELETE path` with `delete`).
    twin: String,
    body: Option<Value>,
    delete: bool,
    /// The API key both send (the generated client as its bearer token).
    key: Option<String>,
    status: u16,
    same: Same,
}

fn call(operation: &'static str, arguments: Value, twin: impl Into<String>) -> Call {
    Call {
        operation,
        arguments,
        twin: twin.into(),
        body: None,
        delete: false,
        key: None,
        status: 200,
        same: Same::Json,
    }
}

impl Call {
    fn post(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    fn delete(mut self) -> Self {
        self.delete = true;
        self
    }

    fn key(mut self, key: &str) -> Self {
        self.key = Some(key.to_owned());
        self
    }

    fn status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    fn same(mut self, same: Same) -> Self {
        self.same = same;
        self
    }
}

/// Every call; `key` a free key of the test's database, `webhooks` the ids of
/// two subscriptions of that key (the generated client deletes the first, the
/// hand-written twin the second).
fn calls(key: &str, webhooks: [i64; 2]) -> Vec<Call> {
    let hook = json!({"url": "http://127.0.0.1:9/hook", "model": ["openai:o3"],
                      "event_type": ["retirement"]});
    let estimate = json!({"requests_per_month": 10000, "preset": "chatbot", "cache_hit_rate": 0.5,
                          "model_ids": ["openai:o3", "anthropic:claude-sonnet-4-5"]});
    let cost = crate::cost::anthropic_usage();
    vec![
        call(
            "list_models",
            json!({"limit": 3, "sort": "price_input_asc", "status": "all", "provider": "openai"}),
            "/api/v1/models?limit=3&sort=price_input_asc&status=all&provider=openai",
        ),
        call(
            "get_model",
            json!({"model_id": "openai:o3", "include": ["pricing", "aliases", "benchmarks"]}),
            "/api/v1/models/openai:o3?include=pricing,aliases,benchmarks",
        ),
        call(
            "get_model",
            json!({"model_id": "openrouter:openai/o3"}),
            "/api/v1/models/openrouter:openai/o3",
        ),
        call(
            "get_model_history",
            json!({"model_id": "openrouter:openai/o3", "since": "2025-01-01", "until": "2025-12-31"}),
            "/api/v1/models/openrouter:openai/o3/history?since=2025-01-01&until=2025-12-31",
        ),
        call(
            "compare_models",
            json!({"ids": ["openai:o3", "anthropic:claude-sonnet-4-5", "deepseek:deepseek-v3"],
                   "metrics": ["price_input", "price_blended", "benchmark_score", "price_per_point"]}),
            "/api/v1/compare?ids=openai:o3,anthropic:claude-sonnet-4-5,deepseek:deepseek-v3\
             &metrics=price_input,price_blended,benchmark_score,price_per_point",
        ),
        call(
            "estimate_cost",
            json!({"body": estimate}),
            "/api/v1/estimate",
        )
        .post(estimate),
        call("cost_usage", json!({"body": cost}), "/api/v1/cost").post(cost),
        call(
            "list_changes",
            json!({"limit": 5, "min_significance": 10, "event_type": "price_change"}),
            "/api/v1/changes?limit=5&min_significance=10&event_type=price_change",
        ),
        call("health", json!({}), "/api/v1/health"),
        call("healthz", json!({}), "/healthz").same(Same::Status),
        call("metrics", json!({}), "/metrics").same(Same::Status),
        call("llms_txt", json!({}), "/llms.txt").same(Same::Text),
        call("openapi", json!({}), "/api/v1/openapi.json"),
        call(
            "changes_rss",
            json!({"limit": 5}),
            "/feeds/changes.xml?limit=5",
        )
        .same(Same::Text),
        call(
            "changes_json_feed",
            json!({"limit": 5}),
            "/feeds/changes.json?limit=5",
        ),
        call("prices_csv", json!({}), "/dumps/prices.csv").same(Same::Text),
        // Errors parse into the generated Error model too.
        call(
            "compare_models",
            json!({"ids": ["openai:o3"]}),
            "/api/v1/compare?ids=openai:o3",
        )
        .status(400),
        call("list_models", json!({"limit": 0}), "/api/v1/models?limit=0").status(400),
        // Each answer carries a new key or secret: the status and the model are compared.
        call("issue_free_key", json!({}), "/api/v1/keys")
            .post(json!({}))
            .status(201)
            .same(Same::Status),
        call("create_webhook", json!({"body": hook}), "/api/v1/webhooks")
            .post(hook.clone())
            .key(key)
            .status(201)
            .same(Same::Status),
        call("list_webhooks", json!({}), "/api/v1/webhooks")
            .key(key)
            .same(Same::Status),
        call(
            "delete_webhook",
            json!({"webhook_id": webhooks[0].to_string()}),
            format!("/api/v1/webhooks/{}", webhooks[1]),
        )
        .delete()
        .key(key)
        .same(Same::Status),
    ]
}

/// The hand-written twin's answer: (status, body as text).
async fn twin(app: &TestApp, call: &Call) -> (u16, String) {
    let headers: Vec<(&str, &str)> = call
        .key
        .as_deref()
        .map(|key| ("x-api-key", key))
        .into_iter()
        .collect();
    let reply = match (&call.body, call.delete) {
        (_, true) => app.delete_with(&call.twin, &headers).await,
        (Some(body), false) => {
            app.post_json_with(&call.twin, &body.to_string(), &headers)
                .await
        }
        (None, false) => app.call_with(&call.twin, &headers).await,
    };
    (reply.status, reply.text)
}

#[tokio::test]
async fn a_generated_python_client_calls_every_operation_and_gets_what_rest_answers() {
    let db = crate::helpers::TestDb::new().await;
    crate::helpers::publish_bundled(&db).await;
    // Webhooks on, to a receiver on loopback (nothing is delivered: no worker)
    let app = crate::helpers::data_app_with(
        &db,
        crate::helpers::AppOptions {
            webhooks: Some(pricing::webhooks::Settings {
                deliver: false,
                allow_private: true,
                ..pricing::webhooks::Settings::default()
            }),
            ..Default::default()
        },
    )
    .await;
    let key = crate::keys::issue(&db, "free").await;
    let mut hooks = Vec::new();
    for _ in 0..2 {
        let made = app
            .post_json_with(
                "/api/v1/webhooks",
                r#"{"url": "http://127.0.0.1:9/hook"}"#,
                &[("x-api-key", &key)],
            )
            .await
            .expect(201)
            .json();
        hooks.push(made["data"]["id"].as_i64().expect("webhook id"));
    }
    let work = std::env::temp_dir().join(format!(
        "pricing-generated-client-{}-{}",
        std::process::id(),
        app.addr.port()
    ));
    let calls = calls(&key, [hooks[0], hooks[1]]);
    let input: Vec<Value> = calls
        .iter()
        .map(|c| json!({"operation": c.operation, "arguments": c.arguments, "token": c.key}))
        .collect();
    let out = python_json(
        &venv_python("PRICING_CLIENTS_PYTHON", "py-clients"),
        "tests/clients/generated_client.py",
        &[app.url(""), work.display().to_string()],
        &Value::Array(input).to_string(),
    )
    .await;
    let _ = std::fs::remove_dir_all(&work);

    let generator = out["generator"].as_str().expect("generator output");
    assert!(
        !generator.to_lowercase().contains("warning") && !generator.contains("Error"),
        "the generator reads the whole document: {generator}"
    );
    let operations: BTreeSet<&str> = out["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .map(|o| o.as_str().expect("name"))
        .collect();
    let called: BTreeSet<&str> = calls.iter().map(|c| c.operation).collect();
    assert_eq!(
        called, operations,
        "every operation of the generated client is called"
    );

    let results = out["results"].as_array().expect("results");
    for (call, result) in calls.iter().zip(results) {
        let what = format!("{} {}", call.operation, call.arguments);
        assert_eq!(result["status"], call.status, "{what}: {result}");
        if result.get("json").is_some() {
            assert_eq!(
                result["round_trip"],
                json!([]),
                "{what}: the generated model writes back what was sent"
            );
            let parsed = result["parsed_type"].as_str().unwrap_or_default();
            assert_eq!(
                parsed == "Error",
                call.status >= 400,
                "{what}: parsed into {parsed}"
            );
        }
        let (status, text) = twin(&app, call).await;
        assert_eq!(status, call.status, "{what}: the twin {}", call.twin);
        match call.same {
            Same::Json => assert_eq!(
                result["json"],
                serde_json::from_str::<Value>(&text).expect("JSON twin"),
                "{what}: the same answer as {}",
                call.twin
            ),
            Same::Text => assert_eq!(
                result["text"], text,
                "{what}: the same text as {}",
                call.twin
            ),
            Same::Status => {}
        }
    }

    // The generated client sends arrays as repeated keys and encodes the
    // slashes of an id: the forms the server must take alike.
    let url = |i: usize| results[i]["url"].as_str().expect("url").to_owned();
    assert!(
        url(1).contains("include=pricing&include=aliases&include=benchmarks"),
        "{}",
        url(1)
    );
    assert!(
        url(2).ends_with("/api/v1/models/openrouter%3Aopenai%2Fo3"),
        "{}",
        url(2)
    );
    assert!(
        url(4).contains(
            "ids=openai%3Ao3&ids=anthropic%3Aclaude-sonnet-4-5&ids=deepseek%3Adeepseek-v3"
        ) && url(4).contains("metrics=price_input&metrics=price_blended"),
        "{}",
        url(4)
    );
    assert!(
        results[10]["text"]
            .as_str()
            .is_some_and(|t| t.contains("# TYPE pricing_http_requests_total counter")),
        "the metrics as text"
    );
}
