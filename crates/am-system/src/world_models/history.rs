//! A card's history: every revision of the card a target names, oldest
//! first, across the keys the card has answered to.
//!
//! A re-key (`rekey_world_model`, or `retitle` / `declare_pending` of an
//! interest) moves only the standing card; the revisions before it keep the
//! old key, which stays on the card as an alias. Binding an alias
//! (`alias_world_model`) folds that name's card into the primary's lineage
//! the same way. So the history of a target is the revisions keyed on the
//! target and on each alias of its current card. Ours: the spec names no
//! history read; `am cards --history` serves it.

use crate::error::Result;
use crate::world_models::alias::aliases_of;
use crate::world_models::args::CardsOf;
use crate::world_models::cards::{current_world_models, revision_of, standing_world_models};
use am_journal::MemoryJournal;
use am_triples::{TripleAssertion, TripleStore};

/// Every revision of the card `target` names in `of`'s pair (closed ones
/// too: the layer-1 read), ordered by observed time, then revision; empty
/// when no card was ever keyed on the target or its aliases. `target` may
/// be an alias: it reaches its primary's card.
///
/// # Errors
/// The store's or the journal's failure.
pub fn card_history(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    of: &CardsOf,
    target: &str,
) -> Result<Vec<TripleAssertion>> {
    let current = current_world_models(store, Some(journal), of)?;
    let key = if current.contains_key(target) {
        Some(target)
    } else {
        current
            .iter()
            .find(|(_, card)| aliases_of(card).iter().any(|a| a == target))
            .map(|(k, _)| k.as_str())
    };
    let names: Vec<String> = match key {
        Some(k) => std::iter::once(k.to_owned())
            .chain(aliases_of(&current[k]))
            .collect(),
        None => vec![target.to_owned()],
    };
    let mut every = standing_world_models(store, None, of)?;
    let mut revisions: Vec<TripleAssertion> = names
        .iter()
        .filter_map(|n| every.remove(n))
        .flatten()
        .collect();
    revisions.sort_by(|a, b| {
        (&a.observed_at, revision_of(a), &a.subject).cmp(&(
            &b.observed_at,
            revision_of(b),
            &b.subject,
        ))
    });
    revisions.dedup_by(|a, b| a.subject == b.subject);
    Ok(revisions)
}
