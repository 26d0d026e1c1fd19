//! The drive reads against AbstractMemory 0.3.2 on the same homes:
//! `tests/oracle/drives_home.py` builds a home of drives of every family
//! with 0.3.2 (fresh: the crafted drives only; lived: the crafted drives,
//! 300 lived records after them so the oldest fall out of the recency
//! window, 0.3.2's own sleep night per pair, more crafted drives, then
//! reinforcements), copies it, and prints 0.3.2's answers for five ladders
//! (and `k` 0, 3, 5, 50) plus `drive_groups` over three item sets. The Rust
//! side opens the copy (the SQLite stack) and a row-for-row, seq-for-seq
//! in-memory copy, and must answer value for value, the `note` and
//! `provenance` prose by structure.
//!
//! The free reads (a whole read of the ladder) and the system's own
//! (`system.drive_pressure`, ... and `alive_drives`, through the drive index
//! kept fresh from the change feed) must both answer as 0.3.2 does.
//!
//! Where 0.5.2 differs: an alive drive's title is `None` while pending (no
//! 0.3.2 home carries a pending marker, so the answers agree here). The
//! attention window is 0.3.2's 8192 events (ours defaults to the spec's
//! 512) so both folds read the same events.

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, JournalRecord, MemoryJournal};
use am_system::config::AttentionConfig;
use am_system::drives::{
    AliveDrives, DriveGroups, DriveItem, DriveScopes, cognition_health, drive_groups,
    drive_pressure, open_drive_partition,
};
use am_system::{MemorySystem, SystemOptions};
use am_triples::{InMemoryTripleStore, Order, TripleQuery, TripleStore};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn run_script(args: &[&str]) -> Value {
    let python = std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: point it at a python with abstractmemory==0.3.2 installed \
             (cargo xtask test sets it); this differential test cannot run without the oracle"
        )
    });
    let script = format!("{}/tests/oracle/drives_home.py", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&python)
        .arg(&script)
        .args(args)
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
    (
        home,
        vec![
            ("sqlite", store, journal),
            ("memory", mem_store, mem_journal),
        ],
    )
}

/// The prose keys, compared by structure (a non-empty string).
const PROSE: &[&str] = &["note", "provenance"];

fn prose_by_structure(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if PROSE.contains(&k.as_str()) {
                    *x = match &*x {
                        Value::String(s) if !s.trim().is_empty() => serde_json::json!("<prose>"),
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
fn first_difference(ours: &Value, theirs: &Value, path: &str) -> Option<String> {
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

fn same(label: &str, ours: &impl serde::Serialize, theirs: &Value) {
    let mut ours = serde_json::to_value(ours).unwrap();
    let mut theirs = theirs.clone();
    prose_by_structure(&mut ours);
    prose_by_structure(&mut theirs);
    if let Some(d) = first_difference(&ours, &theirs, "") {
        panic!("{label}: {d}");
    }
}

fn scopes_of(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_owned(),
                p[1].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn differential(mode: &str, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let expected = run_script(&[&seed.to_string(), dir.path().to_str().unwrap(), mode]);
    let (_home, pairs) = stacks(dir.path());
    for (name, store, journal) in &pairs {
        let system = MemorySystem::with_options(
            store.clone(),
            journal.clone(),
            SystemOptions {
                attention_config: AttentionConfig {
                    window_limit: 8192,
                    ..AttentionConfig::default()
                },
                ..SystemOptions::default()
            },
        )
        .unwrap();
        let before = journal.current_seq().unwrap();
        for call in expected["pressure"].as_array().unwrap() {
            let args = DriveScopes {
                scopes: scopes_of(&call["scopes"]),
            };
            let ours = drive_pressure(store.as_ref(), journal.as_ref(), &args).unwrap();
            same(
                &format!("[{mode} {name}] drive_pressure {}", call["name"]),
                &ours,
                &call["result"],
            );
            // The system's own read, through the drive index.
            same(
                &format!("[{mode} {name}] system.drive_pressure {}", call["name"]),
                &system.drive_pressure(&args).unwrap(),
                &call["result"],
            );
        }
        for call in expected["partition"].as_array().unwrap() {
            let args = DriveScopes {
                scopes: scopes_of(&call["scopes"]),
            };
            let ours = open_drive_partition(store.as_ref(), journal.as_ref(), &args).unwrap();
            same(
                &format!("[{mode} {name}] open_drive_partition {}", call["name"]),
                &ours,
                &call["result"],
            );
            // The system's own read, through the drive index.
            same(
                &format!(
                    "[{mode} {name}] system.open_drive_partition {}",
                    call["name"]
                ),
                &system.open_drive_partition(&args).unwrap(),
                &call["result"],
            );
        }
        for call in expected["health"].as_array().unwrap() {
            let args = DriveScopes {
                scopes: scopes_of(&call["scopes"]),
            };
            let ours = cognition_health(store.as_ref(), journal.as_ref(), &args).unwrap();
            same(
                &format!("[{mode} {name}] cognition_health {}", call["name"]),
                &ours,
                &call["result"],
            );
            // The system's own read, through the drive index.
            same(
                &format!("[{mode} {name}] system.cognition_health {}", call["name"]),
                &system.cognition_health(&args).unwrap(),
                &call["result"],
            );
        }
        for call in expected["alive"].as_array().unwrap() {
            let args = AliveDrives {
                scopes: scopes_of(&call["scopes"]),
                k: call["k"].as_u64().unwrap() as usize,
            };
            let ours = system.alive_drives(&args).unwrap();
            same(
                &format!(
                    "[{mode} {name}] alive_drives {} k={}",
                    call["name"], call["k"]
                ),
                &ours,
                &call["result"],
            );
        }
        for call in expected["groups"].as_array().unwrap() {
            let items: Vec<DriveItem> = serde_json::from_value(call["items"].clone()).unwrap();
            let args = DriveGroups {
                items,
                min_shared_terms: call["min_shared_terms"].as_u64().unwrap() as usize,
            };
            same(
                &format!(
                    "[{mode} {name}] drive_groups {} m={}",
                    call["name"], call["min_shared_terms"]
                ),
                &drive_groups(&args),
                &call["result"],
            );
        }
        assert_eq!(
            journal.current_seq().unwrap(),
            before,
            "[{mode} {name}] the reads wrote"
        );
    }
}

#[test]
fn every_drive_read_answers_as_0_3_2_on_a_fresh_home() {
    differential("fresh", 7);
}

#[test]
fn every_drive_read_answers_as_0_3_2_on_a_home_it_lived_and_slept_in() {
    differential("lived", 11);
}
