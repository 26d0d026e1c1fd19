//! `am recall`, `am demo` and `am eval locomo` end to end on real SQLite homes
//! with the offline embedder.

mod common;

use common::{am, demo_home};
use serde_json::{Value, json};

#[test]
fn recall_prints_a_shelf_of_at_most_k_and_writes_nothing_without_commit() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let out = am(&[
        "recall",
        "--home",
        h,
        "--scope",
        "life:demo",
        "--k",
        "3",
        "aphids on the beans",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let handles = v["reconstruction"]["handles"].as_array().unwrap();
    assert!(!handles.is_empty() && handles.len() <= 3);
    assert!(
        handles
            .iter()
            .any(|h| h["digest"].as_str().unwrap().contains("aphids"))
    );
    assert_eq!(v["commit"], Value::Null);
    let seq = am(&["inspect", "--home", h, "--json"]).json()["journal"]["current_seq"].clone();
    assert_eq!(seq, 43, "a recall without --commit journals nothing");
    let human = am(&["recall", "--home", h, "--scope", "life:demo", "aphids"]);
    assert!(human.stdout.contains("[stimulus]"), "{}", human.stdout);
    assert!(human.stdout.contains("cues: "), "{}", human.stdout);
}

#[test]
fn recall_with_commit_used_deposits_one_selected_event_per_used_handle() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let out = am(&[
        "recall",
        "--home",
        h,
        "--scope",
        "life:demo",
        "--k",
        "2",
        "--commit",
        "--used",
        "1",
        "hiking in Scotland",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let used = v["commit"]["snapshot"]["used_record_ids"]
        .as_array()
        .unwrap()
        .len();
    let selected = v["commit"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "selected")
        .count();
    assert!(used >= 1);
    assert_eq!(selected, used);
    let seq = am(&["inspect", "--home", h, "--json"]).json()["journal"]["current_seq"]
        .as_i64()
        .unwrap();
    assert!(seq > 43, "the commit journaled the trace and the use");
}

#[test]
fn demo_runs_the_loop_with_no_flags_and_prints_each_shelf_and_deposit() {
    let out = am(&["demo"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("ingested 43 turns"), "{}", out.stdout);
    assert_eq!(
        out.stdout.matches("\nrecall: ").count(),
        4,
        "{}",
        out.stdout
    );
    assert_eq!(
        out.stdout.matches("  commit of the use of ").count(),
        4,
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("[stimulus]") && out.stdout.contains("cues: "));
    assert!(
        out.stdout.contains("deposited 1 selected"),
        "{}",
        out.stdout
    );
}

#[test]
fn demo_on_a_kept_home_forms_nothing_again_and_commits_its_own_reads() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("demo.sqlite3");
    let h = home.to_str().unwrap();
    let first = am(&["demo", "--home", h, "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = am(&["demo", "--home", h, "--json"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let (a, b) = (first.json(), second.json());
    assert_eq!(a["formed"], 43);
    assert_eq!(b["formed"], 0, "ingestion is idempotent");
    let commits = |v: &Value| -> Vec<Value> {
        v["recalls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["recall"]["commit"].clone())
            .collect()
    };
    let (ca, cb) = (commits(&a), commits(&b));
    assert_eq!(ca.len(), cb.len());
    for (x, y) in ca.iter().zip(&cb) {
        // Each run commits the reads it made: a new snapshot at a later seq
        // that deposits events, never a replay of the first run's commit.
        assert_ne!(x["snapshot"]["snapshot_id"], y["snapshot"]["snapshot_id"]);
        assert!(
            y["snapshot"]["seq"].as_i64().unwrap() > x["snapshot"]["seq"].as_i64().unwrap(),
            "{x} / {y}"
        );
        assert!(!y["events"].as_array().unwrap().is_empty(), "{y}");
    }
}

fn tiny_locomo() -> Value {
    // Original text written for this test, in LoCoMo's shape.
    json!([{
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Noor", "speaker_b": "Tomas",
            "session_1_date_time": "9:15 am on 3 March, 2025",
            "session_1": [
                {"speaker": "Noor", "dia_id": "D1:1", "text": "I adopted a grey cat from the shelter, her name is Pepper."},
                {"speaker": "Tomas", "dia_id": "D1:2", "text": "Lovely! I am training for the Rotterdam marathon in April."},
                {"speaker": "Noor", "dia_id": "D1:3", "text": "Good luck. I am repainting the kitchen yellow this weekend.", "blip_caption": "a can of yellow paint"}
            ],
            "session_2_date_time": "6:40 pm on 20 April, 2025",
            "session_2": [
                {"speaker": "Tomas", "dia_id": "D2:1", "text": "I finished the marathon in three hours and fifty minutes."},
                {"speaker": "Noor", "dia_id": "D2:2", "text": "Pepper knocked a plant off the windowsill yesterday."}
            ]
        },
        "qa": [
            {"question": "What is the name of Noor's cat?", "answer": "Pepper", "evidence": ["D1:1"], "category": 1},
            {"question": "How long did Tomas take to run the marathon?", "answer": "3:50", "evidence": ["D:2:1", "D1:2"], "category": 2},
            {"question": "What colour is the kitchen?", "answer": "yellow", "evidence": ["D1:03"], "category": 4},
            {"question": "Which evidence is missing?", "answer": "none", "evidence": ["D9:9"], "category": 1},
            {"question": "What did Tomas say about Pepper?", "adversarial_answer": "nothing", "evidence": ["D2:2"], "category": 5}
        ]
    }])
}

#[test]
fn eval_locomo_reports_recall_hit_and_latency_per_k_and_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("tiny.json");
    std::fs::write(&data, tiny_locomo().to_string()).unwrap();
    let out = am(&[
        "eval",
        "locomo",
        "--data",
        data.to_str().unwrap(),
        "--k",
        "1,5",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["turns"], 5);
    // The item whose evidence names no turn is dropped; category 5 stays apart.
    assert_eq!(v["questions"], 4);
    // The hybrid profile, the spec's default both ways, and the two peers.
    let names: Vec<&String> = v["configurations"].as_object().unwrap().keys().collect();
    assert_eq!(names.len(), 5, "{names:?}");
    for config in [
        "hybrid",
        "default",
        "keyword_discovery",
        "peer_bm25",
        "peer_bm25_dense_rrf60",
    ] {
        for k in ["1", "5"] {
            let main = &v["configurations"][config][k]["categories_1_4"];
            assert_eq!(main["questions"], 3, "{config} k={k}");
            assert_eq!(v["configurations"][config][k]["category_5"]["questions"], 1);
            // Per category: two of category 1 (one dropped), one of 2, one of 4.
            for (cat, n) in [("1", 1), ("2", 1), ("3", 0), ("4", 1)] {
                assert_eq!(
                    v["configurations"][config][k][format!("category_{cat}")]["questions"],
                    n,
                    "{config} k={k} category {cat}"
                );
            }
            let r = main["recall"].as_f64().unwrap();
            let hit = main["hit"].as_f64().unwrap();
            assert!(
                (0.0..=1.0).contains(&r) && r <= hit,
                "{config} k={k}: recall {r} hit {hit}"
            );
            assert!(main["median_ms"].as_f64().unwrap() <= main["p95_ms"].as_f64().unwrap());
        }
        // Five turns fit a shelf of five: every evidence turn is recalled.
        assert_eq!(
            v["configurations"][config]["5"]["categories_1_4"]["recall"],
            1.0
        );
    }
    let human = am(&[
        "eval",
        "locomo",
        "--data",
        data.to_str().unwrap(),
        "--k",
        "5",
        "--discovery",
        "off",
        "--profile",
        "spec",
    ]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.contains("recall@k"), "{}", human.stdout);
    // The table names only the configuration run (its warnings may name
    // the options that turn a degraded path off).
    let table = human.stdout.split("warnings:").next().unwrap_or_default();
    assert!(
        !table.contains("keyword_discovery") && !table.contains("hybrid"),
        "{}",
        human.stdout
    );
    // A hybrid override that is not a HybridConfig object is refused.
    for bad in ["[1]", "{\"rrf\": 1}", "not json"] {
        let out = am(&[
            "eval",
            "locomo",
            "--data",
            data.to_str().unwrap(),
            "--profile",
            "hybrid",
            "--hybrid",
            bad,
        ]);
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
        assert!(out.stderr.contains("--hybrid"), "{bad}: {}", out.stderr);
    }
}

#[test]
fn recall_uses_the_hybrid_profile_by_default_and_the_spec_default_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let home = demo_home(dir.path());
    let h = home.to_str().unwrap();
    let cues = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["recall", "--home", h, "--scope", "life:demo", "--json"];
        args.extend_from_slice(extra);
        args.push("aphids on the beans");
        let out = am(&args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.json()["reconstruction"]["handles"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|h| h["cues"].as_array().unwrap().clone())
            .map(|c| c.as_str().unwrap().to_owned())
            .collect()
    };
    let hybrid = cues(&[]);
    assert!(
        hybrid.iter().any(|c| c.starts_with("keyword: bm25 ")),
        "{hybrid:?}"
    );
    let spec = cues(&["--profile", "spec"]);
    assert!(
        spec.iter().any(|c| c.starts_with("keyword: matched ")),
        "{spec:?}"
    );
    assert!(
        !spec.iter().any(|c| c.starts_with("keyword: bm25 ")),
        "{spec:?}"
    );
}

#[test]
fn a_recall_does_not_pin_a_home_that_has_no_pin_and_says_when_its_vector_channel_failed() {
    let dir = tempfile::tempdir().unwrap();
    let home = common::demo_home_with(dir.path(), "pinless.sqlite3", "none");
    let h = home.to_str().unwrap();
    let pin = |h: &str| am(&["inspect", "--home", h, "--json"]).json()["embedding_pin"].clone();
    assert_eq!(pin(h), Value::Null);
    let out = am(&["recall", "--home", h, "--scope", "life:demo", "aphids"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(pin(h), Value::Null, "a read pinned the home");
    // An embedder that cannot be reached: the shelf still comes, and the text
    // output says on stderr that the vector channel did not run.
    let out = am(&[
        "--embedder",
        "gateway:http://127.0.0.1:1",
        "recall",
        "--home",
        h,
        "--scope",
        "life:demo",
        "aphids on the beans",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("aphids"), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("warning: #FALLBACK: vector channel unavailable"),
        "{}",
        out.stderr
    );
}
