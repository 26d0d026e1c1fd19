//! The home seam: one unit of work over a mind's store and journal.
//!
//! A *home* is where one mind lives: its [`TripleStore`] and its
//! [`MemoryJournal`] (and, as they land, its task queue). Layer 2 writes that
//! touch more than one of them (formation's record rows and their formation
//! bindings) go through [`MemoryHome::transaction`]: the caller prepares its
//! rows outside any transaction ([`MemoryHome::prepare_rows`]: canonicalized,
//! embedded), then issues its writes inside the closure through the
//! [`HomeTx`] views:
//!
//! ```text
//! let rows = home.prepare_rows(&assertions)?;
//! home.transaction(CommitPoint::StoreAdd, &mut |tx| {
//!     tx.store().add(&rows)?;
//!     tx.journal().append_bindings(&bindings)?;
//!     Ok(())
//! })?;
//! ```
//!
//! This is the one place a multi-part write commits (the commit guard of the
//! Stop fence stands right before that commit). The shape follows the memory
//! graph's `GraphBackend::prepare_rows` + `GraphBackend::transaction`.
//!
//! Two implementations: [`PairHome`] here, over any store and journal (the
//! in-memory pair, two files, a LanceDB store beside a SQLite journal), with
//! the staged rules of its `# Contract`; and the SQLite home
//! (`am_backend_sqlite::SqliteMemoryHome`), store and journal on one
//! connection, ONE `BEGIN IMMEDIATE` transaction.
//!
//! Spec: api.md `remember_many` ("Formation (typed records)"); architecture.md
//! "A write is one transaction or nothing".

use crate::table::{TableReads, TablesTx};
use crate::task::{TaskReads, TasksTx};
use crate::task_memory::{InMemoryTaskQueue, MemTasksTx};
use crate::{
    ClosureRecord, MemoryEvent, MemoryJournal, ReconstructionTrace, ScopeBinding,
    UnderstandingVersion, ValenceEvent,
};
use am_triples::rewrite::{DigestRewrite, PreparedRewrite};
use am_triples::{CommitGuard, CommitPoint, TripleAssertion, TripleQuery, TripleStore};
use std::any::Any;
use std::collections::HashSet;
use std::sync::Arc;

pub use crate::error::HomeResult;

/// Rows made ready for a home transaction by [`MemoryHome::prepare_rows`],
/// outside any transaction. Only the home that prepared them can add them.
pub struct PreparedBatch {
    /// Every row's assertion id, in the order given (rows already stored
    /// included, as `TripleStore::add` returns them).
    pub ids: Vec<String>,
    /// The home's own shaping of the rows to write (for the SQLite home: the
    /// canonical rows not stored yet, embedded; for [`PairHome`]: the
    /// assertions as given).
    payload: Box<dyn Any + Send + Sync>,
    /// The vectors the home computed while preparing (assertion id → vector;
    /// `None`: this home embeds at write time and computed none).
    vectors: Option<std::collections::HashMap<String, Vec<f32>>>,
}

impl PreparedBatch {
    /// A batch carrying a home's own `payload` (read back with
    /// [`PreparedBatch::payload`] by the home that made it).
    pub fn new(ids: Vec<String>, payload: Box<dyn Any + Send + Sync>) -> Self {
        PreparedBatch {
            ids,
            payload,
            vectors: None,
        }
    }

    /// The same batch, telling the vectors the home computed while preparing
    /// (the rows it will store with a vector; a row absent has none).
    #[must_use]
    pub fn with_vectors(mut self, vectors: std::collections::HashMap<String, Vec<f32>>) -> Self {
        self.vectors = Some(vectors);
        self
    }

    /// Whether the home computed the batch's vectors while preparing.
    pub fn knows_vectors(&self) -> bool {
        self.vectors.is_some()
    }

    /// The vector a prepared row will be stored with (`None`: none, or the
    /// home did not compute them, [`PreparedBatch::knows_vectors`]).
    pub fn vector(&self, assertion_id: &str) -> Option<&[f32]> {
        self.vectors
            .as_ref()
            .and_then(|v| v.get(assertion_id))
            .map(Vec::as_slice)
    }

    /// The home's payload, when it is a `T`.
    pub fn payload<T: Any>(&self) -> Option<&T> {
        self.payload.downcast_ref::<T>()
    }
}

