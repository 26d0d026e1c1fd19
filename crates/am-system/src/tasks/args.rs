//! The task queue's arguments structs and typed results (the verb pattern:
//! `am exec` reads the very structs the queue takes).
//!
//! Spec: api.md "The memory task queue" (every `MemoryTaskQueue` method's
//! arguments, defaults and result keys).

use super::gate::Gate;
use am_journal::{TaskKind, TaskRow, TaskStatus, Window};
use am_triples::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::sync::Arc;

/// Claims a task is allowed before it fails, by default.
pub const DEFAULT_MAX_ATTEMPTS: NonZeroU32 = NonZeroU32::new(3).unwrap();

fn three() -> NonZeroU32 {
    DEFAULT_MAX_ATTEMPTS
}
fn one() -> f64 {
    1.0
}
fn sixty_four() -> usize {
    64
}
fn turn() -> Window {
    Window::Turn
}
fn six_hundred() -> f64 {
    600.0
}
fn night() -> MaintenanceKind {
    MaintenanceKind::Night
}
fn empty_object() -> Value {
    Value::Object(am_triples::JsonMap::new())
}

/// `enqueue(kind, target_id, *, scope, owner_id, basis, strength, cause,
/// assertion_id="", basis_version=0, priority=None, depends_on=(),
/// not_before=None, windows=None, cost_hint=None, max_attempts=3,
/// ripple_id=None, hop=None, now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Enqueue {
    /// What the task asks for.
    pub kind: TaskKind,
    /// The record (graph id or assertion id), or a ripple id.
    pub target_id: String,
    /// The target's scope.
    pub scope: String,
    /// The target's owner.
    pub owner_id: String,
    /// What the task is based on (`<assertion id>@<mark>`).
    pub basis: String,
    /// The incoming signal, in [0, 1].
    pub strength: f64,
    /// Why (a cause name or a mapping).
    pub cause: Value,
    /// The target's digest assertion id, when known.
    #[serde(default)]
    pub assertion_id: String,
    /// The target's version the basis names.
    #[serde(default)]
    pub basis_version: i64,
    /// Lower runs first; default [`super::gate::pending_priority`] for the
    /// formation kinds, else [`super::gate::DEFAULT_PRIORITY`].
    #[serde(default)]
    pub priority: Option<i64>,
    /// Tasks that must settle first.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Not claimable before this instant.
    #[serde(default)]
    pub not_before: Option<Timestamp>,
    /// The windows it may run in (`None`: every window, or the kind's own).
    #[serde(default)]
    pub windows: Option<Vec<Window>>,
    /// An estimate of its cost, in seconds.
    #[serde(default)]
    pub cost_hint: Option<f64>,
    /// Claims allowed before it fails (positive by its type: a 0 or a
    /// negative count is refused where the arguments are read).
    #[serde(default = "three")]
    pub max_attempts: NonZeroU32,
    /// The ripple it belongs to.
    #[serde(default)]
    pub ripple_id: Option<String>,
    /// Its hop in that ripple.
    #[serde(default)]
    pub hop: Option<i64>,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl Enqueue {
    /// An enqueue with the required arguments and every default.
    pub fn new(
        kind: TaskKind,
        target_id: &str,
        (scope, owner_id): (&str, &str),
        basis: &str,
        strength: f64,
        cause: impl Into<Value>,
    ) -> Self {
        Enqueue {
            kind,
            target_id: target_id.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            basis: basis.to_owned(),
            strength,
            cause: cause.into(),
            assertion_id: String::new(),
            basis_version: 0,
            priority: None,
            depends_on: Vec::new(),
            not_before: None,
            windows: None,
            cost_hint: None,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            ripple_id: None,
            hop: None,
            now: None,
        }
    }
}

/// `enqueue`'s answer: `{task_id, enqueued, superseded, reason?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnqueueResult {
    /// `H(kind|target|basis)[:32]`.
    pub task_id: String,
    /// Whether a new task was stored.
    pub enqueued: bool,
    /// The older pending tasks the new basis superseded.
    pub superseded: Vec<String>,
    /// Why nothing was stored (`stale_basis`); absent for an idempotent
    /// replay or a new task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `enqueue` of many tasks in one transaction (ours: the spec's
/// `enqueue` one at a time, batched).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnqueueMany {
    /// The tasks, each as `enqueue` takes it.
    pub tasks: Vec<Enqueue>,
}

