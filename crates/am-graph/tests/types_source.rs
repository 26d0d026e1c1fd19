//! `SourceRef`: every rule of api.md "The memory graph" / `SourceRef`, one test per
//! sentence that can fail.

use am_graph::{
    Error, SOURCE_KINDS, SYNTHETIC_RUN_ID_PREFIXES, SourceFields, SourceKind, SourceRef,
    check_digest_agreement, is_synthetic_run_id,
};
use am_triples::ErrorKind;
use serde_json::{Value, json};

const DIGEST: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const OTHER_DIGEST: &str = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

fn refused(value: Value) -> Error {
    match SourceRef::from_dict(&value) {
        Ok(r) => panic!("{value} was accepted as {r:?}"),
        Err(e) => e,
    }
}

fn assert_invalid_source_ref(value: Value, needle: &str) {
    let e = refused(value.clone());
    assert!(e.is_invalid_source_ref(), "{value}: {e:?}");
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{value}");
    assert!(
        e.to_string().contains(needle),
        "{value}: {e} lacks {needle:?}"
    );
}

#[test]
fn source_kinds_are_the_six_of_the_spec_in_order() {
    assert_eq!(
        SOURCE_KINDS,
        ["run", "step", "artifact", "message", "event", "diary_entry"]
    );
    for name in SOURCE_KINDS {
        assert_eq!(SourceKind::parse(name).unwrap().as_str(), name);
    }
}

#[test]
fn each_kind_has_its_key() {
    let cases = [
        (json!({"kind": "run", "run_id": "run-42"}), "run:run-42"),
        (
            json!({"kind": "step", "run_id": "run-42", "seq": 3}),
            "step:run-42#3",
        ),
        (
            json!({"kind": "artifact", "artifact_id": "note-1-body"}),
            "artifact:note-1-body",
        ),
        (json!({"kind": "message", "message_id": "m1"}), "message:m1"),
        (json!({"kind": "event", "event_id": "e1"}), "event:e1"),
        (
            json!({"kind": "diary_entry", "entry_id": "d1"}),
            "diary_entry:d1",
        ),
    ];
    for (dict, key) in cases {
        let r = SourceRef::from_dict(&dict).unwrap();
        assert_eq!(r.key(), key);
        assert_eq!(r.to_string(), key);
    }
}

#[test]
fn each_kind_accepts_its_optional_fields() {
    let cases = [
        json!({"kind": "step", "run_id": "run-42", "seq": 3, "step_id": "s-3"}),
        json!({"kind": "artifact", "artifact_id": "a1", "run_id": "run-42"}),
        json!({"kind": "message", "message_id": "m1", "run_id": "run-42"}),
        json!({"kind": "event", "event_id": "e1", "stream": "ticks"}),
        json!({"kind": "diary_entry", "entry_id": "d1", "run_id": "diary:ent-7"}),
    ];
    for dict in cases {
        let r = SourceRef::from_dict(&dict).unwrap();
        assert_eq!(r.to_dict(), dict);
    }
}

#[test]
fn optional_fields_are_not_part_of_the_key() {
    let a = SourceRef::from_dict(&json!({"kind": "artifact", "artifact_id": "a1"})).unwrap();
    let b = SourceRef::from_dict(
        &json!({"kind": "artifact", "artifact_id": "a1", "run_id": "r", "runtime_id": "plane-1", "digest": DIGEST}),
    )
    .unwrap();
    assert_eq!(a.key(), b.key());
}

#[test]
fn every_kind_may_carry_runtime_id() {
    for kind in SOURCE_KINDS {
        let mut d = minimal(kind);
        d["runtime_id"] = json!("entity-home-9");
        let r = SourceRef::from_dict(&d).unwrap();
        assert_eq!(r.runtime_id(), Some("entity-home-9"));
    }
}

#[test]
fn every_kind_may_carry_a_digest_that_rides_beside_the_address() {
    for kind in SOURCE_KINDS {
        let mut d = minimal(kind);
        let key = SourceRef::from_dict(&d).unwrap().key();
        d["digest"] = json!(DIGEST);
        let r = SourceRef::from_dict(&d).unwrap();
        assert_eq!(r.digest(), Some(DIGEST));
        assert_eq!(r.key(), key, "the digest is not part of key()");
    }
}

