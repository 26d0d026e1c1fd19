//! The night's signal stream: each act of the night that did something
//! (a dream the day settled, a tending candidate formed, tonight's own
//! tensions) becomes one short deterministic signal, coloured by ONE read of
//! the owner's accumulated feelings (the gradation fold) and never by a
//! write. The stream rests on the one dream record a night forms, and comes
//! back with `dream_pass`'s result (`signals`, `signals_omitted`).
//!
//! Structure decides which signals surface; feelings only colour them. The
//! stream is bounded by section (resolutions, world-model cards, tending,
//! tensions hold reserved seats, unused seats backfill in that order), so a
//! loud section never silences the dream's own tensions, and what the bound
//! left out is counted.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`signals`,
//! `signals_omitted`); memory-system.md "Dreams". The spec gives the keys
//! only; the signal's shape, its three kinds, the fragment bound (200
//! characters, a cut kept as a bare `…` with its counts beside it), the
//! seats (4/3/2/3 of 12) and the felt block's reading of the two channels
//! follow 0.3.2 (`dream_signals.py`). The fragments are our words.

use std::collections::{BTreeMap, HashMap};

use am_journal::{MemoryJournal, ValenceFilter};
use serde::Serialize;
use serde_json::{Value, json};

use super::consolidation::ConsolidationResult;
use super::resolution::ResolveDreamsResult;
use super::structural::{Atom, StructuralRecord};
use crate::error::Result;
use crate::valence::gradation::{GradationConfig, GradationScore, compute_gradation};
use crate::world_models::pass::WorldModelReport;

/// The longest fragment, in characters.
pub const FRAGMENT_CAP: usize = 200;

/// The most signals one night keeps.
pub const TOP_K_SIGNALS: usize = 12;

am_triples::vocabulary! {
    /// What a signal says changed.
    pub enum SignalKind("signal kind") {
        /// What stands changed (a grouping, a card, a bridge confirmed).
        ChangedUnderstanding = "changed_understanding",
        /// A tension presses and waits for waking evidence.
        UnresolvedTension = "unresolved_tension",
        /// Where waking attention goes changed (an open tension closed).
        ChangedNavigation = "changed_navigation",
    }
}

/// How the owner feels about what a signal touched (read, never written).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Felt {
    /// `warm`, `sore`, `mixed` (both channels) or `neutral`.
    pub tone: String,
    /// The larger channel, rounded to two places.
    pub weight: f64,
    /// An unhealed scar stands on a touched target.
    pub scarred: bool,
    /// An unbroken bond stands on a touched target.
    pub bonded: bool,
}

/// One act of the night.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Signal {
    /// What changed.
    pub kind: SignalKind,
    /// The sub-phase that acted (`resolution`, `maintenance`,
    /// `world_models`, `dream`).
    pub phase: String,
    /// The act (`dream_resolved`, `grouped`, `bridge_proposed`, ...).
    pub act: String,
    /// A short phrase from the touched records' own words, at most
    /// [`FRAGMENT_CAP`] characters.
    pub fragment: String,
    /// The records the act touched.
    pub touched: Vec<String>,
    /// The cut's counts when the fragment was bounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment_truncation: Option<Value>,
    /// The felt colouring (absent when nothing was ever felt toward any
    /// touched target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub felt: Option<Felt>,
}

/// The results of the sub-phases that ran before the dream.
#[derive(Debug, Clone, Copy, Default)]
pub struct NightPhases<'a> {
    /// The resolution sub-phase's result.
    pub resolution: Option<&'a ResolveDreamsResult>,
    /// The tending sub-phase's result.
    pub maintenance: Option<&'a ConsolidationResult>,
    /// The world-model sub-phase's result.
    pub world_models: Option<&'a WorldModelReport>,
}

/// One tension as the stream sees it: its pair, shared facets, and whether
/// only meaning (a vector) joined it.
pub(crate) struct Tension<'a> {
    pub(crate) pair: (&'a str, &'a str),
    pub(crate) shared: Vec<&'a str>,
    pub(crate) by_meaning: bool,
}

