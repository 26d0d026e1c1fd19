//! The replay stream's live tail (api.md "Replay stream": "poll with your last
//! seen seq as `since_seq`"), with real processes: an `am exec` writer child
//! forms, recalls and commits in a SQLite home while the reader polls it;
//! `am replay --follow` tails a home and stops cleanly on SIGINT and when its
//! stdout closes; `am replay` and `am explain` read without writing.

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::MemoryJournal;
use am_system::observe::replay::{ExportReplay, export_replay};
use am_triples::TripleStore;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn am() -> Command {
    Command::new(env!("CARGO_BIN_EXE_am"))
}

/// A writer script: `batches` formations, each followed by a journaled recall
/// and a commit of what it found.
fn script(batches: usize, tag: &str) -> String {
    let mut lines = Vec::new();
    for i in 0..batches {
        lines.push(json!({"op": "remember_many", "records": [
            {"kind": "episode", "title": format!("Pool {tag} {i}"), "digest": format!("The pool {tag} changed on day {i}."), "keywords": ["pool"]},
            {"kind": "lesson", "title": format!("Lesson {tag} {i}"), "digest": format!("Check the pool {tag} on day {i}."), "edges": [["derived_from", "local:0"]]}],
            "scope": "life", "owner_id": "demo", "idempotency_key": format!("{tag}-{i}")}));
        lines.push(
            json!({"op": "reconstruct", "stimulus": {"cue_text": "pool"},
            "scopes": [["life", "demo"]], "trace_id": format!("{tag}-t{i}")}),
        );
    }
    lines
        .iter()
        .map(|l| l.to_string() + "\n")
        .collect::<String>()
}

fn spawn_writer(home: &Path, batches: usize, tag: &str) -> Child {
    let mut child = am()
        .args(["exec", "--home"])
        .arg(home)
        .args(["--embedder", "none", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let body = script(batches, tag);
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let _ = stdin.write_all(body.as_bytes());
    });
    child
}

fn write_all(home: &Path, batches: usize, tag: &str) {
    let out = spawn_writer(home, batches, tag).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the writer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

struct Reader {
    _home: SqliteHome,
    store: SQLiteTripleStore,
    journal: SQLiteJournal,
}

fn reader(path: &Path) -> Reader {
    let home = SqliteHome::open(path).unwrap();
    let store = SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default()).unwrap();
    let journal = SQLiteJournal::open(&home).unwrap();
    Reader {
        _home: home,
        store,
        journal,
    }
}

fn seqs_since(r: &Reader, since: i64) -> Vec<i64> {
    let store: &dyn TripleStore = &r.store;
    export_replay(store, &r.journal, &ExportReplay::since(since))
        .unwrap()
        .map(|e| e.unwrap().seq)
        .collect()
}

#[test]
fn polling_with_the_last_seen_seq_never_repeats_or_skips_while_another_process_writes() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    write_all(&home, 1, "seed");
    let r = reader(&home);
    let mut writer = spawn_writer(&home, 40, "live");
    let mut seen: Vec<i64> = Vec::new();
    let mut cursor = 0;
    let mut polls = 0;
    loop {
        let done = writer.try_wait().unwrap().is_some();
        for seq in seqs_since(&r, cursor) {
            seen.push(seq);
            cursor = seq;
        }
        polls += 1;
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(writer.wait().unwrap().success());
    // A last poll after the writer's exit, then the whole stream read once.
    seen.extend(seqs_since(&r, cursor));
    let whole = seqs_since(&r, 0);
    assert!(
        polls > 2,
        "the reader polled while the writer wrote ({polls} polls)"
    );
    assert_eq!(
        seen, whole,
        "the tail saw every envelope exactly once, in order"
    );
    assert_eq!(whole.len() as i64, r.journal.current_seq().unwrap());
}

fn read_lines_until(out: &mut impl BufRead, last_seq: i64, deadline: Duration) -> Vec<Value> {
    let start = Instant::now();
    let mut lines = Vec::new();
    let mut line = String::new();
    while start.elapsed() < deadline {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let v: Value = serde_json::from_str(&line).unwrap();
        let seq = v["seq"].as_i64().unwrap();
        lines.push(v);
        if seq >= last_seq {
            break;
        }
    }
    lines
}

fn wait_with_timeout(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("the child did not stop within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn am_replay_follow_tails_a_home_and_stops_cleanly_on_sigint() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    write_all(&home, 1, "seed");
    let mut tail = am()
        .arg("replay")
        .arg(&home)
        .args(["--follow", "--poll-ms", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(tail.stdout.take().unwrap());
    write_all(&home, 5, "more");
    let hw = reader(&home).journal.current_seq().unwrap();
    let lines = read_lines_until(&mut out, hw, Duration::from_secs(60));
    let seqs: Vec<i64> = lines.iter().map(|v| v["seq"].as_i64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=hw).collect::<Vec<_>>(),
        "every seq once, in order"
    );
    assert!(lines.iter().all(|v| v["stream"] == "abstractmemory.replay"));
    let killed = Command::new("kill")
        .args(["-INT", &tail.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = wait_with_timeout(&mut tail, Duration::from_secs(20));
    assert!(
        status.success(),
        "SIGINT stops the tail cleanly: {status:?}"
    );
}

#[test]
fn am_replay_follow_stops_cleanly_when_its_stdout_closes() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    write_all(&home, 1, "seed");
    let mut tail = am()
        .arg("replay")
        .arg(&home)
        .args(["--follow", "--poll-ms", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(tail.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    drop(out);
    // New records make the tail write into the closed pipe.
    write_all(&home, 3, "after");
    let status = wait_with_timeout(&mut tail, Duration::from_secs(30));
    assert!(
        status.success(),
        "a closed stdout ends the tail cleanly: {status:?}"
    );
}

fn file_bytes(home: &Path) -> Vec<Vec<u8>> {
    ["", "-wal"]
        .iter()
        .map(|s| std::fs::read(format!("{}{s}", home.display())).unwrap_or_default())
        .collect()
}

#[test]
fn am_replay_and_am_explain_read_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    write_all(&home, 2, "seed");
    let before = file_bytes(&home);
    let out = am()
        .arg("replay")
        .arg(&home)
        .args([
            "--since", "2", "--until", "6", "--family", "binding", "--family", "trace",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|v| {
        let seq = v["seq"].as_i64().unwrap();
        (3..=6).contains(&seq) && (v["family"] == "binding" || v["family"] == "trace")
    }));
    let bad = am()
        .arg("replay")
        .arg(&home)
        .args(["--family", "gossip"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("gossip"));
    let rid = lines.iter().find(|v| v["family"] == "binding").unwrap()["payload"]["record_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let text = am().arg("explain").arg(&home).arg(&rid).output().unwrap();
    assert!(
        text.status.success(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("status"), "{text}");
    let json_out = am()
        .args(["--json", "explain"])
        .arg(&home)
        .arg(&rid)
        .args(["--trace", "seed-t0"])
        .output()
        .unwrap();
    assert!(
        json_out.status.success(),
        "{}",
        String::from_utf8_lossy(&json_out.stderr)
    );
    let v: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(v["trace"]["trace_id"], "seed-t0");
    assert_eq!(v["record_id"], rid.as_str());
    let missing = am()
        .arg("explain")
        .arg(&home)
        .arg(&rid)
        .args(["--trace", "never-ran"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert_eq!(file_bytes(&home), before, "the reads wrote nothing");
}
