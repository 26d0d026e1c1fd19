//! The memory task queue (`system.tasks()`): what still needs understanding,
//! and the host's windows that drain it.
//!
//! [`TaskQueue`] borrows the [`MemorySystem`] (its home, clock and store) and
//! carries the spec's `MemoryTaskQueue` methods. It owns no state: the rows
//! live in the home (the SQLite home's `memq_*` tables, the in-memory pair's
//! [`am_journal::InMemoryTaskQueue`]), every write is one
//! `MemoryHome::transaction` at its `tasks.*` commit point, and every rule
//! lives here once, whatever the home.
//!
//! Time is the engine clock; every method's `now` overrides it, so leases,
//! expiry and `not_before` are testable without sleeping. A lease whose end
//! has passed reads as returned (`pending`), or as `failed` when its task
//! spent `max_attempts` claims; the next claim writes that down.
//!
//! Choices the spec leaves open (ours): lower `priority` runs first; a task
//! queued without one gets `pending_priority` for the formation kinds, else
//! [`gate::DEFAULT_PRIORITY`]; a task's cost is `cost_of` when given, else
//! its `cost_hint`, else the median `result.seconds` of its kind's last
//! [`gate::RECENT_COST_SAMPLES`] completed tasks, else
//! [`gate::DEFAULT_TASK_SECONDS`]; a basis is stale against the target's
//! `title_version` (`title.author`), `narration_version` (`dream.narrate`)
//! or `digest_version` (the other record kinds; ripple tasks are not
//! checked); a live task of the same kind and target with a lower
//! `basis_version` is superseded by a newer basis, one with a higher makes
//! the new basis stale.
//!
//! Spec: api.md "The memory task queue: understanding in the background".

pub mod args;
pub mod debt;
pub(crate) mod formation;
pub mod gate;
pub mod maintenance;
mod mirror;
pub mod reads;
mod select;

use crate::record::DigestRow;
pub use args::{
    Ack, AckResult, Claim, ClaimResult, ClaimTasks, DEFAULT_MAX_ATTEMPTS, Enqueue, EnqueueMany,
    EnqueueResult, LastMaintenance, LeftOut, LeftOutReason, ListTasks, MaintenanceKind, Prioritize,
    RecordMaintenance, Refusal, Release, ReleaseOutcome, ReleaseResult, SelectForWindow,
    SelectedTask, SelectionRef, TaskCounts, TaskRef, WindowSelection,
};
pub use debt::{
    DebtReport, DebtTask, EnqueueDebt, EnqueueDebtReport, TaskPacket, UnderstandingDebt,
};
pub use formation::MECHANICAL_DIGEST_METHODS;
pub use gate::{
    CHANGE_MAGNITUDE, COMMUNITY_PRIORITY, DECAY, DEFAULT_PRIORITY, DEFAULT_TASK_SECONDS,
    FORMATION_PRIORITY, GATE_FLOOR, GATE_K, GATE_THETA, Gate, MAX_HOPS, PENDING_TASK_KINDS,
    RECENT_COST_SAMPLES, RELATION_WEIGHTS, RIPPLE_BUDGET, RIPPLE_WINDOW_CAP, activation,
    pending_priority,
};
pub use maintenance::{MAINTENANCE_TABLE, MaintenanceRow};
pub use reads::{PendingRecord, PendingRecords};

use crate::error::{Error, Result};
use crate::system::MemorySystem;
use am_journal::{
    TaskFilter, TaskKind, TaskLogRow, TaskReads, TaskRow, TaskStatus, TasksTx, Window, WindowRow,
};
use am_triples::{CommitPoint, Timestamp, TripleAssertion};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// A host's `cost_of(task) -> seconds` (`None`: no opinion).
pub type CostOf = dyn Fn(&TaskRow) -> Option<f64>;

/// `H(kind|target_id|basis)[:32]`: a task's id (lowercase sha256 hex).
pub fn task_id(kind: TaskKind, target_id: &str, basis: &str) -> String {
    am_journal::common::hash_hex(&format!("{}|{}|{}", kind.as_str(), target_id, basis), 32)
}

/// The system's memory task queue: see the module docs.
#[derive(Clone, Copy)]
pub struct TaskQueue<'a> {
    sys: &'a MemorySystem,
}

impl std::fmt::Debug for TaskQueue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskQueue").finish_non_exhaustive()
    }
}

impl MemorySystem {
    /// The home's memory task queue (`system.tasks`).
    ///
    /// # Errors
    /// `InvalidInput` when the system was opened without `task_queue: true`.
    pub fn tasks(&self) -> Result<TaskQueue<'_>> {
        if !self.home.has_task_queue() {
            return Err(Error::invalid(
                "this system has no memory task queue: open the home with MemorySystem(task_queue=True) \
                 (SystemOptions { task_queue: true, .. })",
            ));
        }
        Ok(TaskQueue { sys: self })
    }

    /// Whether the system's home keeps a task queue.
    pub fn has_task_queue(&self) -> bool {
        self.home.has_task_queue()
    }

    /// Refuse `verb` on a home opened without the task queue, before it reads
    /// or writes anything: memory's own passes run only on a home with its
    /// queue (a pending title or summary is stored beside its task). api.md
    /// "ValueError: ... open the home with MemorySystem(task_queue=True)".
    ///
    /// # Errors
    /// `InvalidInput` naming `verb` and `task_queue` when the home has no
    /// queue.
    pub(crate) fn require_task_queue(&self, verb: &str) -> Result<()> {
        if self.home.has_task_queue() {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "{verb} refused before anything was read or written: memory's passes run on a home \
             with its task queue (a pending title or summary is stored only beside its task); \
             open the home with MemorySystem(task_queue=True) (SystemOptions {{ task_queue: true, .. }})"
        )))
    }
}

