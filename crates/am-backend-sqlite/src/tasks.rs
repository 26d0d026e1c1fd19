//! The memory task queue's tables in the home's file (`memq_tasks`,
//! `memq_log`, `memq_windows`, `memq_meta`) and their row reads and
//! writes over one connection: inside a `SqliteMemoryHome` transaction they
//! commit with the records they concern. The home's other tables beside
//! them (`memq_maintenance`, ...) are the table kit's (`crate::tables`),
//! created by their first write.
//!
//! The queue's rules live in `am_system::tasks`; this module stores rows.
//! Layout (ours; 0.3.2 has no queue): the columns a read filters or orders
//! on, then the rest of the task as JSON (`task_json`, [`TaskJson`]: the
//! spec's task dict without what the columns hold, its nulls and its empty
//! lists). A row holding the whole dict, as every row did before
//! 2026-12-06, reads the same: the columns win over the keys they repeat.
//!
//! The live tasks are also kept in process ([`TaskCache`], one per
//! `SqliteMemoryHome` and its clones): decoded once, answering the reads of
//! the live set (`select_for_window`, a read by target, a live task's
//! probe) without touching `task_json`. It is valid while the file's queue
//! generation (`memq_meta.generation`, bumped by a trigger on every
//! `memq_tasks` insert, update or delete, whoever writes: another handle,
//! another connection, another process, plain SQL) is the one it was built
//! or last advanced at; each read or write transaction reads the
//! generation first, inside its snapshot, and when it moved catches the
//! set up from the rows stamped since (`changed_gen`), or rebuilds it
//! after a delete. A transaction's own writes are staged beside it (its reads see
//! them) and join it only after its COMMIT; a rollback drops them.
//!
//! Spec: api.md "The memory task queue: understanding in the background".

