//! `am identity`, `am feelings` and `am diary` on a real SQLite home written
//! by `am exec` (the demo script of docs/entity.md): the folded core in
//! identity order, the gradation table and one target's why-walk, the open
//! diary sets, and `--verify` exiting 0 on an intact chain and 1 on a
//! tampered one. Real child processes, real files.

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

fn exec(home: &str, script: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
        .args(["exec", "--home", home])
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
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v.get("ok").is_some(), "{line}");
    }
}

#[test]
fn the_three_operator_reads_on_a_demo_home() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let home = home.to_str().unwrap();
    exec(home, include_str!("entity_demo.jsonl"));

    let (code, text) = am(&["identity", home, "--owner", "entity:castor"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("6 records"), "{text}");
    assert!(
        lines[1].starts_with("[value (core)] shared_vulnerability"),
        "{text}"
    );
    assert!(
        lines[6].starts_with("[trait (limit)] report failures"),
        "{text}"
    );
    let (_, json) = am(&["--json", "identity", home, "--owner", "entity:castor"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 6);

    let (code, text) = am(&["feelings", home, "--owner", "entity:castor"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("+11.0") && text.contains("bond") && text.contains("person:ada"),
        "{text}"
    );
    assert!(
        text.contains("scar") && text.contains("tool:web_search"),
        "{text}"
    );
    let (_, json) = am(&[
        "--json",
        "feelings",
        home,
        "--owner",
        "entity:castor",
        "person:ada",
    ]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["total_events"], 3);
    assert_eq!(v["standing"]["bonded"], true);

    let (code, text) = am(&["diary", home, "--owner", "entity:castor", "--verify"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("open questions: 1") && text.contains("open commitments: 1"),
        "{text}"
    );
    assert!(text.contains("chain: intact (2 entries)"), "{text}");

    // A diary row whose claimed hash does not cover its words breaks the chain.
    exec(
        home,
        r#"{"op": "add", "assertions": [{"subject": "ex:diary-tampered", "predicate": "dcterms:abstract", "object": "Edited words.", "scope": "diary", "owner_id": "entity:castor", "observed_at": "2099-01-01T00:00:00Z", "attributes": {"record_kind": "diary", "title": "Tides", "entry_hash": "0000000000000000000000000000000000000000000000000000000000000000"}}]}"#,
    );
    let (code, text) = am(&["diary", home, "--owner", "entity:castor", "--verify"]);
    assert_eq!(code, 1, "a broken chain exits non-zero: {text}");
    assert!(
        text.contains("chain: BROKEN at ex:diary-tampered"),
        "{text}"
    );
    let (code, json) = am(&[
        "--json",
        "diary",
        home,
        "--owner",
        "entity:castor",
        "--verify",
    ]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["chain"]["break_at"], "ex:diary-tampered");
    // Without --verify the read does not judge the chain.
    assert_eq!(am(&["diary", home, "--owner", "entity:castor"]).0, 0);
}