/// A task's status as of `now`: an expired lease is returned (`pending`), or
/// `failed` once the task spent `max_attempts` claims.
pub(crate) fn effective(t: &TaskRow, now: &str) -> TaskStatus {
    if t.status == TaskStatus::Leased && t.lease_until.as_deref().is_none_or(|u| u <= now) {
        if t.attempts >= t.max_attempts {
            TaskStatus::Failed
        } else {
            TaskStatus::Pending
        }
    } else {
        t.status
    }
}

/// `t` as it reads at `now` (its effective status).
fn view(mut t: TaskRow, now: &str) -> TaskRow {
    t.status = effective(&t, now);
    t
}

fn log_row(
    task_id: &str,
    at: &str,
    event: &str,
    holder: Option<&str>,
    detail: Value,
) -> TaskLogRow {
    TaskLogRow {
        seq: 0,
        task_id: task_id.to_owned(),
        at: at.to_owned(),
        event: event.to_owned(),
        holder: holder.map(str::to_owned),
        detail,
    }
}

fn add_seconds(now: &str, seconds: f64) -> Result<String> {
    let t = am_triples::timestamp::parse_timestamp(now)?;
    let d = time::Duration::seconds_f64(seconds);
    Ok(am_triples::timestamp::format_utc(t + d))
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        f64::midpoint(v[n / 2 - 1], v[n / 2])
    })
}

/// One validated enqueue, ready to apply inside a transaction.
#[derive(Debug, Clone)]
pub(crate) struct PlannedEnqueue {
    pub(crate) row: TaskRow,
    /// The target's current version, when the target is a known record.
    pub(crate) current_version: Option<i64>,
}

/// Store `plan` in `tx` with the enqueue rules (idempotent by id,
/// `stale_basis`, a newer basis supersedes): the one enqueue step, shared
/// by `enqueue` and formation.
pub(crate) fn enqueue_in(tx: &mut dyn TasksTx, plan: &PlannedEnqueue) -> Result<EnqueueResult> {
    let row = &plan.row;
    let mut out = EnqueueResult {
        task_id: row.task_id.clone(),
        enqueued: false,
        superseded: Vec::new(),
        reason: None,
    };
    if tx.task(&row.task_id)?.is_some() {
        return Ok(out);
    }
    if plan.current_version.is_some_and(|v| row.basis_version < v) {
        out.reason = Some("stale_basis".to_owned());
        return Ok(out);
    }
    let same = tx.tasks(&TaskFilter {
        kind: Some(row.kind),
        target_id: Some(row.target_id.clone()),
        ..TaskFilter::live()
    })?;
    if same.iter().any(|t| t.basis_version > row.basis_version) {
        out.reason = Some("stale_basis".to_owned());
        return Ok(out);
    }
    for mut older in same
        .into_iter()
        .filter(|t| t.basis_version < row.basis_version)
    {
        older.status = TaskStatus::Superseded;
        older.superseded_by = Some(row.task_id.clone());
        older.error = Some(json!({"reason": "newer_basis"}));
        older.lease_until = None;
        older.updated_at = row.created_at.clone();
        tx.put(&older)?;
        tx.append_log(&log_row(
            &older.task_id,
            &row.created_at,
            "superseded",
            None,
            json!({"reason": "newer_basis", "by": row.task_id}),
        ))?;
        out.superseded.push(older.task_id);
    }
    tx.put(row)?;
    tx.append_log(&log_row(
        &row.task_id,
        &row.created_at,
        "enqueued",
        None,
        json!({"basis": row.basis, "basis_version": row.basis_version, "strength": row.strength,
               "priority": row.priority, "cause": row.cause}),
    ))?;
    out.enqueued = true;
    Ok(out)
}

/// Complete the live tasks among `ids` in `tx` (an understanding verb's
/// settlement, in its own transaction): status `done` with `result`, one
/// `completed` log row each. Returns the ids completed.
pub(crate) fn complete_in(
    tx: &mut dyn TasksTx,
    ids: &[String],
    now: &str,
    result: &Value,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for id in ids {
        let Some(mut t) = tx.task(id)? else { continue };
        if !effective(&t, now).is_live() {
            continue;
        }
        t.status = TaskStatus::Done;
        t.result = Some(result.clone());
        t.lease_until = None;
        t.updated_at = now.to_owned();
        tx.put(&t)?;
        tx.append_log(&log_row(
            id,
            now,
            "completed",
            t.holder.as_deref(),
            result.clone(),
        ))?;
        out.push(id.clone());
    }
    Ok(out)
}

/// Supersede the live tasks among `ids` in `tx` (with `reason`), one
/// `superseded` log row each. Returns the ids superseded.
pub(crate) fn supersede_in(
    tx: &mut dyn TasksTx,
    ids: &[String],
    reason: &str,
    now: &str,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for id in ids {
        let Some(mut t) = tx.task(id)? else { continue };
        if !effective(&t, now).is_live() {
            continue;
        }
        t.status = TaskStatus::Superseded;
        t.error = Some(json!({"reason": reason}));
        t.lease_until = None;
        t.updated_at = now.to_owned();
        tx.put(&t)?;
        tx.append_log(&log_row(
            id,
            now,
            "superseded",
            None,
            json!({"reason": reason}),
        ))?;
        out.push(id.clone());
    }
    Ok(out)
}

/// The version of `kind`'s field on a record row.
fn current_version(kind: TaskKind, row: &TripleAssertion) -> Option<i64> {
    let key = match kind {
        TaskKind::TitleAuthor => "title_version",
        TaskKind::DreamNarrate => "narration_version",
        TaskKind::RippleReconsider | TaskKind::RippleConsolidate => return None,
        _ => "digest_version",
    };
    Some(DigestRow::of(row).version(key))
}