/// ONE fold of every valence event of `pairs` (merged by seq): target →
/// its standing. A read; nothing is deposited.
///
/// # Errors
/// The journal's failure; an invalid gradation config.
pub(crate) fn night_feelings(
    journal: &dyn MemoryJournal,
    pairs: &[(String, String)],
    config: &GradationConfig,
) -> Result<HashMap<String, GradationScore>> {
    let mut merged = BTreeMap::new();
    for (scope, owner) in pairs {
        let mut filter = ValenceFilter::new(scope, owner);
        filter.limit = 0;
        for e in journal.valence_events(&filter)? {
            merged.insert(e.seq, e);
        }
    }
    if merged.is_empty() {
        return Ok(HashMap::new());
    }
    let events: Vec<_> = merged.into_values().collect();
    compute_gradation(&events, config)
}

fn felt(feelings: &HashMap<String, GradationScore>, targets: &[&str]) -> Option<Felt> {
    let (mut pos, mut neg) = (0.0_f64, 0.0_f64);
    let (mut scarred, mut bonded, mut any) = (false, false, false);
    for t in targets {
        let Some(s) = feelings.get(*t) else { continue };
        if s.positive > 0.0 || s.negative > 0.0 || s.scarred || s.bonded {
            any = true;
        }
        pos = pos.max(s.positive);
        neg = neg.max(s.negative);
        scarred |= s.scarred;
        bonded |= s.bonded;
    }
    if !any {
        return None;
    }
    let tone = match (pos > 0.0, neg > 0.0) {
        (true, true) => "mixed",
        (true, false) => "warm",
        (false, true) => "sore",
        (false, false) => "neutral",
    };
    Some(Felt {
        tone: tone.to_owned(),
        weight: (pos.max(neg) * 100.0).round() / 100.0,
        scarred,
        bonded,
    })
}

fn signal(
    kind: SignalKind,
    phase: &str,
    act: &str,
    fragment: &str,
    touched: Vec<String>,
    felt_block: Option<Felt>,
) -> Signal {
    let text = fragment.trim();
    let total = text.chars().count();
    let (fragment, fragment_truncation) = if total <= FRAGMENT_CAP {
        (text.to_owned(), None)
    } else {
        let kept: String = text.chars().take(FRAGMENT_CAP - 1).collect();
        (
            format!("{kept}…"),
            Some(
                json!({"mark": "#TRUNCATION", "kept": FRAGMENT_CAP - 1, "of": total, "unit": "chars"}),
            ),
        )
    };
    Signal {
        kind,
        phase: phase.to_owned(),
        act: act.to_owned(),
        fragment,
        touched: touched
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .collect(),
        fragment_truncation,
        felt: felt_block,
    }
}

/// A record's title as the report shows it, or its id.
pub(crate) fn title_of<'a>(records: &'a BTreeMap<Atom, StructuralRecord>, id: &'a str) -> &'a str {
    records
        .get(id)
        .map(|r| r.title.trim())
        .filter(|t| !t.is_empty())
        .unwrap_or(id)
}

/// `'left' beside 'right'`, with what joined them.
pub(crate) fn tension_phrase(
    records: &BTreeMap<Atom, StructuralRecord>,
    t: &Tension<'_>,
) -> String {
    let mut shared: Vec<&str> = t.shared.clone();
    shared.sort_unstable();
    shared.truncate(4);
    let via = if !shared.is_empty() {
        format!(" (both about {})", shared.join(", "))
    } else if t.by_meaning {
        " (close in meaning)".to_owned()
    } else {
        String::new()
    };
    format!(
        "{:?} beside {:?}{via}",
        title_of(records, t.pair.0),
        title_of(records, t.pair.1)
    )
}

