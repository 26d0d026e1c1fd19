//! `consolidation_pass`: at most N low-risk duplicate-title groups become
//! inactive, review-gated `kind="summary"` candidates with `summarizes`
//! edges to every source; idempotent by source set; sources byte-untouched;
//! the candidate's title and summary authored by the host's `author` or
//! pending with the failure recorded (0.5.2; 0.3.2 stores its own words).
//!
//! Spec: memory-system.md "The night's sub-phases and data-quality tending",
//! api.md "Authored with the record", "Vocabularies and tuning constants"
//! (`CONSOLIDATION_PROTECTED_KINDS`).

use crate::common::{Stack, written};
use crate::support::{OWNER, SCOPE, deposits, form, operator_author, stacks, tasks};
use am_journal::{BindingFilter, Lifecycle};
use am_system::formation::authoring::AuthoringFailureReason;
use am_system::sleep::ConsolidationPass;
use am_system::{MemoryRecordInput, RecordKind};
use am_triples::{ErrorKind, TripleQuery};
use std::sync::{Arc, Mutex};

fn pass() -> ConsolidationPass {
    ConsolidationPass::new(&[(SCOPE, OWNER)], OWNER)
}

/// Two groups of same-kind duplicate titles and a protected pair.
fn duplicates(s: &Stack) -> (Vec<String>, Vec<String>) {
    let a = vec![
        form(
            s,
            MemoryRecordInput::new(
                RecordKind::Episode,
                "Harbor outage",
                "The harbor signal failed at noon.",
            ),
            "a1",
        ),
        form(
            s,
            MemoryRecordInput::new(
                RecordKind::Episode,
                "Harbor  outage!",
                "The harbor signal failed again at dusk.",
            ),
            "a2",
        ),
    ];
    let b = vec![
        form(
            s,
            MemoryRecordInput::new(RecordKind::Lesson, "Tea helps", "Tea helps the review."),
            "b1",
        ),
        form(
            s,
            MemoryRecordInput::new(
                RecordKind::Lesson,
                "tea helps",
                "A cup of tea before reviews.",
            ),
            "b2",
        ),
    ];
    for (i, t) in ["Honesty", "honesty"].iter().enumerate() {
        form(
            s,
            MemoryRecordInput::new(RecordKind::Value, t, "I keep my word.")
                .with_attribute("value_class", "revisable"),
            &format!("v{i}"),
        );
    }
    (a, b)
}

