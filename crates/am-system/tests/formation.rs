//! Formation on both stacks: deterministic ids, idempotent replays, formation
//! bindings without attention events, `local:` edges, and every refusal
//! writing nothing. Spec: api.md "Formation (typed records)".

mod common;

use am_journal::{BindingFilter, EventFilter};
use am_system::RecordKind;
use am_system::{MemoryRecordInput, ids};
use am_system::{Remember, RememberMany};
use am_triples::ErrorKind::InvalidInput;
use am_triples::TripleQuery;
use common::{assert_refused, on_both, written};
use serde_json::json;

fn episode(title: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Episode, title, &format!("{title} happened."))
}

#[test]
fn ids_derive_from_idempotency_key_and_position() {
    on_both(|s| {
        let ids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    episode("A"),
                    MemoryRecordInput::new(RecordKind::Lesson, "B", "Do b."),
                ],
                "Session",
                "s1",
                "k1",
            ))
            .unwrap()
            .value;
        assert_eq!(
            ids,
            [
                ids::record_id_for(RecordKind::Episode, "k1", 0),
                ids::record_id_for(RecordKind::Lesson, "k1", 1)
            ]
        );
        let digest = s.system.resolve_digest_assertion(&ids[1]).unwrap().unwrap();
        assert_eq!(
            digest.assertion_id.unwrap(),
            ids::digest_assertion_id("k1", 1)
        );
        assert_eq!(digest.scope, "session");
        assert_eq!(digest.owner_id.as_deref(), Some("s1"));
        assert_eq!(digest.object, "Do b.");
        assert_eq!(digest.attributes["record_kind"], json!("lesson"));
        assert_eq!(digest.attributes["title"], json!("B"));
        assert_eq!(digest.attributes["literal"], json!(true));
    });
}

#[test]
fn replays_are_no_ops_returning_the_same_graph_ids() {
    on_both(|s| {
        let batch = [episode("A"), episode("B").with_edge("follows", "local:0")];
        let first = s
            .system
            .remember_many(&RememberMany {
                turn_id: Some("turn-1".into()),
                ..RememberMany::new(batch.to_vec(), "session", "s1", "k")
            })
            .unwrap()
            .value;
        let before = written(s);
        let again = s
            .system
            .remember_many(&RememberMany {
                turn_id: Some("turn-1".into()),
                ..RememberMany::new(batch.to_vec(), "session", "s1", "k")
            })
            .unwrap()
            .value;
        assert_eq!(first, again, "[{}]", s.name);
        assert_eq!(written(s), before, "[{}] a replay wrote something", s.name);
        let single = s
            .system
            .remember(&Remember::new(batch[0].clone(), "session", "s1", "k"))
            .unwrap()
            .value;
        assert_eq!(single, first[0]);
        assert_eq!(written(s), before);
    });
}

#[test]
fn a_supplied_key_reused_for_different_content_warns_naming_the_key_and_keeps_the_stored_record() {
    on_both(|s| {
        let first = s
            .system
            .remember(&Remember::new(episode("A"), "session", "s1", "k-reused"))
            .unwrap()
            .value;
        // A true replay warns nothing.
        let replay = s
            .system
            .remember(&Remember::new(episode("A"), "session", "s1", "k-reused"))
            .unwrap();
        assert_eq!(replay.value, first);
        assert!(
            !replay
                .warnings
                .iter()
                .any(|w| w.contains("idempotency_key")),
            "[{}] a replay warned: {:?}",
            s.name,
            replay.warnings
        );
        let before = written(s);
        for other in [
            episode("B"),
            MemoryRecordInput::new(RecordKind::Episode, "A", "Something else happened."),
        ] {
            let warnings = s
                .system
                .remember(&Remember::new(other, "session", "s1", "k-reused"))
                .unwrap()
                .warnings;
            let w = warnings
                .iter()
                .find(|w| w.starts_with("#FALLBACK") && w.contains("\"k-reused\""))
                .unwrap_or_else(|| panic!("[{}] no key-reuse warning: {warnings:?}", s.name));
            assert!(w.contains(&first) && w.contains("NOT formed"), "{w}");
            assert_eq!(written(s), before, "[{}] the reused key wrote", s.name);
        }
        // Another kind at the position is no replay: its graph id would not
        // exist, so the call is refused (tests/idempotency_keys.rs).
        let other_kind = s.system.remember(&Remember::new(
            MemoryRecordInput::new(RecordKind::Lesson, "A", "A happened."),
            "session",
            "s1",
            "k-reused",
        ));
        common::assert_refused(
            s,
            &before,
            other_kind,
            am_triples::ErrorKind::InvalidInput,
            &["\"k-reused\"", "position 0"],
        );
        let kept = s.system.resolve_digest_assertion(&first).unwrap().unwrap();
        assert_eq!(kept.object, "A happened.");
    });
}

