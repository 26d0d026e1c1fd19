//! The entity identity card: the gather of a home's ladder at an anchor and
//! every section (`identity`, `age_and_context`, `current_state`,
//! `likes_dislikes`, `questions`, `problems`, `key_moments`, `discoveries`,
//! `lessons`), each with its `provenance` string.
//!
//! The card is about the entity, derived from its data, and composing it is a
//! pure read. Two axes, as the spec splits them: history (counts, firsts,
//! key moments: append-only, closures never shrink the past) and belief
//! (interests, dreams: the closure and hidden-binding folds applied). `as_of`
//! anchors every journal signal and record existence: a record existed at
//! `T` when it had a binding at or before `T` (formation binds every record).
//!
//! The composition is [`identity_card`] over a store and journal (0.3.2's
//! module function) and [`crate::MemorySystem::entity_card`]; beside the
//! spec's seven sections it carries 0.3.2's `problems` and `lessons`.
//!
//! Spec: api.md "Entity identity card"; memory-system.md "Observability: the
//! replay stream and the identity card"; operator.md §2.

use crate::diagnostics::Exclusions;
use crate::error::{Error, Result};
use crate::lookup::{attr_str, truthy};
use crate::seam::OrderedMap;
use am_journal::{BindingFilter, ClosureFilter, MemoryJournal, ValenceEvent, ValenceFilter};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Valence at or above this magnitude is a key moment (the standing-peak
/// band: scars and bonds break at 8).
pub const KEY_MOMENT_MAGNITUDE: f64 = 8.0;
/// The most recent key moments a card keeps (chronological).
pub const KEY_MOMENTS_BOUND: usize = 20;
/// How many reasons `current_state` names.
pub const TOP_REASONS_BOUND: usize = 5;

/// One read of a home's ladder at an anchor: the formed digest rows that
/// existed then (history axis), the folds (belief axis), the folded
/// lifecycles and the valence events.
pub struct CardGather {
    /// The normalized `(scope, owner)` ladder.
    pub pairs: Vec<(String, String)>,
    /// The anchor seq.
    pub anchor: i64,
    /// Formed digest rows that existed at the anchor, per pair, chronological.
    pub history_by_pair: Vec<((String, String), Vec<TripleAssertion>)>,
    /// Every pair's rows, chronological by `(observed_at, assertion_id)`.
    pub history: Vec<TripleAssertion>,
    /// `history` with the closure and hidden folds applied.
    pub believed: Vec<TripleAssertion>,
    /// The folded lifecycle of each bound record id at the anchor.
    pub lifecycle_of: HashMap<String, String>,
    /// The ladder's valence events at or before the anchor, by seq.
    pub valence: Vec<ValenceEvent>,
    /// Digest assertion ids in `history`.
    pub assertion_rows: HashSet<String>,
}

/// The ladder normalized as 0.3.2 normalizes it: scope trimmed and
/// lowercased, owner trimmed, blank scopes and repeats dropped, order kept.
pub fn normalize_pairs(pairs: &[(String, String)]) -> Vec<(String, String)> {
    let mut norm: Vec<(String, String)> = Vec::new();
    for (s, o) in pairs {
        let p = (s.trim().to_lowercase(), o.trim().to_owned());
        if !p.0.is_empty() && !norm.contains(&p) {
            norm.push(p);
        }
    }
    norm
}

fn chrono_key(a: &TripleAssertion) -> (String, String) {
    (
        a.observed_at.clone(),
        a.assertion_id.clone().unwrap_or_default(),
    )
}

impl CardGather {
    /// Read the ladder `pairs` at `as_of` (`None` = the head).
    ///
    /// # Errors
    /// `InvalidInput` for an empty ladder or an anchor outside the journal's
    /// axis; the store's or journal's failure.
    pub fn load(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        as_of: Option<i64>,
    ) -> Result<Self> {
        let norm = normalize_pairs(pairs);
        if norm.is_empty() {
            return Err(Error::invalid(
                "the identity card needs at least one (scope, owner_id) pair with a non-empty scope, got none",
            ));
        }
        let current = journal.current_seq()?;
        let anchor = as_of.unwrap_or(current);
        am_journal::journal::check_anchor("as_of", Some(anchor), current)?;
        let ex = Exclusions::load_exclusions(store, journal, &norm, anchor)?;
        let mut history_by_pair = Vec::new();
        let mut lifecycle_of = HashMap::new();
        let mut valence = Vec::new();
        let mut assertion_rows = HashSet::new();
        for (scope, owner) in &norm {
            let mut existed: HashSet<String> = HashSet::new();
            for b in journal.bindings(&BindingFilter {
                record_id: None,
                scope: Some(scope.clone()),
                owner_id: Some(owner.clone()),
                fold: true,
                until_seq: Some(anchor),
            })? {
                existed.insert(b.record_id.clone());
                lifecycle_of.insert(b.record_id, b.lifecycle);
            }
            let mut kept: Vec<TripleAssertion> = store
                .query(&TripleQuery {
                    scope: Some(scope.clone()),
                    owner_id: (!owner.is_empty()).then(|| owner.clone()),
                    limit: 0,
                    ..TripleQuery::default()
                })?
                .into_iter()
                .filter(|a| {
                    attr_str(a, "record_kind").is_some()
                        && !truthy(a.attributes.get("record_edge"))
                        && !truthy(a.attributes.get("bookkeeping"))
                        && existed.contains(&a.subject)
                })
                .collect();
            kept.sort_by_key(chrono_key);
            assertion_rows.extend(kept.iter().filter_map(|a| a.assertion_id.clone()));
            history_by_pair.push(((scope.clone(), owner.clone()), kept));
            valence.extend(journal.valence_events(&ValenceFilter {
                until_seq: Some(anchor),
                limit: 0,
                ..ValenceFilter::new(scope, owner)
            })?);
        }
        valence.sort_by_key(|e| e.seq);
        let mut history: Vec<TripleAssertion> = history_by_pair
            .iter()
            .flat_map(|(_, rows)| rows.iter().cloned())
            .collect();
        history.sort_by_key(chrono_key);
        let believed = history
            .iter()
            .filter(|a| {
                let id = a.assertion_id.as_deref().unwrap_or_default();
                !ex.excludes(id)
            })
            .cloned()
            .collect();
        Ok(CardGather {
            pairs: norm,
            anchor,
            history_by_pair,
            history,
            believed,
            lifecycle_of,
            valence,
            assertion_rows,
        })
    }
}

/// `age_and_context`: the journal seq, record counts by kind per scope, the
/// diary entry count, and the first and last `observed_at` (timestamps only:
/// age is the reader's subtraction).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgeAndContext {
    /// The anchor seq.
    pub journal_seq: i64,
    /// scope → kind → count (history axis).
    pub record_counts: OrderedMap<OrderedMap<usize>>,
    /// Formed records across the ladder.
    pub records_total: usize,
    /// Diary entries.
    pub diary_entries: usize,
    /// The earliest `observed_at` of a record or valence event.
    pub first_observed_at: Option<String>,
    /// The latest one.
    pub last_observed_at: Option<String>,
    /// Where the section comes from.
    pub provenance: String,
}

