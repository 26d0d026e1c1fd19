//! The `situate` read and its result types.
//!
//! Spec: api.md "Situating a past moment". The composition and the keys are
//! 0.3.2's `situate`; two places follow 0.5.2 where 0.3.2 differs: a zero
//! `moment_trace_walk` inspects no trace (0.3.2 inspects one) and a zero
//! `token_budget` admits no period record (0.3.2 always admits the first),
//! because a bound of zero means nothing of that section; and a pending or
//! missing title is served as `None` (0.3.2: `""`).

use super::args::{Occurrence, Situate};
use crate::error::{Error, Result};
use crate::identity::{SelfRecords, self_records};
use crate::kinds::IDENTITY_KINDS;
use crate::recall::attention::activation_inputs;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::{BindingFilter, BindingSource, ClosureFilter, MemoryJournal, TraceFilter};
use am_triples::text::{handle_digest, token_estimate};
use am_triples::{JsonMap, TripleAssertion, TripleQuery};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The label every record-shaped item carries.
pub const HISTORICAL: &str = "historical";

/// Kinds whose open records are tensions.
const TENSION_KINDS: &[&str] = &["question", "plan"];
/// Diary types whose open entries are tensions.
const TENSION_DIARY_TYPES: &[&str] = &["question", "problem", "commitment"];
/// Attributes and edge predicates that settle a tension by reference.
const RESOLUTIONS: &[&str] = &["answers", "resolves", "fulfills"];

/// One record as it stood, labelled historical.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HistoricalHandle {
    /// The digest row's assertion id.
    pub record_id: String,
    /// The record's graph id.
    pub graph_id: String,
    /// Its record kind (`memory` when none).
    pub kind: String,
    /// Its title (`None` while pending or missing).
    pub title: Option<String>,
    /// Its digest.
    pub digest: String,
    /// When it was observed.
    pub observed_at: String,
    /// The digest's token estimate.
    pub token_estimate: usize,
    /// Always `historical`.
    pub admission: String,
}

/// One identity change since the moment: the record and how it changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvolutionEntry {
    /// The record.
    #[serde(flatten)]
    pub handle: HistoricalHandle,
    /// `added_since`, `closed_since` or `added_and_closed_since`.
    pub change: String,
}

/// One warm record at the moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ActivityItem {
    /// The record id the activation fold keys.
    pub record_id: String,
    /// Its base-level activation at the anchor (six decimals).
    pub activation: f64,
    /// Always `historical`.
    pub admission: String,
}

/// The nearest reconstruction at or before the moment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Moment {
    /// The trace's id (`None`: no overlapping trace).
    pub trace_id: Option<String>,
    /// The records that reconstruction selected.
    pub held_record_ids: Vec<String>,
    /// The cue it answered.
    pub cue: Option<String>,
    /// When it ran.
    pub observed_at: Option<String>,
    /// The display of its snapshot as of the anchor, when one was committed
    /// by then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_display: Option<Vec<JsonMap>>,
}

/// The bounds a read spent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BudgetReport {
    /// The window asked for.
    pub window_records: i64,
    /// The activity bound.
    pub activity_top_k: i64,
    /// The token bound.
    pub token_budget: i64,
    /// Tokens the period spent.
    pub tokens_used: usize,
    /// Whether the token bound cut the period.
    pub token_exhausted: bool,
}

/// One situated moment (0.3.2's keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Situation {
    /// Always `situate`.
    pub pass_name: String,
    /// The moment's journal seq.
    pub anchor_seq: i64,
    /// `seq`, `time` or `participant`.
    pub anchor_kind: String,
    /// The anchor as asked: the seq, the timestamp or the participant.
    pub anchor: Value,
    /// `first` or `last` (participant anchors only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurrence: Option<String>,
    /// The record whose formation is the encounter (participant anchors only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encounter_record_id: Option<String>,
    /// The nearest reconstruction.
    pub moment: Moment,
    /// Warm records at the anchor, strongest first.
    pub activity: Vec<ActivityItem>,
    /// Records formed around the anchor (diary entries go to `elected`).
    pub period: Vec<HistoricalHandle>,
    /// Always `formation_seq`: the axis the period is read on.
    pub period_axis: String,
    /// Diary entries in the window.
    pub elected: Vec<HistoricalHandle>,
    /// The prompt-active identity core as of the anchor.
    pub then_identity: Vec<HistoricalHandle>,
    /// Identity records added or closed since.
    pub identity_evolution: Vec<EvolutionEntry>,
    /// Questions, plans and diary tensions open at the anchor.
    pub tensions_then: Vec<HistoricalHandle>,
    /// The bounds spent.
    pub budget: BudgetReport,
    /// The contract line: nothing was deposited.
    pub deposits: String,
}

fn bound(v: i64) -> usize {
    usize::try_from(v).unwrap_or(0)
}

