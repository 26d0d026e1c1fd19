//! The graph tables in the home's file (`memg_revisions`, `memg_provenance`,
//! `memg_derivations`, `memg_history`, prefixed `memg_<table>_` for a store with a
//! custom table name), their indexes, and the in-place upgrade of older homes
//! (`via`, `owner_id` with its backfill, the history revision index).
//!
//! Spec: api.md "The graph tables (SQLite)"; "Opening a `MemoryGraph` on a home
//! whose graph tables and indexes exist is a read (no DDL transaction)".

use crate::error::Result;
pub use am_graph::backend::GraphTables;
use rusqlite::{Connection, TransactionBehavior};

/// The `CREATE TABLE` statement of each of `t`'s graph tables, by name.
fn table_ddl(t: &GraphTables) -> Vec<(String, String)> {
    let GraphTables {
        revisions,
        provenance,
        derivations,
        history,
        ..
    } = t;
    vec![
        (
            revisions.clone(),
            format!(
                "CREATE TABLE IF NOT EXISTS {revisions} (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    revision_id TEXT NOT NULL UNIQUE,
                    scope TEXT NOT NULL,
                    owner_id TEXT,
                    cause TEXT NOT NULL,
                    occurred_at TEXT NOT NULL,
                    recorded_at TEXT NOT NULL,
                    ops_json TEXT NOT NULL,
                    provenance_json TEXT NOT NULL,
                    summary TEXT,
                    journal_applied INTEGER NOT NULL DEFAULT 1
                )"
            ),
        ),
        (
            provenance.clone(),
            format!(
                "CREATE TABLE IF NOT EXISTS {provenance} (
                    memory_id TEXT NOT NULL,
                    ref_key TEXT NOT NULL,
                    ref_kind TEXT NOT NULL,
                    run_id TEXT,
                    revision_id TEXT NOT NULL,
                    ref_json TEXT NOT NULL,
                    via TEXT NOT NULL DEFAULT 'memory',
                    owner_id TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (memory_id, ref_key)
                )"
            ),
        ),
        (
            derivations.clone(),
            format!(
                "CREATE TABLE IF NOT EXISTS {derivations} (
                    memory_id TEXT NOT NULL,
                    from_id TEXT NOT NULL,
                    revision_id TEXT NOT NULL,
                    PRIMARY KEY (memory_id, from_id)
                )"
            ),
        ),
        (
            history.clone(),
            format!(
                "CREATE TABLE IF NOT EXISTS {history} (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    memory_id TEXT NOT NULL,
                    event TEXT NOT NULL,
                    at TEXT NOT NULL,
                    revision_id TEXT NOT NULL,
                    detail_json TEXT NOT NULL
                )"
            ),
        ),
    ]
}

/// The indexes as the spec lists them: `(name, DDL)`.
pub fn index_ddl(t: &GraphTables) -> Vec<(String, String)> {
    let GraphTables {
        revisions: r,
        provenance: p,
        derivations: d,
        history: h,
        ..
    } = t;
    let idx = |t: &str, s: &str| format!("idx_{t}_{s}");
    vec![
        (
            idx(r, "revision_id"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {r}(revision_id)",
                idx(r, "revision_id")
            ),
        ),
        (
            idx(r, "pending"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {r}(seq) WHERE journal_applied = 0",
                idx(r, "pending")
            ),
        ),
        (
            idx(p, "ref_key"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {p}(ref_key)",
                idx(p, "ref_key")
            ),
        ),
        (
            idx(p, "run_id"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {p}(run_id)",
                idx(p, "run_id")
            ),
        ),
        (
            idx(p, "ref_key_owner"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {p}(ref_key, owner_id)",
                idx(p, "ref_key_owner")
            ),
        ),
        (
            idx(p, "run_id_owner"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {p}(run_id, owner_id)",
                idx(p, "run_id_owner")
            ),
        ),
        (
            idx(d, "from_id"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {d}(from_id)",
                idx(d, "from_id")
            ),
        ),
        (
            idx(h, "memory_seq"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {h}(memory_id, seq)",
                idx(h, "memory_seq")
            ),
        ),
        (
            idx(h, "revision_seq"),
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {h}(revision_id, seq)",
                idx(h, "revision_seq")
            ),
        ),
    ]
}

fn object_exists(conn: &Connection, kind: &str, name: &str) -> Result<bool> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = ?1 AND name = ?2 COLLATE NOCASE",
        [kind, name],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

fn has_column(conn: &Connection, table: &str, column: &str) -> Result<bool> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let names = stmt
        .query_map([], |r| r.get::<_, String>(1))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(names.iter().any(|n| n.eq_ignore_ascii_case(column)))
}

/// What [`ensure_schema`] found missing (empty: the home was complete and
/// nothing was written).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Missing {
    /// Tables created.
    pub tables: Vec<String>,
    /// Columns added in place (`via`, `owner_id`).
    pub columns: Vec<String>,
    /// Indexes created.
    pub indexes: Vec<String>,
}

impl Missing {
    /// Whether nothing was missing.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty() && self.columns.is_empty() && self.indexes.is_empty()
    }
}

fn missing(conn: &Connection, t: &GraphTables) -> Result<Missing> {
    let mut m = Missing::default();
    for (name, _) in table_ddl(t) {
        if !object_exists(conn, "table", &name)? {
            m.tables.push(name);
        }
    }
    if !m.tables.contains(&t.provenance) {
        for col in ["via", "owner_id"] {
            if !has_column(conn, &t.provenance, col)? {
                m.columns.push(col.to_owned());
            }
        }
    }
    for (name, _) in index_ddl(t) {
        if !object_exists(conn, "index", &name)? {
            m.indexes.push(name);
        }
    }
    Ok(m)
}

/// Create the graph tables and indexes a home lacks, and add the columns an
/// older home lacks (`via` defaults to `memory`; `owner_id` is backfilled from
/// the memory rows, `''` for none), in one `IMMEDIATE` transaction. A home that
/// has them all is only read: no transaction, no write lock. Returns what was
/// missing.
///
/// # Errors
/// `Storage` when SQLite fails.
pub fn ensure_schema(conn: &mut Connection, t: &GraphTables) -> Result<Missing> {
    let found = missing(conn, t)?;
    if found.is_empty() {
        return Ok(found);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Another process may have upgraded between the read and the lock.
    let m = missing(&tx, t)?;
    for (name, ddl) in table_ddl(t) {
        if m.tables.contains(&name) {
            tx.execute_batch(&ddl)?;
        }
    }
    if m.columns.iter().any(|c| c == "via") {
        tx.execute_batch(&format!(
            "ALTER TABLE {} ADD COLUMN via TEXT NOT NULL DEFAULT 'memory'",
            t.provenance
        ))?;
    }
    if m.columns.iter().any(|c| c == "owner_id") {
        tx.execute_batch(&format!(
            "ALTER TABLE {p} ADD COLUMN owner_id TEXT NOT NULL DEFAULT '';
             UPDATE {p} SET owner_id = COALESCE(
                 (SELECT tr.owner_id FROM {tr} tr WHERE tr.assertion_id = {p}.memory_id), '')",
            p = t.provenance,
            tr = t.triples
        ))?;
    }
    for (name, ddl) in index_ddl(t) {
        if m.indexes.contains(&name) {
            tx.execute_batch(&ddl)?;
        }
    }
    tx.commit()?;
    Ok(m)
}