impl std::fmt::Debug for PreparedBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedBatch")
            .field("ids", &self.ids.len())
            .finish_non_exhaustive()
    }
}

/// A home: a mind's store and journal, written together.
///
/// # Contract
/// - [`store`](MemoryHome::store) / [`journal`](MemoryHome::journal): the
///   home's views. Reads and single writes through them behave as the
///   traits say; they must not be called from inside a
///   [`transaction`](MemoryHome::transaction)'s body (the SQLite home's body
///   holds the connection the views would wait for), which reaches the home
///   through its [`HomeTx`] only.
/// - [`prepare_rows`](MemoryHome::prepare_rows) writes nothing and takes no
///   write lock: it canonicalizes the rows (refusing as `TripleStore::add`
///   refuses), and may embed them and skip the rows already stored.
/// - [`transaction`](MemoryHome::transaction) runs `body` exactly once. When
///   `body` returns `Ok`, every write it issued through its `HomeTx` lands
///   (the home's rule for partial failure is in each implementation's
///   contract); when `body` returns `Err`, none of them lands and that error is
///   returned unchanged.
/// - The commit guards of the home's store and journal
///   ([`check_guards`]: the store's, then the journal's when it is another)
///   are called once per transaction, with `point`, after `body` and before
///   the commit (nothing staged: not called). A refusal lands nothing and
///   returns [`Error::guard_refusal`](am_triples::Error::guard_refusal); the writes inside do not
///   call the guard again.
pub trait MemoryHome: Send + Sync {
    /// The home's triple store.
    fn store(&self) -> &Arc<dyn TripleStore>;

    /// The home's journal.
    fn journal(&self) -> &Arc<dyn MemoryJournal>;

    /// Make `rows` ready to add in a later [`MemoryHome::transaction`]
    /// (outside any transaction: no write, no write lock).
    ///
    /// # Errors
    /// As `TripleStore::add` refuses (`InvalidInput`, `DimensionMismatch`,
    /// `Embedder`); nothing is written.
    fn prepare_rows(&self, rows: &[TripleAssertion]) -> HomeResult<PreparedBatch>;

    /// Whether this home can rewrite a digest row in place together with its
    /// journal's version rows (checked by the understanding verbs before they
    /// read anything).
    ///
    /// # Errors
    /// As [`MemoryHome::prepare_rewrite`] refuses a home: `Unsupported` (the
    /// default), `InvalidInput` for a durable store whose journal lives elsewhere.
    fn check_rewrite(&self) -> HomeResult<()> {
        Err(am_triples::Error::unsupported(
            "this home cannot rewrite a digest row in place",
        ))
    }

    /// Make a digest-row rewrite ready for a later
    /// [`MemoryHome::transaction`] (outside any transaction: the new canonical
    /// text, the vector computed with the store's own embedder; no write).
    /// Spec: stores.md "Shared behavior", the one mutable cell.
    ///
    /// # Errors
    /// `Unsupported` when the home's store cannot rewrite a row in place (the
    /// default; a LanceDB store); `InvalidInput` when the store is durable but
    /// shares no transaction with the journal (a SQLite store whose journal
    /// lives in another file: the row and its version would not commit
    /// together); as `TripleStore::prepare_digest_rewrite` otherwise.
    fn prepare_rewrite(&self, rewrite: &DigestRewrite) -> HomeResult<PreparedRewrite> {
        let _ = rewrite;
        Err(am_triples::Error::unsupported(
            "this home cannot rewrite a digest row in place",
        ))
    }

    /// Run `body` as one unit of work over the home; see the trait's
    /// `# Contract` and the implementation's. Returns the `#FALLBACK`
    /// warnings the committed writes raised (a first-write pin, rows stored
    /// without a vector), in order, for the caller's result: they are not
    /// left for the store's `take_warnings`, where another thread could
    /// drain them.
    ///
    /// # Errors
    /// `body`'s error, unchanged; a write's error (with its kind); `Storage`
    /// when the engine fails to begin or commit.
    fn transaction(
        &self,
        point: CommitPoint,
        body: &mut dyn FnMut(&mut dyn HomeTx) -> HomeResult<()>,
    ) -> HomeResult<Vec<String>>;

