//! Issue 37: a damaged home. No command checks integrity at open (it would
//! read the whole file); the damage SQLite meets is refused with a non-zero
//! exit naming `PRAGMA integrity_check` and the repair, and `am ingest`
//! writes nothing to it. The damage is real: the `triples` table's root page
//! overwritten in a real home file.

mod common;

use std::path::Path;

fn damaged_home(dir: &Path) -> std::path::PathBuf {
    damaged_at(dir, "triples", false)
}

/// A demo home (with a journaled recall when `recalled`) whose `table`'s
/// root page is overwritten.
fn damaged_at(dir: &Path, table: &str, recalled: bool) -> std::path::PathBuf {
    let home = dir.join("h.sqlite3");
    let conv = common::demo_conversation();
    let h = home.to_str().unwrap();
    let out = common::am(&[
        "ingest",
        "--home",
        h,
        "--format",
        "jsonl",
        "--scope",
        "life:me",
        conv.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    if recalled {
        let out = common::am_with_input(
            &["exec", "--home", h, "-"],
            r#"{"op": "reconstruct", "stimulus": {"cue_text": "plot"}, "scopes": [["life", "me"]]}"#,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let (root, page_size): (i64, i64) = {
        let c = rusqlite::Connection::open(&home).unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        let root = c
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = ?1",
                [table],
                |r| r.get(0),
            )
            .unwrap();
        let ps = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        (root, ps)
    };
    let mut bytes = std::fs::read(&home).unwrap();
    let start = usize::try_from((root - 1) * page_size).unwrap();
    let end = start + usize::try_from(page_size).unwrap();
    for b in &mut bytes[start + 8..end] {
        *b = 0xAB;
    }
    std::fs::write(&home, &bytes).unwrap();
    home
}

#[test]
fn a_damaged_home_is_refused_naming_integrity_check_and_the_repair_and_ingest_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = damaged_home(dir.path());
    let h = home.to_str().unwrap();
    let more = dir.path().join("more.jsonl");
    std::fs::write(
        &more,
        r#"{"speaker": "Zed", "text": "A new turn about plot 9.", "at": "2026-04-01T10:00:00Z", "session": "9"}
"#,
    )
    .unwrap();
    let before = std::fs::read(&home).unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "ingest",
            "--home",
            h,
            "--format",
            "jsonl",
            "--scope",
            "life:me",
            more.to_str().unwrap(),
        ],
        vec!["recall", "--home", h, "--scope", "life:me", "plot"],
        vec!["replay", h],
    ];
    for args in &commands {
        let out = common::am(args);
        assert_ne!(
            out.code, 0,
            "{args:?} exited 0 on a damaged home: {}",
            out.stdout
        );
        assert!(
            out.stderr.contains("PRAGMA integrity_check") && out.stderr.contains(".recover"),
            "{args:?}: {}",
            out.stderr
        );
    }
    let out = common::am_with_input(
        &["exec", "--home", h, "-"],
        r#"{"op": "query", "q": {"limit": 3}}"#,
    );
    assert!(
        out.stderr.contains("PRAGMA integrity_check")
            || out.stdout.contains("PRAGMA integrity_check"),
        "exec: {} {}",
        out.stdout,
        out.stderr
    );
    assert_eq!(
        std::fs::read(&home).unwrap(),
        before,
        "nothing was written to the damaged home"
    );
}

/// An exec session that meets a damaged page mid-script answers that line
/// with the damage named, runs no later line (nothing more is written into a
/// damaged file) and exits 1.
#[test]
fn an_exec_session_stops_after_the_line_that_met_the_damage() {
    let dir = tempfile::tempdir().unwrap();
    let home = damaged_at(dir.path(), "memj_traces", true);
    let h = home.to_str().unwrap();
    let before = std::fs::read(&home).unwrap();
    let script = r#"{"id": 1, "op": "traces", "limit": 5}
{"id": 2, "op": "remember", "record": {"kind": "episode", "title": "t", "digest": "After the damage."}, "scope": "life", "owner_id": "me", "idempotency_key": "after"}
"#;
    let out = common::am_with_input(&["exec", "--home", h, "-"], script);
    assert_eq!(out.code, 1, "{} {}", out.stdout, out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "no line after the damage ran: {}",
        out.stdout
    );
    assert!(lines[0].contains("PRAGMA integrity_check"), "{}", lines[0]);
    assert!(out.stderr.contains("no later line ran"), "{}", out.stderr);
    assert_eq!(std::fs::read(&home).unwrap(), before, "nothing was written");
}
