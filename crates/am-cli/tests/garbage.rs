//! Garbage in, a clean refusal out: every command and flag fed bad input
//! answers exit code 2 (1 for failures outside the caller's control) with a
//! message naming what was expected, never panics, and leaves the home's
//! bytes unchanged.

mod common;

use common::{am, am_with_input, demo_home, fingerprint};
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn usage_errors_exit_2() {
    am(&[]).assert_refused(2, "usage");
    am(&["frobnicate"]).assert_refused(2, "unrecognized subcommand");
    am(&["ingest", "--home"]).assert_refused(2, "value is required");
    am(&["ingest", "--home", "h", "--format", "csv", "f"]).assert_refused(2, "invalid value");
    am(&[
        "recall", "--home", "h", "--scope", "a:b", "--k", "abc", "cue",
    ])
    .assert_refused(2, "invalid value");
    // A negative shelf size is a bad value of --k, not a flag.
    am(&[
        "recall", "--home", "h", "--scope", "a:b", "--k", "-1", "cue",
    ])
    .assert_refused(2, "invalid value '-1' for '--k");
    am(&["eval", "locomo", "--data", "x", "--discovery", "maybe"])
        .assert_refused(2, "invalid value");
    am(&["eval", "squad", "--data", "x"]).assert_refused(2, "unrecognized subcommand");
    am(&["exec", "--home", "h", "--memory"]).assert_refused(2, "cannot be used with");
    am(&["query", "--home", "h", "--limit", "lots"]).assert_refused(2, "invalid value");
    let help = am(&["--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("exec"));
}

#[test]
fn unknown_embedder_specs_are_refused_on_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let data = common::demo_conversation();
    let commands: Vec<Vec<&str>> = vec![
        vec!["ingest", "--home", s(&home), "--format", "jsonl", s(&data)],
        vec!["query", "--home", s(&home)],
        vec!["inspect", "--home", s(&home)],
        vec!["recall", "--home", s(&home), "--scope", "life:demo", "cue"],
        vec!["demo"],
        vec!["eval", "locomo", "--data", s(&data)],
        vec!["exec", "--memory"],
    ];
    for spec in [
        "bert",
        "openai:http://127.0.0.1:9",
        "openai:ftp://x#m",
        "gateway:",
        "openai:http://x#",
    ] {
        for cmd in &commands {
            let mut args = cmd.clone();
            args.extend(["--embedder", spec]);
            am(&args).assert_refused(2, "expected");
        }
    }
    assert!(!home.exists(), "a refused command created no home");
    am(&["demo", "--embedder", "none"]).assert_refused(2, "offline");
}

#[test]
fn bad_home_paths_are_refused_and_non_sqlite_files_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "these are my notes, not a database\n").unwrap();
    let before = fingerprint(&text);
    let missing_dir = dir.path().join("no/such/dir/h.sqlite3");
    let missing = dir.path().join("absent.sqlite3");
    let data = common::demo_conversation();
    for home in [s(&text), s(&missing_dir), s(dir.path())] {
        for args in [
            vec!["ingest", "--home", home, "--format", "jsonl", s(&data)],
            vec!["query", "--home", home],
            vec!["inspect", "--home", home],
            vec!["recall", "--home", home, "--scope", "life:demo", "cue"],
            vec!["demo", "--home", home],
            vec!["exec", "--home", home],
        ] {
            let out = am(&args);
            assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
            assert!(
                out.stderr.starts_with("error: "),
                "{args:?}: {}",
                out.stderr
            );
            assert!(!out.stderr.contains("panicked"));
        }
    }
    assert_eq!(
        fingerprint(&text),
        before,
        "the non-SQLite file was left unchanged"
    );
    am(&["inspect", "--home", s(&text)]).assert_refused(2, "not an SQLite home");
    for args in [
        vec!["query", "--home", s(&missing)],
        vec!["inspect", "--home", s(&missing)],
        vec![
            "recall",
            "--home",
            s(&missing),
            "--scope",
            "life:demo",
            "cue",
        ],
    ] {
        am(&args).assert_refused(2, "no such home");
    }
    assert!(!missing.exists(), "reads never create a home");
    // A file with SQLite's header and garbage after it.
    let torn = dir.path().join("torn.sqlite3");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xAB_u8, 300));
    std::fs::write(&torn, &bytes).unwrap();
    let out = am(&["inspect", "--home", s(&torn)]);
    assert!(matches!(out.code, 1 | 2), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked") && out.stderr.contains("error: "));
    assert_eq!(std::fs::read(&torn).unwrap(), bytes);
}

