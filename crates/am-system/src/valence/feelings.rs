//! The two feelings reads, neither of which deposits anything:
//! [`feelings_about`] (the why-walk for one target, when the entity reaches
//! for it) and [`stimulus_feelings`] (the standing feelings toward what the
//! current stimulus touches: people named as participants and names the cue
//! mentions). Feelings color what recall brings; they never select it.
//!
//! Spec: api.md "Valence and gradation" (`feelings_about`,
//! `stimulus_feelings`); 0.3.2's `feelings_reads.py`.

use super::gradation::{GradationConfig, GradationScore, compute_gradation};
use crate::concepts::concept_term_set as concept_terms;
use crate::error::{Error, Result};
use crate::outcome::Warned;
use crate::seam::Stimulus;
use am_journal::{MemoryJournal, ValenceEvent, ValenceFilter, ValenceKind};
use am_triples::TripleStore;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

fn twelve() -> usize {
    12
}

fn two() -> f64 {
    2.0
}

fn five() -> usize {
    5
}

/// The arguments of [`feelings_about`]: `feelings_about(journal, target, *,
/// scope_pairs, gradation_config=GradationConfig(), as_of_seq=None, limit=12)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeelingsAbout {
    /// The target (exact, trimmed).
    pub target: String,
    /// The `(scope, owner)` streams to read, narrow first.
    pub scope_pairs: Vec<(String, String)>,
    /// The fold's tunables.
    #[serde(default)]
    pub gradation_config: GradationConfig,
    /// The anchor (inclusive; `None`: the journal's high-water mark).
    #[serde(default)]
    pub as_of_seq: Option<i64>,
    /// At most this many events, newest first (0: none).
    #[serde(default = "twelve")]
    pub limit: usize,
}

impl FeelingsAbout {
    /// The why-walk for `target` over `scope_pairs`.
    pub fn new(target: &str, scope_pairs: &[(&str, &str)]) -> Self {
        FeelingsAbout {
            target: target.to_owned(),
            scope_pairs: pairs(scope_pairs),
            gradation_config: GradationConfig::default(),
            as_of_seq: None,
            limit: twelve(),
        }
    }
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}

/// One event of the why-walk. JSON: `{when, sign, magnitude, kind, reason,
/// value_refs, run_id, turn_id, event_id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeelingEvent {
    /// When it was felt (the event's `observed_at`).
    pub when: String,
    /// `+1` or `-1`.
    pub sign: i64,
    /// Its magnitude.
    pub magnitude: f64,
    /// `appraisal`, `scar`, `bond`, `healing`, `break` or `revalued`.
    pub kind: ValenceKind,
    /// Why.
    pub reason: String,
    /// The value records it was grounded in.
    pub value_refs: Vec<String>,
    /// The session join: `provenance.run_id`.
    pub run_id: Option<String>,
    /// The session join: `provenance.turn_id`.
    pub turn_id: Option<String>,
    /// The event's id.
    pub event_id: String,
}

/// What [`feelings_about`] answers. JSON: `{target, standing, events,
/// total_events}` plus `note` when no feeling stands (never appraised, or no
/// journal to read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeelingsAboutResult {
    /// The target read.
    pub target: String,
    /// Its standing (`None` when never appraised).
    pub standing: Option<GradationScore>,
    /// Its events, newest first, at most `limit`.
    pub events: Vec<FeelingEvent>,
    /// How many events it has at the anchor.
    pub total_events: usize,
    /// Why nothing stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The why-walk for one target: its standing and its events newest first
