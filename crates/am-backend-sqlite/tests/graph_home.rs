//! The SQLite graph connector on real homes: replay into an empty home
//! reproduces the file row for row; opening a complete home writes nothing and
//! takes no write lock; older homes gain the later columns and indexes in place;
//! a custom table prefixes the graph tables; the tables and indexes are the
//! spec's; a journal in another file is marked `journal_applied` once appended.
//!
//! Spec: api.md "The graph tables (SQLite)", `replay_into`, "Opening a
//! `MemoryGraph` on a home whose graph tables and indexes exist is a read",
//! `apply_revision` ("With a journal elsewhere ... `journal_applied = 0` until
//! they are").

mod common;

use am_backend_sqlite::graph::schema::GraphTables;
use am_backend_sqlite::graph::{SqliteGraphBackend, open_graph};
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_conformance::HashEmbedder;
use am_graph::backend::GraphBackend;
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_graph::{
    AssertOp, CloseKind, CloseOp, NarrowOp, Provenance, Revision, RevisionDraft, RevisionOp,
    SourceRef,
};
use am_journal::MemoryJournal;
use am_triples::pin::{EmbeddingPin, PIN_SOURCE_CREATION, build_pin};
use am_triples::{TextEmbedder, TripleAssertion, TripleStore};
use rusqlite::Connection;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

fn pin() -> EmbeddingPin {
    let mut p = build_pin(Some("hash-8"), Some(8), PIN_SOURCE_CREATION, None).unwrap();
    p.pinned_at = "2026-01-01T00:00:00.000000+00:00".into();
    p
}

fn open_home(path: &Path) -> (Arc<SQLiteTripleStore>, Arc<SQLiteJournal>, MemoryGraph) {
    let embedder: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(8, "hash-8"));
    let store = Arc::new(
        SQLiteTripleStore::open(
            path,
            Some(embedder),
            SqliteStoreOptions {
                embedding_pin: Some(pin()),
                ..SqliteStoreOptions::default()
            },
        )
        .unwrap(),
    );
    let journal = Arc::new(SQLiteJournal::open(store.home()).unwrap());
    let graph = open_graph(Arc::clone(&store), Some(Arc::clone(&journal))).unwrap();
    (store, journal, graph)
}

fn step(run: &str, seq: i64) -> SourceRef {
    SourceRef::step(run, seq).unwrap()
}

fn prov(sources: Vec<SourceRef>, parents: &[&str]) -> Provenance {
    Provenance::new(
        sources,
        parents.iter().map(|s| (*s).to_owned()).collect(),
        "abstractnote",
    )
    .unwrap()
}

fn claim(id: &str, s: &str, p: &str, o: &str) -> RevisionOp {
    let mut a = AssertOp::claim(s, p, o);
    a.assertion.assertion_id = Some(id.to_owned());
    RevisionOp::Assert(a)
}

fn rev(id: &str, cause: &str, ops: Vec<RevisionOp>, p: Provenance) -> Revision {
    Revision::new(RevisionDraft {
        revision_id: id.into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: cause.into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops,
        provenance: p,
        recorded_at: None,
        summary: Some(format!("revision {id}")),
    })
    .unwrap()
}

