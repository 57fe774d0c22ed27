//! The Model Pricing Service: a read-only JSON API over published pricing data.
//!
//! The database does the heavy lifting (schema `api`, see `sql/`); this crate is
//! the thin layer around it: configuration, the embedded PostgreSQL cluster,
//! migrations, and the HTTP server.

pub mod access;
pub mod cli;
pub mod cluster;
pub mod db;
pub mod error;
pub mod http;
pub mod keys;
pub mod mcp;
pub mod net;
pub mod publish;
pub mod quota;
pub mod reads;
pub mod snapshot;
pub mod telemetry;

pub use http::App;
