//! `am candidates` and `am tend` on a real SQLite home written by `am exec`
//! (the candidates exec script's formations and its miner): the review
//! offers with their bars, a promotion refused on too few independent
//! origins (nothing written), a rejection that takes the offer off the
//! list; a tend block parsed and applied (text and `--json`), `--dry-run`
//! leaving the file's bytes as they were, and the bad inputs exiting 2.
//! Real child processes, real files.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

fn am(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_am"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn exec(home: &str, script: &str) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
        .args(["exec", "--home", home, "--embedder", "none", "--task-queue"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(v.get("ok").is_some(), "{l}");
            v
        })
        .collect()
}

/// The candidates script's formations (the first ten records, then the
/// miner's material) and one mining pass: offers pending review.
fn home_with_offers(home: &str) {
    let keep = |l: &&str| {
        !l.starts_with('#')
            && (l.contains("\"clock\"")
                || l.contains("\"remember_many\"")
                || (l.contains("\"mine_candidates_pass\"")
                    && !l.contains("report_only")
                    && !l.contains("as_of")))
    };
    let script: String = include_str!("exec/candidates.jsonl")
        .lines()
        .filter(keep)
        .map(|l| format!("{l}\n"))
        .collect();
    exec(home, &script);
}

fn bytes(path: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(Result::unwrap)
        .filter(|e| !e.file_name().to_string_lossy().ends_with("-shm"))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn am_candidates_lists_the_offers_and_their_bars_and_disposes_of_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = path.to_str().unwrap();
    home_with_offers(home);
    let (code, text) = am(&["candidates", home, "--owner", "entity:castor"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("Review offers ("), "{text}");
    assert!(text.contains("bar: "), "{text}");
    assert!(text.contains("Identity proposals pending"), "{text}");
    let (_, json) = am(&["--json", "candidates", home, "--owner", "entity:castor"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let offers = v["offers"].as_array().unwrap().clone();
    assert!(!offers.is_empty(), "the miner's offers wait: {v}");
    for o in &offers {
        assert_eq!(o["bar"]["min_origins"], 2);
        assert!(
            o["sources"].as_array().is_some_and(|s| !s.is_empty()),
            "{o}"
        );
    }
    let first = offers[0]["record_id"].as_str().unwrap().to_owned();
    // One witness of one origin: refused by the home's state, exit 0,
    // nothing written.
    let witness = offers[0]["sources"][0]["record_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = bytes(&path);
    let (code, text) = am(&[
        "candidates",
        home,
        "--owner",
        "entity:castor",
        "promote",
        &first,
        "--witness",
        &witness,
        "--reason",
        "one voice",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("Refused (not_independent)"), "{text}");
    assert_eq!(bytes(&path), before, "a refused promotion writes nothing");
    // A blank reason is bad input.
    let (code, _) = am(&[
        "candidates",
        home,
        "--owner",
        "entity:castor",
        "reject",
        &first,
        "--reason",
        " ",
    ]);
    assert_eq!(code, 2);
    let (code, text) = am(&[
        "candidates",
        home,
        "--owner",
        "entity:castor",
        "reject",
        &first,
        "--reason",
        "not what I learned",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("(still indexed)"), "{text}");
    let (_, json) = am(&["--json", "candidates", home, "--owner", "entity:castor"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["offers"].as_array().unwrap().len(),
        offers.len() - 1,
        "a rejected offer no longer waits"
    );
    let (code, _) = am(&["candidates", home, "--owner", " "]);
    assert_eq!(code, 2);
}

#[test]
fn am_tend_parses_and_applies_a_block_and_a_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = path.to_str().unwrap();
    home_with_offers(home);
    let garden = "ex:episode-fd3433a5f1e45359780e8a17a0";
    let block = dir.path().join("reply.md");
    std::fs::write(
        &block,
        format!(
            "I looked back today.\n```tend\npin: {garden} — reason: the garden matters\n\
             refocus: — reason: the topic moved\nrevisit: {garden} — reason: what grew beside it\n\
             revise: {garden} — reason: I saw it wrong\nhug: {garden} — reason: not a verb\n\
             pin: ex:nope — reason: unknown\n```\nThat is all.\n"
        ),
    )
    .unwrap();
    let b = block.to_str().unwrap();
    let before = bytes(&path);
    let (code, text) = am(&["tend", home, "--owner", "entity:castor", b, "--dry-run"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with("Parsed 5 election(s); 1 line(s) refused."),
        "{text}"
    );
    assert!(text.contains("Would apply (4):"), "{text}");
    assert!(text.contains("(dry run: nothing written)"), "{text}");
    assert_eq!(bytes(&path), before, "a dry run writes nothing");
    let (code, json) = am(&["--json", "tend", home, "--owner", "entity:castor", b]);
    assert_eq!(code, 0, "{json}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["parsed"]["refusals"].as_array().unwrap().len(), 1);
    let report = &v["report"];
    assert_eq!(report["applied"].as_array().unwrap().len(), 4, "{report}");
    assert_eq!(report["refused"].as_array().unwrap().len(), 1);
    assert_eq!(report["applied"][0]["result"]["kind"], "pinned");
    assert_eq!(report["applied"][3]["result"]["kind"], "revise");
    assert_eq!(report["applied"][3]["result"]["opened"], true);
    assert_eq!(report["revisit_paths"][0]["seed"]["graph_id"], garden);
    assert_ne!(bytes(&path), before, "applied");
    // Another channel refuses every election; bad input exits 2.
    let (code, text) = am(&[
        "tend",
        home,
        "--owner",
        "entity:castor",
        b,
        "--channel",
        "workplace",
    ]);
    assert_eq!(code, 0);
    assert!(text.contains("Applied (0):"), "{text}");
    let (code, _) = am(&["tend", home, "--owner", " ", b]);
    assert_eq!(code, 2);
    let (code, _) = am(&[
        "tend",
        home,
        "--owner",
        "entity:castor",
        b,
        "--max-elections",
        "0",
    ]);
    assert_eq!(code, 2);
    let missing = dir.path().join("missing.md");
    let (code, _) = am(&[
        "tend",
        home,
        "--owner",
        "entity:castor",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
}
