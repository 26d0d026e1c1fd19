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
use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    // Each evidence id numbered once; each target's set a sorted list of
    // numbers, so a pair's overlap is one merge of two short lists.
    let mut numbers: HashMap<&str, u32> = HashMap::new();
    let names: Vec<(&String, &str, Vec<u32>)> = by_target
        .iter()
        .filter(|(_, ids)| ids.len() >= 2)
        .map(|(t, ids)| {
            let mut set: Vec<u32> = ids
                .iter()
                .map(|id| {
                    let next = u32::try_from(numbers.len()).unwrap_or(u32::MAX);
                    *numbers.entry(id.as_str()).or_insert(next)
                })
                .collect();
            set.sort_unstable();
            set.dedup();
            (t, t.split_once(':').map_or("", |(ns, _)| ns), set)
        })
        .collect();
    let mut out = Vec::new();
    for (i, (a, ns_a, set_a)) in names.iter().enumerate() {
        for (b, ns_b, set_b) in &names[i + 1..] {
            let bound = existing.contains_key(*a)
                || existing.contains_key(*b)
                || existing.get(*a) == Some(*b)
                || existing.get(*b) == Some(*a);
            if bound || ns_a != ns_b {
                continue;
            }
            let shared = shared_count(set_a, set_b);
            let union = set_a.len() + set_b.len() - shared;
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

/// How many numbers two sorted, deduplicated lists share.
fn shared_count(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

fn operator() -> String {
    "operator".to_owned()
}

/// `alias_world_model(system, *, primary, alias, scope, owner_id, reason,
/// actor="operator")`: bind `alias` to `primary`'s card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AliasWorldModel {
    /// The card's key (its current card must stand).
    pub primary: String,
    /// The other name of the same identity.
    pub alias: String,
    /// The card's scope.
    pub scope: String,
    /// The card's owner.
    pub owner_id: String,
    /// Why the two names are one identity (required: an audited act).
    pub reason: String,
    /// Who binds it (default `operator`).
    #[serde(default = "operator")]
    pub actor: String,
}

impl AliasWorldModel {
    /// Bind `alias` to `primary` in `(scope, owner_id)` for `reason`, by the
    /// operator.
    pub fn new(primary: &str, alias: &str, (scope, owner_id): (&str, &str), reason: &str) -> Self {
        AliasWorldModel {
            primary: primary.to_owned(),
            alias: alias.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            reason: reason.to_owned(),
            actor: operator(),
        }
    }
}

/// What `alias_world_model` did: `{primary, alias, card_id, revision,
/// aliases, superseded, pending, applied}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AliasBound {
    /// The primary key.
    pub primary: String,
    /// The alias bound.
    pub alias: String,
    /// The primary's current card after the call.
    pub card_id: String,
    /// Its revision.
    pub revision: i64,
    /// Its aliases, sorted.
    pub aliases: Vec<String>,
    /// The cards closed `supersede` into it (the prior revision, the
    /// alias's own card).
    pub superseded: Vec<String>,
    /// The new revision's fields still pending (what was not authored).
    pub pending: Vec<String>,
    /// Whether a revision formed (`false`: the alias was already bound to
    /// the primary; nothing written).
    pub applied: bool,
}

impl crate::MemorySystem {
    /// `alias_world_model` — the deliberate act that binds `alias` to
    /// `primary`'s card: revision N+1 of the primary with the alias added
    /// to `attributes.aliases` (and, for a person, its `participants`),
    /// carrying the card's evidence and its authored title and summary;
    /// what is not authored forms pending. The prior revision, and a
    /// standing card keyed on the alias, are closed `supersede` into it.
    /// From then on `alias_map` names the alias, the pass groups the
    /// alias's evidence onto the primary, `world_model_update` and
    /// orientation admission resolve it. An alias already bound to the
    /// primary writes nothing (`applied: false`).
    ///
    /// # Errors
    /// `InvalidInput` (0.3.2's `ValueError`) for a blank primary, alias or
    /// reason, an alias equal to the primary, no standing card for the
    /// primary, or an alias bound to another card (unbinding is its own
    /// act); formation's refusal (a pending field on a home without a task
    /// queue); the home's failure.
    pub fn alias_world_model(&self, args: &AliasWorldModel) -> Result<AliasBound> {
        let (primary, alias, why) = (args.primary.trim(), args.alias.trim(), args.reason.trim());
        if primary.is_empty() || alias.is_empty() {
            return Err(Error::invalid(
                "alias_world_model needs a non-empty primary and alias",
            ));
        }
        if primary == alias {
            return Err(Error::invalid(format!(
                "a target cannot alias itself ({primary:?})"
            )));
        }
        if why.is_empty() {
            return Err(Error::invalid(
                "alias_world_model needs a reason: binding two names to one identity is an audited \
                 act",
            ));
        }
        let pair = CardsOf::new(&args.scope, &args.owner_id);
        let cards = self.current_cards(&pair)?;
        let Some(card) = cards.get(primary) else {
            return Err(Error::invalid(format!(
                "no standing world-model card for primary {primary:?}: the identity being \
                 extended must exist first (world_model_pass)"
            )));
        };
        let mut bound_to = None;
        for (t, c) in &cards {
            if t != alias && aliases_of(c).iter().any(|a| a == alias) {
                bound_to = Some(t.clone());
            }
        }
        match bound_to.as_deref() {
            Some(p) if p == primary => {
                // Already bound: finish a binding a crash interrupted (the
                // prior or the alias's own card still standing), else
                // nothing is written.
                let superseded = self.finish_revision(
                    &pair,
                    primary,
                    cards.get(alias),
                    &format!("alias {alias} bound to {primary} ({why})"),
                )?;
                return Ok(AliasBound {
                    primary: primary.to_owned(),
                    alias: alias.to_owned(),
                    card_id: card.subject.clone(),
                    revision: crate::world_models::cards::revision_of(card),
                    aliases: aliases_of(card),
                    superseded,
                    pending: DigestRow::of(card).pending(),
                    applied: false,
                });
            }
            Some(p) => {
                return Err(Error::invalid(format!(
                    "{alias:?} is already an alias of {p:?}: unbinding is its own deliberate act, \
                     never an overwrite"
                )));
            }
            None => {}
        }
        let mut aliases: BTreeSet<String> = aliases_of(card).into_iter().collect();
        aliases.insert(alias.to_owned());
        aliases.remove(primary);
        let aliases: Vec<String> = aliases.into_iter().collect();
        let revision = crate::world_models::cards::revision_of(card) + 1;
        let mut set = am_triples::JsonMap::new();
        set.insert("alias_reason".into(), serde_json::json!(why));
        set.insert("alias_actor".into(), serde_json::json!(args.actor.trim()));
        let fold = cards
            .get(alias)
            .filter(|c| c.subject != card.subject)
            .map(|c| (c, format!("{alias} aliased into {primary} ({why})")));
        let revised = self.form_revision(crate::world_models::revise::Revision {
            card,
            target: primary,
            scope: &args.scope,
            owner: &args.owner_id,
            words: None,
            aliases: aliases.clone(),
            set,
            key: format!(
                "world-model-alias|{}|{primary}|{alias}|rev{revision}",
                args.owner_id
            ),
            pass: "alias_world_model",
            reason: format!("alias {alias} bound to {primary} ({why})"),
            fold,
        })?;
        Ok(AliasBound {
            primary: primary.to_owned(),
            alias: alias.to_owned(),
            card_id: revised.card_id,
            revision: revised.revision,
            aliases,
            superseded: revised.superseded,
            pending: revised.pending,
            applied: true,
        })
    }
}
