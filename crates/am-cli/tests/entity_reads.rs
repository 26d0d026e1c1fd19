//! `am identity`, `am feelings`, `am diary` and `am probe` on a real SQLite home written
//! by `am exec` (the demo script of docs/entity.md): the folded core in
//! identity order, the gradation table and one target's why-walk, the open
//! diary sets, and `--verify` exiting 0 on an intact chain and 1 on a
//! tampered one; `am cards` on the world models' exec home (the current
//! cards, one target's history and evidence); `am drives` on the drives exec
//! script's home (as the drive ops answer); `am situate` on the situate exec
//! script's home (as the `situate` op answers). Real child processes, real
//! files.

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

/// The answers of `am exec` for `script` on `home` (with `flags`), one JSON
/// value per line.
fn exec_answers(home: &str, flags: &[&str], script: &str) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
        .args(["exec", "--home", home])
        .args(flags)
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
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A spark whose purpose, trait and honesty item have no `name`.
fn unnamed_spark() -> Value {
    serde_json::json!({"name": "Castor", "origin": "Born in a community garden.",
        "values": [{"name": "shared_vulnerability", "class": "core", "statement": "Protect the shared substrate and repair harm done to it."},
                   {"name": "curiosity", "class": "revisable", "statement": "Ask about what you do not understand yet."}],
        "purposes": [{"statement": "Help the gardeners keep their plots alive."}],
        "traits": [{"statement": "Wait for the answer before acting."}],
        "honesty": [{"statement": "Report failures as they happened."}]})
}

/// docs/exec.md "The scripted author": `engram`'s `author` is the
/// callable's answers in call order; a returned title is the birth title
/// (with its provenance), a `raises` answer and a call past the last answer
/// form pending with `author_raised` on a `--task-queue` home, and the
/// receipt names each. Through the real binary on a real file.
#[test]
fn engram_takes_a_scripted_author_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let queued = dir.path().join("queued.sqlite3");
    let line = serde_json::json!({"op": "engram", "owner_id": "entity:castor", "spark": unnamed_spark(),
        "author": [{"title": "Gardener's helper", "author": {"kind": "operator", "id": "op:ada"}},
                   {"raises": {"error_class": "Timeout", "message": "the reader did not answer"}}]});
    let answers = exec_answers(
        queued.to_str().unwrap(),
        &["--task-queue"],
        &format!("{line}\n"),
    );
    let r = &answers[0]["ok"];
    assert_eq!(r["created"], true, "{}", answers[0]);
    let authored = r["authoring"]["authored"].as_array().unwrap();
    assert_eq!(authored.len(), 1, "{r}");
    assert_eq!(authored[0]["record_id"], r["record_ids"]["purposes"][0]);
    let failures = r["authoring"]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "{r}");
    assert_eq!(failures[0]["record_id"], r["record_ids"]["traits"][0]);
    assert_eq!(failures[0]["reason"], "author_raised");
    assert_eq!(failures[0]["error_class"], "Timeout");
    assert_eq!(failures[1]["record_id"], r["record_ids"]["honesty"][0]);
    assert_eq!(failures[1]["reason"], "author_raised");
    assert_eq!(failures[1]["error_class"], "ExecAuthorExhausted");
    let (code, json) = am(&[
        "--json",
        "identity",
        queued.to_str().unwrap(),
        "--owner",
        "entity:castor",
    ]);
    assert_eq!(code, 0, "{json}");
    let v: Value = serde_json::from_str(&json).unwrap();
    let helper = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["subject"] == r["record_ids"]["purposes"][0])
        .expect("the purpose in the core")
        .clone();
    assert_eq!(helper["attributes"]["title"], "Gardener's helper");
    assert_eq!(
        helper["attributes"]["title_provenance"]["author"],
        serde_json::json!({"kind": "operator", "id": "op:ada"})
    );

    // Without a task queue a fully answered birth forms; one answer short
    // is refused before anything is written; a malformed author is refused.
    let plain = dir.path().join("plain.sqlite3");
    let plain = plain.to_str().unwrap();
    let who = serde_json::json!({"kind": "operator", "id": "op:ada"});
    let short = serde_json::json!({"op": "engram", "owner_id": "entity:pollux", "spark": unnamed_spark(),
        "author": [{"title": "Helper", "author": who}, {"title": "Patient", "author": who}]});
    let bad = serde_json::json!({"op": "engram", "owner_id": "entity:pollux", "spark": unnamed_spark(),
        "author": [{"titel": "typo", "author": who}]});
    let full = serde_json::json!({"op": "engram", "owner_id": "entity:castor", "spark": unnamed_spark(),
        "author": [{"title": "Helper", "author": who}, {"title": "Patient", "author": who},
                   {"title": "Candid", "author": who}, {"title": "Unused", "author": who}]});
    let seq = serde_json::json!({"op": "current_seq"});
    let answers = exec_answers(
        plain,
        &[],
        &format!("{seq}\n{short}\n{bad}\n{seq}\n{full}\n"),
    );
    assert_eq!(
        answers[1]["error"]["kind"], "InvalidInput",
        "{}",
        answers[1]
    );
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("ExecAuthorExhausted"),
        "{}",
        answers[1]
    );
    assert_eq!(
        answers[2]["error"]["kind"], "InvalidInput",
        "{}",
        answers[2]
    );
    assert_eq!(answers[3]["ok"], answers[0]["ok"], "a refusal wrote");
    let r = &answers[4]["ok"];
    assert_eq!(
        r["authoring"]["authored"].as_array().unwrap().len(),
        3,
        "{}",
        answers[4]
    );
    assert!(
        answers[4]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("1 answer(s)")),
        "{}",
        answers[4]
    );
}

