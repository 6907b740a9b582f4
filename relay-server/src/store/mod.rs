//! The scenario store: one trait, [`ScenarioStore`], and two backends with
//! the same schema and the same durability promise.
//!
//! | backend | selected by `--db` / `PLAYGROUND_DB` | for |
//! |---|---|---|
//! | [`SqliteStore`] (rusqlite, bundled; WAL, `synchronous = FULL`) | a path (default `data/scenarios.sqlite3`) | the one-command run: one relay, an embedded file |
//! | [`PgStore`] (tokio-postgres + deadpool-postgres pool; `synchronous_commit = on`) | a `postgres://` or `postgresql://` URL | several relays behind a proxy sharing one store |
//!
//! **Schema** (migrations applied at start by either backend, once each):
//! 1. `scenarios(id, name, bytes, frames, created_at)` holding each
//!    scenario in its compact encoding ([`sim::scenario::codec`]);
//! 2. `store_usage(id = 1, bytes, scenarios)`, one row: what the stored
//!    items take and how many there are, kept in the same transaction as
//!    every insert, so the storage cap ([`ScenarioStore::insert`]'s
//!    `max_bytes`) holds across relays without summing the table;
//! 3. (PostgreSQL only) `room_homes`, the registry of live shared rooms
//!    (`crate::homes`);
//! 4. (SQLite's 3rd) `scenarios.kind` ([`ItemKind`]): `'scenario'` (the
//!    default, so every row from before is one) or `'room'`, a saved room
//!    recording ([`sim::endpoints::room::recording::RoomRecording::to_bytes`]).
//!    Every kind shares the table, its id space, the usage row and the cap;
//! 5. (SQLite's 4th) `scenarios.digest`, the SHA-256 of `bytes`
//!    ([`digest`]), filled in for the rows already there (SQLite: by the
//!    relay as it migrates; PostgreSQL: `sha256(bytes)`), and the index
//!    `scenarios_kind_digest (kind, digest)`: a save of the same kind,
//!    name and bytes as a stored item answers that item's id and stores
//!    nothing ([`Stored::existing`]; not a `UNIQUE` index: stores from
//!    before it may hold copies, and keep them);
//! 6. (SQLite's 5th) `'match'` joins the kinds the `kind` column's `CHECK`
//!    allows: a saved rollback match recording
//!    ([`sim::rollback::recording::MatchRecording::to_bytes`]). PostgreSQL
//!    drops and re-adds the constraint (`scenarios_kind_check`); SQLite,
//!    which cannot alter a `CHECK`, rebuilds the table in the migration's
//!    transaction (a new table, every row copied, the old one dropped, the
//!    new one renamed, `scenarios_kind_digest` made again).
//!
//! **De-duplication**: [`ScenarioStore::insert`] looks for an item of the
//! same kind, name and digest in the transaction that would insert it,
//! after taking the write lock (SQLite's `BEGIN IMMEDIATE`, PostgreSQL's
//! lock on the usage row, which every insert takes), so two identical
//! saves at once — on one relay or two — store one item; a found item is
//! answered even when the store is full. [`ScenarioStore::find`] asks the
//! same without writing (the API asks it before charging a save).
//!
//! **Deadline**: every call, from waiting for a connection to the last
//! row, answers within [`Location::open`]'s deadline (default
//! [`DEFAULT_DEADLINE`], `--db-timeout-ms`) or fails with
//! [`StoreError::Timeout`]. A PostgreSQL connection whose call timed out is
//! closed, never handed to the next call (a silent server — a freeze, a
//! lost route — would otherwise hold every later call too); a SQLite call
//! keeps its blocking thread until the disk answers, and the next calls
//! wait on the file's lock and time out as well. A save that timed out may
//! still be committed afterwards if the database was merely slow: it then
//! exists without its client ever learning the id (nothing is lost).
//!
//! **Durability**: [`ScenarioStore::insert`] returns only once the row is
//! committed to stable storage (SQLite: the WAL is fsynced; PostgreSQL: the
//! commit's WAL record is flushed on the server). The relay answers 201
//! after that, so a killed relay keeps every save it acknowledged.
//!
//! **Why tokio-postgres + deadpool-postgres, not sqlx.** The relay already
//! runs on tokio and needs three statements: tokio-postgres is the
//! asynchronous driver itself (sqlx's PostgreSQL support wraps the same
//! protocol work in a larger crate with query macros that want a database
//! or prepared metadata at build time), deadpool-postgres is a small,
//! maintained pool for it; and moving SQLite to sqlx as well would put its
//! `libsqlite3-sys` beside rusqlite's bundled one, which Cargo allows only
//! when both want the same version (`links = "sqlite3"`).
//!
//! Ids are [`ID_CHARS`] base64url characters from 72 random bits; a
//! malformed id is answered "not found" without touching the database.

