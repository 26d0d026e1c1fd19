//! The sleep cadence's completion rows (`memq_maintenance`, the table kit's
//! first table): `TaskQueue::record_maintenance` and `last_maintenance`, one
//! test per sentence, each on both stacks with identical answers.
//!
//! Spec: api.md "Sleep" (`records_since_maintenance`: "`sleep_pass` records
//! the completion (the queue's `memq_maintenance`, one row per pair and
//! kind)"; "`MemoryTaskQueue.last_maintenance(scopes=None, *, kind="night")`
//! reads the row (`{completed_at, seq, scope, owner_id, kind, detail}`)"),
//! "Commit guard" (`tasks.record_maintenance`).

mod common;

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::RecordKind;
use am_system::tasks::{LastMaintenance, MaintenanceKind, MaintenanceRow, RecordMaintenance};
use am_system::{MemoryRecordInput, MemorySystem, RememberMany, SystemOptions, TaskQueue};
use am_triples::{CommitGuard, ErrorKind};
use common::{Stack, memory_stack, sqlite_stack};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const T1: &str = "2026-03-01T22:00:00.000000+00:00";
const T2: &str = "2026-03-02T06:30:00.000000+00:00";

/// `memq_maintenance` as a home's queue created it before the table kit
/// (the queue's schema text of 2026-12).
const LEGACY_DDL: &str = "
CREATE TABLE IF NOT EXISTS memq_maintenance (
    scope TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    completed_at TEXT NOT NULL,
    seq INTEGER NOT NULL,
    detail_json TEXT NOT NULL,
    PRIMARY KEY (scope, owner_id, kind)
);
";

fn queued() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        ..SystemOptions::default()
    }
}

/// Run `check` on both stacks and require identical answers.
fn both(check: impl Fn(&Stack, TaskQueue<'_>) -> Value) -> Value {
    let mem = memory_stack(queued());
    let sql = sqlite_stack(queued());
    let a = check(&mem, mem.system.tasks().unwrap());
    let b = check(&sql, sql.system.tasks().unwrap());
    assert_eq!(a, b, "the two stacks answered differently");
    a
}

fn night(scopes: &[(&str, &str)], at: &str, detail: Value) -> RecordMaintenance {
    RecordMaintenance {
        now: Some(at.parse().unwrap()),
        detail,
        ..RecordMaintenance::new(scopes)
    }
}

fn last(q: TaskQueue<'_>, scopes: Option<&[(&str, &str)]>, kind: MaintenanceKind) -> Value {
    json!(
        q.last_maintenance(&LastMaintenance {
            scopes: scopes.map(|s| s
                .iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect()),
            kind,
        })
        .unwrap()
    )
}

#[test]
fn record_maintenance_writes_one_row_per_pair_with_completed_at_the_journal_seq_and_detail() {
    both(|s, q| {
        s.system
            .remember_many(&RememberMany::new(
                vec![MemoryRecordInput::new(
                    RecordKind::Episode,
                    "Pool",
                    "The pool ran dry.",
                )],
                "life",
                "ada",
                "k1",
            ))
            .unwrap();
        let seq = s.system.current_seq().unwrap();
        assert_eq!(seq, 1);
        let rows = q
            .record_maintenance(&night(
                &[("life", "ada"), ("work", "ada")],
                T1,
                json!({"phases": ["resolution", "maintenance", "world_models", "dream"]}),
            ))
            .unwrap();
        assert_eq!(rows.len(), 2);
        for (r, scope) in rows.iter().zip(["life", "work"]) {
            assert_eq!(r.scope, scope);
            assert_eq!(r.owner_id, "ada");
            assert_eq!(r.kind, MaintenanceKind::Night);
            assert_eq!(r.completed_at, T1);
            assert_eq!(r.seq, seq);
        }
        // The spec's keys, in its order.
        let read = last(q, Some(&[("work", "ada")]), MaintenanceKind::Night);
        assert_eq!(
            read.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["completed_at", "seq", "scope", "owner_id", "kind", "detail"]
        );
        assert_eq!(read, json!(rows[1]));
        json!(rows)
    });
}

#[test]
fn last_maintenance_answers_the_newest_row_of_the_kind_over_the_pairs_or_none() {
    both(|_, q| {
        assert_eq!(last(q, None, MaintenanceKind::Night), Value::Null);
        q.record_maintenance(&night(&[("life", "ada"), ("life", "bo")], T1, json!({})))
            .unwrap();
        q.record_maintenance(&night(&[("life", "bo")], T2, json!({"second": true})))
            .unwrap();
        // Any pair: bo's second night; ada alone: the first.
        let any = last(q, None, MaintenanceKind::Night);
        assert_eq!(
            (&any["owner_id"], &any["completed_at"]),
            (&json!("bo"), &json!(T2))
        );
        let ada = last(q, Some(&[("life", "ada")]), MaintenanceKind::Night);
        assert_eq!(ada["completed_at"], T1);
        let pairs = last(
            q,
            Some(&[("life", "ada"), ("life", "bo")]),
            MaintenanceKind::Night,
        );
        assert_eq!(pairs, any);
        assert_eq!(last(q, Some(&[]), MaintenanceKind::Night), Value::Null);
        assert_eq!(
            last(q, Some(&[("life", "cy")]), MaintenanceKind::Night),
            Value::Null
        );
        // A cycle is its own row and does not move the night's.
        assert_eq!(last(q, None, MaintenanceKind::Cycle), Value::Null);
        let cycle = RecordMaintenance {
            kind: MaintenanceKind::Cycle,
            ..night(&[("life", "ada")], "2026-03-03T12:00:00Z", json!({}))
        };
        q.record_maintenance(&cycle).unwrap();
        assert_eq!(last(q, None, MaintenanceKind::Night), any);
        let c = last(q, None, MaintenanceKind::Cycle);
        assert_eq!(
            (&c["kind"], &c["owner_id"]),
            (&json!("cycle"), &json!("ada"))
        );
        json!([any, ada, c])
    });
}

#[test]
fn a_new_record_replaces_the_pairs_row_of_that_kind_whatever_its_time() {
    both(|_, q| {
        q.record_maintenance(&night(&[("life", "ada")], T2, json!({"n": 1})))
            .unwrap();
        q.record_maintenance(&night(&[("life", "ada")], T1, json!({"n": 2})))
            .unwrap();
        let read = last(q, Some(&[("life", "ada")]), MaintenanceKind::Night);
        assert_eq!(
            (&read["completed_at"], &read["detail"]),
            (&json!(T1), &json!({"n": 2}))
        );
        read
    });
}

#[test]
fn a_pair_is_keyed_as_the_store_keys_it_scope_lowercased_owner_trimmed_duplicates_once() {
    both(|_, q| {
        let rows = q
            .record_maintenance(&night(
                &[(" Life ", " ada "), ("life", "ada"), ("life", "")],
                T1,
                json!({}),
            ))
            .unwrap();
        let pairs: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.scope.as_str(), r.owner_id.as_str()))
            .collect();
        assert_eq!(pairs, [("life", "ada"), ("life", "")]);
        let read = last(q, Some(&[("LIFE", "ada ")]), MaintenanceKind::Night);
        assert_eq!(read["owner_id"], "ada");
        json!(rows)
    });
}

