//! The publishing pipeline on real snapshots: events of every type, an
//! idempotent re-publish, atomicity under a publish killed midway, rejection of
//! bad rows, and significance ordering.

use std::collections::BTreeSet;
use std::time::Duration;

use pricing::publish::snapshot::Snapshot;
use pricing::publish::{self, Options, PublishError};
use serde_json::Value;

use crate::helpers::{
    TestApp, TestDb, connect, eventually, fixture, fixture_bytes, publish_fixture,
};

/// One row of SQL expressions, evaluated in the database.
async fn select_row(db: &TestDb, expressions: &str) -> tokio_postgres::Row {
    db.client()
        .await
        .query_one(&format!("select {expressions}"), &[])
        .await
        .expect(expressions)
}

/// A digest of the whole published state, to prove nothing moved.
async fn state_digest(db: &TestDb) -> String {
    db.client()
        .await
        .query_one(
            "select md5(concat_ws('|',
                (select string_agg(concat_ws(',', id, as_of), ';' order by id) from pricing.publishes),
                (select string_agg(concat_ws(',', id, status, context_window, updated_at), ';' order by id) from pricing.models),
                (select string_agg(concat_ws(',', model_id, channel, component, tier, usd_per_1m, valid_from, valid_to), ';'
                        order by model_id, channel, component, tier, valid_from) from pricing.prices),
                (select string_agg(concat_ws(',', id, event_type, model_id), ';' order by id) from pricing.events),
                (select string_agg(alias, ';' order by alias) from pricing.aliases)))",
            &[],
        )
        .await
        .expect("digest")
        .get(0)
}

async fn event_types_of_last_publish(db: &TestDb) -> BTreeSet<String> {
    db.client()
        .await
        .query(
            "select distinct event_type::text from pricing.events
             where publish_id = (select max(id) from pricing.publishes)",
            &[],
        )
        .await
        .expect("event types")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

#[tokio::test]
async fn a_pair_of_real_snapshots_emits_events_of_every_type() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let report = publish_fixture(&db, "snapshot-b.json").await;
    let types = event_types_of_last_publish(&db).await;
    let all: BTreeSet<String> = [
        "model_launch",
        "price_change",
        "price_change_scheduled",
        "deprecation",
        "retirement",
        "limit_change",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(types, all, "summary: {}", report.summary);

    // A scheduled change is dated after the publish; a price change carries both prices.
    let client = db.client().await;
    let scheduled_late: bool = client
        .query_one(
            "select bool_and(e.effective_date > (p.as_of at time zone 'UTC')::date)
             from pricing.events e join pricing.publishes p on p.id = e.publish_id
             where e.event_type = 'price_change_scheduled'",
            &[],
        )
        .await
        .expect("scheduled")
        .get(0);
    assert!(scheduled_late);
    let incomplete = db
        .scalar_i64(
            "select count(*) from pricing.events where event_type = 'price_change'
         and (old_value is null or new_value is null or old_value = new_value or channel is null)",
        )
        .await;
    assert_eq!(incomplete, 0);
}

#[tokio::test]
async fn republishing_the_same_snapshot_emits_nothing() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let events = db.scalar_i64("select count(*) from pricing.events").await;
    assert!(events > 0, "the first publish emits events");

    let snapshot = fixture("snapshot-a.json");
    let later = snapshot.generated_at + Duration::from_secs(3600);
    let mut client = db.client().await;
    let report = publish::publish(
        &mut client,
        &snapshot,
        Options {
            at: Some(later),
            ..Options::default()
        },
    )
    .await
    .expect("republish");
    assert_eq!(report.summary["events"], serde_json::json!({}));
    assert_eq!(report.summary["price_rows_inserted"], 0);
    assert_eq!(report.summary["price_rows_deleted"], 0);
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.events").await,
        events
    );
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.publishes")
            .await,
        2,
        "as_of still moves"
    );
}

#[tokio::test]
async fn a_publish_cannot_go_back_in_time() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-b.json").await;
    let snapshot = fixture("snapshot-a.json");
    let mut client = db.client().await;
    let err = publish::publish(
        &mut client,
        &snapshot,
        Options {
            at: Some(snapshot.generated_at),
            ..Options::default()
        },
    )
    .await
    .expect_err("older than the last publish");
    assert!(
        format!("{err:#}").contains("not after the last publish"),
        "{err:#}"
    );
}

