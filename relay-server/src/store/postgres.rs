//! The PostgreSQL backend: tokio-postgres through a deadpool-postgres pool,
//! for several relays sharing one store.
//!
//! Every session sets `synchronous_commit = on` (whatever the server's
//! default), so a save — the usage row and the `INSERT`, one transaction —
//! has its commit record flushed to the server's disk when it returns.
//! Every call is bounded by a deadline ([`Db::call`]; see the store's
//! module docs). Migrations
//! are recorded in `schema_migrations` and applied under an advisory lock,
//! so relays starting at the same moment apply each one once. The
//! connection is plain TCP (no TLS): keep the database on loopback or a
//! private network.

use super::{
    digest, new_id, unix_now, ItemKind, ScenarioStore, StoreError, Stored, StoredScenario,
    DEFAULT_DEADLINE,
};
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;
use tokio_postgres::NoTls;

/// The migrations, in order: the same schema as SQLite's, in PostgreSQL's
/// types (`frames` is a `u32`, so `BIGINT`), the room registry
/// (`crate::homes`: room → its home relay, the lease and the room's last
/// checkpoint), every row's [`ItemKind`] (the rows before it are
/// scenarios), and every row's [`digest`] (PostgreSQL's own `sha256` for
/// the rows before it) with the index de-duplication looks items up by,
/// then `'match'` among the kinds ([`ItemKind::Match`]): migration 4's
/// unnamed column `CHECK` is PostgreSQL's `scenarios_kind_check`, dropped
/// and added again with the new list (a database whose constraint is
/// named otherwise fails the migration, and the relay does not start,
/// rather than keep refusing match recordings).
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS scenarios (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        bytes BYTEA NOT NULL,
        frames BIGINT NOT NULL,
        created_at BIGINT NOT NULL
    )",
    "CREATE TABLE store_usage (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        bytes BIGINT NOT NULL,
        scenarios BIGINT NOT NULL
    );
    INSERT INTO store_usage (id, bytes, scenarios)
        SELECT 1, COALESCE(SUM(octet_length(bytes)), 0), COUNT(*) FROM scenarios",
    "CREATE TABLE room_homes (
        room TEXT PRIMARY KEY,
        home TEXT NOT NULL,
        instance TEXT NOT NULL,
        lease BIGINT NOT NULL,
        lease_until TIMESTAMPTZ NOT NULL,
        checkpoint BYTEA
    )",
    "ALTER TABLE scenarios ADD COLUMN kind TEXT NOT NULL DEFAULT 'scenario'
        CHECK (kind IN ('scenario', 'room'))",
    "ALTER TABLE scenarios ADD COLUMN digest BYTEA;
    UPDATE scenarios SET digest = sha256(bytes);
    CREATE INDEX scenarios_kind_digest ON scenarios (kind, digest)",
    "ALTER TABLE scenarios DROP CONSTRAINT scenarios_kind_check;
    ALTER TABLE scenarios ADD CONSTRAINT scenarios_kind_check
        CHECK (kind IN ('scenario', 'room', 'match'))",
];

/// The oldest item of a kind, digest and name ([`super::ScenarioStore::find`]).
const SAME: &str = "SELECT id FROM scenarios WHERE kind = $1 AND digest = $2 AND name = $3
                    ORDER BY created_at, id LIMIT 1";

/// Advisory lock held while migrating ("npscen" in ASCII).
const MIGRATION_LOCK: i64 = 0x6e70_7363_656e;

/// Connections per relay for the scenarios: saves are rare and short (one
/// transaction), and at most two replays verify saves at once (`api`), so
/// a few suffice.
const POOL_SIZE: usize = 8;

/// Longest wait to connect at start (and for the CLI).
const TIMEOUT: Duration = Duration::from_secs(5);

/// The PostgreSQL store. See the module docs.
#[derive(Debug, Clone)]
pub struct PgStore {
    db: Db,
}

/// A pool with a deadline on every call: what the store and the room
/// registry (`crate::homes`, a pool of its own) talk to PostgreSQL
/// through.
#[derive(Debug, Clone)]
pub(crate) struct Db {
    pool: Pool,
    deadline: Duration,
}

