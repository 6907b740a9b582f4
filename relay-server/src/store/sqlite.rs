//! The SQLite backend (bundled, via rusqlite): a file of the operator's
//! choosing, or memory for tests.
//!
//! The file runs in WAL mode with `synchronous = FULL`, so a save is on
//! disk when [`SqliteStore::insert_blocking`] returns. Writes are
//! serialized by one connection behind a mutex (SQLite allows one writer
//! anyway); through [`ScenarioStore`] every call runs on tokio's blocking
//! pool, answered within the store's deadline (the thread itself finishes
//! when the disk lets it). The schema version is SQLite's own
//! `PRAGMA user_version`.

use super::{
    digest, new_id, unix_now, ItemKind, ScenarioStore, StoreError, Stored, StoredScenario,
    DEFAULT_DEADLINE,
};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The migrations, in order; `user_version` = how many are applied.
/// Migration 1 is the schema the relay had before versioning, so a file
/// written by an older relay (`user_version` 0, table present) takes it as
/// a no-op. Migration 3 gives every row its [`ItemKind`]: the rows before
/// it are scenarios. Migration 4 adds each row's [`digest`] (the rows
/// before it get theirs from [`fill_digests`], SQLite having no SHA-256)
/// and the index de-duplication looks items up by. Migration 5 lets the
/// `kind` column hold `'match'` ([`ItemKind::Match`]): SQLite cannot alter
/// a `CHECK`, so it rebuilds the table — the same columns in the same
/// order, every row copied in `rowid` order (the oldest of equal items
/// stays the one found), the old table dropped with its index, the new one
/// renamed and the index made again — all in the migrations' one
/// transaction.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS scenarios (
        id TEXT PRIMARY KEY NOT NULL,
        name TEXT NOT NULL,
        bytes BLOB NOT NULL,
        frames INTEGER NOT NULL,
        created_at INTEGER NOT NULL
    ) STRICT;",
    "CREATE TABLE store_usage (
        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
        bytes INTEGER NOT NULL,
        scenarios INTEGER NOT NULL
    ) STRICT;
    INSERT INTO store_usage (id, bytes, scenarios)
        SELECT 1, COALESCE(SUM(length(bytes)), 0), COUNT(*) FROM scenarios;",
    "ALTER TABLE scenarios ADD COLUMN kind TEXT NOT NULL DEFAULT 'scenario'
        CHECK (kind IN ('scenario', 'room'));",
    "ALTER TABLE scenarios ADD COLUMN digest BLOB;
    CREATE INDEX scenarios_kind_digest ON scenarios (kind, digest);",
    "CREATE TABLE scenarios_kinds (
        id TEXT PRIMARY KEY NOT NULL,
        name TEXT NOT NULL,
        bytes BLOB NOT NULL,
        frames INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        kind TEXT NOT NULL DEFAULT 'scenario'
            CHECK (kind IN ('scenario', 'room', 'match')),
        digest BLOB
    ) STRICT;
    INSERT INTO scenarios_kinds (id, name, bytes, frames, created_at, kind, digest)
        SELECT id, name, bytes, frames, created_at, kind, digest FROM scenarios ORDER BY rowid;
    DROP TABLE scenarios;
    ALTER TABLE scenarios_kinds RENAME TO scenarios;
    CREATE INDEX scenarios_kind_digest ON scenarios (kind, digest);",
];

/// The migration whose rows need [`fill_digests`] after it.
const DIGEST_MIGRATION: i64 = 4;

