//! A newcomer's first hour with `am` (issue 25): ingest never loses a
//! conversation silently, recall output a person can read and trust, and the
//! smaller refusals a user met. Real `am` runs on real SQLite homes.

mod common;

use common::{am, am_with_input, demo_home, fingerprint};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Write chat JSON lines `(speaker, text, at, session)` to `dir/name`.
fn chat(dir: &Path, name: &str, turns: &[(&str, &str, &str, &str)]) -> PathBuf {
    let path = dir.join(name);
    let lines: String = turns
        .iter()
        .map(|(speaker, text, at, session)| {
            json!({"speaker": speaker, "text": text, "at": at, "session": session}).to_string()
                + "\n"
        })
        .collect();
    std::fs::write(&path, lines).unwrap();
    path
}

fn ingest(home: &Path, file: &Path, extra: &[&str]) -> common::Out {
    let mut args = vec![
        "ingest",
        "--home",
        home.to_str().unwrap(),
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
    ];
    args.extend_from_slice(extra);
    args.push(file.to_str().unwrap());
    args.push("--json");
    am(&args)
}

fn seq(home: &Path) -> i64 {
    am(&["inspect", "--home", home.to_str().unwrap(), "--json"]).json()["journal"]["current_seq"]
        .as_i64()
        .unwrap()
}

// -- ingest ---------------------------------------------------------------------

#[test]
fn a_different_conversation_reusing_session_ids_forms_its_turns_and_a_reingest_forms_none() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let other = chat(
        dir.path(),
        "other.jsonl",
        &[
            (
                "Cleo",
                "We moved the choir practice to Thursday.",
                "2026-05-01T18:00:00Z",
                "1",
            ),
            (
                "Dev",
                "Thursday works, I will bring the scores.",
                "2026-05-01T18:01:00Z",
                "1",
            ),
        ],
    );
    let first = ingest(&home, &other, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(first.json()["formed"], 2, "{}", first.stdout);
    let again = ingest(&home, &other, &[]);
    assert_eq!(again.json()["formed"], 0);
    assert_eq!(again.json()["already_stored"], 2);
    let report = am(&["inspect", "--home", home.to_str().unwrap(), "--json"]).json();
    assert_eq!(report["records"], 45);
}

#[test]
fn a_home_ingested_with_position_only_keys_forms_nothing_on_a_reingest_of_the_same_file() {
    // Earlier releases keyed a turn `<owner>:<session>:<index>`: form the
    // first demo turn that way, then ingest the demo file.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("old.sqlite3");
    let script = r#"{"op": "clock", "now": "2026-03-02T09:00:00Z"}
{"op": "remember", "record": {"kind": "episode", "title": "Ada — session 1", "digest": "Morning! I finally signed the lease on the allotment behind the library, plot 14.", "participants": ["person:ada"], "attributes": {"session": "1", "turn": 0}}, "scope": "life", "owner_id": "demo", "idempotency_key": "demo:1:0"}
"#;
    let out = am_with_input(
        &[
            "exec",
            "--embedder",
            "offline",
            "--home",
            home.to_str().unwrap(),
            "-",
        ],
        script,
    );
    assert!(!out.stdout.contains("\"error\""), "{}", out.stdout);
    let conv = common::demo_conversation();
    let r = ingest(&home, &conv, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        (
            r.json()["formed"].clone(),
            r.json()["already_stored"].clone()
        ),
        (json!(42), json!(1))
    );
}

