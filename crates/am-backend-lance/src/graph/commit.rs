//! The LanceDB connector's log-first commit and its crash repair.
//!
//! A commit writes the revision's log row first, carrying the whole staged
//! projection (`stage_json`) and `projected = false`; then the projections, one
//! LanceDB append or update each (the new triple rows, the window and
//! provenance changes to older rows, the history, provenance and derivation
//! rows); then flips `projected`. A crash between two steps leaves a logged,
//! half-projected revision: [`LanceGraphBackend::repair_locked`] re-derives it
//! from its log row, skipping what is already written (each step is one
//! LanceDB commit, so a table holds all of a revision's rows or none; the
//! triple rows are idempotent by id, the updates by value).
//!
//! Spec: api.md "Connectors" ("a log-first commit, `repair_projections()`
//! re-deriving a half-projected revision from the log").

use super::stage::Stage;
use super::tables::{self, Cell};
use super::tx::{LancePrepared, LanceTx};
use super::{CommitPoint, LanceGraphBackend, MindState, eq, refresh_counters};
use am_graph::backend::{BackendResult, GraphTx, PreparedRows};
use am_triples::{Error, Result, TripleAssertion, TripleStore};

impl LanceGraphBackend {
    pub(super) fn prepare(&self, assertions: &[TripleAssertion]) -> BackendResult<PreparedRows> {
        let p = self.store.prepare(assertions)?;
        Ok(PreparedRows {
            assertions: p.rows.clone(),
            payload: Box::new(LancePrepared(p)),
        })
    }

