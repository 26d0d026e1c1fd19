//! The in-memory graph connector: the graph tables as process-memory indexes over
//! an `InMemoryTripleStore`, one transaction at a time under one lock, undone by
//! an undo log on failure. Graph state is shared by every `MemoryGraph` over the
//! same store object.
//!
//! Spec: api.md "Connectors" (`_MemoryBackend`, an undo log).
//!
//! Store writes (new rows, window changes, adopted provenance) are staged during
//! the transaction and applied at commit, the new rows first: `add` is
//! all-or-nothing, so a refused batch (an embedder failure, a dimension against
//! the pin) undoes the graph rows too and the store is unchanged. The window and
//! provenance changes after it cannot fail (their rows exist and their
//! arguments are canonical).

use crate::backend::{
    AnyStore, BackendResult, ClaimKey, DerivationRow, GraphBackend, GraphJournal, GraphTx,
    HistoryRow, KnownMemory, PreparedRows, ProvenanceRow, RefMatch, RevisionRow,
};
use am_journal::ClosureRecord;
use am_triples::{InMemoryTripleStore, JsonMap, TripleAssertion, TripleQuery, TripleStore};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// The digest predicate (how a record's graph id resolves to its assertion).
const DIGEST_PREDICATE: &str = "dcterms:abstract";

/// The graph tables of one in-memory mind, with their indexes.
#[derive(Default)]
struct State {
    revisions: Vec<RevisionRow>,
    revision_pos: HashMap<String, usize>,
    history: Vec<HistoryRow>,
    history_by_memory: HashMap<String, Vec<usize>>,
    history_by_revision: HashMap<String, Vec<usize>>,
    provenance: Vec<ProvenanceRow>,
    provenance_keys: HashSet<(String, String)>,
    provenance_by_memory: HashMap<String, Vec<usize>>,
    provenance_by_key: HashMap<String, Vec<usize>>,
    provenance_by_run: HashMap<String, Vec<usize>>,
    derivations: Vec<DerivationRow>,
    derivation_keys: HashSet<(String, String)>,
    parents: HashMap<String, Vec<usize>>,
    children: HashMap<String, Vec<usize>>,
    /// Graph memories: id -> owner.
    memories: HashMap<String, Option<String>>,
    /// Graph memories by claim, in the order asserted.
    claims: HashMap<ClaimKey, Vec<String>>,
    /// Graph digest assertions by subject, in the order asserted.
    digests: HashMap<String, Vec<String>>,
    /// Memory -> the revision that closed it through the graph.
    closed_by: HashMap<String, String>,
}

/// One undoable change to [`State`].
enum Undo {
    Revision(String),
    History(String, String),
    Provenance(String, String, Option<String>),
    Derivation(String, String),
    Memory(String, ClaimKey, bool),
    Closed(String),
}

fn pop_index<T>(map: &mut HashMap<String, Vec<T>>, key: &str) {
    if let Some(v) = map.get_mut(key) {
        v.pop();
        if v.is_empty() {
            map.remove(key);
        }
    }
}

impl State {
    fn undo(&mut self, u: Undo) {
        match u {
            Undo::Revision(id) => {
                self.revisions.pop();
                self.revision_pos.remove(&id);
            }
            Undo::History(memory, revision) => {
                self.history.pop();
                pop_index(&mut self.history_by_memory, &memory);
                pop_index(&mut self.history_by_revision, &revision);
            }
            Undo::Provenance(memory, key, run) => {
                self.provenance.pop();
                self.provenance_keys.remove(&(memory.clone(), key.clone()));
                pop_index(&mut self.provenance_by_memory, &memory);
                pop_index(&mut self.provenance_by_key, &key);
                if let Some(r) = run {
                    pop_index(&mut self.provenance_by_run, &r);
                }
            }
            Undo::Derivation(memory, from) => {
                self.derivations.pop();
                self.derivation_keys.remove(&(memory.clone(), from.clone()));
                pop_index(&mut self.parents, &memory);
                pop_index(&mut self.children, &from);
            }
            Undo::Memory(id, claim, digest) => {
                self.memories.remove(&id);
                if let Some(v) = self.claims.get_mut(&claim) {
                    v.pop();
                    if v.is_empty() {
                        self.claims.remove(&claim);
                    }
                }
                if digest {
                    pop_index(&mut self.digests, &claim.subject);
                }
            }
            Undo::Closed(id) => {
                self.closed_by.remove(&id);
            }
        }
    }