/// `select_for_window(budget_seconds, sensitivity=1.0, *, window="turn",
/// scopes=None, kinds=None, capabilities=None, hard_cap=64, cost_of=None,
/// now=None)`. `cost_of` here is a map of seconds per task kind (a host
/// callable goes through `TaskQueue::select_for_window_costed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectForWindow {
    /// The window's time, in seconds.
    pub budget_seconds: f64,
    /// The host's sensitivity (moves the gate).
    #[serde(default = "one")]
    pub sensitivity: f64,
    /// The window.
    #[serde(default = "turn")]
    pub window: Window,
    /// Only tasks of these `(scope, owner_id)` pairs.
    #[serde(default)]
    pub scopes: Option<Vec<(String, String)>>,
    /// Only these kinds.
    #[serde(default)]
    pub kinds: Option<Vec<TaskKind>>,
    /// Only kinds needing these capabilities.
    #[serde(default)]
    pub capabilities: Option<Vec<String>>,
    /// At most this many tasks.
    #[serde(default = "sixty_four")]
    pub hard_cap: usize,
    /// Seconds per task kind, instead of the kinds' recent medians.
    #[serde(default)]
    pub cost_of: Option<BTreeMap<TaskKind, f64>>,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl SelectForWindow {
    /// A selection for a window of `budget_seconds` with every default.
    pub fn new(budget_seconds: f64) -> Self {
        SelectForWindow {
            budget_seconds,
            sensitivity: 1.0,
            window: Window::Turn,
            scopes: None,
            kinds: None,
            capabilities: None,
            hard_cap: 64,
            cost_of: None,
            now: None,
        }
    }
}

am_triples::vocabulary! {
    /// Why a live task was left out of a window's selection.
    pub enum LeftOutReason("left-out reason") {
        /// Its activation is under the gate's floor.
        BelowGate = "below_gate",
        /// Its cost does not fit what is left of the budget.
        OverBudget = "over_budget",
        /// The selection reached `hard_cap`.
        HardCap = "hard_cap",
        /// It does not run in this window.
        Window = "window",
        /// A task it depends on is still live.
        Blocked = "blocked",
        /// Its `not_before` is later.
        NotBefore = "not_before",
        /// Another lease holds it.
        Leased = "leased",
        /// The window already holds `RIPPLE_WINDOW_CAP` reconsiderations.
        RippleWindowCap = "ripple_window_cap",
        /// Outside the asked scopes.
        Scope = "scope",
        /// Not of the asked kinds or capabilities.
        Filtered = "filtered",
    }
}

/// One selected task: the task with its activation and cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectedTask {
    /// The task.
    #[serde(flatten)]
    pub task: TaskRow,
    /// Its activation through the gate.
    pub activation: f64,
    /// Its cost, in seconds.
    pub cost: f64,
}

/// One task a selection left out, and why: serialized as `{task_id, kind,
/// target_id, reason, activation, cost_seconds}`. The task is shared with
/// the queue's live set (a selection of 10,000 live tasks copies none of
/// their ids).
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// The task.
    task: Arc<TaskRow>,
    /// The one reason.
    pub reason: LeftOutReason,
    /// Its activation.
    pub activation: f64,
    /// Its cost, in seconds.
    pub cost_seconds: f64,
}

impl LeftOut {
    /// `task` left out for `reason`.
    pub(crate) fn new(
        task: Arc<TaskRow>,
        reason: LeftOutReason,
        activation: f64,
        cost_seconds: f64,
    ) -> Self {
        LeftOut {
            task,
            reason,
            activation,
            cost_seconds,
        }
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.task.task_id
    }

    /// Its kind.
    pub fn kind(&self) -> TaskKind {
        self.task.kind
    }

    /// Its target.
    pub fn target_id(&self) -> &str {
        &self.task.target_id
    }

    /// The task as the selection read it.
    pub fn task(&self) -> &TaskRow {
        &self.task
    }
}

impl Serialize for LeftOut {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("LeftOut", 6)?;
        m.serialize_field("task_id", &self.task.task_id)?;
        m.serialize_field("kind", &self.task.kind)?;
        m.serialize_field("target_id", &self.task.target_id)?;
        m.serialize_field("reason", &self.reason)?;
        m.serialize_field("activation", &self.activation)?;
        m.serialize_field("cost_seconds", &self.cost_seconds)?;
        m.end()
    }
}

/// The object `Serialize` writes: `{task_id, kind, target_id, reason,
/// activation, cost_seconds}`, every key present.
impl schemars::JsonSchema for LeftOut {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LeftOut".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "am_system::tasks::LeftOut".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "One task a selection left out, and why.",
            "properties": {
                "task_id": {"type": "string"},
                "kind": generator.subschema_for::<TaskKind>(),
                "target_id": {"type": "string"},
                "reason": generator.subschema_for::<LeftOutReason>(),
                "activation": {"type": "number"},
                "cost_seconds": {"type": "number", "description": "Its cost, in seconds."},
            },
            "required": ["task_id", "kind", "target_id", "reason", "activation", "cost_seconds"],
            "additionalProperties": false,
        })
    }
}

