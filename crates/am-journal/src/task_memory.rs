//! `InMemoryTaskQueue`: the in-memory pair's task rows, written inside a
//! [`crate::PairHome`] transaction and rolled back with it.
//!
//! The rows live under one mutex, with the home's own tables (the table
//! kit's rows, `crate::table`). A transaction that touches the queue or a
//! table holds that mutex from its first read or write to its end, writes
//! in place and keeps an undo log: when the body fails, the guard refuses or
//! the store's add fails, the undo log restores exactly what this
//! transaction changed (nobody else could change anything meanwhile).
//!
//! Spec: api.md "The memory task queue" ("a private in-memory database for
//! the in-memory store"), "Formation (typed records)" (the in-memory pair's
//! rollback rule).

use crate::error::HomeResult;
use crate::table::{MemKey, MemTables, TableDef, TableReads, TablesTx};
use crate::task::{
    TaskFilter, TaskKind, TaskLogRow, TaskReads, TaskRow, TasksTx, Window, WindowRow,
};
use crate::task_index::{LiveTasks, recent_first};
use am_triples::JsonMap;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The rows of an in-memory queue.
#[derive(Debug, Default)]
pub(crate) struct MemTasks {
    /// Task ids in queue order (a task's position is its index here).
    order: Vec<String>,
    /// Every task, with its position.
    rows: HashMap<String, (i64, Arc<TaskRow>)>,
    /// The live ones, indexed (the reads of the live set never scan the
    /// settled tasks).
    live: LiveTasks,
    log: Vec<TaskLogRow>,
    windows: Vec<WindowRow>,
    /// The home's own tables (the table kit).
    tables: MemTables,
}

impl MemTasks {
    /// Store `row` (a new task goes last in queue order); returns the row it
    /// replaced.
    fn store(&mut self, row: TaskRow) -> Option<TaskRow> {
        let row = Arc::new(row);
        let pos = match self.rows.get(&row.task_id) {
            Some((pos, _)) => *pos,
            None => {
                self.order.push(row.task_id.clone());
                i64::try_from(self.order.len() - 1).unwrap_or(i64::MAX)
            }
        };
        self.live.set(pos, row.clone());
        self.rows
            .insert(row.task_id.clone(), (pos, row))
            .map(|(_, old)| Arc::unwrap_or_clone(old))
    }

    /// Forget the task `id` (undoing its first store).
    fn forget(&mut self, id: &str) {
        self.rows.remove(id);
        self.live.remove(id);
        if self.order.last().map(String::as_str) == Some(id) {
            self.order.pop();
        } else {
            self.order.retain(|x| x != id);
        }
    }
}

impl TaskReads for MemTasks {
    fn task(&self, task_id: &str) -> HomeResult<Option<TaskRow>> {
        Ok(self.rows.get(task_id).map(|(_, r)| TaskRow::clone(r)))
    }

    fn tasks(&self, filter: &TaskFilter) -> HomeResult<Vec<TaskRow>> {
        if let Some(live) = self.live.select(filter) {
            return Ok(live
                .into_iter()
                .map(|(_, r)| Arc::unwrap_or_clone(r))
                .collect());
        }
        let mut out = Vec::new();
        for id in &self.order {
            if let Some((_, t)) = self.rows.get(id)
                && filter.matches(t)
            {
                out.push(TaskRow::clone(t));
                if filter.limit > 0 && out.len() >= filter.limit {
                    break;
                }
            }
        }
        Ok(out)
    }

    fn live(&self) -> HomeResult<Vec<Arc<TaskRow>>> {
        Ok(self.live.iter().map(|(_, r)| r.clone()).collect())
    }

    fn log(&self, task_id: &str) -> HomeResult<Vec<TaskLogRow>> {
        Ok(self
            .log
            .iter()
            .filter(|r| r.task_id == task_id)
            .cloned()
            .collect())
    }