    fn head(&self) -> i64 {
        self.revisions.last().map_or(0, |r| r.seq)
    }
}

type SharedState = Arc<Mutex<State>>;

/// Graph states by store object: every graph over one store shares one state.
static STATES: Mutex<Vec<(Weak<InMemoryTripleStore>, SharedState)>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic inside a transaction is undone before the guard drops (see
    // `transaction`); a poisoned lock holds consistent state.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn state_for(store: &Arc<InMemoryTripleStore>) -> SharedState {
    let mut all = lock(&STATES);
    all.retain(|(w, _)| w.strong_count() > 0);
    if let Some((_, s)) = all
        .iter()
        .find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(store)))
    {
        return Arc::clone(s);
    }
    let s: SharedState = Arc::default();
    all.push((Arc::downgrade(store), Arc::clone(&s)));
    s
}

/// The registry factory of the in-memory connector.
///
/// # Errors
/// `Unsupported` when `store` is not an `InMemoryTripleStore`.
pub fn factory(
    store: &AnyStore,
    _journal: Option<&GraphJournal>,
) -> BackendResult<Box<dyn GraphBackend>> {
    let store = Arc::clone(store)
        .downcast::<InMemoryTripleStore>()
        .map_err(|_| {
            am_triples::Error::unsupported(
                "the in-memory graph connector expected an InMemoryTripleStore",
            )
        })?;
    Ok(Box::new(MemoryBackend::new(store)))
}

/// The in-memory connector over one `InMemoryTripleStore`.
pub struct MemoryBackend {
    store: Arc<InMemoryTripleStore>,
    state: SharedState,
}

impl std::fmt::Debug for MemoryBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryBackend").finish_non_exhaustive()
    }
}

impl MemoryBackend {
    /// The connector of `store`, sharing graph state with every other connector
    /// over the same store object.
    pub fn new(store: Arc<InMemoryTripleStore>) -> Self {
        let state = state_for(&store);
        MemoryBackend { store, state }
    }
}

fn stored_row(store: &InMemoryTripleStore, id: &str) -> BackendResult<Option<TripleAssertion>> {
    let rows = store.query(&TripleQuery {
        assertion_ids: Some(vec![id.to_owned()]),
        ..TripleQuery::default()
    })?;
    Ok(rows
        .into_iter()
        .find(|a| a.assertion_id.as_deref() == Some(id)))
}

fn bounded<T: Clone>(rows: &[T], idx: Option<&Vec<usize>>, limit: usize) -> Vec<T> {
    idx.map(|v| v.iter().take(limit).map(|&i| rows[i].clone()).collect())
        .unwrap_or_default()
}

impl GraphBackend for MemoryBackend {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn prepare_rows(&self, assertions: &[TripleAssertion]) -> BackendResult<PreparedRows> {
        let rows = assertions
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<am_triples::Result<Vec<_>>>()?;
        Ok(PreparedRows {
            assertions: rows,
            payload: Box::new(()),
        })
    }