#[test]
fn ingest_counts_only_what_this_run_formed_beside_a_concurrent_ingest() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("shared.sqlite3");
    let big: Vec<(String, String)> = (0..1500)
        .map(|i| {
            (
                format!("turn {i} of the long talk about beekeeping and hive {i}"),
                format!(
                    "2026-04-01T{:02}:{:02}:{:02}Z",
                    i / 3600,
                    (i / 60) % 60,
                    i % 60
                ),
            )
        })
        .collect();
    let big_turns: Vec<(&str, &str, &str, &str)> = big
        .iter()
        .map(|(t, at)| ("Ada", t.as_str(), at.as_str(), "long"))
        .collect();
    let small: Vec<(String, String)> = (0..150)
        .map(|i| {
            (
                format!("short note {i} on the choir"),
                format!("2026-04-02T00:{:02}:{:02}Z", i / 60, i % 60),
            )
        })
        .collect();
    let small_turns: Vec<(&str, &str, &str, &str)> = small
        .iter()
        .map(|(t, at)| ("Bo", t.as_str(), at.as_str(), "short"))
        .collect();
    let a = chat(dir.path(), "a.jsonl", &big_turns);
    let b = chat(dir.path(), "b.jsonl", &small_turns);
    // Create the home first, so both runs open an existing one.
    let seed = chat(
        dir.path(),
        "seed.jsonl",
        &[("Cy", "hello", "2026-01-01T00:00:00Z", "0")],
    );
    assert_eq!(ingest(&home, &seed, &[]).code, 0);
    let h = home.clone();
    let long = std::thread::spawn(move || ingest(&h, &a, &[]));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let short = ingest(&home, &b, &[]);
    let long = long.join().unwrap();
    assert_eq!(long.code, 0, "{}", long.stderr);
    assert_eq!(short.code, 0, "{}", short.stderr);
    assert_eq!(long.json()["formed"], 1500);
    assert_eq!(short.json()["formed"], 150);
}

#[test]
fn ingest_refuses_a_sqlite_file_of_another_application_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("app.db");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'x');")
            .unwrap();
    }
    let before = fingerprint(&db);
    let conv = common::demo_conversation();
    let out = ingest(&db, &conv, &[]);
    out.assert_refused(2, "not an AbstractMemory home");
    assert!(
        out.stderr.contains("customers") && out.stderr.contains("--force"),
        "{}",
        out.stderr
    );
    assert_eq!(fingerprint(&db), before, "the refused ingest wrote");
    let exec = am_with_input(
        &["exec", "--home", db.to_str().unwrap(), "-"],
        "{\"op\": \"current_seq\"}\n",
    );
    exec.assert_refused(2, "not an AbstractMemory home");
    assert_eq!(fingerprint(&db), before, "the refused exec wrote");
    let forced = ingest(&db, &conv, &["--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(forced.json()["formed"], 43);
}

#[test]
fn a_pinned_home_refuses_embedder_none_for_writes_unless_allow_vectorless() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let extra = chat(
        dir.path(),
        "x.jsonl",
        &[("Ada", "The pears are ripe.", "2026-06-01T10:00:00Z", "9")],
    );
    let before = seq(&home);
    let out = am(&[
        "--embedder",
        "none",
        "ingest",
        "--home",
        home.to_str().unwrap(),
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
        extra.to_str().unwrap(),
    ]);
    out.assert_refused(2, "pinned to minishlab/potion-base-2M");
    assert!(out.stderr.contains("--allow-vectorless"), "{}", out.stderr);
    assert_eq!(seq(&home), before);
    let exec = am_with_input(
        &[
            "--embedder",
            "none",
            "exec",
            "--home",
            home.to_str().unwrap(),
            "-",
        ],
        "{\"op\": \"current_seq\"}\n",
    );
    exec.assert_refused(2, "--allow-vectorless");
    let allowed = am(&[
        "--embedder",
        "none",
        "--allow-vectorless",
        "ingest",
        "--home",
        home.to_str().unwrap(),
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
        extra.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    assert_eq!(allowed.json()["formed"], 1);
}

#[test]
fn exec_on_a_pinned_home_defaults_to_the_pinned_embedder() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let out = am_with_input(
        &["exec", "--home", home.to_str().unwrap(), "-"],
        r#"{"op": "remember", "record": {"kind": "episode", "title": "t", "digest": "The pears are ripe."}, "scope": "life", "owner_id": "demo", "idempotency_key": "pears"}
"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("\"error\""), "{}", out.stdout);
    let c = rusqlite::Connection::open(&home).unwrap();
    let vectorless: i64 = c
        .query_row("SELECT COUNT(*) FROM triples WHERE embedding IS NULL AND object = 'The pears are ripe.'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        vectorless, 0,
        "exec wrote a vectorless row into a pinned home"
    );
}

