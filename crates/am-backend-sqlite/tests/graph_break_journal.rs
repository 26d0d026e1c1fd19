//! A `SQLiteJournal` on the store's FILE commits the closures in the revision's
//! transaction, also when it was opened through another connection to that file
//! (as getting-started §7 opens it: `SQLiteJournal("mind.sqlite3")` beside
//! `SQLiteTripleStore("mind.sqlite3")`).
//!
//! Spec: api.md `MemoryGraph` ("On SQLite with a `SQLiteJournal` on the **same
//! file**, the closures commit in that same transaction, so
//! `TripleQuery(active_at=...)` and ranked recall never disagree").

use am_backend_sqlite::graph::{SqliteGraphBackend, open_graph};
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_graph::Revision;
use am_graph::registry::GraphJournal;
use am_journal::{ClosureFilter, MemoryJournal};
use rusqlite::Connection;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

fn rev(id: &str, ops: Value) -> Revision {
    Revision::from_dict(&json!({
        "revision_id": id, "scope": "global", "owner_id": "person:ada", "cause": "ingest",
        "occurred_at": "2026-01-05T09:00:00Z", "ops": ops,
        "provenance": {"sources": [{"kind": "step", "run_id": "run-42", "seq": 3}],
                       "actor": "abstractnote"}
    }))
    .unwrap()
}

fn store(path: &Path) -> Arc<SQLiteTripleStore> {
    Arc::new(SQLiteTripleStore::open(path, None, SqliteStoreOptions::default()).unwrap())
}

/// A trigger on the revision log records how many closures the journal held
/// when each revision row was written: in one transaction the close's closure
/// is already there (the engine writes the revision row last); appended after
/// the commit, it is not.
fn watch_revision_inserts(path: &Path) {
    Connection::open(path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE seen (revision_id TEXT, closures INTEGER, journal_applied INTEGER);
             CREATE TRIGGER watch AFTER INSERT ON memg_revisions BEGIN
               INSERT INTO seen SELECT NEW.revision_id, (SELECT COUNT(*) FROM memj_closures),
                 NEW.journal_applied;
             END;",
        )
        .unwrap();
}

fn seen(path: &Path) -> Vec<(String, i64, i64)> {
    let c = Connection::open(path).unwrap();
    let mut s = c.prepare("SELECT * FROM seen ORDER BY rowid").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn closures_commit_in_the_revisions_transaction_with_a_sqlite_journal_on_the_same_file_through_another_connection()
 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mind.sqlite3");
    let store = store(&path);
    // The journal opens its own home (connection) on the same file, under
    // another spelling of the path.
    let other = dir.path().join(".").join("mind.sqlite3");
    let journal = Arc::new(SQLiteJournal::open(&SqliteHome::open(&other).unwrap()).unwrap());
    let backend = SqliteGraphBackend::open(
        Arc::clone(&store),
        Some(&GraphJournal::new(Arc::clone(&journal))),
    )
    .unwrap();
    assert!(
        backend.journal_in_file(),
        "a SQLiteJournal on the store's file must commit closures in the revision's transaction"
    );
    drop(backend);

    let graph = open_graph(Arc::clone(&store), Some(Arc::clone(&journal))).unwrap();
    watch_revision_inserts(&path);
    graph
        .apply_revision(
            &rev(
                "r1",
                json!([{"op": "assert", "payload": {"assertion_id": "c1", "subject": "ex:dana",
                    "predicate": "schema:worksFor", "object": "ex:acme"}}]),
            ),
            false,
        )
        .unwrap();
    let out = graph
        .apply_revision(
            &rev(
                "r2",
                json!([{"op": "close", "payload": {"assertion_id": "c1",
                    "valid_until": "2026-03-01T00:00:00Z", "kind": "retract", "reason": "left"}}]),
            ),
            false,
        )
        .unwrap();
    assert_eq!(out.closed, vec!["c1".to_owned()]);
    // The revision row was written with its closure already in the journal, and
    // never marked journal_applied = 0.
    assert_eq!(
        seen(&path),
        vec![("r1".to_owned(), 0, 1), ("r2".to_owned(), 1, 1)]
    );
    let closures = journal
        .closures(&ClosureFilter {
            assertion_id: Some("c1".into()),
            ..ClosureFilter::default()
        })
        .unwrap();
    assert_eq!(closures.len(), 1);
    assert_eq!(graph.repair(1000).unwrap(), 0);
}

#[test]
fn a_sqlite_journal_in_another_file_still_appends_after_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(&dir.path().join("mind.sqlite3"));
    let journal = Arc::new(
        SQLiteJournal::open(&SqliteHome::open(dir.path().join("j.sqlite3")).unwrap()).unwrap(),
    );
    let backend = SqliteGraphBackend::open(store, Some(&GraphJournal::new(journal))).unwrap();
    assert!(!backend.journal_in_file());
}