/// The `age_and_context` section of `g`.
pub fn age_and_context(g: &CardGather) -> AgeAndContext {
    let mut counts: OrderedMap<OrderedMap<usize>> = OrderedMap::new();
    let mut diary = 0;
    let mut pairs: Vec<&((String, String), Vec<TripleAssertion>)> =
        g.history_by_pair.iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    for ((scope, _), rows) in pairs {
        for a in rows {
            let kind = attr_str(a, "record_kind").unwrap_or_default().to_owned();
            if kind == "diary" {
                diary += 1;
            }
            let idx = match counts.0.iter().position(|(s, _)| s == scope) {
                Some(i) => i,
                None => {
                    counts.0.push((scope.clone(), OrderedMap::new()));
                    counts.0.len() - 1
                }
            };
            let per = &mut counts.0[idx].1;
            match per.0.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => per.0.push((kind, 1)),
            }
        }
    }
    let stamps: Vec<&str> = g
        .history
        .iter()
        .map(|a| a.observed_at.as_str())
        .chain(g.valence.iter().map(|e| e.observed_at.as_str()))
        .filter(|s| !s.is_empty())
        .collect();
    let provenance = if g.history.is_empty() && g.valence.is_empty() {
        format!(
            "journal seq {}; no formed record and no valence event at this anchor",
            g.anchor
        )
    } else {
        format!(
            "journal seq {}; {} formed records in {} scope pair(s), counted on the history axis \
             (a closure never shrinks the past); timestamps only, the age is the reader's \
             subtraction",
            g.anchor,
            g.history.len(),
            g.pairs.len()
        )
    };
    AgeAndContext {
        journal_seq: g.anchor,
        record_counts: counts,
        records_total: g.history.len(),
        diary_entries: diary,
        first_observed_at: stamps.iter().min().map(|s| (*s).to_owned()),
        last_observed_at: stamps.iter().max().map(|s| (*s).to_owned()),
        provenance,
    }
}

