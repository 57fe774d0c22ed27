//! Reading a request body within bounds of size and time, for every route
//! that takes one (`POST /api/v1/estimate`, `/mcp`): a client that stalls
//! or trickles its body is answered 408 and the connection closed after
//! [`BODY_TIMEOUT`], and a body that breaks off or is malformed gets its own
//! message instead of being taken for one that is too large.

use std::error::Error;
use std::io;
use std::time::Duration;

use bytes::Bytes;
use salvo::http::ParseError;
use salvo::http::header::CONTENT_LENGTH;
use salvo::prelude::Request;

use crate::error::{ApiError, ErrorCode};

/// How long a client may take to send a whole request body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);

/// The body of `req`, at most `max` bytes, arrived within [`BODY_TIMEOUT`]. A
/// `Content-Length` above `max` is refused at once, before any byte is read.
pub async fn read(req: &mut Request, max: usize) -> Result<Bytes, ApiError> {
    let too_large = || {
        ApiError::invalid(
            "body",
            format!("the body is larger than {max} bytes"),
            &format!("a JSON object of at most {max} bytes"),
        )
    };
    let announced = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(BODY_TIMEOUT, req.payload_with_max_size(max)).await {
        Ok(Ok(bytes)) => Ok(bytes.clone()),
        Ok(Err(ParseError::PayloadTooLarge)) => Err(too_large()),
        Ok(Err(err)) if is_malformed(&err) => Err(ApiError::invalid(
            "body",
            "the body is malformed: its chunked transfer encoding could not be read",
            "a body sent with a Content-Length, or in well-formed chunks",
        )),
        Ok(Err(_)) => Err(ApiError::invalid(
            "body",
            "the body ended before it was complete (the client stopped sending it)",
            "a whole body: as many bytes as Content-Length says",
        )),
        Err(_) => Err(ApiError::new(
            ErrorCode::RequestTimeout,
            format!(
                "the body did not arrive within {} seconds",
                BODY_TIMEOUT.as_secs()
            ),
            "send the whole body at once, right after the headers",
        )),
    }
}

/// Whether reading failed on bytes that are not valid framing (a bad chunk
/// size line), rather than on a connection that closed early.
fn is_malformed(err: &ParseError) -> bool {
    let ParseError::Other(err) = err else {
        return false;
    };
    let mut next: Option<&(dyn Error + 'static)> = Some(err.as_ref());
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            if matches!(
                io.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData
            ) {
                return true;
            }
            if let Some(inner) = io.get_ref() {
                next = Some(inner);
                continue;
            }
        }
        next = e.source();
    }
    false
}