    fn done_of_kind(&self, kind: TaskKind, limit: usize) -> HomeResult<Vec<TaskRow>> {
        let mut done: Vec<&TaskRow> = self
            .rows
            .values()
            .map(|(_, r)| &**r)
            .filter(|t| t.kind == kind && t.status == crate::TaskStatus::Done)
            .collect();
        done.sort_by(|a, b| recent_first(a, b));
        Ok(done
            .into_iter()
            .take(if limit == 0 { usize::MAX } else { limit })
            .cloned()
            .collect())
    }

    fn windows(&self, holder: Option<&str>, window: Option<Window>) -> HomeResult<Vec<WindowRow>> {
        Ok(latest_windows(self.windows.iter(), holder, window))
    }
}

/// The latest row of each `(holder, window)` among `rows` (in `seq` order),
/// oldest first.
pub(crate) fn latest_windows<'a>(
    rows: impl Iterator<Item = &'a WindowRow>,
    holder: Option<&str>,
    window: Option<Window>,
) -> Vec<WindowRow> {
    let mut latest: Vec<WindowRow> = Vec::new();
    for r in rows {
        if holder.is_some_and(|h| h != r.holder) || window.is_some_and(|w| w != r.window) {
            continue;
        }
        latest.retain(|l| !(l.holder == r.holder && l.window == r.window));
        latest.push(r.clone());
    }
    latest
}

/// The in-memory pair's task queue (a [`crate::PairHome`] made with
/// [`crate::PairHome::with_task_queue`]).
#[derive(Debug, Default)]
pub struct InMemoryTaskQueue {
    state: Mutex<MemTasks>,
    /// Fail the n-th `put` from now (0: no fault).
    fault_at: AtomicUsize,
}

impl InMemoryTaskQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fault injection for crash-consistency tests: the `nth` task write
    /// from now (1 = the next) fails with `Storage`, failing its
    /// transaction. Injects nothing once it fired.
    pub fn inject_put_fault(&self, nth: usize) {
        self.fault_at.store(nth, Ordering::SeqCst);
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, MemTasks> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Run `body` over the rows (outside any transaction).
    ///
    /// # Errors
    /// `body`'s.
    pub fn read(&self, body: &mut dyn FnMut(&dyn TaskReads) -> HomeResult<()>) -> HomeResult<()> {
        let g = self.lock();
        body(&*g)
    }

    /// Run `body` over the home's tables (outside any transaction).
    ///
    /// # Errors
    /// `body`'s.
    pub fn read_tables(
        &self,
        body: &mut dyn FnMut(&dyn TableReads) -> HomeResult<()>,
    ) -> HomeResult<()> {
        let g = self.lock();
        body(&g.tables)
    }

    /// Open a transaction's view: the rows locked until it ends.
    pub(crate) fn begin(&self) -> MemTasksTx<'_> {
        MemTasksTx {
            rows: self.lock(),
            queue: self,
            undo: Vec::new(),
            table_undo: Vec::new(),
            log_len: None,
            windows_len: None,
        }
    }
}

/// What a transaction changed, to undo it.
#[derive(Debug)]
enum Undo {
    /// A row stored over `previous` (`None`: it was new, and queued last).
    Put {
        id: String,
        previous: Option<TaskRow>,
    },
}

/// A table row this transaction stored over `previous` (`None`: it was
/// new): its table and key.
type RowUndo = (String, MemKey, Option<JsonMap>);

/// A transaction's view of an [`InMemoryTaskQueue`].
#[derive(Debug)]
pub(crate) struct MemTasksTx<'a> {
    rows: MutexGuard<'a, MemTasks>,
    queue: &'a InMemoryTaskQueue,
    undo: Vec<Undo>,
    table_undo: Vec<RowUndo>,
    log_len: Option<usize>,
    windows_len: Option<usize>,
}

