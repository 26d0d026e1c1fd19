//! The activation gate and the queue's declared constants.
//!
//! Spec: api.md "The memory task queue" (the gate's constants of
//! `activation_gate.py`, `FORMATION_PRIORITY`, `COMMUNITY_PRIORITY`,
//! `pending_priority`), "Ripple" (`CHANGE_MAGNITUDE`, `RELATION_WEIGHTS`).

use crate::kinds::RecordKind;
use am_journal::TaskKind;
use serde::{Deserialize, Serialize};

/// The gate's steepness: `activation = 1 / (1 + e^-K(sensitivity·strength − THETA))`.
pub const GATE_K: f64 = 6.0;
/// The gate's midpoint.
pub const GATE_THETA: f64 = 0.5;
/// A task is a candidate at or above this activation.
pub const GATE_FLOOR: f64 = 0.1;
/// A ripple's impact decay per hop.
pub const DECAY: f64 = 0.5;
/// A ripple's reach in hops.
pub const MAX_HOPS: u32 = 2;
/// Reconsiderations per ripple.
pub const RIPPLE_BUDGET: usize = 20;
/// `ripple.reconsider` tasks one window selects at most.
pub const RIPPLE_WINDOW_CAP: usize = 20;
/// A reader's reported change and its magnitude.
pub const CHANGE_MAGNITUDE: [(&str, f64); 4] = [
    ("unchanged", 0.0),
    ("refined", 0.25),
    ("revised", 0.6),
    ("overturned", 1.0),
];
/// How much a memory relies on a source, by the edge's relation.
pub const RELATION_WEIGHTS: [(&str, f64); 10] = [
    ("summarizes", 1.0),
    ("derived_from", 1.0),
    ("refines", 1.0),
    ("answers", 0.75),
    ("supports", 0.75),
    ("part_of", 0.75),
    ("continues", 0.5),
    ("from_session", 0.5),
    ("reflected_in", 0.5),
    ("mentions", 0.25),
];

/// The priority of a pending record's authoring task (ahead of every
/// rewrite; lower runs first).
pub const FORMATION_PRIORITY: i64 = 5;
/// The priority of a topic's (record kind `community`) authoring task, ahead
/// of every other pending record.
pub const COMMUNITY_PRIORITY: i64 = 3;
/// The priority of a task queued without one that is not a formation task
/// (ours: the spec names none; the backfill's default is 90).
pub const DEFAULT_PRIORITY: i64 = 50;
/// The cost of a task whose kind has no completed task with measured
/// `seconds` and for which no `cost_of` was given (ours: the spec names the
/// constant, not its value).
pub const DEFAULT_TASK_SECONDS: f64 = 30.0;
/// How many of a kind's most recent completed tasks its median cost reads.
pub const RECENT_COST_SAMPLES: usize = 20;
/// The task kinds a pending field owes (`PENDING_TASK_KINDS`).
pub const PENDING_TASK_KINDS: [TaskKind; 2] = [TaskKind::TitleAuthor, TaskKind::DigestAuthor];

/// The priority of a pending record of `record_kind`'s authoring task
/// (`pending_priority`): [`COMMUNITY_PRIORITY`] for a topic, else
/// [`FORMATION_PRIORITY`].
pub fn pending_priority(record_kind: &str) -> i64 {
    if matches!(
        RecordKind::parse_folded(record_kind),
        Ok(RecordKind::Community)
    ) {
        COMMUNITY_PRIORITY
    } else {
        FORMATION_PRIORITY
    }
}

/// `1 / (1 + e^-6(sensitivity·strength − 0.5))` (ADR 0001 decision 7).
pub fn activation(strength: f64, sensitivity: f64) -> f64 {
    1.0 / (1.0 + (-GATE_K * (sensitivity * strength - GATE_THETA)).exp())
}

/// The gate a selection used (`gate` of `select_for_window`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Gate {
    /// [`GATE_K`].
    pub k: f64,
    /// [`GATE_THETA`].
    pub theta: f64,
    /// [`GATE_FLOOR`].
    pub floor: f64,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            k: GATE_K,
            theta: GATE_THETA,
            floor: GATE_FLOOR,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_is_the_logistic_of_sensitivity_times_strength() {
        assert!((activation(0.5, 1.0) - 0.5).abs() < 1e-12);
        assert!((activation(1.0, 1.0) - 1.0 / (1.0 + (-3.0f64).exp())).abs() < 1e-12);
        // Strength 0 sits just under the floor (0.047), strength 0.2 just above.
        assert!(activation(0.0, 1.0) < GATE_FLOOR);
        assert!(activation(0.2, 1.0) >= GATE_FLOOR);
        // Sensitivity moves the gate.
        assert!(activation(0.5, 2.0) > activation(0.5, 1.0));
    }

    #[test]
    fn a_topic_is_authored_ahead_of_every_other_pending_record() {
        assert_eq!(pending_priority("community"), COMMUNITY_PRIORITY);
        assert_eq!(pending_priority("episode"), FORMATION_PRIORITY);
        const { assert!(COMMUNITY_PRIORITY < FORMATION_PRIORITY) };
    }
}
