//! The engine's crash repair, journal handling, rollback and registry, on the
//! in-memory connector with a journal that fails on demand (fault injection).
//!
//! Spec: api.md `MemoryGraph` ("With a journal elsewhere ... the closures are
//! appended after the commit and the revision is marked `journal_applied = 0`
//! until they are"; `repair`; "`journal` ... `None` writes none"); "Connectors"
//! (`register_backend`, "the most recently registered matching class wins",
//! `backend_for`, `registered_backends`; "A store with no registered connector
//! raises `NotImplementedError`").

use am_graph::backend::{GraphBackend, GraphTx};
use am_graph::graph::MemoryGraph;
use am_graph::memory_backend::MemoryBackend;
use am_graph::registry::{GraphJournal, backend_for, register_backend, registered_backends};
use am_graph::{
    AssertOp, CloseKind, CloseOp, Provenance, Revision, RevisionDraft, RevisionOp, SourceRef,
};
use am_journal::{
    ActiveMemorySnapshot, BindingFilter, ClosureFilter, ClosureRecord, EventFilter,
    InMemoryJournal, JournalRecord, MemoryEvent, MemoryJournal, ReconstructionTrace, Result,
    ScopeBinding, TraceFilter, UnderstandingVersion, ValenceEvent, ValenceFilter, VersionFilter,
};
use am_triples::{ErrorKind, InMemoryTripleStore};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// An `InMemoryJournal` whose closure appends fail while `fail` is set.
#[derive(Default)]
struct FlakyJournal {
    inner: InMemoryJournal,
    fail: AtomicBool,
}

impl MemoryJournal for FlakyJournal {
    fn append_events(&self, e: &[MemoryEvent]) -> Result<Vec<MemoryEvent>> {
        self.inner.append_events(e)
    }
    fn events(&self, f: &EventFilter) -> Result<Vec<MemoryEvent>> {
        self.inner.events(f)
    }
    fn append_binding(&self, b: &ScopeBinding) -> Result<ScopeBinding> {
        self.inner.append_binding(b)
    }
    fn bindings(&self, f: &BindingFilter) -> Result<Vec<ScopeBinding>> {
        self.inner.bindings(f)
    }
    fn append_closure(&self, c: &ClosureRecord) -> Result<ClosureRecord> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(am_journal::Error::storage(
                "injected: the journal's disk is gone",
            ));
        }
        self.inner.append_closure(c)
    }
    fn closures(&self, f: &ClosureFilter) -> Result<Vec<ClosureRecord>> {
        self.inner.closures(f)
    }
    fn append_trace(&self, t: &ReconstructionTrace) -> Result<ReconstructionTrace> {
        self.inner.append_trace(t)
    }
    fn traces(&self, f: &TraceFilter) -> Result<Vec<ReconstructionTrace>> {
        self.inner.traces(f)
    }
    fn append_snapshot(&self, s: &ActiveMemorySnapshot) -> Result<ActiveMemorySnapshot> {
        self.inner.append_snapshot(s)
    }
    fn snapshots(&self, f: &TraceFilter) -> Result<Vec<ActiveMemorySnapshot>> {
        self.inner.snapshots(f)
    }
    fn append_valence(&self, e: &[ValenceEvent]) -> Result<Vec<ValenceEvent>> {
        self.inner.append_valence(e)
    }
    fn valence_events(&self, f: &ValenceFilter) -> Result<Vec<ValenceEvent>> {
        self.inner.valence_events(f)
    }
    fn append_version(&self, v: &UnderstandingVersion) -> Result<UnderstandingVersion> {
        self.inner.append_version(v)
    }
    fn versions(&self, f: &VersionFilter) -> Result<Vec<UnderstandingVersion>> {
        self.inner.versions(f)
    }
    fn replay_records(&self, since: i64, until: Option<i64>) -> Result<Vec<JournalRecord>> {
        self.inner.replay_records(since, until)
    }
    fn revision_records(
        &self,
        since: i64,
        until: Option<i64>,
    ) -> Result<Vec<UnderstandingVersion>> {
        self.inner.revision_records(since, until)
    }
    fn selected_count(&self, id: &str, until: Option<i64>) -> Result<u64> {
        self.inner.selected_count(id, until)
    }
    fn pair_selected_count(&self, pair: (&str, &str), until: Option<i64>) -> Result<u64> {
        self.inner.pair_selected_count(pair, until)
    }
    fn seq_at(&self, ts: &str) -> Result<i64> {
        self.inner.seq_at(ts)
    }
    fn current_seq(&self) -> Result<i64> {
        self.inner.current_seq()
    }
}

