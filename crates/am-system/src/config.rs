//! The declared tunables of layer 2: [`AttentionConfig`] (the activation fold),
//! [`SpreadParams`] (the spreading walk), [`ReconstructConfig`] (kind policy and
//! admission knobs), [`RecallBudget`] (hard bounds of one reconstruction), the
//! entity-session profile [`entity_recall_budget`] and the seam constants.
//!
//! Constructing any of them with defaults changes nothing: the defaults are the
//! spec's behaviour. Spec: api.md "Committing use, deliberate acts, inspection"
//! (`AttentionConfig`), "Seam types" (`RecallBudget`, constants), "Reconstruction"
//! (`SpreadParams`); algorithms.md §5–7.

use crate::error::{Error, Result};
use crate::kinds;
use crate::record::DigestRow;
use am_triples::TripleAssertion;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The self component's floor for entity sessions (`SELF_FRACTION_FLOOR`).
pub const SELF_FRACTION_FLOOR: f64 = 0.05;
/// The recommended entity context window, in tokens (`ENTITY_CONTEXT_FLOOR`;
/// a recommendation, not a minimum).
pub const ENTITY_CONTEXT_FLOOR: i64 = 40_000;
/// Same value as [`ENTITY_CONTEXT_FLOOR`], the honest name.
pub const ENTITY_CONTEXT_RECOMMENDED: i64 = ENTITY_CONTEXT_FLOOR;
/// Soft upper guidance for an entity context window, in tokens; never a block.
pub const ENTITY_CONTEXT_ACCEPTABLE: i64 = 200_000;
/// The recall candidate pool bound of the entity profile.
pub const ENTITY_RECALL_CANDIDATE_CAP: i64 = 100;

/// Tunables of the activation fold (algorithms.md §5).
///
/// Event weights live on the events (written at deposit time), not here.
/// The global count never windows; only the temporal fold reads
/// `window_limit` events per (scope, owner) stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct AttentionConfig {
    /// Events read per stream by the temporal fold (the spec's 512,
    /// session-scale; 0.3.2 shipped 8192). Size to about a week of cadence
    /// for continuously active homes.
    pub window_limit: usize,
    /// `d` in `weight / (1 + d / decay_window)`, in bursts.
    pub decay_window: f64,
    /// Distance stretch for events older than the latest in-window refocus.
    pub refocus_multiplier: f64,
    /// Per-step clamp ceiling, per record and per pair.
    pub max_activation: f64,
    /// `ranking_boost = min(boost_scale · activation, max_boost)`.
    pub boost_scale: f64,
    /// Cap of the ranking boost (against a 1000-point direct hit).
    pub max_boost: f64,
    /// Inspection prior `min(ln(count + 1) · prior_scale, prior_cap)`.
    pub prior_scale: f64,
    /// Cap of the inspection prior.
    pub prior_cap: f64,
    /// Minimum |contribution| listed as a reason (at most 6 per record).
    pub reason_threshold: f64,
    /// Weight of the `selected` event an STM-only commit deposits (0 = none).
    pub stm_rehearsal_weight: f64,
}

impl Default for AttentionConfig {
    fn default() -> Self {
        AttentionConfig {
            window_limit: 512,
            decay_window: 20.0,
            refocus_multiplier: 6.0,
            max_activation: 25.0,
            boost_scale: 4.0,
            max_boost: 120.0,
            prior_scale: 0.05,
            prior_cap: 1.0,
            reason_threshold: 0.5,
            stm_rehearsal_weight: 0.0,
        }
    }
}

impl AttentionConfig {
    /// `min(boost_scale · base_level, max_boost)`: the additive ranking
    /// influence of activation (reorders, never admits).
    pub fn ranking_boost(&self, base_level: f64) -> f64 {
        (self.boost_scale * base_level).min(self.max_boost)
    }
}

