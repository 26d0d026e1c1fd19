//! The SQLite connector's keyed reads (each an index search on a `memg_*`
//! table) and its `GraphBackend` implementation.
//!
//! Spec: api.md "The graph tables (SQLite)" ("Every keyed read above is an index
//! search").

use super::sql;
use super::{SqliteGraphBackend, digest_assertion, lock, storage_err};
use am_graph::backend::{
    BackendResult, GraphBackend, GraphTx, HistoryRow, PreparedRows, ProvenanceRow, RefMatch,
    RevisionRow,
};
use am_triples::{TripleAssertion, canonicalize_term};
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};
use serde_json::Value;

fn json(text: &str, what: &str) -> BackendResult<Value> {
    serde_json::from_str(text)
        .map_err(|e| am_triples::Error::storage(format!("{what} is not JSON: {e}")))
}

fn revision_row(r: &Row<'_>) -> rusqlite::Result<RevisionRow> {
    Ok(RevisionRow {
        seq: r.get(0)?,
        revision_id: r.get(1)?,
        scope: r.get(2)?,
        owner_id: r.get(3)?,
        cause: r.get(4)?,
        occurred_at: r.get(5)?,
        recorded_at: r.get(6)?,
        ops_json: r.get(7)?,
        provenance_json: r.get(8)?,
        summary: r.get(9)?,
        journal_applied: r.get::<_, i64>(10)? != 0,
    })
}

type RawHistory = (i64, String, String, String, String, String);

fn history_row(raw: RawHistory) -> BackendResult<HistoryRow> {
    let (seq, memory_id, event, at, revision_id, detail) = raw;
    Ok(HistoryRow {
        detail: json(&detail, "detail_json")?,
        seq,
        memory_id,
        event,
        at,
        revision_id,
    })
}

fn raw_history(r: &Row<'_>) -> rusqlite::Result<RawHistory> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    ))
}

impl SqliteGraphBackend {
    fn read<T>(&self, f: impl FnOnce(&Connection) -> BackendResult<T>) -> BackendResult<T> {
        let conn = self.conn();
        let guard = lock(&conn);
        f(&guard)
    }

    /// The first column of every row `sql` answers for the one parameter
    /// `key` (the id lists: parents, children, the memories naming a ref).
    fn ids_for(&self, sql: &str, key: &str) -> BackendResult<Vec<String>> {
        self.read(|c| {
            let mut s = c.prepare_cached(sql).map_err(storage_err)?;
            s.query_map([key], |r| r.get(0))
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(storage_err)
        })
    }

    fn history_where(
        &self,
        column: &str,
        key: &str,
        event: Option<&str>,
        limit: usize,
    ) -> BackendResult<Vec<HistoryRow>> {
        let sql = sql::history_where(&self.tables, column, event.is_some(), limit);
        let raws = self.read(|c| {
            let mut s = c.prepare_cached(&sql).map_err(storage_err)?;
            let rows = match event {
                Some(e) => s.query_map(params![key, e], raw_history),
                None => s.query_map(params![key], raw_history),
            }
            .map_err(storage_err)?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
                .map_err(storage_err)
        })?;
        raws.into_iter().map(history_row).collect()
    }
}

impl GraphBackend for SqliteGraphBackend {
    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn prepare_rows(&self, assertions: &[TripleAssertion]) -> BackendResult<PreparedRows> {
        self.prepare(assertions)
    }

