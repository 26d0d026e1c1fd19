//! The revisions formed from the current card, on both stacks:
//! `alias_world_model` (its refusals, `alias_map`, the pass's keying) and
//! `author_world_model(in_place=False)` (revision N+1 superseding the prior,
//! the authored summary with the prior's authored title, else the title
//! pending).

use crate::common::{Stack, assert_refused, written};
use crate::support::{OWNER, SCOPE, current, episode, live, on_both, standing, three_with_ada};
use am_journal::{AuthorKind, AuthorRef, TaskKind, TaskStatus};
use am_system::Retitle;
use am_system::tasks::ListTasks;
use am_system::world_models::{
    AliasWorldModel, AuthorWorldModel, CardAuthor, CardsOf, WorldModelPass, WorldModelUpdate,
    alias_map,
};
use am_triples::ErrorKind;
use serde_json::json;

fn pass(s: &Stack) {
    s.system
        .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
        .unwrap();
}

fn bram(s: &Stack, key: &str, n: usize) {
    live(
        s,
        key,
        (0..n)
            .map(|i| {
                episode(
                    &format!("Bram {key} {i}"),
                    &format!("Bram {key} {i}."),
                    &["person:bram"],
                )
            })
            .collect(),
    );
}

fn bind(primary: &str, alias: &str) -> AliasWorldModel {
    AliasWorldModel::new(primary, alias, (SCOPE, OWNER), "the same neighbour")
}

fn map(s: &Stack) -> std::collections::BTreeMap<String, String> {
    alias_map(
        s.store.as_ref(),
        Some(s.journal.as_ref()),
        &CardsOf::new(SCOPE, OWNER),
    )
    .unwrap()
}

#[test]
fn alias_world_model_forms_revision_n_plus_1_with_the_alias_and_folds_the_aliass_card_into_it() {
    on_both(|s| {
        three_with_ada(s, "a");
        bram(s, "b", 3);
        pass(s);
        let before = current(s);
        let r = s
            .system
            .alias_world_model(&bind("person:ada", "person:bram"))
            .unwrap();
        assert!(r.applied, "[{}] {r:?}", s.name);
        assert_eq!(
            (r.revision, r.aliases.as_slice()),
            (2, &["person:bram".to_owned()][..])
        );
        assert_eq!(
            r.superseded,
            [
                before["person:ada"].subject.clone(),
                before["person:bram"].subject.clone()
            ]
        );
        let cards = current(s);
        assert_eq!(
            cards.keys().collect::<Vec<_>>(),
            ["person:ada"],
            "[{}]",
            s.name
        );
        let card = &cards["person:ada"];
        assert_eq!(card.subject, r.card_id);
        let a = &card.attributes;
        assert_eq!(a["revision"], 2);
        assert_eq!(a["aliases"], json!(["person:bram"]));
        assert_eq!(a["alias_reason"], "the same neighbour");
        assert_eq!(
            a["evidence_fingerprint"],
            before["person:ada"].attributes["evidence_fingerprint"]
        );
        assert_eq!(a["participants"], json!(["person:ada", "person:bram"]));
        assert_eq!(card.object, before["person:ada"].object, "the body carries");
        // Nothing was authored: both fields form pending.
        assert_eq!(r.pending, ["title", "summary"]);
        assert_eq!(
            map(s).get("person:bram").map(String::as_str),
            Some("person:ada")
        );
        // Standing: one card per target (the priors are closed).
        assert!(standing(s).values().all(|v| v.len() == 1));
    });
}

#[test]
fn alias_world_model_carries_the_cards_authored_title_and_summary() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        let card = current(s)["person:ada"].clone();
        let op = AuthorRef::new(AuthorKind::Operator, "op:ada");
        s.system
            .author_world_model(&AuthorWorldModel {
                author: CardAuthor::Ref(op.clone()),
                ..AuthorWorldModel::new("person:ada", "Ada keeps bees.", SCOPE, OWNER)
            })
            .unwrap();
        s.system
            .retitle(&Retitle::new(
                &card.subject,
                "Ada, the beekeeper",
                op,
                json!("formation"),
                0,
            ))
            .unwrap();
        let r = s
            .system
            .alias_world_model(&bind("person:ada", "person:a"))
            .unwrap();
        assert!(r.pending.is_empty(), "[{}] {r:?}", s.name);
        let new = &current(s)["person:ada"];
        assert_eq!(new.object, "Ada keeps bees.");
        assert_eq!(new.attributes["title"], "Ada, the beekeeper");
        assert_eq!(new.attributes["authored_lead"], "Ada keeps bees.");
        assert_eq!(new.attributes["digest_method"], "authored-card-v1");
        assert_eq!(
            new.attributes["title_provenance"]["carried_from"],
            json!(card.subject)
        );
    });
}

