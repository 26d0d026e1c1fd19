//! The candidate universe one recall gathers, keyed by record id: admitting
//! a row (memberable, not excluded by the folds) and applying a channel's
//! scores to it. The pipeline and the hybrid profile both fill it.

use super::channels::ChannelOutput;
use super::folds::Folds;
use super::hash::HashMap;
use super::shelf::{Candidate, memberable};
use crate::error::Result;
use am_triples::TripleAssertion;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Admit `a` to the universe (unless unmemberable or excluded) and return its
/// candidate; an owned row moves in, a borrowed one is cloned only when new.
pub(super) fn add_candidate<'u>(
    universe: &'u mut HashMap<String, Candidate>,
    a: Cow<'_, TripleAssertion>,
    folds: &Folds<'_>,
) -> Result<Option<&'u mut Candidate>> {
    if !memberable(&a) {
        return Ok(None);
    }
    let rid = a.assertion_id.clone().unwrap_or_default();
    if !universe.contains_key(&rid) {
        if folds.excluded(&a)? {
            return Ok(None);
        }
        universe.insert(
            rid.clone(),
            Candidate {
                assertion: a.into_owned(),
                record_id: rid.clone(),
                relevance: Default::default(),
                details: HashMap::default(),
                spread: 0.0,
                fused_score: None,
            },
        );
    }
    Ok(universe.get_mut(&rid))
}

/// Apply a channel's scores; a found row new to the universe moves in (the
/// output's `found` is drained: nothing reads it afterwards).
pub(super) fn apply_channel(
    universe: &mut HashMap<String, Candidate>,
    out: &mut ChannelOutput,
    folds: &Folds<'_>,
) -> Result<()> {
    folds.prime(out.found.values())?;
    for r in &out.results {
        let c = match out.found.remove(&r.record_id) {
            Some(a) => add_candidate(universe, Cow::Owned(a), folds)?,
            // Already a candidate: its row is kept under its own id.
            None => match universe.get_mut(&r.record_id) {
                Some(c) if memberable(&c.assertion) => Some(c),
                _ => continue,
            },
        };
        let Some(c) = c else {
            continue;
        };
        let cur = c.relevance.get(r.channel).copied().unwrap_or(0.0);
        c.relevance.insert(r.channel, cur.max(r.score));
        let bucket = c.details.entry(r.channel.to_owned()).or_default();
        if !bucket.contains(&r.detail) {
            bucket.push(r.detail.clone());
        }
    }
    Ok(())
}

pub(super) fn universe_rows(
    universe: &HashMap<String, Candidate>,
) -> BTreeMap<&str, &TripleAssertion> {
    universe
        .iter()
        .map(|(k, c)| (k.as_str(), &c.assertion))
        .collect()
}
