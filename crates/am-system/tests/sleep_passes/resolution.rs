//! `resolve_dreams_pass`: the day answers the night. Standing dreams whose
//! tensions the lived experience since settled close softly (`supersede`,
//! the settling records as replacements); the rest stand, each with its
//! reason.
//!
//! Spec: memory-system.md "Sleep" ("standing dreams the day's lived
//! experience already answered close softly"); the signature is 0.3.2's
//! (`dream_resolution.resolve_dreams_pass`: the spec gives none).

use crate::common::{Stack, written};
use crate::support::{OWNER, SCOPE, deposits, form, stacks};
use am_journal::{ClosureFilter, ClosureKind};
use am_system::sleep::{ResolveDreams, ResolveDreamsResult, UnresolvedDreams, unresolved_dreams};
use am_system::{CommitSelection, MemoryRecordInput, RecordKind};
use am_triples::{ErrorKind, TripleQuery};
use serde_json::json;

fn pass() -> ResolveDreams {
    ResolveDreams::new(&[(SCOPE, OWNER)], OWNER)
}

fn episode(s: &Stack, title: &str, key: &str) -> String {
    form(
        s,
        MemoryRecordInput::new(RecordKind::Episode, title, &format!("{title}, as lived.")),
        key,
    )
}

/// A standing dream proposing a bridge between `pair` (and asking about
/// `questions`).
fn dream(
    s: &Stack,
    key: &str,
    proposals: &[(&str, &str)],
    questions: &[(&str, &str, &str)],
    parents: &[&str],
) -> String {
    let p: Vec<_> = proposals
        .iter()
        .map(|(a, b)| json!({"pair": [a, b], "shared_facets": []}))
        .collect();
    let q: Vec<_> = questions
        .iter()
        .map(|(a, b, f)| json!({"pair": [a, b], "facet": f}))
        .collect();
    form(
        s,
        MemoryRecordInput::new(RecordKind::Dream, "A night", "Islands lit up together.")
            .with_attribute(
                "continuation_state",
                if parents.is_empty() {
                    "unresolved"
                } else {
                    "continued"
                },
            )
            .with_attribute("proposals", json!(p))
            .with_attribute("questions", json!(q))
            .with_attribute("parent_dream_ids", json!(parents)),
        key,
    )
}

/// The fixture most tests start from: two unlinked episodes (Harbor,
/// Orchard) and a standing dream bridging them: `(a, b, dream)`.
fn bridged(s: &Stack) -> (String, String, String) {
    let a = episode(s, "Harbor", "a");
    let b = episode(s, "Orchard", "b");
    let d = dream(s, "d", &[(&a, &b)], &[], &[]);
    (a, b, d)
}

/// The day's answer: a lived record joining `ids` by authored `predicate`
/// edges.
fn joined(s: &Stack, predicate: &str, ids: &[&String]) {
    let mut r = MemoryRecordInput::new(RecordKind::Episode, "Joined", "Joined.");
    for id in ids {
        r = r.with_edge(predicate, id.as_str());
    }
    form(s, r, "join");
}

/// The pass as a dry run.
fn dry_run(s: &Stack) -> ResolveDreamsResult {
    s.system
        .resolve_dreams_pass(&ResolveDreams {
            report_only: true,
            ..pass()
        })
        .unwrap()
        .value
}

fn standing(s: &Stack) -> Vec<String> {
    unresolved_dreams(
        s.store.as_ref(),
        Some(s.journal.as_ref()),
        &UnresolvedDreams::new(SCOPE, OWNER),
    )
    .unwrap()
    .into_iter()
    .map(|a| a.subject)
    .collect()
}

fn closure_of(s: &Stack, graph_id: &str) -> Option<am_journal::ClosureRecord> {
    let aid = s
        .store
        .query(&TripleQuery {
            subject: Some(graph_id.to_owned()),
            predicate: Some("dcterms:abstract".into()),
            limit: 1,
            ..TripleQuery::default()
        })
        .unwrap()[0]
        .assertion_id
        .clone()
        .unwrap();
    s.journal
        .closures(&ClosureFilter::default())
        .unwrap()
        .into_iter()
        .find(|c| c.assertion_id == aid)
}

