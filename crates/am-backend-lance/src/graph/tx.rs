//! One revision's staged transaction on a LanceDB mind: every write is buffered
//! in a [`Stage`]; every read answers from the committed tables with the
//! stage's writes laid over them (new rows after the committed ones, window
//! and provenance changes applied). Dropping the stage is the rollback.
//!
//! Spec: api.md "Connectors" (`GraphTx`: "they see the transaction's own
//! writes"; the LanceDB connector's "staged transaction whose reads overlay its
//! writes").

use super::stage::Stage;
use super::tables;
use super::{LanceGraphBackend, MindState, eq};
use crate::filter::{MAX_IDS_IN_CLAUSE, quote_literal};
use crate::store::Prepared;
use am_graph::DIGEST_PREDICATE;
use am_graph::backend::{
    BackendResult, ClaimKey, DerivationRow, GraphTx, HistoryRow, KnownMemory, PreparedRows,
    ProvenanceRow, RevisionRow,
};
use am_journal::ClosureRecord;
use am_triples::{Error, JsonMap, TripleAssertion, canonicalize_term};
use serde_json::Value;

/// The connector's prepared rows (the store's own shaping: canonical texts and
/// vectors).
pub(super) struct LancePrepared(pub(super) Prepared);

pub(super) struct LanceTx<'a> {
    pub(super) b: &'a LanceGraphBackend,
    pub(super) st: &'a MindState,
    pub(super) stage: Stage,
    next_history: i64,
    next_source: i64,
    next_derivation: i64,
}

impl<'a> LanceTx<'a> {
    pub(super) fn new(b: &'a LanceGraphBackend, st: &'a MindState) -> Self {
        LanceTx {
            b,
            st,
            stage: Stage::default(),
            next_history: st.next_history,
            next_source: st.next_source,
            next_derivation: st.next_derivation,
        }
    }

    /// A committed row, as this transaction sees it.
    fn committed_row(&self, id: &str) -> BackendResult<Option<TripleAssertion>> {
        Ok(self
            .b
            .store
            .rows_where(eq("assertion_id", id))?
            .into_iter()
            .next()
            .map(|r| self.stage.overlay(r.assertion)))
    }

    fn staged_row(&self, id: &str) -> Option<&TripleAssertion> {
        self.stage
            .rows
            .iter()
            .find(|a| a.assertion_id.as_deref() == Some(id))
    }

    /// Whether the graph holds `id` (an `asserted` history row).
    fn is_memory(&self, id: &str) -> BackendResult<bool> {
        if self
            .stage
            .history
            .iter()
            .any(|h| h.memory_id == id && h.event == "asserted")
        {
            return Ok(true);
        }
        let rows = self.b.select(
            &self.st.history,
            tables::HISTORY_COLUMNS,
            1,
            Some(format!("{} AND event = 'asserted'", eq("memory_id", id))),
        )?;
        Ok(!rows.is_empty())
    }

    /// A committed row or, failing that, `NotFound` naming `what`.
    fn require_committed(&self, id: &str, what: &str) -> BackendResult<()> {
        if self.committed_row(id)?.is_none() {
            return Err(Error::not_found(format!(
                "{what}: expected a stored row {id:?}, found none"
            )));
        }
        Ok(())
    }

    fn set_valid_until(&mut self, id: &str, valid_until: &str, what: &str) -> BackendResult<()> {
        if let Some(a) = self.stage.row_mut(id) {
            a.valid_until = Some(valid_until.to_owned());
            return Ok(());
        }
        self.require_committed(id, what)?;
        self.stage.update_mut(id).valid_until = Some(valid_until.to_owned());
        Ok(())
    }
}