    /// Whether the home's task queue is open (its transactions offer
    /// [`HomeTx::tasks`]).
    fn has_task_queue(&self) -> bool {
        false
    }

    /// Open the home's task queue (the SQLite home creates its `memq_*`
    /// tables; idempotent).
    ///
    /// # Errors
    /// `Unsupported` for a home that keeps no queue; `Storage`.
    fn open_task_queue(&self) -> HomeResult<()> {
        Err(no_task_queue())
    }

    /// Run `body` over the queue's rows, outside any transaction (one
    /// consistent read).
    ///
    /// # Errors
    /// `Unsupported` without a queue; `body`'s error; `Storage`.
    fn read_tasks(&self, body: &mut dyn FnMut(&dyn TaskReads) -> HomeResult<()>) -> HomeResult<()> {
        let _ = body;
        Err(no_task_queue())
    }

    /// Run `body` over the home's own tables (the table kit, `crate::table`;
    /// kept with the task queue), outside any transaction (one consistent
    /// read; a table never written reads empty).
    ///
    /// # Errors
    /// `Unsupported` without a queue; `body`'s error; `Storage`.
    fn read_tables(
        &self,
        body: &mut dyn FnMut(&dyn TableReads) -> HomeResult<()>,
    ) -> HomeResult<()> {
        let _ = body;
        Err(no_task_queue())
    }
}

/// The refusal of a queue write or read on a home without a task queue.
pub fn no_task_queue() -> am_triples::Error {
    am_triples::Error::unsupported(
        "this home has no memory task queue: open it with MemorySystem(task_queue=True)",
    )
}

/// The views of one open [`MemoryHome::transaction`] (a task queue view will
/// join them).
pub trait HomeTx {
    /// The store's writes inside this transaction.
    fn store(&mut self) -> &mut dyn StoreTx;
    /// The journal's writes inside this transaction.
    fn journal(&mut self) -> &mut dyn JournalTx;
    /// The task queue's rows inside this transaction (its reads see the
    /// transaction's own writes).
    ///
    /// # Errors
    /// `Unsupported` when the home has no task queue.
    fn tasks(&mut self) -> HomeResult<&mut dyn TasksTx> {
        Err(no_task_queue())
    }
    /// The home's own tables inside this transaction (the table kit, kept
    /// with the task queue; its reads see the transaction's own writes).
    ///
    /// # Errors
    /// `Unsupported` when the home has no task queue.
    fn tables(&mut self) -> HomeResult<&mut dyn TablesTx> {
        Err(no_task_queue())
    }
}

/// The store's writes inside a home transaction.
///
/// # Contract
/// - [`add`](StoreTx::add) takes a batch prepared by the same home; a batch of
///   another home is refused (`InvalidInput`), nothing written. A row whose
///   `assertion_id` is already stored is skipped, as `TripleStore::add` skips
///   it. It returns the batch's ids in order (skipped rows included).
pub trait StoreTx {
    /// Add prepared rows in this transaction.
    ///
    /// # Errors
    /// `InvalidInput` for a batch of another home; `DimensionMismatch` against
    /// the stored pin; `Storage`. The transaction's body should return the
    /// error, so nothing of the transaction lands.
    fn add(&mut self, rows: &PreparedBatch) -> HomeResult<Vec<String>>;

    /// Rewrite one digest row in place in this transaction (a rewrite the same
    /// home prepared): its object, attributes, canonical text, keyword entry
    /// and vector. The stored row must still be the one the rewrite expected.
    ///
    /// # Errors
    /// `Conflict` when the stored row changed since it was read, `NotFound`
    /// when it is gone; `Unsupported` for a home without the capability (the
    /// default); `Storage`. The body should return the error.
    fn rewrite_digest(&mut self, rewrite: &PreparedRewrite) -> HomeResult<()> {
        let _ = rewrite;
        Err(am_triples::Error::unsupported(
            "this home cannot rewrite a digest row in place",
        ))
    }
}

/// The journal's writes inside a home transaction.
///
/// # Contract
/// - [`append_bindings`](JournalTx::append_bindings) validates every binding
///   before it writes any (`InvalidInput`, nothing written) and appends them
///   all-or-nothing, idempotent by `binding_id`, as
///   `MemoryJournal::append_bindings`.
pub trait JournalTx {
    /// Append bindings in this transaction.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid binding; `Storage`.
    fn append_bindings(&mut self, bindings: &[ScopeBinding]) -> HomeResult<()>;

