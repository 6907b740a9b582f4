//! Reading a saved item out of the relay's store (SQLite or PostgreSQL,
//! as its `--db`), read only.

use relay_server::store::{Location, PgStore, ScenarioStore, SqliteStore, StoredScenario};

/// The row `id` names in the store at `db`, read only.
pub fn lookup(db: &Location, id: &str) -> anyhow::Result<Option<StoredScenario>> {
    Ok(match db {
        Location::Sqlite(path) => SqliteStore::open_read_only(path)?.get_blocking(id)?,
        Location::Postgres(url) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
            .block_on(async { PgStore::connect_existing(url).await?.get(id).await })?,
    })
}
