//! The memory task queue (a home opened with its queue): one op per queue
//! method, named `tasks.<method>` (the spec's `system.tasks.<method>`), and
//! the system's queue reads (`pending_records`, `understanding_debt`,
//! `enqueue_debt`, `task_packet`). Every op here is refused, before its
//! arguments are read, on a home opened without its queue.
//!
//! Spec: api.md "The memory task queue: understanding in the background".

use super::NoArgs;
use crate::error::{OpError, OpResult};
use crate::home::Home;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_journal::{TaskLogRow, TaskRow, Window, WindowRow};
use am_system::tasks::{
    Ack, AckResult, Claim, ClaimResult, DebtReport, Enqueue, EnqueueDebt, EnqueueDebtReport,
    EnqueueMany, EnqueueResult, LastMaintenance, ListTasks, MaintenanceRow, PendingRecord,
    PendingRecords, Prioritize, RecordMaintenance, Release, ReleaseResult, SelectForWindow,
    TaskCounts, TaskPacket, UnderstandingDebt, WindowSelection,
};
use am_triples::JsonMap;
use serde::Deserialize;
use serde_json::Value;

/// The arguments of a read of one task.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskIdArgs {
    task_id: String,
}

/// `tasks.left_out`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LeftOutArgs {
    #[serde(default)]
    holder: Option<String>,
    #[serde(default)]
    window: Option<Window>,
}

/// `tasks.supersede_target`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SupersedeTargetArgs {
    target_id: String,
    reason: String,
}

fn cost_of(home: &mut dyn Home, _: &crate::Host, a: TaskIdArgs) -> OpResult<Answer> {
    let q = home.system()?.tasks()?;
    let task = q.task(&a.task_id)?.ok_or_else(|| {
        OpError::new(
            am_triples::ErrorKind::NotFound,
            format!("tasks.cost_of: no task {:?}", a.task_id),
        )
    })?;
    Answer::of(&q.cost_of(&task)?)
}

