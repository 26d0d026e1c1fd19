//! The commit guard on every write path of both stacks (the in-memory pair and
//! the SQLite home): each write verb of every store, journal, graph connector
//! and home calls the guard once, with its commit point; a refusal writes
//! nothing (rows, journal seq, and on SQLite the bytes of the file and its WAL)
//! and the caller receives the guard's own error.
//!
//! The table `VERBS` is the closed list of write verbs: a new write path is
//! added here with its point, and one that forgets the guard fails
//! `every_write_verb_calls_the_guard_once_with_its_commit_point`.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Commit guard".

use am_backend_sqlite::graph::open_graph;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_conformance::RecordingGuard;
use am_conformance::guard::assert_refused_at;
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_graph::{AssertOp, Provenance, Revision, RevisionDraft, RevisionOp, SourceRef};
use am_journal::ClosureKind;
use am_journal::EventKind;
use am_journal::SearchState;
use am_journal::{
    ActiveMemorySnapshot, ClosureRecord, InMemoryJournal, MemoryEvent, MemoryHome, MemoryJournal,
    PairHome, ReconstructionTrace, ScopeBinding, UnderstandingVersion, ValenceEvent,
};
use am_triples::pin::{PIN_SOURCE_CREATION, build_pin};
use am_triples::{
    CommitPoint, DigestRewrite, ErrorKind, InMemoryTripleStore, TripleAssertion, TripleQuery,
    TripleStore,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

type Host = RecordingGuard;

struct Stack {
    name: &'static str,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    home: Arc<dyn MemoryHome>,
    graph: MemoryGraph,
    sqlite: Option<(Arc<SQLiteTripleStore>, PathBuf)>,
    _dir: tempfile::TempDir,
}

fn memory_stack(host: &Host) -> Stack {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let journal = Arc::new(InMemoryJournal::new());
    let graph = MemoryGraph::new(store.clone(), Some(GraphJournal::new(journal.clone()))).unwrap();
    let dyn_store: Arc<dyn TripleStore> = store;
    let dyn_journal: Arc<dyn MemoryJournal> = journal;
    guard_stack(
        host,
        Stack {
            name: "memory",
            home: Arc::new(PairHome::with_task_queue(
                dyn_store.clone(),
                dyn_journal.clone(),
                Arc::new(am_journal::InMemoryTaskQueue::new()),
            )),
            store: dyn_store,
            journal: dyn_journal,
            graph,
            sqlite: None,
            _dir: tempfile::tempdir().unwrap(),
        },
    )
}

fn sqlite_stack(host: &Host) -> Stack {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    memory_home.open_task_queue().unwrap();
    let store = memory_home.sqlite_store().clone();
    let journal = memory_home.sqlite_journal().clone();
    let graph = open_graph(store.clone(), Some(journal.clone())).unwrap();
    guard_stack(
        host,
        Stack {
            name: "sqlite",
            store: store.clone(),
            journal,
            home: Arc::new(memory_home),
            graph,
            sqlite: Some((store, path)),
            _dir: dir,
        },
    )
}

fn guard_stack(host: &Host, stack: Stack) -> Stack {
    host.install(stack.store.as_ref(), stack.journal.as_ref());
    stack
}

fn row(id: &str) -> TripleAssertion {
    TripleAssertion::new("ex:pool", "ex:state", id).with_id(id)
}

fn revision(id: &str) -> Revision {
    let mut a = AssertOp::claim("ex:pool", "ex:size", id);
    a.assertion.assertion_id = Some(id.to_owned());
    Revision::new(RevisionDraft {
        revision_id: id.into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops: vec![RevisionOp::Assert(a)],
        provenance: Provenance::new(
            vec![SourceRef::step("run-1", 1).unwrap()],
            Vec::new(),
            "abstractnote",
        )
        .unwrap(),
        recorded_at: None,
        summary: Some(format!("revision {id}")),
    })
    .unwrap()
}

type Verb = fn(&Stack) -> am_triples::Result<()>;

fn journal_err(e: am_journal::Error) -> am_triples::Error {
    e
}

/// Every write verb, the point it commits at, and (per verb) the rows it
/// needs in place before the guard is armed.
const VERBS: &[(&str, CommitPoint, Verb, Verb)] = &[
    (
        "store.add",
        CommitPoint::StoreAdd,
        |_| Ok(()),
        |s| s.store.add(&[row("a1")]).map(|_| ()),
    ),
    (
        "store.close_assertion",
        CommitPoint::StoreCloseAssertion,
        |s| s.store.add(&[row("c1")]).map(|_| ()),
        |s| {
            assert!(s.store.close_assertion("c1", "2026-06-01T00:00:00Z")?);
            Ok(())
        },
    ),
    (
        "store.narrow_assertion",
        CommitPoint::StoreNarrowAssertion,
        |s| {
            s.store.add(&[row("n1")])?;
            s.store
                .close_assertion("n1", "2027-01-01T00:00:00Z")
                .map(|_| ())
        },
        |s| {
            assert!(s.store.narrow_assertion("n1", "2026-06-01T00:00:00Z")?);
            Ok(())
        },
    ),
    (
        "journal.append_events",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_events(&[
                    MemoryEvent::on_record(EventKind::Selected, "r1", "session", "s1"),
                    MemoryEvent::on_record(EventKind::Selected, "r2", "session", "s1"),
                ])
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_binding",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_binding(&ScopeBinding::new(
                    "r1",
                    "session",
                    "s1",
                    SearchState::Indexed,
                ))
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_bindings",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_bindings(&[
                    ScopeBinding::new("r1", "session", "s1", SearchState::Indexed),
                    ScopeBinding::new("r2", "session", "s1", SearchState::Indexed),
                ])
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_closure",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_closure(&ClosureRecord::new("a1", ClosureKind::Retract, "wrong"))
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_closures",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_closures(&[
                    ClosureRecord::new("a1", am_journal::ClosureKind::Retract, "wrong"),
                    ClosureRecord::new("a2", am_journal::ClosureKind::Retract, "wrong"),
                ])
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_trace",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_trace(&ReconstructionTrace::new("t1", "fp"))
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_snapshot",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_snapshot(&ActiveMemorySnapshot::new("sn1", "t1", &["r1"]))
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_selection",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_selection(
                    &[MemoryEvent::on_record(
                        EventKind::Selected,
                        "r1",
                        "session",
                        "s1",
                    )],
                    &ActiveMemorySnapshot::new("sn2", "t1", &["r1"]),
                )
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_recall",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_recall(
                    &ReconstructionTrace::new("t2", "fp"),
                    &[MemoryEvent::on_record(
                        EventKind::Listed,
                        "r1",
                        "session",
                        "s1",
                    )],
                )
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_valence",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_valence(&[ValenceEvent::appraisal(
                    "r1", 1, 2.0, "good", "session", "s1",
                )])
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "journal.append_version",
        CommitPoint::Journal,
        |_| Ok(()),
        |s| {
            s.journal
                .append_version(&UnderstandingVersion::new(
                    "ex:memory-1",
                    "a1",
                    "title",
                    1,
                    Some("Pools"),
                    ("operator", "op"),
                    "operator",
                ))
                .map(|_| ())
                .map_err(journal_err)
        },
    ),
    (
        "graph.apply_revision",
        CommitPoint::Graph,
        |_| Ok(()),
        |s| {
            let out = s.graph.apply_revision(&revision("rev-1"), false)?;
            assert!(out.applied);
            Ok(())
        },
    ),
    (
        "home.transaction",
        CommitPoint::StoreAdd,
        |_| Ok(()),
        |s| {
            let rows = s.home.prepare_rows(&[row("h1")])?;
            s.home
                .transaction(CommitPoint::StoreAdd, &mut |tx| {
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
    (
        "home.transaction (a digest rewrite with its version)",
        CommitPoint::UnderstandingDigest,
        |s| s.store.add(&[digest_row("d1")]).map(|_| ()),
        |s| {
            let p = s
                .home
                .prepare_rewrite(&rewrite_of(s, "d1", "Measure, then size.")?)?;
            let v = UnderstandingVersion::new(
                "ex:lesson-d1",
                "d1",
                "digest",
                1,
                Some("Measure, then size."),
                ("operator", "ada"),
                "operator",
            );
            s.home
                .transaction(CommitPoint::UnderstandingDigest, &mut |tx| {
                    tx.journal().append_versions(std::slice::from_ref(&v))?;
                    tx.store().rewrite_digest(&p)
                })
                .map(|_| ())
        },
    ),
    (
        "store.apply_digest_rewrite",
        CommitPoint::UnderstandingTitle,
        |s| s.store.add(&[digest_row("d2")]).map(|_| ()),
        |s| {
            let p = s
                .store
                .prepare_digest_rewrite(&rewrite_of(s, "d2", "Other words.")?)?;
            s.store
                .apply_digest_rewrite(&p, CommitPoint::UnderstandingTitle)
        },
    ),
    (
        "store.apply_digest_rewrite (a narration)",
        CommitPoint::UnderstandingNarration,
        |s| s.store.add(&[digest_row("d3")]).map(|_| ()),
        |s| {
            let p = s
                .store
                .prepare_digest_rewrite(&rewrite_of(s, "d3", "Narrated.")?)?;
            s.store
                .apply_digest_rewrite(&p, CommitPoint::UnderstandingNarration)
        },
    ),
    (
        "home.transaction tasks",
        CommitPoint::TasksEnqueue,
        |_| Ok(()),
        |s| {
            s.home
                .transaction(CommitPoint::TasksEnqueue, &mut |tx| {
                    tx.tasks()?.put(&task_row("t1"))
                })
                .map(|_| ())
        },
    ),
    (
        "home.transaction tables (a ripple's row)",
        CommitPoint::RippleSeed,
        |_| Ok(()),
        |s| {
            let row = serde_json::json!({"scope": "life", "owner_id": "ada", "n": 2});
            let row = row.as_object().unwrap().clone();
            s.home
                .transaction(CommitPoint::RippleSeed, &mut |tx| {
                    tx.tables()?.put(&GUARDED_TABLE, &row)
                })
                .map(|_| ())
        },
    ),
    (
        "home.transaction tables (a ripple's settlement)",
        CommitPoint::RippleSettle,
        |_| Ok(()),
        |s| {
            let row = serde_json::json!({"scope": "life", "owner_id": "ada", "n": 3});
            let row = row.as_object().unwrap().clone();
            s.home
                .transaction(CommitPoint::RippleSettle, &mut |tx| {
                    tx.tables()?.put(&GUARDED_TABLE, &row)
                })
                .map(|_| ())
        },
    ),
    (
        "home.transaction tables (a home table's row: the table kit)",
        CommitPoint::TasksRecordMaintenance,
        |_| Ok(()),
        |s| {
            let row = serde_json::json!({"scope": "life", "owner_id": "ada", "n": 1});
            let row = row.as_object().unwrap().clone();
            s.home
                .transaction(CommitPoint::TasksRecordMaintenance, &mut |tx| {
                    tx.tables()?.put(&GUARDED_TABLE, &row)
                })
                .map(|_| ())
        },
    ),
];

/// A home table for the kit's write path.
const GUARDED_TABLE: am_journal::TableDef = am_journal::TableDef {
    name: "memq_guarded",
    columns: &[
        am_journal::Column::text("scope"),
        am_journal::Column::text("owner_id"),
        am_journal::Column::integer("n"),
    ],
    key: 2,
    indexes: &[],
};

/// A record's digest row (the one row a rewrite may change in place).
fn digest_row(id: &str) -> TripleAssertion {
    let mut a = TripleAssertion::new_literal(
        &format!("ex:lesson-{id}"),
        "dcterms:abstract",
        "Pools exhaust.",
    )
    .with_id(id);
    a.attributes.insert("record_kind".into(), "lesson".into());
    a.attributes.insert("title".into(), "Pools".into());
    a
}

/// A rewrite of the stored digest row `id` to `text`.
fn rewrite_of(s: &Stack, id: &str, text: &str) -> am_triples::Result<DigestRewrite> {
    let current = s
        .store
        .query(&TripleQuery {
            assertion_ids: Some(vec![id.to_owned()]),
            limit: 1,
            ..TripleQuery::default()
        })?
        .remove(0);
    Ok(DigestRewrite {
        assertion_id: id.to_owned(),
        expected_object: current.object.clone(),
        expected_attributes: current.attributes.clone(),
        object: text.to_owned(),
        attributes: current.attributes,
    })
}

/// A task row for the queue's write path.
fn task_row(id: &str) -> am_journal::TaskRow {
    serde_json::from_value(serde_json::json!({
        "task_id": id, "kind": "digest.rewrite", "capability": "summaries", "target_id": "ex:r1",
        "assertion_id": "", "scope": "session", "owner_id": "s1", "basis": "ex:r1@v0",
        "basis_version": 0, "strength": 0.5, "cause": "backfill", "priority": 50, "depends_on": [],
        "not_before": null, "windows": [], "cost_hint": null, "max_attempts": 3, "attempts": 0,
        "status": "pending", "holder": null, "lease_until": null, "ripple_id": null, "hop": null,
        "result": null, "error": null, "superseded_by": null,
        "created_at": "2026-01-01T00:00:00.000000+00:00", "updated_at": "2026-01-01T00:00:00.000000+00:00"
    }))
    .unwrap()
}

/// What a refused write must leave unchanged: the rows, the change feed (its
/// rows and cursor), the journal seq, and on SQLite the bytes of the file and
/// of its WAL.
type State = (String, String, i64, Option<(Vec<u8>, Vec<u8>)>);

fn state(s: &Stack) -> State {
    let rows = s
        .store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    let bytes = s.sqlite.as_ref().map(|(_, path)| {
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        (
            std::fs::read(path).unwrap(),
            std::fs::read(wal).unwrap_or_default(),
        )
    });
    let feed = s.store.assertions_after(0, None, None, 1_000_000).unwrap();
    (
        format!("{rows:?}"),
        format!("{feed:?}"),
        s.journal.current_seq().unwrap(),
        bytes,
    )
}

fn stacks(host: &Host) -> Vec<Stack> {
    vec![memory_stack(host), sqlite_stack(host)]
}

#[test]
fn every_write_verb_calls_the_guard_once_with_its_commit_point() {
    for (verb, point, setup, run) in VERBS {
        let host = Host::default();
        for s in stacks(&host) {
            setup(&s).unwrap();
            host.take();
            run(&s).unwrap_or_else(|e| panic!("{} {verb}: {e}", s.name));
            assert_eq!(
                host.take(),
                vec![point.as_str().to_owned()],
                "{} {verb}",
                s.name
            );
        }
    }
}

#[test]
fn a_refusal_at_every_commit_point_writes_nothing_and_returns_the_guards_error() {
    for (verb, point, setup, run) in VERBS {
        let host = Host::default();
        for s in stacks(&host) {
            setup(&s).unwrap();
            let before = state(&s);
            host.refuse(true);
            let err = run(&s).expect_err(verb);
            host.refuse(false);
            assert_refused_at(&err, *point, &format!("{} {verb}", s.name));
            assert_eq!(
                state(&s),
                before,
                "{} {verb} wrote through a refusal",
                s.name
            );
            // Nothing about the refusal is recorded: the same write passes next.
            run(&s).unwrap_or_else(|e| panic!("{} {verb} after the refusal: {e}", s.name));
        }
    }
}

#[test]
fn the_sqlite_vector_swap_calls_the_guard_at_store_replace_vectors() {
    let host = Host::default();
    let s = sqlite_stack(&host);
    s.store.add(&[row("v1")]).unwrap();
    let (sqlite, _) = s.sqlite.as_ref().unwrap();
    let pin = build_pin(Some("hash-2"), Some(2), PIN_SOURCE_CREATION, None).unwrap();
    let vectors: HashMap<String, Vec<f32>> = [("v1".to_owned(), vec![1.0, 0.5])].into();
    host.take();
    host.refuse(true);
    let before = state(&s);
    let err = sqlite.replace_vectors(&vectors, &pin, 1, None).unwrap_err();
    assert_eq!(
        am_triples::Error::from(err).kind(),
        ErrorKind::Refused,
        "the swap is refused"
    );
    assert_eq!(state(&s), before);
    assert!(sqlite.stored_vector("v1").unwrap().is_none());
    host.refuse(false);
    assert_eq!(sqlite.replace_vectors(&vectors, &pin, 1, None).unwrap(), 1);
    assert_eq!(
        host.take(),
        vec!["store.replace_vectors", "store.replace_vectors"]
    );
}

#[test]
fn the_commit_points_are_a_closed_set_of_distinct_names() {
    let names: Vec<&str> = CommitPoint::ALL.iter().map(|p| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "journal",
            "store.add",
            "store.close_assertion",
            "store.narrow_assertion",
            "store.replace_vectors",
            "graph",
            "graph.mark_journal_applied",
            "understanding.digest",
            "understanding.title",
            "understanding.narration",
            "understanding.card",
            "understanding.pending",
            "understanding.target",
            "tasks.form_with_tasks",
            "tasks.enqueue",
            "tasks.claim",
            "tasks.ack",
            "tasks.release",
            "tasks.supersede",
            "tasks.prioritize",
            "tasks.record_maintenance",
            "ripple.seed",
            "ripple.settle"
        ]
    );
    let used: std::collections::BTreeSet<&str> =
        VERBS.iter().map(|(_, p, _, _)| p.as_str()).collect();
    for p in names {
        assert!(
            used.contains(p)
                || p == "store.replace_vectors"
                || p == "graph.mark_journal_applied"
                // The queue's verbs (am-system/tests/task_queue.rs) and
                // formation with tasks commit through home transactions;
                // so do a card and a pending declaration (the home's
                // transaction at their point: am-system/tests/commit_guard.rs).
                || p.starts_with("tasks.")
                || p == "understanding.card"
                || p == "understanding.pending"
                // A card's re-key (am-system/tests/world_models, rekey).
                || p == "understanding.target",
            "{p} has no write verb in VERBS"
        );
    }
}

#[test]
fn a_second_different_guard_is_refused_and_the_same_guard_again_is_not() {
    let host = Host::default();
    for s in stacks(&host) {
        let other = Host::default().guard();
        assert_eq!(
            s.store.install_commit_guard(&other).unwrap_err().kind(),
            ErrorKind::InvalidInput,
            "{}",
            s.name
        );
        assert_eq!(
            s.journal.install_commit_guard(&other).unwrap_err().kind(),
            ErrorKind::InvalidInput,
            "{}",
            s.name
        );
        let same = s.store.commit_guard().unwrap();
        s.store.install_commit_guard(&same).unwrap();
        s.journal.install_commit_guard(&same).unwrap();
    }
}

/// A graph whose journal lives in another file: the revision commits at
/// `graph`, its closures at `journal`, and the autocommit bookkeeping write
/// that marks them applied at `graph.mark_journal_applied`.
#[test]
fn an_off_file_graph_marks_its_closures_applied_at_graph_mark_journal_applied() {
    use am_backend_sqlite::journal::SQLiteJournal;
    use am_graph::{CloseKind, CloseOp};
    let host = Host::default();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        SQLiteTripleStore::open(
            dir.path().join("a.sqlite3"),
            None,
            SqliteStoreOptions::default(),
        )
        .unwrap(),
    );
    let journal_home = SqliteHome::open(dir.path().join("b.sqlite3")).unwrap();
    let journal = Arc::new(SQLiteJournal::open(&journal_home).unwrap());
    let graph = open_graph(store.clone(), Some(journal.clone())).unwrap();
    host.install(store.as_ref(), journal.as_ref());
    assert!(
        graph
            .apply_revision(&revision("m1"), false)
            .unwrap()
            .applied
    );
    host.take();
    let closing = Revision::new(RevisionDraft {
        revision_id: "m2".into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops: vec![RevisionOp::Close(CloseOp::new(
            "m1",
            "2026-01-06T00:00:00Z",
            CloseKind::Retract,
            "wrong",
        ))],
        provenance: revision("m1").provenance().clone(),
        recorded_at: None,
        summary: None,
    })
    .unwrap();
    assert!(graph.apply_revision(&closing, false).unwrap().applied);
    assert_eq!(
        host.take(),
        ["graph", "journal", "graph.mark_journal_applied"]
    );
}

/// A revision that closes `closed` (its closure is the journal's to append).
fn closing(id: &str, closed: &str) -> Revision {
    use am_graph::{CloseKind, CloseOp};
    Revision::new(RevisionDraft {
        revision_id: id.into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops: vec![RevisionOp::Close(CloseOp::new(
            closed,
            "2026-01-06T00:00:00Z",
            CloseKind::Retract,
            "wrong",
        ))],
        provenance: revision(closed).provenance().clone(),
        recorded_at: None,
        summary: None,
    })
    .unwrap()
}

/// Every graph whose closures the journal appends after the revision's
/// commit, so that `repair` has something to finish: the in-memory pair and
/// a SQLite store with its journal in another file. Each with its recorder
/// installed on its store and journal, and the directory it lives in.
fn repairable_graphs() -> Vec<(&'static str, MemoryGraph, Host, tempfile::TempDir)> {
    use am_backend_sqlite::journal::SQLiteJournal;
    let dir = tempfile::tempdir().unwrap();
    let host = Host::default();
    let memory = memory_stack(&host);
    let mut out = vec![("memory", memory.graph, host, dir)];
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        SQLiteTripleStore::open(
            dir.path().join("a.sqlite3"),
            None,
            SqliteStoreOptions::default(),
        )
        .unwrap(),
    );
    let journal_home = SqliteHome::open(dir.path().join("b.sqlite3")).unwrap();
    let journal = Arc::new(SQLiteJournal::open(&journal_home).unwrap());
    let graph = open_graph(store.clone(), Some(journal.clone())).unwrap();
    let host = Host::default();
    host.install(store.as_ref(), journal.as_ref());
    out.push(("sqlite, journal in another file", graph, host, dir));
    out
}