#[test]
fn after_an_alias_the_pass_and_update_key_the_aliass_evidence_onto_the_primary() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        s.system
            .alias_world_model(&bind("person:ada", "person:bram"))
            .unwrap();
        bram(s, "later", 3);
        let r = s
            .system
            .world_model_update(
                &WorldModelUpdate::new(&[(SCOPE, OWNER)], OWNER, &["person:bram"]),
                None,
            )
            .unwrap();
        assert_eq!(r.formed.len(), 1, "[{}] {r:?}", s.name);
        assert_eq!(
            (r.formed[0].target.as_str(), r.formed[0].source_count),
            ("person:ada", 6)
        );
        let again = s
            .system
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        assert_eq!(again.formed_count, 0, "[{}] {again:?}", s.name);
        assert!(!current(s).contains_key("person:bram"));
    });
}

#[test]
fn an_alias_already_bound_to_the_primary_writes_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        s.system
            .alias_world_model(&bind("person:ada", "person:a"))
            .unwrap();
        let before = written(s);
        let r = s
            .system
            .alias_world_model(&bind("person:ada", "person:a"))
            .unwrap();
        assert!(!r.applied && r.superseded.is_empty(), "[{}] {r:?}", s.name);
        assert_eq!(written(s), before);
    });
}

#[test]
fn alias_world_model_refusals_raise_and_write_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        bram(s, "b", 3);
        pass(s);
        s.system
            .alias_world_model(&bind("person:bram", "person:b"))
            .unwrap();
        let before = written(s);
        for (args, needle) in [
            (bind(" ", "person:x"), "non-empty"),
            (bind("person:ada", "person:ada"), "itself"),
            (
                AliasWorldModel {
                    reason: "  ".into(),
                    ..bind("person:ada", "person:x")
                },
                "reason",
            ),
            (
                bind("person:zed", "person:x"),
                "no standing world-model card",
            ),
            (
                bind("person:ada", "person:b"),
                "already an alias of \"person:bram\"",
            ),
        ] {
            assert_refused(
                s,
                &before,
                s.system.alias_world_model(&args),
                ErrorKind::InvalidInput,
                &[needle],
            );
        }
    });
}

fn by_op(text: &str) -> AuthorWorldModel {
    AuthorWorldModel {
        author: CardAuthor::Ref(AuthorRef::new(AuthorKind::Operator, "op:ada")),
        in_place: false,
        ..AuthorWorldModel::new("person:ada", text, SCOPE, OWNER)
    }
}

#[test]
fn authoring_not_in_place_forms_revision_n_plus_1_and_supersedes_the_prior() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        let prior = current(s)["person:ada"].clone();
        let r = s
            .system
            .author_world_model(&by_op("Ada is the neighbour who holds the lease."))
            .unwrap();
        assert!(r.applied && !r.in_place, "[{}] {r:?}", s.name);
        assert_eq!(r.revision, 2);
        assert_ne!(r.card_id, prior.subject);
        assert_eq!(r.version, None);
        assert_eq!(r.digest_method, "authored-card-v1");
        assert_eq!(
            r.pending,
            ["title"],
            "[{}] the prior's title was never authored: it forms pending",
            s.name
        );
        let st = standing(s);
        assert_eq!(
            st["person:ada"].len(),
            1,
            "[{}] the prior is closed",
            s.name
        );
        let card = &st["person:ada"][0];
        assert_eq!(card.subject, r.card_id);
        assert_eq!(card.object, "Ada is the neighbour who holds the lease.");
        let a = &card.attributes;
        assert_eq!(
            a["evidence_fingerprint"],
            prior.attributes["evidence_fingerprint"]
        );
        assert_eq!(a["authored_lead"], json!(card.object));
        assert_eq!(
            a["authored_known_ids"],
            prior.attributes["known_source_ids"]
        );
        assert_eq!(a["authored_by"], "op:ada");
        // The prior's live tasks went with it; the new card owes its title.
        let tasks = |id: &str, kind| -> Vec<TaskStatus> {
            s.system
                .tasks()
                .unwrap()
                .tasks(&ListTasks {
                    target_id: Some(id.to_owned()),
                    kind: Some(kind),
                    ..ListTasks::default()
                })
                .unwrap()
                .into_iter()
                .map(|t| t.status)
                .collect()
        };
        assert!(
            tasks(&prior.subject, TaskKind::DigestAuthor)
                .iter()
                .all(|t| !t.is_live())
        );
        assert_eq!(
            tasks(&r.card_id, TaskKind::TitleAuthor),
            [TaskStatus::Pending]
        );
        assert!(tasks(&r.card_id, TaskKind::DigestAuthor).is_empty());
        // The prior's text is not a version of the new card.
        assert!(s.system.versions(&r.card_id, None).unwrap().is_empty());
    });
}

