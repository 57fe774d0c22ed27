//! The MCP channel driven by a real MCP client, the official Python SDK
//! (tests/mcp/client.py), over Streamable HTTP at /mcp and over stdio: tools
//! listed with their schemas, each tool called with valid and invalid
//! arguments, every result compared with the REST response for the same input,
//! the key fallback and the budget shared with REST.
//!
//! The client runs on the interpreter in `PRICING_MCP_PYTHON`, by default the
//! venv `target/py-mcp` that scripts/test.sh creates (`pip install mcp`).

use serde_json::{Value, json};

use crate::helpers::{
    TestApp, TestDb, data_app, database_url, fixture_app, publish_fixture, python_json, venv_python,
};

/// Runs the SDK client with `args` (mode, target, ...) on `calls`.
async fn client(args: &[String], calls: &Value) -> Value {
    let python = venv_python("PRICING_MCP_PYTHON", "py-mcp");
    python_json(&python, "tests/mcp/client.py", args, &calls.to_string()).await
}

pub(crate) async fn over_http(app: &TestApp, headers: &[&str], calls: &Value) -> Value {
    let mut args = vec!["http".to_owned(), app.url("/mcp")];
    args.extend(headers.iter().map(|h| (*h).to_owned()));
    client(&args, calls).await
}

/// Each tool with valid arguments, and the REST request for the same input.
fn twins() -> Vec<(Value, &'static str, Option<Value>)> {
    let estimate = json!({"requests_per_month": 10000, "preset": "chatbot", "cache_hit_rate": 0.5,
                          "model_ids": ["openai:o3", "openai:gpt-4.1"]});
    let cost = json!({"model_id": "openai:o3", "at": "2025-07-01T10:00:00Z",
                      "usage": {"prompt_tokens": 2006, "completion_tokens": 300,
                                "prompt_tokens_details": {"cached_tokens": 1920},
                                "completion_tokens_details": {"reasoning_tokens": 192}}});
    vec![
        (
            json!({"tool": "pricing_list_models", "arguments": {"limit": 3, "sort": "price_input_asc", "status": "all",
                 "kind": ["chat", "embedding"]}}),
            "/api/v1/models?limit=3&sort=price_input_asc&status=all&kind=chat,embedding",
            None,
        ),
        (
            json!({"tool": "pricing_get_model", "arguments": {"model_id": "openai:o3", "include": ["pricing", "aliases"]}}),
            "/api/v1/models/openai:o3?include=pricing,aliases",
            None,
        ),
        (
            json!({"tool": "pricing_price_history", "arguments": {"model_id": "openai:o3", "channel": "official",
                 "since": "2025-01-01", "until": "2025-12-31"}}),
            "/api/v1/models/openai:o3/history?channel=official&since=2025-01-01&until=2025-12-31",
            None,
        ),
        (
            json!({"tool": "pricing_compare", "arguments": {"ids": ["openai:o3", "openai:gpt-4.1"]}}),
            "/api/v1/compare?ids=openai:o3,openai:gpt-4.1",
            None,
        ),
        (
            json!({"tool": "pricing_estimate_cost", "arguments": estimate}),
            "/api/v1/estimate",
            Some(estimate),
        ),
        (
            json!({"tool": "pricing_cost_usage", "arguments": cost}),
            "/api/v1/cost",
            Some(cost),
        ),
        (
            json!({"tool": "pricing_recent_changes",
                   "arguments": {"limit": 5, "min_significance": 10, "model": ["openai:o3", "openai:gpt-4.1"]}}),
            "/api/v1/changes?limit=5&min_significance=10&model=openai:o3,openai:gpt-4.1",
            None,
        ),
    ]
}

async fn rest(app: &TestApp, path: &str, body: &Option<Value>) -> Value {
    let reply = match body {
        Some(body) => app.post_json(path, &body.to_string()).await,
        None => app.call(path).await,
    };
    reply.expect(200).json()
}

/// Every tool twin answers exactly what its endpoint answers.
async fn assert_twins_match_rest(app: &TestApp, out: &Value) {
    for (i, (_, path, body)) in twins().iter().enumerate() {
        let result = &out["results"][i];
        assert_eq!(result["is_error"], false, "{path}: {result}");
        assert_eq!(
            result["structured"],
            rest(app, path, body).await,
            "{path}: same data over MCP and REST"
        );
        assert!(
            result["text"].as_str().is_some_and(|t| !t.is_empty()),
            "a text rendering"
        );
    }
}

