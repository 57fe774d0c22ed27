//! The MCP channel: the six tool twins of the REST endpoints (spec part 4),
//! over Streamable HTTP at `/mcp` on the same listener, and over stdio.
//!
//! Each tool takes the parameters of its endpoint, described by an input JSON
//! Schema built from the served OpenAPI document (so the two never disagree),
//! validated with `jsonschema` before any query; then it runs the very code of
//! the endpoint (same parsing, same `api` function) and returns the REST
//! envelope as structured content with a short text rendering. The spec's
//! errors come back as tool errors carrying the same `{"error": {...}}` body.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use salvo::http::{Method, StatusCode};
use salvo::prelude::{
    Depot, FlowCtrl, Json, Request, Response, Router, Scribe, TowerServiceCompat, handler,
};
use serde_json::{Map, Value, json};

use crate::access::limits::{McpClient, mcp_client, rate_limited};
use crate::access::quota::Decision;
use crate::error::{ApiError, ErrorCode, excerpt, shorten};
use crate::service::operations::{Kind, OPERATIONS, Operation, Read};
use crate::service::params::{Query, check_model_id};
use crate::service::respond::envelope;
use crate::service::{AppState, OPENAPI_JSON, body};

/// Tools with their input schemas and compiled validators, built once.
#[derive(Debug)]
pub struct Catalog {
    tools: Vec<Tool>,
    validators: HashMap<&'static str, jsonschema::Validator>,
}

impl Catalog {
    /// Builds every tool's input schema from the OpenAPI document.
    pub fn new() -> anyhow::Result<Self> {
        let doc: Value = serde_json::from_str(OPENAPI_JSON)?;
        let mut tools = Vec::new();
        let mut validators = HashMap::new();
        for operation in OPERATIONS {
            let schema = input_schema(&doc, operation)?;
            let validator = jsonschema::validator_for(&schema)
                .map_err(|e| anyhow::anyhow!("input schema of {}: {e}", operation.tool))?;
            validators.insert(operation.tool, validator);
            let Value::Object(schema) = schema else {
                anyhow::bail!("input schema of {} is not an object", operation.tool);
            };
            let mut annotations = ToolAnnotations::with_title(operation.tool);
            annotations.read_only_hint = Some(true);
            annotations.open_world_hint = Some(false);
            tools.push(
                Tool::new(operation.tool, operation.description, Arc::new(schema))
                    .with_annotations(annotations),
            );
        }
        Ok(Self { tools, validators })
    }

    /// The tool definitions.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Checks arguments against the tool's input schema.
    fn validate(&self, tool: &str, args: &Value) -> Result<(), ApiError> {
        let Some(validator) = self.validators.get(tool) else {
            return Ok(());
        };
        let problems: Vec<String> = validator
            .iter_errors(args)
            .map(|e| {
                // Masked: a message names the rule broken, never the whole bad value.
                let problem = shorten(&e.masked().to_string(), 200);
                let at = shorten(&e.instance_path().to_string(), 100);
                if at.is_empty() {
                    problem
                } else {
                    format!("{at}: {problem}")
                }
            })
            .collect();
        if problems.is_empty() {
            return Ok(());
        }
        Err(ApiError::new(
            ErrorCode::InvalidArgument,
            format!("invalid arguments for {tool}: {}", problems.join("; ")),
            "fix the arguments to match the tool's input schema (see tools/list)",
        )
        .with("details", json!(problems)))
    }
}

/// Resolves local `$ref`s (`#/components/...`) by copying what they point to.
fn inline_refs(doc: &Value, value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref")
                && let Some(pointer) = target.strip_prefix('#')
                && let Some(found) = doc.pointer(pointer)
            {
                return inline_refs(doc, found);
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), inline_refs(doc, v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline_refs(doc, v)).collect()),
        other => other.clone(),
    }
}

