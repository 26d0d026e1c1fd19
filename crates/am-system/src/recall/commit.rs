//! Use and inspection on `MemorySystem`: `commit_selection` (the only
//! strengthening path), the deliberate acts `reinforce` / `attenuate` /
//! `refocus`, and the pure reads `activation` and `access_counts`.
//!
//! Spec: api.md "Committing use, deliberate acts, inspection"; memory-system.md
//! "Use strengthens; presence does not", "The two access counts";
//! algorithms.md §5 and §7 "Commit".

use crate::error::{Error, Result};
use crate::ids;
use crate::outcome::Warned;
use crate::recall::args::{Activation, Attenuate, CommitSelection, Refocus, Reinforce};
use crate::recall::attention::{compute_activation, scoring_window};
use crate::recall::selection::{display_rows, normalize_used_ids, plan_selection};
use crate::seam::{OrderedMap, label_deposits};
use crate::system::MemorySystem;
use am_journal::{ActiveMemorySnapshot, EventKind, MemoryEvent, TraceFilter};
use am_triples::JsonMap;
use am_triples::text::py_str;
use serde_json::Value;

/// A record's stored activation (`activation`): `base_level` and `total`
/// (equal: spread is per stimulus and never stored).
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct StoredActivation {
    /// The decayed fold.
    pub base_level: f64,
    /// Same as `base_level`.
    pub total: f64,
}

/// The never-decaying global counts (`access_counts`), keyed as passed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AccessCounts {
    /// Record id (as passed) → cumulative `selected` count.
    pub records: OrderedMap<u64>,
    /// Pair (as passed) → cumulative `co_selected` count.
    pub pairs: Vec<((String, String), u64)>,
}

fn require_reason(what: &str, reason: &str) -> Result<()> {
    if reason.trim().is_empty() {
        return Err(Error::invalid(format!(
            "{what} requires a non-empty reason (deliberate acts are explained), got {reason:?}"
        )));
    }
    Ok(())
}