/// `current_state`: the trailing window over the most recent appraisal
/// events (current is a window, not a point).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurrentState {
    /// `positive - negative`.
    pub net: f64,
    /// The window's positive magnitude.
    pub positive: f64,
    /// The window's negative magnitude.
    pub negative: f64,
    /// Appraisals in the window.
    pub event_count: usize,
    /// The window's cap.
    pub window_events: usize,
    /// The strongest appraisals of the window, `"+3 reason"`.
    pub top_reasons: Vec<String>,
    /// Where the section comes from.
    pub provenance: String,
}

fn magnitude_text(m: f64) -> String {
    if m.fract() == 0.0 && m.abs() < 1e15 {
        format!("{m:.0}")
    } else {
        format!("{m}")
    }
}

/// The `current_state` section of `g` over the last `window` appraisals.
///
/// # Errors
/// `InvalidInput` for a window of 0.
pub fn current_state(g: &CardGather, window: usize) -> Result<CurrentState> {
    if window < 1 {
        return Err(Error::invalid(format!(
            "current_window_events must be >= 1 (current is a window), got {window}"
        )));
    }
    let appraisals: Vec<&ValenceEvent> =
        g.valence.iter().filter(|e| e.kind == "appraisal").collect();
    let start = appraisals.len().saturating_sub(window);
    let recent = &appraisals[start..];
    // Folded from +0.0: an empty `Sum` of f64 is -0.0, which would print.
    let positive: f64 = recent
        .iter()
        .filter(|e| e.sign > 0)
        .fold(0.0, |acc, e| acc + e.magnitude);
    let negative: f64 = recent
        .iter()
        .filter(|e| e.sign < 0)
        .fold(0.0, |acc, e| acc + e.magnitude);
    let mut strongest: Vec<&&ValenceEvent> = recent.iter().collect();
    strongest.sort_by(|a, b| {
        b.magnitude
            .total_cmp(&a.magnitude)
            .then_with(|| b.seq.cmp(&a.seq))
    });
    let top_reasons = strongest
        .iter()
        .take(TOP_REASONS_BOUND)
        .map(|e| {
            format!(
                "{}{} {}",
                if e.sign > 0 { "+" } else { "-" },
                magnitude_text(e.magnitude),
                e.reason.as_deref().unwrap_or("None")
            )
        })
        .collect();
    let provenance = if recent.is_empty() {
        "no appraisal event at this anchor: no current state to report".to_owned()
    } else {
        format!(
            "the last {} of {} appraisal events, weighted alike (a trailing window capped at \
             {window}; markers and resolutions are standing, not experience): current is a \
             window, not a point",
            recent.len(),
            appraisals.len()
        )
    };
    Ok(CurrentState {
        net: positive - negative,
        positive,
        negative,
        event_count: recent.len(),
        window_events: window,
        top_reasons,
        provenance,
    })
}

/// `key_moments`: high-magnitude feelings and firsts, chronological, the most
/// recent [`KEY_MOMENTS_BOUND`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyMoments {
    /// The moments (`{"type": "valence", ...}` or `{"type": "first", "what", ...}`).
    pub moments: Vec<Value>,
    /// How many moments there were before the bound.
    pub total: usize,
    /// Where the section comes from.
    pub provenance: String,
}

/// The `key_moments` section of `g`: valence at or above `floor` plus the
/// first dream, the first interest and the first supersession.
///
/// # Errors
/// The journal's failure.
pub fn key_moments(g: &CardGather, journal: &dyn MemoryJournal, floor: f64) -> Result<KeyMoments> {
    let mut moments: Vec<(String, i64, Value)> = g
        .valence
        .iter()
        .filter(|e| e.magnitude >= floor)
        .map(|e| {
            (
                e.observed_at.clone(),
                e.seq,
                serde_json::json!({"type": "valence", "kind": e.kind, "target": e.target_id,
                    "sign": e.sign, "magnitude": e.magnitude, "reason": e.reason,
                    "observed_at": e.observed_at, "seq": e.seq}),
            )
        })
        .collect();
    for (what, kind) in [("first_dream", "dream"), ("first_interest", "interest")] {
        if let Some(a) = g
            .history
            .iter()
            .find(|a| attr_str(a, "record_kind") == Some(kind))
        {
            moments.push((
                a.observed_at.clone(),
                -1,
                serde_json::json!({"type": "first", "what": what, "record_id": a.subject,
                    "title": attr_str(a, "title").unwrap_or_default(), "observed_at": a.observed_at}),
            ));
        }
    }
    let first_super = journal
        .closures(&ClosureFilter {
            assertion_id: None,
            until_seq: Some(g.anchor),
            limit: 0,
        })?
        .into_iter()
        .filter(|c| c.kind == "supersede" && g.assertion_rows.contains(&c.assertion_id))
        .min_by_key(|c| c.seq);
    if let Some(c) = first_super {
        moments.push((
            c.observed_at.clone(),
            c.seq,
            serde_json::json!({"type": "first", "what": "first_supersession",
                "assertion_id": c.assertion_id, "reason": c.reason,
                "observed_at": c.observed_at, "seq": c.seq}),
        ));
    }
    moments.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let total = moments.len();
    let kept: Vec<Value> = moments
        .into_iter()
        .skip(total.saturating_sub(KEY_MOMENTS_BOUND))
        .map(|m| m.2)
        .collect();
    let provenance = if kept.is_empty() {
        "no key moment at this anchor (no valence that strong, no first)".to_owned()
    } else {
        format!(
            "{total} moment(s): valence of magnitude >= {} and the firsts (dream, interest, \
             supersession), in time order, the {KEY_MOMENTS_BOUND} most recent kept",
            magnitude_text(floor)
        )
    };
    Ok(KeyMoments {
        moments: kept,
        total,
        provenance,
    })
}