impl<'a> TaskQueue<'a> {
    /// The digest rows of the known records among `keys` (assertion ids or
    /// graph ids), keyed by the key; an unknown key is absent (a task may
    /// name a target that is not a record, or not yet one).
    fn target_rows(&self, keys: &[String]) -> Result<HashMap<String, TripleAssertion>> {
        // Deduplicated in order through a set (a batch of n keys compared
        // pairwise was O(n^2): an `enqueue_many` of 1,000 tasks spent about a
        // fifth of its instructions here).
        let mut seen: HashSet<&str> = HashSet::with_capacity(keys.len());
        let wanted: Vec<String> = keys
            .iter()
            .filter(|k| !k.is_empty() && seen.insert(k.as_str()))
            .cloned()
            .collect();
        let mut out: HashMap<String, TripleAssertion> = HashMap::new();
        if wanted.is_empty() {
            return Ok(out);
        }
        for a in self.sys.store.query(&am_triples::TripleQuery {
            assertion_ids: Some(wanted.clone()),
            limit: 0,
            ..am_triples::TripleQuery::default()
        })? {
            if let Some(id) = a.assertion_id.clone() {
                out.insert(id, a);
            }
        }
        // The graph ids the id read did not find: their digest row by subject
        // (the by-id half of `resolve_digest_assertion` was the read above),
        // read only for the subjects that have one (one batched read decides
        // which: a task usually names a target that is no record yet, and a
        // miss by subject cost as much as a hit).
        let by_subject: Vec<String> = wanted
            .into_iter()
            .filter(|k| !out.contains_key(k) && k.starts_with("ex:"))
            .collect();
        if by_subject.is_empty() {
            return Ok(out);
        }
        let have = self
            .sys
            .store
            .subjects_with_predicate(&by_subject, crate::kinds::DIGEST_PREDICATE)?;
        for k in by_subject {
            if !have.contains(&k) {
                continue;
            }
            if let Some(row) = self
                .sys
                .store
                .query(&am_triples::TripleQuery {
                    subject: Some(k.clone()),
                    predicate: Some(crate::kinds::DIGEST_PREDICATE.to_owned()),
                    limit: 1,
                    ..am_triples::TripleQuery::default()
                })?
                .into_iter()
                .next()
            {
                out.insert(k, row);
            }
        }
        Ok(out)
    }

    fn now(&self, over: Option<Timestamp>) -> Result<String> {
        Ok(over.unwrap_or_else(|| (self.sys.clock)()).canonical())
    }

    /// Run `f` over the queue's rows in one read.
    fn read<T>(&self, mut f: impl FnMut(&dyn TaskReads) -> Result<T>) -> Result<T> {
        let mut out = None;
        self.sys.home.read_tasks(&mut |r| {
            out = Some(f(r)?);
            Ok(())
        })?;
        out.ok_or_else(|| Error::internal("a task read returned nothing"))
    }

    /// Run `f` inside one home transaction at `point`, over the queue's rows.
    fn write<T>(
        &self,
        point: CommitPoint,
        mut f: impl FnMut(&mut dyn TasksTx) -> Result<T>,
    ) -> Result<T> {
        let mut out = None;
        self.sys.home.transaction(point, &mut |tx| {
            out = Some(f(tx.tasks()?)?);
            Ok(())
        })?;
        out.ok_or_else(|| Error::internal("a task transaction returned nothing"))
    }

