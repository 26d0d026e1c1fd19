//! The replay stream over what the 0.5.2 verbs really write (api.md "Replay
//! stream"): `revision` envelopes of a real `rewrite_digest` and `retitle`
//! (one per understanding version, `run_id` from its first ledger source,
//! the current digest on the block), a record formed pending through the task
//! queue (`pending`, never a placeholder title), and a community record's
//! topic keys (present when the record carries them, absent otherwise, its
//! binding drawing only its revision chain). Both stacks, identical answers.

mod common;

use am_system::RecordKind;
use am_system::observe::replay::{ExportReplay, ReplayEnvelope, ReplayFamily};
use am_system::{MemoryRecordInput, SystemOptions};
use am_system::{RememberMany, Retitle, RewriteDigest};
use common::{Stack, on_both_with};
use serde_json::{Value, json};
use std::cell::RefCell;

fn options() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        ..SystemOptions::default()
    }
}

fn all(s: &Stack, families: Option<Vec<ReplayFamily>>) -> Vec<Value> {
    s.system
        .export_replay(&ExportReplay {
            families,
            ..ExportReplay::default()
        })
        .unwrap()
        .collect::<Result<Vec<ReplayEnvelope>, _>>()
        .unwrap()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn formation_block(envs: &[Value], id: &str) -> Value {
    envs.iter()
        .find(|v| {
            v["family"] == "binding"
                && v["payload"]["record_id"] == id
                && v["payload"]["source"] == "remember"
        })
        .unwrap_or_else(|| panic!("no formation binding of {id}"))["display"]
        .clone()
}

#[test]
fn revision_envelopes_follow_a_real_rewrite_and_retitle_with_the_ledger_run_and_the_current_digest()
{
    let answers = RefCell::new(Vec::new());
    on_both_with(options, |s| {
        let sys = &s.system;
        let id = sys
            .remember_many(&RememberMany::new(
                vec![MemoryRecordInput::new(
                    RecordKind::Lesson,
                    "Pools",
                    "Pools exhaust under load.",
                )],
                "session",
                "s1",
                "k1",
            ))
            .unwrap()
            .value[0]
            .clone();
        let default_before = all(s, None).len();
        let mut rw = RewriteDigest::new(
            &id,
            "Connection pools run dry under sustained load.",
            am_system::AuthorRef::new(am_system::AuthorKind::CapabilityModel, "summaries"),
            json!("evidence"),
            0,
        );
        rw.reader = Some(am_system::ReaderRef {
            provider: "local".into(),
            model: "m-1".into(),
            thinking: json!("none"),
        });
        rw.sources = vec![am_system::SourceRef::step("run-7", 2).unwrap()];
        let out = sys.rewrite_digest(&rw).unwrap();
        assert!(
            serde_json::to_value(&out).unwrap()["outcome"] != "refused",
            "[{}] {out:?}",
            s.name
        );
        sys.retitle(&Retitle::new(
            &id,
            "Pool exhaustion",
            am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada"),
            json!("operator"),
            0,
        ))
        .unwrap();
        assert_eq!(
            all(s, None).len(),
            default_before,
            "[{}] a rewrite adds nothing to the default stream",
            s.name
        );
        let revisions = all(s, Some(vec![ReplayFamily::Revision]));
        let shape: Vec<(String, i64, Value)> = revisions
            .iter()
            .map(|v| {
                assert_eq!(v["family"], "revision");
                (
                    v["payload"]["field"].as_str().unwrap().to_owned(),
                    v["payload"]["version"].as_i64().unwrap(),
                    v["run_id"].clone(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                ("digest".to_owned(), 0, Value::Null),
                ("digest".to_owned(), 1, json!("run-7")),
                ("title".to_owned(), 0, Value::Null),
                ("title".to_owned(), 1, Value::Null),
            ],
            "[{}] one envelope per version; run_id from the first ledger source",
            s.name
        );
        for v in &revisions {
            let d = &v["display"];
            assert_eq!(
                d["digest"], "Connection pools run dry under sustained load.",
                "[{}] every revision carries the CURRENT digest: {v}",
                s.name
            );
            assert_eq!(d["title"], "Pool exhaustion");
            assert_eq!(d["graph_id"], id.as_str());
            assert_eq!(d["digest_version"], 1);
            assert_eq!(d["version_count"], 2);
            assert_eq!(d["authored_by"]["kind"], "capability-model");
            assert_eq!(d["reader"]["model"], "m-1");
        }
        assert_eq!(
            revisions[0]["payload"]["text"], "Pools exhaust under load.",
            "version 0 keeps the original words"
        );
        let binding = formation_block(&all(s, None), &id);
        assert_eq!(
            binding["digest"], "Connection pools run dry under sustained load.",
            "a binding carries the current digest"
        );
        let mut normalized = revisions.clone();
        for v in &mut normalized {
            v["observed_at"] = Value::Null;
            v["payload"]["understood_at"] = Value::Null;
            v["payload"]["version_id"] = Value::Null;
            v["display"]["understood_at"] = Value::Null;
        }
        answers.borrow_mut().push(normalized);
    });
    let a = answers.into_inner();
    assert_eq!(a[0], a[1], "both stacks answer alike");
}

#[test]
fn a_record_formed_pending_through_the_task_queue_replays_pending_never_a_placeholder_title() {
    on_both_with(options, |s| {
        let mut r = MemoryRecordInput::new(RecordKind::Episode, "", "The pool ran dry at noon.")
            .with_pending(&["title"]);
        r.title = None;
        let id = s
            .system
            .remember_many(&RememberMany::new(vec![r], "session", "s1", "p1"))
            .unwrap()
            .value[0]
            .clone();
        let tasks = s
            .system
            .tasks()
            .unwrap()
            .tasks(&am_system::tasks::ListTasks::default())
            .unwrap();
        assert_eq!(tasks.len(), 1, "[{}] formed pending, with its task", s.name);
        let d = formation_block(&all(s, None), &id);
        assert_eq!(d["pending"], json!(["title"]), "[{}] {d}", s.name);
        assert!(
            d.get("title").is_none(),
            "[{}] no placeholder title: {d}",
            s.name
        );
        assert_eq!(d["graph_id"], id.as_str());
        assert_eq!(d["digest"], "The pool ran dry at noon.");
    });
}

#[test]
fn a_community_records_topic_keys_are_displayed_when_it_carries_them_and_never_made_up() {
    on_both_with(SystemOptions::default, |s| {
        let ids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Episode, "Pool", "The pool ran dry."),
                    MemoryRecordInput::new(RecordKind::Community, "Pools", "Topic: pools.")
                        .with_attribute("community_key", "topic-pools")
                        .with_attribute("basis", json!({"version_seq": 5}))
                        .with_attribute("size", 1)
                        .with_edge("about", "local:0"),
                    MemoryRecordInput::new(
                        RecordKind::Community,
                        "Pools again",
                        "Topic: pools, v2.",
                    )
                    .with_attribute("community_key", "topic-pools")
                    .with_attribute("basis", json!({"version_seq": 9}))
                    .with_attribute("size", 1)
                    .with_edge("refines", "local:1")
                    .with_edge("about", "local:0"),
                    MemoryRecordInput::new(
                        RecordKind::Community,
                        "Bare",
                        "A topic without its keys.",
                    ),
                    MemoryRecordInput::new(RecordKind::Episode, "Keyed", "Not a topic.")
                        .with_attribute("community_key", "topic-x")
                        .with_attribute("size", 4),
                ],
                "session",
                "s1",
                "c1",
            ))
            .unwrap()
            .value;
        let envs = all(s, None);
        let v2 = formation_block(&envs, &ids[2]);
        assert_eq!(v2["community_key"], "topic-pools", "[{}] {v2}", s.name);
        assert_eq!(v2["version_seq"], 9);
        assert_eq!(v2["size"], 1);
        assert_eq!(
            v2["edges"],
            json!([{"relation": "refines", "target_graph_id": ids[1]}]),
            "a topic's binding draws its revision chain, never an edge per member"
        );
        let v1 = formation_block(&envs, &ids[1]);
        assert_eq!(v1["version_seq"], 5);
        assert!(v1.get("edges").is_none(), "[{}] {v1}", s.name);
        let keys = ["community_key", "version_seq", "size"];
        for (id, what) in [(&ids[3], "a topic without them"), (&ids[4], "a non-topic")] {
            let d = formation_block(&envs, id);
            for k in keys {
                assert!(d.get(k).is_none(), "[{}] {what} has no {k}: {d}", s.name);
            }
        }
        let episode = formation_block(&envs, &ids[0]);
        for k in keys {
            assert!(episode.get(k).is_none());
        }
    });
}
