//! The write barrier on three stacks (the in-memory pair, the SQLite home,
//! and a SQLite store and journal in two files), with real threads: a commit whose guard passed lands before the block, a
//! writer that starts during the block is refused by its guard, the barrier
//! times out naming the lock or file a writer still holds, re-enters within
//! one thread, and refuses to be taken inside a write transaction of its own
//! thread.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Write barrier".

mod common;

use am_system::RecordKind;
use am_system::{MemoryRecordInput, MemorySystem, RememberMany, SystemOptions};
use am_triples::{CommitGuard, ErrorKind, TripleQuery};
use common::{Stack, memory_stack, sqlite_stack, two_files_stack};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

#[derive(Debug)]
struct Stopped(u64);

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped at generation {}", self.0)
    }
}

impl std::error::Error for Stopped {}

/// The host's lifecycle fence: writes pass while the generation is 0. A
/// guard call may announce that it passed and then linger (keeping its
/// transaction open), as a slow commit would.
#[derive(Default)]
struct Fence {
    generation: AtomicU64,
    /// (thread name, generation seen) of every guard call.
    seen: Mutex<Vec<(String, u64)>>,
    passed: Mutex<Option<mpsc::Sender<()>>>,
    linger: Mutex<Duration>,
    /// When set, the guard takes a barrier itself (and records the error).
    barrier_from_guard: AtomicBool,
    stack: OnceLock<Weak<Stack>>,
    barrier_error: Mutex<Option<ErrorKind>>,
}

impl Fence {
    fn guard(self: &Arc<Self>) -> CommitGuard {
        let fence = self.clone();
        CommitGuard::new(move |_point| {
            let g = fence.generation.load(Ordering::SeqCst);
            let me = std::thread::current().name().unwrap_or("?").to_owned();
            fence.seen.lock().unwrap().push((me, g));
            if fence.barrier_from_guard.load(Ordering::SeqCst) {
                let stack = fence.stack.get().and_then(Weak::upgrade).unwrap();
                let err = stack
                    .system
                    .write_barrier(Some(Duration::from_secs(1)))
                    .unwrap_err();
                *fence.barrier_error.lock().unwrap() = Some(err.kind());
            }
            if g != 0 {
                return Err(Box::new(Stopped(g)));
            }
            if let Some(tx) = fence.passed.lock().unwrap().take() {
                tx.send(()).unwrap();
                std::thread::sleep(*fence.linger.lock().unwrap());
            }
            Ok(())
        })
    }
}

fn stacks(fence: &Arc<Fence>) -> Vec<(Stack, Arc<Fence>)> {
    let make = |f: &Arc<Fence>| SystemOptions {
        commit_guard: Some(f.guard()),
        ..SystemOptions::default()
    };
    let a = Arc::new(Fence::default());
    let _ = fence;
    let b = Arc::new(Fence::default());
    let c = Arc::new(Fence::default());
    vec![
        (memory_stack(make(&a)), a),
        (sqlite_stack(make(&b)), b),
        (two_files_stack(make(&c)), c),
    ]
}

fn form(system: &MemorySystem, key: &str) -> am_system::Result<Vec<String>> {
    system
        .remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(
                RecordKind::Lesson,
                key,
                "Connection pools exhaust under load.",
            )],
            "session",
            "s1",
            key,
        ))
        .map(|w| w.value)
}

fn rows(s: &Stack) -> usize {
    s.store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .len()
}

/// Run `f` on a named thread over a shared stack's system.
fn spawn<T: Send + 'static>(
    name: &str,
    stack: &Arc<Stack>,
    f: impl FnOnce(&MemorySystem) -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    let stack = stack.clone();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || f(&stack.system))
        .unwrap()
}