impl Db {
    /// A pool of `size` connections to `url` (libpq's URL form), every
    /// session with `synchronous_commit = on`; nothing is connected yet.
    pub(crate) fn new(url: &str, size: usize) -> Result<Db, StoreError> {
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| StoreError::Location(format!("{}: {e}", redact(url))))?;
        config.options("-c synchronous_commit=on");
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("netcode-playground-relay");
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(TIMEOUT))
            .create_timeout(Some(TIMEOUT))
            .recycle_timeout(Some(TIMEOUT))
            .build()
            .map_err(|e| StoreError::Pool(e.to_string()))?;
        Ok(Db {
            pool,
            deadline: DEFAULT_DEADLINE,
        })
    }

    /// This pool with every call bounded by `deadline`.
    pub(crate) fn with_deadline(self, deadline: Duration) -> Db {
        Db { deadline, ..self }
    }

    /// A connection from the pool, within `by`.
    async fn client(&self, by: Instant) -> Result<Object, StoreError> {
        match tokio::time::timeout_at(by, self.pool.get()).await {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(deadpool_postgres::PoolError::Backend(e))) => Err(StoreError::Postgres(e)),
            Ok(Err(e)) => Err(StoreError::Pool(e.to_string())),
            Err(_) => Err(StoreError::Timeout(self.deadline)),
        }
    }

    /// Runs `call` on a pooled connection, all of it (the wait for the
    /// connection included) within the deadline. A connection whose call
    /// timed out is closed, not returned to the pool.
    ///
    /// # Errors
    /// [`StoreError::Timeout`], or what `call` returns.
    pub(crate) async fn call<T, F>(&self, call: F) -> Result<T, StoreError>
    where
        F: for<'c> FnOnce(&'c mut Object) -> BoxFuture<'c, Result<T, StoreError>>,
    {
        let by = Instant::now() + self.deadline;
        let mut client = self.client(by).await?;
        let answer = tokio::time::timeout_at(by, call(&mut client)).await;
        match answer {
            Ok(answer) => answer,
            Err(_) => {
                // Out of the pool: dropping it closes the connection.
                drop(Object::take(client));
                Err(StoreError::Timeout(self.deadline))
            }
        }
    }
}