/// Once per outermost transaction, also where a crash left work behind: a
/// revision whose closures never reached the journal (here the guard refused
/// them) is finished by `repair` in one journal append per closure and one
/// bookkeeping write, each calling the guard once; the next revision calls it
/// once (it runs no repair inside it); a repair with nothing left calls it
/// never.
#[test]
fn a_repair_calls_the_guard_once_per_outermost_transaction() {
    for (name, graph, host, _dir) in repairable_graphs() {
        assert!(
            graph
                .apply_revision(&revision("p1"), false)
                .unwrap()
                .applied
        );
        host.refuse_only(&[CommitPoint::Journal]);
        host.take();
        let err = graph
            .apply_revision(&closing("p2", "p1"), false)
            .unwrap_err();
        assert_refused_at(&err, CommitPoint::Journal, name);
        assert_eq!(
            host.take(),
            ["graph", "journal"],
            "{name}: the revision committed"
        );
        assert_eq!(
            graph.backend().pending_journal(10).unwrap().len(),
            1,
            "{name}"
        );
        host.refuse(false);
        assert_eq!(graph.repair(1000).unwrap(), 1, "{name}");
        assert_eq!(
            host.take(),
            ["journal", "graph.mark_journal_applied"],
            "{name}: the repair's two transactions"
        );
        assert!(
            graph
                .apply_revision(&revision("p3"), false)
                .unwrap()
                .applied
        );
        assert_eq!(host.take(), ["graph"], "{name}: the next revision");
        assert_eq!(graph.repair(1000).unwrap(), 0, "{name}");
        assert_eq!(
            host.take(),
            Vec::<String>::new(),
            "{name}: nothing to repair"
        );
    }
    // Where the closures commit with the revision, nothing is ever left to
    // repair, and a repair calls no guard.
    let host = Host::default();
    let s = sqlite_stack(&host);
    assert!(
        s.graph
            .apply_revision(&revision("p1"), false)
            .unwrap()
            .applied
    );
    host.take();
    assert!(
        s.graph
            .apply_revision(&closing("p2", "p1"), false)
            .unwrap()
            .applied
    );
    assert_eq!(host.take(), ["graph"], "closures in the revision's commit");
    assert_eq!(s.graph.repair(1000).unwrap(), 0);
    assert_eq!(host.take(), Vec::<String>::new());
}

