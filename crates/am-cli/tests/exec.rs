//! `am exec` scripts under `tests/exec/*.jsonl` with their expected output
//! checked in as insta snapshots. Every script runs with the clock pinned at
//! 2026-01-01T00:00:00Z; a `# exec-args:` header adds arguments (`{home}` is a
//! fresh SQLite path), `# exec-exit:` names the expected exit code (default 0).

mod common;

use std::path::Path;

fn redact_uuids(text: &str) -> String {
    let re =
        regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    re.replace_all(text, "[uuid]").into_owned()
}

fn header<'a>(script: &'a str, key: &str) -> Option<&'a str> {
    script
        .lines()
        .find_map(|l| l.strip_prefix(&format!("# {key}:")))
        .map(str::trim)
}

fn run_script(path: &Path) {
    let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
    let script = std::fs::read_to_string(path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let extra = header(&script, "exec-args")
        .unwrap_or("--memory")
        .replace("{home}", home.to_str().unwrap());
    let expected_exit: i32 = header(&script, "exec-exit").map_or(0, |c| c.parse().unwrap());
    let mut args = vec!["exec", "--clock", "2026-01-01T00:00:00Z"];
    args.extend(extra.split_whitespace());
    args.push("-");
    let out = common::am_with_input(&args, &script);
    assert_eq!(out.code, expected_exit, "{name}: stderr {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
    // One answer per operation line, each one JSON object.
    let ops = script
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .count();
    assert_eq!(
        out.stdout.lines().count(),
        ops,
        "{name}: one answer per line"
    );
    for line in out.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v.get("ok").is_some() ^ v.get("error").is_some(), "{line}");
    }
    insta::assert_snapshot!(name, redact_uuids(&out.stdout));
}

#[test]
fn every_exec_script_answers_its_checked_in_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exec");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 4, "the exec scripts are present");
    for s in &scripts {
        run_script(s);
    }
}

#[test]
fn exec_answers_each_line_before_reading_the_next() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
        .args(["exec", "--memory", "--clock", "2026-01-01T00:00:00Z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // The host waits for the first answer before deciding the second line.
    writeln!(stdin, r#"{{"id": 1, "op": "clock", "advance_s": 1}}"#).unwrap();
    stdin.flush().unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let now = serde_json::from_str::<serde_json::Value>(&first).unwrap()["ok"]["now"].clone();
    assert_eq!(now, "2026-01-01T00:00:01.000000+00:00");
    writeln!(stdin, r#"{{"id": 2, "op": "seq_at", "iso_ts": {now}}}"#).unwrap();
    drop(stdin);
    let mut second = String::new();
    stdout.read_line(&mut second).unwrap();
    assert_eq!(second.trim(), r#"{"id":2,"op":"seq_at","ok":0}"#);
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_pending_loop_answers_alike_on_the_in_memory_pair_and_the_sqlite_home() {
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exec/pending.jsonl"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let run = |stack: &[&str]| {
        let mut args = vec!["exec", "--clock", "2026-01-01T00:00:00Z", "--task-queue"];
        args.extend_from_slice(stack);
        args.push("-");
        let out = common::am_with_input(&args, &script);
        assert_eq!(out.code, 0, "{stack:?}: {}", out.stderr);
        out.stdout
    };
    let memory = run(&["--memory"]);
    let sqlite = run(&["--home", home.to_str().unwrap()]);
    assert!(
        memory.contains(r#""op":"declare_pending","ok":{"applied":true"#),
        "{memory}"
    );
    assert_eq!(
        memory, sqlite,
        "the two stacks answer alike through am exec"
    );
}
