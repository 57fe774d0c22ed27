//! `pricing sync` over excerpts of real source releases (tests/fixtures/sync,
//! cut by tools/dataset/maintenance/sync_fixtures.py): the fixture directories stand in for
//! the package registry, python3 runs the real build, the result is published
//! into a real PostgreSQL. No network.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pricing::publish::Guard;
use pricing::publish::snapshot::Checks;
use pricing::publish::sync::{self, Outcome};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::helpers::{
    AppOptions, Served, TestApp, TestDb, data_app_with, eventually, serve_command,
};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixtures() -> PathBuf {
    repo().join("tests/fixtures/sync")
}

/// A fresh work directory for one sync state, removed when dropped.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("pricing-sync-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("work dir");
        Self(dir)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn options(work: &WorkDir, releases: &Path) -> sync::Options {
    sync::Options {
        tools_dir: repo().join("tools/dataset"),
        work_dir: work.0.join("state"),
        releases: Some(releases.to_owned()),
        base: Some(fixtures().join("base.json")),
        timeout: Duration::from_secs(300),
        checks: Checks {
            max_move_factor: Decimal::from(20),
        },
        guard: Guard {
            max_drop_share: Decimal::new(1, 1),
            max_moved: 200,
        },
    }
}

/// Copies a directory's files and folders (the dataset tools, for a run with
/// a notice of the test's own).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if path.is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_dir(&path, &to.join(entry.file_name()));
            }
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy");
        }
    }
}

/// A releases directory in `work` holding litellm 1.109.1's fixture excerpt
/// as `alter` changes it (a release no registry has: the test's own).
fn altered_newer_litellm(work: &WorkDir, alter: impl FnOnce(&[u8]) -> Vec<u8>) -> PathBuf {
    let releases = work.0.join("altered");
    let release = releases.join("litellm/1.109.1");
    std::fs::create_dir_all(&release).expect("release dir");
    let good = fixtures().join("newer/litellm/1.109.1");
    let file = "model_prices_and_context_window_backup.json";
    let text = std::fs::read(good.join(file)).expect("fixture");
    std::fs::write(release.join(file), alter(&text)).expect("write");
    std::fs::copy(good.join("release.json"), release.join("release.json")).expect("copy");
    releases
}

/// A test database synced from the older releases, its work dir, and a
/// server over it with the response cache on.
async fn synced_from_older(name: &str) -> (TestDb, WorkDir, TestApp) {
    let db = TestDb::new().await;
    let work = WorkDir::new(name);
    let first = sync_from(&db, &work, &fixtures().join("older"))
        .await
        .expect("first sync");
    assert!(matches!(first, Outcome::Published { .. }), "{first:?}");
    let app = data_app_with(
        &db,
        AppOptions {
            response_cache: true,
            ..Default::default()
        },
    )
    .await;
    (db, work, app)
}

/// One `pricing sync` of `releases` with the state in `work`.
async fn sync_from(db: &TestDb, work: &WorkDir, releases: &Path) -> anyhow::Result<Outcome> {
    sync::run(
        &db.config,
        &options(work, releases),
        "test",
        sync::WhenBusy::Skip,
    )
    .await
}

async fn publishes(db: &TestDb) -> i64 {
    db.scalar_i64("select count(*) from pricing.publishes")
        .await
}

