//! The journal folds one reconstruction reads, each anchored at `as_of`: the
//! closure fold, the binding fold answered per candidate from the journal's
//! indexed per-record fold (hidden records leave ranked retrieval in their
//! pair; the handle's `binding` display string), the prompt-active self
//! source, and the formed-by-anchor gate of an explicitly anchored read.
//!
//! No fold here reads every binding or event of the home's life: bindings are
//! read per record id (cached for the call), the anchored gate reads only the
//! journal tail after the anchor, and the prompt-active scan runs only when
//! the budget reserves identity seats.
//!
//! Spec: memory-system.md "Bindings and closures"; troubleshooting "A record
//! exists but never surfaces in recall"; 0.3.2's `folds.py`
//! (`closure_exclusions`, `binding_states`, `anchored_universe_exclusions`).

use super::hash::{HashMap, HashSet};
use super::read::RecallRead;
use crate::error::Result;
use am_journal::{BindingFilter, ClosureFilter, JournalRecord, MemoryJournal, ScopeBinding};
use am_journal::{BindingSource, SearchState};
use am_triples::{TripleAssertion, TripleQuery};
use std::cell::RefCell;

/// The closed ids and per-record binding folds at one anchor.
pub(crate) type CachedFolds = (HashSet<String>, HashMap<String, Vec<ScopeBinding>>);

/// The display string of an unbound record.
pub(crate) const DEFAULT_BINDING: &str = "indexed+inactive";

/// The folds of one reconstruction, anchored at `as_of`.
pub(crate) struct Folds<'a> {
    store: &'a dyn RecallRead,
    journal: &'a dyn MemoryJournal,
    pairs: &'a [(String, String)],
    as_of: i64,
    closed: HashSet<String>,
    /// `(record_id, scope, owner)` keys formed after the anchor (anchored reads only).
    future: HashSet<(String, String, String)>,
    /// Distinct record ids formed after the anchor in the searched pairs.
    pub future_records: usize,
    bindings: RefCell<HashMap<String, Vec<ScopeBinding>>>,
    rows: RefCell<HashMap<String, Option<TripleAssertion>>>,
}

/// Whether assertion `a` lives in the searched pair `(scope, owner)` (an empty
/// owner matches every owner, as a store query with no owner does).
pub(crate) fn in_pair(a: &TripleAssertion, scope: &str, owner: &str) -> bool {
    a.scope == scope && (owner.is_empty() || a.owner_id.as_deref().unwrap_or("") == owner)
}

impl<'a> Folds<'a> {
    /// Read the closure fold at `as_of` and, for an explicitly anchored read
    /// (`anchored`), the records formed after the anchor (from the journal
    /// tail after `as_of` only).
    ///
    /// # Errors
    /// The journal's failure.
    ///
    /// `cached` (the recall index's folds at `as_of`: closed ids and binding
    /// folds per record id) replaces the closure read and seeds the binding
    /// cache; [`Folds::into_parts`] hands both back, grown by this call.
    pub(crate) fn load(
        store: &'a dyn RecallRead,
        journal: &'a dyn MemoryJournal,
        pairs: &'a [(String, String)],
        as_of: i64,
        anchored: bool,
        cached: Option<CachedFolds>,
    ) -> Result<Self> {
        let (closed, bindings) = match cached {
            Some(parts) => parts,
            None => (
                journal
                    .closures(&ClosureFilter {
                        assertion_id: None,
                        until_seq: Some(as_of),
                        limit: 0,
                    })?
                    .into_iter()
                    .map(|c| c.assertion_id)
                    .collect(),
                HashMap::default(),
            ),
        };
        let mut folds = Folds {
            store,
            journal,
            pairs,
            as_of,
            closed,
            future: HashSet::default(),
            future_records: 0,
            bindings: RefCell::new(bindings),
            rows: RefCell::new(HashMap::default()),
        };
        if anchored {
            folds.load_future()?;
        }
        Ok(folds)
    }

    fn load_future(&mut self) -> Result<()> {
        let mut later: Vec<ScopeBinding> = Vec::new();
        for r in self.journal.replay_records(self.as_of, None)? {
            if let JournalRecord::Binding(b) = r
                && b.source == BindingSource::Remember
                && self
                    .pairs
                    .iter()
                    .any(|(s, o)| *s == b.scope && *o == b.owner_id)
            {
                later.push(b);
            }
        }
        let mut records: HashSet<String> = HashSet::default();
        for b in later {
            let key = (b.record_id.clone(), b.scope.clone(), b.owner_id.clone());
            if self.future.contains(&key) {
                continue;
            }
            let earlier = self.journal.bindings(&BindingFilter {
                record_id: Some(b.record_id.clone()),
                scope: Some(b.scope.clone()),
                owner_id: Some(b.owner_id.clone()),
                fold: false,
                until_seq: Some(self.as_of),
            })?;
            if earlier.iter().any(|e| e.source == BindingSource::Remember) {
                continue;
            }
            records.insert(b.record_id.clone());
            self.future.insert(key);
        }
        self.future_records = records.len();
        Ok(())
    }