#[test]
fn bad_input_files_are_refused_naming_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let write = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p
    };
    let not_json = write("a.json", "{ nope");
    let not_list = write("b.json", r#"{"sample_id": "x"}"#);
    let bad_date = write(
        "c.json",
        r#"[{"sample_id": "s", "conversation": {"session_1_date_time": "yesterday", "session_1": []}}]"#,
    );
    let bad_lines = write("d.jsonl", "{\"speaker\": \"a\"}\n");
    let empty = write("e.jsonl", "\n\n");
    let bytes = dir.path().join("f.bin");
    std::fs::write(&bytes, [0xff_u8, 0xfe, 0x00, 0x80]).unwrap();
    let missing = dir.path().join("missing.json");
    for (format, file, needle) in [
        ("locomo", &not_json, "invalid JSON"),
        ("locomo", &not_list, "JSON list"),
        ("locomo", &bad_date, "session date-time"),
        ("jsonl", &bad_lines, "line 1"),
        ("jsonl", &empty, "no turns"),
        ("jsonl", &bytes, "cannot read"),
        ("jsonl", &missing, "cannot read"),
    ] {
        am(&["ingest", "--home", s(&home), "--format", format, s(file)]).assert_refused(2, needle);
    }
    assert!(!home.exists(), "a refused ingest created no home");
    let conv = common::demo_conversation();
    for scope in ["life", ":x", "life:"] {
        am(&[
            "ingest",
            "--home",
            s(&home),
            "--format",
            "jsonl",
            "--scope",
            scope,
            s(&conv),
        ])
        .assert_refused(2, "SCOPE:OWNER");
    }
    am(&[
        "ingest",
        "--home",
        s(&home),
        "--format",
        "locomo",
        "--scope",
        "a:b",
        s(&not_list),
    ])
    .assert_refused(2, "--scope applies to --format jsonl only");
    for (data, needle) in [
        (&not_json, "invalid JSON"),
        (&not_list, "JSON list"),
        (&missing, "cannot read"),
    ] {
        am(&["eval", "locomo", "--data", s(data)]).assert_refused(2, needle);
    }
    for k in ["0", "x", "5,,10", "", "5000"] {
        am(&["eval", "locomo", "--data", s(&not_list), "--k", k]).assert_refused(2, "--k");
    }
    // --json turns the error into one JSON object on stderr.
    let out = am(&[
        "eval",
        "locomo",
        "--data",
        s(&not_list),
        "--k",
        "0",
        "--json",
    ]);
    assert_eq!(out.code, 2);
    let err: serde_json::Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(err["error"]["kind"], "InvalidInput");
}

#[test]
fn refusals_against_a_home_leave_its_bytes_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = s(&home);
    let before = fingerprint(&home);
    let conv = common::demo_conversation();
    let refusals: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["query", "--home", h, "--json-query", "{not json"],
            "invalid JSON",
        ),
        (
            vec!["query", "--home", h, "--json-query", r#"{"subjekt": "a"}"#],
            "unknown TripleQuery field",
        ),
        (
            vec!["query", "--home", h, "--json-query", "[]"],
            "JSON object",
        ),
        (
            vec!["query", "--home", h, "--json-query", "{}", "--subject", "a"],
            "no other query flag",
        ),
        (
            vec!["query", "--home", h, "--order", "sideways"],
            "asc or desc",
        ),
        (
            vec!["query", "--home", h, "--since", "last tuesday"],
            "timestamp",
        ),
        (
            vec!["recall", "--home", h, "--scope", "life", "cue"],
            "SCOPE:OWNER",
        ),
        (
            vec![
                "recall",
                "--home",
                h,
                "--scope",
                "life:demo",
                "--k",
                "0",
                "cue",
            ],
            "--k",
        ),
        (
            vec!["recall", "--home", h, "--scope", "life:demo", "  "],
            "non-empty",
        ),
        (
            vec!["recall", "--home", h, "--scope", "global:x", "cue"],
            "no such scope",
        ),
        (
            vec!["exec", "--home", h, "--clock", "yesterday"],
            "timestamp",
        ),
        (
            vec!["exec", "--home", h, "no-such-script.jsonl"],
            "cannot open script",
        ),
        (
            vec![
                "ingest",
                "--home",
                h,
                "--format",
                "jsonl",
                "--embedder",
                "openai:http://127.0.0.1:9/v1#other-model",
                s(&conv),
            ],
            "embedding",
        ),
    ];
    for (args, needle) in &refusals {
        am(args).assert_refused(2, needle);
        assert_eq!(fingerprint(&home), before, "{args:?} changed the home");
    }
}