    fn transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn GraphTx) -> BackendResult<()>,
    ) -> BackendResult<()> {
        // The store's write lock first (the writers' nesting order, which a
        // write barrier takes too), for the whole revision.
        let _write = self.store.write_lock().write();
        let mut guard = lock(&self.state);
        let mut tx = MemTx {
            store: &self.store,
            state: &mut guard,
            undo: Vec::new(),
            inserts: Vec::new(),
            windows: HashMap::new(),
            provenance: HashMap::new(),
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut tx)));
        let result = match outcome {
            // The commit guard, under the tables' lock, before the store
            // writes; once (the store's own writes below do not call it again).
            Ok(r) => r.and_then(|()| {
                if let Some(g) = self.store.commit_guard() {
                    g.check(am_triples::CommitPoint::Graph)?;
                }
                am_triples::CommitGuard::passed(|| tx.apply_store())
            }),
            Err(panic) => {
                tx.rollback();
                std::panic::resume_unwind(panic);
            }
        };
        if result.is_err() {
            tx.rollback();
        }
        result
    }

    fn applied_seq(&self, revision_id: &str) -> BackendResult<Option<i64>> {
        let st = lock(&self.state);
        Ok(st
            .revision_pos
            .get(revision_id)
            .map(|&i| st.revisions[i].seq))
    }

    fn resolve(&self, memory_id: &str) -> BackendResult<Option<String>> {
        let st = lock(&self.state);
        if st.memories.contains_key(memory_id) {
            return Ok(Some(memory_id.to_owned()));
        }
        Ok(st.digests.get(memory_id).and_then(|v| v.last().cloned()))
    }

    fn history(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<(HistoryRow, String)>> {
        let st = lock(&self.state);
        Ok(
            bounded(&st.history, st.history_by_memory.get(memory_id), limit)
                .into_iter()
                .map(|h| {
                    let cause = st
                        .revision_pos
                        .get(&h.revision_id)
                        .map(|&i| st.revisions[i].cause.clone())
                        .unwrap_or_default();
                    (h, cause)
                })
                .collect(),
        )
    }

    fn sources(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<ProvenanceRow>> {
        let st = lock(&self.state);
        Ok(bounded(
            &st.provenance,
            st.provenance_by_memory.get(memory_id),
            limit,
        ))
    }

    fn parents(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        let st = lock(&self.state);
        Ok(bounded(&st.derivations, st.parents.get(memory_id), limit)
            .into_iter()
            .map(|d| d.from_id)
            .collect())
    }

    fn children(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        let st = lock(&self.state);
        Ok(bounded(&st.derivations, st.children.get(memory_id), limit)
            .into_iter()
            .map(|d| d.memory_id)
            .collect())
    }

    fn with_ref(&self, m: &RefMatch, limit: usize) -> BackendResult<Vec<String>> {
        let st = lock(&self.state);
        let idx = match m {
            RefMatch::Key(k) => st.provenance_by_key.get(k),
            RefMatch::Run(r) => st.provenance_by_run.get(r),
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for &i in idx.into_iter().flatten() {
            if out.len() >= limit {
                break;
            }
            let id = &st.provenance[i].memory_id;
            if seen.insert(id.clone()) {
                out.push(id.clone());
            }
        }
        Ok(out)
    }

    fn names_ref(&self, m: &RefMatch, owner_ids: &[String]) -> BackendResult<bool> {
        let st = lock(&self.state);
        let idx = match m {
            RefMatch::Key(k) => st.provenance_by_key.get(k),
            RefMatch::Run(r) => st.provenance_by_run.get(r),
        };
        Ok(idx
            .into_iter()
            .flatten()
            .any(|&i| owner_ids.contains(&st.provenance[i].owner_id)))
    }

    fn revisions_page(&self, after: i64, limit: usize) -> BackendResult<Vec<RevisionRow>> {
        let st = lock(&self.state);
        // seq is 1-based and dense in this connector: position = seq - 1.
        let start = usize::try_from(after.max(0)).unwrap_or(usize::MAX);
        Ok(st
            .revisions
            .iter()
            .skip(start)
            .take(limit)
            .cloned()
            .collect())
    }

    fn log_head(&self) -> BackendResult<i64> {
        Ok(lock(&self.state).head())
    }

    fn logged_outcome(
        &self,
        revision_id: &str,
        limit: usize,
    ) -> BackendResult<Option<(RevisionRow, Vec<HistoryRow>)>> {
        let st = lock(&self.state);
        let Some(&pos) = st.revision_pos.get(revision_id) else {
            return Ok(None);
        };
        Ok(Some((
            st.revisions[pos].clone(),
            bounded(&st.history, st.history_by_revision.get(revision_id), limit),
        )))
    }

    fn pending_journal(&self, limit: usize) -> BackendResult<Vec<RevisionRow>> {
        let st = lock(&self.state);
        Ok(st
            .revisions
            .iter()
            .filter(|r| !r.journal_applied)
            .take(limit)
            .cloned()
            .collect())
    }

    fn closed_payload(&self, revision_id: &str, limit: usize) -> BackendResult<Vec<HistoryRow>> {
        let st = lock(&self.state);
        Ok(bounded(
            &st.history,
            st.history_by_revision.get(revision_id),
            usize::MAX,
        )
        .into_iter()
        .filter(|h| h.event == "closed")
        .take(limit)
        .collect())
    }

    fn mark_journal_applied(&self, revision_id: &str) -> BackendResult<()> {
        // A write of the graph's tables of its own (the SQLite connector's
        // autocommit bookkeeping write): under the store's write lock (the
        // writers' nesting order, which a barrier takes too), the guard
        // first.
        let _write = self.store.write_lock().write();
        if let Some(g) = self.store.commit_guard() {
            g.check(am_triples::CommitPoint::GraphMarkJournalApplied)?;
        }
        let mut st = lock(&self.state);
        if let Some(&pos) = st.revision_pos.get(revision_id) {
            st.revisions[pos].journal_applied = true;
        }
        Ok(())
    }

    fn repair_projections(&self) -> BackendResult<usize> {
        Ok(0)
    }
}

/// One in-memory transaction: graph rows written with an undo log, store writes
/// staged until commit.
struct MemTx<'a> {
    store: &'a InMemoryTripleStore,
    state: &'a mut State,
    undo: Vec<Undo>,
    inserts: Vec<TripleAssertion>,
    /// Staged `valid_until` changes: id -> (close or narrow, new end).
    windows: HashMap<String, (bool, String)>,
    provenance: HashMap<String, JsonMap>,
}

impl MemTx<'_> {
    fn rollback(&mut self) {
        while let Some(u) = self.undo.pop() {
            self.state.undo(u);
        }
    }

    /// Apply the staged store writes: the new rows first (all-or-nothing), then
    /// the window and provenance changes, which cannot fail.
    fn apply_store(&mut self) -> BackendResult<()> {
        if !self.inserts.is_empty() {
            self.store.add(&self.inserts)?;
        }
        for (id, prov) in &self.provenance {
            self.store.replace_provenance(id, prov.clone());
        }
        for (id, (close, end)) in &self.windows {
            if *close {
                // The engine ends a row at the earlier instant: an open row is
                // closed, a closed one narrowed.
                if !self.store.close_assertion(id, end)? {
                    self.store.narrow_assertion(id, end)?;
                }
            } else {
                self.store.narrow_assertion(id, end)?;
            }
        }
        Ok(())
    }

    fn staged(&self, id: &str) -> Option<&TripleAssertion> {
        self.inserts
            .iter()
            .find(|a| a.assertion_id.as_deref() == Some(id))
    }

    fn row(&self, id: &str) -> BackendResult<Option<TripleAssertion>> {
        let mut row = match self.staged(id) {
            Some(a) => Some(a.clone()),
            None => stored_row(self.store, id)?,
        };
        if let Some(r) = &mut row {
            if let Some((_, end)) = self.windows.get(id) {
                r.valid_until = Some(end.clone());
            }
            if let Some(p) = self.provenance.get(id) {
                r.provenance = p.clone();
            }
        }
        Ok(row)
    }
}

