//! The LanceDB connector's log-first commit and crash repair: a commit
//! interrupted at each point between its log row and its last projection (a
//! failpoint standing in for a crash) leaves the revision logged and visible;
//! after reopening, `MemoryGraph::repair` re-derives it from the log, and every
//! table (and the journal) equals a clean apply of the same revisions.
//!
//! Spec: api.md "Connectors" ("a log-first commit, `repair_projections()`
//! re-deriving a half-projected revision from the log"; "a crash in the middle
//! of a commit leaves the rows of an unapplied revision visible until
//! `repair()`").

use crate::common::{dump, open_mind, r1, r2, r3};
use am_backend_lance::graph::{CommitHook, CommitPoint};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const POINTS: [CommitPoint; 6] = [
    CommitPoint::AfterLog,
    CommitPoint::AfterTriples,
    CommitPoint::AfterUpdates,
    CommitPoint::AfterHistory,
    CommitPoint::AfterSources,
    CommitPoint::AfterDerivations,
];

/// A failpoint that crashes the first commit reaching `at` while `armed`.
fn crash_at(at: CommitPoint, armed: Arc<AtomicBool>) -> CommitHook {
    Arc::new(move |p| {
        if p == at && armed.swap(false, Ordering::SeqCst) {
            Err(am_triples::Error::storage(format!(
                "injected crash at {p:?}"
            )))
        } else {
            Ok(())
        }
    })
}

fn clean(revisions: &[am_graph::Revision]) -> std::collections::BTreeMap<String, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let m = open_mind(dir.path(), None);
    for r in revisions {
        m.graph.apply_revision(r, false).unwrap();
    }
    dump(&m)
}

#[test]
fn a_commit_interrupted_after_its_log_row_is_repaired_from_the_log_to_a_clean_apply() {
    let want = clean(&[r1(), r2()]);
    for at in POINTS {
        let dir = tempfile::tempdir().unwrap();
        {
            let armed = Arc::new(AtomicBool::new(false));
            let m = open_mind(dir.path(), Some(crash_at(at, Arc::clone(&armed))));
            m.graph.apply_revision(&r1(), false).unwrap();
            armed.store(true, Ordering::SeqCst);
            let err = m.graph.apply_revision(&r2(), false).unwrap_err();
            assert!(err.to_string().contains("injected crash"), "{at:?}: {err}");
            // The process "dies": every handle of the mind is dropped.
        }
        let m = open_mind(dir.path(), None);
        // Visible until repair: the revision is in the log (and the feed).
        assert_eq!(m.graph.backend().log_head().unwrap(), 2, "{at:?}");
        assert_eq!(
            m.graph.backend().applied_seq("r2").unwrap(),
            Some(2),
            "{at:?}"
        );
        assert_ne!(dump(&m), want, "{at:?}: the crash left nothing to repair");
        // The closure of r2's close awaits the journal: repair appends it.
        assert_eq!(m.graph.repair(1000).unwrap(), 1, "{at:?}");
        assert_eq!(
            dump(&m),
            want,
            "{at:?}: repaired mind differs from a clean apply"
        );
        assert_eq!(m.graph.repair(1000).unwrap(), 0, "{at:?}: a second repair");
        assert_eq!(dump(&m), want, "{at:?}: a second repair changed something");
    }
}

#[test]
fn repair_projections_reports_each_half_projected_revision_once() {
    let dir = tempfile::tempdir().unwrap();
    {
        let armed = Arc::new(AtomicBool::new(true));
        let m = open_mind(dir.path(), Some(crash_at(CommitPoint::AfterLog, armed)));
        m.graph.apply_revision(&r1(), false).unwrap_err();
    }
    let m = open_mind(dir.path(), None);
    assert_eq!(m.graph.backend().repair_projections().unwrap(), 1);
    assert_eq!(m.graph.backend().repair_projections().unwrap(), 0);
    let history = m.graph.history("d1", 200).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].event, "asserted");
}

#[test]
fn a_crashed_revision_replayed_by_its_id_returns_the_logged_outcome() {
    let dir = tempfile::tempdir().unwrap();
    {
        let armed = Arc::new(AtomicBool::new(true));
        let m = open_mind(dir.path(), Some(crash_at(CommitPoint::AfterLog, armed)));
        m.graph.apply_revision(&r1(), false).unwrap_err();
    }
    let m = open_mind(dir.path(), None);
    // Before repair, the logged outcome is read from the log row's stage.
    let again = m.graph.apply_revision(&r1(), false).unwrap();
    assert!(!again.applied);
    assert_eq!(again.assertion_ids, vec!["c1", "c2", "d1"]);
}

#[test]
fn the_next_write_in_the_process_finishes_a_half_projected_revision_first() {
    let want = clean(&[r1(), r2(), r3()]);
    let dir = tempfile::tempdir().unwrap();
    let armed = Arc::new(AtomicBool::new(false));
    let m = open_mind(
        dir.path(),
        Some(crash_at(CommitPoint::AfterHistory, Arc::clone(&armed))),
    );
    m.graph.apply_revision(&r1(), false).unwrap();
    armed.store(true, Ordering::SeqCst);
    m.graph.apply_revision(&r2(), false).unwrap_err();
    let out = m.graph.apply_revision(&r3(), false).unwrap();
    assert_eq!(out.seq, 3);
    assert_eq!(out.re_observed, vec!["c2"]);
    // The closure of r2 still awaits the journal until repair().
    assert_eq!(m.graph.repair(1000).unwrap(), 1);
    assert_eq!(dump(&m), want);
}

#[test]
fn opening_a_mind_whose_tables_exist_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let first = {
        let m = open_mind(dir.path(), None);
        m.graph.apply_revision(&r1(), false).unwrap();
        dump(&m)
    };
    let store = am_backend_lance::LanceDBTripleStore::open(
        &dir.path().join("mind").to_string_lossy(),
        None,
        am_backend_lance::LanceStoreOptions::default(),
    )
    .unwrap();
    let b = am_backend_lance::graph::LanceGraphBackend::open(Arc::new(store), None).unwrap();
    assert!(b.created().is_empty(), "created {:?}", b.created());
    let m = open_mind(dir.path(), None);
    assert_eq!(dump(&m), first);
}
