//! Operator: the operator's glance reads and tools over a whole home — the
//! mind-mass report (formation cadence, journal mass, duplicate mass,
//! embedding-space integrity, review backlog, sleep recency) and the
//! mechanical-digest debt (`redigestion_candidates`).
//!
//! Every verb here but the re-embed is a pure read: it deposits nothing
//! and writes nothing. `reembed_store` (`reembed.rs`) moves the home to a
//! new embedding space in one atomic vector swap, pin last, and journals
//! the act as a bookkeeping marker.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`mind_mass_report`, `WARNING_WORDS`, `VECTOR_SCAN_LIMIT`); operator.md
//! §6b "The embedding space".

pub mod mind_mass;
pub mod redigest_apply;
pub mod redigestion;
pub mod reembed;

pub use mind_mass::{
    MassWarning, MindMass, MindMassReport, VECTOR_SCAN_LIMIT, WARNING_WORDS, WarningWord,
};
pub use redigest_apply::{
    APPLY_REDIGESTION_DEPRECATION, ApplyRedigestion, RedigestionApplied, RedigestionEntry,
    RedigestionOutcome,
};
pub use redigestion::{
    REDIGESTION_PROTECTED_KINDS, RedigestionCandidate, RedigestionCandidates, RedigestionDebt,
    content_residue,
};
pub use reembed::{ReembedStore, Reembedded};
