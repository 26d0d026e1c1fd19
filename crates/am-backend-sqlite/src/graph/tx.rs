//! One revision's transaction on a SQLite home: `BEGIN IMMEDIATE` on the home's
//! shared connection, the reads (which see the transaction's own writes), the
//! writes through the store's in-transaction API (`insert_prepared_in`,
//! `end_row_in`, `narrow_row_in`) and the journal's (`append_closures_in`), and
//! the `memg_*` rows; commit when the engine's body succeeds, rollback otherwise.
//!
//! Spec: api.md "Connectors" (`GraphTx`); "One transaction: ... any failure
//! rolls all of it back".

use super::{SqliteGraphBackend, lock, sql, storage_err};
use crate::journal::SQLiteJournal;
use crate::store::{self, SQLiteTripleStore, codec};
use am_graph::backend::{
    BackendResult, ClaimKey, DerivationRow, GraphTx, HistoryRow, KnownMemory, PreparedRows,
    ProvenanceRow, RevisionRow,
};
use am_journal::ClosureRecord;
use am_triples::{JsonMap, TripleAssertion, canonicalize_term};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;
use std::sync::Arc;

/// The store's prepared rows, one batch per assertion (so any subset can be
/// inserted).
pub(super) struct SqlitePrepared(pub(super) Vec<store::write::PreparedRows>);

impl SqliteGraphBackend {
    pub(super) fn prepare(
        &self,
        assertions: &[TripleAssertion],
    ) -> BackendResult<am_graph::backend::PreparedRows> {
        let mut canon = Vec::with_capacity(assertions.len());
        let mut batches = Vec::with_capacity(assertions.len());
        for a in assertions {
            let p = self.store.prepare_rows(std::slice::from_ref(a))?;
            canon.extend(p.assertions().cloned());
            batches.push(p);
        }
        Ok(PreparedRows {
            assertions: canon,
            payload: Box::new(SqlitePrepared(batches)),
        })
    }

    pub(super) fn run_transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn GraphTx) -> BackendResult<()>,
    ) -> BackendResult<()> {
        // The home's write lock around the whole revision (a write barrier
        // waits for it), then the connection.
        let _write = self.store.home().write_lock().write();
        let conn = self.conn();
        let mut guard = lock(&conn);
        let warnings = self
            .transaction_in(&mut guard, body)
            .map_err(|e| crate::error::at_home(e, &guard))?;
        drop(guard);
        self.store.record_warnings(warnings);
        Ok(())
    }

    /// The body of [`Self::run_transaction`] on the locked connection;
    /// returns the warnings the revision raised.
    fn transaction_in(
        &self,
        conn: &mut Connection,
        body: &mut dyn FnMut(&mut dyn GraphTx) -> BackendResult<()>,
    ) -> BackendResult<Vec<String>> {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(storage_err)?;
        let mut t = SqliteTx {
            conn: &tx,
            store: &self.store,
            tables: &self.tables,
            journal: self.same_file_journal.as_ref(),
            warnings: Vec::new(),
        };
        // On an error (or a panic) `tx` is dropped, which rolls back.
        body(&mut t)?;
        let warnings = std::mem::take(&mut t.warnings);
        // The commit guard, inside the transaction, right before COMMIT.
        self.store
            .check_commit_guard(am_triples::CommitPoint::Graph)?;
        tx.commit().map_err(storage_err)?;
        Ok(warnings)
    }
}

struct SqliteTx<'a> {
    conn: &'a Connection,
    store: &'a SQLiteTripleStore,
    tables: &'a super::GraphTables,
    journal: Option<&'a Arc<SQLiteJournal>>,
    warnings: Vec<String>,
}

impl SqliteTx<'_> {
    fn is_memory(&self, id: &str) -> BackendResult<bool> {
        let sql = sql::is_memory(self.tables);
        Ok(self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([id], |_| Ok(())).optional())
            .map_err(storage_err)?
            .is_some())
    }
}