/// Walk-shape knobs of spreading activation (algorithms.md §6). The
/// [`RecallBudget`]'s `max_hops`/`max_edges` override the ones here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct SpreadParams {
    /// Hops from a channel match.
    pub max_hops: usize,
    /// Neighbours accepted per node per hop.
    pub fan_out_cap: usize,
    /// Per-hop multiplier.
    pub damping: f64,
    /// Total accepted-edge budget of one walk.
    pub max_edges: usize,
    /// Contributions below this do not propagate.
    pub min_contribution: f64,
    /// A pair trail at `trail_divisor` doubles its edge's contribution
    /// (`1 + trail / trail_divisor`); tracks `AttentionConfig::max_activation`.
    pub trail_divisor: f64,
    /// Predicate → multiplier; a missing predicate is 1.0.
    pub edge_kind_weights: BTreeMap<String, f64>,
}

impl Default for SpreadParams {
    fn default() -> Self {
        SpreadParams {
            max_hops: 2,
            fan_out_cap: 12,
            damping: 0.5,
            max_edges: 100,
            min_contribution: 0.05,
            trail_divisor: 25.0,
            edge_kind_weights: BTreeMap::new(),
        }
    }
}

/// Kind policy and admission knobs of reconstruction (0.3.2's
/// `records.ReconstructConfig`; the spec: "kind policy and admission knobs").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ReconstructConfig {
    /// Kind of a row without `attributes.record_kind`.
    pub default_kind: String,
    /// Kind → rank (lower orders earlier); defaults to [`kinds::KIND_RANKS`].
    pub kind_rank: BTreeMap<String, i64>,
    /// Rank of a kind missing from `kind_rank`.
    pub default_kind_rank: i64,
    /// Absolute vector floor: cosines below it are clipped before scaling.
    pub vector_floor: f64,
    /// Relative floor margin: effective floor = max(floor, median + margin).
    pub vector_margin: f64,
    /// Confidence span: scale = clamp((cos_max − floor_eff) / span, 0, 1).
    pub confidence_span: f64,
    /// STM eligibility bar when `RecallBudget::stm_floor` is `None`.
    pub stm_floor: f64,
    /// Edge-free associative expansion from channel matches (off by default):
    /// records sharing a discriminative concept with a channel-matched
    /// candidate join as `concept` admissions ([`crate::concepts`]).
    pub concept_expansion: bool,
    /// The tunables of that expansion (0.3.2's `concept_tuning`; `None`
    /// there means these defaults).
    pub concept_tuning: crate::concepts::ConceptAnchorTuning,
    /// A current world-model card whose target is mentioned admits as a direct hit.
    pub orientation_admission: bool,
    /// Newest-window scan bound of orientation admission.
    pub orientation_scan_limit: usize,
    /// Admission cap of orientation cards.
    pub orientation_max_cards: usize,
    /// Seats guaranteed to the newest-formed channel matches (0 = off).
    pub newest_seat_guarantee: usize,
    /// Byte-identical digests take one shelf seat (`duplicate_digest` drops).
    pub shelf_dedup_identical_digests: bool,
    /// The keyword channel also searches the store's keyword index.
    pub keyword_discovery: bool,
    /// The hybrid retrieval profile's knobs ([`ReconstructConfig::hybrid`]);
    /// `None` (the spec's default) runs the spec's channels and fusion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<HybridConfig>,
}

impl Default for ReconstructConfig {
    fn default() -> Self {
        ReconstructConfig {
            default_kind: kinds::DEFAULT_KIND.to_owned(),
            kind_rank: kinds::KIND_RANKS
                .iter()
                .map(|(k, r)| ((*k).to_owned(), *r))
                .collect(),
            default_kind_rank: kinds::DEFAULT_KIND_RANK,
            vector_floor: 0.05,
            vector_margin: 0.08,
            confidence_span: 0.25,
            stm_floor: 1.0,
            concept_expansion: false,
            concept_tuning: crate::concepts::ConceptAnchorTuning::default(),
            orientation_admission: true,
            orientation_scan_limit: 400,
            orientation_max_cards: 3,
            newest_seat_guarantee: 0,
            shelf_dedup_identical_digests: true,
            keyword_discovery: false,
            hybrid: None,
        }
    }
}