fn prov() -> Provenance {
    Provenance::new(
        vec![SourceRef::step("run-1", 1).unwrap()],
        vec![],
        "runtime",
    )
    .unwrap()
}

fn rev(id: &str, ops: Vec<RevisionOp>) -> Revision {
    Revision::new(RevisionDraft {
        revision_id: id.into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops,
        provenance: prov(),
        recorded_at: None,
        summary: None,
    })
    .unwrap()
}

fn assert_c(id: &str, o: &str) -> RevisionOp {
    let mut a = AssertOp::claim("ex:dana", "ex:likes", o);
    a.assertion.assertion_id = Some(id.into());
    RevisionOp::Assert(a)
}

fn close(id: &str) -> RevisionOp {
    RevisionOp::Close(CloseOp::new(
        id,
        "2026-03-01T00:00:00Z",
        CloseKind::Retract,
        "wrong",
    ))
}

fn closures(j: &dyn MemoryJournal) -> Vec<ClosureRecord> {
    j.closures(&ClosureFilter::default()).unwrap()
}

#[test]
fn closures_a_crash_left_unappended_are_appended_by_repair_once() {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let journal = Arc::new(FlakyJournal::default());
    let graph = MemoryGraph::new(
        Arc::clone(&store),
        Some(GraphJournal::new(Arc::clone(&journal))),
    )
    .unwrap();
    graph
        .apply_revision(&rev("r1", vec![assert_c("c1", "ex:tea")]), false)
        .unwrap();
    journal.fail.store(true, Ordering::SeqCst);
    let err = graph
        .apply_revision(&rev("r2", vec![close("c1")]), false)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Storage);
    // The revision committed; its closure awaits the journal.
    let pending = graph.backend().pending_journal(10).unwrap();
    assert_eq!(
        pending
            .iter()
            .map(|r| r.revision_id.as_str())
            .collect::<Vec<_>>(),
        ["r2"]
    );
    assert!(closures(journal.as_ref()).is_empty());
    // Repair while the journal still fails: an error, nothing marked.
    assert!(graph.repair(1000).is_err());
    assert_eq!(graph.backend().pending_journal(10).unwrap().len(), 1);
    journal.fail.store(false, Ordering::SeqCst);
    assert_eq!(graph.repair(1000).unwrap(), 1);
    let written = closures(journal.as_ref());
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].closure_id, am_graph::graph::closure_id("r2", 0));
    assert_eq!(written[0].assertion_id, "c1");
    assert_eq!(graph.repair(1000).unwrap(), 0, "repair is idempotent");
    assert_eq!(closures(journal.as_ref()).len(), 1);
}

#[test]
fn repair_without_a_journal_refuses_while_revisions_await_closures() {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let journal = Arc::new(FlakyJournal::default());
    let graph = MemoryGraph::new(
        Arc::clone(&store),
        Some(GraphJournal::new(Arc::clone(&journal))),
    )
    .unwrap();
    graph
        .apply_revision(&rev("r1", vec![assert_c("c1", "ex:tea")]), false)
        .unwrap();
    journal.fail.store(true, Ordering::SeqCst);
    graph
        .apply_revision(&rev("r2", vec![close("c1")]), false)
        .unwrap_err();
    let bare = MemoryGraph::new(Arc::clone(&store), None).unwrap();
    assert_eq!(bare.repair(1000).unwrap_err().kind(), ErrorKind::Refused);
    assert_eq!(bare.backend().pending_journal(10).unwrap().len(), 1);
}

