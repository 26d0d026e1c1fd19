//! The connector traits of the memory graph: [`GraphBackend`] (prepare, transact,
//! the bounded reads, crash repair) and [`GraphTx`] (one revision's reads and
//! writes), and the row shapes they exchange (the graph tables' columns).
//!
//! Spec: api.md "The memory graph: revisions and provenance", "Connectors
//! (`abstractmemory.graph.backend`)" and "The graph tables (SQLite)".
//!
//! Invariants every connector keeps (each is a `graph::*` conformance check):
//! - The writes of one transaction become visible together or not at all: when
//!   the closure given to [`GraphBackend::transaction`] returns `Err`, nothing it
//!   wrote through the [`GraphTx`] remains.
//! - [`GraphTx::insert_revision`] allocates `seq` = head + 1 and transactions are
//!   serialized (one writer at a time), so the change feed is lossless.
//! - An assertion id, a (memory, ref key) provenance row and a (memory, parent)
//!   derivation row are written once: the first wins, a later write is ignored.
//! - Every read is bounded by its `limit` (the engine clamps it to
//!   [`MAX_READ_LIMIT`](crate::backend::MAX_BACKEND_LIMIT)).
//! - Opening a mind whose tables exist writes nothing.
//!
//! The rules of a revision (grounding, adoption, re-observation, the close and
//! narrow rules) live in [`MemoryGraph`](crate::graph::MemoryGraph), never in a
//! connector: a connector stores rows and answers keyed reads.

use am_journal::ClosureRecord;
use am_journal::MemoryJournal;
use am_triples::{JsonMap, TripleAssertion};
use serde_json::Value;
use std::any::Any;
use std::sync::Arc;

/// The largest `limit` the engine ever passes to a connector read.
pub const MAX_BACKEND_LIMIT: usize = 1000;

/// Result of a connector operation: connectors report `am_triples` errors
/// (`Storage` for the engine failing, `InvalidInput` for a refused row).
pub type BackendResult<T> = am_triples::Result<T>;

/// One row of `memg_revisions`: a logged revision.
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionRow {
    /// The change-feed position (allocated by [`GraphTx::insert_revision`]; `0`
    /// before it is inserted).
    pub seq: i64,
    /// The idempotency key.
    pub revision_id: String,
    /// The revision's scope.
    pub scope: String,
    /// The revision's owner (`None`: the no-owner partition).
    pub owner_id: Option<String>,
    /// One of the revision causes.
    pub cause: String,
    /// Observation time (canonical UTC text).
    pub occurred_at: String,
    /// Record time (canonical UTC text): the store's clock at commit.
    pub recorded_at: String,
    /// The normalized ops as logged (a JSON array of `{op, payload, ...}`).
    pub ops_json: String,
    /// The revision's provenance (a JSON object).
    pub provenance_json: String,
    /// Free text.
    pub summary: Option<String>,
    /// Whether the revision's closures reached the journal (`false` until a
    /// journal outside the store's file has received them).
    pub journal_applied: bool,
}

/// One row of `memg_history`: a lifecycle event of one memory.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryRow {
    /// Record order (allocated by the connector; `0` before insertion).
    pub seq: i64,
    /// The memory (assertion id).
    pub memory_id: String,
    /// `asserted`, `re-observed`, `closed` or `narrowed`.
    pub event: String,
    /// Record time of the revision that caused the event.
    pub at: String,
    /// The revision that caused it.
    pub revision_id: String,
    /// The event's detail (a JSON object, see `MemoryGraph::history`).
    pub detail: Value,
}