impl ReconstructConfig {
    /// The hybrid retrieval profile: the spec's default with [`HybridConfig`]'s
    /// candidate gathering and fusion (see `docs/retrieval.md` for what each
    /// ingredient measures on the LoCoMo dev split). Everything the spec
    /// states about reconstruction still holds: reads are pure, relevance
    /// admits and activation only reorders, `as_of` reproduces, degraded
    /// paths are labelled `#FALLBACK`.
    pub fn hybrid() -> Self {
        ReconstructConfig {
            hybrid: Some(HybridConfig::default()),
            ..ReconstructConfig::default()
        }
    }

    /// The kind of a row: `attributes.record_kind` (trimmed, lowercased) or
    /// `default_kind`.
    pub fn kind_of(&self, assertion: &TripleAssertion) -> String {
        match DigestRow::of(assertion).kind_text() {
            Some(k) => k.to_lowercase(),
            None => self.default_kind.clone(),
        }
    }

    /// The rank of `kind` in `kind_rank`, or `default_kind_rank`.
    pub fn rank_of(&self, kind: &str) -> i64 {
        self.kind_rank
            .get(kind)
            .copied()
            .unwrap_or(self.default_kind_rank)
    }
}

/// A retrieval profile a recall can name for itself (this port's extension:
/// `Reconstruct::profile`, `am exec`'s `"profile"`): the spec's channels and
/// fusion, or the hybrid profile's ([`ReconstructConfig::hybrid`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecallProfile {
    /// The spec's default: its channels and fusion.
    Spec,
    /// The hybrid profile: [`HybridConfig`]'s candidate gathering and fusion.
    Hybrid,
}

impl ReconstructConfig {
    /// The same config running `profile`: the spec's (no hybrid knobs) or the
    /// hybrid one (these knobs when set, else [`HybridConfig::default`]).
    #[must_use]
    pub fn with_profile(mut self, profile: RecallProfile) -> Self {
        match profile {
            RecallProfile::Spec => self.hybrid = None,
            RecallProfile::Hybrid => {
                if self.hybrid.is_none() {
                    self.hybrid = Some(HybridConfig::default());
                }
            }
        }
        self
    }
}

/// How the hybrid profile fuses its ranked channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fusion {
    /// Reciprocal rank: `Σ weight / (rrf_k + rank)` over the keyword and
    /// vector rankings (rank 1 = best).
    Rrf,
    /// Weighted sum of the per-cue normalized scores (BM25 / max BM25;
    /// cosine min-max over the vector top-k).
    WeightedSum,
}

/// The knobs of the hybrid retrieval profile ([`ReconstructConfig::hybrid`]):
/// how candidates are gathered from the indexes and how the channel scores
/// are computed and fused. The defaults are the measured best on the LoCoMo
/// dev split (`docs/retrieval.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HybridConfig {
    /// Newest rows of each searched pair gathered as candidates (at most
    /// `RecallBudget::max_candidates`).
    pub newest_window: usize,
    /// Rows taken from the keyword index (BM25 best first) per searched pair.
    pub keyword_top_k: usize,
    /// Rows taken from the vector ranking (cosine best first) per searched pair.
    pub vector_top_k: usize,
    /// Shortest cue token searched (the spec default's token scan keeps 4).
    pub min_token_len: usize,
    /// Drop English function words from the cue before the keyword search
    /// (query side only; a cue of nothing but stopwords searches them all).
    pub stopwords: bool,
    /// The fusion rule.
    pub fusion: Fusion,
    /// `k` of reciprocal-rank fusion.
    pub rrf_k: f64,
    /// Weight of the keyword channel in the fusion.
    pub keyword_weight: f64,
    /// Weight of the vector channel in the fusion.
    pub vector_weight: f64,
    /// Share of a strong match's fused score given to its conversational
    /// neighbours (0 = off).
    pub neighbour_weight: f64,
    /// The best-fused matches whose neighbours are boosted.
    pub neighbour_seeds: usize,
    /// Records formed within this many seconds of each other, adjacent in the
    /// pair's formation order, are neighbours.
    pub neighbour_gap_s: f64,
}

