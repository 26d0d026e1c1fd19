//! `probe`: one deliberate reach with a stated reason, ranked by relevance
//! alone, and `familiarity`: the same pass counted, never shown.
//!
//! Spec: api.md "Deliberate reach: probe, expansion, familiarity". 0.3.2's
//! `probe.py` settles what the text leaves open: the two-tier order (direct
//! matches before concept-only ones, machine rows after lived ones), the
//! token rule (the first hit always fits), the trace's fields and
//! familiarity's confidence bars. Where 0.5.2 differs: a hit whose title is
//! pending serves `None` (0.3.2 serves `""`).

use super::args::{Familiarity, Probe, ProbeBudget};
use super::pass::{ChannelPass, PassInputs, channel_pass};
use crate::concepts::ConceptMemo;
use crate::config::ReconstructConfig;
use crate::error::{Error, Result};
use crate::ids;
use crate::recall::reconstruct::channels::concept_detail;
use crate::recall::reconstruct::normalize_scopes;
use crate::recall::reconstruct::trace::searched_scope;
use crate::record::DigestRow;
use crate::seam::{OrderedMap, Stimulus};
use crate::system::MemorySystem;
use crate::valence::{StimulusFeelings, stimulus_feelings};
use am_journal::{EventKind, MemoryEvent, ReconstructionTrace};
use am_triples::text::handle_digest;
use am_triples::{JsonMap, TripleAssertion, token_estimate};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// One ranked hit (api.md `ProbeHit`): both id namespaces, the digest, why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProbeHit {
    /// The digest row's assertion id (the trace and commit currency).
    pub record_id: String,
    /// The record's graph id (the edge and expansion currency).
    pub graph_id: String,
    /// The stored title; `None` while it is pending (or missing).
    pub title: Option<String>,
    /// The digest.
    pub digest: String,
    /// The row's scope.
    pub scope: String,
    /// The row's owner (`""` when none).
    pub owner_id: String,
    /// The record kind.
    pub kind: String,
    /// Channel → score (probe), or `connections` → count (expansion).
    pub relevance: OrderedMap<f64>,
    /// Why it was reached.
    pub cues: Vec<String>,
    /// The digest's token estimate.
    pub token_estimate: usize,
    /// When the record was formed (`""` when the row has no time).
    pub observed_at: String,
}

/// One reach's answer (api.md `ProbeResult`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProbeResult {
    /// The trace's id (journaled or not).
    pub trace_id: String,
    /// The journal anchor the reach read at.
    pub as_of_seq: i64,
    /// The hits, best first.
    pub hits: Vec<ProbeHit>,
    /// What ranked but did not fit, with why.
    pub dropped: Vec<JsonMap>,
    /// The channels that ran.
    pub channels: Vec<String>,
    /// Honesty labels.
    pub warnings: Vec<String>,
    /// What the reach spent.
    pub budget_spent: JsonMap,
}

/// A familiarity strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Strength {
    /// Nothing counted.
    None,
    /// Up to the strong threshold.
    Weak,
    /// Above it.
    Strong,
}

/// One feeling of familiarity's summary.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FamiliarFeeling {
    /// The target.
    pub target: String,
    /// Its presented standing.
    pub net: f64,
    /// Its standing markers.
    pub standing: crate::valence::feelings::Standing,
}

/// Familiarity's answer: match density, never content (no id, digest or
/// title anywhere).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FamiliarityReport {
    /// `none`, `weak` or `strong`.
    pub strength: Strength,
    /// Distinct records counted.
    pub distinct_records: usize,
    /// Counted records per channel that ran (0: ran, matched nothing).
    pub per_channel: OrderedMap<usize>,
    /// Counted records per searched scope, zeros included.
    pub by_scope: OrderedMap<usize>,
    /// Feelings toward what the stimulus names (presentation only).
    pub feelings: Vec<FamiliarFeeling>,
    /// Honesty labels.
    pub warnings: Vec<String>,
}