#[test]
fn a_digest_is_sha256_hex() {
    for bad in [
        json!("abc"),
        json!(format!("{}z", &DIGEST[..63])),
        json!(format!("{DIGEST}00")),
        json!(7),
    ] {
        assert_invalid_source_ref(
            json!({"kind": "run", "run_id": "run-42", "digest": bad}),
            "digest",
        );
    }
    let upper = SourceRef::from_dict(
        &json!({"kind": "run", "run_id": "run-42", "digest": DIGEST.to_uppercase()}),
    )
    .unwrap();
    assert_eq!(upper.digest(), Some(DIGEST), "stored as lowercase hex");
}

#[test]
fn two_refs_to_one_key_with_different_digests_are_refused() {
    let a =
        SourceRef::from_dict(&json!({"kind": "artifact", "artifact_id": "a1", "digest": DIGEST}))
            .unwrap();
    let b = SourceRef::from_dict(
        &json!({"kind": "artifact", "artifact_id": "a1", "digest": OTHER_DIGEST}),
    )
    .unwrap();
    let e = check_digest_agreement(&a, &b).unwrap_err();
    assert!(e.is_invalid_source_ref());
    assert!(e.to_string().contains("artifact:a1"), "{e}");
    // Same digest, a digest on one side only, or different keys: no conflict.
    check_digest_agreement(&a, &a.clone()).unwrap();
    check_digest_agreement(&a, &SourceRef::artifact("a1").unwrap()).unwrap();
    let c = SourceRef::from_dict(
        &json!({"kind": "artifact", "artifact_id": "a2", "digest": OTHER_DIGEST}),
    )
    .unwrap();
    check_digest_agreement(&a, &c).unwrap();
}

#[test]
fn an_unknown_kind_is_invalid_source_ref() {
    assert_invalid_source_ref(json!({"kind": "note", "note_id": "n1"}), "kind");
    assert_invalid_source_ref(json!({"run_id": "run-42"}), "kind");
    assert_invalid_source_ref(json!({"kind": 3, "run_id": "run-42"}), "kind");
}

#[test]
fn a_missing_required_id_is_invalid_source_ref() {
    assert_invalid_source_ref(json!({"kind": "run"}), "run_id");
    assert_invalid_source_ref(json!({"kind": "step", "run_id": "run-42"}), "seq");
    assert_invalid_source_ref(json!({"kind": "step", "seq": 3}), "run_id");
    assert_invalid_source_ref(json!({"kind": "artifact"}), "artifact_id");
    assert_invalid_source_ref(json!({"kind": "message", "run_id": "r"}), "message_id");
    assert_invalid_source_ref(json!({"kind": "event", "stream": "s"}), "event_id");
    assert_invalid_source_ref(
        json!({"kind": "diary_entry", "run_id": "diary:x"}),
        "entry_id",
    );
    assert_invalid_source_ref(json!({"kind": "run", "run_id": null}), "run_id");
}

#[test]
fn a_blank_id_is_invalid_source_ref() {
    assert_invalid_source_ref(json!({"kind": "run", "run_id": ""}), "run_id");
    assert_invalid_source_ref(
        json!({"kind": "artifact", "artifact_id": "   "}),
        "artifact_id",
    );
    assert_invalid_source_ref(
        json!({"kind": "step", "run_id": "run-42", "seq": 1, "step_id": " "}),
        "step_id",
    );
    assert_invalid_source_ref(
        json!({"kind": "message", "message_id": "m", "runtime_id": ""}),
        "runtime_id",
    );
}

#[test]
fn an_id_that_is_not_a_string_is_invalid_source_ref() {
    assert_invalid_source_ref(json!({"kind": "run", "run_id": 42}), "run_id");
    assert_invalid_source_ref(json!({"kind": "event", "event_id": ["e"]}), "event_id");
}

#[test]
fn seq_must_be_an_int_of_at_least_one() {
    assert_invalid_source_ref(json!({"kind": "step", "run_id": "r", "seq": 0}), "seq");
    assert_invalid_source_ref(json!({"kind": "step", "run_id": "r", "seq": -1}), "seq");
    assert_invalid_source_ref(json!({"kind": "step", "run_id": "r", "seq": true}), "seq");
    assert_invalid_source_ref(json!({"kind": "step", "run_id": "r", "seq": 3.0}), "seq");
    assert_invalid_source_ref(json!({"kind": "step", "run_id": "r", "seq": "3"}), "seq");
    assert!(SourceRef::step("r", 0).unwrap_err().is_invalid_source_ref());
    assert_eq!(SourceRef::step("r", 1).unwrap().seq(), Some(1));
}