    pub(super) fn run_transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn GraphTx) -> BackendResult<()>,
    ) -> BackendResult<()> {
        let mut st = self.lock();
        // A revision an earlier commit left half-projected is finished before
        // anything is staged over it, inside this outermost transaction: its
        // repair calls the guard (at `graph`, before its first write), and
        // then the revision's own commit does not call it again (once per
        // outermost transaction).
        let guarded = st.needs_repair && self.repair_locked(&mut st)? > 0;
        let stage = {
            let mut tx = LanceTx::new(self, &st);
            // On an error the stage is dropped: nothing was written.
            body(&mut tx)?;
            tx.stage
        };
        if stage.is_empty() {
            return Ok(());
        }
        // The commit guard, under the mind's lock, immediately before the
        // log row (the revision's first LanceDB commit) unless the repair
        // above already called it; once: the projection's store writes do
        // not call it again.
        if !guarded {
            self.check_guard(am_triples::CommitPoint::Graph)?;
        }
        am_triples::CommitGuard::passed(|| self.commit_locked(&mut st, &stage))
    }

    /// Call the store's commit guard (the one `MemorySystem` installs on the
    /// mind's store) for a graph write at `point`.
    pub(super) fn check_guard(&self, point: am_triples::CommitPoint) -> Result<()> {
        match self.store.commit_guard() {
            Some(g) => g.check(point),
            None => Ok(()),
        }
    }

    fn hook(&self, point: CommitPoint) -> Result<()> {
        match &self.hook {
            Some(h) => h(point),
            None => Ok(()),
        }
    }

    /// Log, then project, one staged revision.
    fn commit_locked(&self, st: &mut MindState, stage: &Stage) -> Result<()> {
        let Some(rev) = &stage.revision else {
            return Err(Error::internal(
                "a LanceDB graph transaction staged writes but logged no revision \
                 (the log row is what a repair re-derives them from); nothing written",
            ));
        };
        let json = stage.to_json();
        self.append(
            &st.revisions,
            tables::REVISION_COLUMNS,
            &[tables::revision_cells(rev, false, &json)],
        )?;
        // The log row is written: its positions are taken, and until the
        // projections are all written the mind needs a repair.
        st.next_seq = rev.seq + 1;
        st.next_history = stage
            .history
            .iter()
            .map(|h| h.seq + 1)
            .fold(st.next_history, i64::max);
        st.next_source = stage
            .sources
            .iter()
            .map(|(o, _)| o + 1)
            .fold(st.next_source, i64::max);
        st.next_derivation = stage
            .derivations
            .iter()
            .map(|(o, _)| o + 1)
            .fold(st.next_derivation, i64::max);
        st.needs_repair = true;
        self.hook(CommitPoint::AfterLog)?;
        self.project(st, stage, false)?;
        st.needs_repair = false;
        Ok(())
    }

    /// Write a logged revision's projections and mark it projected. With
    /// `repairing`, a table already holding the revision's rows is skipped.
    fn project(&self, st: &MindState, stage: &Stage, repairing: bool) -> Result<()> {
        let Some(rev) = &stage.revision else {
            return Ok(());
        };
        let rid = &rev.revision_id;
        // The failpoint interrupts commits, never a repair.
        let hook = |point| if repairing { Ok(()) } else { self.hook(point) };
        if !stage.rows.is_empty() {
            // Ids already stored are skipped (a repair re-writes nothing).
            let warnings = self.store.insert_prepared(&stage.prepared())?;
            self.store.note_warnings(warnings);
        }
        hook(CommitPoint::AfterTriples)?;
        for u in &stage.updates {
            if let Some(v) = &u.valid_until {
                self.store.set_column(&u.assertion_id, "valid_until", v)?;
            }
            if let Some(p) = &u.provenance {
                let text = serde_json::to_string(p).map_err(|e| {
                    Error::storage(format!("provenance of {}: {e}", u.assertion_id)).with_source(e)
                })?;
                self.store
                    .set_column(&u.assertion_id, "provenance_json", &text)?;
            }
        }
        hook(CommitPoint::AfterUpdates)?;
        let has = |table: &lancedb::Table, columns| -> Result<bool> {
            Ok(repairing
                && !self
                    .select(table, columns, 1, Some(eq("revision_id", rid)))?
                    .is_empty())
        };
        if !stage.history.is_empty() && !has(&st.history, tables::HISTORY_COLUMNS)? {
            let rows: Vec<Vec<Cell>> = stage.history.iter().map(tables::history_cells).collect();
            self.append(&st.history, tables::HISTORY_COLUMNS, &rows)?;
        }
        hook(CommitPoint::AfterHistory)?;
        if !stage.sources.is_empty() && !has(&st.provenance, tables::PROVENANCE_COLUMNS)? {
            let rows: Vec<Vec<Cell>> = stage
                .sources
                .iter()
                .map(|(o, s)| tables::provenance_cells(*o, s))
                .collect();
            self.append(&st.provenance, tables::PROVENANCE_COLUMNS, &rows)?;
        }
        hook(CommitPoint::AfterSources)?;
        if !stage.derivations.is_empty() && !has(&st.derivations, tables::DERIVATION_COLUMNS)? {
            let rows: Vec<Vec<Cell>> = stage
                .derivations
                .iter()
                .map(|(o, d)| tables::derivation_cells(*o, d))
                .collect();
            self.append(&st.derivations, tables::DERIVATION_COLUMNS, &rows)?;
        }
        hook(CommitPoint::AfterDerivations)?;
        self.update(
            &st.revisions,
            format!("{} AND projected = false", eq("revision_id", rid)),
            "projected",
            "true",
        )?;
        Ok(())
    }

    /// Re-derive every logged revision not yet projected, oldest first, from
    /// its log row; returns how many it finished. Then re-reads the counters.
    pub(super) fn repair_locked(&self, st: &mut MindState) -> Result<usize> {
        let mut rows = self.select(
            &st.revisions,
            tables::REVISION_COLUMNS,
            tables::REVISION_COLUMNS.len(),
            Some("projected = false".into()),
        )?;
        rows.sort_by_key(|r| r[0].as_int());
        let mut done = 0;
        if !rows.is_empty() {
            // Finishing a logged revision writes: the guard is called once,
            // at `graph`, before the first projection (a refused repair
            // leaves the revision logged, to be finished later).
            self.check_guard(am_triples::CommitPoint::Graph)?;
            am_triples::CommitGuard::passed(|| -> Result<()> {
                for cells in &rows {
                    let (rev, _, json) = tables::revision_from(cells);
                    let stage = Stage::from_json(json.as_deref().unwrap_or_default(), &rev)?;
                    self.project(st, &stage, true)?;
                    done += 1;
                }
                Ok(())
            })?;
        }
        refresh_counters(&self.store, st)?;
        Ok(done)
    }
}
