//! The Stop fence on a LanceDB mind (a `LanceDBTripleStore`, its graph
//! connector, and a `SQLiteJournal` in another file): every write verb calls
//! the commit guard once per commit point, immediately before its first
//! LanceDB commit; a refusal writes nothing (every table, every file of the
//! mind's directory and of the journal) and the caller receives the guard's
//! own error. The write barrier cannot cover LanceDB: it holds the journal's
//! lock and file, names the store in `uncovered` and warns `#FALLBACK`.
//!
//! `VERBS` is the closed list of the LanceDB write verbs, with the points
//! each reports in order (as `am-backend-sqlite/tests/commit_guard.rs` lists
//! both other stacks'): a new write path joins it.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Commit guard" and
//! "Write barrier" ("LanceDB is not coverable"); docs/stores.md "LanceDB and
//! the Stop fence".

use crate::common::{Mind, dump, open_mind, r1, r2};
use am_backend_lance::graph::{CommitHook, CommitPoint as Failpoint};
use am_conformance::RecordingGuard;
use am_conformance::guard::{assert_refused_at, files_under, names};
use am_journal::{MemoryHome, MemoryJournal, PairHome, ScopeBinding, SearchState};
use am_triples::{CommitPoint, ErrorKind, TripleAssertion, TripleStore};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

type Host = RecordingGuard;

/// Install `host`'s guard on the mind's store and journal (what
/// `MemorySystem` with `commit_guard` does).
fn install(host: &Host, m: &Mind) {
    host.install(m.store.as_ref(), m.journal.as_ref());
}

fn row(id: &str) -> TripleAssertion {
    TripleAssertion::new("ex:pool", "ex:state", id).with_id(id)
}

type Verb = fn(&Mind) -> am_triples::Result<()>;

/// Every LanceDB write verb, the points it reports (in order), the writes
/// it needs in place before the guard is armed, and the verb.
const VERBS: &[(&str, &[CommitPoint], Verb, Verb)] = &[
    (
        "store.add",
        &[CommitPoint::StoreAdd],
        |_| Ok(()),
        |m| m.store.add(&[row("a1")]).map(|_| ()),
    ),
    (
        "graph.apply_revision",
        &[CommitPoint::Graph],
        |_| Ok(()),
        |m| {
            assert!(m.graph.apply_revision(&r1(), false)?.applied);
            Ok(())
        },
    ),
    (
        // A close: the revision, its closure appended to the off-file
        // journal, then the connector's bookkeeping write marking it.
        "graph.apply_revision with a close",
        &[
            CommitPoint::Graph,
            CommitPoint::Journal,
            CommitPoint::GraphMarkJournalApplied,
        ],
        |m| m.graph.apply_revision(&r1(), false).map(|_| ()),
        |m| {
            assert!(m.graph.apply_revision(&r2(), false)?.applied);
            Ok(())
        },
    ),
    (
        // Formation's home over a LanceDB store and a SQLite journal.
        "home.transaction",
        &[CommitPoint::StoreAdd],
        |_| Ok(()),
        |m| {
            let home = PairHome::new(m.store.clone(), m.journal.clone());
            let rows = home.prepare_rows(&[row("h1")])?;
            home.transaction(CommitPoint::StoreAdd, &mut |tx| {
                tx.store().add(&rows)?;
                tx.journal().append_bindings(&[ScopeBinding::new(
                    "ex:h1",
                    "session",
                    "s1",
                    SearchState::Indexed,
                )])
            })
            .map(|_| ())
        },
    ),
];

/// What a refused write must leave unchanged: every table and the journal
/// (rows, closures, seq), and every file of the mind and of the journal.
fn state(m: &Mind, dir: &Path) -> (BTreeMap<String, Vec<String>>, BTreeMap<String, Vec<u8>>) {
    (dump(m), files_under(dir))
}

#[test]
fn every_lancedb_write_verb_calls_the_guard_once_per_commit_point() {
    for (verb, points, setup, run) in VERBS {
        let dir = tempfile::tempdir().unwrap();
        let m = open_mind(dir.path(), None);
        let host = Host::default();
        install(&host, &m);
        setup(&m).unwrap();
        host.take();
        run(&m).unwrap_or_else(|e| panic!("{verb}: {e}"));
        assert_eq!(host.take(), names(points), "{verb}");
    }
}

#[test]
fn a_refusal_at_every_lancedb_commit_point_writes_nothing_and_returns_the_guards_error() {
    for (verb, points, setup, run) in VERBS {
        let dir = tempfile::tempdir().unwrap();
        let m = open_mind(dir.path(), None);
        let host = Host::default();
        install(&host, &m);
        setup(&m).unwrap();
        let before = state(&m, dir.path());
        host.refuse(true);
        let err = run(&m).expect_err(verb);
        host.refuse(false);
        assert_refused_at(&err, points[0], verb);
        assert!(
            state(&m, dir.path()) == before,
            "{verb} wrote through a refusal"
        );
        // Nothing about the refusal is recorded: the same write passes next.
        run(&m).unwrap_or_else(|e| panic!("{verb} after the refusal: {e}"));
    }
}

