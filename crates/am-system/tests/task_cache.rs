//! The task queue's in-process live set (issue 20's speed: `select_for_window`
//! reads it instead of decoding every live row) answers exactly as the rows
//! do: after this handle's writes, after a rolled-back transaction, after
//! another handle, another connection or another process wrote the same
//! home, and after plain SQL changed a row. Each check compares the warm
//! handle's answers with a cold handle's (a new connection, whose set is
//! built from the file) and, for the in-memory pair, with what was written.
//!
//! Spec: api.md "The memory task queue" (`select_for_window` is a pure read
//! of the queue as it stands).

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, InMemoryTaskQueue, PairHome, TaskKind, TaskStatus};
use am_system::tasks::{Ack, Claim, Enqueue, ListTasks, SelectForWindow, WindowSelection};
use am_system::{MemorySystem, SystemOptions};
use am_triples::{CommitGuard, CommitPoint, InMemoryTripleStore};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const NOW: &str = "2026-03-01T12:00:00.000000+00:00";
/// The child-process writer of `another_process_writing_between_selects_is_seen`.
const HELPER_ENV: &str = "AM_TASK_CACHE_HELPER_HOME";

fn options(guard: Option<CommitGuard>) -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(am_triples::fixed_clock(
            am_triples::Timestamp::parse(NOW).unwrap(),
        )),
        commit_guard: guard,
        ..SystemOptions::default()
    }
}

/// A system over the SQLite home at `path` (its own connection).
fn open(path: &Path, guard: Option<CommitGuard>) -> MemorySystem {
    let home = SqliteHome::open(path).unwrap();
    let mh = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home_with_options(Arc::new(mh), options(guard)).unwrap()
}

fn memory(guard: Option<CommitGuard>) -> (MemorySystem, Arc<InMemoryTaskQueue>) {
    let queue = Arc::new(InMemoryTaskQueue::new());
    let home = PairHome::with_task_queue(
        Arc::new(InMemoryTripleStore::new(None)),
        Arc::new(InMemoryJournal::new()),
        queue.clone(),
    );
    (
        MemorySystem::over_home_with_options(Arc::new(home), options(guard)).unwrap(),
        queue,
    )
}

fn task(prefix: &str, i: usize) -> Enqueue {
    let mut e = Enqueue::new(
        TaskKind::DigestRewrite,
        &format!("ex:{prefix}-{i}"),
        ("session", "s1"),
        &format!("ex:{prefix}-{i}@v0"),
        ((i % 10) as f64) / 10.0,
        "backfill",
    );
    e.cost_hint = Some(5.0);
    e
}

fn tasks(prefix: &str, n: usize) -> Vec<Enqueue> {
    (0..n).map(|i| task(prefix, i)).collect()
}

fn select(s: &MemorySystem) -> Value {
    let sel: WindowSelection = s
        .tasks()
        .unwrap()
        .select_for_window(&SelectForWindow::new(60.0))
        .unwrap();
    serde_json::to_value(sel).unwrap()
}

fn all(s: &MemorySystem) -> Value {
    serde_json::to_value(s.tasks().unwrap().tasks(&ListTasks::default()).unwrap()).unwrap()
}

fn selected_ids(v: &Value) -> Vec<String> {
    v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task_id"].as_str().unwrap().to_owned())
        .collect()
}

/// The warm handle answers as a cold one over the same file.
fn agrees_with_a_cold_handle(warm: &MemorySystem, path: &Path) {
    let cold = open(path, None);
    assert_eq!(select(warm), select(&cold), "select_for_window");
    assert_eq!(all(warm), all(&cold), "tasks");
}

fn claim_and_ack(s: &MemorySystem, ids: &[String], holder: &str) {
    let q = s.tasks().unwrap();
    let claimed = q.claim(&Claim::new(ids.to_vec(), holder)).unwrap().claimed;
    assert_eq!(claimed.len(), ids.len());
    for id in ids.iter().take(2) {
        assert!(
            q.ack(&Ack {
                task_id: id.clone(),
                holder: holder.into(),
                result: json!({"outcome": "done", "seconds": 2.0}),
                now: None,
            })
            .unwrap()
            .acked
        );
    }
}