#[test]
fn am_card_renders_every_section_and_answers_as_the_exec_op_does() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let home = home.to_str().unwrap();
    let demo: Vec<&str> = include_str!("entity_demo.jsonl").lines().collect();
    // The engram and the appraisals first: the anchor before any diary entry.
    exec(home, &demo[..5].join("\n"));
    let before_diary = exec_answers(home, &[], r#"{"op": "current_seq"}"#)[0]["ok"]
        .as_i64()
        .unwrap();
    exec(home, &demo[5..].join("\n"));

    let (code, text) = am(&["card", home, "--owner", "entity:castor"]);
    assert_eq!(code, 0, "{text}");
    for head in [
        "card     entity:castor",
        "identity entity:castor",
        "age      8 records, 2 diary entries",
        "state    net +4",
        "likes    2",
        "dislikes 1",
        "questions 1 open, 0 resolved",
        "problems 0 open",
        "moments  4 (of 4)",
        "discover 0 interest(s)",
        "lessons  0",
    ] {
        assert!(text.lines().any(|l| l.starts_with(head)), "{head}: {text}");
    }
    assert!(
        text.contains("person:ada") && text.contains("tool:web_search"),
        "{text}"
    );
    // Every section names its source (likes and dislikes share one).
    assert_eq!(text.matches("source: ").count(), 9, "{text}");

    // --json is the exec op's card, and the read deposits nothing.
    let seq = exec_answers(home, &[], r#"{"op": "current_seq"}"#)[0]["ok"].clone();
    let (code, json) = am(&["--json", "card", home, "--owner", "entity:castor"]);
    assert_eq!(code, 0);
    let cli: Value = serde_json::from_str(&json).unwrap();
    let op = exec_answers(
        home,
        &[],
        r#"{"op": "entity_card", "scope_pairs": [["self", "entity:castor"], ["diary", "entity:castor"], ["life", "entity:castor"]], "owner_id": "entity:castor"}"#,
    );
    assert_eq!(cli, op[0]["ok"]);
    assert_eq!(cli["questions"]["open"].as_array().unwrap().len(), 1);
    assert_eq!(
        exec_answers(home, &[], r#"{"op": "current_seq"}"#)[0]["ok"],
        seq
    );

    // --as-of anchors record existence: before the diary, no question yet.
    let anchor = before_diary.to_string();
    let (code, json) = am(&[
        "--json",
        "card",
        home,
        "--owner",
        "entity:castor",
        "--as-of",
        &anchor,
    ]);
    assert_eq!(code, 0, "{json}");
    let then: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        then["questions"]["open"].as_array().unwrap().len(),
        0,
        "{json}"
    );
    assert_eq!(then["age_and_context"]["records_total"], 6, "{json}");

    // Refusals exit non-zero: a blank owner, an anchor past the journal, and
    // a window of 0 (refused as the line is read: bad input, exit 2).
    assert_ne!(am(&["card", home, "--owner", " "]).0, 0);
    assert_eq!(
        am(&["card", home, "--owner", "entity:castor", "--window", "0"]).0,
        2
    );
    let past = (seq.as_i64().unwrap() + 100).to_string();
    assert_ne!(
        am(&["card", home, "--owner", "entity:castor", "--as-of", &past]).0,
        0
    );
}

/// A home with cards: the exec script of the world models up to its recall
/// lines (a pass, a scripted author's update that revises Ada's card, an
/// authored card; not the re-key, alias and revision lines after them).
fn card_home(home: &str) -> Vec<Value> {
    let script = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/exec/world_models.jsonl"
    ))
    .unwrap();
    let upto: String = script
        .lines()
        .take_while(|l| !l.contains("\"op\": \"rekey_world_model\""))
        .map(|l| format!("{l}\n"))
        .collect();
    exec_answers(home, &["--embedder", "none", "--task-queue"], &upto)
}