fn input_schema(doc: &Value, op: &Operation) -> anyhow::Result<Value> {
    let operation = doc
        .pointer(&format!(
            "/paths/{}/{}",
            op.path.replace('/', "~1"),
            op.method
        ))
        .ok_or_else(|| anyhow::anyhow!("the OpenAPI document has no {} {}", op.method, op.path))?;
    if op.method == "post" {
        let body = operation
            .pointer("/requestBody/content/application~1json/schema")
            .ok_or_else(|| anyhow::anyhow!("no JSON body schema for {}", op.path))?;
        let mut schema = inline_refs(doc, body);
        schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        return Ok(schema);
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for parameter in operation["parameters"].as_array().into_iter().flatten() {
        let parameter = inline_refs(doc, parameter);
        let Some(name) = parameter["name"].as_str() else {
            continue;
        };
        let mut schema = parameter["schema"].clone();
        if let (Some(description), Value::Object(s)) =
            (parameter["description"].as_str(), &mut schema)
        {
            s.entry("description").or_insert_with(|| json!(description));
        }
        if parameter["required"].as_bool() == Some(true) {
            required.push(json!(name));
        }
        properties.insert(name.to_owned(), schema);
    }
    Ok(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    }))
}

/// The tools, built once from the compiled-in OpenAPI document.
fn catalog() -> Result<&'static Catalog, ApiError> {
    static CATALOG: LazyLock<Result<Catalog, String>> =
        LazyLock::new(|| Catalog::new().map_err(|e| format!("{e:#}")));
    CATALOG
        .as_ref()
        .map_err(|e| ApiError::internal("building the MCP tools", e))
}

/// The MCP server: one per session (or per request, stateless).
#[derive(Debug, Clone)]
pub struct PricingMcp {
    state: AppState,
}

impl PricingMcp {
    /// A server answering from `state`.
    pub fn new(state: AppState) -> Self {
        Self { state }
    }

    /// Counts a tool call over HTTP against the caller's budget, shared with
    /// REST: the same key headers (or `?key=` on the /mcp URL), an invalid key
    /// falling back to anonymous (spec part 5). Calls over stdio come from the
    /// operator's own machine and are not counted.
    async fn admit(&self, context: &RequestContext<RoleServer>) -> Result<(), ApiError> {
        let Some(parts) = context.extensions.get::<salvo::http::request::Parts>() else {
            return Ok(());
        };
        let client = parts
            .extensions
            .get::<McpClient>()
            .map_or(std::net::Ipv4Addr::UNSPECIFIED.into(), |c| c.0);
        let admission = self
            .state
            .access()
            .admit_mcp(&parts.headers, parts.uri.query(), client)
            .await;
        match admission.decision {
            Decision::Refused {
                by, retry_after, ..
            } => Err(
                rate_limited(&admission.caller, by, &admission.decision, retry_after)
                    .with("retry_after", json!(retry_after)),
            ),
            _ => Ok(()),
        }
    }

    /// Runs one tool: validate, then the endpoint's own code; the envelope or
    /// the error body. The read-only tools answer from the response cache
    /// when this publish already answered the same arguments.
    pub async fn run(&self, tool: &str, args: Value) -> Result<Value, ApiError> {
        catalog()?.validate(tool, &args)?;
        match Operation::by_tool(tool) {
            Some(Operation {
                kind: Kind::Post(post),
                ..
            }) => {
                // The REST answer's own text, read back: a tool's result is a value.
                let text = post.run(&self.state, args).await?;
                serde_json::from_slice(&text)
                    .map_err(|e| ApiError::internal("reading a tool's answer", &e))
            }
            Some(
                operation @ Operation {
                    kind: Kind::Read(read),
                    ..
                },
            ) => {
                self.state
                    .cache()
                    .value(tool, &args, self.read(operation, *read, &args))
                    .await
            }
            None => Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no tool named {}", excerpt(tool)),
                "call tools/list for the tools this server has",
            )),
        }
    }

    /// A read-only tool: the REST endpoint's own code, in the envelope.
    async fn read(
        &self,
        operation: &Operation,
        read: Read,
        args: &Value,
    ) -> Result<Value, ApiError> {
        let mut rest = args.as_object().cloned().unwrap_or_default();
        let id = if operation.takes_model_id() {
            let id = match rest.remove("model_id") {
                Some(Value::String(id)) => id,
                _ => String::new(),
            };
            check_model_id("model_id", &id)?;
            Some(id)
        } else {
            None
        };
        let q = Query::from_json(&rest, operation.params)?;
        let result = read.run(&self.state, id.as_deref(), &q).await?;
        Ok(envelope(result).body)
    }
}