#[test]
fn an_embedder_contradicting_the_pin_is_refused_naming_only_flags_am_has() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let extra = chat(
        dir.path(),
        "x.jsonl",
        &[("Ada", "The pears are ripe.", "2026-06-01T10:00:00Z", "9")],
    );
    for cmd in [
        vec![
            "--embedder",
            "openai:http://127.0.0.1:9/v1#other-model",
            "ingest",
            "--home",
            home.to_str().unwrap(),
            "--format",
            "jsonl",
            extra.to_str().unwrap(),
        ],
        vec![
            "--embedder",
            "openai:http://127.0.0.1:9/v1#other-model",
            "recall",
            "--home",
            home.to_str().unwrap(),
            "--scope",
            "life:demo",
            "pears",
        ],
    ] {
        let out = am(&cmd);
        out.assert_refused(2, "pinned to minishlab/potion-base-2M");
        assert!(out.stderr.contains("--embedder offline"), "{}", out.stderr);
        assert!(!out.stderr.contains("reembed_store"), "{}", out.stderr);
    }
}

#[test]
fn ingest_warns_of_a_turn_over_the_token_budget_and_recall_says_why_it_is_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("big.sqlite3");
    let huge = "The walrus colony on the northern beach grew again this year. ".repeat(300);
    let file = chat(
        dir.path(),
        "big.jsonl",
        &[
            ("Ada", &huge, "2026-07-01T10:00:00Z", "1"),
            (
                "Bo",
                "A short note about the walrus colony.",
                "2026-07-01T10:01:00Z",
                "1",
            ),
        ],
    );
    let text = am(&[
        "ingest",
        "--home",
        home.to_str().unwrap(),
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
        file.to_str().unwrap(),
    ]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stderr.contains("warning:") && text.stderr.contains("token budget of 2400"),
        "{}",
        text.stderr
    );
    let recall = am(&[
        "recall",
        "--home",
        home.to_str().unwrap(),
        "--scope",
        "life:demo",
        "walrus colony",
    ]);
    assert_eq!(recall.code, 0, "{}", recall.stderr);
    assert!(
        recall.stdout.contains("budget_exhausted"),
        "{}",
        recall.stdout
    );
    assert!(
        recall.stdout.contains("not shown: Ada — session 1")
            && recall
                .stdout
                .contains("more than the whole token budget of 2400"),
        "{}",
        recall.stdout
    );
}

