//! Record shapes: JSON field names and order are the oracle's `to_dict` (the
//! seam), records round-trip through JSON, the `version_id` formula, and the
//! latest-wins `fold_bindings` function.

use am_journal::SearchState;
use am_journal::{
    ATTENTION_KINDS, AUDIT_KINDS, ActiveMemorySnapshot, ClosureRecord, DECAY_MARKER_KINDS,
    EventKind, MemoryEvent, ReconstructionTrace, ScopeBinding, UnderstandingVersion, ValenceEvent,
    ValenceKind, fold_bindings, understanding_version_id,
};
use serde_json::Value;

fn keys<T: serde::Serialize>(v: &T) -> Vec<String> {
    match serde_json::to_value(v).unwrap() {
        Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("expected an object, got {other}"),
    }
}

fn names(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

#[test]
fn json_field_names_and_order_are_the_oracles() {
    assert_eq!(
        keys(&MemoryEvent::default()),
        names(
            "kind scope owner_id record_id pair_ids weight ttl_activity matched query_fingerprint trace_id observed_at actor reason provenance event_id seq"
        )
    );
    assert_eq!(
        keys(&ScopeBinding::default()),
        names(
            "record_id scope owner_id search_state prompt_state lifecycle source reason observed_at provenance binding_id seq"
        )
    );
    assert_eq!(
        keys(&ClosureRecord::default()),
        names(
            "assertion_id kind reason replacement_ids observed_at actor provenance closure_id seq"
        )
    );
    assert_eq!(
        keys(&ReconstructionTrace::default()),
        names(
            "trace_id trace_kind query_fingerprint need searched_scopes escalation_reason channels candidates selected dropped cues budgets budget_spent selector_route stop_reason warnings admissions observed_at seq"
        )
    );
    assert_eq!(
        keys(&ActiveMemorySnapshot::default()),
        names(
            "snapshot_id seq trace_id used_record_ids display prompt_token_estimate observed_at provenance"
        )
    );
    assert_eq!(
        keys(&ValenceEvent::default()),
        names(
            "target_id sign magnitude kind value_refs scope owner_id reason actor trace_id observed_at provenance event_id seq"
        )
    );
    assert_eq!(
        keys(&UnderstandingVersion::default()),
        names(
            "record_id assertion_id version field text title keywords digest_method author reader sources derived_from cause magnitude task_id understood_at version_id seq"
        )
    );
}

#[test]
fn pair_ids_serialize_as_a_two_element_list() {
    let e = MemoryEvent::co_selected("b", "a", "session", "s1")
        .normalized()
        .unwrap();
    assert_eq!(
        serde_json::to_value(&e).unwrap()["pair_ids"],
        serde_json::json!(["a", "b"])
    );
}

#[test]
fn records_round_trip_through_json() {
    let e = MemoryEvent::on_record(EventKind::Pinned, "r1", "session", "s1")
        .with_reason("keep")
        .normalized()
        .unwrap();
    let back: MemoryEvent = serde_json::from_value(serde_json::to_value(&e).unwrap()).unwrap();
    assert_eq!(back, e);
    let v = UnderstandingVersion::new(
        "ex:m",
        "a1",
        "digest",
        2,
        Some("words"),
        ("operator", "o"),
        "operator",
    )
    .normalized()
    .unwrap();
    let back: UnderstandingVersion =
        serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(back, v);
}

#[test]
fn an_event_kind_outside_the_vocabulary_is_refused_when_an_event_is_read() {
    let err = serde_json::from_value::<MemoryEvent>(serde_json::json!({
        "kind": "viewed", "scope": "session", "owner_id": "s1", "record_id": "r1"
    }))
    .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "memory event kind must be one of [\"cited\", \"co_selected\", \"expanded\", \"listed\", \"pinned\", \"placed\", \"refocus\", \"selected\", \"shown\", \"silenced\"], got \"viewed\""
        ),
        "{err}"
    );
    assert_eq!(
        EventKind::parse("viewed").unwrap_err().kind(),
        am_triples::ErrorKind::InvalidInput
    );
}

#[test]
fn a_valence_kind_outside_the_vocabulary_is_refused_when_an_event_is_read() {
    let err = serde_json::from_value::<ValenceEvent>(serde_json::json!({
        "target_id": "t", "kind": "grudge", "scope": "session", "reason": "why"
    }))
    .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "valence kind must be one of [\"appraisal\", \"bond\", \"break\", \"healing\", \"revalued\", \"scar\"], got \"grudge\""
        ),
        "{err}"
    );
    assert_eq!(ValenceEvent::default().kind, ValenceKind::Appraisal);
}

#[test]
fn only_attention_kinds_feed_activation_refocus_is_the_decay_marker_and_the_rest_are_audit() {
    let names = |pick: fn(EventKind) -> bool| {
        let mut v: Vec<&str> = EventKind::ALL
            .into_iter()
            .filter(|k| pick(*k))
            .map(EventKind::as_str)
            .collect();
        v.sort_unstable();
        v
    };
    let sorted = |s: &[&'static str]| {
        let mut v = s.to_vec();
        v.sort_unstable();
        v
    };
    assert_eq!(names(EventKind::feeds_attention), sorted(&ATTENTION_KINDS));
    assert_eq!(
        names(EventKind::is_decay_marker),
        sorted(&DECAY_MARKER_KINDS)
    );
    assert_eq!(names(EventKind::is_audit), sorted(&AUDIT_KINDS));
    assert_eq!(EventKind::ALL.len(), 10);
    assert_eq!(EventKind::Selected.default_weight(), Some(8.0));
    assert_eq!(EventKind::CoSelected.default_weight(), Some(4.0));
    assert_eq!(EventKind::Listed.default_weight(), None);
}

#[test]
fn version_id_is_sha256_of_assertion_field_version() {
    // H("a1|digest|2|understanding")[:32]
    assert_eq!(
        understanding_version_id("a1", "digest", 2),
        "1b31d450706cc6f6e3531d5b0cc6ee94".to_string()
    );
    let v = UnderstandingVersion::new(
        "ex:m",
        " a1 ",
        "Digest",
        2,
        Some("w"),
        ("mechanical", "m"),
        "formation",
    );
    assert_eq!(
        v.normalized().unwrap().version_id,
        understanding_version_id("a1", "digest", 2)
    );
}

#[test]
fn fold_bindings_keeps_the_highest_seq_per_key_in_seq_order() {
    let b = |rid: &str, owner: &str, seq: i64| ScopeBinding {
        seq,
        ..ScopeBinding::new(rid, "session", owner, SearchState::Indexed)
    };
    let folded = fold_bindings(&[
        b("r1", "s1", 5),
        b("r1", "s1", 2),
        b("r2", "s1", 3),
        b("r1", "s2", 1),
    ]);
    let got: Vec<i64> = folded.iter().map(|x| x.seq).collect();
    assert_eq!(got, vec![1, 3, 5]);
}

#[test]
fn assigned_ids_are_hyphenated_time_ordered_uuids() {
    let a = am_journal::common::new_id();
    std::thread::sleep(std::time::Duration::from_millis(2));
    let b = am_journal::common::new_id();
    let parsed = uuid::Uuid::parse_str(&a).unwrap();
    assert_eq!((a.len(), parsed.get_version_num()), (36, 7));
    assert!(a < b, "{a} should sort before {b}");
}
