//! The standing dreams: `unresolved_dreams`, the pure read of the dreams whose
//! tension still stands (the recurring dreams a host may wake for, and the
//! parents a new dream chains to).
//!
//! A dream stands while its `continuation_state` is `unresolved` or
//! `continued` (a continuation re-lights the tension it continues: were it
//! not standing itself, it could never resolve when its lineage settles).
//! With a journal, closed dreams and dreams a latest-hidden binding of the
//! pair hides leave the set; without one this is a layer-1 read of store
//! truth. Oldest first (`observed_at`, then assertion id).
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`unresolved_dreams`),
//! memory-system.md "Dreams" ("unresolved dreams chain and stand as
//! `unresolved_dreams(...)`"). The spec names `unresolved` only; `continued`
//! stands too as in 0.3.2 (`consolidation.unresolved_dreams`), which the spec
//! leaves open.

use crate::error::{Error, Result};
use crate::kinds::RecordKind;
use crate::pair_folds::PairFolds;
use crate::record::DigestRow;
use am_journal::MemoryJournal;
use am_triples::{Narrow, NarrowRow, TripleAssertion, TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};

fn hundred() -> usize {
    100
}

/// The continuation states of a dream that still stands.
pub const STANDING_CONTINUATION_STATES: [&str; 2] = ["unresolved", "continued"];

/// `unresolved_dreams(store, *, scope, owner_id, journal=None, limit=100)`'s
/// keywords (the journal is the function's other argument).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnresolvedDreams {
    /// The dreams' scope.
    pub scope: String,
    /// The dreamer (blank: any owner).
    pub owner_id: String,
    /// At most this many, oldest first (0: all).
    #[serde(default = "hundred")]
    pub limit: usize,
}

impl UnresolvedDreams {
    /// The standing dreams of `(scope, owner_id)`, at most 100.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        UnresolvedDreams {
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            limit: hundred(),
        }
    }
}

/// Whether `row` is a standing dream's digest row: `record_kind = "dream"`
/// with a standing `continuation_state`, both read exactly as stored.
pub(crate) fn is_standing_dream(row: &TripleAssertion) -> bool {
    standing_dream_view(DigestRow::of(row))
}

/// [`is_standing_dream`] of a row's attributes.
fn standing_dream_view(view: DigestRow<'_>) -> bool {
    view.kind() == Some(RecordKind::Dream)
        && view
            .as_stored("continuation_state")
            .is_some_and(|s| STANDING_CONTINUATION_STATES.contains(&s))
}

/// The standing dreams of one pair, oldest first: `kind = "dream"` digest
/// rows whose `continuation_state` is `unresolved` or `continued`; with
/// `journal`, closures and the pair's hidden bindings folded at its head.
///
/// # Errors
/// `InvalidInput` for a blank scope; the store's or journal's failure.
pub fn unresolved_dreams(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &UnresolvedDreams,
) -> Result<Vec<TripleAssertion>> {
    let scope = args.scope.trim();
    if scope.is_empty() {
        return Err(Error::invalid(format!(
            "unresolved_dreams needs a non-empty scope, got {:?}",
            args.scope
        )));
    }
    let owner = args.owner_id.trim();
    let pair = TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        limit: 0,
        ..TripleQuery::default()
    };
    // The pair's rows are read with only the two keys that say whether a
    // row is a standing dream; the few that are are then read whole.
    let mut ids = StandingDreamIds::new();
    store.visit_narrow(&pair, STANDING_DREAM_KEYS, &mut |row| ids.row(row))?;
    ids.finish(store, journal, scope, owner, args.limit)
}

/// The keys [`StandingDreamIds::row`] reads of a row.
pub(crate) const STANDING_DREAM_KEYS: Narrow<'static> = Narrow {
    attributes: &["record_kind", "continuation_state"],
    provenance: &[],
};

/// [`unresolved_dreams`] folded from a narrow read of one pair's rows
/// (each holding at least [`STANDING_DREAM_KEYS`]): the standing dreams'
/// assertion ids, `None` once a standing dream has no id. The mind-mass
/// report folds it from the read its other sections share.
pub(crate) struct StandingDreamIds(Option<Vec<String>>);

impl StandingDreamIds {
    /// None folded yet.
    pub(crate) fn new() -> Self {
        StandingDreamIds(Some(Vec::new()))
    }

    /// Fold one row of the pair.
    pub(crate) fn row(&mut self, row: NarrowRow<'_>) {
        if standing_dream_view(DigestRow::of_attributes(row.attributes)) {
            match row.assertion_id {
                Some(id) => {
                    if let Some(list) = self.0.as_mut() {
                        list.push(id.to_owned());
                    }
                }
                None => self.0 = None,
            }
        }
    }

    /// The standing dreams of the pair `(scope, owner)` (as
    /// [`unresolved_dreams`] trims them) whose rows were folded: read whole
    /// by id, with `journal` the closure and hidden folds applied, oldest
    /// first, at most `limit` (0: all).
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn finish(
        self,
        store: &dyn TripleStore,
        journal: Option<&dyn MemoryJournal>,
        scope: &str,
        owner: &str,
        limit: usize,
    ) -> Result<Vec<TripleAssertion>> {
        let pair = TripleQuery {
            scope: Some(scope.to_owned()),
            owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        };
        let rows: Vec<TripleAssertion> = match self.0 {
            Some(ids) if ids.is_empty() => Vec::new(),
            Some(ids) => store.query(&TripleQuery {
                assertion_ids: Some(ids),
                ..pair
            })?,
            // A row without an id cannot be read back by it: read them all.
            None => store.query(&pair)?,
        };
        if let Some(j) = journal
            && rows.iter().any(is_standing_dream)
        {
            // The exclusions alone (closed ids, the pair's latest-hidden rows):
            // the answer `PairFolds::load`'s full fold gives, without folding
            // every binding of the pair.
            let pair = [(scope.to_lowercase(), owner.to_owned())];
            let folds = PairFolds::load_exclusions(store, j, &pair, j.current_seq()?)?;
            return Ok(standing_dreams_among(
                &rows,
                Some(&|id: &str| folds.excludes(id)),
                limit,
            ));
        }
        Ok(standing_dreams_among(&rows, None, limit))
    }
}

/// [`unresolved_dreams`] over rows already read: the standing dreams among
/// `rows` (any rows of the pair, in store order), less those whose assertion
/// id `excludes` names (the pair's closure and hidden fold; `None`: the
/// layer-1 read), oldest first, at most `limit` (0: all). The drives' index
/// reads the dreams this way.
pub(crate) fn standing_dreams_among(
    rows: &[TripleAssertion],
    excludes: Option<&dyn Fn(&str) -> bool>,
    limit: usize,
) -> Vec<TripleAssertion> {
    let mut rows: Vec<TripleAssertion> = rows
        .iter()
        .filter(|a| is_standing_dream(a))
        .filter(|a| excludes.is_none_or(|f| !a.assertion_id.as_deref().is_some_and(f)))
        .cloned()
        .collect();
    rows.sort_by(|a, b| {
        a.observed_at
            .cmp(&b.observed_at)
            .then_with(|| a.assertion_id.cmp(&b.assertion_id))
    });
    if limit > 0 {
        rows.truncate(limit);
    }
    rows
}