fn schema_objects(path: &Path) -> Vec<(String, String, String)> {
    let c = Connection::open(path).unwrap();
    c.prepare("SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn replay_into_an_empty_home_reproduces_triples_keyword_index_graph_tables_and_closures() {
    let dir = tempfile::tempdir().unwrap();
    let a_path = dir.path().join("a.sqlite3");
    let b_path = dir.path().join("b.sqlite3");
    {
        let (store, _journal, graph) = open_home(&a_path);
        // A row written outside the graph, then adopted by an import.
        let mut legacy = TripleAssertion::new("ex:pool", "ex:state", "ex:saturated")
            .with_id("legacy")
            .with_scope("global")
            .with_owner("person:ada")
            .with_observed_at("2025-06-01T00:00:00Z");
        legacy.provenance.insert("run_id".into(), json!("run-7"));
        store.add(&[legacy]).unwrap();
        let mut stored = store
            .query(&am_triples::TripleQuery {
                assertion_ids: Some(vec!["legacy".into()]),
                ..Default::default()
            })
            .unwrap()
            .remove(0);
        stored.provenance = am_triples::JsonMap::new();
        let steps = [
            rev(
                "imp",
                "import",
                vec![RevisionOp::Assert(AssertOp::from_assertion(stored))],
                prov(vec![step("run-7", 1)], &[]),
            ),
            rev(
                "r1",
                "ingest",
                vec![
                    claim("c1", "ex:dana", "schema:worksFor", "ex:acme"),
                    claim("c2", "ex:dana", "ex:likes", "ex:tea"),
                ],
                prov(
                    vec![step("run-42", 3), SourceRef::artifact("note-1").unwrap()],
                    &[],
                ),
            ),
            rev(
                "r2",
                "reinterpret",
                vec![claim("c3", "ex:dana", "schema:worksFor", "ex:acme"), {
                    let mut a = AssertOp::claim("ex:dana", "ex:summary", "ex:works-at-acme");
                    a.assertion.assertion_id = Some("d1".into());
                    RevisionOp::Assert(a.with_provenance(prov(vec![], &["c1", "c2"])))
                }],
                prov(vec![step("run-43", 1)], &[]),
            ),
            rev(
                "r3",
                "ingest",
                vec![RevisionOp::Close(
                    CloseOp::new("c1", "2026-03-01T00:00:00Z", CloseKind::Supersede, "moved")
                        .with_replacements(vec!["c4".into()]),
                )],
                prov(vec![step("run-44", 1)], &[]),
            ),
            rev(
                "r4",
                "maintenance",
                vec![RevisionOp::Narrow(
                    NarrowOp::new("c1", "2026-02-15T00:00:00Z").with_reason("earlier note"),
                )],
                prov(vec![step("run-45", 1)], &[]),
            ),
        ];
        for (i, r) in steps.iter().enumerate() {
            let clock_at = format!("2026-02-0{}T00:00:00Z", i + 1);
            let g = MemoryGraph::with_backend(
                Box::new(
                    SqliteGraphBackend::open(Arc::clone(&store), graph.journal().cloned().as_ref())
                        .unwrap(),
                ),
                graph.journal().cloned(),
            )
            .with_clock(am_triples::fixed_clock(
                am_triples::Timestamp::parse(&clock_at).unwrap(),
            ));
            assert!(g.apply_revision(r, false).unwrap().applied);
        }
        let (_bs, _bj, target) = open_home(&b_path);
        assert_eq!(graph.replay_into(&target).unwrap(), 5);
        assert_eq!(graph.replay_into(&target).unwrap(), 0, "a replay resumes");
    }
    let a = common::dump_tables(&a_path);
    let b = common::dump_tables(&b_path);
    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
    for must in [
        "triples",
        "triples_fts_data",
        "triples_meta",
        "memg_revisions",
        "memg_provenance",
        "memg_derivations",
        "memg_history",
        "memj_closures",
        "memj_seq",
    ] {
        assert!(names.contains(&must), "{must} missing from {names:?}");
    }
    assert_eq!(a.len(), b.len());
    for ((an, ar), (bn, br)) in a.iter().zip(&b) {
        assert_eq!(an, bn);
        assert_eq!(ar, br, "table {an} differs after replay");
    }
    assert_eq!(schema_objects(&a_path), schema_objects(&b_path));
}

#[test]
fn opening_a_home_whose_graph_tables_exist_writes_nothing_and_takes_no_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mind.sqlite3");
    let (store, journal, graph) = open_home(&path);
    graph
        .apply_revision(
            &rev(
                "r1",
                "ingest",
                vec![claim("c1", "ex:a", "ex:b", "ex:c")],
                prov(vec![step("run-1", 1)], &[]),
            ),
            false,
        )
        .unwrap();
    drop(graph);
    // Another process holds the write lock for the whole open.
    let writer = Connection::open(&path).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let version = |c: &Connection| -> i64 {
        c.query_row("PRAGMA data_version", [], |r| r.get(0))
            .unwrap()
    };
    let before_version = version(&writer);
    let files = |p: &Path| -> Vec<Vec<u8>> {
        ["", "-wal"]
            .iter()
            .map(|s| std::fs::read(format!("{}{s}", p.display())).unwrap_or_default())
            .collect()
    };
    let before = files(&path);
    let backend = SqliteGraphBackend::open(
        Arc::clone(&store),
        Some(&GraphJournal::new(Arc::clone(&journal))),
    )
    .unwrap();
    assert!(
        backend.opened_with().is_empty(),
        "{:?}",
        backend.opened_with()
    );
    assert!(backend.journal_in_file());
    assert_eq!(files(&path), before, "opening the graph changed the file");
    assert_eq!(version(&writer), before_version);
    // A read through it needs no lock either.
    assert_eq!(backend.log_head().unwrap(), 1);
    writer.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn an_older_home_gains_via_owner_id_and_the_history_revision_index_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    let store =
        Arc::new(SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap());
    store
        .add(&[TripleAssertion::new("ex:a", "ex:b", "ex:c")
            .with_id("m1")
            .with_owner("person:ada")])
        .unwrap();
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE memg_revisions (seq INTEGER PRIMARY KEY AUTOINCREMENT, revision_id TEXT NOT NULL UNIQUE,
                scope TEXT NOT NULL, owner_id TEXT, cause TEXT NOT NULL, occurred_at TEXT NOT NULL,
                recorded_at TEXT NOT NULL, ops_json TEXT NOT NULL, provenance_json TEXT NOT NULL, summary TEXT,
                journal_applied INTEGER NOT NULL DEFAULT 1);
             CREATE TABLE memg_provenance (memory_id TEXT NOT NULL, ref_key TEXT NOT NULL, ref_kind TEXT NOT NULL,
                run_id TEXT, revision_id TEXT NOT NULL, ref_json TEXT NOT NULL, PRIMARY KEY (memory_id, ref_key));
             CREATE TABLE memg_derivations (memory_id TEXT NOT NULL, from_id TEXT NOT NULL, revision_id TEXT NOT NULL,
                PRIMARY KEY (memory_id, from_id));
             CREATE TABLE memg_history (seq INTEGER PRIMARY KEY AUTOINCREMENT, memory_id TEXT NOT NULL,
                event TEXT NOT NULL, at TEXT NOT NULL, revision_id TEXT NOT NULL, detail_json TEXT NOT NULL);
             INSERT INTO memg_provenance VALUES ('m1', 'step:run-1#1', 'step', 'run-1', 'r0',
                '{\"kind\":\"step\",\"run_id\":\"run-1\",\"seq\":1}');",
        )
        .unwrap();
    }
    let backend = SqliteGraphBackend::open(Arc::clone(&store), None).unwrap();
    let m = backend.opened_with().clone();
    assert_eq!(m.columns, vec!["via".to_owned(), "owner_id".to_owned()]);
    assert!(m.tables.is_empty());
    assert!(
        m.indexes
            .contains(&"idx_memg_history_revision_seq".to_owned())
    );
    let c = Connection::open(&path).unwrap();
    let (via, owner): (String, String) = c
        .query_row(
            "SELECT via, owner_id FROM memg_provenance WHERE memory_id = 'm1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((via.as_str(), owner.as_str()), ("memory", "person:ada"));
    let again = SqliteGraphBackend::open(Arc::clone(&store), None).unwrap();
    assert!(again.opened_with().is_empty());
}

