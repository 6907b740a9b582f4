//! The scenario store backends the store tests run on: SQLite always, and
//! PostgreSQL in the tests marked `#[ignore]`, which `scripts/test.sh`
//! runs with `--ignored` against a throwaway server it starts (its URL in
//! [`PG_ENV`]). Run by hand without that variable, they fail and say why.

use relay_server::store::{PgStore, ScenarioStore, SqliteStore};
use relay_server::{AppState, Limits};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The variable naming a PostgreSQL server the tests may create databases
/// on: `postgres://user@host:port/db` (a superuser or a role with
/// CREATEDB).
pub const PG_ENV: &str = "PLAYGROUND_TEST_PG";

/// The server's URL, or a loud failure.
pub fn pg_admin_url() -> String {
    std::env::var(PG_ENV).unwrap_or_else(|_| {
        panic!(
            "{PG_ENV} is not set: this test needs a PostgreSQL server. Run scripts/test.sh, \
             or `scripts/with-postgres.sh cargo test -p relay-server -- --ignored`"
        )
    })
}

/// A name no other test of any process uses now: pid, counter, random.
pub fn unique() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let mut raw = [0u8; 4];
    getrandom::fill(&mut raw).unwrap();
    format!(
        "{}_{}_{:08x}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        u32::from_le_bytes(raw)
    )
}

/// `url` naming database `db` instead of its own.
fn with_database(url: &str, db: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let server = match base[scheme_end..].find('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    match query {
        Some(q) => format!("{server}/{db}?{q}"),
        None => format!("{server}/{db}"),
    }
}

async fn admin(sql: &str) {
    let (client, conn) = tokio_postgres::connect(&pg_admin_url(), tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("connecting to {PG_ENV}: {e}"));
    let task = tokio::spawn(conn);
    client.batch_execute(sql).await.unwrap();
    drop(client);
    let _ = task.await;
}

/// A database of its own on the test server, so that tests running at
/// once do not see each other's scenarios.
#[derive(Debug)]
pub struct TestDb {
    /// Its URL.
    pub url: String,
    name: String,
}

impl TestDb {
    /// Creates an empty database.
    pub async fn create() -> TestDb {
        let name = format!("np_test_{}", unique());
        admin(&format!("CREATE DATABASE {name}")).await;
        TestDb {
            url: with_database(&pg_admin_url(), &name),
            name,
        }
    }

    /// Drops the database (its connections too).
    pub async fn drop_db(self) {
        admin(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ))
        .await;
    }
}

/// Where a test keeps its scenarios.
#[derive(Debug)]
pub enum Backend {
    /// SQLite: in memory in-process, a file in a temporary folder for a
    /// relay process.
    Sqlite,
    /// A fresh PostgreSQL database.
    Postgres(TestDb),
}

impl Backend {
    /// SQLite.
    pub fn sqlite() -> Backend {
        Backend::Sqlite
    }

    /// A fresh PostgreSQL database ([`PG_ENV`] must be set).
    pub async fn postgres() -> Backend {
        Backend::Postgres(TestDb::create().await)
    }

    /// `sqlite` or `postgres`, for names of temporary files.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// An in-process relay state serving `dist`, on this backend.
    pub async fn state(&self, dist: impl Into<PathBuf>) -> AppState {
        self.state_with_limits(dist, Limits::default()).await
    }

    /// Like [`Backend::state`], with `limits` in force.
    pub async fn state_with_limits(&self, dist: impl Into<PathBuf>, limits: Limits) -> AppState {
        let state = AppState::with_limits(dist, 1, limits);
        match self {
            Backend::Sqlite => state,
            Backend::Postgres(db) => {
                state.with_store(Arc::new(PgStore::connect(&db.url).await.unwrap()))
            }
        }
    }

    /// A store on this backend that the relay binary's or the CLI's
    /// `--db` [`Backend::db_arg`]`(dir)` opens too.
    pub async fn shared_store(&self, dir: &Path) -> Arc<dyn ScenarioStore> {
        match self {
            Backend::Sqlite => Arc::new(SqliteStore::open(&dir.join("scenarios.sqlite3")).unwrap()),
            Backend::Postgres(db) => Arc::new(PgStore::connect(&db.url).await.unwrap()),
        }
    }

