//! The OpenAPI 3.1 description of this service, kept as a file beside the
//! code (server/openapi.json): served as is at `GET /api/v1/openapi.json`,
//! and the source of the MCP tools' input schemas. The integration tests
//! validate every response they receive against it.

/// The document, as served.
pub const OPENAPI_JSON: &str = include_str!("../../openapi.json");

/// The document with `url` as its one server (`--public-url`).
pub fn with_server(url: &str) -> bytes::Bytes {
    let mut doc: serde_json::Value = serde_json::from_str(OPENAPI_JSON).unwrap_or_else(|_| {
        unreachable!("server/openapi.json is JSON; tests/api/openapi.rs checks it")
    });
    doc["servers"] = serde_json::json!([{"url": url, "description": "This service"}]);
    bytes::Bytes::from(doc.to_string())
}
