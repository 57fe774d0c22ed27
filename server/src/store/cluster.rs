//! The embedded default database: a private PostgreSQL cluster in the data dir.
//!
//! `pricing serve` without a database URL creates the cluster with `initdb` on
//! first start, starts it with `pg_ctl`, reachable only through a Unix socket in
//! the data dir, and stops it at exit. A lock file keeps a second server off the
//! same data dir; the other commands (`pricing keys ...`, `migrate`, ...) use
//! the cluster of the process holding it through its socket ([`attach`]). A
//! postmaster orphaned by a server that died is stopped and started afresh, so
//! the service recovers by itself; and while a command runs on the cluster it
//! started, [`LocalCluster::supervise`] watches its postmaster and starts it
//! again when it dies (docs/deployment.md, "When a component fails").

use std::fs::{self, File, TryLockError};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::{Context as _, bail};
use tokio_postgres::Config;

/// The database the service uses inside the embedded cluster.
pub const DATABASE: &str = "pricing";
const SUPERUSER: &str = "postgres";
/// Unix socket paths are limited to 107 bytes on Linux.
const MAX_SOCKET_PATH: usize = 100;

/// A running embedded cluster. Call [`LocalCluster::stop`] at exit.
#[derive(Debug)]
pub struct LocalCluster {
    bin_dir: PathBuf,
    pgdata: PathBuf,
    socket_dir: PathBuf,
    run_as: Option<(u32, u32)>,
    /// Whether `initdb` ran in this start: the database is new.
    pub created: bool,
    _lock: File,
}

impl LocalCluster {
    /// Creates (first time) and starts the cluster kept in `data_dir`.
    pub async fn start(data_dir: &Path) -> anyhow::Result<Self> {
        fs::create_dir_all(data_dir)
            .with_context(|| format!("creating the data dir {}", data_dir.display()))?;
        let data_dir = data_dir
            .canonicalize()
            .with_context(|| format!("resolving the data dir {}", data_dir.display()))?;
        let lock = lock_data_dir(&data_dir)?;
        let bin_dir = find_bin_dir()?;
        let run_as = unprivileged_user()?;
        let pgdata = data_dir.join("pg");
        let socket_dir = data_dir.join("run");
        if socket_dir.join(".s.PGSQL.5432").as_os_str().len() > MAX_SOCKET_PATH {
            bail!(
                "the data dir path {} is too long for a Unix socket; pass a shorter --data-dir",
                data_dir.display()
            );
        }
        for dir in [&pgdata, &socket_dir] {
            fs::create_dir_all(dir)?;
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
            if let Some((uid, gid)) = run_as {
                std::os::unix::fs::chown(dir, Some(uid), Some(gid))
                    .with_context(|| format!("handing {} to the postgres user", dir.display()))?;
            }
        }
        if let Some((uid, gid)) = run_as {
            let reachable = Command::new("test")
                .arg("-w")
                .arg(&pgdata)
                .uid(uid)
                .gid(gid)
                .status()
                .is_ok_and(|s| s.success());
            if !reachable {
                bail!(
                    "PostgreSQL runs as an unprivileged user (uid {uid}) when started as root, and that user \
                     cannot reach {}: make its parent directories traversable (chmod o+x) or pass a \
                     --data-dir it can reach",
                    pgdata.display()
                );
            }
        }
        let mut cluster = Self {
            bin_dir,
            pgdata,
            socket_dir,
            run_as,
            created: false,
            _lock: lock,
        };
        let bin_dir = cluster.bin_dir.clone();
        let pgdata = cluster.pgdata.clone();
        let socket_dir = cluster.socket_dir.clone();
        tokio::task::spawn_blocking(move || -> anyhow::Result<bool> {
            let created = init_if_new(&bin_dir, &pgdata, run_as)?;
            stop_orphan(&bin_dir, &pgdata, run_as);
            start_postmaster(&bin_dir, &pgdata, &socket_dir, run_as)?;
            Ok(created)
        })
        .await
        .context("starting the embedded cluster")?
        .map(|created| cluster.created = created)?;
        cluster.ensure_database().await?;
        Ok(cluster)
    }

    /// Connection settings for the service database, over the Unix socket.
    pub fn config(&self) -> Config {
        socket_config(&self.socket_dir)
    }

    async fn ensure_database(&self) -> anyhow::Result<()> {
        let mut admin = self.config();
        admin.dbname("postgres");
        let client = crate::store::db::connect(&admin).await?;
        let exists = client
            .query_opt("select from pg_database where datname = $1", &[&DATABASE])
            .await?
            .is_some();
        if !exists {
            client
                .batch_execute(&format!("create database {DATABASE}"))
                .await
                .context("creating the service database")?;
        }
        Ok(())
    }

