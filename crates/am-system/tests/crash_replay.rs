//! At-least-once delivery: a journal that fails once, mid-operation (after the
//! store rows of a formation, or after a commit's events and before its
//! snapshot), then a replay with the same ids completes the operation and the
//! home ends exactly as a clean run leaves it: nothing is written twice.
//! Spec: architecture.md "The journal is the time axis" (write-side
//! idempotency); api.md `remember_many`, `commit_selection`.

use am_journal::{
    ActiveMemorySnapshot, BindingFilter, ClosureFilter, ClosureRecord, EventFilter,
    InMemoryJournal, JournalRecord, MemoryEvent, MemoryJournal, ReconstructionTrace, ScopeBinding,
    TraceFilter, UnderstandingVersion, ValenceEvent, ValenceFilter, VersionFilter,
};
use am_system::{MemoryRecordInput, MemorySystem};
use am_triples::{InMemoryTripleStore, TripleQuery, TripleStore};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// A real `InMemoryJournal` whose `fail_on`-th append of a family fails once.
struct FailOnce {
    inner: InMemoryJournal,
    family: &'static str,
    countdown: AtomicI64,
}

impl FailOnce {
    fn new(family: &'static str, nth: i64) -> Self {
        FailOnce {
            inner: InMemoryJournal::new(),
            family,
            countdown: AtomicI64::new(nth),
        }
    }

    fn gate(&self, family: &str) -> am_journal::Result<()> {
        if family == self.family && self.countdown.fetch_sub(1, Ordering::SeqCst) == 1 {
            return Err(am_journal::Error::Storage(format!(
                "injected failure on a {family} append"
            )));
        }
        Ok(())
    }
}

impl MemoryJournal for FailOnce {
    fn append_events(&self, events: &[MemoryEvent]) -> am_journal::Result<Vec<MemoryEvent>> {
        self.gate("events")?;
        self.inner.append_events(events)
    }
    fn events(&self, f: &EventFilter) -> am_journal::Result<Vec<MemoryEvent>> {
        self.inner.events(f)
    }
    fn append_binding(&self, b: &ScopeBinding) -> am_journal::Result<ScopeBinding> {
        self.gate("binding")?;
        self.inner.append_binding(b)
    }
    fn bindings(&self, f: &BindingFilter) -> am_journal::Result<Vec<ScopeBinding>> {
        self.inner.bindings(f)
    }
    fn append_closure(&self, c: &ClosureRecord) -> am_journal::Result<ClosureRecord> {
        self.inner.append_closure(c)
    }
    fn closures(&self, f: &ClosureFilter) -> am_journal::Result<Vec<ClosureRecord>> {
        self.inner.closures(f)
    }
    fn append_trace(&self, t: &ReconstructionTrace) -> am_journal::Result<ReconstructionTrace> {
        self.inner.append_trace(t)
    }
    fn traces(&self, f: &TraceFilter) -> am_journal::Result<Vec<ReconstructionTrace>> {
        self.inner.traces(f)
    }
    fn append_snapshot(
        &self,
        s: &ActiveMemorySnapshot,
    ) -> am_journal::Result<ActiveMemorySnapshot> {
        self.gate("snapshot")?;
        self.inner.append_snapshot(s)
    }
    fn snapshots(&self, f: &TraceFilter) -> am_journal::Result<Vec<ActiveMemorySnapshot>> {
        self.inner.snapshots(f)
    }
    fn append_valence(&self, e: &[ValenceEvent]) -> am_journal::Result<Vec<ValenceEvent>> {
        self.inner.append_valence(e)
    }
    fn valence_events(&self, f: &ValenceFilter) -> am_journal::Result<Vec<ValenceEvent>> {
        self.inner.valence_events(f)
    }
    fn append_version(&self, v: &UnderstandingVersion) -> am_journal::Result<UnderstandingVersion> {
        self.inner.append_version(v)
    }
    fn versions(&self, f: &VersionFilter) -> am_journal::Result<Vec<UnderstandingVersion>> {
        self.inner.versions(f)
    }
    fn replay_records(
        &self,
        since: i64,
        until: Option<i64>,
    ) -> am_journal::Result<Vec<JournalRecord>> {
        self.inner.replay_records(since, until)
    }
    fn revision_records(
        &self,
        since: i64,
        until: Option<i64>,
    ) -> am_journal::Result<Vec<UnderstandingVersion>> {
        self.inner.revision_records(since, until)
    }
    fn selected_count(&self, record_id: &str, until: Option<i64>) -> am_journal::Result<u64> {
        self.inner.selected_count(record_id, until)
    }
    fn pair_selected_count(
        &self,
        pair: (&str, &str),
        until: Option<i64>,
    ) -> am_journal::Result<u64> {
        self.inner.pair_selected_count(pair, until)
    }
    fn seq_at(&self, ts: &str) -> am_journal::Result<i64> {
        self.inner.seq_at(ts)
    }
    fn current_seq(&self) -> am_journal::Result<i64> {
        self.inner.current_seq()
    }
}

