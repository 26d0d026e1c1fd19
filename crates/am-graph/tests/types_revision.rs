//! `Revision`, `RevisionOp`, `RevisionResult`: validation and normalization at
//! construction, the JSON shapes, and `apply_revision`'s pure provenance check;
//! one test per rule of api.md "The memory graph" / `Revision` and
//! memory-system.md "Time axes".

use am_graph::{
    ADOPTING_CAUSES, AssertOp, CLOSE_KINDS, CloseKind, CloseOp, DIGEST_PREDICATE, Error, NarrowOp,
    Provenance, REVISION_CAUSES, REVISION_OPS, Revision, RevisionDraft, RevisionOp, RevisionResult,
    SkippedOp, SourceRef, derive_assertion_id,
};
use am_triples::ErrorKind;
use serde_json::{Value, json};

fn sourced() -> Provenance {
    Provenance::new(
        vec![SourceRef::step("run-42", 3).unwrap()],
        vec![],
        "abstractnote",
    )
    .unwrap()
}

fn draft(ops: Vec<RevisionOp>) -> RevisionDraft {
    RevisionDraft {
        revision_id: "note-1-extract".into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops,
        provenance: sourced(),
        recorded_at: None,
        summary: None,
    }
}

fn build(ops: Vec<RevisionOp>) -> Revision {
    Revision::new(draft(ops)).unwrap()
}

fn claim() -> RevisionOp {
    RevisionOp::Assert(AssertOp::claim("ex:dana", "schema:worksFor", "ex:acme"))
}

fn refused(d: RevisionDraft) -> Error {
    match Revision::new(d) {
        Ok(r) => panic!("accepted: {r:?}"),
        Err(e) => e,
    }
}

fn assertion(rev: &Revision, i: usize) -> &am_triples::TripleAssertion {
    match &rev.ops()[i] {
        RevisionOp::Assert(a) => &a.assertion,
        other => panic!("op {i} is {other:?}"),
    }
}

/// The getting-started §7 revision, as its dict.
fn getting_started() -> Value {
    json!({
        "revision_id": "note-1-extract", "scope": "global", "owner_id": "person:ada", "cause": "ingest",
        "occurred_at": "2026-01-05T09:00:00Z",
        "ops": [{"op": "assert", "payload": {"assertion_id": "c1", "subject": "ex:dana",
                 "predicate": "schema:worksFor", "object": "ex:acme",
                 "valid_from": "2026-01-01T00:00:00Z"}}],
        "provenance": {"sources": [{"kind": "step", "run_id": "run-42", "seq": 3},
                                   {"kind": "artifact", "artifact_id": "note-1-body"}],
                       "actor": "abstractnote"},
    })
}

#[test]
fn the_constants_are_the_spec_lists() {
    assert_eq!(
        REVISION_CAUSES,
        [
            "ingest",
            "reinterpret",
            "merge",
            "unmerge",
            "ripple",
            "person",
            "maintenance",
            "import",
            "migration"
        ]
    );
    assert_eq!(REVISION_OPS, ["assert", "close", "narrow"]);
    assert_eq!(
        CLOSE_KINDS,
        ["retract", "supersede", "reinterpreted", "merged"]
    );
    assert_eq!(ADOPTING_CAUSES, ["import", "migration"]);
    assert_eq!(DIGEST_PREDICATE, "dcterms:abstract");
    for k in CLOSE_KINDS {
        assert_eq!(CloseKind::parse(k).unwrap().as_str(), k);
    }
}

#[test]
fn the_getting_started_revision_builds() {
    let rev = Revision::from_dict(&getting_started()).unwrap();
    assert_eq!(rev.revision_id(), "note-1-extract");
    assert_eq!(rev.occurred_at(), "2026-01-05T09:00:00.000000+00:00");
    let a = assertion(&rev, 0);
    assert_eq!(a.assertion_id.as_deref(), Some("c1"));
    assert_eq!(a.predicate, "schema:worksfor");
    assert_eq!(
        a.valid_from.as_deref(),
        Some("2026-01-01T00:00:00.000000+00:00")
    );
    rev.check_provenance().unwrap();
}