#[test]
fn one_oversized_turn_does_not_make_recall_blame_the_budget_for_every_other_drop() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("mixed.sqlite3");
    let huge = "The walrus colony on the northern beach grew again this year. ".repeat(300);
    let notes: Vec<String> = (0..30)
        .map(|i| format!("Note {i} about the walrus colony on the beach."))
        .collect();
    let stamps: Vec<String> = (0..30)
        .map(|i| format!("2026-07-01T10:{:02}:00Z", i + 1))
        .collect();
    // The oversized turn is the newest, so the shelf meets it first (ties in
    // keyword overlap go to the newest) and every note after it is labelled
    // `budget_exhausted` by the shelf's rule.
    let mut turns: Vec<(&str, &str, &str, &str)> = notes
        .iter()
        .zip(&stamps)
        .map(|(note, at)| ("Bo", note.as_str(), at.as_str(), "1"))
        .collect();
    turns.push(("Ada", huge.as_str(), "2026-07-01T11:00:00Z", "1"));
    let file = chat(dir.path(), "mixed.jsonl", &turns);
    assert_eq!(ingest(&home, &file, &[]).code, 0);
    let recall = am(&[
        "recall",
        "--home",
        home.to_str().unwrap(),
        "--scope",
        "life:demo",
        "walrus colony",
    ]);
    assert_eq!(recall.code, 0, "{}", recall.stderr);
    let json = am(&[
        "--json",
        "recall",
        "--home",
        home.to_str().unwrap(),
        "--scope",
        "life:demo",
        "walrus colony",
    ])
    .json();
    let labelled = json["reconstruction"]["dropped"]
        .as_array()
        .expect("a dropped list")
        .iter()
        .filter(|d| d["reason"] == "budget_exhausted")
        .count();
    assert!(
        labelled > 1,
        "the shelf labels the notes budget_exhausted: {json}"
    );
    let out = &recall.stdout;
    // The oversized turn is named with its true cause, once.
    assert_eq!(out.matches("not shown:").count(), 1, "{out}");
    assert!(
        out.contains("more than the whole token budget of 2400"),
        "{out}"
    );
    // The short notes were left off because the shelf was full, and the text
    // says so instead of blaming their size.
    assert!(!out.contains("did not fit in what was left"), "{out}");
    assert!(
        out.contains("below the shelf, which was full (below_shelf)"),
        "{out}"
    );
}

#[test]
fn recall_warnings_name_no_internal_backlog_number() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("plain.sqlite3");
    let file = chat(
        dir.path(),
        "plain.jsonl",
        &[(
            "Ada",
            "The walrus colony grew.",
            "2026-07-01T10:00:00Z",
            "1",
        )],
    );
    assert_eq!(ingest(&home, &file, &[]).code, 0);
    for cue in ["walrus colony", "x"] {
        let recall = am(&[
            "--json",
            "recall",
            "--home",
            home.to_str().unwrap(),
            "--scope",
            "life:demo",
            cue,
        ]);
        assert_eq!(recall.code, 0, "{}", recall.stderr);
        assert!(
            !recall.stdout.contains("0019") && !recall.stderr.contains("0019"),
            "{cue}: {}{}",
            recall.stdout,
            recall.stderr
        );
    }
}

// -- recall output ----------------------------------------------------------------

const HOSTILE: &str = "clear\u{1b}[2J screen \u{202e}desrever\u{202c} bell\u{7} cr\rline";

