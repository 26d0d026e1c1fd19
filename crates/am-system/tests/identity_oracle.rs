//! Differential test of identity against AbstractMemory 0.3.2
//! (`tests/oracle/identity.py` over `tests/oracle/sparks.json`): the canonical
//! spark hash byte for byte on sixteen sparks (Unicode, escapes, numbers, key
//! order), the lint's findings (severity and location; the wording is this
//! port's own), and an engram session of named sparks (record and binding
//! ids, replays, refusals, the rows formed, `self_records` order), on both
//! stacks.
//!
//! Deliberate differences the 0.5.2 spec orders, asserted as such:
//! - a named item's row carries `title_provenance` (operator `spark-v<N>`);
//! - the marker claim's digest is worded by this port;
//! - every formed row carries its reading's `understanding` stamp (0.5.2's
//!   formation reading);
//! - an unnamed item is refused on a home without a task queue (0.3.2 wrote
//!   a `<stem>-<ordinal>` label), before anything is written;
//! - `EngramResult` carries `authoring` (empty here: every item is named);
//! - a vectorless birth under a pinned embedding space is refused as 0.3.2
//!   refuses it, but before anything is written (0.3.2 forms the records,
//!   then raises).

mod common;

use am_system::identity::{Engram, SelfRecords, canonical_spark_hash, lint_spark};
use am_triples::{JsonMap, TripleQuery};
use common::{Stack, assert_refused, on_both, written};
use serde_json::{Value, json};
use std::process::Command;