use crate::error::sqlite;
use am_journal::home::HomeResult;
use am_journal::task_index::{LiveTasks, live_only};
use am_journal::{
    TaskFilter, TaskKind, TaskLogRow, TaskReads, TaskRow, TaskStatus, TasksTx, Window, WindowRow,
};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The queue's schema (idempotent).
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS memq_tasks (
    task_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    target_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    status TEXT NOT NULL,
    priority INTEGER NOT NULL,
    ripple_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    task_json TEXT NOT NULL,
    changed_gen INTEGER
);
CREATE INDEX IF NOT EXISTS idx_memq_tasks_status ON memq_tasks(status, kind);
CREATE INDEX IF NOT EXISTS idx_memq_tasks_ripple ON memq_tasks(ripple_id) WHERE ripple_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_memq_tasks_done ON memq_tasks(kind, updated_at) WHERE status = 'done';
CREATE TABLE IF NOT EXISTS memq_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL,
    at TEXT NOT NULL,
    event TEXT NOT NULL,
    holder TEXT,
    detail_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS memq_windows (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    holder TEXT NOT NULL,
    window TEXT NOT NULL,
    at TEXT NOT NULL,
    claimed_json TEXT NOT NULL,
    left_out_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memq_windows_holder ON memq_windows(holder, window, seq);
";

/// The queue's generation (idempotent; a home whose queue predates it gains
/// it on the next writable open): one counter every change of `memq_tasks`
/// advances, by trigger, so an in-process cache of the rows can tell it is
/// still current ([`TaskCache`]); each inserted or updated row is stamped
/// with the generation it advanced to (`changed_gen`, indexed), so a cache
/// of an older generation catches up by reading the rows stamped after it;
/// a delete also advances `deletions` (a cache cannot see a row that is
/// gone: it rebuilds; so does a set read before the queue had the counter).
/// The update trigger fires on any update, a rowid's included (its own
/// body's stamp does not fire it again: triggers do not recurse). A row
/// `INSERT OR REPLACE` replaces fires no delete trigger; the row comes back
/// stamped under a new rowid, and the live set moves the task (see
/// `LiveTasks::set`). A writer that sets `memq_meta` back is not seen. The
/// library's own writes carry
/// their stamp (the generation plus one, read in the statement), so the
/// trigger's second update finds nothing to do for them: it stamps only
/// the rows other writers (plain SQL, an older build) left unstamped or
/// stamped wrong.
pub const GENERATION_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS memq_meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO memq_meta (key, value) VALUES ('generation', 0);
INSERT OR IGNORE INTO memq_meta (key, value) VALUES ('deletions', 0);
CREATE INDEX IF NOT EXISTS idx_memq_tasks_changed ON memq_tasks(changed_gen);
CREATE TRIGGER IF NOT EXISTS memq_tasks_generation_insert AFTER INSERT ON memq_tasks
BEGIN
    UPDATE memq_meta SET value = value + 1 WHERE key = 'generation';
    UPDATE memq_tasks SET changed_gen = (SELECT value FROM memq_meta WHERE key = 'generation')
        WHERE rowid = NEW.rowid AND NEW.changed_gen IS NOT
            (SELECT value FROM memq_meta WHERE key = 'generation');
END;
CREATE TRIGGER IF NOT EXISTS memq_tasks_generation_update AFTER UPDATE ON memq_tasks
BEGIN
    UPDATE memq_meta SET value = value + 1 WHERE key = 'generation';
    UPDATE memq_tasks SET changed_gen = (SELECT value FROM memq_meta WHERE key = 'generation')
        WHERE rowid = NEW.rowid AND NEW.changed_gen IS NOT
            (SELECT value FROM memq_meta WHERE key = 'generation');
END;
CREATE TRIGGER IF NOT EXISTS memq_tasks_generation_delete AFTER DELETE ON memq_tasks
BEGIN
    UPDATE memq_meta SET value = value + 1 WHERE key IN ('generation', 'deletions');
END;
";

/// The generation triggers' names ([`GENERATION_SCHEMA`]).
const GENERATION_TRIGGERS: [&str; 3] = [
    "memq_tasks_generation_insert",
    "memq_tasks_generation_update",
    "memq_tasks_generation_delete",
];

/// Give a queue that predates the `changed_gen` stamp its column, and drop
/// the older triggers (they only advanced the generation) for
/// [`GENERATION_SCHEMA`] to create the ones that stamp. Answers whether it
/// changed anything: the caller then advances `deletions`, so every live set
/// read before (whose changes since are not stamped) rebuilds.
fn stamp_changes(conn: &Connection) -> rusqlite::Result<bool> {
    let mut changed = false;
    let has_column = conn
        .prepare("SELECT 1 FROM pragma_table_info('memq_tasks') WHERE name = 'changed_gen'")?
        .exists([])?;
    if !has_column {
        conn.execute_batch("ALTER TABLE memq_tasks ADD COLUMN changed_gen INTEGER")?;
        changed = true;
    }
    for name in GENERATION_TRIGGERS {
        let sql: Option<String> = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()?;
        if sql.is_some_and(|s| !s.contains("changed_gen") && !s.contains("deletions")) {
            conn.execute_batch(&format!("DROP TRIGGER {name}"))?;
            changed = true;
        }
    }
    Ok(changed)
}

/// The indexes keyed by a hash (idempotent; a writable open moves an older
/// queue to them, dropping the full indexes they replace, which would still
/// be written). A task id and a target id are hashes: a full index on
/// either took every enqueued task to a random leaf page, and a batch of
/// formed records rewrote about one page per task and index in the WAL
/// (about a tenth of a pending formation's time each).
///
/// - `idx_memq_tasks_target_settled`: the settled tasks by target. A live
///   task is read from the live set ([`TaskCache`]), so a task enters the
///   index when it settles, not when it is queued.
/// - The log: `log(task_id)` reads a task's transitions through
///   `(task_id, seq)` and its one `enqueued` row, written at the task's
///   `created_at`, through `(at, task_id)`: `enqueued` rows, one per task
///   and the most numerous, are keyed by time and land on the index's
///   last pages.
pub const INDEX_SCHEMA: &str = "
CREATE INDEX IF NOT EXISTS idx_memq_tasks_target_settled ON memq_tasks(target_id)
    WHERE status NOT IN ('pending', 'deferred', 'leased');
DROP INDEX IF EXISTS idx_memq_tasks_target;
CREATE INDEX IF NOT EXISTS idx_memq_log_transitions ON memq_log(task_id, seq) WHERE event != 'enqueued';
CREATE INDEX IF NOT EXISTS idx_memq_log_enqueued ON memq_log(at, task_id) WHERE event = 'enqueued';
DROP INDEX IF EXISTS idx_memq_log_task;
";

/// Create the queue's tables on `conn` (idempotent), in ONE transaction (the
/// caller's, or a `BEGIN IMMEDIATE` of its own when there is none): a process
/// killed while a home gains its queue leaves the whole schema or none of it
/// (the crash trials found `memq_tasks` without `memq_log` when each
/// statement committed alone). A read-only connection creates nothing new
/// (its reads go without the cache when the file has no generation).
///
/// # Errors
/// `Storage`.
pub fn create(conn: &Connection) -> HomeResult<()> {
    if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
        return conn.execute_batch(SCHEMA).map_err(sqlite);
    }
    let own = conn.is_autocommit();
    if own {
        conn.execute_batch("BEGIN IMMEDIATE").map_err(sqlite)?;
    }
    let created = conn
        .execute_batch(SCHEMA)
        .and_then(|()| stamp_changes(conn))
        .and_then(|migrated| {
            conn.execute_batch(GENERATION_SCHEMA)?;
            if migrated {
                conn.execute_batch(
                    "UPDATE memq_meta SET value = value + 1 WHERE key = 'deletions'",
                )?;
            }
            Ok(())
        })
        .and_then(|()| conn.execute_batch(INDEX_SCHEMA));
    if !own {
        return created.map_err(sqlite);
    }
    match created {
        Ok(()) => conn.execute_batch("COMMIT").map_err(sqlite),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(sqlite(e))
        }
    }
}

