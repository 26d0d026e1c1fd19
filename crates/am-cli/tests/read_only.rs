//! A read-only home (issue 23 §5): a home whose file, or whose directory, this
//! process may not write. Every read answers (`query`, `recall`, `inspect`, `replay`,
//! and the read ops of `am exec`: `query`, an unjournaled `reconstruct`,
//! `assertions_after`, `current_seq`, the journal readers, `revisions`,
//! `export_replay`, `tasks.counts`, `tasks.last_maintenance`, `maintenance_due`
//! (its `tasks` too) and `records_since_maintenance` with `--task-queue`, a
//! home table the home does not hold yet reading empty);
//! every write is refused with kind `Refused` naming the home; the home's
//! bytes are unchanged and nothing is created beside the file.
//!
//! The `am` binary runs as a child process. Permissions do not bind root, so
//! when the tests run as root the child runs as `nobody` (uid and gid 65534),
//! from a copy of the binary in a directory that user can reach.

use serde_json::{Value, json};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const NOBODY: u32 = 65534;
const SCOPE: &str = "ro";
const OWNER: &str = "r";

struct Fixture {
    _dir: tempfile::TempDir,
    am: PathBuf,
    homes: PathBuf,
    home: PathBuf,
}

fn as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `am` run as the reader (`nobody` when the tests run as root).
fn am(f: &Fixture, args: &[&str], stdin: &str) -> Output {
    let mut cmd = Command::new(&f.am);
    cmd.args(args)
        .current_dir(&f.homes)
        .env("HOME", &f.homes)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if as_root() {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    let mut child = cmd.spawn().expect("run am");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// A lived-in home (records, a recall with its commit, a layer-1 row, a
/// revision), written by the test's own user, closed cleanly.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let am = dir.path().join("am");
    std::fs::copy(env!("CARGO_BIN_EXE_am"), &am).unwrap();
    let homes = dir.path().join("homes");
    std::fs::create_dir(&homes).unwrap();
    let home = homes.join("home.sqlite3");
    let script = [
        json!({"op": "remember_many", "scope": SCOPE, "owner_id": OWNER, "idempotency_key": "k1",
               "records": [{"kind": "episode", "title": "Outage", "digest": "The pool failed at noon."},
                           {"kind": "lesson", "title": "Restart first", "digest": "Restart the pool first."}]}),
        json!({"op": "reconstruct", "stimulus": {"cue_text": "pool outage"}, "scopes": [[SCOPE, OWNER]],
               "trace_id": "t1"}),
        json!({"op": "add", "assertions": [{"subject": "ada", "predicate": "likes", "object": "tea",
               "scope": SCOPE, "owner_id": OWNER}]}),
        json!({"op": "apply_revision", "revision": {"revision_id": "rev-1", "scope": SCOPE,
               "owner_id": OWNER, "cause": "ingest", "occurred_at": "2026-01-05T09:00:00Z",
               "ops": [{"op": "assert", "payload": {"subject": "ex:pool", "predicate": "schema:name",
                        "object": "the pool"}}],
               "provenance": {"sources": [{"kind": "artifact", "artifact_id": "note-1"}],
                              "actor": "test"}}}),
    ];
    // With the task queue, so the home holds its `memq_*` tables and
    // `tasks.counts` has something to read.
    let out = Command::new(env!("CARGO_BIN_EXE_am"))
        .args([
            "exec",
            "--home",
            home.to_str().unwrap(),
            "--embedder",
            "none",
            "--task-queue",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            let lines: Vec<String> = script.iter().map(Value::to_string).collect();
            std::io::Write::write_all(&mut c.stdin.take().unwrap(), lines.join("\n").as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let answers = String::from_utf8(out.stdout).unwrap();
    for line in answers.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v.get("ok").is_some(), "building the home: {line}");
    }
    // The recall's handles, committed.
    let first: Value = serde_json::from_str(answers.lines().nth(1).unwrap()).unwrap();
    let used: Vec<Value> = first["ok"]["handles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["record_id"].clone())
        .collect();
    let commit = json!({"op": "commit_selection", "trace_id": "t1", "used_record_ids": used});
    let out = Command::new(env!("CARGO_BIN_EXE_am"))
        .args([
            "exec",
            "--home",
            home.to_str().unwrap(),
            "--embedder",
            "none",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            std::io::Write::write_all(&mut c.stdin.take().unwrap(), commit.to_string().as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"ok\""),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        !homes.join("home.sqlite3-wal").exists(),
        "the home was not closed cleanly"
    );
    Fixture {
        _dir: dir,
        am,
        homes,
        home,
    }
}

/// The directory's entries and the home's bytes.
fn snapshot(f: &Fixture) -> (Vec<String>, Vec<u8>) {
    let mut names: Vec<String> = std::fs::read_dir(&f.homes)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    (names, std::fs::read(&f.home).unwrap())
}

const READS: &[&str] = &[
    r#"{"op": "query", "q": {"scope": "ro"}}"#,
    r#"{"op": "reconstruct", "stimulus": {"cue_text": "pool outage"}, "scopes": [["ro", "r"]], "journal": false}"#,
    r#"{"op": "assertions_after", "cursor": 0}"#,
    r#"{"op": "current_seq"}"#,
    r#"{"op": "events", "scope": "ro", "owner_id": "r"}"#,
    r#"{"op": "bindings", "scope": "ro", "owner_id": "r"}"#,
    r#"{"op": "traces", "trace_id": "t1"}"#,
    r#"{"op": "snapshots", "trace_id": "t1"}"#,
    r#"{"op": "selected_count", "record_id": "nothing"}"#,
    r#"{"op": "revisions", "limit": 10}"#,
    r#"{"op": "history", "memory_id": "ex:pool"}"#,
    r#"{"op": "export_replay"}"#,
    r#"{"op": "tasks.counts"}"#,
    r#"{"op": "tasks.last_maintenance"}"#,
    r#"{"op": "maintenance_due", "scopes": [["ro", "r"]], "tasks": true}"#,
    r#"{"op": "records_since_maintenance"}"#,
];

const WRITES: &[&str] = &[
    r#"{"op": "add", "assertions": [{"subject": "bob", "predicate": "likes", "object": "coffee", "scope": "ro", "owner_id": "r"}]}"#,
    r#"{"op": "remember_many", "scope": "ro", "owner_id": "r", "idempotency_key": "k2", "records": [{"kind": "memory", "title": "Lunch", "digest": "Ada had soup."}]}"#,
    r#"{"op": "reconstruct", "stimulus": {"cue_text": "pool"}, "scopes": [["ro", "r"]], "trace_id": "t2"}"#,
    r#"{"op": "refocus", "reason": "test", "scope": "ro", "owner_id": "r"}"#,
    r#"{"op": "appraise", "target_id": "ex:pool", "sign": -1, "magnitude": 2, "reason": "test", "scope": "ro", "owner_id": "r"}"#,
    r#"{"op": "tasks.enqueue", "kind": "digest.rewrite", "target_id": "ex:pool", "scope": "ro", "owner_id": "r", "basis": "ex:pool@v0", "strength": 0.5, "cause": "test"}"#,
    r#"{"op": "tasks.record_maintenance", "scopes": [["ro", "r"]]}"#,
    r#"{"op": "apply_revision", "revision": {"revision_id": "rev-2", "scope": "ro", "owner_id": "r", "cause": "ingest", "occurred_at": "2026-01-05T09:00:00Z", "ops": [{"op": "assert", "payload": {"subject": "ex:lake", "predicate": "schema:name", "object": "the lake"}}], "provenance": {"sources": [{"kind": "artifact", "artifact_id": "note-2"}], "actor": "test"}}}"#,
];

fn check_read_only(f: &Fixture) {
    let before = snapshot(f);
    let home = f.home.to_str().unwrap();
    // The operator reads.
    let q = am(
        f,
        &[
            "query",
            "--home",
            home,
            "--embedder",
            "none",
            "--json",
            "--scope",
            SCOPE,
        ],
        "",
    );
    assert!(
        q.status.success(),
        "am query: {}",
        String::from_utf8_lossy(&q.stderr)
    );
    assert!(String::from_utf8_lossy(&q.stdout).contains("tea"));
    let scope = format!("{SCOPE}:{OWNER}");
    let r = am(
        f,
        &[
            "recall",
            "--home",
            home,
            "--embedder",
            "none",
            "--json",
            "--scope",
            &scope,
            "pool outage",
        ],
        "",
    );
    assert!(
        r.status.success(),
        "am recall: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(String::from_utf8_lossy(&r.stdout).contains("Outage"));
    let i = am(f, &["inspect", "--home", home, "--json"], "");
    assert!(
        i.status.success(),
        "am inspect: {}",
        String::from_utf8_lossy(&i.stderr)
    );
    let rp = am(f, &["replay", home], "");
    assert!(
        rp.status.success(),
        "am replay: {}",
        String::from_utf8_lossy(&rp.stderr)
    );
    assert!(
        String::from_utf8_lossy(&rp.stdout).lines().count() > 0,
        "am replay streamed nothing"
    );
    // The exec reads, then the writes.
    let script: Vec<&str> = READS.iter().chain(WRITES).copied().collect();
    let e = am(
        f,
        &["exec", "--home", home, "--embedder", "none", "--task-queue"],
        &script.join("\n"),
    );
    let answers: Vec<Value> = String::from_utf8_lossy(&e.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        answers.len(),
        script.len(),
        "am exec: {}",
        String::from_utf8_lossy(&e.stderr)
    );
    for (line, a) in READS.iter().zip(&answers) {
        assert!(a.get("ok").is_some(), "a read failed: {line}\n -> {a}");
    }
    for (line, a) in WRITES.iter().zip(&answers[READS.len()..]) {
        assert_eq!(a["error"]["kind"], "Refused", "{line}\n -> {a}");
        let msg = a["error"]["message"].as_str().unwrap();
        assert!(msg.contains("read-only"), "{msg}");
        assert!(
            msg.contains(home),
            "the refusal does not name the home: {msg}"
        );
    }
    assert_eq!(snapshot(f), before, "the home or its directory changed");
}

#[test]
fn a_read_only_home_file_answers_every_read_refuses_every_write_and_creates_nothing() {
    let f = fixture();
    chmod(&f.home, 0o444);
    check_read_only(&f);
}

#[test]
fn a_home_in_a_read_only_directory_answers_every_read_refuses_every_write_and_creates_nothing() {
    let f = fixture();
    if as_root() {
        // The reader owns the file (writable by it); the directory is root's.
        std::os::unix::fs::chown(&f.home, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    chmod(&f.home, 0o644);
    chmod(&f.homes, 0o555);
    check_read_only(&f);
    chmod(&f.homes, 0o755);
}