/// A failpoint that interrupts the first commit reaching `at` while `armed`.
fn crash_at(at: Failpoint, armed: Arc<AtomicBool>) -> CommitHook {
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

#[test]
fn repairing_a_half_projected_revision_calls_the_guard_at_graph_and_a_refusal_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    crash_mid_revision(dir.path());
    let m = open_mind(dir.path(), None);
    let host = Host::default();
    install(&host, &m);
    let before = state(&m, dir.path());
    host.refuse(true);
    let err = m.graph.repair(1000).unwrap_err();
    assert_refused_at(&err, CommitPoint::Graph, "a repair");
    assert!(
        state(&m, dir.path()) == before,
        "a refused repair wrote nothing"
    );
    host.refuse(false);
    host.take();
    assert_eq!(m.graph.repair(1000).unwrap(), 1);
    assert_eq!(
        host.take(),
        ["graph", "journal", "graph.mark_journal_applied"],
        "once per outermost transaction: the projections' repair (at graph), the closure's \
         append, the bookkeeping write"
    );
}

/// Leave a half-projected revision in the mind under `dir`: `r1` applied,
/// then `r2` interrupted after its log row.
fn crash_mid_revision(dir: &Path) {
    let armed = Arc::new(AtomicBool::new(false));
    let m = open_mind(dir, Some(crash_at(Failpoint::AfterLog, armed.clone())));
    m.graph.apply_revision(&r1(), false).unwrap();
    armed.store(true, Ordering::SeqCst);
    m.graph.apply_revision(&r2(), false).unwrap_err();
}

/// A revision of its own (new memory, no closes).
fn later() -> am_graph::Revision {
    crate::common::rev(
        "r9",
        vec![crate::common::claim("c99", "ex:erin", "ex:likes", "ex:tea")],
        crate::common::prov(vec![crate::common::step("run-99", 1)], &[]),
    )
}

/// Once per outermost transaction: the next revision after a crash repairs
/// the half-projected one first, under the same lock and inside the same
/// outermost transaction, so the guard is called once for both (before the
/// repair's first write), not once for the repair and again for the
/// revision.
#[test]
fn a_repair_inside_a_later_revision_calls_the_guard_once() {
    let dir = tempfile::tempdir().unwrap();
    crash_mid_revision(dir.path());
    let m = open_mind(dir.path(), None);
    let host = Host::default();
    install(&host, &m);
    assert!(m.graph.apply_revision(&later(), false).unwrap().applied);
    assert_eq!(
        host.take(),
        ["graph"],
        "one outermost transaction (the repair and the revision), one guard call"
    );
    assert_eq!(m.graph.repair(1000).unwrap(), 1, "r2's closure was left");
    assert_eq!(host.take(), ["journal", "graph.mark_journal_applied"]);
}

/// A refusal of that transaction refuses both halves: the repair writes
/// nothing and neither does the revision; the guard was asked once.
#[test]
fn a_refused_revision_after_a_crash_repairs_nothing_and_asks_the_guard_once() {
    let dir = tempfile::tempdir().unwrap();
    crash_mid_revision(dir.path());
    let m = open_mind(dir.path(), None);
    let host = Host::default();
    install(&host, &m);
    let before = state(&m, dir.path());
    host.refuse(true);
    let err = m.graph.apply_revision(&later(), false).unwrap_err();
    assert_refused_at(&err, CommitPoint::Graph, "the revision after a crash");
    assert_eq!(host.take(), ["graph"]);
    assert!(state(&m, dir.path()) == before, "a refusal wrote nothing");
    host.refuse(false);
    assert!(m.graph.apply_revision(&later(), false).unwrap().applied);
    assert_eq!(host.take(), ["graph"]);
}

#[test]
fn the_write_barrier_holds_the_journal_and_names_lancedb_uncovered() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_mind(dir.path(), None);
    let hold = am_triples::barrier::acquire(
        &[m.store.write_fence(), m.journal.write_fence()],
        Some(std::time::Duration::from_secs(5)),
    )
    .unwrap();
    assert_eq!(hold.uncovered.len(), 1, "{:?}", hold.uncovered);
    assert!(
        hold.uncovered[0].contains("LanceDBTripleStore"),
        "{:?}",
        hold.uncovered
    );
    assert!(
        hold.warnings.len() == 1 && hold.warnings[0].starts_with("#FALLBACK"),
        "{:?}",
        hold.warnings
    );
    assert_eq!(hold.locks.len(), 1, "the journal's lock: {:?}", hold.locks);
    assert_eq!(hold.files.len(), 1, "the journal's file: {:?}", hold.files);
    assert!(
        hold.files[0].ends_with("journal.sqlite3"),
        "{:?}",
        hold.files
    );
}

#[test]
fn a_second_different_guard_on_a_lancedb_store_is_refused_and_the_same_guard_again_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_mind(dir.path(), None);
    let guard = Host::default().guard();
    m.store.install_commit_guard(&guard).unwrap();
    m.store.install_commit_guard(&guard).unwrap();
    let err = m
        .store
        .install_commit_guard(&Host::default().guard())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
}