/// The asked pairs, scope trimmed and lowercased, owner trimmed, blank scopes
/// and repeats dropped, order kept.
fn pairs_of(scopes: &[(String, String)]) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (s, o) in scopes {
        let p = (s.trim().to_lowercase(), o.trim().to_owned());
        if !p.0.is_empty() && !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(Error::invalid(
            "situate requires at least one (scope, owner_id) pair with a non-blank scope",
        ));
    }
    Ok(out)
}

fn closed_at(journal: &dyn MemoryJournal, seq: i64) -> Result<HashSet<String>> {
    Ok(journal
        .closures(&ClosureFilter {
            assertion_id: None,
            until_seq: Some(seq),
            limit: 0,
        })?
        .into_iter()
        .map(|c| c.assertion_id)
        .collect())
}

fn handle(a: &TripleAssertion, kind: String) -> HistoricalHandle {
    let digest = handle_digest(a);
    HistoricalHandle {
        record_id: a.assertion_id.clone().unwrap_or_default(),
        graph_id: a.subject.clone(),
        kind,
        title: DigestRow::of(a).served_title(),
        token_estimate: token_estimate(&digest),
        digest,
        observed_at: a.observed_at.clone(),
        admission: HISTORICAL.to_owned(),
    }
}

struct Anchor {
    seq: i64,
    kind: &'static str,
    anchor: Value,
    occurrence: Option<String>,
    encounter: Option<String>,
}

impl MemorySystem {
    /// Rebuild the context of one past moment (api.md `situate`). A pure
    /// read: nothing is written and every record-shaped item is labelled
    /// `historical`.
    ///
    /// # Errors
    /// `InvalidInput` for no pair, not exactly one of `at`/`seq`/`participant`,
    /// a seq outside the journal, a time before the life began, a participant
    /// no record is stamped with, or a negative budget; the store's or
    /// journal's failure.
    pub fn situate(&self, args: &Situate) -> Result<Situation> {
        args.budget.check()?;
        let pairs = pairs_of(&args.scopes)?;
        let store = &*self.store;
        let journal = &*self.journal;
        let config = self.reconstruct_config();
        let budget = &args.budget;

        // One bindings walk and one row scan feed the whole read.
        let mut formed_at: HashMap<String, i64> = HashMap::new();
        for (scope, owner) in &pairs {
            for b in journal.bindings(&BindingFilter {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                fold: false,
                ..BindingFilter::default()
            })? {
                if b.source == BindingSource::Remember {
                    let e = formed_at.entry(b.record_id).or_insert(b.seq);
                    *e = (*e).min(b.seq);
                }
            }
        }
        let mut rows: BTreeMap<String, TripleAssertion> = BTreeMap::new();
        let mut resolution_edges: Vec<(String, String)> = Vec::new();
        for (scope, owner) in &pairs {
            for a in store.query(&TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                limit: 0,
                ..TripleQuery::default()
            })? {
                let row = DigestRow::of(&a);
                if row.is_edge() {
                    if RESOLUTIONS.contains(&a.predicate.as_str()) {
                        resolution_edges.push((a.subject.clone(), a.object.clone()));
                    }
                    continue;
                }
                if row.flag("bookkeeping") || !row.flag("record_kind") {
                    continue;
                }
                rows.insert(a.subject.clone(), a);
            }
        }

        let anchor = resolve_anchor(journal, args, &formed_at, &rows)?;
        let at = anchor.seq;
        let closed_then = closed_at(journal, at)?;
        let existed_then = |gid: &str| formed_at.get(gid).is_some_and(|b| *b <= at);
        let kind_of = |a: &TripleAssertion| config.kind_of(a);

        // The moment: the nearest trace at or before the anchor whose
        // searched scopes overlap the asked pairs (a trace with none is
        // accepted), and its snapshot as of the anchor.
        let mut moment = Moment::default();
        let walk = bound(budget.moment_trace_walk);
        let asked: HashSet<(String, String)> = pairs.iter().cloned().collect();
        if walk > 0 {
            for t in journal.traces(&TraceFilter {
                trace_id: None,
                until_seq: Some(at),
                limit: walk,
            })? {
                let searched: HashSet<(String, String)> = t
                    .searched_scopes
                    .iter()
                    .map(|s| {
                        let field = |k: &str| {
                            s.get(k)
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .trim()
                                .to_owned()
                        };
                        (field("scope").to_lowercase(), field("owner_id"))
                    })
                    .collect();
                if !searched.is_empty() && searched.is_disjoint(&asked) {
                    continue;
                }
                let snapshot = journal
                    .snapshots(&TraceFilter {
                        trace_id: Some(t.trace_id.clone()),
                        until_seq: Some(at),
                        limit: 1,
                    })?
                    .into_iter()
                    .next()
                    .map(|s| s.display);
                moment = Moment {
                    cue: t
                        .need
                        .get("cue_text")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    trace_id: Some(t.trace_id),
                    held_record_ids: t.selected,
                    observed_at: Some(t.observed_at),
                    snapshot_display: snapshot,
                };
                break;
            }
        }