#[test]
fn select_after_this_handles_own_writes_answers_as_the_rows_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let s = open(&path, None);
    let q = s.tasks().unwrap();
    q.enqueue_many(&tasks("a", 30)).unwrap();
    let first = select(&s);
    agrees_with_a_cold_handle(&s, &path);
    let ids = selected_ids(&first);
    claim_and_ack(&s, &ids[..4], "d1");
    agrees_with_a_cold_handle(&s, &path);
    // A newer basis supersedes an older live task: it leaves the live set.
    let mut newer = task("a", 5);
    newer.basis = "ex:a-5@v1".into();
    newer.basis_version = 1;
    assert_eq!(q.enqueue(&newer).unwrap().superseded.len(), 1);
    agrees_with_a_cold_handle(&s, &path);
    assert_ne!(select(&s), first);
}

#[test]
fn a_second_handle_writing_between_selects_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let a = open(&path, None);
    let b = open(&path, None);
    a.tasks().unwrap().enqueue_many(&tasks("a", 20)).unwrap();
    let before = select(&a);
    // The other connection enqueues, claims and acks between two selects.
    b.tasks().unwrap().enqueue_many(&tasks("b", 15)).unwrap();
    let ids = selected_ids(&select(&b));
    claim_and_ack(&b, &ids[..3], "d2");
    let after = select(&a);
    assert_ne!(before, after, "the warm handle missed the other's writes");
    agrees_with_a_cold_handle(&a, &path);
    // And the other way round, after this handle writes again.
    a.tasks().unwrap().enqueue_many(&tasks("c", 5)).unwrap();
    agrees_with_a_cold_handle(&b, &path);
    agrees_with_a_cold_handle(&a, &path);
}

#[test]
fn a_second_memory_home_on_one_connection_writing_is_seen() {
    // Two systems over ONE SqliteHome connection: the writes of one do not
    // move the other's `data_version`; the queue generation still moves.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let sys = || {
        let mh = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
        MemorySystem::over_home_with_options(Arc::new(mh), options(None)).unwrap()
    };
    let (a, b) = (sys(), sys());
    a.tasks().unwrap().enqueue_many(&tasks("a", 10)).unwrap();
    let before = select(&a);
    b.tasks().unwrap().enqueue_many(&tasks("b", 10)).unwrap();
    assert_ne!(select(&a), before);
    assert_eq!(select(&a), select(&b));
    agrees_with_a_cold_handle(&a, &path);
}

#[test]
fn a_rolled_back_queue_write_leaves_the_live_set_as_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let refuse = Arc::new(AtomicBool::new(false));
    let r = refuse.clone();
    // A commit guard refusing at the enqueue's commit point: the rows were
    // written inside the transaction, then rolled back.
    let guard = CommitGuard::new(move |point| {
        if r.load(Ordering::SeqCst) && point == CommitPoint::TasksEnqueue.as_str() {
            Err("refused for the test".into())
        } else {
            Ok(())
        }
    });
    let s = open(&path, Some(guard));
    let q = s.tasks().unwrap();
    q.enqueue_many(&tasks("a", 10)).unwrap();
    let before = select(&s);
    refuse.store(true, Ordering::SeqCst);
    assert!(q.enqueue_many(&tasks("x", 10)).is_err());
    refuse.store(false, Ordering::SeqCst);
    assert_eq!(
        select(&s),
        before,
        "a rolled-back enqueue is in the live set"
    );
    agrees_with_a_cold_handle(&s, &path);
    // The same on the in-memory pair, whose queue rolls back by undo log.
    let r = Arc::new(AtomicBool::new(false));
    let r2 = r.clone();
    let (m, queue) = memory(Some(CommitGuard::new(move |point| {
        if r2.load(Ordering::SeqCst) && point == CommitPoint::TasksEnqueue.as_str() {
            Err("refused for the test".into())
        } else {
            Ok(())
        }
    })));
    let mq = m.tasks().unwrap();
    mq.enqueue_many(&tasks("a", 10)).unwrap();
    let mem_before = select(&m);
    assert_eq!(mem_before, before, "the two stacks answered differently");
    r.store(true, Ordering::SeqCst);
    assert!(mq.enqueue_many(&tasks("x", 10)).is_err());
    r.store(false, Ordering::SeqCst);
    assert_eq!(select(&m), mem_before);
    // A fault on the third row write: the first two are undone.
    queue.inject_put_fault(3);
    assert!(mq.enqueue_many(&tasks("y", 5)).is_err());
    assert_eq!(select(&m), mem_before);
    assert_eq!(all(&m).as_array().unwrap().len(), 10);
    // And the queue still takes writes, superseding included.
    mq.enqueue_many(&tasks("y", 5)).unwrap();
    q.enqueue_many(&tasks("y", 5)).unwrap();
    assert_eq!(select(&m), select(&s));
}

