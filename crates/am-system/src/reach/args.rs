//! The arguments of reach's verbs (`probe`, `probe_expand`, `familiarity`),
//! the effort presets and [`ProbeBudget`].
//!
//! Spec: api.md "Deliberate reach: probe, expansion, familiarity" and the
//! constants `PROBE_EFFORTS`, `FAMILIARITY_*`. The spec names the presets and
//! the budget's fields but gives no numbers: 0.3.2's `probe.py` settles them.

use crate::concepts::ConceptAnchorTuning;
use crate::seam::Stimulus;
use serde::{Deserialize, Serialize};

/// The bounds of one deliberate reach (api.md `ProbeBudget`). Every bound is
/// hard; the efforts are presets of it, never a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ProbeBudget {
    /// Rows each channel may fetch per scope pair (and the newest window
    /// the keyword and participants scans read).
    pub max_candidates: usize,
    /// Ranked hits returned.
    pub max_hits: usize,
    /// Digest tokens across the returned hits (the first hit always fits).
    pub token_budget: usize,
    /// Run concept anchoring from the direct matches.
    pub concept_expansion: bool,
    /// Concept anchoring's tunables.
    pub concept_tuning: ConceptAnchorTuning,
    /// The keyword channel also searches the home's keyword index.
    pub keyword_discovery: bool,
    /// `probe_expand`'s depth when the caller sizes it by this budget.
    pub expand_depth: usize,
    /// `probe_expand`'s record bound, likewise.
    pub expand_max_records: usize,
    /// `probe_expand`'s token bound, likewise.
    pub expand_token_budget: usize,
}

impl ProbeBudget {
    /// The `standard` effort.
    pub const STANDARD: ProbeBudget = ProbeBudget {
        max_candidates: 128,
        max_hits: 12,
        token_budget: 2400,
        concept_expansion: true,
        concept_tuning: ConceptAnchorTuning::DEFAULT,
        keyword_discovery: true,
        expand_depth: 1,
        expand_max_records: 12,
        expand_token_budget: 1600,
    };
    /// The `quick` effort: a narrower window, fewer hits, no concept pass.
    pub const QUICK: ProbeBudget = ProbeBudget {
        max_candidates: 48,
        max_hits: 6,
        token_budget: 1200,
        concept_expansion: false,
        expand_max_records: 6,
        expand_token_budget: 800,
        ..ProbeBudget::STANDARD
    };
    /// The `deep` effort: a wider window, more hits, a two-level expansion.
    pub const DEEP: ProbeBudget = ProbeBudget {
        max_candidates: 256,
        max_hits: 20,
        token_budget: 4000,
        expand_depth: 2,
        expand_max_records: 24,
        expand_token_budget: 3200,
        ..ProbeBudget::STANDARD
    };
}

impl Default for ProbeBudget {
    fn default() -> Self {
        ProbeBudget::STANDARD
    }
}

am_triples::vocabulary! {
    /// The named effort presets of [`PROBE_EFFORTS`].
    pub enum EffortName("probe effort") {
        /// A cheap reach.
        Quick = "quick",
        /// The default reach.
        Standard = "standard",
        /// A wide reach.
        Deep = "deep",
    }
}

/// The effort presets (api.md `PROBE_EFFORTS`): `quick`, `standard`, `deep`.
pub const PROBE_EFFORTS: [(EffortName, ProbeBudget); 3] = [
    (EffortName::Quick, ProbeBudget::QUICK),
    (EffortName::Standard, ProbeBudget::STANDARD),
    (EffortName::Deep, ProbeBudget::DEEP),
];

/// How much effort a reach spends: a preset's name or a budget of the
/// caller's own (JSON: `"deep"` or a `ProbeBudget` object).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ProbeEffort {
    /// One of [`PROBE_EFFORTS`].
    Preset(EffortName),
    /// A custom budget (reported as effort `custom`).
    Custom(ProbeBudget),
}

impl ProbeEffort {
    /// The budget this effort spends.
    pub fn budget(&self) -> ProbeBudget {
        match self {
            ProbeEffort::Preset(name) => PROBE_EFFORTS
                .iter()
                .find(|(n, _)| n == name)
                .map_or(ProbeBudget::STANDARD, |(_, b)| *b),
            ProbeEffort::Custom(b) => *b,
        }
    }

    /// The name `budget_spent.effort` reports: the preset's, else `custom`.
    pub fn label(&self) -> &'static str {
        match self {
            ProbeEffort::Preset(name) => name.as_str(),
            ProbeEffort::Custom(_) => "custom",
        }
    }
}

fn yes() -> bool {
    true
}

fn standard() -> ProbeEffort {
    ProbeEffort::Preset(EffortName::Standard)
}

fn quick() -> ProbeEffort {
    ProbeEffort::Preset(EffortName::Quick)
}

fn owned_pairs(scopes: &[(&str, &str)]) -> Vec<(String, String)> {
    scopes
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}

/// The arguments of [`crate::MemorySystem::probe`]: `probe(stimulus, *,
/// scopes, reason, effort="standard", write_journal=True, trace_id=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    /// The cue (its `as_of` anchors the folds and the trace).
    pub stimulus: Stimulus,
    /// `(scope, owner_id)` pairs, narrow → broad (an empty owner matches any).
    #[serde(default)]
    pub scopes: Vec<(String, String)>,
    /// Why this reach is made: required, never blank (it is the trace's
    /// escalation reason; broad scopes need no other).
    pub reason: String,
    /// A preset's name or a custom budget (default `standard`).
    #[serde(default = "standard")]
    pub effort: ProbeEffort,
    /// Append the trace and the inert `listed` events (default true); with
    /// false nothing is written.
    #[serde(default = "yes", alias = "journal")]
    pub write_journal: bool,
    /// A supplied trace identity makes a journaled reach replay-safe.
    #[serde(default)]
    pub trace_id: Option<String>,
}