#[test]
fn record_maintenance_refuses_no_pairs_a_blank_scope_and_a_detail_that_is_not_an_object() {
    both(|s, q| {
        let before = common::written(s);
        for (bad, needle) in [
            (night(&[], T1, json!({})), "non-empty"),
            (night(&[(" ", "ada")], T1, json!({})), "scope"),
            (night(&[("life", "ada")], T1, json!([1])), "detail"),
            (night(&[("life", "ada")], T1, json!("done")), "detail"),
        ] {
            common::assert_refused(
                s,
                &before,
                q.record_maintenance(&bad),
                ErrorKind::InvalidInput,
                &[needle],
            );
        }
        let err = q
            .last_maintenance(&LastMaintenance {
                scopes: Some(vec![(" ".into(), "ada".into())]),
                ..LastMaintenance::default()
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(last(q, None, MaintenanceKind::Night), Value::Null);
        Value::Null
    });
}

#[test]
fn record_maintenance_commits_at_tasks_record_maintenance_and_a_refusal_writes_nothing() {
    let calls: Arc<Mutex<Vec<String>>> = Arc::default();
    let refuse: Arc<Mutex<bool>> = Arc::default();
    let make = || {
        let (c, r) = (calls.clone(), refuse.clone());
        SystemOptions {
            task_queue: true,
            commit_guard: Some(CommitGuard::new(move |p| {
                c.lock().unwrap().push(p.to_owned());
                if *r.lock().unwrap() {
                    Err("stopped".into())
                } else {
                    Ok(())
                }
            })),
            ..SystemOptions::default()
        }
    };
    for s in [memory_stack(make()), sqlite_stack(make())] {
        let q = s.system.tasks().unwrap();
        let take = || std::mem::take(&mut *calls.lock().unwrap());
        take();
        q.record_maintenance(&night(&[("life", "ada")], T1, json!({})))
            .unwrap();
        assert_eq!(take(), ["tasks.record_maintenance"], "{}", s.name);
        let before = common::written(&s);
        *refuse.lock().unwrap() = true;
        let err = q
            .record_maintenance(&night(&[("life", "ada"), ("life", "bo")], T2, json!({})))
            .unwrap_err();
        *refuse.lock().unwrap() = false;
        assert_eq!(err.kind(), ErrorKind::Refused, "{}", s.name);
        assert_eq!(common::written(&s), before);
        let kept = last(q, None, MaintenanceKind::Night);
        assert_eq!(
            (&kept["owner_id"], &kept["completed_at"]),
            (&json!("ada"), &json!(T1))
        );
        // Reads call no guard.
        take();
        last(q, None, MaintenanceKind::Night);
        assert!(take().is_empty(), "{}", s.name);
    }
}

/// A SQLite home with its queue at `path`, and a system over it.
fn sqlite_home(path: &Path) -> MemorySystem {
    let home = SqliteHome::open(path).unwrap();
    let memory_home =
        Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    MemorySystem::over_home_with_options(memory_home, queued()).unwrap()
}

fn schema_sql(path: &Path) -> Option<String> {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'memq_maintenance'",
            [],
            |r| r.get(0),
        )
        .ok()
}

fn file_bytes(path: &PathBuf) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(path).unwrap(),
        std::fs::read(format!("{}-wal", path.display())).unwrap_or_default(),
    )
}

