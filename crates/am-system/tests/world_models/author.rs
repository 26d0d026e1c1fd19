//! `author_world_model` on both stacks: the in-place authoring of a card's
//! words (the spec's default; `in_place=False` is in `revise.rs`), the label
//! author, the refusals, and the next revision carrying the authored lead.

use crate::common::{assert_refused, written};
use crate::support::{OWNER, SCOPE, current, episode, live, on_both, three_with_ada};
use am_journal::{AuthorKind, AuthorRef, TaskKind, TaskStatus};
use am_system::tasks::ListTasks;
use am_system::world_models::{AuthorWorldModel, CardAuthor, WorldModelPass};
use am_triples::ErrorKind;
use serde_json::json;

fn pass(s: &crate::common::Stack) {
    s.system
        .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
        .unwrap();
}

fn by_operator(text: &str) -> AuthorWorldModel {
    AuthorWorldModel {
        author: CardAuthor::Ref(AuthorRef::new(AuthorKind::Operator, "op:ada")),
        ..AuthorWorldModel::new("person:ada", text, SCOPE, OWNER)
    }
}

fn task_status(s: &crate::common::Stack, card: &str, kind: TaskKind) -> Vec<TaskStatus> {
    s.system
        .tasks()
        .unwrap()
        .tasks(&ListTasks {
            target_id: Some(card.to_owned()),
            kind: Some(kind),
            ..ListTasks::default()
        })
        .unwrap()
        .into_iter()
        .map(|t| t.status)
        .collect()
}

#[test]
fn authoring_in_place_keeps_the_card_and_its_evidence_and_keeps_the_briefing_as_a_card_version() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        let before = current(s)["person:ada"].clone();
        let r = s
            .system
            .author_world_model(&by_operator("Ada is the neighbour who holds the lease."))
            .unwrap();
        assert!(r.applied && r.in_place, "[{}] {r:?}", s.name);
        assert_eq!(
            (r.card_id.as_str(), r.revision),
            (before.subject.as_str(), 1)
        );
        assert_eq!(r.digest_method, "authored-card-v1");
        assert_eq!(r.pending, ["title"], "a pending title stays pending");
        let card = &current(s)["person:ada"];
        assert_eq!(card.assertion_id, before.assertion_id);
        assert_eq!(card.object, "Ada is the neighbour who holds the lease.");
        let a = &card.attributes;
        assert_eq!(
            a["evidence_fingerprint"],
            before.attributes["evidence_fingerprint"]
        );
        assert_eq!(a["authored_lead"], json!(card.object));
        assert_eq!(
            a["authored_known_ids"],
            before.attributes["known_source_ids"]
        );
        assert_eq!(a["authored_by"], "op:ada");
        assert_eq!(a["understanding"]["field"], "card");
        assert!(
            a["pending"]["summary"].as_bool() != Some(true),
            "[{}] {a:?}",
            s.name
        );
        let versions = s.system.versions(&card.subject, None).unwrap();
        let texts: Vec<Option<String>> = versions.iter().map(|v| v.version.text.clone()).collect();
        assert_eq!(texts.len(), 2, "[{}] {versions:?}", s.name);
        assert_eq!(texts[0].as_deref(), Some(before.object.as_str()));
        assert!(versions.iter().all(|v| v.version.field == "card"));
        assert_eq!(
            task_status(s, &card.subject, TaskKind::DigestAuthor),
            [TaskStatus::Done],
            "[{}] the summary's task is done",
            s.name
        );
        assert_eq!(
            task_status(s, &card.subject, TaskKind::TitleAuthor),
            [TaskStatus::Pending]
        );
    });
}

#[test]
fn a_label_author_is_recorded_as_kind_unrecorded() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        s.system
            .author_world_model(&AuthorWorldModel::new(
                "person:ada",
                "Ada, seen from the gate.",
                SCOPE,
                OWNER,
            ))
            .unwrap();
        let a = &current(s)["person:ada"].attributes;
        assert_eq!(
            a["understanding"]["author"],
            json!({"kind": "unrecorded", "id": "entity-reflection"})
        );
        assert_eq!(a["authored_by"], "entity-reflection");
    });
}

#[test]
fn byte_identical_words_apply_nothing_and_write_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        s.system
            .author_world_model(&by_operator("Ada, steady."))
            .unwrap();
        let before = written(s);
        let r = s
            .system
            .author_world_model(&by_operator("Ada, steady."))
            .unwrap();
        assert!(!r.applied, "[{}]", s.name);
        assert_eq!(r.version, None);
        assert_eq!(written(s), before);
    });
}

#[test]
fn the_refusals_raise_and_write_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        let card = current(s)["person:ada"].clone();
        let before = written(s);
        let cases = [
            (by_operator("   "), "blank"),
            (
                AuthorWorldModel {
                    target: "person:nobody".into(),
                    ..by_operator("words")
                },
                "no standing",
            ),
            (
                AuthorWorldModel {
                    expected_fingerprint: Some("0".repeat(64)),
                    ..by_operator("words")
                },
                "evidence changed",
            ),
            (by_operator(&card.object), "provisional body"),
            (
                AuthorWorldModel {
                    expected_version: Some(7),
                    ..by_operator("words")
                },
                "stale",
            ),
            (
                AuthorWorldModel {
                    author: CardAuthor::Ref(AuthorRef::new(AuthorKind::EntityMind, "me")),
                    ..by_operator("words")
                },
                "reader",
            ),
        ];
        for (args, needle) in cases {
            assert_refused(
                s,
                &before,
                s.system.author_world_model(&args),
                ErrorKind::InvalidInput,
                &[needle],
            );
        }
    });
}

#[test]
fn the_next_evidence_revision_carries_the_authored_lead_with_one_since_then_line() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        s.system
            .author_world_model(&by_operator("Ada, steady."))
            .unwrap();
        live(
            s,
            "b",
            vec![episode(
                "Ada's beans",
                "Ada brought beans.",
                &["person:ada"],
            )],
        );
        pass(s);
        let card = &current(s)["person:ada"];
        assert_eq!(card.attributes["revision"], 2, "[{}]", s.name);
        assert_eq!(card.attributes["digest_method"], "authored-card-v1+delta");
        assert_eq!(card.attributes["authored_by"], "op:ada");
        assert!(
            card.object
                .starts_with("Ada, steady.\n\nSince then (1 new record(s), through "),
            "{}",
            card.object
        );
    });
}
