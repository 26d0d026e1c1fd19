//! The ripple verbs' arguments and results.

use am_triples::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A reader's reported change (`CHANGE_MAGNITUDE`'s keys).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Nothing moved (0).
    Unchanged,
    /// Sharpened (0.25).
    Refined,
    /// Revised (0.6).
    #[default]
    Revised,
    /// Overturned (1.0).
    Overturned,
}

impl Change {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Unchanged => "unchanged",
            Change::Refined => "refined",
            Change::Revised => "revised",
            Change::Overturned => "overturned",
        }
    }
}

/// A gate decision (the spec's seven words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Queued for the host's reader.
    Reconsider,
    /// The logistic of its potential is under the floor.
    BelowFloor,
    /// Already reconsidered in this ripple (or the seed itself).
    Refractory,
    /// Retracted or superseded.
    Closed,
    /// The entity's own act or a consolidation record.
    Protected,
    /// Past `MAX_HOPS`.
    MaxHops,
    /// The ripple's budget is spent.
    Budget,
}

impl Decision {
    /// Its word (the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Reconsider => "reconsider",
            Decision::BelowFloor => "below_floor",
            Decision::Refractory => "refractory",
            Decision::Closed => "closed",
            Decision::Protected => "protected",
            Decision::MaxHops => "max_hops",
            Decision::Budget => "budget",
        }
    }

    /// Whether a candidate with this decision is listed in `left_out`.
    pub fn is_left_out(self) -> bool {
        matches!(
            self,
            Decision::Protected | Decision::MaxHops | Decision::Budget
        )
    }
}

/// A ripple's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RippleStatus {
    /// Reconsiderations are live.
    Open,
    /// None is live.
    Settled,
    /// Settled with two or more changes; its consolidation is queued.
    Consolidating,
    /// Its consolidation record formed.
    Consolidated,
}

impl RippleStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RippleStatus::Open => "open",
            RippleStatus::Settled => "settled",
            RippleStatus::Consolidating => "consolidating",
            RippleStatus::Consolidated => "consolidated",
        }
    }
}

fn revised() -> Change {
    Change::Revised
}

fn ripple_budget() -> usize {
    crate::tasks::RIPPLE_BUDGET
}

/// `seed_ripple(seed_id, *, cause, change="revised", magnitude=None,
/// cosine_distance=None, surprise=None, reconsider_seed=None, budget=20,
/// dry_run=False, now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeedRipple {
    /// The changed memory (graph id or digest assertion id).
    pub seed_id: String,
    /// `"evidence"` with the election and its evidence
    /// (`{"cause": "evidence", "election": ..., "evidence": [...]}`), or the
    /// cause of the rewrite (a `REWRITE_CAUSES` name or `{"cause": ...}`).
    pub cause: Value,
    /// The reader's reported change: `revised` or `overturned`.
    #[serde(default = "revised")]
    pub change: Change,
    /// The impact in [0, 1] (default: `measured_change(change, cosine_distance)`).
    #[serde(default)]
    pub magnitude: Option<f64>,
    /// The cosine distance between the old and the new reading's vectors.
    #[serde(default)]
    pub cosine_distance: Option<f64>,
    /// The entity's own words, stored as words.
    #[serde(default)]
    pub surprise: Option<String>,
    /// Re-read the seed at hop 0 (default: only for an `evidence` election).
    #[serde(default)]
    pub reconsider_seed: Option<bool>,
    /// Reconsiderations per ripple.
    #[serde(default = "ripple_budget")]
    pub budget: usize,
    /// Write nothing; return the hop-1 decisions.
    #[serde(default)]
    pub dry_run: bool,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl SeedRipple {
    /// A ripple of `seed_id` with `cause` and every default.
    pub fn new(seed_id: &str, cause: impl Into<Value>) -> Self {
        SeedRipple {
            seed_id: seed_id.to_owned(),
            cause: cause.into(),
            change: Change::Revised,
            magnitude: None,
            cosine_distance: None,
            surprise: None,
            reconsider_seed: None,
            budget: crate::tasks::RIPPLE_BUDGET,
            dry_run: false,
            now: None,
        }
    }
}