mod postgres;
mod sqlite;

pub(crate) use postgres::Db;
pub use postgres::PgStore;
pub use sqlite::SqliteStore;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
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
    /// PostgreSQL refused or the connection failed.
    #[error("scenario store: {0}")]
    Postgres(#[from] tokio_postgres::Error),
    /// No PostgreSQL connection could be had from the pool in time.
    #[error("scenario store: no database connection: {0}")]
    Pool(String),
    /// The `--db` value is neither a path nor a PostgreSQL URL that parses.
    #[error("scenario store location {0}")]
    Location(String),
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
    /// The blocking task running a SQLite call died (a panic).
    #[error("scenario store task failed: {0}")]
    Task(String),
    /// The database did not answer within the deadline.
    #[error("scenario store: the database did not answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    /// A row's `kind` is none of `scenario`, `room` and `match`.
    #[error("scenario store: a row of unknown kind {0:?}")]
    Kind(String),
    /// The save would take the stored scenarios past the storage cap.
    #[error(
        "the scenario store is full: its scenarios take {used} bytes, and this one ({adding} bytes) \
         would pass the cap of {cap} bytes"
    )]
    Full {
        /// Bytes stored now.
        used: u64,
        /// Bytes this save adds.
        adding: u64,
        /// The cap.
        cap: u64,
    },
}

/// How long a store call may take unless `--db-timeout-ms` says otherwise:
/// a save is one short transaction (milliseconds on a healthy database),
/// and the page's Save button should answer within a human pause.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(2);

/// What a stored item is. Every kind shares one table, one id space and
/// the storage cap; each route serves only its own kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A scenario's compact encoding ([`sim::scenario::codec`]), served by
    /// `/api/scenarios/{id}` and `/s/{id}`.
    Scenario,
    /// A shared room's recording
    /// ([`sim::endpoints::room::recording::RoomRecording::to_bytes`]),
    /// served by `/api/room-recordings/{id}`.
    Room,
    /// A rollback room's match recording
    /// ([`sim::rollback::recording::MatchRecording::to_bytes`]), served by
    /// `/api/match-recordings/{id}`.
    Match,
}

impl ItemKind {
    /// The value of the `kind` column: `"scenario"`, `"room"` or
    /// `"match"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Scenario => "scenario",
            ItemKind::Room => "room",
            ItemKind::Match => "match",
        }
    }

    /// The kind a `kind` column holds.
    ///
    /// # Errors
    /// [`StoreError::Kind`] for any other value (the schema's `CHECK`
    /// allows none).
    fn parse(column: &str) -> Result<ItemKind, StoreError> {
        match column {
            "scenario" => Ok(ItemKind::Scenario),
            "room" => Ok(ItemKind::Room),
            "match" => Ok(ItemKind::Match),
            other => Err(StoreError::Kind(other.to_owned())),
        }
    }
}

/// A stored item's row: a scenario, a room recording or a match
/// recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredScenario {
    /// Its id.
    pub id: String,
    /// What it is.
    pub kind: ItemKind,
    /// A scenario's name (also inside `bytes`), or the recorded room's
    /// (a match recording's too).
    pub name: String,
    /// The compact encoding.
    pub bytes: Vec<u8>,
    /// A scenario's recorded frames, or a room or match recording's ticks.
    pub frames: u32,
    /// Unix time of the save, s.
    pub created_at: i64,
}

/// What [`ScenarioStore::insert`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The item's id.
    pub id: String,
    /// `true`: an item of the same kind, name and bytes was stored
    /// already, and `id` is its (nothing was written); `false`: stored
    /// under a new id.
    pub existing: bool,
}

/// The SHA-256 of an item's bytes, as the `digest` column holds it.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).into()
}

