//! The entity identity card's gather and the sections that read the journal,
//! the formed records and the gradation: `age_and_context`, `current_state`,
//! `likes_dislikes`, `key_moments` and `discoveries`, each with its
//! `provenance` string.
//!
//! The card is about the entity, derived from its data, and composing it is a
//! pure read. Two axes, as the spec splits them: history (counts, firsts,
//! key moments: append-only, closures never shrink the past) and belief
//! (interests, dreams: the closure and hidden-binding folds applied). `as_of`
//! anchors every journal signal and record existence: a record existed at
//! `T` when it had a binding at or before `T` (formation binds every record).
//!
//! Not here yet: `identity` (the folded self core) and `questions` (the
//! diary's resolution convention) read the identity and diary family (issue
//! 21); `entity_card` composes all sections once those reads exist.
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
        let mut norm: Vec<(String, String)> = Vec::new();
        for (s, o) in pairs {
            let p = (s.trim().to_lowercase(), o.trim().to_owned());
            if !p.0.is_empty() && !norm.contains(&p) {
                norm.push(p);
            }
        }
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
    let positive: f64 = recent
        .iter()
        .filter(|e| e.sign > 0)
        .map(|e| e.magnitude)
        .sum();
    let negative: f64 = recent
        .iter()
        .filter(|e| e.sign < 0)
        .map(|e| e.magnitude)
        .sum();
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
            explored,
        });
    }
    let explored = interests.iter().filter(|i| i.explored).count();
    let unresolved = g
        .believed
        .iter()
        .filter(|a| {
            attr_str(a, "record_kind") == Some("dream")
                && matches!(
                    attr_str(a, "continuation_state"),
                    Some("unresolved" | "continued")
                )
        })
        .count();
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