/// Gives every row without a digest its own (migration 4, rows from
/// before it).
fn fill_digests(tx: &rusqlite::Transaction<'_>) -> Result<(), StoreError> {
    let rows = {
        let mut select = tx.prepare("SELECT rowid, bytes FROM scenarios WHERE digest IS NULL")?;
        let rows = select
            .query_map([], |r| {
                Ok((r.get::<_, i64>(0)?, digest(&r.get::<_, Vec<u8>>(1)?)))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows
    };
    let mut update = tx.prepare("UPDATE scenarios SET digest = ?1 WHERE rowid = ?2")?;
    for (rowid, digest) in rows {
        update.execute(params![&digest[..], rowid])?;
    }
    Ok(())
}

/// The SQLite store. Cloning shares the connection.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    /// Longest an async call waits for its blocking thread.
    deadline: Duration,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and its folder,
    /// and applies the migrations.
    ///
    /// # Errors
    /// [`StoreError`] if the folder or file cannot be created or opened.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Folder {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        SqliteStore::migrated(conn)
    }

    /// Opens an existing database at `path` for reading only (the CLI:
    /// looking an id up must not create a store).
    ///
    /// # Errors
    /// [`StoreError`] if there is no database at `path` or it cannot be read.
    pub fn open_read_only(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(SqliteStore {
            conn: Arc::new(Mutex::new(conn)),
            deadline: DEFAULT_DEADLINE,
        })
    }

    /// This store with every async call bounded by `deadline`.
    pub fn with_deadline(self, deadline: Duration) -> SqliteStore {
        SqliteStore { deadline, ..self }
    }

    /// A store in memory (tests; nothing survives the process).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite cannot start.
    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        SqliteStore::migrated(Connection::open_in_memory()?)
    }

    fn migrated(mut conn: Connection) -> Result<SqliteStore, StoreError> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let applied: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let applied = usize::try_from(applied).unwrap_or(0);
        for (version, sql) in (1i64..).zip(MIGRATIONS).skip(applied) {
            tx.execute_batch(sql)?;
            if version == DIGEST_MIGRATION {
                fill_digests(&tx)?;
            }
            tx.pragma_update(None, "user_version", version)?;
        }
        tx.commit()?;
        Ok(SqliteStore {
            conn: Arc::new(Mutex::new(conn)),
            deadline: DEFAULT_DEADLINE,
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written
        // (statements are atomic), so a poisoned lock is still usable.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// [`ScenarioStore::insert`] on this thread (blocks on the disk).
    ///
    /// # Errors
    /// [`StoreError::Full`] over the cap, another [`StoreError`] if the
    /// write fails; nothing is stored then.
    pub fn insert_blocking(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
        frames: u32,
        max_bytes: u64,
    ) -> Result<Stored, StoreError> {
        let created_at = unix_now();
        let adding = bytes.len() as u64;
        let digest = digest(bytes);
        let mut conn = self.conn();
        // Immediate: the write lock from here, so no identical save can
        // come in between the look-up and the insert.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if let Some(id) = same(&tx, kind, name, &digest)? {
            return Ok(Stored { id, existing: true });
        }
        let used: i64 = tx.query_row("SELECT bytes FROM store_usage WHERE id = 1", [], |r| {
            r.get(0)
        })?;
        let used = used as u64;
        if max_bytes > 0 && used + adding > max_bytes {
            return Err(StoreError::Full {
                used,
                adding,
                cap: max_bytes,
            });
        }
        tx.execute(
            "UPDATE store_usage SET bytes = bytes + ?1, scenarios = scenarios + 1 WHERE id = 1",
            params![adding as i64],
        )?;
        loop {
            let id = new_id()?;
            let inserted = tx.execute(
                "INSERT OR IGNORE INTO scenarios (id, kind, name, bytes, frames, created_at, digest)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id, kind.as_str(), name, bytes, frames, created_at, &digest[..]],
            )?;
            // 0 rows: the id was taken (one chance in 2⁷² per stored
            // scenario); draw another.
            if inserted == 1 {
                tx.commit()?;
                return Ok(Stored {
                    id,
                    existing: false,
                });
            }
        }
    }

    /// [`ScenarioStore::find`] on this thread.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn find_blocking(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
    ) -> Result<Option<String>, StoreError> {
        let digest = digest(bytes);
        same(&self.conn(), kind, name, &digest)
    }

    /// [`ScenarioStore::get`] on this thread.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn get_blocking(&self, id: &str) -> Result<Option<StoredScenario>, StoreError> {
        if !super::is_id(id) {
            return Ok(None);
        }
        let conn = self.conn();
        let row = conn
            .query_row(
                "SELECT id, kind, name, bytes, frames, created_at FROM scenarios WHERE id = ?1",
                params![id],
                |r| {
                    Ok(StoredScenario {
                        id: r.get(0)?,
                        kind: r.get(1)?,
                        name: r.get(2)?,
                        bytes: r.get(3)?,
                        frames: r.get(4)?,
                        created_at: r.get(5)?,
                    })
                },
            )
            .optional()?;
        Ok(row)
    }

    /// [`ScenarioStore::count`] on this thread.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn count_blocking(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn()
            .query_row("SELECT COUNT(*) FROM scenarios", [], |r| r.get(0))?;
        Ok(n as u64)
    }

    /// Runs `f` on a clone of this store on the blocking pool.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&SqliteStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let store = self.clone();
        let call = tokio::task::spawn_blocking(move || f(&store));
        match tokio::time::timeout(self.deadline, call).await {
            Ok(done) => done.map_err(|e| StoreError::Task(e.to_string()))?,
            Err(_) => Err(StoreError::Timeout(self.deadline)),
        }
    }
}