    /// Append understanding versions in this transaction, validated first
    /// (`InvalidInput`, nothing written), idempotent by `version_id`, as
    /// `MemoryJournal::append_version`.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid version; `Unsupported` for a home
    /// without it (the default); `Storage`.
    fn append_versions(&mut self, versions: &[UnderstandingVersion]) -> HomeResult<()> {
        let _ = versions;
        Err(am_triples::Error::unsupported(
            "this home's transaction cannot append understanding versions",
        ))
    }

    /// Append closures in this transaction, validated first (`InvalidInput`,
    /// nothing written), all-or-nothing and idempotent by `closure_id`, as
    /// `MemoryJournal::append_closures` (a sleep pass's supersedes beside the
    /// record that replaces them).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid closure; `Unsupported` for a home
    /// without it (the default); `Storage`.
    fn append_closures(&mut self, closures: &[ClosureRecord]) -> HomeResult<()> {
        let _ = closures;
        Err(am_triples::Error::unsupported(
            "this home's transaction cannot append closures",
        ))
    }

    /// Append events in this transaction, validated first (`InvalidInput`,
    /// nothing written), idempotent by a supplied `event_id`, as
    /// `MemoryJournal::append_events` (formation's `placed` events beside
    /// the records they place).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid event; `Unsupported` for a home
    /// without it (the default); `Storage`.
    fn append_events(&mut self, events: &[MemoryEvent]) -> HomeResult<()> {
        let _ = events;
        Err(am_triples::Error::unsupported(
            "this home's transaction cannot append events",
        ))
    }

    /// Append valence events in this transaction, validated first
    /// (`InvalidInput`, nothing written), idempotent by a supplied
    /// `event_id`, as `MemoryJournal::append_valence` (a tending election's
    /// healing or break beside its other acts).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid event; `Unsupported` for a home
    /// without it (the default); `Storage`.
    fn append_valence(&mut self, events: &[ValenceEvent]) -> HomeResult<()> {
        let _ = events;
        Err(am_triples::Error::unsupported(
            "this home's transaction cannot append valence events",
        ))
    }

    /// Append a trace and its listed events in this transaction, validated
    /// first (`InvalidInput`, nothing written), idempotent by the trace's and
    /// the events' ids, as `MemoryJournal::append_recall` (a tending
    /// election's `revisit` beside its other acts).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid trace or event; `Unsupported` for a
    /// home without it (the default); `Storage`.
    fn append_recall(
        &mut self,
        trace: &ReconstructionTrace,
        events: &[MemoryEvent],
    ) -> HomeResult<()> {
        let _ = (trace, events);
        Err(am_triples::Error::unsupported(
            "this home's transaction cannot append a trace",
        ))
    }
}

/// A home over any store and journal, which share no transaction (the
/// in-memory pair, a store and a journal in two files, a LanceDB store beside
/// a SQLite journal).
///
/// # Contract
/// - Writes issued through the `HomeTx` are validated when issued (a batch of
///   another home, an invalid binding: `InvalidInput`, nothing staged) and
///   staged; nothing is written while `body` runs.
/// - `body` returns `Err`: nothing is written.
/// - With a task queue ([`PairHome::with_task_queue`]): the queue's rows and
///   the home's tables are locked from the body's first [`HomeTx::tasks`] or
///   [`HomeTx::tables`] call to the end of the transaction and written in
///   place; a body error, a guard refusal or a failing store `add` undoes
///   exactly this transaction's queue and table writes. A
///   journal append failing after the rows were added keeps them (a record
///   never loses its task).
/// - `body` returns `Ok`: the staged store rows are written first, in one
///   `TripleStore::add` of the rows not stored yet (all-or-nothing), then the
///   staged bindings in the order issued, then the staged closures in the
///   order issued, then the events, the valence events and the traces with
///   their events, each append all-or-nothing. A failing
///   `add` writes nothing of the transaction. A journal append that fails after
///   the rows were added leaves those rows (the store is append-only: nothing
///   can be taken back) and returns the error; callers use deterministic ids, so
///   replaying the transaction writes nothing twice.
/// - Digest rewrites: each staged rewrite's row is checked against what it
///   expected before anything is written (`Conflict`, nothing written); the
///   version rows are appended after the bindings, and the rows rewritten
///   last. A durable store ([`Capabilities::persistent`](am_triples::Capabilities))
///   is refused a rewrite (`InvalidInput`): its journal shares no transaction.
#[derive(Clone)]
pub struct PairHome {
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    tasks: Option<Arc<InMemoryTaskQueue>>,
}

