//! `redigestion_candidates` on both stacks: worst first (poverty, then the
//! most used, then the id), the protected kinds and unlabelled digests left
//! out, a pure read, and its refusals.

use crate::common::{Stack, assert_refused, on_both, written};
use am_journal::{EventKind, MemoryEvent};
use am_system::kinds::RecordKind;
use am_system::operator::{REDIGESTION_PROTECTED_KINDS, RedigestionCandidates, content_residue};
use am_system::{MemoryRecordInput, RememberMany};
use am_triples::ErrorKind::InvalidInput;

const PAIR: (&str, &str) = ("session", "s1");

fn debt(s: &Stack, key: &str, kind: RecordKind, method: &str, digest: &str) -> String {
    let mut r = MemoryRecordInput::new(kind, &format!("Debt {key}"), digest);
    r.attributes
        .insert("digest_method".into(), serde_json::json!(method));
    s.system
        .remember_many(&RememberMany::new(vec![r], PAIR.0, PAIR.1, key))
        .unwrap()
        .value
        .remove(0)
}

#[test]
fn the_residue_strips_act_frame_markers_of_one_to_120_characters_and_folds_white_space() {
    assert_eq!(content_residue("[used tool: read_file]"), "");
    assert_eq!(
        content_residue("  [kept a note]  wash   the bisque "),
        "wash the bisque"
    );
    assert_eq!(content_residue("[] and [a[b]c]"), "[] and [a c]");
    let long = format!("[{}] tail", "x".repeat(121));
    assert_eq!(content_residue(&long), long);
    assert_eq!(
        content_residue(&format!("[{}] tail", "y".repeat(120))),
        "tail"
    );
}

#[test]
fn the_protected_kinds_are_the_seven_the_spec_names() {
    assert_eq!(
        REDIGESTION_PROTECTED_KINDS,
        [
            "diary",
            "value",
            "purpose",
            "trait",
            "interest",
            "dream",
            "world_model"
        ]
    );
}

#[test]
fn redigestion_candidates_rank_poverty_then_the_most_used_and_write_nothing() {
    on_both(|s| {
        let rich_used = debt(
            s,
            "a",
            RecordKind::Memory,
            "mechanical-v1",
            "the kiln glaze crawled because the bisque was dusty",
        );
        let rich = debt(
            s,
            "b",
            RecordKind::Episode,
            "mechanical-v2",
            "wash the bisque before glazing it every single time",
        );
        let poor = debt(
            s,
            "c",
            RecordKind::Episode,
            "mechanical-v1",
            "[used tool: read_file]",
        );
        let poor_used = debt(
            s,
            "d",
            RecordKind::Lesson,
            "mechanical-flow-v1",
            "[kept in diary] ok",
        );
        debt(
            s,
            "e",
            RecordKind::Memory,
            "entity-authored",
            "[used tool: read_file]",
        );
        debt(
            s,
            "f",
            RecordKind::Memory,
            "mechanical-dedup-v1",
            "[used tool: read_file]",
        );
        // Use, as the journal records it: selected events naming the graph id.
        for (i, rid) in [&rich_used, &poor_used, &rich_used].into_iter().enumerate() {
            s.journal
                .append_events(&[MemoryEvent {
                    event_id: format!("use-{i}"),
                    kind: EventKind::Selected,
                    scope: PAIR.0.into(),
                    owner_id: PAIR.1.into(),
                    record_id: Some(rid.clone()),
                    weight: 8.0,
                    observed_at: "2026-01-01T00:00:00+00:00".into(),
                    actor: "runtime".into(),
                    ..MemoryEvent::default()
                }])
                .unwrap();
        }
        let before = written(s);
        let r = s
            .system
            .redigestion_candidates(&RedigestionCandidates::new(&[PAIR]))
            .unwrap();
        assert_eq!(written(s), before, "[{}] the read wrote something", s.name);
        let order: Vec<&str> = r.candidates.iter().map(|c| c.record_id.as_str()).collect();
        assert_eq!(
            order,
            vec![
                poor_used.as_str(),
                poor.as_str(),
                rich_used.as_str(),
                rich.as_str()
            ],
            "[{}]",
            s.name
        );
        assert_eq!((r.total_labeled, r.poverty_count), (4, 2), "[{}]", s.name);
        assert_eq!(r.candidates[2].selected_count, 2, "[{}]", s.name);
        let mut two = RedigestionCandidates::new(&[PAIR]);
        two.limit = 2;
        let top = s.system.redigestion_candidates(&two).unwrap();
        assert_eq!(top.candidates.len(), 2);
        assert_eq!(
            top.total_labeled, 4,
            "[{}] the total counts past the limit",
            s.name
        );
    });
}

#[test]
fn redigestion_candidates_refuse_a_zero_limit_and_no_pair() {
    on_both(|s| {
        debt(
            s,
            "a",
            RecordKind::Memory,
            "mechanical-v1",
            "[used tool: x]",
        );
        let before = written(s);
        let mut zero = RedigestionCandidates::new(&[PAIR]);
        zero.limit = 0;
        assert_refused(
            s,
            &before,
            s.system.redigestion_candidates(&zero),
            InvalidInput,
            &["limit"],
        );
        assert_refused(
            s,
            &before,
            s.system
                .redigestion_candidates(&RedigestionCandidates::new(&[])),
            InvalidInput,
            &["pair"],
        );
    });
}
