//! The LanceDB graph connector: the graph tables beside the triple table
//! ([`tables`]), a staged transaction whose reads overlay its buffered writes,
//! a log-first commit (the revision's log row, carrying its whole staged
//! projection, is written before the triple rows, windows, history, provenance
//! and lineage), and `repair_projections` re-deriving a revision a crash left
//! half-projected from its log row. One lock, one set of table handles and
//! counters per mind per process (a process-wide registry keyed by the store's
//! URI and triple table).
//!
//! What it cannot promise (declared in [`GraphCapabilities`]): writers of one
//! mind in two processes are not serialized (LanceDB takes no cross-process
//! write lock), and a crash in the middle of a commit leaves the rows of the
//! half-written revision visible until `MemoryGraph::repair` (or this process's
//! next write to the mind, which repairs first).
//!
//! The journal always lives elsewhere (a `SQLiteJournal` file): closures are
//! appended after the commit and the revision stays `journal_applied = false`
//! until they are.
//!
//! Spec: api.md "Connectors (`abstractmemory.graph.backend`)" (the LanceDB
//! connector); stores.md "LanceDBTripleStore" ("as a graph home").
//!
//! # Examples
//! ```
//! use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
//! use std::sync::Arc;
//! # let dir = tempfile::tempdir().unwrap();
//! # let uri = dir.path().join("mind");
//! let store = Arc::new(LanceDBTripleStore::open(uri.to_str().unwrap(), None,
//!     LanceStoreOptions::default())?);
//! let graph = am_backend_lance::graph::open_graph(store, None).unwrap();
//! assert_eq!(graph.backend().name(), "lancedb");
//! assert!(!graph.backend().capabilities().atomic_commit);
//! # Ok::<(), am_triples::Error>(())
//! ```

mod commit;
mod reads;
pub mod stage;
pub mod tables;
mod tx;

use crate::filter::quote_literal;
use crate::store::{LanceDBTripleStore, open_table, scan, storage};
use am_graph::backend::{BackendResult, GraphBackend, GraphCapabilities, GraphTables};
use am_graph::graph::MemoryGraph;
use am_graph::registry::{AnyStore, GraphJournal, register_backend};
use am_triples::{Error, Result};
use lancedb::{Connection, Table};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, Once, Weak};
use tables::{Cell, Column};

/// Where a commit can be interrupted by a [`CommitHook`] (a test's failpoint):
/// after the log row, or after one projection step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitPoint {
    /// The revision's log row is written; nothing of its projection is.
    AfterLog,
    /// The revision's new triple rows are written.
    AfterTriples,
    /// The window and provenance changes to older rows are written.
    AfterUpdates,
    /// The history rows are written.
    AfterHistory,
    /// The provenance rows are written.
    AfterSources,
    /// The derivation rows are written (the log row is not yet marked
    /// projected).
    AfterDerivations,
}

/// A failpoint called at each [`CommitPoint`] of a commit; an `Err` stops the
/// commit there, as a crash would (what is written stays written).
pub type CommitHook = Arc<dyn Fn(CommitPoint) -> Result<()> + Send + Sync>;

/// The per-process state of one mind: its graph table handles and counters,
/// under the one lock every writer and reader of the mind in this process
/// takes.
pub(crate) struct MindState {
    pub(crate) revisions: Table,
    pub(crate) history: Table,
    pub(crate) provenance: Table,
    pub(crate) derivations: Table,
    /// The next log position.
    pub(crate) next_seq: i64,
    /// The next history `seq`.
    pub(crate) next_history: i64,
    /// The next provenance `ord`.
    pub(crate) next_source: i64,
    /// The next derivation `ord`.
    pub(crate) next_derivation: i64,
    /// A logged revision may be half-projected: repair before the next write.
    pub(crate) needs_repair: bool,
}

pub(crate) struct Mind {
    state: Mutex<MindState>,
}

type Registry = Mutex<HashMap<String, Weak<Mind>>>;

fn minds() -> &'static Registry {
    static MINDS: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    MINDS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The LanceDB connector of one mind (a `LanceDBTripleStore` and the graph
/// tables beside its triple table).
pub struct LanceGraphBackend {
    store: Arc<LanceDBTripleStore>,
    tables: GraphTables,
    mind: Arc<Mind>,
    hook: Option<CommitHook>,
    /// The graph tables opening created (empty: opening wrote nothing).
    created: Vec<String>,
}

impl std::fmt::Debug for LanceGraphBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanceGraphBackend")
            .field("tables", &self.tables)
            .field("created", &self.created)
            .finish_non_exhaustive()
    }
}