impl Probe {
    /// A journaled `standard` reach for `stimulus` over `scopes`, for `reason`.
    pub fn new(stimulus: Stimulus, scopes: &[(&str, &str)], reason: &str) -> Self {
        Probe {
            stimulus,
            scopes: owned_pairs(scopes),
            reason: reason.to_owned(),
            effort: standard(),
            write_journal: true,
            trace_id: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::probe_expand`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbeExpand {
    /// The roots: row ids or graph ids (each must resolve to a record).
    pub record_ids: Vec<String>,
    /// Why the expansion is made: required, never blank.
    pub reason: String,
    /// Levels of the walk (at least 1; default 1).
    #[serde(default = "one")]
    pub depth: usize,
    /// Hits returned (default 12).
    #[serde(default = "twelve")]
    pub max_records: usize,
    /// Digest tokens across the hits (default 1600; the first hit always fits).
    #[serde(default = "sixteen_hundred")]
    pub token_budget: usize,
    /// The pairs a reached record must live in; empty (the default): the
    /// roots' own pairs.
    #[serde(default)]
    pub scopes: Vec<(String, String)>,
    /// The probe this expansion follows (recorded on its trace).
    #[serde(default)]
    pub parent_trace_id: Option<String>,
    /// Append the trace and the inert `expanded` events (default true).
    #[serde(default = "yes", alias = "journal")]
    pub write_journal: bool,
    /// A supplied trace identity makes a journaled expansion replay-safe.
    #[serde(default)]
    pub trace_id: Option<String>,
    /// Edges read per node and direction (default 64; at least 1).
    #[serde(default = "sixty_four")]
    pub edge_limit_per_node: usize,
}

fn one() -> usize {
    1
}
fn twelve() -> usize {
    12
}
fn sixteen_hundred() -> usize {
    1600
}
fn sixty_four() -> usize {
    64
}

impl ProbeExpand {
    /// A journaled one-level expansion from `record_ids`, for `reason`.
    pub fn new(record_ids: &[&str], reason: &str) -> Self {
        ProbeExpand {
            record_ids: record_ids.iter().map(|r| (*r).to_owned()).collect(),
            reason: reason.to_owned(),
            depth: 1,
            max_records: 12,
            token_budget: 1600,
            scopes: Vec::new(),
            parent_trace_id: None,
            write_journal: true,
            trace_id: None,
            edge_limit_per_node: 64,
        }
    }
}

/// Above this many counted records familiarity reads `strong` (0.3.2's
/// value; the spec names the constant only).
pub const FAMILIARITY_STRONG_THRESHOLD: usize = 3;
/// A vector match counts toward density only at or above this raw cosine.
pub const FAMILIARITY_VECTOR_MIN: f64 = 0.55;
/// A keyword match counts toward density only with this many matched
/// tokens (one suffices when keywords are the only channel, or the vector
/// channel agrees).
pub const FAMILIARITY_MIN_KEYWORD_TOKENS: usize = 2;
/// At most this many feelings in familiarity's summary.
pub const FAMILIARITY_MAX_FEELINGS: usize = 8;

fn strong_threshold() -> usize {
    FAMILIARITY_STRONG_THRESHOLD
}
fn max_feelings() -> usize {
    FAMILIARITY_MAX_FEELINGS
}
fn vector_min() -> f64 {
    FAMILIARITY_VECTOR_MIN
}
fn min_keyword_tokens() -> usize {
    FAMILIARITY_MIN_KEYWORD_TOKENS
}

/// The arguments of [`crate::MemorySystem::familiarity`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Familiarity {
    /// The cue.
    pub stimulus: Stimulus,
    /// `(scope, owner_id)` pairs (an empty owner matches any).
    #[serde(default)]
    pub scopes: Vec<(String, String)>,
    /// Sizes the candidate window only (default `quick`).
    #[serde(default = "quick")]
    pub effort: ProbeEffort,
    /// `none` at 0 counted records, `weak` up to this many, `strong` above
    /// (at least 1).
    #[serde(default = "strong_threshold")]
    pub strong_threshold: usize,
    /// At most this many feelings in the summary.
    #[serde(default = "max_feelings")]
    pub max_feelings: usize,
    /// The raw cosine a vector match needs to count.
    #[serde(default = "vector_min")]
    pub vector_min: f64,
    /// The matched tokens a keyword match needs to count.
    #[serde(default = "min_keyword_tokens")]
    pub min_keyword_tokens: usize,
}

impl Familiarity {
    /// A `quick` density read of `stimulus` over `scopes`.
    pub fn new(stimulus: Stimulus, scopes: &[(&str, &str)]) -> Self {
        Familiarity {
            stimulus,
            scopes: owned_pairs(scopes),
            effort: quick(),
            strong_threshold: FAMILIARITY_STRONG_THRESHOLD,
            max_feelings: FAMILIARITY_MAX_FEELINGS,
            vector_min: FAMILIARITY_VECTOR_MIN,
            min_keyword_tokens: FAMILIARITY_MIN_KEYWORD_TOKENS,
        }
    }
}
