//! `MemoryGraph`: the one write path of a mind. `apply_revision` checks a
//! revision's provenance, applies its ops in one connector transaction with
//! every rule of the spec, in its order, and logs it; the reads are in
//! `reads.rs`.
//!
//! Spec: api.md "The memory graph: revisions and provenance" / `MemoryGraph`;
//! memory-system.md "Time axes" and "Provenance"; troubleshooting.md
//! "`ProvenanceRequired` from `MemoryGraph.apply_revision`".

use crate::backend::{
    ClaimKey, DerivationRow, GraphBackend, GraphTx, HistoryRow, PreparedRows, ProvenanceRow,
    RevisionRow,
};
use crate::error::{Error, Result};
use crate::provenance::Provenance;
use crate::registry::{AnyStore, GraphJournal, backend_for};
use crate::revision::{
    AssertOp, CloseKind, CloseOp, NarrowOp, Revision, RevisionOp, RevisionResult, SkippedOp,
};
use crate::source::{SourceRef, check_digest_agreement};
use am_journal::ClosureRecord;
use am_triples::{JsonMap, TripleAssertion, timestamp};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The record-time clock (`am_triples::Clock`): answers the current instant.
pub use am_triples::Clock;

/// History event names.
pub mod events {
    /// A memory was asserted (or adopted).
    pub const ASSERTED: &str = "asserted";
    /// A held memory was seen again.
    pub const RE_OBSERVED: &str = "re-observed";
    /// A memory was closed.
    pub const CLOSED: &str = "closed";
    /// A closed window was moved earlier.
    pub const NARROWED: &str = "narrowed";
}

/// Skip reasons reported in [`RevisionResult::skipped`].
pub mod why {
    /// An open claim the graph already holds was asserted again.
    pub const RE_OBSERVED: &str = "re-observed";
    /// The id is already a memory of the graph holding the same claim.
    pub const ALREADY_ASSERTED: &str = "already asserted";
    /// The memory was already closed through the graph.
    pub const ALREADY_CLOSED: &str = "already closed";
    /// The narrow's date is at or after the current end.
    pub const NOT_NARROWER: &str = "not narrower";
}

/// The id of the closure a revision's close op writes: `memg-closure-` and the
/// first 32 hex digits of sha256(`"{revision_id}|{index}"`). Deterministic, so
/// `repair` and a replay write the same closure.
pub fn closure_id(revision_id: &str, index: usize) -> String {
    let h = hex::encode(Sha256::digest(format!("{revision_id}|{index}").as_bytes()));
    format!("memg-closure-{}", &h[..32])
}

/// The adoption a logged assert carries (`{"previous_provenance": {...}}`), by
/// op index.
pub type Adoptions = HashMap<usize, JsonMap>;

/// A mind's graph: the write path ([`MemoryGraph::apply_revision`]) and the
/// bounded reads, over a connector chosen by the store's type.
///
/// # Examples
/// ```
/// use am_graph::{MemoryGraph, Provenance, Revision, RevisionDraft, RevisionOp, AssertOp, SourceRef};
/// use am_triples::InMemoryTripleStore;
/// use std::sync::Arc;
///
/// let store = Arc::new(InMemoryTripleStore::new(None));
/// let graph = MemoryGraph::new(store, None).unwrap();
/// let rev = Revision::new(RevisionDraft {
///     revision_id: "note-1-extract".into(),
///     scope: "global".into(),
///     owner_id: Some("person:ada".into()),
///     cause: "ingest".into(),
///     occurred_at: "2026-01-05T09:00:00Z".into(),
///     ops: vec![RevisionOp::Assert({
///         let mut a = AssertOp::claim("ex:dana", "schema:worksFor", "ex:acme");
///         a.assertion.assertion_id = Some("c1".into());
///         a
///     })],
///     provenance: Provenance::new(vec![SourceRef::step("run-42", 3).unwrap()], vec![], "abstractnote").unwrap(),
///     recorded_at: None,
///     summary: None,
/// }).unwrap();
/// let out = graph.apply_revision(&rev, false).unwrap();
/// assert!(out.applied);
/// assert_eq!(out.assertion_ids, vec!["c1".to_string()]);
/// assert_eq!(graph.history("c1", 200).unwrap()[0].event, "asserted");
/// ```
pub struct MemoryGraph {
    backend: Box<dyn GraphBackend>,
    journal: Option<GraphJournal>,
    clock: Clock,
}

impl std::fmt::Debug for MemoryGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryGraph")
            .field("backend", &self.backend.name())
            .field("journal", &self.journal.is_some())
            .finish_non_exhaustive()
    }
}

fn default_clock() -> Clock {
    am_triples::wall_clock()
}

impl MemoryGraph {
    /// The graph of `store` (its connector from the registry) writing closures to
    /// `journal` (`None`: none are written; the history and the revision still
    /// record the close).
    ///
    /// # Errors
    /// `Unsupported` (Python's `NotImplementedError`) when no connector is
    /// registered for the store's type; the connector's open errors.
    pub fn new<S: Any + Send + Sync>(store: Arc<S>, journal: Option<GraphJournal>) -> Result<Self> {
        let any: AnyStore = store;
        Self::from_any(&any, journal)
    }

    /// As [`MemoryGraph::new`], for a store already held as `Any`.
    ///
    /// # Errors
    /// As [`MemoryGraph::new`].
    pub fn from_any(store: &AnyStore, journal: Option<GraphJournal>) -> Result<Self> {
        let backend = backend_for(store, journal.as_ref())?;
        Ok(Self::with_backend(backend, journal))
    }

