//! What every drive read reads of a ladder, gathered once: each pair's rows
//! (in store order), the closure and hidden folds at the journal's head, and
//! the folded binding lifecycle of those rows' records. The folds of the
//! drive reads (`pressure.rs`, `interests.rs`, `grouping.rs`, `health.rs`,
//! `alive.rs`) run over a view, never over the store directly.
//!
//! Two ways to gather one, with the same answers:
//! - [`DriveView::whole`]: every row of every pair (one scan per pair) and
//!   every binding of every pair. The free functions (`drive_pressure`,
//!   `open_drive_partition`, `cognition_health`) read this way, and so does a
//!   system whose store offers no change feed.
//! - [`DriveView::indexed`] (`index.rs`): only the rows a drive fold can read
//!   (diary, dream and interest rows, rows that `explores` something, machine
//!   rows), found through the drive index kept fresh from the store's change
//!   feed and the journal's tail, and read fresh by id. Every fold below
//!   filters the rows it reads by one of those marks, so it finds in the
//!   narrow set exactly what it finds in the whole one.

use super::index::{DriveIndex, is_machine};
use crate::error::Result;
use crate::kinds::DIGEST_PREDICATE;
use crate::pair_folds::PairFolds;
use crate::record::DigestRow;
use am_journal::{BindingFilter, Lifecycle, MemoryJournal};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::collections::{HashMap, HashSet};

/// A ladder's drive rows and folds at one journal head (see the module doc).
pub(crate) struct DriveView {
    /// The normalized ladder.
    pub pairs: Vec<(String, String)>,
    /// Per pair: its rows (whole, or at least every row a drive fold reads),
    /// in the store's query order.
    pub rows: Vec<Vec<TripleAssertion>>,
    /// Every assertion id closed at the head.
    pub closed: HashSet<String>,
    /// Per pair: the rows its latest-hidden bindings exclude in it.
    pub hidden: Vec<HashSet<String>>,
    /// Per pair: the folded lifecycle (latest binding in the pair) of the
    /// records of the view's rows that have a binding there.
    pub lifecycle: Vec<HashMap<String, Lifecycle>>,
}

/// The query of every row of a pair (a blank owner reads every owner's).
pub(crate) fn pair_query(scope: &str, owner: &str) -> TripleQuery {
    TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        limit: 0,
        ..TripleQuery::default()
    }
}

impl DriveView {
    /// Every row and binding of `pairs` (normalized), read whole.
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn whole(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
    ) -> Result<Self> {
        let as_of = journal.current_seq()?;
        let mut rows = Vec::with_capacity(pairs.len());
        let mut lifecycle = Vec::with_capacity(pairs.len());
        for (scope, owner) in pairs {
            rows.push(store.query(&pair_query(scope, owner))?);
            let mut life = HashMap::new();
            for b in journal.bindings(&BindingFilter {
                record_id: None,
                scope: Some(scope.clone()),
                owner_id: Some(owner.clone()),
                fold: true,
                until_seq: Some(as_of),
            })? {
                life.insert(b.record_id, b.lifecycle);
            }
            lifecycle.push(life);
        }
        Self::assemble(store, journal, pairs, rows, lifecycle, as_of)
    }

    /// The view of `pairs` through the system's drive index; `None` when the
    /// store offers no change feed (read [`DriveView::whole`] then).
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn indexed(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        index: &mut DriveIndex,
        pairs: &[(String, String)],
    ) -> Result<Option<Self>> {
        let as_of = journal.current_seq()?;
        if !index.refresh(store, journal, pairs, as_of)? {
            return Ok(None);
        }
        let mut rows = Vec::with_capacity(pairs.len());
        for (scope, owner) in pairs {
            rows.push(index.rows(store, scope, owner)?);
        }
        // Every pair's lifecycle of every row's record: the ladder-wide
        // lifecycle reads a record's binding in any pair.
        let records: HashSet<&str> = rows.iter().flatten().map(|a| a.subject.as_str()).collect();
        let lifecycle = pairs
            .iter()
            .map(|(scope, owner)| index.lifecycles(scope, owner, records.iter().copied()))
            .collect();
        Self::assemble(store, journal, pairs, rows, lifecycle, as_of).map(Some)
    }

