//! `rekey_world_model` on both stacks (api.md "World models"): the card
//! moved in place with the old key kept as an alias, the version rows of
//! field `target`, `unchanged`, the refusals writing nothing, the pass and
//! `world_model_update` resolving the old key; and `card_rekey`, the move
//! `retitle` / `declare_pending` of an interest make in their own
//! transaction (api.md "Understanding").

use crate::common::{Stack, assert_refused, written};
use crate::support::{OWNER, SCOPE, current, episode, live, on_both, standing, three_with_ada};
use am_journal::{AuthorKind, AuthorRef, TaskKind, TaskStatus};
use am_system::tasks::ListTasks;
use am_system::world_models::{
    AliasWorldModel, CardsOf, RekeyWorldModel, WorldModelPass, WorldModelUpdate, alias_map,
};
use am_system::{
    DeclarePending, MemoryRecordInput, Outcome, Reason, RecordKind, Retitle, UnderstandingResult,
};
use am_triples::ErrorKind;
use serde_json::{Value, json};

fn pass(s: &Stack) {
    s.system
        .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
        .unwrap();
}

fn op() -> AuthorRef {
    AuthorRef::new(AuthorKind::Operator, "op:ada")
}

fn rekey(old: &str, new: &str) -> RekeyWorldModel {
    RekeyWorldModel {
        reason: Some("her full name".to_owned()),
        ..RekeyWorldModel::new(old, new, (SCOPE, OWNER), op(), json!("repair"))
    }
}

fn wire(r: &UnderstandingResult) -> Value {
    serde_json::to_value(r).unwrap()
}

/// Three episodes with Ada, the pass, then her card moved to her full name.
fn moved(s: &Stack) -> (am_triples::TripleAssertion, UnderstandingResult) {
    three_with_ada(s, "a");
    pass(s);
    let before = current(s)["person:ada"].clone();
    let r = s
        .system
        .rekey_world_model(&rekey("person:ada", "person:ada-lovelace"))
        .unwrap();
    (before, r)
}

#[test]
fn rekey_moves_the_card_in_place_and_keeps_the_old_key_as_an_alias() {
    on_both(|s| {
        let (before, r) = moved(s);
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        let cards = current(s);
        assert!(!cards.contains_key("person:ada"), "[{}] one card", s.name);
        let card = &cards["person:ada-lovelace"];
        // Everything but the key and what follows it stays.
        assert_eq!(
            (&card.subject, &card.assertion_id, &card.object),
            (&before.subject, &before.assertion_id, &before.object)
        );
        for k in [
            "revision",
            "evidence_fingerprint",
            "known_source_ids",
            "title",
            "keywords",
            "pending",
            "digest_method",
        ] {
            assert_eq!(card.attributes.get(k), before.attributes.get(k), "{k}");
        }
        let a = &card.attributes;
        assert_eq!(a["target"], "person:ada-lovelace");
        assert_eq!(a["aliases"], json!(["person:ada"]));
        assert_eq!(
            a["participants"],
            json!(["person:ada-lovelace", "person:ada"]),
            "[{}] a person card's participants follow",
            s.name
        );
        assert_eq!(a["target_version"], 1);
        assert_eq!(a["target_provenance"]["field"], "target");
        assert_eq!(a["target_provenance"]["author"], json!(op().to_map()));
        let w = wire(&r);
        assert_eq!(w["field"], "target");
        assert_eq!(
            (
                &w["version"],
                &w["previous_version"],
                &w["captured_original"]
            ),
            (&json!(1), &json!(0), &json!(true))
        );
        assert_eq!(
            w["vector_rewritten"], false,
            "no embedder: the key is not in the text"
        );
        assert_eq!(
            (&w["old_key"], &w["new_key"], &w["card_id"], &w["revision"]),
            (
                &json!("person:ada"),
                &json!("person:ada-lovelace"),
                &json!(before.subject),
                &json!(1)
            )
        );
        assert_eq!(w["aliases"], json!(["person:ada"]));
        let map = alias_map(
            s.store.as_ref(),
            Some(s.journal.as_ref()),
            &CardsOf::new(SCOPE, OWNER),
        )
        .unwrap();
        assert_eq!(
            map.get("person:ada").map(String::as_str),
            Some("person:ada-lovelace")
        );
    });
}