fn system(journal: Arc<dyn MemoryJournal>) -> (MemorySystem, Arc<InMemoryTripleStore>) {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let s = MemorySystem::new(store.clone(), journal);
    (s, store)
}

fn batch() -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new("episode", "A", "Alpha."),
        MemoryRecordInput::new("lesson", "B", "Beta.").with_edge("derived_from", "local:0"),
        MemoryRecordInput::new("episode", "C", "Gamma."),
    ]
}

fn rows(store: &InMemoryTripleStore) -> Vec<String> {
    let mut ids: Vec<String> = store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .filter_map(|a| a.assertion_id)
        .collect();
    ids.sort();
    ids
}

fn binding_ids(j: &dyn MemoryJournal) -> Vec<String> {
    j.bindings(&BindingFilter {
        fold: false,
        ..BindingFilter::default()
    })
    .unwrap()
    .into_iter()
    .map(|b| b.binding_id)
    .collect()
}

#[test]
fn a_formation_interrupted_after_its_store_rows_completes_on_replay_without_double_writes() {
    let flaky = Arc::new(FailOnce::new("binding", 2));
    let (s, store) = system(flaky.clone());
    assert!(
        s.remember_many(&batch(), "session", "s1", "k", None)
            .is_err()
    );
    assert_eq!(
        binding_ids(flaky.as_ref()).len(),
        1,
        "one binding landed before the failure"
    );
    let ids = s
        .remember_many(&batch(), "session", "s1", "k", None)
        .unwrap();

    let clean_journal = Arc::new(InMemoryJournal::new());
    let (clean, clean_store) = system(clean_journal.clone());
    assert_eq!(
        clean
            .remember_many(&batch(), "session", "s1", "k", None)
            .unwrap(),
        ids
    );
    assert_eq!(rows(&store), rows(&clean_store));
    assert_eq!(
        binding_ids(flaky.as_ref()),
        binding_ids(clean_journal.as_ref())
    );
    assert_eq!(
        flaky.current_seq().unwrap(),
        clean_journal.current_seq().unwrap()
    );
}

#[test]
fn a_commit_interrupted_before_its_snapshot_completes_on_replay_without_double_deposits() {
    let flaky = Arc::new(FailOnce::new("snapshot", 1));
    let (s, _) = system(flaky.clone());
    let ids = s
        .remember_many(&batch(), "session", "s1", "k", None)
        .unwrap();
    assert!(s.commit_selection("t1", &ids, None).is_err());
    let mut all = EventFilter::new("session", "s1");
    all.limit = 0;
    let deposited = flaky.events(&all).unwrap().len();
    assert!(deposited > 0, "the events landed before the failure");
    let snap = s.commit_selection("t1", &ids, None).unwrap();
    assert_eq!(
        flaky.events(&all).unwrap().len(),
        deposited,
        "a replay deposits nothing twice"
    );
    assert_eq!(
        snap.snapshot_id,
        am_system::ids::selection_snapshot_id("t1")
    );
    for id in &ids {
        assert_eq!(
            s.access_counts(std::slice::from_ref(id), &[])
                .unwrap()
                .records
                .get(id),
            Some(&1)
        );
    }
    let clean_journal = Arc::new(InMemoryJournal::new());
    let (clean, _) = system(clean_journal.clone());
    clean
        .remember_many(&batch(), "session", "s1", "k", None)
        .unwrap();
    clean.commit_selection("t1", &ids, None).unwrap();
    assert_eq!(
        flaky.current_seq().unwrap(),
        clean_journal.current_seq().unwrap()
    );
}
