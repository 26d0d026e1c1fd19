//! The live-task index both task-queue row stores keep: the `pending`,
//! `deferred` and `leased` tasks in queue order, by id and by target, each
//! row shared (`Arc`) so a read of the whole live set copies no row.
//!
//! The SQLite home keeps one per home as an in-process cache of its
//! `memq_tasks` rows, valid while the file's queue generation is the one it
//! was built at (`am_backend_sqlite::tasks`); the in-memory queue keeps one
//! beside its rows ([`crate::InMemoryTaskQueue`]). Either way the reads it
//! answers are [`LiveTasks::select`]'s: the same filter rule
//! ([`TaskFilter::matches`]), the same order, the same limit.

use crate::task::{TaskFilter, TaskRow};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Whether a read through `filter` can be answered from the live set alone:
/// it asks only for live statuses.
pub fn live_only(filter: &TaskFilter) -> bool {
    filter
        .statuses
        .as_ref()
        .is_some_and(|s| s.iter().all(|s| s.is_live()))
}

/// The live tasks of a queue, keyed by queue order (the SQLite rowid, the
/// in-memory queue's insertion position).
#[derive(Debug, Default, Clone)]
pub struct LiveTasks {
    rows: BTreeMap<i64, Arc<TaskRow>>,
    by_id: HashMap<String, i64>,
    by_target: HashMap<String, BTreeSet<i64>>,
}

impl LiveTasks {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many live tasks it holds.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Record that the task at queue position `order` now reads `row`: kept
    /// when its stored status is live, dropped otherwise.
    /// A task that moved (another position: plain SQL replaced its row or
    /// changed its rowid; another target) leaves its old place first, and
    /// another task the set still held at `order` leaves the set.
    pub fn set(&mut self, order: i64, row: Arc<TaskRow>) {
        if let Some(&old) = self.by_id.get(&row.task_id) {
            let in_place = old == order
                && self
                    .rows
                    .get(&old)
                    .is_some_and(|r| r.target_id == row.target_id);
            if !in_place {
                self.remove(&row.task_id);
            }
        }
        if let Some(other) = self.rows.get(&order)
            && other.task_id != row.task_id
        {
            let other = other.task_id.clone();
            self.remove(&other);
        }
        if row.status.is_live() {
            if self.by_id.insert(row.task_id.clone(), order).is_none() {
                self.by_target
                    .entry(row.target_id.clone())
                    .or_default()
                    .insert(order);
            }
            self.rows.insert(order, row);
        } else {
            self.remove(&row.task_id);
        }
    }

    /// Drop the task `task_id` (it is no longer live, or no longer stored).
    pub fn remove(&mut self, task_id: &str) {
        let Some(order) = self.by_id.remove(task_id) else {
            return;
        };
        if let Some(row) = self.rows.remove(&order)
            && let Some(set) = self.by_target.get_mut(&row.target_id)
        {
            set.remove(&order);
            if set.is_empty() {
                self.by_target.remove(&row.target_id);
            }
        }
    }

    /// The live task `task_id`, with its queue position.
    pub fn get(&self, task_id: &str) -> Option<(i64, &Arc<TaskRow>)> {
        let order = *self.by_id.get(task_id)?;
        self.rows.get(&order).map(|r| (order, r))
    }

    /// Every live task in queue order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &Arc<TaskRow>)> {
        self.rows.iter().map(|(o, r)| (*o, r))
    }

    /// The live tasks passing `filter`, in queue order, at most
    /// `filter.limit` (0: all), each with its position. `None` when the
    /// filter asks for a status that is not live ([`live_only`]): the live
    /// set cannot answer it.
    pub fn select(&self, filter: &TaskFilter) -> Option<Vec<(i64, Arc<TaskRow>)>> {
        if !live_only(filter) {
            return None;
        }
        let mut out = Vec::new();
        let mut take = |order: i64, row: &Arc<TaskRow>| -> bool {
            if filter.matches(row) {
                out.push((order, row.clone()));
            }
            filter.limit == 0 || out.len() < filter.limit
        };
        match &filter.target_id {
            Some(target) => {
                for order in self.by_target.get(target).into_iter().flatten() {
                    if let Some(row) = self.rows.get(order)
                        && !take(*order, row)
                    {
                        break;
                    }
                }
            }
            None => {
                for (order, row) in &self.rows {
                    if !take(*order, row) {
                        break;
                    }
                }
            }
        }
        Some(out)
    }
}

/// The order of [`crate::TaskReads::done_of_kind`]: the most recently
/// changed first, then the greater task id first.
pub fn recent_first(a: &TaskRow, b: &TaskRow) -> std::cmp::Ordering {
    b.updated_at
        .cmp(&a.updated_at)
        .then_with(|| b.task_id.cmp(&a.task_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{TaskKind, TaskStatus};
    use serde_json::json;

    fn row(id: &str, target: &str, status: TaskStatus) -> Arc<TaskRow> {
        Arc::new(TaskRow {
            task_id: id.into(),
            kind: TaskKind::DigestRewrite,
            capability: "summaries".into(),
            target_id: target.into(),
            assertion_id: String::new(),
            scope: "s".into(),
            owner_id: "o".into(),
            basis: "b".into(),
            basis_version: 0,
            strength: 0.5,
            cause: json!("backfill"),
            priority: 10,
            depends_on: vec![],
            not_before: None,
            windows: vec![],
            cost_hint: None,
            max_attempts: 3,
            attempts: 0,
            status,
            holder: None,
            lease_until: None,
            ripple_id: None,
            hop: None,
            result: None,
            error: None,
            superseded_by: None,
            created_at: "2026-01-01T00:00:00.000000+00:00".into(),
            updated_at: "2026-01-01T00:00:00.000000+00:00".into(),
        })
    }

    #[test]
    fn a_task_leaves_the_live_index_when_it_settles_and_reads_keep_queue_order() {
        let mut live = LiveTasks::new();
        live.set(3, row("c", "x", TaskStatus::Pending));
        live.set(1, row("a", "x", TaskStatus::Leased));
        live.set(2, row("b", "y", TaskStatus::Deferred));
        let ids = |v: Vec<(i64, Arc<TaskRow>)>| -> Vec<String> {
            v.into_iter().map(|(_, r)| r.task_id.clone()).collect()
        };
        assert_eq!(
            ids(live.select(&TaskFilter::live()).unwrap()),
            ["a", "b", "c"]
        );
        let on_x = TaskFilter {
            target_id: Some("x".into()),
            ..TaskFilter::live()
        };
        assert_eq!(ids(live.select(&on_x).unwrap()), ["a", "c"]);
        live.set(1, row("a", "x", TaskStatus::Done));
        assert_eq!(ids(live.select(&on_x).unwrap()), ["c"]);
        assert!(live.get("a").is_none());
        assert_eq!(live.len(), 2);
        assert!(live.select(&TaskFilter::default()).is_none());
        let limited = TaskFilter {
            limit: 1,
            ..TaskFilter::live()
        };
        assert_eq!(ids(live.select(&limited).unwrap()), ["b"]);
    }
}
