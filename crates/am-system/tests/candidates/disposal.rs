//! The disposal verbs on both stacks: one test per contract sentence that
//! can fail; every refusal with its reason and the home unchanged (rows and
//! journal seq).

use crate::common::{Stack, written as size};
use crate::home::{OWNER, SCOPE, form, on_both, rec};
use am_journal::{
    BindingFilter, ClosureFilter, EventFilter, EventKind, Lifecycle, PromptState, SearchState,
};
use am_system::RecordKind;
use am_system::candidates::{
    ConfirmRelation, DisposalRefusal, DisposeDream, DreamDisposition, EnactRealization,
    PromoteCandidate, RejectCandidate,
};
use am_system::recall::args::CloseRecord;
use am_triples::{ErrorKind, TripleQuery};
use serde_json::json;

fn cited(s: &Stack) -> Vec<am_journal::MemoryEvent> {
    s.journal
        .events(&EventFilter {
            scope: SCOPE.into(),
            owner_id: OWNER.into(),
            record_id: None,
            kinds: Vec::new(),
            since_seq: None,
            until_seq: None,
            limit: 0,
        })
        .unwrap()
}

fn latest(s: &Stack, id: &str) -> am_journal::ScopeBinding {
    s.journal
        .bindings(&BindingFilter {
            record_id: Some(id.to_owned()),
            scope: Some(SCOPE.into()),
            owner_id: Some(OWNER.into()),
            fold: true,
            until_seq: None,
        })
        .unwrap()
        .pop()
        .unwrap()
}

/// `[a, b, evidence, dream]`.
fn endpoints(s: &Stack) -> Vec<String> {
    form(
        s,
        "ends",
        vec![
            rec(RecordKind::Episode, "The garden", ("chat", "a", "s1")),
            rec(RecordKind::Episode, "The orchard", ("chat", "a", "s1")),
            rec(
                RecordKind::Episode,
                "Garden fed orchard",
                ("diary", "b", "s2"),
            ),
            rec(
                RecordKind::Dream,
                "A joining dream",
                ("dream", "system", "n1"),
            ),
        ],
    )
}

