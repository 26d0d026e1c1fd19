//! The LanceDB connector's `GraphBackend` implementation: the keyed reads
//! (each a filtered scan of one graph table, ordered by its record position,
//! bounded by its limit), the journal bookkeeping and `repair_projections`.
//!
//! Reads take the mind's lock, so within one process a reader never sees a
//! commit in progress; after a crash, the log row of a half-projected revision
//! is visible (in the feed, and `logged_outcome` answers from its staged
//! history) until it is repaired.
//!
//! Spec: api.md "Connectors (`abstractmemory.graph.backend`)"; "The graph
//! tables (SQLite)" for the shapes of the answers.

use super::stage::Stage;
use super::tables::{self, Cell};
use super::{LanceGraphBackend, eq};
use crate::filter::quote_literal;
use am_graph::DIGEST_PREDICATE;
use am_graph::backend::{
    BackendResult, GraphBackend, GraphCapabilities, GraphTx, HistoryRow, PreparedRows,
    ProvenanceRow, RefMatch, RevisionRow,
};
use am_triples::{TripleAssertion, canonicalize_term};
use std::collections::{HashMap, HashSet};

impl LanceGraphBackend {
    /// Log rows matching `where_` (without their staged projection unless
    /// `with_stage`), in log order.
    fn log_rows(
        &self,
        where_: String,
        with_stage: bool,
    ) -> BackendResult<Vec<(RevisionRow, bool, Option<String>)>> {
        let st = self.lock();
        let width = if with_stage {
            tables::REVISION_COLUMNS.len()
        } else {
            tables::REVISION_READ
        };
        let mut rows = self.select(&st.revisions, tables::REVISION_COLUMNS, width, Some(where_))?;
        rows.sort_by_key(|r| r[0].as_int());
        Ok(rows.iter().map(|c| tables::revision_from(c)).collect())
    }

    /// History rows matching `where_`, in record order.
    fn history_rows(&self, where_: String) -> BackendResult<Vec<HistoryRow>> {
        let st = self.lock();
        let mut rows = self.select(
            &st.history,
            tables::HISTORY_COLUMNS,
            tables::HISTORY_COLUMNS.len(),
            Some(where_),
        )?;
        rows.sort_by_key(|r| r[0].as_int());
        rows.iter().map(|c| tables::history_from(c)).collect()
    }

    /// Provenance rows matching `where_`, in record order.
    fn provenance_rows(&self, where_: String) -> BackendResult<Vec<ProvenanceRow>> {
        let st = self.lock();
        let rows = self.select(
            &st.provenance,
            tables::PROVENANCE_COLUMNS,
            tables::PROVENANCE_COLUMNS.len(),
            Some(where_),
        )?;
        let mut decoded = rows
            .iter()
            .map(|c| tables::provenance_from(c))
            .collect::<BackendResult<Vec<_>>>()?;
        decoded.sort_by_key(|(o, _)| *o);
        Ok(decoded.into_iter().map(|(_, r)| r).collect())
    }

    /// Derivation rows matching `where_`, in record order, as `(memory_id,
    /// from_id)`.
    fn derivation_rows(&self, where_: String) -> BackendResult<Vec<(String, String)>> {
        let st = self.lock();
        let mut rows: Vec<Vec<Cell>> =
            self.select(&st.derivations, tables::DERIVATION_COLUMNS, 3, Some(where_))?;
        rows.sort_by_key(|r| r[0].as_int());
        Ok(rows
            .iter()
            .map(|r| (r[1].as_str().to_owned(), r[2].as_str().to_owned()))
            .collect())
    }

    fn is_memory(&self, id: &str) -> BackendResult<bool> {
        let st = self.lock();
        Ok(!self
            .select(
                &st.history,
                tables::HISTORY_COLUMNS,
                1,
                Some(format!("{} AND event = 'asserted'", eq("memory_id", id))),
            )?
            .is_empty())
    }

    fn ref_where(m: &RefMatch) -> String {
        match m {
            RefMatch::Key(k) => eq("ref_key", k),
            RefMatch::Run(r) => eq("run_id", r),
        }
    }
}

