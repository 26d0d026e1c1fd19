//! Every sleep-lane policy number in one object, [`SleepTuning`], and the
//! relation sets the structural report reads.
//!
//! Spec: api.md "Vocabularies and tuning constants" (`SleepTuning`: "every
//! sleep-lane policy number, one frozen object"; constructing it with its
//! defaults changes nothing), "Consolidation (sleep and dreams)"
//! (`COMPONENT_RELATIONS`, `CONTEXT_RELATIONS`); memory-system.md "Sleep"
//! (0.65 / 0.90 / at least two shared facets). The spec names only
//! `near_dup_jaccard_floor`'s value: the other fields and their defaults are
//! AbstractMemory 0.3.2's (`sleep_policy.SleepTuning`), kept field for field
//! so a tuning object written for the Python library reads here unchanged.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How many of the newest records one window's near-duplicate scan compares
/// pairwise (a declared bound on an O(n²) scan, raised for bigger windows).
pub const NEAR_DUP_SCAN_LIMIT: usize = 200;
/// Token Jaccard at or above which two records are near-duplicates.
pub const NEAR_DUP_JACCARD_FLOOR: f64 = 0.65;
/// Vector cosine at or above which two records are near-identical (far above
/// a dream bridge's relatedness: dedup claims sameness).
pub const NEAR_DUP_VECTOR_FLOOR: f64 = 0.90;

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

/// Every sleep-lane policy number (api.md "Vocabularies and tuning
/// constants"). The defaults are today's behaviour; every field may be given
/// alone (`{"near_dup_jaccard_floor": 0.7}`), the rest keep their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SleepTuning {
    // -- the tending sub-phase's evidence floors
    /// Newest records one near-duplicate scan compares (`scan_limit=None`
    /// falls back to this).
    pub near_dup_scan_limit: usize,
    /// Token Jaccard floor of a near-duplicate pair (0.65).
    pub near_dup_jaccard_floor: f64,
    /// Vector cosine floor of a near-identical pair (0.90).
    pub near_dup_vector_floor: f64,
    // -- report list bounds
    /// The report's list bound.
    pub list_bound: usize,
    /// Metadata gaps list `list_bound × this` entries.
    pub metadata_gaps_factor: usize,
    /// Edge suppressions list `list_bound × this` entries.
    pub suppressions_factor: usize,
    /// The operations ledger lists `list_bound × this` entries.
    pub operations_factor: usize,
    // -- consolidation candidates
    /// The per-pass candidate cap's band, inclusive; a cap outside it is
    /// refused, never clamped.
    pub candidate_cap_band: (usize, usize),
    /// Source digests carried on a consolidation proposal.
    pub preserved_digests: usize,
    // -- link candidates
    /// Shared facets that propose a link (at least two).
    pub min_shared_facets: usize,
    /// Shared terms shown on a link candidate.
    pub shared_facets_shown: usize,
    // -- dream salience
    /// Shortest facet token, in characters.
    pub facet_min_len: usize,
    /// Salience weight of one bridge proposal.
    pub salience_proposal_weight: usize,
    /// Salience weight of one single-facet question.
    pub salience_question_weight: usize,
    /// Salience weight of one standing unresolved dream.
    pub salience_anchor_weight: usize,
    /// The night's maintenance operations add at most this much salience.
    pub salience_ops_cap: usize,
    /// Salience at or above this is labelled `high`, below it `medium`.
    pub salience_high: usize,
    // -- passive dream resolution
    /// Fraction of a dream's tensions that lived experience must settle
    /// before the dream closes softly (1.0: all of them).
    pub resolution_fraction: f64,
    /// Resolving records kept as the closure's evidence.
    pub resolution_evidence_bound: usize,
    /// A co-use trail is resolution evidence only across at least this many
    /// distinct traces.
    pub resolution_trail_min_traces: usize,
    /// A participant on more than this fraction of the scanned records is
    /// ambient and never bridges alone.
    pub person_bridge_max_fraction: f64,
    // -- world-model cards
    /// Lived records a target needs before its card forms.
    pub world_model_evidence_floor: usize,
    /// Cards formed or revised per pass.
    pub world_model_max_cards: usize,
    /// Source edges carried on a card, newest first.
    pub world_model_max_sources: usize,
    /// Recurring themes named in a card.
    pub world_model_top_facets: usize,
    /// Distinct sessions a keyword recurs across before it becomes a topic.
    pub world_model_discovery_sessions: usize,
    /// A keyword on more than this fraction of the evidence anchors nothing.
    pub world_model_discovery_max_fraction: f64,
    /// Newly discovered targets admitted per pass.
    pub world_model_discovery_max_targets: usize,
}