/// A boxed future borrowing a connection, as [`Db::call`] takes.
pub(crate) type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl PgStore {
    /// Connects to `url` (libpq's URL form, `postgres://user:pass@host:port/db`),
    /// checks the connection and applies the migrations. Calls are bounded
    /// by [`DEFAULT_DEADLINE`] (see [`PgStore::with_deadline`]).
    ///
    /// # Errors
    /// [`StoreError::Location`] if the URL does not parse;
    /// [`StoreError::Postgres`] or [`StoreError::Pool`] if the server cannot
    /// be reached within 5 s or refuses.
    pub async fn connect(url: &str) -> Result<PgStore, StoreError> {
        let store = PgStore::connect_existing(url).await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Like [`PgStore::connect`] without migrating: for readers (the
    /// `scenario` CLI) that must not change the database. The connection
    /// is checked.
    ///
    /// # Errors
    /// As [`PgStore::connect`].
    pub async fn connect_existing(url: &str) -> Result<PgStore, StoreError> {
        let db = Db::new(url, POOL_SIZE)?;
        drop(db.client(Instant::now() + TIMEOUT).await?);
        Ok(PgStore { db })
    }

    /// This store with every call bounded by `deadline`.
    pub fn with_deadline(self, deadline: Duration) -> PgStore {
        PgStore {
            db: self.db.with_deadline(deadline),
        }
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.db.client(Instant::now() + TIMEOUT).await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                applied_at BIGINT NOT NULL
            )",
        )
        .await?;
        let applied: i64 = tx
            .query_one("SELECT COUNT(*) FROM schema_migrations", &[])
            .await?
            .get(0);
        for (i, sql) in MIGRATIONS
            .iter()
            .enumerate()
            .skip(usize::try_from(applied).unwrap_or(usize::MAX))
        {
            tx.batch_execute(sql).await?;
            let version = i32::try_from(i + 1).unwrap_or(i32::MAX);
            tx.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                &[&version, &unix_now()],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

#[async_trait::async_trait]
impl ScenarioStore for PgStore {
    async fn insert(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
        frames: u32,
        max_bytes: u64,
    ) -> Result<Stored, StoreError> {
        let (frames, created_at) = (i64::from(frames), unix_now());
        let adding = bytes.len() as u64;
        let (len, cap) = (adding as i64, i64::try_from(max_bytes).unwrap_or(i64::MAX));
        let digest = digest(bytes).to_vec();
        let (name, bytes) = (name.to_owned(), bytes.to_vec());
        self.db
            .call(move |client| {
                Box::pin(async move {
                    let tx = client.transaction().await?;
                    // The one usage row: locked until the commit (every
                    // insert takes it first), so two relays saving at once
                    // cannot both pass the cap, nor both store the same
                    // item.
                    let used: i64 = tx
                        .query_one(
                            "SELECT bytes FROM store_usage WHERE id = 1 FOR UPDATE",
                            &[],
                        )
                        .await?
                        .get(0);
                    let same = tx.prepare_cached(SAME).await?;
                    if let Some(row) = tx
                        .query_opt(&same, &[&kind.as_str(), &digest, &name])
                        .await?
                    {
                        // Nothing written: the transaction rolls back as
                        // it drops.
                        return Ok(Stored {
                            id: row.get(0),
                            existing: true,
                        });
                    }
                    if cap > 0 && used + len > cap {
                        return Err(StoreError::Full {
                            used: used as u64,
                            adding,
                            cap: max_bytes,
                        });
                    }
                    tx.execute(
                        "UPDATE store_usage SET bytes = bytes + $1, scenarios = scenarios + 1
                         WHERE id = 1",
                        &[&len],
                    )
                    .await?;
                    let statement = tx
                        .prepare_cached(
                            "INSERT INTO scenarios (id, kind, name, bytes, frames, created_at, digest)
                             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
                        )
                        .await?;
                    loop {
                        let id = new_id()?;
                        let inserted = tx
                            .execute(
                                &statement,
                                &[
                                    &id,
                                    &kind.as_str(),
                                    &name,
                                    &bytes,
                                    &frames,
                                    &created_at,
                                    &digest,
                                ],
                            )
                            .await?;
                        // 0 rows: the id was taken; draw another.
                        if inserted == 1 {
                            tx.commit().await?;
                            return Ok(Stored {
                                id,
                                existing: false,
                            });
                        }
                    }
                })
            })
            .await
    }

    async fn find(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
    ) -> Result<Option<String>, StoreError> {
        let digest = digest(bytes).to_vec();
        let name = name.to_owned();
        self.db
            .call(move |client| {
                Box::pin(async move {
                    let same = client.prepare_cached(SAME).await?;
                    let row = client
                        .query_opt(&same, &[&kind.as_str(), &digest, &name])
                        .await?;
                    Ok(row.map(|r| r.get(0)))
                })
            })
            .await
    }

    async fn get(&self, id: &str) -> Result<Option<StoredScenario>, StoreError> {
        if !super::is_id(id) {
            return Ok(None);
        }
        let id = id.to_owned();
        self.db
            .call(move |client| {
                Box::pin(async move {
                    let statement = client
                        .prepare_cached(
                            "SELECT id, kind, name, bytes, frames, created_at FROM scenarios
                             WHERE id = $1",
                        )
                        .await?;
                    let row = client.query_opt(&statement, &[&id]).await?;
                    row.map(|r| {
                        let frames: i64 = r.get(4);
                        Ok(StoredScenario {
                            id: r.get(0),
                            kind: ItemKind::parse(r.get(1))?,
                            name: r.get(2),
                            bytes: r.get(3),
                            frames: u32::try_from(frames).unwrap_or(u32::MAX),
                            created_at: r.get(5),
                        })
                    })
                    .transpose()
                })
            })
            .await
    }

    async fn count(&self) -> Result<u64, StoreError> {
        self.db
            .call(|client| {
                Box::pin(async move {
                    let n: i64 = client
                        .query_one("SELECT COUNT(*) FROM scenarios", &[])
                        .await?
                        .get(0);
                    Ok(u64::try_from(n).unwrap_or(0))
                })
            })
            .await
    }

    fn backend(&self) -> &'static str {
        "postgres"
    }
}

/// `url` with its password (in the authority or a `password=` parameter)
/// replaced by `***`, for logs.
pub(super) fn redact(url: &str) -> String {
    let mut out = url.to_owned();
    if let Some(scheme_end) = out.find("://") {
        let rest = scheme_end + 3;
        let authority_end = out[rest..].find(['/', '?']).map_or(out.len(), |i| rest + i);
        if let Some(at) = out[rest..authority_end].rfind('@').map(|i| rest + i) {
            if let Some(colon) = out[rest..at].find(':').map(|i| rest + i) {
                out.replace_range(colon + 1..at, "***");
            }
        }
    }
    if let Some(p) = out.to_ascii_lowercase().find("password=") {
        let start = p + "password=".len();
        let end = out[start..].find('&').map_or(out.len(), |i| start + i);
        out.replace_range(start..end, "***");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_the_logs() {
        assert_eq!(
            redact("postgres://np:s3cret@db:5432/np"),
            "postgres://np:***@db:5432/np"
        );
        assert_eq!(
            redact("postgresql://np@db/np?password=x&sslmode=disable"),
            "postgresql://np@db/np?password=***&sslmode=disable"
        );
        assert_eq!(redact("postgres://db/np"), "postgres://db/np");
    }
}