/// Each tool with invalid arguments, refused by the input schema or by the
/// endpoint's own rules, and the error code expected.
fn invalid_calls() -> Vec<(Value, &'static str)> {
    vec![
        (
            json!({"tool": "pricing_list_models", "arguments": {"limit": 500}}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"tool": "pricing_get_model", "arguments": {"model_id": "openai:o33"}}),
            "MODEL_NOT_FOUND",
        ),
        (
            json!({"tool": "pricing_price_history",
                   "arguments": {"model_id": "openai:o3", "since": "2023-01-01", "until": "2025-01-01"}}),
            "WINDOW_TOO_LARGE",
        ),
        (
            json!({"tool": "pricing_compare", "arguments": {"ids": ["openai:o3"]}}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"tool": "pricing_estimate_cost", "arguments": {"requests_per_month": 0, "preset": "chatbot"}}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"tool": "pricing_cost_usage",
                   "arguments": {"model_id": "openai:o3", "usage": {"tokens": 10}}}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"tool": "pricing_recent_changes", "arguments": {"event_type": "price_drop"}}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"tool": "pricing_list_models", "arguments": {"kind": ["llm"]}}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"tool": "pricing_recent_changes", "arguments": {"model": ["openai:o3", "openai:o33x"]}}),
            "MODEL_NOT_FOUND",
        ),
    ]
    .into_iter()
    .chain(long_inputs())
    .collect()
}

/// Each tool with a 30 KB model id or slug: refused before any lookup.
fn long_inputs() -> Vec<(Value, &'static str)> {
    let id = format!("openai:{}", "a".repeat(30_000));
    let slug = "p".repeat(30_000);
    [
        json!({"tool": "pricing_list_models", "arguments": {"provider": slug}}),
        json!({"tool": "pricing_list_models", "arguments": {"query": slug}}),
        json!({"tool": "pricing_get_model", "arguments": {"model_id": id}}),
        json!({"tool": "pricing_price_history", "arguments": {"model_id": id}}),
        json!({"tool": "pricing_compare", "arguments": {"ids": ["openai:o3", id]}}),
        json!({"tool": "pricing_estimate_cost",
               "arguments": {"requests_per_month": 1000, "preset": "chatbot", "model_ids": [id]}}),
        json!({"tool": "pricing_cost_usage", "arguments": {"model_id": id, "usage": {"prompt_tokens": 1}}}),
        json!({"tool": "pricing_recent_changes", "arguments": {"provider": slug}}),
    ]
    .into_iter()
    .map(|call| (call, "INVALID_ARGUMENT"))
    .collect()
}

/// Every tool, first with valid then with invalid arguments.
fn all_calls() -> Value {
    let valid = twins().into_iter().map(|(call, _, _)| call);
    let invalid = invalid_calls().into_iter().map(|(call, _)| call);
    Value::Array(valid.chain(invalid).collect())
}

