//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 description of this service,
//! kept as a file beside the code (server/openapi.json) and served as is.
//! The integration tests validate every response they receive against it.

use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use salvo::prelude::*;

use super::params::Query;
use crate::error::ApiError;

/// The document, as served.
pub const OPENAPI_JSON: &str = include_str!("../../openapi.json");

#[handler]
pub(crate) async fn openapi(req: &mut Request, res: &mut Response) -> Result<(), ApiError> {
    Query::parse(req.uri().query(), &[])?;
    let _ = res.add_header(CONTENT_TYPE, "application/json", true);
    let _ = res.add_header(CACHE_CONTROL, "public, max-age=3600", true);
    let _ = res.write_body(OPENAPI_JSON.as_bytes().to_vec());
    Ok(())
}