#[test]
fn the_kits_memq_maintenance_is_the_table_a_queue_created_before_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (legacy, kit) = (
        dir.path().join("legacy.sqlite3"),
        dir.path().join("kit.sqlite3"),
    );
    rusqlite::Connection::open(&legacy)
        .unwrap()
        .execute_batch(LEGACY_DDL)
        .unwrap();
    let system = sqlite_home(&kit);
    // A home whose queue was opened has no memq_maintenance until a night
    // is recorded.
    assert_eq!(schema_sql(&kit), None);
    system
        .tasks()
        .unwrap()
        .record_maintenance(&night(&[("life", "ada")], T1, json!({})))
        .unwrap();
    assert!(schema_sql(&kit).is_some());
    assert_eq!(schema_sql(&kit), schema_sql(&legacy));
    assert_eq!(
        format!(
            "{}\n",
            am_backend_sqlite::tables::create_sql(&am_system::tasks::MAINTENANCE_TABLE)
        ),
        LEGACY_DDL.trim_start().replacen(";\n", "\n", 1)
    );
}

#[test]
fn a_home_written_before_reads_its_memq_maintenance_empty_or_absent_and_the_read_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Absent: the queue's tables, no memq_maintenance.
    let absent = dir.path().join("absent.sqlite3");
    drop(sqlite_home(&absent));
    let before = file_bytes(&absent);
    let system = sqlite_home(&absent);
    assert_eq!(
        last(system.tasks().unwrap(), None, MaintenanceKind::Night),
        Value::Null
    );
    drop(system);
    assert_eq!(file_bytes(&absent), before, "a read wrote");
    assert_eq!(schema_sql(&absent), None, "a read created the table");
    // Empty, then holding a row a writer of the legacy table put there.
    let legacy = dir.path().join("legacy.sqlite3");
    drop(sqlite_home(&legacy));
    let c = rusqlite::Connection::open(&legacy).unwrap();
    c.execute_batch(LEGACY_DDL).unwrap();
    let system = sqlite_home(&legacy);
    let q = system.tasks().unwrap();
    assert_eq!(last(q, None, MaintenanceKind::Night), Value::Null);
    c.execute(
        "INSERT INTO memq_maintenance VALUES ('life', 'ada', 'night', ?1, 7, '{\"by\": \"python\"}')",
        [T1],
    )
    .unwrap();
    let row: MaintenanceRow =
        serde_json::from_value(last(q, None, MaintenanceKind::Night)).unwrap();
    assert_eq!(
        row,
        MaintenanceRow {
            completed_at: T1.into(),
            seq: 7,
            scope: "life".into(),
            owner_id: "ada".into(),
            kind: MaintenanceKind::Night,
            detail: json!({"by": "python"}),
        }
    );
    // A new record replaces it in place.
    q.record_maintenance(&night(&[("life", "ada")], T2, json!({})))
        .unwrap();
    let n: i64 = c
        .query_row("SELECT COUNT(*) FROM memq_maintenance", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    assert_eq!(last(q, None, MaintenanceKind::Night)["completed_at"], T2);
}
