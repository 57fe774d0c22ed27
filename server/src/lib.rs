//! The Model Pricing Service: a read-only JSON API over published pricing data.
//!
//! The database does the heavy lifting (schema `api`, see `sql/`); this crate is
//! the thin layer around it. A request goes through `app` (the one service) to
//! a transport, `http` (REST) or `mcp`, which runs an operation of `service`,
//! which calls one `api` function through `store`; `access` decides who is
//! calling and whether they may. A snapshot goes through `publish` into the
//! database (`publish::sync` builds one from the sources' newest releases, and
//! the bundled dataset fills an empty database at start); `webhooks`
//! sends the events of each publish to the subscriptions of key holders. `cli`
//! is the command on top.

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
pub mod webhooks;

pub use app::App;