/// One standing interest of `discoveries`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InterestBrief {
    /// The record's graph id.
    pub record_id: String,
    /// Its kind.
    pub kind: String,
    /// Its title.
    pub title: String,
    /// Its digest.
    pub statement: String,
    /// When it was observed.
    pub observed_at: String,
    /// The book's entry id, when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// The fields still pending (a record formed before its words were
    /// authored), when any: never a placeholder title.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// Whether a believed record `explores` it.
    pub explored: bool,
}

/// `discoveries`: open interests and the unresolved dream count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Discoveries {
    /// Standing interests (not rejected by review).
    pub interests: Vec<InterestBrief>,
    /// Interests some believed record explores.
    pub interests_explored: usize,
    /// Interests none explores yet.
    pub interests_open: usize,
    /// Dreams standing unresolved or continued.
    pub unresolved_dreams: usize,
    /// Where the section comes from.
    pub provenance: String,
    /// The standing dreams' signals, summarized (absent when none carries
    /// any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dreams_signals_brief: Option<DreamSignalsBrief>,
}

/// A bounded summary of the standing dreams' signals: counts, kinds and felt
/// tones, never fragments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DreamSignalsBrief {
    /// Signals across the standing dreams.
    pub count: usize,
    /// Always `"signals"`: `count` counts signals, not dreams.
    pub unit: &'static str,
    /// Standing dreams carrying at least one signal.
    pub dreams: usize,
    /// The signals' kinds, sorted.
    pub kinds: Vec<String>,
    /// The signals' felt tones, sorted.
    pub felt_tones: Vec<String>,
}

/// The `discoveries` section of `g` (belief axis).
pub fn discoveries(g: &CardGather) -> Discoveries {
    let explores: HashSet<&str> = g
        .believed
        .iter()
        .filter_map(|a| attr_str(a, "explores"))
        .collect();
    let mut interests = Vec::new();
    for a in &g.believed {
        if attr_str(a, "record_kind") != Some("interest")
            || g.lifecycle_of.get(&a.subject).map(String::as_str) == Some("rejected")
        {
            continue;
        }
        let explored = explores.contains(a.subject.as_str())
            || a.assertion_id
                .as_deref()
                .is_some_and(|id| explores.contains(id));
        interests.push(InterestBrief {
            record_id: a.subject.clone(),
            kind: "interest".into(),
            title: attr_str(a, "title").unwrap_or_default().to_owned(),
            statement: a.object.clone(),
            observed_at: a.observed_at.clone(),
            entry_id: attr_str(a, "entry_id").map(str::to_owned),
            pending: crate::lookup::pending_fields(a),
            explored,
        });
    }
    let explored = interests.iter().filter(|i| i.explored).count();
    let mut unresolved = 0;
    let (mut signal_count, mut signal_dreams) = (0, 0);
    let mut kinds: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut tones: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for a in &g.believed {
        if attr_str(a, "record_kind") != Some("dream")
            || !matches!(
                a.attributes
                    .get("continuation_state")
                    .and_then(Value::as_str),
                Some("unresolved" | "continued")
            )
        {
            continue;
        }
        unresolved += 1;
        let signals: Vec<&serde_json::Map<String, Value>> = a
            .attributes
            .get("signals")
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_object).collect())
            .unwrap_or_default();
        if !signals.is_empty() {
            signal_dreams += 1;
        }
        for sig in signals {
            signal_count += 1;
            if let Some(k) = sig.get("kind").filter(|k| crate::lookup::truthy(Some(*k))) {
                kinds.insert(py_str(k));
            }
            if let Some(t) = sig
                .get("felt")
                .and_then(Value::as_object)
                .and_then(|f| f.get("tone"))
                .filter(|t| crate::lookup::truthy(Some(*t)))
            {
                tones.insert(py_str(t));
            }
        }
    }
    let provenance = if interests.is_empty() && unresolved == 0 {
        "no interest and no unresolved dream at this anchor".to_owned()
    } else {
        format!(
            "{} standing interest(s), {explored} explored (a record's attributes.explores; \
             exploring never closes an interest; closure, hidden and lifecycle folds applied), \
             and {unresolved} unresolved dream(s) awaiting waking evidence",
            interests.len()
        )
    };
    Discoveries {
        interests_open: interests.len() - explored,
        interests_explored: explored,
        interests,
        unresolved_dreams: unresolved,
        provenance,
        dreams_signals_brief: (signal_count > 0).then(|| DreamSignalsBrief {
            count: signal_count,
            unit: "signals",
            dreams: signal_dreams,
            kinds: kinds.into_iter().collect(),
            felt_tones: tones.into_iter().collect(),
        }),
    }
}

