//! `mine_candidates_pass` and `resolve_questions_pass` on both stacks: one
//! test per contract sentence that can fail (api.md "Candidates, disposal,
//! and deliberate acts": bounded, idempotent, each offer authored by
//! `author` or pending with the failure recorded; proposals only, zero
//! writes; the passes that form pending records refuse a home without a
//! task queue before writing anything, `report_only` reads still run).

use crate::common::{Stack, assert_refused, home_bytes, on_both_with, written};
use crate::home::{OWNER, SCOPE, on_both, ticking};
use am_system::candidates::{MineCandidates, MinedCandidates, ResolveQuestions};
use am_system::formation::authoring::{AuthorContext, AuthorError, Authored};
use am_system::{MemoryRecordInput, RecordKind, RememberMany};
use am_triples::{ErrorKind, JsonMap, TripleAssertion, TripleQuery};
use serde_json::json;
use std::collections::HashMap;

/// One record formed on its own (its own instant on the ticking clock).
fn one(s: &Stack, key: &str, r: MemoryRecordInput) -> String {
    s.system
        .remember_many(&RememberMany::new(vec![r], SCOPE, OWNER, key))
        .unwrap()
        .value[0]
        .clone()
}

fn diary(title: &str, diary_type: &str, session: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Diary, title, &format!("{title}?"))
        .with_provenance("source", "owner-direct")
        .with_provenance("session_id", session)
        .with_attribute("diary_type", diary_type)
}

fn episode(title: &str, session: &str, keywords: &[&str]) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Episode, title, &format!("{title}, lived."))
        .with_provenance("session_id", session)
        .with_keywords(keywords)
}

/// The names of the home's records and their graph ids: a resolved
/// question whose theme lived across sessions (`Q`, answered by `A`), a
/// compound keyword recurring across three sessions (`wind load`), an open
/// question (`Q2`) with an earlier (`E0`) and a later (`E4`) record sharing
/// its words.
fn lived(s: &Stack) -> HashMap<&'static str, String> {
    let mut ids = HashMap::new();
    ids.insert(
        "E0",
        one(s, "e0", episode("Coastal cliffs and tides", "s0", &[])),
    );
    ids.insert(
        "Q",
        one(
            s,
            "q",
            diary("Why do bridges sway under wind load", "question", "s1"),
        ),
    );
    ids.insert(
        "Q2",
        one(
            s,
            "q2",
            diary("How do tides shape coastal cliffs", "question", "s1"),
        ),
    );
    ids.insert(
        "E1",
        one(
            s,
            "e1",
            episode("Bridges sway in the wind", "s2", &["wind load"]),
        ),
    );
    ids.insert(
        "E2",
        one(
            s,
            "e2",
            episode("Wind load on suspension bridges", "s3", &["wind load"]),
        ),
    );
    ids.insert(
        "E3",
        one(s, "e3", episode("A gusty walk", "s4", &["wind load"])),
    );
    let answer = diary("Bridges sway by resonance", "note", "s5")
        .with_attribute("answers", ids["Q"].as_str());
    ids.insert("A", one(s, "a", answer));
    ids.insert(
        "E4",
        one(
            s,
            "e4",
            episode("Tides shape the coastal cliffs", "s6", &[]),
        ),
    );
    ids
}

fn row(s: &Stack, id: &str) -> TripleAssertion {
    s.store
        .query(&TripleQuery {
            subject: Some(id.to_owned()),
            predicate: Some("dcterms:abstract".to_owned()),
            limit: 1,
            ..TripleQuery::default()
        })
        .unwrap()
        .remove(0)
}