#[test]
fn an_unknown_key_is_invalid_source_ref() {
    assert_invalid_source_ref(
        json!({"kind": "run", "run_id": "run-42", "colour": "red"}),
        "colour",
    );
}

#[test]
fn a_field_another_kind_owns_is_invalid_source_ref() {
    assert_invalid_source_ref(
        json!({"kind": "artifact", "artifact_id": "a1", "seq": 3}),
        "seq",
    );
    assert_invalid_source_ref(
        json!({"kind": "run", "run_id": "r", "step_id": "s"}),
        "step_id",
    );
    assert_invalid_source_ref(
        json!({"kind": "event", "event_id": "e", "run_id": "r"}),
        "run_id",
    );
    assert_invalid_source_ref(
        json!({"kind": "message", "message_id": "m", "stream": "s"}),
        "stream",
    );
    let e = SourceRef::new(
        SourceKind::Artifact,
        SourceFields {
            artifact_id: Some("a1".into()),
            seq: Some(3),
            ..SourceFields::default()
        },
    )
    .unwrap_err();
    assert!(e.is_invalid_source_ref());
}

#[test]
fn synthetic_run_id_prefixes_are_the_four_of_the_spec() {
    assert_eq!(
        SYNTHETIC_RUN_ID_PREFIXES,
        ["chat-", "diary:", "session_memory_", "global_memory"]
    );
    for id in [
        "chat-1",
        "diary:ent-7",
        "session_memory_abc",
        "global_memory",
    ] {
        assert!(is_synthetic_run_id(id), "{id}");
    }
    for id in ["run-42", "chat", "diary", "my-chat-1"] {
        assert!(!is_synthetic_run_id(id), "{id}");
    }
}

#[test]
fn a_run_or_step_ref_naming_a_synthetic_run_id_is_invalid_source_ref() {
    for id in [
        "chat-1",
        "diary:ent-7",
        "session_memory_abc",
        "global_memory",
    ] {
        assert_invalid_source_ref(json!({"kind": "run", "run_id": id}), "synthetic");
        assert_invalid_source_ref(json!({"kind": "step", "run_id": id, "seq": 1}), "synthetic");
    }
}

#[test]
fn the_artifact_or_diary_entry_a_synthetic_run_belongs_to_is_a_source() {
    SourceRef::from_dict(
        &json!({"kind": "diary_entry", "entry_id": "d1", "run_id": "diary:ent-7"}),
    )
    .unwrap();
    SourceRef::from_dict(&json!({"kind": "artifact", "artifact_id": "a1", "run_id": "chat-1"}))
        .unwrap();
    SourceRef::from_dict(&json!({"kind": "message", "message_id": "m1", "run_id": "chat-1"}))
        .unwrap();
}

#[test]
fn the_key_is_the_identity() {
    let a = SourceRef::step("run-42", 3).unwrap();
    let b = SourceRef::from_dict(&json!({"kind": "step", "seq": 3, "run_id": "run-42"})).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.key(), SourceRef::step("run-42", 4).unwrap().key());
    assert_ne!(
        SourceRef::run("x").unwrap().key(),
        SourceRef::artifact("x").unwrap().key()
    );
}

#[test]
fn to_dict_writes_the_spec_key_order_and_from_dict_round_trips() {
    let d = json!({
        "kind": "step", "run_id": "run-42", "seq": 3, "step_id": "s-3",
        "runtime_id": "plane-1", "digest": DIGEST,
    });
    // Given in another order, written back in the spec's.
    let scrambled = json!({
        "digest": DIGEST, "runtime_id": "plane-1", "step_id": "s-3",
        "seq": 3, "run_id": "run-42", "kind": "step",
    });
    let r = SourceRef::from_dict(&scrambled).unwrap();
    assert_eq!(
        serde_json::to_string(&r.to_dict()).unwrap(),
        serde_json::to_string(&d).unwrap()
    );
    assert_eq!(SourceRef::from_dict(&r.to_dict()).unwrap(), r);
    let artifact =
        SourceRef::from_dict(&json!({"run_id": "r", "artifact_id": "a", "kind": "artifact"}))
            .unwrap();
    assert_eq!(
        serde_json::to_string(&artifact.to_dict()).unwrap(),
        r#"{"kind":"artifact","artifact_id":"a","run_id":"r"}"#
    );
    // serde goes through the same shape.
    let via_serde: SourceRef = serde_json::from_value(d.clone()).unwrap();
    assert_eq!(serde_json::to_value(&via_serde).unwrap(), d);
}