        // Activity: recall's own anchored fold (per pair, merged by max).
        let mut sorted_pairs = pairs.clone();
        sorted_pairs.sort();
        let (base, _trails) =
            activation_inputs(journal, &sorted_pairs, at, self.attention_config())?;
        let mut warm: Vec<(String, f64)> = base
            .into_iter()
            .filter(|(_, s)| s.base_level > 0.0)
            .map(|(rid, s)| (rid, s.base_level))
            .collect();
        warm.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        warm.truncate(bound(budget.activity_top_k));
        let activity = warm
            .into_iter()
            .map(|(record_id, v)| ActivityItem {
                record_id,
                activation: (v * 1e6).round() / 1e6,
                admission: HISTORICAL.to_owned(),
            })
            .collect();

        // The period: half the window formed at or before the anchor (newest
        // first), the rest after it (oldest first); an anchor near the newest
        // edge fills the window from the past.
        let mut before: Vec<(i64, &str)> = Vec::new();
        let mut after: Vec<(i64, &str)> = Vec::new();
        for (gid, born) in &formed_at {
            if rows.contains_key(gid) {
                if *born <= at {
                    before.push((*born, gid));
                } else {
                    after.push((*born, gid));
                }
            }
        }
        before.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        after.sort();
        let window = bound(budget.window_records);
        let half = window / 2;
        let mut period_ids: Vec<&str> = before.iter().take(half).map(|(_, g)| *g).collect();
        let remaining = window.saturating_sub(period_ids.len());
        period_ids.extend(after.iter().take(remaining).map(|(_, g)| *g));
        if period_ids.len() < window {
            let extra = window - period_ids.len();
            period_ids.extend(before.iter().skip(half).take(extra).map(|(_, g)| *g));
        }
        let token_budget = bound(budget.token_budget);
        let mut tokens = 0;
        let mut token_exhausted = false;
        let mut period: Vec<HistoricalHandle> = Vec::new();
        let mut elected: Vec<HistoricalHandle> = Vec::new();
        for gid in period_ids {
            let a = &rows[gid];
            let h = handle(a, kind_of(a));
            if DigestRow::of(a).as_stored("record_kind") == Some("diary") {
                if elected.len() < bound(budget.diary_entries) {
                    elected.push(h);
                }
                continue;
            }
            if tokens + h.token_estimate > token_budget && (!period.is_empty() || token_budget == 0)
            {
                token_exhausted = true;
                break;
            }
            tokens += h.token_estimate;
            period.push(h);
        }

        // Who I was then, and what changed in me since.
        let mut then_identity: Vec<HistoricalHandle> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for (scope, owner) in &pairs {
            let core = self_records(
                store,
                journal,
                &SelfRecords {
                    as_of: Some(at),
                    ..SelfRecords::new(scope, owner)
                },
            )?;
            for a in core {
                let rid = a
                    .assertion_id
                    .clone()
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| a.subject.clone());
                if seen.insert(rid) {
                    then_identity.push(handle(&a, kind_of(&a)));
                }
            }
        }
        let closed_now = closed_at(journal, journal.current_seq()?)?;
        let is_closed = |set: &HashSet<String>, a: &TripleAssertion| {
            a.assertion_id.as_ref().is_some_and(|r| set.contains(r)) || set.contains(&a.subject)
        };
        let mut identity_evolution: Vec<EvolutionEntry> = Vec::new();
        for (gid, a) in &rows {
            if identity_evolution.len() >= bound(budget.identity_delta) {
                break;
            }
            let Some(kind) = DigestRow::of(a).as_stored("record_kind") else {
                continue;
            };
            if !IDENTITY_KINDS.contains(&kind) {
                continue;
            }
            let added_since = formed_at.get(gid).is_some_and(|b| *b > at);
            let closed_now_flag = is_closed(&closed_now, a);
            let closed_since = existed_then(gid) && !is_closed(&closed_then, a) && closed_now_flag;
            if !(added_since || closed_since) {
                continue;
            }
            let change = if added_since && closed_now_flag {
                "added_and_closed_since"
            } else if added_since {
                "added_since"
            } else {
                "closed_since"
            };
            identity_evolution.push(EvolutionEntry {
                handle: handle(a, kind_of(a)),
                change: change.to_owned(),
            });
        }

        // Tensions open at the anchor: not closed then, and settled by no
        // reference (attribute or authored edge) formed by then.
        let mut resolved: BTreeSet<String> = BTreeSet::new();
        for (gid, a) in &rows {
            if !existed_then(gid) {
                continue;
            }
            for attr in RESOLUTIONS {
                if let Some(r) = DigestRow::of(a).text(attr) {
                    resolved.insert(r.to_owned());
                }
            }
        }
        for (source, target) in &resolution_edges {
            if existed_then(source) && !target.is_empty() {
                resolved.insert(target.clone());
            }
        }
        let mut tensions_then: Vec<HistoricalHandle> = Vec::new();
        for (gid, a) in &rows {
            if tensions_then.len() >= bound(budget.tensions) {
                break;
            }
            let row = DigestRow::of(a);
            let kind = row.as_stored("record_kind").unwrap_or("");
            let is_tension = TENSION_KINDS.contains(&kind)
                || (kind == "diary"
                    && row
                        .as_stored("diary_type")
                        .is_some_and(|t| TENSION_DIARY_TYPES.contains(&t)));
            if !is_tension || !existed_then(gid) || is_closed(&closed_then, a) {
                continue;
            }
            let settled = resolved.contains(&a.subject)
                || a.assertion_id
                    .as_ref()
                    .is_some_and(|r| resolved.contains(r))
                || row.text("entry_id").is_some_and(|e| resolved.contains(e));
            if !settled {
                tensions_then.push(handle(a, kind_of(a)));
            }
        }

        Ok(Situation {
            pass_name: "situate".to_owned(),
            anchor_seq: at,
            anchor_kind: anchor.kind.to_owned(),
            anchor: anchor.anchor,
            occurrence: anchor.occurrence,
            encounter_record_id: anchor.encounter,
            moment,
            activity,
            period,
            period_axis: "formation_seq".to_owned(),
            elected,
            then_identity,
            identity_evolution,
            tensions_then,
            budget: BudgetReport {
                window_records: budget.window_records,
                activity_top_k: budget.activity_top_k,
                token_budget: budget.token_budget,
                tokens_used: tokens,
                token_exhausted,
            },
            deposits: "none: situate is a pure read; re-living is a deliberate act".to_owned(),
        })
    }
}

