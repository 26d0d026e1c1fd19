//! Differential against AbstractMemory 0.3.2: `tests/oracle/world_models_home.py`
//! lives a home with 0.3.2 (people, topics, interests, compound keywords
//! across sessions, a dream, a hidden and a retracted record, feelings),
//! runs 0.3.2's `world_model_pass` twice, binds an alias and authors a card,
//! adds evidence and hides a record, runs the pass twice again, and copies
//! the home before the first pass, before the second, and at the end. We open each copy on both stacks (the SQLite
//! file, and every row and journal record of it in an in-memory pair).
//!
//! Compared value for value: 0.3.2's reads over the final home against
//! ours (standing, current, alias map; folded and layer-1); and our pass
//! run where 0.3.2's ran: which records evidence which target (each
//! card's `known_source_ids`, `evidence_fingerprint`, `source_count`,
//! span, facets, edges), the report (eligible, formed, unchanged, skipped,
//! card ids: the card ids derive from the same keys), the briefing text
//! itself, and idempotence (the rerun forms nothing).
//!
//! Deliberate differences from 0.3.2 (0.5.2's cards), asserted as such:
//! - A card forms PENDING its title and summary (0.3.2 titled it
//!   "World model: <subject>" and had no pending marker): our card has no
//!   title, `pending` names both fields, and each verdict carries
//!   `pending`; the body (the briefing) is the same text.
//! - A 0.3.2 card's "World model: …" title never carries to our revision.
//! - Our report carries the `authoring` receipt; proposal notes are our
//!   own sentence (compared by structure).

use crate::common::oracle::{in_memory_copy, run_generator};
use crate::common::pinned_clock;
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::MemoryJournal;
use am_system::world_models::{
    AliasCandidates, CardsOf, WorldModelPass, alias_candidates, alias_map, current_world_models,
    standing_world_models,
};
use am_system::{MemorySystem, SystemOptions};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use serde_json::{Value, json};
use std::sync::{Arc, OnceLock};

const EID: &str = "entity:castor";

struct Oracle {
    dir: tempfile::TempDir,
    out: Value,
}

fn oracle() -> &'static Oracle {
    static ORACLE: OnceLock<Oracle> = OnceLock::new();
    ORACLE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = run_generator("world_models_home.py", &["7", dir.path().to_str().unwrap()]);
        Oracle { dir, out }
    })
}

/// One stack over a copy: its name, system, store and journal.
struct Opened {
    name: &'static str,
    system: MemorySystem,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    _dir: tempfile::TempDir,
}

fn options() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(pinned_clock()),
        ..SystemOptions::default()
    }
}

/// The copy `file` opened as a SQLite home, and its rows and journal in an
/// in-memory pair; each in its own directory, so a pass on one never
/// touches the other or the oracle's copy.
fn open(file: &str) -> Vec<Opened> {
    let o = oracle();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    std::fs::copy(o.dir.path().join(file), &path).unwrap();
    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
    let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
    let system = MemorySystem::over_home_with_options(mh, options()).unwrap();
    let (mem_store, mem_journal) = in_memory_copy(store.as_ref(), journal.as_ref());
    let mem_system =
        MemorySystem::with_options(mem_store.clone(), mem_journal.clone(), options()).unwrap();
    vec![
        Opened {
            name: "sqlite",
            system,
            store,
            journal,
            _dir: dir,
        },
        Opened {
            name: "memory",
            system: mem_system,
            store: mem_store,
            journal: mem_journal,
            _dir: tempfile::tempdir().unwrap(),
        },
    ]
}

/// Numbers as floats, so `1` and `1.0` compare equal.
fn numbers(v: &mut Value) {
    match v {
        Value::Object(m) => m.values_mut().for_each(numbers),
        Value::Array(a) => a.iter_mut().for_each(numbers),
        Value::Number(n) => {
            if let Some(f) = n.as_f64() {
                *v = json!(f);
            }
        }
        _ => {}
    }
}

fn dict(a: &TripleAssertion) -> Value {
    let mut v = a.to_dict();
    numbers(&mut v);
    v
}

fn theirs(v: &Value) -> Value {
    let mut v = v.clone();
    numbers(&mut v);
    v
}