/// The in-process live set of one home's queue: see the module docs.
#[derive(Debug, Default)]
pub struct TaskCache {
    /// The queue generation `live` reflects (`None`: not built).
    generation: Option<Mark>,
    live: LiveTasks,
}

/// Where a queue stands: its generation and how many deletes it has seen
/// (a queue without the `deletions` counter reads -1 and has no stamps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    generation: i64,
    deletions: i64,
}

/// The file's queue generation, read in the caller's snapshot (`None` when
/// the file has none: a read-only home whose queue predates it).
fn read_generation(conn: &Connection) -> HomeResult<Option<Mark>> {
    let read = conn
        .prepare_cached(
            "SELECT (SELECT value FROM memq_meta WHERE key = 'generation'), \
             (SELECT value FROM memq_meta WHERE key = 'deletions')",
        )
        .and_then(|mut s| {
            s.query_row([], |r| {
                Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?))
            })
        });
    match read {
        // A queue without the counter has no stamps either: -1, which no
        // stamped queue reads, makes a set read then rebuild once it has.
        Ok((g, d)) => Ok(g.map(|generation| Mark {
            generation,
            deletions: d.unwrap_or(-1),
        })),
        Err(rusqlite::Error::SqliteFailure(_, Some(m))) if m.contains("no such table") => Ok(None),
        Err(e) => Err(sqlite(e)),
    }
}

/// Catch `live` up from generation `from` by the rows stamped after it
/// (`false` when the queue has no stamps: the caller rebuilds).
fn catch_up(conn: &Connection, live: &mut LiveTasks, from: i64) -> HomeResult<bool> {
    let stmt = conn.prepare_cached(&format!(
        // No ORDER BY: the planner would walk the table in rowid order
        // instead of the stamp index's range (the set keys rows by rowid).
        "SELECT rowid, {TASK_COLUMNS} FROM memq_tasks WHERE changed_gen > ?1"
    ));
    let mut stmt = match stmt {
        Ok(s) => s,
        Err(rusqlite::Error::SqliteFailure(_, Some(m))) if m.contains("no such column") => {
            return Ok(false);
        }
        Err(e) => return Err(sqlite(e)),
    };
    let rows = stmt
        .query_map([from], |r| {
            Ok((r.get::<_, i64>(0)?, StoredTask::read(r, 1)?))
        })
        .map_err(sqlite)?;
    for row in rows {
        let (rowid, stored) = row.map_err(sqlite)?;
        live.set(rowid, Arc::new(stored.decode()?));
    }
    Ok(true)
}

/// The live rows of `conn`'s queue, decoded.
fn load_live(conn: &Connection) -> HomeResult<LiveTasks> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT rowid, {TASK_COLUMNS} FROM memq_tasks \
                 WHERE status IN ('pending', 'deferred', 'leased') ORDER BY rowid"
        ))
        .map_err(sqlite)?;
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, StoredTask::read(r, 1)?)))
        .map_err(sqlite)?;
    let mut live = LiveTasks::new();
    for row in rows {
        let (rowid, stored) = row.map_err(sqlite)?;
        live.set(rowid, Arc::new(stored.decode()?));
    }
    Ok(live)
}

/// What a committed transaction changed in the queue, to join the cache.
#[derive(Debug)]
pub(crate) struct StagedTasks {
    from: Mark,
    to: Mark,
    rows: Vec<(i64, Arc<TaskRow>)>,
}

impl TaskCache {
    /// Join a committed transaction's rows (or forget the set when it is not
    /// at the generation the transaction started from).
    pub(crate) fn apply(&mut self, staged: StagedTasks) {
        if self.generation != Some(staged.from) {
            self.generation = None;
            return;
        }
        for (rowid, row) in staged.rows {
            self.live.set(rowid, row);
        }
        self.generation = Some(staged.to);
    }
}

/// A live task with its queue position (its rowid).
type Ordered = (i64, Arc<TaskRow>);

/// The task rows of one connection (inside a home transaction, or a read
/// outside one), with the home's live-set cache.
pub struct SqlTasks<'a> {
    pub(crate) conn: &'a Connection,
    cache: &'a Mutex<TaskCache>,
    /// The generation this transaction started at, once read; `Some(None)`:
    /// the cache is off for it (the file has no generation).
    start: OnceCell<Option<Mark>>,
    /// This transaction's writes: task id to (rowid, row).
    staged: HashMap<String, (i64, Arc<TaskRow>)>,
    /// The staged task ids by target.
    staged_targets: HashMap<String, Vec<String>>,
}

