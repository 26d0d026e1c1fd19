//! `MemorySystem::reconstruct`: one stimulus-driven recall, one call, two
//! views. Candidates per scope pair, the exact / vector / keyword /
//! participants channels, fusion, spreading activation, the self / STM /
//! stimulus union fill under every `RecallBudget` bound, and (with
//! `journal = true`) one `ReconstructionTrace` plus inert `listed` events.
//!
//! Spec: api.md "Reconstruction", "Seam types"; architecture.md
//! "Reconstruction: the union working set", "Presence is not use";
//! memory-system.md "One graph, emergent working memory"; algorithms.md §3–7, §9.

pub(crate) mod channels;
pub(crate) mod folds;
pub(crate) mod hash;
pub(crate) mod hybrid;
pub(crate) mod index;
pub(crate) mod orientation;
mod pipeline;
pub(crate) mod read;
pub(crate) mod shelf;
pub(crate) mod spreading;
pub(crate) mod trace;
mod universe;
pub(crate) mod view;

use crate::error::{Error, Result};
use crate::ids;
use crate::recall::args::Reconstruct;
use crate::seam::ReconstructionResult;
use crate::system::MemorySystem;
use am_journal::{EventKind, MemoryEvent};
use am_triples::JsonMap;
use serde_json::Value;

/// Normalize a scope ladder: scopes trimmed and lowercased, owners trimmed,
/// blank scopes and duplicates dropped, order kept (narrow → broad).
pub(crate) fn normalize_scopes(scopes: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (s, o) in scopes {
        let pair = (s.trim().to_lowercase(), o.trim().to_owned());
        if !pair.0.is_empty() && !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

impl MemorySystem {
    /// One reconstruction (api.md "Reconstruction"): the union of the `self`
    /// (prompt-active bindings, `budget.self_fraction`), `stm` (trail-hot,
    /// `budget.stm_fraction`) and `stimulus`/`both` (channel matches)
    /// components, the single best channel match seated first against the
    /// full budget. Relevance admits; activation only reorders
    /// (`fused + min(4·base, 120)/1000`).
    ///
    /// `scopes` are `(scope, owner_id)` pairs, narrow → broad (an empty owner
    /// matches any owner). `view` is `shelf` or `working_set` (the latter adds
    /// spread-reached members and `edges`). Every journal read is anchored at
    /// `stimulus.as_of` (default: the current seq), returned as `as_of_seq`, so
    /// the same anchor reproduces the same result. With `journal = true` one
    /// `ReconstructionTrace` (with per-id admission labels, which
    /// `commit_selection` reads) and one inert `listed` event per handle are
    /// appended; with `false` nothing is written. A supplied `trace_id` makes
    /// the journaled read replay-safe (the trace and `listed` ids derive from it).
    ///
    /// # Errors
    /// `InvalidInput` (nothing written) for an empty scope ladder, a
    /// blank supplied `trace_id`, a broad scope without `escalation_reason`,
    /// an `as_of` outside `0..=current_seq`, or an invalid budget; the store's
    /// or journal's failure.
    pub fn reconstruct(&self, args: &Reconstruct) -> Result<ReconstructionResult> {
        let Reconstruct {
            stimulus,
            scopes,
            budget,
            view,
            escalation_reason,
            journal,
            trace_id,
            profile,
        } = args;
        let (view, journal) = (*view, *journal);
        let escalation_reason = escalation_reason.as_deref();
        let trace_id = trace_id.as_deref();
        let scopes: Vec<(&str, &str)> = scopes
            .iter()
            .map(|(s, o)| (s.as_str(), o.as_str()))
            .collect();
        if let Some(t) = trace_id
            && t.trim().is_empty()
        {
            return Err(Error::invalid(format!(
                "trace_id must be a non-empty string when supplied (got {t:?}); pass None for a fresh per-call trace identity"
            )));
        }
        budget.validate()?;
        let stimulus = stimulus.normalized();
        let tid = trace_id.map_or_else(
            || uuid::Uuid::new_v4().simple().to_string(),
            |t| t.trim().to_owned(),
        );
        let pairs = normalize_scopes(&scopes);
        if pairs.is_empty() {
            return Err(Error::invalid(
                "reconstruct requires at least one (scope, owner_id) pair with a non-empty scope, got none \
                 (an empty scope ladder can never match anything)",
            ));
        }
        let reason = escalation_reason
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_owned);
        let mut broad: Vec<&str> = pairs
            .iter()
            .map(|(s, _)| s.as_str())
            .filter(|s| self.broad_scopes.contains(*s))
            .collect();
        broad.sort_unstable();
        broad.dedup();
        if !broad.is_empty() && reason.is_none() {
            return Err(Error::invalid(format!(
                "reconstruct over broad scope(s) [{}] requires a non-empty escalation_reason explaining why \
                 narrower scopes are insufficient (broad recall is an explicit, audited decision), got none",
                broad
                    .iter()
                    .map(|b| format!("'{b}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let current = self.journal.current_seq()?;
        let as_of = stimulus.as_of.unwrap_or(current);
        if !(0..=current).contains(&as_of) {
            return Err(Error::invalid(format!(
                "Stimulus.as_of={as_of} is not a valid anchor for this journal (current_seq={current}); pass an \
                 as_of_seq previously returned by reconstruct() on this journal, or None for latest"
            )));
        }
        let anchored = stimulus.as_of.is_some() && as_of < current;
        let (result, trace) = self.run_pipeline(&pipeline::Call {
            stimulus: &stimulus,
            pairs: &pairs,
            budget,
            view,
            as_of,
            anchored,
            head: current,
            trace_id: &tid,
            want_trace: journal,
            profile: *profile,
        })?;
        if journal && let Some(mut trace) = trace {
            trace.escalation_reason = reason;
            trace.observed_at = self.now()?;
            let now = trace.observed_at.clone();
            let fingerprint = trace.query_fingerprint.clone();
            let mut prov = JsonMap::new();
            if let Some(t) = &stimulus.turn_id {
                prov.insert("turn_id".into(), Value::String(t.clone()));
            }
            let listed: Vec<MemoryEvent> = result
                .handles
                .iter()
                .map(|h| MemoryEvent {
                    kind: EventKind::Listed,
                    scope: h.scope.clone(),
                    owner_id: h.owner_id.clone(),
                    record_id: Some(h.record_id.clone()),
                    trace_id: Some(result.trace_id.clone()),
                    query_fingerprint: Some(fingerprint.clone()),
                    actor: "system".into(),
                    observed_at: now.clone(),
                    provenance: prov.clone(),
                    event_id: if trace_id.is_some() {
                        ids::selection_event_id(&tid, EventKind::Listed, &h.record_id)
                    } else {
                        String::new()
                    },
                    ..MemoryEvent::default()
                })
                .collect();
            // One append (one transaction on SQLite): the trace, then its listed events.
            let (stored, events) = self.journal.append_recall(&trace, &listed)?;
            let mut appended: Vec<i64> = vec![stored.seq];
            appended.extend(events.iter().map(|e| e.seq));
            // The trace and `listed` events change no fold the recall index
            // caches: when they are the only records since `as_of`, the next
            // recall need not replay (decode) them.
            if !anchored {
                self.faculty_state
                    .cache::<index::RecallIndex>()
                    .lock()
                    .advance_past_own_audit(as_of, &mut appended);
            }
        }
        Ok(result)
    }
}