impl MemorySystem {
    /// Deposit the usage trail for the records that actually entered a context.
    ///
    /// One `selected` event (weight 8) per used record and one `co_selected`
    /// event (weight 4) for every unordered pair of the depositing slice, plus
    /// term-sharing pairs and recorded-edge hop pairs, grouped per record
    /// stream (a pair lives in its first-used member's stream). Only ids the
    /// trace admitted as `stimulus` / `both`, or unlabelled, deposit: `self`
    /// and `stm` are presence, not use (`stm` deposits a rehearsal `selected`
    /// only when `AttentionConfig::stm_rehearsal_weight > 0`). Event ids are
    /// `H(trace_id|kind|key)[:32]` and the snapshot id `H(trace_id|snapshot)[:32]`
    /// (also the events' `context_ref`). Idempotent by `trace_id`: a replay
    /// returns the original snapshot and writes nothing (a different used set
    /// returns a `#FALLBACK` warning with the snapshot, in [`Warned::warnings`]). Ids of both namespaces are accepted.
    ///
    /// # Errors
    /// `InvalidInput` for an empty trace id or used set;
    /// `NotFound` for an id in neither namespace; journal failures.
    pub fn commit_selection(&self, args: &CommitSelection) -> Result<Warned<ActiveMemorySnapshot>> {
        let CommitSelection {
            trace_id,
            used_record_ids,
            prompt_token_estimate,
        } = args;
        let prompt_token_estimate = *prompt_token_estimate;
        let tid = trace_id.trim();
        if tid.is_empty() {
            return Err(Error::invalid(
                "commit_selection requires a non-empty trace_id, got an empty one",
            ));
        }
        let normalized = normalize_used_ids(used_record_ids)?;
        let (resolved, fetched) = self.resolve_with_rows(&normalized)?;
        let mut ordered: Vec<String> = Vec::new();
        for (_, aid) in resolved {
            if !ordered.contains(&aid) {
                ordered.push(aid);
            }
        }
        let existing = self.journal.snapshots(&TraceFilter {
            trace_id: Some(tid.to_owned()),
            limit: 1,
            ..TraceFilter::default()
        })?;
        if let Some(first) = existing.into_iter().next() {
            let mut a = first.used_record_ids.clone();
            let mut b = ordered.clone();
            a.sort();
            a.dedup();
            b.sort();
            b.dedup();
            let mut warnings = Vec::new();
            if a != b {
                warnings.push(format!(
                    "#FALLBACK: commit_selection replay for trace {tid} carries a different used set \
                     ({b:?} vs {a:?}); returning the original snapshot unchanged (one trace = one commit)"
                ));
            }
            return Ok(Warned::new(first, warnings));
        }
        let missing: Vec<&String> = ordered
            .iter()
            .filter(|r| !fetched.contains_key(*r))
            .collect();
        if !missing.is_empty() {
            return Err(Error::not_found(format!(
                "commit_selection: record ids not found in the store: {missing:?}; only records that \
                 actually entered the context may be committed"
            )));
        }
        let traces = self.journal.traces(&TraceFilter {
            trace_id: Some(tid.to_owned()),
            limit: 1,
            ..TraceFilter::default()
        })?;
        let trace = traces.into_iter().next();
        // The spec deposits a foreign trace's ids unlabeled, and says nothing
        // of a used id its own trace never listed: both deposit, and both
        // are said, so a typo never strengthens memory unnoticed.
        let mut notes = Vec::new();
        match &trace {
            None => notes.push(format!(
                "commit_selection: trace {tid:?} was never journaled by this home (a foreign trace, or a \
                 recall run with journal=false): its used ids deposit unlabeled, as the spec says"
            )),
            Some(t) => {
                for rid in ordered.iter().filter(|r| !t.admissions.contains_key(*r)) {
                    notes.push(format!(
                        "commit_selection: {rid} was not on trace {tid:?}'s shelf; it deposits as a stimulus \
                         match (check the id: only what entered the context should be committed)"
                    ));
                }
            }
        }
        let admissions: JsonMap = trace.map(|t| t.admissions).unwrap_or_default();
        let labels: Vec<(String, String)> = ordered
            .iter()
            .map(|rid| {
                let label = admissions.get(rid).map_or("stimulus".to_owned(), py_str);
                (rid.clone(), label)
            })
            .collect();
        let deposit: Vec<String> = labels
            .iter()
            .filter(|(_, l)| label_deposits(Some(l)))
            .map(|(r, _)| r.clone())
            .collect();
        let rehearsal: Vec<String> = labels
            .iter()
            .filter(|(_, l)| l == "stm")
            .map(|(r, _)| r.clone())
            .collect();

        let snapshot_id = ids::selection_snapshot_id(tid);
        let observed_at = self.now()?;
        let mut provenance = JsonMap::new();
        provenance.insert("context_ref".into(), Value::String(snapshot_id.clone()));
        let event = |kind: EventKind, scope: &str, owner: &str, weight: f64| MemoryEvent {
            kind,
            scope: scope.to_owned(),
            owner_id: owner.to_owned(),
            weight,
            trace_id: Some(tid.to_owned()),
            observed_at: observed_at.clone(),
            actor: "runtime".into(),
            provenance: provenance.clone(),
            ..MemoryEvent::default()
        };
        let mut batches: Vec<Vec<MemoryEvent>> = Vec::new();
        if !deposit.is_empty() {
            for group in plan_selection(&deposit, &fetched, self.store.as_ref())? {
                let (scope, owner) = &group.scope_pair;
                let mut batch = Vec::new();
                for rid in &group.records {
                    let mut e = event(EventKind::Selected, scope, owner, 8.0);
                    e.record_id = Some(rid.clone());
                    e.event_id = ids::selection_event_id(tid, EventKind::Selected, rid);
                    batch.push(e);
                }
                for (a, b) in &group.pairs {
                    let mut e = event(EventKind::CoSelected, scope, owner, 4.0);
                    e.pair_ids = Some((a.clone(), b.clone()));
                    e.event_id =
                        ids::selection_event_id(tid, EventKind::CoSelected, &format!("{a}+{b}"));
                    batch.push(e);
                }
                batches.push(batch);
            }
        }
        let rehearsal_weight = self.attention.stm_rehearsal_weight;
        if !rehearsal.is_empty() && rehearsal_weight > 0.0 {
            let mut groups: Vec<((String, String), Vec<String>)> = Vec::new();
            for rid in &rehearsal {
                let a = &fetched[rid];
                let key = (a.scope.clone(), a.owner_id.clone().unwrap_or_default());
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push(rid.clone()),
                    None => groups.push((key, vec![rid.clone()])),
                }
            }
            for ((scope, owner), rids) in groups {
                batches.push(
                    rids.iter()
                        .map(|rid| {
                            let mut e =
                                event(EventKind::Selected, &scope, &owner, rehearsal_weight);
                            e.record_id = Some(rid.clone());
                            e.event_id = ids::selection_event_id(tid, EventKind::Selected, rid);
                            e
                        })
                        .collect(),
                );
            }
        }
        let all: Vec<MemoryEvent> = batches.into_iter().flatten().collect();
        let mut snap_prov = JsonMap::new();
        snap_prov.insert("used_count".into(), Value::from(ordered.len()));
        snap_prov.insert(
            "admissions".into(),
            Value::Object(
                labels
                    .iter()
                    .map(|(r, l)| (r.clone(), Value::String(l.clone())))
                    .collect(),
            ),
        );
        let snapshot = ActiveMemorySnapshot {
            snapshot_id,
            seq: -1,
            trace_id: tid.to_owned(),
            used_record_ids: ordered.clone(),
            display: display_rows(&ordered, &fetched),
            prompt_token_estimate,
            observed_at: observed_at.clone(),
            provenance: snap_prov,
        };
        // One append for every group and the snapshot (one transaction on
        // SQLite): the journal validates all of it first and writes all of it or
        // nothing, and the seq order is the per-group order the Python library
        // appends in, then the snapshot.
        let (_, stored) = self.journal.append_selection(&all, &snapshot)?;
        // A journal append raises no warnings (a volatile journal says so
        // once, when the system opens it): the notes are the call's own.
        Ok(Warned::new(stored, notes))
    }

    fn deliberate(&self, kind: EventKind, act: &Reinforce) -> Result<String> {
        let event = self.plan_deliberate(kind, act)?;
        let stored = self.journal.append_events(std::slice::from_ref(&event))?;
        stored
            .into_iter()
            .next()
            .map(|e| e.event_id)
            .ok_or_else(|| Error::internal("the journal returned no event for one append"))
    }

    /// `reinforce`'s or `attenuate`'s event, validated, not written (the
    /// tending elections append it in their one transaction).
    pub(crate) fn plan_deliberate(&self, kind: EventKind, act: &Reinforce) -> Result<MemoryEvent> {
        let what = if kind == EventKind::Pinned {
            "reinforce"
        } else {
            "attenuate"
        };
        require_reason(what, &act.reason)?;
        let rid = self.resolve_assertion_id(&act.record_id)?;
        let event = MemoryEvent {
            kind,
            scope: act.scope.clone(),
            owner_id: act.owner_id.clone(),
            record_id: Some(rid),
            weight: act.weight,
            ttl_activity: act.ttl_activity,
            reason: Some(act.reason.clone()),
            actor: act.actor.clone(),
            observed_at: self.now()?,
            event_id: act.event_id.clone().unwrap_or_default(),
            provenance: act.provenance.clone(),
            ..MemoryEvent::default()
        };
        event.normalized()?;
        Ok(event)
    }

    /// Deliberate strengthen: one `pinned` event (weight clamped 1..=25 by the
    /// journal, default 8). Returns the event id; a supplied `event_id` makes a
    /// replay return the original id and write nothing.
    ///
    /// # Errors
    /// `InvalidInput` for an empty reason or a non-finite weight or a
    /// non-positive TTL; `NotFound` for an id in neither namespace.
    pub fn reinforce(&self, act: &Reinforce) -> Result<String> {
        self.deliberate(EventKind::Pinned, act)
    }

    /// Deliberate weaken: one `silenced` event, a nudge toward invisibility,
    /// never negative relevance (removal is closure). Same arguments, clamps and
    /// idempotency as [`MemorySystem::reinforce`].
    ///
    /// # Errors
    /// As [`MemorySystem::reinforce`].
    pub fn attenuate(&self, act: &Attenuate) -> Result<String> {
        self.deliberate(EventKind::Silenced, act)
    }

    /// Topic-shift marker: one `refocus` event in `(scope, owner_id)` that
    /// stretches the decay distance of everything older in that stream.
    /// Returns the event id.
    ///
    /// # Errors
    /// `InvalidInput` for an empty reason or scope.
    pub fn refocus(&self, act: &Refocus) -> Result<String> {
        let event = self.plan_refocus(act)?;
        let stored = self.journal.append_events(std::slice::from_ref(&event))?;
        Ok(stored
            .into_iter()
            .next()
            .map(|e| e.event_id)
            .unwrap_or_default())
    }

    /// `refocus`'s event, validated, not written.
    pub(crate) fn plan_refocus(&self, act: &Refocus) -> Result<MemoryEvent> {
        require_reason("refocus", &act.reason)?;
        let event = MemoryEvent {
            kind: EventKind::Refocus,
            scope: act.scope.clone(),
            owner_id: act.owner_id.clone(),
            weight: 0.0,
            reason: Some(act.reason.clone()),
            actor: act.actor.clone(),
            observed_at: self.now()?,
            event_id: act.event_id.clone().unwrap_or_default(),
            provenance: act.provenance.clone(),
            ..MemoryEvent::default()
        };
        event.normalized()?;
        Ok(event)
    }

    /// Stored activation per record in one `(scope, owner_id)` stream, folded
    /// over the bounded window at `at_seq` (default: now). With ids (either
    /// namespace), keyed as passed, 0 for a known record without in-window
    /// events; without ids, every in-window scored record. Writes nothing.
    ///
    /// # Errors
    /// `NotFound` for an id in neither namespace; the journal's
    /// refusal of an invalid anchor (negative or past the high-water mark).
    pub fn activation(&self, args: &Activation) -> Result<OrderedMap<StoredActivation>> {
        let Activation {
            record_ids,
            scope,
            owner_id,
            at_seq,
        } = args;
        let scores = self.activation_scores(scope, owner_id, *at_seq)?;
        let level = |rid: &str| {
            scores
                .iter()
                .find(|(r, _)| r == rid)
                .map_or(0.0, |(_, s)| s.base_level)
        };
        let mut out = OrderedMap::new();
        match record_ids {
            None => {
                for (rid, s) in &scores {
                    out.insert(
                        rid.clone(),
                        StoredActivation {
                            base_level: s.base_level,
                            total: s.base_level,
                        },
                    );
                }
            }
            Some(ids) => {
                for (requested, rid) in self.resolve_assertion_ids(ids)? {
                    let b = level(&rid);
                    out.insert(
                        requested,
                        StoredActivation {
                            base_level: b,
                            total: b,
                        },
                    );
                }
            }
        }
        Ok(out)
    }

    /// The activation fold of one `(scope, owner_id)` stream at `at_seq`
    /// (default: now): every in-window scored record (by the id its events
    /// carry), in the fold's order.
    ///
    /// # Errors
    /// The journal's refusal of an invalid anchor; its failure.
    pub(crate) fn activation_scores(
        &self,
        scope: &str,
        owner_id: &str,
        at_seq: Option<i64>,
    ) -> Result<Vec<(String, crate::recall::attention::ActivationScore)>> {
        let anchor = match at_seq {
            Some(s) => s,
            None => self.journal.current_seq()?,
        };
        let events = scoring_window(
            self.journal.as_ref(),
            scope,
            owner_id,
            anchor,
            &self.attention,
        )?;
        compute_activation(&events, &self.attention, Some(anchor))
    }

    /// The never-decaying global counts: cumulative `selected` per record and
    /// `co_selected` per pair (order-insensitive), per journal. Ids of either
    /// namespace, keyed as passed; a known id without deposits reads 0. Writes nothing.
    ///
    /// # Errors
    /// `NotFound` for an id in neither namespace.
    pub fn access_counts(
        &self,
        record_ids: &[String],
        pairs: &[(String, String)],
    ) -> Result<AccessCounts> {
        let mut out = AccessCounts::default();
        for (requested, rid) in self.resolve_assertion_ids(record_ids)? {
            out.records
                .insert(requested, self.journal.selected_count(&rid, None)?);
        }
        for (a, b) in pairs {
            let ra = self.resolve_assertion_id(a)?;
            let rb = self.resolve_assertion_id(b)?;
            let n = self.journal.pair_selected_count((&ra, &rb), None)?;
            out.pairs.push(((a.clone(), b.clone()), n));
        }
        Ok(out)
    }
}