/// `pending_records`: a `null` `live_task` is the spec's `None` (every
/// pending record), the one exception to "a null argument is an absent one"
/// (absent, it is the spec's default `False`).
fn pending_records(home: &mut dyn Home, _: &crate::Host, args: JsonMap) -> OpResult<Answer> {
    let all = args.get("live_task").is_some_and(Value::is_null);
    let mut a: PendingRecords = crate::args::parse("pending_records", args)?;
    if all {
        a.live_task = None;
    }
    Answer::of(&home.system()?.pending_records(&a)?)
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Tasks;
    let q = CallShape::QueueMethod;
    vec![
        Verb::declare(
            "tasks.enqueue",
            f,
            "Queue one memory task (idempotent by its key).",
        )
        .writes()
        .shape(q)
        .object()
        .answers::<EnqueueResult>()
        .run(|h, _, a: Enqueue| Answer::of(&h.system()?.tasks()?.enqueue(&a)?)),
        Verb::declare(
            "tasks.enqueue_many",
            f,
            "Queue memory tasks in one transaction.",
        )
        .writes()
        .shape(q)
        .answers::<Vec<EnqueueResult>>()
        .run(|h, _, a: EnqueueMany| Answer::of(&h.system()?.tasks()?.enqueue_many(&a.tasks)?)),
        Verb::declare(
            "tasks.select_for_window",
            f,
            "Choose the tasks that fit a window's budget, by priority and cost.",
        )
        .shape(q)
        .object()
        .answers::<WindowSelection>()
        .run(|h, _, a: SelectForWindow| Answer::of(&h.system()?.tasks()?.select_for_window(&a)?)),
        Verb::declare("tasks.claim", f, "Lease tasks to a holder for a window.")
            .writes()
            .shape(q)
            .object()
            .answers::<ClaimResult>()
            .run(|h, _, a: Claim| Answer::of(&h.system()?.tasks()?.claim(&a)?)),
        Verb::declare("tasks.ack", f, "Mark leased tasks done.")
            .writes()
            .shape(q)
            .object()
            .answers::<AckResult>()
            .run(|h, _, a: Ack| Answer::of(&h.system()?.tasks()?.ack(&a)?)),
        Verb::declare(
            "tasks.release",
            f,
            "Release leased tasks: retry, defer, skip or fail them.",
        )
        .writes()
        .shape(q)
        .object()
        .answers::<ReleaseResult>()
        .run(|h, _, a: Release| Answer::of(&h.system()?.tasks()?.release(&a)?)),
        Verb::declare(
            "tasks.left_out",
            f,
            "The tasks a window's selection left out, and why.",
        )
        .shape(q)
        .answers::<Vec<WindowRow>>()
        .run(|h, _, a: LeftOutArgs| {
            Answer::of(
                &h.system()?
                    .tasks()?
                    .left_out(a.holder.as_deref(), a.window)?,
            )
        }),
        Verb::declare("tasks.task", f, "One task by id, or null.")
            .shape(q)
            .object()
            .answers::<Option<TaskRow>>()
            .run(|h, _, a: TaskIdArgs| Answer::of(&h.system()?.tasks()?.task(&a.task_id)?)),
        Verb::declare("tasks.tasks", f, "The tasks matching a filter.")
            .shape(q)
            .answers::<Vec<TaskRow>>()
            .run(|h, _, a: ListTasks| Answer::of(&h.system()?.tasks()?.tasks(&a)?)),
        Verb::declare("tasks.log", f, "A task's log: every transition, in order.")
            .shape(q)
            .answers::<Vec<TaskLogRow>>()
            .run(|h, _, a: TaskIdArgs| Answer::of(&h.system()?.tasks()?.log(&a.task_id)?)),
        Verb::declare("tasks.counts", f, "How many tasks are in each status.")
            .shape(q)
            .object()
            .answers::<TaskCounts>()
            .run(|h, _, NoArgs {}| Answer::of(&h.system()?.tasks()?.counts()?)),
        Verb::declare(
            "tasks.cost_of",
            f,
            "A task's expected cost in seconds (its kind's recent median).",
        )
        .shape(q)
        .answers::<f64>()
        .run(cost_of),
        Verb::declare(
            "tasks.supersede_stale",
            f,
            "Supersede live tasks whose target moved past their basis.",
        )
        .writes()
        .shape(q)
        .answers::<Vec<String>>()
        .run(|h, _, NoArgs {}| Answer::of(&h.system()?.tasks()?.supersede_stale()?)),
        Verb::declare(
            "tasks.supersede_target",
            f,
            "Supersede every live task on a target, with a reason.",
        )
        .writes()
        .shape(q)
        .answers::<Vec<String>>()
        .run(|h, _, a: SupersedeTargetArgs| {
            Answer::of(
                &h.system()?
                    .tasks()?
                    .supersede_target(&a.target_id, &a.reason)?,
            )
        }),
        Verb::declare("tasks.prioritize", f, "Change live tasks' priority.")
            .writes()
            .shape(q)
            .answers::<Vec<String>>()
            .run(|h, _, a: Prioritize| Answer::of(&h.system()?.tasks()?.prioritize(&a)?)),
        Verb::declare(
            "tasks.record_maintenance",
            f,
            "Record a completed night (or cycle): one memq_maintenance row per (scope, owner_id) pair.",
        )
        .writes()
        .shape(q)
        .answers::<Vec<MaintenanceRow>>()
        .run(|h, _, a: RecordMaintenance| {
            Answer::of(&h.system()?.tasks()?.record_maintenance(&a)?)
        }),
        Verb::declare(
            "tasks.last_maintenance",
            f,
            "The newest completed night (or cycle) over these pairs, or null.",
        )
        .shape(q)
        .object()
        .answers::<Option<MaintenanceRow>>()
        .run(|h, _, a: LastMaintenance| {
            Answer::of(&h.system()?.tasks()?.last_maintenance(&a)?)
        }),
        Verb::declare(
            "pending_records",
            f,
            "The records with pending fields, with their live tasks (live_task: false, the default, those no live task owns; true, those every live task owns; null, all).",
        )
        .answers::<Vec<PendingRecord>>()
        .run_raw::<PendingRecords>(pending_records),
        Verb::declare(
            "understanding_debt",
            f,
            "What the home owes: pending fields and their tasks, counted.",
        )
        .object()
        .answers::<DebtReport>()
        .run(|h, _, a: UnderstandingDebt| Answer::of(&h.system()?.understanding_debt(&a)?)),
        Verb::declare(
            "enqueue_debt",
            f,
            "Queue the tasks the debt report finds missing.",
        )
        .writes()
        .object()
        .answers::<EnqueueDebtReport>()
        .run(|h, _, a: EnqueueDebt| Answer::of(&h.system()?.enqueue_debt(&a)?)),
        Verb::declare(
            "task_packet",
            f,
            "Everything an author needs for one task: the target, its context, the instructions.",
        )
        .answers::<Value>()
        .run(|h, _, a: TaskPacket| Answer::of(&h.system()?.task_packet(&a)?)),
    ]
}
