//! Constructor and facade plumbing on both stacks: options, the task-queue
//! refusal, broad scopes, ablation arms, warnings, passthroughs, `close()`.
//! Spec: api.md "Layer 2: the MemorySystem facade" (constructor).

mod common;

use am_journal::InMemoryJournal;
use am_system::RecordKind;
use am_system::{
    Ablation, AttentionConfig, MemoryRecordInput, MemorySystem, PayloadTier, SystemOptions,
};
use am_system::{CommitSelection, Remember};
use am_triples::{ErrorKind, InMemoryTripleStore, TripleAssertion, TripleQuery};
use common::{on_both, on_both_with};
use serde_json::json;
use std::sync::Arc;

fn pair() -> (Arc<InMemoryTripleStore>, Arc<InMemoryJournal>) {
    (
        Arc::new(InMemoryTripleStore::new(None)),
        Arc::new(InMemoryJournal::new()),
    )
}

#[test]
fn a_task_queue_on_a_home_that_keeps_none_is_refused() {
    let (store, journal) = pair();
    let err = MemorySystem::over_home_with_options(
        std::sync::Arc::new(am_journal::PairHome::new(store.clone(), journal.clone())),
        SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("task queue"), "{err}");
    // The in-memory pair built by with_options keeps one.
    let system = MemorySystem::with_options(
        store,
        journal,
        SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
    )
    .unwrap();
    assert!(system.tasks().is_ok());
}

#[test]
fn a_zero_attention_window_is_refused() {
    let (store, journal) = pair();
    let o = SystemOptions {
        attention_config: AttentionConfig {
            window_limit: 0,
            ..AttentionConfig::default()
        },
        ..SystemOptions::default()
    };
    assert_eq!(
        MemorySystem::with_options(store, journal, o)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn broad_scopes_default_to_global_and_are_normalized() {
    let (store, journal) = pair();
    let s = MemorySystem::new(store.clone(), journal.clone());
    assert_eq!(s.broad_scopes().iter().collect::<Vec<_>>(), ["global"]);
    let o = SystemOptions {
        broad_scopes: Some(vec![" World ".into(), " ".into()]),
        ..SystemOptions::default()
    };
    let s = MemorySystem::with_options(store, journal, o).unwrap();
    assert_eq!(s.broad_scopes().iter().collect::<Vec<_>>(), ["world"]);
}

#[test]
fn ablation_arms_parse_and_unknown_arms_are_refused() {
    assert_eq!(
        Ablation::parse(" Recency ").unwrap(),
        Some(Ablation::Recency)
    );
    assert_eq!(
        Ablation::parse("recency_embedding").unwrap(),
        Some(Ablation::RecencyEmbedding)
    );
    assert_eq!(Ablation::parse("").unwrap(), None);
    let err = Ablation::parse("no_trails").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("recency_embedding"));
}

#[test]
fn the_injected_clock_stamps_formation_and_commits() {
    on_both_with(
        || SystemOptions {
            clock: Some(am_triples::fixed_clock(
                am_triples::Timestamp::parse("2030-01-02T03:04:05Z").unwrap(),
            )),
            ..SystemOptions::default()
        },
        |s| {
            let gid = s
                .system
                .remember(&Remember::new(
                    MemoryRecordInput::new(RecordKind::Memory, "T", "D."),
                    "session",
                    "s1",
                    "k",
                ))
                .unwrap()
                .value;
            let d = s.system.resolve_digest_assertion(&gid).unwrap().unwrap();
            assert_eq!(d.observed_at, "2030-01-02T03:04:05.000000+00:00");
            let snap = s
                .system
                .commit_selection(&CommitSelection::new("t", &[gid]))
                .unwrap()
                .value;
            assert_eq!(snap.observed_at, "2030-01-02T03:04:05.000000+00:00");
        },
    );
}

#[test]
fn formation_fallback_notes_travel_with_the_result() {
    on_both(|s| {
        let _ = s.system.take_warnings();
        let w = s
            .system
            .remember(&Remember::new(
                MemoryRecordInput::new(RecordKind::Lesson, "T", "D.")
                    .with_attribute("applies_when", "дом"),
                "session",
                "s1",
                "k",
            ))
            .unwrap()
            .warnings;
        assert!(
            w.iter().any(|w| w.starts_with("#FALLBACK: applies_when")),
            "[{}] {w:?}",
            s.name
        );
        assert!(
            !s.system
                .take_warnings()
                .iter()
                .any(|w| w.contains("applies_when"))
        );
    });
}

#[test]
fn layer_one_passthroughs_reach_the_store_and_the_journal() {
    on_both(|s| {
        let ids = s
            .system
            .add(&[TripleAssertion::new("ada", "knows", "bob").with_scope("session")])
            .unwrap();
        let rows = s
            .system
            .query(&TripleQuery {
                assertion_ids: Some(ids.clone()),
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(rows.len(), 1);
        // A plain triple is its own record: its assertion id resolves directly.
        assert_eq!(s.system.resolve_assertion_id(&ids[0]).unwrap(), ids[0]);
        assert_eq!(s.system.current_seq().unwrap(), 0);
        s.system
            .remember(&Remember::new(
                MemoryRecordInput::new(RecordKind::Memory, "T", "D."),
                "session",
                "s1",
                "k",
            ))
            .unwrap();
        assert_eq!(s.system.current_seq().unwrap(), 1);
        assert_eq!(s.system.seq_at("2100-01-01T00:00:00Z").unwrap(), 1);
        s.system.close().unwrap();
        // The store is caller-owned and stays usable after close().
        assert_eq!(s.store.query(&TripleQuery::default()).unwrap().len(), 2);
    });
}

#[test]
fn payload_of_a_diary_projection_carries_its_entry_id() {
    on_both(|s| {
        let gid = s
            .system
            .remember(&Remember::new(
                MemoryRecordInput::new(RecordKind::Diary, "Day", "A summary of the day.")
                    .with_provenance("source", "diary-projection")
                    .with_attribute("entry_id", "entry-7")
                    .with_attribute(
                        "understanding",
                        json!({"field": "digest", "author": {"kind": "operator", "id": "op"}}),
                    ),
                "self",
                "e1",
                "k",
            ))
            .unwrap()
            .value;
        let p = s.system.payload(&gid, PayloadTier::Digest).unwrap();
        assert_eq!(p.entry_id.as_deref(), Some("entry-7"));
        assert_eq!(
            serde_json::to_value(&p).unwrap()["entry_id"],
            json!("entry-7")
        );
    });
}