    /// Validate `args` into rows ready to store (no write).
    pub(crate) fn plan_enqueues(&self, args: &[Enqueue]) -> Result<Vec<PlannedEnqueue>> {
        let mut targets: Vec<String> = Vec::new();
        for a in args {
            let id = if a.assertion_id.trim().is_empty() {
                a.target_id.trim()
            } else {
                a.assertion_id.trim()
            };
            if !id.is_empty() {
                targets.push(id.to_owned());
            }
        }
        let rows = self.target_rows(&targets)?;
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            let now = self.now(a.now)?;
            let row = validate_enqueue(a, &now)?;
            let key = if a.assertion_id.trim().is_empty() {
                a.target_id.trim()
            } else {
                a.assertion_id.trim()
            };
            let record = rows.get(key);
            let mut row = row;
            if row.assertion_id.is_empty()
                && let Some(r) = record
            {
                row.assertion_id = r.assertion_id.clone().unwrap_or_default();
            }
            out.push(PlannedEnqueue {
                current_version: record.and_then(|r| current_version(a.kind, r)),
                row,
            });
        }
        Ok(out)
    }

    /// `enqueue`: queue one task (idempotent by `task_id = H(kind|target|basis)`).
    /// A basis older than the record's current version is refused
    /// (`reason: "stale_basis"`, nothing written); a newer one supersedes the
    /// older pending task.
    ///
    /// # Errors
    /// `InvalidInput` for a strength outside [0, 1], an empty target, basis,
    /// scope or owner, a bad timestamp, a window a window-only kind never
    /// runs in (`max_attempts` is positive by its type: a 0 is refused where
    /// the arguments are read); the home's failure.
    pub fn enqueue(&self, args: &Enqueue) -> Result<EnqueueResult> {
        Ok(self
            .enqueue_many(std::slice::from_ref(args))?
            .pop()
            .unwrap_or_else(|| unreachable_result(args)))
    }

    /// `enqueue` of many tasks in ONE transaction (each with `enqueue`'s
    /// rules, in order; all or nothing).
    ///
    /// # Errors
    /// As [`TaskQueue::enqueue`], for any of them; nothing is written.
    pub fn enqueue_many(&self, args: &[Enqueue]) -> Result<Vec<EnqueueResult>> {
        let plans = self.plan_enqueues(args)?;
        if plans.is_empty() {
            return Ok(Vec::new());
        }
        self.write(CommitPoint::TasksEnqueue, |tx| {
            plans.iter().map(|p| enqueue_in(tx, p)).collect()
        })
    }

    /// A task's cost in seconds: its `cost_hint`, else the median
    /// `result.seconds` of its kind's recent completed tasks, else
    /// [`DEFAULT_TASK_SECONDS`] (`cost_of(task)`).
    ///
    /// # Errors
    /// The home's read failure.
    pub fn cost_of(&self, task: &TaskRow) -> Result<f64> {
        if let Some(h) = task.cost_hint {
            return Ok(h);
        }
        let kind = task.kind;
        Ok(self
            .read(|r| kind_median(r, kind))?
            .unwrap_or(DEFAULT_TASK_SECONDS))
    }

    /// `select_for_window`: a pure read of the tasks this window should run,
    /// in run order; every live task is either selected or left out with
    /// exactly one reason.
    ///
    /// # Errors
    /// `InvalidInput` for a negative or non-finite budget or sensitivity, a
    /// bad `now`, an unknown capability; the home's read failure.
    pub fn select_for_window(&self, args: &SelectForWindow) -> Result<WindowSelection> {
        self.select_for_window_costed(args, None)
    }

    /// [`TaskQueue::select_for_window`] with the host's `cost_of(task) ->
    /// seconds` (a `None` answer falls back as without it).
    ///
    /// # Errors
    /// As [`TaskQueue::select_for_window`].
    pub fn select_for_window_costed(
        &self,
        args: &SelectForWindow,
        cost_of: Option<&CostOf>,
    ) -> Result<WindowSelection> {
        if !args.budget_seconds.is_finite() || args.budget_seconds < 0.0 {
            return Err(Error::invalid(format!(
                "budget_seconds must be a finite number of seconds >= 0, got {}",
                args.budget_seconds
            )));
        }
        if !args.sensitivity.is_finite() || args.sensitivity < 0.0 {
            return Err(Error::invalid(format!(
                "sensitivity must be a finite number >= 0, got {}",
                args.sensitivity
            )));
        }
        if let Some(caps) = &args.capabilities
            && let Some(bad) = caps
                .iter()
                .find(|c| !am_journal::CAPABILITIES.contains(&c.as_str()))
        {
            return Err(Error::invalid(format!(
                "capabilities must be within {:?}, got {bad:?}",
                am_journal::CAPABILITIES
            )));
        }
        if let Some(costs) = &args.cost_of
            && let Some((k, v)) = costs.iter().find(|(_, v)| !v.is_finite() || **v < 0.0)
        {
            return Err(Error::invalid(format!(
                "cost_of must map task kinds to seconds >= 0, got {v} for {k}"
            )));
        }
        let now = self.now(args.now)?;
        let (live, live_deps, medians) = self.read(|r| {
            let live: Vec<(Arc<TaskRow>, TaskStatus)> = r
                .live()?
                .into_iter()
                .filter_map(|t| {
                    let s = effective(&t, &now);
                    s.is_live().then_some((t, s))
                })
                .collect();
            let mut deps: HashSet<String> = HashSet::new();
            let mut seen: HashSet<&str> = HashSet::new();
            // The live ids, built only when some live task has a dependency.
            let live_ids: HashSet<&str> = if live.iter().any(|(t, _)| !t.depends_on.is_empty()) {
                live.iter().map(|(t, _)| t.task_id.as_str()).collect()
            } else {
                HashSet::new()
            };
            for (t, _) in &live {
                for d in &t.depends_on {
                    if !seen.insert(d.as_str()) {
                        continue;
                    }
                    let is_live = if live_ids.contains(d.as_str()) {
                        true
                    } else {
                        r.task(d)?.is_some_and(|x| effective(&x, &now).is_live())
                    };
                    if is_live {
                        deps.insert(d.clone());
                    }
                }
            }
            let mut medians: HashMap<TaskKind, Option<f64>> = HashMap::new();
            for (t, _) in &live {
                if t.cost_hint.is_none() && !medians.contains_key(&t.kind) {
                    medians.insert(t.kind, kind_median(r, t.kind)?);
                }
            }
            Ok((live, deps, medians))
        })?;
        let cost = |t: &TaskRow| -> f64 {
            cost_of
                .and_then(|f| f(t))
                .or_else(|| args.cost_of.as_ref().and_then(|m| m.get(&t.kind).copied()))
                .or(t.cost_hint)
                .or_else(|| medians.get(&t.kind).copied().flatten())
                .unwrap_or(DEFAULT_TASK_SECONDS)
        };
        Ok(select::decide(
            args,
            &select::SelectionInputs {
                live: &live,
                live_deps: &live_deps,
                cost: &cost,
                now: &now,
            },
        ))
    }

    /// `claim`: lease a selection (its window and `left_out` are recorded)
    /// or a list of task ids. Each claim spends one attempt; an expired
    /// lease returns the task; a task claimed `max_attempts` times without
    /// settling fails (`refused` with `max_attempts`). Each claim of a
    /// pending record's `title.author` / `digest.author` is mirrored into
    /// its marker's `attempts` in the same transaction.
    ///
    /// # Errors
    /// `InvalidInput` for an empty holder, a lease that is not a positive
    /// number of seconds, a bad `now`; the home's failure.
    pub fn claim(&self, args: &Claim) -> Result<ClaimResult> {
        let holder = args.holder.trim();
        if holder.is_empty() {
            return Err(Error::invalid(
                "claim needs a holder (who leases the tasks), got an empty one",
            ));
        }
        if !args.lease_seconds.is_finite() || args.lease_seconds <= 0.0 {
            return Err(Error::invalid(format!(
                "lease_seconds must be a positive number of seconds, got {}",
                args.lease_seconds
            )));
        }
        let now = self.now(args.now)?;
        let until = add_seconds(&now, args.lease_seconds)?;
        let (ids, window, left_out): (Vec<String>, Option<Window>, Vec<Value>) = match &args.tasks {
            ClaimTasks::Ids(ids) => (ids.clone(), args.window, Vec::new()),
            ClaimTasks::Selection(s) => (
                s.tasks.iter().map(|t| t.task_id.clone()).collect(),
                Some(args.window.unwrap_or(s.window)),
                s.left_out.clone(),
            ),
        };
        let mut unique: Vec<String> = Vec::new();
        for id in ids {
            let id = id.trim().to_owned();
            if !id.is_empty() && !unique.contains(&id) {
                unique.push(id);
            }
        }
        // A row another writer moved between the mirror's read and the
        // claim's write fails the transaction (`Conflict`): read again.
        let mut tries = 0;
        loop {
            let mirrors = self.plan_mirrors(&unique, &now)?;
            let ran = self.claim_in(&unique, &mirrors, (holder, &now, &until), window, &left_out);
            match ran {
                Err(e) if e.kind() == am_triples::ErrorKind::Conflict && tries < 3 => tries += 1,
                other => return other,
            }
        }
    }

    /// `claim`'s transaction: the claims of `unique`, the window row, the
    /// markers' `attempts` mirrored.
    fn claim_in(
        &self,
        unique: &[String],
        mirrors: &[mirror::Mirror],
        (holder, now, until): (&str, &String, &String),
        window: Option<Window>,
        left_out: &[Value],
    ) -> Result<ClaimResult> {
        let (now, until) = (now.clone(), until.clone());
        let mut result = None;
        self.sys
            .home
            .transaction(CommitPoint::TasksClaim, &mut |home| {
                let tx = home.tasks()?;
                let mut out = ClaimResult::default();
                for id in unique {
                    let refuse = |reason: &str| Refusal {
                        task_id: id.clone(),
                        reason: reason.to_owned(),
                    };
                    let Some(mut t) = tx.task(id)? else {
                        out.refused.push(refuse("unknown_task"));
                        continue;
                    };
                    let expired = t.status == TaskStatus::Leased && effective(&t, &now) != t.status;
                    let status = effective(&t, &now);
                    if status == TaskStatus::Failed && expired {
                        t.status = TaskStatus::Failed;
                        t.error = Some(json!({"reason": "max_attempts", "attempts": t.attempts}));
                        t.lease_until = None;
                        t.updated_at = now.clone();
                        tx.put(&t)?;
                        tx.append_log(&log_row(
                            id,
                            &now,
                            "failed",
                            None,
                            json!({"reason": "max_attempts", "attempts": t.attempts}),
                        ))?;
                        out.refused.push(refuse("max_attempts"));
                        continue;
                    }
                    if !status.is_live() {
                        out.refused.push(refuse(status.as_str()));
                        continue;
                    }
                    if status == TaskStatus::Leased {
                        out.refused.push(refuse("leased"));
                        continue;
                    }
                    if t.not_before.as_deref().is_some_and(|nb| nb > now.as_str()) {
                        out.refused.push(refuse("not_before"));
                        continue;
                    }
                    let mut blocked = false;
                    for d in &t.depends_on {
                        if tx.task(d)?.is_some_and(|x| effective(&x, &now).is_live()) {
                            blocked = true;
                            break;
                        }
                    }
                    if blocked {
                        out.refused.push(refuse("blocked"));
                        continue;
                    }
                    if t.attempts >= t.max_attempts {
                        t.status = TaskStatus::Failed;
                        t.error = Some(json!({"reason": "max_attempts", "attempts": t.attempts}));
                        t.updated_at = now.clone();
                        tx.put(&t)?;
                        tx.append_log(&log_row(
                            id,
                            &now,
                            "failed",
                            None,
                            json!({"reason": "max_attempts", "attempts": t.attempts}),
                        ))?;
                        out.refused.push(refuse("max_attempts"));
                        continue;
                    }
                    if expired {
                        tx.append_log(&log_row(
                            id,
                            &now,
                            "expired",
                            t.holder.as_deref(),
                            json!({"lease_until": t.lease_until}),
                        ))?;
                    }
                    t.attempts += 1;
                    t.status = TaskStatus::Leased;
                    t.holder = Some(holder.to_owned());
                    t.lease_until = Some(until.clone());
                    t.updated_at = now.clone();
                    tx.put(&t)?;
                    tx.append_log(&log_row(
                        id,
                        &now,
                        "claimed",
                        Some(holder),
                        json!({"attempt": t.attempts, "lease_until": until, "window": window}),
                    ))?;
                    out.claimed.push(t);
                }
                if let Some(w) = window {
                    tx.put_window(&WindowRow {
                        seq: 0,
                        holder: holder.to_owned(),
                        window: w,
                        at: now.clone(),
                        claimed: out.claimed.iter().map(|t| t.task_id.clone()).collect(),
                        left_out: left_out.to_vec(),
                    })?;
                }
                mirror::apply_mirrors(home, mirrors, &out.claimed)?;
                result = Some(out);
                Ok(())
            })?;
        result.ok_or_else(|| Error::internal("a task transaction returned nothing"))
    }

    /// `ack`: settle a task leased by `holder` as done with its `result`. A
    /// task already done (a verb settled it) answers `reason:
    /// "already_done"`, nothing written.
    ///
    /// # Errors
    /// `InvalidInput` for an empty holder or a bad `now`; the home's failure.
    pub fn ack(&self, args: &Ack) -> Result<AckResult> {
        let holder = args.holder.trim().to_owned();
        if holder.is_empty() {
            return Err(Error::invalid(
                "ack needs the lease holder, got an empty one",
            ));
        }
        let now = self.now(args.now)?;
        let no = |reason: &str, task: Option<TaskRow>| AckResult {
            acked: false,
            reason: Some(reason.to_owned()),
            task,
            warnings: Vec::new(),
        };
        // Refusals are decided from a read, so they write nothing.
        let current = self.read(|r| r.task(&args.task_id))?;
        let Some(t) = current else {
            return Ok(no("unknown_task", None));
        };
        if let Some(reason) = unsettleable(&t, &holder, &now, "already_done") {
            return Ok(no(&reason, Some(view(t, &now))));
        }
        let result = args.result.clone();
        let mut out = self.write(CommitPoint::TasksAck, |tx| {
            let Some(mut t) = tx.task(&args.task_id)? else {
                return Ok(no("unknown_task", None));
            };
            if let Some(reason) = unsettleable(&t, &holder, &now, "already_done") {
                return Ok(no(&reason, Some(view(t, &now))));
            }
            t.status = TaskStatus::Done;
            t.result = Some(result.clone());
            t.lease_until = None;
            t.updated_at = now.clone();
            tx.put(&t)?;
            tx.append_log(&log_row(
                &t.task_id,
                &now,
                "acked",
                Some(&holder),
                json!({"result": result}),
            ))?;
            Ok(AckResult {
                acked: true,
                reason: None,
                task: Some(t),
                warnings: Vec::new(),
            })
        })?;
        if out.acked
            && let Some(t) = &out.task
        {
            out.warnings = self.left_pending(t)?;
        }
        Ok(out)
    }

    /// The warning an acked authoring task owes when its field is still
    /// pending on the record and no live task of its kind will write it: the
    /// ack settles the task as the spec says, but never silently.
    fn left_pending(&self, t: &TaskRow) -> Result<Vec<String>> {
        let field = match t.kind {
            TaskKind::TitleAuthor => "title",
            TaskKind::DigestAuthor => "summary",
            _ => return Ok(Vec::new()),
        };
        let row = match self.sys.resolve_digest_assertion(&t.target_id)? {
            Some(row) => Some(row),
            None if !t.assertion_id.is_empty() => {
                self.sys.resolve_digest_assertion(&t.assertion_id)?
            }
            None => None,
        };
        let Some(row) = row else {
            return Ok(Vec::new());
        };
        if !DigestRow::of(&row).pending().iter().any(|f| f == field) {
            return Ok(Vec::new());
        }
        let mut targets = vec![row.subject.clone()];
        targets.extend(row.assertion_id.clone());
        for target in &targets {
            let live = self.tasks(&ListTasks {
                kind: Some(t.kind),
                target_id: Some(target.clone()),
                ..ListTasks::default()
            })?;
            if live.iter().any(|x| x.status.is_live()) {
                return Ok(Vec::new());
            }
        }
        Ok(vec![format!(
            "{kind} task {id} is done but the {field} of record {rec} is still pending and \
             no live task will write it: write it with {verb}, or queue its task again with \
             rearm_pending",
            kind = t.kind.as_str(),
            id = t.task_id,
            rec = row.subject,
            verb = if field == "title" {
                "retitle"
            } else {
                "rewrite_digest"
            },
        )])
    }

    /// `release`: give a leased task back: `retry` (the attempt is spent;
    /// failed at `max_attempts`), `defer` (no attempt spent; not before
    /// `until`), `skip` (terminal; `reason` and `detail` kept).
    ///
    /// # Errors
    /// `InvalidInput` for an empty holder or reason, a bad `until` or `now`;
    /// the home's failure.
    pub fn release(&self, args: &Release) -> Result<ReleaseResult> {
        let holder = args.holder.trim().to_owned();
        if holder.is_empty() || args.reason.trim().is_empty() {
            return Err(Error::invalid(format!(
                "release needs the lease holder and a reason, got holder={:?} reason={:?}",
                args.holder, args.reason
            )));
        }
        let now = self.now(args.now)?;
        let until = args.until.map(Timestamp::canonical);
        let no = |reason: &str, task: Option<TaskRow>| ReleaseResult {
            released: false,
            reason: Some(reason.to_owned()),
            task,
        };
        let current = self.read(|r| r.task(&args.task_id))?;
        let Some(t) = current else {
            return Ok(no("unknown_task", None));
        };
        if let Some(reason) = unsettleable(&t, &holder, &now, "done") {
            return Ok(no(&reason, Some(view(t, &now))));
        }
        self.write(CommitPoint::TasksRelease, |tx| {
            let Some(mut t) = tx.task(&args.task_id)? else {
                return Ok(no("unknown_task", None));
            };
            if let Some(reason) = unsettleable(&t, &holder, &now, "done") {
                return Ok(no(&reason, Some(view(t, &now))));
            }
            let why = json!({"reason": args.reason, "detail": args.detail});
            match args.outcome {
                ReleaseOutcome::Defer => {
                    t.status = TaskStatus::Deferred;
                    t.not_before.clone_from(&until);
                    t.attempts = (t.attempts - 1).max(0);
                }
                ReleaseOutcome::Skip => {
                    t.status = TaskStatus::Skipped;
                    t.error = Some(why.clone());
                }
                _ => {
                    if t.attempts >= t.max_attempts {
                        t.status = TaskStatus::Failed;
                        t.error = Some(why.clone());
                    } else {
                        t.status = TaskStatus::Pending;
                    }
                }
            }
            t.lease_until = None;
            t.updated_at = now.clone();
            tx.put(&t)?;
            tx.append_log(&log_row(
                &t.task_id,
                &now,
                "released",
                Some(&holder),
                json!({"outcome": args.outcome, "reason": args.reason, "until": until,
                       "detail": args.detail, "status": t.status}),
            ))?;
            Ok(ReleaseResult {
                released: true,
                reason: None,
                task: Some(t),
            })
        })
    }

    /// `left_out`: what the last claimed window of each `(holder, window)`
    /// left out, and why (each row with its claimed task ids).
    ///
    /// # Errors
    /// The home's read failure.
    pub fn left_out(&self, holder: Option<&str>, window: Option<Window>) -> Result<Vec<WindowRow>> {
        self.read(|r| r.windows(holder, window))
    }

    /// `task(task_id)`: the task as it reads now, or `None`.
    ///
    /// # Errors
    /// The home's read failure.
    pub fn task(&self, task_id: &str) -> Result<Option<TaskRow>> {
        let now = self.now(None)?;
        Ok(self.read(|r| r.task(task_id))?.map(|t| view(t, &now)))
    }

    /// `tasks(...)`: the tasks passing the filters, in queue order.
    ///
    /// # Errors
    /// `InvalidInput` for a bad `now`; the home's read failure.
    pub fn tasks(&self, args: &ListTasks) -> Result<Vec<TaskRow>> {
        let now = self.now(args.now)?;
        let filter = TaskFilter {
            statuses: None,
            kind: args.kind,
            target_id: args.target_id.clone(),
            ripple_id: args.ripple_id.clone(),
            limit: 0,
        };
        let mut out: Vec<TaskRow> = self
            .read(|r| r.tasks(&filter))?
            .into_iter()
            .map(|t| view(t, &now))
            .filter(|t| args.status.is_none_or(|s| s == t.status))
            .collect();
        if args.limit > 0 {
            out.truncate(args.limit);
        }
        Ok(out)
    }

    /// `log(task_id)`: the task's transitions, oldest first.
    ///
    /// # Errors
    /// The home's read failure.
    pub fn log(&self, task_id: &str) -> Result<Vec<TaskLogRow>> {
        self.read(|r| r.log(task_id))
    }

    /// `counts()`: tasks per status and per kind and status, as of now.
    ///
    /// # Errors
    /// The home's read failure.
    pub fn counts(&self) -> Result<TaskCounts> {
        let now = self.now(None)?;
        let all = self.read(|r| r.tasks(&TaskFilter::default()))?;
        let mut c = TaskCounts::default();
        for t in all {
            let s = effective(&t, &now);
            c.total += 1;
            if s.is_live() {
                c.live += 1;
            }
            *c.by_status.entry(s.as_str().to_owned()).or_default() += 1;
            *c.by_kind
                .entry(t.kind.as_str().to_owned())
                .or_default()
                .entry(s.as_str().to_owned())
                .or_default() += 1;
        }
        Ok(c)
    }

    /// `supersede_stale(system)`: supersede every live task whose target
    /// record has moved past the task's `basis_version`; returns their ids.
    ///
    /// # Errors
    /// The home's failure.
    pub fn supersede_stale(&self) -> Result<Vec<String>> {
        let now = self.now(None)?;
        let live = self.read(|r| r.tasks(&TaskFilter::live()))?;
        let targets: Vec<String> = live
            .iter()
            .map(|t| {
                if t.assertion_id.is_empty() {
                    t.target_id.clone()
                } else {
                    t.assertion_id.clone()
                }
            })
            .collect();
        let rows = self.target_rows(&targets)?;
        let stale: Vec<String> = live
            .iter()
            .zip(&targets)
            .filter(|(t, key)| {
                rows.get(key.as_str())
                    .and_then(|r| current_version(t.kind, r))
                    .is_some_and(|v| t.basis_version < v)
            })
            .map(|(t, _)| t.task_id.clone())
            .collect();
        self.supersede_ids(&stale, "stale_basis", &now)
    }

    /// `supersede_target(target_id, reason)`: supersede every live task on
    /// the target; returns their ids.
    ///
    /// # Errors
    /// `InvalidInput` for an empty target or reason; the home's failure.
    pub fn supersede_target(&self, target_id: &str, reason: &str) -> Result<Vec<String>> {
        if target_id.trim().is_empty() || reason.trim().is_empty() {
            return Err(Error::invalid(format!(
                "supersede_target needs a target and a reason, got target={target_id:?} reason={reason:?}"
            )));
        }
        let now = self.now(None)?;
        let ids: Vec<String> = self
            .read(|r| {
                r.tasks(&TaskFilter {
                    target_id: Some(target_id.trim().to_owned()),
                    ..TaskFilter::live()
                })
            })?
            .into_iter()
            .map(|t| t.task_id)
            .collect();
        self.supersede_ids(&ids, reason.trim(), &now)
    }

    fn supersede_ids(&self, ids: &[String], reason: &str, now: &str) -> Result<Vec<String>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.write(CommitPoint::TasksSupersede, |tx| {
            supersede_in(tx, ids, reason, now)
        })
    }

    /// `prioritize`: move the live tasks of `kinds` on these targets that wait
    /// at a later priority up to `priority` (never demoting one already
    /// ahead), one `prioritized` log row each; `dry_run` writes nothing.
    /// Returns the task ids moved (or that would move).
    ///
    /// # Errors
    /// `InvalidInput` for an empty reason or a bad `now`; the home's failure.
    pub fn prioritize(&self, args: &Prioritize) -> Result<Vec<String>> {
        if args.reason.trim().is_empty() {
            return Err(Error::invalid(
                "prioritize needs a reason, got an empty one",
            ));
        }
        let now = self.now(args.now)?;
        let targets: HashSet<&str> = args.target_ids.iter().map(|s| s.trim()).collect();
        let pick = |r: &dyn TaskReads| -> Result<Vec<TaskRow>> {
            Ok(r.tasks(&TaskFilter::live())?
                .into_iter()
                .filter(|t| {
                    targets.contains(t.target_id.as_str())
                        && args.kinds.contains(&t.kind)
                        && t.priority > args.priority
                        && effective(t, &now).is_live()
                })
                .collect())
        };
        if args.dry_run {
            return Ok(self.read(pick)?.into_iter().map(|t| t.task_id).collect());
        }
        self.write(CommitPoint::TasksPrioritize, |tx| {
            let picked = pick(&*tx)?;
            prioritize_in(tx, &picked, args.priority, &args.reason, &now)
        })
    }
}