/// A JSON value as text: a string as itself, anything else as its JSON.
fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One target of `likes_dislikes`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandingEntry {
    /// The appraised target.
    pub target: String,
    /// A record-backed target's title as formed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Presented net standing.
    pub net: f64,
    /// The G⁺ channel.
    pub positive: f64,
    /// The G⁻ channel.
    pub negative: f64,
    /// Positive appraisals.
    pub positive_count: u64,
    /// Negative appraisals.
    pub negative_count: u64,
    /// An unhealed scar caps the presentation at ≤ 0.
    pub scarred: bool,
    /// An unbroken bond floors it at ≥ 0.
    pub bonded: bool,
}

/// `likes_dislikes`: the top targets by G⁺ and by G⁻, reported separately
/// (one target may stand in both lists: ambivalence is kept).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LikesDislikes {
    /// The strongest positive channels.
    pub likes: Vec<StandingEntry>,
    /// The strongest negative channels.
    pub dislikes: Vec<StandingEntry>,
    /// Targets appraised at all.
    pub targets_total: usize,
    /// Where the section comes from.
    pub provenance: String,
}

/// The `likes_dislikes` section of `g`: gradation over the ladder's valence
/// at the anchor, the `top_n` targets of each channel (ties: more
/// appraisals, then the target), record-backed targets titled.
///
/// # Errors
/// The gradation's refusal (a config out of range); the store's failure.
pub fn likes_dislikes(
    g: &CardGather,
    store: &dyn TripleStore,
    config: &crate::valence::GradationConfig,
    top_n: usize,
) -> Result<LikesDislikes> {
    let grades = crate::valence::compute_gradation(&g.valence, config)?;
    let pick = |channel: fn(&crate::valence::GradationScore) -> (f64, u64)| {
        let mut t: Vec<&String> = grades
            .keys()
            .filter(|k| channel(&grades[*k]).0 > 0.0)
            .collect();
        t.sort_by(|a, b| {
            let (sa, na) = channel(&grades[*a]);
            let (sb, nb) = channel(&grades[*b]);
            sb.total_cmp(&sa).then(nb.cmp(&na)).then(a.cmp(b))
        });
        t.truncate(top_n);
        t
    };
    let likes = pick(|s| (s.positive, s.positive_count));
    let dislikes = pick(|s| (s.negative, s.negative_count));
    let entry = |t: &String| -> Result<StandingEntry> {
        let s = &grades[t];
        let title = crate::lookup::resolve_digest_assertion(store, t)?
            .and_then(|a| attr_str(&a, "title").map(str::to_owned));
        Ok(StandingEntry {
            target: t.clone(),
            title,
            net: s.net,
            positive: s.positive,
            negative: s.negative,
            positive_count: s.positive_count,
            negative_count: s.negative_count,
            scarred: s.scarred,
            bonded: s.bonded,
        })
    };
    let provenance = if grades.is_empty() {
        "no valence event at this anchor: nothing felt yet".to_owned()
    } else {
        format!(
            "gradation over {} valence events in {} scope pair(s); the top {top_n} of each \
             channel, G+ and G- reported apart (one target may stand in both)",
            g.valence.len(),
            g.pairs.len()
        )
    };
    Ok(LikesDislikes {
        likes: likes.into_iter().map(entry).collect::<Result<_>>()?,
        dislikes: dislikes.into_iter().map(entry).collect::<Result<_>>()?,
        targets_total: grades.len(),
        provenance,
    })
}