impl MemTasksTx<'_> {
    /// Whether the transaction wrote anything.
    pub(crate) fn wrote(&self) -> bool {
        !self.undo.is_empty()
            || !self.table_undo.is_empty()
            || self.log_len.is_some()
            || self.windows_len.is_some()
    }

    /// Undo every write of this transaction, newest first.
    pub(crate) fn rollback(mut self) {
        while let Some(Undo::Put { id, previous }) = self.undo.pop() {
            match previous {
                Some(p) => {
                    self.rows.store(p);
                }
                None => self.rows.forget(&id),
            }
        }
        while let Some((table, key, previous)) = self.table_undo.pop() {
            self.rows.tables.restore(&table, key, previous);
        }
        if let Some(n) = self.log_len {
            self.rows.log.truncate(n);
        }
        if let Some(n) = self.windows_len {
            self.rows.windows.truncate(n);
        }
    }
}

// A transaction's reads are its rows' reads: forward every method (a default
// here would answer `live` by copying `tasks`, not from the live index).
#[deny(clippy::missing_trait_methods)]
impl TaskReads for MemTasksTx<'_> {
    fn task(&self, task_id: &str) -> HomeResult<Option<TaskRow>> {
        self.rows.task(task_id)
    }
    fn tasks(&self, filter: &TaskFilter) -> HomeResult<Vec<TaskRow>> {
        self.rows.tasks(filter)
    }
    fn live(&self) -> HomeResult<Vec<Arc<TaskRow>>> {
        self.rows.live()
    }
    fn log(&self, task_id: &str) -> HomeResult<Vec<TaskLogRow>> {
        self.rows.log(task_id)
    }
    fn done_of_kind(&self, kind: TaskKind, limit: usize) -> HomeResult<Vec<TaskRow>> {
        self.rows.done_of_kind(kind, limit)
    }
    fn windows(&self, holder: Option<&str>, window: Option<Window>) -> HomeResult<Vec<WindowRow>> {
        self.rows.windows(holder, window)
    }
}

impl TasksTx for MemTasksTx<'_> {
    fn put(&mut self, task: &TaskRow) -> HomeResult<()> {
        let fault = self.queue.fault_at.load(Ordering::SeqCst);
        if fault > 0 {
            self.queue.fault_at.store(fault - 1, Ordering::SeqCst);
            if fault == 1 {
                return Err(am_triples::Error::storage(
                    "injected fault: the in-memory task queue refused a task write",
                ));
            }
        }
        let previous = self.rows.store(task.clone());
        self.undo.push(Undo::Put {
            id: task.task_id.clone(),
            previous,
        });
        Ok(())
    }

    fn append_log(&mut self, row: &TaskLogRow) -> HomeResult<()> {
        let n = self.rows.log.len();
        self.log_len.get_or_insert(n);
        let mut r = row.clone();
        r.seq = i64::try_from(n).unwrap_or(i64::MAX) + 1;
        self.rows.log.push(r);
        Ok(())
    }

    fn put_window(&mut self, row: &WindowRow) -> HomeResult<()> {
        let n = self.rows.windows.len();
        self.windows_len.get_or_insert(n);
        let mut r = row.clone();
        r.seq = i64::try_from(n).unwrap_or(i64::MAX) + 1;
        self.rows.windows.push(r);
        Ok(())
    }
}

impl TableReads for MemTasksTx<'_> {
    fn get(&self, table: &TableDef, key: &[Value]) -> HomeResult<Option<JsonMap>> {
        self.rows.tables.get(table, key)
    }
    fn scan(&self, table: &TableDef, filter: &[(&str, Value)]) -> HomeResult<Vec<JsonMap>> {
        self.rows.tables.scan(table, filter)
    }
}

impl TablesTx for MemTasksTx<'_> {
    fn put(&mut self, table: &TableDef, row: &JsonMap) -> HomeResult<()> {
        let (key, previous) = self.rows.tables.put(table, row)?;
        self.table_undo.push((table.name.to_owned(), key, previous));
        Ok(())
    }
}
