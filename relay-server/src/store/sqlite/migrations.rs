//! The SQLite store's schema migrations, in order: SQLite's own
//! `PRAGMA user_version` counts those applied, and a file written by any
//! older relay upgrades in place when opened ([`apply`]).

use super::super::{digest, StoreError};
use rusqlite::{params, Connection};

/// The migrations, in order; `user_version` = how many are applied.
/// Migration 1 is the schema the relay had before versioning, so a file
/// written by an older relay (`user_version` 0, table present) takes it as
/// a no-op. Migration 3 gives every row its [`ItemKind`](crate::store::ItemKind): the rows before
/// it are scenarios. Migration 4 adds each row's [`digest`] (the rows
/// before it get theirs from [`fill_digests`], SQLite having no SHA-256)
/// and the index de-duplication looks items up by. Migration 5 lets the
/// `kind` column hold `'match'` ([`ItemKind::Match`](crate::store::ItemKind::Match)): SQLite cannot alter
/// a `CHECK`, so it rebuilds the table — the same columns in the same
/// order, every row copied in `rowid` order (the oldest of equal items
/// stays the one found), the old table dropped with its index, the new one
/// renamed and the index made again — all in the migrations' one
/// transaction.
pub(super) const MIGRATIONS: &[&str] = &[
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

/// Applies the migrations `conn`'s file lacks, in one transaction.
///
/// # Errors
/// [`StoreError`] if one fails; the file is left as it was.
pub(super) fn apply(conn: &mut Connection) -> Result<(), StoreError> {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::SqliteStore;
    use super::*;
    use crate::store::{ItemKind, Stored};

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