#[test]
fn the_card_reads_match_abstractmemory_0_3_2_folded_and_layer_1_on_both_stacks() {
    let o = oracle();
    for s in open("b_after.sqlite3") {
        let args = CardsOf::new("life", EID);
        for (fold, j) in [("folded", Some(s.journal.as_ref())), ("layer1", None)] {
            let want = &o.out["reads"][fold];
            let standing = standing_world_models(s.store.as_ref(), j, &args).unwrap();
            let ours: serde_json::Map<String, Value> = standing
                .iter()
                .map(|(t, rows)| (t.clone(), Value::Array(rows.iter().map(dict).collect())))
                .collect();
            assert_eq!(
                Value::Object(ours),
                theirs(&want["standing"]),
                "[{} {fold}] standing",
                s.name
            );
            let current = current_world_models(s.store.as_ref(), j, &args).unwrap();
            let ours: serde_json::Map<String, Value> =
                current.iter().map(|(t, a)| (t.clone(), dict(a))).collect();
            assert_eq!(
                Value::Object(ours),
                theirs(&want["current"]),
                "[{} {fold}] current",
                s.name
            );
            let map = alias_map(s.store.as_ref(), j, &args).unwrap();
            assert_eq!(
                json!(map),
                want["alias_map"],
                "[{} {fold}] alias_map",
                s.name
            );
        }
        assert!(
            o.out["reads"]["layer1"]["standing"]["person:ada"]
                .as_array()
                .unwrap()
                .len()
                > 1,
            "the layer-1 read holds superseded revisions (the fold is exercised)"
        );
    }
}

#[test]
fn alias_candidates_match_abstractmemory_0_3_2_by_structure() {
    let o = &oracle().out["alias_candidates"];
    let by: std::collections::BTreeMap<String, Vec<String>> =
        serde_json::from_value(o["by_target"].clone()).unwrap();
    let cases = [
        ("default", AliasCandidates::new(by.clone())),
        (
            "existing",
            AliasCandidates {
                existing: [("person:b".to_owned(), "person:a".to_owned())].into(),
                ..AliasCandidates::new(by.clone())
            },
        ),
        (
            "floor_0_3",
            AliasCandidates {
                overlap_floor: 0.3,
                ..AliasCandidates::new(by.clone())
            },
        ),
    ];
    for (name, args) in cases {
        let ours = alias_candidates(&args).unwrap();
        let strip = |v: Value| -> Vec<Value> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    let note = p.as_object_mut().unwrap().remove("note").unwrap();
                    assert!(note.as_str().is_some_and(|n| !n.is_empty()));
                    numbers(&mut p);
                    p
                })
                .collect()
        };
        assert_eq!(strip(json!(ours)), strip(o[name].clone()), "[{name}]");
    }
}

/// A verdict of ours without `pending` (0.5.2's), checking it names the
/// fields still being written.
fn verdicts(report: &Value, carried_title: &[&str]) -> Value {
    let mut r = report.clone();
    for v in r["formed"].as_array_mut().unwrap() {
        let m = v.as_object_mut().unwrap();
        let pending = m.remove("pending").unwrap();
        let target = m["target"].as_str().unwrap();
        let want = if carried_title.contains(&target) {
            json!(["summary"])
        } else {
            json!(["title", "summary"])
        };
        assert_eq!(pending, want, "{target}");
    }
    let m = r.as_object_mut().unwrap();
    m.remove("authoring");
    numbers(&mut r);
    r
}

