//! Aliases: the names a card answers to besides its key (`attributes.aliases`
//! of the current card), and the proposals of the sleep pass.

use crate::error::{Error, Result};
use crate::record::DigestRow;
use crate::world_models::args::CardsOf;
use crate::world_models::cards::current_world_models;
use am_journal::MemoryJournal;
use am_triples::{TripleAssertion, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The evidence-overlap (Jaccard) floor of an alias proposal
/// (`ALIAS_OVERLAP_FLOOR`).
pub const ALIAS_OVERLAP_FLOOR: f64 = 0.6;

fn overlap_floor() -> f64 {
    ALIAS_OVERLAP_FLOOR
}

/// `alias_candidates(by_target, *, existing=None,
/// overlap_floor=ALIAS_OVERLAP_FLOOR)`: target → its evidence ids, the
/// aliases already bound (alias → primary), the Jaccard floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AliasCandidates {
    /// Target → the ids of its evidence.
    pub by_target: BTreeMap<String, Vec<String>>,
    /// Alias → primary target, already bound (default none).
    #[serde(default)]
    pub existing: BTreeMap<String, String>,
    /// The Jaccard floor a pair must reach (default 0.6).
    #[serde(default = "overlap_floor")]
    pub overlap_floor: f64,
}

impl AliasCandidates {
    /// Proposals over `by_target` with no alias bound and the spec's floor.
    pub fn new(by_target: BTreeMap<String, Vec<String>>) -> Self {
        AliasCandidates {
            by_target,
            existing: BTreeMap::new(),
            overlap_floor: overlap_floor(),
        }
    }
}

/// The names a card lists in `attributes.aliases` (strings only, trimmed,
/// blanks dropped), in stored order.
pub(crate) fn aliases_of(card: &TripleAssertion) -> Vec<String> {
    match DigestRow::of(card).get("aliases") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `alias_map(store, *, scope, owner_id, journal=None)`: alias → the primary
/// target whose current card lists it. Derived state: the cards are the
/// record.
///
/// # Errors
/// The store's or journal's failure.
pub fn alias_map(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &CardsOf,
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for (target, card) in current_world_models(store, journal, args)? {
        for alias in aliases_of(&card) {
            if alias != target {
                out.insert(alias, target.clone());
            }
        }
    }
    Ok(out)
}

/// One merge proposal: two targets of one namespace whose evidence overlaps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AliasProposal {
    /// The two targets, in order.
    pub targets: [String; 2],
    /// Their evidence sets' Jaccard index, rounded to 4 places.
    pub overlap: f64,
    /// How many evidence ids they share.
    pub shared_evidence: usize,
    /// What a proposal is (and is not).
    pub note: String,
}

const PROPOSAL_NOTE: &str = "the two targets share most of their evidence: confirm one \
identity with alias_world_model, or leave both cards standing (nothing was merged)";

/// `alias_candidates(by_target, *, existing=None,
/// overlap_floor=ALIAS_OVERLAP_FLOOR)`: pairs of targets of the same
/// namespace (the text before the first `:`), each with at least two
/// evidence ids, neither already an alias nor aliased to the other, whose
/// evidence sets' Jaccard index reaches the floor. Target order; report data
/// only, nothing forms.
///
/// # Errors
/// `InvalidInput` for a floor outside `[0, 1]` or not a number.
pub fn alias_candidates(args: &AliasCandidates) -> Result<Vec<AliasProposal>> {
    let floor = args.overlap_floor;
    if !(0.0..=1.0).contains(&floor) {
        return Err(Error::invalid(format!(
            "overlap_floor must be a number in [0, 1], got {floor}"
        )));
    }
    Ok(proposals(&args.by_target, &args.existing, floor))
}

pub(crate) fn proposals(
    by_target: &BTreeMap<String, Vec<String>>,
    existing: &BTreeMap<String, String>,
    floor: f64,
) -> Vec<AliasProposal> {
    let names: Vec<(&String, BTreeSet<&String>)> = by_target
        .iter()
        .filter(|(_, ids)| ids.len() >= 2)
        .map(|(t, ids)| (t, ids.iter().collect()))
        .collect();
    let namespace = |t: &str| t.split_once(':').map_or("", |(ns, _)| ns).to_owned();
    let mut out = Vec::new();
    for (i, (a, set_a)) in names.iter().enumerate() {
        for (b, set_b) in &names[i + 1..] {
            let bound = existing.contains_key(*a)
                || existing.contains_key(*b)
                || existing.get(*a) == Some(*b)
                || existing.get(*b) == Some(*a);
            if bound || namespace(a) != namespace(b) {
                continue;
            }
            let shared = set_a.intersection(set_b).count();
            let union = set_a.union(set_b).count();
            if union == 0 {
                continue;
            }
            #[allow(clippy::cast_precision_loss)] // evidence counts are small
            let jaccard = shared as f64 / union as f64;
            if jaccard >= floor {
                out.push(AliasProposal {
                    targets: [(*a).clone(), (*b).clone()],
                    overlap: (jaccard * 10_000.0).round() / 10_000.0,
                    shared_evidence: shared,
                    note: PROPOSAL_NOTE.to_owned(),
                });
            }
        }
    }
    out
}