#[test]
fn a_commit_whose_guard_passed_lands_before_the_block_and_a_later_writer_is_refused() {
    for (stack, fence) in stacks(&Arc::new(Fence::default())) {
        let s = Arc::new(stack);
        let system = &s.system;
        let (tx, rx) = mpsc::channel();
        *fence.passed.lock().unwrap() = Some(tx);
        *fence.linger.lock().unwrap() = Duration::from_millis(200);
        let first = spawn("first", &s, |sys| form(sys, "first"));
        // The first writer's guard has passed; its COMMIT has not happened yet.
        rx.recv().unwrap();
        let hold = system.write_barrier(Some(Duration::from_secs(10))).unwrap();
        // The block: the commit that passed its guard has landed.
        assert_eq!(
            rows(&s),
            1,
            "{}: the passed commit landed before the block",
            s.name
        );
        fence.generation.store(1, Ordering::SeqCst);
        let second = spawn("second", &s, |sys| form(sys, "second"));
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(rows(&s), 1, "{}: nothing commits during the block", s.name);
        drop(hold);
        first.join().unwrap().unwrap();
        let err = second.join().unwrap().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Refused, "{}: {err}", s.name);
        assert_eq!(
            err.guard_refusal()
                .unwrap()
                .source_error()
                .downcast_ref::<Stopped>()
                .unwrap()
                .0,
            1
        );
        assert_eq!(rows(&s), 1, "{}: the refused writer wrote nothing", s.name);
        let seen = fence.seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            [("first".to_owned(), 0), ("second".to_owned(), 1)],
            "{}: the later writer called its guard after the bump",
            s.name
        );
    }
}

#[test]
fn the_barrier_names_what_it_holds_and_writes_nothing() {
    for (stack, _fence) in stacks(&Arc::new(Fence::default())) {
        form(&stack.system, "k").unwrap();
        let seq = stack.journal.current_seq().unwrap();
        let hold = stack.system.write_barrier(None).unwrap();
        assert!(hold.uncovered.is_empty(), "{}", stack.name);
        match stack.name {
            "sqlite" => {
                assert_eq!(hold.locks.len(), 1, "{:?}", hold.locks);
                assert!(hold.locks[0].contains("home.sqlite3"), "{:?}", hold.locks);
                assert_eq!(hold.files.len(), 1);
                assert!(hold.files[0].ends_with("home.sqlite3"), "{:?}", hold.files);
            }
            "two_files" => {
                // The writers' nesting order: the store's home, then the
                // journal's; then the files in the same order.
                assert_eq!(hold.locks.len(), 2, "{:?}", hold.locks);
                assert!(hold.locks[0].contains("store.sqlite3"), "{:?}", hold.locks);
                assert!(
                    hold.locks[1].contains("journal.sqlite3"),
                    "{:?}",
                    hold.locks
                );
                assert_eq!(hold.files.len(), 2, "{:?}", hold.files);
                assert!(hold.files[0].ends_with("store.sqlite3"), "{:?}", hold.files);
                assert!(
                    hold.files[1].ends_with("journal.sqlite3"),
                    "{:?}",
                    hold.files
                );
            }
            _ => {
                assert_eq!(
                    hold.locks,
                    [
                        "the write lock of an InMemoryTripleStore",
                        "the write lock of an InMemoryJournal"
                    ]
                );
                assert!(hold.files.is_empty());
            }
        }
        drop(hold);
        assert_eq!(stack.journal.current_seq().unwrap(), seq);
        assert_eq!(rows(&stack), 1);
        form(&stack.system, "after").unwrap();
        assert_eq!(
            rows(&stack),
            2,
            "{}: writes resume after the block",
            stack.name
        );
    }
}

