//! The card reads: every standing card per target, and the current one.

use crate::error::Result;
use crate::record::DigestRow;
use crate::world_models::args::CardsOf;
use am_journal::{ClosureFilter, MemoryJournal};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeMap, HashSet};

/// A card's `attributes.revision` ([`DigestRow::card_revision`]).
pub(crate) fn revision_of(card: &TripleAssertion) -> i64 {
    DigestRow::of(card).card_revision()
}

/// A card's key ([`DigestRow::card_target`]).
pub(crate) fn target_of(card: &TripleAssertion) -> Option<String> {
    DigestRow::of(card).card_target().map(str::to_owned)
}

/// Every assertion id closed at the journal's head.
pub(crate) fn closed_now(journal: &dyn MemoryJournal) -> Result<HashSet<String>> {
    let head = journal.current_seq()?;
    Ok(journal
        .closures(&ClosureFilter {
            assertion_id: None,
            until_seq: Some(head),
            limit: 0,
        })?
        .into_iter()
        .map(|c| c.assertion_id)
        .collect())
}

/// `standing_world_models(store, *, scope, owner_id, journal=None)`: target →
/// every standing card of the pair, revision ascending (ties by observed time,
/// then graph id). With a journal, a card whose assertion or record is closed
/// is not standing; without one (the layer-1 read) every card row is. More
/// than one card for a target is an interrupted revision, which
/// `world_model_pass` repairs.
///
/// # Errors
/// The store's or journal's failure.
pub fn standing_world_models(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &CardsOf,
) -> Result<BTreeMap<String, Vec<TripleAssertion>>> {
    let owner = args.owner_id.trim();
    let mut rows: Vec<TripleAssertion> = store
        .query(&TripleQuery {
            scope: Some(args.scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })?
        .into_iter()
        .filter(|a| DigestRow::of(a).kind_text() == Some("world_model"))
        .collect();
    if let Some(j) = journal {
        let closed = closed_now(j)?;
        rows.retain(|a| {
            !a.assertion_id
                .as_ref()
                .is_some_and(|id| closed.contains(id))
                && !closed.contains(&a.subject)
        });
    }
    rows.sort_by(|a, b| {
        (revision_of(a), &a.observed_at, &a.subject).cmp(&(
            revision_of(b),
            &b.observed_at,
            &b.subject,
        ))
    });
    let mut out: BTreeMap<String, Vec<TripleAssertion>> = BTreeMap::new();
    for a in rows {
        if let Some(t) = target_of(&a) {
            out.entry(t).or_default().push(a);
        }
    }
    Ok(out)
}

/// `current_world_models(store, *, scope, owner_id, journal=None)`: target →
/// its current card, the highest-revision standing one. `journal=None` is
/// the layer-1 read with no closure fold.
///
/// # Errors
/// The store's or journal's failure.
pub fn current_world_models(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &CardsOf,
) -> Result<BTreeMap<String, TripleAssertion>> {
    Ok(standing_world_models(store, journal, args)?
        .into_iter()
        .filter_map(|(t, mut rows)| rows.pop().map(|r| (t, r)))
        .collect())
}