// -- identity, questions, problems, lessons ------------------------------------

/// One formed record as the card briefs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowBrief {
    /// The record's graph id.
    pub record_id: String,
    /// Its kind.
    pub kind: String,
    /// Its title as formed (`""` when it has none).
    pub title: String,
    /// Its digest.
    pub statement: String,
    /// When it was observed.
    pub observed_at: String,
    /// The book's entry id, when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// The fields still pending, when any (never a placeholder title).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// The entries that resolve it (a resolved question or problem), sorted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<Vec<String>>,
}

fn row_brief(a: &TripleAssertion) -> RowBrief {
    RowBrief {
        record_id: a.subject.clone(),
        kind: attr_str(a, "record_kind").unwrap_or_default().to_owned(),
        title: attr_str(a, "title").unwrap_or_default().to_owned(),
        statement: a.object.clone(),
        observed_at: a.observed_at.clone(),
        entry_id: attr_str(a, "entry_id").map(str::to_owned),
        pending: crate::lookup::pending_fields(a),
        resolved_by: None,
    }
}

/// One item of the identity core.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdentityItem {
    /// Its title.
    pub title: String,
    /// Its statement (the digest).
    pub statement: String,
    /// A value's class, when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_class: Option<Value>,
    /// A trait's class (`limit` for honesty items), when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trait_class: Option<Value>,
}

/// `identity`: the folded self core at the anchor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdentitySection {
    /// The owner identity string (display names live in the host's manifest).
    pub name: String,
    /// The highest spark version among the core's records.
    pub spark_version: Option<i64>,
    /// The values, in identity order.
    pub values: Vec<IdentityItem>,
    /// The purposes.
    pub purposes: Vec<IdentityItem>,
    /// The traits.
    pub traits: Vec<IdentityItem>,
    /// Where the section comes from.
    pub provenance: String,
}

/// The `identity` section: [`crate::identity::self_records`] of every pair
/// of the ladder at the anchor (first appearance kept), by kind.
///
/// # Errors
/// The store's or journal's failure.
pub fn identity(
    g: &CardGather,
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    owner: &str,
) -> Result<IdentitySection> {
    let mut core: Vec<TripleAssertion> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (scope, pair_owner) in &g.pairs {
        let args = crate::identity::SelfRecords {
            as_of: Some(g.anchor),
            ..crate::identity::SelfRecords::new(scope, pair_owner)
        };
        for a in crate::identity::self_records(store, journal, &args)? {
            if seen.insert(a.assertion_id.clone().unwrap_or_default()) {
                core.push(a);
            }
        }
    }
    let mut out = IdentitySection {
        name: owner.to_owned(),
        spark_version: None,
        values: Vec::new(),
        purposes: Vec::new(),
        traits: Vec::new(),
        provenance: String::new(),
    };
    for a in &core {
        let kind = a
            .attributes
            .get("record_kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let class = |k: &str| {
            a.attributes
                .get(k)
                .filter(|v| crate::lookup::truthy(Some(*v)))
                .cloned()
        };
        let mut item = IdentityItem {
            title: attr_str(a, "title").unwrap_or_default().to_owned(),
            statement: a.object.clone(),
            value_class: None,
            trait_class: None,
        };
        match kind {
            "value" => {
                item.value_class = class("value_class");
                out.values.push(item);
            }
            "purpose" => out.purposes.push(item),
            "trait" => {
                item.trait_class = class("trait_class");
                out.traits.push(item);
            }
            _ => continue,
        }
        if let Some(v) = a
            .attributes
            .get("spark_version")
            .and_then(crate::identity::as_int)
        {
            out.spark_version = Some(out.spark_version.map_or(v, |cur| cur.max(v)));
        }
    }
    out.provenance = if core.is_empty() {
        "no prompt-active identity record at this anchor (no engram yet, or an anchor before \
         it); the name is the home's owner identity string"
            .to_owned()
    } else {
        format!(
            "the folded self core: {} prompt-active identity record(s) read by self_records \
             (binding and closure folds at the anchor); the name is the home's owner identity \
             string, display names are the host's",
            core.len()
        )
    };
    Ok(out)
}

/// `questions` (or `problems`): the diary entries of one `diary_type`, open
/// or resolved by a believed entry's `answers` / `resolves` reference (either
/// id namespace), oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenResolved {
    /// Entries no believed entry resolves.
    pub open: Vec<RowBrief>,
    /// Entries some believed entry resolves, with `resolved_by`.
    pub resolved: Vec<RowBrief>,
    /// Where the section comes from.
    pub provenance: String,
}

