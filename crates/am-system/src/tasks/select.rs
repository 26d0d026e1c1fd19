//! `select_for_window`'s decision, as a pure function of the live tasks:
//! every live task is selected or left out with exactly one reason.
//!
//! Order of the reasons (the first that applies is the task's): `scope`,
//! `filtered`, `window`, `leased`, `not_before`, `blocked`, `below_gate`;
//! then the candidates, in run order (priority, lower first; activation,
//! higher first; queue order), are taken while the selection is under
//! `hard_cap` (else `hard_cap`), a reconsideration finds the window under
//! `RIPPLE_WINDOW_CAP` (else `ripple_window_cap`) and the task's cost fits
//! what is left of the budget (else `over_budget`; a cheaper task after it
//! may still fit).
//!
//! Spec: api.md "The memory task queue" (`select_for_window`).

use super::args::{LeftOut, LeftOutReason, SelectForWindow, SelectedTask, WindowSelection};
use super::gate::{GATE_FLOOR, Gate, RIPPLE_WINDOW_CAP, activation};
use am_journal::{TaskKind, TaskRow, TaskStatus};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// What the selection reads besides the live tasks.
pub(crate) struct SelectionInputs<'a> {
    /// The live tasks, in queue order, with their statuses as of `now`
    /// (the rows as stored: a selected task is copied with its status).
    pub live: &'a [(Arc<TaskRow>, TaskStatus)],
    /// The dependency ids still live.
    pub live_deps: &'a HashSet<String>,
    /// Each task's cost, in seconds, by task id.
    pub cost: &'a dyn Fn(&TaskRow) -> f64,
    /// The selection instant.
    pub now: &'a str,
}

/// Decide a window's selection.
pub(crate) fn decide(args: &SelectForWindow, input: &SelectionInputs<'_>) -> WindowSelection {
    let mut left_out: Vec<LeftOut> = Vec::new();
    let mut candidates: Vec<(usize, f64, f64)> = Vec::new();
    for (i, (t, status)) in input.live.iter().enumerate() {
        let act = activation(t.strength, args.sensitivity);
        let cost = (input.cost)(t);
        let reason = if args
            .scopes
            .as_ref()
            .is_some_and(|s| !s.iter().any(|(sc, ow)| *sc == t.scope && *ow == t.owner_id))
        {
            Some(LeftOutReason::Scope)
        } else if args.kinds.as_ref().is_some_and(|k| !k.contains(&t.kind))
            || args
                .capabilities
                .as_ref()
                .is_some_and(|c| !c.iter().any(|c| c == t.kind.capability()))
        {
            Some(LeftOutReason::Filtered)
        } else if !t.windows.is_empty() && !t.windows.contains(&args.window) {
            Some(LeftOutReason::Window)
        } else if *status == TaskStatus::Leased {
            Some(LeftOutReason::Leased)
        } else if t.not_before.as_deref().is_some_and(|nb| nb > input.now) {
            Some(LeftOutReason::NotBefore)
        } else if t.depends_on.iter().any(|d| input.live_deps.contains(d)) {
            Some(LeftOutReason::Blocked)
        } else if act < GATE_FLOOR {
            Some(LeftOutReason::BelowGate)
        } else {
            None
        };
        match reason {
            Some(r) => left_out.push(left(t, r, act, cost)),
            None => candidates.push((i, act, cost)),
        }
    }
    candidates.sort_by(|a, b| {
        let (ta, tb) = (&input.live[a.0].0, &input.live[b.0].0);
        ta.priority
            .cmp(&tb.priority)
            .then(b.1.total_cmp(&a.1))
            .then(a.0.cmp(&b.0))
    });
    let mut tasks: Vec<SelectedTask> = Vec::new();
    let mut planned = 0.0;
    let mut ripples = 0usize;
    for (i, act, cost) in candidates {
        let (t, status) = &input.live[i];
        let reason = if tasks.len() >= args.hard_cap {
            Some(LeftOutReason::HardCap)
        } else if t.kind == TaskKind::RippleReconsider && ripples >= RIPPLE_WINDOW_CAP {
            Some(LeftOutReason::RippleWindowCap)
        } else if planned + cost > args.budget_seconds {
            Some(LeftOutReason::OverBudget)
        } else {
            None
        };
        if let Some(r) = reason {
            left_out.push(left(t, r, act, cost));
            continue;
        }
        planned += cost;
        if t.kind == TaskKind::RippleReconsider {
            ripples += 1;
        }
        let mut task = TaskRow::clone(t);
        task.status = *status;
        tasks.push(SelectedTask {
            task,
            activation: act,
            cost,
        });
    }
    let mut left_out_counts: BTreeMap<String, usize> = BTreeMap::new();
    for l in &left_out {
        *left_out_counts
            .entry(l.reason.as_str().to_owned())
            .or_default() += 1;
    }
    WindowSelection {
        window: args.window,
        budget_seconds: args.budget_seconds,
        sensitivity: args.sensitivity,
        hard_cap: args.hard_cap,
        gate: Gate::default(),
        at: input.now.to_owned(),
        tasks,
        planned_seconds: planned,
        left_out,
        left_out_counts,
    }
}

fn left(t: &TaskRow, reason: LeftOutReason, activation: f64, cost: f64) -> LeftOut {
    LeftOut {
        task_id: t.task_id.clone(),
        kind: t.kind,
        target_id: t.target_id.clone(),
        reason,
        activation,
        cost_seconds: cost,
    }
}
