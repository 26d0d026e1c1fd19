//! The hand-written shims: the store and journal constructors of 0.3.2's
//! shape (`SQLiteTripleStore(path)`, `SQLiteJournal(path)`,
//! `InMemoryTripleStore()`, `InMemoryJournal()`) and the memory system over a
//! pair of them, which the verb table runs on ([`NativeHome`]).

use crate::errors;
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_journal::{InMemoryJournal, InMemoryTaskQueue, MemoryHome, MemoryJournal, PairHome};
use am_ops::{OpError, OpResult};
use am_system::{Clock, MemorySystem, SystemOptions};
use am_triples::{
    CommitGuard, EmbeddingPin, InMemoryTripleStore, TextEmbedder, Timestamp, build_pin,
};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// `SQLiteTripleStore(path)`: the store of the SQLite home at `path`
/// (created when missing).
#[pyclass(
    name = "SQLiteTripleStore",
    module = "abstractmemory_rs._native",
    frozen,
    subclass
)]
pub(crate) struct PySqliteStore {
    store: Arc<SQLiteTripleStore>,
    embedder: Option<Arc<dyn TextEmbedder>>,
}

#[pymethods]
impl PySqliteStore {
    /// The store, embedding its rows with `embedder` (an object with
    /// `embed_texts`, or `OfflineEmbedder()`) when one is given.
    #[new]
    #[pyo3(signature = (path, *, embedder=None))]
    fn new(py: Python<'_>, path: PathBuf, embedder: Option<Py<PyAny>>) -> PyResult<Self> {
        let embedder = crate::embed::embedder_of(py, embedder)?;
        let pin = creation_pin(embedder.as_ref())?;
        let store = py
            .detach(|| {
                let home = SqliteHome::open(&path)?;
                SQLiteTripleStore::with_home(
                    &home,
                    embedder.clone(),
                    SqliteStoreOptions {
                        embedding_pin: pin,
                        ..SqliteStoreOptions::default()
                    },
                )
            })
            .map_err(|e| errors::raise(py, &OpError::from(am_triples::Error::from(e))))?;
        Ok(PySqliteStore {
            store: Arc::new(store),
            embedder,
        })
    }

    /// The home's file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.store.home().path().to_path_buf()
    }

    /// Close the store (0.3.2's `store.close()`).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| am_triples::TripleStore::close(self.store.as_ref()))
            .map_err(|e| errors::raise(py, &OpError::from(e)))
    }
}

/// The pin a store declares at creation for `embedder` (its model id and
/// dimension, when it names either), as `am` does: a new home is pinned
/// when it is made, not at its first write.
fn creation_pin(embedder: Option<&Arc<dyn TextEmbedder>>) -> PyResult<Option<EmbeddingPin>> {
    let Some(e) = embedder else { return Ok(None) };
    let (model_id, dimension) = (e.model_id(), e.dimension());
    if model_id.is_none() && dimension.is_none() {
        return Ok(None);
    }
    let mut pin = build_pin(model_id.as_deref(), dimension, "creation", None)
        .map_err(|e| errors::raise_nogil(&OpError::from(e)))?;
    pin.pinned_at = Timestamp::now().canonical();
    Ok(Some(pin))
}

/// `SQLiteJournal(path)`: the journal of the SQLite home at `path`; it is
/// opened on the store's connection when a `MemorySystem` joins the two
/// (one home: the same path as the store's).
#[pyclass(name = "SQLiteJournal", module = "abstractmemory_rs._native", frozen)]
pub(crate) struct PySqliteJournal {
    path: PathBuf,
}

#[pymethods]
impl PySqliteJournal {
    #[new]
    fn new(path: PathBuf) -> Self {
        PySqliteJournal { path }
    }

    /// The home's file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }
}

/// `InMemoryTripleStore()`: a volatile store.
#[pyclass(
    name = "InMemoryTripleStore",
    module = "abstractmemory_rs._native",
    frozen,
    subclass
)]
pub(crate) struct PyMemoryStore {
    store: Arc<InMemoryTripleStore>,
    embedder: Option<Arc<dyn TextEmbedder>>,
}

#[pymethods]
impl PyMemoryStore {
    /// A volatile store, embedding its rows with `embedder` when one is given.
    #[new]
    #[pyo3(signature = (*, embedder=None))]
    fn new(py: Python<'_>, embedder: Option<Py<PyAny>>) -> PyResult<Self> {
        let embedder = crate::embed::embedder_of(py, embedder)?;
        let store = match creation_pin(embedder.as_ref())? {
            Some(pin) => InMemoryTripleStore::with_pin(embedder.clone(), pin)
                .map_err(|e| errors::raise(py, &OpError::from(e)))?,
            None => InMemoryTripleStore::new(embedder.clone()),
        };
        Ok(PyMemoryStore {
            store: Arc::new(store),
            embedder,
        })
    }