impl<'a> SqlTasks<'a> {
    /// The rows of `conn` (in its current transaction) with `cache`.
    pub(crate) fn new(conn: &'a Connection, cache: &'a Mutex<TaskCache>) -> Self {
        SqlTasks {
            conn,
            cache,
            start: OnceCell::new(),
            staged: HashMap::new(),
            staged_targets: HashMap::new(),
        }
    }

    /// The generation this transaction started at (read once, first).
    fn start(&self) -> HomeResult<Option<Mark>> {
        if let Some(s) = self.start.get() {
            return Ok(*s);
        }
        let g = read_generation(self.conn)?;
        let _ = self.start.set(g);
        Ok(g)
    }

    fn lock(&self) -> MutexGuard<'a, TaskCache> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The cache, current for this transaction's snapshot, or `None` when
    /// it is off or stale and not to be rebuilt (`reload` false).
    fn current(&self, reload: bool) -> HomeResult<Option<MutexGuard<'a, TaskCache>>> {
        let Some(g) = self.start()? else {
            return Ok(None);
        };
        let mut cache = self.lock();
        if cache.generation != Some(g) {
            // Caught up or rebuilt only before this transaction's own first
            // write: the set must hold what generation `g` holds, whatever
            // becomes of the transaction.
            if !reload || !self.staged.is_empty() {
                return Ok(None);
            }
            let caught_up = match cache.generation {
                Some(old) if old.deletions == g.deletions && old.generation < g.generation => {
                    match catch_up(self.conn, &mut cache.live, old.generation) {
                        Ok(done) => done,
                        Err(e) => {
                            // Part of the rows may have joined: the set is
                            // of no generation now.
                            cache.generation = None;
                            return Err(e);
                        }
                    }
                }
                _ => false,
            };
            if !caught_up {
                cache.generation = None;
                cache.live = load_live(self.conn)?;
            }
            cache.generation = Some(g);
        }
        Ok(Some(cache))
    }

    /// The live rows passing `filter` (a live-only filter), the cache's
    /// with this transaction's writes over them, in queue order, each with
    /// its rowid. A stale cache is rebuilt (before this transaction's first
    /// write): SQL finds a live task by its target only by a scan
    /// ([`INDEX_SCHEMA`]).
    fn live_rows(&self, filter: &TaskFilter) -> HomeResult<Option<Vec<Ordered>>> {
        if !live_only(filter) {
            return Ok(None);
        }
        let Some(cache) = self.current(true)? else {
            return Ok(None);
        };
        let unbounded = TaskFilter {
            limit: 0,
            ..filter.clone()
        };
        let mut rows = cache.live.select(&unbounded).unwrap_or_default();
        drop(cache);
        if !self.staged.is_empty() {
            rows.retain(|(_, r)| !self.staged.contains_key(&r.task_id));
            match &unbounded.target_id {
                // A targeted read looks at that target's staged rows only.
                Some(t) => rows.extend(
                    self.staged_targets
                        .get(t)
                        .into_iter()
                        .flatten()
                        .filter_map(|id| self.staged.get(id))
                        .filter(|(_, r)| unbounded.matches(r))
                        .cloned(),
                ),
                None => rows.extend(
                    self.staged
                        .values()
                        .filter(|(_, r)| unbounded.matches(r))
                        .cloned(),
                ),
            }
            rows.sort_by_key(|(rowid, _)| *rowid);
        }
        if filter.limit > 0 {
            rows.truncate(filter.limit);
        }
        Ok(Some(rows))
    }

    /// A targeted read over settled statuses too: the live tasks from the
    /// live set, the settled ones through `idx_memq_tasks_target_settled`,
    /// merged in queue order (`None` when the live set cannot answer).
    fn target_rows(&self, filter: &TaskFilter) -> HomeResult<Option<Vec<TaskRow>>> {
        let wanted = |live: bool| -> Vec<TaskStatus> {
            let all = TaskStatus::ALL.iter().copied();
            match &filter.statuses {
                Some(st) => st.iter().copied().filter(|s| s.is_live() == live).collect(),
                None => all.filter(|s| s.is_live() == live).collect(),
            }
        };
        let (live, settled) = (wanted(true), wanted(false));
        let mut rows: Vec<(i64, TaskRow)> = Vec::new();
        if !live.is_empty() {
            let live_filter = TaskFilter {
                statuses: Some(live),
                limit: 0,
                ..filter.clone()
            };
            let Some(found) = self.live_rows(&live_filter)? else {
                return Ok(None);
            };
            rows.extend(found.into_iter().map(|(o, r)| (o, Arc::unwrap_or_clone(r))));
        }
        if !settled.is_empty() {
            let settled_filter = TaskFilter {
                statuses: Some(settled),
                limit: 0,
                ..filter.clone()
            };
            rows.extend(self.sql_rows(&settled_filter, true)?);
        }
        rows.sort_by_key(|(o, _)| *o);
        if filter.limit > 0 {
            rows.truncate(filter.limit);
        }
        Ok(Some(rows.into_iter().map(|(_, r)| r).collect()))
    }

    /// The rows passing `filter`, read by SQL, in queue order, each with its
    /// rowid; `settled` adds the settled-statuses term the partial target
    /// index is used under.
    fn sql_rows(&self, filter: &TaskFilter, settled: bool) -> HomeResult<Vec<(i64, TaskRow)>> {
        let mut sql = format!("SELECT rowid, {TASK_COLUMNS} FROM memq_tasks WHERE 1 = 1");
        if settled {
            sql.push_str(" AND status NOT IN ('pending', 'deferred', 'leased')");
        }
        let mut args: Vec<String> = Vec::new();
        if let Some(st) = &filter.statuses {
            if st.is_empty() {
                return Ok(Vec::new());
            }
            sql.push_str(" AND status IN (");
            for (i, s) in st.iter().enumerate() {
                if i > 0 {
                    sql.push(',');
                }
                args.push(s.as_str().to_owned());
                sql.push_str(&format!("?{}", args.len()));
            }
            sql.push(')');
        }
        if let Some(k) = filter.kind {
            args.push(k.as_str().to_owned());
            sql.push_str(&format!(" AND kind = ?{}", args.len()));
        }
        if let Some(t) = &filter.target_id {
            args.push(t.clone());
            sql.push_str(&format!(" AND target_id = ?{}", args.len()));
        }
        if let Some(r) = &filter.ripple_id {
            args.push(r.clone());
            sql.push_str(&format!(" AND ripple_id = ?{}", args.len()));
        }
        sql.push_str(" ORDER BY rowid");
        if filter.limit > 0 {
            sql.push_str(&format!(" LIMIT {}", filter.limit));
        }
        let mut stmt = self.conn.prepare_cached(&sql).map_err(sqlite)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok((r.get::<_, i64>(0)?, StoredTask::read(r, 1)?))
            })
            .map_err(sqlite)?;
        let mut out = Vec::new();
        for row in rows {
            let (rowid, stored) = row.map_err(sqlite)?;
            out.push((rowid, stored.decode()?));
        }
        Ok(out)
    }

    /// This transaction's queue writes, for the cache once it commits
    /// (`None` when it wrote none or the cache is off). Reads the
    /// generation the writes advanced the file to.
    ///
    /// # Errors
    /// `Storage`.
    pub(crate) fn finish(self) -> HomeResult<Option<StagedTasks>> {
        let Some(Some(from)) = self.start.get().copied() else {
            return Ok(None);
        };
        if self.staged.is_empty() {
            return Ok(None);
        }
        let Some(to) = read_generation(self.conn)? else {
            return Ok(None);
        };
        Ok(Some(StagedTasks {
            from,
            to,
            rows: self.staged.into_values().collect(),
        }))
    }
}