/// Move `tasks` (live, read in `tx`) up to `priority` in `tx`, one
/// `prioritized` log row each. Returns their ids.
pub(crate) fn prioritize_in(
    tx: &mut dyn TasksTx,
    tasks: &[TaskRow],
    priority: i64,
    reason: &str,
    now: &str,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for t in tasks {
        let mut t = t.clone();
        let from = t.priority;
        t.priority = priority;
        t.updated_at = now.to_owned();
        tx.put(&t)?;
        tx.append_log(&log_row(
            &t.task_id,
            now,
            "prioritized",
            None,
            json!({"from": from, "to": priority, "reason": reason}),
        ))?;
        out.push(t.task_id);
    }
    Ok(out)
}

/// Why `holder` cannot settle `t` now (`None`: it can). `done_reason` names
/// a done task.
fn unsettleable(t: &TaskRow, holder: &str, now: &str, done_reason: &str) -> Option<String> {
    match t.status {
        TaskStatus::Done => Some(done_reason.to_owned()),
        TaskStatus::Leased => {
            if t.holder.as_deref() != Some(holder) {
                Some("holder".to_owned())
            } else if effective(t, now) == TaskStatus::Failed {
                Some("max_attempts".to_owned())
            } else {
                None
            }
        }
        s if s.is_live() => Some("not_leased".to_owned()),
        s => Some(s.as_str().to_owned()),
    }
}

