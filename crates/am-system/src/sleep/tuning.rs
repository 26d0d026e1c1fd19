//! The relation sets the structural report reads, and sleep's view of
//! [`SleepTuning`] (every sleep-lane policy number, kept in the core's
//! `config.rs` beside the other tunables, so that a faculty the night calls,
//! such as `world_models`, reads it without naming `sleep`).
//!
//! Spec: api.md "Vocabularies and tuning constants" (`SleepTuning`),
//! "Consolidation (sleep and dreams)" (`COMPONENT_RELATIONS`,
//! `CONTEXT_RELATIONS`); memory-system.md "Sleep".

pub use crate::config::{
    NEAR_DUP_JACCARD_FLOOR, NEAR_DUP_SCAN_LIMIT, NEAR_DUP_VECTOR_FLOOR, SleepTuning,
};

/// The semantic authored relations that define the structural report's
/// components (api.md: "Components are computed over `COMPONENT_RELATIONS`
/// edges only"). `refines` joins them as 0.3.2 does: a revision chain is one
/// story.
pub const COMPONENT_RELATIONS: [&str; 9] = [
    "summarizes",
    "from_session",
    "reflected_in",
    "continues",
    "derived_from",
    "answers",
    "supports",
    "part_of",
    "refines",
];

/// Mechanical co-presence relations: never component-defining; their pairs
/// count as already associated (`context_pairs`).
pub const CONTEXT_RELATIONS: [&str; 2] = ["written_amid", "mentions"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructing_sleep_tuning_with_its_defaults_changes_nothing_the_spec_floor_is_0_65() {
        let t = SleepTuning::default();
        assert!((t.near_dup_jaccard_floor - 0.65).abs() < f64::EPSILON);
        assert!((t.near_dup_vector_floor - 0.90).abs() < f64::EPSILON);
        assert_eq!(t.min_shared_facets, 2);
        let from_empty: SleepTuning = serde_json::from_str("{}").unwrap();
        assert_eq!(from_empty, t);
        t.validate().unwrap();
    }

    #[test]
    fn a_candidate_cap_outside_the_band_is_refused_never_clamped() {
        let t = SleepTuning::default();
        assert_eq!(t.validated_candidate_cap(2).unwrap(), 2);
        for bad in [0, 7, -1] {
            let err = t.validated_candidate_cap(bad).unwrap_err().to_string();
            assert!(err.contains("candidate_cap_band"), "{err}");
        }
    }

    #[test]
    fn an_unknown_tuning_field_or_a_floor_outside_0_1_is_refused() {
        assert!(serde_json::from_str::<SleepTuning>(r#"{"near_dup_floor": 0.7}"#).is_err());
        let t: SleepTuning = serde_json::from_str(r#"{"near_dup_jaccard_floor": 1.5}"#).unwrap();
        assert!(
            t.validate()
                .unwrap_err()
                .to_string()
                .contains("near_dup_jaccard_floor")
        );
    }

    #[test]
    fn component_and_context_relations_are_disjoint() {
        for r in CONTEXT_RELATIONS {
            assert!(!COMPONENT_RELATIONS.contains(&r), "{r}");
        }
    }
}
