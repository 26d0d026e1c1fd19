//! `task_packet` for a card's authoring task (api.md "Memory tasks":
//! `task_packet` carries a card's `evidence`): the evidence is the card's
//! fingerprinted source set (`known_source_ids`), every record of it, not
//! only the ones its capped `derived_from` edges name, and never the prior
//! revision the card `refines`.

use crate::support::{OWNER, SCOPE, current, episode, live, on_both};
use am_journal::{TaskKind, TaskStatus};
use am_system::tasks::{ListTasks, TaskPacket};
use am_system::world_models::WorldModelPass;
use serde_json::Value;

fn ids(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            x["record_id"]
                .as_str()
                .unwrap_or_else(|| x.as_str().unwrap())
                .to_owned()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_card_tasks_packet_carries_every_fingerprinted_source_and_not_the_prior_revision() {
    on_both(|s| {
        // Twelve records about Ada: more than the card's eight source edges.
        let people = ["person:ada"];
        live(
            s,
            "a",
            (0..12)
                .map(|i| {
                    episode(
                        &format!("Ada {i}"),
                        &format!("Ada and the garden {i}."),
                        &people,
                    )
                })
                .collect(),
        );
        let pass = WorldModelPass::new(&[(SCOPE, OWNER)], OWNER);
        s.system.world_model_pass(&pass, None).unwrap();
        live(
            s,
            "b",
            vec![episode("Ada 12", "Ada and the beans.", &people)],
        );
        s.system.world_model_pass(&pass, None).unwrap();
        let card = current(s)["person:ada"].clone();
        assert_eq!(card.attributes["revision"], 2, "[{}]", s.name);
        let known = ids(&card.attributes["known_source_ids"]);
        assert_eq!(known.len(), 13, "[{}]", s.name);
        let task = s
            .system
            .tasks()
            .unwrap()
            .tasks(&ListTasks {
                target_id: Some(card.subject.clone()),
                kind: Some(TaskKind::DigestAuthor),
                ..ListTasks::default()
            })
            .unwrap()
            .into_iter()
            .find(|t| t.status == TaskStatus::Pending)
            .expect("the pending summary's task");
        let packet = s
            .system
            .task_packet(&TaskPacket::new(&task.task_id))
            .unwrap();
        assert_eq!(ids(&packet["evidence"]), known, "[{}] {packet}", s.name);
        assert!(packet.get("sources").is_none(), "[{}]", s.name);
        // Newest first, and the prior card (which the revision refines) is
        // not evidence.
        let kinds: Vec<&str> = packet["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert!(
            kinds.iter().all(|k| *k == "episode"),
            "[{}] {kinds:?}",
            s.name
        );
        let seen: Vec<&str> = packet["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["observed_at"].as_str().unwrap())
            .collect();
        assert!(
            seen.windows(2).all(|w| w[0] >= w[1]),
            "[{}] {seen:?}",
            s.name
        );
    });
}

#[test]
fn a_packets_evidence_is_left_out_whole_past_the_token_budget() {
    on_both(|s| {
        let people = ["person:ada"];
        live(
            s,
            "a",
            (0..3)
                .map(|i| {
                    episode(
                        &format!("Ada {i}"),
                        &format!("Ada and the garden {i}."),
                        &people,
                    )
                })
                .collect(),
        );
        let pass = WorldModelPass::new(&[(SCOPE, OWNER)], OWNER);
        s.system.world_model_pass(&pass, None).unwrap();
        let card = current(s)["person:ada"].clone();
        let task = s
            .system
            .tasks()
            .unwrap()
            .tasks(&ListTasks {
                target_id: Some(card.subject.clone()),
                kind: Some(TaskKind::DigestAuthor),
                ..ListTasks::default()
            })
            .unwrap()
            .remove(0);
        let packet = s
            .system
            .task_packet(&TaskPacket {
                token_budget: 0,
                ..TaskPacket::new(&task.task_id)
            })
            .unwrap();
        assert_eq!(
            packet["evidence"].as_array().unwrap().len(),
            0,
            "[{}]",
            s.name
        );
        assert_eq!(
            packet["left_out"].as_array().unwrap().len(),
            3,
            "[{}]",
            s.name
        );
    });
}
