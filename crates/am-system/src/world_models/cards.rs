//! The card reads: every standing card per target, and the current one.
//!
//! The free functions are the spec's (`store`, `journal=`): a whole read
//! of the pair's rows. A `MemorySystem`'s own reads
//! ([`MemorySystem::standing_cards`](crate::MemorySystem::standing_cards),
//! which the world-model verbs use) hold the card rows in a faculty cache
//! instead ([`CardIndex`]): new cards from the store's change feed
//! (`assertions_after`: a card is always a new row, and a row's kind never
//! changes), cards rewritten in place read again when the journal's
//! understanding versions name them (an in-place rewrite moves no feed
//! cursor), closed cards dropped as the journal's closures name them (a
//! closure is never undone). A call with nothing new reads no card row. A
//! store without a feed falls back to the whole read. The answer is the
//! free function's.

use crate::error::Result;
use crate::feed::{Followed, follow_feed};
use crate::record::DigestRow;
use crate::world_models::args::CardsOf;
use am_journal::{ClosureFilter, JournalRecord, MemoryJournal};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeMap, HashMap, HashSet};

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
/// The longest journal tail read record by record for its closures; a
/// longer one reads the journal's closures whole instead.
const CLOSURE_TAIL: i64 = 10_000;

/// One pair's standing card rows, each with its feed position, and the
/// feed cursor they are fresh to.
#[derive(Default)]
struct PairCards {
    cursor: i64,
    rows: HashMap<String, (i64, TripleAssertion)>,
}

/// The card rows of each pair read so far (a `FacultyState` cache:
/// derived, rebuilt from the store and the journal when lost). New card
/// rows come from the store's change feed (a card is always a new row, and
/// a row's kind never changes); a card rewritten in place (the one in-place
/// change: `author_world_model`, `rekey_world_model`, the pass's authored
/// words) moves no feed cursor but appends understanding versions, so the
/// rows the versions since the last read name are read again by id; the
/// closed ids follow the journal's closures. A call with nothing new (the
/// journal's head and the pair's feed unmoved) reads no card row.
#[derive(Default)]
pub(crate) struct CardIndex {
    /// The journal seq the closures and rewrites are read through; `None`
    /// before the first read.
    through: Option<i64>,
    /// Every assertion or record id closed through `through`.
    closed: HashSet<String>,
    pairs: HashMap<(String, String), PairCards>,
}

impl CardIndex {
    /// Bring the closures and the held rows up to the journal's head.
    fn follow_journal(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
    ) -> Result<()> {
        let head = journal.current_seq()?;
        let through = match self.through {
            Some(t) if t <= head => t,
            // First read, or not the journal this index read: start again.
            _ => {
                *self = CardIndex::default();
                self.closed = closed_now(journal)?;
                self.through = Some(head);
                return Ok(());
            }
        };
        if through == head {
            return Ok(());
        }
        if head - through > CLOSURE_TAIL {
            self.closed = closed_now(journal)?;
        } else {
            for rec in journal.replay_records(through, Some(head))? {
                if let JournalRecord::Closure(c) = rec {
                    self.closed.insert(c.assertion_id);
                }
            }
        }
        let mut rewritten: Vec<String> = journal
            .revision_records(through, Some(head))?
            .into_iter()
            .map(|v| v.assertion_id)
            .filter(|id| self.pairs.values().any(|p| p.rows.contains_key(id)))
            .collect();
        rewritten.sort_unstable();
        rewritten.dedup();
        if !rewritten.is_empty() {
            let fresh: HashMap<String, TripleAssertion> = store
                .query(&TripleQuery {
                    assertion_ids: Some(rewritten.clone()),
                    limit: 0,
                    ..TripleQuery::default()
                })?
                .into_iter()
                .filter_map(|a| a.assertion_id.clone().map(|id| (id, a)))
                .collect();
            for p in self.pairs.values_mut() {
                for id in &rewritten {
                    if let Some((pos, _)) = p.rows.remove(id)
                        && let Some(a) = fresh.get(id)
                        && is_card(a)
                    {
                        p.rows.insert(id.clone(), (pos, a.clone()));
                    }
                }
            }
        }
        self.through = Some(head);
        Ok(())
    }
}

impl crate::MemorySystem {
    /// The standing card rows of `pair` (closed ones left out), in the
    /// store's order; `None` when the store has no change feed.
    fn card_rows(&self, pair: &CardsOf) -> Result<Option<Vec<TripleAssertion>>> {
        let cache = self.faculty_state.cache::<CardIndex>();
        let mut index = cache.lock();
        let read = self.read_card_rows(&mut index, pair);
        if !matches!(read, Ok(Some(_))) {
            *index = CardIndex::default();
        }
        read
    }

    /// [`MemorySystem::card_rows`] on the locked index.
    fn read_card_rows(
        &self,
        index: &mut CardIndex,
        pair: &CardsOf,
    ) -> Result<Option<Vec<TripleAssertion>>> {
        let owner = pair.owner_id.trim().to_owned();
        // The journal first: a rewrite committed after the head is read is
        // read again on the next call.
        index.follow_journal(self.store.as_ref(), self.journal.as_ref())?;
        let CardIndex { closed, pairs, .. } = index;
        let p = pairs
            .entry((pair.scope.clone(), owner.clone()))
            .or_default();
        let rows = &mut p.rows;
        let followed = follow_feed(
            self.store.as_ref(),
            &mut p.cursor,
            Some(&pair.scope),
            (!owner.is_empty()).then_some(owner.as_str()),
            None,
            FEED_PAGE,
            |pos, a| {
                if is_card(&a)
                    && let Some(id) = a.assertion_id.clone()
                {
                    rows.insert(id, (pos, a));
                }
            },
        )?;
        if followed == Followed::NoFeed {
            return Ok(None);
        }
        // A closure is never undone: a closed card leaves for good.
        p.rows
            .retain(|id, (_, a)| !closed.contains(id) && !closed.contains(&a.subject));
        let mut held: Vec<&(i64, TripleAssertion)> = p.rows.values().collect();
        // The store's query order: newest observed first, then latest stored
        // first (the standing fold's sort is stable).
        held.sort_by(|(pa, a), (pb, b)| b.observed_at.cmp(&a.observed_at).then_with(|| pb.cmp(pa)));
        Ok(Some(held.into_iter().map(|(_, a)| a.clone()).collect()))
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
        fold_standing(rows, None)
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