#[test]
fn the_move_is_a_version_row_of_field_target_version_0_the_old_key_by_the_mechanical_author() {
    on_both(|s| {
        let (before, _) = moved(s);
        let vs = s.system.versions(&before.subject, Some("target")).unwrap();
        assert_eq!(vs.len(), 2, "[{}] {vs:?}", s.name);
        let (v0, v1) = (&vs[0].version, &vs[1].version);
        assert_eq!((v0.version, v0.text.as_deref()), (0, Some("person:ada")));
        assert_eq!(v0.author["kind"], "mechanical");
        assert_eq!(v0.cause, json!("formation"));
        assert_eq!(
            (v1.version, v1.text.as_deref()),
            (1, Some("person:ada-lovelace"))
        );
        assert_eq!(v1.author, op().to_map());
        assert_eq!(
            v1.cause,
            json!({"cause": "repair", "reason": "her full name",
                   "rekey": {"from": "person:ada", "to": "person:ada-lovelace"}})
        );
        assert!(vs[1].current && !vs[0].current);
        // The card's text has no version: the move did not touch it.
        assert!(s.system.versions(&before.subject, None).unwrap().is_empty());
    });
}

#[test]
fn rekey_again_is_unchanged_when_the_card_on_new_key_already_answers_to_old_key() {
    on_both(|s| {
        moved(s);
        let before = written(s);
        let r = s
            .system
            .rekey_world_model(&rekey("person:ada", "person:ada-lovelace"))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Unchanged(None), "[{}] {r:?}", s.name);
        assert_eq!(written(s), before, "[{}] nothing written", s.name);
        // A second move keeps version 0 and appends version 2.
        let r = s
            .system
            .rekey_world_model(&rekey("person:ada-lovelace", "person:lovelace"))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied);
        assert_eq!(
            wire(&r)["aliases"],
            json!(["person:ada", "person:ada-lovelace"])
        );
        assert_eq!(wire(&r)["captured_original"], false);
        let id = current(s)["person:lovelace"].subject.clone();
        let keys: Vec<Option<String>> = s
            .system
            .versions(&id, Some("target"))
            .unwrap()
            .into_iter()
            .map(|v| v.version.text)
            .collect();
        assert_eq!(
            keys,
            [
                Some("person:ada".to_owned()),
                Some("person:ada-lovelace".to_owned()),
                Some("person:lovelace".to_owned())
            ]
        );
    });
}

/// Assert a refusal naming `reason`, with the home unchanged (rows, seq, and
/// every card's attributes).
fn assert_rekey_refused(s: &Stack, args: &RekeyWorldModel, reason: Reason) {
    let before = written(s);
    let cards = current(s);
    let r = s.system.rekey_world_model(args).unwrap();
    assert_eq!(r.outcome, Outcome::Refused(reason), "[{}] {r:?}", s.name);
    assert_eq!(wire(&r)["applied"], false);
    assert_eq!(written(s), before, "[{}] a refusal wrote", s.name);
    assert_eq!(current(s), cards, "[{}] a refusal moved a card", s.name);
}

#[test]
fn rekey_refuses_unknown_card_when_no_standing_card_has_old_key() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        assert_rekey_refused(
            s,
            &rekey("person:bram", "person:bram-b"),
            Reason::UnknownCard,
        );
    });
}

#[test]
fn rekey_refuses_target_taken_when_new_key_has_a_different_standing_card() {
    on_both(|s| {
        three_with_ada(s, "a");
        live(
            s,
            "b",
            (0..3)
                .map(|i| {
                    episode(
                        &format!("Bram {i}"),
                        &format!("Bram {i}."),
                        &["person:bram"],
                    )
                })
                .collect(),
        );
        pass(s);
        assert_rekey_refused(s, &rekey("person:ada", "person:bram"), Reason::TargetTaken);
    });
}

#[test]
fn rekey_refuses_alias_bound_elsewhere_when_new_key_is_another_cards_alias() {
    on_both(|s| {
        three_with_ada(s, "a");
        live(
            s,
            "b",
            (0..3)
                .map(|i| {
                    episode(
                        &format!("Bram {i}"),
                        &format!("Bram {i}."),
                        &["person:bram"],
                    )
                })
                .collect(),
        );
        pass(s);
        s.system
            .alias_world_model(&AliasWorldModel::new(
                "person:bram",
                "person:b",
                (SCOPE, OWNER),
                "his nickname",
            ))
            .unwrap();
        assert_rekey_refused(
            s,
            &rekey("person:ada", "person:b"),
            Reason::AliasBoundElsewhere,
        );
    });
}