impl LanceGraphBackend {
    /// Open the connector of `store`'s mind: the graph tables a mind lacks are
    /// created (explicit schemas); a mind that has them is only read. Every
    /// connector of the same store URI and triple table in this process shares
    /// one lock, one set of table handles and one set of counters. `journal`
    /// is not part of the commit (closures are appended after it).
    ///
    /// # Errors
    /// `Storage` when LanceDB fails or a graph table has another schema.
    pub fn open(store: Arc<LanceDBTripleStore>, _journal: Option<&GraphJournal>) -> Result<Self> {
        let tables = GraphTables::for_table(store.table_name(), crate::schema::DEFAULT_TABLE);
        let key = format!("{}#{}", store.uri(), store.table_name());
        let mut reg = minds()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        reg.retain(|_, w| w.strong_count() > 0);
        let (mind, created) = match reg.get(&key).and_then(Weak::upgrade) {
            Some(m) => (m, Vec::new()),
            None => {
                let (state, created) = open_mind(&store, &tables)?;
                let m = Arc::new(Mind {
                    state: Mutex::new(state),
                });
                reg.insert(key, Arc::downgrade(&m));
                (m, created)
            }
        };
        Ok(LanceGraphBackend {
            store,
            tables,
            mind,
            hook: None,
            created,
        })
    }

    /// The same connector with a failpoint called at every [`CommitPoint`]
    /// (tests interrupt a commit with it, as a crash would).
    #[doc(hidden)]
    #[must_use]
    pub fn with_commit_hook(mut self, hook: CommitHook) -> Self {
        self.hook = Some(hook);
        self
    }

    /// The graph tables' names.
    pub fn tables(&self) -> &GraphTables {
        &self.tables
    }

    /// The graph tables opening created (empty when the mind had them all and
    /// opening wrote nothing; also empty for a mind already open in this
    /// process).
    pub fn created(&self) -> &[String] {
        &self.created
    }

    /// Every row of every graph table and of the triple table, each as a JSON
    /// text in record order, keyed by table name: what the tests compare
    /// before and after a refusal, and after a repair against a clean apply.
    /// Triple rows carry their vectors' bit patterns; the log rows their
    /// staged projection and state.
    ///
    /// # Errors
    /// `Storage` when LanceDB fails.
    pub fn dump_tables(&self) -> Result<BTreeMap<String, Vec<String>>> {
        let st = self.lock();
        let mut out = BTreeMap::new();
        let handles = [
            (&st.revisions, tables::REVISION_COLUMNS),
            (&st.provenance, tables::PROVENANCE_COLUMNS),
            (&st.derivations, tables::DERIVATION_COLUMNS),
            (&st.history, tables::HISTORY_COLUMNS),
        ];
        for ((name, _), (table, columns)) in
            tables::with_columns(&self.tables).into_iter().zip(handles)
        {
            let mut rows = self.select(table, columns, columns.len(), None)?;
            rows.sort_by_key(|r| r[0].as_int());
            out.insert(
                name.to_owned(),
                rows.iter().map(|r| format!("{r:?}")).collect(),
            );
        }
        let triples = self
            .store
            .all_rows()?
            .into_iter()
            .map(|r| {
                let bits: Option<Vec<u32>> = r
                    .vector
                    .as_ref()
                    .map(|v| v.iter().map(|x| x.to_bits()).collect());
                format!("{} {} {:?}", r.seq, r.assertion.to_dict(), bits)
            })
            .collect();
        out.insert(self.tables.triples.clone(), triples);
        Ok(out)
    }

    fn lock(&self) -> MutexGuard<'_, MindState> {
        // A commit interrupted by a panic leaves at most a half-projected
        // revision, which `needs_repair` (set before the projections) covers.
        self.mind
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Rows of `table` matching `where_`, the first `width` of `columns`, in
    /// storage order.
    pub(crate) fn select(
        &self,
        table: &Table,
        columns: &'static [Column],
        width: usize,
        where_: Option<String>,
    ) -> Result<Vec<Vec<Cell>>> {
        let t = table.clone();
        let batches = self
            .store
            .runtime()
            .run(async move { scan(&t, where_, &tables::names(columns, width)).await })?;
        tables::from_batches(columns, width, &batches)
    }

    /// Append `rows` to `table`.
    pub(crate) fn append(
        &self,
        table: &Table,
        columns: &[Column],
        rows: &[Vec<Cell>],
    ) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let batch = tables::to_batch(columns, rows)?;
        let t = table.clone();
        self.store.runtime().run(async move {
            t.add(batch).execute().await.map_err(storage("graph add"))?;
            Ok(())
        })
    }

    /// Set `column` to the SQL expression `value` on the rows of `table`
    /// matching `where_`.
    pub(crate) fn update(
        &self,
        table: &Table,
        where_: String,
        column: &str,
        value: &str,
    ) -> Result<u64> {
        let (t, column, value) = (table.clone(), column.to_owned(), value.to_owned());
        self.store.runtime().run(async move {
            let out = t
                .update()
                .only_if(where_)
                .column(column, value)
                .execute()
                .await
                .map_err(storage("graph update"))?;
            Ok(out.rows_updated)
        })
    }
}

/// `column = 'value'`, quoted.
pub(crate) fn eq(column: &str, value: &str) -> String {
    format!("{column} = {}", quote_literal(value))
}