/// The one anchor `args` names: exactly one of seq, at and participant.
fn resolve_anchor(
    journal: &dyn MemoryJournal,
    args: &Situate,
    formed_at: &HashMap<String, i64>,
    rows: &BTreeMap<String, TripleAssertion>,
) -> Result<Anchor> {
    let supplied: Vec<&str> = [
        ("seq", args.seq.is_some()),
        ("at", args.at.is_some()),
        ("participant", args.participant.is_some()),
    ]
    .into_iter()
    .filter(|(_, on)| *on)
    .map(|(n, _)| n)
    .collect();
    if supplied.len() != 1 {
        return Err(Error::invalid(format!(
            "situate needs exactly one anchor of seq/at/participant, got {}",
            if supplied.is_empty() {
                "none".to_owned()
            } else {
                supplied.join(", ")
            }
        )));
    }
    if let Some(seq) = args.seq {
        let current = journal.current_seq()?;
        if !(0..=current).contains(&seq) {
            return Err(Error::invalid(format!(
                "situate: seq={seq} is outside this journal's axis (current_seq={current})"
            )));
        }
        return Ok(Anchor {
            seq,
            kind: "seq",
            anchor: Value::from(seq),
            occurrence: None,
            encounter: None,
        });
    }
    if let Some(at) = &args.at {
        let seq = journal.seq_at(at)?;
        if seq <= 0 {
            return Err(Error::invalid(format!(
                "situate: the journal holds nothing at or before {at:?}: the life had not begun"
            )));
        }
        return Ok(Anchor {
            seq,
            kind: "time",
            anchor: Value::from(at.clone()),
            occurrence: None,
            encounter: None,
        });
    }
    let who = args.participant.as_deref().unwrap_or("").trim();
    let mut stamped: Vec<(i64, &str)> = rows
        .iter()
        .filter(|(gid, a)| {
            formed_at.contains_key(*gid)
                && DigestRow::of(a)
                    .get("participants")
                    .and_then(Value::as_array)
                    .is_some_and(|ps| ps.iter().any(|p| p.as_str() == Some(who)))
        })
        .map(|(gid, _)| (formed_at[gid], gid.as_str()))
        .collect();
    if stamped.is_empty() {
        return Err(Error::invalid(format!(
            "situate: no record in the asked scopes is stamped with participant {who:?} \
             (participants are namespaced, e.g. 'person:ada')"
        )));
    }
    stamped.sort();
    let (seq, gid) = match args.occurrence {
        Occurrence::First => stamped[0],
        Occurrence::Last => stamped[stamped.len() - 1],
    };
    Ok(Anchor {
        seq,
        kind: "participant",
        anchor: Value::from(who.to_owned()),
        occurrence: Some(args.occurrence.as_str().to_owned()),
        encounter: Some(gid.to_owned()),
    })
}
