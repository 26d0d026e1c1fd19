//! The memory task queue's tables in the home's file (`memq_tasks`,
//! `memq_log`, `memq_windows`, `memq_maintenance`) and their row reads and
//! writes over one connection: inside a `SqliteMemoryHome` transaction they
//! commit with the records they concern.
//!
//! The queue's rules live in `am_system::tasks`; this module stores rows.
//! Layout (ours; 0.3.2 has no queue): the columns a read filters or orders
//! on, then the whole task as JSON (`task_json`, the spec's task dict).
//!
//! Spec: api.md "The memory task queue: understanding in the background".

use crate::error::sqlite;
use am_journal::home::HomeResult;
use am_journal::{
    TaskFilter, TaskKind, TaskLogRow, TaskReads, TaskRow, TasksTx, Window, WindowRow,
};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

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
    task_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memq_tasks_status ON memq_tasks(status, kind);
CREATE INDEX IF NOT EXISTS idx_memq_tasks_target ON memq_tasks(target_id);
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
CREATE INDEX IF NOT EXISTS idx_memq_log_task ON memq_log(task_id, seq);
CREATE TABLE IF NOT EXISTS memq_windows (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    holder TEXT NOT NULL,
    window TEXT NOT NULL,
    at TEXT NOT NULL,
    claimed_json TEXT NOT NULL,
    left_out_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memq_windows_holder ON memq_windows(holder, window, seq);
CREATE TABLE IF NOT EXISTS memq_maintenance (
    scope TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    completed_at TEXT NOT NULL,
    seq INTEGER NOT NULL,
    detail_json TEXT NOT NULL,
    PRIMARY KEY (scope, owner_id, kind)
);
";

/// Create the queue's tables on `conn` (idempotent).
///
/// # Errors
/// `Storage`.
pub fn create(conn: &Connection) -> HomeResult<()> {
    conn.execute_batch(SCHEMA).map_err(sqlite)
}

/// The task rows of one connection (inside a home transaction, or a read
/// outside one).
pub struct SqlTasks<'a> {
    pub(crate) conn: &'a Connection,
}

fn decode(json: &str) -> HomeResult<TaskRow> {
    serde_json::from_str(json).map_err(|e| {
        am_triples::Error::storage(format!("memq_tasks.task_json is not a task row: {e}"))
    })
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
        let json: Option<String> = self
            .conn
            .prepare_cached("SELECT task_json FROM memq_tasks WHERE task_id = ?1")
            .and_then(|mut s| s.query_row([task_id], |r| r.get(0)).optional())
            .map_err(sqlite)?;
        json.as_deref().map(decode).transpose()
    }

    fn tasks(&self, filter: &TaskFilter) -> HomeResult<Vec<TaskRow>> {
        let mut sql = String::from("SELECT task_json FROM memq_tasks WHERE 1 = 1");
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
                r.get::<_, String>(0)
            })
            .map_err(sqlite)?;
        let mut out = Vec::new();
        for json in rows {
            out.push(decode(&json.map_err(sqlite)?)?);
        }
        Ok(out)
    }

    fn log(&self, task_id: &str) -> HomeResult<Vec<TaskLogRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, task_id, at, event, holder, detail_json FROM memq_log WHERE task_id = ?1 \
                 ORDER BY seq",
            )
            .map_err(sqlite)?;
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

    fn done_of_kind(&self, kind: TaskKind, limit: usize) -> HomeResult<Vec<TaskRow>> {
        let limit = if limit == 0 {
            -1
        } else {
            i64::try_from(limit).unwrap_or(i64::MAX)
        };
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT task_json FROM memq_tasks WHERE kind = ?1 AND status = 'done' \
                 ORDER BY updated_at DESC, task_id DESC LIMIT ?2",
            )
            .map_err(sqlite)?;
        let rows = stmt
            .query_map(params![kind.as_str(), limit], |r| r.get::<_, String>(0))
            .map_err(sqlite)?;
        let mut out = Vec::new();
        for json in rows {
            out.push(decode(&json.map_err(sqlite)?)?);
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

impl TasksTx for SqlTasks<'_> {
    fn put(&mut self, t: &TaskRow) -> HomeResult<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO memq_tasks (task_id, kind, target_id, scope, owner_id, status, priority, ripple_id, \
                 created_at, updated_at, task_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
                 ON CONFLICT(task_id) DO UPDATE SET status = excluded.status, priority = excluded.priority, \
                 updated_at = excluded.updated_at, task_json = excluded.task_json",
            )
            .and_then(|mut s| {
                s.execute(params![
                    t.task_id,
                    t.kind.as_str(),
                    t.target_id,
                    t.scope,
                    t.owner_id,
                    t.status.as_str(),
                    t.priority,
                    t.ripple_id,
                    t.created_at,
                    t.updated_at,
                    json_text(t).unwrap_or_default(),
                ])
            })
            .map_err(sqlite)?;
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