#[tokio::test]
async fn a_publish_killed_midway_leaves_the_previous_publish_served() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = TestApp::spawn(&db.config).await;
    let before: Value = app.get("/api/v1/health").await.json().await.expect("json");
    let digest = state_digest(&db).await;

    // Hold a lock the publish needs late (after models and prices are written).
    let mut blocker = db.client().await;
    let tx = blocker.transaction().await.expect("begin");
    tx.batch_execute("lock table pricing.benchmarks in access exclusive mode")
        .await
        .expect("lock");

    let mut config = db.config.clone();
    config.application_name("publish-under-test");
    let publishing = tokio::spawn(async move {
        let snapshot = fixture("snapshot-b.json");
        let mut client = connect(&config).await;
        publish::publish(
            &mut client,
            &snapshot,
            Options {
                at: Some(snapshot.generated_at),
                ..Options::default()
            },
        )
        .await
    });

    // Wait until the publish is stuck on the lock, midway, then kill its backend.
    eventually(
        "the publish reaches the lock and is terminated there",
        Duration::from_secs(10),
        async || {
            let killed = db
                .scalar_i64(
                    "select count(pg_terminate_backend(pid)) from pg_stat_activity
                     where application_name = 'publish-under-test' and wait_event_type = 'Lock'",
                )
                .await;
            (killed > 0).then_some(())
        },
    )
    .await;
    let outcome = publishing.await.expect("task");
    assert!(
        matches!(outcome, Err(PublishError::Failed(_))),
        "{outcome:?}"
    );
    tx.rollback().await.expect("release");

    assert_eq!(
        state_digest(&db).await,
        digest,
        "nothing of the killed publish remains"
    );
    let after: Value = app.get("/api/v1/health").await.json().await.expect("json");
    assert_eq!(
        after["as_of"], before["as_of"],
        "the previous publish is still served"
    );

    // And the pipeline recovers: the same publish goes through afterwards.
    publish_fixture(&db, "snapshot-b.json").await;
    assert_ne!(state_digest(&db).await, digest);
}

/// Fixture A with bad rows planted: a negative price, a missing price, an
/// unknown channel, an unknown component, and a hundredfold jump.
fn corrupted() -> (Snapshot, Vec<&'static str>) {
    let mut doc: Value = serde_json::from_slice(&fixture_bytes("snapshot-a.json")).expect("json");
    let prices = doc["prices"].as_array_mut().expect("prices");
    assert!(prices.len() >= 5, "the fixture has enough series");
    prices[0]["history"][0]["price"] = Value::from("-1.5");
    prices[1]["history"][0]
        .as_object_mut()
        .expect("step")
        .remove("price");
    prices[2]["channel"] = Value::from("myspace");
    prices[3]["component"] = Value::from("reasoning");
    let first = prices[4]["history"][0]["price"]
        .as_str()
        .expect("price")
        .parse::<f64>()
        .expect("num");
    let jump = if first > 0.0 { first * 100.0 } else { 100.0 };
    let from = prices[4]["history"][0]["from"]
        .as_str()
        .expect("from")
        .to_owned();
    let next = time::Date::parse(&from, &time::format_description::well_known::Iso8601::DATE)
        .expect("date")
        .next_day()
        .expect("day");
    let steps = prices[4]["history"].as_array_mut().expect("history");
    if steps.len() == 1 || steps[1]["from"].as_str() != Some(&next.to_string()) {
        steps.insert(
            1,
            serde_json::json!({"from": next.to_string(), "price": format!("{jump}")}),
        );
    }
    let reasons = vec![
        "negative price",
        "missing price",
        "unknown channel",
        "unknown component",
        "limit",
    ];
    let snapshot = Snapshot::from_bytes(&serde_json::to_vec(&doc).expect("json")).expect("parses");
    (snapshot, reasons)
}

