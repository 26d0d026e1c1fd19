//! The card reads: every standing card per target, and the current one.
//!
//! The free functions are the spec's (`store`, `journal=`): a whole read
//! of the pair's rows. A `MemorySystem`'s own reads
//! ([`MemorySystem::standing_cards`](crate::MemorySystem::standing_cards),
//! which the world-model verbs use) find the cards through a faculty cache
//! instead: the card assertion ids of each pair, kept fresh from the
//! store's change feed (`assertions_after`: a card is always a new row, and
//! a row's kind never changes), the rows themselves read fresh by id on
//! every call (an in-place rewrite moves no feed cursor); a card found
//! closed leaves the index for good (a closure is never undone). A store
//! without a feed falls back to the whole read. The answer is the free
//! function's.

use crate::error::Result;
use crate::record::DigestRow;
use crate::world_models::args::CardsOf;
use am_journal::{ClosureFilter, MemoryJournal};
use am_triples::{ErrorKind, TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
    let rows: Vec<TripleAssertion> = store
        .query(&TripleQuery {
            scope: Some(args.scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })?
        .into_iter()
        .filter(is_card)
        .collect();
    fold_standing(rows, journal)
}

fn is_card(a: &TripleAssertion) -> bool {
    DigestRow::of(a).kind_text() == Some("world_model")
}

/// The standing fold of a pair's card rows (see [`standing_world_models`]).
fn fold_standing(
    mut rows: Vec<TripleAssertion>,
    journal: Option<&dyn MemoryJournal>,
) -> Result<BTreeMap<String, Vec<TripleAssertion>>> {
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

/// How many feed rows one page reads.
const FEED_PAGE: usize = 2_000;

/// The card assertion ids of each pair read so far, and the feed cursor
/// they are fresh to (a `FacultyState` cache: derived, rebuilt from the
/// store when lost).
#[derive(Default)]
pub(crate) struct CardIndex {
    pairs: HashMap<(String, String), (i64, BTreeSet<String>)>,
}

impl crate::MemorySystem {
    /// The card rows of `pair`, read fresh by id; `None` when the store has
    /// no change feed.
    fn card_rows(&self, pair: &CardsOf) -> Result<Option<Vec<TripleAssertion>>> {
        let owner = pair.owner_id.trim().to_owned();
        let key = (pair.scope.clone(), owner.clone());
        let cache = self.faculty_state.cache::<CardIndex>();
        let ids: Vec<String> = {
            let mut index = cache.lock();
            let (cursor, ids) = index.pairs.entry(key).or_default();
            loop {
                let page = match self.store.assertions_after(
                    *cursor,
                    Some(&pair.scope),
                    (!owner.is_empty()).then_some(owner.as_str()),
                    FEED_PAGE,
                ) {
                    Ok(p) => p,
                    Err(e) if e.kind() == ErrorKind::Unsupported => return Ok(None),
                    Err(e) => return Err(e),
                };
                let full = page.rows.len() >= FEED_PAGE;
                for (_, a) in &page.rows {
                    if is_card(a)
                        && let Some(id) = &a.assertion_id
                    {
                        ids.insert(id.clone());
                    }
                }
                *cursor = (*cursor).max(page.next_cursor);
                if !full {
                    break;
                }
            }
            ids.iter().cloned().collect()
        };
        if ids.is_empty() {
            return Ok(Some(Vec::new()));
        }
        Ok(Some(
            self.store
                .query(&TripleQuery {
                    assertion_ids: Some(ids),
                    limit: 0,
                    ..TripleQuery::default()
                })?
                .into_iter()
                .filter(is_card)
                .collect(),
        ))
    }

    /// [`standing_world_models`] of `pair` folded with this system's
    /// journal, the cards found through the card index (the same answer).
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub fn standing_cards(&self, pair: &CardsOf) -> Result<BTreeMap<String, Vec<TripleAssertion>>> {
        let Some(rows) = self.card_rows(pair)? else {
            return standing_world_models(self.store.as_ref(), Some(self.journal.as_ref()), pair);
        };
        // A closure is never undone: a closed card leaves the index for good,
        // so the next read fetches only the standing ones.
        let closed = closed_now(self.journal.as_ref())?;
        let (gone, standing): (Vec<TripleAssertion>, Vec<TripleAssertion>) =
            rows.into_iter().partition(|a| {
                a.assertion_id
                    .as_ref()
                    .is_some_and(|id| closed.contains(id))
                    || closed.contains(&a.subject)
            });
        if !gone.is_empty() {
            let cache = self.faculty_state.cache::<CardIndex>();
            let mut index = cache.lock();
            let key = (pair.scope.clone(), pair.owner_id.trim().to_owned());
            if let Some((_, ids)) = index.pairs.get_mut(&key) {
                for a in &gone {
                    if let Some(id) = &a.assertion_id {
                        ids.remove(id);
                    }
                }
            }
        }
        fold_standing(standing, None)
    }

    /// [`standing_world_models`] of a pair whose every card row's assertion
    /// id is `card_ids` (a whole read of the pair that already found them:
    /// the sleep pass's evidence scan), folded with `closed`, the journal's
    /// closed ids at the head it was read at. The rows are read whole by id;
    /// the answer is the free function's at that head.
    ///
    /// # Errors
    /// The store's failure.
    pub(crate) fn standing_of_ids(
        &self,
        card_ids: Vec<String>,
        closed: &HashSet<String>,
    ) -> Result<BTreeMap<String, Vec<TripleAssertion>>> {
        if card_ids.is_empty() {
            return Ok(BTreeMap::new());
        }
        let rows: Vec<TripleAssertion> = self
            .store
            .query(&TripleQuery {
                assertion_ids: Some(card_ids),
                limit: 0,
                ..TripleQuery::default()
            })?
            .into_iter()
            .filter(|a| {
                is_card(a)
                    && !a
                        .assertion_id
                        .as_ref()
                        .is_some_and(|id| closed.contains(id))
                    && !closed.contains(&a.subject)
            })
            .collect();
        fold_standing(rows, None)
    }

    /// [`current_world_models`] of `pair` folded with this system's
    /// journal, through the card index (the same answer).
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub fn current_cards(&self, pair: &CardsOf) -> Result<BTreeMap<String, TripleAssertion>> {
        Ok(self
            .standing_cards(pair)?
            .into_iter()
            .filter_map(|(t, mut rows)| rows.pop().map(|r| (t, r)))
            .collect())
    }
}