/// The largest body `/mcp` reads: tool arguments are small (the estimate's
/// body, the largest, is capped at 64 KiB on REST).
const MAX_MCP_BODY_BYTES: usize = 256 * 1024;

/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;
const METHOD_NOT_FOUND: i64 = -32601;

/// The longest method, tool name or string id read: every real one is far
/// shorter, and a longer one is refused without being echoed whole.
const MAX_NAME_CHARS: usize = 128;

/// A JSON-RPC error answer to a message the MCP layer is not given.
struct Refusal {
    status: StatusCode,
    id: Value,
    code: i64,
    message: String,
}

impl Refusal {
    /// The JSON-RPC error as one line of the stdio transport.
    fn line(&self) -> Vec<u8> {
        let mut line = json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
        .to_string()
        .into_bytes();
        line.push(b'\n');
        line
    }

    /// A message that is not a valid JSON-RPC request: HTTP 400 (Streamable
    /// HTTP's answer to input it cannot accept) with an error without id.
    fn invalid(code: i64, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            id: Value::Null,
            code,
            message: message.into(),
        }
    }

    fn render(self, res: &mut Response) {
        res.status_code(self.status);
        res.render(Json(json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })));
    }
}

/// What is wrong with one JSON-RPC message posted to `/mcp`, if anything
/// the MCP layer would not answer as JSON-RPC 2.0 says it should.
fn check_message(body: &[u8]) -> Result<(), Refusal> {
    let message: Value = serde_json::from_slice(body).map_err(|e| {
        Refusal::invalid(
            PARSE_ERROR,
            format!("parse error: the body is not JSON ({e})"),
        )
    })?;
    let Value::Object(message) = message else {
        return Err(Refusal::invalid(
            INVALID_REQUEST,
            "invalid request: send one JSON-RPC message, an object (batches are not supported)",
        ));
    };
    if message.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(Refusal::invalid(
            INVALID_REQUEST,
            "invalid request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let Some(method) = message.get("method") else {
        // A response to a request of the server's: the MCP layer's to judge.
        return Ok(());
    };
    let Some(method) = method.as_str() else {
        return Err(Refusal::invalid(
            INVALID_REQUEST,
            "invalid request: `method` must be a string",
        ));
    };
    let id = match message.get("id") {
        None => None,
        Some(Value::String(id)) if id.chars().count() <= MAX_NAME_CHARS => {
            Some(Value::String(id.clone()))
        }
        // MCP's request ids are strings or integers (1.5 and 2^64 are neither)
        Some(id @ Value::Number(n)) if n.is_i64() => Some(id.clone()),
        Some(_) => {
            return Err(Refusal::invalid(
                INVALID_REQUEST,
                format!(
                    "invalid request: `id` must be a string of at most {MAX_NAME_CHARS} characters \
                     or an integer of 64 bits (MCP allows neither null nor fractions)"
                ),
            ));
        }
    };
    if method.chars().count() > MAX_NAME_CHARS {
        // no method is that long; its name is not echoed whole
        return Err(Refusal {
            status: StatusCode::OK,
            id: id.unwrap_or(Value::Null),
            code: METHOD_NOT_FOUND,
            message: format!("method not found: {}", excerpt(method)),
        });
    }
    let Some(id) = id else {
        return Ok(());
    };
    if method == "tools/call" {
        let params = message.get("params").and_then(Value::as_object);
        let problem = match params {
            None => Some("`params` must be an object with the tool's `name` and `arguments`"),
            Some(p) if !p.get("name").is_some_and(Value::is_string) => {
                Some("`params.name` must be the tool's name, a string")
            }
            Some(p)
                if p["name"]
                    .as_str()
                    .is_some_and(|n| n.chars().count() > MAX_NAME_CHARS) =>
            {
                Some("`params.name` is longer than any tool's name: call tools/list")
            }
            Some(p) if p.get("arguments").is_some_and(|a| !a.is_object()) => {
                Some("`params.arguments` must be an object")
            }
            Some(_) => None,
        };
        if let Some(problem) = problem {
            return Err(Refusal {
                status: StatusCode::OK,
                id,
                code: INVALID_PARAMS,
                message: format!("invalid params: {problem}"),
            });
        }
    }
    Ok(())
}

/// Before `/mcp`: reads a posted body within bounds (service/body.rs) and
/// answers what is not one valid JSON-RPC 2.0 message with the JSON-RPC
/// error for it; the MCP layer gets the rest, body restored.
#[handler]
async fn jsonrpc_guard(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    if req.method() != Method::POST {
        return;
    }
    let bytes = match body::read(req, MAX_MCP_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(err) => {
            err.render(res);
            ctrl.skip_rest();
            return;
        }
    };
    if let Err(refusal) = check_message(&bytes) {
        refusal.render(res);
        ctrl.skip_rest();
        return;
    }
    req.replace_body(salvo::http::ReqBody::Once(bytes));
    ctrl.call_next(req, depot, res).await;
}

/// The stdio transport of `pricing mcp --stdio` (newline-delimited JSON-RPC),
/// as a pair for the MCP service to read and write: every line of stdin is
/// checked by the same rules as a message posted to `/mcp` (at most
/// [`MAX_MCP_BODY_BYTES`], one valid JSON-RPC 2.0 message), a line that is not
/// is answered on stdout with its JSON-RPC error, the rest reach the service;
/// its answers and those errors are written to stdout one whole line at a
/// time. Stdin's end ends the service.
pub fn stdio_transport() -> (tokio::io::DuplexStream, tokio::io::DuplexStream) {
    use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
    let (mut to_service, service_in) = tokio::io::duplex(MAX_MCP_BODY_BYTES);
    let (service_out, from_service) = tokio::io::duplex(MAX_MCP_BODY_BYTES);
    let (lines, mut written) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = written.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let answers = lines.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(from_service).split(b'\n');
        while let Ok(Some(mut line)) = reader.next_segment().await {
            line.push(b'\n');
            if answers.send(line).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        let mut line = Vec::new();
        loop {
            line.clear();
            let limit = MAX_MCP_BODY_BYTES as u64 + 1;
            match (&mut stdin).take(limit).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let outcome = if line.len() > MAX_MCP_BODY_BYTES {
                // the rest of the overlong line is read and dropped
                while !line.ends_with(b"\n") {
                    line.clear();
                    match (&mut stdin).take(limit).read_until(b'\n', &mut line).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                Err(Refusal::invalid(
                    INVALID_REQUEST,
                    format!("invalid request: a message has at most {MAX_MCP_BODY_BYTES} bytes"),
                ))
            } else if line.trim_ascii().is_empty() {
                continue;
            } else {
                check_message(line.trim_ascii())
            };
            match outcome {
                Ok(()) => {
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                    if to_service.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Err(refusal) => {
                    if lines.send(refusal.line()).await.is_err() {
                        break;
                    }
                }
            }
        }
        // stdin ended: the service sees its input end and stops
        let _ = to_service.shutdown().await;
    });
    (service_in, service_out)
}

/// The route `/mcp`: the client address recorded for the tool calls'
/// accounting, malformed JSON-RPC answered, then the MCP service.
pub fn router(state: AppState, loopback: bool) -> Router {
    Router::with_path("mcp")
        .hoop(mcp_client)
        .hoop(jsonrpc_guard)
        .goal(TowerServiceCompat::<salvo::http::ReqBody, _, _, _>::compat(
            streamable_http(state, loopback),
        ))
}

/// The MCP service mounted at `/mcp`: Streamable HTTP, stateless, plain JSON
/// responses. Host-header checks (against DNS rebinding) stay on for a server
/// on a loopback address, where they matter.
fn streamable_http(
    state: AppState,
    loopback: bool,
) -> StreamableHttpService<PricingMcp, LocalSessionManager> {
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    if !loopback {
        config = config.disable_allowed_hosts();
    }
    StreamableHttpService::new(
        move || Ok(PricingMcp::new(state.clone())),
        Default::default(),
        config,
    )
}

/// A line or two a person or an agent can read before the structured content.
fn summary(tool: &str, body: &Value) -> String {
    let data = &body["data"];
    let count = body["pagination"]["count"].as_u64();
    let total = body["pagination"]["total_count"].as_u64();
    let head = match tool {
        "pricing_get_model" => format!("model {}", data["id"].as_str().unwrap_or("?")),
        _ => match (count, total) {
            (Some(c), Some(t)) => format!("{c} of {t} results"),
            _ => "result".to_owned(),
        },
    };
    let more = if body["pagination"]["has_more"].as_bool() == Some(true) {
        "; more with `cursor` = pagination.next_cursor"
    } else {
        ""
    };
    format!(
        "{tool}: {head} as of {}{more}. The full response (the REST envelope) is in the structured content.",
        body["as_of"].as_str().unwrap_or("?")
    )
}

fn tool_result(tool: &str, outcome: Result<Value, ApiError>) -> CallToolResult {
    match outcome {
        Ok(body) => {
            let text = summary(tool, &body);
            let mut result = CallToolResult::structured(body);
            result.content = vec![ContentBlock::text(text)];
            result
        }
        Err(err) => {
            let body = err.body();
            let text = format!(
                "{}: {} Next step: {}",
                body["error"]["code"].as_str().unwrap_or("ERROR"),
                body["error"]["message"].as_str().unwrap_or(""),
                body["error"]["next_step"].as_str().unwrap_or("")
            );
            let mut result = CallToolResult::structured_error(body);
            result.content = vec![ContentBlock::text(text)];
            result
        }
    }
}

impl ServerHandler for PricingMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("pricing", env!("CARGO_PKG_VERSION"))
                    .with_title("Model Pricing Service")
                    .with_description("Published prices of token-priced AI models (USD per 1M tokens), history, changes, comparisons and cost estimates"),
            )
            .with_instructions(
                "Prices are USD per 1M tokens as exact decimal strings. Find models with pricing_list_models, \
                 read one with pricing_get_model, compare candidates with pricing_compare, estimate a monthly \
                 bill with pricing_estimate_cost, follow moves with pricing_price_history and \
                 pricing_recent_changes. Every result carries as_of, the time of the last publish.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = catalog().map_err(|e| ErrorData::internal_error(e.body().to_string(), None))?;
        Ok(ListToolsResult::with_all_items(tools.tools().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        catalog()
            .ok()?
            .tools()
            .iter()
            .find(|t| t.name == name)
            .cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let outcome = match self.admit(&context).await {
            Ok(()) => {
                let args = Value::Object(request.arguments.unwrap_or_default());
                self.run(&request.name, args).await
            }
            Err(refused) => Err(refused),
        };
        Ok(tool_result(&request.name, outcome).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_twin_has_an_input_schema_from_the_openapi_document() {
        let catalog = Catalog::new().expect("catalog");
        let names: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, OPERATIONS.iter().map(|t| t.tool).collect::<Vec<_>>());
        let list = &catalog.tools()[0].input_schema;
        assert_eq!(
            list["properties"]["sort"]["enum"].as_array().map(Vec::len),
            Some(5)
        );
        assert_eq!(list["properties"]["limit"]["maximum"], 100);
        assert_eq!(list["additionalProperties"], false);
        let card = &catalog.tools()[1].input_schema;
        assert_eq!(card["required"], json!(["model_id"]));
        let estimate = &catalog.tools()[4].input_schema;
        assert!(
            estimate["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!("requests_per_month")))
        );
    }

    #[test]
    fn malformed_messages_get_the_json_rpc_error_for_them() {
        let code = |body: &str| check_message(body.as_bytes()).err().map(|r| r.code);
        assert_eq!(code("not json"), Some(PARSE_ERROR));
        assert_eq!(code(""), Some(PARSE_ERROR));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#),
            Some(INVALID_PARAMS)
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"{}"}}"#
            ),
            Some(INVALID_PARAMS)
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#), None);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
    }

    #[test]
    fn arguments_outside_the_schema_are_refused_before_any_query() {
        let catalog = Catalog::new().expect("catalog");
        let err = catalog
            .validate(
                "pricing_list_models",
                &json!({"limit": 500, "sort": "cheapest"}),
            )
            .expect_err("invalid");
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        let body = err.body().to_string();
        assert!(body.contains("limit") && body.contains("sort"), "{body}");
        assert!(
            catalog
                .validate("pricing_list_models", &json!({"limit": 5}))
                .is_ok()
        );
    }
}
