//! The Stop fence through `am exec`, with real child processes: `--guard-file`
//! refuses every write while the file exists (error kind `Refused`, the
//! commit point in the message) and nothing lands; the `write_barrier` op
//! answers what it held; and writers in other processes on one home file
//! never commit after a host bumps its generation inside a write barrier.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Commit guard" and
//! "Write barrier"; docs/exec.md.

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::MemorySystem;
use am_triples::TripleQuery;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One `am exec` child answering line by line.
struct Exec {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Exec {
    fn start(home: &Path, guard_file: &Path) -> Exec {
        let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
            .args(["exec", "--home"])
            .arg(home)
            .arg("--guard-file")
            .arg(guard_file)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the am binary runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Exec {
            child,
            stdin,
            stdout,
        }
    }

    fn ask(&mut self, line: &Value) -> Value {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
    }

    fn finish(mut self) {
        drop(self.stdin);
        assert!(self.child.wait().unwrap().success());
    }
}

fn add(id: &str) -> Value {
    json!({"op": "add", "assertions": [
        {"assertion_id": id, "subject": "ex:pool", "predicate": "ex:state", "object": id,
         "scope": "life", "owner_id": "demo"}
    ]})
}

fn row_count(home: &Path) -> usize {
    let h = SqliteHome::open(home).unwrap();
    let memory_home = SqliteMemoryHome::open(&h, None, SqliteStoreOptions::default()).unwrap();
    let system = MemorySystem::over_home(Arc::new(memory_home));
    system
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .len()
}

#[test]
fn a_guard_file_refuses_every_write_while_it_exists_naming_the_commit_point() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let stop = dir.path().join("STOP");
    let mut exec = Exec::start(&home, &stop);
    assert!(exec.ask(&add("a1")).get("ok").is_some());
    std::fs::write(&stop, "").unwrap();
    let refused = exec.ask(&add("a2"));
    assert_eq!(refused["error"]["kind"], "Refused", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("store.add"), "{message}");
    assert!(message.contains("STOP"), "{message}");
    let bound = exec.ask(&json!({"op": "bind", "record_id": "a1", "scope": "life",
        "owner_id": "demo", "search_state": "indexed"}));
    assert_eq!(bound["error"]["kind"], "Refused", "{bound}");
    assert!(
        bound["error"]["message"]
            .as_str()
            .unwrap()
            .contains("journal"),
        "{bound}"
    );
    std::fs::remove_file(&stop).unwrap();
    assert!(exec.ask(&add("a3")).get("ok").is_some());
    exec.finish();
    assert_eq!(row_count(&home), 2, "the refused add wrote nothing");
}

#[test]
fn the_write_barrier_op_answers_the_locks_files_and_uncovered_it_held() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let mut exec = Exec::start(&home, &dir.path().join("STOP"));
    let answer = exec.ask(&json!({"op": "write_barrier", "timeout_s": 5}));
    let held = &answer["ok"];
    assert_eq!(
        held["files"],
        json!([home.display().to_string()]),
        "{answer}"
    );
    assert_eq!(held["locks"].as_array().unwrap().len(), 1, "{answer}");
    assert_eq!(held["uncovered"], json!([]));
    let bad = exec.ask(&json!({"op": "write_barrier", "timeout_s": -1}));
    assert_eq!(bad["error"]["kind"], "InvalidInput", "{bad}");
    // Released: writes go on.
    assert!(exec.ask(&add("a1")).get("ok").is_some());
    exec.finish();
}

/// Writers in two other processes add rows as fast as they can; the host
/// takes the barrier, raises its Stop (the guard file) inside it, and
/// releases. Every commit either landed before the block or is refused: the
/// rows counted inside the block are all there will ever be.
#[test]
fn writers_in_other_processes_never_commit_after_a_bump_inside_the_barrier() {
    for trial in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home.sqlite3");
        let stop = dir.path().join("STOP");
        // Create the home before the writers race to.
        Exec::start(&home, &stop).finish();
        let h = SqliteHome::open(&home).unwrap();
        let host = MemorySystem::over_home(Arc::new(
            SqliteMemoryHome::open(&h, None, SqliteStoreOptions::default()).unwrap(),
        ));
        let bumped = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let (home, stop, bumped) = (home.clone(), stop.clone(), bumped.clone());
                std::thread::spawn(move || {
                    let mut exec = Exec::start(&home, &stop);
                    let (mut landed, mut refused_after) = (0usize, 0usize);
                    let deadline = Instant::now() + Duration::from_secs(20);
                    for i in 0.. {
                        let after = bumped.load(Ordering::SeqCst);
                        let answer = exec.ask(&add(&format!("t{trial}-w{w}-{i}")));
                        if answer.get("ok").is_some() {
                            landed += 1;
                        } else {
                            assert_eq!(answer["error"]["kind"], "Refused", "{answer}");
                            if after {
                                refused_after += 1;
                            }
                        }
                        if refused_after >= 5 || Instant::now() > deadline {
                            break;
                        }
                    }
                    exec.finish();
                    (landed, refused_after)
                })
            })
            .collect();
        // Let the writers get going, then Stop.
        while row_count(&home) < 10 {
            std::thread::sleep(Duration::from_millis(5));
        }
        let in_block = {
            let hold = host.write_barrier(Some(Duration::from_secs(10))).unwrap();
            assert_eq!(hold.files.len(), 1);
            std::fs::write(&stop, "").unwrap();
            let count = host
                .query(&TripleQuery {
                    limit: 0,
                    ..TripleQuery::default()
                })
                .unwrap()
                .len();
            drop(hold);
            count
        };
        bumped.store(true, Ordering::SeqCst);
        let results: Vec<(usize, usize)> = writers.into_iter().map(|t| t.join().unwrap()).collect();
        let landed: usize = results.iter().map(|r| r.0).sum();
        assert!(
            results.iter().all(|r| r.1 >= 5),
            "trial {trial}: every writer was refused after the bump: {results:?}"
        );
        assert_eq!(
            row_count(&home),
            in_block,
            "trial {trial}: no commit landed after the block"
        );
        assert_eq!(landed, in_block, "trial {trial}: every ok answer is a row");
    }
}
