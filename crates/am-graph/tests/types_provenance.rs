//! `Provenance`: every rule of api.md "The memory graph" / `Provenance`, one test
//! per sentence that can fail (the strict `from_dict`, every rule of `from_legacy`).

use am_graph::{LEGACY_KEYS, PROVENANCE_KEYS, Provenance, SourceRef};
use am_triples::ErrorKind;
use serde_json::{Value, json};

const DIGEST: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const OTHER_DIGEST: &str = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

fn keys(p: &Provenance) -> Vec<String> {
    p.sources().iter().map(SourceRef::key).collect()
}

fn legacy(flat: Value) -> Provenance {
    Provenance::from_legacy(&flat, None).unwrap()
}

#[test]
fn provenance_keys_and_legacy_keys_are_the_spec_lists() {
    assert_eq!(
        PROVENANCE_KEYS,
        [
            "sources",
            "derived_from",
            "actor",
            "reader",
            "reason",
            "extra"
        ]
    );
    assert_eq!(
        LEGACY_KEYS,
        [
            "run_id",
            "turn_id",
            "writer_run_id",
            "span_id",
            "payload_ref",
            "entry_id"
        ]
    );
}

#[test]
fn duplicate_sources_collapse_on_the_key_first_wins() {
    let first =
        SourceRef::from_dict(&json!({"kind": "artifact", "artifact_id": "a1", "run_id": "r1"}))
            .unwrap();
    let second =
        SourceRef::from_dict(&json!({"kind": "artifact", "artifact_id": "a1", "run_id": "r2"}))
            .unwrap();
    let p = Provenance::new(
        vec![first.clone(), SourceRef::run("run-42").unwrap(), second],
        vec![],
        "abstractnote",
    )
    .unwrap();
    assert_eq!(keys(&p), ["artifact:a1", "run:run-42"]);
    assert_eq!(p.sources()[0], first);
}

#[test]
fn duplicate_sources_with_different_digests_are_refused() {
    let e = Provenance::from_dict(&json!({
        "sources": [
            {"kind": "artifact", "artifact_id": "a1", "digest": DIGEST},
            {"kind": "artifact", "artifact_id": "a1", "digest": OTHER_DIGEST},
        ],
        "actor": "runtime",
    }))
    .unwrap_err();
    assert!(e.is_invalid_source_ref(), "{e:?}");
    // One digest and one without: the first wins, no conflict.
    let p = Provenance::from_dict(&json!({
        "sources": [
            {"kind": "artifact", "artifact_id": "a1"},
            {"kind": "artifact", "artifact_id": "a1", "digest": DIGEST},
        ],
        "actor": "runtime",
    }))
    .unwrap();
    assert_eq!(p.sources().len(), 1);
    assert_eq!(p.sources()[0].digest(), None);
}

#[test]
fn sources_accept_dicts() {
    let p = Provenance::from_dict(&json!({
        "sources": [{"kind": "step", "run_id": "run-42", "seq": 3},
                    {"kind": "artifact", "artifact_id": "note-1-body"}],
        "actor": "abstractnote",
    }))
    .unwrap();
    assert_eq!(keys(&p), ["step:run-42#3", "artifact:note-1-body"]);
    let e = Provenance::from_dict(
        &json!({"sources": [{"kind": "step", "run_id": "r", "seq": 0}], "actor": "a"}),
    )
    .unwrap_err();
    assert!(e.is_invalid_source_ref());
    assert!(e.to_string().contains("sources[0]"), "{e}");
}

#[test]
fn actor_is_required_and_non_empty() {
    for bad in [
        json!({"sources": [{"kind": "run", "run_id": "r"}]}),
        json!({"sources": [{"kind": "run", "run_id": "r"}], "actor": ""}),
        json!({"sources": [{"kind": "run", "run_id": "r"}], "actor": "  "}),
        json!({"sources": [{"kind": "run", "run_id": "r"}], "actor": 7}),
    ] {
        let e = Provenance::from_dict(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad}");
        assert!(e.to_string().contains("actor"), "{e}");
    }
    assert!(Provenance::new(vec![], vec!["m1".into()], "").is_err());
}

