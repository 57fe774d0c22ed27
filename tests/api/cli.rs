//! The `pricing serve` binary on its embedded default database: first start,
//! a second server refused on the same data dir, a clean stop that leaves no
//! PostgreSQL behind, a restart that keeps the data, `pricing keys` working
//! beside a running server on its data dir, and a postmaster killed under it
//! started again by itself.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

use crate::helpers::Served;

fn pricing(data_dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pricing"));
    cmd.arg("serve")
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("DATABASE_URL")
        .env("PRICING_LOG_FORMAT", "json")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

async fn serve(data_dir: &Path) -> Served {
    Served::start(pricing(data_dir)).await
}

async fn health(addr: &str) -> Value {
    reqwest::get(format!("http://{addr}/api/v1/health"))
        .await
        .expect("health request")
        .json()
        .await
        .expect("health json")
}

fn temp_data_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pricing-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[tokio::test]
async fn serve_runs_its_own_postgres_refuses_a_second_server_and_cleans_up() {
    let data_dir = temp_data_dir("serve");

    let first = serve(&data_dir).await;
    let body = health(&first.addr).await;
    assert_eq!(body["status"], "ok");
    assert_eq!(body["db"], "ok");
    let as_of = body["as_of"].as_str().expect("as_of").to_owned();

    let second = pricing(&data_dir)
        .stderr(Stdio::piped())
        .output()
        .await
        .expect("run second server");
    assert!(
        !second.status.success(),
        "a second server on the same data dir must fail"
    );
    let message = String::from_utf8_lossy(&second.stderr);
    assert!(
        message.contains("already using the data dir"),
        "the refusal says why: {message}"
    );
    assert_eq!(
        health(&first.addr).await["status"],
        "ok",
        "the first server is unharmed"
    );

    first.terminate().await;
    assert!(
        !data_dir.join("pg/postmaster.pid").exists(),
        "PostgreSQL was stopped with the server"
    );

    let again = serve(&data_dir).await;
    let body = health(&again.addr).await;
    assert_eq!(
        body["as_of"],
        as_of.as_str(),
        "the data survived the restart"
    );
    again.terminate().await;
    let _ = std::fs::remove_dir_all(&data_dir);
}

#[tokio::test]
async fn a_killed_embedded_postmaster_is_started_again_and_health_recovers_by_itself() {
    let data_dir = temp_data_dir("killed");
    let served = serve(&data_dir).await;
    assert_eq!(health(&served.addr).await["status"], "ok");
    let pidfile = std::fs::read_to_string(data_dir.join("pg/postmaster.pid")).expect("pid file");
    let postmaster = pidfile.lines().next().expect("pid line").trim().to_owned();
    let killed = Command::new("kill")
        .args(["-KILL", &postmaster])
        .status()
        .await
        .expect("kill");
    assert!(killed.success());
    let started = std::time::Instant::now();
    let http = reqwest::Client::new();
    let url = format!("http://{}/api/v1/health", served.addr);
    let mut saw_down = false;
    let recovered = loop {
        let status = http
            .get(&url)
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .map(|r| r.status().as_u16())
            .unwrap_or(0);
        saw_down |= status == 503;
        if status == 200 && saw_down {
            break started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "health never came back after the postmaster was killed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    println!("health back to 200 {recovered:?} after kill -9 of the postmaster");
    // Health can answer while `pg_ctl start` still waits for the server it started.
    let healthz = crate::helpers::eventually(
        "the restart is counted",
        Duration::from_secs(30),
        async || {
            let healthz = served.healthz(&http).await;
            (healthz["embedded_database"]["restarts"] == 1).then_some(healthz)
        },
    )
    .await;
    assert_eq!(healthz["embedded_database"]["gave_up"], false);
    assert!(
        served
            .log_lines()
            .iter()
            .any(|l| l.contains("embedded PostgreSQL started again")),
        "the restart is logged"
    );
    // The data is the data of before.
    let models = http
        .get(format!("http://{}/api/v1/models?limit=1", served.addr))
        .send()
        .await
        .expect("models");
    assert_eq!(models.status(), 200);
    served.terminate().await;
    let _ = std::fs::remove_dir_all(&data_dir);
}

/// `pricing ARGS --data-dir DIR` (no database URL): its exit, stdout and stderr.
async fn command(data_dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pricing"))
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run pricing");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn keys_are_issued_and_listed_from_the_command_line_while_serve_runs_on_the_data_dir() {
    let data_dir = temp_data_dir("keys");
    let served = serve(&data_dir).await;

    let (ok, stdout, stderr) = command(&data_dir, &["keys", "issue", "--tier", "free"]).await;
    assert!(ok, "keys issue beside the server: {stdout}{stderr}");
    let key = stdout.trim().to_owned();
    assert!(pricing::access::keys::lookup_of(&key).is_some(), "{stdout}");
    let res = reqwest::Client::new()
        .get(format!("http://{}/api/v1/nothing", served.addr))
        .header("X-API-Key", &key)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 404);
    assert_eq!(
        res.headers()
            .get("x-ratelimit-limit")
            .and_then(|v| v.to_str().ok()),
        Some("1000"),
        "the server takes the key at once: counted on the free plan"
    );

    let (ok, list, stderr) = command(&data_dir, &["keys", "list"]).await;
    assert!(ok, "{stderr}");
    assert!(list.contains(&key[..20]), "{list}");
    assert_eq!(
        health(&served.addr).await["status"],
        "ok",
        "the server is unharmed: its cluster was used, not stopped"
    );

    served.terminate().await;
    assert!(
        !data_dir.join("pg/postmaster.pid").exists(),
        "PostgreSQL was stopped with the server"
    );
    // Without a server, the command starts the cluster itself, and stops it after.
    let (ok, list, stderr) = command(&data_dir, &["keys", "list"]).await;
    assert!(ok, "{stderr}");
    assert!(list.contains(&key[..20]), "{list}");
    assert!(!data_dir.join("pg/postmaster.pid").exists());
    let _ = std::fs::remove_dir_all(&data_dir);
}