/// One row of `memg_provenance`: a memory names a ledger source.
#[derive(Debug, Clone, PartialEq)]
pub struct ProvenanceRow {
    /// The memory (assertion id).
    pub memory_id: String,
    /// The source's `key()` (`step:run-42#3`).
    pub ref_key: String,
    /// The source's kind (`run`, `step`, ...).
    pub ref_kind: String,
    /// The run the source carries, if any (a `run` ref's own id, a step's, an
    /// artifact's optional `run_id`, ...).
    pub run_id: Option<String>,
    /// The revision that recorded the row.
    pub revision_id: String,
    /// The source as a JSON object (`SourceRef::to_dict`).
    pub ref_json: Value,
    /// `memory` (the memory's own provenance) or `revision` (the provenance of a
    /// revision that asserted or re-observed it).
    pub via: String,
    /// The memory's owner (`''` for none).
    pub owner_id: String,
}

/// One row of `memg_derivations`: a memory was derived from another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivationRow {
    /// The derived memory.
    pub memory_id: String,
    /// The parent it was derived from.
    pub from_id: String,
    /// The revision that recorded the lineage.
    pub revision_id: String,
}

/// How a source is matched by [`GraphBackend::with_ref`] and
/// [`GraphBackend::names_ref`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefMatch {
    /// Exactly this ref key.
    Key(String),
    /// Every ref stamped with this run id (a `run` ref's own, and the steps,
    /// artifacts, messages and diary entries carrying it).
    Run(String),
}

/// A memory the graph holds, as [`GraphTx::memory_known`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownMemory {
    /// The memory's owner (`None`: the no-owner partition).
    pub owner_id: Option<String>,
}

/// The identity of a claim for re-observation: subject, predicate, object,
/// scope, owner and `valid_from` (canonical).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClaimKey {
    /// Canonical subject.
    pub subject: String,
    /// Canonical predicate.
    pub predicate: String,
    /// The object as stored.
    pub object: String,
    /// Canonical scope.
    pub scope: String,
    /// Owner (`None`: none).
    pub owner_id: Option<String>,
    /// Event-time start (canonical UTC text), if any.
    pub valid_from: Option<String>,
}

impl ClaimKey {
    /// The claim of a canonical assertion.
    pub fn of(a: &TripleAssertion) -> Self {
        ClaimKey {
            subject: a.subject.clone(),
            predicate: a.predicate.clone(),
            object: a.object.clone(),
            scope: a.scope.clone(),
            owner_id: a.owner_id.clone(),
            valid_from: a.valid_from.clone(),
        }
    }
}

/// Rows shaped (canonicalized, embedded) before the transaction by
/// [`GraphBackend::prepare_rows`].
pub struct PreparedRows {
    /// The canonical assertions, in the order given, each with its id.
    pub assertions: Vec<TripleAssertion>,
    /// The connector's own shaping (vectors, canonical texts, the pin to write).
    pub payload: Box<dyn Any + Send>,
}

impl std::fmt::Debug for PreparedRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedRows")
            .field("assertions", &self.assertions.len())
            .finish_non_exhaustive()
    }
}

/// The names of one mind's graph tables beside its triple table, the same rule
/// for every connector: `memg_revisions`, `memg_provenance`, `memg_derivations`
/// and `memg_history` beside the store's default table, `memg_<table>_*` beside a
/// table with a custom name (two minds in one home never share them).
///
/// Spec: api.md "The graph tables (SQLite)".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphTables {
    /// The triple table the graph's memories live in.
    pub triples: String,
    /// The revision log.
    pub revisions: String,
    /// The provenance rows.
    pub provenance: String,
    /// The lineage rows.
    pub derivations: String,
    /// The history rows.
    pub history: String,
}

impl GraphTables {
    /// The graph tables of a store whose triple table is `table`, where the
    /// store's default table name is `default_table`.
    pub fn for_table(table: &str, default_table: &str) -> Self {
        let prefix = if table == default_table {
            "memg_".to_owned()
        } else {
            format!("memg_{table}_")
        };
        GraphTables {
            triples: table.to_owned(),
            revisions: format!("{prefix}revisions"),
            provenance: format!("{prefix}provenance"),
            derivations: format!("{prefix}derivations"),
            history: format!("{prefix}history"),
        }
    }
}