    /// Close the store (0.3.2's `store.close()`).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| am_triples::TripleStore::close(self.store.as_ref()))
            .map_err(|e| errors::raise(py, &OpError::from(e)))
    }
}

/// `InMemoryJournal()`: a volatile journal.
#[pyclass(name = "InMemoryJournal", module = "abstractmemory_rs._native", frozen)]
pub(crate) struct PyMemoryJournal {
    journal: Arc<InMemoryJournal>,
}

#[pymethods]
impl PyMemoryJournal {
    #[new]
    fn new() -> Self {
        PyMemoryJournal {
            journal: Arc::new(InMemoryJournal::new()),
        }
    }
}

/// What a `MemorySystem` is opened with beside its store and journal.
#[derive(Clone, Default)]
pub(crate) struct Opening {
    /// `clock() -> str`.
    pub(crate) clock: Option<Clock>,
    /// The home's memory task queue.
    pub(crate) task_queue: bool,
    /// The system's embedder (`MemorySystem(embedder=...)`); the store's
    /// when none is given.
    pub(crate) embedder: Option<Arc<dyn TextEmbedder>>,
    /// The commit guard installed on the store and the journal.
    pub(crate) commit_guard: Option<CommitGuard>,
}

/// An open home: the memory system, its store as its concrete type (for the
/// memory graph's connector) and the host's embedder and clock.
pub(crate) struct Opened {
    pub(crate) system: MemorySystem,
    sqlite: Option<Arc<SQLiteTripleStore>>,
    memory: Option<Arc<InMemoryTripleStore>>,
    pub(crate) embedder: Option<Arc<dyn TextEmbedder>>,
    clock: Option<Clock>,
}

fn system_over(home: Arc<dyn MemoryHome>, opening: &Opening) -> PyResult<MemorySystem> {
    MemorySystem::over_home_with_options(
        home,
        SystemOptions {
            clock: opening.clock.clone(),
            task_queue: opening.task_queue,
            embedder: opening.embedder.clone(),
            commit_guard: opening.commit_guard.clone(),
            ..SystemOptions::default()
        },
    )
    .map_err(|e| errors::raise_nogil(&OpError::from(e)))
}

/// The in-memory pair, fresh (the home pure functions run over).
pub(crate) fn open_memory(opening: Opening) -> PyResult<Opened> {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    pair(store, journal, opening)
}

fn pair(
    store: Arc<InMemoryTripleStore>,
    journal: Arc<dyn MemoryJournal>,
    opening: Opening,
) -> PyResult<Opened> {
    let task_queue = opening.task_queue;
    let home: Arc<dyn MemoryHome> = if task_queue {
        Arc::new(PairHome::with_task_queue(
            store.clone(),
            journal,
            Arc::new(InMemoryTaskQueue::new()),
        ))
    } else {
        Arc::new(PairHome::new(store.clone(), journal))
    };
    Ok(Opened {
        system: system_over(home, &opening)?,
        sqlite: None,
        memory: Some(store),
        embedder: opening.embedder,
        clock: opening.clock,
    })
}

/// Open the memory system over the native `store` and `journal` objects:
/// both SQLite of one path, or both in memory.
pub(crate) fn open(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    journal: &Bound<'_, PyAny>,
    mut opening: Opening,
) -> PyResult<Opened> {
    if let (Ok(s), Ok(j)) = (
        store.cast::<PyMemoryStore>(),
        journal.cast::<PyMemoryJournal>(),
    ) {
        let journal: Arc<dyn MemoryJournal> = j.get().journal.clone();
        if opening.embedder.is_none() {
            opening.embedder = s.get().embedder.clone();
        }
        return pair(s.get().store.clone(), journal, opening);
    }
    if let (Ok(s), Ok(j)) = (
        store.cast::<PySqliteStore>(),
        journal.cast::<PySqliteJournal>(),
    ) {
        let store = s.get().store.clone();
        if opening.embedder.is_none() {
            opening.embedder = s.get().embedder.clone();
        }
        let same = |p: &std::path::Path| std::fs::canonicalize(p).ok();
        if same(store.home().path()) != same(&j.get().path) {
            return Err(errors::invalid(format!(
                "a MemorySystem's SQLiteTripleStore and SQLiteJournal are one home: the store is {} and the journal {}",
                store.home().path().display(),
                j.get().path.display()
            )));
        }
        let home = py
            .detach(|| -> am_triples::Result<SqliteMemoryHome> {
                let journal = Arc::new(SQLiteJournal::open(store.home())?);
                Ok(SqliteMemoryHome::new(store.clone(), journal)?)
            })
            .map_err(|e| errors::raise(py, &OpError::from(e)))?;
        let system = py.detach(|| system_over(Arc::new(home), &opening))?;
        return Ok(Opened {
            system,
            sqlite: Some(store),
            memory: None,
            embedder: opening.embedder,
            clock: opening.clock,
        });
    }
    Err(errors::invalid(format!(
        "a MemorySystem needs store and journal of one kind: SQLiteTripleStore(path) with SQLiteJournal(path), \
         or InMemoryTripleStore() with InMemoryJournal(); got {} and {}",
        store.get_type().name()?,
        journal.get_type().name()?
    )))
}