#[test]
fn empty_or_equal_keys_and_bad_provenance_are_invalid_input_writing_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        let before = written(s);
        for (args, needle) in [
            (rekey(" ", "person:x"), "non-empty"),
            (rekey("person:ada", "person:ada"), "the same"),
            (
                RekeyWorldModel {
                    cause: json!("whim"),
                    ..rekey("person:ada", "person:x")
                },
                "cause",
            ),
            (
                RekeyWorldModel {
                    author: AuthorRef::new(AuthorKind::EntityMind, "castor"),
                    ..rekey("person:ada", "person:x")
                },
                "reader",
            ),
        ] {
            assert_refused(
                s,
                &before,
                s.system.rekey_world_model(&args),
                ErrorKind::InvalidInput,
                &[needle],
            );
        }
    });
}

#[test]
fn after_a_rekey_the_pass_groups_old_key_evidence_onto_the_card_and_update_resolves_old_key() {
    on_both(|s| {
        let (before, _) = moved(s);
        // New evidence still names her by the old key.
        live(
            s,
            "later",
            vec![episode("Ada later", "Ada again.", &["person:ada"])],
        );
        let r = s
            .system
            .world_model_update(
                &WorldModelUpdate::new(&[(SCOPE, OWNER)], OWNER, &["person:ada"]),
                None,
            )
            .unwrap();
        assert_eq!(r.formed.len(), 1, "[{}] {r:?}", s.name);
        assert_eq!(r.formed[0].target, "person:ada-lovelace");
        assert_eq!(r.formed[0].source_count, 4);
        let st = standing(s);
        assert!(
            !st.contains_key("person:ada"),
            "[{}] no second card",
            s.name
        );
        let card = &current(s)["person:ada-lovelace"];
        assert_eq!(card.attributes["revision"], 2);
        assert_eq!(card.attributes["aliases"], json!(["person:ada"]));
        assert_ne!(card.subject, before.subject);
        // The sleep pass finds nothing new.
        let again = s
            .system
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        assert_eq!(again.formed_count, 0, "[{}] {again:?}", s.name);
    });
}

#[test]
fn a_rekey_leaves_the_cards_pending_authoring_tasks_standing() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        let card = current(s)["person:ada"].subject.clone();
        let tasks = |s: &Stack| -> Vec<(String, TaskStatus)> {
            s.system
                .tasks()
                .unwrap()
                .tasks(&ListTasks {
                    target_id: Some(card.clone()),
                    ..ListTasks::default()
                })
                .unwrap()
                .into_iter()
                .map(|t| (t.task_id, t.status))
                .collect()
        };
        let was = tasks(s);
        assert!(!was.is_empty());
        s.system
            .rekey_world_model(&rekey("person:ada", "person:ada-lovelace"))
            .unwrap();
        assert_eq!(tasks(s), was, "[{}]", s.name);
        let title_tasks = s
            .system
            .tasks()
            .unwrap()
            .tasks(&ListTasks {
                kind: Some(TaskKind::TitleAuthor),
                target_id: Some(card.clone()),
                ..ListTasks::default()
            })
            .unwrap();
        assert!(title_tasks.iter().all(|t| t.status.is_live()));
    });
}

/// An interest formed with its title pending, and the pass's card for it.
fn pending_interest(s: &Stack, key: &str) -> String {
    let mut interest =
        MemoryRecordInput::new(RecordKind::Interest, "", "Why soil needs fallow seasons.");
    interest.title = None;
    interest.pending = vec!["title".into()];
    let gid = live(s, key, vec![interest])[0].clone();
    pass(s);
    assert!(current(s).contains_key(&format!("topic:{gid}")));
    gid
}