fn source_rows(s: &Stack, ids: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for id in ids {
        for a in s
            .store
            .query(&TripleQuery {
                subject: Some(id.clone()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap()
        {
            out.push(serde_json::to_string(&a.to_dict()).unwrap());
        }
    }
    out
}

#[test]
fn duplicate_title_groups_become_inactive_summary_candidates_summarizing_every_source_untouched() {
    for (s, _) in stacks(true) {
        let (a, b) = duplicates(&s);
        let before = source_rows(&s, &[a.clone(), b.clone()].concat());
        let r = s.system.consolidation_pass(&pass(), None).unwrap().value;
        assert_eq!(r.pass_name, "consolidation_pass");
        assert_eq!(r.created_count, 2, "[{}] {:?}", s.name, r.skipped);
        let mut groups: Vec<Vec<String>> = r.created.iter().map(|c| c.source_ids.clone()).collect();
        groups.sort();
        let mut want = vec![a.clone(), b.clone()];
        for g in &mut want {
            g.sort();
        }
        want.sort();
        assert_eq!(groups, want, "the protected values are never consolidated");
        for c in &r.created {
            let rows = s
                .store
                .query(&TripleQuery {
                    subject: Some(c.candidate_id.clone()),
                    limit: 0,
                    ..TripleQuery::default()
                })
                .unwrap();
            let digest = rows
                .iter()
                .find(|x| x.predicate == "dcterms:abstract")
                .unwrap();
            assert_eq!(digest.attributes["record_kind"], "summary");
            assert_eq!(digest.attributes["review_required"], true);
            assert_eq!(digest.attributes["maintenance_candidate"], true);
            assert_eq!(digest.attributes["no_source_mutation"], true);
            let mut edges: Vec<String> = rows
                .iter()
                .filter(|x| x.predicate == "summarizes")
                .map(|x| x.object.clone())
                .collect();
            edges.sort();
            let mut src = c.source_ids.clone();
            src.sort();
            assert_eq!(edges, src);
            let binding = s
                .journal
                .bindings(&BindingFilter {
                    record_id: Some(c.candidate_id.clone()),
                    ..BindingFilter::default()
                })
                .unwrap();
            assert_eq!(
                binding[0].lifecycle,
                Lifecycle::InactiveCandidate,
                "inactive, review-gated"
            );
        }
        assert_eq!(
            source_rows(&s, &[a, b].concat()),
            before,
            "sources byte-untouched"
        );
    }
}

#[test]
fn at_most_max_candidates_form_and_proposal_ids_select_which() {
    for (s, _) in stacks(true) {
        duplicates(&s);
        let mut one = pass();
        one.max_candidates = 1;
        one.report_only = true;
        let dry = s.system.consolidation_pass(&one, None).unwrap().value;
        let second = dry.report.consolidation_proposals[1].id.clone();
        one.report_only = false;
        one.proposal_ids = vec![second.clone()];
        let r = s.system.consolidation_pass(&one, None).unwrap().value;
        assert_eq!(r.created.len(), 1);
        assert_eq!(r.created[0].proposal_id, second);
    }
}

#[test]
fn without_an_author_a_candidate_forms_pending_with_its_tasks_and_with_one_it_is_authored() {
    for (s, _) in stacks(true) {
        duplicates(&s);
        let mut one = pass();
        one.max_candidates = 1;
        let r = s.system.consolidation_pass(&one, None).unwrap().value;
        let id = r.created[0].candidate_id.clone();
        assert_eq!(
            r.authoring.failures[0].reason,
            AuthoringFailureReason::NoAuthorSupplied
        );
        let owed: Vec<String> = tasks(&s)
            .into_iter()
            .filter(|(_, t)| *t == id)
            .map(|(k, _)| k)
            .collect();
        assert_eq!(owed, ["digest.author", "title.author"], "[{}]", s.name);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let r = s
            .system
            .consolidation_pass(&pass(), Some(&author))
            .unwrap()
            .value;
        let formed: Vec<_> = r.created.iter().filter(|c| c.created).collect();
        assert_eq!(formed.len(), 1);
        assert_eq!(r.authoring.authored[0].record_id, formed[0].candidate_id);
        let ctx = calls.lock().unwrap();
        assert_eq!(ctx.len(), 1);
        assert_eq!(ctx[0].pass, "consolidation_pass");
        assert_eq!(ctx[0].source_ids, formed[0].source_ids);
    }
}

#[test]
fn a_run_again_is_idempotent_the_covered_groups_are_skipped_and_nothing_is_written() {
    for (s, _) in stacks(true) {
        duplicates(&s);
        s.system.consolidation_pass(&pass(), None).unwrap();
        let before = (written(&s), tasks(&s));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let r = s
            .system
            .consolidation_pass(&pass(), Some(&author))
            .unwrap()
            .value;
        assert_eq!(r.created_count, 0);
        assert_eq!(r.skipped.len(), 2, "{:?}", r.skipped);
        assert!(calls.lock().unwrap().is_empty());
        assert_eq!((written(&s), tasks(&s)), before, "[{}]", s.name);
    }
}

#[test]
fn report_only_writes_nothing_and_a_cap_outside_the_band_or_a_write_at_as_of_is_refused() {
    for (s, _) in stacks(true) {
        duplicates(&s);
        let before = (written(&s), tasks(&s));
        let mut dry = pass();
        dry.report_only = true;
        let r = s.system.consolidation_pass(&dry, None).unwrap().value;
        assert!(r.created.is_empty());
        assert_eq!(r.skipped.len(), 1);
        for (args, needle) in [
            (
                ConsolidationPass {
                    max_candidates: 7,
                    ..pass()
                },
                "candidate_cap_band",
            ),
            (
                ConsolidationPass {
                    max_candidates: 0,
                    ..pass()
                },
                "candidate_cap_band",
            ),
            (
                ConsolidationPass {
                    as_of: Some(1),
                    ..pass()
                },
                "as_of",
            ),
            (
                ConsolidationPass {
                    scopes: vec![],
                    ..pass()
                },
                "scopes",
            ),
        ] {
            let err = s.system.consolidation_pass(&args, None).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            assert!(err.to_string().contains(needle), "{err}");
        }
        assert_eq!((written(&s), tasks(&s)), before);
    }
}

#[test]
fn a_home_without_the_task_queue_refuses_a_pending_candidate_before_writing_anything() {
    for (s, _) in stacks(false) {
        duplicates(&s);
        let before = written(&s);
        let err = s.system.consolidation_pass(&pass(), None).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("task_queue=True"), "{err}");
        assert_eq!(written(&s), before, "[{}]", s.name);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls);
        assert_eq!(
            s.system
                .consolidation_pass(&pass(), Some(&author))
                .unwrap()
                .value
                .created_count,
            2
        );
    }
}

#[test]
fn the_pass_deposits_nothing_access_counts_and_activation_are_unchanged() {
    for (s, _) in stacks(true) {
        let (a, b) = duplicates(&s);
        let used = [a, b].concat();
        s.system
            .commit_selection(&am_system::CommitSelection::new("t1", &used))
            .unwrap();
        let before = deposits(&s, &used);
        s.system.consolidation_pass(&pass(), None).unwrap();
        assert_eq!(deposits(&s, &used), before, "[{}]", s.name);
    }
}

#[test]
fn every_candidate_of_a_pass_and_its_tasks_commit_in_one_transaction() {
    let points = Arc::new(Mutex::new(Vec::<String>::new()));
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
        duplicates(&s);
        points.lock().unwrap().clear();
        let r = s.system.consolidation_pass(&pass(), None).unwrap().value;
        assert_eq!(r.created_count, 2);
        assert_eq!(
            *points.lock().unwrap(),
            ["tasks.form_with_tasks"],
            "[{}]",
            s.name
        );
    }
}