fn kind_median(r: &dyn TaskReads, kind: TaskKind) -> Result<Option<f64>> {
    let secs: Vec<f64> = r
        .done_of_kind(kind, RECENT_COST_SAMPLES)?
        .iter()
        .filter_map(|t| t.result.as_ref()?.get("seconds")?.as_f64())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .collect();
    Ok(median(secs))
}

fn unreachable_result(args: &Enqueue) -> EnqueueResult {
    EnqueueResult {
        task_id: task_id(args.kind, args.target_id.trim(), args.basis.trim()),
        enqueued: false,
        superseded: Vec::new(),
        reason: None,
    }
}

/// Validate one enqueue into the row it stores.
fn validate_enqueue(a: &Enqueue, now: &str) -> Result<TaskRow> {
    let target = a.target_id.trim();
    let basis = a.basis.trim();
    let scope = a.scope.trim();
    if target.is_empty() || basis.is_empty() || scope.is_empty() {
        return Err(Error::invalid(format!(
            "enqueue needs a target_id, a basis and a scope, got target_id={:?} basis={:?} scope={:?}",
            a.target_id, a.basis, a.scope
        )));
    }
    if !a.strength.is_finite() || !(0.0..=1.0).contains(&a.strength) {
        return Err(Error::invalid(format!(
            "strength must be in [0, 1] (the incoming memory's, change's or surprise's signal), got {}",
            a.strength
        )));
    }
    if a.cost_hint.is_some_and(|c| !c.is_finite() || c < 0.0) {
        return Err(Error::invalid(format!(
            "cost_hint must be a number of seconds >= 0, got {}",
            am_triples::text::shown(&a.cost_hint)
        )));
    }
    if a.basis_version < 0 {
        return Err(Error::invalid(format!(
            "basis_version must be >= 0, got {}",
            a.basis_version
        )));
    }
    let windows: Vec<Window> = match (a.kind.window_only(), &a.windows) {
        (Some(only), None) => only.to_vec(),
        (Some(only), Some(asked)) => {
            if let Some(bad) = asked.iter().find(|w| !only.contains(w)) {
                return Err(Error::invalid(format!(
                    "a {} task runs only in {:?} windows, got windows containing {:?}",
                    a.kind,
                    only.iter().map(|w| w.as_str()).collect::<Vec<_>>(),
                    bad.as_str()
                )));
            }
            dedup(asked)
        }
        (None, Some(asked)) => dedup(asked),
        (None, None) => Vec::new(),
    };
    let cause = match &a.cause {
        Value::String(s) if !s.trim().is_empty() => Value::String(s.trim().to_owned()),
        Value::Object(m) if m.get("cause").and_then(Value::as_str).is_some() => a.cause.clone(),
        other => {
            return Err(Error::invalid(format!(
                "cause must be a cause name or a mapping {{\"cause\": ...}}, got {other}"
            )));
        }
    };
    let priority = a.priority.unwrap_or(match a.kind {
        TaskKind::TitleAuthor | TaskKind::DigestAuthor => FORMATION_PRIORITY,
        _ => DEFAULT_PRIORITY,
    });
    let mut depends_on: Vec<String> = Vec::new();
    for d in &a.depends_on {
        let d = d.trim();
        if !d.is_empty() && !depends_on.iter().any(|x| x == d) {
            depends_on.push(d.to_owned());
        }
    }
    Ok(TaskRow {
        task_id: task_id(a.kind, target, basis),
        kind: a.kind,
        capability: a.kind.capability().to_owned(),
        target_id: target.to_owned(),
        assertion_id: a.assertion_id.trim().to_owned(),
        scope: scope.to_owned(),
        owner_id: a.owner_id.trim().to_owned(),
        basis: basis.to_owned(),
        basis_version: a.basis_version,
        strength: a.strength,
        cause,
        priority,
        depends_on,
        not_before: a.not_before.map(Timestamp::canonical),
        windows,
        cost_hint: a.cost_hint,
        max_attempts: i64::from(a.max_attempts.get()),
        attempts: 0,
        status: TaskStatus::Pending,
        holder: None,
        lease_until: None,
        ripple_id: a.ripple_id.clone().filter(|r| !r.trim().is_empty()),
        hop: a.hop,
        result: None,
        error: None,
        superseded_by: None,
        created_at: now.to_owned(),
        updated_at: now.to_owned(),
    })
}

fn dedup(ws: &[Window]) -> Vec<Window> {
    let mut out: Vec<Window> = Vec::new();
    for w in ws {
        if !out.contains(w) {
            out.push(*w);
        }
    }
    out
}