/// One stored gate decision (a `ripple_decisions` row's view).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GateDecision {
    /// The memory decided on.
    pub record_id: String,
    /// Its hop (0: the seed re-read).
    pub hop: i64,
    /// The source it was reached from (`None`: the seed's own re-read).
    pub from: Option<String>,
    /// How: a relation name, `evidence` (a card), `similar` (by vector) or
    /// `seed`.
    pub via: String,
    /// How much it relies on the source.
    pub reliance: f64,
    /// The impact the source handed on.
    pub received: f64,
    /// What this source added (`received × reliance × DECAY`).
    pub contribution: f64,
    /// Its potential, accumulated over every source of the ripple so far.
    pub potential: f64,
    /// `logistic(potential)`.
    pub activation: f64,
    /// The gate's word.
    pub decision: Decision,
    /// The `ripple.reconsider` task, for `reconsider`.
    pub task_id: Option<String>,
}

/// A candidate the ripple left out (protected, past `MAX_HOPS`, over budget).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LeftOutMemory {
    /// The memory.
    pub record_id: String,
    /// `protected`, `max_hops` or `budget`.
    pub decision: Decision,
    /// Its potential.
    pub potential: f64,
    /// Its hop.
    pub hop: i64,
}

/// What `seed_ripple` returns: `{ripple_id, opened, magnitude, decisions,
/// reconsider_task_ids, left_out}` (`reason` on a refusal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SeedResult {
    /// The ripple's id (`H(seed|cause|seed version)`; empty on a refusal).
    pub ripple_id: String,
    /// Whether this call opened it (false: a dry run, a repeat, a refusal).
    pub opened: bool,
    /// The impact at the seed.
    pub magnitude: f64,
    /// The decisions (a dry run's or a new ripple's: hops 0 and 1; a
    /// repeat's: every decision stored).
    pub decisions: Vec<GateDecision>,
    /// The queued `ripple.reconsider` tasks.
    pub reconsider_task_ids: Vec<String>,
    /// The candidates left out.
    pub left_out: Vec<LeftOutMemory>,
    /// Why nothing opened: `unknown_record`, `closed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// How a reconsideration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReconsiderOutcome {
    /// The reader kept the reading: acked, nothing written.
    Unchanged,
    /// The host rewrote it (`rewrite_digest(..., task_id=)`).
    Rewritten,
}

/// `settle_reconsideration(task_id, *, holder, outcome, change=None,
/// cosine_distance=None, result=None, now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettleReconsideration {
    /// The `ripple.reconsider` task.
    pub task_id: String,
    /// The lease holder.
    pub holder: String,
    /// `unchanged` or `rewritten`.
    pub outcome: ReconsiderOutcome,
    /// The reader's change (default `revised` for a rewrite).
    #[serde(default)]
    pub change: Option<Change>,
    /// The distance between the old and new vectors.
    #[serde(default)]
    pub cosine_distance: Option<f64>,
    /// The reader's own result, kept on the task.
    #[serde(default)]
    pub result: Option<Value>,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl SettleReconsideration {
    /// A settlement with every default.
    pub fn new(task_id: &str, holder: &str, outcome: ReconsiderOutcome) -> Self {
        SettleReconsideration {
            task_id: task_id.to_owned(),
            holder: holder.to_owned(),
            outcome,
            change: None,
            cosine_distance: None,
            result: None,
            now: None,
        }
    }
}

/// What `settle_reconsideration` returns: `{ripple_id, outcome, onward,
/// decisions, status}` (`reason` on a refusal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SettleResult {
    /// The ripple.
    pub ripple_id: String,
    /// `unchanged`, `rewritten` or `refused`.
    pub outcome: String,
    /// The impact handed one hop further (0 for `unchanged`).
    pub onward: f64,
    /// The next hop's decisions.
    pub decisions: Vec<GateDecision>,
    /// The ripple's status after the settlement.
    pub status: Option<RippleStatus>,
    /// Why it was refused: `not_holder`, `not_live`, `not_rewritten`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `refresh_ripples(*, now=None)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRipples {
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

fn fifty() -> usize {
    50
}

/// `ripples(*, scope=None, owner_id=None, status=None, limit=50)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRipples {
    /// Only this scope.
    #[serde(default)]
    pub scope: Option<String>,
    /// Only this owner.
    #[serde(default)]
    pub owner_id: Option<String>,
    /// Only this status.
    #[serde(default)]
    pub status: Option<RippleStatus>,
    /// At most this many, newest first (0: all).
    #[serde(default = "fifty")]
    pub limit: usize,
}

impl Default for ListRipples {
    fn default() -> Self {
        ListRipples {
            scope: None,
            owner_id: None,
            status: None,
            limit: 50,
        }
    }
}