impl std::fmt::Debug for PairHome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairHome").finish_non_exhaustive()
    }
}

impl PairHome {
    /// A home over `store` and `journal`.
    pub fn new(store: Arc<dyn TripleStore>, journal: Arc<dyn MemoryJournal>) -> Self {
        PairHome {
            store,
            journal,
            tasks: None,
        }
    }

    /// A home over `store` and `journal` keeping `tasks` as its queue.
    pub fn with_task_queue(
        store: Arc<dyn TripleStore>,
        journal: Arc<dyn MemoryJournal>,
        tasks: Arc<InMemoryTaskQueue>,
    ) -> Self {
        PairHome {
            store,
            journal,
            tasks: Some(tasks),
        }
    }

    /// The home's in-memory queue, if it keeps one.
    pub fn task_queue(&self) -> Option<&Arc<InMemoryTaskQueue>> {
        self.tasks.as_ref()
    }
}

/// The assertions a [`PairHome`] batch carries (its payload).
struct PairRows(Vec<TripleAssertion>);

/// The writes a [`PairHome`] transaction stages.
#[derive(Default)]
struct PairStaged<'a> {
    rows: Vec<TripleAssertion>,
    bindings: Vec<Vec<ScopeBinding>>,
    closures: Vec<Vec<ClosureRecord>>,
    events: Vec<MemoryEvent>,
    valence: Vec<ValenceEvent>,
    recalls: Vec<(ReconstructionTrace, Vec<MemoryEvent>)>,
    versions: Vec<UnderstandingVersion>,
    rewrites: Vec<PreparedRewrite>,
    queue: Option<&'a InMemoryTaskQueue>,
    tasks: Option<MemTasksTx<'a>>,
}

impl StoreTx for PairStaged<'_> {
    fn add(&mut self, rows: &PreparedBatch) -> HomeResult<Vec<String>> {
        let Some(PairRows(assertions)) = rows.payload::<PairRows>() else {
            return Err(am_triples::Error::invalid(
                "a home transaction adds only rows its own home prepared, got a batch prepared by another home",
            ));
        };
        self.rows.extend(assertions.iter().cloned());
        Ok(rows.ids.clone())
    }

    fn rewrite_digest(&mut self, rewrite: &PreparedRewrite) -> HomeResult<()> {
        self.rewrites.push(rewrite.clone());
        Ok(())
    }
}

impl JournalTx for PairStaged<'_> {
    fn append_bindings(&mut self, bindings: &[ScopeBinding]) -> HomeResult<()> {
        for b in bindings {
            b.normalized()?;
        }
        self.bindings.push(bindings.to_vec());
        Ok(())
    }

    fn append_versions(&mut self, versions: &[UnderstandingVersion]) -> HomeResult<()> {
        for v in versions {
            self.versions.push(v.normalized()?);
        }
        Ok(())
    }

    fn append_closures(&mut self, closures: &[ClosureRecord]) -> HomeResult<()> {
        let mut checked = Vec::with_capacity(closures.len());
        for c in closures {
            checked.push(c.normalized()?);
        }
        self.closures.push(checked);
        Ok(())
    }

    fn append_events(&mut self, events: &[MemoryEvent]) -> HomeResult<()> {
        for e in events {
            self.events.push(e.normalized()?);
        }
        Ok(())
    }

    fn append_valence(&mut self, events: &[ValenceEvent]) -> HomeResult<()> {
        for e in events {
            self.valence.push(e.normalized()?);
        }
        Ok(())
    }

    fn append_recall(
        &mut self,
        trace: &ReconstructionTrace,
        events: &[MemoryEvent],
    ) -> HomeResult<()> {
        let mut checked = Vec::with_capacity(events.len());
        for e in events {
            checked.push(e.normalized()?);
        }
        self.recalls.push((trace.normalized()?, checked));
        Ok(())
    }
}

