//! At-least-once delivery: a journal that fails once, mid-operation (after the
//! store rows of a formation, or after a commit's events and before its
//! snapshot), then a replay with the same ids completes the operation and the
//! home ends exactly as a clean run leaves it: nothing is written twice.
//! Spec: architecture.md "The journal is the time axis" (write-side
//! idempotency); api.md `remember_many`, `commit_selection`.

use am_journal::{BindingFilter, EventFilter, InMemoryJournal, MemoryJournal};
use am_system::RecordKind;
use am_system::{CommitSelection, RememberMany};
use am_system::{MemoryRecordInput, MemorySystem};
use am_triples::{InMemoryTripleStore, TripleQuery, TripleStore};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

mod common;

/// A real `InMemoryJournal` whose `nth` append of `family` fails once.
fn fail_once(family: &'static str, nth: i64) -> common::GatedJournal {
    let countdown = AtomicI64::new(nth);
    common::GatedJournal::new(Arc::new(InMemoryJournal::new()), move |f| {
        if f == family && countdown.fetch_sub(1, Ordering::SeqCst) == 1 {
            return Err(am_journal::Error::storage(format!(
                "injected failure on a {f} append"
            )));
        }
        Ok(())
    })
}

fn system(journal: Arc<dyn MemoryJournal>) -> (MemorySystem, Arc<InMemoryTripleStore>) {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let s = MemorySystem::new(store.clone(), journal);
    (s, store)
}

fn batch() -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new(RecordKind::Episode, "A", "Alpha."),
        MemoryRecordInput::new(RecordKind::Lesson, "B", "Beta.")
            .with_edge("derived_from", "local:0"),
        MemoryRecordInput::new(RecordKind::Episode, "C", "Gamma."),
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
    let flaky = Arc::new(fail_once("binding", 2));
    let (s, store) = system(flaky.clone());
    assert!(
        s.remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k"))
            .is_err()
    );
    assert_eq!(
        binding_ids(flaky.as_ref()).len(),
        1,
        "one binding landed before the failure"
    );
    let ids = s
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k"))
        .unwrap()
        .value;

    let clean_journal = Arc::new(InMemoryJournal::new());
    let (clean, clean_store) = system(clean_journal.clone());
    assert_eq!(
        clean
            .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k"))
            .unwrap()
            .value,
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
    let flaky = Arc::new(fail_once("snapshot", 1));
    let (s, _) = system(flaky.clone());
    let ids = s
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k"))
        .unwrap()
        .value;
    assert!(
        s.commit_selection(&CommitSelection::new("t1", &ids))
            .is_err()
    );
    let mut all = EventFilter::new("session", "s1");
    all.limit = 0;
    let deposited = flaky.events(&all).unwrap().len();
    assert!(deposited > 0, "the events landed before the failure");
    let snap = s
        .commit_selection(&CommitSelection::new("t1", &ids))
        .unwrap()
        .value;
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
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k"))
        .unwrap();
    clean
        .commit_selection(&CommitSelection::new("t1", &ids))
        .unwrap();
    assert_eq!(
        flaky.current_seq().unwrap(),
        clean_journal.current_seq().unwrap()
    );
}
