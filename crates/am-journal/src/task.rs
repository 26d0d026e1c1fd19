//! The memory task queue's rows and vocabularies: task kinds, windows,
//! statuses, the stored task ([`TaskRow`]), its log and window rows, and the
//! row seams a home's queue implements ([`TaskReads`], [`TasksTx`]).
//!
//! The queue's RULES (idempotent enqueue, the gate, claims, leases, settling)
//! live once, in `am_system::tasks`; a home only stores and reads rows, inside
//! its own transaction (`HomeTx::tasks`), so a queue write commits with the
//! records it concerns. Two row stores: the SQLite home's `memq_*` tables
//! (`am_backend_sqlite::tasks`) and [`crate::InMemoryTaskQueue`].
//!
//! Spec: api.md "The memory task queue: understanding in the background".

use crate::error::HomeResult;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

am_triples::vocabulary! {
    /// What a queued task asks for (`TASK_KINDS`), in the spec's order.
    pub enum TaskKind("task kind") {
        /// Author the title of a record formed pending (summaries).
        TitleAuthor = "title.author",
        /// Author the digest of a record formed pending (summaries).
        DigestAuthor = "digest.author",
        /// Rewrite a mechanical digest (summaries).
        DigestRewrite = "digest.rewrite",
        /// Author a legacy card still in mechanical words (summaries).
        CardAuthor = "card.author",
        /// Narrate a formed dream (understanding; `night` and `nap` windows).
        DreamNarrate = "dream.narrate",
        /// Reconsider a memory a ripple reached (understanding).
        RippleReconsider = "ripple.reconsider",
        /// Consolidate a ripple (understanding; `night` windows only).
        RippleConsolidate = "ripple.consolidate",
    }
}

am_triples::vocabulary! {
    /// The host's windows in which tasks run (`WINDOWS`), in the spec's order.
    pub enum Window("window") {
        /// One turn of a conversation (the default of `select_for_window`).
        Turn = "turn",
        /// A visit.
        Visit = "visit",
        /// A nap.
        Nap = "nap",
        /// A cycle.
        Cycle = "cycle",
        /// A night.
        Night = "night",
        /// Idle time.
        Idle = "idle",
    }
}

am_triples::vocabulary! {
    /// Where a task stands. `pending`, `deferred` and `leased` are live.
    pub enum TaskStatus("task status") {
        /// Waiting to be claimed.
        Pending = "pending",
        /// Claimed by a holder until its lease ends.
        Leased = "leased",
        /// Released with `defer`: waits until `not_before`.
        Deferred = "deferred",
        /// Settled (acked, or completed by an understanding verb).
        Done = "done",
        /// Claimed `max_attempts` times without settling.
        Failed = "failed",
        /// Released with `skip` (terminal).
        Skipped = "skipped",
        /// Replaced by a newer basis, a later version or a declaration.
        Superseded = "superseded",
    }
}

impl TaskStatus {
    /// Whether the task still waits for work (`pending`, `deferred`,
    /// `leased`).
    pub fn is_live(self) -> bool {
        matches!(
            self,
            TaskStatus::Pending | TaskStatus::Deferred | TaskStatus::Leased
        )
    }
}

impl TaskKind {
    /// The capability a task of this kind needs: `summaries` for the
    /// authoring and rewrite kinds, `understanding` for dreams and ripples.
    pub fn capability(self) -> &'static str {
        match self {
            TaskKind::TitleAuthor
            | TaskKind::DigestAuthor
            | TaskKind::DigestRewrite
            | TaskKind::CardAuthor => "summaries",
            _ => "understanding",
        }
    }

    /// The only windows a task of this kind may run in, when restricted:
    /// `dream.narrate` in `night` and `nap`, `ripple.consolidate` in `night`.
    pub fn window_only(self) -> Option<&'static [Window]> {
        match self {
            TaskKind::DreamNarrate => Some(&[Window::Night, Window::Nap]),
            TaskKind::RippleConsolidate => Some(&[Window::Night]),
            _ => None,
        }
    }
}

/// The capabilities a host's readers declare (`capabilities=` of
/// `select_for_window`).
pub const CAPABILITIES: [&str; 2] = ["summaries", "understanding"];