fn open_resolved(g: &CardGather, diary_type: &str) -> (Vec<RowBrief>, Vec<RowBrief>) {
    let diary: Vec<&TripleAssertion> = g
        .believed
        .iter()
        .filter(|a| a.attributes.get("record_kind").and_then(Value::as_str) == Some("diary"))
        .collect();
    let mut resolved_by: HashMap<&str, Vec<&str>> = HashMap::new();
    for a in &diary {
        for key in ["answers", "resolves"] {
            if let Some(r) = attr_str(a, key) {
                resolved_by.entry(r).or_default().push(a.subject.as_str());
            }
        }
    }
    let (mut open, mut resolved) = (Vec::new(), Vec::new());
    for a in diary
        .iter()
        .filter(|a| a.attributes.get("diary_type").and_then(Value::as_str) == Some(diary_type))
    {
        let entry = match a.attributes.get("entry_id") {
            None | Some(Value::Null) => String::new(),
            Some(v) => py_str(v).trim().to_owned(),
        };
        let mut resolvers: Vec<&str> = [a.subject.as_str(), entry.as_str()]
            .into_iter()
            .filter(|r| !r.is_empty())
            .flat_map(|r| resolved_by.get(r).into_iter().flatten().copied())
            .collect();
        resolvers.sort_unstable();
        resolvers.dedup();
        let mut brief = row_brief(a);
        if resolvers.is_empty() {
            open.push(brief);
        } else {
            brief.resolved_by = Some(resolvers.into_iter().map(str::to_owned).collect());
            resolved.push(brief);
        }
    }
    (open, resolved)
}

/// The `questions` section of `g` (belief axis): `diary_type = "question"`.
pub fn questions(g: &CardGather) -> OpenResolved {
    let (open, resolved) = open_resolved(g, "question");
    let provenance = if open.is_empty() && resolved.is_empty() {
        "no diary question at this anchor".to_owned()
    } else {
        format!(
            "{} open and {} resolved diary question(s) (diary_type \"question\"; resolved when a \
             believed entry's answers or resolves names it, by graph id or entry id; closure and \
             hidden folds applied)",
            open.len(),
            resolved.len()
        )
    };
    OpenResolved {
        open,
        resolved,
        provenance,
    }
}

/// The `problems` section of `g` (belief axis): `diary_type = "problem"`, the
/// same resolution convention (a problem is something wrong, not a question).
pub fn problems(g: &CardGather) -> OpenResolved {
    let (open, resolved) = open_resolved(g, "problem");
    let provenance = if open.is_empty() && resolved.is_empty() {
        "no diary problem at this anchor".to_owned()
    } else {
        format!(
            "{} open and {} repaired diary problem(s) (diary_type \"problem\"; repaired when a \
             believed entry's answers or resolves names it, by graph id or entry id; closure and \
             hidden folds applied)",
            open.len(),
            resolved.len()
        )
    };
    OpenResolved {
        open,
        resolved,
        provenance,
    }
}

/// `lessons`: the believed lessons, newest first, the [`KEY_MOMENTS_BOUND`]
/// newest shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lessons {
    /// The newest lessons.
    pub lessons: Vec<RowBrief>,
    /// Believed lessons in all.
    pub total: usize,
    /// Where the section comes from.
    pub provenance: String,
}

/// The `lessons` section of `g` (belief axis).
pub fn lessons(g: &CardGather) -> Lessons {
    let mut rows: Vec<&TripleAssertion> = g
        .believed
        .iter()
        .filter(|a| a.attributes.get("record_kind").and_then(Value::as_str) == Some("lesson"))
        .collect();
    rows.sort_by(|a, b| (&b.observed_at, &b.subject).cmp(&(&a.observed_at, &a.subject)));
    let provenance = if rows.is_empty() {
        "no lesson at this anchor: nothing distilled yet".to_owned()
    } else {
        format!(
            "{} believed lesson(s), newest first, the {KEY_MOMENTS_BOUND} newest shown; a count \
             that only grows, never a ratio",
            rows.len()
        )
    };
    Lessons {
        lessons: rows
            .iter()
            .take(KEY_MOMENTS_BOUND)
            .map(|a| row_brief(a))
            .collect(),
        total: rows.len(),
        provenance,
    }
}

// -- the composed card ---------------------------------------------------------

fn default_window() -> usize {
    200
}

fn default_top_n() -> usize {
    5
}