const NONE_WARNING: &str =
    "nothing within reach (newest-window scan; exact/vector reach whole store)";
const VECTORLESS_WARNING: &str = "#FALLBACK: keyword-only familiarity";

/// The reason, trimmed; a blank one is refused.
pub(crate) fn require_reason(verb: &str, reason: &str) -> Result<String> {
    let r = reason.trim();
    if r.is_empty() {
        return Err(Error::invalid(format!(
            "{verb} requires a non-empty reason, got a blank one: a deliberate reach is an audited act, \
             so say what you are looking for and why passive recall was not enough"
        )));
    }
    Ok(r.to_owned())
}

/// The supplied trace id trimmed, or a fresh one (a blank one is fresh, as in 0.3.2).
pub(crate) fn trace_identity(trace_id: Option<&str>) -> (String, bool) {
    match trace_id.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => (t.to_owned(), true),
        None => (uuid::Uuid::new_v4().simple().to_string(), false),
    }
}

fn ordered_map<V: Clone>(items: &[(&str, V)]) -> OrderedMap<V> {
    OrderedMap(
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

fn obj(v: Value) -> JsonMap {
    match v {
        Value::Object(m) => m,
        _ => JsonMap::new(),
    }
}

impl MemorySystem {
    fn reach_anchor(&self, verb: &str, stimulus: &Stimulus) -> Result<i64> {
        let current = self.journal.current_seq()?;
        let as_of = stimulus.as_of.unwrap_or(current);
        if !(0..=current).contains(&as_of) {
            return Err(Error::invalid(format!(
                "Stimulus.as_of={as_of} is not a valid anchor for this journal (current_seq={current}); \
                 {verb} takes the same anchors as reconstruct"
            )));
        }
        Ok(as_of)
    }

    /// After this system appended a reach's trace and its inert audit
    /// events right after `as_of` (the journal's head the reach read at):
    /// the recall index's caches move past them, and reads at those seqs
    /// read at `as_of`'s state (the concept holders kept for `as_of` serve
    /// the next reach). Only when the appended seqs are exactly the next
    /// ones after `as_of` (nobody else wrote between; an idempotent replay
    /// that returns older seqs changes nothing).
    pub(crate) fn past_own_audit(
        &self,
        as_of: i64,
        appended: &(ReconstructionTrace, Vec<MemoryEvent>),
    ) {
        let mut seqs: Vec<i64> = std::iter::once(appended.0.seq)
            .chain(appended.1.iter().map(|e| e.seq))
            .collect();
        self.faculty_state
            .cache::<crate::recall::reconstruct::index::RecallIndex>()
            .lock()
            .advance_past_own_audit(as_of, &mut seqs);
    }

    fn reach_pairs(verb: &str, scopes: &[(String, String)]) -> Result<Vec<(String, String)>> {
        let borrowed: Vec<(&str, &str)> = scopes
            .iter()
            .map(|(s, o)| (s.as_str(), o.as_str()))
            .collect();
        let pairs = normalize_scopes(&borrowed);
        if pairs.is_empty() {
            return Err(Error::invalid(format!(
                "{verb} requires at least one (scope, owner_id) pair with a non-empty scope, got none"
            )));
        }
        Ok(pairs)
    }

    /// One deliberate reach (api.md `probe`): the channels only (exact,
    /// vector, keyword with discovery, participants, then concept anchoring
    /// from every direct match), exempt from the shelf race (no self seats,
    /// no STM, no activation), ranked by relevance alone: direct matches
    /// before concept-only admissions, machine rows (maintenance candidates,
    /// bookkeeping) after lived ones, then fused relevance (the sum of the
    /// channel scores), kind rank, newest, id. `max_hits` and `token_budget`
    /// bound the hits (the first always fits). Pure over the store; with
    /// `write_journal` one trace (`trace_kind="probe"`, the reason as its
    /// escalation reason) and one inert `listed` event per hit are appended
    /// in one write; without it nothing is written. Broad scopes need no
    /// other reason.
    ///
    /// # Errors
    /// `InvalidInput` (nothing written) for a blank reason, an empty scope
    /// ladder, an `as_of` outside `0..=current_seq` or an invalid concept
    /// tuning; the store's or journal's failure.
    pub fn probe(&self, args: &Probe) -> Result<ProbeResult> {
        let reason = require_reason("probe", &args.reason)?;
        let budget: ProbeBudget = args.effort.budget();
        budget.concept_tuning.validate()?;
        let pairs = Self::reach_pairs("probe", &args.scopes)?;
        let stimulus = args.stimulus.normalized();
        let as_of = self.reach_anchor("probe", &stimulus)?;
        let (tid, supplied) = trace_identity(args.trace_id.as_deref());
        let config = self.reconstruct.clone();
        let pass = self.with_recall_view(&pairs, as_of, |view| {
            let mut pass = channel_pass(
                view,
                &PassInputs {
                    store: self.store.as_ref(),
                    embedder: self.embedder.as_deref(),
                    config: &config,
                    stimulus: &stimulus,
                    pairs: &pairs,
                    max_candidates: budget.max_candidates,
                    keyword_discovery: budget.keyword_discovery,
                },
            )?;
            if budget.concept_expansion && !pass.universe.is_empty() {
                let seeds: BTreeMap<String, &TripleAssertion> = pass
                    .universe
                    .iter()
                    .map(|(rid, c)| (rid.clone(), &c.assertion))
                    .collect();
                let excluded = |a: &TripleAssertion| -> Result<bool> {
                    view.folds.prime(std::iter::once(a))?;
                    view.folds.excluded(a)
                };
                let memo = self.faculty_state.cache::<ConceptMemo>();
                let (admissions, notes) = crate::concepts::expand_memo(
                    &|q| view.store.lend(q),
                    &seeds,
                    &pairs,
                    &excluded,
                    &budget.concept_tuning,
                    Some(&mut memo.lock()),
                    view.stamp,
                )?;
                if !admissions.is_empty() {
                    pass.channels_run.push("concept");
                }
                pass.warnings.extend(notes);
                for adm in admissions {
                    pass.admit(
                        view,
                        &adm.assertion,
                        "concept",
                        adm.score,
                        &concept_detail(&adm.concepts),
                    )?;
                }
            }
            Ok(pass)
        })?;
        let ranked = rank(&pass, &config);
        let mut hits: Vec<ProbeHit> = Vec::new();
        let mut dropped: Vec<JsonMap> = Vec::new();
        let mut tokens_used = 0usize;
        for rid in &ranked {
            let c = &pass.universe[*rid];
            let score = c.fused();
            if hits.len() >= budget.max_hits {
                dropped.push(obj(
                    json!({"record_id": rid, "score": score, "reason": "over_max_hits"}),
                ));
                continue;
            }
            let digest = handle_digest(&c.assertion);
            let cost = token_estimate(&digest);
            if tokens_used + cost > budget.token_budget && !hits.is_empty() {
                dropped.push(obj(
                    json!({"record_id": rid, "score": score, "reason": "token_budget"}),
                ));
                continue;
            }
            tokens_used += cost;
            hits.push(hit(
                (*rid).to_owned(),
                &c.assertion,
                digest,
                cost,
                &config,
                ordered_map(&c.relevance),
                c.cues.clone(),
            ));
        }
        let mut budget_spent = JsonMap::new();
        budget_spent.insert("candidates_considered".into(), json!(pass.universe.len()));
        budget_spent.insert("hits".into(), json!(hits.len()));
        budget_spent.insert("tokens_used".into(), json!(tokens_used));
        budget_spent.insert("token_budget".into(), json!(budget.token_budget));
        budget_spent.insert("effort".into(), json!(args.effort.label()));
        let warnings = dedup(pass.warnings.clone());
        let channels: Vec<String> = pass.channels_run.iter().map(|c| (*c).to_owned()).collect();
        if args.write_journal {
            let mut need = obj(stimulus.to_dict());
            need.insert("probe_reason".into(), json!(reason));
            let now = self.now()?;
            let trace = ReconstructionTrace {
                trace_id: tid.clone(),
                trace_kind: "probe".into(),
                query_fingerprint: "probe".into(),
                need,
                searched_scopes: pairs.iter().map(searched_scope).collect(),
                escalation_reason: Some(reason.clone()),
                channels: channels.clone(),
                candidates: ranked
                    .iter()
                    .take(64)
                    .map(|rid| {
                        let scores: JsonMap = pass.universe[*rid]
                            .relevance
                            .iter()
                            .map(|(k, v)| ((*k).to_owned(), json!(v)))
                            .collect();
                        obj(json!({"record_id": rid, "scores": scores}))
                    })
                    .collect(),
                selected: hits.iter().map(|h| h.record_id.clone()).collect(),
                dropped: dropped.clone(),
                cues: hits.iter().flat_map(|h| h.cues.iter().cloned()).collect(),
                budgets: obj(serde_json::to_value(budget).unwrap_or(Value::Null)),
                budget_spent: budget_spent.clone(),
                stop_reason: if hits.is_empty() {
                    "no_candidates"
                } else {
                    "enough"
                }
                .into(),
                warnings: warnings.clone(),
                admissions: hits
                    .iter()
                    .map(|h| (h.record_id.clone(), json!("stimulus")))
                    .collect(),
                observed_at: now.clone(),
                ..ReconstructionTrace::default()
            };
            let mut prov = JsonMap::new();
            prov.insert("probe".into(), json!(true));
            if let Some(t) = &stimulus.turn_id {
                prov.insert("turn_id".into(), json!(t));
            }
            let listed = audit_events(&hits, &tid, supplied, EventKind::Listed, &prov, &now);
            let appended = self.journal.append_recall(&trace, &listed)?;
            self.past_own_audit(as_of, &appended);
        }
        Ok(ProbeResult {
            trace_id: tid,
            as_of_seq: as_of,
            hits,
            dropped,
            channels,
            warnings,
            budget_spent,
        })
    }

    /// Pre-answer metamemory (api.md `familiarity`): the pass `probe` ranks
    /// (without keyword discovery or concept anchoring; `effort` sizes the
    /// window only), counted with absolute confidence bars: exact and
    /// participants matches always count, a vector match at raw cosine ≥
    /// `vector_min`, a keyword match with ≥ `min_keyword_tokens` matched
    /// tokens (one suffices when the vector channel did not run or agrees).
    /// Strength `none` at 0 counted records, `weak` up to `strong_threshold`,
    /// `strong` above. No record id, digest or title is returned; nothing is
    /// written.
    ///
    /// # Errors
    /// `InvalidInput` for `strong_threshold < 1`, an empty scope ladder or
    /// an `as_of` outside `0..=current_seq`; the store's or journal's failure.
    pub fn familiarity(&self, args: &Familiarity) -> Result<FamiliarityReport> {
        if args.strong_threshold < 1 {
            return Err(Error::invalid(format!(
                "strong_threshold must be >= 1 (got {}): the ladder is none = 0, weak = 1..=K, strong > K",
                args.strong_threshold
            )));
        }
        let budget = args.effort.budget();
        let pairs = Self::reach_pairs("familiarity", &args.scopes)?;
        let stimulus = args.stimulus.normalized();
        let as_of = self.reach_anchor("familiarity", &stimulus)?;
        let config = self.reconstruct.clone();
        let pass = self.with_recall_view(&pairs, as_of, |view| {
            channel_pass(
                view,
                &PassInputs {
                    store: self.store.as_ref(),
                    embedder: self.embedder.as_deref(),
                    config: &config,
                    stimulus: &stimulus,
                    pairs: &pairs,
                    max_candidates: budget.max_candidates,
                    keyword_discovery: false,
                },
            )
        })?;
        let mut warnings = pass.warnings.clone();
        let (distinct, per_channel, by_scope) = count(&pass, &pairs, args, &mut warnings);
        let strength = if distinct > args.strong_threshold {
            Strength::Strong
        } else if distinct > 0 {
            Strength::Weak
        } else {
            Strength::None
        };
        let semantic = !stimulus.cue_text.is_empty() || stimulus.embedding.is_some();
        if semantic && !pass.channels_run.contains(&"vector") {
            warnings.push(VECTORLESS_WARNING.into());
        }
        if strength == Strength::None {
            warnings.push(NONE_WARNING.into());
        }
        let feel = stimulus_feelings(
            self.store.as_ref(),
            Some(self.journal.as_ref()),
            &StimulusFeelings {
                stimulus: stimulus.clone(),
                scope_pairs: pairs.clone(),
                gradation_config: crate::valence::GradationConfig::default(),
                as_of_seq: Some(as_of),
                min_net: 0.0,
                max_feelings: args.max_feelings,
            },
        )?;
        warnings.extend(feel.warnings.iter().cloned());
        let feelings = feel
            .value
            .iter()
            .map(|f| FamiliarFeeling {
                target: f.target.clone(),
                net: f.net,
                standing: f.standing,
            })
            .collect();
        Ok(FamiliarityReport {
            strength,
            distinct_records: distinct,
            per_channel,
            by_scope,
            feelings,
            warnings: dedup(warnings),
        })
    }
}

/// The probe order: lived before machine rows, direct before concept-only,
/// fused relevance descending, kind rank, newest first, id.
fn rank<'p>(pass: &'p ChannelPass, config: &ReconstructConfig) -> Vec<&'p str> {
    struct Key<'p> {
        rid: &'p str,
        machine: bool,
        associative: bool,
        fused: f64,
        rank: i64,
        observed: &'p str,
    }
    let mut keys: Vec<Key<'p>> = pass
        .universe
        .iter()
        .map(|(rid, c)| {
            let row = DigestRow::of(&c.assertion);
            Key {
                rid: rid.as_str(),
                machine: row.flag("maintenance_candidate") || row.flag("bookkeeping"),
                associative: c.relevance.iter().all(|(ch, _)| *ch == "concept"),
                fused: c.fused(),
                rank: config.rank_of(&config.kind_of(&c.assertion)),
                observed: c.assertion.observed_at.as_str(),
            }
        })
        .collect();
    keys.sort_by(|a, b| {
        a.machine
            .cmp(&b.machine)
            .then(a.associative.cmp(&b.associative))
            .then(b.fused.total_cmp(&a.fused))
            .then(a.rank.cmp(&b.rank))
            .then(b.observed.cmp(a.observed))
            .then(a.rid.cmp(b.rid))
    });
    keys.into_iter().map(|k| k.rid).collect()
}