    /// The relay binary's `--db` on this backend (a file in `dir` for
    /// SQLite).
    pub fn db_arg(&self, dir: &Path) -> String {
        match self {
            Backend::Sqlite => dir.join("scenarios.sqlite3").display().to_string(),
            Backend::Postgres(db) => db.url.clone(),
        }
    }

    /// Cleans up (drops the PostgreSQL database).
    pub async fn finish(self) {
        if let Backend::Postgres(db) = self {
            db.drop_db().await;
        }
    }
}

/// Defines, for each `case(&Backend)` named, a module of that name with two
/// tests: `sqlite`, and `postgres` (ignored unless run with `--ignored`).
#[macro_export]
macro_rules! on_both_stores {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let backend = $crate::common::backend::Backend::sqlite();
                super::$case(&backend).await;
                backend.finish().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            #[ignore = "needs PostgreSQL: scripts/test.sh starts one and runs these with --ignored"]
            async fn postgres() {
                let backend = $crate::common::backend::Backend::postgres().await;
                super::$case(&backend).await;
                backend.finish().await;
            }
        }
    )*};
}

/// A PostgreSQL server of a test's own (a test that freezes its database
/// must not freeze the others'), started and stopped with
/// `scripts/services.sh`'s `pg_start` and `pg_stop`, in a temporary folder.
#[derive(Debug)]
pub struct PrivatePg {
    dir: PathBuf,
    /// Its loopback port.
    pub port: u16,
}

/// Runs one of `scripts/services.sh`'s functions with `args`.
fn services(function: &str, args: &[&str]) -> std::process::Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/services.sh");
    std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("source {script} && {function} \"$@\""))
        .arg("services")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"))
}

impl PrivatePg {
    /// Initializes and starts a server on a free port (a few seconds).
    pub fn start() -> PrivatePg {
        let root = std::env::temp_dir().join(format!("np-private-pg-{}", unique()));
        std::fs::create_dir_all(&root).unwrap();
        // The server runs as the postgres user: the folder must be passable.
        let _ = std::process::Command::new("chmod")
            .args(["755"])
            .arg(&root)
            .status();
        let port = super::cluster::free_port();
        let dir = root.join("data");
        let out = services("pg_start", &[dir.to_str().unwrap(), &port.to_string()]);
        assert!(
            out.status.success(),
            "pg_start: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        PrivatePg { dir, port }
    }

    /// Its URL (database `postgres`).
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The server's processes: the postmaster and its children.
    fn pids(&self) -> Vec<String> {
        let pid_file = std::fs::read_to_string(self.dir.join("postmaster.pid")).unwrap();
        let main = pid_file.lines().next().unwrap().trim().to_owned();
        let children = std::process::Command::new("pgrep")
            .args(["-P", &main])
            .output()
            .unwrap();
        let mut pids = vec![main];
        pids.extend(
            String::from_utf8_lossy(&children.stdout)
                .split_whitespace()
                .map(str::to_owned),
        );
        pids
    }

    fn signal_all(&self, sig: &str) {
        for pid in self.pids() {
            let _ = std::process::Command::new("kill")
                .args([sig, &pid])
                .status();
        }
    }

    /// SIGSTOP to every process of the server: it takes connections into
    /// the kernel's backlog and answers nothing.
    pub fn freeze(&self) {
        self.signal_all("-STOP");
    }

    /// SIGCONT: it answers again.
    pub fn thaw(&self) {
        self.signal_all("-CONT");
    }
}

impl Drop for PrivatePg {
    fn drop(&mut self) {
        self.thaw();
        let _ = services("pg_stop", &[self.dir.to_str().unwrap()]);
        if let Some(root) = self.dir.parent() {
            let _ = std::fs::remove_dir_all(root);
        }
    }
}