impl Default for HybridConfig {
    fn default() -> Self {
        HybridConfig {
            newest_window: 16,
            keyword_top_k: 64,
            vector_top_k: 64,
            min_token_len: 1,
            stopwords: true,
            fusion: Fusion::WeightedSum,
            rrf_k: 20.0,
            keyword_weight: 1.0,
            vector_weight: 0.5,
            neighbour_weight: 0.5,
            neighbour_seeds: 5,
            neighbour_gap_s: 900.0,
        }
    }
}

/// Hard bounds for one reconstruction (api.md "Seam types").
///
/// `stm_fraction` caps the short-term component (0 disables it); `stm_floor`
/// is its eligibility bar (`None` → [`ReconstructConfig::stm_floor`]);
/// `self_fraction` caps identity's reserved seats (0.0..=0.9). `max_hops` /
/// `max_edges` override [`SpreadParams`]. `min_activation` filters
/// working-set membership only. `deadline_s` is accepted, not enforced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RecallBudget {
    /// Candidate pool bound.
    pub max_candidates: usize,
    /// Shelf seats.
    pub shelf_size: usize,
    /// Token budget (token estimates of handle digests).
    pub token_budget: usize,
    /// Anchor cues considered.
    pub max_anchor_cues: usize,
    /// Spreading hops.
    pub max_hops: usize,
    /// Spreading edge budget.
    pub max_edges: usize,
    /// Working-set membership filter on base + spread.
    pub min_activation: Option<f64>,
    /// Accepted for signature stability; not enforced by the pure pipeline.
    pub deadline_s: Option<f64>,
    /// STM share of seats and tokens.
    pub stm_fraction: f64,
    /// STM eligibility bar on base activation.
    pub stm_floor: Option<f64>,
    /// Identity's reserved share, 0.0..=0.9.
    pub self_fraction: f64,
}

impl Default for RecallBudget {
    fn default() -> Self {
        RecallBudget {
            max_candidates: 64,
            shelf_size: 12,
            token_budget: 2400,
            max_anchor_cues: 4,
            max_hops: 2,
            max_edges: 100,
            min_activation: None,
            deadline_s: None,
            stm_fraction: 0.25,
            stm_floor: None,
            self_fraction: 0.0,
        }
    }
}

