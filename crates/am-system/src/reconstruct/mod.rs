//! `MemorySystem::reconstruct`: one stimulus-driven recall, one call, two
//! views. Candidates per scope pair, the exact / vector / keyword /
//! participants channels, fusion, spreading activation, the self / STM /
//! stimulus union fill under every `RecallBudget` bound, and (with
//! `journal = true`) one `ReconstructionTrace` plus inert `listed` events.
//!
//! Spec: api.md "Reconstruction", "Seam types"; architecture.md
//! "Reconstruction: the union working set", "Presence is not use";
//! memory-system.md "One graph, emergent working memory"; algorithms.md §3–7, §9.

pub mod channels;
pub mod folds;
pub mod hash;
pub mod index;
pub mod shelf;
pub mod spreading;
mod trace;

use crate::attention::activation_inputs;
use crate::config::{RecallBudget, SpreadParams};
use crate::error::{Error, Result};
use crate::ids;
use crate::seam::{
    DroppedEntry, EdgeView, MemoryHandle, ReconstructionResult, Stimulus, StmTrailEdge, View,
};
use crate::system::{Ablation, MemorySystem};
use am_journal::MemoryEvent;
use am_triples::{JsonMap, TripleAssertion, TripleQuery, token_estimate};
use channels::{ChannelOutput, EXCLUSION_OVERFETCH_CAP, VectorKnobs};
use folds::Folds;
use hash::HashMap;
use serde_json::Value;
use shelf::{Candidate, FillInputs, HandleParts, build_handle, fill_shelf, memberable};
use std::collections::BTreeMap;

/// Normalize a scope ladder: scopes trimmed and lowercased, owners trimmed,
/// blank scopes and duplicates dropped, order kept (narrow → broad).
pub fn normalize_scopes(scopes: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (s, o) in scopes {
        let pair = (s.trim().to_lowercase(), o.trim().to_owned());
        if !pair.0.is_empty() && !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

/// Admit `a` to the universe (unless unmemberable or excluded) and return its
/// candidate; an owned row moves in, a borrowed one is cloned only when new.
fn add_candidate<'u>(
    universe: &'u mut HashMap<String, Candidate>,
    a: std::borrow::Cow<'_, TripleAssertion>,
    folds: &Folds<'_>,
) -> Result<Option<&'u mut Candidate>> {
    if !memberable(&a) {
        return Ok(None);
    }
    let rid = a.assertion_id.clone().unwrap_or_default();
    if !universe.contains_key(&rid) {
        if folds.excluded(&a)? {
            return Ok(None);
        }
        universe.insert(
            rid.clone(),
            Candidate {
                assertion: a.into_owned(),
                record_id: rid.clone(),
                relevance: Default::default(),
                details: HashMap::default(),
                spread: 0.0,
            },
        );
    }
    Ok(universe.get_mut(&rid))
}

/// Apply a channel's scores; a found row new to the universe moves in (the
/// output's `found` is drained: nothing reads it afterwards).
fn apply_channel(
    universe: &mut HashMap<String, Candidate>,
    out: &mut ChannelOutput,
    folds: &Folds<'_>,
) -> Result<()> {
    folds.prime(out.found.values())?;
    for r in &out.results {
        let c = match out.found.remove(&r.record_id) {
            Some(a) => add_candidate(universe, std::borrow::Cow::Owned(a), folds)?,
            // Already a candidate: its row is kept under its own id.
            None => match universe.get_mut(&r.record_id) {
                Some(c) if memberable(&c.assertion) => Some(c),
                _ => continue,
            },
        };
        let Some(c) = c else {
            continue;
        };
        let cur = c.relevance.get(r.channel).copied().unwrap_or(0.0);
        c.relevance.insert(r.channel, cur.max(r.score));
        let bucket = c.details.entry(r.channel.to_owned()).or_default();
        if !bucket.contains(&r.detail) {
            bucket.push(r.detail.clone());
        }
    }
    Ok(())
}