#[test]
fn authoring_not_in_place_carries_the_priors_authored_title() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        let prior = current(s)["person:ada"].clone();
        s.system
            .retitle(&Retitle::new(
                &prior.subject,
                "Ada, the neighbour",
                AuthorRef::new(AuthorKind::Operator, "op:ada"),
                json!("formation"),
                0,
            ))
            .unwrap();
        let r = s
            .system
            .author_world_model(&by_op("Ada holds the lease."))
            .unwrap();
        assert!(r.pending.is_empty(), "[{}] {r:?}", s.name);
        let card = &current(s)["person:ada"];
        assert_eq!(card.attributes["title"], "Ada, the neighbour");
        assert!(card.attributes.get("pending").is_none());
    });
}

#[test]
fn authoring_not_in_place_byte_identical_or_stale_writes_nothing() {
    on_both(|s| {
        three_with_ada(s, "a");
        pass(s);
        s.system
            .author_world_model(&by_op("Ada holds the lease."))
            .unwrap();
        let before = written(s);
        let r = s
            .system
            .author_world_model(&by_op("Ada holds the lease."))
            .unwrap();
        assert!(!r.applied && !r.in_place, "[{}] {r:?}", s.name);
        assert_eq!(written(s), before);
        assert_refused(
            s,
            &before,
            s.system.author_world_model(&AuthorWorldModel {
                expected_version: Some(7),
                ..by_op("Ada, again.")
            }),
            ErrorKind::InvalidInput,
            &["stale"],
        );
        assert_refused(
            s,
            &before,
            s.system.author_world_model(&AuthorWorldModel {
                expected_fingerprint: Some("not-it".into()),
                ..by_op("Ada, again.")
            }),
            ErrorKind::InvalidInput,
            &["evidence changed"],
        );
    });
}

/// Invariant 16 (caches are derived): the system's card reads, through its
/// card index, answer exactly as the free functions' whole read, across
/// formation, an in-place authoring, a re-key, an alias and a revision.
#[test]
fn the_systems_card_reads_answer_as_the_whole_read_after_every_kind_of_card_write() {
    on_both(|s| {
        let pair = CardsOf::new(SCOPE, OWNER);
        let same = |s: &Stack, step: &str| {
            assert_eq!(
                s.system.standing_cards(&pair).unwrap(),
                standing(s),
                "[{}] after {step}",
                s.name
            );
            assert_eq!(
                s.system.current_cards(&pair).unwrap(),
                current(s),
                "[{}] {step}",
                s.name
            );
        };
        same(s, "nothing");
        three_with_ada(s, "a");
        bram(s, "b", 3);
        pass(s);
        same(s, "the pass");
        s.system
            .author_world_model(&AuthorWorldModel::new(
                "person:ada",
                "Ada keeps bees.",
                SCOPE,
                OWNER,
            ))
            .unwrap();
        same(s, "authoring in place");
        s.system
            .rekey_world_model(&am_system::world_models::RekeyWorldModel::new(
                "person:ada",
                "person:ada-l",
                (SCOPE, OWNER),
                AuthorRef::new(AuthorKind::Operator, "op"),
                json!("repair"),
            ))
            .unwrap();
        same(s, "a re-key");
        s.system
            .alias_world_model(&bind("person:ada-l", "person:bram"))
            .unwrap();
        same(s, "an alias");
        // A fresh system over the same home rebuilds its index.
        let fresh = am_system::MemorySystem::with_options(
            s.store.clone(),
            s.journal.clone(),
            crate::support::queued(),
        )
        .unwrap();
        assert_eq!(
            fresh.standing_cards(&pair).unwrap(),
            standing(s),
            "[{}]",
            s.name
        );
    });
}