/// Open (creating what is missing) the graph tables of a mind and read its
/// counters.
fn open_mind(store: &LanceDBTripleStore, tables: &GraphTables) -> Result<(MindState, Vec<String>)> {
    let conn: Connection = store.connection().clone();
    let specs: Vec<(String, &'static [Column])> = tables::with_columns(tables)
        .into_iter()
        .map(|(n, c)| (n.to_owned(), c))
        .collect();
    let (handles, created) = store.runtime().run(async move {
        let mut handles = Vec::new();
        let mut created = Vec::new();
        for (name, columns) in specs {
            let t = match open_table(&conn, &name).await? {
                Some(t) => {
                    let have = t.schema().await.map_err(storage("graph schema"))?;
                    let want = tables::schema(columns);
                    for f in want.fields() {
                        match have.field_with_name(f.name()) {
                            Ok(h) if h.data_type() == f.data_type() => {}
                            _ => {
                                return Err(Error::storage(format!(
                                    "LanceDB graph table {name:?} lacks the column {:?} of type {} \
                                     (a table this connector did not write)",
                                    f.name(),
                                    f.data_type()
                                )));
                            }
                        }
                    }
                    t
                }
                None => {
                    let t = conn
                        .create_empty_table(name.clone(), tables::schema(columns))
                        .execute()
                        .await
                        .map_err(storage("create a graph table"))?;
                    created.push(name);
                    t
                }
            };
            handles.push(t);
        }
        Ok((handles, created))
    })?;
    let mut it = handles.into_iter();
    let missing = || Error::storage("a graph table handle is missing");
    let revisions = it.next().ok_or_else(missing)?;
    let provenance = it.next().ok_or_else(missing)?;
    let derivations = it.next().ok_or_else(missing)?;
    let history = it.next().ok_or_else(missing)?;
    let mut state = MindState {
        revisions,
        history,
        provenance,
        derivations,
        next_seq: 1,
        next_history: 1,
        next_source: 1,
        next_derivation: 1,
        needs_repair: false,
    };
    refresh_counters(store, &mut state)?;
    Ok((state, created))
}

/// The largest value of the first column (an Int64) of `table`.
fn max_first(store: &LanceDBTripleStore, table: &Table, columns: &'static [Column]) -> Result<i64> {
    let t = table.clone();
    let batches = store
        .runtime()
        .run(async move { scan(&t, None, &tables::names(columns, 1)).await })?;
    Ok(tables::from_batches(columns, 1, &batches)?
        .iter()
        .map(|r| r[0].as_int())
        .max()
        .unwrap_or(0))
}

/// Re-read the counters from the tables, and whether a logged revision is
/// not yet projected.
pub(crate) fn refresh_counters(store: &LanceDBTripleStore, st: &mut MindState) -> Result<()> {
    st.next_seq = max_first(store, &st.revisions, tables::REVISION_COLUMNS)? + 1;
    st.next_history = max_first(store, &st.history, tables::HISTORY_COLUMNS)? + 1;
    st.next_source = max_first(store, &st.provenance, tables::PROVENANCE_COLUMNS)? + 1;
    st.next_derivation = max_first(store, &st.derivations, tables::DERIVATION_COLUMNS)? + 1;
    let t = st.revisions.clone();
    let pending = store
        .runtime()
        .run(async move { scan(&t, Some("projected = false".into()), &["seq"]).await })?;
    st.needs_repair = pending.iter().any(|b| b.num_rows() > 0);
    Ok(())
}

/// The registry factory of the LanceDB connector.
///
/// # Errors
/// `Unsupported` when `store` is not a `LanceDBTripleStore`; `Storage`.
pub fn factory(
    store: &AnyStore,
    journal: Option<&GraphJournal>,
) -> BackendResult<Box<dyn GraphBackend>> {
    let store = Arc::clone(store)
        .downcast::<LanceDBTripleStore>()
        .map_err(|_| {
            Error::unsupported("the LanceDB graph connector expected a LanceDBTripleStore")
        })?;
    Ok(Box::new(LanceGraphBackend::open(store, journal)?))
}

static REGISTER: Once = Once::new();

/// Register the LanceDB connector for `LanceDBTripleStore` (once per process;
/// later calls do nothing).
pub fn register() {
    REGISTER.call_once(|| register_backend::<LanceDBTripleStore>(factory));
}

/// The graph of a LanceDB mind: registers the connector and opens
/// `MemoryGraph::new(store, journal)` (the journal lives elsewhere, e.g. a
/// `SQLiteJournal` file).
///
/// # Errors
/// As `MemoryGraph::new`.
pub fn open_graph(
    store: Arc<LanceDBTripleStore>,
    journal: Option<GraphJournal>,
) -> am_graph::Result<MemoryGraph> {
    register();
    MemoryGraph::new(store, journal)
}

impl LanceGraphBackend {
    /// The two documented exceptions of the LanceDB connector.
    pub const CAPABILITIES: GraphCapabilities = GraphCapabilities {
        cross_process_writers: false,
        atomic_commit: false,
    };
}