/// One hit of a row.
pub(crate) fn hit(
    record_id: String,
    a: &TripleAssertion,
    digest: String,
    cost: usize,
    config: &ReconstructConfig,
    relevance: OrderedMap<f64>,
    cues: Vec<String>,
) -> ProbeHit {
    ProbeHit {
        record_id,
        graph_id: a.subject.clone(),
        title: DigestRow::of(a).served_title(),
        digest,
        scope: a.scope.clone(),
        owner_id: a.owner_id.clone().unwrap_or_default(),
        kind: config.kind_of(a),
        relevance,
        cues,
        token_estimate: cost,
        observed_at: a.observed_at.clone(),
    }
}

/// One inert audit event per hit (`listed` for a probe, `expanded` for an
/// expansion); a supplied trace id derives their ids (replay-safe).
pub(crate) fn audit_events(
    hits: &[ProbeHit],
    tid: &str,
    supplied: bool,
    kind: EventKind,
    provenance: &JsonMap,
    now: &str,
) -> Vec<MemoryEvent> {
    hits.iter()
        .map(|h| MemoryEvent {
            kind,
            scope: h.scope.clone(),
            owner_id: h.owner_id.clone(),
            record_id: Some(h.record_id.clone()),
            trace_id: Some(tid.to_owned()),
            actor: "system".into(),
            observed_at: now.to_owned(),
            provenance: provenance.clone(),
            event_id: if supplied {
                ids::selection_event_id(tid, kind, &h.record_id)
            } else {
                String::new()
            },
            ..MemoryEvent::default()
        })
        .collect()
}

