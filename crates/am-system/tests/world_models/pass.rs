//! `world_model_pass` and `world_model_update` on both stacks: pending
//! formation (0.5.2: no title or summary is ever the pass's words; 0.3.2
//! formed mechanical cards titled "World model: <subject>"), the authored
//! paths through formation's one authored-or-pending step, revisions,
//! idempotence, the repair, the keys, and the refusals.

use crate::common::{assert_refused, memory_stack, written};
use crate::support::{
    OWNER, SCOPE, current, episode, live, on_both, operator, standing, three_with_ada, writer,
};
use am_journal::{TaskKind, TaskStatus};
use am_system::formation::authoring::{AuthorContext, AuthorError, Authored};
use am_system::tasks::ListTasks;
use am_system::world_models::{WorldModelPass, WorldModelUpdate, interest_target};
use am_system::{AuthoringFailureReason, MemoryRecordInput, RecordKind, SystemOptions};
use am_triples::{ErrorKind, TripleQuery};
use serde_json::{Value, json};
use std::sync::Mutex;

fn pass() -> WorldModelPass {
    WorldModelPass::new(&[(SCOPE, OWNER)], OWNER)
}

fn live_tasks(s: &crate::common::Stack, target: &str) -> Vec<TaskKind> {
    let mut kinds: Vec<TaskKind> = s
        .system
        .tasks()
        .unwrap()
        .tasks(&ListTasks {
            target_id: Some(target.to_owned()),
            ..ListTasks::default()
        })
        .unwrap()
        .into_iter()
        .filter(|t| t.status == TaskStatus::Pending)
        .map(|t| t.kind)
        .collect();
    kinds.sort_by_key(|k| k.as_str());
    kinds
}

#[test]
fn without_an_author_a_card_forms_pending_title_and_summary_with_the_briefing_as_its_body() {
    on_both(|s| {
        three_with_ada(s, "a");
        let report = s.system.world_model_pass(&pass(), None).unwrap();
        assert_eq!(report.formed.len(), 1, "[{}] {report:?}", s.name);
        let v = &report.formed[0];
        assert_eq!(v.target, "person:ada");
        assert_eq!(v.pending, ["title", "summary"]);
        assert!(v.formed);
        let card = &current(s)["person:ada"];
        let attrs = &card.attributes;
        assert_eq!(attrs["digest_method"], "mechanical-card-v2");
        assert!(
            attrs.get("title").is_none_or(Value::is_null),
            "[{}] no title: {attrs:?}",
            s.name
        );
        assert!(
            card.object.starts_with("What I know of ada:"),
            "{}",
            card.object
        );
        assert_eq!(attrs["pending"]["failure"]["reason"], "no_author_supplied");
        assert_eq!(
            live_tasks(s, &card.subject),
            [TaskKind::DigestAuthor, TaskKind::TitleAuthor],
            "[{}] the pending fields' tasks",
            s.name
        );
        let f = &report.authoring.failures;
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].reason, AuthoringFailureReason::NoAuthorSupplied);
        assert_eq!(f[0].pass, "world_model_pass");
    });
}

#[test]
fn an_authored_card_stores_authored_card_v1_with_its_lead_baseline_and_author_and_owes_no_task() {
    on_both(|s| {
        let ids = three_with_ada(s, "a");
        let asked = Mutex::new(Vec::new());
        let author = writer(&asked);
        let report = s.system.world_model_pass(&pass(), Some(&author)).unwrap();
        assert_eq!(report.formed[0].pending, Vec::<String>::new());
        let ctx = &asked.lock().unwrap()[0];
        assert_eq!(ctx.pass, "world_model_pass");
        assert_eq!(ctx.record_kind, "world_model");
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(
            ctx.source_ids, sorted,
            "[{}] the evidence is the context's sources",
            s.name
        );
        let card = &current(s)["person:ada"];
        let a = &card.attributes;
        assert_eq!(a["title"], "Ada, the neighbour");
        assert_eq!(a["digest_method"], "authored-card-v1");
        assert_eq!(a["authored_lead"], json!(card.object));
        assert_eq!(a["authored_known_ids"], json!(sorted));
        assert_eq!(a["authored_by"], "op:ada");
        assert_eq!(a["understanding"]["field"], "card");
        assert_eq!(a["title_provenance"]["cause"], "formation");
        assert!(live_tasks(s, &card.subject).is_empty());
        assert_eq!(report.authoring.authored.len(), 1);
    });
}