#[test]
fn forming_deposits_no_attention_event_and_one_formation_binding_per_record() {
    on_both(|s| {
        let ids = s
            .system
            .remember_many(&RememberMany::new(
                vec![episode("A"), episode("B")],
                "session",
                "s1",
                "k",
            ))
            .unwrap()
            .value;
        let events = s
            .journal
            .events(&EventFilter::new("session", "s1"))
            .unwrap();
        assert!(
            events.is_empty(),
            "[{}] forming deposited {events:?}",
            s.name
        );
        let bindings = s
            .journal
            .bindings(&BindingFilter {
                fold: false,
                ..BindingFilter::default()
            })
            .unwrap();
        assert_eq!(bindings.len(), 2);
        for (i, b) in bindings.iter().enumerate() {
            assert_eq!(b.record_id, ids[i]);
            assert_eq!(b.binding_id, ids::formation_binding_id("k", i));
            assert_eq!(
                (
                    b.search_state.as_str(),
                    b.prompt_state.as_str(),
                    b.lifecycle.as_str(),
                    b.source.as_str()
                ),
                ("indexed", "inactive", "inactive_candidate", "remember")
            );
        }
    });
}

#[test]
fn edges_are_record_edge_assertions_and_local_targets_name_batch_siblings() {
    on_both(|s| {
        let ids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    episode("A"),
                    MemoryRecordInput::new(RecordKind::Summary, "S", "A in short.")
                        .with_edge("summarizes", "local:0"),
                ],
                "session",
                "s1",
                "k",
            ))
            .unwrap()
            .value;
        let rows = s
            .store
            .query(&TripleQuery {
                subject: Some(ids[1].clone()),
                predicate: Some("summarizes".into()),
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].object, ids[0]);
        assert_eq!(rows[0].attributes["record_edge"], json!(true));
        assert_eq!(
            rows[0].assertion_id.as_deref().unwrap(),
            ids::edge_assertion_id("k", 1, "summarizes", &ids[0])
        );
        // A replay naming the concrete graph id dedupes to the same edge.
        let concrete = MemoryRecordInput::new(RecordKind::Summary, "S", "A in short.")
            .with_edge("summarizes", &ids[0]);
        let before = written(s);
        s.system
            .remember_many(&RememberMany::new(
                vec![episode("A"), concrete],
                "session",
                "s1",
                "k",
            ))
            .unwrap();
        assert_eq!(written(s), before);
    });
}

#[test]
fn lesson_applies_when_tokens_join_the_stored_keywords() {
    on_both(|s| {
        let id = s
            .system
            .remember(&Remember::new(
                MemoryRecordInput::new(RecordKind::Lesson, "Migrations", "Batch them.")
                    .with_keywords(&["sqlite"])
                    .with_attribute("applies_when", json!(["large table migrations"])),
                "session",
                "s1",
                "k",
            ))
            .unwrap()
            .value;
        let d = s.system.resolve_digest_assertion(&id).unwrap().unwrap();
        assert_eq!(
            d.attributes["keywords"],
            json!(["sqlite", "large", "migrations", "table"])
        );
    });
}

#[test]
fn an_unknown_kind_is_refused_when_the_batch_is_read_naming_the_kinds() {
    let e = serde_json::from_value::<RememberMany>(serde_json::json!({
        "records": [
            {"kind": "episode", "title": "ok", "digest": "d"},
            {"kind": "musing", "title": "t", "digest": "d"}
        ],
        "scope": "session", "owner_id": "s1", "idempotency_key": "k"
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("musing") && e.contains("world_model"), "{e}");
}

#[test]
fn missing_title_or_digest_is_refused_and_writes_nothing() {
    on_both(|s| {
        let before = written(s);
        let r = s.system.remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(RecordKind::Memory, " ", "d")],
            "session",
            "s1",
            "k",
        ));
        assert_refused(s, &before, r, InvalidInput, &["title"]);
        let r = s.system.remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(RecordKind::Memory, "t", "")],
            "session",
            "s1",
            "k",
        ));
        assert_refused(s, &before, r, InvalidInput, &["digest"]);
    });
}

#[test]
fn a_summary_without_an_edge_is_refused_and_writes_nothing() {
    on_both(|s| {
        let before = written(s);
        let r = s.system.remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(RecordKind::Summary, "t", "d")],
            "session",
            "s1",
            "k",
        ));
        assert_refused(s, &before, r, InvalidInput, &["summary", "edge"]);
    });
}