impl RecallBudget {
    /// Check the budget's own arithmetic (`self_fraction` within 0.0..=0.9,
    /// `stm_fraction` within 0.0..=1.0, finite floats).
    ///
    /// # Errors
    /// `InvalidInput` naming the field, the allowed range and the value.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=0.9).contains(&self.self_fraction) {
            return Err(Error::invalid(format!(
                "RecallBudget.self_fraction must be within 0.0..0.9, got {} (the self component may never consume the whole budget)",
                self.self_fraction
            )));
        }
        if !(0.0..=1.0).contains(&self.stm_fraction) {
            return Err(Error::invalid(format!(
                "RecallBudget.stm_fraction must be within 0.0..1.0, got {}",
                self.stm_fraction
            )));
        }
        for (name, v) in [
            ("min_activation", self.min_activation),
            ("deadline_s", self.deadline_s),
            ("stm_floor", self.stm_floor),
        ] {
            if let Some(x) = v
                && !x.is_finite()
            {
                return Err(Error::invalid(format!(
                    "RecallBudget.{name} must be finite when set, got {x}"
                )));
            }
        }
        Ok(())
    }

    /// The JSON object form (every field, nulls included), as Python's `to_dict()`.
    pub fn to_dict(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// The entity-session budget profile (`entity_recall_budget`).
///
/// `token_budget = max(2400, round(token_fraction × context_window))` with
/// Python's round-half-even and no upper cap; `max_candidates = max(shelf,
/// min(100, max(64, 8 × shelf)))`; everything else at the defaults
/// (`self_fraction` stays 0: the host's posture sets it).
///
/// # Errors
/// `InvalidInput` for `context_window < 1`, `shelf_size < 1`, or a
/// `token_fraction` outside `(0, 0.5]`.
///
/// # Examples
/// ```
/// let b = am_system::config::entity_recall_budget(40_000, 12, 0.12).unwrap();
/// assert_eq!((b.token_budget, b.max_candidates, b.shelf_size), (4800, 96, 12));
/// ```
pub fn entity_recall_budget(
    context_window: i64,
    shelf_size: i64,
    token_fraction: f64,
) -> Result<RecallBudget> {
    if context_window < 1 {
        return Err(Error::invalid(format!(
            "context_window must be >= 1, got {context_window} (a session cannot run on a non-positive context)"
        )));
    }
    if shelf_size < 1 {
        return Err(Error::invalid(format!(
            "shelf_size must be >= 1, got {shelf_size}"
        )));
    }
    if !(token_fraction > 0.0 && token_fraction <= 0.5) {
        return Err(Error::invalid(format!(
            "token_fraction must be within (0, 0.5], got {token_fraction} (a recall payload beyond half the context starves generation)"
        )));
    }
    let tokens = ((token_fraction * context_window as f64).round_ties_even() as i64).max(2400);
    let pool = shelf_size.max(ENTITY_RECALL_CANDIDATE_CAP.min(64.max(shelf_size * 8)));
    Ok(RecallBudget {
        token_budget: tokens as usize,
        shelf_size: shelf_size as usize,
        max_candidates: pool as usize,
        ..RecallBudget::default()
    })
}

// -- valence (api.md "Valence and gradation") ---------------------------------

/// The actors trusted with amplitudes above `AMPLITUDE_TRIGGER_MAX` and with
/// the deliberate resolutions (`heal_scar`, `break_bond`), by default.
pub const PRIVILEGED_ACTORS: [&str; 2] = ["entity-reflection", "operator"];

/// The fold's tunables (`GradationConfig(channel_clamp=100.0,
/// break_magnitude=8.0)`); retunable at any time, since the journal keeps raw
/// events and never a derived standing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GradationConfig {
    /// Each channel (G⁺, G⁻) accumulates within `0..=channel_clamp`.
    pub channel_clamp: f64,
    /// A scar of at least this magnitude, later than a bond, breaks it.
    pub break_magnitude: f64,
    /// Actors (compared lowercased) trusted with large amplitudes and with
    /// the deliberate resolutions.
    pub privileged_actors: BTreeSet<String>,
}

impl Default for GradationConfig {
    fn default() -> Self {
        GradationConfig {
            channel_clamp: 100.0,
            break_magnitude: 8.0,
            privileged_actors: PRIVILEGED_ACTORS.iter().map(|a| (*a).to_owned()).collect(),
        }
    }
}

impl GradationConfig {
    /// Refuse a clamp or break magnitude that is not a positive number.
    ///
    /// # Errors
    /// `InvalidInput` naming the field and the value.
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("channel_clamp", self.channel_clamp),
            ("break_magnitude", self.break_magnitude),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::invalid(format!(
                    "GradationConfig.{name} must be a positive number, got {v}"
                )));
            }
        }
        Ok(())
    }

    /// Whether `actor` (trimmed, lowercased) is privileged.
    pub fn is_privileged(&self, actor: &str) -> bool {
        self.privileged_actors
            .contains(actor.trim().to_lowercase().as_str())
    }
}

// -- sleep (api.md "Vocabularies and tuning constants": `SleepTuning`) -------
//
// The spec names only `near_dup_jaccard_floor`'s value (0.65; memory-system.md
// "Sleep" gives 0.65 / 0.90 / at least two shared facets): the other fields
// and their defaults are AbstractMemory 0.3.2's (`sleep_policy.SleepTuning`),
// kept field for field so a tuning object written for the Python library
// reads here unchanged.

