//! Table names are SQL identifiers, which SQLite compares without case: a store
//! opened as `Triples` is the `triples` table, and opening it finishes (it hung in
//! the vector upgrade while the meta sidecar was looked up case-sensitively).

use am_backend_sqlite::store::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn a_table_name_differing_only_in_case_opens_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let store = SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap();
    store
        .add(&[TripleAssertion::new("a", "b", "c").with_id("row-1")])
        .unwrap();
    drop(store);

    let (tx, rx) = mpsc::channel();
    let p = path.clone();
    std::thread::spawn(move || {
        let opened = SQLiteTripleStore::open(
            &p,
            None,
            SqliteStoreOptions {
                table_name: Some("Triples".into()),
                ..SqliteStoreOptions::default()
            },
        )
        .and_then(|s| Ok(s.query(&TripleQuery::default())?.len()));
        let _ = tx.send(opened.map_err(|e| e.to_string()));
    });
    // A bound on a hang, not a speed assertion: opening takes milliseconds.
    let rows = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("opening the table as `Triples` must return")
        .unwrap();
    assert_eq!(rows, 1);
}