/// One stored task: the spec's task dict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskRow {
    /// `H(kind|target_id|basis)[:32]`.
    pub task_id: String,
    /// What the task asks for.
    pub kind: TaskKind,
    /// The capability it needs ([`TaskKind::capability`]).
    pub capability: String,
    /// The record (graph id or assertion id) the task is about.
    pub target_id: String,
    /// The target's digest assertion id, when known (`""` otherwise).
    pub assertion_id: String,
    /// The target's scope.
    pub scope: String,
    /// The target's owner.
    pub owner_id: String,
    /// What the task is based on (a version mark of the target).
    pub basis: String,
    /// The target's version the basis names.
    pub basis_version: i64,
    /// The incoming signal in [0, 1].
    pub strength: f64,
    /// Why it was queued (a cause name or a mapping).
    pub cause: Value,
    /// Lower runs first.
    pub priority: i64,
    /// Tasks that must settle first.
    pub depends_on: Vec<String>,
    /// Not claimable before this instant.
    pub not_before: Option<String>,
    /// The windows it may run in (empty: every window).
    pub windows: Vec<Window>,
    /// The caller's estimate of its cost, in seconds.
    pub cost_hint: Option<f64>,
    /// Claims allowed before it fails.
    pub max_attempts: i64,
    /// Claims spent.
    pub attempts: i64,
    /// Where it stands.
    pub status: TaskStatus,
    /// The current (or last) lease holder.
    pub holder: Option<String>,
    /// When the current lease ends.
    pub lease_until: Option<String>,
    /// The ripple it belongs to.
    pub ripple_id: Option<String>,
    /// Its hop in that ripple.
    pub hop: Option<i64>,
    /// The settled result (`ack`'s `result`, a verb's outcome).
    pub result: Option<Value>,
    /// Why it failed or was skipped or superseded.
    pub error: Option<Value>,
    /// The task that superseded it.
    pub superseded_by: Option<String>,
    /// When it was queued.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

/// One row of a task's log (`memq_log`): every transition, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskLogRow {
    /// The log's own order (assigned when stored; 0 before).
    pub seq: i64,
    /// The task.
    pub task_id: String,
    /// When.
    pub at: String,
    /// What happened (`enqueued`, `claimed`, `acked`, `released`, `expired`,
    /// `failed`, `superseded`, `prioritized`, `completed`).
    pub event: String,
    /// Who (a lease holder), when someone.
    pub holder: Option<String>,
    /// The transition's particulars.
    pub detail: Value,
}

/// One claimed window (`memq_windows`): what a holder's claim of a
/// selection took and left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WindowRow {
    /// The table's own order (assigned when stored; 0 before).
    pub seq: i64,
    /// The claiming holder.
    pub holder: String,
    /// The window.
    pub window: Window,
    /// When it was claimed.
    pub at: String,
    /// The task ids claimed.
    pub claimed: Vec<String>,
    /// The selection's `left_out` items.
    pub left_out: Vec<Value>,
}

/// Which tasks a [`TaskReads::tasks`] read returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskFilter {
    /// Only these statuses (`None`: every status).
    pub statuses: Option<Vec<TaskStatus>>,
    /// Only this kind.
    pub kind: Option<TaskKind>,
    /// Only tasks on this target.
    pub target_id: Option<String>,
    /// Only tasks of this ripple.
    pub ripple_id: Option<String>,
    /// At most this many, in queue order (0: unbounded).
    pub limit: usize,
}

impl TaskFilter {
    /// The live tasks (`pending`, `deferred`, `leased`).
    pub fn live() -> Self {
        TaskFilter {
            statuses: Some(vec![
                TaskStatus::Pending,
                TaskStatus::Deferred,
                TaskStatus::Leased,
            ]),
            ..TaskFilter::default()
        }
    }

    /// Whether `t` passes this filter (the limit aside).
    pub fn matches(&self, t: &TaskRow) -> bool {
        self.statuses.as_ref().is_none_or(|s| s.contains(&t.status))
            && self.kind.is_none_or(|k| k == t.kind)
            && self.target_id.as_ref().is_none_or(|x| *x == t.target_id)
            && self
                .ripple_id
                .as_ref()
                .is_none_or(|r| t.ripple_id.as_deref() == Some(r.as_str()))
    }
}