/// The arguments of the identity card: `entity_card(*, scope_pairs,
/// owner_id, current_window_events=200, top_n=5, as_of=None)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityCard {
    /// The home's scope ladder (JSON `[[scope, owner_id], ...]`), for example
    /// `[["self", eid], ["diary", eid], ["life", eid]]`.
    pub scope_pairs: Vec<(String, String)>,
    /// The entity (the card's `identity.name`).
    pub owner_id: String,
    /// The trailing window of `current_state`, in appraisal events (≥ 1).
    #[serde(default = "default_window")]
    pub current_window_events: usize,
    /// Targets per channel in `likes_dislikes`.
    #[serde(default = "default_top_n")]
    pub top_n: usize,
    /// The journal seq the card describes (`None` = the head).
    #[serde(default)]
    pub as_of: Option<i64>,
}

impl EntityCard {
    /// The card of `owner_id` over `scope_pairs`, the spec's defaults.
    pub fn new(scope_pairs: &[(&str, &str)], owner_id: &str) -> Self {
        EntityCard {
            scope_pairs: scope_pairs
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            owner_id: owner_id.to_owned(),
            current_window_events: default_window(),
            top_n: default_top_n(),
            as_of: None,
        }
    }
}

/// The identity card: every section, each with its `provenance`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdentityCard {
    /// The entity.
    pub owner_id: String,
    /// The seq the card describes.
    pub as_of_seq: i64,
    /// The normalized ladder.
    pub scope_pairs: Vec<(String, String)>,
    /// The folded self core.
    pub identity: IdentitySection,
    /// Age and accumulated context.
    pub age_and_context: AgeAndContext,
    /// The trailing window over recent appraisals.
    pub current_state: CurrentState,
    /// G⁺ and G⁻, apart.
    pub likes_dislikes: LikesDislikes,
    /// Open and resolved diary questions.
    pub questions: OpenResolved,
    /// Open and repaired diary problems.
    pub problems: OpenResolved,
    /// Strong feelings and firsts.
    pub key_moments: KeyMoments,
    /// Open interests and unresolved dreams.
    pub discoveries: Discoveries,
    /// Distilled lessons.
    pub lessons: Lessons,
}

/// Compose the identity card over a store and journal (api.md "Entity
/// identity card": the module function `identity_card(store, journal, *,
/// scope_pairs, owner_id, ...)`). One pure read: nothing is written or
/// deposited. `as_of` anchors the journal signals and record existence (a
/// record existed at `T` when it was bound by `T`): a card at `T` describes
/// the entity at `T`, and a question answered after `T` reads open. `config`
/// drives the `likes_dislikes` fold and the key-moment floor (its
/// `break_magnitude`).
///
/// # Errors
/// `InvalidInput` for an empty ladder, a blank owner, a window of 0 or an
/// anchor outside the journal's axis; the store's or journal's failure.
pub fn identity_card(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &EntityCard,
    config: &crate::valence::GradationConfig,
) -> Result<IdentityCard> {
    let pairs = normalize_pairs(&args.scope_pairs);
    if pairs.is_empty() {
        return Err(Error::invalid(
            "entity_card needs at least one (scope, owner_id) pair with a non-empty scope (an \
             empty ladder describes nobody), got none",
        ));
    }
    let owner = args.owner_id.trim();
    if owner.is_empty() {
        return Err(Error::invalid(
            "entity_card needs a non-empty owner_id (the entity), got a blank one",
        ));
    }
    if args.current_window_events < 1 {
        return Err(Error::invalid(format!(
            "current_window_events must be >= 1 (current is a window; an empty window \
             describes nothing), got {}",
            args.current_window_events
        )));
    }
    let g = CardGather::load(store, journal, &pairs, args.as_of)?;
    Ok(IdentityCard {
        owner_id: owner.to_owned(),
        as_of_seq: g.anchor,
        identity: identity(&g, store, journal, owner)?,
        age_and_context: age_and_context(&g),
        current_state: current_state(&g, args.current_window_events)?,
        likes_dislikes: likes_dislikes(&g, store, config, args.top_n)?,
        questions: questions(&g),
        problems: problems(&g),
        key_moments: key_moments(&g, journal, config.break_magnitude)?,
        discoveries: discoveries(&g),
        lessons: lessons(&g),
        scope_pairs: g.pairs,
    })
}

impl crate::system::MemorySystem {
    /// The identity card of this system's home ([`identity_card`] with the
    /// system's gradation config). A pure read.
    ///
    /// # Errors
    /// As [`identity_card`].
    pub fn entity_card(&self, args: &EntityCard) -> Result<IdentityCard> {
        identity_card(
            self.store().as_ref(),
            self.journal().as_ref(),
            args,
            &self.gradation,
        )
    }
}