/// The columns a task row is read from, in [`StoredTask::read`]'s order.
const TASK_COLUMNS: &str = "task_id, kind, target_id, scope, owner_id, status, priority, ripple_id, \
                            created_at, updated_at, task_json";

/// What `memq_tasks.task_json` holds: the fields of the spec's task dict
/// that no column of the row holds, without those that are `null` or empty
/// lists, and `capability` only when it is not the kind's. A row's bytes are
/// most of what a task costs to write (its COMMIT's WAL frames and the
/// checkpoint they bring), and the whole dict repeated its columns: the
/// compact form is about 40 % of it. The keys a column holds, which a row
/// written before this layout also carries, are read and ignored: the
/// columns are the truth (plain SQL filters on them).
#[derive(Serialize, Deserialize)]
struct TaskJson<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    capability: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "str::is_empty", borrow)]
    assertion_id: Cow<'a, str>,
    #[serde(borrow)]
    basis: Cow<'a, str>,
    basis_version: i64,
    strength: f64,
    cause: Cow<'a, Value>,
    #[serde(default, skip_serializing_if = "<[String]>::is_empty")]
    depends_on: Cow<'a, [String]>,
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    not_before: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "<[Window]>::is_empty")]
    windows: Cow<'a, [Window]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cost_hint: Option<f64>,
    max_attempts: i64,
    attempts: i64,
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    holder: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    lease_until: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hop: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Cow<'a, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<Cow<'a, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    superseded_by: Option<Cow<'a, str>>,
}