impl HomeTx for PairStaged<'_> {
    fn store(&mut self) -> &mut dyn StoreTx {
        self
    }
    fn journal(&mut self) -> &mut dyn JournalTx {
        self
    }
    fn tasks(&mut self) -> HomeResult<&mut dyn TasksTx> {
        let Some(queue) = self.queue else {
            return Err(no_task_queue());
        };
        Ok(self.tasks.get_or_insert_with(|| queue.begin()))
    }
    fn tables(&mut self) -> HomeResult<&mut dyn TablesTx> {
        let Some(queue) = self.queue else {
            return Err(no_task_queue());
        };
        Ok(self.tasks.get_or_insert_with(|| queue.begin()))
    }
}

impl MemoryHome for PairHome {
    fn store(&self) -> &Arc<dyn TripleStore> {
        &self.store
    }

    fn journal(&self) -> &Arc<dyn MemoryJournal> {
        &self.journal
    }

    fn prepare_rows(&self, rows: &[TripleAssertion]) -> HomeResult<PreparedBatch> {
        let mut canonical = Vec::with_capacity(rows.len());
        for a in rows {
            let mut c = a.canonicalized()?;
            if c.assertion_id.is_none() {
                c.assertion_id = Some(uuid::Uuid::new_v4().to_string());
            }
            canonical.push(c);
        }
        let ids = canonical
            .iter()
            .map(|a| a.assertion_id.clone().unwrap_or_default())
            .collect();
        Ok(PreparedBatch::new(ids, Box::new(PairRows(canonical))))
    }

    fn check_rewrite(&self) -> HomeResult<()> {
        let caps = self.store.capabilities();
        if !caps.digest_rewrite {
            return Err(am_triples::Error::unsupported(
                "this store cannot rewrite a record's digest row in place (no digest_rewrite capability; \
                 LanceDB: backlog 0059); nothing written",
            ));
        }
        if caps.persistent {
            return Err(am_triples::Error::invalid(
                "a digest rewrite needs the store and its journal in one transaction: this durable store's \
                 journal lives elsewhere (open the journal on the store's own file, the entity-home \
                 deployment); nothing written",
            ));
        }
        Ok(())
    }

    fn prepare_rewrite(&self, rewrite: &DigestRewrite) -> HomeResult<PreparedRewrite> {
        self.check_rewrite()?;
        self.store.prepare_digest_rewrite(rewrite)
    }

    fn transaction(
        &self,
        point: CommitPoint,
        body: &mut dyn FnMut(&mut dyn HomeTx) -> HomeResult<()>,
    ) -> HomeResult<Vec<String>> {
        let mut staged = PairStaged {
            queue: self.tasks.as_deref(),
            ..PairStaged::default()
        };
        let ran = body(&mut staged);
        let tasks = staged.tasks.take();
        if let Err(e) = ran {
            if let Some(t) = tasks {
                t.rollback();
            }
            return Err(e);
        }
        let tasks_wrote = tasks.as_ref().is_some_and(MemTasksTx::wrote);
        if staged.rows.is_empty()
            && staged.bindings.is_empty()
            && staged.closures.is_empty()
            && staged.events.is_empty()
            && staged.valence.is_empty()
            && staged.recalls.is_empty()
            && staged.versions.is_empty()
            && staged.rewrites.is_empty()
            && !tasks_wrote
        {
            return Ok(Vec::new());
        }
        // The store's then the journal's write locks (the writers' nesting
        // order, which a write barrier takes too) across the guard and the
        // writes; once per outermost transaction: the guard(s) before the
        // first write, not again by the writes below.
        let store_fence = self.store.write_fence();
        let journal_fence = self.journal.write_fence();
        let mut locks: Vec<&std::sync::Arc<am_triples::WriteLock>> = Vec::new();
        for l in store_fence.locks.iter().chain(&journal_fence.locks) {
            if !locks.iter().any(|k| std::sync::Arc::ptr_eq(k, l)) {
                locks.push(l);
            }
        }
        let _held: Vec<_> = locks
            .into_iter()
            .map(am_triples::WriteLock::write)
            .collect();
        // A rewrite whose row moved since it was read is refused before
        // anything is written (under the locks, so no writer of this process
        // can move it between this check and the write); a refusal or a guard
        // refusal undoes this transaction's queue writes.
        let checked = (|| {
            for r in &staged.rewrites {
                let current = self.store.query(&TripleQuery {
                    assertion_ids: Some(vec![r.rewrite.assertion_id.clone()]),
                    limit: 1,
                    ..TripleQuery::default()
                })?;
                am_triples::rewrite::check_expected(current.first(), &r.rewrite)?;
            }
            check_guards(&*self.store, &*self.journal, point)
        })();
        if let Err(e) = checked {
            if let Some(t) = tasks {
                t.rollback();
            }
            return Err(e);
        }
        let mut rows_added = false;
        let applied = CommitGuard::passed(|| self.apply(staged, point, &mut rows_added));
        if applied.is_err()
            && !rows_added
            && let Some(t) = tasks
        {
            t.rollback();
        }
        applied
    }