#[test]
fn retitle_of_a_pending_interest_moves_its_card_to_the_titles_subject_head() {
    on_both(|s| {
        let gid = pending_interest(s, "i");
        let card_id = current(s)[&format!("topic:{gid}")].subject.clone();
        let r = s
            .system
            .retitle(&Retitle::new(
                &gid,
                "Soil health — why fallow matters",
                op(),
                json!("formation"),
                0,
            ))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        assert_eq!(
            wire(&r)["card_rekey"],
            json!({"card_id": card_id, "from": format!("topic:{gid}"),
                   "to": "topic:soil health", "outcome": "applied", "reason": null,
                   "version": 1}),
            "[{}]",
            s.name
        );
        let cards = current(s);
        assert_eq!(cards.len(), 1, "[{}] {:?}", s.name, cards.keys());
        let card = &cards["topic:soil health"];
        assert_eq!(card.subject, card_id);
        assert_eq!(card.attributes["aliases"], json!([format!("topic:{gid}")]));
        assert!(card.attributes.get("participants").is_none());
        // The move's version row keeps the retitle's reading.
        let vs = s.system.versions(&card_id, Some("target")).unwrap();
        assert_eq!(vs[1].version.author, op().to_map());
        assert_eq!(vs[1].version.cause["cause"], "formation");
        // The next pass keeps one card for the subject.
        let again = s
            .system
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        assert_eq!(again.formed_count, 0, "[{}] {again:?}", s.name);
        assert_eq!(current(s).len(), 1);
    });
}

#[test]
fn retitle_of_an_interest_whose_card_stands_on_the_head_moves_nothing() {
    on_both(|s| {
        let ids = live(
            s,
            "i",
            vec![MemoryRecordInput::new(
                RecordKind::Interest,
                "Soil health — why",
                "Fallow seasons.",
            )],
        );
        pass(s);
        let r = s
            .system
            .retitle(&Retitle::new(
                &ids[0],
                "Seed saving",
                op(),
                json!("repair"),
                0,
            ))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied);
        assert!(wire(&r).get("card_rekey").is_none(), "[{}] {r:?}", s.name);
        assert!(current(s).contains_key("topic:soil health"));
    });
}

#[test]
fn declare_pending_of_an_interests_title_moves_its_card_to_topic_graph_id() {
    on_both(|s| {
        let ids = live(
            s,
            "i",
            vec![MemoryRecordInput::new(
                RecordKind::Interest,
                "Soil health — why",
                "Fallow seasons.",
            )],
        );
        pass(s);
        let card_id = current(s)["topic:soil health"].subject.clone();
        let r = s
            .system
            .declare_pending(&DeclarePending {
                fields: vec!["title".into()],
                ..DeclarePending::new(&ids[0])
            })
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        let by_id = format!("topic:{}", ids[0]);
        assert_eq!(wire(&r)["card_rekey"]["to"], json!(by_id));
        assert_eq!(wire(&r)["card_rekey"]["outcome"], "applied");
        let cards = current(s);
        assert_eq!(cards[&by_id].subject, card_id, "[{}]", s.name);
        assert_eq!(
            cards[&by_id].attributes["aliases"],
            json!(["topic:soil health"])
        );
        let vs = s.system.versions(&card_id, Some("target")).unwrap();
        assert_eq!(vs[1].version.author["id"], "declare_pending");
    });
}

#[test]
fn declare_pending_leaves_a_card_other_active_interests_elect_reason_shared_card() {
    on_both(|s| {
        let ids = live(
            s,
            "i",
            vec![
                MemoryRecordInput::new(RecordKind::Interest, "Soil health — why", "Fallow."),
                MemoryRecordInput::new(RecordKind::Interest, "Soil health: microbes", "Life."),
            ],
        );
        pass(s);
        let cards = current(s);
        let r = s
            .system
            .declare_pending(&DeclarePending {
                fields: vec!["title".into()],
                ..DeclarePending::new(&ids[0])
            })
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied);
        assert_eq!(
            (
                &wire(&r)["card_rekey"]["outcome"],
                &wire(&r)["card_rekey"]["reason"]
            ),
            (&json!("unchanged"), &json!("shared_card")),
            "[{}] {r:?}",
            s.name
        );
        assert_eq!(current(s), cards, "[{}] the card stays", s.name);
    });
}

#[test]
fn an_interest_still_titled_with_the_old_words_keeps_its_rekeyed_card_clearing_the_floor() {
    on_both(|s| {
        live(
            s,
            "i",
            vec![MemoryRecordInput::new(
                RecordKind::Interest,
                "Soil health — why",
                "Fallow seasons.",
            )],
        );
        pass(s);
        s.system
            .rekey_world_model(&rekey("topic:soil health", "topic:soil"))
            .unwrap();
        let r = s
            .system
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        assert_eq!(
            r.eligible,
            ["topic:soil"],
            "[{}] one interest's evidence is below the floor of 3: only its election keeps the card eligible",
            s.name
        );
        assert_eq!(r.formed_count, 0, "[{}] {r:?}", s.name);
        assert_eq!(current(s).keys().collect::<Vec<_>>(), ["topic:soil"]);
    });
}