fn summarizes(s: &Stack, id: &str) -> Vec<String> {
    let mut t: Vec<String> = s
        .store
        .query(&TripleQuery {
            subject: Some(id.to_owned()),
            predicate: Some("summarizes".to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .map(|a| a.object)
        .collect();
    t.sort();
    t
}

fn mine(s: &Stack, args: &MineCandidates) -> MinedCandidates {
    s.system.mine_candidates_pass(args, None).unwrap().value
}

#[test]
fn mine_candidates_pass_offers_a_lesson_and_an_interest_in_the_ruled_shape_pending_without_an_author()
 {
    on_both_with(ticking, |s| {
        let ids = lived(s);
        let out = mine(s, &MineCandidates::new(&[(SCOPE, OWNER)], OWNER));
        assert_eq!(out.lesson_candidates.len(), 1, "[{}] {out:?}", s.name);
        assert_eq!(out.lesson_candidates[0].question_id, ids["Q"]);
        assert!(out.lesson_candidates[0].sessions >= 2);
        assert_eq!(out.interest_candidates.len(), 1, "[{}] {out:?}", s.name);
        assert_eq!(out.interest_candidates[0].theme, "wind load");
        assert_eq!(out.interest_candidates[0].sessions, 3);
        assert_eq!(out.created_count, 2, "[{}] {out:?}", s.name);
        assert_eq!(
            out.authoring.failures.len(),
            2,
            "[{}] both recorded",
            s.name
        );
        assert!(out.authoring.authored.is_empty());
        for (offer, kind) in out.created.iter().zip(["lesson", "interest"]) {
            let id = offer.candidate_id.clone().unwrap();
            let a = row(s, &id);
            let attrs = &a.attributes;
            assert_eq!(
                attrs["record_kind"],
                json!("summary"),
                "[{}] never the kind itself",
                s.name
            );
            assert_eq!(attrs["proposed_kind"], json!(kind));
            assert_eq!(attrs["maintenance_candidate"], json!(true));
            assert_eq!(attrs["review_required"], json!(true));
            assert_eq!(
                attrs["pending"]["title"],
                json!(true),
                "[{}] {attrs:?}",
                s.name
            );
            assert_eq!(attrs["pending"]["summary"], json!(true));
            assert_eq!(
                attrs["pending"]["failure"]["reason"],
                json!("no_author_supplied")
            );
            assert!(attrs.get("title").is_none_or(serde_json::Value::is_null));
            let mut sources = offer.source_ids.clone();
            sources.sort();
            assert_eq!(
                summarizes(s, &id),
                sources,
                "[{}] edges name the evidence",
                s.name
            );
            assert_eq!(attrs["source_ids"], json!(offer.source_ids));
        }
        let lesson_sources = &out.created[0].source_ids;
        assert_eq!(lesson_sources[0], ids["Q"], "the question first");
        assert_eq!(lesson_sources[1], ids["A"], "then its answer");
        assert!(lesson_sources.contains(&ids["E1"]) && lesson_sources.contains(&ids["E2"]));
    });
}

#[test]
fn mine_candidates_pass_stores_the_title_and_summary_the_author_wrote() {
    let author = |_k: &str, body: &str, ctx: &AuthorContext| -> Result<Authored, AuthorError> {
        assert_eq!(ctx.pass, "mine_candidates_pass");
        assert_eq!(ctx.record_kind, "summary");
        let mut who = JsonMap::new();
        who.insert("kind".into(), json!("operator"));
        who.insert("id".into(), json!("op"));
        Ok(Authored {
            title: Some(format!("Offer on {}", ctx.attributes["proposed_kind"])),
            summary: Some(format!("Said plainly: {}", body.len())),
            author: who,
            ..Authored::default()
        })
    };
    on_both_with(ticking, |s| {
        lived(s);
        let out = s
            .system
            .mine_candidates_pass(
                &MineCandidates::new(&[(SCOPE, OWNER)], OWNER),
                Some(&author),
            )
            .unwrap()
            .value;
        assert_eq!(out.authoring.authored.len(), 2, "[{}] {out:?}", s.name);
        assert!(out.authoring.failures.is_empty());
        let a = row(s, out.created[1].candidate_id.as_deref().unwrap());
        assert_eq!(a.attributes["title"], json!("Offer on \"interest\""));
        assert!(
            a.object.starts_with("Said plainly: "),
            "[{}] {}",
            s.name,
            a.object
        );
        assert!(
            a.attributes
                .get("pending")
                .is_none_or(serde_json::Value::is_null)
        );
    });
}

#[test]
fn mine_candidates_pass_is_idempotent_a_standing_offer_is_skipped_and_nothing_is_written() {
    on_both_with(ticking, |s| {
        lived(s);
        let args = MineCandidates::new(&[(SCOPE, OWNER)], OWNER);
        let first = mine(s, &args);
        assert_eq!(first.created_count, 2);
        let before = written(s);
        let again = mine(s, &args);
        assert_eq!(written(s), before, "[{}] a re-run writes nothing", s.name);
        assert_eq!(again.created_count, 0);
        assert!(again.created.is_empty());
        assert_eq!(again.skipped.len(), 2, "[{}] {again:?}", s.name);
        assert_eq!(again.lesson_candidates, first.lesson_candidates);
        assert_eq!(again.interest_candidates, first.interest_candidates);
    });
}

#[test]
fn mine_candidates_pass_is_bounded_by_max_candidates_and_report_only_predicts_the_write() {
    on_both_with(ticking, |s| {
        lived(s);
        let mut args = MineCandidates::new(&[(SCOPE, OWNER)], OWNER);
        args.max_candidates = 1;
        args.report_only = true;
        let before = written(s);
        let predicted = mine(s, &args);
        assert_eq!(
            written(s),
            before,
            "[{}] report_only writes nothing",
            s.name
        );
        assert_eq!(predicted.created.len(), 1);
        assert_eq!(predicted.created[0].would_mint, Some(true));
        assert_eq!(predicted.created[0].candidate_id, None);
        assert_eq!(predicted.created_count, 0);
        assert_eq!(
            predicted.skipped.len(),
            1,
            "[{}] the cap skips the second",
            s.name
        );
        args.report_only = false;
        let wrote = mine(s, &args);
        assert_eq!(wrote.created_count, 1);
        assert_eq!(
            wrote.created[0].proposed_kind,
            predicted.created[0].proposed_kind
        );
        assert_eq!(wrote.created[0].source_ids, predicted.created[0].source_ids);
        // A standing offer takes no slot: the next pass forms the other.
        let next = mine(s, &args);
        assert_eq!(next.created_count, 1, "[{}] {next:?}", s.name);
        assert_ne!(
            next.created[0].proposed_kind,
            wrote.created[0].proposed_kind
        );
    });
}

#[test]
fn mine_candidates_pass_refuses_a_home_without_a_task_queue_before_writing_report_only_still_runs()
{
    on_both(|s| {
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system
                .mine_candidates_pass(&MineCandidates::new(&[(SCOPE, OWNER)], OWNER), None),
            ErrorKind::InvalidInput,
            &["task queue"],
        );
        let mut args = MineCandidates::new(&[(SCOPE, OWNER)], OWNER);
        args.report_only = true;
        assert!(s.system.mine_candidates_pass(&args, None).is_ok());
        assert_eq!(written(s), before);
    });
}

#[test]
fn mine_candidates_pass_malformed_calls_are_errors_and_write_nothing() {
    on_both_with(ticking, |s| {
        lived(s);
        let before = written(s);
        let base = MineCandidates::new(&[(SCOPE, OWNER)], OWNER);
        for (what, args, needle) in [
            (
                "as_of",
                MineCandidates {
                    as_of: Some(1),
                    ..base.clone()
                },
                "as_of",
            ),
            (
                "blank owner",
                MineCandidates {
                    owner_id: " ".into(),
                    ..base.clone()
                },
                "owner_id",
            ),
            (
                "no scopes",
                MineCandidates {
                    scopes: vec![],
                    ..base.clone()
                },
                "scopes",
            ),
            (
                "cap",
                MineCandidates {
                    max_candidates: 0,
                    ..base.clone()
                },
                "max_candidates",
            ),
        ] {
            let r = s.system.mine_candidates_pass(&args, None);
            assert!(r.is_err(), "[{}] {what}", s.name);
            assert_refused(s, &before, r, ErrorKind::InvalidInput, &[needle]);
        }
    });
}

#[test]
fn a_standing_interest_owns_its_theme_and_a_standing_lesson_its_question() {
    on_both_with(ticking, |s| {
        lived(s);
        one(
            s,
            "interest",
            MemoryRecordInput::new(RecordKind::Interest, "Wind load", "Wind load, and why."),
        );
        one(
            s,
            "lesson",
            MemoryRecordInput::new(RecordKind::Lesson, "Bridges sway under wind", "Resonance."),
        );
        let out = mine(s, &MineCandidates::new(&[(SCOPE, OWNER)], OWNER));
        assert!(out.lesson_candidates.is_empty(), "[{}] {out:?}", s.name);
        assert!(out.interest_candidates.is_empty(), "[{}] {out:?}", s.name);
        assert_eq!(out.created_count, 0);
        assert_eq!(out.skipped.len(), 1);
        assert_eq!(out.skipped[0].title, "wind load");
    });
}

#[test]
fn resolve_questions_pass_proposes_later_evidence_only_and_writes_nothing() {
    on_both_with(ticking, |s| {
        let ids = lived(s);
        let before = written(s);
        let bytes = home_bytes(s);
        let out = s
            .system
            .resolve_questions_pass(&ResolveQuestions::new(&[(SCOPE, OWNER)]))
            .unwrap();
        assert_eq!(written(s), before, "[{}] rows and seq", s.name);
        assert_eq!(home_bytes(s), bytes, "[{}] the file's bytes", s.name);
        assert_eq!(
            out.examined, 1,
            "[{}] the answered question is not open",
            s.name
        );
        assert_eq!(out.proposal_count, 1);
        let p = &out.proposals[0];
        assert_eq!(p.question_id, ids["Q2"]);
        assert_eq!(p.diary_type, "question");
        let evidence: Vec<&str> = p.evidence.iter().map(|e| e.record_id.as_str()).collect();
        assert_eq!(
            evidence,
            vec![ids["E4"].as_str()],
            "[{}] only LATER records",
            s.name
        );
        assert_eq!(
            p.evidence[0].shared_terms,
            vec!["cliffs", "coastal", "shape", "tides"]
        );
        // The miner reports the same proposals.
        let mut args = MineCandidates::new(&[(SCOPE, OWNER)], OWNER);
        args.report_only = true;
        assert_eq!(mine(s, &args).question_proposals, out.proposals);
    });
}

#[test]
fn mine_candidates_pass_forms_pending_with_the_failure_recorded_when_the_author_raises() {
    let author = |_k: &str, _b: &str, _c: &AuthorContext| -> Result<Authored, AuthorError> {
        Err(AuthorError::new("Timeout", "the model did not answer"))
    };
    on_both_with(ticking, |s| {
        lived(s);
        let out = s
            .system
            .mine_candidates_pass(
                &MineCandidates::new(&[(SCOPE, OWNER)], OWNER),
                Some(&author),
            )
            .unwrap()
            .value;
        assert_eq!(out.created_count, 2);
        assert_eq!(out.authoring.failures.len(), 2, "[{}] {out:?}", s.name);
        for (f, offer) in out.authoring.failures.iter().zip(&out.created) {
            assert_eq!(Some(&f.record_id), offer.candidate_id.as_ref());
            assert_eq!(f.error_class.as_deref(), Some("Timeout"));
            assert_eq!(f.message, "the model did not answer");
            let a = row(s, &f.record_id);
            let failure = &a.attributes["pending"]["failure"];
            assert_eq!(
                failure["reason"],
                json!("author_raised"),
                "[{}] {a:?}",
                s.name
            );
            assert_eq!(failure["error_class"], json!("Timeout"));
        }
    });
}
