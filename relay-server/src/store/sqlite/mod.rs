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
mod migrations;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
        migrations::apply(&mut conn)?;
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
        assert_eq!(version, migrations::MIGRATIONS.len() as i64);
        drop(again);
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
}