fn hostile_home(dir: &Path) -> PathBuf {
    let home = dir.join("hostile.sqlite3");
    let file = chat(
        dir,
        "hostile.jsonl",
        &[
            (
                "Eve\u{1b}[31m",
                &format!("hostile {HOSTILE}"),
                "2026-08-01T10:00:00Z",
                "1",
            ),
            (
                "Ada",
                "an ordinary turn about hostile strings",
                "2026-08-01T10:01:00Z",
                "1",
            ),
        ],
    );
    let out = ingest(&home, &file, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    home
}

fn assert_terminal_safe(text: &str) {
    for bad in ['\u{1b}', '\u{202e}', '\u{202c}', '\u{7}', '\r', '\u{0}'] {
        assert!(
            !text.contains(bad),
            "raw {bad:?} reached the terminal: {text:?}"
        );
    }
}

#[test]
fn text_output_escapes_control_characters_and_json_stays_exact() {
    let dir = tempfile::tempdir().unwrap();
    let home = hostile_home(dir.path());
    let h = home.to_str().unwrap();
    let recall = am(&["recall", "--home", h, "--scope", "life:demo", "hostile"]);
    assert_eq!(recall.code, 0, "{}", recall.stderr);
    assert_terminal_safe(&recall.stdout);
    assert_terminal_safe(&recall.stderr);
    assert!(
        recall.stdout.contains("clear\\u{1b}[2J"),
        "{}",
        recall.stdout
    );
    assert!(
        recall.stdout.contains("\\u{202e}desrever"),
        "{}",
        recall.stdout
    );
    let query = am(&["query", "--home", h, "--scope", "life:demo"]);
    assert_eq!(query.code, 0, "{}", query.stderr);
    assert_terminal_safe(&query.stdout);
    let json = am(&[
        "recall",
        "--home",
        h,
        "--scope",
        "life:demo",
        "hostile",
        "--json",
    ])
    .json();
    let digests: Vec<&str> = json["reconstruction"]["handles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["digest"].as_str())
        .collect();
    assert!(digests.iter().any(|d| d.contains(HOSTILE)), "{digests:?}");
}

#[test]
fn each_shelf_item_shows_its_date_score_and_admission_in_words_with_labelled_components() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let out = am(&[
        "recall",
        "--home",
        home.to_str().unwrap(),
        "--scope",
        "life:demo",
        "--k",
        "3",
        "aphids on the beans",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = out.stdout.lines().next().unwrap();
    let shape = regex::Regex::new(
        r"^  1\. 2026-\d\d-\d\d \d\d:\d\d  score [01]\.\d\d  matched the cue \[stimulus\]$",
    )
    .unwrap();
    assert!(shape.is_match(first), "{first}");
    for label in [
        "cue matched: ",
        "recently used: activation ",
        "who: person:",
        "cues: ",
        "id: ",
    ] {
        assert!(out.stdout.contains(label), "no {label:?}: {}", out.stdout);
    }
}

#[test]
fn an_unknown_or_miscased_scope_answers_no_such_scope_listing_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let miscased = am(&["recall", "--home", h, "--scope", "life:Demo", "aphids"]);
    miscased.assert_refused(2, "no such scope");
    assert!(
        miscased.stderr.contains("known: life:demo")
            && miscased.stderr.contains("did you mean life:demo"),
        "{}",
        miscased.stderr
    );
    am(&["recall", "--home", h, "--scope", "work:demo", "aphids"])
        .assert_refused(2, "known: life:demo");
    am(&["query", "--home", h, "--scope", "work"]).assert_refused(2, "no such scope");
    am(&["query", "--home", h, "--scope", "life:nobody"]).assert_refused(2, "known: life:demo");
    assert_eq!(seq(&home), 43);
}

#[test]
fn commit_without_used_is_refused_and_used_commits_only_the_named_handles() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let base = ["recall", "--home", h, "--scope", "life:demo", "--k", "4"];
    let with = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        am(&args)
    };
    with(&["--commit", "hiking in Scotland"]).assert_refused(2, "--used");
    with(&["--used", "9", "hiking in Scotland"]).assert_refused(2, "no such shelf position");
    with(&["--used", "ex:nothing", "hiking in Scotland"])
        .assert_refused(2, "not a record id on this shelf");
    assert_eq!(seq(&home), 43, "a refused commit journaled something");
    let shelf = with(&["hiking in Scotland", "--json"]).json();
    let handles = shelf["reconstruction"]["handles"]
        .as_array()
        .unwrap()
        .clone();
    assert!(handles.len() >= 2);
    let out = with(&["--commit", "--used", "2", "hiking in Scotland", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let used = out.json()["commit"]["snapshot"]["used_record_ids"].clone();
    assert_eq!(used, json!([handles[1]["record_id"]]));
    let by_id = with(&[
        "--used",
        handles[0]["record_id"].as_str().unwrap(),
        "hiking in Scotland",
        "--json",
    ]);
    assert_eq!(
        by_id.json()["commit"]["snapshot"]["used_record_ids"],
        json!([handles[0]["record_id"]])
    );
}

#[test]
fn query_marks_closed_and_hidden_records_in_its_text_output() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("marks.sqlite3");
    let script = r#"{"op": "clock", "now": "2026-01-01T00:00:00Z"}
{"op": "remember_many", "records": [{"kind": "episode", "title": "kept", "digest": "kept text"}, {"kind": "episode", "title": "closed", "digest": "closed text"}, {"kind": "episode", "title": "hidden", "digest": "hidden text"}], "scope": "life", "owner_id": "m", "idempotency_key": "k"}
"#;
    let out = am_with_input(&["exec", "--home", home.to_str().unwrap(), "-"], script);
    let ids =
        serde_json::from_str::<Value>(out.stdout.lines().nth(1).unwrap()).unwrap()["ok"].clone();
    let script = format!(
        "{}\n{}\n{}\n",
        json!({"op": "close_record", "record_id": ids[1], "reason": "wrong"}),
        json!({"op": "bind", "record_id": ids[2], "scope": "life", "owner_id": "m", "search_state": "hidden"}),
        json!({"op": "add", "assertions": [{"subject": "ex:a", "predicate": "p", "object": "windowed", "scope": "life", "owner_id": "m", "valid_from": "2025-01-01T00:00:00Z", "valid_until": "2025-06-01T00:00:00Z"}]}),
    );
    let out = am_with_input(&["exec", "--home", home.to_str().unwrap(), "-"], &script);
    assert!(!out.stdout.contains("\"error\""), "{}", out.stdout);
    let text = am(&[
        "query",
        "--home",
        home.to_str().unwrap(),
        "--scope",
        "life:m",
    ])
    .stdout;
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle}: {text}"))
            .to_owned()
    };
    assert!(
        line("closed text").starts_with("[closed (retract)] "),
        "{text}"
    );
    assert!(line("hidden text").starts_with("[hidden] "), "{text}");
    assert!(
        line("windowed").starts_with("[window ended 2025-06-01"),
        "{text}"
    );
    assert!(line("kept text").starts_with(|c: char| c != '['), "{text}");
}

