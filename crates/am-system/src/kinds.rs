//! The record-kind vocabulary: every valid `record_kind`, the kind ranks that
//! order identity first, and the closed attribute vocabularies formation checks.
//!
//! Spec: api.md "Formation (typed records)" and "Vocabularies and tuning
//! constants"; algorithms.md §7 (`KIND_RANKS`).

/// The predicate of a record's digest assertion.
pub const DIGEST_PREDICATE: &str = "dcterms:abstract";

/// Every valid `record_kind` (`MEMORY_RECORD_KINDS`), sorted.
///
/// 0.3.2's set plus `community` (0.5.2's topic records).
pub const MEMORY_RECORD_KINDS: &[&str] = &[
    "answer",
    "claim",
    "community",
    "decision",
    "diary",
    "dream",
    "episode",
    "instruction",
    "interest",
    "lesson",
    "memory",
    "observation",
    "plan",
    "purpose",
    "question",
    "realization",
    "summary",
    "trait",
    "value",
    "world_model",
];

/// Ordering rank per kind (`KIND_RANKS`; lower sorts earlier): identity first
/// (value < purpose < trait), derived artifacts as summary peers, `memory` last.
pub const KIND_RANKS: &[(&str, i64)] = &[
    ("value", -3),
    ("purpose", -2),
    ("trait", -1),
    ("lesson", 0),
    ("instruction", 1),
    ("decision", 2),
    ("episode", 3),
    ("diary", 3),
    ("observation", 3),
    ("plan", 4),
    ("summary", 5),
    ("interest", 5),
    ("dream", 5),
    ("world_model", 5),
    ("realization", 5),
    ("answer", 6),
    ("question", 7),
    ("claim", 8),
    ("memory", 9),
];

/// The rank of a kind missing from [`KIND_RANKS`].
pub const DEFAULT_KIND_RANK: i64 = 100;

/// The kind of a row without `attributes.record_kind`.
pub const DEFAULT_KIND: &str = "memory";

/// `attributes.value_class` values a `value` record must declare.
pub const VALUE_CLASSES: &[&str] = &["core", "revisable"];

/// `attributes.diary_type` values (`DIARY_TYPES`); absent means `note`.
pub const DIARY_TYPES: &[&str] = &[
    "commitment",
    "idea",
    "lesson",
    "note",
    "problem",
    "question",
    "reflection",
];

/// The diary write channels `provenance.source` must name.
pub const DIARY_SOURCES: &[&str] = &["diary-projection", "owner-direct"];

/// Who the entity is (`IDENTITY_KINDS`).
pub const IDENTITY_KINDS: &[&str] = &["interest", "purpose", "trait", "value"];

/// Kinds never rewritten in place (`UNDERSTANDING_PROTECTED_KINDS`): the
/// entity's own acts. A pending summary is refused on them at formation.
pub const UNDERSTANDING_PROTECTED_KINDS: &[&str] = &[
    "diary",
    "interest",
    "purpose",
    "realization",
    "trait",
    "value",
];

/// `attributes.evidence_class` values of a lesson or instruction.
pub const LESSON_EVIDENCE_CLASSES: &[&str] = &[
    "corroborated",
    "disputed",
    "proposed",
    "single_source",
    "validated",
];

/// `attributes.category` values of an instruction.
pub const INSTRUCTION_CATEGORIES: &[&str] = &["instruction", "process", "rule"];

/// Who may author a reading (the spec's `AUTHOR_KINDS`): the one list,
/// am-journal's [`am_journal::version::AUTHOR_KINDS`].
pub const AUTHOR_KINDS: &[&str] = &am_journal::version::AUTHOR_KINDS;

/// The fields a record may form pending (`PENDING_FIELDS`).
pub const PENDING_FIELDS: &[&str] = &["summary", "title"];

/// The rank of `kind` in [`KIND_RANKS`], or [`DEFAULT_KIND_RANK`].
pub fn kind_rank(kind: &str) -> i64 {
    KIND_RANKS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(DEFAULT_KIND_RANK, |(_, r)| *r)
}

/// Whether `kind` is in [`MEMORY_RECORD_KINDS`].
pub fn is_record_kind(kind: &str) -> bool {
    MEMORY_RECORD_KINDS.contains(&kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_kinds_rank_before_learned_kinds_and_unknown_kinds_rank_last() {
        assert!(kind_rank("value") < kind_rank("purpose"));
        assert!(kind_rank("purpose") < kind_rank("trait"));
        assert!(kind_rank("trait") < kind_rank("lesson"));
        assert_eq!(kind_rank("memory"), 9);
        assert_eq!(kind_rank("no-such-kind"), DEFAULT_KIND_RANK);
    }

    #[test]
    fn author_kinds_is_the_specs_four_and_the_journals_stored_list_has_its_own_name() {
        let mut spec = vec!["mechanical", "entity-mind", "capability-model", "operator"];
        spec.sort_unstable();
        assert_eq!(AUTHOR_KINDS, spec.as_slice());
        assert_eq!(AUTHOR_KINDS, am_journal::version::AUTHOR_KINDS.as_slice());
        assert!(!AUTHOR_KINDS.contains(&"unrecorded"));
        let stored = am_journal::version::STORED_AUTHOR_KINDS;
        assert!(stored.contains(&"unrecorded"));
        assert!(AUTHOR_KINDS.iter().all(|k| stored.contains(k)));
    }

    #[test]
    fn vocabularies_are_sorted_for_error_messages() {
        for v in [
            MEMORY_RECORD_KINDS,
            DIARY_TYPES,
            VALUE_CLASSES,
            AUTHOR_KINDS,
        ] {
            let mut sorted = v.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, v);
        }
    }
}