#[test]
fn exec_answers_garbage_lines_with_error_lines_and_exit_2() {
    let out = am_with_input(
        &["exec", "--memory"],
        "\u{0}\u{1}garbage\n{\"op\": 42}\n{\"op\": \"add\", \"assertions\": \"nope\"}\n{\"op\": \"query\", \"q\": {\"limit\": \"ten\"}}\n{\"op\": \"clock\", \"advance_s\": 1e308}\n",
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"));
    let lines: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert!(
        lines.iter().all(|l| l["error"]["kind"] == "InvalidInput"),
        "{}",
        out.stdout
    );
    let edge = am_with_input(
        &["exec", "--memory", "--clock", "9999-12-31T23:59:00Z"],
        "{\"op\": \"clock\", \"advance_s\": 1000000000}\n",
    );
    assert_eq!(edge.code, 0, "{}", edge.stderr);
    assert!(
        edge.stdout.contains("past the year 9999"),
        "{}",
        edge.stdout
    );
    assert!(!edge.stderr.contains("panicked"));
    let invalid_utf8 = {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
            .args(["exec", "--memory"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"\xff\xfe\n{\"op\": \"current_seq\"}\n")
            .unwrap();
        child.wait_with_output().unwrap()
    };
    assert_eq!(invalid_utf8.status.code(), Some(2));
    let text = String::from_utf8_lossy(&invalid_utf8.stdout);
    assert!(
        text.contains("UTF-8") && text.contains("\"ok\":0"),
        "{text}"
    );
}

#[test]
fn refused_exec_lines_leave_a_sqlite_home_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let before = fingerprint(&home);
    let script = r#"{"op": "remember", "record": {"kind": "feeling", "title": "x", "digest": "y"}, "scope": "life", "owner_id": "demo", "idempotency_key": "k"}
{"op": "remember", "record": {"kind": "episode", "title": "x", "digest": "y"}, "scope": "life", "owner_id": "demo", "idempotency_key": "k", "extra": 1}
{"op": "add", "assertions": [{"subject": "a", "predicate": "b", "object": "c"}, {"subject": "a", "predicate": "b", "object": "c", "valid_from": "someday"}]}
{"op": "commit_selection", "trace_id": "t", "used_record_ids": ["ex:episode-does-not-exist"]}
{"op": "close_record", "record_id": "ex:episode-does-not-exist", "reason": "r"}
{"op": "close_assertions", "assertion_ids": ["x"], "kind": "supersede", "reason": "r"}
{"op": "bind", "record_id": "ex:nothing", "scope": "life", "owner_id": "demo", "search_state": "indexed"}
{"op": "reinforce", "record_id": "ex:nothing", "reason": "r", "scope": "life", "owner_id": "demo"}
{"op": "reconstruct", "stimulus": {"cue_text": "x"}, "scopes": [["global", ""]]}
{"op": "query", "q": {"since": "never"}}
"#;
    let out = common::am_with_input(&["exec", "--home", s(&home), "-"], script);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 10);
    assert!(
        out.stdout.lines().all(|l| l.contains("\"error\"")),
        "{}",
        out.stdout
    );
    assert_eq!(
        fingerprint(&home),
        before,
        "refused exec lines changed the home"
    );
}

