//! Every refusal of `apply_revision` on a SQLite home writes nothing: the whole
//! file (every table, the FTS5 shadow tables, the journal's `memj_*`, the graph's
//! `memg_*`, meta) is row-for-row unchanged after each refused revision, whatever
//! rule refused it and at whichever op.
//!
//! Spec: api.md `MemoryGraph.apply_revision` ("Then the triples ..., window
//! changes, closures, history, provenance and derivation rows and the revision
//! row are written; any failure rolls all of it back"); the house rule "every
//! refusal writes nothing".

mod common;

use am_backend_sqlite::graph::open_graph;
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_conformance::HashEmbedder;
use am_graph::Revision;
use am_graph::graph::MemoryGraph;
use am_triples::{ErrorKind, TextEmbedder};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

const D1: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const D2: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn open_home(path: &Path) -> MemoryGraph {
    let embedder: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(8, "hash-8"));
    let store = Arc::new(
        SQLiteTripleStore::open(path, Some(embedder), SqliteStoreOptions::default()).unwrap(),
    );
    let journal = Arc::new(SQLiteJournal::open(store.home()).unwrap());
    open_graph(store, Some(journal)).unwrap()
}

fn base(id: &str, ops: Value) -> Value {
    json!({"revision_id": id, "scope": "global", "owner_id": "person:ada", "cause": "ingest",
        "occurred_at": "2026-01-05T09:00:00Z", "ops": ops,
        "provenance": {"sources": [{"kind": "step", "run_id": "run-42", "seq": 3}],
                       "actor": "abstractnote"}})
}

fn claim(id: &str, o: &str) -> Value {
    json!({"op": "assert", "payload": {"assertion_id": id, "subject": "ex:dana",
        "predicate": "schema:worksFor", "object": o, "valid_from": "2026-01-01T00:00:00Z"}})
}

fn close(id: &str, until: &str) -> Value {
    json!({"op": "close", "payload": {"assertion_id": id, "valid_until": until,
        "kind": "retract", "reason": "wrong"}})
}

fn with_prov(mut v: Value, p: Value) -> Value {
    v["provenance"] = p;
    v
}

#[test]
fn every_refused_revision_leaves_the_whole_file_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mind.sqlite3");
    let g = open_home(&path);
    let first = with_prov(
        base("r1", json!([claim("h", "ex:acme")])),
        json!({"sources": [{"kind": "artifact", "artifact_id": "a1", "digest": D1}],
               "actor": "abstractnote"}),
    );
    g.apply_revision(&Revision::from_dict(&first).unwrap(), false)
        .unwrap();
    let derived = |id: &str, o: &str, parent: &str| {
        json!({"op": "assert", "payload": {"assertion_id": id, "subject": "ex:a",
            "predicate": "ex:p", "object": o,
            "provenance": {"derived_from": [parent], "actor": "x"}}})
    };
    let cases: Vec<(&str, ErrorKind, Value)> = vec![
        (
            "a changed claim under a held id, after a new assert",
            ErrorKind::InvalidInput,
            base("x1", json!([claim("n1", "ex:x"), claim("h", "ex:other")])),
        ),
        (
            "a close of no memory of the graph, after a new assert",
            ErrorKind::ProvenanceRequired,
            base(
                "x2",
                json!([claim("n2", "ex:y"), close("zz", "2026-03-01T00:00:00Z")]),
            ),
        ),
        (
            "a narrow of an open window, after a new assert",
            ErrorKind::InvalidInput,
            base(
                "x3",
                json!([claim("n3", "ex:y"), {"op": "narrow", "payload":
                {"assertion_id": "h", "valid_until": "2026-03-01T00:00:00Z"}}]),
            ),
        ),
        (
            "a close before valid_from, after a new assert",
            ErrorKind::InvalidInput,
            base(
                "x4",
                json!([claim("n4", "ex:y"), close("h", "2025-03-01T00:00:00Z")]),
            ),
        ),
        (
            "a conflicting digest on a held source, after a new assert",
            ErrorKind::InvalidInput,
            with_prov(
                base("x5", json!([claim("n5", "ex:z"), claim("h2", "ex:acme")])),
                json!({"sources": [{"kind": "artifact", "artifact_id": "a1", "digest": D2}],
                       "actor": "x"}),
            ),
        ),
        (
            "a close-only revision citing only the closed memory",
            ErrorKind::ProvenanceRequired,
            with_prov(
                base("x6", json!([close("h", "2026-03-01T00:00:00Z")])),
                json!({"derived_from": ["h"], "actor": "x"}),
            ),
        ),
        ("lineage across owners", ErrorKind::ProvenanceRequired, {
            let mut v = with_prov(
                base("x7", json!([claim("n7", "ex:q")])),
                json!({"derived_from": ["h"], "actor": "x"}),
            );
            v["owner_id"] = json!("person:bob");
            v
        }),
        (
            "a derivation cycle inside the revision",
            ErrorKind::ProvenanceRequired,
            base(
                "x8",
                json!([derived("c1", "ex:o1", "c2"), derived("c2", "ex:o2", "c1")]),
            ),
        ),
        (
            "a chain to nothing",
            ErrorKind::ProvenanceRequired,
            base("x9", json!([derived("c3", "ex:o3", "nowhere")])),
        ),
    ];
    for (what, kind, v) in cases {
        let before = common::dump_tables(&path);
        let rev = Revision::from_dict(&v).unwrap();
        let err = g.apply_revision(&rev, false).expect_err(what);
        assert_eq!(err.kind(), kind, "{what}: {err}");
        let after = common::dump_tables(&path);
        for ((name, b), (_, a)) in before.iter().zip(&after) {
            assert_eq!(b, a, "{what}: table {name} changed");
        }
        assert_eq!(before.len(), after.len(), "{what}: a table appeared");
    }
}