/// What a connector promises beyond the contract every connector keeps: the
/// documented exceptions a connector declares (api.md "Connectors": "What the
/// LanceDB connector cannot promise").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphCapabilities {
    /// Writers of one mind in two processes are serialized (`false`: only the
    /// writers of one process are).
    pub cross_process_writers: bool,
    /// A crash in the middle of a commit leaves nothing of the revision visible
    /// (`false`: the rows of a half-written revision stay visible until
    /// `MemoryGraph::repair`, which finishes it from the log).
    pub atomic_commit: bool,
}

impl Default for GraphCapabilities {
    /// Everything promised (the SQLite and in-memory connectors).
    fn default() -> Self {
        GraphCapabilities {
            cross_process_writers: true,
            atomic_commit: true,
        }
    }
}

/// A mind's database, behind [`MemoryGraph`](crate::graph::MemoryGraph).
///
/// # Contract
/// - `prepare_rows` canonicalizes and embeds before any lock is taken; it writes
///   nothing.
/// - `transaction` runs its closure inside one serialized write transaction and
///   commits when it returns `Ok`; on `Err` (or a panic) every write made through
///   the [`GraphTx`] is undone, and the error is returned unchanged.
/// - Reads are bounded by their `limit` and pure.
/// - `pending_journal` lists revisions with `journal_applied = 0`, oldest first;
///   `mark_journal_applied` flips one; `repair_projections` re-derives a
///   half-projected revision (0 for connectors whose commit is atomic).
pub trait GraphBackend: Send + Sync {
    /// The connector's name (`"sqlite"`, `"memory"`).
    fn name(&self) -> &'static str;

    /// What the connector promises beyond the shared contract (default: all of
    /// it; the LanceDB connector declares its two exceptions).
    fn capabilities(&self) -> GraphCapabilities {
        GraphCapabilities::default()
    }

    /// Canonicalize and embed `assertions` (each carries its id) outside any
    /// transaction.
    ///
    /// # Errors
    /// `InvalidInput` for a malformed assertion; `Embedder` when embedding fails.
    fn prepare_rows(&self, assertions: &[TripleAssertion]) -> BackendResult<PreparedRows>;

    /// Run `body` in one write transaction; commit on `Ok`, undo on `Err`.
    ///
    /// # Errors
    /// Whatever `body` returns; `Storage` when the engine fails to begin or commit.
    fn transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn GraphTx) -> BackendResult<()>,
    ) -> BackendResult<()>;

    /// The seq of a logged revision, `None` when the id is not in the log.
    ///
    /// # Errors
    /// `Storage`.
    fn applied_seq(&self, revision_id: &str) -> BackendResult<Option<i64>>;

    /// A memory id of the graph for `memory_id`: itself when the graph holds it,
    /// else the newest digest assertion (`dcterms:abstract`) of the graph whose
    /// subject is `memory_id` (a record's graph id). `None` when neither.
    ///
    /// # Errors
    /// `Storage`.
    fn resolve(&self, memory_id: &str) -> BackendResult<Option<String>>;

    /// The memory's history rows in record order with each revision's cause,
    /// at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn history(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<(HistoryRow, String)>>;

    /// The memory's provenance rows in the order they were recorded, at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn sources(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<ProvenanceRow>>;

    /// What `memory_id` was derived from, in the order recorded, at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn parents(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>>;

    /// What was derived from `memory_id`, in the order recorded, at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn children(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>>;

    /// Memories naming a source matching `m`, each once, in the order their
    /// first matching row was recorded, at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn with_ref(&self, m: &RefMatch, limit: usize) -> BackendResult<Vec<String>>;

    /// Whether a memory owned by one of `owner_ids` (`''` = no owner) names a
    /// source matching `m`.
    ///
    /// # Errors
    /// `Storage`.
    fn names_ref(&self, m: &RefMatch, owner_ids: &[String]) -> BackendResult<bool>;

    /// Logged revisions with `seq > after`, in log order, at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn revisions_page(&self, after: i64, limit: usize) -> BackendResult<Vec<RevisionRow>>;

    /// The log's head: the largest seq (0 when empty).
    ///
    /// # Errors
    /// `Storage`.
    fn log_head(&self) -> BackendResult<i64>;

    /// A logged revision and the history rows it wrote (record order, bounded by
    /// `limit`); `None` when the id is not in the log.
    ///
    /// # Errors
    /// `Storage`.
    fn logged_outcome(
        &self,
        revision_id: &str,
        limit: usize,
    ) -> BackendResult<Option<(RevisionRow, Vec<HistoryRow>)>>;

    /// Revisions with `journal_applied = 0`, oldest first, at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn pending_journal(&self, limit: usize) -> BackendResult<Vec<RevisionRow>>;

    /// The `closed` history rows of one revision (their details carry the close
    /// payloads), in record order, at most `limit`.
    ///
    /// # Errors
    /// `Storage`.
    fn closed_payload(&self, revision_id: &str, limit: usize) -> BackendResult<Vec<HistoryRow>>;

    /// Mark a revision's closures as appended to the journal.
    ///
    /// # Errors
    /// `Storage`.
    fn mark_journal_applied(&self, revision_id: &str) -> BackendResult<()>;

    /// Re-derive the rows of revisions a crash left half-projected; returns how
    /// many it repaired (0 for a connector whose commit is atomic).
    ///
    /// # Errors
    /// `Storage`.
    fn repair_projections(&self) -> BackendResult<usize>;
}