#[test]
fn cause_must_be_one_of_revision_causes() {
    for cause in REVISION_CAUSES {
        let mut d = draft(vec![claim()]);
        d.cause = cause.into();
        assert_eq!(Revision::new(d).unwrap().cause().as_str(), cause);
    }
    for bad in ["", "Ingest", "delete"] {
        let mut d = draft(vec![claim()]);
        d.cause = bad.into();
        let e = refused(d);
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("cause"), "{e}");
    }
    let mut d = draft(vec![claim()]);
    d.cause = "delete".into();
    assert_eq!(
        refused(d).to_string(),
        format!("invalid input: cause must be one of {REVISION_CAUSES:?}, got \"delete\"")
    );
}

#[test]
fn only_import_and_migration_adopt() {
    for cause in REVISION_CAUSES {
        let mut d = draft(vec![claim()]);
        d.cause = cause.into();
        assert_eq!(
            Revision::new(d).unwrap().is_adopting(),
            ADOPTING_CAUSES.contains(&cause)
        );
    }
}

#[test]
fn revision_id_is_required() {
    let mut d = draft(vec![claim()]);
    d.revision_id = "  ".into();
    assert_eq!(refused(d).kind(), ErrorKind::InvalidInput);
}

#[test]
fn every_time_of_a_revision_is_normalized_to_canonical_utc() {
    let mut d = draft(vec![
        RevisionOp::Assert(AssertOp {
            assertion: am_triples::TripleAssertion::new("a", "b", "c")
                .with_observed_at("2026-01-04T10:00:00+02:00")
                .with_validity(Some("2026-01-01"), Some("2026-04-01T00:00:00z")),
            provenance: None,
        }),
        RevisionOp::Close(CloseOp::new(
            "c0",
            "2026-03-01 12:30",
            CloseKind::Retract,
            "wrong",
        )),
        RevisionOp::Narrow(NarrowOp::new("c9", "2026-02-01T00:00:00.1234567Z")),
    ]);
    d.occurred_at = "2026-01-05T09:00:00".into();
    d.recorded_at = Some("2026-01-06T00:00:00-05:00".into());
    let rev = Revision::new(d).unwrap();
    assert_eq!(
        rev.occurred_at(),
        "2026-01-05T09:00:00.000000+00:00",
        "naive is UTC"
    );
    assert_eq!(rev.recorded_at(), "2026-01-06T05:00:00.000000+00:00");
    let a = assertion(&rev, 0);
    assert_eq!(a.observed_at, "2026-01-04T08:00:00.000000+00:00");
    assert_eq!(
        a.valid_from.as_deref(),
        Some("2026-01-01T00:00:00.000000+00:00")
    );
    assert_eq!(
        a.valid_until.as_deref(),
        Some("2026-04-01T00:00:00.000000+00:00")
    );
    let RevisionOp::Close(c) = &rev.ops()[1] else {
        panic!()
    };
    assert_eq!(c.valid_until, "2026-03-01T12:30:00.000000+00:00");
    let RevisionOp::Narrow(n) = &rev.ops()[2] else {
        panic!()
    };
    assert_eq!(n.valid_until, "2026-02-01T00:00:00.123456+00:00");
}

#[test]
fn a_time_that_is_not_a_timestamp_is_refused() {
    let mut d = draft(vec![claim()]);
    d.occurred_at = "next tuesday".into();
    let e = refused(d);
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("occurred_at"), "{e}");
    assert!(e.to_string().contains("next tuesday"), "{e}");

    let mut d = draft(vec![claim()]);
    d.recorded_at = Some("yesterday".into());
    assert!(refused(d).to_string().contains("recorded_at"));

    let mut bad_assert = AssertOp::claim("a", "b", "c");
    bad_assert.assertion.valid_from = Some("next tuesday".into());
    let e = refused(draft(vec![claim(), RevisionOp::Assert(bad_assert)]));
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("ops[1]"), "{e}");
    assert!(e.to_string().contains("valid_from"), "{e}");

    for op in [
        RevisionOp::Close(CloseOp::new("c1", "next tuesday", CloseKind::Retract, "r")),
        RevisionOp::Narrow(NarrowOp::new("c1", "next tuesday")),
        RevisionOp::Close(CloseOp::new("c1", "", CloseKind::Retract, "r")),
    ] {
        let e = refused(draft(vec![op]));
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("valid_until"), "{e}");
    }
}

#[test]
fn an_occurred_at_is_required() {
    let mut d = draft(vec![claim()]);
    d.occurred_at = String::new();
    assert_eq!(refused(d).kind(), ErrorKind::InvalidInput);
}

