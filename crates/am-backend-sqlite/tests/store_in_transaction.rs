//! The store's in-transaction write API (`prepare_rows`, `insert_prepared_in`,
//! `end_row_in`, `narrow_row_in`, `read_row_in`) on a real file: what the caller's
//! transaction writes is seen by another connection only after the caller
//! commits, and a rollback leaves the file as it was.

mod common;

use am_backend_sqlite::SQLiteTripleStore;
use am_triples::{ErrorKind, TripleAssertion, TripleQuery, TripleStore};
use common::*;
use rusqlite::TransactionBehavior;
use serde_json::json;
use std::path::Path;

fn rows(n: usize) -> Vec<TripleAssertion> {
    (0..n)
        .map(|i| {
            TripleAssertion::new("zebra", "ex:saw", &format!("giraffe {i}"))
                .with_id(&format!("row-{i}"))
        })
        .collect()
}

/// Rows and keyword rows another connection sees.
fn seen(path: &Path) -> (i64, i64) {
    (
        raw_i64(path, "SELECT COUNT(*) FROM triples"),
        raw_i64(
            path,
            "SELECT COUNT(*) FROM triples_fts WHERE triples_fts MATCH 'zebra'",
        ),
    )
}

fn in_tx<T>(
    store: &SQLiteTripleStore,
    commit: bool,
    f: impl FnOnce(&rusqlite::Connection) -> T,
) -> T {
    let conn = store.home().conn();
    let mut guard = conn.lock().unwrap();
    let tx = guard
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .unwrap();
    let out = f(&tx);
    if commit {
        tx.commit().unwrap();
    } else {
        tx.rollback().unwrap();
    }
    out
}

#[test]
fn rows_and_keyword_rows_appear_only_after_the_caller_commits() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, Some(tiny()));
    let prepared = store.prepare_rows(&rows(3)).unwrap();
    assert_eq!(prepared.assertion_ids(), ["row-0", "row-1", "row-2"]);
    assert_eq!(prepared.dimension(), Some(16));
    in_tx(&store, true, |tx| {
        let out = store.insert_prepared_in(tx, &prepared).unwrap();
        assert_eq!(out.written, 3);
        assert_eq!(out.ids, ["row-0", "row-1", "row-2"]);
        // The first-write pin's warning is handed to the caller.
        assert_eq!(out.warnings.len(), 1);
        assert!(out.warnings[0].starts_with("#FALLBACK"));
        // The caller's transaction reads its own rows ...
        let got = store.read_row_in(tx, "row-1").unwrap().unwrap();
        assert_eq!(got.object, "giraffe 1");
        // ... another connection does not, yet.
        assert_eq!(seen(&path), (0, 0));
        assert!(
            raw_opt_text(
                &path,
                "SELECT value FROM triples_meta WHERE key = 'embedding_pin'"
            )
            .is_none()
        );
    });
    assert_eq!(seen(&path), (3, 3));
    assert!(
        raw_opt_text(
            &path,
            "SELECT value FROM triples_meta WHERE key = 'embedding_pin'"
        )
        .is_some()
    );
    assert_eq!(
        raw_opt_text(
            &path,
            "SELECT value FROM triples_meta WHERE key = 'fts_high_water'"
        )
        .as_deref(),
        Some("3")
    );
    // The rows answer queries like rows written by add (structured and vector).
    let q = TripleQuery {
        subject: Some("zebra".into()),
        ..Default::default()
    };
    assert_eq!(store.query(&q).unwrap().len(), 3);
    assert!(store.stored_vector("row-2").unwrap().is_some());
}

#[test]
fn a_rollback_leaves_no_row_no_keyword_row_no_pin_and_no_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, Some(tiny()));
    store.add(&rows(1)).unwrap();
    checkpoint(&path);
    let before = bytes(&path);
    let prepared = store.prepare_rows(&rows(5)[1..]).unwrap();
    in_tx(&store, false, |tx| {
        assert_eq!(store.insert_prepared_in(tx, &prepared).unwrap().written, 4);
        assert!(
            store
                .end_row_in(tx, "row-0", "2030-01-01T00:00:00Z")
                .unwrap()
        );
    });
    assert_eq!(seen(&path), (1, 1));
    assert_eq!(
        raw_opt_text(
            &path,
            "SELECT value FROM triples_meta WHERE key = 'fts_high_water'"
        )
        .as_deref(),
        Some("1")
    );
    assert!(
        raw_opt_text(
            &path,
            "SELECT valid_until FROM triples WHERE assertion_id = 'row-0'"
        )
        .is_none_or(|v| v.is_empty())
    );
    checkpoint(&path);
    assert_eq!(bytes(&path), before);
    // The same batch commits afterwards, keyword rows included.
    in_tx(&store, true, |tx| {
        store.insert_prepared_in(tx, &prepared).unwrap()
    });
    assert_eq!(seen(&path), (5, 5));
}

