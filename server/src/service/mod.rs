//! The operations of the service, whatever the transport.

pub(crate) mod body;
pub mod cache;
pub(crate) mod changes;
pub(crate) mod compare;
pub(crate) mod estimate;
pub(crate) mod models;
pub(crate) mod openapi;
pub mod params;
pub mod respond;
pub mod vocab;

pub use openapi::OPENAPI_JSON;