/// One revision's transaction: reads that see its own writes, and the writes.
pub trait GraphTx {
    /// The seq of a logged revision (seen inside the transaction).
    ///
    /// # Errors
    /// `Storage`.
    fn revision_seq(&mut self, revision_id: &str) -> BackendResult<Option<i64>>;

    /// Whether the graph holds `memory_id` (it was asserted or adopted through the
    /// graph), with its owner.
    ///
    /// # Errors
    /// `Storage`.
    fn memory_known(&mut self, memory_id: &str) -> BackendResult<Option<KnownMemory>>;

    /// The revision that closed `memory_id` through the graph, if one did.
    ///
    /// # Errors
    /// `Storage`.
    fn closing_revision(&mut self, memory_id: &str) -> BackendResult<Option<String>>;

    /// What `memory_id` was derived from (its derivation rows' `from_id`, in
    /// recorded order, at most `limit`), as this transaction sees them (its own
    /// writes included): the lineage walk that keeps a re-observation from
    /// closing a cycle.
    ///
    /// # Errors
    /// `Storage`.
    fn parents(&mut self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>>;

    /// The oldest memory of the graph holding `claim` with an open window.
    ///
    /// # Errors
    /// `Storage`.
    fn open_same_claim(&mut self, claim: &ClaimKey) -> BackendResult<Option<String>>;

    /// The newest digest assertion of the graph whose subject is `graph_id`.
    ///
    /// # Errors
    /// `Storage`.
    fn digest_assertion_for(&mut self, graph_id: &str) -> BackendResult<Option<String>>;

    /// The ref recorded for (`memory_id`, `ref_key`) (its `ref_json`), if any.
    ///
    /// # Errors
    /// `Storage`.
    fn source_ref(&mut self, memory_id: &str, ref_key: &str) -> BackendResult<Option<Value>>;

    /// Which of `ids` are rows of the store (through the graph or not).
    ///
    /// # Errors
    /// `Storage`.
    fn existing_ids(&mut self, ids: &[String]) -> BackendResult<Vec<String>>;

    /// The stored row of `assertion_id`.
    ///
    /// # Errors
    /// `Storage`.
    fn stored(&mut self, assertion_id: &str) -> BackendResult<Option<TripleAssertion>>;

    /// The row's window `(valid_from, valid_until)`; `None` when absent.
    ///
    /// # Errors
    /// `Storage`.
    fn window(
        &mut self,
        assertion_id: &str,
    ) -> BackendResult<Option<(Option<String>, Option<String>)>>;

    /// Write the embedding pin prepared with `rows` (a first embedded write);
    /// a no-op when the rows carry none or the pin is already stored.
    ///
    /// # Errors
    /// `DimensionMismatch` against a stored pin; `Storage`.
    fn write_pin(&mut self, rows: &PreparedRows) -> BackendResult<()>;

    /// Insert the prepared rows at `indexes` (with their keyword rows); an id
    /// already stored is left as it is.
    ///
    /// # Errors
    /// `Storage`.
    fn insert_assertions(&mut self, rows: &PreparedRows, indexes: &[usize]) -> BackendResult<()>;

    /// Rewrite a stored row's provenance (adoption).
    ///
    /// # Errors
    /// `Storage`.
    fn set_provenance(&mut self, assertion_id: &str, provenance: &JsonMap) -> BackendResult<()>;

    /// Set the row's `valid_until` (the engine has applied the close rule).
    ///
    /// # Errors
    /// `Storage`.
    fn end_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()>;

    /// Move a closed row's `valid_until` earlier (the engine has applied the
    /// narrow rule).
    ///
    /// # Errors
    /// `Storage`.
    fn narrow_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()>;

    /// Write a closure in this transaction when the journal shares the
    /// connector's commit (returns `true`); `false` when it must be appended
    /// after the commit (a journal elsewhere) or no journal is attached.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid closure; `Storage`.
    fn write_closure(&mut self, closure: &ClosureRecord) -> BackendResult<bool>;

    /// Append a history row (its `seq` is allocated here).
    ///
    /// # Errors
    /// `Storage`.
    fn add_history(&mut self, row: &HistoryRow) -> BackendResult<()>;

    /// Record a provenance row; a (memory, ref key) already recorded is kept.
    ///
    /// # Errors
    /// `Storage`.
    fn add_source(&mut self, row: &ProvenanceRow) -> BackendResult<()>;

    /// Record a derivation; a (memory, parent) already recorded is kept.
    ///
    /// # Errors
    /// `Storage`.
    fn add_derivation(&mut self, row: &DerivationRow) -> BackendResult<()>;

    /// Log the revision at seq = head + 1 and return that seq.
    ///
    /// # Errors
    /// `Storage`; `Conflict` when the id is already logged.
    fn insert_revision(&mut self, row: &RevisionRow) -> BackendResult<i64>;
}

/// A store as the registry sees it: any shared, thread-safe value.
pub type AnyStore = Arc<dyn Any + Send + Sync>;

/// The journal a graph writes its closures to, kept both as the trait object the
/// engine appends through and as `Any` so a connector can recognise its own
/// journal type (a `SQLiteJournal` on the same file commits in-transaction).
#[derive(Clone)]
pub struct GraphJournal {
    journal: Arc<dyn MemoryJournal>,
    any: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for GraphJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphJournal").finish_non_exhaustive()
    }
}

impl GraphJournal {
    /// Wrap a concrete journal.
    pub fn new<J: MemoryJournal + 'static>(journal: Arc<J>) -> Self {
        GraphJournal {
            journal: journal.clone(),
            any: journal,
        }
    }

    /// Wrap a journal held as a trait object (`MemoryJournal: Any`, so a
    /// connector can still recognise its concrete type).
    pub fn from_dyn(journal: Arc<dyn MemoryJournal>) -> Self {
        let any: Arc<dyn Any + Send + Sync> = journal.clone();
        GraphJournal { journal, any }
    }

    /// The journal as the trait the engine appends through.
    pub fn journal(&self) -> &Arc<dyn MemoryJournal> {
        &self.journal
    }

    /// The journal as its concrete type, when it is a `J`.
    pub fn downcast<J: Any + Send + Sync>(&self) -> Option<Arc<J>> {
        Arc::clone(&self.any).downcast::<J>().ok()
    }
}