/// The reads of a home's task rows (outside a transaction through
/// `MemoryHome::read_tasks`, inside one through `HomeTx::tasks`, where they
/// see the transaction's own writes).
///
/// # Contract
/// - `tasks` returns the tasks passing the filter in queue order (the order
///   they were first stored), at most `limit` (0: all); `live` returns
///   `tasks(&TaskFilter::live())`'s rows.
/// - `task` returns the row stored under that id, the transaction's latest
///   write of it included.
/// - `log` returns a task's log rows oldest first; `done_of_kind` the `done`
///   tasks of a kind, the most recently changed first, at most `limit`.
/// - `windows` returns the latest claimed window of each `(holder, window)`
///   pair passing the given filters, oldest first.
pub trait TaskReads {
    /// The task stored under `task_id`.
    ///
    /// # Errors
    /// `Storage`.
    fn task(&self, task_id: &str) -> HomeResult<Option<TaskRow>>;
    /// The tasks passing `filter`.
    ///
    /// # Errors
    /// `Storage`.
    fn tasks(&self, filter: &TaskFilter) -> HomeResult<Vec<TaskRow>>;
    /// The live tasks (`pending`, `deferred`, `leased` as stored) in queue
    /// order, shared: a store with a live index answers without copying a
    /// row (the default copies [`TaskReads::tasks`]'s answer).
    ///
    /// # Errors
    /// `Storage`.
    fn live(&self) -> HomeResult<Vec<Arc<TaskRow>>> {
        Ok(self
            .tasks(&TaskFilter::live())?
            .into_iter()
            .map(Arc::new)
            .collect())
    }
    /// A task's log, oldest first.
    ///
    /// # Errors
    /// `Storage`.
    fn log(&self, task_id: &str) -> HomeResult<Vec<TaskLogRow>>;
    /// The `done` tasks of `kind`, most recently settled first.
    ///
    /// # Errors
    /// `Storage`.
    fn done_of_kind(&self, kind: TaskKind, limit: usize) -> HomeResult<Vec<TaskRow>>;
    /// The latest claimed window of each `(holder, window)`.
    ///
    /// # Errors
    /// `Storage`.
    fn windows(&self, holder: Option<&str>, window: Option<Window>) -> HomeResult<Vec<WindowRow>>;
}

/// The task rows' writes inside a home transaction; they land with the
/// transaction's other writes or not at all.
///
/// # Contract
/// - `put` stores the row under its `task_id`, replacing an earlier one and
///   keeping its queue order.
/// - `append_log` / `put_window` append (their `seq` is assigned).
/// - A failing write fails the transaction's body: the caller returns the
///   error and nothing of the transaction lands.
pub trait TasksTx: TaskReads {
    /// Store `task`.
    ///
    /// # Errors
    /// `Storage` (or an injected fault).
    fn put(&mut self, task: &TaskRow) -> HomeResult<()>;
    /// Append a log row.
    ///
    /// # Errors
    /// `Storage`.
    fn append_log(&mut self, row: &TaskLogRow) -> HomeResult<()>;
    /// Append a claimed window.
    ///
    /// # Errors
    /// `Storage`.
    fn put_window(&mut self, row: &WindowRow) -> HomeResult<()>;
}

/// The spec's `TASK_KINDS` ([`TaskKind`]).
pub const TASK_KINDS: [&str; 7] = TaskKind::NAMES;
/// The spec's `WINDOWS` ([`Window`]).
pub const WINDOWS: [&str; 6] = Window::NAMES;
/// The task statuses ([`TaskStatus`]).
pub const TASK_STATUSES: [&str; 7] = TaskStatus::NAMES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_kinds_and_windows_are_the_specs() {
        assert_eq!(
            TASK_KINDS,
            [
                "title.author",
                "digest.author",
                "digest.rewrite",
                "card.author",
                "dream.narrate",
                "ripple.reconsider",
                "ripple.consolidate"
            ]
        );
        assert_eq!(WINDOWS, ["turn", "visit", "nap", "cycle", "night", "idle"]);
        assert_eq!(
            serde_json::to_string(&TaskKind::RippleReconsider).unwrap(),
            "\"ripple.reconsider\""
        );
        assert!(Window::parse("weekend").is_err());
    }
}