#[test]
fn a_command_that_fails_on_a_new_home_leaves_no_home_behind() {
    let dir = tempfile::tempdir().unwrap();
    let conv = common::demo_conversation();
    let home = dir.path().join("new.sqlite3");
    // An embedder that cannot be reached: the ingest fails (exit 1) ...
    let unreachable = || {
        am(&[
            "--embedder",
            "openai:http://127.0.0.1:1#m",
            "ingest",
            "--home",
            s(&home),
            "--format",
            "jsonl",
            s(&conv),
        ])
    };
    unreachable().assert_refused(1, "unreachable");
    // ... and leaves no home pinned to it: the next ingest works.
    assert!(!home.exists(), "a blank home was left behind");
    let ok = am(&["ingest", "--home", s(&home), "--format", "jsonl", s(&conv)]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    // An exec whose every line is refused creates no home either.
    let script = dir.path().join("garbage.jsonl");
    std::fs::write(&script, "garbage\n{\"op\":\"no_such_op\"}\n").unwrap();
    let exec_home = dir.path().join("exec.sqlite3");
    let out = am(&["exec", "--home", s(&exec_home), s(&script)]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(!exec_home.exists(), "a blank exec home was left behind");
    // A home that existed before a failing command is kept as it was.
    let before = fingerprint(&home);
    assert_ne!(unreachable().code, 0);
    assert!(home.exists());
    assert_eq!(fingerprint(&home).0, before.0);
}

#[test]
fn reads_refuse_a_file_that_is_not_an_abstractmemory_home_and_leave_it_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("other-app.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi');")
            .unwrap();
    }
    let empty = dir.path().join("empty.sqlite3");
    std::fs::write(&empty, b"").unwrap();
    for path in [&foreign, &empty] {
        let before = std::fs::read(path).unwrap();
        am(&["recall", "--home", s(path), "--scope", "life:chat", "lease"])
            .assert_refused(2, "not an AbstractMemory home");
        am(&["query", "--home", s(path)]).assert_refused(2, "not an AbstractMemory home");
        assert_eq!(std::fs::read(path).unwrap(), before, "{}", path.display());
    }
}

#[test]
fn usage_errors_under_json_are_json_on_stderr() {
    let out = am(&[
        "--json",
        "ingest",
        "--home",
        "h.sqlite3",
        "--format",
        "bad",
        "x",
    ]);
    assert_eq!(out.code, 2);
    let v: serde_json::Value = serde_json::from_str(out.stderr.trim())
        .unwrap_or_else(|e| panic!("stderr is not JSON ({e}): {}", out.stderr));
    assert_eq!(v["error"]["kind"], "InvalidInput");
    assert!(v["error"]["message"].as_str().unwrap().contains("--format"));
    // Help is not an error.
    assert_eq!(am(&["--json", "--help"]).code, 0);
}

#[test]
fn a_bad_input_line_is_quoted_as_a_short_excerpt() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("list.jsonl");
    std::fs::write(&file, format!("[\"{}\"]\n", "x".repeat(100_000))).unwrap();
    let home = dir.path().join("h.sqlite3");
    let out = am(&["ingest", "--home", s(&home), "--format", "jsonl", s(&file)]);
    out.assert_refused(2, "expected a JSON object");
    assert!(
        out.stderr.len() < 400,
        "{} bytes of error",
        out.stderr.len()
    );
    assert!(!home.exists());
}

#[test]
fn an_exec_script_that_is_a_directory_is_bad_input_and_creates_no_home() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    am(&["exec", "--home", s(&home), s(dir.path())]).assert_refused(2, "expected a readable file");
    assert!(!home.exists());
}

#[test]
fn a_locomo_file_with_no_samples_is_refused_by_ingest_and_eval() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("empty.json");
    std::fs::write(&data, "[]").unwrap();
    let home = dir.path().join("h.sqlite3");
    am(&["ingest", "--home", s(&home), "--format", "locomo", s(&data)])
        .assert_refused(2, "holds no samples");
    assert!(!home.exists());
    am(&["eval", "locomo", "--data", s(&data)]).assert_refused(2, "holds no samples");
}