/// How many of the newest records one window's near-duplicate scan compares
/// pairwise (a declared bound on an O(n²) scan, raised for bigger windows).
pub const NEAR_DUP_SCAN_LIMIT: usize = 200;
/// Token Jaccard at or above which two records are near-duplicates.
pub const NEAR_DUP_JACCARD_FLOOR: f64 = 0.65;
/// Vector cosine at or above which two records are near-identical (far above
/// a dream bridge's relatedness: dedup claims sameness).
pub const NEAR_DUP_VECTOR_FLOOR: f64 = 0.90;

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

// -- Drives (api.md "Drives: what is alive and pressing", "Vocabularies and
// tuning constants"). The spec gives `DRIVE_PRESSURE_BOUND`; the other
// values are 0.3.2's (`drive_grouping`, `alive_drives`,
// `AttentionConfig.drive_window_limit`), which the spec leaves open.

/// The ruled bound a lifecycle gate compares `drive_pressure`'s counts
/// with. Declared only: `drive_pressure` applies no threshold itself.
pub const DRIVE_PRESSURE_BOUND: usize = 20;
/// Shared discriminative terms at which two drives group (the matching
/// lane's one similarity bar).
pub const GROUP_MIN_SHARED_TERMS: usize = 2;
/// The group size at which a cluster presses by its size alone (a dormant
/// cluster this big still surfaces in `alive_drives`).
pub const GROUP_OFFER_FLOOR: usize = 3;
/// Aliveness added per extra member of a drive group (uncapped: aliveness
/// orders one read, it is no meter).
pub const GROUP_BOOST_STEP: f64 = 0.15;
/// How many distinct newest records of the binding axis count as recent for
/// `alive_drives` (bindings are far sparser than events).
pub const DRIVE_WINDOW_LIMIT: usize = 256;
/// The bound of an alive drive's digest, in characters (a cut one ends in
/// `…` and carries `digest_truncation`).
pub const DRIVE_DIGEST_CHARS: usize = 280;

// -- communities ---------------------------------------------------------------
// The numbers of `communities_pass`'s detection and layout the spec leaves
// open (docs/communities.md says why each was chosen).

/// How many nearest neighbours each vectored record links to in the
/// detection graph (found inside its hyperplane buckets).
pub const COMMUNITY_KNN_K: usize = 6;
/// A neighbour link below this cosine is not drawn.
pub const COMMUNITY_KNN_MIN_COSINE: f64 = 0.2;
/// How many independent random-hyperplane tables bucket the vectors.
pub const COMMUNITY_LSH_TABLES: usize = 2;
/// The bucket size the number of hyperplanes aims at.
pub const COMMUNITY_BUCKET_TARGET: usize = 64;
/// A bucket larger than this is cut into runs of this size along a further
/// seeded direction (bounds the exact search inside a bucket).
pub const COMMUNITY_BUCKET_MAX: usize = 256;
/// The seed of the hyperplanes (fixed: detection is deterministic).
pub const COMMUNITY_LSH_SEED: u64 = 0x5eed_c0de_0a11_0005;
/// The Louvain resolution (modularity's γ).
pub const COMMUNITY_RESOLUTION: f64 = 1.0;
/// The most local-moving sweeps of one Louvain round.
pub const COMMUNITY_MAX_SWEEPS: usize = 16;
/// The fewest members a detected group needs to be a topic.
pub const COMMUNITY_MIN_SIZE: usize = 2;
/// The membership overlap (Jaccard) at or above which a changed topic is
/// `kept` rather than `renamed` (both keep their key).
pub const COMMUNITY_KEPT_JACCARD: f64 = 0.5;
/// The share of a previous topic's members a topic of tonight must take to
/// count as one of its pieces: a previous topic is split when two or more of
/// tonight's topics each took at least this share and together more than
/// half of its members; each such piece born tonight (`new`) names it in
/// `split_from` (docs/communities.md "Splits").
pub const COMMUNITY_SPLIT_SHARE: f64 = 0.25;
/// The most member seats a topic's layout draws.
pub const COMMUNITY_LAYOUT_SEATS: usize = 12;
/// The most sibling titles a topic's briefing names.
pub const COMMUNITY_BRIEFING_SIBLINGS: usize = 40;
/// The token budget of a briefing's member sample.
pub const COMMUNITY_BRIEFING_SAMPLE_TOKENS: usize = 1500;

