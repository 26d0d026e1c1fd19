//! Differential test against AbstractMemory 0.3.2 of the observability reads:
//! `tests/oracle/observe_home.py` lives a small home with 0.3.2 itself (the
//! lived-home generator plus a diary entry and a commit using it), copies it,
//! and prints 0.3.2's replay stream (six variants of the arguments) over it.
//! The Rust side opens the copy (the SQLite stack) and a copy of every row and
//! record into the in-memory pair (the other stack), and must answer the same.
//!
//! Needs `AM_ORACLE_PYTHON` (a python with `abstractmemory==0.3.2`).
//!
//! Deliberate differences from 0.3.2 (the 0.5.2 spec wins), asserted as such:
//! - `binding` display blocks carry the current `digest` text (api.md "Replay
//!   stream": "`binding` and `revision` envelopes also carry the current
//!   `digest` text"); 0.3.2's do not. Ours is checked against the row, then
//!   removed before comparing.
//! - A snapshot's display row of a diary record is sealed to its id and token
//!   estimate (no diary words leave through any family); 0.3.2 streams it
//!   verbatim. Ours is checked to be sealed, then 0.3.2's row is sealed the
//!   same way before comparing.

mod common;

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, JournalRecord, MemoryJournal};
use am_system::replay::{ExportReplay, export_replay};
use am_triples::{InMemoryTripleStore, Order, TripleQuery, TripleStore};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn python() -> String {
    std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: point it at a python with abstractmemory==0.3.2 installed \
             (cargo xtask test sets it); this differential test cannot run without the oracle"
        )
    })
}

fn build(seed: u64, dir: &Path) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/observe_home.py");
    let python = python();
    let out = Command::new(&python)
        .arg(script)
        .arg(seed.to_string())
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

/// The two stacks over one home: the copied SQLite file, and every row and
/// journal record of it appended, in order, to an in-memory pair.
struct Stacks {
    _home: SqliteHome,
    pairs: Vec<Pair>,
}

/// One stack: its name, store and journal.
type Pair = (&'static str, Arc<dyn TripleStore>, Arc<dyn MemoryJournal>);

fn open(dir: &Path) -> Stacks {
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
    Stacks {
        _home: home,
        pairs: vec![
            ("sqlite", store, journal),
            ("memory", mem_store, mem_journal),
        ],
    }
}

/// Apply the deliberate differences (module doc) to one envelope pair.
fn reconcile(name: &str, ours: &mut Value, theirs: &mut Value, diary_ids: &[String]) {
    if ours["family"] == "binding"
        && let Some(d) = ours.get_mut("display").and_then(Value::as_object_mut)
        && d.get("redacted").is_none()
    {
        assert!(
            d.remove("digest").is_some_and(|t| t.is_string()),
            "[{name}] a binding's display block carries the digest: {ours}"
        );
    }
    if ours["family"] == "snapshot"
        && let (Some(o), Some(t)) = (
            ours["payload"]["display"].as_array(),
            theirs["payload"]["display"].as_array_mut(),
        )
    {
        for (orow, trow) in o.iter().zip(t.iter_mut()) {
            if orow.get("redacted").is_some() {
                let id = trow["record_id"].as_str().unwrap_or_default().to_owned();
                assert!(
                    diary_ids.contains(&id),
                    "[{name}] only a diary row is sealed: {orow}"
                );
                *trow = json!({"record_id": id, "redacted": "diary", "token_estimate": trow["token_estimate"]});
            }
        }
    }
}

#[test]
fn the_replay_stream_matches_abstractmemory_0_3_2_on_both_stacks() {
    let dir = tempfile::tempdir().unwrap();
    let oracle = build(7, dir.path());
    let stacks = open(dir.path());
    // The diary entry's ids in both namespaces (its graph id and digest row).
    let diary_graph = oracle["diary"][0].as_str().unwrap().to_owned();
    let row = am_system::lookup::resolve_digest_assertion(stacks.pairs[0].1.as_ref(), &diary_graph)
        .unwrap()
        .unwrap();
    let diary_ids = vec![diary_graph.clone(), row.assertion_id.clone().unwrap()];
    let hw = oracle["final_seq"].as_i64().unwrap();
    let variants: Vec<(&str, ExportReplay)> = vec![
        ("default", ExportReplay::default()),
        (
            "plain",
            ExportReplay {
                enrich: false,
                ..ExportReplay::default()
            },
        ),
        (
            "traces",
            serde_json::from_value(json!({"families": ["trace", "snapshot"]})).unwrap(),
        ),
        (
            "session_s1",
            ExportReplay {
                scope: Some("Session".into()),
                owner_id: Some("s1".into()),
                ..ExportReplay::default()
            },
        ),
        (
            "window",
            ExportReplay {
                until_seq: Some(40.min(hw)),
                ..ExportReplay::since(10)
            },
        ),
        (
            "host",
            serde_json::from_value(json!({"families": ["host"]})).unwrap(),
        ),
    ];
    let mut sealed = 0;
    for (stack, store, journal) in &stacks.pairs {
        for (name, args) in &variants {
            let ours: Vec<Value> = export_replay(store.as_ref(), journal.as_ref(), args)
                .unwrap()
                .map(|e| serde_json::to_value(e.unwrap()).unwrap())
                .collect();
            let theirs = oracle["replay"][name].as_array().unwrap();
            assert_eq!(ours.len(), theirs.len(), "[{stack}/{name}] envelope count");
            for (mut o, t) in ours.into_iter().zip(theirs.iter()) {
                let mut t = t.clone();
                reconcile(name, &mut o, &mut t, &diary_ids);
                if o["family"] == "snapshot" && o.to_string().contains("\"redacted\"") {
                    sealed += 1;
                }
                assert_eq!(o, t, "[{stack}/{name}] seq {}", t["seq"]);
            }
        }
    }
    assert!(
        sealed > 0,
        "the diary entry entered a snapshot and was sealed"
    );
}