#[test]
fn a_proposal_the_day_joined_by_an_authored_story_closes_its_dream_softly_with_the_evidence() {
    for (s, _) in stacks(true) {
        let (a, b, d) = bridged(&s);
        let before = written(&s);
        let dry = dry_run(&s);
        assert_eq!(
            (dry.examined, dry.resolved.len(), dry.standing.len()),
            (1, 0, 1),
            "[{}]",
            s.name
        );
        // The day: a lived record whose authored edges join the two.
        form(
            &s,
            MemoryRecordInput::new(
                RecordKind::Episode,
                "Carried apples to the harbor",
                "Apples to the boats.",
            )
            .with_edge("supports", &a)
            .with_edge("supports", &b),
            "join",
        );
        let mid = written(&s);
        assert_ne!(mid, before);
        let dry = dry_run(&s);
        assert_eq!(dry.resolved[0].mechanisms, ["joined_by_authored_story"]);
        assert!(!dry.resolved[0].closed);
        assert_eq!(written(&s), mid, "the dry run writes nothing");
        let r = s.system.resolve_dreams_pass(&pass()).unwrap().value;
        assert_eq!(r.resolved_count, 1);
        let v = &r.resolved[0];
        assert_eq!((v.settled, v.tensions, v.closed), (1, 1, true));
        let c = closure_of(&s, &d).expect("closed");
        assert_eq!(c.kind, ClosureKind::Supersede);
        assert_eq!(c.replacement_ids, v.evidence_ids);
        assert!(
            c.reason.starts_with("resolved_by_experience"),
            "{}",
            c.reason
        );
        assert!(standing(&s).is_empty());
        // Run again: nothing standing, nothing written.
        let after = written(&s);
        let again = s.system.resolve_dreams_pass(&pass()).unwrap().value;
        assert_eq!((again.examined, again.resolved_count), (0, 0));
        assert_eq!(written(&s), after);
    }
}

#[test]
fn a_question_settles_when_a_later_record_carries_its_facet_and_touches_an_endpoint() {
    for (s, _) in stacks(true) {
        let a = form(
            &s,
            MemoryRecordInput::new(RecordKind::Episode, "Ada at the harbor", "Ada rowed out.")
                .with_participants(&["person:ada"]),
            "a",
        );
        let b = episode(&s, "Orchard", "b");
        let d = dream(&s, "d", &[], &[(&a, &b, "lantern")], &[]);
        let unrelated = form(
            &s,
            MemoryRecordInput::new(RecordKind::Episode, "A lantern", "A lantern, alone.")
                .with_keywords(&["lantern"]),
            "u",
        );
        let r = dry_run(&s);
        assert!(
            r.resolved.is_empty(),
            "[{}] the facet alone does not touch an endpoint",
            s.name
        );
        let answer = form(
            &s,
            MemoryRecordInput::new(RecordKind::Episode, "Ada's lantern", "Ada lit the lantern.")
                .with_keywords(&["lantern"])
                .with_participants(&["person:ada"]),
            "answer",
        );
        let r = s.system.resolve_dreams_pass(&pass()).unwrap().value;
        assert_eq!(r.resolved[0].dream_id, d);
        assert_eq!(
            r.resolved[0].mechanisms,
            ["facet_found_its_subject_in_experience"]
        );
        assert_eq!(r.resolved[0].evidence_ids, [answer]);
        assert_ne!(r.resolved[0].evidence_ids[0], unrelated);
    }
}

#[test]
fn a_continuation_dream_settles_in_the_same_pass_as_the_parent_it_relights() {
    for (s, hands) in stacks(true) {
        let a = episode(&s, "Harbor", "a");
        let b = episode(&s, "Orchard", "b");
        let parent = dream(&s, "parent", &[(&a, &b)], &[], &[]);
        hands.set("2026-03-02T09:00:00+00:00"); // the child is the younger: examined after
        let child = dream(&s, "child", &[], &[], &[&parent]);
        joined(&s, "part_of", &[&a, &b]);
        let dry = dry_run(&s);
        assert_eq!(
            dry.resolved.len(),
            1,
            "[{}] a dry run closes no parent, so the child stands",
            s.name
        );
        let r = s.system.resolve_dreams_pass(&pass()).unwrap().value;
        let ids: Vec<&str> = r.resolved.iter().map(|v| v.dream_id.as_str()).collect();
        assert_eq!(ids, [parent.as_str(), child.as_str()]);
        assert_eq!(r.resolved[1].mechanisms, ["relit_tension_settled"]);
        assert_eq!(r.resolved[1].evidence_ids, [parent]);
    }
}

#[test]
fn co_use_settles_a_proposal_only_across_two_distinct_traces() {
    for (s, _) in stacks(true) {
        let (a, b, _) = bridged(&s);
        let used = [a.clone(), b.clone()];
        s.system
            .commit_selection(&CommitSelection::new("t1", &used))
            .unwrap();
        let one = dry_run(&s);
        assert!(
            one.resolved.is_empty(),
            "[{}] one co-display is not lived association",
            s.name
        );
        s.system
            .commit_selection(&CommitSelection::new("t2", &used))
            .unwrap();
        let before = deposits(&s, &used);
        let two = s.system.resolve_dreams_pass(&pass()).unwrap().value;
        assert_eq!(two.resolved[0].mechanisms, ["associated_by_lived_use"]);
        assert_eq!(deposits(&s, &used), before, "the pass deposits nothing");
    }
}

