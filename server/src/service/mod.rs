//! The operations of the service, whatever the transport: the table of
//! operations, their typed parameters (read from a query string or from JSON
//! arguments alike), the one call of an `api` function behind each, the
//! envelope around its result, the OpenAPI document, the response cache, and
//! the state they run on. `crate::http` and `crate::mcp` are the transports.

pub(crate) mod body;
pub mod cache;
pub(crate) mod changes;
pub(crate) mod compare;
pub(crate) mod cost;
pub(crate) mod estimate;
pub(crate) mod fields;
pub(crate) mod models;
pub(crate) mod openapi;
pub mod operations;
pub mod params;
pub mod respond;
pub mod state;
pub mod vocab;
pub(crate) mod webhooks;

pub use openapi::OPENAPI_JSON;
pub use state::{AppState, state};
