//! `MemoryJournal::fold_bindings_for`: the batched per-record binding fold
//! answers, for every id asked, exactly what the per-record
//! `bindings(record_id, fold = true, until_seq)` answers — on
//! `InMemoryJournal`'s override and on the trait's default method.

use am_journal::EventKind;
use am_journal::SearchState;
use am_journal::{
    ActiveMemorySnapshot, BindingFilter, ClosureFilter, ClosureRecord, EventFilter,
    InMemoryJournal, JournalRecord, MemoryEvent, MemoryJournal, ReconstructionTrace, Result,
    ScopeBinding, TraceFilter, UnderstandingVersion, ValenceEvent, ValenceFilter, VersionFilter,
};
use am_triples::ErrorKind;

/// An `InMemoryJournal` seen only through the trait's required methods, so
/// `fold_bindings_for` runs the default implementation.
struct DefaultOnly(InMemoryJournal);

impl MemoryJournal for DefaultOnly {
    fn append_events(&self, e: &[MemoryEvent]) -> Result<Vec<MemoryEvent>> {
        self.0.append_events(e)
    }
    fn events(&self, f: &EventFilter) -> Result<Vec<MemoryEvent>> {
        self.0.events(f)
    }
    fn append_binding(&self, b: &ScopeBinding) -> Result<ScopeBinding> {
        self.0.append_binding(b)
    }
    fn bindings(&self, f: &BindingFilter) -> Result<Vec<ScopeBinding>> {
        self.0.bindings(f)
    }
    fn append_closure(&self, c: &ClosureRecord) -> Result<ClosureRecord> {
        self.0.append_closure(c)
    }
    fn closures(&self, f: &ClosureFilter) -> Result<Vec<ClosureRecord>> {
        self.0.closures(f)
    }
    fn append_trace(&self, t: &ReconstructionTrace) -> Result<ReconstructionTrace> {
        self.0.append_trace(t)
    }
    fn traces(&self, f: &TraceFilter) -> Result<Vec<ReconstructionTrace>> {
        self.0.traces(f)
    }
    fn append_snapshot(&self, s: &ActiveMemorySnapshot) -> Result<ActiveMemorySnapshot> {
        self.0.append_snapshot(s)
    }
    fn snapshots(&self, f: &TraceFilter) -> Result<Vec<ActiveMemorySnapshot>> {
        self.0.snapshots(f)
    }
    fn append_valence(&self, e: &[ValenceEvent]) -> Result<Vec<ValenceEvent>> {
        self.0.append_valence(e)
    }
    fn valence_events(&self, f: &ValenceFilter) -> Result<Vec<ValenceEvent>> {
        self.0.valence_events(f)
    }
    fn append_version(&self, v: &UnderstandingVersion) -> Result<UnderstandingVersion> {
        self.0.append_version(v)
    }
    fn versions(&self, f: &VersionFilter) -> Result<Vec<UnderstandingVersion>> {
        self.0.versions(f)
    }
    fn replay_records(&self, since: i64, until: Option<i64>) -> Result<Vec<JournalRecord>> {
        self.0.replay_records(since, until)
    }
    fn revision_records(
        &self,
        since_seq: i64,
        until_seq: Option<i64>,
    ) -> Result<Vec<UnderstandingVersion>> {
        self.0.revision_records(since_seq, until_seq)
    }
    fn selected_count(&self, r: &str, until: Option<i64>) -> Result<u64> {
        self.0.selected_count(r, until)
    }
    fn pair_selected_count(&self, p: (&str, &str), until: Option<i64>) -> Result<u64> {
        self.0.pair_selected_count(p, until)
    }
    fn seq_at(&self, ts: &str) -> Result<i64> {
        self.0.seq_at(ts)
    }
    fn current_seq(&self) -> Result<i64> {
        self.0.current_seq()
    }
}

/// Bindings over three records, two pairs, superseded states and an
/// interleaved event; returns the ids to ask for (with an unbound one, a
/// duplicate and a padded one).
fn seed(j: &dyn MemoryJournal) -> Vec<String> {
    let b = |rid: &str, scope: &str, owner: &str, search: &str, prompt: &str| {
        let mut x = ScopeBinding::new(rid, scope, owner, search.parse().unwrap());
        x.prompt_state = prompt.parse().unwrap();
        j.append_binding(&x).unwrap();
    };
    b("r1", "session", "s1", "indexed", "inactive");
    b("r1", "session", "s2", "indexed", "active");
    b("r2", "session", "s1", "indexed", "active");
    j.append_events(&[MemoryEvent::on_record(
        EventKind::Selected,
        "r1",
        "session",
        "s1",
    )])
    .unwrap();
    b("r1", "session", "s1", "hidden", "inactive");
    b("r3", "global", "", "indexed", "active");
    b("r2", "session", "s1", "indexed", "inactive");
    b("r1", "session", "s2", "indexed", "inactive");
    ["r1", "r2", "r3", "unbound", "r1", " r2 "]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

fn assert_matches_per_record(j: &dyn MemoryJournal) {
    let ids = seed(j);
    let hw = j.current_seq().unwrap();
    for until in (0..=hw).map(Some).chain([None]) {
        let batch = j.fold_bindings_for(&ids, until).unwrap();
        assert_eq!(batch.len(), 5, "one entry per distinct id as given");
        for id in &ids {
            let single = j
                .bindings(&BindingFilter {
                    record_id: Some(id.clone()),
                    until_seq: until,
                    ..BindingFilter::default()
                })
                .unwrap();
            assert_eq!(batch[id], single, "id {id:?} until {until:?}");
        }
    }
    let latest = j.fold_bindings_for(&ids, None).unwrap();
    assert!(latest["unbound"].is_empty());
    assert_eq!(latest["r1"].len(), 2);
    assert_eq!(latest["r1"][0].search_state, SearchState::Hidden);
    assert!(latest["r1"][0].seq < latest["r1"][1].seq, "oldest first");
}

#[test]
fn fold_bindings_for_equals_the_per_record_fold_at_every_anchor_in_memory() {
    assert_matches_per_record(&InMemoryJournal::new());
}

#[test]
fn fold_bindings_for_default_method_equals_the_per_record_fold_at_every_anchor() {
    assert_matches_per_record(&DefaultOnly(InMemoryJournal::new()));
}

#[test]
fn fold_bindings_for_an_anchor_beyond_the_high_water_mark_is_invalid_input() {
    for j in [
        Box::new(InMemoryJournal::new()) as Box<dyn MemoryJournal>,
        Box::new(DefaultOnly(InMemoryJournal::new())),
    ] {
        let ids = seed(j.as_ref());
        let hw = j.current_seq().unwrap();
        let err = j.fold_bindings_for(&ids, Some(hw + 1)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains(&hw.to_string()), "{err}");
        assert_eq!(j.current_seq().unwrap(), hw, "nothing written");
    }
}

#[test]
fn fold_bindings_for_no_ids_is_an_empty_map() {
    let j = InMemoryJournal::new();
    seed(&j);
    assert!(j.fold_bindings_for(&[], None).unwrap().is_empty());
}