#[test]
fn an_endpoint_closed_since_the_dream_leaves_its_tension_standing() {
    for (s, _) in stacks(true) {
        let (a, b, _) = bridged(&s);
        joined(&s, "supports", &[&a, &b]);
        s.system
            .close_record(&am_system::CloseRecord::new(
                &a,
                ClosureKind::Retract,
                "never happened",
            ))
            .unwrap();
        let r = s.system.resolve_dreams_pass(&pass()).unwrap().value;
        assert!(r.resolved.is_empty(), "[{}]", s.name);
        assert_eq!(r.standing.len(), 1);
    }
}

#[test]
fn a_write_at_as_of_or_without_a_pair_is_refused_writing_nothing() {
    for (s, _) in stacks(true) {
        bridged(&s);
        let before = written(&s);
        for (args, needle) in [
            (
                ResolveDreams {
                    as_of: Some(1),
                    ..pass()
                },
                "as_of",
            ),
            (
                ResolveDreams {
                    scopes: vec![],
                    ..pass()
                },
                "scopes",
            ),
        ] {
            let err = s.system.resolve_dreams_pass(&args).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            assert!(err.to_string().contains(needle), "{err}");
        }
        let audit = s.system.resolve_dreams_pass(&ResolveDreams {
            as_of: Some(1),
            report_only: true,
            ..pass()
        });
        assert!(audit.is_ok(), "an anchored audit read runs");
        assert_eq!(written(&s), before);
    }
}

#[test]
fn without_a_standing_dream_the_pass_examines_nothing_at_its_anchor_and_still_checks_as_of() {
    for (s, _) in stacks(true) {
        let a = episode(&s, "Harbor", "a");
        let b = episode(&s, "Orchard", "b");
        let before = written(&s);
        let head = s.system.journal().current_seq().unwrap();
        let r = s.system.resolve_dreams_pass(&pass()).unwrap();
        assert!(r.warnings.is_empty());
        assert_eq!(
            serde_json::to_value(&r.value).unwrap(),
            json!({"pass_name": "resolve_dreams_pass", "examined": 0, "resolved": [],
                   "standing": [], "as_of_seq": head, "resolved_count": 0}),
            "[{}]",
            s.name
        );
        let audit = s
            .system
            .resolve_dreams_pass(&ResolveDreams {
                as_of: Some(1),
                report_only: true,
                ..pass()
            })
            .unwrap();
        assert_eq!(audit.value.as_of_seq, 1);
        let err = s
            .system
            .resolve_dreams_pass(&ResolveDreams {
                as_of: Some(head + 5),
                report_only: true,
                ..pass()
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("as_of"), "{err}");
        // With a dream standing, the same pass reads the structure and
        // examines it.
        dream(&s, "d", &[(&a, &b)], &[], &[]);
        let r = s
            .system
            .resolve_dreams_pass(&ResolveDreams {
                report_only: true,
                ..pass()
            })
            .unwrap();
        assert_eq!(r.value.examined, 1);
        assert!(written(&s) != before, "the dream was written");
    }
}

#[test]
fn every_closure_of_a_pass_commits_in_one_transaction() {
    let points = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let p = points.clone();
    let make = move || am_system::SystemOptions {
        task_queue: true,
        commit_guard: Some(am_triples::CommitGuard::new({
            let p = p.clone();
            move |point| {
                p.lock().unwrap().push(point.to_owned());
                Ok(())
            }
        })),
        ..am_system::SystemOptions::default()
    };
    for s in [
        crate::common::memory_stack(make()),
        crate::common::sqlite_stack(make()),
    ] {
        let a = episode(&s, "Harbor", "a");
        let b = episode(&s, "Orchard", "b");
        let c = episode(&s, "Mill", "c");
        dream(&s, "d1", &[(&a, &b)], &[], &[]);
        dream(&s, "d2", &[(&b, &c)], &[], &[]);
        joined(&s, "supports", &[&a, &b, &c]);
        points.lock().unwrap().clear();
        let r = s.system.resolve_dreams_pass(&pass()).unwrap().value;
        assert_eq!(r.resolved_count, 2);
        assert_eq!(*points.lock().unwrap(), ["journal"], "[{}]", s.name);
    }
}