#[test]
fn recorded_at_defaults_to_now_and_can_be_restamped() {
    let rev = build(vec![claim()]);
    am_triples::timestamp::parse_timestamp(rev.recorded_at()).unwrap();
    let stamped = rev.with_recorded_at("2026-02-01T00:00:00Z").unwrap();
    assert_eq!(stamped.recorded_at(), "2026-02-01T00:00:00.000000+00:00");
    assert_eq!(stamped.ops(), rev.ops());
    assert_eq!(
        rev.with_recorded_at("soon").unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn an_assert_takes_missing_scope_and_owner_from_the_revision() {
    let mut own = AssertOp::claim("a", "b", "c");
    own.assertion.scope = "Session".into();
    own.assertion.owner_id = Some("person:bob".into());
    let rev = build(vec![claim(), RevisionOp::Assert(own)]);
    assert_eq!(assertion(&rev, 0).scope, "global");
    assert_eq!(assertion(&rev, 0).owner_id.as_deref(), Some("person:ada"));
    assert_eq!(assertion(&rev, 1).scope, "session");
    assert_eq!(assertion(&rev, 1).owner_id.as_deref(), Some("person:bob"));
}

#[test]
fn an_assert_without_observed_at_is_observed_at_occurred_at() {
    let mut given = AssertOp::claim("a", "b", "c");
    given.assertion.observed_at = "2025-12-31T00:00:00Z".into();
    let rev = build(vec![claim(), RevisionOp::Assert(given)]);
    assert_eq!(assertion(&rev, 0).observed_at, rev.occurred_at());
    assert_eq!(
        assertion(&rev, 1).observed_at,
        "2025-12-31T00:00:00.000000+00:00"
    );
    // From the wire too: an absent observed_at is the revision's occurred_at.
    let from_wire = Revision::from_dict(&getting_started()).unwrap();
    assert_eq!(
        assertion(&from_wire, 0).observed_at,
        "2026-01-05T09:00:00.000000+00:00"
    );
}

#[test]
fn a_missing_assertion_id_is_derived_from_the_revision_id_and_the_op_index() {
    let rev = build(vec![claim(), claim()]);
    let id0 = assertion(&rev, 0).assertion_id.clone().unwrap();
    let id1 = assertion(&rev, 1).assertion_id.clone().unwrap();
    assert_eq!(id0, derive_assertion_id("note-1-extract", 0));
    assert_eq!(id1, derive_assertion_id("note-1-extract", 1));
    assert_ne!(id0, id1);
    // Deterministic: the same revision built again gets the same ids.
    assert_eq!(
        assertion(&build(vec![claim(), claim()]), 0)
            .assertion_id
            .as_deref(),
        Some(id0.as_str())
    );
    // Another revision id, another id.
    let mut other = draft(vec![claim()]);
    other.revision_id = "note-2-extract".into();
    assert_ne!(
        assertion(&Revision::new(other).unwrap(), 0)
            .assertion_id
            .as_deref(),
        Some(id0.as_str())
    );
    // An explicit id is kept.
    let explicit = AssertOp::claim("a", "b", "c");
    let rev = build(vec![RevisionOp::Assert(AssertOp {
        assertion: explicit.assertion.with_id("c1"),
        provenance: None,
    })]);
    assert_eq!(assertion(&rev, 0).assertion_id.as_deref(), Some("c1"));
}

#[test]
fn a_derived_assertion_id_has_the_store_id_shape_and_formula() {
    // sha256("note-1-extract|0"), first 32 hex digits, as 8-4-4-4-12.
    use sha2::{Digest, Sha256};
    let h = hex::encode(Sha256::digest(b"note-1-extract|0"));
    let id = derive_assertion_id("note-1-extract", 0);
    assert_eq!(id.replace('-', ""), h[..32]);
    let parts: Vec<usize> = id.split('-').map(str::len).collect();
    assert_eq!(parts, [8, 4, 4, 4, 12]);
}

#[test]
fn a_payload_provenance_is_that_memorys_own_else_the_revisions() {
    let own = Provenance::new(vec![], vec!["c0".into()], "abstractmemory:sleep").unwrap();
    let rev = build(vec![
        claim(),
        RevisionOp::Assert(AssertOp::claim("a", "b", "c").with_provenance(own.clone())),
    ]);
    assert_eq!(rev.assert_provenance(0), Some(rev.provenance()));
    assert_eq!(rev.assert_provenance(1), Some(&own));
    assert_eq!(assertion(&rev, 0).provenance, rev.provenance().to_map());
    assert_eq!(assertion(&rev, 1).provenance, own.to_map());
    // On the wire: a payload `provenance` is parsed strictly.
    let mut d = getting_started();
    d["ops"][0]["payload"]["provenance"] = json!({"derived_from": ["c0"], "actor": "abstractnote"});
    let rev = Revision::from_dict(&d).unwrap();
    assert_eq!(rev.assert_provenance(0).unwrap().derived_from(), ["c0"]);
    d["ops"][0]["payload"]["provenance"] = json!({"run_id": "run-42"});
    let e = Revision::from_dict(&d).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ProvenanceRequired);
    assert!(e.to_string().contains("from_legacy"), "{e}");
}

#[test]
fn an_assert_payload_is_a_triple_assertion_dict() {
    let op = RevisionOp::new(
        "assert",
        json!({"subject": " Ex:Dana ", "predicate": "IS", "object": "Ex:Acme", "confidence": 0.5}),
    )
    .unwrap();
    let rev = build(vec![op]);
    let a = assertion(&rev, 0);
    assert_eq!(
        (a.subject.as_str(), a.object.as_str()),
        ("ex:dana", "ex:acme")
    );
    assert_eq!(a.confidence, Some(0.5));
    for bad in [
        json!({"predicate": "p", "object": "o"}),
        json!({"subject": "s", "predicate": "p", "object": "o", "confidence": "high"}),
        json!("s p o"),
    ] {
        let e = RevisionOp::new("assert", bad.clone()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad}");
    }
}

#[test]
fn an_op_must_be_one_of_revision_ops() {
    let e = RevisionOp::new("delete", json!({"assertion_id": "c1"})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("delete"), "{e}");
    let e = RevisionOp::from_dict(&json!({"op": "close", "payload": {}, "why": 1})).unwrap_err();
    assert!(e.to_string().contains("why"), "{e}");
}

#[test]
fn a_close_kind_must_be_one_of_close_kinds() {
    let e = RevisionOp::new(
        "close",
        json!({"assertion_id": "c1", "valid_until": "2026-03-01", "kind": "delete", "reason": "r"}),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("delete"), "{e}");
}

#[test]
fn supersede_and_merged_require_replacement_ids() {
    for kind in [CloseKind::Supersede, CloseKind::Merged] {
        let e = refused(draft(vec![RevisionOp::Close(CloseOp::new(
            "c1",
            "2026-03-01",
            kind,
            "r",
        ))]));
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("replacement_ids"), "{e}");
        build(vec![RevisionOp::Close(
            CloseOp::new("c1", "2026-03-01", kind, "r").with_replacements(vec!["c2".into()]),
        )]);
    }
    for kind in [CloseKind::Retract, CloseKind::Reinterpreted] {
        build(vec![RevisionOp::Close(CloseOp::new(
            "c1",
            "2026-03-01",
            kind,
            "r",
        ))]);
    }
    let e = refused(draft(vec![RevisionOp::Close(
        CloseOp::new("c1", "2026-03-01", CloseKind::Supersede, "r")
            .with_replacements(vec![" ".into()]),
    )]));
    assert!(e.to_string().contains("replacement_ids[0]"), "{e}");
}

