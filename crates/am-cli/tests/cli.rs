//! `am ingest`, `am query` and `am inspect` against real SQLite homes.

mod common;

use common::{am, demo_home, fingerprint};

#[test]
fn ingest_forms_one_record_per_turn_and_a_replay_forms_none() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let conv = common::demo_conversation();
    let again = am(&[
        "ingest",
        "--home",
        h,
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
        conv.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.json()["turns"], 43);
    assert_eq!(again.json()["formed"], 0);
    let report = am(&["inspect", "--home", h, "--json"]).json();
    assert_eq!(report["records"], 43);
    assert_eq!(report["records_by_kind"]["episode"], 43);
    assert_eq!(report["journal"]["current_seq"], 43);
}

#[test]
fn ingested_turns_carry_the_protocol_fields_and_the_turn_instant() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let out = am(&[
        "query",
        "--home",
        home.to_str().unwrap(),
        "--scope",
        "life:demo",
        "--limit",
        "1",
        "--order",
        "asc",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let row = &out.json()["assertions"][0];
    assert_eq!(row["observed_at"], "2026-03-02T09:00:00.000000+00:00");
    assert_eq!(row["attributes"]["title"], "Ada — session 1");
    assert_eq!(row["attributes"]["record_kind"], "episode");
    assert_eq!(
        row["attributes"]["participants"],
        serde_json::json!(["person:ada"])
    );
    assert_eq!(
        (row["scope"].as_str(), row["owner_id"].as_str()),
        (Some("life"), Some("demo"))
    );
}

#[test]
fn query_takes_a_whole_triple_query_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let out = am(&[
        "query",
        "--home",
        home.to_str().unwrap(),
        "--json-query",
        r#"{"scope": "life", "owner_id": "demo", "query_text": "midge repellent", "limit": 3}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows = out.json()["assertions"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter()
            .all(|r| r["attributes"]["_retrieval"]["metric"] == "cosine")
    );
}

#[test]
fn inspect_is_read_only_on_the_home_file() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let before = fingerprint(&home);
    let out = am(&["inspect", "--home", home.to_str().unwrap(), "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = out.json();
    assert_eq!(
        report["embedding_pin"]["model_id"],
        "minishlab/potion-base-2M"
    );
    assert_eq!(report["embedding_pin"]["dimension"], 64);
    assert_eq!(report["vectors"]["dimension"], 64);
    assert_eq!(report["by_scope"]["life"]["assertions"], 43);
    assert_eq!(report["by_scope"]["life"]["owners"], 1);
    assert_eq!(
        fingerprint(&home),
        before,
        "inspect changed the home's bytes or mtime"
    );
    let human = am(&["inspect", "--home", home.to_str().unwrap()]);
    assert!(
        human.stdout.contains("journal seq   43"),
        "{}",
        human.stdout
    );
    assert_eq!(fingerprint(&home), before);
}

#[test]
fn inspect_reads_a_live_home_while_another_connection_holds_it_open() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    // A live writer: an exec session with the home open, mid-script.
    let live = am_backend_sqlite::SqliteHome::open(&home).unwrap();
    let out = am(&["inspect", "--home", home.to_str().unwrap(), "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["records"], 43);
    drop(live);
}

#[test]
fn inspect_counts_records_per_kind_and_assertions_per_scope() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("mixed.sqlite3");
    let script = r#"{"op": "remember_many", "records": [{"kind": "episode", "title": "e", "digest": "an episode"}, {"kind": "lesson", "title": "l", "digest": "a lesson", "edges": [["derived_from", "local:0"]]}, {"kind": "episode", "title": "e2", "digest": "another episode"}], "scope": "life", "owner_id": "a", "idempotency_key": "k1"}
{"op": "remember", "record": {"kind": "summary", "title": "s", "digest": "a summary", "edges": [["summarizes", "ex:episode-e2f049d843a6749cfba436ee4a"]]}, "scope": "work", "owner_id": "b", "idempotency_key": "k2"}
{"op": "add", "assertions": [{"subject": "ex:plain", "predicate": "likes", "object": "tea", "scope": "life", "owner_id": "c"}]}
"#;
    let out = common::am_with_input(&["exec", "--home", home.to_str().unwrap(), "-"], script);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("\"error\""), "{}", out.stdout);
    let r = am(&["inspect", "--home", home.to_str().unwrap(), "--json"]).json();
    assert_eq!(
        r["records_by_kind"],
        serde_json::json!({"episode": 2, "lesson": 1, "summary": 1})
    );
    assert_eq!(r["records"], 4);
    // Digests, edges and the plain triple.
    assert_eq!(r["by_scope"]["life"]["owners"], 2);
    // The owner ids, so a reader knows what `recall --scope life:<owner>` takes.
    assert_eq!(
        r["by_scope"]["life"]["owner_ids"],
        serde_json::json!(["a", "c"])
    );
    assert_eq!(r["by_scope"]["work"]["owner_ids"], serde_json::json!(["b"]));
    let text = am(&["inspect", "--home", home.to_str().unwrap()]).stdout;
    assert!(
        text.contains("owners: a, c (recall --scope life:<owner>)"),
        "{text}"
    );
    assert_eq!(
        r["assertions"],
        r["by_scope"]["life"]["assertions"].as_i64().unwrap()
            + r["by_scope"]["work"]["assertions"].as_i64().unwrap()
    );
    // A new home formed through `am exec` gets the bundled offline embedder,
    // as one formed through `am ingest` does (issue 37: one default).
    assert_eq!(
        r["embedding_pin"]["model_id"],
        am_embed::POTION_BASE_2M_MODEL_ID
    );
    let memory = common::am_with_input(&["exec", "--memory", "-"], r#"{"op": "embedding_pin"}"#);
    assert_eq!(
        memory.stdout.trim(),
        r#"{"id":null,"op":"embedding_pin","ok":null}"#,
        "--memory keeps no embedder"
    );
    // A home that already holds rows but no pin (formed without an embedder)
    // stays vectorless: embedding only its new rows would mix the two.
    let bare = dir.path().join("bare.sqlite3");
    let b = bare.to_str().unwrap();
    let line = r#"{"op": "remember", "record": {"kind": "episode", "title": "t", "digest": "d"}, "scope": "life", "owner_id": "a", "idempotency_key": "KEY"}"#;
    let first = common::am_with_input(
        &["exec", "--home", b, "--embedder", "none", "-"],
        &line.replace("KEY", "k1"),
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let again = common::am_with_input(
        &["exec", "--home", b, "-"],
        &(line.replace("KEY", "k2") + "\n{\"op\": \"embedding_pin\"}"),
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again
            .stdout
            .ends_with("{\"id\":null,\"op\":\"embedding_pin\",\"ok\":null}\n"),
        "{}",
        again.stdout
    );
}

#[test]
fn versions_prints_a_records_readings_oldest_first_with_who_wrote_each() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let home_s = home.to_str().unwrap();
    let form = r#"{"id": 1, "op": "remember_many", "records": [{"kind": "lesson", "title": "Soil first", "digest": "Test the soil before planting."}], "scope": "life", "owner_id": "demo", "idempotency_key": "v-1"}"#;
    // The answer names the record; rewrite it by that id.
    let out = common::am_with_input(&["exec", "--home", home_s, "-"], form);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first: serde_json::Value =
        serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    let id = first["ok"][0].as_str().unwrap().to_owned();
    let rewrite = format!(
        r#"{{"id": 2, "op": "rewrite_digest", "record_id": "{id}", "text": "Test the soil, then plant beans.", "author": {{"kind": "operator", "id": "ada"}}, "cause": "operator", "expected_version": 0}}"#
    );
    let out = common::am_with_input(&["exec", "--home", home_s, "-"], &rewrite);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(r#""outcome":"applied""#),
        "{}",
        out.stdout
    );
    let before = std::fs::read(&home).unwrap();
    let text = am(&["versions", "--home", home_s, &id]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(
        lines[0].starts_with("v0 digest ") && lines[0].contains("by entity-mind:demo"),
        "{}",
        text.stdout
    );
    assert_eq!(lines[1], "    Test the soil before planting.");
    assert!(
        lines[2].starts_with("v1 digest [current] ") && lines[2].contains("by operator:ada"),
        "{}",
        text.stdout
    );
    assert_eq!(lines[3], "    Test the soil, then plant beans.");
    let json = am(&["versions", "--home", home_s, &id, "--json"]).json();
    assert_eq!(json.as_array().map(Vec::len), Some(2));
    assert_eq!(
        (json[0]["current"].as_bool(), json[1]["current"].as_bool()),
        (Some(false), Some(true))
    );
    assert_eq!(
        std::fs::read(&home).unwrap(),
        before,
        "versions is read-only"
    );
    let unknown = am(&["versions", "--home", home_s, "ex:nothing"]);
    assert_ne!(unknown.code, 0);
}

#[test]
fn tasks_prints_the_queue_counts_live_tasks_the_next_window_and_the_debt() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let home_s = home.to_str().unwrap();
    let form = r#"{"id": 1, "op": "remember_many", "records": [{"kind": "episode", "title": null, "digest": "Untitled so far.", "pending": ["title"]}, {"kind": "lesson", "title": "Pools", "digest": "pools: load", "attributes": {"digest_method": "mechanical-v1"}}], "scope": "life", "owner_id": "demo", "idempotency_key": "t-1"}"#;
    let out = common::am_with_input(&["exec", "--home", home_s, "--task-queue", "-"], form);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(r#""ok":["#), "{}", out.stdout);
    let before = std::fs::read(&home).unwrap();
    let text = am(&[
        "tasks",
        "--home",
        home_s,
        "--budget-s",
        "30",
        "--sensitivity",
        "1.0",
        "--scope",
        "life:demo",
    ]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let t = &text.stdout;
    assert!(t.starts_with("tasks: 2 total, 2 live\n"), "{t}");
    assert!(t.contains("  title.author: pending 1\n"), "{t}");
    assert!(t.contains("  digest.rewrite: pending 1\n"), "{t}");
    assert!(t.contains("live tasks: 2\n"), "{t}");
    assert!(
        t.contains("next turn window (budget 30.0 s, sensitivity 1.0): 1 selected"),
        "{t}"
    );
    assert!(
        t.contains(": over_budget\n"),
        "one task left out for the budget: {t}"
    );
    assert!(t.contains("debt: 2 total, 0 unqueued\n"), "{t}");
    let json = am(&[
        "tasks",
        "--home",
        home_s,
        "--budget-s",
        "30",
        "--scope",
        "life:demo",
        "--json",
    ])
    .json();
    assert_eq!(json["counts"]["live"], 2);
    assert_eq!(json["live"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["selection"]["tasks"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["selection"]["left_out"][0]["reason"], "over_budget");
    assert_eq!(json["debt"]["total"], 2);
    assert_eq!(std::fs::read(&home).unwrap(), before, "am tasks only reads");
    let bad = am(&["tasks", "--home", home_s, "--window", "weekend"]);
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.contains("--window"), "{}", bad.stderr);
}

/// A SQLite home with three records and one ripple seeded on the first:
/// `(home, seed id, summary id, ripple id)`.
fn ripple_home(dir: &std::path::Path) -> (std::path::PathBuf, String, String, String) {
    let home = dir.join("home.sqlite3");
    let home_s = home.to_str().unwrap();
    let form = r#"{"id": 1, "op": "remember_many", "records": [{"kind": "episode", "title": "Ada moves away", "digest": "Ada said she will give up plot 14."}, {"kind": "summary", "title": "The allotment", "digest": "Ada keeps plot 14.", "edges": [["summarizes", "local:0"]]}, {"kind": "observation", "title": "A note", "digest": "Plot 14 was mentioned.", "edges": [["mentions", "local:0"]]}], "scope": "life", "owner_id": "entity:castor", "idempotency_key": "r-1"}"#;
    let out = common::am_with_input(&["exec", "--home", home_s, "--task-queue", "-"], form);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let formed: serde_json::Value =
        serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    let seed = formed["ok"][0].as_str().unwrap().to_owned();
    let summary = formed["ok"][1].as_str().unwrap().to_owned();
    let line = format!(
        r#"{{"id": 2, "op": "seed_ripple", "seed_id": "{seed}", "cause": "backfill", "surprise": "I thought Ada would stay."}}"#
    );
    let out = common::am_with_input(&["exec", "--home", home_s, "--task-queue", "-"], &line);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let seeded: serde_json::Value =
        serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    let ripple_id = seeded["ok"]["ripple_id"].as_str().unwrap().to_owned();
    (home, seed, summary, ripple_id)
}

#[test]
fn ripples_lists_the_ripples_and_one_ripples_decisions_hop_by_hop() {
    let dir = tempfile::tempdir().unwrap();
    let (home, seed, summary, ripple_id) = ripple_home(dir.path());
    let home_s = home.to_str().unwrap();
    let before = std::fs::read(&home).unwrap();
    let text = am(&["ripples", "--home", home_s, "--owner", "entity:castor"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.starts_with("ripples: 1\n"), "{}", text.stdout);
    assert!(
        text.stdout.contains(&format!("  {ripple_id} open seed {seed} cause backfill revised magnitude 0.600 changed 0 left out 0")),
        "{}",
        text.stdout
    );
    let none = am(&[
        "ripples",
        "--home",
        home_s,
        "--status",
        "consolidated",
        "--json",
    ])
    .json();
    assert_eq!(none, serde_json::json!([]));
    let json = am(&["ripples", "--home", home_s, "--json"]).json();
    assert_eq!(json[0]["ripple_id"], serde_json::json!(ripple_id));
    let one = am(&["ripples", "--home", home_s, &ripple_id]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    let t = &one.stdout;
    assert!(t.contains("surprise: I thought Ada would stay.\n"), "{t}");
    assert!(t.contains("hop 1:\n"), "{t}");
    assert!(
        t.contains(&format!("  reconsider {summary} via summarizes from {seed}: received 0.600 x reliance 1.000 -> potential 0.300")),
        "{t}"
    );
    assert!(t.contains(" below_floor "), "{t}");
    assert!(t.contains("tasks: 1\n"), "{t}");
    let one_json = am(&["ripples", "--home", home_s, &ripple_id, "--json"]).json();
    assert_eq!(one_json["decisions"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        std::fs::read(&home).unwrap(),
        before,
        "am ripples only reads"
    );
    let bad = am(&["ripples", "--home", home_s, "--status", "closed"]);
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.contains("--status"), "{}", bad.stderr);
    let unknown = am(&["ripples", "--home", home_s, "nope"]);
    assert_ne!(unknown.code, 0);
}

/// Issue 41 writes `am ripples HOME --owner ID [RIPPLE_ID]`: the home as the
/// first positional argument answers as `--home HOME` does; with `--home`
/// the one positional argument is the ripple; no home at all, or two, is
/// refused.
#[test]
fn ripples_takes_the_home_as_its_first_argument_as_issue_41_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (home, _seed, _summary, ripple_id) = ripple_home(dir.path());
    let home_s = home.to_str().unwrap();
    let by_flag = am(&["ripples", "--home", home_s, "--owner", "entity:castor"]);
    let by_position = am(&["ripples", home_s, "--owner", "entity:castor"]);
    assert_eq!(by_position.code, 0, "{}", by_position.stderr);
    assert!(
        by_position.stdout.starts_with("ripples: 1\n"),
        "{}",
        by_position.stdout
    );
    assert_eq!(by_position.stdout, by_flag.stdout);
    let one_by_flag = am(&["ripples", "--home", home_s, &ripple_id, "--json"]).json();
    let one_by_position = am(&["ripples", home_s, &ripple_id, "--json"]).json();
    assert_eq!(one_by_position["ripple_id"], serde_json::json!(ripple_id));
    assert_eq!(one_by_position, one_by_flag);
    let none = am(&["ripples", "--owner", "entity:castor"]);
    assert_ne!(none.code, 0);
    assert!(none.stderr.contains("needs the home"), "{}", none.stderr);
    let twice = am(&["ripples", "--home", home_s, home_s, &ripple_id]);
    assert_ne!(twice.code, 0);
    assert!(
        twice.stderr.contains("takes the home once"),
        "{}",
        twice.stderr
    );
    let missing = dir.path().join("absent.sqlite3");
    let absent = am(&["ripples", missing.to_str().unwrap()]);
    assert_ne!(absent.code, 0);
    assert!(!missing.exists(), "a missing home is not created");
}

/// `am sleep` on the demo home: one night, a line per sub-phase as it ends,
/// the readable report, the completion recorded, the waiting tasks counted.
#[test]
fn sleep_runs_one_night_a_line_per_sub_phase_then_the_report_and_records_its_completion() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let out = am(&["sleep", h, "--owner", "demo"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let phases: Vec<&str> = out
        .stderr
        .lines()
        .filter_map(|l| l.split_once(": ").map(|(p, _)| p))
        .collect();
    assert_eq!(
        phases,
        [
            "resolution",
            "maintenance",
            "world_models",
            "dream",
            "communities"
        ],
        "{}",
        out.stderr
    );
    let t = &out.stdout;
    assert!(
        t.starts_with("One night, resolution → maintenance → world_models → dream.\n"),
        "{t}"
    );
    assert!(t.contains("  dream: formed ex:dream-"), "{t}");
    assert!(
        t.contains("Completed: recorded as a night over life:demo.\n"),
        "{t}"
    );
    assert!(t.contains("why pending: no_author_supplied"), "{t}");
    let waiting: usize = t
        .lines()
        .find_map(|l| l.strip_prefix("Tasks waiting in the queue: "))
        .and_then(|n| n.trim_end_matches('.').parse().ok())
        .unwrap();
    assert!(waiting >= 2, "the dream's title and summary wait: {t}");
    let topics: usize = t
        .lines()
        .find_map(|l| l.strip_prefix("Topics: "))
        .and_then(|l| l.split(" new,").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a Topics line: {t}"));
    assert!(topics >= 1, "{t}");
    // The cadence moved: the boundary is memory's, and the only records
    // since the night are the topics `communities_pass` formed after it
    // (community records are formed records; the pass runs after the
    // night's completion, as the host runs it).
    let due = am(&["sleep", h, "--due", "--json"]).json();
    assert_eq!(due["records_since_maintenance"]["count"], topics);
    assert_eq!(
        due["records_since_maintenance"]["boundary_source"],
        "memory"
    );
    // The dream's narration waits: night-only work keeps a night due.
    assert!(
        due["maintenance_due"]["pending_tasks"].as_u64() >= Some(1),
        "{due}"
    );
}

/// `am topics` before and after `am sleep` (which runs `communities_pass`
/// after the night): no topics before the first sleep, then the topics
/// largest first, each pending without an author; `--json` is the payload.
#[test]
fn topics_before_the_first_sleep_say_so_and_after_a_sleep_list_the_topics() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let before = am(&["topics", h, "--owner", "demo"]);
    assert_eq!(before.code, 0, "{}", before.stderr);
    assert!(
        before.stdout.starts_with("No topics yet for life:demo"),
        "{}",
        before.stdout
    );
    let night = am(&["sleep", h, "--owner", "demo", "--json"]).json();
    let topics = &night["communities"];
    assert_eq!(topics["pass_name"], "communities_pass", "{night}");
    let formed = topics["written"].as_array().map_or(0, Vec::len);
    assert!(formed >= 1, "the demo home has topics: {topics}");
    let t = am(&["topics", h, "--owner", "demo"]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    assert!(
        t.stdout
            .starts_with(&format!("{formed} topic(s) of life:demo (version ")),
        "{}",
        t.stdout
    );
    assert!(
        t.stdout.contains("\n- pending [topic-"),
        "pending without an author: {}",
        t.stdout
    );
    let v = am(&["topics", h, "--owner", "demo", "--json"]).json();
    assert_eq!(v["version"], 2);
    assert_eq!(v["first_sleep_pending"], false);
    assert_eq!(v["communities"].as_array().map(Vec::len), Some(formed));
    let bad = am(&["topics", h, "--owner", " "]);
    assert_ne!(bad.code, 0);
}

/// `am ingest` into a home that keeps a task queue (it has slept) opens it
/// with the queue: each record it forms is placed in its provisional topic,
/// which `am topics` serves as `provisional_ids`.
#[test]
fn ingest_after_a_sleep_places_the_new_records_in_their_provisional_topics() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let night = am(&["sleep", h, "--owner", "demo", "--json"]);
    assert_eq!(night.code, 0, "{}", night.stderr);
    let more = dir.path().join("more.jsonl");
    std::fs::write(
        &more,
        "{\"speaker\": \"Ada\", \"text\": \"The tomato seedlings on plot 14 need staking before the weekend.\", \"at\": \"2026-03-20T09:00:00Z\", \"session\": \"9\"}\n\
         {\"speaker\": \"Bram\", \"text\": \"I will bring the bamboo canes to the allotment for the tomatoes.\", \"at\": \"2026-03-20T09:01:00Z\", \"session\": \"9\"}\n",
    )
    .unwrap();
    let out = am(&[
        "--embedder",
        "offline",
        "ingest",
        "--home",
        h,
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
        more.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = am(&["topics", h, "--owner", "demo", "--json"]).json();
    let placed: usize = v["communities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["provisional_ids"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(placed, 2, "both new turns placed: {v}");
}

#[test]
fn sleep_with_an_author_file_authors_the_nights_records_and_json_carries_the_night() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let answers: Vec<serde_json::Value> = (0..6)
        .map(|i| {
            serde_json::json!({"title": format!("Reading {i}"), "summary": format!("What night {i} saw."),
                               "author": {"kind": "operator", "id": "op:ada"}})
        })
        .collect();
    let file = dir.path().join("author.json");
    std::fs::write(&file, serde_json::to_string(&answers).unwrap()).unwrap();
    let v = am(&[
        "sleep",
        h,
        "--owner",
        "demo",
        "--author",
        file.to_str().unwrap(),
        "--json",
    ])
    .json();
    let night = &v["night"];
    assert_eq!(
        night["phases"],
        serde_json::json!(["resolution", "maintenance", "world_models", "dream"])
    );
    assert_eq!(night["authoring"]["failures"], serde_json::json!([]));
    let authored = night["authoring"]["authored"].as_array().unwrap().len();
    assert!(authored >= 2, "candidates and the dream authored");
    // The dream's narration waits, and each topic the answers did not reach
    // waits for its title and summary.
    let pending_topics = v["communities"]["pending"].as_array().unwrap().len();
    assert_eq!(
        v["tasks_waiting"],
        1 + 2 * pending_topics,
        "the narration and the pending topics' tasks: {v}"
    );
    assert_eq!(v["stopped_by_signal"], false);
    assert!(night["dream"]["dream_record_id"].is_string());
}

#[test]
fn sleep_cancelled_after_a_sub_phase_says_what_completed_and_records_no_completion() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let out = am(&[
        "sleep",
        h,
        "--owner",
        "demo",
        "--cancel-after",
        "maintenance",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let t = &out.stdout;
    assert!(
        t.contains("Cancelled after maintenance: the phases that ran are complete"),
        "{t}"
    );
    assert!(t.contains("  dream: none (cancelled: "), "{t}");
    let due = am(&["sleep", h, "--due", "--json"]).json();
    assert_eq!(
        due["records_since_maintenance"]["boundary_source"], "birth",
        "no completion recorded: {due}"
    );
    // The next night resumes and completes.
    let again = am(&["sleep", h, "--owner", "demo", "--json"]).json();
    assert_eq!(
        again["night"]["maintenance"]["created_count"], 0,
        "the candidates stood"
    );
    assert_eq!(
        again["night"]["completion"].as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn sleep_report_only_writes_nothing_and_due_prints_the_cadence_reads() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    // A first read gives the home its queue's tables (empty).
    assert_eq!(am(&["sleep", h, "--due"]).code, 0);
    let before = fingerprint(&home).0;
    let out = am(&["sleep", h, "--owner", "demo", "--report-only"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("Nothing recorded: a dry run (--report-only)."),
        "{}",
        out.stdout
    );
    let due = am(&["sleep", h, "--due"]);
    assert_eq!(due.code, 0, "{}", due.stderr);
    assert!(
        due.stdout
            .starts_with("records since the last completed night: "),
        "{}",
        due.stdout
    );
    assert!(
        due.stdout.contains("maintenance due: yes"),
        "{}",
        due.stdout
    );
    assert_eq!(
        fingerprint(&home).0,
        before,
        "a dry night and the cadence reads write nothing"
    );
}

#[test]
fn sleep_refuses_no_owner_an_unknown_phase_and_a_malformed_author_file() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let out = am(&["sleep", h]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--owner"), "{}", out.stderr);
    let out = am(&["sleep", h, "--owner", "demo", "--cancel-after", "mining"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("resolution, maintenance, world_models, dream"),
        "{}",
        out.stderr
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"title\": 1}").unwrap();
    let out = am(&[
        "sleep",
        h,
        "--owner",
        "demo",
        "--author",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("scripted author"), "{}", out.stderr);
    let out = am(&["sleep", h, "--due", "--report-only"]);
    assert_eq!(out.code, 2);
}

/// A home of `turns` generated turns in `life:demo` (a few sessions a day,
/// words drawn from a small garden vocabulary so the night has work): big
/// enough that a night's later sub-phases take a moment in a debug build.
fn generated_home(dir: &std::path::Path, turns: usize) -> std::path::PathBuf {
    const WORDS: [&str; 16] = [
        "pear", "plot", "lease", "council", "tomato", "beans", "compost", "shed", "frost", "spade",
        "midge", "library", "fence", "mulch", "slug", "garlic",
    ];
    const SPEAKERS: [&str; 4] = ["Ada", "Bram", "Cleo", "Dov"];
    let mut lines = String::new();
    for i in 0..turns {
        let text: Vec<&str> = (0..10)
            .map(|k| WORDS[(i * 7 + k * k * 3 + k) % 16])
            .collect();
        let turn = serde_json::json!({
            "speaker": SPEAKERS[i % 4],
            "text": format!("{} note {}.", text.join(" "), i % 97),
            "at": format!("2026-03-{:02}T{:02}:{:02}:00Z", 2 + i / 300, 9 + (i % 300) / 30, (i % 30) * 2),
            "session": (i / 40).to_string(),
        });
        lines.push_str(&turn.to_string());
        lines.push('\n');
    }
    let conv = dir.join("conversation.jsonl");
    std::fs::write(&conv, lines).unwrap();
    let home = dir.join("home.sqlite3");
    let out = am(&[
        "--embedder",
        "offline",
        "ingest",
        "--home",
        home.to_str().unwrap(),
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
        conv.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["formed"], turns);
    home
}

/// What a home holds, for comparing two homes: records by kind, the
/// journal's current seq, and SQLite's own integrity verdict.
fn holdings(home: &std::path::Path) -> (serde_json::Value, serde_json::Value, String) {
    let report = am(&["inspect", "--home", home.to_str().unwrap(), "--json"]).json();
    let c = rusqlite::Connection::open(home).unwrap();
    let integrity: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    (
        report["records_by_kind"].clone(),
        report["journal"]["current_seq"].clone(),
        integrity,
    )
}

/// `am sleep` stopped by `sig` mid-night, in a real child process on a real
/// SQLite home: the signal is sent as soon as the first sub-phase's line
/// appears (the second sub-phase is running). The night ends at the next
/// boundary: the phases before it whole (the home holds exactly what a
/// `--cancel-after` rehearsal at that boundary forms on a copy), the later
/// ones skipped saying so, the report says what completed, the exit code is
/// 128 + the signal, no completion is recorded (`records_since_maintenance`'s
/// boundary unmoved; `last_maintenance_seq`, the newest artifact's seq, where
/// the rehearsal's is), SQLite finds nothing torn; the next `am sleep`
/// completes the night.
fn a_signal_stops_the_night_at_the_next_boundary(sig: libc::c_int) {
    use std::io::{BufRead as _, Read as _};
    let dir = tempfile::tempdir().unwrap();
    let home = generated_home(dir.path(), 600);
    let h = home.to_str().unwrap();
    let due_before = am(&["sleep", h, "--due", "--json"]).json();
    let rehearsal = dir.path().join("rehearsal.sqlite3");
    std::fs::copy(&home, &rehearsal).unwrap();

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_am"))
        .args(["sleep", h, "--owner", "demo"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut lines = Vec::new();
    for line in std::io::BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if lines.is_empty() && line.starts_with("resolution: ") {
            // SAFETY: kill(2) on our own child's pid, which has not been
            // waited for yet and so cannot have been reused.
            #[allow(unsafe_code, reason = "kill(2) has no safe wrapper in libc")]
            let sent = unsafe { libc::kill(pid, sig) };
            assert_eq!(sent, 0, "the signal is delivered");
        }
        lines.push(line);
    }
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(128 + sig),
        "a stopped night exits 128 + the signal; stderr: {lines:?}"
    );

    // The report names the last stage that ran.
    let after = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Stopped (signal) after "))
        .and_then(|l| l.split_once(':'))
        .map(|(p, rest)| {
            assert!(
                rest.starts_with(" the phases that ran are complete"),
                "{stdout}"
            );
            p.to_owned()
        })
        .unwrap_or_else(|| panic!("the report says where the night stopped: {stdout}"));
    let phases = ["resolution", "maintenance", "world_models", "dream"];
    let stop = phases
        .iter()
        .position(|p| *p == after)
        .unwrap_or_else(|| panic!("stopped after a sub-phase, got {after:?}"));
    // A line per sub-phase, in order: the ones up to the boundary ran, the
    // later ones were skipped as cancelled after it.
    let accounts: Vec<(&str, &str)> = lines.iter().filter_map(|l| l.split_once(": ")).collect();
    assert_eq!(
        accounts.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        phases,
        "{lines:?}"
    );
    for (i, (phase, account)) in accounts.iter().enumerate() {
        let skipped = account.starts_with("cancelled: ");
        assert_eq!(skipped, i > stop, "{phase}: {account}");
        if skipped {
            assert!(account.contains(&format!("after {after}")), "{account}");
        }
    }
    assert!(
        !stdout.contains("Completed: recorded"),
        "a stopped night records no completion: {stdout}"
    );

    // No completion: the cadence boundary and last_maintenance_seq unmoved.
    let due_after = am(&["sleep", h, "--due", "--json"]).json();
    for key in ["boundary_source", "since", "last_maintenance_at"] {
        assert_eq!(
            due_after["records_since_maintenance"][key],
            due_before["records_since_maintenance"][key],
            "{key}: {due_after}"
        );
    }
    assert_eq!(
        due_after["records_since_maintenance"]["boundary_source"],
        "birth"
    );

    // Whole phases, nothing torn: the home holds what a rehearsal stopped at
    // the same boundary forms on a copy of the same home.
    let rehearsed = am(&[
        "sleep",
        rehearsal.to_str().unwrap(),
        "--owner",
        "demo",
        "--cancel-after",
        &after,
        "--json",
    ]);
    assert_eq!(rehearsed.code, 0, "{}", rehearsed.stderr);
    assert_eq!(rehearsed.json()["night"]["cancelled_after"], after.as_str());
    // `last_maintenance_seq` (maintenance_due's default `since_seq`) is, by
    // the spec (api.md, "the journal seq of the newest sleep artifact's
    // formation"), moved by the candidates or dream a whole phase formed,
    // not by the completion marker: it stands where the rehearsal's does.
    let due_rehearsed = am(&["sleep", rehearsal.to_str().unwrap(), "--due", "--json"]).json();
    assert_eq!(
        due_after["maintenance_due"]["since_seq"], due_rehearsed["maintenance_due"]["since_seq"],
        "{due_after}"
    );
    if stop == 0 {
        assert_eq!(
            due_after["maintenance_due"]["since_seq"], due_before["maintenance_due"]["since_seq"],
            "resolution forms no artifact: {due_after}"
        );
    }
    let (kinds, seq, integrity) = holdings(&home);
    assert_eq!(integrity, "ok");
    assert_eq!(
        (kinds, seq),
        {
            let (k, s, _) = holdings(&rehearsal);
            (k, s)
        },
        "the stopped night wrote exactly its whole phases"
    );
    let waiting = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Tasks waiting in the queue: "))
        .map(|n| n.trim_end_matches('.').to_owned());
    assert_eq!(
        waiting,
        Some(rehearsed.json()["tasks_waiting"].to_string()),
        "{stdout}"
    );

    // The next night completes the work and records its completion.
    let next = am(&["sleep", h, "--owner", "demo", "--json"]);
    assert_eq!(next.code, 0, "{}", next.stderr);
    let next = next.json();
    assert_eq!(next["stopped_by_signal"], false);
    assert!(next["night"].get("cancelled_after").is_none(), "{next}");
    assert_eq!(
        next["night"]["completion"].as_array().map(Vec::len),
        Some(1)
    );
    if stop >= 1 {
        assert_eq!(
            next["night"]["maintenance"]["created_count"], 0,
            "the stopped night's candidates stood"
        );
    }
    let due_done = am(&["sleep", h, "--due", "--json"]).json();
    assert_eq!(
        due_done["records_since_maintenance"]["boundary_source"],
        "memory"
    );
    assert_eq!(holdings(&home).2, "ok");
}

#[test]
fn sleep_stopped_by_sigint_ends_at_the_next_boundary_exits_130_and_records_no_completion() {
    a_signal_stops_the_night_at_the_next_boundary(libc::SIGINT);
}

#[test]
fn sleep_stopped_by_sigterm_ends_at_the_next_boundary_exits_143_and_records_no_completion() {
    a_signal_stops_the_night_at_the_next_boundary(libc::SIGTERM);
}
