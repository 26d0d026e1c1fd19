//! Reach: what the entity reaches for on purpose. `probe` (one deliberate
//! reach with a stated reason, ranked by relevance alone, exempt from the
//! shelf race), `probe_expand` (a bounded walk over record edges from chosen
//! records) and `familiarity` (how much is held near a topic, never what).
//!
//! Spec: api.md "Deliberate reach: probe, expansion, familiarity" and the
//! constants `PROBE_EFFORTS`, `FAMILIARITY_*`.
//!
//! How it works. Reach reads through recall's own machinery: the recall
//! index as a read-only view with the exclusion folds at the anchor
//! (`recall::reconstruct::view`), and recall's channels (exact, vector,
//! keyword, participants). `pass.rs` is the one channel pass `probe` ranks
//! and `familiarity` counts; concept anchoring (core `concepts.rs`) adds
//! associative admissions to a probe. Nothing here strengthens: a probe's
//! journal writes are its trace and inert `listed` events (an expansion's,
//! `expanded`), appended in one write; `familiarity` writes nothing.

pub mod args;
mod expand;
mod pass;
pub mod probe;

pub use args::{
    EffortName, FAMILIARITY_MAX_FEELINGS, FAMILIARITY_MIN_KEYWORD_TOKENS,
    FAMILIARITY_STRONG_THRESHOLD, FAMILIARITY_VECTOR_MIN, Familiarity, PROBE_EFFORTS, Probe,
    ProbeBudget, ProbeEffort, ProbeExpand,
};
pub use probe::{FamiliarFeeling, FamiliarityReport, ProbeHit, ProbeResult, Strength};