    fn transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn GraphTx) -> BackendResult<()>,
    ) -> BackendResult<()> {
        self.run_transaction(body)
    }

    fn applied_seq(&self, revision_id: &str) -> BackendResult<Option<i64>> {
        let sql = sql::revision_seq(&self.tables);
        self.read(|c| {
            c.prepare_cached(&sql)
                .and_then(|mut s| s.query_row([revision_id], |r| r.get(0)).optional())
                .map_err(storage_err)
        })
    }

    fn resolve(&self, memory_id: &str) -> BackendResult<Option<String>> {
        let sql = sql::is_memory(&self.tables);
        self.read(|c| {
            let known = c
                .prepare_cached(&sql)
                .and_then(|mut s| s.query_row([memory_id], |_| Ok(())).optional())
                .map_err(storage_err)?
                .is_some();
            if known {
                return Ok(Some(memory_id.to_owned()));
            }
            digest_assertion(c, &self.tables, &canonicalize_term(memory_id))
        })
    }

    fn history(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<(HistoryRow, String)>> {
        let sql = sql::history(&self.tables, limit);
        let raws = self.read(|c| {
            let mut s = c.prepare_cached(&sql).map_err(storage_err)?;
            s.query_map([memory_id], |r| {
                Ok((raw_history(r)?, r.get::<_, String>(6)?))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(storage_err)
        })?;
        raws.into_iter()
            .map(|(raw, cause)| Ok((history_row(raw)?, cause)))
            .collect()
    }

    fn sources(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<ProvenanceRow>> {
        let sql = sql::sources(&self.tables, limit);
        type Raw = (
            String,
            String,
            String,
            Option<String>,
            String,
            String,
            String,
            String,
        );
        let raws: Vec<Raw> = self.read(|c| {
            let mut s = c.prepare_cached(&sql).map_err(storage_err)?;
            s.query_map([memory_id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(storage_err)
        })?;
        raws.into_iter()
            .map(
                |(memory_id, ref_key, ref_kind, run_id, revision_id, ref_json, via, owner_id)| {
                    Ok(ProvenanceRow {
                        ref_json: json(&ref_json, "ref_json")?,
                        memory_id,
                        ref_key,
                        ref_kind,
                        run_id,
                        revision_id,
                        via,
                        owner_id,
                    })
                },
            )
            .collect()
    }

    fn parents(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        self.ids_for(&sql::parents(&self.tables, limit), memory_id)
    }

    fn children(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        self.ids_for(&sql::children(&self.tables, limit), memory_id)
    }

    fn with_ref(&self, m: &RefMatch, limit: usize) -> BackendResult<Vec<String>> {
        let (column, key) = match m {
            RefMatch::Key(k) => ("ref_key", k),
            RefMatch::Run(r) => ("run_id", r),
        };
        self.ids_for(&sql::with_ref(&self.tables, column, limit), key)
    }

    fn names_ref(&self, m: &RefMatch, owner_ids: &[String]) -> BackendResult<bool> {
        if owner_ids.is_empty() {
            return Ok(false);
        }
        let (column, key) = match m {
            RefMatch::Key(k) => ("ref_key", k),
            RefMatch::Run(r) => ("run_id", r),
        };
        let sql = sql::names_ref(&self.tables, column, owner_ids.len());
        let mut p: Vec<&str> = vec![key.as_str()];
        p.extend(owner_ids.iter().map(String::as_str));
        self.read(|c| {
            c.prepare_cached(&sql)
                .and_then(|mut s| s.query_row(params_from_iter(p.iter()), |r| r.get::<_, bool>(0)))
                .map_err(storage_err)
        })
    }

    fn revisions_page(&self, after: i64, limit: usize) -> BackendResult<Vec<RevisionRow>> {
        let sql = sql::revisions_page(&self.tables, limit);
        self.read(|c| {
            let mut s = c.prepare_cached(&sql).map_err(storage_err)?;
            s.query_map([after], revision_row)
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(storage_err)
        })
    }

    fn log_head(&self) -> BackendResult<i64> {
        let sql = sql::log_head(&self.tables);
        self.read(|c| {
            c.prepare_cached(&sql)
                .and_then(|mut s| s.query_row([], |r| r.get(0)))
                .map_err(storage_err)
        })
    }

    fn logged_outcome(
        &self,
        revision_id: &str,
        limit: usize,
    ) -> BackendResult<Option<(RevisionRow, Vec<HistoryRow>)>> {
        let sql = sql::logged_revision(&self.tables);
        let row = self.read(|c| {
            c.prepare_cached(&sql)
                .and_then(|mut s| s.query_row([revision_id], revision_row).optional())
                .map_err(storage_err)
        })?;
        let Some(row) = row else {
            return Ok(None);
        };
        let history = self.history_where("revision_id", revision_id, None, limit)?;
        Ok(Some((row, history)))
    }

    fn pending_journal(&self, limit: usize) -> BackendResult<Vec<RevisionRow>> {
        let sql = sql::pending_journal(&self.tables, limit);
        self.read(|c| {
            let mut s = c.prepare_cached(&sql).map_err(storage_err)?;
            s.query_map([], revision_row)
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(storage_err)
        })
    }

    fn closed_payload(&self, revision_id: &str, limit: usize) -> BackendResult<Vec<HistoryRow>> {
        self.history_where("revision_id", revision_id, Some("closed"), limit)
    }

    fn mark_journal_applied(&self, revision_id: &str) -> BackendResult<()> {
        let sql = sql::mark_journal_applied(&self.tables);
        // An autocommit write: under the home's write lock (a barrier on this
        // handle covers it), the guard before the statement takes the file's
        // write lock.
        let _write = self.store.home().write_lock().write();
        self.store
            .check_commit_guard(am_triples::CommitPoint::GraphMarkJournalApplied)?;
        self.read(|c| {
            c.prepare_cached(&sql)
                .and_then(|mut s| s.execute([revision_id]))
                .map_err(storage_err)
        })?;
        Ok(())
    }

    fn repair_projections(&self) -> BackendResult<usize> {
        // One transaction per revision: nothing is ever half-projected.
        Ok(0)
    }
}