#[test]
fn a_close_requires_an_assertion_id_and_a_reason() {
    let e = refused(draft(vec![RevisionOp::Close(CloseOp::new(
        "",
        "2026-03-01",
        CloseKind::Retract,
        "r",
    ))]));
    assert!(e.to_string().contains("assertion_id"), "{e}");
    let e = refused(draft(vec![RevisionOp::Close(CloseOp::new(
        "c1",
        "2026-03-01",
        CloseKind::Retract,
        " ",
    ))]));
    assert!(e.to_string().contains("reason"), "{e}");
    let e = refused(draft(vec![RevisionOp::Close(
        CloseOp::new("c1", "2026-03-01", CloseKind::Retract, "r").with_ripple("c0", -1),
    )]));
    assert!(e.to_string().contains("ripple_hops"), "{e}");
}

#[test]
fn a_close_payload_has_the_spec_shape() {
    let rev = build(vec![RevisionOp::Close(
        CloseOp::new("c1", "2026-03-01", CloseKind::Supersede, "moved")
            .with_replacements(vec!["c2".into()])
            .with_ripple("c0", 2),
    )]);
    assert_eq!(
        serde_json::to_string(&rev.ops()[0].to_dict()).unwrap(),
        r#"{"op":"close","payload":{"assertion_id":"c1","valid_until":"2026-03-01T00:00:00.000000+00:00","kind":"supersede","replacement_ids":["c2"],"reason":"moved","ripple_source":"c0","ripple_hops":2}}"#
    );
}