/// The id of the oldest item of `kind`, `name` and `digest`, if any.
fn same(
    conn: &Connection,
    kind: ItemKind,
    name: &str,
    digest: &[u8; 32],
) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT id FROM scenarios WHERE kind = ?1 AND digest = ?2 AND name = ?3
             ORDER BY created_at, rowid LIMIT 1",
        )?
        .query_row(params![kind.as_str(), &digest[..], name], |r| r.get(0))
        .optional()?)
}

impl FromSql for ItemKind {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<ItemKind> {
        ItemKind::parse(value.as_str()?).map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}

#[async_trait::async_trait]
impl ScenarioStore for SqliteStore {
    async fn insert(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
        frames: u32,
        max_bytes: u64,
    ) -> Result<Stored, StoreError> {
        let (name, bytes) = (name.to_owned(), bytes.to_vec());
        self.blocking(move |s| s.insert_blocking(kind, &name, &bytes, frames, max_bytes))
            .await
    }

    async fn find(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
    ) -> Result<Option<String>, StoreError> {
        let (name, bytes) = (name.to_owned(), bytes.to_vec());
        self.blocking(move |s| s.find_blocking(kind, &name, &bytes))
            .await
    }

    async fn get(&self, id: &str) -> Result<Option<StoredScenario>, StoreError> {
        let id = id.to_owned();
        self.blocking(move |s| s.get_blocking(&id)).await
    }

    async fn count(&self) -> Result<u64, StoreError> {
        self.blocking(SqliteStore::count_blocking).await
    }

    fn backend(&self) -> &'static str {
        "sqlite"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_twelve_url_safe_characters_and_distinct() {
        let store = SqliteStore::in_memory().unwrap();
        let a = store
            .insert_blocking(ItemKind::Scenario, "a", b"\x01abc", 3, 0)
            .unwrap()
            .id;
        let b = store
            .insert_blocking(ItemKind::Scenario, "b", b"\x01def", 4, 0)
            .unwrap()
            .id;
        assert!(
            super::super::is_id(&a) && super::super::is_id(&b) && a != b,
            "{a} {b}"
        );
        let got = store.get_blocking(&a).unwrap().unwrap();
        assert_eq!(
            (got.name.as_str(), got.bytes.as_slice(), got.frames),
            ("a", &b"\x01abc"[..], 3)
        );
        assert_eq!(store.count_blocking().unwrap(), 2);
    }

    #[test]
    fn the_cap_counts_every_stored_byte_of_either_kind_and_refuses_a_save_past_it() {
        // Room recordings and scenarios share one cap.
        let store = SqliteStore::in_memory().unwrap();
        store
            .insert_blocking(ItemKind::Scenario, "a", &[1; 600], 1, 1000)
            .unwrap();
        let full = store
            .insert_blocking(ItemKind::Room, "b", &[1; 401], 60, 1000)
            .unwrap_err();
        assert!(
            matches!(
                full,
                StoreError::Full {
                    used: 600,
                    adding: 401,
                    cap: 1000
                }
            ),
            "{full}"
        );
        store
            .insert_blocking(ItemKind::Room, "c", &[1; 400], 60, 1000)
            .unwrap();
        assert!(store
            .insert_blocking(ItemKind::Scenario, "d", &[1], 1, 1000)
            .is_err());
        assert_eq!(
            store.count_blocking().unwrap(),
            2,
            "nothing kept of a refused save"
        );
        assert!(
            store
                .insert_blocking(ItemKind::Scenario, "d", &[1], 1, 0)
                .is_ok(),
            "0 = no cap"
        );
    }