#[tokio::test]
async fn a_snapshot_with_bad_rows_is_rejected_with_the_rows_named() {
    let db = TestDb::new().await;
    let (snapshot, reasons) = corrupted();
    let mut client = db.client().await;
    let err = publish::publish(&mut client, &snapshot, Options::default())
        .await
        .expect_err("bad rows reject the snapshot");
    let PublishError::Rejected(rows) = &err else {
        panic!("{err:#}")
    };
    for reason in &reasons {
        assert!(
            rows.iter().any(|r| r.reason.contains(reason)),
            "no bad row for `{reason}`: {rows:?}"
        );
    }
    assert!(
        rows.iter().all(|r| r.row.starts_with("prices: ")),
        "{rows:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("--skip-bad-rows"),
        "says how to go on: {message}"
    );
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.publishes")
            .await,
        0,
        "nothing published"
    );

    // Asked explicitly, it publishes without them: no negative, no $0 stand-in.
    let report = publish::publish(
        &mut client,
        &snapshot,
        Options {
            skip_bad_rows: true,
            ..Options::default()
        },
    )
    .await
    .expect("publish without the bad rows");
    assert_eq!(report.skipped.len(), rows.len());
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.prices where usd_per_1m < 0")
            .await,
        0
    );
    let total_steps: usize = serde_json::from_slice::<Value>(&fixture_bytes("snapshot-a.json"))
        .expect("json")["prices"]
        .as_array()
        .expect("prices")
        .iter()
        .map(|s| {
            s["history"]
                .as_array()
                .map_or(0, |h| h.iter().filter(|st| !st["price"].is_null()).count())
        })
        .sum();
    let stored = db.scalar_i64("select count(*) from pricing.prices").await;
    assert!(
        usize::try_from(stored).expect("count") < total_steps,
        "the bad series are left out"
    );
}

#[tokio::test]
async fn significance_weighs_size_direction_channel_prominence_and_corroboration() {
    let db = TestDb::new().await;
    // The last five: o3's real June 2025 cut, 10 -> 2 USD per 1M input
    // tokens, on a model of prominence 0.5: magnitude 1 (more than a halving),
    // so 100 x (0.55 + 0.35 x 0.5) = 72.5 before the weights
    // (docs/publishing.md).
    let row = select_row(
        &db,
        "publish.price_significance(10, 5, 'official', 'input', 'standard', null, 1.0, 2),
         publish.price_significance(1.00, 1.01, 'novita', 'input', 'standard', null, 0.0, 1),
         publish.price_significance(10, 20, 'official', 'input', 'standard', null, 0.5, 2),
         publish.price_significance(10, 5, 'official', 'input', 'standard', null, 0.5, 2),
         publish.price_significance(10, 2, 'official', 'input', 'standard', null, 0.5, 2),
         publish.price_significance(10, 2, 'openrouter', 'input', 'standard', null, 0.5, 1),
         publish.price_significance(10, 2, 'official', 'input', 'standard', null, 0.5, 1),
         publish.price_significance(10, 2, 'official', 'input', 'standard', null, 0.5, 3),
         publish.price_significance(10, 2, 'official', 'input', 'standard', null, 0.5, null),
         publish.corroboration('[\"genai-prices 0.2.3\", \"litellm 1.73.6\", \"litellm 1.74.12\"]', '[]'),
         publish.corroboration(null, '[]'),
         publish.corroboration('[\"litellm 1.73.6\", \"llmledger 0.2.0\"]',
                               '[{\"id\": \"litellm\"}, {\"id\": \"llmledger\", \"derived_from\": \"litellm\"}]'),
         publish.corroboration('[\"litellm 1.73.6\", \"llmledger 0.2.0\"]', '[{\"id\": \"llmledger\"}]'),
         publish.price_significance(10, 2, 'official', 'input', 'standard',
                                    '{\"above_input_tokens\": 200000}', 0.5, 2),
         publish.price_significance(10, 2, 'official', 'cache_write', 'standard',
                                    '{\"cache_ttl\": \"5m\"}', 0.5, 2)",
    )
    .await;
    let (flagship_cut, obscure_tick): (i16, i16) = (row.get(0), row.get(1));
    assert!(
        flagship_cut > obscure_tick + 50,
        "{flagship_cut} vs {obscure_tick}"
    );
    assert!((0..=100).contains(&flagship_cut) && (0..=100).contains(&obscure_tick));
    let (rise, cut): (i16, i16) = (row.get(2), row.get(3));
    assert!(
        rise > cut,
        "a price rise weighs more than a cut of the same size"
    );
    let o3: Vec<i16> = (4..9).map(|i| row.get(i)).collect();
    // 72.5 x 0.9 (two sources); 72.5 x 0.8 (reseller) x 0.7 (one source);
    // 72.5 x 0.7; 72.5 x 1 (three sources); unknown sources weigh as one.
    assert_eq!(o3, vec![65, 41, 51, 73, 51]);
    let (three_releases_two_sources, unknown): (Option<i32>, Option<i32>) =
        (row.get(9), row.get(10));
    assert_eq!(three_releases_two_sources, Some(2), "distinct source ids");
    assert_eq!(unknown, None);
    // A dated history of litellm's file is litellm again, where the snapshot
    // says so; without that it is a source of its own.
    let (derived, independent): (Option<i32>, Option<i32>) = (row.get(11), row.get(12));
    assert_eq!(derived, Some(1), "llmledger derives from litellm");
    assert_eq!(independent, Some(2));
    // A conditional rate's move weighs 0.6 of the same move of a standard
    // rate: 72.5 x 0.9 x 0.6; a cache write 0.7 more, like a cache read.
    let (tier_move, write_move): (i16, i16) = (row.get(13), row.get(14));
    assert_eq!((tier_move, write_move), (39, 27));

    // On real data: every event is scored 0-100.
    publish_fixture(&db, "snapshot-a.json").await;
    publish_fixture(&db, "snapshot-b.json").await;
    let out_of_range = db
        .scalar_i64("select count(*) from pricing.events where significance not between 0 and 100")
        .await;
    assert_eq!(out_of_range, 0);
}