impl GraphTx for SqliteTx<'_> {
    fn revision_seq(&mut self, revision_id: &str) -> BackendResult<Option<i64>> {
        let sql = sql::revision_seq(self.tables);
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([revision_id], |r| r.get(0)).optional())
            .map_err(storage_err)
    }

    fn memory_known(&mut self, memory_id: &str) -> BackendResult<Option<KnownMemory>> {
        if !self.is_memory(memory_id)? {
            return Ok(None);
        }
        let sql = sql::row_owner(self.tables);
        let owner: Option<Option<String>> = self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([memory_id], |r| r.get(0)).optional())
            .map_err(storage_err)?;
        Ok(owner.map(|o| KnownMemory {
            owner_id: o.filter(|s| !s.trim().is_empty()),
        }))
    }

    fn closing_revision(&mut self, memory_id: &str) -> BackendResult<Option<String>> {
        let sql = sql::closing_revision(self.tables);
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([memory_id], |r| r.get(0)).optional())
            .map_err(storage_err)
    }

    fn parents(&mut self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        let sql = sql::parents(self.tables, limit);
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_map([memory_id], |r| r.get(0))
                    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            })
            .map_err(storage_err)
    }

    fn open_same_claim(&mut self, claim: &ClaimKey) -> BackendResult<Option<String>> {
        let sql = sql::open_same_claim(self.tables);
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_row(
                    params![
                        claim.subject,
                        claim.predicate,
                        claim.object,
                        claim.scope,
                        claim.owner_id,
                        claim.valid_from
                    ],
                    |r| r.get(0),
                )
                .optional()
            })
            .map_err(storage_err)
    }

    fn digest_assertion_for(&mut self, graph_id: &str) -> BackendResult<Option<String>> {
        super::digest_assertion(self.conn, self.tables, &canonicalize_term(graph_id))
    }

    fn source_ref(&mut self, memory_id: &str, ref_key: &str) -> BackendResult<Option<Value>> {
        let sql = sql::source_ref(self.tables);
        let text: Option<String> = self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([memory_id, ref_key], |r| r.get(0)).optional())
            .map_err(storage_err)?;
        text.map(|t| {
            serde_json::from_str(&t)
                .map_err(|e| am_triples::Error::storage(format!("ref_json of {memory_id}: {e}")))
        })
        .transpose()
    }

    fn existing_ids(&mut self, ids: &[String]) -> BackendResult<Vec<String>> {
        let sql = sql::row_exists(self.tables);
        let mut stmt = self.conn.prepare_cached(&sql).map_err(storage_err)?;
        let mut out = Vec::new();
        for id in ids {
            if stmt
                .query_row([id], |_| Ok(()))
                .optional()
                .map_err(storage_err)?
                .is_some()
            {
                out.push(id.clone());
            }
        }
        Ok(out)
    }

    fn stored(&mut self, assertion_id: &str) -> BackendResult<Option<TripleAssertion>> {
        Ok(self.store.read_row_in(self.conn, assertion_id)?)
    }

    fn window(
        &mut self,
        assertion_id: &str,
    ) -> BackendResult<Option<(Option<String>, Option<String>)>> {
        let sql = sql::window(self.tables);
        let blank = |s: Option<String>| s.filter(|v| !v.trim().is_empty());
        Ok(self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_row([assertion_id], |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get::<_, Option<String>>(1)?,
                    ))
                })
                .optional()
            })
            .map_err(storage_err)?
            .map(|(f, u)| (blank(f), blank(u))))
    }

    fn write_pin(&mut self, _rows: &PreparedRows) -> BackendResult<()> {
        // `insert_prepared_in` checks and writes the pin with the rows.
        Ok(())
    }

    fn insert_assertions(&mut self, rows: &PreparedRows, indexes: &[usize]) -> BackendResult<()> {
        let Some(batches) = rows.payload.downcast_ref::<SqlitePrepared>() else {
            return Err(am_triples::Error::invalid(
                "insert_assertions expects rows prepared by the SQLite connector",
            ));
        };
        for &i in indexes {
            let batch = batches.0.get(i).ok_or_else(|| {
                am_triples::Error::invalid(format!(
                    "prepared row index {i} out of range (0..{})",
                    batches.0.len()
                ))
            })?;
            let inserted = self.store.insert_prepared_in(self.conn, batch)?;
            self.warnings.extend(inserted.warnings);
        }
        Ok(())
    }

    fn set_provenance(&mut self, assertion_id: &str, provenance: &JsonMap) -> BackendResult<()> {
        let text = codec::encode_object(provenance)
            .map_err(|e| am_triples::Error::invalid(format!("provenance: {e}")))?;
        let sql = format!(
            "UPDATE {} SET provenance_json = ?1 WHERE assertion_id = ?2",
            self.tables.triples
        );
        let n = self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.execute(params![text.as_ref(), assertion_id]))
            .map_err(storage_err)?;
        if n == 0 {
            return Err(am_triples::Error::not_found(format!(
                "set_provenance: no row {assertion_id}"
            )));
        }
        Ok(())
    }

    fn end_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()> {
        // The engine ends a row at the earlier instant: an open row is closed, a
        // closed one narrowed.
        if !self
            .store
            .end_row_in(self.conn, assertion_id, valid_until)?
        {
            self.store
                .narrow_row_in(self.conn, assertion_id, valid_until)?;
        }
        Ok(())
    }

    fn narrow_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()> {
        self.store
            .narrow_row_in(self.conn, assertion_id, valid_until)?;
        Ok(())
    }

    fn write_closure(&mut self, closure: &ClosureRecord) -> BackendResult<bool> {
        let Some(j) = self.journal else {
            return Ok(false);
        };
        j.append_closures_in(self.conn, std::slice::from_ref(closure))?;
        Ok(true)
    }

    fn add_history(&mut self, row: &HistoryRow) -> BackendResult<()> {
        let sql = format!(
            "INSERT INTO {} (memory_id, event, at, revision_id, detail_json) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            self.tables.history
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.execute(params![
                    row.memory_id,
                    row.event,
                    row.at,
                    row.revision_id,
                    row.detail.to_string()
                ])
            })
            .map_err(storage_err)?;
        Ok(())
    }

    fn add_source(&mut self, row: &ProvenanceRow) -> BackendResult<()> {
        let sql = format!(
            "INSERT OR IGNORE INTO {} (memory_id, ref_key, ref_kind, run_id, revision_id, \
             ref_json, via, owner_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            self.tables.provenance
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.execute(params![
                    row.memory_id,
                    row.ref_key,
                    row.ref_kind,
                    row.run_id,
                    row.revision_id,
                    row.ref_json.to_string(),
                    row.via,
                    row.owner_id
                ])
            })
            .map_err(storage_err)?;
        Ok(())
    }

    fn add_derivation(&mut self, row: &DerivationRow) -> BackendResult<()> {
        let sql = format!(
            "INSERT OR IGNORE INTO {} (memory_id, from_id, revision_id) VALUES (?1, ?2, ?3)",
            self.tables.derivations
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.execute(params![row.memory_id, row.from_id, row.revision_id]))
            .map_err(storage_err)?;
        Ok(())
    }

    fn insert_revision(&mut self, row: &RevisionRow) -> BackendResult<i64> {
        if self.revision_seq(&row.revision_id)?.is_some() {
            return Err(am_triples::Error::conflict(format!(
                "revision {} is already in the log",
                row.revision_id
            )));
        }
        let sql = format!(
            "INSERT INTO {} (revision_id, scope, owner_id, cause, occurred_at, recorded_at, \
             ops_json, provenance_json, summary, journal_applied) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            self.tables.revisions
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.execute(params![
                    row.revision_id,
                    row.scope,
                    row.owner_id,
                    row.cause,
                    row.occurred_at,
                    row.recorded_at,
                    row.ops_json,
                    row.provenance_json,
                    row.summary,
                    i64::from(row.journal_applied)
                ])
            })
            .map_err(storage_err)?;
        Ok(self.conn.last_insert_rowid())
    }
}
