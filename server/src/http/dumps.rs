//! `GET /dumps/prices.csv`: every current price row as CSV, built by
//! `api.price_dump()` (sql/37_price_dump.sql), which states the columns.

use salvo::prelude::*;

use super::cache::{etag, send_cached};
use crate::error::ApiError;
use crate::service::params::Query;
use crate::service::respond::read;
use crate::service::state;

#[handler]
pub(super) async fn prices_csv(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let q = Query::parse(req.uri().query(), &[])?;
    let row = read(
        state(depot),
        "select publish, csv from api.price_dump()",
        &[],
        |row| row.try_get(0).ok(),
    )
    .await?;
    let publish: i64 = row.get(0);
    let csv: String = row.get(1);
    let tag = etag(publish, req.uri().path(), &q.normalized());
    let _ = res.add_header(
        "content-disposition",
        "inline; filename=\"prices.csv\"",
        true,
    );
    send_cached(
        req,
        res,
        &tag,
        "text/csv; charset=utf-8; header=present",
        csv.into_bytes(),
    );
    Ok(())
}