/// What a client saw for [`all_calls`]: the seven tools, REST's data for the
/// valid calls, the spec's errors with a next step for the invalid ones.
async fn assert_all_calls(app: &TestApp, out: &Value) {
    assert_eq!(out["server_info"]["name"], "pricing");
    assert_eq!(out["server_info"]["version"], env!("CARGO_PKG_VERSION"));
    let tools = out["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let valid = twins();
    let twins_of: Vec<&str> = valid
        .iter()
        .filter_map(|(c, _, _)| c["tool"].as_str())
        .collect();
    assert_eq!(names, twins_of);
    for tool in tools {
        assert_eq!(tool["input_schema"]["type"], "object", "{}", tool["name"]);
        assert!(
            tool["description"]
                .as_str()
                .is_some_and(|d| d.contains("Twin of"))
        );
    }
    assert_eq!(
        tools[0]["input_schema"]["properties"]["status"]["enum"],
        json!(["active", "deprecated", "retired", "all"])
    );

    assert_twins_match_rest(app, out).await;
    for (i, (_, code)) in invalid_calls().iter().enumerate() {
        let result = &out["results"][twins().len() + i];
        assert_eq!(result["is_error"], true, "{result}");
        assert_eq!(result["structured"]["error"]["code"], *code, "{result}");
        assert!(
            result["structured"]["error"]["next_step"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
    }
    let not_found = &out["results"][twins().len() + 1]["structured"]["error"];
    assert!(
        not_found["did_you_mean"]
            .as_array()
            .is_some_and(|s| s.iter().any(|m| m == "openai:o3")),
        "{not_found}"
    );
}

#[tokio::test]
async fn the_mcp_sdk_over_http_lists_the_six_tools_and_each_answers_like_rest() {
    let (_db, app) = fixture_app().await;
    let out = over_http(&app, &[], &all_calls()).await;
    assert_all_calls(&app, &out).await;
}

#[tokio::test]
async fn the_mcp_sdk_over_stdio_lists_the_six_tools_and_each_answers_like_rest() {
    let (db, app) = fixture_app().await;
    let args = vec![
        "stdio".to_owned(),
        env!("CARGO_BIN_EXE_pricing").to_owned(),
        "mcp".to_owned(),
        "--stdio".to_owned(),
        "--database-url".to_owned(),
        database_url(&db.config),
    ];
    let out = client(&args, &all_calls()).await;
    assert_all_calls(&app, &out).await;
}

#[tokio::test]
async fn an_invalid_key_falls_back_to_anonymous_on_mcp_but_is_refused_on_rest() {
    let (_db, app) = fixture_app().await;
    let bogus = "pr_live_0000000000000000000000000000000000000000000";
    let rest = app
        .http
        .get(app.url("/api/v1/models?limit=1"))
        .header("x-api-key", bogus)
        .send()
        .await
        .expect("request");
    assert_eq!(rest.status(), 401);
    let calls = json!([{"tool": "pricing_list_models", "arguments": {"limit": 1}}]);
    let out = over_http(&app, &[&format!("X-API-Key={bogus}")], &calls).await;
    assert_eq!(
        out["results"][0]["is_error"], false,
        "{}",
        out["results"][0]
    );
}

#[tokio::test]
async fn rest_and_mcp_draw_on_one_budget() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = data_app(&db).await;
    // A quota of 4 for the anonymous plan of this database.
    db.client()
        .await
        .execute(
            "update pricing.plans set quota = 4 where name = 'anonymous'",
            &[],
        )
        .await
        .expect("plan");
    for left in ["3", "2"] {
        let res = app.get("/api/v1/models?limit=1").await;
        assert_eq!(res.status(), 200);
        let remaining = res
            .headers()
            .get("x-ratelimit-remaining")
            .and_then(|v| v.to_str().ok());
        assert_eq!(remaining, Some(left));
    }
    let call = json!({"tool": "pricing_list_models", "arguments": {"limit": 1}});
    let out = over_http(&app, &[], &json!([call, call, call])).await;
    let results = out["results"].as_array().expect("results");
    assert_eq!(results[0]["is_error"], false, "{}", results[0]);
    assert_eq!(results[1]["is_error"], false, "{}", results[1]);
    assert_eq!(results[2]["is_error"], true);
    assert_eq!(results[2]["structured"]["error"]["code"], "RATE_LIMITED");
    let res = app.get("/api/v1/models?limit=1").await;
    assert_eq!(res.status(), 429, "REST sees the budget MCP used");
}

#[tokio::test]
async fn malformed_json_rpc_messages_get_json_rpc_errors() {
    let (_db, app) = fixture_app().await;
    let cases = [
        ("not json", 400, -32700),
        ("", 400, -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, 400, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, 400, -32600),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            400,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
            200,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"pricing_list_models","arguments":"{}"}}"#,
            200,
            -32602,
        ),
        // MCP's ids are strings or integers
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, 400, -32600),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            400,
            -32600,
        ),
    ];
    for (body, status, code) in cases {
        let res = app
            .http
            .post(app.url("/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body)
            .send()
            .await
            .expect("post");
        assert_eq!(res.status().as_u16(), status, "{body}");
        let reply: Value = res.json().await.expect("a JSON-RPC answer");
        assert_eq!(reply["jsonrpc"], "2.0", "{body}");
        assert_eq!(reply["error"]["code"], code, "{body}: {reply}");
        if status == 200 {
            assert!(reply["id"].is_number(), "the request's id: {reply}");
        }
    }
}

#[tokio::test]
async fn a_long_method_or_tool_name_is_refused_without_being_echoed() {
    let (_db, app) = fixture_app().await;
    let long_method = "m".repeat(1_000);
    let long_tool = "t".repeat(100_000);
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": long_method}),
            -32601,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                   "params": {"name": long_tool, "arguments": {}}}),
            -32602,
        ),
    ];
    for (message, code) in cases {
        let res = app
            .http
            .post(app.url("/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string())
            .send()
            .await
            .expect("post");
        let text = res.text().await.expect("body");
        let reply: Value = serde_json::from_str(&text).expect("a JSON-RPC answer");
        assert_eq!(reply["error"]["code"], code, "{reply}");
        assert!(text.len() < 500, "a short answer, got {} bytes", text.len());
    }
}

#[tokio::test]
async fn malformed_lines_on_stdio_get_json_rpc_errors_and_the_session_goes_on() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
    let (db, _app) = fixture_app().await;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_pricing"))
        .args([
            "mcp",
            "--stdio",
            "--database-url",
            &database_url(&db.config),
        ])
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("pricing mcp --stdio");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = async |line: &str| {
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write");
        stdin.flush().await.expect("flush");
        let answer = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer within 30 s")
            .expect("read")
            .expect("a line");
        serde_json::from_str::<Value>(&answer).expect("a JSON-RPC line")
    };
    assert_eq!(send("this is not json").await["error"]["code"], -32700);
    assert_eq!(
        send(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).await["error"]["code"],
        -32600
    );
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let answer = send(&init.to_string()).await;
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
}