/// Warnings once each, in first order.
pub(crate) fn dedup(warnings: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in warnings {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn parse_cosine(cues: &[String]) -> Option<f64> {
    cues.iter()
        .find_map(|d| d.strip_prefix("vector: cosine "))
        .and_then(|rest| {
            let num: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            num.parse().ok()
        })
}

fn parse_keyword_matches(cues: &[String]) -> Option<usize> {
    let d = cues.iter().find(|d| d.starts_with("keyword: matched "))?;
    let inner = d.strip_suffix(')')?;
    let open = inner.rfind(" (")?;
    let (matched, _) = inner[open + 2..].split_once('/')?;
    matched.parse().ok()
}

/// The density fold: per admitted record, which of its channel matches
/// count under the bars; a record counts when one does.
fn count(
    pass: &ChannelPass,
    pairs: &[(String, String)],
    args: &Familiarity,
    warnings: &mut Vec<String>,
) -> (usize, OrderedMap<usize>, OrderedMap<usize>) {
    let mut per_channel: Vec<(String, usize)> = pass
        .channels_run
        .iter()
        .map(|c| ((*c).to_owned(), 0))
        .collect();
    let mut by_scope: Vec<(String, usize)> = Vec::new();
    for (scope, _) in pairs {
        if !by_scope.iter().any(|(s, _)| s == scope) {
            by_scope.push((scope.clone(), 0));
        }
    }
    let vector_ran = pass.channels_run.contains(&"vector");
    let (mut distinct, mut weak, mut unparsed) = (0usize, 0usize, 0usize);
    for c in pass.universe.values() {
        let mut counting: Vec<&str> = Vec::new();
        let mut vector_counted = false;
        if c.has("vector") {
            match parse_cosine(&c.cues) {
                None => {
                    unparsed += 1;
                    vector_counted = true;
                }
                Some(cos) => vector_counted = cos >= args.vector_min,
            }
            if vector_counted {
                counting.push("vector");
            }
        }
        for (ch, _) in &c.relevance {
            match *ch {
                "vector" => {}
                "keyword" => match parse_keyword_matches(&c.cues) {
                    None => {
                        unparsed += 1;
                        counting.push(ch);
                    }
                    Some(n) if n >= args.min_keyword_tokens => counting.push(ch),
                    Some(n) if n >= 1 && (!vector_ran || vector_counted) => counting.push(ch),
                    Some(_) => {}
                },
                other => counting.push(other),
            }
        }
        if counting.is_empty() {
            weak += 1;
            continue;
        }
        distinct += 1;
        let scope = c.assertion.scope.as_str();
        match by_scope.iter_mut().find(|(s, _)| s == scope) {
            Some((_, n)) => *n += 1,
            None => by_scope.push((scope.to_owned(), 1)),
        }
        for ch in counting {
            match per_channel.iter_mut().find(|(s, _)| s == ch) {
                Some((_, n)) => *n += 1,
                None => per_channel.push((ch.to_owned(), 1)),
            }
        }
    }
    if weak > 0 {
        warnings.push(format!(
            "familiarity counts high-confidence matches only (vector cosine >= {}; >= {} matched keywords) — \
             {weak} weaker echo(es) not counted; recall may still surface them",
            args.vector_min, args.min_keyword_tokens
        ));
    }
    if unparsed > 0 {
        warnings.push(format!(
            "#FALLBACK: {unparsed} channel detail(s) unparseable — counted fail-open (a silent strict read \
             could fabricate 'none')"
        ));
    }
    (distinct, OrderedMap(per_channel), OrderedMap(by_scope))
}
