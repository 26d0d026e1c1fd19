//! Differential test against AbstractMemory 0.3.2 of the observability reads:
//! `tests/oracle/observe_home.py` lives a small home with 0.3.2 itself (the
//! lived-home generator plus a diary entry and a commit using it), copies it,
//! and prints 0.3.2's replay stream (six variants of the arguments) over it.
//! The Rust side opens the copy (the SQLite stack) and a copy of every row and
//! record into the in-memory pair (the other stack), and must answer the same.
//!
//! Needs `AM_ORACLE_PYTHON` (a python with `abstractmemory==0.3.2`).
//!
//! Deliberate differences from 0.3.2 (the 0.5.2 spec wins), asserted as such:
//! - `binding` display blocks carry the current `digest` text (api.md "Replay
//!   stream": "`binding` and `revision` envelopes also carry the current
//!   `digest` text"); 0.3.2's do not. Ours is checked against the row, then
//!   removed before comparing.
//! - Display blocks of formed records carry the current reading's provenance
//!   (`understanding_fields`: `digest_method`, `digest_version`,
//!   `version_count`, `authored_by`, `reader`, `understood_at`, `cause`, and
//!   `replaced_by` for a superseded record), diary blocks `authored_by`,
//!   `understood_at` and `cause` (api.md "Replay stream"); 0.3.2 has none.
//!   Ours are checked present, then removed before comparing.
//! - A snapshot's display row of a diary record is sealed to its id and token
//!   estimate (no diary words leave through any family); 0.3.2 streams it
//!   verbatim. Ours is checked to be sealed, then 0.3.2's row is sealed the
//!   same way before comparing.

mod common;

use am_journal::MemoryJournal;
use am_system::observe::replay::{ExportReplay, export_replay};
use am_triples::TripleStore;
use common::oracle::{OracleStacks as Stacks, open_copy, run_generator};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

fn build(seed: u64, dir: &Path) -> Value {
    run_generator(
        "observe_home.py",
        &[&seed.to_string(), dir.to_str().unwrap()],
    )
}

/// The 0.5.2 reading-provenance keys of a display block.
const READING_KEYS: [&str; 14] = [
    "digest_method",
    "digest_version",
    "version_count",
    "authored_by",
    "reader",
    "understood_at",
    "cause",
    "target",
    "target_type",
    "card_revision",
    "source_count",
    "narrated",
    "narration_version",
    "replaced_by",
];

/// Remove (after checking it) the reading provenance of one display block.
fn strip_reading(name: &str, block: &mut Value) {
    let Some(b) = block.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(pair)) = b.get_mut("pair") {
        pair.iter_mut().for_each(|m| strip_reading(name, m));
        return;
    }
    if b.contains_key("graph_id") && !b.get("kind").is_some_and(|k| k == "memory") {
        assert!(
            b.get("authored_by").is_some_and(Value::is_object) && b.contains_key("cause"),
            "[{name}] a formed record's block names who wrote its reading: {block}"
        );
    }
    for k in READING_KEYS {
        b.remove(k);
    }
}

/// Apply the deliberate differences (module doc) to one envelope pair.
fn reconcile(name: &str, ours: &mut Value, theirs: &mut Value, diary_ids: &[String]) {
    if let Some(d) = ours.get_mut("display") {
        strip_reading(name, d);
    }
    if ours["family"] == "binding"
        && let Some(d) = ours.get_mut("display").and_then(Value::as_object_mut)
        && d.get("redacted").is_none()
    {
        assert!(
            d.remove("digest").is_some_and(|t| t.is_string()),
            "[{name}] a binding's display block carries the digest: {ours}"
        );
    }
    if ours["family"] == "snapshot"
        && let (Some(o), Some(t)) = (
            ours["payload"]["display"].as_array(),
            theirs["payload"]["display"].as_array_mut(),
        )
    {
        for (orow, trow) in o.iter().zip(t.iter_mut()) {
            if orow.get("redacted").is_some() {
                let id = trow["record_id"].as_str().unwrap_or_default().to_owned();
                assert!(
                    diary_ids.contains(&id),
                    "[{name}] only a diary row is sealed: {orow}"
                );
                *trow = json!({"record_id": id, "redacted": "diary", "token_estimate": trow["token_estimate"]});
            }
        }
    }
}

