//! The SQLite graph connector: the `memg_*` tables in the home's file beside the
//! triples and the journal's `memj_*` tables, one `BEGIN IMMEDIATE` transaction
//! per revision over the home's shared connection, the closures committed in that
//! transaction when the `SQLiteJournal` shares the file.
//!
//! Spec: api.md "Connectors (`abstractmemory.graph.backend`)" (`_SQLiteBackend`)
//! and "The graph tables (SQLite)".
//!
//! Register it once per process with [`register`] (or open through
//! [`open_graph`], which does), since `am-graph` depends on no backend:
//!
//! ```
//! # use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions, journal::SQLiteJournal};
//! # use std::sync::Arc;
//! # let dir = tempfile::tempdir().unwrap();
//! let store = Arc::new(SQLiteTripleStore::open(dir.path().join("mind.sqlite3"), None,
//!     SqliteStoreOptions::default()).unwrap());
//! let journal = Arc::new(SQLiteJournal::open(store.home()).unwrap());
//! let graph = am_backend_sqlite::graph::open_graph(store, Some(journal)).unwrap();
//! assert_eq!(graph.backend().name(), "sqlite");
//! ```

mod reads;
pub mod schema;
mod sql;
mod tx;

use crate::home::SharedConn;
use crate::journal::SQLiteJournal;
use crate::store::SQLiteTripleStore;
use am_graph::backend::{BackendResult, GraphBackend};
use am_graph::graph::MemoryGraph;
use am_graph::registry::{AnyStore, GraphJournal, register_backend};
use rusqlite::{Connection, OptionalExtension};
use schema::GraphTables;
use std::path::PathBuf;
use std::sync::{Arc, MutexGuard, Once};

pub use schema::{Missing, ensure_schema};

/// The SQLite connector of one home.
pub struct SqliteGraphBackend {
    store: Arc<SQLiteTripleStore>,
    tables: GraphTables,
    /// The journal, when it lives in the store's file (its connection, or another
    /// connection to the same file): closures commit in the revision's
    /// transaction, written through the store's connection.
    same_file_journal: Option<Arc<SQLiteJournal>>,
    /// What opening found missing and wrote (empty: opening wrote nothing).
    opened_with: Missing,
}

impl std::fmt::Debug for SqliteGraphBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteGraphBackend")
            .field("tables", &self.tables)
            .field("same_file_journal", &self.same_file_journal.is_some())
            .finish_non_exhaustive()
    }
}

/// The digest predicate the graph resolves a record's graph id with.
const DIGEST: &str = am_graph::DIGEST_PREDICATE;

/// A SQLite failure at the connector boundary (source and code kept).
use crate::error::sqlite as storage_err;

/// The newest digest assertion of the graph whose subject is `subject` (the
/// committed reads and a revision's transaction both resolve through it).
fn digest_assertion(
    conn: &Connection,
    t: &GraphTables,
    subject: &str,
) -> BackendResult<Option<String>> {
    let sql = sql::digest_assertion(t);
    conn.prepare_cached(&sql)
        .and_then(|mut s| s.query_row([subject, DIGEST], |r| r.get(0)).optional())
        .map_err(storage_err)
}

fn lock(conn: &SharedConn) -> MutexGuard<'_, Connection> {
    // A transaction rolls back when dropped, so a poisoned lock holds nothing torn.
    conn.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The file a connection's main database lives in (resolved, so two spellings of
/// one path agree); `None` for an in-memory or temporary database.
fn file_of(conn: &SharedConn) -> Option<PathBuf> {
    let name = lock(conn).path().filter(|p| !p.is_empty())?.to_owned();
    std::fs::canonicalize(name).ok()
}

