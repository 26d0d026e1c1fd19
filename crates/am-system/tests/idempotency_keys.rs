//! Idempotency keys across owners, on both stacks. Ids derive from
//! `(idempotency_key, position)` alone (spec api.md "Formation": "replays are
//! no-ops returning the same graph ids"; oracle algorithms' id formulas), and
//! are never salted with the scope or owner, so homes interoperate. A key is
//! therefore a batch identity: the same pair replaying it gets its original
//! ids back (with a warning when the content differs), and a position whose
//! stored record belongs to another pair or is of another kind is refused,
//! nothing written, naming the key and the position, never the other owner.

mod common;

use am_system::RecordKind;
use am_system::{MemoryRecordInput, RememberMany};
use am_triples::ErrorKind::InvalidInput;
use common::{Stack, assert_refused, on_both, written};

fn lesson(title: &str, digest: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Lesson, title, digest)
}

fn form(
    s: &Stack,
    records: Vec<MemoryRecordInput>,
    scope: &str,
    owner: &str,
    key: &str,
) -> am_system::Result<am_system::Warned<Vec<String>>> {
    s.system
        .remember_many(&RememberMany::new(records, scope, owner, key))
}

fn exists(s: &Stack, id: &str) -> bool {
    s.system.resolve_digest_assertion(id).unwrap().is_some()
}

#[test]
fn a_replay_by_the_same_pair_returns_the_original_ids_and_writes_nothing() {
    on_both(|s| {
        let first = form(
            s,
            vec![lesson("Pools", "Pools run dry.")],
            "life",
            "ada",
            "k1",
        )
        .unwrap();
        let before = written(s);
        let again = form(
            s,
            vec![lesson("Pools", "Pools run dry.")],
            "life",
            "ada",
            "k1",
        )
        .unwrap();
        assert_eq!(again.value, first.value, "[{}]", s.name);
        assert!(
            again.warnings.iter().all(|w| !w.contains("k1")),
            "[{}]",
            s.name
        );
        assert_eq!(written(s), before, "[{}] a replay wrote something", s.name);
    });
}

#[test]
fn the_same_pair_replaying_a_key_with_different_content_keeps_the_original_ids_and_warns_naming_the_key()
 {
    on_both(|s| {
        let first = form(
            s,
            vec![lesson("Pools", "Pools run dry.")],
            "life",
            "ada",
            "k1",
        )
        .unwrap();
        let before = written(s);
        let other = form(
            s,
            vec![lesson("Beans", "Beans climb.")],
            "life",
            "ada",
            "k1",
        )
        .unwrap();
        assert_eq!(other.value, first.value, "[{}]", s.name);
        assert!(
            other
                .warnings
                .iter()
                .any(|w| w.starts_with("#FALLBACK") && w.contains("\"k1\"")),
            "[{}] {:?}",
            s.name,
            other.warnings
        );
        assert_eq!(written(s), before, "[{}]", s.name);
    });
}

#[test]
fn a_key_already_used_by_another_owner_is_refused_naming_the_key_and_position_and_writes_nothing() {
    on_both(|s| {
        form(
            s,
            vec![
                lesson("Pools", "Pools run dry."),
                lesson("Beans", "Beans climb."),
            ],
            "life",
            "ada",
            "shared-key",
        )
        .unwrap();
        let before = written(s);
        let r = form(
            s,
            vec![
                lesson("Pools", "Pools run dry."),
                lesson("Beans", "Beans climb."),
            ],
            "life",
            "grace",
            "shared-key",
        );
        let msg = r
            .as_ref()
            .map_err(ToString::to_string)
            .err()
            .unwrap_or_default();
        assert!(
            !msg.contains("ada"),
            "[{}] the other owner is named: {msg}",
            s.name
        );
        assert_refused(
            s,
            &before,
            r,
            InvalidInput,
            &["\"shared-key\"", "position 0"],
        );
    });
}

#[test]
fn a_key_already_used_in_another_scope_is_refused_and_writes_nothing() {
    on_both(|s| {
        form(
            s,
            vec![lesson("Pools", "Pools run dry.")],
            "life",
            "ada",
            "k2",
        )
        .unwrap();
        let before = written(s);
        let r = form(
            s,
            vec![lesson("Pools", "Pools run dry.")],
            "diary",
            "ada",
            "k2",
        );
        assert_refused(s, &before, r, InvalidInput, &["\"k2\"", "position 0"]);
    });
}

#[test]
fn a_key_whose_stored_record_is_of_another_kind_is_refused_and_no_answer_names_a_missing_id() {
    on_both(|s| {
        form(
            s,
            vec![lesson("Pools", "Pools run dry.")],
            "life",
            "ada",
            "k3",
        )
        .unwrap();
        let before = written(s);
        let r = form(
            s,
            vec![MemoryRecordInput::new(
                RecordKind::Episode,
                "Pools",
                "Pools run dry.",
            )],
            "life",
            "ada",
            "k3",
        );
        assert_refused(s, &before, r, InvalidInput, &["\"k3\"", "position 0"]);
    });
}

#[test]
fn a_later_position_of_another_kind_is_refused_naming_that_position() {
    on_both(|s| {
        // Positions 0 and 1 are lessons; a batch reusing the key with an
        // episode at position 1 is refused there.
        form(
            s,
            vec![
                lesson("Pools", "Pools run dry."),
                lesson("Beans", "Beans climb."),
            ],
            "life",
            "ada",
            "k4",
        )
        .unwrap();
        let before = written(s);
        let ok = form(
            s,
            vec![lesson("Pools", "Pools run dry.")],
            "life",
            "ada",
            "k4",
        )
        .unwrap();
        assert!(ok.value.iter().all(|id| exists(s, id)), "[{}]", s.name);
        assert_eq!(written(s), before);
        let r = form(
            s,
            vec![
                lesson("Pools", "Pools run dry."),
                MemoryRecordInput::new(RecordKind::Episode, "Beans", "Beans climb."),
            ],
            "life",
            "ada",
            "k4",
        );
        assert_refused(s, &before, r, InvalidInput, &["\"k4\"", "position 1"]);
    });
}
