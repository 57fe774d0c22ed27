//! Migrations and the `api` schema: idempotent, safe to run concurrently, and
//! the web role reaches schema `api` and nothing else.

use crate::helpers::{TestDb, futures_join};

#[tokio::test]
async fn migrate_is_idempotent_and_skips_an_unchanged_api_schema() {
    let db = TestDb::new().await;
    let mut client = db.client().await;
    let report = pricing::store::db::migrate(&mut client)
        .await
        .expect("migrate");
    assert_eq!(report.migrations_applied, 0);
    assert!(
        !report.api_rebuilt,
        "sql/ is unchanged since the template was built"
    );
}

#[tokio::test]
async fn concurrent_migrations_on_a_new_database_do_not_collide() {
    let db = TestDb::new().await;
    let client = db.client().await;
    client
        .batch_execute("drop schema api cascade; drop schema publish cascade; delete from pricing.api_schema_state")
        .await
        .expect("reset api");
    let runs = (0..4).map(|_| {
        let config = db.config.clone();
        tokio::spawn(async move {
            let mut client = pricing::store::db::connect(&config).await.expect("connect");
            pricing::store::db::migrate(&mut client)
                .await
                .expect("migrate")
        })
    });
    let reports: Vec<_> = futures_join(runs).await;
    let rebuilt = reports.iter().filter(|r| r.api_rebuilt).count();
    assert_eq!(
        rebuilt, 1,
        "exactly one run re-creates schema api: {reports:?}"
    );
}

#[tokio::test]
async fn the_web_role_reaches_schema_api_only() {
    let db = TestDb::new().await;
    let mut config = db.config.clone();
    config.options("-c role=pricing_web");
    let web = crate::helpers::connect(&config).await;
    web.query_one("select as_of from api.health()", &[])
        .await
        .expect("api.health() is callable");
    let denied = web
        .query("select id from pricing.publishes", &[])
        .await
        .expect_err("tables are out of reach");
    assert_eq!(
        denied.code(),
        Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE)
    );
    let denied = web
        .batch_execute("insert into pricing.providers (slug, name) values ('x', 'X')")
        .await
        .expect_err("writes are out of reach");
    assert_eq!(
        denied.code(),
        Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE)
    );
}