impl GraphBackend for LanceGraphBackend {
    fn name(&self) -> &'static str {
        "lancedb"
    }

    fn capabilities(&self) -> GraphCapabilities {
        Self::CAPABILITIES
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
        let st = self.lock();
        let rows = self.select(
            &st.revisions,
            tables::REVISION_COLUMNS,
            2,
            Some(eq("revision_id", revision_id)),
        )?;
        Ok(rows.first().map(|r| r[0].as_int()))
    }

    fn resolve(&self, memory_id: &str) -> BackendResult<Option<String>> {
        if self.is_memory(memory_id)? {
            return Ok(Some(memory_id.to_owned()));
        }
        let subject = canonicalize_term(memory_id);
        let mut rows = self.store.rows_where(format!(
            "{} AND {}",
            eq("subject", &subject),
            eq("predicate", DIGEST_PREDICATE)
        ))?;
        rows.sort_by_key(|r| std::cmp::Reverse(r.seq));
        for r in rows {
            if let Some(id) = r.assertion.assertion_id
                && self.is_memory(&id)?
            {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    fn history(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<(HistoryRow, String)>> {
        let mut rows = self.history_rows(eq("memory_id", memory_id))?;
        rows.truncate(limit);
        let ids: Vec<String> = rows
            .iter()
            .map(|h| quote_literal(&h.revision_id))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let causes: HashMap<String, String> = if ids.is_empty() {
            HashMap::new()
        } else {
            self.log_rows(format!("revision_id IN ({})", ids.join(", ")), false)?
                .into_iter()
                .map(|(r, _, _)| (r.revision_id, r.cause))
                .collect()
        };
        Ok(rows
            .into_iter()
            .map(|h| {
                let cause = causes.get(&h.revision_id).cloned().unwrap_or_default();
                (h, cause)
            })
            .collect())
    }

    fn sources(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<ProvenanceRow>> {
        let mut rows = self.provenance_rows(eq("memory_id", memory_id))?;
        rows.truncate(limit);
        Ok(rows)
    }

    fn parents(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        Ok(self
            .derivation_rows(eq("memory_id", memory_id))?
            .into_iter()
            .map(|(_, from)| from)
            .take(limit)
            .collect())
    }

    fn children(&self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        Ok(self
            .derivation_rows(eq("from_id", memory_id))?
            .into_iter()
            .map(|(m, _)| m)
            .take(limit)
            .collect())
    }

    fn with_ref(&self, m: &RefMatch, limit: usize) -> BackendResult<Vec<String>> {
        let mut seen = HashSet::new();
        Ok(self
            .provenance_rows(Self::ref_where(m))?
            .into_iter()
            .filter(|r| seen.insert(r.memory_id.clone()))
            .map(|r| r.memory_id)
            .take(limit)
            .collect())
    }

    fn names_ref(&self, m: &RefMatch, owner_ids: &[String]) -> BackendResult<bool> {
        if owner_ids.is_empty() {
            return Ok(false);
        }
        let owners: Vec<String> = owner_ids.iter().map(|o| quote_literal(o)).collect();
        let st = self.lock();
        let rows = self.select(
            &st.provenance,
            tables::PROVENANCE_COLUMNS,
            1,
            Some(format!(
                "{} AND owner_id IN ({})",
                Self::ref_where(m),
                owners.join(", ")
            )),
        )?;
        Ok(!rows.is_empty())
    }

    fn revisions_page(&self, after: i64, limit: usize) -> BackendResult<Vec<RevisionRow>> {
        Ok(self
            .log_rows(format!("seq > {after}"), false)?
            .into_iter()
            .map(|(r, _, _)| r)
            .take(limit)
            .collect())
    }

    fn log_head(&self) -> BackendResult<i64> {
        let st = self.lock();
        Ok(self
            .select(&st.revisions, tables::REVISION_COLUMNS, 1, None)?
            .iter()
            .map(|r| r[0].as_int())
            .max()
            .unwrap_or(0))
    }

    fn logged_outcome(
        &self,
        revision_id: &str,
        limit: usize,
    ) -> BackendResult<Option<(RevisionRow, Vec<HistoryRow>)>> {
        let Some((row, projected, stage)) = self
            .log_rows(eq("revision_id", revision_id), true)?
            .into_iter()
            .next()
        else {
            return Ok(None);
        };
        let mut history = if projected {
            self.history_rows(eq("revision_id", revision_id))?
        } else {
            // Half-projected: the log row's staged history is the outcome.
            Stage::from_json(stage.as_deref().unwrap_or_default(), &row)?.history
        };
        history.truncate(limit);
        Ok(Some((row, history)))
    }

    fn pending_journal(&self, limit: usize) -> BackendResult<Vec<RevisionRow>> {
        Ok(self
            .log_rows("journal_applied = false".into(), false)?
            .into_iter()
            .map(|(r, _, _)| r)
            .take(limit)
            .collect())
    }

    fn closed_payload(&self, revision_id: &str, limit: usize) -> BackendResult<Vec<HistoryRow>> {
        let mut rows = self.history_rows(format!(
            "{} AND event = 'closed'",
            eq("revision_id", revision_id)
        ))?;
        rows.truncate(limit);
        Ok(rows)
    }

    fn mark_journal_applied(&self, revision_id: &str) -> BackendResult<()> {
        let st = self.lock();
        // The bookkeeping write is a LanceDB commit of its own: the guard
        // first, under the mind's lock (as the SQLite connector's autocommit).
        self.check_guard(am_triples::CommitPoint::GraphMarkJournalApplied)?;
        self.update(
            &st.revisions,
            format!(
                "{} AND journal_applied = false",
                eq("revision_id", revision_id)
            ),
            "journal_applied",
            "true",
        )?;
        Ok(())
    }

    fn repair_projections(&self) -> BackendResult<usize> {
        let mut st = self.lock();
        self.repair_locked(&mut st)
    }
}