    /// The view of `pairs` over rows already read (per pair, in the
    /// store's query order: any subset holding every row a fold reads, as
    /// [`DriveView::indexed`]'s), each pair's lifecycle read for the
    /// records of its rows only (the latest binding in the pair at the
    /// journal's head, as [`DriveView::whole`] folds it).
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn of_rows(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        rows: Vec<Vec<TripleAssertion>>,
    ) -> Result<Self> {
        let as_of = journal.current_seq()?;
        let records: HashSet<&str> = rows.iter().flatten().map(|a| a.subject.as_str()).collect();
        let mut lifecycle = Vec::with_capacity(pairs.len());
        for (scope, owner) in pairs {
            let mut life = HashMap::new();
            for record in &records {
                for b in journal.bindings(&BindingFilter {
                    record_id: Some((*record).to_owned()),
                    scope: Some(scope.clone()),
                    owner_id: Some(owner.clone()),
                    fold: true,
                    until_seq: Some(as_of),
                })? {
                    life.insert(b.record_id, b.lifecycle);
                }
            }
            lifecycle.push(life);
        }
        Self::assemble(store, journal, pairs, rows, lifecycle, as_of)
    }

    fn assemble(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        rows: Vec<Vec<TripleAssertion>>,
        lifecycle: Vec<HashMap<String, Lifecycle>>,
        as_of: i64,
    ) -> Result<Self> {
        let (closed, hidden) = PairFolds::load_exclusions_by_pair(store, journal, pairs, as_of)?;
        Ok(DriveView {
            pairs: pairs.to_vec(),
            rows,
            closed,
            hidden,
            lifecycle,
        })
    }

    /// Whether pair `p`'s folds exclude `id` (closed, or hidden in `p`).
    pub(crate) fn excludes_in(&self, p: usize, id: &str) -> bool {
        self.closed.contains(id) || self.hidden[p].contains(id)
    }

    /// Whether any pair's folds exclude `id` (closed, or hidden in some
    /// pair): the ladder-wide fold.
    pub(crate) fn excludes_anywhere(&self, id: &str) -> bool {
        self.closed.contains(id) || self.hidden.iter().any(|h| h.contains(id))
    }

    /// Whether row `a` of pair `p` is believed in its pair (neither its
    /// assertion nor its record excluded there).
    pub(crate) fn believed_in(&self, p: usize, a: &TripleAssertion) -> bool {
        !a.assertion_id
            .as_deref()
            .is_some_and(|id| self.excludes_in(p, id))
            && !self.excludes_in(p, &a.subject)
    }

    /// Whether row `a` is believed across the ladder.
    pub(crate) fn believed_anywhere(&self, a: &TripleAssertion) -> bool {
        !a.assertion_id
            .as_deref()
            .is_some_and(|id| self.excludes_anywhere(id))
            && !self.excludes_anywhere(&a.subject)
    }

    /// The lifecycle of `record` across the ladder: the folded one of the
    /// last pair (in ladder order) that binds it.
    pub(crate) fn ladder_lifecycle(&self, record: &str) -> Option<Lifecycle> {
        self.lifecycle
            .iter()
            .rev()
            .find_map(|l| l.get(record).copied())
    }

    /// The subjects of the ladder's machine digest rows.
    pub(crate) fn machine_records(&self) -> HashSet<&str> {
        self.rows
            .iter()
            .flatten()
            .filter(|a| a.predicate == DIGEST_PREDICATE && is_machine(DigestRow::of(a)))
            .map(|a| a.subject.as_str())
            .collect()
    }
}
