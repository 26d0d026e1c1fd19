//! Every keyed read of the SQLite graph connector is an index search: SQLite's
//! `EXPLAIN QUERY PLAN` of each statement the connector runs, on a home holding
//! graph rows (and after `ANALYZE`, so the planner judges on real statistics),
//! searches an index or the integer primary key and never scans a table.
//!
//! Spec: api.md "The graph tables (SQLite)" ("Every keyed read above is an index
//! search (pinned by `tests/test_graph_performance.py`)").

use am_backend_sqlite::graph::{SqliteGraphBackend, open_graph};
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_graph::Revision;
use am_graph::registry::GraphJournal;
use serde_json::json;
use std::sync::Arc;

/// The one read allowed to walk an index from its start: the pending revisions,
/// through the PARTIAL index that holds only them.
const PARTIAL_INDEX_READS: &[&str] = &["pending_journal"];

fn bad_lines(name: &str, plan: &[String]) -> Vec<String> {
    plan.iter()
        .filter(|l| {
            // `SCAN CONSTANT ROW` is the EXISTS wrapper, no table.
            let scan = l.starts_with("SCAN ") && !l.starts_with("SCAN CONSTANT ROW");
            let partial = PARTIAL_INDEX_READS.contains(&name) && l.contains("_pending");
            (scan && !partial) || l.contains("AUTOMATIC")
        })
        .cloned()
        .collect()
}

fn home(table: Option<&str>) -> (tempfile::TempDir, SqliteGraphBackend) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mind.sqlite3");
    let store = Arc::new(
        SQLiteTripleStore::open(
            &path,
            None,
            SqliteStoreOptions {
                table_name: table.map(str::to_owned),
                ..SqliteStoreOptions::default()
            },
        )
        .unwrap(),
    );
    let journal = Arc::new(SQLiteJournal::open(store.home()).unwrap());
    let graph = open_graph(Arc::clone(&store), Some(Arc::clone(&journal))).unwrap();
    for i in 0..200 {
        let rev = Revision::from_dict(&json!({
            "revision_id": format!("r{i}"), "scope": "global", "owner_id": format!("person:{}", i % 7),
            "cause": "ingest", "occurred_at": "2026-01-05T09:00:00Z",
            "ops": [{"op": "assert", "payload": {"assertion_id": format!("c{i}"),
                "subject": format!("ex:s{}", i % 13), "predicate": "schema:worksFor",
                "object": format!("ex:o{i}")}}],
            "provenance": {"sources": [{"kind": "step", "run_id": format!("run-{}", i % 11), "seq": i + 1},
                                       {"kind": "artifact", "artifact_id": format!("a{i}")}],
                           "actor": "abstractnote"}
        }))
        .unwrap();
        graph.apply_revision(&rev, false).unwrap();
    }
    drop(graph);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("ANALYZE")
        .unwrap();
    let backend = SqliteGraphBackend::open(store, Some(&GraphJournal::new(journal))).unwrap();
    (dir, backend)
}

#[test]
fn every_keyed_read_of_the_graph_tables_is_an_index_search() {
    for table in [None, Some("facts")] {
        let (_dir, backend) = home(table);
        let plans = backend.query_plans().unwrap();
        assert!(plans.len() >= 20, "{plans:?}");
        let bad: Vec<(String, Vec<String>)> = plans
            .iter()
            .map(|(name, plan)| (name.clone(), bad_lines(name, plan)))
            .filter(|(_, lines)| !lines.is_empty())
            .collect();
        assert!(
            bad.is_empty(),
            "table {table:?}: keyed reads that scan: {bad:?}\nall plans: {plans:#?}"
        );
    }
}