#[test]
fn null_fields_are_absent() {
    let r = SourceRef::from_dict(
        &json!({"kind": "run", "run_id": "r", "runtime_id": null, "seq": null}),
    )
    .unwrap();
    assert_eq!(r.to_dict(), json!({"kind": "run", "run_id": "r"}));
}

#[test]
fn a_run_ref_matches_refs_stamped_with_its_run() {
    for d in [
        json!({"kind": "run", "run_id": "run-42"}),
        json!({"kind": "step", "run_id": "run-42", "seq": 1}),
        json!({"kind": "artifact", "artifact_id": "a", "run_id": "run-42"}),
        json!({"kind": "message", "message_id": "m", "run_id": "run-42"}),
        json!({"kind": "diary_entry", "entry_id": "d", "run_id": "run-42"}),
    ] {
        assert!(
            SourceRef::from_dict(&d).unwrap().stamped_with_run("run-42"),
            "{d}"
        );
    }
    assert!(!SourceRef::artifact("a").unwrap().stamped_with_run("run-42"));
    assert!(!SourceRef::event("e").unwrap().stamped_with_run("run-42"));
}

fn minimal(kind: &str) -> Value {
    match kind {
        "run" => json!({"kind": "run", "run_id": "run-42"}),
        "step" => json!({"kind": "step", "run_id": "run-42", "seq": 1}),
        "artifact" => json!({"kind": "artifact", "artifact_id": "a1"}),
        "message" => json!({"kind": "message", "message_id": "m1"}),
        "event" => json!({"kind": "event", "event_id": "e1"}),
        _ => json!({"kind": "diary_entry", "entry_id": "d1"}),
    }
}

/// A field name and a maker of a valid value for it.
type FieldValue = (&'static str, fn() -> Value);

/// Every field any kind may name, with a valid value for it.
const FIELD_VALUES: [FieldValue; 10] = [
    ("run_id", || json!("run-42")),
    ("seq", || json!(2)),
    ("step_id", || json!("s-2")),
    ("artifact_id", || json!("a1")),
    ("message_id", || json!("m1")),
    ("event_id", || json!("e1")),
    ("stream", || json!("ticks")),
    ("entry_id", || json!("d1")),
    ("runtime_id", || json!("plane-1")),
    ("digest", || json!(DIGEST)),
];

#[test]
fn each_kind_accepts_exactly_its_required_optional_and_common_fields() {
    for name in SOURCE_KINDS {
        let kind = SourceKind::parse(name).unwrap();
        let required = kind.required_fields();
        let optional: Vec<&str> = kind
            .optional_fields()
            .iter()
            .copied()
            .chain(["runtime_id", "digest"])
            .collect();
        let value = |f: &str| FIELD_VALUES.iter().find(|(n, _)| *n == f).unwrap().1();
        let mut base = json!({"kind": name});
        for f in required {
            base[*f] = value(f);
        }
        let key = SourceRef::from_dict(&base).unwrap().key();
        // Every subset of the optional fields builds, keeps the key, and round-trips.
        for mask in 0..(1u32 << optional.len()) {
            let mut d = base.clone();
            for (i, f) in optional.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    d[*f] = value(f);
                }
            }
            let r = SourceRef::from_dict(&d).unwrap_or_else(|e| panic!("{d}: {e}"));
            assert_eq!(r.key(), key, "{d}");
            assert_eq!(SourceRef::from_dict(&r.to_dict()).unwrap(), r, "{d}");
            assert_eq!(
                r.to_dict().as_object().unwrap().len(),
                d.as_object().unwrap().len()
            );
        }
        // Every other field is owned by another kind and refused.
        for (f, v) in FIELD_VALUES {
            if required.contains(&f) || optional.contains(&f) {
                continue;
            }
            let mut d = base.clone();
            d[f] = v();
            assert_invalid_source_ref(d, f);
        }
        // Dropping any required field is refused.
        for f in required {
            let mut d = base.clone();
            d.as_object_mut().unwrap().remove(*f);
            assert_invalid_source_ref(d, f);
        }
    }
}