// -- ripple --------------------------------------------------------------------
// The numbers of `seed_ripple`'s candidates and magnitude the spec leaves
// open (docs/ripple.md says why each was chosen).

/// How many nearest digests by vector a source reaches (exact scan over the
/// seed owner's live vectored records).
pub const RIPPLE_NEAREST_K: usize = 5;
/// The cosine at and below which a neighbour by meaning relies on the source
/// not at all (`similarity_weight` rises linearly from here to 1 at cosine 1).
pub const RIPPLE_SIMILARITY_FLOOR: f64 = 0.5;
/// How much a world-model card relies on a record its evidence holds (as a
/// `derived_from` edge).
pub const CARD_EVIDENCE_RELIANCE: f64 = 1.0;
/// The cosine distance at and above which a reading counts as fully moved:
/// `measured_change` scales the reader's magnitude by `d / this` below it.
pub const RIPPLE_MOVED_DISTANCE: f64 = 0.15;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_defaults_follow_the_spec_window_of_512() {
        let c = AttentionConfig::default();
        assert_eq!(c.window_limit, 512);
        assert_eq!(c.ranking_boost(5.0), 20.0);
        assert_eq!(c.ranking_boost(25.0), 100.0);
        assert_eq!(c.ranking_boost(40.0), 120.0);
    }

    #[test]
    fn entity_budget_rounds_half_even_floors_at_2400_and_caps_the_pool() {
        let b = entity_recall_budget(10_000, 12, 0.12).unwrap();
        assert_eq!(b.token_budget, 2400);
        assert_eq!(
            entity_recall_budget(100_100, 50, 0.12)
                .unwrap()
                .max_candidates,
            100
        );
        assert_eq!(
            entity_recall_budget(100, 150, 0.12).unwrap().max_candidates,
            150
        );
        // 0.5 * 4801 = 2400.5 -> 2400 under half-even.
        assert_eq!(
            entity_recall_budget(4801, 12, 0.5).unwrap().token_budget,
            2400
        );
        assert_eq!(
            entity_recall_budget(4803, 12, 0.5).unwrap().token_budget,
            2402
        );
    }

    #[test]
    fn entity_budget_refuses_nonsense_arithmetic() {
        for (w, s, f) in [
            (0, 12, 0.12),
            (1000, 0, 0.12),
            (1000, 12, 0.0),
            (1000, 12, 0.6),
        ] {
            let e = entity_recall_budget(w, s, f).unwrap_err();
            assert_eq!(e.kind(), am_triples::ErrorKind::InvalidInput);
        }
    }

    #[test]
    fn recall_budget_self_fraction_must_stay_within_0_and_0_9() {
        assert!(RecallBudget::default().validate().is_ok());
        let b = RecallBudget {
            self_fraction: 0.95,
            ..RecallBudget::default()
        };
        assert_eq!(
            b.validate().unwrap_err().kind(),
            am_triples::ErrorKind::InvalidInput
        );
    }

    #[test]
    fn kind_of_reads_record_kind_and_defaults_to_memory() {
        let c = ReconstructConfig::default();
        let a = TripleAssertion::new("a", "b", "c");
        assert_eq!(c.kind_of(&a), "memory");
        let mut attrs = am_triples::JsonMap::new();
        attrs.insert("record_kind".into(), " Lesson ".into());
        let a = a.with_attributes(attrs);
        assert_eq!(c.kind_of(&a), "lesson");
        assert_eq!(c.rank_of("lesson"), 0);
        assert_eq!(c.rank_of("nope"), 100);
    }
}