#[test]
fn confirm_relation_is_idempotent_by_source_relation_target() {
    on_both(|s| {
        let ids = endpoints(s);
        let mut args = ConfirmRelation::new(&ids[0], "supports", &ids[1], &[&ids[2]], "seen");
        let first = s.system.confirm_relation(&args).unwrap();
        assert!(first.created, "[{}]", s.name);
        let after_first = size(s);
        let again = s.system.confirm_relation(&args).unwrap();
        assert!(!again.created, "[{}] a replay finds the edge", s.name);
        assert_eq!(again.edge_id, first.edge_id);
        assert_eq!(size(s), after_first, "[{}] a replay writes nothing", s.name);
        args.reason = "another reason, same edge".into();
        let third = s.system.confirm_relation(&args).unwrap();
        assert_eq!(
            (third.created, third.edge_id),
            (false, first.edge_id.clone())
        );
        let edges = s
            .store
            .query(&TripleQuery {
                subject: Some(ids[0].clone()),
                predicate: Some("supports".into()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(edges.len(), 1, "[{}] one edge", s.name);
        assert_eq!(edges[0].attributes["confirmed"], json!(true));
        assert_eq!(edges[0].attributes["evidence"], json!([ids[2]]));
    });
}

#[test]
fn confirm_relation_journals_one_inert_cited_event_per_endpoint_never_activation() {
    on_both(|s| {
        let ids = endpoints(s);
        s.system
            .confirm_relation(&ConfirmRelation::new(
                &ids[0],
                "answers",
                &ids[1],
                &[&ids[2]],
                "seen",
            ))
            .unwrap();
        let events = cited(s);
        assert_eq!(events.len(), 2, "[{}] one per endpoint", s.name);
        let mut on: Vec<String> = events.iter().filter_map(|e| e.record_id.clone()).collect();
        on.sort();
        let mut want = vec![ids[0].clone(), ids[1].clone()];
        want.sort();
        assert_eq!(on, want, "[{}] one on each endpoint", s.name);
        for e in &events {
            assert_eq!(e.kind, EventKind::Cited);
            assert_eq!(e.weight, 0.0, "[{}] inert", s.name);
            assert!(EventKind::Cited.is_audit(), "cited is audit-only");
        }
        // A different evidence set is a distinct judging act: two more events.
        s.system
            .confirm_relation(&ConfirmRelation::new(
                &ids[0],
                "answers",
                &ids[1],
                &[&ids[2], &ids[3]],
                "seen again",
            ))
            .unwrap();
        assert_eq!(cited(s).len(), 4, "[{}]", s.name);
    });
}

#[test]
fn confirm_relation_refusals_name_their_reason_and_leave_the_home_unchanged() {
    on_both(|s| {
        let ids = endpoints(s);
        let before = size(s);
        let base = ConfirmRelation::new(&ids[0], "supports", &ids[1], &[&ids[2]], "seen");
        let cases: Vec<(&str, ConfirmRelation)> = vec![
            (
                "blank reason",
                ConfirmRelation {
                    reason: "  ".into(),
                    ..base.clone()
                },
            ),
            (
                "mentions is not a disposal relation",
                ConfirmRelation {
                    relation: "mentions".into(),
                    ..base.clone()
                },
            ),
            (
                "no evidence",
                ConfirmRelation {
                    evidence_ids: vec![" ".into()],
                    ..base.clone()
                },
            ),
            (
                "unknown endpoint",
                ConfirmRelation {
                    target_id: "ex:nope".into(),
                    ..base.clone()
                },
            ),
            (
                "unknown evidence",
                ConfirmRelation {
                    evidence_ids: vec!["ex:nope".into()],
                    ..base.clone()
                },
            ),
            (
                "the proposer as its own evidence",
                ConfirmRelation {
                    evidence_ids: vec![ids[3].clone()],
                    proposed_by: Some(ids[3].clone()),
                    ..base.clone()
                },
            ),
        ];
        for (what, args) in cases {
            let e = s.system.confirm_relation(&args).unwrap_err();
            assert_eq!(
                e.kind(),
                ErrorKind::InvalidInput,
                "[{}] {what}: {e}",
                s.name
            );
            assert_eq!(size(s), before, "[{}] {what}: nothing written", s.name);
        }
    });
}

/// `[candidate, same-origin retelling, chat witness, same chat again, diary witness]`.
fn candidate(s: &Stack) -> Vec<String> {
    form(
        s,
        "cand",
        vec![
            rec(RecordKind::Lesson, "Both banks", ("dream", "system", "n1")),
            rec(RecordKind::Episode, "Retold", ("dream", "system", "n1")),
            rec(
                RecordKind::Episode,
                "Ada said so",
                ("chat", "person:ada", "s2"),
            ),
            rec(
                RecordKind::Episode,
                "Ada again",
                ("chat", "person:ada", "s2"),
            ),
            rec(
                RecordKind::Episode,
                "Walked it",
                ("diary", "entity:castor", "s3"),
            ),
        ],
    )
}

#[test]
fn promote_candidate_refuses_without_min_origins_independent_origins_and_writes_nothing() {
    on_both(|s| {
        let ids = candidate(s);
        let before = size(s);
        for (witnesses, counted) in [
            (vec![&ids[1]], 0),
            (vec![&ids[2], &ids[3]], 1),
            (vec![&ids[1], &ids[2], &ids[3]], 1),
        ] {
            let w: Vec<&str> = witnesses.iter().map(|x| x.as_str()).collect();
            let r = s
                .system
                .promote_candidate(&PromoteCandidate::new(
                    &ids[0],
                    SCOPE,
                    OWNER,
                    &w,
                    "corroborated",
                ))
                .unwrap();
            let refused = r.refusal().expect("refused");
            assert_eq!(refused.reason, DisposalRefusal::NotIndependent);
            assert_eq!(refused.independent_origins, Some(counted), "[{}]", s.name);
            assert_eq!(
                refused.candidate_origin,
                Some(("dream".into(), "system".into(), "n1".into()))
            );
            assert_eq!(refused.witness_origins.as_ref().unwrap().len(), w.len());
            assert_eq!(size(s), before, "[{}] nothing written", s.name);
        }
    });
}

#[test]
fn promote_candidate_with_independent_origins_appends_a_promoted_binding_still_indexed() {
    on_both(|s| {
        let ids = candidate(s);
        let r = s
            .system
            .promote_candidate(&PromoteCandidate::new(
                &ids[0],
                SCOPE,
                OWNER,
                &[&ids[2], &ids[3], &ids[4]],
                "two independent witnesses",
            ))
            .unwrap()
            .done()
            .expect("promoted");
        assert_eq!(r.independent_origins, 2);
        let b = latest(s, &ids[0]);
        assert_eq!(b.seq, r.binding_seq);
        assert_eq!(
            (b.lifecycle, b.search_state, b.prompt_state),
            (
                Lifecycle::Promoted,
                SearchState::Indexed,
                PromptState::Inactive
            ),
            "[{}] the prompt state changes only when asked",
            s.name
        );
        assert_eq!(
            b.provenance["corroborating_ids"],
            json!([ids[2], ids[3], ids[4]])
        );
        // min_origins=1 and an explicit prompt state.
        let r = s
            .system
            .promote_candidate(&PromoteCandidate {
                min_origins: 1,
                prompt_state: Some("active".into()),
                ..PromoteCandidate::new(&ids[2], SCOPE, OWNER, &[&ids[4]], "one will do")
            })
            .unwrap()
            .done()
            .expect("promoted");
        assert_eq!(r.independent_origins, 1);
        assert_eq!(latest(s, &ids[2]).prompt_state, PromptState::Active);
    });
}

#[test]
fn promote_candidate_malformed_calls_are_errors_and_write_nothing() {
    on_both(|s| {
        let ids = candidate(s);
        let before = size(s);
        let base = PromoteCandidate::new(&ids[0], SCOPE, OWNER, &[&ids[2], &ids[4]], "why");
        for (what, args) in [
            (
                "blank reason",
                PromoteCandidate {
                    reason: "".into(),
                    ..base.clone()
                },
            ),
            (
                "min_origins 0",
                PromoteCandidate {
                    min_origins: 0,
                    ..base.clone()
                },
            ),
            (
                "itself as witness",
                PromoteCandidate {
                    corroborating_ids: vec![ids[0].clone(), ids[2].clone()],
                    ..base.clone()
                },
            ),
            (
                "unknown witness",
                PromoteCandidate {
                    corroborating_ids: vec!["ex:nope".into()],
                    ..base.clone()
                },
            ),
            (
                "unknown candidate",
                PromoteCandidate {
                    record_id: "ex:nope".into(),
                    ..base.clone()
                },
            ),
            (
                "unknown prompt state",
                PromoteCandidate {
                    prompt_state: Some("warm".into()),
                    ..base.clone()
                },
            ),
        ] {
            let e = s.system.promote_candidate(&args).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "[{}] {what}", s.name);
            assert_eq!(size(s), before, "[{}] {what}", s.name);
        }
    });
}

#[test]
fn reject_candidate_needs_a_reason_and_keeps_the_record_indexed_unless_hide() {
    on_both(|s| {
        let ids = candidate(s);
        let before = size(s);
        let e = s
            .system
            .reject_candidate(&RejectCandidate::new(&ids[0], SCOPE, OWNER, " "))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert_eq!(size(s), before, "[{}] nothing written", s.name);
        let r = s
            .system
            .reject_candidate(&RejectCandidate::new(&ids[0], SCOPE, OWNER, "not so"))
            .unwrap();
        assert!(!r.hidden);
        let b = latest(s, &ids[0]);
        assert_eq!(
            (b.lifecycle, b.search_state),
            (Lifecycle::Rejected, SearchState::Indexed)
        );
        assert_eq!(b.reason.as_deref(), Some("not so"));
        let r = s
            .system
            .reject_candidate(&RejectCandidate {
                hide: true,
                ..RejectCandidate::new(&ids[1], SCOPE, OWNER, "a retelling")
            })
            .unwrap();
        assert!(r.hidden);
        assert_eq!(latest(s, &ids[1]).search_state, SearchState::Hidden);
    });
}

/// `[evidence, realization (derived_from evidence), value, other realization]`.
fn realization(s: &Stack) -> Vec<String> {
    let mut r = rec(
        RecordKind::Realization,
        "I tend what grows",
        ("realize", "entity:castor", "s3"),
    );
    r.edges = vec![("derived_from".into(), "local:0".into())];
    let mut r2 = rec(
        RecordKind::Realization,
        "Another",
        ("realize", "entity:castor", "s3"),
    );
    r2.edges = vec![("derived_from".into(), "local:0".into())];
    form(
        s,
        "real",
        vec![
            rec(RecordKind::Episode, "The garden", ("chat", "a", "s1")),
            r,
            rec(
                RecordKind::Value,
                "Tending",
                ("reflection", "entity:castor", "s4"),
            ),
            r2,
        ],
    )
}

#[test]
fn enact_realization_writes_one_derived_from_edge_and_a_promoted_binding() {
    on_both(|s| {
        let ids = realization(s);
        let r = s
            .system
            .enact_realization(&EnactRealization::new(&ids[1], &ids[2], "I adopt it"))
            .unwrap()
            .done()
            .expect("enacted");
        assert!(r.edge_created);
        assert_eq!(r.enacted_by, ids[2]);
        let edge = s
            .store
            .query(&TripleQuery {
                assertion_ids: Some(vec![r.edge_id.clone()]),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(edge.len(), 1);
        assert_eq!(
            (
                edge[0].subject.as_str(),
                edge[0].predicate.as_str(),
                edge[0].object.as_str()
            ),
            (ids[2].as_str(), "derived_from", ids[1].as_str())
        );
        let b = latest(s, &ids[1]);
        assert_eq!((b.lifecycle, b.seq), (Lifecycle::Promoted, r.binding_seq));
        assert_eq!(b.provenance["enacted_by"], json!(ids[2]));
        let again = s
            .system
            .enact_realization(&EnactRealization::new(&ids[1], &ids[2], "I adopt it"))
            .unwrap()
            .done()
            .unwrap();
        assert!(
            !again.edge_created,
            "[{}] the edge is idempotent by the pair",
            s.name
        );
        assert_eq!(
            latest(s, &ids[1]).provenance["prior_lifecycle"],
            json!("promoted")
        );
    });
}

#[test]
fn enact_realization_refuses_a_rejected_or_closed_proposal_and_writes_nothing() {
    on_both(|s| {
        let ids = realization(s);
        s.system
            .reject_candidate(&RejectCandidate::new(&ids[1], SCOPE, OWNER, "not me"))
            .unwrap();
        s.system
            .close_record(&CloseRecord::new(
                &ids[3],
                am_journal::ClosureKind::Retract,
                "withdrawn",
            ))
            .unwrap();
        let before = size(s);
        for (id, reason) in [
            (&ids[1], DisposalRefusal::Rejected),
            (&ids[3], DisposalRefusal::Closed),
        ] {
            let r = s
                .system
                .enact_realization(&EnactRealization::new(id, &ids[2], "I adopt it"))
                .unwrap();
            assert_eq!(r.refusal().map(|r| r.reason), Some(reason), "[{}]", s.name);
            assert_eq!(size(s), before, "[{}] nothing written", s.name);
        }
        for (what, args) in [
            (
                "not a realization",
                EnactRealization::new(&ids[0], &ids[2], "x"),
            ),
            ("itself", EnactRealization::new(&ids[1], &ids[1], "x")),
            (
                "unknown enacting record",
                EnactRealization::new(&ids[1], "ex:nope", "x"),
            ),
            ("blank reason", EnactRealization::new(&ids[1], &ids[2], "")),
        ] {
            let e = s.system.enact_realization(&args).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "[{}] {what}", s.name);
            assert_eq!(size(s), before, "[{}] {what}", s.name);
        }
    });
}

#[test]
fn dispose_dream_confirmed_writes_the_edge_and_supersedes_the_dream_dissolved_retracts_it() {
    on_both(|s| {
        let ids = endpoints(s);
        let mut args =
            DisposeDream::new(&ids[3], DreamDisposition::Confirmed, "the day joined them");
        let before = size(s);
        let e = s.system.dispose_dream(&args).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::InvalidInput,
            "confirming needs the edge"
        );
        let e = s
            .system
            .dispose_dream(&DisposeDream::new(
                &ids[0],
                DreamDisposition::Dissolved,
                "x",
            ))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "not a dream");
        assert_eq!(size(s), before, "[{}] nothing written", s.name);
        args.relation = Some("supports".into());
        args.source_id = Some(ids[0].clone());
        args.target_id = Some(ids[1].clone());
        args.evidence_ids = vec![ids[2].clone()];
        let r = s.system.dispose_dream(&args).unwrap();
        let edge = r.edge.expect("an edge");
        assert!(edge.created);
        assert_eq!(r.closure_ids.len(), 1);
        let closures = s
            .journal
            .closures(&ClosureFilter {
                assertion_id: None,
                until_seq: None,
                limit: 0,
            })
            .unwrap();
        assert_eq!(closures.len(), 1);
        assert_eq!(closures[0].kind, am_journal::ClosureKind::Supersede);
        assert_eq!(
            closures[0].replacement_ids,
            vec![ids[0].clone(), ids[1].clone()]
        );
        let events = cited(s);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].provenance["proposed_by"], json!(ids[3]));

        let more = form(
            s,
            "more",
            vec![rec(
                RecordKind::Dream,
                "A stray dream",
                ("dream", "system", "n2"),
            )],
        );
        let r = s
            .system
            .dispose_dream(&DisposeDream::new(
                &more[0],
                DreamDisposition::Dissolved,
                "it did not hold",
            ))
            .unwrap();
        assert!(r.edge.is_none());
        let c = s
            .journal
            .closures(&ClosureFilter {
                assertion_id: None,
                until_seq: None,
                limit: 0,
            })
            .unwrap()
            .into_iter()
            .find(|c| c.kind == am_journal::ClosureKind::Retract)
            .expect("the dissolved dream's closure");
        assert_eq!(c.reason, "dream dissolved: it did not hold");
        assert_eq!(c.closure_id, r.closure_ids[0]);
    });
}