/// `row`'s `task_json` ([`TaskJson`]).
///
/// # Errors
/// `Internal` when it does not encode (it always does).
fn encode_task(row: &TaskRow) -> HomeResult<String> {
    fn b(s: &Option<String>) -> Option<Cow<'_, str>> {
        s.as_deref().map(Cow::Borrowed)
    }
    json_text(&TaskJson {
        capability: (row.capability != row.kind.capability())
            .then_some(Cow::Borrowed(row.capability.as_str())),
        assertion_id: Cow::Borrowed(&row.assertion_id),
        basis: Cow::Borrowed(&row.basis),
        basis_version: row.basis_version,
        strength: row.strength,
        cause: Cow::Borrowed(&row.cause),
        depends_on: Cow::Borrowed(&row.depends_on),
        not_before: b(&row.not_before),
        windows: Cow::Borrowed(&row.windows),
        cost_hint: row.cost_hint,
        max_attempts: row.max_attempts,
        attempts: row.attempts,
        holder: b(&row.holder),
        lease_until: b(&row.lease_until),
        hop: row.hop,
        result: row.result.as_ref().map(Cow::Borrowed),
        error: row.error.as_ref().map(Cow::Borrowed),
        superseded_by: b(&row.superseded_by),
    })
}

/// One `memq_tasks` row as read ([`TASK_COLUMNS`]), before it is decoded.
struct StoredTask {
    task_id: String,
    kind: String,
    target_id: String,
    scope: String,
    owner_id: String,
    status: String,
    priority: i64,
    ripple_id: Option<String>,
    created_at: String,
    updated_at: String,
    json: String,
}

