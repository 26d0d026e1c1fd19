//! The `ReconstructionTrace` one journaled recall appends: the need (the
//! stimulus as read, an embedding reduced to its size, plus the view), the
//! searched pairs, the channels that ran, at most 100 candidates (strongest
//! fused first), selected and dropped ids, cues, budgets and the per-id
//! admission labels `commit_selection` reads.
//!
//! Spec: api.md "The journal" (`ReconstructionTrace`); algorithms.md §9;
//! 0.3.2's `reconstruct.run_reconstruction` (trace assembly).

use super::hash::HashMap;
use super::shelf::{Candidate, Drop};
use crate::config::{ENTITY_RECALL_CANDIDATE_CAP, RecallBudget};
use crate::seam::{Admission, ReconstructionResult, Stimulus, View};
use am_journal::ReconstructionTrace;
use am_triples::JsonMap;
use serde_json::Value;
use std::cmp::Ordering;

/// Everything the trace is built from.
pub(super) struct TraceParts<'a> {
    pub result: &'a ReconstructionResult,
    pub stimulus: &'a Stimulus,
    pub pairs: &'a [(String, String)],
    pub fingerprint: &'a str,
    pub channels: &'a [&'static str],
    pub universe: &'a HashMap<String, Candidate>,
    pub dropped: &'a [Drop],
    pub admissions: &'a HashMap<String, Admission>,
    pub budget: &'a RecallBudget,
}

/// One entry of a trace's `searched_scopes`: `{"scope": .., "owner_id": ..}`.
pub(crate) fn searched_scope((scope, owner): &(String, String)) -> JsonMap {
    let mut m = JsonMap::new();
    m.insert("scope".into(), Value::String(scope.clone()));
    m.insert("owner_id".into(), Value::String(owner.clone()));
    m
}

/// Assemble the trace (no `observed_at`, no escalation reason: the facade stamps those).
pub(super) fn build_trace(p: TraceParts<'_>) -> ReconstructionTrace {
    // Strongest fused first, then newest, then id; each key computed once.
    let mut ids: Vec<(f64, &str, &String)> = p
        .universe
        .iter()
        .map(|(rid, c)| (c.fused(), c.assertion.observed_at.as_str(), rid))
        .collect();
    ids.sort_by(|(fa, oa, a), (fb, ob, b)| {
        fb.partial_cmp(fa)
            .unwrap_or(Ordering::Equal)
            .then(ob.cmp(oa))
            .then(a.cmp(b))
    });
    let candidates: Vec<JsonMap> = ids
        .into_iter()
        .take(ENTITY_RECALL_CANDIDATE_CAP as usize)
        .map(|(_, _, rid)| {
            let mut row = JsonMap::new();
            row.insert("record_id".into(), Value::String(rid.clone()));
            let scores: JsonMap = p.universe[rid]
                .relevance
                .iter()
                .map(|(k, v)| (k.to_owned(), Value::from(*v)))
                .collect();
            row.insert("scores".into(), Value::Object(scores));
            row
        })
        .collect();
    let mut need = match p.stimulus.to_dict() {
        Value::Object(m) => m,
        _ => JsonMap::new(),
    };
    if let Some(e) = &p.stimulus.embedding {
        need.insert(
            "embedding".into(),
            Value::String(format!("<{} floats omitted>", e.len())),
        );
    }
    let view = match p.result.view {
        View::Shelf => "shelf",
        View::WorkingSet => "working_set",
    };
    need.insert("view".into(), Value::String(view.into()));
    let mut cues: Vec<String> = Vec::new();
    for h in &p.result.handles {
        for c in &h.cues {
            if !cues.contains(c) {
                cues.push(c.clone());
            }
        }
    }
    // Admissions in fill order (stm seats, self seats, stimulus seats), as the
    // label pass assigns them; the handle order covers exactly those ids.
    let admissions: JsonMap = p
        .result
        .handles
        .iter()
        .map(|h| {
            (
                h.record_id.clone(),
                Value::String(p.admissions[&h.record_id].as_str().to_owned()),
            )
        })
        .collect();
    ReconstructionTrace {
        trace_id: p.result.trace_id.clone(),
        trace_kind: "reconstruct".into(),
        query_fingerprint: p.fingerprint.to_owned(),
        need,
        searched_scopes: p.pairs.iter().map(searched_scope).collect(),
        escalation_reason: None,
        channels: p.channels.iter().map(|c| (*c).to_owned()).collect(),
        candidates,
        selected: p
            .result
            .handles
            .iter()
            .map(|h| h.record_id.clone())
            .collect(),
        dropped: p.dropped.iter().map(Drop::to_json).collect(),
        cues,
        budgets: p.budget.to_dict().as_object().cloned().unwrap_or_default(),
        budget_spent: p.result.budget_spent.to_map(),
        selector_route: "heuristic".into(),
        stop_reason: p.result.stop_reason.as_str().to_owned(),
        warnings: p.result.warnings.clone(),
        admissions,
        observed_at: String::new(),
        seq: -1,
    }
}