#[test]
fn the_barrier_times_out_naming_the_lock_a_writer_still_holds() {
    for (stack, fence) in stacks(&Arc::new(Fence::default())) {
        let s = Arc::new(stack);
        let system = &s.system;
        let (tx, rx) = mpsc::channel();
        *fence.passed.lock().unwrap() = Some(tx);
        *fence.linger.lock().unwrap() = Duration::from_millis(600);
        let writer = spawn("slow-writer", &s, |sys| form(sys, "slow"));
        rx.recv().unwrap();
        let err = system
            .write_barrier(Some(Duration::from_millis(50)))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{}: {err}", s.name);
        let msg = err.to_string();
        assert!(msg.contains("write lock"), "{}: {msg}", s.name);
        assert!(
            msg.contains("slow-writer"),
            "{}: names the holder: {msg}",
            s.name
        );
        writer.join().unwrap().unwrap();
        // Everything acquired was released: the barrier and writes work.
        drop(system.write_barrier(Some(Duration::from_secs(5))).unwrap());
        form(system, "after").unwrap();
        assert_eq!(rows(&s), 2);
    }
}

#[test]
fn the_sqlite_barrier_times_out_naming_the_file_another_connection_holds() {
    let s = sqlite_stack(SystemOptions::default());
    form(&s.system, "k").unwrap();
    let hold = s.system.write_barrier(None).unwrap();
    let path = std::path::PathBuf::from(&hold.files[0]);
    drop(hold);
    // Another connection (as another process would) holds the file's write lock.
    let other_home = am_backend_sqlite::SqliteHome::open(&path).unwrap();
    let conn = other_home.conn();
    let other = conn.lock().unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let err = s
        .system
        .write_barrier(Some(Duration::from_millis(100)))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert!(err.to_string().contains("home.sqlite3"), "{err}");
    other.execute_batch("ROLLBACK").unwrap();
    drop(other);
    drop(
        s.system
            .write_barrier(Some(Duration::from_secs(5)))
            .unwrap(),
    );
}

/// Two files: the barrier waits for each file's writers; another connection
/// holding the journal's file (as another process appending would) is named.
#[test]
fn the_two_files_barrier_times_out_naming_the_journal_file_another_connection_holds() {
    let s = two_files_stack(SystemOptions::default());
    form(&s.system, "k").unwrap();
    let hold = s.system.write_barrier(None).unwrap();
    let journal_path = std::path::PathBuf::from(&hold.files[1]);
    drop(hold);
    let other_home = am_backend_sqlite::SqliteHome::open(&journal_path).unwrap();
    let conn = other_home.conn();
    let other = conn.lock().unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let seq = s.journal.current_seq().unwrap();
    let err = s
        .system
        .write_barrier(Some(Duration::from_millis(100)))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert!(err.to_string().contains("journal.sqlite3"), "{err}");
    // Everything acquired (both locks, the store's file) was released: the
    // store's file takes a write while the journal's is still held elsewhere.
    s.store
        .add(&[am_triples::TripleAssertion::new("ex:a", "ex:b", "ex:c").with_id("x1")])
        .unwrap();
    other.execute_batch("ROLLBACK").unwrap();
    drop(other);
    assert_eq!(s.journal.current_seq().unwrap(), seq);
    drop(
        s.system
            .write_barrier(Some(Duration::from_secs(5)))
            .unwrap(),
    );
}

#[test]
fn the_barrier_is_re_entrant_within_one_thread() {
    for (stack, _fence) in stacks(&Arc::new(Fence::default())) {
        let outer = stack
            .system
            .write_barrier(Some(Duration::from_secs(1)))
            .unwrap();
        let inner = stack
            .system
            .write_barrier(Some(Duration::from_secs(1)))
            .unwrap();
        assert_eq!(inner.locks, outer.locks, "{}", stack.name);
        drop(inner);
        drop(outer);
        form(&stack.system, "after").unwrap();
    }
}

#[test]
fn a_barrier_taken_inside_a_write_transaction_of_its_own_thread_is_an_error() {
    for (stack, fence) in stacks(&Arc::new(Fence::default())) {
        let s = Arc::new(stack);
        let system = &s.system;
        fence.stack.set(Arc::downgrade(&s)).unwrap();
        fence.barrier_from_guard.store(true, Ordering::SeqCst);
        form(system, "k").unwrap();
        assert_eq!(
            *fence.barrier_error.lock().unwrap(),
            Some(ErrorKind::InvalidInput),
            "{}",
            s.name
        );
    }
}