/// `select_for_window`'s answer: `{window, budget_seconds, sensitivity,
/// hard_cap, gate, at, tasks, planned_seconds, left_out, left_out_counts}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WindowSelection {
    /// The window.
    pub window: Window,
    /// Its budget, in seconds.
    pub budget_seconds: f64,
    /// The sensitivity used.
    pub sensitivity: f64,
    /// The cap used.
    pub hard_cap: usize,
    /// The gate used.
    pub gate: Gate,
    /// When the selection was made.
    pub at: String,
    /// The selected tasks, in the order to run them.
    pub tasks: Vec<SelectedTask>,
    /// Their summed cost.
    pub planned_seconds: f64,
    /// Every other live task, with its reason.
    pub left_out: Vec<LeftOut>,
    /// How many were left out per reason.
    pub left_out_counts: BTreeMap<String, usize>,
}

/// A task named by id inside a selection handed to `claim`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskRef {
    /// The task.
    pub task_id: String,
}

/// A selection handed to `claim`: its window, tasks and left-out items
/// (other keys of `select_for_window`'s answer are accepted and ignored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectionRef {
    /// The selection's window.
    pub window: Window,
    /// Its tasks.
    pub tasks: Vec<TaskRef>,
    /// What it left out.
    #[serde(default)]
    pub left_out: Vec<Value>,
}

/// What `claim` leases: a selection (its window and `left_out` are
/// recorded) or a list of task ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ClaimTasks {
    /// Task ids.
    Ids(Vec<String>),
    /// A selection.
    Selection(SelectionRef),
}

impl From<&WindowSelection> for ClaimTasks {
    fn from(s: &WindowSelection) -> Self {
        ClaimTasks::Selection(SelectionRef {
            window: s.window,
            tasks: s
                .tasks
                .iter()
                .map(|t| TaskRef {
                    task_id: t.task.task_id.clone(),
                })
                .collect(),
            left_out: s
                .left_out
                .iter()
                .filter_map(|l| serde_json::to_value(l).ok())
                .collect(),
        })
    }
}

/// `claim(tasks, *, holder, lease_seconds=600, window=None, now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// A selection or task ids.
    pub tasks: ClaimTasks,
    /// Who leases them.
    pub holder: String,
    /// How long the lease lasts.
    #[serde(default = "six_hundred")]
    pub lease_seconds: f64,
    /// The window (a selection's own by default).
    #[serde(default)]
    pub window: Option<Window>,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl Claim {
    /// A claim of `tasks` by `holder` with every default.
    pub fn new(tasks: impl Into<ClaimTasks>, holder: &str) -> Self {
        Claim {
            tasks: tasks.into(),
            holder: holder.to_owned(),
            lease_seconds: 600.0,
            window: None,
            now: None,
        }
    }
}

impl From<Vec<String>> for ClaimTasks {
    fn from(ids: Vec<String>) -> Self {
        ClaimTasks::Ids(ids)
    }
}

/// A task `claim` did not lease, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Refusal {
    /// The task.
    pub task_id: String,
    /// Why: `unknown_task`, `leased`, `not_before`, `blocked`,
    /// `max_attempts`, or the terminal status (`done`, `failed`, `skipped`,
    /// `superseded`).
    pub reason: String,
}

/// `claim`'s answer: `{claimed: [task], refused: [{task_id, reason}]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClaimResult {
    /// The leased tasks.
    pub claimed: Vec<TaskRow>,
    /// The rest, with their reasons.
    pub refused: Vec<Refusal>,
}

/// `ack(task_id, *, holder, result, now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ack {
    /// The task.
    pub task_id: String,
    /// Its lease holder.
    pub holder: String,
    /// What the work did (`{"outcome", "seconds", "tokens", "run_id"}`).
    #[serde(default)]
    pub result: Value,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

/// `ack`'s answer: `{acked, reason?, task?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AckResult {
    /// Whether this call settled it.
    pub acked: bool,
    /// Why not (`already_done`, `unknown_task`, `not_leased`, `holder`, the
    /// terminal status).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The task as it now stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRow>,
    /// What the host must know about this settle: an authoring task marked
    /// done while its field stays pending with no live task to write it
    /// (api.md "Formation": a pending field is never stored without its
    /// task), naming the field and the repair. Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