// -- smaller refusals -----------------------------------------------------------------

#[test]
fn add_refuses_a_window_that_ends_before_it_starts_and_writes_nothing() {
    let script = r#"{"op": "add", "assertions": [{"subject": "a", "predicate": "p", "object": "o", "scope": "s", "valid_from": "2026-02-01T00:00:00Z", "valid_until": "2026-01-01T00:00:00Z"}]}
{"op": "add", "assertions": [{"subject": "a", "predicate": "p", "object": "empty window", "scope": "s", "valid_from": "2026-02-01T00:00:00Z", "valid_until": "2026-02-01T00:00:00Z"}]}
{"op": "query", "q": {"scope": "s"}}
"#;
    let out = am_with_input(&["exec", "--memory", "-"], script);
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["error"]["kind"], "InvalidInput", "{}", out.stdout);
    assert!(
        lines[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("before valid_from")
    );
    assert!(
        lines[1].get("ok").is_some(),
        "an empty window is allowed: {}",
        out.stdout
    );
    let rows = lines[2]["ok"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["object"], "empty window");
}

#[test]
fn close_assertion_answers_false_for_an_unknown_id_and_the_docs_say_why() {
    let out = am_with_input(
        &["exec", "--memory", "-"],
        "{\"op\": \"close_assertion\", \"assertion_id\": \"no-such-id\", \"valid_until\": \"2026-01-01T00:00:00Z\"}\n",
    );
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["ok"], json!(false), "{}", out.stdout);
    let docs = exec_docs();
    let row = docs
        .lines()
        .find(|l| l.starts_with("| `close_assertion` |"))
        .unwrap();
    assert!(row.contains("`false` for an unknown id"), "{row}");
}

// -- docs ----------------------------------------------------------------------------

fn exec_docs() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/exec.md"))
        .unwrap()
}