/// (markers and resolutions included: standing changes are part of the
/// story), with the session joins (`run_id`, `turn_id`) a host threads back
/// through. Without a journal the answer says the stream is unreadable
/// (`#FALLBACK`).
///
/// # Errors
/// `InvalidInput` for a blank target, a blank scope in a pair or an anchor
/// outside the journal; the journal's failure.
pub fn feelings_about(
    journal: Option<&dyn MemoryJournal>,
    args: &FeelingsAbout,
) -> Result<FeelingsAboutResult> {
    let target = args.target.trim();
    if target.is_empty() {
        return Err(Error::invalid(
            "feelings_about needs a target, got a blank one",
        ));
    }
    let empty = |note: &str| FeelingsAboutResult {
        target: target.to_owned(),
        standing: None,
        events: Vec::new(),
        total_events: 0,
        note: Some(note.to_owned()),
    };
    let Some(journal) = journal else {
        return Ok(empty(
            "#FALLBACK: no journal available; the valence stream is unreadable",
        ));
    };
    args.gradation_config.validate()?;
    let anchor = match args.as_of_seq {
        Some(a) => a,
        None => journal.current_seq()?,
    };
    let mut rows: Vec<ValenceEvent> = Vec::new();
    for (scope, owner) in &args.scope_pairs {
        rows.extend(journal.valence_events(&ValenceFilter {
            target_id: Some(target.to_owned()),
            until_seq: Some(anchor),
            limit: 0,
            ..ValenceFilter::new(scope, owner)
        })?);
    }
    if rows.is_empty() {
        return Ok(empty("never appraised: no feeling stands toward this"));
    }
    let standing = compute_gradation(&rows, &args.gradation_config)?.remove(target);
    rows.sort_by_key(|e| std::cmp::Reverse(e.seq));
    let events = rows
        .iter()
        .take(args.limit)
        .map(|e| FeelingEvent {
            when: e.observed_at.clone(),
            sign: e.sign,
            magnitude: e.magnitude,
            kind: e.kind,
            reason: e.reason.clone().unwrap_or_default(),
            value_refs: e.value_refs.clone(),
            run_id: e.provenance.get("run_id").and_then(join_text),
            turn_id: e.provenance.get("turn_id").and_then(join_text),
            event_id: e.event_id.clone(),
        })
        .collect();
    Ok(FeelingsAboutResult {
        target: target.to_owned(),
        standing,
        events,
        total_events: rows.len(),
        note: None,
    })
}

/// A session-join value as text: `None` for a missing, null, empty, false or
/// zero value (0.3.2's `str(v or "") or None`).
fn join_text(v: &Value) -> Option<String> {
    match v {
        Value::Null | Value::Bool(false) => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) if n.as_f64() == Some(0.0) => None,
        Value::Bool(true) => Some("True".into()),
        Value::Array(a) if a.is_empty() => None,
        Value::Object(o) if o.is_empty() => None,
        other => Some(other.to_string()),
    }
}

/// The arguments of [`stimulus_feelings`]: `stimulus_feelings(store, journal,
/// stimulus, scope_pairs, *, gradation_config=GradationConfig(),
/// as_of_seq=None, min_net=2.0, max_feelings=5, warnings=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StimulusFeelings {
    /// The current stimulus (its `participants` and `cue_text` are read).
    pub stimulus: Stimulus,
    /// The `(scope, owner)` streams to read, narrow first (the narrowest
    /// stream's standing wins for a target several hold).
    pub scope_pairs: Vec<(String, String)>,
    /// The fold's tunables.
    #[serde(default)]
    pub gradation_config: GradationConfig,
    /// The anchor (inclusive; `None`: the journal's high-water mark).
    #[serde(default)]
    pub as_of_seq: Option<i64>,
    /// The admission floor on `|net|` (a scar or bond is always admitted).
    #[serde(default = "two")]
    pub min_net: f64,
    /// At most this many feelings, strongest first.
    #[serde(default = "five")]
    pub max_feelings: usize,
}

impl StimulusFeelings {
    /// The feelings `stimulus` touches in `scope_pairs`.
    pub fn new(stimulus: Stimulus, scope_pairs: &[(&str, &str)]) -> Self {
        StimulusFeelings {
            stimulus,
            scope_pairs: pairs(scope_pairs),
            gradation_config: GradationConfig::default(),
            as_of_seq: None,
            min_net: two(),
            max_feelings: five(),
        }
    }
}

am_triples::vocabulary! {
    /// Which standing markers a feeling carries.
    pub enum Standing("standing") {
        /// No marker.
        None = "none",
        /// An unhealed scar.
        Scar = "scar",
        /// An unbroken bond.
        Bond = "bond",
        /// Both at once (the presentation is exactly 0).
        ScarAndBond = "scar+bond",
    }
}

am_triples::vocabulary! {
    /// How a target was found relevant to the stimulus.
    pub enum MatchedVia("matched_via") {
        /// It is one of the stimulus's participants.
        Participant = "participant",
        /// Its name (after the `namespace:` prefix) shares a concept word with the cue.
        Cue = "cue",
    }
}