#[test]
fn a_narrow_payload_has_the_spec_shape() {
    let rev = build(vec![RevisionOp::Narrow(
        NarrowOp::new("c1", "2026-02-01").with_reason("earlier note"),
    )]);
    assert_eq!(
        serde_json::to_string(&rev.ops()[0].to_dict()).unwrap(),
        r#"{"op":"narrow","payload":{"assertion_id":"c1","valid_until":"2026-02-01T00:00:00.000000+00:00","reason":"earlier note"}}"#
    );
    let e = refused(draft(vec![RevisionOp::Narrow(NarrowOp::new(
        " ",
        "2026-02-01",
    ))]));
    assert!(e.to_string().contains("assertion_id"), "{e}");
    let e = RevisionOp::new(
        "narrow",
        json!({"assertion_id": "c1", "valid_until": "2026-02-01", "kind": "retract"}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("kind"), "{e}");
}

#[test]
fn a_revision_round_trips_through_its_json_shape() {
    let own = Provenance::new(vec![SourceRef::message("m1").unwrap()], vec![], "runtime").unwrap();
    let mut d = draft(vec![
        claim(),
        RevisionOp::Assert(AssertOp::claim("a", "b", "c").with_provenance(own)),
        RevisionOp::Close(
            CloseOp::new("c0", "2026-03-01", CloseKind::Merged, "dup")
                .with_replacements(vec!["c1".into()]),
        ),
        RevisionOp::Narrow(NarrowOp::new("c9", "2026-02-01")),
    ]);
    d.summary = Some("extracted from note 1".into());
    let rev = Revision::new(d).unwrap();
    let dict = rev.to_dict();
    let keys: Vec<&str> = dict
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "revision_id",
            "scope",
            "owner_id",
            "cause",
            "occurred_at",
            "ops",
            "provenance",
            "recorded_at",
            "summary"
        ]
    );
    let back = Revision::from_dict(&dict).unwrap();
    assert_eq!(back, rev);
    assert_eq!(back.to_dict(), dict);
    // The log's columns: ops_json and provenance_json rebuild the same revision.
    let ops = RevisionOp::list_from_json(&rev.ops_json()).unwrap();
    let rebuilt = Revision::new(RevisionDraft {
        revision_id: rev.revision_id().into(),
        scope: rev.scope().into(),
        owner_id: rev.owner_id().map(str::to_owned),
        cause: rev.cause().as_str().into(),
        occurred_at: rev.occurred_at().into(),
        ops,
        provenance: Provenance::from_dict(&rev.provenance().to_dict()).unwrap(),
        recorded_at: Some(rev.recorded_at().into()),
        summary: rev.summary().map(str::to_owned),
    })
    .unwrap();
    assert_eq!(rebuilt, rev);
    // serde uses the same shape.
    let via_serde: Revision = serde_json::from_value(serde_json::to_value(&rev).unwrap()).unwrap();
    assert_eq!(via_serde, rev);
}

#[test]
fn an_inherited_provenance_is_not_written_into_the_assert_payload() {
    let rev = build(vec![claim()]);
    let payload = &rev.ops()[0].to_dict()["payload"];
    assert!(payload.get("provenance").is_none(), "{payload}");
    let own = Provenance::new(vec![SourceRef::message("m1").unwrap()], vec![], "runtime").unwrap();
    let rev = build(vec![RevisionOp::Assert(
        AssertOp::claim("a", "b", "c").with_provenance(own.clone()),
    )]);
    assert_eq!(
        rev.ops()[0].to_dict()["payload"]["provenance"],
        own.to_dict()
    );
}

#[test]
fn normalizing_a_built_revision_again_changes_nothing() {
    let own = Provenance::new(vec![], vec!["c0".into()], "runtime").unwrap();
    let rev = build(vec![
        claim(),
        RevisionOp::Assert(AssertOp::claim("a", "b", "c").with_provenance(own)),
    ]);
    let again = Revision::new(RevisionDraft {
        revision_id: rev.revision_id().into(),
        scope: rev.scope().into(),
        owner_id: rev.owner_id().map(str::to_owned),
        cause: rev.cause().as_str().into(),
        occurred_at: rev.occurred_at().into(),
        ops: rev.ops().to_vec(),
        provenance: rev.provenance().clone(),
        recorded_at: Some(rev.recorded_at().into()),
        summary: None,
    })
    .unwrap();
    assert_eq!(again, rev);
}

