//! `TripleAssertion::to_dict` / `from_dict`: the JSON shape (Python's key order,
//! nulls omitted), canonicalization on the way in, and the refusals of malformed
//! dicts. Spec: api.md "TripleAssertion" ("to_dict() (omits nulls) / from_dict(...)
//! (validates required fields)").

use am_triples::{ErrorKind, TripleAssertion};
use serde_json::{Value, json};

/// `to_dict` of AbstractMemory 0.3.2 for the same assertion (captured from the
/// oracle: `TripleAssertion(subject=' Alice ', ..., assertion_id='id-1').to_dict()`).
const PYTHON_TO_DICT: &str = r#"{"assertion_id": "id-1", "subject": "alice", "predicate": "knows", "object": "bob", "scope": "session", "owner_id": "o1", "observed_at": "2026-01-01T00:00:00+00:00", "valid_from": "2026-01-01T00:00:00+00:00", "confidence": 0.5, "provenance": {"span": [1, 2]}, "attributes": {"note": "X"}}"#;

fn keys(v: &Value) -> Vec<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn to_dict_keys_come_in_python_order_and_nulls_are_omitted() {
    let python: Value = serde_json::from_str(PYTHON_TO_DICT).unwrap();
    let a = TripleAssertion::from_dict(&python).unwrap();
    let d = a.to_dict();
    assert_eq!(keys(&d), keys(&python));
    let bare = TripleAssertion::new("a", "b", "c").to_dict();
    assert_eq!(
        keys(&bare),
        [
            "subject",
            "predicate",
            "object",
            "scope",
            "observed_at",
            "provenance",
            "attributes"
        ]
    );
}

#[test]
fn from_dict_reads_a_python_dict_and_normalizes_its_timestamps() {
    let python: Value = serde_json::from_str(PYTHON_TO_DICT).unwrap();
    let a = TripleAssertion::from_dict(&python).unwrap();
    assert_eq!(a.assertion_id.as_deref(), Some("id-1"));
    assert_eq!((a.subject.as_str(), a.scope.as_str()), ("alice", "session"));
    assert_eq!(a.owner_id.as_deref(), Some("o1"));
    assert_eq!(a.observed_at, "2026-01-01T00:00:00.000000+00:00");
    assert_eq!(
        a.valid_from.as_deref(),
        Some("2026-01-01T00:00:00.000000+00:00")
    );
    assert_eq!(a.confidence, Some(0.5));
    assert_eq!(Value::Object(a.provenance.clone()), json!({"span": [1, 2]}));
}

#[test]
fn from_dict_of_to_dict_is_the_same_assertion() {
    let a = TripleAssertion::new_literal("Doc", "dcterms:title", "Quarterly Report")
        .with_scope("Global")
        .with_owner("g")
        .with_observed_at("2026-03-04T05:06:07.123456+00:00")
        .with_validity(None, Some("2027-01-01T00:00:00.000000+00:00"))
        .with_confidence(0.75)
        .with_id("x-1");
    let a = a.canonicalized().unwrap();
    assert_eq!(TripleAssertion::from_dict(&a.to_dict()).unwrap(), a);
}

#[test]
fn from_dict_canonicalizes_terms_scope_owner_and_literals() {
    let a = TripleAssertion::from_dict(&json!({
        "subject": " Alice ", "predicate": "KNOWS", "object": " Bob ",
        "scope": "  ", "owner_id": "  ", "observed_at": "2026-01-01T01:00:00+01:00",
    }))
    .unwrap();
    assert_eq!(
        (a.subject.as_str(), a.predicate.as_str(), a.object.as_str()),
        ("alice", "knows", "bob")
    );
    assert_eq!((a.scope.as_str(), a.owner_id.as_deref()), ("run", None));
    assert_eq!(a.observed_at, "2026-01-01T00:00:00.000000+00:00");
    let lit = TripleAssertion::from_dict(&json!({
        "subject": "r", "predicate": "title", "object": "  Mixed Case ",
        "attributes": {"literal": true},
    }))
    .unwrap();
    assert_eq!(lit.object, "Mixed Case");
    let nulls = TripleAssertion::from_dict(&json!({
        "subject": "a", "predicate": "b", "object": "c",
        "owner_id": null, "confidence": null, "provenance": null, "valid_until": null,
    }))
    .unwrap();
    assert_eq!(
        (nulls.owner_id, nulls.confidence, nulls.valid_until),
        (None, None, None)
    );
    assert!(nulls.provenance.is_empty());
}

#[test]
fn from_dict_without_observed_at_stamps_now() {
    let before = am_triples::timestamp::now_utc();
    let a = TripleAssertion::from_dict(&json!({"subject": "a", "predicate": "b", "object": "c"}))
        .unwrap();
    let after = am_triples::timestamp::now_utc();
    assert!(
        before <= a.observed_at && a.observed_at <= after,
        "{}",
        a.observed_at
    );
}

#[test]
fn from_dict_refuses_malformed_dicts_naming_the_field() {
    let cases = [
        (json!(["not", "an", "object"]), "JSON object"),
        (json!({"predicate": "b", "object": "c"}), "subject"),
        (json!({"subject": "a", "object": "c"}), "predicate"),
        (json!({"subject": "a", "predicate": "b"}), "object"),
        (
            json!({"subject": 1, "predicate": "b", "object": "c"}),
            "subject",
        ),
        (
            json!({"subject": "a", "predicate": null, "object": "c"}),
            "predicate",
        ),
        (
            json!({"subject": "  ", "predicate": "b", "object": "c"}),
            "subject",
        ),
        (
            json!({"subject": "a", "predicate": "b", "object": ""}),
            "object",
        ),
        (
            json!({"subject": "a", "predicate": "b", "object": "c", "observed_at": "noon"}),
            "observed_at",
        ),
        (
            json!({"subject": "a", "predicate": "b", "object": "c", "valid_until": "2026-02-30"}),
            "valid_until",
        ),
        (
            json!({"subject": "a", "predicate": "b", "object": "c", "confidence": "high"}),
            "confidence",
        ),
        (
            json!({"subject": "a", "predicate": "b", "object": "c", "provenance": "chat"}),
            "provenance",
        ),
        (
            json!({"subject": "a", "predicate": "b", "object": "c", "attributes": [1]}),
            "attributes",
        ),
    ];
    for (input, field) in cases {
        let err = TripleAssertion::from_dict(&input).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{input}");
        assert!(
            err.to_string().contains(field),
            "{input}: {err} should name {field}"
        );
    }
}

#[test]
fn an_unknown_field_is_refused_naming_it_never_dropped() {
    let err = TripleAssertion::from_dict(
        &json!({"subject": "a", "predicate": "b", "object": "c", "colour": "red"}),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("colour"), "{err}");
    let err = serde_json::from_value::<TripleAssertion>(
        json!({"subject": "a", "predicate": "b", "object": "c", "colour": "red"}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
}