    /// Watches the postmaster while the cluster is in use: when it is gone
    /// (killed, crashed), it is started again, up to [`MAX_RESTART_ATTEMPTS`]
    /// attempts an outage with a growing pause between them; then the
    /// supervision gives up with a log line saying what to do, and goes on
    /// watching (a postmaster started by hand is taken as recovered). Abort
    /// the task before [`LocalCluster::stop`].
    pub fn supervise(&self) -> (Arc<Supervision>, tokio::task::JoinHandle<()>) {
        let supervision = Arc::new(Supervision::default());
        let watch = supervision.clone();
        let (bin_dir, pgdata, socket_dir, run_as) = (
            self.bin_dir.clone(),
            self.pgdata.clone(),
            self.socket_dir.clone(),
            self.run_as,
        );
        let task = tokio::spawn(async move {
            let mut attempts = 0;
            loop {
                tokio::time::sleep(CHECK_EVERY).await;
                if postmaster_alive(&pgdata) {
                    attempts = 0;
                    watch.gave_up.store(false, Ordering::Relaxed);
                    continue;
                }
                if attempts == MAX_RESTART_ATTEMPTS {
                    continue;
                }
                if attempts == 0 {
                    tracing::warn!(
                        pgdata = %pgdata.display(),
                        "embedded PostgreSQL is not running (its postmaster is gone); starting it again"
                    );
                    // A killed postmaster stays a zombie until it is reaped, and a new one
                    // refuses to start while its pid exists: give the reaper a moment.
                    for _ in 0..50 {
                        if !postmaster_pid_exists(&pgdata) {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
                attempts += 1;
                let (b, p, s) = (bin_dir.clone(), pgdata.clone(), socket_dir.clone());
                let started =
                    tokio::task::spawn_blocking(move || start_postmaster(&b, &p, &s, run_as))
                        .await
                        .unwrap_or_else(|err| Err(anyhow::anyhow!("the start task failed: {err}")));
                match started {
                    Ok(()) => {
                        watch.restarted(None);
                        tracing::warn!(attempt = attempts, "embedded PostgreSQL started again");
                        attempts = 0;
                    }
                    Err(err) => {
                        let reason = format!("{err:#}");
                        watch.restarted(Some(reason.clone()));
                        if attempts == MAX_RESTART_ATTEMPTS {
                            watch.gave_up.store(true, Ordering::Relaxed);
                            tracing::error!(
                                attempts,
                                %reason,
                                pgdata = %pgdata.display(),
                                "embedded PostgreSQL could not be started again; the service answers 503 \
                                 until it runs (see server.log in the data dir, then restart `pricing serve`)"
                            );
                        } else {
                            tokio::time::sleep(CHECK_EVERY * (1 << attempts.min(4))).await;
                        }
                    }
                }
            }
        });
        (supervision, task)
    }

    /// Stops the cluster (fast shutdown: open sessions are ended).
    pub async fn stop(self) -> anyhow::Result<()> {
        tokio::task::spawn_blocking(move || {
            let status = pg_command(&self.bin_dir, "pg_ctl", self.run_as)
                .arg("stop")
                .arg("-D")
                .arg(&self.pgdata)
                .args(["-m", "fast", "-w", "-t", "30"])
                .stdout(Stdio::null())
                .status()
                .context("running pg_ctl stop")?;
            if !status.success() {
                bail!(
                    "pg_ctl stop failed ({status}); see {}/log",
                    self.pgdata.display()
                );
            }
            tracing::info!("embedded PostgreSQL stopped");
            Ok(())
        })
        .await
        .context("stopping the embedded cluster")?
    }
}

/// How often the supervision looks at the postmaster.
const CHECK_EVERY: Duration = Duration::from_millis(500);

/// Attempts to start a dead postmaster again before the supervision gives up
/// on this outage.
const MAX_RESTART_ATTEMPTS: u32 = 5;

/// What the supervision of the embedded cluster has done, for /healthz and
/// the metrics.
#[derive(Debug, Default)]
pub struct Supervision {
    restarts: AtomicU64,
    failed_restarts: AtomicU64,
    gave_up: AtomicBool,
    last: Mutex<Option<(time::OffsetDateTime, Option<String>)>>,
}

impl Supervision {
    fn restarted(&self, failure: Option<String>) {
        let counter = if failure.is_some() {
            &self.failed_restarts
        } else {
            &self.restarts
        };
        counter.fetch_add(1, Ordering::Relaxed);
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((time::OffsetDateTime::now_utc(), failure));
    }

    /// Times the postmaster was started again since the server started.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// For /healthz: restarts, failed attempts, whether it gave up, and the
    /// last attempt (its time and, when it failed, why).
    pub fn stats(&self) -> serde_json::Value {
        let last = self
            .last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let at = last.as_ref().and_then(|(t, _)| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        });
        serde_json::json!({
            "restarts": self.restarts(),
            "failed_restarts": self.failed_restarts.load(Ordering::Relaxed),
            "gave_up": self.gave_up.load(Ordering::Relaxed),
            "last_restart_at": at,
            "last_restart_error": last.and_then(|(_, e)| e),
        })
    }
}

/// The `/proc/<pid>/stat` line of the process `postmaster.pid` names, if it
/// exists (alive or a zombie).
fn postmaster_stat(pgdata: &Path) -> Option<String> {
    let pidfile = fs::read_to_string(pgdata.join("postmaster.pid")).ok()?;
    let pid = pidfile.lines().next()?.trim().parse::<u32>().ok()?;
    fs::read_to_string(format!("/proc/{pid}/stat")).ok()
}

/// Whether the postmaster named in `postmaster.pid` is running: its process
/// exists, is a postgres (a recycled pid is another program) and is no zombie.
fn postmaster_alive(pgdata: &Path) -> bool {
    postmaster_stat(pgdata).is_some_and(|stat| {
        // `pid (comm) state ...`
        let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
        stat.contains("(postgres)") && !state.is_some_and(|s| s.starts_with('Z'))
    })
}

/// Whether the process `postmaster.pid` names still exists, a zombie included.
fn postmaster_pid_exists(pgdata: &Path) -> bool {
    postmaster_stat(pgdata).is_some_and(|stat| stat.contains("(postgres)"))
}

/// The service database of the cluster whose socket is in `socket_dir`.
fn socket_config(socket_dir: &Path) -> Config {
    let mut config = Config::new();
    config
        .host_path(socket_dir)
        .port(5432)
        .user(SUPERUSER)
        .dbname(DATABASE);
    config
}

/// How long a command waits for the cluster of a process that is still
/// starting it (a first start runs initdb and fills the database).
const ATTACH_WAIT: Duration = Duration::from_secs(120);

/// The cluster in `data_dir` of a running `pricing serve` (or another command
/// holding the data dir), reached through its Unix socket, once it answers:
/// `None` when no process holds the data dir, and the caller starts the
/// cluster itself ([`LocalCluster::start`]). Only a second server is refused
/// a data dir; commands work beside it.
pub async fn attach(data_dir: &Path) -> anyhow::Result<Option<Config>> {
    let Ok(data_dir) = data_dir.canonicalize() else {
        return Ok(None); // no data dir yet: nobody holds it
    };
    if !held(&data_dir)? {
        return Ok(None);
    }
    let config = socket_config(&data_dir.join("run"));
    let deadline = tokio::time::Instant::now() + ATTACH_WAIT;
    loop {
        let answer = match crate::store::db::connect(&config).await {
            Ok(client) => client
                .simple_query("select")
                .await
                .map_err(anyhow::Error::from),
            Err(err) => Err(err),
        };
        match answer {
            Ok(_) => {
                tracing::info!(data_dir = %data_dir.display(), "using the embedded PostgreSQL of the running server");
                return Ok(Some(config));
            }
            // The holder stopped meanwhile: the caller starts the cluster itself.
            Err(_) if !held(&data_dir)? => return Ok(None),
            Err(err) if tokio::time::Instant::now() >= deadline => {
                return Err(err).context(not_ready(&data_dir));
            }
            Err(err) => {
                tracing::debug!(error = %format!("{err:#}"), "the running server's database is not ready yet")
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn not_ready(data_dir: &Path) -> String {
    format!(
        "another process holds the data dir {} but its PostgreSQL did not answer within {} s",
        data_dir.display(),
        ATTACH_WAIT.as_secs()
    )
}

/// Whether a process holds the lock of `data_dir` (without taking it).
fn held(data_dir: &Path) -> anyhow::Result<bool> {
    let path = data_dir.join("pricing.lock");
    let Ok(file) = File::open(&path) else {
        return Ok(false);
    };
    match file.try_lock() {
        Ok(()) => Ok(false), // released when `file` is dropped
        Err(TryLockError::WouldBlock) => Ok(true),
        Err(TryLockError::Error(err)) => {
            Err(err).with_context(|| format!("locking {}", path.display()))
        }
    }
}

fn lock_data_dir(data_dir: &Path) -> anyhow::Result<File> {
    let path = data_dir.join("pricing.lock");
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => bail!(
            "another `pricing serve` is already using the data dir {}; stop it first, \
             or pass a different --data-dir",
            data_dir.display()
        ),
        Err(TryLockError::Error(err)) => {
            Err(err).with_context(|| format!("locking {}", path.display()))
        }
    }
}

/// Finds `initdb`, `pg_ctl` and `postgres`: on PATH, then via `pg_config --bindir`,
/// then the newest `/usr/lib/postgresql/*/bin`.
fn find_bin_dir() -> anyhow::Result<PathBuf> {
    let has_tools = |dir: &Path| {
        ["initdb", "pg_ctl", "postgres"]
            .iter()
            .all(|t| dir.join(t).is_file())
    };
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        candidates.push(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    }
    let mut versioned: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, e.path().join("bin")))
        })
        .collect();
    versioned.sort_by_key(|v| std::cmp::Reverse(v.0));
    candidates.extend(versioned.into_iter().map(|(_, p)| p));
    candidates.into_iter().find(|d| has_tools(d)).ok_or_else(|| {
        anyhow::anyhow!(
            "no PostgreSQL server binaries found (initdb, pg_ctl, postgres on PATH, via pg_config, \
             or under /usr/lib/postgresql/*/bin). Install PostgreSQL (Debian/Ubuntu: \
             `apt-get install postgresql`), or pass --database-url to use an existing database"
        )
    })
}

/// PostgreSQL refuses to run as root: when we are root, run it as `postgres`
/// (or `nobody`), looked up in /etc/passwd.
fn unprivileged_user() -> anyhow::Result<Option<(u32, u32)>> {
    let euid = fs::metadata("/proc/self")
        .context("reading the process owner")?
        .uid();
    if euid != 0 {
        return Ok(None);
    }
    let passwd = fs::read_to_string("/etc/passwd").context("reading /etc/passwd")?;
    let lookup = |name: &str| {
        passwd.lines().find_map(|line| {
            let mut f = line.split(':');
            (f.next()? == name).then_some(())?;
            let _password = f.next()?;
            Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
        })
    };
    lookup("postgres")
        .or_else(|| lookup("nobody"))
        .map(Some)
        .ok_or_else(|| anyhow::anyhow!("running as root, and no `postgres` or `nobody` user to run PostgreSQL as; create one or run as another user"))
}

fn pg_command(bin_dir: &Path, tool: &str, run_as: Option<(u32, u32)>) -> Command {
    let mut cmd = Command::new(bin_dir.join(tool));
    // The postmaster gets its own process group: a Ctrl-C at the terminal reaches
    // the server, which then stops the cluster in order.
    cmd.process_group(0).env("LC_ALL", "C").env_remove("PGDATA");
    if let Some((uid, gid)) = run_as {
        cmd.uid(uid).gid(gid);
    }
    cmd
}

fn init_if_new(bin_dir: &Path, pgdata: &Path, run_as: Option<(u32, u32)>) -> anyhow::Result<bool> {
    if pgdata.join("PG_VERSION").exists() {
        return Ok(false);
    }
    tracing::info!(pgdata = %pgdata.display(), "creating the embedded PostgreSQL cluster (initdb)");
    let out = pg_command(bin_dir, "initdb", run_as)
        .arg("-D")
        .arg(pgdata)
        .args([
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        ])
        .output()
        .context("running initdb")?;
    if !out.status.success() {
        bail!(
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(true)
}

/// We hold the data-dir lock, so a postmaster still running here was left by a
/// server that died: stop it before starting our own.
fn stop_orphan(bin_dir: &Path, pgdata: &Path, run_as: Option<(u32, u32)>) {
    if !pgdata.join("postmaster.pid").exists() {
        return;
    }
    let running = pg_command(bin_dir, "pg_ctl", run_as)
        .arg("status")
        .arg("-D")
        .arg(pgdata)
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if running {
        tracing::warn!("stopping a PostgreSQL left running by an earlier server");
        let _ = pg_command(bin_dir, "pg_ctl", run_as)
            .arg("stop")
            .arg("-D")
            .arg(pgdata)
            .args(["-m", "fast", "-w"])
            .stdout(Stdio::null())
            .status();
    }
}

fn start_postmaster(
    bin_dir: &Path,
    pgdata: &Path,
    socket_dir: &Path,
    run_as: Option<(u32, u32)>,
) -> anyhow::Result<()> {
    let options = format!(
        "-c listen_addresses='' -c unix_socket_directories='{}' -c unix_socket_permissions=0700 \
         -c port=5432 -c logging_collector=off",
        socket_dir.display()
    );
    let log = pgdata.join("server.log");
    let out = pg_command(bin_dir, "pg_ctl", run_as)
        .arg("start")
        .arg("-D")
        .arg(pgdata)
        .arg("-l")
        .arg(&log)
        .args(["-w", "-t", "60", "-o", &options])
        .stdin(Stdio::null())
        .output()
        .context("running pg_ctl start")?;
    if !out.status.success() {
        let tail = fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = tail.lines().rev().take(8).collect();
        bail!(
            "PostgreSQL did not start: {}\n{}",
            String::from_utf8_lossy(&out.stderr).trim(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    tracing::info!(socket_dir = %socket_dir.display(), "embedded PostgreSQL started");
    Ok(())
}