#[test]
fn without_a_journal_a_close_writes_no_closure_and_awaits_nothing() {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let graph = MemoryGraph::new(Arc::clone(&store), None).unwrap();
    graph
        .apply_revision(&rev("r1", vec![assert_c("c1", "ex:tea")]), false)
        .unwrap();
    let out = graph
        .apply_revision(&rev("r2", vec![close("c1")]), false)
        .unwrap();
    assert_eq!(out.closed, vec!["c1".to_owned()]);
    assert!(graph.backend().pending_journal(10).unwrap().is_empty());
    let h = graph.history("c1", 10).unwrap();
    assert_eq!(h[1].event, "closed");
    assert_eq!(graph.repair(1000).unwrap(), 0);
}

#[test]
fn a_panic_inside_a_transaction_undoes_every_graph_write() {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let backend = MemoryBackend::new(Arc::clone(&store));
    let prepared = backend.prepare_rows(&[]).unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        backend
            .transaction(&mut |tx: &mut dyn GraphTx| {
                tx.add_history(&am_graph::backend::HistoryRow {
                    seq: 0,
                    memory_id: "m".into(),
                    event: "asserted".into(),
                    at: "2026-01-01T00:00:00.000000+00:00".into(),
                    revision_id: "r".into(),
                    detail: serde_json::json!({}),
                })?;
                tx.write_pin(&prepared)?;
                panic!("injected panic mid-revision");
            })
            .ok();
    }));
    assert!(result.is_err());
    assert!(backend.history("m", 10).unwrap().is_empty());
    assert_eq!(backend.log_head().unwrap(), 0);
}

#[test]
fn a_failing_store_write_at_commit_undoes_the_graph_rows() {
    // The store refuses the batch at commit (a vector of another dimension than
    // its pin): nothing of the revision remains, in the store or the graph.
    let pin = am_triples::pin::build_pin(Some("hash-4"), Some(4), "creation", None).unwrap();
    let store = Arc::new(
        InMemoryTripleStore::with_pin(
            Some(Arc::new(
                am_conformance::HashEmbedder::new(8, "hash-8-unnamed").anonymous(),
            )),
            pin,
        )
        .unwrap(),
    );
    let graph = MemoryGraph::new(Arc::clone(&store), None).unwrap();
    let err = graph
        .apply_revision(&rev("r1", vec![assert_c("c1", "ex:tea")]), false)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DimensionMismatch);
    assert!(store.is_empty());
    assert!(graph.history("c1", 10).unwrap().is_empty());
    assert_eq!(graph.backend().log_head().unwrap(), 0);
    assert_eq!(graph.backend().applied_seq("r1").unwrap(), None);
}

struct Unknown;

#[test]
fn a_store_without_a_connector_is_unsupported() {
    let err = MemoryGraph::new(Arc::new(Unknown), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(
        registered_backends()
            .iter()
            .any(|n| n.ends_with("InMemoryTripleStore"))
    );
}

struct Custom;

#[test]
fn the_most_recently_registered_connector_wins() {
    register_backend::<Custom>(|_, _| {
        Ok(Box::new(MemoryBackend::new(Arc::new(
            InMemoryTripleStore::new(None),
        ))))
    });
    register_backend::<Custom>(|_, _| Err(am_triples::Error::refused("the second factory")));
    let store: am_graph::registry::AnyStore = Arc::new(Custom);
    let err = backend_for(&store, None).err().unwrap();
    assert_eq!(err.kind(), ErrorKind::Refused);
    let names = registered_backends();
    assert!(names[0].ends_with("Custom"), "{names:?}");
    assert_eq!(names.iter().filter(|n| n.ends_with("Custom")).count(), 1);
}