#[tokio::test]
async fn a_model_id_outside_the_grammar_is_a_bad_row_and_a_model_left_out_is_withdrawn() {
    let db = TestDb::new().await;
    let mut doc: Value = serde_json::from_slice(&fixture_bytes("snapshot-a.json")).expect("json");
    let mut bad = doc["models"][0].clone();
    let provider = bad["provider"].as_str().expect("provider").to_owned();
    bad["id"] = Value::from(format!("{provider}:x'); drop--"));
    bad["aliases"] = Value::Array(Vec::new());
    doc["models"].as_array_mut().expect("models").push(bad);
    let snapshot = Snapshot::from_bytes(&serde_json::to_vec(&doc).expect("json")).expect("parses");
    let mut client = db.client().await;
    let err = publish::publish(&mut client, &snapshot, Options::default())
        .await
        .expect_err("a malformed id rejects the snapshot");
    let PublishError::Rejected(rows) = &err else {
        panic!("{err:#}")
    };
    assert!(
        rows.iter()
            .any(|r| r.row.contains("drop--") && r.reason.contains("model slug")),
        "{rows:?}"
    );

    // A model a later snapshot no longer names is withdrawn, not kept active.
    let full = fixture("snapshot-a.json");
    publish::publish(&mut client, &full, Options::default())
        .await
        .expect("publish A");
    let gone = doc["models"][1]["id"].as_str().expect("id").to_owned();
    let mut fewer: Value = serde_json::from_slice(&fixture_bytes("snapshot-a.json")).expect("json");
    fewer["models"]
        .as_array_mut()
        .expect("models")
        .retain(|m| m["id"] != gone.as_str());
    fewer["prices"]
        .as_array_mut()
        .expect("prices")
        .retain(|p| p["model"] != gone.as_str());
    for list in ["conditional_prices", "benchmarks"] {
        if let Some(rows) = fewer.get_mut(list).and_then(Value::as_array_mut) {
            rows.retain(|r| r["model"] != gone.as_str());
        }
    }
    for m in fewer["models"].as_array_mut().expect("models") {
        if m["successor"] == gone.as_str() {
            m["successor"] = Value::Null;
        }
    }
    let fewer = Snapshot::from_bytes(&serde_json::to_vec(&fewer).expect("json"))
        .unwrap_or_else(|e| panic!("the snapshot without {gone}: {e:#}"));
    let report = publish::publish(&mut client, &fewer, Options::default())
        .await
        .expect("publish without one model");
    assert_eq!(report.summary["models_withdrawn"], 1, "{}", report.summary);
    let left = db
        .scalar_i64(&format!(
            "select count(*) from pricing.models where id = '{}'",
            gone.replace('\'', "''")
        ))
        .await;
    assert_eq!(left, 0, "{gone} is withdrawn");
}

#[tokio::test]
async fn two_publishes_at_once_both_land_each_timed_under_the_lock() {
    let db = TestDb::new().await;
    let a = std::sync::Arc::new(fixture("snapshot-a.json"));
    let b = std::sync::Arc::new(fixture("snapshot-b.json"));
    for _ in 0..4 {
        let runs = [a.clone(), b.clone()].map(|snapshot| {
            let config = db.config.clone();
            tokio::spawn(async move {
                let mut client = connect(&config).await;
                publish::publish(&mut client, &snapshot, Options::default())
                    .await
                    .map(|r| r.as_of)
                    .map_err(|e| format!("{e:#}"))
            })
        });
        let mut times = Vec::new();
        for run in runs {
            times.push(run.await.expect("task").expect("both publishes land"));
        }
        assert_ne!(times[0], times[1]);
    }
    assert_eq!(
        db.scalar_i64("select count(*) from pricing.publishes")
            .await,
        8
    );
}