impl GraphTx for MemTx<'_> {
    fn revision_seq(&mut self, revision_id: &str) -> BackendResult<Option<i64>> {
        Ok(self
            .state
            .revision_pos
            .get(revision_id)
            .map(|&i| self.state.revisions[i].seq))
    }

    fn memory_known(&mut self, memory_id: &str) -> BackendResult<Option<KnownMemory>> {
        Ok(self.state.memories.get(memory_id).map(|o| KnownMemory {
            owner_id: o.clone(),
        }))
    }

    fn closing_revision(&mut self, memory_id: &str) -> BackendResult<Option<String>> {
        Ok(self.state.closed_by.get(memory_id).cloned())
    }

    fn parents(&mut self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        Ok(bounded(
            &self.state.derivations,
            self.state.parents.get(memory_id),
            limit,
        )
        .into_iter()
        .map(|d| d.from_id)
        .collect())
    }

    fn open_same_claim(&mut self, claim: &ClaimKey) -> BackendResult<Option<String>> {
        let ids = self.state.claims.get(claim).cloned().unwrap_or_default();
        for id in ids {
            if let Some(r) = self.row(&id)?
                && r.valid_until.is_none()
            {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    fn digest_assertion_for(&mut self, graph_id: &str) -> BackendResult<Option<String>> {
        Ok(self
            .state
            .digests
            .get(graph_id)
            .and_then(|v| v.last().cloned()))
    }

    fn source_ref(&mut self, memory_id: &str, ref_key: &str) -> BackendResult<Option<Value>> {
        Ok(self
            .state
            .provenance_by_memory
            .get(memory_id)
            .into_iter()
            .flatten()
            .map(|&i| &self.state.provenance[i])
            .find(|r| r.ref_key == ref_key)
            .map(|r| r.ref_json.clone()))
    }

    fn existing_ids(&mut self, ids: &[String]) -> BackendResult<Vec<String>> {
        let mut out = Vec::new();
        for id in ids {
            if self.staged(id).is_some() || stored_row(self.store, id)?.is_some() {
                out.push(id.clone());
            }
        }
        Ok(out)
    }

    fn stored(&mut self, assertion_id: &str) -> BackendResult<Option<TripleAssertion>> {
        self.row(assertion_id)
    }

    fn window(
        &mut self,
        assertion_id: &str,
    ) -> BackendResult<Option<(Option<String>, Option<String>)>> {
        Ok(self
            .row(assertion_id)?
            .map(|r| (r.valid_from, r.valid_until)))
    }

    fn write_pin(&mut self, _rows: &PreparedRows) -> BackendResult<()> {
        // The store writes its pin with the first embedded batch at commit.
        Ok(())
    }

    fn insert_assertions(&mut self, rows: &PreparedRows, indexes: &[usize]) -> BackendResult<()> {
        for &i in indexes {
            let a = rows.assertions.get(i).ok_or_else(|| {
                am_triples::Error::invalid(format!(
                    "prepared row index {i} out of range (0..{})",
                    rows.assertions.len()
                ))
            })?;
            let Some(id) = a.assertion_id.clone() else {
                return Err(am_triples::Error::invalid(
                    "a graph row needs an assertion_id, got none",
                ));
            };
            if self.staged(&id).is_some() || stored_row(self.store, &id)?.is_some() {
                continue;
            }
            self.inserts.push(a.clone());
            // Every row the graph inserts is a memory of the graph.
            let claim = ClaimKey::of(a);
            let digest = a.predicate == DIGEST_PREDICATE;
            self.state.memories.insert(id.clone(), a.owner_id.clone());
            self.state
                .claims
                .entry(claim.clone())
                .or_default()
                .push(id.clone());
            if digest {
                self.state
                    .digests
                    .entry(a.subject.clone())
                    .or_default()
                    .push(id.clone());
            }
            self.undo.push(Undo::Memory(id, claim, digest));
        }
        Ok(())
    }

    fn set_provenance(&mut self, assertion_id: &str, provenance: &JsonMap) -> BackendResult<()> {
        let Some(row) = self.row(assertion_id)? else {
            return Err(am_triples::Error::not_found(format!(
                "set_provenance: no row {assertion_id}"
            )));
        };
        self.provenance
            .insert(assertion_id.to_owned(), provenance.clone());
        if !self.state.memories.contains_key(assertion_id) {
            // An adopted row becomes a memory of the graph.
            let claim = ClaimKey::of(&row);
            let digest = row.predicate == DIGEST_PREDICATE;
            self.state
                .memories
                .insert(assertion_id.to_owned(), row.owner_id.clone());
            self.state
                .claims
                .entry(claim.clone())
                .or_default()
                .push(assertion_id.to_owned());
            if digest {
                self.state
                    .digests
                    .entry(row.subject.clone())
                    .or_default()
                    .push(assertion_id.to_owned());
            }
            self.undo
                .push(Undo::Memory(assertion_id.to_owned(), claim, digest));
        }
        Ok(())
    }

    fn end_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()> {
        self.windows
            .insert(assertion_id.to_owned(), (true, valid_until.to_owned()));
        Ok(())
    }

    fn narrow_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()> {
        let close = self.windows.get(assertion_id).is_some_and(|(c, _)| *c);
        self.windows
            .insert(assertion_id.to_owned(), (close, valid_until.to_owned()));
        Ok(())
    }

    fn write_closure(&mut self, _closure: &ClosureRecord) -> BackendResult<bool> {
        // The journal is another object: the engine appends after the commit.
        Ok(false)
    }

    fn add_history(&mut self, row: &HistoryRow) -> BackendResult<()> {
        let mut row = row.clone();
        row.seq = self.state.history.last().map_or(0, |h| h.seq) + 1;
        let pos = self.state.history.len();
        self.state
            .history_by_memory
            .entry(row.memory_id.clone())
            .or_default()
            .push(pos);
        self.state
            .history_by_revision
            .entry(row.revision_id.clone())
            .or_default()
            .push(pos);
        self.undo.push(Undo::History(
            row.memory_id.clone(),
            row.revision_id.clone(),
        ));
        if row.event == "closed" && !self.state.closed_by.contains_key(&row.memory_id) {
            self.state
                .closed_by
                .insert(row.memory_id.clone(), row.revision_id.clone());
            self.undo.push(Undo::Closed(row.memory_id.clone()));
        }
        self.state.history.push(row);
        Ok(())
    }

    fn add_source(&mut self, row: &ProvenanceRow) -> BackendResult<()> {
        let key = (row.memory_id.clone(), row.ref_key.clone());
        if self.state.provenance_keys.contains(&key) {
            return Ok(());
        }
        let pos = self.state.provenance.len();
        self.state.provenance_keys.insert(key);
        self.state
            .provenance_by_memory
            .entry(row.memory_id.clone())
            .or_default()
            .push(pos);
        self.state
            .provenance_by_key
            .entry(row.ref_key.clone())
            .or_default()
            .push(pos);
        if let Some(r) = &row.run_id {
            self.state
                .provenance_by_run
                .entry(r.clone())
                .or_default()
                .push(pos);
        }
        self.undo.push(Undo::Provenance(
            row.memory_id.clone(),
            row.ref_key.clone(),
            row.run_id.clone(),
        ));
        self.state.provenance.push(row.clone());
        Ok(())
    }

    fn add_derivation(&mut self, row: &DerivationRow) -> BackendResult<()> {
        let key = (row.memory_id.clone(), row.from_id.clone());
        if self.state.derivation_keys.contains(&key) {
            return Ok(());
        }
        let pos = self.state.derivations.len();
        self.state.derivation_keys.insert(key);
        self.state
            .parents
            .entry(row.memory_id.clone())
            .or_default()
            .push(pos);
        self.state
            .children
            .entry(row.from_id.clone())
            .or_default()
            .push(pos);
        self.undo
            .push(Undo::Derivation(row.memory_id.clone(), row.from_id.clone()));
        self.state.derivations.push(row.clone());
        Ok(())
    }

    fn insert_revision(&mut self, row: &RevisionRow) -> BackendResult<i64> {
        if self.state.revision_pos.contains_key(&row.revision_id) {
            return Err(am_triples::Error::conflict(format!(
                "revision {} is already in the log",
                row.revision_id
            )));
        }
        let mut row = row.clone();
        row.seq = self.state.head() + 1;
        let seq = row.seq;
        self.state
            .revision_pos
            .insert(row.revision_id.clone(), self.state.revisions.len());
        self.undo.push(Undo::Revision(row.revision_id.clone()));
        self.state.revisions.push(row);
        Ok(seq)
    }
}