impl SqliteGraphBackend {
    /// Open the connector of `store`'s home: create the graph tables and indexes
    /// a home lacks, add the columns an older home lacks (with the `owner_id`
    /// backfill); a home that has them is only read (no write lock).
    /// `journal` commits closures in the revision's transaction when it is a
    /// `SQLiteJournal` on the same file: over the same connection, or over
    /// another connection to that file (as `SQLiteJournal::open(&SqliteHome::open(path)?)`
    /// gives; the closures are then written through the store's connection).
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn open(
        store: Arc<SQLiteTripleStore>,
        journal: Option<&GraphJournal>,
    ) -> BackendResult<Self> {
        let tables = GraphTables::for_table(store.table_name(), crate::store::DEFAULT_TABLE);
        let conn = store.home().conn();
        let opened_with = {
            let mut c = lock(&conn);
            ensure_schema(&mut c, &tables)?
        };
        let same_file_journal = journal
            .and_then(GraphJournal::downcast::<SQLiteJournal>)
            .filter(|j| {
                let jc = j.conn();
                Arc::ptr_eq(&jc, &conn)
                    || file_of(&jc).is_some_and(|f| file_of(&conn).as_ref() == Some(&f))
            });
        Ok(SqliteGraphBackend {
            store,
            tables,
            same_file_journal,
            opened_with,
        })
    }

    /// The graph tables' names.
    pub fn tables(&self) -> &GraphTables {
        &self.tables
    }

    /// What opening this home created (empty when the home had every table,
    /// column and index, and opening wrote nothing).
    pub fn opened_with(&self) -> &Missing {
        &self.opened_with
    }

    /// SQLite's `EXPLAIN QUERY PLAN` of every keyed read (and keyed update) this
    /// connector runs, as `(read, plan lines)` (the `detail` column, in order):
    /// what pins "every keyed read is an index search".
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn query_plans(&self) -> BackendResult<Vec<(String, Vec<String>)>> {
        let conn = self.conn();
        let c = lock(&conn);
        sql::keyed_reads(&self.tables)
            .into_iter()
            .map(|(name, q)| {
                let mut stmt = c
                    .prepare(&format!("EXPLAIN QUERY PLAN {q}"))
                    .map_err(storage_err)?;
                // Unbound parameters: the plan depends on the statement, not the values.
                let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
                let lines = stmt
                    .query_map(rusqlite::params_from_iter(nulls), |r| r.get::<_, String>(3))
                    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                    .map_err(storage_err)?;
                Ok((name.to_owned(), lines))
            })
            .collect()
    }

    /// Whether closures commit in the revision's transaction (the journal is a
    /// `SQLiteJournal` on the store's file).
    pub fn journal_in_file(&self) -> bool {
        self.same_file_journal.is_some()
    }

    fn conn(&self) -> SharedConn {
        self.store.home().conn()
    }
}

/// The registry factory of the SQLite connector.
///
/// # Errors
/// `Unsupported` when `store` is not a `SQLiteTripleStore`; `Storage`.
pub fn factory(
    store: &AnyStore,
    journal: Option<&GraphJournal>,
) -> BackendResult<Box<dyn GraphBackend>> {
    let store = Arc::clone(store)
        .downcast::<SQLiteTripleStore>()
        .map_err(|_| {
            am_triples::Error::unsupported(
                "the SQLite graph connector expected a SQLiteTripleStore",
            )
        })?;
    Ok(Box::new(SqliteGraphBackend::open(store, journal)?))
}

static REGISTER: Once = Once::new();

/// Register the SQLite connector for `SQLiteTripleStore` (once per process;
/// later calls do nothing).
pub fn register() {
    REGISTER.call_once(|| register_backend::<SQLiteTripleStore>(factory));
}

/// The graph of a SQLite home: registers the connector and opens
/// `MemoryGraph::new(store, journal)`.
///
/// # Errors
/// As `MemoryGraph::new`.
pub fn open_graph(
    store: Arc<SQLiteTripleStore>,
    journal: Option<Arc<SQLiteJournal>>,
) -> am_graph::Result<MemoryGraph> {
    register();
    MemoryGraph::new(store, journal.map(GraphJournal::new))
}

/// The graph of the SQLite home at `path` (created when missing) with its
/// journal, the store reading with `embedder`: another home a front end
/// writes into (`replay_into`; `am exec` and the Python package).
///
/// # Errors
/// As [`SQLiteTripleStore::open`], [`SQLiteJournal::open`] and [`open_graph`].
pub fn open_graph_at(
    path: &std::path::Path,
    embedder: Option<Arc<dyn am_triples::TextEmbedder>>,
) -> crate::Result<MemoryGraph> {
    let store = Arc::new(SQLiteTripleStore::open(
        path,
        embedder,
        crate::SqliteStoreOptions::default(),
    )?);
    let journal = Arc::new(SQLiteJournal::open(store.home())?);
    Ok(open_graph(store, Some(journal))?)
}