#[test]
fn is_grounded_when_it_names_a_source_or_a_parent() {
    let sourced =
        Provenance::new(vec![SourceRef::message("m1").unwrap()], vec![], "runtime").unwrap();
    let derived = Provenance::new(vec![], vec!["c1".into()], "abstractmemory:sleep").unwrap();
    let neither = Provenance::new(vec![], vec![], "runtime").unwrap();
    assert!(sourced.is_grounded());
    assert!(derived.is_grounded());
    assert!(!neither.is_grounded());
}

#[test]
fn derived_from_ids_must_be_non_blank_strings() {
    assert_eq!(
        Provenance::new(vec![], vec![" ".into()], "a")
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    let e = Provenance::from_dict(&json!({"derived_from": [3], "actor": "a"})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

#[test]
fn from_dict_refuses_a_key_outside_the_six_with_provenance_required() {
    let e =
        Provenance::from_dict(&json!({"sources": [], "actor": "a", "note_id": "n1"})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ProvenanceRequired);
    assert!(e.to_string().contains("note_id"), "{e}");
}

#[test]
fn from_dict_names_from_legacy_for_a_legacy_flat_key() {
    for key in LEGACY_KEYS {
        let mut d = json!({"actor": "runtime", "sources": [{"kind": "run", "run_id": "r"}]});
        d[key] = json!("x");
        let e = Provenance::from_dict(&d).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ProvenanceRequired, "{key}");
        assert!(e.to_string().contains("from_legacy"), "{key}: {e}");
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
}

#[test]
fn from_dict_round_trips_to_dict_in_key_order() {
    let d = json!({
        "sources": [{"kind": "step", "run_id": "run-42", "seq": 3}],
        "derived_from": ["c0"],
        "actor": "entity:e1",
        "reader": "qwen3",
        "reason": "read the note",
        "extra": {"turn_id": "t1"},
    });
    let p = Provenance::from_dict(&d).unwrap();
    assert_eq!(
        serde_json::to_string(&p.to_dict()).unwrap(),
        serde_json::to_string(&d).unwrap()
    );
    assert_eq!(Provenance::from_dict(&p.to_dict()).unwrap(), p);
    // Minimal shape: sources, derived_from and actor always; the rest when set.
    let minimal = Provenance::from_dict(&json!({"actor": "a", "derived_from": ["m"]})).unwrap();
    assert_eq!(
        serde_json::to_string(&minimal.to_dict()).unwrap(),
        r#"{"sources":[],"derived_from":["m"],"actor":"a"}"#
    );
}

#[test]
fn from_legacy_lifts_run_id_to_a_run_ref() {
    let p = legacy(json!({"run_id": "run-42"}));
    assert_eq!(keys(&p), ["run:run-42"]);
    assert!(p.extra().is_empty());
}

#[test]
fn from_legacy_keeps_a_diary_pseudo_run_on_the_diary_entry_ref() {
    let p = legacy(json!({"run_id": "diary:ent-7", "entry_id": "d1"}));
    assert_eq!(keys(&p), ["diary_entry:d1"]);
    assert_eq!(p.sources()[0].run_id(), Some("diary:ent-7"));
    assert!(p.extra().is_empty(), "{:?}", p.extra());
}

#[test]
fn from_legacy_keeps_any_other_synthetic_run_id_in_extra() {
    for id in ["chat-1", "session_memory_x", "global_memory"] {
        let p = legacy(json!({"run_id": id, "span_id": "sp1"}));
        assert_eq!(keys(&p), ["artifact:sp1"], "{id}");
        assert_eq!(p.extra().get("run_id"), Some(&json!(id)));
    }
    // A diary pseudo-run with no entry to ride stays in extra too.
    let p = legacy(json!({"run_id": "diary:ent-7", "turn_id": "t1"}));
    assert!(p.sources().is_empty());
    assert_eq!(p.extra().get("run_id"), Some(&json!("diary:ent-7")));
}

#[test]
fn from_legacy_lifts_span_id_and_payload_ref_to_artifact_refs() {
    let p = legacy(json!({"span_id": "sp1", "payload_ref": "pl1"}));
    assert_eq!(keys(&p), ["artifact:sp1", "artifact:pl1"]);
    assert!(p.extra().is_empty());
}

#[test]
fn from_legacy_lifts_entry_id_to_a_diary_entry_ref() {
    let p = legacy(json!({"entry_id": "d1"}));
    assert_eq!(keys(&p), ["diary_entry:d1"]);
    assert_eq!(p.sources()[0].run_id(), None);
}

#[test]
fn from_legacy_puts_everything_else_into_extra() {
    let p = legacy(json!({
        "run_id": "run-42", "turn_id": "t1", "writer_run_id": "run-9", "note_id": "n1",
        "nested": {"a": 1},
    }));
    assert_eq!(keys(&p), ["run:run-42"]);
    assert_eq!(
        Value::Object(p.extra().clone()),
        json!({"turn_id": "t1", "writer_run_id": "run-9", "note_id": "n1", "nested": {"a": 1}})
    );
}

#[test]
fn from_legacy_never_fabricates_a_ref_for_an_absent_or_empty_key() {
    let p = legacy(json!({"turn_id": "t1"}));
    assert!(p.sources().is_empty());
    assert!(!p.is_grounded());
    let p = legacy(json!({"run_id": "", "span_id": "  ", "payload_ref": null, "entry_id": ""}));
    assert!(p.sources().is_empty(), "{:?}", keys(&p));
}

#[test]
fn from_legacy_actor_defaults_to_the_dicts_own_else_runtime() {
    assert_eq!(legacy(json!({"run_id": "r"})).actor(), "runtime");
    let own = legacy(json!({"run_id": "r", "actor": "abstractnote"}));
    assert_eq!(own.actor(), "abstractnote");
    assert!(own.extra().get("actor").is_none(), "the actor is not extra");
    let given = Provenance::from_legacy(
        &json!({"run_id": "r", "actor": "abstractnote"}),
        Some("entity:e1"),
    )
    .unwrap();
    assert_eq!(given.actor(), "entity:e1");
    let blank = Provenance::from_legacy(&json!({"run_id": "r"}), Some(" ")).unwrap();
    assert_eq!(blank.actor(), "runtime");
    let blank_own = legacy(json!({"run_id": "r", "actor": ""}));
    assert_eq!(blank_own.actor(), "runtime");
}

#[test]
fn from_legacy_keeps_the_graph_keys_of_a_dict_that_carries_sources() {
    let p = legacy(json!({
        "sources": [{"kind": "step", "run_id": "run-42", "seq": 3}],
        "actor": "runtime",
        "reason": "stamped",
    }));
    assert_eq!(keys(&p), ["step:run-42#3"]);
    assert_eq!(p.reason(), Some("stamped"));
    let p = legacy(json!({"derived_from": ["c1"], "turn_id": "t1"}));
    assert_eq!(p.derived_from(), ["c1"]);
    assert_eq!(p.extra().get("turn_id"), Some(&json!("t1")));
}

#[test]
fn from_legacy_lifts_no_ref_from_a_flat_key_of_the_mixed_shape() {
    // The runtime's stamp: flat keys kept for older readers plus the sources it vouches for.
    let p = legacy(json!({
        "run_id": "run-42", "span_id": "sp1", "entry_id": "d1", "turn_id": "t1",
        "sources": [{"kind": "step", "run_id": "run-42", "seq": 3}],
        "actor": "runtime",
    }));
    assert_eq!(keys(&p), ["step:run-42#3"]);
    assert_eq!(
        Value::Object(p.extra().clone()),
        json!({"run_id": "run-42", "span_id": "sp1", "entry_id": "d1", "turn_id": "t1"})
    );
}

#[test]
fn from_legacy_an_explicit_extra_wins_over_a_flat_key_of_the_same_name() {
    let mixed = legacy(json!({
        "turn_id": "flat", "extra": {"turn_id": "explicit", "note_id": "n1"},
        "sources": [{"kind": "run", "run_id": "run-42"}],
    }));
    assert_eq!(mixed.extra().get("turn_id"), Some(&json!("explicit")));
    assert_eq!(mixed.extra().get("note_id"), Some(&json!("n1")));
    let flat = legacy(json!({"turn_id": "flat", "extra": {"turn_id": "explicit"}}));
    assert_eq!(flat.extra().get("turn_id"), Some(&json!("explicit")));
}

#[test]
fn from_legacy_output_passes_the_strict_from_dict() {
    let p = legacy(
        json!({"run_id": "run-42", "span_id": "sp1", "turn_id": "t1", "actor": "abstractnote"}),
    );
    assert_eq!(Provenance::from_dict(&p.to_dict()).unwrap(), p);
}

#[test]
fn from_legacy_refuses_a_non_object() {
    let e = Provenance::from_legacy(&json!(["run_id"]), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}
