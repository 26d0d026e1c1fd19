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
//! `left_out` lists the tasks in that order: the ones left out before the
//! candidates in queue order, then the candidates the walk left out in run
//! order, then (once the selection holds `hard_cap` tasks) the `hard_cap`
//! ones in queue order (ours: the spec orders no `left_out`; the tail is
//! never ordered by run order, so a small window over a large queue orders
//! only the prefix it walks).
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

/// A candidate's run-order keys and cost: (priority, activation, queue
/// position, cost).
type Candidate = (i64, f64, usize, f64);

/// Decide a window's selection.
pub(crate) fn decide(args: &SelectForWindow, input: &SelectionInputs<'_>) -> WindowSelection {
    let mut left_out: Vec<LeftOut> = Vec::with_capacity(input.live.len());
    // (priority, activation, queue position, cost): the run order's keys
    // beside each candidate, so the sort reads no row.
    let mut candidates: Vec<Candidate> = Vec::with_capacity(input.live.len());
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
            None => candidates.push((t.priority, act, i, cost)),
        }
    }
    // Run order: priority (lower first), activation (higher first), queue
    // position (distinct, so an unstable sort gives the one order). Only
    // the prefix the walk reaches is ordered, in growing chunks: once
    // `hard_cap` tasks are selected every candidate left is `hard_cap`,
    // listed in queue order without being ordered (a window of 64 out of
    // 10,000 live tasks orders a few hundred).
    let run_order =
        |a: &Candidate, b: &Candidate| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2));
    let in_queue_order = candidates.clone();
    let mut walked = vec![false; input.live.len()];
    let mut ordered = 0usize;
    let mut chunk = args.hard_cap.saturating_mul(4).clamp(64, 4096);
    let mut tasks: Vec<SelectedTask> = Vec::new();
    let mut planned = 0.0;
    let mut ripples = 0usize;
    let mut capped = false;
    for p in 0..candidates.len() {
        if tasks.len() >= args.hard_cap {
            capped = true;
            break;
        }
        if p == ordered {
            let end = ordered.saturating_add(chunk).min(candidates.len());
            let rest = &mut candidates[ordered..];
            if end < ordered + rest.len() {
                rest.select_nth_unstable_by(end - ordered - 1, run_order);
            }
            candidates[ordered..end].sort_unstable_by(run_order);
            ordered = end;
            chunk = chunk.saturating_mul(2);
        }
        let (_, act, i, cost) = candidates[p];
        walked[i] = true;
        let (t, status) = &input.live[i];
        let reason = if t.kind == TaskKind::RippleReconsider && ripples >= RIPPLE_WINDOW_CAP {
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
    if capped {
        for &(_, act, i, cost) in &in_queue_order {
            if !walked[i] {
                left_out.push(left(&input.live[i].0, LeftOutReason::HardCap, act, cost));
            }
        }
    }
    // Counted per reason first (no key allocated per left-out task).
    let mut counts: Vec<(LeftOutReason, usize)> = Vec::new();
    for l in &left_out {
        match counts.iter_mut().find(|(r, _)| *r == l.reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((l.reason, 1)),
        }
    }
    let left_out_counts: BTreeMap<String, usize> = counts
        .into_iter()
        .map(|(r, n)| (r.as_str().to_owned(), n))
        .collect();
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

fn left(t: &Arc<TaskRow>, reason: LeftOutReason, activation: f64, cost: f64) -> LeftOut {
    LeftOut::new(t.clone(), reason, activation, cost)
}
