//! The journal folds of `(scope, owner)` pairs at an anchor, as the
//! identity, diary and diagnostics reads and the identity card apply them: the folded bindings (latest per
//! record), the closed assertion ids, and the assertion ids a latest-hidden
//! binding excludes in its pair (the bound id and every row whose subject it
//! is). 0.3.2's `folds.binding_states` + `closure_exclusions` for one pair.
//!
//! (The recall pipeline keeps its own, cached and per candidate, in
//! `reconstruct/folds.rs`.)

use crate::error::Result;
use am_journal::SearchState;
use am_journal::{BindingFilter, ClosureFilter, MemoryJournal, ScopeBinding};
use am_triples::{TripleQuery, TripleStore};
use std::collections::HashSet;

/// The folds of one pair at one anchor.
pub(crate) struct PairFolds {
    /// The pair's bindings, folded latest-wins per record.
    pub bindings: Vec<ScopeBinding>,
    /// Every closed assertion id (closures are not per pair).
    pub closed: HashSet<String>,
    /// The pair's rows excluded by a latest-hidden binding.
    pub hidden: HashSet<String>,
}

impl PairFolds {
    /// Read the folds of `(scope, owner)` at `as_of`.
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn load(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        scope: &str,
        owner: &str,
        as_of: i64,
    ) -> Result<Self> {
        Self::load_pairs(
            store,
            journal,
            &[(scope.to_owned(), owner.to_owned())],
            as_of,
        )
    }

    /// Read the folds of several `(scope, owner)` pairs at one anchor: their
    /// bindings (each pair folded on its own, in pair order), every closed id,
    /// and the rows each pair's latest-hidden bindings exclude in that pair.
    /// The one reader of these folds (the diary and identity reads, the
    /// diagnostics and the card).
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn load_pairs(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        as_of: i64,
    ) -> Result<Self> {
        let mut bindings = Vec::new();
        for (scope, owner) in pairs {
            bindings.extend(journal.bindings(&BindingFilter {
                record_id: None,
                scope: Some(scope.clone()),
                owner_id: Some(owner.clone()),
                fold: true,
                until_seq: Some(as_of),
            })?);
        }
        let hidden: Vec<&ScopeBinding> = bindings
            .iter()
            .filter(|b| b.search_state == SearchState::Hidden)
            .collect();
        let (closed, hidden) = Self::exclusions(store, journal, hidden, as_of)?;
        Ok(PairFolds {
            bindings,
            closed,
            hidden,
        })
    }

    /// The exclusions alone (closed ids and hidden rows, `bindings` left
    /// empty) of several pairs at one anchor, reading only each pair's
    /// latest-hidden bindings (`MemoryJournal::hidden_bindings`, an index probe
    /// on the SQLite journal) instead of folding all of them.
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn load_exclusions(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        as_of: i64,
    ) -> Result<Self> {
        let mut hidden_bindings = Vec::new();
        for (scope, owner) in pairs {
            hidden_bindings.extend(journal.hidden_bindings(scope, owner, Some(as_of))?);
        }
        let (closed, hidden) =
            Self::exclusions(store, journal, hidden_bindings.iter().collect(), as_of)?;
        Ok(PairFolds {
            bindings: Vec::new(),
            closed,
            hidden,
        })
    }

    /// The exclusions of several pairs at one anchor, pair by pair: every
    /// closed id, and for each pair (in order) the rows its latest-hidden
    /// bindings exclude in it. `load_exclusions` of the ladder is `closed`
    /// with the union of the hidden sets; `load` of one pair, its own.
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn load_exclusions_by_pair(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        as_of: i64,
    ) -> Result<(HashSet<String>, Vec<HashSet<String>>)> {
        let closed = Self::closed_ids(journal, as_of)?;
        let mut hidden = Vec::with_capacity(pairs.len());
        for (scope, owner) in pairs {
            let bound = journal.hidden_bindings(scope, owner, Some(as_of))?;
            hidden.push(Self::hidden_rows(store, bound.iter())?);
        }
        Ok((closed, hidden))
    }

    /// Every closed id at `as_of`, and the rows the given latest-hidden
    /// bindings exclude in their pairs (the bound id and its subject rows).
    fn exclusions(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        hidden_bindings: Vec<&ScopeBinding>,
        as_of: i64,
    ) -> Result<(HashSet<String>, HashSet<String>)> {
        Ok((
            Self::closed_ids(journal, as_of)?,
            Self::hidden_rows(store, hidden_bindings)?,
        ))
    }

    /// Every assertion id closed at or before `as_of`.
    pub(crate) fn closed_ids(journal: &dyn MemoryJournal, as_of: i64) -> Result<HashSet<String>> {
        Ok(journal
            .closures(&ClosureFilter {
                assertion_id: None,
                until_seq: Some(as_of),
                limit: 0,
            })?
            .into_iter()
            .map(|c| c.assertion_id)
            .collect())
    }

    /// The rows latest-hidden bindings exclude, each in its own pair: the
    /// bound id and every row whose subject it is.
    fn hidden_rows<'b>(
        store: &dyn TripleStore,
        hidden_bindings: impl IntoIterator<Item = &'b ScopeBinding>,
    ) -> Result<HashSet<String>> {
        let mut hidden = HashSet::new();
        for b in hidden_bindings {
            let pair = |q: TripleQuery| TripleQuery {
                scope: Some(b.scope.clone()),
                owner_id: (!b.owner_id.is_empty()).then(|| b.owner_id.clone()),
                ..q
            };
            for q in [
                TripleQuery {
                    assertion_ids: Some(vec![b.record_id.clone()]),
                    limit: 1,
                    ..TripleQuery::default()
                },
                TripleQuery {
                    subject: Some(b.record_id.clone()),
                    limit: 0,
                    ..TripleQuery::default()
                },
            ] {
                for a in store.query(&pair(q))? {
                    hidden.extend(a.assertion_id);
                }
            }
        }
        Ok(hidden)
    }

    /// Whether `id` (an assertion id or a subject) is closed or hidden.
    pub(crate) fn excludes(&self, id: &str) -> bool {
        self.closed.contains(id) || self.hidden.contains(id)
    }
}