#[test]
fn the_replay_stream_matches_abstractmemory_0_3_2_on_both_stacks() {
    let dir = tempfile::tempdir().unwrap();
    let oracle = build(7, dir.path());
    let stacks = open_copy(dir.path());
    // The diary entry's ids in both namespaces (its graph id and digest row).
    let diary_graph = oracle["diary"][0].as_str().unwrap().to_owned();
    let row = am_system::lookup::resolve_digest_assertion(stacks.pairs[0].1.as_ref(), &diary_graph)
        .unwrap()
        .unwrap();
    let diary_ids = vec![diary_graph.clone(), row.assertion_id.clone().unwrap()];
    let hw = oracle["final_seq"].as_i64().unwrap();
    let variants: Vec<(&str, ExportReplay)> = vec![
        ("default", ExportReplay::default()),
        (
            "plain",
            ExportReplay {
                enrich: false,
                ..ExportReplay::default()
            },
        ),
        (
            "traces",
            serde_json::from_value(json!({"families": ["trace", "snapshot"]})).unwrap(),
        ),
        (
            "session_s1",
            ExportReplay {
                scope: Some("Session".into()),
                owner_id: Some("s1".into()),
                ..ExportReplay::default()
            },
        ),
        (
            "window",
            ExportReplay {
                until_seq: Some(40.min(hw)),
                ..ExportReplay::since(10)
            },
        ),
        (
            "host",
            serde_json::from_value(json!({"families": ["host"]})).unwrap(),
        ),
    ];
    let mut sealed = 0;
    for (stack, store, journal) in &stacks.pairs {
        for (name, args) in &variants {
            let ours: Vec<Value> = export_replay(store.as_ref(), journal.as_ref(), args)
                .unwrap()
                .map(|e| serde_json::to_value(e.unwrap()).unwrap())
                .collect();
            let theirs = oracle["replay"][name].as_array().unwrap();
            assert_eq!(ours.len(), theirs.len(), "[{stack}/{name}] envelope count");
            for (mut o, t) in ours.into_iter().zip(theirs.iter()) {
                let mut t = t.clone();
                reconcile(name, &mut o, &mut t, &diary_ids);
                if o["family"] == "snapshot" && o.to_string().contains("\"redacted\"") {
                    sealed += 1;
                }
                assert_eq!(o, t, "[{stack}/{name}] seq {}", t["seq"]);
            }
        }
    }
    assert!(
        sealed > 0,
        "the diary entry entered a snapshot and was sealed"
    );
}

/// The mechanism a diagnosis sentence names (0.3.2's wording and ours
/// differ by design: the sentences are our own; the mechanisms must agree).
fn mechanism(sentence: &str) -> &'static str {
    let table: [(&[&str], &str); 7] = [
        (&["no digest row exists", "names no record"], "unformed"),
        (&["is CLOSED", "it is closed"], "closed"),
        (&["binding is HIDDEN", "a hidden binding"], "hidden"),
        (
            &["it is stored under scope", "it lives in scope"],
            "other_scope",
        ),
        (
            &["NO formation keywords and", "keyword channel cannot match"],
            "no_keyword",
        ),
        (&["NO stored vector", "no stored vector"], "no_vector"),
        (
            &["no structural barrier", "nothing structural"],
            "no_barrier",
        ),
    ];
    for (needles, code) in table {
        if needles.iter().any(|n| sentence.contains(n)) {
            return code;
        }
    }
    panic!("a diagnosis sentence names no known mechanism: {sentence:?}")
}

/// Sentences replaced by the mechanisms (or channels) they name; every other
/// free-text note of ours removed with 0.3.2's, after checking it is there.
fn sentences_to_codes(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(rs)) = m.get_mut("reasons") {
                for r in rs.iter_mut() {
                    *r = json!(mechanism(r.as_str().unwrap()));
                }
            }
            if let Some(Value::Array(cs)) = m.get_mut("channels_reachable") {
                for c in cs.iter_mut() {
                    let first = c.as_str().unwrap().split(' ').next().unwrap().to_owned();
                    *c = json!(first);
                }
            }
            for key in ["note", "rank_note"] {
                match m.get(key) {
                    Some(Value::String(_)) => {
                        m.insert(key.into(), json!("<sentence>"));
                    }
                    Some(Value::Array(a)) => {
                        let n = a.len();
                        m.insert(key.into(), json!(n));
                    }
                    _ => {}
                }
            }
            m.values_mut().for_each(sentences_to_codes);
        }
        Value::Array(a) => a.iter_mut().for_each(sentences_to_codes),
        _ => {}
    }
}