    fn has_task_queue(&self) -> bool {
        self.tasks.is_some()
    }

    fn open_task_queue(&self) -> HomeResult<()> {
        if self.tasks.is_some() {
            Ok(())
        } else {
            Err(no_task_queue())
        }
    }

    fn read_tasks(&self, body: &mut dyn FnMut(&dyn TaskReads) -> HomeResult<()>) -> HomeResult<()> {
        match &self.tasks {
            Some(q) => q.read(body),
            None => Err(no_task_queue()),
        }
    }

    fn read_tables(
        &self,
        body: &mut dyn FnMut(&dyn TableReads) -> HomeResult<()>,
    ) -> HomeResult<()> {
        match &self.tasks {
            Some(q) => q.read_tables(body),
            None => Err(no_task_queue()),
        }
    }
}

impl PairHome {
    /// Write a transaction's staged writes (the contract's order).
    fn apply(
        &self,
        staged: PairStaged<'_>,
        point: CommitPoint,
        rows_added: &mut bool,
    ) -> HomeResult<Vec<String>> {
        let mut warnings = Vec::new();
        if !staged.rows.is_empty() {
            // Rows already stored are not added (nor embedded) again.
            let existing: HashSet<String> = self
                .store
                .query(&TripleQuery {
                    assertion_ids: Some(
                        staged
                            .rows
                            .iter()
                            .filter_map(|a| a.assertion_id.clone())
                            .collect(),
                    ),
                    limit: 0,
                    ..TripleQuery::default()
                })?
                .into_iter()
                .filter_map(|a| a.assertion_id)
                .collect();
            let missing: Vec<TripleAssertion> = staged
                .rows
                .into_iter()
                .filter(|a| {
                    a.assertion_id
                        .as_ref()
                        .is_some_and(|id| !existing.contains(id))
                })
                .collect();
            if !missing.is_empty() {
                warnings = self.store.add_with_warnings(&missing)?.warnings;
            }
            *rows_added = true;
        }
        for bindings in &staged.bindings {
            self.journal.append_bindings(bindings)?;
        }
        for closures in &staged.closures {
            self.journal.append_closures(closures)?;
        }
        if !staged.events.is_empty() {
            self.journal.append_events(&staged.events)?;
        }
        if !staged.valence.is_empty() {
            self.journal.append_valence(&staged.valence)?;
        }
        for (trace, events) in &staged.recalls {
            self.journal.append_recall(trace, events)?;
        }
        // The version rows before the row they describe: a failure between
        // the two leaves the row as it was, and the deterministic version ids
        // make the retry append nothing twice.
        for v in &staged.versions {
            self.journal.append_version(v)?;
        }
        for r in &staged.rewrites {
            self.store.apply_digest_rewrite(r, point)?;
        }
        Ok(warnings)
    }
}

/// Call the commit guards of a home's store and journal for one outermost
/// transaction at `point`: the store's, then the journal's when it is another
/// guard (`MemorySystem` installs one guard on both).
///
/// # Errors
/// [`Error::guard_refusal`](am_triples::Error::guard_refusal) of the first guard that refuses.
pub fn check_guards(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    point: CommitPoint,
) -> HomeResult<()> {
    let store_guard = store.commit_guard();
    if let Some(g) = &store_guard {
        g.check(point)?;
    }
    if let Some(j) = journal.commit_guard()
        && !store_guard.as_ref().is_some_and(|g| g.same(&j))
    {
        j.check(point)?;
    }
    Ok(())
}
