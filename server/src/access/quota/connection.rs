//! The accounting's one way to the database: a statement on a control
//! connection, bounded twice, so that an unreachable database lets requests
//! through uncounted instead of holding them.

use std::time::Duration;

use deadpool_postgres::Pool;

/// How long a call of the accounting waits for a database connection before
/// its requests are let through uncounted (the database is unreachable).
pub const ACCOUNTING_TIMEOUT: Duration = Duration::from_millis(1500);
/// How long a call sent on a connection is waited for: beyond the control
/// pool's statement timeout (server/src/store/db.rs), so that the database's own
/// bound ends a slow statement, and only a connection that stopped answering
/// altogether is given up on here.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(6);
/// One statement of the accounting on a control connection: the connection
/// within [`ACCOUNTING_TIMEOUT`], then the answer within [`ANSWER_TIMEOUT`].
/// The reason for the log when either fails.
pub(super) async fn on_connection<T, F>(
    pool: &Pool,
    work: impl FnOnce(deadpool_postgres::Object) -> F,
) -> Result<T, String>
where
    F: std::future::Future<Output = anyhow::Result<T>>,
{
    let client = match tokio::time::timeout(ACCOUNTING_TIMEOUT, pool.get()).await {
        Ok(Ok(client)) => client,
        Ok(Err(err)) => return Err(format!("no database connection: {err}")),
        Err(_) => {
            return Err(format!(
                "no database connection within {ACCOUNTING_TIMEOUT:?}"
            ));
        }
    };
    match tokio::time::timeout(ANSWER_TIMEOUT, work(client)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(format!("{err:#}")),
        Err(_) => Err(format!("no answer within {ANSWER_TIMEOUT:?}")),
    }
}