/// The table's view of an open home for one call.
pub(crate) struct NativeHome<'a>(pub(crate) &'a Opened);

impl NativeHome<'_> {
    fn clocked(&self, g: MemoryGraph) -> MemoryGraph {
        match &self.0.clock {
            Some(c) => g.with_clock(c.clone()),
            None => g,
        }
    }
}

impl am_ops::Home for NativeHome<'_> {
    fn system(&self) -> OpResult<&MemorySystem> {
        Ok(&self.0.system)
    }

    /// `reembed_store`'s new space from an embedder spec: the Python package
    /// builds the bundled model for `"offline"` (what `am.OfflineEmbedder()`
    /// is); any other spec is `Unsupported` here (`am reembed` takes them).
    fn build_embedder(&self, spec: &str) -> OpResult<Arc<dyn TextEmbedder>> {
        if spec.trim() != "offline" {
            return Err(OpError::new(
                am_triples::ErrorKind::Unsupported,
                format!(
                    "the Python package builds only the bundled offline embedder from a spec (got {spec:?}); run other re-embeds with `am reembed`"
                ),
            ));
        }
        let offline = am_embed::OfflineEmbedder::new()
            .map_err(|e| OpError::new(am_triples::ErrorKind::Embedder, e.to_string()))?;
        Ok(Arc::new(offline))
    }

    /// `journal_cold_cut` over SQLite home files (a module function of the
    /// package, as in 0.3.2's `abstractmemory.doctoring`).
    fn journal_cold_cut(
        &self,
        src: &std::path::Path,
        dst: &std::path::Path,
        args: &am_backend_sqlite::cold_cut::ColdCut,
        at: &str,
    ) -> OpResult<am_backend_sqlite::cold_cut::ColdCutReport> {
        am_backend_sqlite::cold_cut::journal_cold_cut(src, dst, args, at)
            .map_err(|e| OpError::from(am_triples::Error::from(e)))
    }

    fn verify_cold_cut(
        &self,
        src: &std::path::Path,
        dst: &std::path::Path,
    ) -> OpResult<am_backend_sqlite::cold_cut::ColdCutVerification> {
        am_backend_sqlite::cold_cut::verify_cold_cut(src, dst)
            .map_err(|e| OpError::from(am_triples::Error::from(e)))
    }

    fn read_embedding_pin(
        &self,
        path: &std::path::Path,
        table_name: Option<&str>,
    ) -> OpResult<Option<am_triples::EmbeddingPin>> {
        am_backend_sqlite::read_embedding_pin(path, table_name)
            .map_err(|e| OpError::from(am_triples::Error::from(e)))
    }

    fn graph(&self) -> OpResult<MemoryGraph> {
        let journal = GraphJournal::from_dyn(Arc::clone(self.0.system.journal()));
        let graph = match (&self.0.sqlite, &self.0.memory) {
            (Some(store), _) => {
                am_backend_sqlite::graph::register();
                MemoryGraph::new(Arc::clone(store), Some(journal))
            }
            (None, Some(store)) => MemoryGraph::new(Arc::clone(store), Some(journal)),
            (None, None) => {
                return Err(OpError::new(
                    am_triples::ErrorKind::Unsupported,
                    "this home has no graph connector",
                ));
            }
        };
        Ok(self.clocked(graph?))
    }

    fn graph_at(&self, target: &str) -> OpResult<MemoryGraph> {
        let graph = am_backend_sqlite::graph::open_graph_at(
            std::path::Path::new(target),
            self.0.embedder.clone(),
        )
        .map_err(|e| OpError::from(am_triples::Error::from(e)).context(target))?;
        Ok(self.clocked(graph))
    }
}