    /// The closed ids and the binding folds read so far (for the recall index).
    pub(crate) fn into_parts(self) -> CachedFolds {
        (self.closed, self.bindings.into_inner())
    }

    /// The over-fetch headroom of this read: how many assertion ids the
    /// exclusion set holds, counted up to `cap`. The set is 0.3.2's one
    /// exclusion set (`folds.py`): the closed ids, every row a latest
    /// `hidden` binding of a searched pair excludes (the bound id and the
    /// rows whose subject it is, in the binding's pair), and for an anchored
    /// read every row formed after the anchor (the same materialization).
    /// Counting the closed ids alone under-fetched on a home with hidden
    /// bindings or an anchor: the candidate window, the channels' fetches
    /// and spreading's per-term reads came back shorter than 0.3.2's (issue
    /// 23 §1). `hidden` holds the latest-hidden `(record_id, scope, owner)`
    /// keys at the anchor (any pairs; those of the searched pairs count).
    ///
    /// # Errors
    /// The store's failure.
    pub(crate) fn exclusion_headroom(
        &self,
        hidden: &HashSet<(String, String, String)>,
        cap: usize,
    ) -> Result<usize> {
        if self.closed.len() >= cap {
            return Ok(cap);
        }
        let mut keys: Vec<&(String, String, String)> = hidden
            .iter()
            .filter(|(_, s, o)| self.pairs.iter().any(|(ps, po)| ps == s && po == o))
            .chain(self.future.iter())
            .collect();
        keys.sort();
        keys.dedup();
        let mut extra: HashSet<String> = HashSet::default();
        for (rid, scope, owner) in keys {
            let pair = |limit: i64| TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                limit,
                ..TripleQuery::default()
            };
            let by_id = TripleQuery {
                assertion_ids: Some(vec![rid.clone()]),
                ..pair(1)
            };
            let by_subject = TripleQuery {
                subject: Some(rid.clone()),
                ..pair(0)
            };
            for q in [by_id, by_subject] {
                for a in self.store.rows(&q)? {
                    if let Some(id) = a.assertion_id
                        && !self.closed.contains(&id)
                    {
                        extra.insert(id);
                    }
                }
            }
            if self.closed.len() + extra.len() >= cap {
                return Ok(cap);
            }
        }
        Ok(self.closed.len() + extra.len())
    }

    /// The latest-hidden `(record_id, scope, owner)` keys at `as_of`, read
    /// from the whole binding fold (the recall index keeps them at the
    /// current seq; this read serves an anchored one).
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn hidden_keys_at(
        journal: &dyn MemoryJournal,
        as_of: i64,
    ) -> Result<HashSet<(String, String, String)>> {
        Ok(journal
            .bindings(&BindingFilter {
                record_id: None,
                scope: None,
                owner_id: None,
                fold: true,
                until_seq: Some(as_of),
            })?
            .into_iter()
            .filter(|b| b.search_state == SearchState::Hidden)
            .map(|b| (b.record_id, b.scope, b.owner_id))
            .collect())
    }

    /// Run `f` on the folded bindings (latest per `(scope, owner)`,
    /// `seq <= as_of`) of one record id, read once per call and cached; `f`
    /// borrows them (a fold is several strings per binding: cloning it for
    /// every candidate check cost more than the check).
    fn with_bindings<R>(&self, record_id: &str, f: impl FnOnce(&[ScopeBinding]) -> R) -> Result<R> {
        if let Some(b) = self.bindings.borrow().get(record_id) {
            return Ok(f(b));
        }
        let b = self.journal.bindings(&BindingFilter {
            record_id: Some(record_id.to_owned()),
            scope: None,
            owner_id: None,
            fold: true,
            until_seq: Some(self.as_of),
        })?;
        let answer = f(&b);
        self.bindings.borrow_mut().insert(record_id.to_owned(), b);
        Ok(answer)
    }

    /// Prime the binding cache for rows about to pass [`Folds::excluded`]:
    /// one batched journal read (`fold_bindings_for`) of the assertion ids and
    /// subjects not yet cached, bounded by the rows given.
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn prime<'r>(
        &self,
        rows: impl IntoIterator<Item = &'r TripleAssertion>,
    ) -> Result<()> {
        let mut wanted: Vec<String> = Vec::new();
        {
            let cache = self.bindings.borrow();
            let mut seen: HashSet<&str> = HashSet::default();
            for a in rows {
                let Some(rid) = a.assertion_id.as_deref() else {
                    continue;
                };
                for id in [rid, a.subject.as_str()] {
                    if !cache.contains_key(id) && seen.insert(id) {
                        wanted.push(id.to_owned());
                    }
                }
            }
        }
        if wanted.is_empty() {
            return Ok(());
        }
        let folded = self.journal.fold_bindings_for(&wanted, Some(self.as_of))?;
        self.bindings.borrow_mut().extend(folded);
        Ok(())
    }

    /// Whether ranked retrieval leaves `a` out: a closure at or before the
    /// anchor, a latest `hidden` binding (on its id or its subject) in a
    /// searched pair it lives in, or (anchored reads) formation after the anchor.
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn excluded(&self, a: &TripleAssertion) -> Result<bool> {
        let Some(rid) = a.assertion_id.as_deref() else {
            return Ok(true);
        };
        if self.closed.contains(rid) {
            return Ok(true);
        }
        let pairs: Vec<&(String, String)> = self
            .pairs
            .iter()
            .filter(|(s, o)| in_pair(a, s, o))
            .collect();
        if pairs.is_empty() {
            return Ok(false);
        }
        for id in [rid, a.subject.as_str()] {
            if !self.future.is_empty()
                && pairs
                    .iter()
                    .any(|(s, o)| self.future.contains(&(id.to_owned(), s.clone(), o.clone())))
            {
                return Ok(true);
            }
            let hidden = self.with_bindings(id, |folded| {
                folded.iter().any(|b| {
                    b.search_state == SearchState::Hidden
                        && pairs.iter().any(|(s, o)| *s == b.scope && *o == b.owner_id)
                })
            })?;
            if hidden {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The row of an assertion id (unscoped id lookup, cached for the call).
    ///
    /// # Errors
    /// The store's failure.
    pub(crate) fn row(&self, id: &str) -> Result<Option<TripleAssertion>> {
        if let Some(r) = self.rows.borrow().get(id) {
            return Ok(r.clone());
        }
        let row = self
            .store
            .rows(&TripleQuery {
                assertion_ids: Some(vec![id.to_owned()]),
                limit: 1,
                ..TripleQuery::default()
            })?
            .into_iter()
            .find(|a| a.assertion_id.as_deref() == Some(id));
        self.rows.borrow_mut().insert(id.to_owned(), row.clone());
        Ok(row)
    }

    /// Whether an id (no row at hand) is excluded: closed, or its row is.
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn excluded_id(&self, id: &str) -> Result<bool> {
        if self.closed.contains(id) {
            return Ok(true);
        }
        match self.row(id)? {
            Some(a) => self.excluded(&a),
            None => Ok(false),
        }
    }

    /// The handle's folded binding display string: the subject-level key in
    /// the record's own pair first, then the assertion-level key, else
    /// [`DEFAULT_BINDING`]. Only searched pairs carry state.
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn binding_display(&self, a: &TripleAssertion) -> Result<String> {
        let scope = a.scope.as_str();
        let owner = a.owner_id.as_deref().unwrap_or("");
        if !self.pairs.iter().any(|(s, o)| s == scope && o == owner) {
            return Ok(DEFAULT_BINDING.to_owned());
        }
        for id in [a.subject.as_str(), a.assertion_id.as_deref().unwrap_or("")] {
            if id.is_empty() {
                continue;
            }
            let display = self.with_bindings(id, |folded| {
                folded
                    .iter()
                    .find(|b| b.scope == scope && b.owner_id == owner)
                    .map(|b| format!("{}+{}", b.search_state, b.prompt_state))
            })?;
            if let Some(d) = display {
                return Ok(d);
            }
        }
        Ok(DEFAULT_BINDING.to_owned())
    }

    /// The prompt-active binding triples `(record_id, scope, owner)` of the
    /// searched pairs (folded at the anchor), in pair order then fold order.
    /// Reads each searched pair's bindings; called only when identity seats
    /// are reserved (`self_fraction > 0`).
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn prompt_active(&self) -> Result<Vec<(String, String, String)>> {
        let mut out = Vec::new();
        for (scope, owner) in self.pairs {
            for b in self.journal.bindings(&BindingFilter {
                record_id: None,
                scope: Some(scope.clone()),
                owner_id: Some(owner.clone()),
                fold: true,
                until_seq: Some(self.as_of),
            })? {
                if b.is_prompt_active() {
                    out.push((b.record_id, b.scope, b.owner_id));
                }
            }
        }
        Ok(out)
    }
}