    #[test]
    fn unknown_and_malformed_ids_find_nothing() {
        let store = SqliteStore::in_memory().unwrap();
        assert_eq!(store.get_blocking("AAAAAAAAAAAA").unwrap(), None);
        assert_eq!(store.get_blocking("../etc/passw").unwrap(), None);
        assert_eq!(store.get_blocking("").unwrap(), None);
    }

    #[test]
    fn a_file_store_survives_reopening_and_is_migrated_once() {
        let dir = std::env::temp_dir().join(format!("np-store-{}", std::process::id()));
        let path = dir.join("nested").join("scenarios.sqlite3");
        let id = SqliteStore::open(&path)
            .unwrap()
            .insert_blocking(ItemKind::Scenario, "kept", b"\x01x", 1, 0)
            .unwrap()
            .id;
        let again = SqliteStore::open(&path).unwrap();
        assert_eq!(again.get_blocking(&id).unwrap().unwrap().name, "kept");
        let version: i64 = again
            .conn()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
        drop(again);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_file_from_before_versioning_opens_with_its_scenarios() {
        let dir = std::env::temp_dir().join(format!("np-store-old-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.sqlite3");
        let old = Connection::open(&path).unwrap();
        old.execute_batch(MIGRATIONS[0]).unwrap();
        old.execute(
            "INSERT INTO scenarios VALUES ('AAAAAAAAAAAA', 'old', x'01', 1, 0)",
            [],
        )
        .unwrap();
        drop(old);
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(
            store.get_blocking("AAAAAAAAAAAA").unwrap().unwrap().name,
            "old"
        );
        // Its byte counts what was there: one more byte passes a 2-byte cap.
        assert!(store
            .insert_blocking(ItemKind::Scenario, "new", &[1], 1, 2)
            .is_ok());
        assert!(store
            .insert_blocking(ItemKind::Scenario, "new", &[2], 1, 2)
            .is_err());
        drop(store);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_file_of_the_schema_before_kinds_upgrades_in_place_and_its_rows_are_scenarios() {
        let dir = std::env::temp_dir().join(format!("np-store-kinds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v2.sqlite3");
        // The file as the relay left it before migration 3.
        let old = Connection::open(&path).unwrap();
        old.execute_batch(MIGRATIONS[0]).unwrap();
        old.execute(
            "INSERT INTO scenarios VALUES ('AAAAAAAAAAAA', 'old', x'0102', 1, 0)",
            [],
        )
        .unwrap();
        old.execute_batch(MIGRATIONS[1]).unwrap();
        old.pragma_update(None, "user_version", 2).unwrap();
        drop(old);

        let store = SqliteStore::open(&path).unwrap();
        let old = store.get_blocking("AAAAAAAAAAAA").unwrap().unwrap();
        assert_eq!((old.kind, old.name.as_str()), (ItemKind::Scenario, "old"));
        let room = store
            .insert_blocking(ItemKind::Room, "lobby", &[9; 3], 120, 0)
            .unwrap()
            .id;
        let got = store.get_blocking(&room).unwrap().unwrap();
        assert_eq!(
            (
                got.kind,
                got.name.as_str(),
                got.bytes.as_slice(),
                got.frames
            ),
            (ItemKind::Room, "lobby", &[9u8; 3][..], 120)
        );
        let version: i64 = store
            .conn()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
        // The schema refuses a kind it does not know.
        let odd = store.conn().execute(
            "INSERT INTO scenarios (id, kind, name, bytes, frames, created_at)
             VALUES ('BBBBBBBBBBBB', 'movie', 'x', x'01', 1, 0)",
            [],
        );
        assert!(odd.is_err(), "{odd:?}");
        drop(store);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_same_bytes_of_the_same_kind_and_name_are_stored_once() {
        let store = SqliteStore::in_memory().unwrap();
        let first = store
            .insert_blocking(ItemKind::Room, "lobby", &[5; 100], 60, 0)
            .unwrap();
        assert!(!first.existing);
        for _ in 0..12 {
            let again = store
                .insert_blocking(ItemKind::Room, "lobby", &[5; 100], 60, 0)
                .unwrap();
            assert_eq!(
                again,
                Stored {
                    id: first.id.clone(),
                    existing: true
                }
            );
        }
        assert_eq!(
            store
                .find_blocking(ItemKind::Room, "lobby", &[5; 100])
                .unwrap(),
            Some(first.id.clone())
        );
        // Another kind, name or byte is another item.
        for (kind, name, bytes) in [
            (ItemKind::Scenario, "lobby", [5u8; 100]),
            (ItemKind::Room, "hall", [5; 100]),
            (ItemKind::Room, "lobby", {
                let mut b = [5; 100];
                b[99] = 6;
                b
            }),
        ] {
            assert_eq!(store.find_blocking(kind, name, &bytes).unwrap(), None);
            let other = store.insert_blocking(kind, name, &bytes, 60, 0).unwrap();
            assert!(!other.existing && other.id != first.id, "{name}");
        }
        assert_eq!(store.count_blocking().unwrap(), 4);
        // The usage row counted each item once: 400 bytes, so a 400-byte
        // cap refuses anything new but still answers a stored item.
        let usage: (i64, i64) = store
            .conn()
            .query_row("SELECT bytes, scenarios FROM store_usage", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(usage, (400, 4));
        let full = store.insert_blocking(ItemKind::Room, "lobby", &[7], 1, 400);
        assert!(matches!(full, Err(StoreError::Full { .. })), "{full:?}");
        let found = store
            .insert_blocking(ItemKind::Room, "lobby", &[5; 100], 60, 400)
            .unwrap();
        assert_eq!(found.id, first.id);
    }

    #[test]
    fn a_file_from_before_digests_gets_them_and_its_copies_are_found() {
        let dir = std::env::temp_dir().join(format!("np-store-digest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v3.sqlite3");
        // The file as the relay left it before migration 4, with two
        // copies of one recording (saved twice before de-duplication).
        let old = Connection::open(&path).unwrap();
        for sql in &MIGRATIONS[..3] {
            old.execute_batch(sql).unwrap();
        }
        old.execute_batch(
            "INSERT INTO scenarios (id, kind, name, bytes, frames, created_at) VALUES
                ('AAAAAAAAAAAA', 'room', 'lobby', x'0102', 1, 10),
                ('BBBBBBBBBBBB', 'room', 'lobby', x'0102', 1, 20),
                ('CCCCCCCCCCCC', 'scenario', 's', x'01', 1, 30);
             UPDATE store_usage SET bytes = 5, scenarios = 3;",
        )
        .unwrap();
        old.pragma_update(None, "user_version", 3).unwrap();
        drop(old);

        let store = SqliteStore::open(&path).unwrap();
        let nulls: i64 = store
            .conn()
            .query_row(
                "SELECT COUNT(*) FROM scenarios WHERE digest IS NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(nulls, 0);
        let stored: Vec<u8> = store
            .conn()
            .query_row(
                "SELECT digest FROM scenarios WHERE id = 'CCCCCCCCCCCC'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(stored, digest(&[1]).to_vec());
        // The oldest copy answers; nothing new is stored.
        let again = store
            .insert_blocking(ItemKind::Room, "lobby", &[1, 2], 1, 0)
            .unwrap();
        assert_eq!(
            again,
            Stored {
                id: "AAAAAAAAAAAA".into(),
                existing: true
            }
        );
        assert_eq!(
            store.find_blocking(ItemKind::Scenario, "s", &[1]).unwrap(),
            Some("CCCCCCCCCCCC".into())
        );
        assert_eq!(store.count_blocking().unwrap(), 3);
        drop(store);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_file_of_the_schema_before_matches_upgrades_in_place_and_takes_match_recordings() {
        let dir = std::env::temp_dir().join(format!("np-store-matches-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v4.sqlite3");
        // The file as the relay left it before migration 5: a scenario
        // and two copies of one room recording (the older one is found).
        let old = Connection::open(&path).unwrap();
        for sql in &MIGRATIONS[..4] {
            old.execute_batch(sql).unwrap();
        }
        old.pragma_update(None, "user_version", 4).unwrap();
        let refused = old.execute(
            "INSERT INTO scenarios (id, kind, name, bytes, frames, created_at)
             VALUES ('MMMMMMMMMMMM', 'match', 'm', x'01', 1, 0)",
            [],
        );
        assert!(
            refused.is_err(),
            "the old schema refuses 'match': {refused:?}"
        );
        for (id, kind, name, bytes, at) in [
            ("CCCCCCCCCCCC", "scenario", "s", vec![1u8], 30),
            ("BBBBBBBBBBBB", "room", "lobby", vec![1, 2], 20),
            ("AAAAAAAAAAAA", "room", "lobby", vec![1, 2], 20),
        ] {
            old.execute(
                "INSERT INTO scenarios (id, kind, name, bytes, frames, created_at, digest)
                 VALUES (?1, ?2, ?3, ?4, 7, ?5, ?6)",
                params![id, kind, name, &bytes, at, &digest(&bytes)[..]],
            )
            .unwrap();
        }
        old.execute_batch("UPDATE store_usage SET bytes = 5, scenarios = 3;")
            .unwrap();
        drop(old);

        let store = SqliteStore::open(&path).unwrap();
        let version: i64 = store
            .conn()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
        assert_eq!(version, 5);
        // Every row as it was.
        for (id, kind, name, bytes) in [
            ("CCCCCCCCCCCC", ItemKind::Scenario, "s", &[1u8][..]),
            ("BBBBBBBBBBBB", ItemKind::Room, "lobby", &[1, 2]),
            ("AAAAAAAAAAAA", ItemKind::Room, "lobby", &[1, 2]),
        ] {
            let row = store.get_blocking(id).unwrap().unwrap();
            assert_eq!(
                (
                    row.kind,
                    row.name.as_str(),
                    row.bytes.as_slice(),
                    row.frames
                ),
                (kind, name, bytes, 7),
                "{id}"
            );
        }
        assert_eq!(store.count_blocking().unwrap(), 3);
        // The first of the copies (by rowid, as before) is still found,
        // through the index made again.
        assert_eq!(
            store
                .find_blocking(ItemKind::Room, "lobby", &[1, 2])
                .unwrap()
                .as_deref(),
            Some("BBBBBBBBBBBB")
        );
        let index: i64 = store
            .conn()
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'
                 AND name = 'scenarios_kind_digest' AND tbl_name = 'scenarios'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(index, 1);
        // A match recording goes beside them, under the cap the usage
        // row carried over (5 bytes stored).
        assert!(matches!(
            store.insert_blocking(ItemKind::Match, "duel", &[9; 4], 60, 8),
            Err(StoreError::Full { used: 5, .. })
        ));
        let saved = store
            .insert_blocking(ItemKind::Match, "duel", &[9; 3], 60, 8)
            .unwrap();
        assert!(!saved.existing);
        let got = store.get_blocking(&saved.id).unwrap().unwrap();
        assert_eq!(
            (
                got.kind,
                got.name.as_str(),
                got.bytes.as_slice(),
                got.frames
            ),
            (ItemKind::Match, "duel", &[9u8; 3][..], 60)
        );
        let again = store
            .insert_blocking(ItemKind::Match, "duel", &[9; 3], 60, 8)
            .unwrap();
        assert_eq!(
            again,
            Stored {
                id: saved.id.clone(),
                existing: true
            }
        );
        // The same bytes as a room recording are another item.
        assert_eq!(
            store
                .find_blocking(ItemKind::Room, "duel", &[9; 3])
                .unwrap(),
            None
        );
        // A kind it does not know is still refused.
        let odd = store.conn().execute(
            "INSERT INTO scenarios (id, kind, name, bytes, frames, created_at)
             VALUES ('DDDDDDDDDDDD', 'movie', 'x', x'01', 1, 0)",
            [],
        );
        assert!(odd.is_err(), "{odd:?}");
        drop(store);
        // Opened again: nothing applied twice.
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.count_blocking().unwrap(), 4);
        drop(store);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