/// The events of the newest publish as (type, model, effective date), sorted.
async fn newest_events(db: &TestDb) -> Vec<(String, String, String)> {
    let rows = db
        .client()
        .await
        .query(
            "select event_type::text, model_id, effective_date::text from pricing.events
             where publish_id = (select max(id) from pricing.publishes)
             order by 1, 2, 3",
            &[],
        )
        .await
        .expect("events");
    rows.iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

fn event(kind: &str, model: &str, day: &str) -> (String, String, String) {
    (kind.to_owned(), model.to_owned(), day.to_owned())
}

async fn last_sync(db: &TestDb) -> (bool, String) {
    let row = db
        .client()
        .await
        .query_one(
            "select ok, message from pricing.sync_runs order by id desc limit 1",
            &[],
        )
        .await
        .expect("a sync run is recorded");
    (row.get(0), row.get(1))
}

#[tokio::test]
async fn a_sync_to_newer_releases_publishes_exactly_their_events_and_a_second_sync_nothing() {
    let (db, work, app) = synced_from_older("newer").await;
    let before = app.call("/api/v1/models/openai:gpt-4.1").await.expect(200);
    let etag = before.header("etag").expect("etag").to_owned();
    assert_eq!(before.json()["data"]["status"], "active");

    let second = sync_from(&db, &work, &fixtures().join("newer"))
        .await
        .expect("sync to the newer releases");
    let Outcome::Published { summary, .. } = &second else {
        panic!("the newer releases change the data: {second:?}");
    };
    // litellm 1.109.1 adds gpt-6-astra-law, launched (basis source_listed) on
    // 2026-11-11: the first litellm release listing it is 1.109.0 of that day,
    // which the sync does not read but the pinned bisection
    // (tools/dataset/bisected.json, field `listed`) names; and shutdown dates of gpt-4.1 (2027-01-14)
    // and Bedrock's Llama 3.1 70B (2027-03-30) that no provider page read
    // states: the lifecycle gate publishes no day for them and ends nothing
    // (no event; gpt-4.1 stays active, below: a status needs a provider's
    // statement). Titan Text Express' price move and Llama's
    // max output 2048 -> 4096, which litellm alone shows and no provider page
    // dates, are no events either.
    assert_eq!(
        newest_events(&db).await,
        vec![event(
            "model_launch",
            "openai:gpt-6-astra-law",
            "2026-11-11"
        )],
        "summary: {summary}"
    );
    // A client holding the old ETag gets the new body, with the new as_of.
    let after = app
        .call_with("/api/v1/models/openai:gpt-4.1", &[("if-none-match", &etag)])
        .await
        .expect(200);
    assert_ne!(after.header("etag"), Some(etag.as_str()));
    assert_eq!(after.json()["data"]["status"], "active");
    assert_ne!(after.json()["as_of"], before.json()["as_of"]);

    let count = publishes(&db).await;
    let third = sync_from(&db, &work, &fixtures().join("newer"))
        .await
        .expect("a sync with nothing new");
    assert!(matches!(third, Outcome::Unchanged { .. }), "{third:?}");
    assert_eq!(publishes(&db).await, count, "nothing is published");
    let (ok, message) = last_sync(&db).await;
    assert!(ok && message.starts_with("nothing changed"), "{message}");
}

#[tokio::test]
async fn a_corrupt_source_release_publishes_nothing_and_the_previous_publish_stays_served() {
    let (db, work, app) = synced_from_older("corrupt").await;
    let served = app.call("/api/v1/health").await.expect(200).json();
    // litellm 1.109.1's excerpt cut off halfway: not JSON any more.
    let releases = altered_newer_litellm(&work, |text| text[..text.len() / 2].to_vec());

    let count = publishes(&db).await;
    let outcome = sync_from(&db, &work, &releases)
        .await
        .expect("the sync runs on the releases it could read");
    let Outcome::Unchanged { sources_failed } = &outcome else {
        panic!("nothing new could be read: {outcome:?}");
    };
    assert_eq!(sources_failed, &["litellm".to_owned()]);
    assert_eq!(publishes(&db).await, count);
    assert_eq!(app.call("/api/v1/health").await.expect(200).json(), served);
    let healthz: Value = app.call("/healthz").await.expect(200).json();
    assert_eq!(healthz["last_sync"]["ok"], false, "{healthz}");
    let message = healthz["last_sync"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("litellm"), "{message}");
}

#[tokio::test]
async fn the_guard_rail_refuses_a_sync_that_would_drop_half_the_models() {
    let (db, work, app) = synced_from_older("guard").await;
    let served = app
        .call("/api/v1/models?limit=100")
        .await
        .expect(200)
        .json();
    // A bad lifecycle notice: a shutdown already past of three of the four
    // models priced, on the channels that sell them, which ends their series
    // (docs/snapshot-format.md 5.2); a source's shutdown date alone ends nothing.
    let tools = work.0.join("tools");
    copy_dir(&repo().join("tools/dataset"), &tools);
    let row = |model: &str, channel: &str| {
        serde_json::json!({"model": model, "announced": null, "shutdown": "2026-11-10",
                           "successor": null, "channels": [channel]})
    };
    let notice = serde_json::json!({"about": "a mistaken notice (test)", "notices": [{
        "id": "zz-guard-test", "provider": "openai", "url": "https://example.test/notice",
        "read": "2026-11-10", "says": "(test)", "deprecations": [
            row("openai:gpt-4o", "official"),
            row("meta:llama-3.1-70b-instruct", "aws_bedrock"),
            row("amazon:titan-text-express", "aws_bedrock")]}]});
    std::fs::write(tools.join("notices/zz-guard-test.json"), notice.to_string()).expect("notice");
    let mut guarded = options(&work, &fixtures().join("newer"));
    guarded.tools_dir = tools;

    let err = sync::run(&db.config, &guarded, "test", sync::WhenBusy::Skip)
        .await
        .expect_err("the guard rail refuses");
    let message = format!("{err:#}");
    assert!(
        message.contains("models with a price in effect would go from 4 to ")
            && message.contains("--max-drop-share"),
        "{message}"
    );
    assert_eq!(publishes(&db).await, 1, "nothing is published");
    assert_eq!(
        app.call("/api/v1/models?limit=100")
            .await
            .expect(200)
            .json(),
        served
    );
    let (ok, recorded) = last_sync(&db).await;
    assert!(!ok && recorded.contains("refused"), "{recorded}");
}

#[tokio::test]
async fn two_servers_syncing_on_one_database_run_one_sync_at_a_time() {
    let db = TestDb::new().await;
    let older = fixtures().join("older");
    let base = fixtures().join("base.json");
    let tools = repo().join("tools/dataset");
    let works = [WorkDir::new("serve-a"), WorkDir::new("serve-b")];
    // Published before the servers start (else they publish the bundled dataset).
    sync_from(&db, &works[0], &older).await.expect("first sync");
    let mut servers = Vec::new();
    for work in &works {
        let state = work.0.join("state");
        let args = [
            "--sync-every",
            "1s",
            "--tools-dir",
            tools.to_str().expect("utf-8"),
            "--work-dir",
            state.to_str().expect("utf-8"),
            "--releases",
            older.to_str().expect("utf-8"),
            "--base",
            base.to_str().expect("utf-8"),
        ];
        servers.push(Served::start(serve_command(&db.config, &args)).await);
    }
    // Runs are recorded while their run holds the lock: wait for several,
    // from both servers, then check that no two overlapped.
    let runs = eventually(
        "six sync runs, from both servers",
        Duration::from_secs(240),
        async || {
            let rows = db
            .client()
            .await
            .query(
                "select started_at, finished_at, runner from pricing.sync_runs order by started_at",
                &[],
            )
            .await
            .ok()?;
            let servers: std::collections::HashSet<String> = rows
                .iter()
                .map(|r| r.get::<_, String>(2))
                .filter(|runner| runner.starts_with("pricing serve"))
                .collect();
            (rows.len() >= 6 && servers.len() == 2).then_some(rows)
        },
    )
    .await;
    drop(servers);
    for pair in runs.windows(2) {
        let finished: time::OffsetDateTime = pair[0].get(1);
        let next_started: time::OffsetDateTime = pair[1].get(0);
        assert!(
            finished <= next_started,
            "a sync started at {next_started} while another ran until {finished}"
        );
    }
    // The first run published; the same releases again publish nothing.
    assert_eq!(publishes(&db).await, 1);
    let (ok, message) = last_sync(&db).await;
    assert!(ok && message.starts_with("nothing changed"), "{message}");
}