#[test]
fn the_recall_diagnostics_match_abstractmemory_0_3_2_on_both_stacks() {
    use am_system::Reconstruct;
    use am_system::observe::diagnostics::{
        OriginDiversity, RecallHistory, RecentRecords, absence_diagnosis, explain_recall,
        origin_diversity, recall_history, recent_records, stable_render_order,
    };
    use am_system::{MemorySystem, RecallBudget, Stimulus, SystemOptions};

    let dir = tempfile::tempdir().unwrap();
    let oracle = build(7, dir.path());
    let stacks = open_copy(dir.path());
    let probes: Vec<String> = oracle["probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect();
    let named: Vec<String> = oracle["named_traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect();
    let hw = oracle["final_seq"].as_i64().unwrap();
    let pairs = [("session", "s1"), ("session", "s2"), ("project", "p1")];
    let cmp = |what: String, mut ours: Value, theirs: &Value| {
        let mut theirs = theirs.clone();
        sentences_to_codes(&mut ours);
        sentences_to_codes(&mut theirs);
        assert_eq!(ours, theirs, "{what}");
    };
    for (stack, store, journal) in &stacks.pairs {
        let (store, journal) = (store.as_ref(), journal.as_ref());
        for rid in &probes {
            let ours = recall_history(journal, Some(store), &RecallHistory::new(rid)).unwrap();
            cmp(
                format!("[{stack}] recall_history {rid}"),
                serde_json::to_value(&ours).unwrap(),
                &oracle["history"][rid],
            );
            let ours = explain_recall(store, journal, rid, None).unwrap();
            cmp(
                format!("[{stack}] explain_recall {rid} newest"),
                serde_json::to_value(&ours).unwrap(),
                &oracle["explain"][rid]["newest"],
            );
            for tid in &named {
                let ours = explain_recall(store, journal, rid, Some(tid)).unwrap();
                cmp(
                    format!("[{stack}] explain_recall {rid} {tid}"),
                    serde_json::to_value(&ours).unwrap(),
                    &oracle["explain"][rid][tid],
                );
            }
            for (s, o) in pairs {
                let ours = absence_diagnosis(store, journal, rid, (s, o)).unwrap();
                cmp(
                    format!("[{stack}] absence_diagnosis {rid} {s}/{o}"),
                    serde_json::to_value(&ours).unwrap(),
                    &oracle["absence"][format!("{rid}|{s}|{o}")],
                );
            }
        }
        for rid in &probes[..4] {
            let ours = recall_history(
                journal,
                Some(store),
                &RecallHistory {
                    limit_traces: 5,
                    until_seq: Some(hw / 2),
                    ..RecallHistory::new(rid)
                },
            )
            .unwrap();
            cmp(
                format!("[{stack}] recall_history window {rid}"),
                serde_json::to_value(&ours).unwrap(),
                &oracle["history_window"][rid],
            );
        }
        let since = "2026-01-05T09:00:00.000000+00:00";
        let recent = |scopes: &[(&str, &str)], limit: usize, kinds: Option<Vec<String>>, as_of| {
            let args = RecentRecords {
                limit: std::num::NonZeroUsize::new(limit).expect("a positive page"),
                kinds,
                as_of,
                ..RecentRecords::new(scopes, since.parse().unwrap())
            };
            serde_json::to_value(recent_records(store, journal, &args).unwrap()).unwrap()
        };
        for (name, ours) in [
            ("all", recent(&pairs, 10, None, None)),
            (
                "kinds",
                recent(
                    &pairs,
                    24,
                    Some(vec!["lesson".into(), "Episode".into()]),
                    None,
                ),
            ),
            ("as_of", recent(&pairs[..1], 5, None, Some(hw / 2))),
            ("wide", recent(&pairs, 500, None, None)),
        ] {
            cmp(
                format!("[{stack}] recent_records {name}"),
                ours,
                &oracle["recent"][name],
            );
        }
        let pinned = "2026-06-01T12:00:00.000000+00:00";
        let system = MemorySystem::with_options(
            store_arc(&stacks, stack),
            journal_arc(&stacks, stack),
            SystemOptions {
                clock: Some(am_triples::fixed_clock(
                    am_triples::Timestamp::parse(pinned).unwrap(),
                )),
                ..SystemOptions::default()
            },
        )
        .unwrap();
        for shelf in oracle["shelves"].as_array().unwrap() {
            let pair = (
                shelf["pair"][0].as_str().unwrap(),
                shelf["pair"][1].as_str().unwrap(),
            );
            let r = system
                .reconstruct(&Reconstruct {
                    budget: RecallBudget {
                        self_fraction: 0.2,
                        ..RecallBudget::default()
                    },
                    journal: false,
                    ..Reconstruct::new(Stimulus::new(shelf["cue"].as_str().unwrap()), &[pair])
                })
                .unwrap();
            let ids: Vec<&str> = r.handles.iter().map(|h| h.record_id.as_str()).collect();
            let theirs: Vec<&str> = shelf["handles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h.as_str().unwrap())
                .collect();
            assert_eq!(ids, theirs, "[{stack}] the shelf of {shelf}");
            let what = format!("[{stack}] origin_diversity {pair:?} {}", shelf["cue"]);
            let plain = origin_diversity(&OriginDiversity::new(r.handles.clone())).unwrap();
            cmp(
                what.clone(),
                serde_json::to_value(&plain).unwrap(),
                &shelf["origin"],
            );
            let tight = origin_diversity(&OriginDiversity {
                min_counted: std::num::NonZeroUsize::MIN,
                dominance_floor: 0.3,
                labels: Some([("remember".to_owned(), "formation".to_owned())].into()),
                ..OriginDiversity::new(r.handles.clone())
            })
            .unwrap();
            cmp(
                what,
                serde_json::to_value(&tight).unwrap(),
                &shelf["origin_tight"],
            );
            let render: Vec<Value> = stable_render_order(&r.handles)
                .into_iter()
                .map(|(h, rank)| json!([h.record_id, rank]))
                .collect();
            assert_eq!(
                Value::Array(render),
                shelf["render"],
                "[{stack}] render order"
            );
        }
    }
}

fn store_arc(s: &Stacks, name: &str) -> Arc<dyn TripleStore> {
    s.pairs.iter().find(|p| p.0 == name).unwrap().1.clone()
}

fn journal_arc(s: &Stacks, name: &str) -> Arc<dyn MemoryJournal> {
    s.pairs.iter().find(|p| p.0 == name).unwrap().2.clone()
}