#[test]
fn an_author_that_raises_or_answers_unusably_leaves_the_card_pending_with_its_reason() {
    let raises = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
        Err(AuthorError::new("Timeout", "the reader did not answer"))
    };
    let empty = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
        Ok(Authored {
            title: Some("  ".into()),
            author: operator(),
            ..Authored::default()
        })
    };
    for (author, reason) in [
        (&raises as &dyn am_system::Author, "author_raised"),
        (&empty, "invalid_result"),
    ] {
        on_both(|s| {
            three_with_ada(s, "a");
            let report = s.system.world_model_pass(&pass(), Some(author)).unwrap();
            assert_eq!(report.formed[0].pending, ["title", "summary"]);
            let card = &current(s)["person:ada"];
            assert_eq!(
                card.attributes["pending"]["failure"]["reason"], reason,
                "[{}]",
                s.name
            );
            assert_eq!(report.authoring.failures[0].reason.as_str(), reason);
        });
    }
}

#[test]
fn a_rerun_over_unchanged_evidence_forms_nothing_and_writes_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        let first = s.system.world_model_pass(&pass(), None).unwrap();
        let before = written(s);
        let again = s.system.world_model_pass(&pass(), None).unwrap();
        assert!(again.formed.is_empty(), "[{}] {again:?}", s.name);
        assert_eq!(again.unchanged.len(), 1);
        assert_eq!(
            Some(&again.unchanged[0].card_id),
            first.formed[0].card_id.as_ref()
        );
        assert!(again.authoring.is_empty());
        assert_eq!(
            written(s),
            before,
            "[{}] an unchanged pass writes nothing",
            s.name
        );
    });
}

