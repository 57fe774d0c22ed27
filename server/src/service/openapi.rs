//! The OpenAPI 3.1 description of this service, kept as a file beside the
//! code (server/openapi.json): served as is at `GET /api/v1/openapi.json`,
//! and the source of the MCP tools' input schemas. The integration tests
//! validate every response they receive against it.

/// The document, as served.
pub const OPENAPI_JSON: &str = include_str!("../../openapi.json");