impl StoredTask {
    /// The row's [`TASK_COLUMNS`], from column `at` on.
    fn read(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<StoredTask> {
        Ok(StoredTask {
            task_id: r.get(at)?,
            kind: r.get(at + 1)?,
            target_id: r.get(at + 2)?,
            scope: r.get(at + 3)?,
            owner_id: r.get(at + 4)?,
            status: r.get(at + 5)?,
            priority: r.get(at + 6)?,
            ripple_id: r.get(at + 7)?,
            created_at: r.get(at + 8)?,
            updated_at: r.get(at + 9)?,
            json: r.get(at + 10)?,
        })
    }

    /// The task: its columns, then what `task_json` adds.
    ///
    /// # Errors
    /// `Storage` when a column or the JSON is not a task's.
    fn decode(self) -> HomeResult<TaskRow> {
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            am_triples::Error::storage(format!("memq_tasks.{what} is not a task's: {e}"))
        };
        let kind = TaskKind::parse(&self.kind).map_err(|e| bad("kind", &e))?;
        let status = TaskStatus::parse(&self.status).map_err(|e| bad("status", &e))?;
        let j: TaskJson<'_> = serde_json::from_str(&self.json).map_err(|e| bad("task_json", &e))?;
        let own = |s: Option<Cow<'_, str>>| s.map(Cow::into_owned);
        Ok(TaskRow {
            task_id: self.task_id,
            kind,
            capability: own(j.capability).unwrap_or_else(|| kind.capability().to_owned()),
            target_id: self.target_id,
            assertion_id: j.assertion_id.into_owned(),
            scope: self.scope,
            owner_id: self.owner_id,
            basis: j.basis.into_owned(),
            basis_version: j.basis_version,
            strength: j.strength,
            cause: j.cause.into_owned(),
            priority: self.priority,
            depends_on: j.depends_on.into_owned(),
            not_before: own(j.not_before),
            windows: j.windows.into_owned(),
            cost_hint: j.cost_hint,
            max_attempts: j.max_attempts,
            attempts: j.attempts,
            status,
            holder: own(j.holder),
            lease_until: own(j.lease_until),
            ripple_id: self.ripple_id,
            hop: j.hop,
            result: j.result.map(Cow::into_owned),
            error: j.error.map(Cow::into_owned),
            superseded_by: own(j.superseded_by),
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

fn json_text(v: &impl serde::Serialize) -> HomeResult<String> {
    serde_json::to_string(v)
        .map_err(|e| am_triples::Error::internal(format!("a task row did not encode: {e}")))
}

fn decode_values(text: &str, what: &str) -> HomeResult<Vec<Value>> {
    serde_json::from_str(text)
        .map_err(|e| am_triples::Error::storage(format!("{what} is not a JSON list: {e}")))
}

impl TaskReads for SqlTasks<'_> {
    fn task(&self, task_id: &str) -> HomeResult<Option<TaskRow>> {
        if let Some((_, row)) = self.staged.get(task_id) {
            return Ok(Some(TaskRow::clone(row)));
        }
        if let Some(cache) = self.current(false)?
            && let Some((_, row)) = cache.live.get(task_id)
        {
            return Ok(Some(TaskRow::clone(row)));
        }
        let stored = self
            .conn
            .prepare_cached(&format!(
                "SELECT {TASK_COLUMNS} FROM memq_tasks WHERE task_id = ?1"
            ))
            .and_then(|mut s| {
                s.query_row([task_id], |r| StoredTask::read(r, 0))
                    .optional()
            })
            .map_err(sqlite)?;
        stored.map(StoredTask::decode).transpose()
    }

    fn live(&self) -> HomeResult<Vec<Arc<TaskRow>>> {
        match self.live_rows(&TaskFilter::live())? {
            Some(rows) => Ok(rows.into_iter().map(|(_, r)| r).collect()),
            None => Ok(self
                .tasks(&TaskFilter::live())?
                .into_iter()
                .map(Arc::new)
                .collect()),
        }
    }

    fn tasks(&self, filter: &TaskFilter) -> HomeResult<Vec<TaskRow>> {
        if let Some(rows) = self.live_rows(filter)? {
            return Ok(rows
                .into_iter()
                .map(|(_, r)| Arc::unwrap_or_clone(r))
                .collect());
        }
        if filter.target_id.is_some()
            && let Some(rows) = self.target_rows(filter)?
        {
            return Ok(rows);
        }
        // The cache is off (or cannot be rebuilt in this transaction): SQL
        // answers alone, a targeted read of live tasks by a scan.
        Ok(self
            .sql_rows(filter, false)?
            .into_iter()
            .map(|(_, r)| r)
            .collect())
    }

    fn log(&self, task_id: &str) -> HomeResult<Vec<TaskLogRow>> {
        // The two halves of [`INDEX_SCHEMA`]: the transitions, then the
        // `enqueued` row at the task's `created_at`.
        let mut out = self.log_rows(
            "SELECT seq, task_id, at, event, holder, detail_json FROM memq_log \
             WHERE task_id = ?1 AND event != 'enqueued' \
             UNION ALL \
             SELECT seq, task_id, at, event, holder, detail_json FROM memq_log \
             WHERE event = 'enqueued' AND task_id = ?1 \
             AND at = (SELECT created_at FROM memq_tasks WHERE task_id = ?1) \
             ORDER BY seq",
            task_id,
        )?;
        // A stored task whose `enqueued` row is not at its `created_at`
        // (plain SQL changed one of them, or wrote the task without it):
        // the row is looked for by a scan of the log's `enqueued` rows.
        if !out.iter().any(|r| r.event == "enqueued") && self.task(task_id)?.is_some() {
            out.extend(self.log_rows(
                "SELECT seq, task_id, at, event, holder, detail_json FROM memq_log \
                 WHERE event = 'enqueued' AND task_id = ?1",
                task_id,
            )?);
            out.sort_by_key(|r| r.seq);
        }
        Ok(out)
    }

    fn done_of_kind(&self, kind: TaskKind, limit: usize) -> HomeResult<Vec<TaskRow>> {
        let limit = if limit == 0 {
            -1
        } else {
            i64::try_from(limit).unwrap_or(i64::MAX)
        };
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {TASK_COLUMNS} FROM memq_tasks WHERE kind = ?1 AND status = 'done' \
                 ORDER BY updated_at DESC, task_id DESC LIMIT ?2"
            ))
            .map_err(sqlite)?;
        let rows = stmt
            .query_map(params![kind.as_str(), limit], |r| StoredTask::read(r, 0))
            .map_err(sqlite)?;
        let mut out = Vec::new();
        for stored in rows {
            out.push(stored.map_err(sqlite)?.decode()?);
        }
        Ok(out)
    }

    fn windows(&self, holder: Option<&str>, window: Option<Window>) -> HomeResult<Vec<WindowRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT w.seq, w.holder, w.window, w.at, w.claimed_json, w.left_out_json FROM memq_windows w \
                 WHERE (?1 IS NULL OR w.holder = ?1) AND (?2 IS NULL OR w.window = ?2) \
                 AND w.seq = (SELECT MAX(seq) FROM memq_windows x WHERE x.holder = w.holder AND x.window = w.window) \
                 ORDER BY w.seq",
            )
            .map_err(sqlite)?;
        let rows = stmt
            .query_map(params![holder, window.map(Window::as_str)], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                ))
            })
            .map_err(sqlite)?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, holder, window, at, claimed, left_out) = row.map_err(sqlite)?;
            let claimed = decode_values(&claimed, "memq_windows.claimed_json")?
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            out.push(WindowRow {
                seq,
                holder,
                window: Window::parse(&window)?,
                at,
                claimed,
                left_out: decode_values(&left_out, "memq_windows.left_out_json")?,
            });
        }
        Ok(out)
    }
}