#[test]
fn new_evidence_forms_the_next_revision_which_refines_and_supersedes_the_prior_and_its_tasks() {
    on_both(|s| {
        three_with_ada(s, "a");
        let first = s.system.world_model_pass(&pass(), None).unwrap();
        let prior = first.formed[0].card_id.clone().unwrap();
        live(
            s,
            "b",
            vec![episode("Ada again", "Ada brought beans.", &["person:ada"])],
        );
        let second = s.system.world_model_pass(&pass(), None).unwrap();
        let v = &second.formed[0];
        assert_eq!((v.revision, v.source_count), (2, 4), "[{}]", s.name);
        let st = standing(s);
        assert_eq!(st["person:ada"].len(), 1, "[{}] one standing card", s.name);
        let card = &st["person:ada"][0];
        assert_eq!(Some(&card.subject), v.card_id.as_ref());
        let refines = s
            .store
            .query(&TripleQuery {
                subject: Some(card.subject.clone()),
                predicate: Some("refines".into()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(refines[0].object, prior);
        assert!(
            live_tasks(s, &prior).is_empty(),
            "[{}] the prior's tasks went",
            s.name
        );
        assert_eq!(live_tasks(s, &card.subject).len(), 2);
    });
}

#[test]
fn an_authored_title_carries_to_the_next_revision_which_asks_only_for_the_summary() {
    on_both(|s| {
        three_with_ada(s, "a");
        let asked = Mutex::new(Vec::new());
        let author = writer(&asked);
        s.system.world_model_pass(&pass(), Some(&author)).unwrap();
        let prior = current(s)["person:ada"].clone();
        live(
            s,
            "b",
            vec![episode("Ada again", "Ada brought beans.", &["person:ada"])],
        );
        let report = s.system.world_model_pass(&pass(), None).unwrap();
        assert_eq!(report.formed[0].pending, ["summary"], "[{}]", s.name);
        let card = &current(s)["person:ada"];
        assert_eq!(card.attributes["title"], "Ada, the neighbour");
        assert_eq!(
            card.attributes["title_provenance"]["carried_from"],
            json!(prior.subject)
        );
        // The authored summary carries as the lead, with one "Since then".
        assert_eq!(card.attributes["digest_method"], "authored-card-v1+delta");
        assert!(
            card.object
                .starts_with(&format!("{}\n\nSince then (1 new record(s)", prior.object)),
            "{}",
            card.object
        );
        // With an author, the revision's context names the carried title.
        let asked2 = Mutex::new(Vec::new());
        let author2 = writer(&asked2);
        live(
            s,
            "c",
            vec![episode(
                "Ada thrice",
                "Ada fixed the gate.",
                &["person:ada"],
            )],
        );
        s.system.world_model_pass(&pass(), Some(&author2)).unwrap();
        let ctx = &asked2.lock().unwrap()[0];
        assert_eq!(
            ctx.fields.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
            ["summary"]
        );
        assert_eq!(ctx.title.as_deref(), Some("Ada, the neighbour"));
    });
}

#[test]
fn an_interrupted_revision_leaves_two_standing_cards_which_the_pass_repairs() {
    on_both(|s| {
        three_with_ada(s, "a");
        s.system.world_model_pass(&pass(), None).unwrap();
        let rev1 = current(s)["person:ada"].clone();
        // The crash: a revision formed, the supersede never landed.
        let mut card = MemoryRecordInput::new(RecordKind::WorldModel, "", "a later reading");
        card.title = None;
        card.pending = vec!["title".into(), "summary".into()];
        card.attributes.insert("target".into(), json!("person:ada"));
        card.attributes.insert("revision".into(), json!(2));
        let rev2 = live(s, "crash", vec![card])[0].clone();
        assert_eq!(standing(s)["person:ada"].len(), 2);
        let report = s
            .system
            .world_model_pass(
                &WorldModelPass {
                    report_only: true,
                    ..pass()
                },
                None,
            )
            .unwrap();
        assert_eq!(report.repaired[0].card_id, rev1.subject);
        assert!(!report.repaired[0].closed);
        assert_eq!(
            standing(s)["person:ada"].len(),
            2,
            "report_only repairs nothing"
        );
        let report = s.system.world_model_pass(&pass(), None).unwrap();
        assert_eq!(report.repaired.len(), 1, "[{}] {report:?}", s.name);
        assert!(report.repaired[0].closed);
        let st = standing(s);
        assert_eq!(st["person:ada"].len(), 1);
        // The repaired target's evidence differs from the crash card's (no
        // fingerprint): it revises to 3 over the surviving revision 2.
        let v = &report.formed[0];
        assert_eq!(v.revision, 3);
        assert_eq!(st["person:ada"][0].subject, v.card_id.clone().unwrap());
        assert_ne!(st["person:ada"][0].subject, rev2);
    });
}

#[test]
fn an_interest_whose_title_is_pending_keys_its_card_on_its_graph_id() {
    on_both(|s| {
        let mut interest = MemoryRecordInput::new(
            RecordKind::Interest,
            "",
            "Decentralized clinical trials and health equity",
        );
        interest.title = None;
        interest.pending = vec!["title".into()];
        let gid = live(s, "i", vec![interest])[0].clone();
        let row = s.system.resolve_digest_assertion(&gid).unwrap().unwrap();
        assert_eq!(interest_target(&row), Some(format!("topic:{gid}")));
        let report = s.system.world_model_pass(&pass(), None).unwrap();
        assert_eq!(
            report.eligible,
            [format!("topic:{gid}")],
            "[{}] never its body",
            s.name
        );
        assert!(current(s).contains_key(&format!("topic:{gid}")));
        // A titled interest keys on its title's subject head.
        let titled = live(
            s,
            "j",
            vec![MemoryRecordInput::new(
                RecordKind::Interest,
                "interest: The soil and its rest — why fallow matters",
                "Fallow seasons.",
            )],
        );
        let row = s
            .system
            .resolve_digest_assertion(&titled[0])
            .unwrap()
            .unwrap();
        assert_eq!(
            interest_target(&row).as_deref(),
            Some("topic:soil and its rest")
        );
    });
}

#[test]
fn the_owner_derived_artifacts_and_folded_records_never_evidence_a_card() {
    on_both(|s| {
        let ids = live(
            s,
            "a",
            vec![
                episode("Self", "About me.", &[OWNER]),
                episode("Ada 1", "Ada one.", &["person:ada", OWNER]),
                episode("Ada 2", "Ada two.", &["person:ada"]),
                episode("Ada hidden", "Ada hidden.", &["person:ada"]),
                episode("Ada closed", "Ada closed.", &["person:ada"]),
                {
                    let mut d = MemoryRecordInput::new(RecordKind::Dream, "", "A dream of Ada.");
                    d.title = None;
                    d.pending = vec!["title".into()];
                    d.participants = vec!["person:ada".into()];
                    d
                },
            ],
        );
        s.system
            .bind(&am_system::Bind {
                reason: Some("operator hide".into()),
                ..am_system::Bind::new(&ids[3], SCOPE, OWNER, am_journal::SearchState::Hidden)
            })
            .unwrap();
        s.system
            .close_record(&am_system::CloseRecord::retract(&ids[4], "wrong"))
            .unwrap();
        let report = s.system.world_model_pass(&pass(), None).unwrap();
        assert_eq!(report.targets_seen, 1, "[{}] {report:?}", s.name);
        assert!(
            report.eligible.is_empty(),
            "two lived records stay below the floor"
        );
    });
}

#[test]
fn the_pass_refuses_a_home_without_a_task_queue_before_writing_and_report_only_still_runs() {
    let s = memory_stack(SystemOptions::default());
    three_with_ada(&s, "a");
    let before = written(&s);
    assert_refused(
        &s,
        &before,
        s.system.world_model_pass(&pass(), None),
        ErrorKind::InvalidInput,
        &["task queue"],
    );
    let report = s
        .system
        .world_model_pass(
            &WorldModelPass {
                report_only: true,
                ..pass()
            },
            None,
        )
        .unwrap();
    assert_eq!(report.formed[0].pending, ["title", "summary"]);
    assert!(!report.formed[0].formed);
    assert_eq!(written(&s), before);
}

#[test]
fn a_blank_owner_or_no_scope_pair_is_refused_and_writes_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        let before = written(s);
        for bad in [
            WorldModelPass::new(&[(SCOPE, OWNER)], "  "),
            WorldModelPass::new(&[], OWNER),
        ] {
            assert_refused(
                s,
                &before,
                s.system.world_model_pass(&bad, None),
                ErrorKind::InvalidInput,
                &[],
            );
        }
    });
}

