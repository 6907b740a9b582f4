//! The scenario store: SQLite (bundled, via rusqlite) at a path of the
//! operator's choosing, or in memory for tests.
//!
//! One table, `scenarios(id, name, bytes, frames, created_at)`, holding each
//! scenario in its compact encoding ([`sim::scenario::codec`]). The file
//! runs in WAL mode with `synchronous = FULL`, so a save is on disk when
//! [`ScenarioStore::insert`] returns: the relay answers 201 only after that,
//! and a killed relay keeps every save it acknowledged. Writes are
//! serialized by one connection behind a mutex (SQLite allows one writer
//! anyway); callers run them on tokio's blocking pool.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::Mutex;
use thiserror::Error;

/// Characters of a scenario id: 9 random bytes (72 bits) as base64url, so
/// ids cannot be enumerated (2⁷² possibilities).
pub const ID_CHARS: usize = 12;

/// A store failure.
#[derive(Debug, Error)]
pub enum StoreError {
    /// SQLite refused (disk full, corrupt file, locked by another process).
    #[error("scenario store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The folder for the database file could not be created.
    #[error("scenario store folder {path}: {source}")]
    Folder {
        /// The folder.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The OS random source failed (no id can be made).
    #[error("no randomness for a scenario id: {0}")]
    Random(String),
}

/// A stored scenario's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredScenario {
    /// Its id.
    pub id: String,
    /// Its name (also inside `bytes`; kept for listing).
    pub name: String,
    /// The compact encoding.
    pub bytes: Vec<u8>,
    /// Recorded frames.
    pub frames: u32,
    /// Unix time of the save, s.
    pub created_at: i64,
}

/// The scenario store. See the module docs.
#[derive(Debug)]
pub struct ScenarioStore {
    conn: Mutex<Connection>,
}

/// `true` if `id` has the shape of an id (length and base64url alphabet);
/// anything else is answered without touching the database.
pub fn is_id(id: &str) -> bool {
    id.len() == ID_CHARS
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn new_id() -> Result<String, StoreError> {
    let mut raw = [0u8; 9];
    getrandom::fill(&mut raw).map_err(|e| StoreError::Random(e.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(raw))
}

impl ScenarioStore {
    /// Opens (creating if needed) the database at `path` and its folder.
    ///
    /// # Errors
    /// [`StoreError`] if the folder or file cannot be created or opened.
    pub fn open(path: &Path) -> Result<ScenarioStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Folder {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        ScenarioStore::with_connection(conn)
    }

    /// Opens an existing database at `path` for reading only (the CLI:
    /// looking an id up must not create a store).
    ///
    /// # Errors
    /// [`StoreError`] if there is no database at `path` or it cannot be read.
    pub fn open_read_only(path: &Path) -> Result<ScenarioStore, StoreError> {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(ScenarioStore {
            conn: Mutex::new(conn),
        })
    }

    /// A store in memory (tests; nothing survives the process).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite cannot start.
    pub fn in_memory() -> Result<ScenarioStore, StoreError> {
        ScenarioStore::with_connection(Connection::open_in_memory()?)
    }

    fn with_connection(conn: Connection) -> Result<ScenarioStore, StoreError> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS scenarios (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                bytes BLOB NOT NULL,
                frames INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            ) STRICT;",
        )?;
        Ok(ScenarioStore {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written
        // (statements are atomic), so a poisoned lock is still usable.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stores an encoded scenario and returns its new id. Durable when it
    /// returns (see the module docs).
    ///
    /// # Errors
    /// [`StoreError`] if the write fails; nothing is stored then.
    pub fn insert(&self, name: &str, bytes: &[u8], frames: u32) -> Result<String, StoreError> {
        let created_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let conn = self.conn();
        loop {
            let id = new_id()?;
            let inserted = conn.execute(
                "INSERT OR IGNORE INTO scenarios (id, name, bytes, frames, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, name, bytes, frames, created_at],
            )?;
            // 0 rows: the id was taken (one chance in 2⁷² per stored
            // scenario); draw another.
            if inserted == 1 {
                return Ok(id);
            }
        }
    }

    /// The scenario stored under `id`, if any.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn get(&self, id: &str) -> Result<Option<StoredScenario>, StoreError> {
        if !is_id(id) {
            return Ok(None);
        }
        let conn = self.conn();
        let row = conn
            .query_row(
                "SELECT id, name, bytes, frames, created_at FROM scenarios WHERE id = ?1",
                params![id],
                |r| {
                    Ok(StoredScenario {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        bytes: r.get(2)?,
                        frames: r.get(3)?,
                        created_at: r.get(4)?,
                    })
                },
            )
            .optional()?;
        Ok(row)
    }

    /// How many scenarios are stored.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn count(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn()
            .query_row("SELECT COUNT(*) FROM scenarios", [], |r| r.get(0))?;
        Ok(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_twelve_url_safe_characters_and_distinct() {
        let store = ScenarioStore::in_memory().unwrap();
        let a = store.insert("a", b"\x01abc", 3).unwrap();
        let b = store.insert("b", b"\x01def", 4).unwrap();
        assert!(is_id(&a) && is_id(&b) && a != b, "{a} {b}");
        let got = store.get(&a).unwrap().unwrap();
        assert_eq!(
            (got.name.as_str(), got.bytes.as_slice(), got.frames),
            ("a", &b"\x01abc"[..], 3)
        );
        assert_eq!(store.count().unwrap(), 2);
    }

    #[test]
    fn unknown_and_malformed_ids_find_nothing() {
        let store = ScenarioStore::in_memory().unwrap();
        assert_eq!(store.get("AAAAAAAAAAAA").unwrap(), None);
        assert_eq!(store.get("../etc/passw").unwrap(), None);
        assert_eq!(store.get("").unwrap(), None);
        assert!(!is_id("short") && !is_id("has space 12"));
    }

    #[test]
    fn a_file_store_survives_reopening() {
        let dir = std::env::temp_dir().join(format!("np-store-{}", std::process::id()));
        let path = dir.join("nested").join("scenarios.sqlite3");
        let id = ScenarioStore::open(&path)
            .unwrap()
            .insert("kept", b"\x01x", 1)
            .unwrap();
        let again = ScenarioStore::open(&path).unwrap();
        assert_eq!(again.get(&id).unwrap().unwrap().name, "kept");
        drop(again);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