/// The night's stream, bounded at `top_k`, and how many the bound left out.
pub(crate) fn compose_signals(
    phases: NightPhases<'_>,
    tensions: &[Tension<'_>],
    records: &BTreeMap<Atom, StructuralRecord>,
    feelings: &HashMap<String, GradationScore>,
    top_k: usize,
) -> (Vec<Signal>, usize) {
    let mut resolution = Vec::new();
    let mut cards = Vec::new();
    let mut tending = Vec::new();
    let mut own = Vec::new();
    for r in phases
        .resolution
        .map(|r| r.resolved.as_slice())
        .unwrap_or(&[])
    {
        if !r.closed {
            continue;
        }
        let how = if r.mechanisms.is_empty() {
            String::new()
        } else {
            format!(", by {}", r.mechanisms.join(", "))
        };
        let mut touched = vec![r.dream_id.clone()];
        touched.extend(r.evidence_ids.iter().take(4).cloned());
        resolution.push(signal(
            SignalKind::ChangedNavigation,
            "resolution",
            "dream_resolved",
            &format!(
                "the day settled a standing tension ({} of {} tensions{how})",
                r.settled, r.tensions
            ),
            touched,
            felt(feelings, &[r.dream_id.as_str()]),
        ));
    }
    for v in phases
        .world_models
        .map(|w| w.formed.as_slice())
        .unwrap_or(&[])
    {
        if !v.formed {
            continue;
        }
        let revised = v.revision > 1;
        let name = v
            .target
            .split_once(':')
            .map_or(v.target.as_str(), |(_, n)| n);
        cards.push(signal(
            SignalKind::ChangedUnderstanding,
            "world_models",
            if revised {
                "card_revised"
            } else {
                "card_formed"
            },
            &format!(
                "my picture of {name} {} from {} lived record(s)",
                if revised { "grew" } else { "took form" },
                v.source_count
            ),
            vec![v.card_id.clone().unwrap_or_default()],
            felt(feelings, &[v.target.as_str()]),
        ));
    }
    for c in phases
        .maintenance
        .map(|m| m.created.as_slice())
        .unwrap_or(&[])
    {
        if !c.created {
            continue;
        }
        let first = c.source_ids.first().map(|s| title_of(records, s));
        let fragment = match first {
            Some(t) => format!("{} moments read as one: {t:?}", c.source_ids.len()),
            None => "several moments read as one".to_owned(),
        };
        let mut touched = vec![c.candidate_id.clone()];
        touched.extend(c.source_ids.iter().take(4).cloned());
        // Tending touches machine rows: no felt colouring (whose act it
        // was stays clear).
        tending.push(signal(
            SignalKind::ChangedUnderstanding,
            "maintenance",
            "grouped",
            &fragment,
            touched,
            None,
        ));
    }
    for t in tensions {
        own.push(signal(
            SignalKind::UnresolvedTension,
            "dream",
            "bridge_proposed",
            &tension_phrase(records, t),
            vec![t.pair.0.to_owned(), t.pair.1.to_owned()],
            felt(feelings, &[t.pair.0, t.pair.1]),
        ));
    }
    let sections = [resolution, cards, tending, own];
    let total: usize = sections.iter().map(Vec::len).sum();
    let omitted = total.saturating_sub(top_k);
    if top_k == 0 {
        return (Vec::new(), omitted);
    }
    let mut quotas: Vec<usize> = [4usize, 3, 2, 3]
        .iter()
        .map(|w| ((top_k * w) / 12).max(1))
        .collect();
    while quotas.iter().sum::<usize>() > top_k {
        let (i, _) = quotas
            .iter()
            .enumerate()
            .rev()
            .max_by_key(|(_, q)| **q)
            .unwrap_or((0, &0));
        quotas[i] -= 1;
    }
    // (section index, signal) so the final order is structural.
    let mut out: Vec<(usize, Signal)> = Vec::new();
    let mut overflow: Vec<(usize, Signal)> = Vec::new();
    for (i, (sec, quota)) in sections.into_iter().zip(quotas).enumerate() {
        for (n, s) in sec.into_iter().enumerate() {
            if n < quota {
                out.push((i, s));
            } else {
                overflow.push((i, s));
            }
        }
    }
    for extra in overflow {
        if out.len() >= top_k {
            break;
        }
        out.push(extra);
    }
    out.sort_by_key(|(i, _)| *i);
    out.truncate(top_k);
    (out.into_iter().map(|(_, s)| s).collect(), omitted)
}