#[test]
fn max_cards_bounds_a_night_and_an_unchanged_target_spends_none_of_it() {
    on_both(|s| {
        three_with_ada(s, "a");
        let mut bo: Vec<MemoryRecordInput> = (0..4)
            .map(|i| episode(&format!("Bo {i}"), "Bo builds.", &["person:bo"]))
            .collect();
        bo.push(episode("Both", "Ada and Bo.", &["person:bo", "person:ada"]));
        live(s, "b", bo);
        let mut one = pass();
        one.tuning.world_model_max_cards = 1;
        let r = s.system.world_model_pass(&one, None).unwrap();
        // The busiest target first.
        assert_eq!(r.formed[0].target, "person:bo", "[{}]", s.name);
        assert_eq!(r.skipped[0].target, "person:ada");
        assert_eq!(r.skipped[0].reason, "max_cards reached");
        let r = s.system.world_model_pass(&one, None).unwrap();
        assert_eq!(r.unchanged[0].target, "person:bo");
        assert_eq!(r.formed[0].target, "person:ada");
    });
}

#[test]
fn world_model_update_revises_only_the_named_targets_from_the_newest_window() {
    on_both(|s| {
        three_with_ada(s, "a");
        live(
            s,
            "b",
            (0..3)
                .map(|i| episode(&format!("Bo {i}"), "Bo builds.", &["person:bo"]))
                .collect(),
        );
        // A window of the newest row sees Bo's last episode only: below the floor.
        let narrow = WorldModelUpdate {
            scan_limit: 1,
            ..WorldModelUpdate::new(&[(SCOPE, OWNER)], OWNER, &["person:bo"])
        };
        let r = s.system.world_model_update(&narrow, None).unwrap();
        assert_eq!(r.targets_seen, 1);
        assert!(r.eligible.is_empty());
        let upd = WorldModelUpdate::new(&[(SCOPE, OWNER)], OWNER, &["person:ada"]);
        let r = s.system.world_model_update(&upd, None).unwrap();
        assert_eq!(r.eligible, ["person:ada"], "[{}]", s.name);
        assert!(
            r.alias_proposals.is_none(),
            "no proposals on the per-turn window"
        );
        assert_eq!(current(s).keys().collect::<Vec<_>>(), ["person:ada"]);
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system.world_model_update(
                &WorldModelUpdate::new(&[(SCOPE, OWNER)], OWNER, &[" "]),
                None,
            ),
            ErrorKind::InvalidInput,
            &["targets"],
        );
    });
}

#[test]
fn a_card_revision_keeps_its_aliases_and_update_resolves_an_alias_to_its_primary() {
    on_both(|s| {
        three_with_ada(s, "a");
        s.system.world_model_pass(&pass(), None).unwrap();
        // An alias bound on the current card (alias_world_model's result).
        let mut card = MemoryRecordInput::new(RecordKind::WorldModel, "", "the card, aliased");
        card.title = None;
        card.pending = vec!["title".into(), "summary".into()];
        card.attributes.insert("target".into(), json!("person:ada"));
        card.attributes.insert("revision".into(), json!(2));
        card.attributes
            .insert("aliases".into(), json!(["person:a"]));
        let prior = current(s)["person:ada"].subject.clone();
        let aliased = live(s, "alias", vec![card])[0].clone();
        s.system
            .close_record(&am_system::CloseRecord {
                replacement_ids: vec![aliased],
                ..am_system::CloseRecord::new(&prior, am_journal::ClosureKind::Supersede, "alias")
            })
            .unwrap();
        live(
            s,
            "b",
            vec![episode("A", "The one called A.", &["person:a"])],
        );
        let upd = WorldModelUpdate::new(&[(SCOPE, OWNER)], OWNER, &["person:a"]);
        let r = s.system.world_model_update(&upd, None).unwrap();
        assert_eq!(r.formed[0].target, "person:ada", "[{}] {r:?}", s.name);
        assert_eq!(r.formed[0].source_count, 4);
        let card = &current(s)["person:ada"];
        assert_eq!(card.attributes["aliases"], json!(["person:a"]));
    });
}
