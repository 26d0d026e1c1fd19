//! The record-kind vocabulary: every valid `record_kind`, the kind ranks that
//! order identity first, and the closed attribute vocabularies formation checks.
//!
//! Spec: api.md "Formation (typed records)" and "Vocabularies and tuning
//! constants"; algorithms.md §7 (`KIND_RANKS`).

/// The predicate of a record's digest assertion.
pub const DIGEST_PREDICATE: &str = "dcterms:abstract";

am_triples::vocabulary! {
    /// A record's kind (`MEMORY_RECORD_KINDS`): 0.3.2's nineteen plus
    /// `community` (0.5.2's topic records), sorted. A stored row's
    /// `attributes.record_kind` may hold a name outside the vocabulary (a
    /// row written through layer 1): it is read as no kind, its text kept
    /// where it is shown.
    #[derive(Default)]
    pub enum RecordKind("record kind") {
        /// An answer.
        Answer = "answer",
        /// A claim.
        Claim = "claim",
        /// A topic record (communities).
        Community = "community",
        /// A decision.
        Decision = "decision",
        /// A diary entry (the book's projection or the owner's own).
        Diary = "diary",
        /// A dream (a night's felt residue).
        Dream = "dream",
        /// An episode.
        Episode = "episode",
        /// An instruction.
        Instruction = "instruction",
        /// An interest (identity).
        Interest = "interest",
        /// A lesson.
        Lesson = "lesson",
        /// A plain memory (the kind of a row without one, [`DEFAULT_KIND`]).
        #[default]
        Memory = "memory",
        /// An observation.
        Observation = "observation",
        /// A plan.
        Plan = "plan",
        /// A purpose (identity).
        Purpose = "purpose",
        /// A question.
        Question = "question",
        /// A realization (an identity-amendment proposal).
        Realization = "realization",
        /// A summary (names what it summarizes by edges).
        Summary = "summary",
        /// A trait (identity).
        Trait = "trait",
        /// A value (identity).
        Value = "value",
        /// A world model (one target's standing card).
        WorldModel = "world_model",
    }
}

impl RecordKind {
    /// Its rank in [`KIND_RANKS`] (lower sorts earlier; identity first).
    pub fn rank(self) -> i64 {
        kind_rank(self.as_str())
    }

    /// Whether it says who the entity is ([`IDENTITY_KINDS`]).
    pub fn is_identity(self) -> bool {
        matches!(
            self,
            RecordKind::Interest | RecordKind::Purpose | RecordKind::Trait | RecordKind::Value
        )
    }

    /// Whether its words are the entity's own act, never rewritten in place
    /// ([`UNDERSTANDING_PROTECTED_KINDS`]).
    pub fn is_understanding_protected(self) -> bool {
        matches!(
            self,
            RecordKind::Diary
                | RecordKind::Interest
                | RecordKind::Purpose
                | RecordKind::Realization
                | RecordKind::Trait
                | RecordKind::Value
        )
    }
}

/// Every valid `record_kind` (`MEMORY_RECORD_KINDS`), sorted: the wire names
/// of [`RecordKind`].
pub const MEMORY_RECORD_KINDS: &[&str] = &RecordKind::NAMES;

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
    RecordKind::parse(kind).is_ok()
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
    fn record_kind_classes_are_the_specs_identity_and_protected_lists() {
        let names = |pick: fn(RecordKind) -> bool| {
            let mut v: Vec<&str> = RecordKind::ALL
                .into_iter()
                .filter(|k| pick(*k))
                .map(RecordKind::as_str)
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(names(RecordKind::is_identity), IDENTITY_KINDS);
        assert_eq!(
            names(RecordKind::is_understanding_protected),
            UNDERSTANDING_PROTECTED_KINDS
        );
        assert_eq!(MEMORY_RECORD_KINDS.len(), 20);
        assert_eq!(RecordKind::default().as_str(), DEFAULT_KIND);
        assert_eq!(RecordKind::Value.rank(), -3);
        assert_eq!(RecordKind::Community.rank(), DEFAULT_KIND_RANK);
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
