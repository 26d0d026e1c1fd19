//! Runs the conformance group `graph` against the SQLite connector, each check on
//! a fresh home in its own temporary directory, with the `SQLiteJournal` in the
//! same file (closures commit in the revision's transaction):
//! `cargo test -p am-backend-sqlite --test graph_conformance`.

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_conformance::graph::{GraphFactory, OpenGraph};
use am_graph::graph::MemoryGraph;
use std::sync::Arc;

/// Every graph is a fresh home: store, journal and graph tables in one file.
struct Sqlite;

type Handles = (
    Arc<SQLiteTripleStore>,
    Arc<SQLiteJournal>,
    tempfile::TempDir,
);

fn storage(e: impl std::fmt::Display) -> am_graph::Error {
    am_graph::Error::storage(e.to_string())
}

impl GraphFactory for Sqlite {
    fn open(&self) -> am_graph::Result<OpenGraph> {
        let dir = tempfile::tempdir().map_err(storage)?;
        let store = Arc::new(
            SQLiteTripleStore::open(
                dir.path().join("mind.sqlite3"),
                None,
                SqliteStoreOptions::default(),
            )
            .map_err(storage)?,
        );
        let journal = Arc::new(SQLiteJournal::open(store.home()).map_err(storage)?);
        let graph =
            am_backend_sqlite::graph::open_graph(Arc::clone(&store), Some(Arc::clone(&journal)))?;
        Ok(OpenGraph {
            graph,
            store: store.clone(),
            journal: journal.clone(),
            guard: Box::new((store, journal, dir)),
        })
    }

    fn reopen(&self, g: &OpenGraph) -> am_graph::Result<MemoryGraph> {
        let (store, journal, _) = g
            .guard
            .downcast_ref::<Handles>()
            .ok_or_else(|| am_graph::Error::invalid("not a graph this factory opened"))?;
        am_backend_sqlite::graph::open_graph(Arc::clone(store), Some(Arc::clone(journal)))
    }
}

fn main() {
    am_conformance::graph::main_for("sqlite", Sqlite);
}