impl GraphTx for LanceTx<'_> {
    fn revision_seq(&mut self, revision_id: &str) -> BackendResult<Option<i64>> {
        if let Some(r) = &self.stage.revision
            && r.revision_id == revision_id
        {
            return Ok(Some(r.seq));
        }
        let rows = self.b.select(
            &self.st.revisions,
            tables::REVISION_COLUMNS,
            2,
            Some(eq("revision_id", revision_id)),
        )?;
        Ok(rows.first().map(|r| r[0].as_int()))
    }

    fn memory_known(&mut self, memory_id: &str) -> BackendResult<Option<KnownMemory>> {
        if !self.is_memory(memory_id)? {
            return Ok(None);
        }
        let row = match self.staged_row(memory_id) {
            Some(a) => Some(a.clone()),
            None => self.committed_row(memory_id)?,
        };
        Ok(row.map(|a| KnownMemory {
            owner_id: a.owner_id.filter(|s| !s.trim().is_empty()),
        }))
    }

    fn closing_revision(&mut self, memory_id: &str) -> BackendResult<Option<String>> {
        let mut rows = self.b.select(
            &self.st.history,
            tables::HISTORY_COLUMNS,
            5,
            Some(format!(
                "{} AND event = 'closed'",
                eq("memory_id", memory_id)
            )),
        )?;
        rows.sort_by_key(|r| r[0].as_int());
        if let Some(r) = rows.first() {
            return Ok(Some(r[4].as_str().to_owned()));
        }
        Ok(self
            .stage
            .history
            .iter()
            .find(|h| h.memory_id == memory_id && h.event == "closed")
            .map(|h| h.revision_id.clone()))
    }

    fn parents(&mut self, memory_id: &str, limit: usize) -> BackendResult<Vec<String>> {
        let mut rows = self.b.select(
            &self.st.derivations,
            tables::DERIVATION_COLUMNS,
            3,
            Some(eq("memory_id", memory_id)),
        )?;
        rows.sort_by_key(|r| r[0].as_int());
        Ok(rows
            .iter()
            .map(|r| r[2].as_str().to_owned())
            .chain(
                self.stage
                    .derivations
                    .iter()
                    .filter(|(_, d)| d.memory_id == memory_id)
                    .map(|(_, d)| d.from_id.clone()),
            )
            .take(limit)
            .collect())
    }

    fn open_same_claim(&mut self, claim: &ClaimKey) -> BackendResult<Option<String>> {
        let opt = |column: &str, v: &Option<String>| match v {
            Some(v) => eq(column, v),
            None => format!("{column} IS NULL"),
        };
        let where_ = [
            eq("subject", &claim.subject),
            eq("predicate", &claim.predicate),
            eq("object", &claim.object),
            eq("scope", &claim.scope),
            opt("owner_id", &claim.owner_id),
            opt("valid_from", &claim.valid_from),
        ]
        .join(" AND ");
        let committed: Vec<TripleAssertion> = self
            .b
            .store
            .rows_where(where_)?
            .into_iter()
            .map(|r| self.stage.overlay(r.assertion))
            .collect();
        let staged: Vec<TripleAssertion> = self
            .stage
            .rows
            .iter()
            .filter(|a| ClaimKey::of(a) == *claim)
            .cloned()
            .collect();
        for a in committed.into_iter().chain(staged) {
            let Some(id) = a.assertion_id.clone() else {
                continue;
            };
            if a.valid_until.is_none() && self.is_memory(&id)? {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    fn digest_assertion_for(&mut self, graph_id: &str) -> BackendResult<Option<String>> {
        let subject = canonicalize_term(graph_id);
        let staged: Vec<String> = self
            .stage
            .rows
            .iter()
            .rev()
            .filter(|a| a.subject == subject && a.predicate == DIGEST_PREDICATE)
            .filter_map(|a| a.assertion_id.clone())
            .collect();
        let mut committed = self.b.store.rows_where(format!(
            "{} AND {}",
            eq("subject", &subject),
            eq("predicate", DIGEST_PREDICATE)
        ))?;
        committed.sort_by_key(|r| std::cmp::Reverse(r.seq));
        let committed = committed
            .into_iter()
            .filter_map(|r| r.assertion.assertion_id);
        for id in staged.into_iter().chain(committed) {
            if self.is_memory(&id)? {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    fn source_ref(&mut self, memory_id: &str, ref_key: &str) -> BackendResult<Option<Value>> {
        let rows = self.b.select(
            &self.st.provenance,
            tables::PROVENANCE_COLUMNS,
            tables::PROVENANCE_COLUMNS.len(),
            Some(format!(
                "{} AND {}",
                eq("memory_id", memory_id),
                eq("ref_key", ref_key)
            )),
        )?;
        if let Some(r) = rows.first() {
            return Ok(Some(tables::provenance_from(r)?.1.ref_json));
        }
        Ok(self
            .stage
            .sources
            .iter()
            .find(|(_, s)| s.memory_id == memory_id && s.ref_key == ref_key)
            .map(|(_, s)| s.ref_json.clone()))
    }

    fn existing_ids(&mut self, ids: &[String]) -> BackendResult<Vec<String>> {
        let mut found = std::collections::HashSet::new();
        for chunk in ids.chunks(MAX_IDS_IN_CLAUSE) {
            let list: Vec<String> = chunk.iter().map(|i| quote_literal(i)).collect();
            for r in self
                .b
                .store
                .rows_where(format!("assertion_id IN ({})", list.join(", ")))?
            {
                found.extend(r.assertion.assertion_id);
            }
        }
        Ok(ids
            .iter()
            .filter(|id| found.contains(*id) || self.staged_row(id).is_some())
            .cloned()
            .collect())
    }

    fn stored(&mut self, assertion_id: &str) -> BackendResult<Option<TripleAssertion>> {
        if let Some(a) = self.staged_row(assertion_id) {
            return Ok(Some(a.clone()));
        }
        self.committed_row(assertion_id)
    }

    fn window(
        &mut self,
        assertion_id: &str,
    ) -> BackendResult<Option<(Option<String>, Option<String>)>> {
        let blank = |s: Option<String>| s.filter(|v| !v.trim().is_empty());
        Ok(self
            .stored(assertion_id)?
            .map(|a| (blank(a.valid_from), blank(a.valid_until))))
    }

    fn write_pin(&mut self, rows: &PreparedRows) -> BackendResult<()> {
        // The pin is written with the rows at projection; refuse a dimension
        // the pin or the vector column contradicts now, before the log row.
        let Some(p) = rows.payload.downcast_ref::<LancePrepared>() else {
            return Err(Error::invalid(
                "write_pin expects rows prepared by the LanceDB connector",
            ));
        };
        self.b.store.check_prepared(&p.0)
    }

    fn insert_assertions(&mut self, rows: &PreparedRows, indexes: &[usize]) -> BackendResult<()> {
        let Some(LancePrepared(p)) = rows.payload.downcast_ref::<LancePrepared>() else {
            return Err(Error::invalid(
                "insert_assertions expects rows prepared by the LanceDB connector",
            ));
        };
        self.b.store.check_prepared(p)?;
        for &i in indexes {
            let a = p.rows.get(i).ok_or_else(|| {
                Error::invalid(format!(
                    "prepared row index {i} out of range (0..{})",
                    p.rows.len()
                ))
            })?;
            let id = a.assertion_id.clone().unwrap_or_default();
            if !self.existing_ids(std::slice::from_ref(&id))?.is_empty() {
                continue;
            }
            self.stage.rows.push(a.clone());
            self.stage.texts.push(p.texts[i].clone());
            self.stage.vectors.push(p.vectors[i].clone());
            if self.stage.zero_warning.is_none() {
                self.stage.zero_warning.clone_from(&p.zero_warning);
            }
        }
        Ok(())
    }

    fn set_provenance(&mut self, assertion_id: &str, provenance: &JsonMap) -> BackendResult<()> {
        if let Some(a) = self.stage.row_mut(assertion_id) {
            a.provenance = provenance.clone();
            return Ok(());
        }
        self.require_committed(assertion_id, "set_provenance")?;
        self.stage.update_mut(assertion_id).provenance = Some(provenance.clone());
        Ok(())
    }

    fn end_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()> {
        self.set_valid_until(assertion_id, valid_until, "end_row")
    }

    fn narrow_row(&mut self, assertion_id: &str, valid_until: &str) -> BackendResult<()> {
        self.set_valid_until(assertion_id, valid_until, "narrow_row")
    }

    fn write_closure(&mut self, _closure: &ClosureRecord) -> BackendResult<bool> {
        // The journal is never part of a LanceDB commit: the engine appends the
        // closures after it.
        Ok(false)
    }

    fn add_history(&mut self, row: &HistoryRow) -> BackendResult<()> {
        let mut row = row.clone();
        row.seq = self.next_history;
        self.next_history += 1;
        self.stage.history.push(row);
        Ok(())
    }

    fn add_source(&mut self, row: &ProvenanceRow) -> BackendResult<()> {
        if self.source_ref(&row.memory_id, &row.ref_key)?.is_some() {
            return Ok(());
        }
        self.stage.sources.push((self.next_source, row.clone()));
        self.next_source += 1;
        Ok(())
    }

    fn add_derivation(&mut self, row: &DerivationRow) -> BackendResult<()> {
        let staged = self
            .stage
            .derivations
            .iter()
            .any(|(_, d)| d.memory_id == row.memory_id && d.from_id == row.from_id);
        if staged {
            return Ok(());
        }
        let committed = self.b.select(
            &self.st.derivations,
            tables::DERIVATION_COLUMNS,
            1,
            Some(format!(
                "{} AND {}",
                eq("memory_id", &row.memory_id),
                eq("from_id", &row.from_id)
            )),
        )?;
        if committed.is_empty() {
            self.stage
                .derivations
                .push((self.next_derivation, row.clone()));
            self.next_derivation += 1;
        }
        Ok(())
    }

    fn insert_revision(&mut self, row: &RevisionRow) -> BackendResult<i64> {
        if self.revision_seq(&row.revision_id)?.is_some() {
            return Err(Error::conflict(format!(
                "revision {} is already in the log",
                row.revision_id
            )));
        }
        let mut row = row.clone();
        row.seq = self.st.next_seq;
        // The engine hands the final row; a second insert in one transaction
        // would need a second log row, which the engine never asks for.
        if self.stage.revision.is_some() {
            return Err(Error::conflict(format!(
                "revision {} is a second log row in one transaction",
                row.revision_id
            )));
        }
        self.stage.revision = Some(row.clone());
        Ok(row.seq)
    }
}