impl Default for SleepTuning {
    fn default() -> Self {
        SleepTuning {
            near_dup_scan_limit: NEAR_DUP_SCAN_LIMIT,
            near_dup_jaccard_floor: NEAR_DUP_JACCARD_FLOOR,
            near_dup_vector_floor: NEAR_DUP_VECTOR_FLOOR,
            list_bound: 12,
            metadata_gaps_factor: 4,
            suppressions_factor: 2,
            operations_factor: 6,
            candidate_cap_band: (1, 6),
            preserved_digests: 4,
            min_shared_facets: 2,
            shared_facets_shown: 6,
            facet_min_len: 3,
            salience_proposal_weight: 3,
            salience_question_weight: 2,
            salience_anchor_weight: 1,
            salience_ops_cap: 4,
            salience_high: 6,
            resolution_fraction: 1.0,
            resolution_evidence_bound: 8,
            resolution_trail_min_traces: 2,
            person_bridge_max_fraction: 0.5,
            world_model_evidence_floor: 3,
            world_model_max_cards: 4,
            world_model_max_sources: 8,
            world_model_top_facets: 6,
            world_model_discovery_sessions: 3,
            world_model_discovery_max_fraction: 0.25,
            world_model_discovery_max_targets: 6,
        }
    }
}

impl SleepTuning {
    /// The near-duplicate scan's bound: an explicit `scan_limit` wins, `None`
    /// falls back to [`SleepTuning::near_dup_scan_limit`].
    #[must_use]
    pub fn resolve_scan_limit(&self, scan_limit: Option<usize>) -> usize {
        scan_limit.unwrap_or(self.near_dup_scan_limit)
    }

    /// A pass's candidate cap, checked against
    /// [`SleepTuning::candidate_cap_band`]: a cap outside the band is the
    /// caller's error, never silently clamped.
    ///
    /// # Errors
    /// `InvalidInput` naming the cap and the band.
    pub fn validated_candidate_cap(&self, max_candidates: i64) -> Result<usize> {
        let (low, high) = self.candidate_cap_band;
        match usize::try_from(max_candidates) {
            Ok(cap) if (low..=high).contains(&cap) => Ok(cap),
            _ => Err(Error::invalid(format!(
                "max_candidates={max_candidates} is outside the per-pass band [{low}, {high}] \
                 (SleepTuning.candidate_cap_band): widen the band explicitly instead"
            ))),
        }
    }

    /// Refuse a floor or fraction outside `0..=1` and a zero bound.
    ///
    /// # Errors
    /// `InvalidInput` naming the field and its value.
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("near_dup_jaccard_floor", self.near_dup_jaccard_floor),
            ("near_dup_vector_floor", self.near_dup_vector_floor),
            ("resolution_fraction", self.resolution_fraction),
            (
                "person_bridge_max_fraction",
                self.person_bridge_max_fraction,
            ),
            (
                "world_model_discovery_max_fraction",
                self.world_model_discovery_max_fraction,
            ),
        ] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(Error::invalid(format!(
                    "SleepTuning.{name} must be a number in [0, 1], got {v}"
                )));
            }
        }
        let (low, high) = self.candidate_cap_band;
        if low == 0 || low > high {
            return Err(Error::invalid(format!(
                "SleepTuning.candidate_cap_band must be [low, high] with 1 <= low <= high, \
                 got [{low}, {high}]"
            )));
        }
        if self.list_bound == 0 {
            return Err(Error::invalid(
                "SleepTuning.list_bound must be at least 1, got 0".to_owned(),
            ));
        }
        Ok(())
    }
}

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
