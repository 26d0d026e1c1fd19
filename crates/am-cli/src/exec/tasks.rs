//! The memory task queue's exec verbs (`am exec --task-queue`): one op per
//! `MemoryTaskQueue` method, named `tasks.<method>` (the spec's
//! `system.tasks.<method>`), reading the queue's own arguments structs and
//! answering its typed results.
//!
//! Spec: api.md "The memory task queue: understanding in the background";
//! docs/exec.md "The task queue".

use super::{Args, Session};
use crate::error::{CliError, CliResult};
use am_journal::Window;
use am_system::tasks::{
    Ack, Claim, Enqueue, EnqueueDebt, EnqueueMany, ListTasks, PendingRecords, Prioritize, Release,
    SelectForWindow, TaskPacket, UnderstandingDebt,
};
use serde::Deserialize;
use serde_json::Value;

/// The task queue's ops, in the order docs/exec.md lists them.
pub const TASK_OPS: &[&str] = &[
    "tasks.enqueue",
    "tasks.enqueue_many",
    "tasks.select_for_window",
    "tasks.claim",
    "tasks.ack",
    "tasks.release",
    "tasks.left_out",
    "tasks.task",
    "tasks.tasks",
    "tasks.log",
    "tasks.counts",
    "tasks.cost_of",
    "tasks.supersede_stale",
    "tasks.supersede_target",
    "tasks.prioritize",
    "pending_records",
    "understanding_debt",
    "enqueue_debt",
    "task_packet",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskIdArgs {
    task_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LeftOutArgs {
    #[serde(default)]
    holder: Option<String>,
    #[serde(default)]
    window: Option<Window>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SupersedeTargetArgs {
    target_id: String,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// Run one task-queue op.
///
/// # Errors
/// Bad input (`InvalidInput`) for malformed arguments or a session opened
/// without `--task-queue`; the queue's refusals and failures with their kinds.
pub fn dispatch(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    let system = &s.engine()?.system;
    let q = system.tasks()?;
    let v = match op {
        "tasks.enqueue" => super::to_json(&q.enqueue(&a.parse::<Enqueue>()?)?),
        "tasks.enqueue_many" => super::to_json(&q.enqueue_many(&a.parse::<EnqueueMany>()?.tasks)?),
        "tasks.select_for_window" => {
            super::to_json(&q.select_for_window(&a.parse::<SelectForWindow>()?)?)
        }
        "tasks.claim" => super::to_json(&q.claim(&a.parse::<Claim>()?)?),
        "tasks.ack" => super::to_json(&q.ack(&a.parse::<Ack>()?)?),
        "tasks.release" => super::to_json(&q.release(&a.parse::<Release>()?)?),
        "tasks.left_out" => {
            let LeftOutArgs { holder, window } = a.parse()?;
            super::to_json(&q.left_out(holder.as_deref(), window)?)
        }
        "tasks.task" => {
            let TaskIdArgs { task_id } = a.parse()?;
            super::to_json(&q.task(&task_id)?)
        }
        "tasks.tasks" => super::to_json(&q.tasks(&a.parse::<ListTasks>()?)?),
        "tasks.log" => {
            let TaskIdArgs { task_id } = a.parse()?;
            super::to_json(&q.log(&task_id)?)
        }
        "tasks.counts" => {
            let NoArgs {} = a.parse()?;
            super::to_json(&q.counts()?)
        }
        "tasks.cost_of" => {
            let TaskIdArgs { task_id } = a.parse()?;
            let task = q.task(&task_id)?.ok_or_else(|| {
                CliError::engine(
                    am_triples::ErrorKind::NotFound,
                    format!("tasks.cost_of: no task {task_id:?}"),
                )
            })?;
            super::to_json(&q.cost_of(&task)?)
        }
        "tasks.supersede_stale" => {
            let NoArgs {} = a.parse()?;
            super::to_json(&q.supersede_stale()?)
        }
        "tasks.supersede_target" => {
            let SupersedeTargetArgs { target_id, reason } = a.parse()?;
            super::to_json(&q.supersede_target(&target_id, &reason)?)
        }
        "tasks.prioritize" => super::to_json(&q.prioritize(&a.parse::<Prioritize>()?)?),
        "pending_records" => {
            super::to_json(&system.pending_records(&a.parse::<PendingRecords>()?)?)
        }
        "understanding_debt" => {
            super::to_json(&system.understanding_debt(&a.parse::<UnderstandingDebt>()?)?)
        }
        "enqueue_debt" => super::to_json(&system.enqueue_debt(&a.parse::<EnqueueDebt>()?)?),
        "task_packet" => super::to_json(&system.task_packet(&a.parse::<TaskPacket>()?)?),
        other => Err(CliError::invalid(format!("unknown task op {other:?}"))),
    }?;
    Ok(v)
}