am_triples::vocabulary! {
    /// How a holder gives a task back.
    pub enum ReleaseOutcome("release outcome") {
        /// Attempt spent; failed at `max_attempts`.
        Retry = "retry",
        /// No attempt spent; not before `until`.
        Defer = "defer",
        /// Terminal.
        Skip = "skip",
    }
}

/// `release(task_id, *, holder, outcome, reason, until=None, detail=None,
/// now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// The task.
    pub task_id: String,
    /// Its lease holder.
    pub holder: String,
    /// `retry`, `defer` or `skip`.
    pub outcome: ReleaseOutcome,
    /// Why (`over_context`, `endpoint_unreachable`, ...).
    pub reason: String,
    /// A deferral's end.
    #[serde(default)]
    pub until: Option<Timestamp>,
    /// Particulars (a skip's measured tokens).
    #[serde(default)]
    pub detail: Option<Value>,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl Release {
    /// A release with the required arguments.
    pub fn new(task_id: &str, holder: &str, outcome: ReleaseOutcome, reason: &str) -> Self {
        Release {
            task_id: task_id.to_owned(),
            holder: holder.to_owned(),
            outcome,
            reason: reason.to_owned(),
            until: None,
            detail: None,
            now: None,
        }
    }
}

/// `release`'s answer: `{released, reason?, task?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReleaseResult {
    /// Whether this call released it.
    pub released: bool,
    /// Why not (`unknown_task`, `not_leased`, `holder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The task as it now stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRow>,
}

/// `tasks(*, status=None, kind=None, target_id=None, ripple_id=None,
/// limit=0)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTasks {
    /// Only this status.
    #[serde(default)]
    pub status: Option<TaskStatus>,
    /// Only this kind.
    #[serde(default)]
    pub kind: Option<TaskKind>,
    /// Only this target.
    #[serde(default)]
    pub target_id: Option<String>,
    /// Only this ripple.
    #[serde(default)]
    pub ripple_id: Option<String>,
    /// At most this many (0: all).
    #[serde(default)]
    pub limit: usize,
    /// The instant to use instead of the engine clock (an expired lease
    /// reads as returned).
    #[serde(default)]
    pub now: Option<Timestamp>,
}

/// `prioritize(target_ids, *, kinds, priority, reason, dry_run=False)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Prioritize {
    /// The targets.
    pub target_ids: Vec<String>,
    /// The kinds moved.
    pub kinds: Vec<TaskKind>,
    /// The priority they move up to.
    pub priority: i64,
    /// Why.
    pub reason: String,
    /// Report without writing.
    #[serde(default)]
    pub dry_run: bool,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

/// `counts()`: `{total, live, by_status: {status: n}, by_kind: {kind:
/// {status: n}}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskCounts {
    /// Every task.
    pub total: usize,
    /// The live ones.
    pub live: usize,
    /// Per status.
    pub by_status: BTreeMap<String, usize>,
    /// Per kind, per status.
    pub by_kind: BTreeMap<String, BTreeMap<String, usize>>,
}

am_triples::vocabulary! {
    /// What a completion row of `memq_maintenance` records.
    pub enum MaintenanceKind("maintenance kind") {
        /// A whole night (`include_dream=True`) run to its end: resets the
        /// cadence's count.
        Night = "night",
        /// A cycle window (`include_dream=False`): does not reset it.
        Cycle = "cycle",
    }
}

/// `record_maintenance(scopes, *, kind="night", detail={}, now=None)`: the
/// spec names the verb, its commit point and what it records (one row per
/// `(scope, owner_id)` pair and kind); these arguments are ours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordMaintenance {
    /// The `(scope, owner_id)` pairs the night covered: one row each.
    pub scopes: Vec<(String, String)>,
    /// `night` (a whole night: resets the cadence) or `cycle`.
    #[serde(default = "night")]
    pub kind: MaintenanceKind,
    /// The night's particulars (an object).
    #[serde(default = "empty_object")]
    pub detail: Value,
    /// When the night completed, instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl RecordMaintenance {
    /// A completed night over `scopes` with every default.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        RecordMaintenance {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            kind: MaintenanceKind::Night,
            detail: empty_object(),
            now: None,
        }
    }
}

/// `last_maintenance(scopes=None, *, kind="night")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LastMaintenance {
    /// Only these `(scope, owner_id)` pairs (`None`: any pair).
    #[serde(default)]
    pub scopes: Option<Vec<(String, String)>>,
    /// The kind read.
    #[serde(default = "night")]
    pub kind: MaintenanceKind,
}

impl Default for LastMaintenance {
    fn default() -> Self {
        LastMaintenance {
            scopes: None,
            kind: MaintenanceKind::Night,
        }
    }
}