    /// A graph over an explicit connector.
    pub fn with_backend(backend: Box<dyn GraphBackend>, journal: Option<GraphJournal>) -> Self {
        MemoryGraph {
            backend,
            journal,
            clock: default_clock(),
        }
    }

    /// The same graph with another record-time clock (tests).
    #[must_use]
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The connector.
    pub fn backend(&self) -> &dyn GraphBackend {
        self.backend.as_ref()
    }

    /// The attached journal, if any.
    pub fn journal(&self) -> Option<&GraphJournal> {
        self.journal.as_ref()
    }

    /// Apply one revision: the one write path of a mind.
    ///
    /// In the spec's order: (1) the pure provenance check (the revision and
    /// every asserted memory name a source or a parent, else
    /// `ProvenanceRequired`); (2) a revision id already logged returns
    /// `applied = false` with the LOGGED outcome, writing and embedding nothing;
    /// (3) the asserts are embedded outside the transaction; (4) one transaction:
    /// lineage grounding (cycles, self-derivation, chains to nothing, lineage
    /// across owners refused), a close-only revision must cite a cause other than
    /// the memories it changes, adoption by `import`/`migration` only of a row as
    /// stored, a changed claim under a held id refused, close/narrow only of a
    /// graph memory and only after its assert, re-observation instead of
    /// duplication, then the rows, windows, closures, history, provenance,
    /// derivations and the revision row. Record time is the graph's clock, read
    /// inside the transaction (under the write lock); `replay = true` keeps the
    /// revision's logged `recorded_at`.
    ///
    /// With a journal outside the connector's commit, closures are appended after
    /// it and the revision is marked `journal_applied` once they are (`repair`
    /// finishes the job after a crash).
    ///
    /// # Errors
    /// `ProvenanceRequired` and `InvalidInput` as the rules above name them;
    /// `Embedder`, `DimensionMismatch`, `Storage` from the store. Nothing is
    /// written on error.
    pub fn apply_revision(&self, revision: &Revision, replay: bool) -> Result<RevisionResult> {
        self.apply_with_adoptions(revision, replay, &Adoptions::new())
    }

    /// [`MemoryGraph::apply_revision`] with the adoptions a logged revision
    /// carries (what `replay_into` passes, so a replay reproduces an adoption
    /// even where the target never held the row).
    ///
    /// # Errors
    /// As [`MemoryGraph::apply_revision`].
    pub fn apply_with_adoptions(
        &self,
        revision: &Revision,
        replay: bool,
        adoptions: &Adoptions,
    ) -> Result<RevisionResult> {
        // 1. Pure checks.
        revision.check_provenance()?;
        // 2. Already logged: the logged outcome, nothing embedded or written.
        if self.backend.applied_seq(revision.revision_id())?.is_some() {
            return self.logged_result(revision.revision_id());
        }
        // 3. Embed outside the transaction.
        let asserts: Vec<TripleAssertion> = revision
            .ops()
            .iter()
            .filter_map(|op| match op {
                RevisionOp::Assert(a) => Some(a.assertion.clone()),
                _ => None,
            })
            .collect();
        let prepared = self.backend.prepare_rows(&asserts)?;
        // 4. One transaction.
        let mut outcome: Option<Applied> = None;
        let mut failure: Option<Error> = None;
        let res = self.backend.transaction(&mut |tx| {
            outcome = None;
            match Apply::new(self, revision, replay, adoptions, &prepared).run(tx) {
                Ok(a) => {
                    outcome = Some(a);
                    Ok(())
                }
                Err(e) => {
                    let stand_in = e
                        .context()
                        .iter()
                        .fold(Error::new(e.kind(), e.message()), |s, (k, v)| {
                            s.with_context(k, v.clone())
                        });
                    failure = Some(e);
                    // The connector rolls back on any error; the engine's own
                    // error is returned below.
                    Err(stand_in)
                }
            }
        });
        if let Some(mut e) = failure {
            if let Err(outer) = res {
                // The connector judged the failure again on the way out (a
                // write into a read-only home is refused): its error stands,
                // with the engine's as its source.
                if outer.kind() != e.kind() {
                    return Err(outer.with_source(e));
                }
                // What it added (the home it failed in) stays on the
                // engine's own error.
                for (key, value) in outer.context() {
                    if e.context_value(key).is_none() {
                        e = e.with_context(key, value.clone());
                    }
                }
            }
            return Err(e);
        }
        res?;
        let Some(applied) = outcome else {
            return Err(Error::storage(
                "the connector committed without running the revision",
            ));
        };
        let Applied {
            mut result,
            pending,
            raced,
        } = applied;
        if raced {
            return self.logged_result(revision.revision_id());
        }
        if !pending.is_empty()
            && let Some(j) = &self.journal
        {
            for c in &pending {
                j.journal().append_closure(c)?;
            }
            self.backend.mark_journal_applied(revision.revision_id())?;
        }
        result.applied = true;
        Ok(result)
    }

