//! Sleep: the night's faculty — the structural report, dreams and their
//! resolution, the tending sub-phase (consolidation, the wake-cue dedup), the
//! maintenance reports and cadence, and `sleep_pass`, one night in the
//! spec's canonical order `resolution → maintenance → world_models → dream`.
//!
//! Sleep proposes, waking evidence disposes: no pass of this faculty writes a
//! load-bearing edge or deposits activation.
//!
//! Spec: api.md "Consolidation (sleep and dreams)", "Maintenance, health, and
//! operator tools"; memory-system.md "Sleep" and "Dreams".

pub mod args;
pub mod cadence;
pub mod consolidation;
pub mod dedup;
pub mod dream;
pub mod dreams;
pub(crate) mod due_cursor;
pub mod maintenance;
pub mod night;
pub mod resolution;
pub mod signals;
pub mod structural;
pub mod tuning;

pub use args::{
    LastMaintenanceSeq, MaintenanceDue, MaintenanceReport, RecordsSinceMaintenance,
    StructuralReport,
};
pub use cadence::{
    BoundarySource, Cadence, Fragmented, NIGHT_TASK_KINDS, SinceMaintenance, last_maintenance_seq,
    maintenance_due,
};
pub use consolidation::{
    ConsolidationPass, ConsolidationResult, CreatedCandidate, SkippedProposal,
};
pub use dedup::{DEDUP_SOURCE, DedupCluster, WakeCueDedup, WakeCueDedupResult};
pub use dream::{BridgeProposal, DreamPass, DreamResult, FacetQuestion, MACHINE_AUTHORED_METHODS};
pub use dreams::{UnresolvedDreams, unresolved_dreams};
pub use maintenance::{
    CONSOLIDATION_PROTECTED_KINDS, ConsolidationProposal, Maintenance, TendingScan,
    maintenance_report, tending_scan,
};
pub use night::{
    CANCELLED_AT_START, NIGHT_PHASES, NightHooks, Phase, PhaseSink, SleepPass, SleepResult,
    WORLD_MODELS_AS_OF,
};
pub use resolution::{ResolveDreams, ResolveDreamsResult, ResolvedDream, StandingDream};
pub use signals::{Felt, NightPhases, Signal, SignalKind};
pub use structural::{Atom, StructuralCounts, StructuralRecord, Structure, structural_report};
pub use tuning::{
    COMPONENT_RELATIONS, CONTEXT_RELATIONS, NEAR_DUP_JACCARD_FLOOR, NEAR_DUP_SCAN_LIMIT,
    NEAR_DUP_VECTOR_FLOOR, SleepTuning,
};