impl SqlTasks<'_> {
    /// The `memq_log` rows `sql` (selecting the log's six columns, with the
    /// task id as `?1`) answers.
    fn log_rows(&self, sql: &str, task_id: &str) -> HomeResult<Vec<TaskLogRow>> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(sqlite)?;
        let rows = stmt
            .query_map([task_id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, String>(5)?,
                ))
            })
            .map_err(sqlite)?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, task_id, at, event, holder, detail) = row.map_err(sqlite)?;
            let detail = serde_json::from_str(&detail).map_err(|e| {
                am_triples::Error::storage(format!("memq_log.detail_json is not JSON: {e}"))
            })?;
            out.push(TaskLogRow {
                seq,
                task_id,
                at,
                event,
                holder,
                detail,
            });
        }
        Ok(out)
    }

    /// The rowid of the stored task `task_id` when this transaction already
    /// knows it (it wrote the task, or the current live set holds it).
    fn known_rowid(&self, task_id: &str) -> HomeResult<Option<i64>> {
        if let Some((rowid, _)) = self.staged.get(task_id) {
            return Ok(Some(*rowid));
        }
        Ok(self
            .current(false)?
            .and_then(|cache| cache.live.get(task_id).map(|(rowid, _)| rowid)))
    }

    /// Store `t` (every column of its row, and its JSON, when the task is
    /// stored: `put` replaces the row, and the JSON no longer carries what a
    /// column holds) and answer its rowid (`known`: the rowid this
    /// transaction knows it at). No `RETURNING`: SQLite answers one by
    /// buffering it in an ephemeral table, opened and closed per statement
    /// (about a tenth of an enqueue's instructions); the insert's rowid is
    /// `last_insert_rowid`, an update's the row's own. `OR IGNORE` (no
    /// `NOT NULL` column is written NULL; a task id already stored is the
    /// update below): a statement that cannot abort opens no statement
    /// journal, which the generation triggers otherwise make SQLite open for
    /// every row (about 5,000 instructions a row, mostly copying pages into
    /// it).
    fn store_row(&self, t: &TaskRow, json: &str, known: Option<i64>) -> rusqlite::Result<i64> {
        const SET: &str = "kind = ?1, target_id = ?2, scope = ?3, owner_id = ?4, status = ?5, \
             priority = ?6, ripple_id = ?7, created_at = ?8, updated_at = ?9, task_json = ?10, \
             changed_gen = (SELECT value FROM memq_meta WHERE key = 'generation') + 1";
        let columns = params![
            t.kind.as_str(),
            t.target_id,
            t.scope,
            t.owner_id,
            t.status.as_str(),
            t.priority,
            t.ripple_id,
            t.created_at,
            t.updated_at,
            json,
            t.task_id,
        ];
        if let Some(rowid) = known {
            let n = self
                .conn
                .prepare_cached(&format!(
                    "UPDATE OR IGNORE memq_tasks SET {SET} WHERE task_id = ?11 AND rowid = ?12"
                ))?
                .execute(rusqlite::params_from_iter(
                    columns
                        .iter()
                        .copied()
                        .chain([&rowid as &dyn rusqlite::ToSql]),
                ))?;
            if n == 1 {
                return Ok(rowid);
            }
        }
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO memq_tasks (kind, target_id, scope, owner_id, status, priority, \
                 ripple_id, created_at, updated_at, task_json, task_id, changed_gen) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, \
                 (SELECT value FROM memq_meta WHERE key = 'generation') + 1)",
            )?
            .execute(columns)?;
        if inserted == 1 {
            return Ok(self.conn.last_insert_rowid());
        }
        // Stored already (and not known to this transaction): the same
        // columns an upsert's update sets.
        self.conn
            .prepare_cached(&format!(
                "UPDATE memq_tasks SET {SET} WHERE task_id = ?11 RETURNING rowid"
            ))?
            .query_row(columns, |r| r.get(0))
    }
}

impl TasksTx for SqlTasks<'_> {
    fn put(&mut self, t: &TaskRow) -> HomeResult<()> {
        // The generation this transaction starts from, before its first write.
        self.start()?;
        let json = encode_task(t)?;
        let known = self.known_rowid(&t.task_id)?;
        let rowid = self.store_row(t, &json, known).map_err(sqlite)?;
        if self
            .staged
            .insert(t.task_id.clone(), (rowid, Arc::new(t.clone())))
            .is_none()
        {
            self.staged_targets
                .entry(t.target_id.clone())
                .or_default()
                .push(t.task_id.clone());
        }
        Ok(())
    }

    fn append_log(&mut self, row: &TaskLogRow) -> HomeResult<()> {
        let detail = json_text(&row.detail)?;
        self.conn
            .prepare_cached(
                "INSERT INTO memq_log (task_id, at, event, holder, detail_json) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| s.execute(params![row.task_id, row.at, row.event, row.holder, detail]))
            .map_err(sqlite)?;
        Ok(())
    }

    fn put_window(&mut self, row: &WindowRow) -> HomeResult<()> {
        let claimed = json_text(&row.claimed)?;
        let left_out = json_text(&row.left_out)?;
        self.conn
            .prepare_cached(
                "INSERT INTO memq_windows (holder, window, at, claimed_json, left_out_json) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    row.holder,
                    row.window.as_str(),
                    row.at,
                    claimed,
                    left_out
                ])
            })
            .map_err(sqlite)?;
        Ok(())
    }
}
