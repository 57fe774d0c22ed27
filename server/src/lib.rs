//! The Model Pricing Service: a read-only JSON API over published pricing data.
//!
//! The database does the heavy lifting (schema `api`, see `sql/`); this crate is
//! the thin layer around it: configuration, the embedded PostgreSQL cluster,
//! migrations, and the HTTP server.

pub mod access;
pub mod app;
pub mod cli;
pub mod error;
pub mod http;
pub mod mcp;
pub mod publish;
pub mod service;
pub mod store;
pub mod telemetry;

pub use app::App;