/// The first of the spec's two SQLite autocommit commit points: in this port
/// a pinless store's first embedded write stores its pin inside the `add`'s
/// own transaction, so it commits at `store.add` under the one guard call
/// and the home's write lock (a barrier on any handle or process covers it),
/// and a refusal writes neither the pin nor the rows.
#[test]
fn a_pinless_stores_first_embedded_write_pins_inside_its_guarded_add() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    // A home created without an embedder has no pin.
    SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap();
    let embedder: Arc<dyn am_triples::TextEmbedder> =
        Arc::new(am_conformance::HashEmbedder::new(8, "hash-8"));
    let store =
        SQLiteTripleStore::open(&path, Some(embedder), SqliteStoreOptions::default()).unwrap();
    assert!(store.embedding_pin().unwrap().is_none(), "a pinless store");
    let host = Host::default();
    store.install_commit_guard(&host.guard()).unwrap();
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    let bytes = || {
        (
            std::fs::read(&path).unwrap(),
            std::fs::read(&wal).unwrap_or_default(),
        )
    };
    let before = bytes();
    host.refuse(true);
    let err = store.add(&[row("p1")]).unwrap_err();
    assert_refused_at(&err, CommitPoint::StoreAdd, "the first embedded write");
    assert_eq!(host.take(), ["store.add"]);
    assert!(store.embedding_pin().unwrap().is_none(), "no pin written");
    assert_eq!(bytes(), before, "nothing written");
    host.refuse(false);
    store.add(&[row("p1")]).unwrap();
    assert_eq!(
        host.take(),
        ["store.add"],
        "rows and pin: one commit, one call"
    );
    let pin = store.embedding_pin().unwrap().expect("the first-write pin");
    assert_eq!(pin.source, am_triples::pin::PIN_SOURCE_FIRST_WRITE);
}
