//! Orientation admission: a stimulus that mentions a world-model card's
//! target admits that target's current card at direct-hit relevance (channel
//! `orientation`, score 1.0), so the orientation arrives with the mention.
//!
//! A pure read of the store's newest `orientation_scan_limit` digest rows per
//! searched pair, folded by the call's own exclusion folds like every other
//! channel. Recall reads the card rows itself (their kind, `target`,
//! `aliases` and `revision` through the core's `DigestRow`) rather than
//! calling `world_models`, which comes after recall in the faculty DAG.
//!
//! Spec: api.md "Reconstruction" (`ReconstructConfig.orientation_admission`)
//! names the knob; 0.3.2's `world_model.mention_orientation_cards` settles
//! the rest: on by default, a participant naming the target or one of the
//! card's aliases matches exactly; a cue matches a name when every concept
//! word of the name (its namespace prefix dropped) is among the cue's concept
//! terms; at most `orientation_max_cards` admissions, participant matches
//! first, then by target.

use super::channels::{ChannelOutput, ChannelResult};
use super::folds::Folds;
use super::read::RecallRead;
use crate::concepts::{concept_term_set as concept_terms, concept_words};
use crate::error::Result;
use crate::kinds::DIGEST_PREDICATE;
use crate::record::DigestRow;
use crate::seam::Stimulus;
use am_triples::{TripleAssertion, TripleQuery};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// How a card's target was mentioned.
enum Via {
    /// A participant names the target itself.
    Participant,
    /// A participant names one of the card's aliases.
    ParticipantAlias(String),
    /// The cue mentions the target's name.
    Cue,
    /// The cue mentions one of the card's aliases.
    CueAlias(String),
}

impl Via {
    /// Participant mentions rank before cue mentions.
    fn priority(&self) -> u8 {
        match self {
            Via::Participant | Via::ParticipantAlias(_) => 0,
            Via::Cue | Via::CueAlias(_) => 1,
        }
    }

    fn describe(&self) -> String {
        match self {
            Via::Participant => "participant".into(),
            Via::ParticipantAlias(a) => format!("participant alias {a}"),
            Via::Cue => "cue".into(),
            Via::CueAlias(a) => format!("cue alias {a}"),
        }
    }
}

/// Every name a card answers to: its target, then its confirmed aliases.
fn names_of(target: &str, card: &TripleAssertion) -> Vec<String> {
    let mut names = vec![target.to_owned()];
    if let Some(Value::Array(aliases)) = DigestRow::of(card).get("aliases") {
        names.extend(
            aliases
                .iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_owned),
        );
    }
    names
}

/// The orientation channel: the current card of every mentioned target, at
/// most `max_cards`, each scoring 1.0. Does not run (no hits, not listed in
/// `channels_run`) when the stimulus has neither a concept word nor a
/// participant, or when no card is mentioned.
///
/// # Errors
/// The store's or journal's failure.
pub(crate) fn run_orientation(
    store: &dyn RecallRead,
    folds: &Folds<'_>,
    stimulus: &Stimulus,
    pairs: &[(String, String)],
    scan_limit: usize,
    max_cards: usize,
) -> Result<ChannelOutput> {
    let mut out = ChannelOutput::default();
    let cue = concept_terms(&stimulus.cue_text);
    let participants: HashSet<&str> = stimulus.participants.iter().map(String::as_str).collect();
    if cue.is_empty() && participants.is_empty() {
        return Ok(out);
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut matched: Vec<(u8, String, TripleAssertion, Via)> = Vec::new();
    for (scope, owner) in pairs {
        let rows = store.rows(&TripleQuery {
            scope: Some(scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.clone()),
            predicate: Some(DIGEST_PREDICATE.to_owned()),
            limit: scan_limit as i64,
            ..TripleQuery::default()
        })?;
        let mut cards = Vec::new();
        for a in rows {
            if DigestRow::of(&a).as_stored("record_kind") != Some("world_model") {
                continue;
            }
            if folds.excluded(&a)? || folds.excluded_id(&a.subject)? {
                continue;
            }
            cards.push(a);
        }
        // The current card per target in this pair: the highest revision
        // (then the newest observation, then the graph id), which also
        // guards an interrupted revision's two standing cards.
        cards.sort_by(|a, b| {
            (DigestRow::of(a).card_revision(), &a.observed_at, &a.subject).cmp(&(
                DigestRow::of(b).card_revision(),
                &b.observed_at,
                &b.subject,
            ))
        });
        let mut current: BTreeMap<String, TripleAssertion> = BTreeMap::new();
        for a in cards {
            if let Some(t) = DigestRow::of(&a).card_target() {
                current.insert(t.to_owned(), a);
            }
        }
        for (target, card) in current {
            if seen.contains(&target) {
                continue;
            }
            let names = names_of(&target, &card);
            if let Some(hit) = names.iter().find(|n| participants.contains(n.as_str())) {
                let via = if *hit == target {
                    Via::Participant
                } else {
                    Via::ParticipantAlias(hit.clone())
                };
                seen.insert(target.clone());
                matched.push((via.priority(), target, card, via));
                continue;
            }
            let cue_hit = names.iter().find(|n| {
                let name = n.split_once(':').map_or(n.as_str(), |(_, rest)| rest);
                let words = concept_words(name);
                !words.is_empty() && words.iter().all(|w| cue.contains(w))
            });
            if let Some(hit) = cue_hit {
                let via = if *hit == target {
                    Via::Cue
                } else {
                    Via::CueAlias(hit.clone())
                };
                seen.insert(target.clone());
                matched.push((via.priority(), target, card, via));
            }
        }
    }
    matched.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    matched.truncate(max_cards);
    for (_, target, card, via) in matched {
        let Some(id) = card.assertion_id.clone() else {
            continue;
        };
        out.ran = true;
        out.results.push(ChannelResult {
            record_id: id.clone(),
            channel: "orientation",
            score: 1.0,
            detail: format!(
                "orientation: current card for {target} (mentioned via {})",
                via.describe()
            ),
        });
        out.found.insert(id, card);
    }
    Ok(out)
}