/// One standing feeling the stimulus touches. JSON: `{target, net,
/// positive_count, negative_count, standing, last_felt, matched_via}`; no
/// reasons (those live behind [`feelings_about`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StimulusFeeling {
    /// The target.
    pub target: String,
    /// Its presented standing.
    pub net: f64,
    /// Positive appraisals.
    pub positive_count: u64,
    /// Negative appraisals.
    pub negative_count: u64,
    /// Its standing markers.
    pub standing: Standing,
    /// The date (`YYYY-MM-DD`) of its newest appraisal.
    pub last_felt: Option<String>,
    /// Why it is relevant.
    pub matched_via: MatchedVia,
}

/// The standing feelings toward the targets the stimulus touches: a target
/// that is one of its participants, or whose name part shares a concept word
/// (folded, 3+ characters, with adjacent-word bigrams) with the cue text.
/// A target that is a record (either id namespace) is skipped: a per-turn
/// line never names a record. Admitted when `|net| >= min_net` or a marker
/// stands; strongest first, then by target; at most `max_feelings`.
/// Without a journal nothing is read and a `#FALLBACK` warning says so.
///
/// # Errors
/// `InvalidInput` for a blank scope in a pair or an anchor outside the
/// journal; the store's or journal's failure.
pub fn stimulus_feelings(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &StimulusFeelings,
) -> Result<Warned<Vec<StimulusFeeling>>> {
    let Some(journal) = journal else {
        return Ok(Warned::new(
            Vec::new(),
            vec!["#FALLBACK: feelings skipped (no journal available; gradation reads the valence stream)".into()],
        ));
    };
    args.gradation_config.validate()?;
    let anchor = match args.as_of_seq {
        Some(a) => a,
        None => journal.current_seq()?,
    };
    let mut merged: HashMap<String, GradationScore> = HashMap::new();
    let mut last_felt: HashMap<String, String> = HashMap::new();
    for (scope, owner) in &args.scope_pairs {
        let events = journal.valence_events(&ValenceFilter {
            until_seq: Some(anchor),
            limit: 0,
            ..ValenceFilter::new(scope, owner)
        })?;
        if events.is_empty() {
            continue;
        }
        for (target, score) in compute_gradation(&events, &args.gradation_config)? {
            merged.entry(target).or_insert(score);
        }
        for e in &events {
            if e.kind == ValenceKind::Appraisal && !e.observed_at.is_empty() {
                let prior = last_felt.entry(e.target_id.clone()).or_default();
                if e.observed_at > *prior {
                    prior.clone_from(&e.observed_at);
                }
            }
        }
    }
    let participants: HashSet<&str> = args
        .stimulus
        .participants
        .iter()
        .map(String::as_str)
        .collect();
    let cue = concept_terms(&args.stimulus.cue_text);
    let mut targets: Vec<&String> = merged.keys().collect();
    targets.sort();
    let mut out = Vec::new();
    for target in targets {
        let via = if participants.contains(target.as_str()) {
            MatchedVia::Participant
        } else {
            let name = target.split_once(':').map_or(target.as_str(), |(_, n)| n);
            if concept_terms(name).is_disjoint(&cue) {
                continue;
            }
            MatchedVia::Cue
        };
        if crate::lookup::resolve_digest_assertion(store, target)?.is_some() {
            continue;
        }
        let score = &merged[target];
        let standing = match (score.scarred, score.bonded) {
            (true, true) => Standing::ScarAndBond,
            (true, false) => Standing::Scar,
            (false, true) => Standing::Bond,
            (false, false) => Standing::None,
        };
        if score.net.abs() < args.min_net && standing == Standing::None {
            continue;
        }
        out.push(StimulusFeeling {
            target: target.clone(),
            net: score.net,
            positive_count: score.positive_count,
            negative_count: score.negative_count,
            standing,
            last_felt: last_felt
                .get(target)
                .map(|t| t.chars().take(10).collect::<String>())
                .filter(|t| !t.is_empty()),
            matched_via: via,
        });
    }
    out.sort_by(|a, b| {
        b.net
            .abs()
            .total_cmp(&a.net.abs())
            .then_with(|| a.target.cmp(&b.target))
    });
    out.truncate(args.max_feelings);
    Ok(Warned::new(out, Vec::new()))
}