#[test]
fn plain_sql_changing_a_task_row_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let s = open(&path, None);
    s.tasks().unwrap().enqueue_many(&tasks("a", 10)).unwrap();
    let before = select(&s);
    let id = selected_ids(&before)[0].clone();
    // Settle one task behind the library's back (the trigger still counts).
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute(
        "UPDATE memq_tasks SET status = 'skipped', \
         task_json = json_set(task_json, '$.status', 'skipped') WHERE task_id = ?1",
        [&id],
    )
    .unwrap();
    drop(c);
    let after = select(&s);
    assert!(!selected_ids(&after).contains(&id));
    assert_eq!(
        s.tasks().unwrap().task(&id).unwrap().unwrap().status,
        TaskStatus::Skipped
    );
    agrees_with_a_cold_handle(&s, &path);
}

/// The writer of the next test, run as a child process (this test binary
/// with `HELPER_ENV` set); a no-op in an ordinary run.
#[test]
fn helper_writer_process() {
    let Ok(path) = std::env::var(HELPER_ENV) else {
        return;
    };
    let s = open(Path::new(&path), None);
    let q = s.tasks().unwrap();
    q.enqueue_many(&tasks("p", 12)).unwrap();
    let ids = selected_ids(&select(&s));
    claim_and_ack(&s, &ids[..3], "child");
}

#[test]
fn another_process_writing_between_selects_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let s = open(&path, None);
    s.tasks().unwrap().enqueue_many(&tasks("a", 10)).unwrap();
    let before = select(&s);
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["helper_writer_process", "--exact", "--test-threads", "1"])
        .env(HELPER_ENV, &path)
        .status()
        .unwrap();
    assert!(status.success(), "the writer process failed");
    let after = select(&s);
    assert_ne!(before, after, "the warm handle missed the other process");
    assert_eq!(all(&s).as_array().unwrap().len(), 22);
    agrees_with_a_cold_handle(&s, &path);
}

#[test]
fn the_in_memory_live_index_answers_as_the_sqlite_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let s = open(&path, None);
    let (m, _) = memory(None);
    for sys in [&s, &m] {
        let q = sys.tasks().unwrap();
        q.enqueue_many(&tasks("a", 25)).unwrap();
        let ids = selected_ids(&select(sys));
        claim_and_ack(sys, &ids[..5], "d");
        let mut newer = task("a", 7);
        newer.basis = "ex:a-7@v1".into();
        newer.basis_version = 1;
        q.enqueue(&newer).unwrap();
        q.supersede_target("ex:a-9", "gone").unwrap();
    }
    assert_eq!(select(&s), select(&m));
    assert_eq!(all(&s), all(&m));
    agrees_with_a_cold_handle(&s, &path);
}
