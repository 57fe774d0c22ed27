//! `pricing sync` (and `pricing serve --sync-every`): the sources' newest
//! releases become one publish, or nothing (docs/publishing.md, "Sync").
//!
//! The dataset side is Python (tools/dataset/sync.py: find, fetch and read the
//! new releases, run the build); this module runs it as a child process with a
//! time bound, then publishes what it wrote through [`crate::publish`] with the
//! guard rails, under a session lock so that one sync runs at a time across
//! every process on the database. Each run that took the lock is recorded in
//! `pricing.sync_runs` (GET /healthz shows the newest). The lock and the
//! record are functions of schema `publish` (sql/52_sync.sql); the served
//! publish is the one `api._served` names (sql/10_served.sql).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context as _;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use tokio_postgres::{Client, Config};

use crate::publish::snapshot::{Checks, Snapshot};
use crate::publish::{self, Guard, PublishError};
use crate::store::db;

/// How to sync.
#[derive(Debug, Clone)]
pub struct Options {
    /// The directory holding sync.py (tools/dataset).
    pub tools_dir: PathBuf,
    /// The sync's own state: its release list, download cache, last snapshot.
    pub work_dir: PathBuf,
    /// A directory of release files read instead of the package registry.
    pub releases: Option<PathBuf>,
    /// The release list a first sync starts from (default: the pinned one).
    pub base: Option<PathBuf>,
    /// How long the dataset step may take before it is stopped.
    pub timeout: Duration,
    /// The publish's row checks.
    pub checks: Checks,
    /// What the publish may drop or move.
    pub guard: Guard,
}

/// What a sync did.
#[derive(Debug)]
pub enum Outcome {
    /// A new publish; `sources_failed` names sources whose newest release
    /// could not be read (their previous releases were used).
    Published {
        as_of: OffsetDateTime,
        summary: serde_json::Value,
        sources_failed: Vec<String>,
    },
    /// The build gave the snapshot already published: nothing was published.
    Unchanged { sources_failed: Vec<String> },
    /// Another process holds the sync lock: this run did nothing.
    Busy,
}

impl Outcome {
    /// One line for the run's record and the log.
    pub fn message(&self) -> String {
        let failed = |f: &[String]| {
            if f.is_empty() {
                String::new()
            } else {
                format!(
                    "; newest release not read (previous releases kept) for: {}",
                    f.join(", ")
                )
            }
        };
        match self {
            Outcome::Published {
                as_of,
                summary,
                sources_failed,
            } => format!(
                "published as of {}; events {}{}",
                as_of.format(&Rfc3339).unwrap_or_default(),
                summary.get("events").cloned().unwrap_or_default(),
                failed(sources_failed)
            ),
            Outcome::Unchanged { sources_failed } => format!(
                "nothing changed: the build equals the served publish, nothing published{}",
                failed(sources_failed)
            ),
            Outcome::Busy => "another sync is running on this database; skipped".to_owned(),
        }
    }

    fn ok(&self) -> bool {
        match self {
            Outcome::Published { sources_failed, .. } | Outcome::Unchanged { sources_failed } => {
                sources_failed.is_empty()
            }
            Outcome::Busy => true,
        }
    }

    fn published(&self) -> Option<OffsetDateTime> {
        match self {
            Outcome::Published { as_of, .. } => Some(*as_of),
            _ => None,
        }
    }
}

/// Whether a sync finding another one running waits for it or does nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenBusy {
    /// Return [`Outcome::Busy`] at once (`pricing sync`).
    Skip,
    /// Wait for the lock, then run (`serve --sync-every`: every server gets
    /// its turn, none is starved by another's schedule).
    Wait,
}

/// Runs one sync against the (migrated) database of `config`; `runner` names
/// this process in the run's record. An error means nothing was published.
pub async fn run(
    config: &Config,
    options: &Options,
    runner: &str,
    when_busy: WhenBusy,
) -> anyhow::Result<Outcome> {
    let mut client = db::connect(config).await?;
    let locked: bool = client
        .query_one(
            "select publish.sync_lock($1)",
            &[&(when_busy == WhenBusy::Wait)],
        )
        .await?
        .get(0);
    if !locked {
        return Ok(Outcome::Busy);
    }
    let started = OffsetDateTime::now_utc();
    let result = run_locked(&mut client, options).await;
    let (ok, message, published) = match &result {
        Ok(outcome) => (outcome.ok(), outcome.message(), outcome.published()),
        Err(err) => (false, format!("{err:#}"), None),
    };
    let recorded = client
        .execute(
            "select publish.record_sync($1, $2, $3, $4, $5)",
            &[&started, &ok, &message, &published, &runner],
        )
        .await
        .context("recording the sync run");
    // Unlock after the record, so no other run starts before it is written; a
    // lost connection releases the lock anyway.
    let _ = client.execute("select publish.sync_unlock()", &[]).await;
    recorded?;
    result
}

async fn run_locked(client: &mut Client, options: &Options) -> anyhow::Result<Outcome> {
    build(options).await?;
    let snapshot = Snapshot::read(&options.work_dir.join("snapshot.json.gz"))?;
    let sources_failed = failed_sources(&options.work_dir.join("sync.json"))?;
    let served = db::served(client).await?;
    if served.and_then(|s| s.snapshot_sha256).as_deref() == Some(snapshot.sha256()) {
        return Ok(Outcome::Unchanged { sources_failed });
    }
    let report = publish::publish(
        client,
        &snapshot,
        publish::Options {
            at: None,
            skip_bad_rows: false,
            checks: options.checks,
            guard: Some(options.guard),
        },
    )
    .await
    .map_err(|err| match err {
        PublishError::Failed(err) => err,
        refused => anyhow::Error::new(refused),
    })?;
    Ok(Outcome::Published {
        as_of: report.as_of,
        summary: report.summary,
        sources_failed,
    })
}

/// Runs tools/dataset/sync.py, its output passed through, stopped after the timeout.
async fn build(options: &Options) -> anyhow::Result<()> {
    let script = options.tools_dir.join("sync.py");
    anyhow::ensure!(
        script.is_file(),
        "{} not found: pass --tools-dir, the repository's tools/dataset directory",
        script.display()
    );
    let mut command = tokio::process::Command::new("python3");
    command
        .arg(&script)
        .arg("--state")
        .arg(&options.work_dir)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    if let Some(dir) = &options.releases {
        command.arg("--releases").arg(dir);
    }
    if let Some(base) = &options.base {
        command.arg("--base").arg(base);
    }
    let mut child = command
        .spawn()
        .context("starting python3 (install Python 3 to run a sync)")?;
    let status = match tokio::time::timeout(options.timeout, child.wait()).await {
        Ok(status) => status?,
        Err(_) => {
            child.kill().await.ok();
            anyhow::bail!(
                "the dataset build did not finish within {} s and was stopped; \
                 nothing was published (raise --sync-timeout)",
                options.timeout.as_secs()
            );
        }
    };
    anyhow::ensure!(
        status.success(),
        "the dataset build failed ({status}, its output above); nothing was published"
    );
    Ok(())
}

/// The sources whose newest release the build could not read (sync.json).
fn failed_sources(path: &Path) -> anyhow::Result<Vec<String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let report: serde_json::Value = serde_json::from_str(&text)?;
    Ok(report["sources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s.get("error").is_some())
        .filter_map(|s| s["id"].as_str().map(str::to_owned))
        .collect())
}