    /// The outcome of a logged revision, read back from its history rows.
    fn logged_result(&self, revision_id: &str) -> Result<RevisionResult> {
        let Some((row, history)) = self
            .backend
            .logged_outcome(revision_id, crate::limits::MAX_READ_LIMIT * 100)?
        else {
            return Err(Error::not_found(format!(
                "revision {revision_id:?} is not in the log"
            )));
        };
        let mut out = RevisionResult {
            revision_id: row.revision_id.clone(),
            applied: false,
            assertion_ids: Vec::new(),
            re_observed: Vec::new(),
            closed: Vec::new(),
            narrowed: Vec::new(),
            skipped: Vec::new(),
            seq: row.seq,
            recorded_at: row.recorded_at.clone(),
        };
        for h in history {
            match h.event.as_str() {
                events::ASSERTED => push_once(&mut out.assertion_ids, &h.memory_id),
                events::RE_OBSERVED => {
                    push_once(&mut out.re_observed, &h.memory_id);
                    out.skipped.push(SkippedOp {
                        op: "assert".into(),
                        index: h
                            .detail
                            .get("op_index")
                            .and_then(Value::as_u64)
                            .and_then(|i| usize::try_from(i).ok())
                            .unwrap_or(0),
                        assertion_id: h.memory_id.clone(),
                        why: why::RE_OBSERVED.into(),
                    });
                }
                events::CLOSED => push_once(&mut out.closed, &h.memory_id),
                events::NARROWED => push_once(&mut out.narrowed, &h.memory_id),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The closure a logged close writes, rebuilt from its history detail and
    /// its revision row (the same record at apply time and in `repair`).
    ///
    /// # Errors
    /// `InvalidInput` when the detail's `kind` is not a close kind.
    pub(crate) fn closure_from(detail: &Value, rev: &RevisionRow) -> Result<ClosureRecord> {
        let s = |k: &str| {
            detail
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let actor = serde_json::from_str::<Value>(&rev.provenance_json)
            .ok()
            .and_then(|p| p.get("actor").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| "system".to_owned());
        let mut provenance = JsonMap::new();
        provenance.insert("revision_id".into(), json!(rev.revision_id));
        provenance.insert("cause".into(), json!(rev.cause));
        provenance.insert("recorded_at".into(), json!(rev.recorded_at));
        provenance.insert(
            "ripple_source".into(),
            detail.get("ripple_source").cloned().unwrap_or(Value::Null),
        );
        provenance.insert(
            "ripple_hops".into(),
            detail.get("ripple_hops").cloned().unwrap_or(Value::Null),
        );
        Ok(ClosureRecord {
            assertion_id: s("assertion_id"),
            kind: CloseKind::parse(&s("kind"))?,
            reason: s("reason"),
            replacement_ids: detail
                .get("replacement_ids")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            observed_at: rev.recorded_at.clone(),
            actor,
            provenance,
            closure_id: s("closure_id"),
            seq: -1,
        })
    }

    /// Append the closures of revisions a crash left with `journal_applied = 0`,
    /// oldest first, at most `limit` revisions (clamped to `MAX_READ_LIMIT`);
    /// returns how many revisions it completed. Closure ids are deterministic, so
    /// it is idempotent. Returns 0 where closures commit with the revision (a
    /// journal in the store's file).
    ///
    /// # Errors
    /// `InvalidInput` for a limit below 1; `Refused` (Python's `RuntimeError`)
    /// when revisions await closures and no journal is attached; the journal's
    /// and connector's errors.
    pub fn repair(&self, limit: i64) -> Result<usize> {
        let limit = crate::limits::check_read_limit(limit)?;
        self.backend.repair_projections()?;
        let pending = self.backend.pending_journal(limit)?;
        if pending.is_empty() {
            return Ok(0);
        }
        let Some(j) = &self.journal else {
            return Err(Error::refused(format!(
                "{} revision(s) await their closures (journal_applied = 0, oldest {:?}) and no \
                 journal is attached: open the graph with its journal to repair",
                pending.len(),
                pending[0].revision_id
            )));
        };
        let mut done = 0;
        for rev in &pending {
            for h in self.backend.closed_payload(&rev.revision_id, usize::MAX)? {
                j.journal()
                    .append_closure(&Self::closure_from(&h.detail, rev)?)?;
            }
            self.backend.mark_journal_applied(&rev.revision_id)?;
            done += 1;
        }
        Ok(done)
    }
}

fn push_once(v: &mut Vec<String>, id: &str) {
    if !v.iter().any(|x| x == id) {
        v.push(id.to_owned());
    }
}

/// What one applied transaction produced.
struct Applied {
    result: RevisionResult,
    /// Closures to append after the commit (a journal outside the commit).
    pending: Vec<ClosureRecord>,
    /// Another writer logged the same id first: report its outcome.
    raced: bool,
}

/// One revision being applied inside a transaction.
struct Apply<'a> {
    graph: &'a MemoryGraph,
    rev: &'a Revision,
    replay: bool,
    adoptions: &'a Adoptions,
    prepared: &'a PreparedRows,
    /// A duplicate's id -> the held memory it re-observed.
    alias: HashMap<String, String>,
}

/// One assert of this revision, as the lineage check sees it.
struct Local<'p> {
    owner: Option<String>,
    grounded_here: bool,
    parents: &'p [String],
}

impl<'a> Apply<'a> {
    fn new(
        graph: &'a MemoryGraph,
        rev: &'a Revision,
        replay: bool,
        adoptions: &'a Adoptions,
        prepared: &'a PreparedRows,
    ) -> Self {
        Apply {
            graph,
            rev,
            replay,
            adoptions,
            prepared,
            alias: HashMap::new(),
        }
    }

    fn held(&self, id: &str) -> String {
        self.alias.get(id).cloned().unwrap_or_else(|| id.to_owned())
    }

    fn run(mut self, tx: &mut dyn GraphTx) -> Result<Applied> {
        let rev = self.rev;
        if tx.revision_seq(rev.revision_id())?.is_some() {
            return Ok(Applied {
                result: empty_result(rev),
                pending: Vec::new(),
                raced: true,
            });
        }
        let recorded_at = if self.replay {
            rev.recorded_at().to_owned()
        } else {
            (self.graph.clock)().canonical()
        };
        self.check_lineage(tx)?;
        self.check_close_cause()?;

        let mut result = empty_result(rev);
        result.recorded_at.clone_from(&recorded_at);
        let mut pending = Vec::new();
        let mut logged_ops: Vec<Value> = Vec::with_capacity(rev.ops().len());
        let mut assert_index = 0usize;
        for (i, op) in rev.ops().iter().enumerate() {
            let mut logged = op.to_dict();
            match op {
                RevisionOp::Assert(a) => {
                    let adoption = self
                        .assert_op(tx, i, assert_index, a, &recorded_at, &mut result)
                        .map_err(|e| e.with_prefix(&format!("ops[{i}]")))?;
                    if let (Some(prev), Value::Object(m)) = (adoption, &mut logged) {
                        m.insert(
                            "adoption".into(),
                            json!({"previous_provenance": Value::Object(prev)}),
                        );
                    }
                    assert_index += 1;
                }
                RevisionOp::Close(c) => {
                    if let Some(closure) = self
                        .close_op(tx, i, c, &recorded_at, &mut result)
                        .map_err(|e| e.with_prefix(&format!("ops[{i}]")))?
                    {
                        pending.push(closure);
                    }
                }
                RevisionOp::Narrow(n) => self
                    .narrow_op(tx, i, n, &recorded_at, &mut result)
                    .map_err(|e| e.with_prefix(&format!("ops[{i}]")))?,
            }
            logged_ops.push(logged);
        }
        let has_journal = self.graph.journal.is_some();
        let row = RevisionRow {
            seq: 0,
            revision_id: rev.revision_id().to_owned(),
            scope: rev.scope().to_owned(),
            owner_id: rev.owner_id().map(str::to_owned),
            cause: rev.cause().as_str().to_owned(),
            occurred_at: rev.occurred_at().to_owned(),
            recorded_at,
            ops_json: Value::Array(logged_ops).to_string(),
            provenance_json: rev.provenance().to_dict().to_string(),
            summary: rev.summary().map(str::to_owned),
            journal_applied: pending.is_empty() || !has_journal,
        };
        result.seq = tx.insert_revision(&row)?;
        if !has_journal {
            pending.clear();
        }
        Ok(Applied {
            result,
            pending,
            raced: false,
        })
    }

    /// Every `derived_from` chain (of each asserted memory and of the revision)
    /// reaches a ledger source, with no cycle, no self-derivation, no dangling
    /// parent, and no parent of another owner.
    fn check_lineage(&self, tx: &mut dyn GraphTx) -> Result<()> {
        let rev = self.rev;
        let mut local: HashMap<String, Local<'_>> = HashMap::new();
        for (i, op) in rev.ops().iter().enumerate() {
            if let RevisionOp::Assert(a) = op {
                let p = rev.assert_provenance(i).unwrap_or(rev.provenance());
                let id = a.assertion_id().unwrap_or_default().to_owned();
                local.entry(id).or_insert(Local {
                    owner: a.assertion.owner_id.clone(),
                    grounded_here: !p.sources().is_empty(),
                    parents: p.derived_from(),
                });
            }
        }
        let mut walk = LineageWalk {
            tx,
            local: &local,
            memo: HashMap::new(),
        };
        for (i, op) in rev.ops().iter().enumerate() {
            if let RevisionOp::Assert(a) = op {
                let p = rev.assert_provenance(i).unwrap_or(rev.provenance());
                let id = a.assertion_id().unwrap_or_default();
                for parent in p.derived_from() {
                    if parent == id {
                        return Err(Error::provenance_required(format!(
                            "ops[{i}]: memory {id:?} names itself in derived_from (self-derivation \
                             reaches no ledger source)"
                        )));
                    }
                    walk.check_parent(
                        parent,
                        a.assertion.owner_id.as_deref(),
                        &format!("ops[{i}]: memory {id:?}"),
                        &mut vec![id.to_owned()],
                    )?;
                }
            }
        }
        for parent in rev.provenance().derived_from() {
            walk.check_parent(
                parent,
                rev.owner_id(),
                &format!("revision {:?}", rev.revision_id()),
                &mut Vec::new(),
            )?;
        }
        Ok(())
    }
}

/// One revision's lineage check: the walk's transaction, the revision's own
/// memories, and what it has proven grounded so far.
struct LineageWalk<'w, 'l> {
    tx: &'w mut dyn GraphTx,
    local: &'w HashMap<String, Local<'l>>,
    /// Parents already proven to reach a ledger source.
    memo: HashMap<String, bool>,
}

impl LineageWalk<'_, '_> {
    /// `parent` (named by `who`, of `owner`) reaches a ledger source, with
    /// no cycle through `path`, no self-derivation and no other owner.
    fn check_parent(
        &mut self,
        parent: &str,
        owner: Option<&str>,
        who: &str,
        path: &mut Vec<String>,
    ) -> Result<()> {
        // The revision's memories outlive this borrow of the walk.
        let local = self.local;
        let mut parent_owner: Option<Option<String>> = None;
        let mut grounded_in_graph = false;
        if let Some(k) = self.tx.memory_known(parent)? {
            parent_owner = Some(k.owner_id);
            grounded_in_graph = true;
        } else if let Some(l) = local.get(parent) {
            parent_owner = Some(l.owner.clone());
        } else if let Some(d) = self.tx.digest_assertion_for(parent)?
            && let Some(k) = self.tx.memory_known(&d)?
        {
            parent_owner = Some(k.owner_id);
            grounded_in_graph = true;
        }
        let Some(parent_owner) = parent_owner else {
            return Err(Error::provenance_required(format!(
                "{who} is derived from {parent:?}, which is not a memory of the graph (a chain to \
                 nothing reaches no ledger source)"
            )));
        };
        if parent_owner.as_deref() != owner {
            return Err(Error::provenance_required(format!(
                "{who} (owner {owner:?}) is derived from {parent:?} of owner {parent_owner:?}: \
                 lineage never crosses owners (enter the other owner's knowledge as a source: the \
                 message or artifact it came through)"
            )));
        }
        if grounded_in_graph {
            return Ok(());
        }
        if path.iter().any(|p| p == parent) {
            return Err(Error::provenance_required(format!(
                "{who}: derived_from forms a cycle through {parent:?} ({} -> {parent}); a cycle \
                 reaches no ledger source",
                path.join(" -> ")
            )));
        }
        if self.memo.get(parent) == Some(&true) {
            return Ok(());
        }
        let Some(l) = local.get(parent) else {
            return Ok(());
        };
        if l.parents.is_empty() && !l.grounded_here {
            return Err(Error::provenance_required(format!(
                "{who} is derived from {parent:?}, which names no source and no parent"
            )));
        }
        path.push(parent.to_owned());
        for gp in l.parents {
            if gp == parent {
                return Err(Error::provenance_required(format!(
                    "memory {parent:?} names itself in derived_from (self-derivation reaches no \
                     ledger source)"
                )));
            }
            self.check_parent(gp, l.owner.as_deref(), &format!("memory {parent:?}"), path)?;
        }
        path.pop();
        self.memo.insert(parent.to_owned(), true);
        Ok(())
    }
}

impl<'a> Apply<'a> {
    /// A revision whose ops are all close/narrow must cite a source, or a memory
    /// other than the ones it changes.
    fn check_close_cause(&self) -> Result<()> {
        let rev = self.rev;
        if !rev.is_close_only() {
            return Ok(());
        }
        let p = rev.provenance();
        if !p.sources().is_empty() {
            return Ok(());
        }
        let changed: HashSet<&str> = rev
            .ops()
            .iter()
            .filter_map(RevisionOp::assertion_id)
            .collect();
        if p.derived_from()
            .iter()
            .any(|d| !changed.contains(d.as_str()))
        {
            return Ok(());
        }
        Err(Error::provenance_required(format!(
            "revision {:?} only closes or narrows {:?} and cites only those memories as its cause: \
             name a ledger source, or a memory other than the ones it changes",
            rev.revision_id(),
            changed.iter().collect::<Vec<_>>()
        )))
    }

    /// Record sources and lineage on `memory`: the memory's own provenance via
    /// `memory`, the revision's via `revision` (the first row per key wins).
    fn record_sources(
        &self,
        tx: &mut dyn GraphTx,
        memory: &str,
        owner: Option<&str>,
        own: &Provenance,
        own_via: &str,
    ) -> Result<()> {
        let owner = owner.unwrap_or_default();
        let write = |tx: &mut dyn GraphTx, r: &SourceRef, via: &str| -> Result<()> {
            let key = r.key();
            // Two refs to one key conflict only when both carry a digest: a ref
            // without one needs no lookup (the first row per key wins anyway).
            if r.digest().is_some()
                && let Some(existing) = tx.source_ref(memory, &key)?
            {
                let held = SourceRef::from_dict(&existing)?;
                check_digest_agreement(&held, r)?;
                return Ok(());
            }
            tx.add_source(&ProvenanceRow {
                memory_id: memory.to_owned(),
                ref_key: key,
                ref_kind: r.kind().as_str().to_owned(),
                run_id: r.run_id().map(str::to_owned),
                revision_id: self.rev.revision_id().to_owned(),
                ref_json: r.to_dict(),
                via: via.to_owned(),
                owner_id: owner.to_owned(),
            })?;
            Ok(())
        };
        for r in own.sources() {
            write(tx, r, own_via)?;
        }
        for r in self.rev.provenance().sources() {
            write(tx, r, "revision")?;
        }
        for parent in own.derived_from() {
            let parent = self.resolve_parent(tx, parent)?;
            tx.add_derivation(&DerivationRow {
                memory_id: memory.to_owned(),
                from_id: parent,
                revision_id: self.rev.revision_id().to_owned(),
            })?;
        }
        Ok(())
    }

    fn resolve_parent(&self, tx: &mut dyn GraphTx, parent: &str) -> Result<String> {
        let p = self.held(parent);
        if tx.memory_known(&p)?.is_some() {
            return Ok(p);
        }
        Ok(tx.digest_assertion_for(&p)?.unwrap_or(p))
    }

    /// One assert; returns the previous provenance when it adopted a row.
    fn assert_op(
        &mut self,
        tx: &mut dyn GraphTx,
        index: usize,
        prepared_index: usize,
        op: &AssertOp,
        recorded_at: &str,
        result: &mut RevisionResult,
    ) -> Result<Option<JsonMap>> {
        let rev = self.rev;
        let a = &op.assertion;
        let id = a.assertion_id.clone().unwrap_or_default();
        let own = rev.assert_provenance(index).unwrap_or(rev.provenance());
        // The row carries its own provenance, else the revision's: either way its
        // sources are the memory's own.
        let own_via = "memory";
        // An id the graph already holds: the same claim is a skip, another is refused.
        if tx.memory_known(&id)?.is_some() {
            let Some(stored) = tx.stored(&id)? else {
                return Err(Error::storage(format!(
                    "memory {id:?} is in the graph but its row is missing"
                )));
            };
            if ClaimKey::of(&stored) != ClaimKey::of(a) {
                return Err(Error::invalid(format!(
                    "assertion {id:?} is already a memory of the graph holding another claim \
                     (expected {:?}, got {:?}): a changed claim gets a new id",
                    claim_text(&stored),
                    claim_text(a)
                )));
            }
            result.skipped.push(SkippedOp {
                op: "assert".into(),
                index,
                assertion_id: id,
                why: why::ALREADY_ASSERTED.into(),
            });
            return Ok(None);
        }
        // A row of the store the graph never asserted: adoption.
        let exists = !tx.existing_ids(std::slice::from_ref(&id))?.is_empty();
        let logged_adoption = self.adoptions.get(&index);
        if exists || logged_adoption.is_some() {
            if !rev.is_adopting() {
                return Err(Error::invalid(format!(
                    "assertion {id:?} is already in the store but was never asserted through the \
                     graph: only an import or migration revision may adopt it (this one's cause \
                     is {:?})",
                    rev.cause().as_str()
                )));
            }
            let previous = if exists {
                let Some(stored) = tx.stored(&id)? else {
                    return Err(Error::storage(format!("row {id:?} vanished")));
                };
                if let Some(diff) = differs_but_provenance(&stored, a) {
                    return Err(Error::invalid(format!(
                        "adopting {id:?} requires the row as stored (everything but provenance \
                         equal): {diff}"
                    )));
                }
                tx.set_provenance(&id, &a.provenance)?;
                logged_adoption.cloned().unwrap_or(stored.provenance)
            } else {
                // A replay into a home that never held the row: write it as adopted.
                tx.write_pin(self.prepared)?;
                tx.insert_assertions(self.prepared, &[prepared_index])?;
                logged_adoption.cloned().unwrap_or_default()
            };
            let mut detail = assert_detail(a, own);
            detail.insert("adopted".into(), Value::Bool(true));
            detail.insert(
                "previous_provenance".into(),
                Value::Object(previous.clone()),
            );
            self.history(tx, &id, events::ASSERTED, recorded_at, detail)?;
            self.record_sources(tx, &id, a.owner_id.as_deref(), own, own_via)?;
            result.assertion_ids.push(id);
            return Ok(Some(previous));
        }
        // Re-observation: an open assert of a claim the graph holds open.
        if a.valid_until.is_none()
            && let Some(held) = tx.open_same_claim(&ClaimKey::of(a))?
        {
            // Its lineage is recorded on the held memory: naming that memory as
            // a parent would derive it from itself, and naming one of its
            // descendants would close a cycle.
            for parent in own.derived_from() {
                let parent = self.resolve_parent(tx, parent)?;
                if parent == held {
                    return Err(Error::provenance_required(format!(
                        "memory {id:?} re-observes {held:?} (the same open claim) and names \
                         {parent:?} in derived_from: recorded on {held:?}, that is a \
                         self-derivation (it reaches no ledger source)"
                    )));
                }
                if descends_from(tx, &parent, &held)? {
                    return Err(Error::provenance_required(format!(
                        "memory {id:?} re-observes {held:?} (the same open claim) and names \
                         {parent:?} in derived_from, which is derived from {held:?}: recorded \
                         on {held:?}, derived_from forms a cycle (a cycle reaches no ledger \
                         source)"
                    )));
                }
            }
            let mut detail = JsonMap::new();
            detail.insert("op_index".into(), json!(index));
            detail.insert("duplicate_id".into(), json!(id));
            detail.insert("observed_at".into(), json!(a.observed_at));
            detail.insert("sources".into(), sources_json(own, rev.provenance()));
            detail.insert("derived_from".into(), json!(own.derived_from()));
            self.history(tx, &held, events::RE_OBSERVED, recorded_at, detail)?;
            self.record_sources(tx, &held, a.owner_id.as_deref(), own, "memory")?;
            push_once(&mut result.re_observed, &held);
            result.skipped.push(SkippedOp {
                op: "assert".into(),
                index,
                assertion_id: held.clone(),
                why: why::RE_OBSERVED.into(),
            });
            self.alias.insert(id, held);
            return Ok(None);
        }
        // A new memory.
        tx.write_pin(self.prepared)?;
        tx.insert_assertions(self.prepared, &[prepared_index])?;
        let detail = assert_detail(a, own);
        self.history(tx, &id, events::ASSERTED, recorded_at, detail)?;
        self.record_sources(tx, &id, a.owner_id.as_deref(), own, own_via)?;
        result.assertion_ids.push(id);
        Ok(None)
    }

    fn history(
        &self,
        tx: &mut dyn GraphTx,
        memory: &str,
        event: &str,
        at: &str,
        detail: JsonMap,
    ) -> Result<()> {
        tx.add_history(&HistoryRow {
            seq: 0,
            memory_id: memory.to_owned(),
            event: event.to_owned(),
            at: at.to_owned(),
            revision_id: self.rev.revision_id().to_owned(),
            detail: Value::Object(detail),
        })?;
        Ok(())
    }

    /// A memory of the graph named by a close or narrow (else
    /// `ProvenanceRequired`: adopt it first).
    fn graph_memory(&self, tx: &mut dyn GraphTx, id: &str, what: &str) -> Result<String> {
        let held = self.held(id);
        if tx.memory_known(&held)?.is_some() {
            return Ok(held);
        }
        let in_store = !tx.existing_ids(std::slice::from_ref(&held))?.is_empty();
        let later = self.rev.ops().iter().any(
            |op| matches!(op, RevisionOp::Assert(a) if a.assertion_id() == Some(held.as_str())),
        );
        Err(Error::provenance_required(if later {
            format!(
                "a {what} of {held:?} must come after the op that asserts it in the same revision"
            )
        } else if in_store {
            format!(
                "{held:?} is a store row the graph never adopted: adopt it first with an import or \
                 migration revision that carries the row as stored, then {what} it"
            )
        } else {
            format!("{held:?} is not a memory of the graph: nothing to {what}")
        }))
    }

    fn close_op(
        &mut self,
        tx: &mut dyn GraphTx,
        index: usize,
        c: &CloseOp,
        recorded_at: &str,
        result: &mut RevisionResult,
    ) -> Result<Option<ClosureRecord>> {
        let id = self.graph_memory(tx, &c.assertion_id, "close")?;
        if tx.closing_revision(&id)?.is_some() {
            result.skipped.push(SkippedOp {
                op: "close".into(),
                index,
                assertion_id: id,
                why: why::ALREADY_CLOSED.into(),
            });
            return Ok(None);
        }
        let (from, current) = tx.window(&id)?.unwrap_or((None, None));
        let until = timestamp::parse_timestamp(&c.valid_until)?;
        if let Some(f) = &from
            && until < timestamp::parse_timestamp(f)?
        {
            return Err(Error::invalid(format!(
                "close of {id:?}: valid_until {} is before the claim's valid_from {f}",
                c.valid_until
            )));
        }
        let new_end = match &current {
            None => Some(c.valid_until.clone()),
            Some(end) if until < timestamp::parse_timestamp(end)? => Some(c.valid_until.clone()),
            Some(_) => None,
        };
        if let Some(e) = &new_end {
            tx.end_row(&id, e)?;
        }
        let cid = closure_id(self.rev.revision_id(), index);
        let mut detail = JsonMap::new();
        detail.insert("assertion_id".into(), json!(id));
        detail.insert("valid_until".into(), json!(c.valid_until));
        detail.insert("kind".into(), json!(c.kind.as_str()));
        detail.insert("replacement_ids".into(), json!(c.replacement_ids));
        detail.insert("reason".into(), json!(c.reason));
        detail.insert("ripple_source".into(), json!(c.ripple_source));
        detail.insert("ripple_hops".into(), json!(c.ripple_hops));
        detail.insert("closure_id".into(), json!(cid));
        detail.insert("window_closed".into(), json!(new_end.is_some()));
        detail.insert("previous_valid_until".into(), json!(current));
        detail.insert("row_valid_until".into(), json!(new_end.clone().or(current)));
        let detail = Value::Object(detail);
        let rev_row = RevisionRow {
            seq: 0,
            revision_id: self.rev.revision_id().to_owned(),
            scope: String::new(),
            owner_id: None,
            cause: self.rev.cause().as_str().to_owned(),
            occurred_at: String::new(),
            recorded_at: recorded_at.to_owned(),
            ops_json: String::new(),
            provenance_json: self.rev.provenance().to_dict().to_string(),
            summary: None,
            journal_applied: true,
        };
        let closure = MemoryGraph::closure_from(&detail, &rev_row)?;
        let Value::Object(detail) = detail else {
            unreachable!("built as an object above")
        };
        self.history(tx, &id, events::CLOSED, recorded_at, detail)?;
        push_once(&mut result.closed, &id);
        let in_tx = if self.graph.journal.is_some() {
            tx.write_closure(&closure)?
        } else {
            false
        };
        Ok((!in_tx).then_some(closure))
    }

    fn narrow_op(
        &mut self,
        tx: &mut dyn GraphTx,
        index: usize,
        n: &NarrowOp,
        recorded_at: &str,
        result: &mut RevisionResult,
    ) -> Result<()> {
        let id = self.graph_memory(tx, &n.assertion_id, "narrow")?;
        let (from, current) = tx.window(&id)?.unwrap_or((None, None));
        let Some(end) = current else {
            return Err(Error::invalid(format!(
                "narrow of {id:?} needs a closed window, but it is open (close it first)"
            )));
        };
        let until = timestamp::parse_timestamp(&n.valid_until)?;
        if let Some(f) = &from
            && until < timestamp::parse_timestamp(f)?
        {
            return Err(Error::invalid(format!(
                "narrow of {id:?}: valid_until {} is before the claim's valid_from {f}",
                n.valid_until
            )));
        }
        if until >= timestamp::parse_timestamp(&end)? {
            result.skipped.push(SkippedOp {
                op: "narrow".into(),
                index,
                assertion_id: id,
                why: why::NOT_NARROWER.into(),
            });
            return Ok(());
        }
        tx.narrow_row(&id, &n.valid_until)?;
        let mut detail = JsonMap::new();
        detail.insert("valid_until".into(), json!(n.valid_until));
        detail.insert("previous_valid_until".into(), json!(end));
        detail.insert("reason".into(), json!(n.reason));
        self.history(tx, &id, events::NARROWED, recorded_at, detail)?;
        push_once(&mut result.narrowed, &id);
        Ok(())
    }
}

/// Whether `ancestor` is reached from `memory` through derivation rows
/// (breadth-first, at most `MAX_LINEAGE_VISITS` memories visited).
fn descends_from(tx: &mut dyn GraphTx, memory: &str, ancestor: &str) -> Result<bool> {
    let mut seen: HashSet<String> = HashSet::from([memory.to_owned()]);
    let mut queue = std::collections::VecDeque::from([memory.to_owned()]);
    while let Some(m) = queue.pop_front() {
        if seen.len() > crate::limits::MAX_LINEAGE_VISITS {
            break;
        }
        for p in tx.parents(&m, crate::limits::MAX_READ_LIMIT)? {
            if p == ancestor {
                return Ok(true);
            }
            if seen.insert(p.clone()) {
                queue.push_back(p);
            }
        }
    }
    Ok(false)
}

fn empty_result(rev: &Revision) -> RevisionResult {
    RevisionResult {
        revision_id: rev.revision_id().to_owned(),
        applied: false,
        assertion_ids: Vec::new(),
        re_observed: Vec::new(),
        closed: Vec::new(),
        narrowed: Vec::new(),
        skipped: Vec::new(),
        seq: 0,
        recorded_at: rev.recorded_at().to_owned(),
    }
}

fn claim_text(a: &TripleAssertion) -> String {
    format!(
        "{} {} {} (scope {}, owner {:?}, valid_from {:?})",
        a.subject, a.predicate, a.object, a.scope, a.owner_id, a.valid_from
    )
}

/// The first field (other than provenance) where `stored` and `given` differ.
fn differs_but_provenance(stored: &TripleAssertion, given: &TripleAssertion) -> Option<String> {
    let mut s = stored.clone();
    let mut g = given.clone();
    s.provenance = JsonMap::new();
    g.provenance = JsonMap::new();
    // Stored attributes may carry retrieval annotations only on semantic reads;
    // a by-id read has none.
    if s == g {
        return None;
    }
    let sd = s.to_dict();
    let gd = g.to_dict();
    let keys: Vec<String> = sd
        .as_object()
        .into_iter()
        .chain(gd.as_object())
        .flat_map(|m| m.keys().cloned())
        .collect();
    for k in keys {
        if sd.get(&k) != gd.get(&k) {
            return Some(format!(
                "{k}: stored {}, given {}",
                sd.get(&k).unwrap_or(&Value::Null),
                gd.get(&k).unwrap_or(&Value::Null)
            ));
        }
    }
    Some("the rows differ".into())
}

fn sources_json(own: &Provenance, rev: &Provenance) -> Value {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for r in own.sources().iter().chain(rev.sources()) {
        if seen.insert(r.key()) {
            out.push(r.to_dict());
        }
    }
    Value::Array(out)
}

fn assert_detail(a: &TripleAssertion, own: &Provenance) -> JsonMap {
    let mut d = JsonMap::new();
    d.insert("subject".into(), json!(a.subject));
    d.insert("predicate".into(), json!(a.predicate));
    d.insert("object".into(), json!(a.object));
    d.insert("scope".into(), json!(a.scope));
    d.insert("owner_id".into(), json!(a.owner_id));
    d.insert("observed_at".into(), json!(a.observed_at));
    d.insert("valid_from".into(), json!(a.valid_from));
    d.insert("valid_until".into(), json!(a.valid_until));
    d.insert(
        "sources".into(),
        Value::Array(own.sources().iter().map(SourceRef::to_dict).collect()),
    );
    d.insert("derived_from".into(), json!(own.derived_from()));
    d
}

/// Rebuild a logged revision and its adoptions from its log row.
///
/// # Errors
/// `Storage` when the logged JSON does not parse; the revision's own rules.
pub fn revision_from_row(row: &RevisionRow) -> Result<(Revision, Adoptions)> {
    let ops: Value = serde_json::from_str(&row.ops_json)
        .map_err(|e| Error::storage(format!("revision {:?}: ops_json: {e}", row.revision_id)))?;
    let provenance: Value = serde_json::from_str(&row.provenance_json).map_err(|e| {
        Error::storage(format!(
            "revision {:?}: provenance_json: {e}",
            row.revision_id
        ))
    })?;
    let mut adoptions = Adoptions::new();
    let mut clean = Vec::new();
    for (i, op) in ops.as_array().into_iter().flatten().enumerate() {
        let mut op = op.clone();
        if let Value::Object(m) = &mut op
            && let Some(Value::Object(a)) = m.remove("adoption")
        {
            let prev = match a.get("previous_provenance") {
                Some(Value::Object(p)) => p.clone(),
                _ => JsonMap::new(),
            };
            adoptions.insert(i, prev);
        }
        clean.push(op);
    }
    let rev = Revision::from_dict(&json!({
        "revision_id": row.revision_id,
        "scope": row.scope,
        "owner_id": row.owner_id,
        "cause": row.cause,
        "occurred_at": row.occurred_at,
        "ops": clean,
        "provenance": provenance,
        "recorded_at": row.recorded_at,
        "summary": row.summary,
    }))?;
    Ok((rev, adoptions))
}