#[test]
fn a_value_without_value_class_is_refused_and_writes_nothing() {
    on_both(|s| {
        let before = written(s);
        let r = s.system.remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(
                RecordKind::Value,
                "Honesty",
                "I tell the truth.",
            )],
            "self",
            "e1",
            "k",
        ));
        assert_refused(s, &before, r, InvalidInput, &["value_class", "core"]);
    });
}

#[test]
fn a_diary_breaking_the_formation_rules_is_refused_and_writes_nothing() {
    on_both(|s| {
        let before = written(s);
        let undeclared = MemoryRecordInput::new(RecordKind::Diary, "Day", "Quiet day.");
        let r = s.system.remember_many(&RememberMany::new(
            vec![undeclared.clone()],
            "self",
            "e1",
            "k",
        ));
        assert_refused(s, &before, r, InvalidInput, &["provenance.source"]);
        let bad_type = undeclared
            .clone()
            .with_provenance("source", "owner-direct")
            .with_attribute("diary_type", "rant");
        let r = s
            .system
            .remember_many(&RememberMany::new(vec![bad_type], "self", "e1", "k"));
        assert_refused(s, &before, r, InvalidInput, &["diary_type", "rant"]);
        let no_entry = undeclared.with_provenance("source", "diary-projection");
        let r = s
            .system
            .remember_many(&RememberMany::new(vec![no_entry], "self", "e1", "k"));
        assert_refused(s, &before, r, InvalidInput, &["entry_id"]);
    });
}

#[test]
fn a_pending_field_is_refused_naming_the_missing_task_queue_and_writes_nothing() {
    on_both(|s| {
        let before = written(s);
        let pending = MemoryRecordInput {
            title: None,
            ..MemoryRecordInput::new(RecordKind::Memory, "", "Body.")
        }
        .with_pending(&["title"]);
        let r = s
            .system
            .remember_many(&RememberMany::new(vec![pending], "session", "s1", "k"));
        assert_refused(s, &before, r, InvalidInput, &["task_queue=True"]);
    });
}

#[test]
fn an_owner_direct_chained_diary_entry_stores_its_chain_hash() {
    on_both(|s| {
        let id = s
            .system
            .remember(&Remember::new(
                MemoryRecordInput::new(RecordKind::Diary, "Day one", "It began.")
                    .with_provenance("source", "owner-direct")
                    .with_attribute("prev_entry_hash", ""),
                "self",
                "e1",
                "diary-1",
            ))
            .unwrap()
            .value;
        let d = s.system.resolve_digest_assertion(&id).unwrap().unwrap();
        assert_eq!(d.observed_at, common::PINNED_NOW);
        assert_eq!(
            d.attributes["entry_hash"],
            json!(am_system::diary_entry_hash(
                "Day one",
                "It began.",
                &d.observed_at
            ))
        );
    });
}

/// 0.5.2 rule (0.3.2 formed such a projection with no authored summary): a
/// PUBLIC diary projection forms with an authored summary or not at all here.
#[test]
fn a_public_diary_projection_without_an_authored_summary_is_refused_and_writes_nothing() {
    on_both(|s| {
        let before = written(s);
        let projection =
            MemoryRecordInput::new(RecordKind::Diary, "Day", "First line of the entry.")
                .with_provenance("source", "diary-projection")
                .with_attribute("entry_id", "entry-1");
        let r = s.system.remember_many(&RememberMany::new(
            vec![projection.clone()],
            "self",
            "e1",
            "k",
        ));
        assert_refused(s, &before, r, InvalidInput, &["authored", "understanding"]);
        let mechanical = projection.clone().with_attribute(
            "understanding",
            json!({"field": "digest", "author": {"kind": "mechanical", "id": "first-line"}}),
        );
        let r = s
            .system
            .remember_many(&RememberMany::new(vec![mechanical], "self", "e1", "k"));
        assert_refused(s, &before, r, InvalidInput, &["mechanical"]);
        let authored = projection.with_attribute(
            "understanding",
            json!({"field": "digest", "author": {"kind": "capability-model", "id": "summarizer"},
                   "reader": {"provider": "p", "model": "m", "thinking": false},
                   "sources": [{"kind": "step", "run_id": "r1", "seq": 4}]}),
        );
        assert!(
            s.system
                .remember_many(&RememberMany::new(vec![authored], "self", "e1", "k"))
                .is_ok()
        );
    });
}
