//! The SQL building blocks of the API, called directly, each test inside a
//! transaction that is rolled back: cursor signing, the reference-channel
//! rule, the listing refresh, and the web role's reach.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use crate::helpers::{TestDb, connect, publish_fixture};

/// A database with both fixtures published, for the functions that read them.
async fn published() -> TestDb {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    publish_fixture(&db, "snapshot-b.json").await;
    db
}

#[tokio::test]
async fn a_cursor_whose_key_was_edited_fails_its_signature() {
    let db = TestDb::new().await;
    let mut client = db.client().await;
    let mut tx = client.transaction().await.expect("begin");
    let filters = json!({"sort": "price_input_asc", "status": "all"});
    let cursor: String = tx
        .query_one(
            "select api._cursor_make('models', 7, $1::jsonb, '[\"2.5\", \"openai:o3\"]'::jsonb)",
            &[&filters],
        )
        .await
        .expect("make")
        .get(0);
    let key: Value = tx
        .query_one(
            "select api._cursor_read('models', 7, $1::jsonb, $2)",
            &[&filters, &cursor],
        )
        .await
        .expect("read back")
        .get(0);
    assert_eq!(key, json!(["2.5", "openai:o3"]));

    // Well-formed, same filters, same publish, but another starting key.
    let mut doc: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&cursor).expect("base64url"))
            .expect("cursor JSON");
    doc["k"] = json!(["0", "a:a"]);
    let forged = URL_SAFE_NO_PAD.encode(doc.to_string());
    let attempts = [
        ("models", 7_i64, filters.clone(), forged),
        ("changes", 7, filters.clone(), cursor.clone()),
        ("models", 8, filters.clone(), cursor.clone()),
        (
            "models",
            7,
            json!({"sort": "context_desc", "status": "all"}),
            cursor.clone(),
        ),
    ];
    for (endpoint, publish, other, given) in attempts {
        // Each failure aborts its savepoint only.
        let sp = tx.savepoint("attempt").await.expect("savepoint");
        let err = sp
            .query_one(
                "select api._cursor_read($1, $2, $3::jsonb, $4)",
                &[&endpoint, &publish, &other, &given],
            )
            .await
            .expect_err("signed, and bound to endpoint, publish and filters");
        assert_eq!(
            err.as_db_error().expect("db error").code().code(),
            "PRCUR",
            "{endpoint} {publish} {other}"
        );
        sp.rollback().await.expect("rollback to savepoint");
    }
    tx.rollback().await.expect("rollback");
}

#[tokio::test]
async fn the_reference_channel_is_official_else_the_cheapest_blended() {
    let db = published().await;
    let mut client = db.client().await;
    let tx = client.transaction().await.expect("begin");
    let reference = |rows: Vec<tokio_postgres::Row>| -> Vec<(String, String)> {
        rows.iter().map(|r| (r.get(0), r.get(1))).collect()
    };
    let rows = tx
        .query(
            "select c.model_id, c.channel::text
             from api._channel_prices('2026-11-12', array['openai:o3', 'meta:llama-3.1-70b-instruct', 'sao10k:l3-8b-lunaris']) c
             where c.reference_rank = 1 order by 1",
            &[],
        )
        .await
        .expect("reference channels");
    // The cheapest blended channel of Llama, computed independently.
    let cheapest: String = tx
        .query_one(
            "select channel::text from (
                 select channel,
                        (3 * max(usd_per_1m) filter (where component = 'input')
                         + max(usd_per_1m) filter (where component = 'output')) / 4 as blended
                 from pricing.prices
                 where model_id = 'meta:llama-3.1-70b-instruct' and tier = 'standard'
                   and valid_from <= '2026-11-12' and (valid_to is null or valid_to > '2026-11-12')
                 group by channel) c
             where blended is not null order by blended, channel limit 1",
            &[],
        )
        .await
        .expect("cheapest")
        .get(0);
    assert_eq!(
        reference(rows),
        [
            ("meta:llama-3.1-70b-instruct".to_owned(), cheapest),
            ("openai:o3".to_owned(), "official".to_owned()),
            ("sao10k:l3-8b-lunaris".to_owned(), "novita".to_owned()),
        ]
    );
    tx.rollback().await.expect("rollback");
}

#[tokio::test]
async fn the_listing_has_a_reference_row_per_model_and_a_row_per_priced_channel() {
    let db = published().await;
    let mut client = db.client().await;
    let tx = client.transaction().await.expect("begin");
    let written: i64 = tx
        .query_one(
            "select publish.refresh_listing(max(id)) from pricing.publishes",
            &[],
        )
        .await
        .expect("refresh")
        .get(0);
    let expected: i64 = tx
        .query_one(
            "select (select count(*) from pricing.models)
                  + (select count(distinct (model_id, channel)) from pricing.prices, api._served() s
                     where tier = 'standard' and valid_from <= s.day and (valid_to is null or valid_to > s.day))",
            &[],
        )
        .await
        .expect("expected")
        .get(0);
    assert_eq!(written, expected);
    let items: i64 = tx
        .query_one("select count(*) from pricing.model_listing_item", &[])
        .await
        .expect("items")
        .get(0);
    assert_eq!(items, written, "an item for every listing row");
    tx.rollback().await.expect("rollback");
}

#[tokio::test]
async fn the_web_role_calls_api_functions_but_not_their_helpers() {
    let db = published().await;
    let mut config = db.config.clone();
    config.options("-c role=pricing_web");
    let web = connect(&config).await;
    web.query_one(
        "select api.list_models(null, null, null, null, null, null, null, null, 1, null, null, null)",
        &[],
    )
    .await
    .expect("a public api function");
    for helper in [
        "select api._cursor_make('models', 1, '{}', '[]')",
        "select api._resolve_model('openai:o3')",
        "select count(*) from api._channel_prices(current_date, array['openai:o3'])",
    ] {
        let err = web.query_one(helper, &[]).await.expect_err(helper);
        assert_eq!(
            err.code(),
            Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{helper}"
        );
    }
    // sql/99_grants.sql gives every entry point its owner's rights and a
    // pinned search_path; one that lacked them would fail for the web role
    // or resolve names through the caller's path.
    let loose: Vec<String> = db
        .client()
        .await
        .query(
            "select p.proname::text from pg_proc as p
             where p.pronamespace = 'api'::regnamespace and p.proname not like '\\_%'
               and not (p.prosecdef and 'search_path=pricing, pg_temp' = any(p.proconfig))",
            &[],
        )
        .await
        .expect("entry points")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(
        loose.is_empty(),
        "entry points without security definer and search_path: {loose:?}"
    );
}

#[tokio::test]
async fn the_parameter_enums_name_exactly_the_labels_of_the_database_enums() {
    use pricing::service::vocab;
    let db = TestDb::new().await;
    let client = db.client().await;
    for (db_type, listed, with_all) in [
        ("pricing.channel", vocab::CHANNELS, false),
        ("pricing.modality", vocab::MODALITIES, false),
        ("pricing.lifecycle", vocab::STATUSES, true),
        ("pricing.component", vocab::COMPONENTS, true),
        ("pricing.event_type", vocab::EVENT_TYPES, true),
    ] {
        let labels: Vec<String> = client
            .query_one(&format!("select enum_range(null::{db_type})::text[]"), &[])
            .await
            .expect(db_type)
            .get(0);
        let mut expected: Vec<&str> = labels.iter().map(String::as_str).collect();
        if with_all {
            expected.push("all");
        }
        assert_eq!(listed, expected, "{db_type}");
    }
}