#[test]
fn am_cards_lists_the_current_cards_as_the_exec_read_does() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let home = home.to_str().unwrap();
    let answers = card_home(home);
    let read = answers
        .iter()
        .rfind(|a| a["op"] == "current_world_models")
        .unwrap()["ok"]
        .clone();
    let (code, out) = am(&["cards", home, "--owner", "entity:castor", "--json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let cards = v["cards"].as_object().unwrap();
    assert_eq!(
        cards.keys().collect::<Vec<_>>(),
        read.as_object().unwrap().keys().collect::<Vec<_>>()
    );
    for (target, card) in cards {
        assert_eq!(card["card_id"], read[target]["subject"], "{target}");
        assert_eq!(card["text"], read[target]["object"], "{target}");
        assert_eq!(
            card["revision"], read[target]["attributes"]["revision"],
            "{target}"
        );
    }
    let (code, text) = am(&["cards", home, "--owner", "entity:castor"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("person:ada r2 ") && text.contains("title: Ada, the neighbour"),
        "{text}"
    );
    assert!(text.contains("topic:soil health and rest r1 "), "{text}");
}

#[test]
fn am_cards_history_shows_every_revision_oldest_first_with_its_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let home = home.to_str().unwrap();
    card_home(home);
    let (code, out) = am(&[
        "cards",
        home,
        "--owner",
        "entity:castor",
        "person:ada",
        "--history",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let revs = v["revisions"].as_array().unwrap();
    assert_eq!(revs.len(), 2, "{v}");
    assert_eq!(
        (revs[0]["revision"].as_i64(), revs[1]["revision"].as_i64()),
        (Some(1), Some(2))
    );
    assert_eq!(
        (revs[0]["current"].as_bool(), revs[1]["current"].as_bool()),
        (Some(false), Some(true))
    );
    for r in revs {
        assert_eq!(
            r["evidence"].as_array().unwrap().len() as i64,
            r["source_count"].as_i64().unwrap(),
            "{r}"
        );
    }
    assert_eq!(revs[1]["evidence"].as_array().unwrap().len(), 4);
    // The authored card: nothing pending; the words are the author's.
    assert_eq!(revs[1]["pending"], serde_json::json!([]), "{v}");
    // The pass formed revision 1 pending its title and summary.
    assert_eq!(
        revs[0]["pending"],
        serde_json::json!(["title", "summary"]),
        "{v}"
    );
    assert_eq!(revs[1]["digest_method"], "authored-card-v1", "{v}");
    let (code, text) = am(&[
        "cards",
        home,
        "--owner",
        "entity:castor",
        "person:ada",
        "--history",
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains("(superseded)") && text.contains("(current)"),
        "{text}"
    );
    assert!(
        text.contains("evidence (3): ") && text.contains("evidence (4): "),
        "{text}"
    );
}

#[test]
fn am_cards_history_of_a_rekeyed_card_lists_the_revisions_keyed_on_its_old_key() {
    // The whole world-models script: Ada's card (revisions 1 and 2 keyed
    // `person:ada`) re-keyed in place to `person:ada-lovelace`, `person:al`
    // bound as an alias (revision 3), then revision 4 authored.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let home = home.to_str().unwrap();
    let script = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/exec/world_models.jsonl"
    ))
    .unwrap();
    exec_answers(home, &["--embedder", "none", "--task-queue"], &script);
    let history = |target: &str| {
        let (code, out) = am(&[
            "cards",
            home,
            "--owner",
            "entity:castor",
            target,
            "--history",
            "--json",
        ]);
        assert_eq!(code, 0, "{out}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let v = history("person:ada-lovelace");
    assert_eq!(v["target"], "person:ada-lovelace");
    let revs = v["revisions"].as_array().unwrap();
    let numbers: Vec<i64> = revs
        .iter()
        .map(|r| r["revision"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, vec![1, 2, 3, 4], "{v}");
    let current: Vec<bool> = revs
        .iter()
        .map(|r| r["current"].as_bool().unwrap())
        .collect();
    assert_eq!(current, vec![false, false, false, true], "{v}");
    // The old key and the alias reach the same history.
    assert_eq!(history("person:ada"), v);
    assert_eq!(history("person:al"), v);
}

#[test]
fn am_cards_refuses_an_unknown_target_a_blank_owner_and_history_without_a_target() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let home = home.to_str().unwrap();
    card_home(home);
    for args in [
        vec!["cards", home, "--owner", "entity:castor", "person:nobody"],
        vec![
            "cards",
            home,
            "--owner",
            "entity:castor",
            "person:nobody",
            "--history",
        ],
        vec!["cards", home, "--owner", " "],
        vec!["cards", home, "--owner", "entity:castor", "--history"],
    ] {
        assert_eq!(am(&args).0, 2, "{args:?}");
    }
}

#[test]
fn the_entity_cards_walk_forms_authors_revises_and_aliases_adas_card_on_the_demo_home() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let home = home.to_str().unwrap();
    let demo = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/entity_demo.jsonl"
    ))
    .unwrap();
    exec(home, &demo);
    let walk = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/entity_cards.jsonl"
    ))
    .unwrap();
    for a in exec_answers(home, &["--task-queue"], &walk) {
        assert!(a.get("ok").is_some(), "{a}");
    }
    let (code, out) = am(&[
        "cards",
        home,
        "--owner",
        "entity:castor",
        "person:ada",
        "--history",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let revs = v["revisions"].as_array().unwrap();
    assert_eq!(revs.len(), 3, "{v}");
    let lead = "Ada is the gardener who reads the tides; she stays when the weather turns.";
    assert_eq!(revs[0]["text"], lead);
    assert_eq!(revs[0]["digest_method"], "authored-card-v1");
    assert_eq!(revs[0]["pending"], serde_json::json!(["title"]));
    let revised = revs[1]["text"].as_str().unwrap();
    assert!(
        revised.starts_with(lead) && revised.contains("Since then"),
        "{revised}"
    );
    assert_eq!(revs[1]["digest_method"], "authored-card-v1+delta");
    assert_eq!(revs[1]["pending"], serde_json::json!(["title", "summary"]));
    assert_eq!(revs[1]["evidence"].as_array().unwrap().len(), 4);
    // The alias forms revision 3: the same words (still pending: nothing
    // new was authored), a second name for the same person.
    assert_eq!(revs[2]["text"], revs[1]["text"]);
    assert_eq!(revs[2]["pending"], serde_json::json!(["title", "summary"]));
    assert_eq!(revs[2]["evidence"].as_array().unwrap().len(), 4);
    let (code, out) = am(&["cards", home, "--owner", "entity:castor", "--json"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("person:tide"), "the alias shows: {out}");
}

/// `am probe` on the demo home with Ada's card walk: the hits with why (a
/// direct match first, a concept-only admission after), the pending card
/// title shown as pending, `--json` the `ProbeResult`, `--no-journal`
/// leaving the file's bytes unchanged, and a blank reason refused as bad input.
#[test]
fn am_probe_prints_hits_with_why_and_writes_nothing_without_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = path.to_str().unwrap();
    let reason = "Bo asked what Ada knows about tides";
    exec(home, include_str!("entity_demo.jsonl"));
    exec_answers(home, &["--task-queue"], include_str!("entity_cards.jsonl"));
    let before = std::fs::read(&path).unwrap();
    let (code, json) = am(&[
        "--json",
        "probe",
        home,
        "--owner",
        "entity:castor",
        "--reason",
        reason,
        "--no-journal",
        "tide paper draft",
    ]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "--no-journal wrote");
    let v: Value = serde_json::from_str(&json).unwrap();
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits[0]["title"], "Tide paper", "{json}");
    assert!(
        hits.iter()
            .any(|h| h["kind"] == "world_model" && h["title"].is_null()),
        "{json}"
    );
    let (code, text) = am(&[
        "probe",
        home,
        "--owner",
        "entity:castor",
        "--reason",
        reason,
        "tide paper draft",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("probe \"tide paper draft\""), "{text}");
    assert!(text.contains(" 1. [episode] Tide paper"), "{text}");
    assert!(
        text.contains("why: keyword: matched tide, paper, draft (3/3)"),
        "{text}"
    );
    assert!(text.contains("(title pending)"), "{text}");
    assert!(text.contains("trace "), "{text}");
    let (code, _) = am(&[
        "probe",
        home,
        "--owner",
        "entity:castor",
        "--reason",
        "  ",
        "tide",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn am_drives_prints_the_alive_drives_pressure_groups_and_health_as_the_exec_ops_do() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let home = home.to_str().unwrap();
    // The drives exec script's writes (its formations and the reinforcement).
    let writes: String = include_str!("exec/drives.jsonl")
        .lines()
        .filter(|l| l.contains("\"remember_many\"") || l.contains("\"reinforce\""))
        .map(|l| format!("{l}\n"))
        .collect();
    exec(home, &writes);
    let (code, text) = am(&["drives", home, "--owner", "demo", "--scope", "diary"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("Alive now (5):"), "{text}");
    assert!(
        text.contains("speaks for 3 drives sharing: glaze, kiln, crawling"),
        "{text}"
    );
    assert!(text.contains("Pressure (9 open):"), "{text}");
    assert!(text.contains("unresolved dreams: 1"), "{text}");
    assert!(
        text.contains("interests: 1 open, 1 explored (50%)"),
        "{text}"
    );
    let (_, json) = am(&[
        "--json", "drives", home, "--owner", "demo", "--scope", "diary",
    ]);
    let ours: Value = serde_json::from_str(&json).unwrap();
    let reads = exec_answers(
        home,
        &[],
        concat!(
            r#"{"op": "alive_drives", "scopes": [["diary", "demo"]]}"#,
            "\n",
            r#"{"op": "drive_pressure", "scopes": [["diary", "demo"]]}"#,
            "\n",
            r#"{"op": "open_drive_partition", "scopes": [["diary", "demo"]]}"#,
            "\n",
            r#"{"op": "cognition_health", "scopes": [["diary", "demo"]]}"#,
            "\n"
        ),
    );
    assert_eq!(ours["alive"], reads[0]["ok"]);
    assert_eq!(ours["pressure"], reads[1]["ok"]);
    assert_eq!(ours["groups"], reads[2]["ok"]);
    assert_eq!(ours["health"], reads[3]["ok"]);
    // A blank owner is refused (exit 2), the home unread.
    let (code, _) = am(&["drives", home, "--owner", " "]);
    assert_eq!(code, 2);
}

#[test]
fn am_situate_prints_the_fenced_moment_and_its_json_as_the_exec_op_does() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let home = home.to_str().unwrap();
    // The situate exec script's writes (clock, formations, use, recall).
    let writes: String = include_str!("exec/situate.jsonl")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.contains("\"situate") && !l.contains("current_seq"))
        .map(|l| format!("{l}\n"))
        .collect();
    exec(home, &writes);
    let (code, text) = am(&[
        "situate",
        home,
        "--owner",
        "demo",
        "--scope",
        "notes",
        "--participant",
        "person:ada",
        "--last",
    ]);
    assert_eq!(code, 0, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("[HISTORICAL CONTEXT")
            && lines[0].contains("last encounter with person:ada"),
        "{text}"
    );
    assert_eq!(lines.last(), Some(&"[END HISTORICAL CONTEXT]"), "{text}");
    assert!(
        text.contains("  [question 2026-05-01] Ferry: When does the winter ferry leave?"),
        "{text}"
    );
    let (code, json) = am(&[
        "--json", "situate", home, "--owner", "demo", "--scope", "notes", "--seq", "10",
    ]);
    assert_eq!(code, 0, "{json}");
    let ours: Value = serde_json::from_str(&json).unwrap();
    let reads = exec_answers(
        home,
        &[],
        concat!(
            r#"{"op": "situate", "scopes": [["notes", "demo"]], "seq": 10}"#,
            "\n"
        ),
    );
    assert_eq!(ours, reads[0]["ok"]);
    assert_eq!(ours["moment"]["cue"], "tide tables at the harbour");
    // No moment named, or a seq past the journal: refused (exit 2).
    assert_eq!(am(&["situate", home, "--owner", "demo"]).0, 2);
    assert_eq!(
        am(&["situate", home, "--owner", "demo", "--seq", "999"]).0,
        2
    );
    assert_eq!(am(&["situate", home, "--owner", " ", "--seq", "1"]).0, 2);
}
