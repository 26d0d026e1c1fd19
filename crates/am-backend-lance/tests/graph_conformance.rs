//! Runs the conformance group `graph` against the LanceDB connector, each check
//! on a fresh mind in its own temporary directory: a `LanceDBTripleStore` with
//! the graph tables beside its triple table, and a `SQLiteJournal` in another
//! file (closures are appended after each commit):
//! `cargo test -p am-backend-lance --test graph_conformance`.
//!
//! The connector declares two exceptions (`GraphCapabilities`): writers of one
//! mind in two processes are not serialized, and a crash mid-commit stays
//! visible until `repair()`. No check of the group requires either (none
//! spawns a second process or crashes a commit), so every check runs; the
//! exceptions are printed at start. The crash path is pinned by
//! `tests/graph_repair.rs`.

use am_backend_lance::graph::LanceGraphBackend;
use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_conformance::graph::{GraphFactory, OpenGraph};
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use std::sync::Arc;

/// Every graph is a fresh mind: a LanceDB directory and a journal file.
struct Lance;

type Handles = (
    Arc<LanceDBTripleStore>,
    Arc<SQLiteJournal>,
    tempfile::TempDir,
);

fn storage(e: impl std::fmt::Display) -> am_graph::Error {
    am_graph::Error::storage(e.to_string())
}

impl GraphFactory for Lance {
    fn open(&self) -> am_graph::Result<OpenGraph> {
        let dir = tempfile::tempdir().map_err(storage)?;
        let uri = dir.path().join("mind");
        let store = Arc::new(
            LanceDBTripleStore::open(&uri.to_string_lossy(), None, LanceStoreOptions::default())
                .map_err(storage)?,
        );
        let home = SqliteHome::open(dir.path().join("journal.sqlite3")).map_err(storage)?;
        let journal = Arc::new(SQLiteJournal::open(&home).map_err(storage)?);
        let graph = am_backend_lance::graph::open_graph(
            Arc::clone(&store),
            Some(GraphJournal::new(Arc::clone(&journal))),
        )?;
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
        am_backend_lance::graph::open_graph(
            Arc::clone(store),
            Some(GraphJournal::new(Arc::clone(journal))),
        )
    }
}

fn main() {
    let caps = LanceGraphBackend::CAPABILITIES;
    eprintln!(
        "lancedb graph connector declares: cross_process_writers = {} (writers of one mind in \
         two processes are not serialized), atomic_commit = {} (a crash mid-commit stays \
         visible until repair()); no graph check requires either, so none is skipped",
        caps.cross_process_writers, caps.atomic_commit
    );
    am_conformance::graph::main_for("lance", Lance);
}