fn universe_rows(universe: &HashMap<String, Candidate>) -> BTreeMap<&str, &TripleAssertion> {
    universe
        .iter()
        .map(|(k, c)| (k.as_str(), &c.assertion))
        .collect()
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
    /// [`Error::InvalidInput`] (nothing written) for an empty scope ladder, a
    /// blank supplied `trace_id`, a broad scope without `escalation_reason`,
    /// an `as_of` outside `0..=current_seq`, or an invalid budget; the store's
    /// or journal's failure.
    #[allow(clippy::too_many_arguments)] // The spec's call shape: stimulus, scopes and five keywords.
    pub fn reconstruct(
        &self,
        stimulus: &Stimulus,
        scopes: &[(&str, &str)],
        budget: &RecallBudget,
        view: View,
        escalation_reason: Option<&str>,
        journal: bool,
        trace_id: Option<&str>,
    ) -> Result<ReconstructionResult> {
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
        let pairs = normalize_scopes(scopes);
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
        let (result, trace) = self.run_pipeline(
            &stimulus, &pairs, budget, view, as_of, anchored, &tid, journal,
        )?;
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
                    kind: "listed".into(),
                    scope: h.scope.clone(),
                    owner_id: h.owner_id.clone(),
                    record_id: Some(h.record_id.clone()),
                    trace_id: Some(result.trace_id.clone()),
                    query_fingerprint: Some(fingerprint.clone()),
                    actor: "system".into(),
                    observed_at: now.clone(),
                    provenance: prov.clone(),
                    event_id: if trace_id.is_some() {
                        ids::selection_event_id(&tid, "listed", &h.record_id)
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
                self.recall_index
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .advance_past_own_audit(as_of, &mut appended);
            }
        }
        Ok(result)
    }

    #[allow(clippy::too_many_arguments)] // The validated call, passed once.
    fn run_pipeline(
        &self,
        stimulus: &Stimulus,
        pairs: &[(String, String)],
        budget: &RecallBudget,
        view: View,
        as_of: i64,
        anchored: bool,
        tid: &str,
        want_trace: bool,
    ) -> Result<(
        ReconstructionResult,
        Option<am_journal::ReconstructionTrace>,
    )> {
        let mut index = self
            .recall_index
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        index.refresh_store(self.store.as_ref());
        // A read at the current seq (never an explicit anchor below it) is
        // served by the journal caches.
        let (cached_folds, mut counts, hidden) = if anchored {
            let hidden = Folds::hidden_keys_at(self.journal.as_ref(), as_of)?;
            (None, HashMap::default(), hidden)
        } else {
            index.refresh_journal(self.journal.as_ref(), as_of)?;
            let hidden = index.hidden_keys(self.journal.as_ref(), as_of)?;
            let counts = index.take_counts(as_of);
            (index.take_folds(as_of), counts, hidden)
        };
        let cached_activation = if anchored {
            None
        } else {
            index.activation(pairs)
        };
        let working_set = view == View::WorkingSet;
        let ablated = self.ablation.is_some();
        let run_channels = self.ablation != Some(Ablation::Recency);
        let mut config = self.reconstruct.clone();
        let mut notes: Vec<String> = Vec::new();
        match self.ablation {
            Some(Ablation::Recency) => {
                config.kind_rank.clear();
                notes.push("ablation=recency (pure recency baseline)".into());
                notes.push(
                    "ablation=recency: channels disabled — stimulus cues, patterns and anchors are ignored"
                        .into(),
                );
            }
            Some(Ablation::RecencyEmbedding) => {
                notes.push("ablation=recency_embedding (Arm B)".into());
            }
            None => {}
        }
        let (base, trails) = if ablated {
            index::ActivationInputs::default()
        } else if let Some(inputs) = cached_activation {
            inputs
        } else {
            let inputs = activation_inputs(self.journal.as_ref(), pairs, as_of, &self.attention)?;
            if !anchored {
                index.store_activation(pairs, &inputs);
            }
            inputs
        };
        let store_view = index::IndexedStore {
            inner: self.store.as_ref(),
            index: &index,
        };
        let store: &dyn am_triples::TripleStore = &store_view;
        let folds = Folds::load(
            store,
            self.journal.as_ref(),
            pairs,
            as_of,
            anchored,
            cached_folds,
        )?;
        if folds.future_records > 0 {
            notes.push(format!(
                "anchored recall (as_of={as_of}): {} record(s) formed after the anchor excluded from the candidate \
                 universe; rows without formation bindings are ungated (store truth has no seq axis)",
                folds.future_records
            ));
        }
        let headroom = folds.exclusion_headroom(&hidden, EXCLUSION_OVERFETCH_CAP)?;
        let base_of = |rid: &str| base.get(rid).map_or(0.0, |s| s.base_level);
        let boost = |b: f64| self.attention.ranking_boost(b);

        let mut warnings: Vec<String> = Vec::new();
        if budget.deadline_s.is_some() {
            warnings.push(
                "#FALLBACK: deadline_s is not enforced by the v1 pure pipeline (no clock injection)"
                    .into(),
            );
        }
        let mut universe: HashMap<String, Candidate> = HashMap::default();
        let mut channels_run: Vec<&'static str> = Vec::new();
        let gather = budget.max_candidates > 0;
        if !gather {
            warnings.push("#FALLBACK: max_candidates <= 0 disables candidate gathering".into());
        }
        if gather {
            let cap = budget.max_candidates;
            for (scope, owner) in pairs {
                let q = TripleQuery {
                    scope: Some(scope.clone()),
                    owner_id: (!owner.is_empty()).then(|| owner.clone()),
                    limit: (cap + headroom) as i64,
                    ..TripleQuery::default()
                };
                let rows = store.query(&q)?;
                folds.prime(&rows)?;
                let mut kept = 0;
                for a in rows {
                    if kept >= cap {
                        break;
                    }
                    if add_candidate(&mut universe, std::borrow::Cow::Owned(a), &folds)?.is_some() {
                        kept += 1;
                    }
                }
            }
        }
        if gather && run_channels {
            let mut exact = channels::run_exact(
                store,
                &folds,
                stimulus,
                pairs,
                budget,
                headroom,
                &mut warnings,
            )?;
            if exact.ran {
                channels_run.push("exact");
                apply_channel(&mut universe, &mut exact, &folds)?;
            }
            let knobs = VectorKnobs {
                floor: config.vector_floor,
                margin: config.vector_margin,
                span: config.confidence_span,
            };
            let mut vector = channels::run_vector(
                store,
                &folds,
                stimulus,
                pairs,
                budget,
                self.embedder.as_deref(),
                &knobs,
                headroom,
                &mut warnings,
            )?;
            if vector.ran {
                channels_run.push("vector");
                apply_channel(&mut universe, &mut vector, &folds)?;
                if vector.results.is_empty()
                    && !universe.is_empty()
                    && !warnings.iter().any(|w| w.contains("below floor"))
                {
                    warnings.push(format!(
                        "#FALLBACK: vector channel ran but scored 0 of {} candidates — verify store-side vectors \
                         exist (vectorless rows are invisible to semantic search; manifest/backfill lands with backlog 0014)",
                        universe.len()
                    ));
                }
            }
            let discovery = if config.keyword_discovery {
                self.keyword_discovery(stimulus, pairs, budget, &index, &mut warnings)?
            } else {
                None
            };
            let mut keyword = channels::run_keyword(
                &stimulus.cue_text,
                &universe_rows(&universe),
                discovery,
                Some(&index),
                &mut warnings,
            );
            if keyword.ran {
                channels_run.push("keyword");
                apply_channel(&mut universe, &mut keyword, &folds)?;
            }
            let mut participants = channels::run_participants(stimulus, &universe_rows(&universe));
            if participants.ran {
                channels_run.push("participants");
                apply_channel(&mut universe, &mut participants, &folds)?;
            }
        }
        if gather && run_channels && config.concept_expansion {
            warnings.push(
                "#FALLBACK: ReconstructConfig.concept_expansion is not built in this port; no concept \
                 admissions were made"
                    .into(),
            );
        }
        channels_run.sort_by_key(|c| shelf::CHANNEL_ORDER.iter().position(|x| x == c));

        // Spreading: every pair walks from its own seeds, under one shared edge budget.
        let params = SpreadParams {
            max_hops: budget.max_hops,
            max_edges: budget.max_edges,
            ..self.spread.clone()
        };
        let mut all_edges: Vec<crate::seam::WalkedEdge> = Vec::new();
        if !ablated {
            for (scope, owner) in pairs {
                let remaining = params.max_edges.saturating_sub(all_edges.len());
                if remaining == 0 {
                    break;
                }
                let seeds: BTreeMap<String, f64> = universe
                    .iter()
                    .filter(|(_, c)| {
                        c.channel_matched() && folds::in_pair(&c.assertion, scope, owner)
                    })
                    .map(|(rid, c)| (rid.clone(), c.fused()))
                    .collect();
                if seeds.is_empty() {
                    continue;
                }
                // The seeds' rows were read from this pair's store this call.
                let known: HashMap<&str, &TripleAssertion> = seeds
                    .keys()
                    .filter_map(|rid| universe.get(rid).map(|c| (rid.as_str(), &c.assertion)))
                    .collect();
                let walk = spreading::spread_activation(
                    &store_view,
                    &folds,
                    &seeds,
                    &known,
                    scope,
                    owner,
                    &SpreadParams {
                        max_edges: remaining,
                        ..params.clone()
                    },
                    &trails,
                    headroom,
                )?;
                all_edges.extend(walk.edges);
                if working_set {
                    let new_ids: Vec<String> = walk
                        .scores
                        .keys()
                        .filter(|r| !universe.contains_key(*r))
                        .cloned()
                        .collect();
                    let mut fetched: Vec<TripleAssertion> =
                        spreading::fetch_by_ids(store, &new_ids, scope, owner)?
                            .into_values()
                            .collect();
                    fetched.sort_by(|a, b| a.assertion_id.cmp(&b.assertion_id));
                    folds.prime(&fetched)?;
                    for a in fetched {
                        add_candidate(&mut universe, std::borrow::Cow::Owned(a), &folds)?;
                    }
                }
                for (rid, v) in walk.scores {
                    if let Some(c) = universe.get_mut(&rid) {
                        c.spread = c.spread.max(v);
                    }
                }
            }
        }
        let mut spread_cues: HashMap<String, Vec<String>> = HashMap::default();
        for e in &all_edges {
            let cue = format!("spread: via {} from {}", e.predicate, e.source_id);
            let bucket = spread_cues.entry(e.target_id.clone()).or_default();
            if !bucket.contains(&cue) {
                bucket.push(cue);
            }
        }

        // Self members: prompt-active bindings admit by state.
        let mut self_members: Vec<String> = Vec::new();
        if budget.self_fraction > 0.0 {
            self_members = self.select_self_members(&mut universe, &folds)?;
        }

        // Working-set membership filter (never a channel match or a self member).
        let had_candidates = !universe.is_empty();
        let mut pre_dropped: Vec<shelf::Drop> = Vec::new();
        if working_set && let Some(min) = budget.min_activation {
            let mut ids: Vec<String> = universe.keys().cloned().collect();
            ids.sort();
            for rid in ids {
                let c = &universe[&rid];
                if c.channel_matched() || self_members.contains(&rid) {
                    continue;
                }
                if base_of(&rid) + c.spread < min {
                    let fused = c.fused();
                    universe.remove(&rid);
                    pre_dropped.push(shelf::Drop {
                        record_id: rid,
                        score: fused,
                        reason: crate::seam::DROP_BELOW_MIN_ACTIVATION,
                        duplicate_of: None,
                    });
                }
            }
        }
        let ordered = shelf::order_members(&universe, &base_of, &boost, &config);

        // STM eligibility: the activation fold's base map (never a store scan).
        let mut stm_hot: Vec<String> = Vec::new();
        let mut stm_eligible = 0usize;
        if gather && budget.stm_fraction > 0.0 && !base.is_empty() {
            let floor = budget.stm_floor.unwrap_or(config.stm_floor);
            let mut hot: Vec<(&String, f64)> = base
                .iter()
                .filter(|(_, s)| s.base_level >= floor)
                .map(|(r, s)| (r, s.base_level))
                .collect();
            hot.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            stm_hot = hot.into_iter().map(|(r, _)| r.clone()).collect();
            // Only the reserved-seat count needs the eligible (non-excluded)
            // prefix: hot ids outside the universe are checked lazily, up to
            // the STM seats; the fill resolves (and re-checks) the rest.
            let slots = shelf::fraction_slots(budget.stm_fraction, budget.shelf_size);
            for rid in &stm_hot {
                if stm_eligible >= slots {
                    break;
                }
                if universe.contains_key(rid) || !folds.excluded_id(rid)? {
                    stm_eligible += 1;
                }
            }
        }
        let inputs = FillInputs {
            ordered: &ordered,
            self_members: &self_members,
            stm_hot: &stm_hot,
            stm_eligible,
            base_of: &base_of,
            budget,
            working_set,
            dedup: config.shelf_dedup_identical_digests,
            newest_seats: config.newest_seat_guarantee,
        };
        let mut resolve = |rid: &str| -> Option<Candidate> {
            let a = folds.row(rid).ok().flatten()?;
            if !pairs.iter().any(|(s, o)| folds::in_pair(&a, s, o)) || !memberable(&a) {
                return None;
            }
            if folds.excluded(&a).unwrap_or(true) {
                return None;
            }
            Some(Candidate {
                record_id: rid.to_owned(),
                assertion: a,
                relevance: Default::default(),
                details: HashMap::default(),
                spread: 0.0,
            })
        };
        let fill = fill_shelf(&mut universe, &inputs, &mut resolve);

        let mut handles: Vec<MemoryHandle> = Vec::with_capacity(fill.handle_order.len());
        for rid in &fill.handle_order {
            let c = &universe[rid];
            let contributions: Vec<String> = base
                .get(rid)
                .map(|s| s.contributions.clone())
                .unwrap_or_default();
            let cues = spread_cues.get(rid).cloned().unwrap_or_default();
            handles.push(build_handle(
                c,
                HandleParts {
                    base_level: base_of(rid),
                    spread_cues: &cues,
                    contributions: &contributions,
                    digest: &fill.digests[rid],
                    binding: folds.binding_display(&c.assertion)?,
                    admission: fill.admissions[rid],
                    global_count: match counts.get(rid) {
                        Some(n) => *n,
                        None => {
                            let n = self.journal.selected_count(rid, Some(as_of))?;
                            if !anchored {
                                counts.insert(rid.clone(), n);
                            }
                            n
                        }
                    },
                },
                &config,
            ));
        }
        let stop_reason = if !had_candidates && fill.handle_order.is_empty() {
            "no_candidates"
        } else if fill.token_exhausted {
            "budget_exhausted"
        } else {
            "enough"
        };
        let mut seen = hash::HashSet::default();
        warnings.retain(|w| seen.insert(w.clone()));
        warnings.extend(notes);

        let dropped: Vec<shelf::Drop> = pre_dropped.into_iter().chain(fill.dropped).collect();
        let mut budget_spent = JsonMap::new();
        let by_label = |label: crate::seam::Admission| -> (usize, usize) {
            fill.admissions
                .iter()
                .filter(|(_, l)| **l == label)
                .fold((0, 0), |(n, t), (rid, _)| {
                    (n + 1, t + token_estimate(&fill.digests[rid]))
                })
        };
        let (stm_n, stm_t) = by_label(crate::seam::Admission::Stm);
        for (k, v) in [
            ("tokens_used", fill.tokens_used),
            ("token_budget", budget.token_budget),
            ("handles", fill.handle_order.len()),
            ("stm_handles", stm_n),
            ("stm_tokens_used", stm_t),
            ("shelf_size", budget.shelf_size),
            ("edges_visited", all_edges.len()),
            ("max_edges", params.max_edges),
        ] {
            budget_spent.insert(k.into(), Value::from(v));
        }
        let considered = universe.len()
            + dropped
                .iter()
                .filter(|d| d.reason == crate::seam::DROP_BELOW_MIN_ACTIVATION)
                .count();
        budget_spent.insert("candidates_considered".into(), Value::from(considered));
        if budget.self_fraction > 0.0 {
            let (n, t) = by_label(crate::seam::Admission::SelfCore);
            budget_spent.insert("self_handles".into(), Value::from(n));
            budget_spent.insert("self_tokens_used".into(), Value::from(t));
        }

        let mut edges_out: Vec<EdgeView> = Vec::new();
        if working_set {
            edges_out.extend(all_edges.iter().cloned().map(EdgeView::Walked));
            if budget.stm_fraction > 0.0 && !trails.is_empty() {
                let walked: std::collections::HashSet<(String, String)> = all_edges
                    .iter()
                    .map(|e| {
                        let (a, b) = (e.source_id.clone(), e.target_id.clone());
                        if a <= b { (a, b) } else { (b, a) }
                    })
                    .collect();
                let mut ranked: Vec<(&(String, String), f64)> =
                    trails.iter().map(|(p, v)| (p, *v)).collect();
                ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
                for (pair, v) in ranked.into_iter().take(fill.stm_slots.max(2)) {
                    let sorted = if pair.0 <= pair.1 {
                        pair.clone()
                    } else {
                        (pair.1.clone(), pair.0.clone())
                    };
                    if v > 0.0 && !walked.contains(&sorted) {
                        edges_out.push(EdgeView::StmTrail(StmTrailEdge {
                            source: "stm_trail".into(),
                            pair: [pair.0.clone(), pair.1.clone()],
                            trail_activation: v,
                        }));
                    }
                }
            }
        }

        let result = ReconstructionResult {
            trace_id: tid.to_owned(),
            view,
            as_of_seq: as_of,
            handles,
            edges: edges_out,
            dropped: dropped
                .iter()
                .map(|d| DroppedEntry {
                    record_id: d.record_id.clone(),
                    score: d.score,
                    reason: d.reason.to_owned(),
                })
                .collect(),
            selector_route: "heuristic".into(),
            stop_reason: stop_reason.into(),
            warnings,
            budget_spent,
        };
        // Only a journaled recall writes its trace; an unjournaled one skips
        // assembling it (the candidates sort, the JSON maps).
        let trace = want_trace.then(|| {
            let fingerprint = ids::query_fingerprint(&stimulus.cue_text, &stimulus.patterns);
            trace::build_trace(trace::TraceParts {
                result: &result,
                stimulus,
                pairs,
                fingerprint: &fingerprint,
                channels: &channels_run,
                universe: &universe,
                dropped: &dropped,
                admissions: &fill.admissions,
                budget,
            })
        });
        if !anchored {
            let (closed, bindings) = folds.into_parts();
            index.restore_folds(as_of, closed, bindings);
            index.restore_counts(as_of, counts);
        }
        Ok((result, trace))
    }

    fn select_self_members(
        &self,
        universe: &mut HashMap<String, Candidate>,
        folds: &Folds<'_>,
    ) -> Result<Vec<String>> {
        let mut members: Vec<String> = Vec::new();
        for (record_id, scope, owner) in folds.prompt_active()? {
            let mut assertion = universe.get(&record_id).map(|c| c.assertion.clone());
            if assertion.is_none() {
                assertion = spreading::fetch_by_ids(
                    self.store.as_ref(),
                    std::slice::from_ref(&record_id),
                    &scope,
                    &owner,
                )?
                .remove(&record_id);
            }
            if assertion.is_none() {
                assertion = self
                    .store
                    .query(&TripleQuery {
                        subject: Some(record_id.clone()),
                        scope: Some(scope.clone()),
                        owner_id: (!owner.is_empty()).then(|| owner.clone()),
                        limit: 0,
                        ..TripleQuery::default()
                    })?
                    .into_iter()
                    .find(|a| {
                        am_triples::assertion::json_truthy(a.attributes.get("record_kind"))
                            && a.assertion_id.is_some()
                    });
            }
            let Some(a) = assertion else {
                continue;
            };
            if a.attributes.get("record_kind").and_then(Value::as_str) == Some("dream") {
                continue;
            }
            let Some(c) = add_candidate(universe, std::borrow::Cow::Owned(a), folds)? else {
                continue;
            };
            let rid = c.record_id.clone();
            if !members.contains(&rid) {
                members.push(rid);
            }
        }
        let config = &self.reconstruct;
        members.sort_by(|a, b| {
            let ka = shelf::self_order_key(&config.kind_of(&universe[a].assertion));
            let kb = shelf::self_order_key(&config.kind_of(&universe[b].assertion));
            ka.cmp(&kb).then(a.cmp(b))
        });
        Ok(members)
    }

    /// Keyword discovery through the store's keyword index (`query_keywords`)
    /// per searched pair, at most `max_candidates` rows each; `None` (with a
    /// `#FALLBACK` warning) when the store has no index. Discovered rows are
    /// scored by the same token scan and pass the exclusion folds on admission.
    ///
    /// With the recall index built, the store is asked for positions only,
    /// confined to the position range of the pair's indexed rows
    /// (`keyword_positions`), and the index serves the rows it holds: the same
    /// rows in the same order without decoding them. A pair the index holds
    /// no row of, a store without that read, or a position the index does not
    /// hold (a row written since its refresh) reads `query_keywords` instead.
    fn keyword_discovery(
        &self,
        stimulus: &Stimulus,
        pairs: &[(String, String)],
        budget: &RecallBudget,
        index: &index::RecallIndex,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Vec<TripleAssertion>>> {
        let tokens =
            am_triples::text::tokenize(&stimulus.cue_text, am_triples::text::RECALL_MIN_TOKEN_LEN);
        if tokens.is_empty() {
            return Ok(None);
        }
        let mut rows = Vec::new();
        for (scope, owner) in pairs {
            let owner = (!owner.is_empty()).then_some(owner.as_str());
            if let Some(range) = index.position_range(scope, owner)
                && let Ok(Some(positions)) = self.store.keyword_positions(
                    &tokens,
                    scope,
                    owner,
                    budget.max_candidates,
                    range,
                )
                && let Some(found) = index.rows_at(&positions)
            {
                rows.extend(found);
                continue;
            }
            match self
                .store
                .query_keywords(&tokens, scope, owner, budget.max_candidates)
            {
                Ok(found) => rows.extend(found),
                Err(e) if e.kind() == am_triples::ErrorKind::Unsupported => {
                    warnings.push(
                        "#FALLBACK: keyword discovery requested but the store has no FTS5 index — universe \
                         re-score only (token scan)"
                            .into(),
                    );
                    return Ok(None);
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Some(rows))
    }
}