/// Where scenarios are kept. Both backends behave the same: see the
/// module docs.
#[async_trait::async_trait]
pub trait ScenarioStore: Send + Sync + std::fmt::Debug {
    /// Stores an item of `kind` (its encoding `bytes`, `name` and
    /// `frames` as [`StoredScenario`] says) and returns its new id, unless
    /// an item of the same kind, name and bytes is stored already (then
    /// its id, [`Stored::existing`], nothing written, whatever the cap) or
    /// the stored items of every kind would then take more than
    /// `max_bytes` (`0` = no cap). Durable when it returns.
    ///
    /// # Errors
    /// [`StoreError::Full`] over the cap, [`StoreError::Timeout`] past the
    /// deadline, another [`StoreError`] if the write fails; nothing is
    /// stored then (but see the module docs on a timed-out save).
    async fn insert(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
        frames: u32,
        max_bytes: u64,
    ) -> Result<Stored, StoreError>;

    /// The id of a stored item of `kind`, `name` and these `bytes`, if
    /// there is one (the oldest, if a store from before de-duplication
    /// holds copies).
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    async fn find(
        &self,
        kind: ItemKind,
        name: &str,
        bytes: &[u8],
    ) -> Result<Option<String>, StoreError>;

    /// The item stored under `id`, of any kind, if any (`None` for a
    /// malformed id).
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    async fn get(&self, id: &str) -> Result<Option<StoredScenario>, StoreError>;

    /// How many items are stored, of every kind.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    async fn count(&self) -> Result<u64, StoreError>;

    /// The backend's name for logs and `/healthz`: `"sqlite"` or
    /// `"postgres"`.
    fn backend(&self) -> &'static str;
}

/// A store location as given to `--db`: a PostgreSQL URL or a file path.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// `postgres://…` or `postgresql://…` (libpq's URL form).
    Postgres(String),
    /// A SQLite file (created with its folder if missing).
    Sqlite(PathBuf),
}

impl std::str::FromStr for Location {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Location, Self::Err> {
        let lower = s.get(..13).unwrap_or(s).to_ascii_lowercase();
        Ok(
            if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
                Location::Postgres(s.to_owned())
            } else {
                Location::Sqlite(PathBuf::from(s))
            },
        )
    }
}

impl std::fmt::Display for Location {
    /// The location for logs: a URL's password is never shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&postgres::redact(url)),
        }
    }
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Location({self})")
    }
}

impl Location {
    /// Opens the store (for PostgreSQL: connects, checks the connection and
    /// applies the migrations; for SQLite: creates the file and folder if
    /// needed), every later call bounded by `deadline`.
    ///
    /// # Errors
    /// [`StoreError`] if the database cannot be reached, opened or migrated.
    pub async fn open(&self, deadline: Duration) -> Result<Arc<dyn ScenarioStore>, StoreError> {
        Ok(match self {
            Location::Postgres(url) => {
                Arc::new(PgStore::connect(url).await?.with_deadline(deadline))
            }
            Location::Sqlite(path) => {
                let path = path.clone();
                let store = tokio::task::spawn_blocking(move || SqliteStore::open(&path))
                    .await
                    .map_err(|e| StoreError::Task(e.to_string()))??;
                Arc::new(store.with_deadline(deadline))
            }
        })
    }
}

/// `true` if `id` has the shape of an id (length and base64url alphabet);
/// anything else is answered without touching the database.
pub fn is_id(id: &str) -> bool {
    id.len() == ID_CHARS
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A fresh id.
fn new_id() -> Result<String, StoreError> {
    let mut raw = [0u8; 9];
    getrandom::fill(&mut raw).map_err(|e| StoreError::Random(e.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(raw))
}

/// The time of a save, Unix s.
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_select_postgres_and_anything_else_is_a_sqlite_path() {
        let pg: Location = "postgres://u:secret@127.0.0.1:5432/np".parse().unwrap();
        assert!(matches!(pg, Location::Postgres(_)));
        assert_eq!(pg.to_string(), "postgres://u:***@127.0.0.1:5432/np");
        let pg: Location = "PostgreSQL://db/np".parse().unwrap();
        assert!(matches!(pg, Location::Postgres(_)));
        let file: Location = "data/scenarios.sqlite3".parse().unwrap();
        assert_eq!(
            file,
            Location::Sqlite(PathBuf::from("data/scenarios.sqlite3"))
        );
        let odd: Location = "postgres.sqlite3".parse().unwrap();
        assert!(matches!(odd, Location::Sqlite(_)));
    }

    #[test]
    fn malformed_ids_are_not_ids() {
        assert!(is_id("AAAAAAAAAAAA") && is_id("a-_9Zz012345"));
        assert!(!is_id("short") && !is_id("has space 12") && !is_id("../etc/passw"));
        assert!(is_id(&new_id().unwrap()));
    }
}
