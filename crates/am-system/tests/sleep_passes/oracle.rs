//! Differential test of `unresolved_dreams` against AbstractMemory 0.3.2 on
//! the same home: `tests/oracle/dreams_home.py` lives a home of dreams with
//! 0.3.2 (every continuation state, out of time order, two owners and two
//! scopes, a closed and a hidden dream, a dream-shaped episode), copies it,
//! and prints 0.3.2's answers for seven argument variants. The Rust side opens
//! the copy (the SQLite stack) and a row-for-row, seq-for-seq copy of it in
//! the in-memory pair, and must answer the same rows in the same order.
//!
//! Needs `AM_ORACLE_PYTHON` (a python with `abstractmemory==0.3.2`).

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, JournalRecord, MemoryJournal};
use am_system::sleep::{UnresolvedDreams, unresolved_dreams};
use am_triples::{InMemoryTripleStore, Order, TripleQuery, TripleStore};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn oracle(dir: &Path) -> Value {
    let python = std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: point it at a python with abstractmemory==0.3.2 installed \
             (cargo xtask test sets it); this differential test cannot run without the oracle"
        )
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/dreams_home.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("could not run {python} {script}: {e}"));
    assert!(
        out.status.success(),
        "the generator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the generator printed JSON")
}

type Pair = (&'static str, Arc<dyn TripleStore>, Arc<dyn MemoryJournal>);

/// The copied SQLite home, and the same rows and journal records appended in
/// order to an in-memory pair.
fn stacks(dir: &Path) -> (SqliteHome, Vec<Pair>) {
    let home = SqliteHome::open(dir.join("rust.sqlite3")).unwrap();
    let store: Arc<dyn TripleStore> =
        Arc::new(SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default()).unwrap());
    let journal: Arc<dyn MemoryJournal> = Arc::new(SQLiteJournal::open(&home).unwrap());
    let mem_store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let rows = store
        .query(&TripleQuery {
            limit: 0,
            order: Order::Asc,
            ..TripleQuery::default()
        })
        .unwrap();
    mem_store.add(&rows).unwrap();
    let mem_journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    for r in journal.replay_records(0, None).unwrap() {
        let seq = r.seq();
        let stored = match r {
            JournalRecord::Binding(b) => mem_journal.append_binding(&b).unwrap().seq,
            JournalRecord::Closure(c) => mem_journal.append_closure(&c).unwrap().seq,
            other => panic!("the dreams home holds no {other:?}"),
        };
        assert_eq!(stored, seq, "the in-memory copy keeps the seq axis");
    }
    (
        home,
        vec![
            ("sqlite", store, journal),
            ("memory", mem_store, mem_journal),
        ],
    )
}

#[test]
fn unresolved_dreams_answers_as_0_3_2_on_the_same_home_for_every_variant() {
    let dir = tempfile::tempdir().unwrap();
    let expected = oracle(dir.path());
    let (_home, pairs) = stacks(dir.path());
    let variants: [(&str, &str, &str, Option<usize>, bool); 7] = [
        ("journal", "life", "castor", None, true),
        ("no_journal", "life", "castor", None, false),
        ("limit_2", "life", "castor", Some(2), true),
        ("limit_0", "life", "castor", Some(0), true),
        ("any_owner", "life", "", None, true),
        ("work", "work", "castor", None, true),
        ("pollux", "life", "pollux", None, false),
    ];
    for (name, store, journal) in &pairs {
        for (variant, scope, owner, limit, with_journal) in variants {
            let mut args = UnresolvedDreams::new(scope, owner);
            if let Some(l) = limit {
                args.limit = l;
            }
            let j = with_journal.then_some(journal.as_ref());
            let got: Vec<Value> = unresolved_dreams(store.as_ref(), j, &args)
                .unwrap()
                .into_iter()
                .map(|a| serde_json::json!([a.subject, a.assertion_id]))
                .collect();
            assert_eq!(
                Value::Array(got),
                expected["variants"][variant],
                "[{name}] variant {variant}"
            );
        }
    }
    // The home exercises what it claims to.
    let journal_rows = expected["variants"]["journal"].as_array().unwrap().len();
    let raw_rows = expected["variants"]["no_journal"].as_array().unwrap().len();
    assert!(raw_rows > journal_rows, "the folds removed something");
}
