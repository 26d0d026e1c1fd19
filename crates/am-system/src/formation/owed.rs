//! The tasks a formation owes, queued in the formation's own transaction:
//! a pending field's `title.author` / `digest.author`, a labelled-mechanical
//! record's `digest.rewrite`; a summary's authoring or rewrite waits for the
//! pending rewrites of the records it summarizes.
//!
//! Spec: api.md "Formation (typed records)" (one transaction with the
//! tasks), "The memory task queue" (enqueue sites, `PENDING_TASK_KINDS`,
//! `FORMATION_PRIORITY`).

use crate::error::Result;
use crate::formation::FormationPlan;
use crate::kinds::DIGEST_PREDICATE;
use crate::record::DigestRow;
use crate::tasks::formation::{MECHANICAL_DIGEST_METHODS, row};
use crate::tasks::gate::{DEFAULT_PRIORITY, pending_priority};
use crate::tasks::{PlannedEnqueue, enqueue_in};
use am_journal::{TaskFilter, TaskKind, TasksTx};
use std::collections::HashMap;

/// One task a formation owes.
#[derive(Debug, Clone)]
pub(crate) struct Owed {
    plan: PlannedEnqueue,
    /// The graph ids the record summarizes (its `summarizes` edges).
    summarizes: Vec<String>,
}

/// The tasks `plan`'s records owe, formed at `now` (pure).
pub(crate) fn owed_tasks(plan: &FormationPlan, now: &str) -> Vec<Owed> {
    let mut out: Vec<Owed> = Vec::new();
    // Each record's `summarizes` edges, by subject, in plan order (read once:
    // a scan of the whole plan per record was quadratic in the batch).
    let mut edges: HashMap<&str, Vec<String>> = HashMap::new();
    for e in plan
        .assertions
        .iter()
        .filter(|e| e.predicate == "summarizes" && DigestRow::of(e).get("record_edge").is_some())
    {
        edges
            .entry(e.subject.as_str())
            .or_default()
            .push(e.object.clone());
    }
    for a in plan
        .assertions
        .iter()
        .filter(|a| a.predicate == DIGEST_PREDICATE)
    {
        let aid = a.assertion_id.clone().unwrap_or_default();
        let view = DigestRow::of(a);
        let kind = view.as_stored("record_kind").unwrap_or("");
        let flag = |f: &str| view.is_marked_pending(f);
        let mechanical = view
            .as_stored("digest_method")
            .is_some_and(|m| MECHANICAL_DIGEST_METHODS.contains(&m));
        let summarizes: Vec<String> = edges.get(a.subject.as_str()).cloned().unwrap_or_default();
        let mut owe = |kind_: TaskKind, basis: String, priority: i64| {
            out.push(Owed {
                plan: PlannedEnqueue {
                    row: row(a, &aid, kind_, basis, priority, now),
                    current_version: None,
                },
                summarizes: if matches!(kind_, TaskKind::DigestAuthor | TaskKind::DigestRewrite) {
                    summarizes.clone()
                } else {
                    Vec::new()
                },
            });
        };
        if flag("title") {
            owe(
                TaskKind::TitleAuthor,
                format!("{aid}@pending-title"),
                pending_priority(kind),
            );
        }
        if flag("summary") {
            owe(
                TaskKind::DigestAuthor,
                format!("{aid}@pending-summary"),
                pending_priority(kind),
            );
        } else if mechanical {
            owe(
                TaskKind::DigestRewrite,
                format!("{aid}@v0"),
                DEFAULT_PRIORITY,
            );
        }
    }
    // A summary waits for what it summarizes: queue it last.
    out.sort_by_key(|o| !o.summarizes.is_empty());
    out
}

/// Queue `owed` in the formation's transaction (idempotent: a replay finds
/// every task already queued). A summary's task depends on the live
/// `digest.rewrite` / `digest.author` tasks of the records it summarizes.
pub(crate) fn enqueue_owed(tx: &mut dyn TasksTx, owed: &[Owed]) -> Result<()> {
    for o in owed {
        let mut plan = o.plan.clone();
        for target in &o.summarizes {
            for t in tx.tasks(&TaskFilter {
                target_id: Some(target.clone()),
                ..TaskFilter::live()
            })? {
                if matches!(t.kind, TaskKind::DigestRewrite | TaskKind::DigestAuthor)
                    && !plan.row.depends_on.contains(&t.task_id)
                {
                    plan.row.depends_on.push(t.task_id);
                }
            }
        }
        enqueue_in(tx, &plan)?;
    }
    Ok(())
}