/// The attributes both versions define, and the card's edges.
fn evidence_of(s: &Opened, card: &TripleAssertion) -> Value {
    let a = &card.attributes;
    let mut edges: Vec<(String, String)> = s
        .store
        .query(&TripleQuery {
            subject: Some(card.subject.clone()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .filter(|e| e.attributes.get("record_edge").is_some())
        .map(|e| (e.predicate, e.object))
        .collect();
    edges.sort();
    let keys = [
        "world_model",
        "target",
        "revision",
        "evidence_fingerprint",
        "source_count",
        "known_source_ids",
        "first_seen",
        "last_seen",
        "digest_method",
        "keywords",
        "participants",
        "aliases",
        "authored_lead",
        "authored_known_ids",
        "authored_by",
    ];
    let attrs: serde_json::Map<String, Value> = keys
        .iter()
        .map(|k| ((*k).to_owned(), a.get(*k).cloned().unwrap_or(Value::Null)))
        .collect();
    let mut v = json!({"object": card.object, "edges": edges, "attrs": attrs});
    numbers(&mut v);
    v
}

/// The oracle's card `card_id` as it stands in the final home (every
/// revision is in the layer-1 read).
fn oracle_card(s: &Opened, card_id: &str) -> TripleAssertion {
    let o = oracle();
    let rows = o.out["reads"]["layer1"]["standing"].as_object().unwrap();
    let found = rows
        .values()
        .flat_map(|v| v.as_array().unwrap().iter())
        .find(|a| a["subject"] == card_id)
        .unwrap_or_else(|| panic!("[{}] 0.3.2 formed no card {card_id}", s.name));
    serde_json::from_value(found.clone()).unwrap()
}

fn our_pass(s: &Opened) -> (Value, Vec<TripleAssertion>) {
    let pass = WorldModelPass::new(&[("life", EID), ("notes", EID)], EID);
    let report = s.system.world_model_pass(&pass, None).unwrap();
    let formed: Vec<TripleAssertion> = report
        .formed
        .iter()
        .map(|v| {
            s.system
                .resolve_digest_assertion(v.card_id.as_deref().unwrap())
                .unwrap()
                .unwrap()
        })
        .collect();
    (serde_json::to_value(&report).unwrap(), formed)
}

fn check_cards(s: &Opened, formed: &[TripleAssertion], stage: &str) {
    for card in formed {
        let twin = oracle_card(s, &card.subject);
        // 0.5.2: pending title (0.3.2: "World model: <subject>").
        assert!(card.attributes.get("title").is_none_or(Value::is_null));
        assert!(
            twin.attributes["title"]
                .as_str()
                .unwrap()
                .starts_with("World model: ")
        );
        assert_eq!(
            evidence_of(s, card),
            evidence_of(s, &twin),
            "[{} {stage}] the card for {} differs from 0.3.2's",
            s.name,
            card.attributes["target"]
        );
    }
}

#[test]
fn the_pass_on_a_lived_home_forms_the_cards_abstractmemory_0_3_2_formed_on_both_stacks() {
    let o = &oracle().out;
    for s in open("a.sqlite3") {
        let (first, formed) = our_pass(&s);
        assert_eq!(
            verdicts(&first, &[]),
            theirs(&o["pass1"]),
            "[{}] pass 1",
            s.name
        );
        check_cards(&s, &formed, "pass 1");
        let (again, formed) = our_pass(&s);
        assert_eq!(
            verdicts(&again, &[]),
            theirs(&o["pass1_again"]),
            "[{}] pass 1 again",
            s.name
        );
        check_cards(&s, &formed, "pass 1 again");
        let (third, _) = our_pass(&s);
        assert!(
            third["formed"].as_array().unwrap().is_empty(),
            "[{}] idempotent",
            s.name
        );
    }
}

#[test]
fn the_pass_revises_abstractmemory_0_3_2_cards_as_0_3_2_did_authored_lead_and_alias_carried() {
    let o = &oracle().out;
    for s in open("b_ready.sqlite3") {
        let (second, formed) = our_pass(&s);
        assert_eq!(
            verdicts(&second, &[]),
            theirs(&o["pass2"]),
            "[{}] pass 2",
            s.name
        );
        check_cards(&s, &formed, "pass 2");
        let bo = formed
            .iter()
            .find(|c| c.attributes["target"] == "person:bo")
            .unwrap();
        assert_eq!(bo.attributes["digest_method"], "authored-card-v1+delta");
        let (again, _) = our_pass(&s);
        assert_eq!(
            verdicts(&again, &[]),
            theirs(&o["pass2_again"]),
            "[{}] pass 2 again",
            s.name
        );
    }
}

/// The orientation admissions of one recall: `[record id, score, the
/// orientation cues]` per admitted handle, sorted.
fn admitted(r: &am_system::ReconstructionResult) -> Value {
    let mut out: Vec<Value> = r
        .handles
        .iter()
        .filter_map(|h| {
            let score = h.relevance.get("orientation")?;
            let cues: Vec<&String> = h
                .cues
                .iter()
                .filter(|c| c.contains("orientation"))
                .collect();
            Some(json!([h.record_id, score, cues]))
        })
        .collect();
    out.sort_by_key(|v| v.to_string());
    json!(out)
}

#[test]
fn orientation_admission_admits_the_cards_abstractmemory_0_3_2_admits_on_the_same_home_and_cue() {
    let o = &oracle().out["orientation"];
    let stimuli = o.as_array().unwrap();
    assert_eq!(stimuli.len(), 5);
    // The oracle's cases exercise every path: a cue, a participant alias, the
    // cap (four mentioned, three admitted, the participant first) and a
    // partial name that admits nothing.
    assert!(
        stimuli
            .iter()
            .any(|s| s["admitted"].as_array().unwrap().len() == 3)
    );
    assert!(
        stimuli
            .iter()
            .any(|s| s["admitted"].as_array().unwrap().is_empty())
    );
    for s in open("b_after.sqlite3") {
        for case in stimuli {
            let cue = case["cue"].as_str().unwrap();
            let parts: Vec<&str> = case["participants"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            let r = s
                .system
                .reconstruct(&am_system::Reconstruct::new(
                    am_system::Stimulus::new(cue).with_participants(&parts),
                    &[("life", EID), ("notes", EID)],
                ))
                .unwrap();
            let mut ours = admitted(&r);
            let mut theirs = case["admitted"].clone();
            numbers(&mut ours);
            numbers(&mut theirs);
            assert_eq!(
                ours, theirs,
                "[{}] cue {cue:?} participants {parts:?}",
                s.name
            );
            assert!(
                !r.warnings
                    .iter()
                    .any(|w| w.contains("orientation_admission")),
                "[{}] {:?}",
                s.name,
                r.warnings
            );
        }
    }
}