#[test]
fn docs_exec_md_lists_the_stimulus_and_recall_budget_fields_with_their_defaults() {
    let docs = exec_docs();
    let budget = serde_json::to_value(am_system::RecallBudget::default()).unwrap();
    for (field, default) in budget.as_object().unwrap() {
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{field}` |")))
            .unwrap_or_else(|| panic!("docs/exec.md lists no RecallBudget field {field}"));
        let shown = match default {
            Value::Null => "`null`".to_owned(),
            other => other.to_string(),
        };
        assert!(
            row.contains(&format!("| {shown} |")),
            "{field}: default {shown} not in {row}"
        );
    }
    let stimulus = serde_json::to_value(am_system::Stimulus::new("x")).unwrap();
    for field in stimulus.as_object().unwrap().keys() {
        assert!(
            docs.lines()
                .any(|l| l.starts_with(&format!("| `{field}` |"))
                    || l.starts_with(&format!("| **`{field}`** |"))),
            "docs/exec.md lists no Stimulus field {field}"
        );
    }
    assert!(
        !docs.contains("EXEC-PROTOCOL"),
        "docs/exec.md points at a file outside the repository"
    );
}

#[test]
fn docs_exec_md_marks_every_argument_an_op_requires() {
    let docs = exec_docs();
    // The rows of the op tables (header `| op | arguments | answer |`).
    let mut ops: Vec<String> = Vec::new();
    let mut in_ops = false;
    for l in docs.lines() {
        if l.starts_with("| op |") {
            in_ops = true;
        } else if !l.starts_with('|') {
            in_ops = false;
        } else if in_ops && let Some(rest) = l.strip_prefix("| `") {
            ops.extend(rest.split_once("` |").map(|(op, _)| op.to_owned()));
        }
    }
    let script: String = ops
        .iter()
        .map(|op| json!({"op": op}).to_string() + "\n")
        .collect();
    let out = am_with_input(&["exec", "--memory", "-"], &script);
    let name =
        regex::Regex::new(r#"missing (?:required argument|field) [`"]([a-z_]+)[`"]"#).unwrap();
    let mut checked = 0;
    for line in out.stdout.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let Some(msg) = v["error"]["message"].as_str() else {
            continue;
        };
        let Some(arg) = name.captures(msg).map(|c| c[1].to_owned()) else {
            continue;
        };
        let op = v["op"].as_str().unwrap();
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{op}` |")))
            .unwrap();
        assert!(
            row.contains(&format!("**`{arg}`**")),
            "{op} requires {arg}, which docs/exec.md does not mark: {row}"
        );
        checked += 1;
    }
    assert!(
        checked >= 20,
        "only {checked} ops named a missing argument: {}",
        out.stdout
    );
}

#[test]
fn ingest_names_the_fields_it_does_not_store() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("f.sqlite3");
    let file = dir.path().join("f.jsonl");
    std::fs::write(
        &file,
        "{\"speaker\": \"Ada\", \"text\": \"hi\", \"at\": \"2026-01-01T00:00:00\", \"session\": 1, \"role\": \"user\", \"id\": 7}\n",
    )
    .unwrap();
    let out = ingest(&home, &file, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let w = out.json()["warnings"][0].as_str().unwrap().to_owned();
    assert!(
        w.contains("role (first on line 1)") && w.contains("id (first on line 1)"),
        "{w}"
    );
}

#[test]
fn an_exec_remember_with_a_reused_key_and_other_content_answers_a_warning_naming_the_key() {
    let script = r#"{"op": "remember", "record": {"kind": "episode", "title": "a", "digest": "first text"}, "scope": "life", "owner_id": "o", "idempotency_key": "k-1"}
{"op": "remember", "record": {"kind": "episode", "title": "a", "digest": "first text"}, "scope": "life", "owner_id": "o", "idempotency_key": "k-1"}
{"op": "remember", "record": {"kind": "episode", "title": "a", "digest": "other text"}, "scope": "life", "owner_id": "o", "idempotency_key": "k-1"}
"#;
    let out = am_with_input(&["exec", "--memory", "-"], script);
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reuse = |v: &Value| {
        v["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .any(|w| w.contains("\"k-1\"") && w.contains("NOT formed"))
    };
    assert!(!reuse(&lines[1]), "a true replay warned: {}", out.stdout);
    assert!(reuse(&lines[2]), "no key-reuse warning: {}", out.stdout);
    assert_eq!(lines[2]["ok"], lines[0]["ok"], "the stored record is kept");
}
