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
    assert_eq!(report["vectors"]["stored"], 43);
    assert_eq!(report["by_scope"]["life"]["records"], 43);
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