fn sparks() -> JsonMap {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/sparks.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn spark(name: &str) -> JsonMap {
    sparks()[name].as_object().unwrap().clone()
}

fn oracle() -> Value {
    let python = std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: point it at a python with abstractmemory==0.3.2 installed; \
             this differential test cannot run without the oracle"
        )
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/identity.py");
    let out = Command::new(&python).arg(script).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn locations(issues: &[String]) -> Vec<String> {
    let mut w: Vec<String> = issues
        .iter()
        .map(|i| i.split_once(':').map_or(i.clone(), |(a, _)| a.to_owned()))
        .collect();
    w.sort();
    w
}

#[test]
fn spark_hashes_and_lint_findings_match_0_3_2() {
    let want = oracle();
    for (name, s) in sparks() {
        let s = s.as_object().unwrap();
        let w = &want["sparks"][&name];
        assert_eq!(json!(canonical_spark_hash(s)), w["hash"], "hash of {name}");
        assert_eq!(
            json!(locations(&lint_spark(s, true))),
            w["lint"],
            "lint of {name}"
        );
        assert_eq!(
            json!(locations(&lint_spark(s, false))),
            w["lint_nonframework"],
            "non-framework lint of {name}"
        );
    }
}

const SESSION: [(&str, &str); 7] = [
    ("named", "entity:castor"),
    ("named", "entity:castor"),
    ("key_order", "entity:castor"),
    ("modified_v1", "entity:castor"),
    ("named_v2", "entity:castor"),
    ("too_many", "entity:castor"),
    ("unicode", "entity:pollux"),
];

fn run_session(s: &Stack) -> Vec<Value> {
    SESSION
        .iter()
        .map(
            |(name, owner)| match s.system.engram(&Engram::new(spark(name), owner), None) {
                Ok(r) => {
                    assert!(r.authoring.is_empty(), "named births author nothing");
                    let mut v = serde_json::to_value(r).unwrap();
                    v.as_object_mut().unwrap().remove("authoring");
                    json!({ "ok": v })
                }
                Err(e) => {
                    assert_eq!(e.kind(), am_triples::ErrorKind::InvalidInput, "{e}");
                    json!({"error": "ValueError"})
                }
            },
        )
        .collect()
}

/// A row as the oracle prints it, without what 0.5.2 adds or words otherwise.
fn row(a: &am_triples::TripleAssertion) -> Value {
    let mut attrs = a.attributes.clone();
    let named = attrs.remove("title_provenance").is_some();
    attrs.remove("understanding");
    let kind = attrs
        .get("record_kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if ["value", "purpose", "trait"].contains(&kind.as_str()) && a.predicate == "dcterms:abstract" {
        assert!(
            named,
            "a named identity record carries title_provenance: {a:?}"
        );
    }
    let object = if kind == "claim" && a.predicate == "dcterms:abstract" {
        "<marker digest>".to_owned()
    } else {
        a.object.clone()
    };
    json!([a.assertion_id, a.subject, a.predicate, object, attrs])
}

#[test]
fn engram_of_named_sparks_matches_0_3_2_on_both_stacks() {
    let want = oracle();
    on_both(|s| {
        assert_eq!(json!(run_session(s)), want["engram"], "[{}] engram", s.name);
        for owner in ["entity:castor", "entity:pollux"] {
            let core: Vec<Value> = s
                .system
                .self_records(&SelfRecords::new("self", owner))
                .unwrap()
                .iter()
                .map(|a| {
                    json!([
                        a.assertion_id,
                        a.subject,
                        a.attributes["record_kind"],
                        a.attributes["title"]
                    ])
                })
                .collect();
            assert_eq!(
                json!(core),
                want["self_records"][owner],
                "[{}] self_records",
                s.name
            );
        }
        let v2 = s
            .system
            .self_records(&SelfRecords {
                spark_version: Some(2),
                ..SelfRecords::new("self", "entity:castor")
            })
            .unwrap();
        assert_eq!(json!(v2.len()), want["self_records_v2"]);
        let mut rows: Vec<Value> = s
            .store
            .query(&TripleQuery {
                scope: Some("self".into()),
                owner_id: Some("entity:castor".into()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap()
            .iter()
            .map(row)
            .collect();
        rows.sort_by(|a, b| a[0].as_str().cmp(&b[0].as_str()));
        let mut want_rows = want["rows"].clone();
        for r in want_rows.as_array_mut().unwrap() {
            if r[4]["record_kind"] == "claim" && r[2] == "dcterms:abstract" {
                r[3] = json!("<marker digest>");
            }
        }
        assert_eq!(json!(rows), want_rows, "[{}] rows", s.name);
        let bindings: Vec<Value> = s
            .journal
            .bindings(&am_journal::BindingFilter {
                record_id: None,
                scope: Some("self".into()),
                owner_id: Some("entity:castor".into()),
                fold: false,
                until_seq: None,
            })
            .unwrap()
            .iter()
            .map(|b| {
                json!([
                    b.binding_id,
                    b.record_id,
                    b.search_state,
                    b.prompt_state,
                    b.lifecycle,
                    b.source,
                    b.reason
                ])
            })
            .collect();
        assert_eq!(json!(bindings), want["bindings"], "[{}] bindings", s.name);
    });
}

#[test]
fn an_unnamed_unauthored_birth_is_refused_before_anything_is_written() {
    on_both(|s| {
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system.engram(
                &Engram::new(spark("unnamed_purpose"), "entity:castor"),
                None,
            ),
            am_triples::ErrorKind::InvalidInput,
            &["no name", "task queue", "no_author_supplied"],
        );
        // Deliberate difference: 0.3.2 formed it with the label `purpose-0`.
    });
}

#[test]
fn a_vectorless_birth_under_a_pin_is_refused_as_0_3_2_refuses_it_but_writes_nothing() {
    let want = oracle();
    let w = &want["vectorless_birth"];
    assert_eq!(w["error"], "ValueError", "{w}");
    assert_eq!(w["vectorless"], true, "{w}");
    // Deliberate difference: 0.3.2 had already formed the marker and the six
    // identity records when it raised.
    assert_eq!(w["rows_written"], 7, "{w}");
    let pin = am_triples::pin::build_pin(
        Some("minishlab/potion-base-2M"),
        Some(64),
        am_triples::pin::PIN_SOURCE_CREATION,
        None,
    )
    .unwrap();
    let store: std::sync::Arc<dyn am_triples::TripleStore> =
        std::sync::Arc::new(am_triples::InMemoryTripleStore::with_pin(None, pin).unwrap());
    let journal: std::sync::Arc<dyn am_journal::MemoryJournal> =
        std::sync::Arc::new(am_journal::InMemoryJournal::new());
    let system = am_system::MemorySystem::new(store.clone(), journal.clone());
    let s = Stack::over("memory", store, journal, system);
    let before = written(&s);
    assert_refused(
        &s,
        &before,
        s.system
            .engram(&Engram::new(spark("named"), "entity:castor"), None),
        am_triples::ErrorKind::InvalidInput,
        &["vectorless"],
    );
}