#[test]
fn an_existing_assertion_id_is_skipped_and_gets_no_second_keyword_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    store.add(&rows(2)).unwrap();
    let prepared = store.prepare_rows(&rows(3)).unwrap();
    let out = in_tx(&store, true, |tx| {
        store.insert_prepared_in(tx, &prepared).unwrap()
    });
    assert_eq!(out.written, 1);
    assert_eq!(out.ids, ["row-0", "row-1", "row-2"]);
    assert_eq!(seen(&path), (3, 3));
}

#[test]
fn a_connection_outside_a_transaction_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    store.add(&rows(1)).unwrap();
    checkpoint(&path);
    let before = bytes(&path);
    let prepared = store.prepare_rows(&rows(3)).unwrap();
    let conn = store.home().conn();
    let guard = conn.lock().unwrap();
    let e = store.insert_prepared_in(&guard, &prepared).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("autocommit"), "{e}");
    let e = store
        .end_row_in(&guard, "row-0", "2030-01-01T00:00:00Z")
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let e = store
        .narrow_row_in(&guard, "row-0", "2030-01-01T00:00:00Z")
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    drop(guard);
    checkpoint(&path);
    assert_eq!(bytes(&path), before);
}

#[test]
fn end_and_narrow_in_a_transaction_follow_the_close_and_narrow_rules() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    store.add(&rows(2)).unwrap();
    in_tx(&store, true, |tx| {
        assert!(
            store
                .end_row_in(tx, "row-0", "2030-01-01T00:00:00Z")
                .unwrap()
        );
        // Closed already: no change.
        assert!(
            !store
                .end_row_in(tx, "row-0", "2031-01-01T00:00:00Z")
                .unwrap()
        );
        // Narrowing an open window is closing's job.
        assert_eq!(
            store
                .narrow_row_in(tx, "row-1", "2030-01-01T00:00:00Z")
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidInput
        );
        assert!(
            store
                .narrow_row_in(tx, "row-0", "2029-01-01T00:00:00Z")
                .unwrap()
        );
        assert!(
            !store
                .narrow_row_in(tx, "row-0", "2029-06-01T00:00:00Z")
                .unwrap()
        );
        assert!(
            !store
                .end_row_in(tx, "missing", "2030-01-01T00:00:00Z")
                .unwrap()
        );
        assert_eq!(
            store
                .read_row_in(tx, "row-0")
                .unwrap()
                .unwrap()
                .valid_until
                .as_deref(),
            Some("2029-01-01T00:00:00.000000+00:00")
        );
        assert!(store.read_row_in(tx, "missing").unwrap().is_none());
        assert!(store.read_row_in(tx, "  ").unwrap().is_none());
    });
    let got = raw_opt_text(
        &path,
        "SELECT valid_until FROM triples WHERE assertion_id = 'row-0'",
    );
    assert_eq!(got.as_deref(), Some("2029-01-01T00:00:00.000000+00:00"));
}

#[test]
fn keyword_rows_of_an_unindexed_writer_above_the_cursor_are_indexed_by_the_next_write() {
    // A writer that leaves the keyword index behind (as a 0.3.x process killed
    // between its insert and its sync would): the next batch indexes both.
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    store.add(&rows(1)).unwrap();
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "INSERT INTO triples (assertion_id, subject, predicate, object, scope, observed_at, \
             provenance_json, attributes_json, text) VALUES ('raw', 'zebra', 'ex:saw', 'okapi', 'run', \
             '2026-01-01T00:00:00+00:00', '{}', '{}', 'zebra ex:saw okapi')",
            [],
        )
        .unwrap();
    }
    assert_eq!(seen(&path), (2, 1));
    store.add(&rows(3)[1..]).unwrap();
    assert_eq!(seen(&path), (4, 4));
}

#[test]
fn a_null_record_edge_attribute_is_keyword_indexed_as_json_extract_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    let mut attrs = serde_json::Map::new();
    attrs.insert("record_edge".into(), json!(null));
    attrs.insert("bookkeeping".into(), json!(null));
    store
        .add(&[TripleAssertion::new("zebra", "is", "x")
            .with_attributes(attrs)
            .with_id("nulls")])
        .unwrap();
    assert_eq!(seen(&path), (1, 1));
}