#[test]
fn from_dict_refuses_unknown_keys_and_a_missing_provenance() {
    let mut d = getting_started();
    d["priority"] = json!(1);
    let e = Revision::from_dict(&d).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("priority"), "{e}");
    let mut d = getting_started();
    d.as_object_mut().unwrap().remove("provenance");
    assert_eq!(
        Revision::from_dict(&d).unwrap_err().kind(),
        ErrorKind::ProvenanceRequired
    );
    let mut d = getting_started();
    d["provenance"] = json!({"run_id": "run-42", "actor": "runtime"});
    let e = Revision::from_dict(&d).unwrap_err();
    assert!(e.to_string().contains("from_legacy"), "{e}");
}

#[test]
fn a_revision_that_names_no_source_or_parent_is_provenance_required() {
    let mut d = draft(vec![claim()]);
    d.provenance = Provenance::new(vec![], vec![], "abstractnote").unwrap();
    let rev = Revision::new(d).unwrap();
    let e = rev.check_provenance().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ProvenanceRequired);
    assert!(e.to_string().contains("note-1-extract"), "{e}");
    // A close-only revision too.
    let mut d = draft(vec![RevisionOp::Close(CloseOp::new(
        "c1",
        "2026-03-01",
        CloseKind::Retract,
        "r",
    ))]);
    d.provenance = Provenance::new(vec![], vec![], "abstractnote").unwrap();
    assert_eq!(
        Revision::new(d)
            .unwrap()
            .check_provenance()
            .unwrap_err()
            .kind(),
        ErrorKind::ProvenanceRequired
    );
}

#[test]
fn an_asserted_memory_that_names_no_source_or_parent_is_provenance_required() {
    let ungrounded = Provenance::new(vec![], vec![], "abstractnote").unwrap();
    let rev = build(vec![
        claim(),
        RevisionOp::Assert(AssertOp::claim("a", "b", "c").with_provenance(ungrounded)),
    ]);
    let e = rev.check_provenance().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ProvenanceRequired);
    assert!(e.to_string().contains("ops[1]"), "{e}");
}

#[test]
fn sources_or_derived_from_each_ground_a_memory_and_a_revision() {
    build(vec![claim()]).check_provenance().unwrap();
    let mut d = draft(vec![RevisionOp::Assert(
        AssertOp::claim("a", "b", "c").with_provenance(
            Provenance::new(vec![], vec!["c0".into()], "abstractmemory:sleep").unwrap(),
        ),
    )]);
    d.provenance = Provenance::new(vec![], vec!["c0".into()], "abstractmemory:sleep").unwrap();
    Revision::new(d).unwrap().check_provenance().unwrap();
}

#[test]
fn a_close_only_revision_is_recognised() {
    assert!(!build(vec![claim()]).is_close_only());
    assert!(
        build(vec![
            RevisionOp::Close(CloseOp::new("c1", "2026-03-01", CloseKind::Retract, "r")),
            RevisionOp::Narrow(NarrowOp::new("c2", "2026-02-01")),
        ])
        .is_close_only()
    );
    assert!(
        !build(vec![
            claim(),
            RevisionOp::Narrow(NarrowOp::new("c2", "2026-02-01"))
        ])
        .is_close_only()
    );
}

#[test]
fn a_revision_result_has_the_spec_json_shape() {
    let r = RevisionResult {
        revision_id: "note-1-extract".into(),
        applied: true,
        assertion_ids: vec!["c1".into()],
        re_observed: vec!["c0".into()],
        closed: vec![],
        narrowed: vec![],
        skipped: vec![SkippedOp {
            op: "assert".into(),
            index: 1,
            assertion_id: "c0".into(),
            why: "re-observed".into(),
        }],
        seq: 7,
        recorded_at: "2026-01-05T09:00:00.000000+00:00".into(),
    };
    assert_eq!(
        serde_json::to_string(&r.to_dict()).unwrap(),
        r#"{"revision_id":"note-1-extract","applied":true,"assertion_ids":["c1"],"re_observed":["c0"],"closed":[],"narrowed":[],"skipped":[{"op":"assert","index":1,"assertion_id":"c0","why":"re-observed"}],"seq":7,"recorded_at":"2026-01-05T09:00:00.000000+00:00"}"#
    );
    assert_eq!(RevisionResult::from_dict(&r.to_dict()).unwrap(), r);
    assert_eq!(
        RevisionResult::from_dict(&json!({"revision_id": "x"}))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
}