#[test]
fn a_custom_table_prefixes_the_graph_tables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.sqlite3");
    let store = Arc::new(
        SQLiteTripleStore::open(
            &path,
            None,
            SqliteStoreOptions {
                table_name: Some("notes".into()),
                ..SqliteStoreOptions::default()
            },
        )
        .unwrap(),
    );
    let graph = open_graph(Arc::clone(&store), None).unwrap();
    graph
        .apply_revision(
            &rev(
                "r1",
                "ingest",
                vec![claim("c1", "ex:a", "ex:b", "ex:c")],
                prov(vec![step("run-1", 1)], &[]),
            ),
            false,
        )
        .unwrap();
    let tables: Vec<String> = schema_objects(&path)
        .into_iter()
        .filter(|(t, n, _)| t == "table" && n.starts_with("memg_"))
        .map(|(_, n, _)| n)
        .collect();
    assert_eq!(
        tables,
        vec![
            "memg_notes_derivations",
            "memg_notes_history",
            "memg_notes_provenance",
            "memg_notes_revisions"
        ]
    );
    assert_eq!(graph.history("c1", 10).unwrap().len(), 1);
}

#[test]
fn the_graph_tables_and_indexes_are_the_specs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mind.sqlite3");
    let _ = open_home(&path);
    let c = Connection::open(&path).unwrap();
    let columns = |t: &str| -> Vec<String> {
        c.prepare(&format!("PRAGMA table_info({t})"))
            .unwrap()
            .query_map([], |r| r.get(1))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(
        columns("memg_revisions"),
        [
            "seq",
            "revision_id",
            "scope",
            "owner_id",
            "cause",
            "occurred_at",
            "recorded_at",
            "ops_json",
            "provenance_json",
            "summary",
            "journal_applied"
        ]
    );
    assert_eq!(
        columns("memg_provenance"),
        [
            "memory_id",
            "ref_key",
            "ref_kind",
            "run_id",
            "revision_id",
            "ref_json",
            "via",
            "owner_id"
        ]
    );
    assert_eq!(
        columns("memg_derivations"),
        ["memory_id", "from_id", "revision_id"]
    );
    assert_eq!(
        columns("memg_history"),
        [
            "seq",
            "memory_id",
            "event",
            "at",
            "revision_id",
            "detail_json"
        ]
    );
    let index_columns = |name: &str| -> Vec<String> {
        c.prepare(&format!("PRAGMA index_info({name})"))
            .unwrap()
            .query_map([], |r| r.get(2))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    let t = GraphTables::for_table("triples", am_backend_sqlite::store::DEFAULT_TABLE);
    let expected: Vec<(&str, Vec<&str>)> = vec![
        ("idx_memg_revisions_revision_id", vec!["revision_id"]),
        ("idx_memg_revisions_pending", vec!["seq"]),
        ("idx_memg_provenance_ref_key", vec!["ref_key"]),
        ("idx_memg_provenance_run_id", vec!["run_id"]),
        (
            "idx_memg_provenance_ref_key_owner",
            vec!["ref_key", "owner_id"],
        ),
        (
            "idx_memg_provenance_run_id_owner",
            vec!["run_id", "owner_id"],
        ),
        ("idx_memg_derivations_from_id", vec!["from_id"]),
        ("idx_memg_history_memory_seq", vec!["memory_id", "seq"]),
        ("idx_memg_history_revision_seq", vec!["revision_id", "seq"]),
    ];
    assert_eq!(
        am_backend_sqlite::graph::schema::index_ddl(&t)
            .into_iter()
            .map(|(n, _)| n)
            .collect::<Vec<_>>(),
        expected
            .iter()
            .map(|(n, _)| (*n).to_owned())
            .collect::<Vec<_>>()
    );
    for (name, cols) in expected {
        assert_eq!(index_columns(name), cols, "{name}");
    }
    let partial: String = c
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'idx_memg_revisions_pending'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(partial.ends_with("WHERE journal_applied = 0"), "{partial}");
}

#[test]
fn a_journal_in_another_file_is_marked_journal_applied_once_its_closures_are_appended() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        SQLiteTripleStore::open(
            dir.path().join("mind.sqlite3"),
            None,
            SqliteStoreOptions::default(),
        )
        .unwrap(),
    );
    let other = am_backend_sqlite::SqliteHome::open(dir.path().join("journal.sqlite3")).unwrap();
    let journal = Arc::new(SQLiteJournal::open(&other).unwrap());
    let graph = open_graph(Arc::clone(&store), Some(Arc::clone(&journal))).unwrap();
    let p = prov(vec![step("run-1", 1)], &[]);
    graph
        .apply_revision(
            &rev(
                "r1",
                "ingest",
                vec![claim("c1", "ex:a", "ex:b", "ex:c")],
                p.clone(),
            ),
            false,
        )
        .unwrap();
    graph
        .apply_revision(
            &rev(
                "r2",
                "ingest",
                vec![RevisionOp::Close(CloseOp::new(
                    "c1",
                    "2026-03-01T00:00:00Z",
                    CloseKind::Retract,
                    "wrong",
                ))],
                p,
            ),
            false,
        )
        .unwrap();
    assert_eq!(
        journal.current_seq().unwrap(),
        1,
        "the closure reached the other file"
    );
    assert!(graph.backend().pending_journal(10).unwrap().is_empty());
    let (revs, _) = graph.revisions(None, 10).unwrap();
    assert_eq!(revs.len(), 2);
    let c = Connection::open(dir.path().join("mind.sqlite3")).unwrap();
    let flags: Vec<i64> = c
        .prepare("SELECT journal_applied FROM memg_revisions ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(flags, vec![1, 1]);
    assert_eq!(graph.repair(1000).unwrap(), 0);
}
