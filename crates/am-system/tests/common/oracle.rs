//! What the oracle-differential tests share: run a generator of
//! `tests/oracle/` with AbstractMemory 0.3.2 (`AM_ORACLE_PYTHON`), and open
//! the home it copied for us on both stacks (the SQLite file, and its rows
//! and journal records appended in order to an in-memory pair, seq for seq),
//! and compare answers value for value with prose by structure.

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, JournalRecord, MemoryJournal};
use am_triples::{InMemoryTripleStore, Order, TripleQuery, TripleStore};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// Run `tests/oracle/<script>` with `args` under 0.3.2's python; the JSON it
/// printed.
pub(crate) fn run_generator(script: &str, args: &[&str]) -> Value {
    let python = std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: point it at a python with abstractmemory==0.3.2 installed \
             (cargo xtask test sets it); this differential test cannot run without the oracle"
        )
    });
    let path = format!("{}/tests/oracle/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&python)
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("could not run {python} {path}: {e}"));
    assert!(
        out.status.success(),
        "the generator {script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the generator printed JSON")
}

/// One stack: its name, store and journal.
pub(crate) type Pair = (&'static str, Arc<dyn TripleStore>, Arc<dyn MemoryJournal>);

/// Every row of `store` and every journal record of `journal`, appended in
/// order to a new in-memory pair that keeps the seq axis.
pub(crate) fn in_memory_copy(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
) -> (Arc<dyn TripleStore>, Arc<dyn MemoryJournal>) {
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
            JournalRecord::Event(e) => mem_journal.append_events(&[e]).unwrap()[0].seq,
            JournalRecord::Binding(b) => mem_journal.append_binding(&b).unwrap().seq,
            JournalRecord::Closure(c) => mem_journal.append_closure(&c).unwrap().seq,
            JournalRecord::Trace(t) => mem_journal.append_trace(&t).unwrap().seq,
            JournalRecord::Snapshot(s) => mem_journal.append_snapshot(&s).unwrap().seq,
            JournalRecord::Valence(v) => mem_journal.append_valence(&[v]).unwrap()[0].seq,
            JournalRecord::Version(v) => mem_journal.append_version(&v).unwrap().seq,
        };
        assert_eq!(stored, seq, "the in-memory copy keeps the seq axis");
    }
    (mem_store, mem_journal)
}

/// The two stacks over the generator's copy `dir/rust.sqlite3`.
pub(crate) struct OracleStacks {
    /// The SQLite home, kept open while the stacks are in use.
    pub(crate) home: SqliteHome,
    /// `sqlite` (the file) and `memory` (its copy), in that order.
    pub(crate) pairs: Vec<Pair>,
}

/// Open `dir/rust.sqlite3` on both stacks.
pub(crate) fn open_copy(dir: &Path) -> OracleStacks {
    let home = SqliteHome::open(dir.join("rust.sqlite3")).unwrap();
    let store: Arc<dyn TripleStore> =
        Arc::new(SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default()).unwrap());
    let journal: Arc<dyn MemoryJournal> = Arc::new(SQLiteJournal::open(&home).unwrap());
    let (mem_store, mem_journal) = in_memory_copy(store.as_ref(), journal.as_ref());
    OracleStacks {
        home,
        pairs: vec![
            ("sqlite", store, journal),
            ("memory", mem_store, mem_journal),
        ],
    }
}

/// The prose keys: ours, compared by structure.
const PROSE: [&str; 6] = [
    "action",
    "reason",
    "summary",
    "review_action",
    "caveat",
    "reasons",
];

/// Replace every prose value by its shape (a non-empty string, or a list of
/// them, becomes `"<prose>"`, or a list of as many).
pub(crate) fn prose_by_structure(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if PROSE.contains(&k.as_str()) {
                    *x = match &*x {
                        Value::String(s) if !s.trim().is_empty() => serde_json::json!("<prose>"),
                        Value::Array(items)
                            if items
                                .iter()
                                .all(|i| i.as_str().is_some_and(|s| !s.trim().is_empty())) =>
                        {
                            serde_json::json!(vec!["<prose>"; items.len()])
                        }
                        other => serde_json::json!({ "not prose": other.clone() }),
                    };
                } else {
                    prose_by_structure(x);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(prose_by_structure),
        _ => {}
    }
}

/// The first difference between two JSON values, by path (numbers compared
/// as numbers).
pub(crate) fn first_difference(ours: &Value, theirs: &Value, path: &str) -> Option<String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys().chain(b.keys()) {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(x, y, &format!("{path}.{k}")) {
                            return Some(d);
                        }
                    }
                    (x, y) => return Some(format!("{path}.{k}: ours {x:?}, 0.3.2 {y:?}")),
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]"))),
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        _ if ours == theirs => None,
        _ => Some(format!("{path}: ours {ours}, 0.3.2 {theirs}")),
    }
}
