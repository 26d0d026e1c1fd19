//! One reconstruction's pipeline as a context struct, one method per phase
//! (the validated call in, the result and its trace out): the activation
//! inputs and folds, the per-pair candidate gather, the channels, spreading,
//! the self members, the working-set membership filter, the member order, STM
//! eligibility, the shelf fill, the handles, and the result with its budget
//! report, edges and trace.
//!
//! The recall index's cache bookkeeping happens at entry (refresh, take the
//! folds, counts and activation inputs at `as_of`) and at exit (give them back)
//! in [`MemorySystem::run_pipeline`] only; the phases read the index, never
//! write it.
//!
//! Spec: api.md "Reconstruction"; architecture.md "Reconstruction: the union
//! working set"; algorithms.md §3–7, §9.

use super::channels::{self, EXCLUSION_OVERFETCH_CAP, VectorKnobs};
use super::folds::{self, CachedFolds, Folds};
use super::hash::{self, HashMap, HashSet};
use super::index::{ActivationInputs, IndexedStore, RecallIndex};
use super::read::RecallRead;
use super::shelf::{
    self, Candidate, FillInputs, FillResult, HandleParts, build_handle, fill_shelf, memberable,
};
use super::universe::{add_candidate, apply_channel, universe_rows};
use super::{hybrid, orientation, spreading, trace};
use crate::config::{RecallBudget, ReconstructConfig, SpreadParams};
use crate::error::Result;
use crate::ids;
use crate::kinds::RecordKind;
use crate::recall::attention::{ActivationScore, activation_inputs};
use crate::record::DigestRow;
use crate::seam::{
    Admission, BudgetSpent, DroppedEntry, EdgeView, MemoryHandle, ReconstructionResult, Stimulus,
    StmTrailEdge, StopReason, View, WalkedEdge,
};
use crate::system::{Ablation, MemorySystem};
use am_journal::ReconstructionTrace;
use am_triples::{TripleAssertion, TripleQuery, token_estimate};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// The validated call `reconstruct` hands the pipeline.
pub(super) struct Call<'a> {
    pub(super) stimulus: &'a Stimulus,
    pub(super) pairs: &'a [(String, String)],
    pub(super) budget: &'a RecallBudget,
    pub(super) view: View,
    pub(super) as_of: i64,
    /// An explicit anchor below the current seq: no cache is read or written.
    pub(super) anchored: bool,
    /// The journal's seq when the call began (read before the recall index
    /// is refreshed): the index catches up with the rewrites through it.
    pub(super) head: i64,
    pub(super) trace_id: &'a str,
    pub(super) want_trace: bool,
    /// The call's own retrieval profile (absent: the system's).
    pub(super) profile: Option<crate::config::RecallProfile>,
}

/// What the recall index hands one recall at entry, and takes back at exit.
#[derive(Default)]
struct Caches {
    folds: Option<CachedFolds>,
    counts: HashMap<String, u64>,
    activation: Option<ActivationInputs>,
    /// The latest-hidden `(record_id, scope, owner)` binding keys at the
    /// anchor (read-only: the index keeps them itself).
    hidden: HashSet<(String, String, String)>,
}

impl MemorySystem {
    /// Run one validated reconstruction: the recall index is refreshed and its
    /// caches taken at entry, the phases run over a read-only view of it, and
    /// the caches are given back at exit (an anchored read neither reads nor
    /// writes them; a failing recall keeps them taken, which resets them on
    /// the next refresh).
    pub(super) fn run_pipeline(
        &self,
        call: &Call<'_>,
    ) -> Result<(ReconstructionResult, Option<ReconstructionTrace>)> {
        let index = self.faculty_state.cache::<RecallIndex>();
        let mut index = index.lock();
        // Entry: a read at the current seq (never an explicit anchor below
        // it) is served by the journal caches.
        index.refresh_store(self.store.as_ref());
        index.refresh_rewrites(self.store.as_ref(), self.journal.as_ref(), call.head);
        let mut caches = Caches::default();
        if call.anchored {
            caches.hidden = Folds::hidden_keys_at(self.journal.as_ref(), call.as_of)?;
        } else {
            index.refresh_journal(self.journal.as_ref(), call.as_of)?;
            caches.hidden = index.hidden_keys(self.journal.as_ref(), call.as_of)?;
            caches.counts = index.take_counts(call.as_of);
            caches.folds = index.take_folds(call.as_of);
            caches.activation = index.activation(call.pairs);
        }
        let store = IndexedStore {
            inner: self.store.as_ref(),
            index: &index,
        };
        let (result, trace, back) = Recall::new(self, call, &store, caches)?.run()?;
        // Exit: the caches go back at the anchor they were taken at.
        if !call.anchored {
            if let Some(inputs) = &back.activation {
                index.store_activation(call.pairs, inputs);
            }
            if let Some((closed, bindings)) = back.folds {
                index.restore_folds(call.as_of, closed, bindings);
            }
            index.restore_counts(call.as_of, back.counts);
        }
        Ok((result, trace))
    }
}

/// One reconstruction in progress: the call, its read context, and what the
/// phases have built so far.
struct Recall<'a> {
    sys: &'a MemorySystem,
    call: &'a Call<'a>,
    /// The store as this recall reads it (index first).
    store: &'a IndexedStore<'a>,
    index: &'a RecallIndex,
    config: ReconstructConfig,
    working_set: bool,
    ablated: bool,
    /// Channels run (every ablation but pure recency).
    run_channels: bool,
    /// Candidate gathering is on (`max_candidates > 0`).
    gather: bool,
    base: std::collections::HashMap<String, ActivationScore>,
    trails: std::collections::HashMap<(String, String), f64>,
    /// The activation inputs were computed by this recall (the cache had none).
    fresh_activation: bool,
    folds: Folds<'a>,
    counts: HashMap<String, u64>,
    /// The exclusion folds' over-fetch per read.
    headroom: usize,
    /// The ablation's and the anchor's notes, after the warnings.
    notes: Vec<String>,
    warnings: Vec<String>,
    universe: HashMap<String, Candidate>,
    channels_run: Vec<&'static str>,
    params: SpreadParams,
    edges: Vec<WalkedEdge>,
    spread_cues: HashMap<String, Vec<String>>,
    self_members: Vec<String>,
    had_candidates: bool,
    pre_dropped: Vec<shelf::Drop>,
    ordered: Vec<String>,
    stm_hot: Vec<String>,
    stm_eligible: usize,
}

impl<'a> Recall<'a> {
    /// The call's settings, its activation inputs and its folds.
    fn new(
        sys: &'a MemorySystem,
        call: &'a Call<'a>,
        store: &'a IndexedStore<'a>,
        caches: Caches,
    ) -> Result<Self> {
        let ablated = sys.ablation.is_some();
        let mut config = match call.profile {
            Some(p) => sys.reconstruct.clone().with_profile(p),
            None => sys.reconstruct.clone(),
        };
        let mut notes: Vec<String> = Vec::new();
        match sys.ablation {
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
        let mut fresh_activation = false;
        let (base, trails) = if ablated {
            ActivationInputs::default()
        } else if let Some(inputs) = caches.activation {
            inputs
        } else {
            fresh_activation = !call.anchored;
            activation_inputs(sys.journal.as_ref(), call.pairs, call.as_of, &sys.attention)?
        };
        let folds = Folds::load(
            store,
            sys.journal.as_ref(),
            call.pairs,
            call.as_of,
            call.anchored,
            caches.folds,
        )?;
        if folds.future_records > 0 {
            notes.push(format!(
                "anchored recall (as_of={}): {} record(s) formed after the anchor excluded from the candidate \
                 universe; rows without formation bindings are ungated (store truth has no seq axis)",
                call.as_of, folds.future_records
            ));
        }
        let headroom = folds.exclusion_headroom(&caches.hidden, EXCLUSION_OVERFETCH_CAP)?;
        let budget = call.budget;
        let mut warnings: Vec<String> = Vec::new();
        if budget.deadline_s.is_some() {
            warnings.push(
                "#FALLBACK: deadline_s is not enforced by the v1 pure pipeline (no clock injection)"
                    .into(),
            );
        }
        let gather = budget.max_candidates > 0;
        if !gather {
            warnings.push("#FALLBACK: max_candidates <= 0 disables candidate gathering".into());
        }
        let params = SpreadParams {
            max_hops: budget.max_hops,
            max_edges: budget.max_edges,
            ..sys.spread.clone()
        };
        Ok(Recall {
            sys,
            call,
            store,
            index: store.index,
            config,
            working_set: call.view == View::WorkingSet,
            ablated,
            run_channels: sys.ablation != Some(Ablation::Recency),
            gather,
            base,
            trails,
            fresh_activation,
            folds,
            counts: caches.counts,
            headroom,
            notes,
            warnings,
            universe: HashMap::default(),
            channels_run: Vec::new(),
            params,
            edges: Vec::new(),
            spread_cues: HashMap::default(),
            self_members: Vec::new(),
            had_candidates: false,
            pre_dropped: Vec::new(),
            ordered: Vec::new(),
            stm_hot: Vec::new(),
            stm_eligible: 0,
        })
    }

    /// Every phase in order; the result, its trace (when wanted) and the
    /// caches to give back.
    fn run(mut self) -> Result<(ReconstructionResult, Option<ReconstructionTrace>, Caches)> {
        self.gather_recent()?;
        self.run_channels()?;
        self.spread()?;
        self.admit_self()?;
        self.filter_min_activation();
        self.order();
        self.stm_eligibility()?;
        let mut fill = self.fill();
        let handles = self.handles(&fill)?;
        let report = FillReport::take(&mut fill);
        let (result, dropped) = self.result(report, handles);
        let trace = self
            .call
            .want_trace
            .then(|| self.trace(&result, &dropped, &fill));
        let caches = self.into_caches();
        Ok((result, trace, caches))
    }

    fn base_of(&self, rid: &str) -> f64 {
        base_level(&self.base, rid)
    }

    /// Per pair, the newest `max_candidates` memberable rows (over-fetched by
    /// the exclusion headroom).
    fn gather_recent(&mut self) -> Result<()> {
        if !self.gather {
            return Ok(());
        }
        // The hybrid profile gathers from the indexes and keeps a shorter
        // newest window (`HybridConfig::newest_window`).
        let cap = self
            .config
            .hybrid
            .as_ref()
            .map_or(self.call.budget.max_candidates, |h| {
                h.newest_window.min(self.call.budget.max_candidates)
            });
        for (scope, owner) in self.call.pairs {
            let q = TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                limit: (cap + self.headroom) as i64,
                ..TripleQuery::default()
            };
            let rows = self.store.rows(&q)?;
            self.folds.prime(&rows)?;
            let mut kept = 0;
            for a in rows {
                if kept >= cap {
                    break;
                }
                if add_candidate(&mut self.universe, Cow::Owned(a), &self.folds)?.is_some() {
                    kept += 1;
                }
            }
        }
        Ok(())
    }

    /// The exact, vector, keyword and participants channels, in that order.
    fn run_channels(&mut self) -> Result<()> {
        let (call, store) = (self.call, self.store as &dyn RecallRead);
        let (stimulus, pairs, budget) = (call.stimulus, call.pairs, call.budget);
        if self.gather
            && self.run_channels
            && let Some(profile) = &self.config.hybrid
        {
            let inputs = hybrid::HybridInputs {
                store,
                inner: self.sys.store.as_ref(),
                index: self.index,
                folds: &self.folds,
                stimulus,
                pairs,
                budget,
                embedder: self.sys.embedder.as_deref(),
                headroom: self.headroom,
            };
            hybrid::run(
                &inputs,
                profile,
                &mut self.universe,
                &mut self.channels_run,
                &mut self.warnings,
            )?;
        } else if self.gather && self.run_channels {
            let mut exact = channels::run_exact(
                store,
                &self.folds,
                stimulus,
                pairs,
                budget,
                self.headroom,
                &mut self.warnings,
            )?;
            if exact.ran {
                self.channels_run.push("exact");
                apply_channel(&mut self.universe, &mut exact, &self.folds)?;
            }
            let knobs = VectorKnobs {
                embedder: self.sys.embedder.as_deref(),
                headroom: self.headroom,
                floor: self.config.vector_floor,
                margin: self.config.vector_margin,
                span: self.config.confidence_span,
            };
            let mut vector = channels::run_vector(
                store,
                &self.folds,
                stimulus,
                pairs,
                budget,
                &knobs,
                &mut self.warnings,
            )?;
            if vector.ran {
                self.channels_run.push("vector");
                apply_channel(&mut self.universe, &mut vector, &self.folds)?;
                if vector.results.is_empty()
                    && !self.universe.is_empty()
                    && !self.warnings.iter().any(|w| w.contains("below floor"))
                {
                    self.warnings.push(format!(
                        "#FALLBACK: vector channel ran but scored 0 of {} candidates — verify store-side vectors \
                         exist (vectorless rows, formed without an embedder, are invisible to semantic search: form \
                         them with the home's pinned embedder)",
                        self.universe.len()
                    ));
                }
            }
            let discovery = if self.config.keyword_discovery {
                self.keyword_discovery()?
            } else {
                None
            };
            let mut keyword = channels::run_keyword(
                &stimulus.cue_text,
                &universe_rows(&self.universe),
                discovery,
                Some(self.index),
                &mut self.warnings,
            );
            if keyword.ran {
                self.channels_run.push("keyword");
                apply_channel(&mut self.universe, &mut keyword, &self.folds)?;
            }
            let mut participants =
                channels::run_participants(stimulus, &universe_rows(&self.universe));
            if participants.ran {
                self.channels_run.push("participants");
                apply_channel(&mut self.universe, &mut participants, &self.folds)?;
            }
        }
        // Orientation admission (on by default, as in 0.3.2): a mentioned
        // target's current world-model card joins at direct-hit relevance.
        if self.gather && self.run_channels && self.config.orientation_admission {
            let mut oriented = orientation::run_orientation(
                store,
                &self.folds,
                stimulus,
                pairs,
                self.config.orientation_scan_limit,
                self.config.orientation_max_cards,
            )?;
            if oriented.ran {
                self.channels_run.push("orientation");
                apply_channel(&mut self.universe, &mut oriented, &self.folds)?;
            }
        }
        // Concept anchoring (opt-in): records sharing a discriminative
        // concept with a channel-matched candidate join as admissions.
        if self.gather && self.run_channels && self.config.concept_expansion {
            self.concept_expansion()?;
        }
        self.channels_run
            .sort_by_key(|c| shelf::CHANNEL_ORDER.iter().position(|x| x == c));
        Ok(())
    }

    /// `ReconstructConfig.concept_expansion`: the channel-matched candidates
    /// seed [`crate::concepts`]' expansion over the searched pairs; what it
    /// admits joins under the `concept` channel, its notes as warnings.
    fn concept_expansion(&mut self) -> Result<()> {
        let seeds: BTreeMap<String, &TripleAssertion> = self
            .universe
            .iter()
            .filter(|(_, c)| c.channel_matched())
            .map(|(rid, c)| (rid.clone(), &c.assertion))
            .collect();
        if seeds.is_empty() {
            return Ok(());
        }
        let folds = &self.folds;
        let excluded = |a: &TripleAssertion| -> Result<bool> {
            folds.prime(std::iter::once(a))?;
            folds.excluded(a)
        };
        let store = self.store;
        let (admissions, notes) = crate::concepts::expand_with(
            &|q| store.lend(q),
            &seeds,
            self.call.pairs,
            &excluded,
            &self.config.concept_tuning,
        )?;
        self.warnings.extend(notes);
        if admissions.is_empty() {
            return Ok(());
        }
        self.channels_run.push("concept");
        let mut out = channels::ChannelOutput {
            ran: true,
            ..channels::ChannelOutput::default()
        };
        for adm in admissions {
            out.results.push(channels::ChannelResult {
                record_id: adm.record_id.clone(),
                channel: "concept",
                score: adm.score,
                detail: channels::concept_detail(&adm.concepts),
            });
            out.found.insert(adm.record_id, adm.assertion);
        }
        apply_channel(&mut self.universe, &mut out, &self.folds)
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
    fn keyword_discovery(&mut self) -> Result<Option<Vec<TripleAssertion>>> {
        let tokens = am_triples::text::tokenize(
            &self.call.stimulus.cue_text,
            am_triples::text::RECALL_MIN_TOKEN_LEN,
        );
        if tokens.is_empty() {
            return Ok(None);
        }
        let (store, index) = (self.sys.store.as_ref(), self.index);
        let limit = self.call.budget.max_candidates;
        let mut rows = Vec::new();
        for (scope, owner) in self.call.pairs {
            let owner = (!owner.is_empty()).then_some(owner.as_str());
            if let Some(range) = index.position_range(scope, owner)
                && let Ok(Some(positions)) =
                    store.keyword_positions(&tokens, scope, owner, limit, range)
                && let Some(found) = index.rows_at(&positions)
            {
                rows.extend(found);
                continue;
            }
            match store.query_keywords(&tokens, scope, owner, limit) {
                Ok(found) => rows.extend(found),
                Err(e) if e.kind() == am_triples::ErrorKind::Unsupported => {
                    self.warnings.push(
                        "#FALLBACK: keyword discovery requested but the store has no FTS5 index — universe \
                         re-score only (token scan)"
                            .into(),
                    );
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(Some(rows))
    }

    /// Spreading: every pair walks from its own seeds, under one shared edge
    /// budget; a working set admits the rows it reaches. Then the
    /// `spread: via … from …` cues per reached record.
    fn spread(&mut self) -> Result<()> {
        if !self.ablated {
            for (scope, owner) in self.call.pairs {
                let remaining = self.params.max_edges.saturating_sub(self.edges.len());
                if remaining == 0 {
                    break;
                }
                let seeds: BTreeMap<String, f64> = self
                    .universe
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
                    .filter_map(|rid| self.universe.get(rid).map(|c| (rid.as_str(), &c.assertion)))
                    .collect();
                let walk = spreading::spread_activation(
                    &spreading::Walk {
                        store: self.store,
                        folds: &self.folds,
                        scope,
                        owner,
                        headroom: self.headroom,
                    },
                    &seeds,
                    &known,
                    &SpreadParams {
                        max_edges: remaining,
                        ..self.params.clone()
                    },
                    &self.trails,
                )?;
                self.edges.extend(walk.edges);
                if self.working_set {
                    let new_ids: Vec<String> = walk
                        .scores
                        .keys()
                        .filter(|r| !self.universe.contains_key(*r))
                        .cloned()
                        .collect();
                    let mut fetched: Vec<TripleAssertion> =
                        spreading::fetch_by_ids(self.store, &new_ids, scope, owner)?
                            .into_values()
                            .collect();
                    fetched.sort_by(|a, b| a.assertion_id.cmp(&b.assertion_id));
                    self.folds.prime(&fetched)?;
                    for a in fetched {
                        add_candidate(&mut self.universe, Cow::Owned(a), &self.folds)?;
                    }
                }
                for (rid, v) in walk.scores {
                    if let Some(c) = self.universe.get_mut(&rid) {
                        c.spread = c.spread.max(v);
                    }
                }
            }
        }
        for e in &self.edges {
            let cue = format!("spread: via {} from {}", e.predicate, e.source_id);
            let bucket = self.spread_cues.entry(e.target_id.clone()).or_default();
            if !bucket.contains(&cue) {
                bucket.push(cue);
            }
        }
        Ok(())
    }

    /// Self members: prompt-active bindings admit by state, in the canonical
    /// self-block order.
    fn admit_self(&mut self) -> Result<()> {
        if self.call.budget.self_fraction <= 0.0 {
            return Ok(());
        }
        let store = self.sys.store.as_ref();
        let mut members: Vec<String> = Vec::new();
        for (record_id, scope, owner) in self.folds.prompt_active()? {
            let mut assertion = self.universe.get(&record_id).map(|c| c.assertion.clone());
            if assertion.is_none() {
                assertion = spreading::fetch_by_ids(
                    store,
                    std::slice::from_ref(&record_id),
                    &scope,
                    &owner,
                )?
                .remove(&record_id);
            }
            if assertion.is_none() {
                assertion = store
                    .query(&TripleQuery {
                        subject: Some(record_id.clone()),
                        scope: Some(scope.clone()),
                        owner_id: (!owner.is_empty()).then(|| owner.clone()),
                        limit: 0,
                        ..TripleQuery::default()
                    })?
                    .into_iter()
                    .find(|a| DigestRow::of(a).flag("record_kind") && a.assertion_id.is_some());
            }
            let Some(a) = assertion else {
                continue;
            };
            if DigestRow::of(&a).kind() == Some(RecordKind::Dream) {
                continue;
            }
            let Some(c) = add_candidate(&mut self.universe, Cow::Owned(a), &self.folds)? else {
                continue;
            };
            let rid = c.record_id.clone();
            if !members.contains(&rid) {
                members.push(rid);
            }
        }
        // The system's own config, not this call's copy (an ablation clears
        // the copy's kind ranks; the self order never reads them).
        let config = &self.sys.reconstruct;
        let universe = &self.universe;
        members.sort_by(|a, b| {
            let ka = shelf::self_order_key(&config.kind_of(&universe[a].assertion));
            let kb = shelf::self_order_key(&config.kind_of(&universe[b].assertion));
            ka.cmp(&kb).then(a.cmp(b))
        });
        self.self_members = members;
        Ok(())
    }

    /// The working-set membership filter: below `min_activation` leaves the
    /// universe (never a channel match or a self member).
    fn filter_min_activation(&mut self) {
        self.had_candidates = !self.universe.is_empty();
        let Some(min) = self.call.budget.min_activation.filter(|_| self.working_set) else {
            return;
        };
        let mut ids: Vec<String> = self.universe.keys().cloned().collect();
        ids.sort();
        for rid in ids {
            let c = &self.universe[&rid];
            if c.channel_matched() || self.self_members.contains(&rid) {
                continue;
            }
            if self.base_of(&rid) + c.spread < min {
                let fused = c.fused();
                self.universe.remove(&rid);
                self.pre_dropped.push(shelf::Drop {
                    record_id: rid,
                    score: fused,
                    reason: crate::seam::DROP_BELOW_MIN_ACTIVATION,
                    duplicate_of: None,
                });
            }
        }
    }

    /// The member order (channel-matched first; fused score plus the
    /// activation boost).
    fn order(&mut self) {
        let base = &self.base;
        let attention = &self.sys.attention;
        self.ordered = shelf::order_members(
            &self.universe,
            &|rid| base_level(base, rid),
            &|b| attention.ranking_boost(b),
            &self.config,
        );
    }

    /// STM eligibility: the activation fold's base map (never a store scan).
    fn stm_eligibility(&mut self) -> Result<()> {
        let budget = self.call.budget;
        if !(self.gather && budget.stm_fraction > 0.0 && !self.base.is_empty()) {
            return Ok(());
        }
        let floor = budget.stm_floor.unwrap_or(self.config.stm_floor);
        let mut hot: Vec<(&String, f64)> = self
            .base
            .iter()
            .filter(|(_, s)| s.base_level >= floor)
            .map(|(r, s)| (r, s.base_level))
            .collect();
        hot.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        self.stm_hot = hot.into_iter().map(|(r, _)| r.clone()).collect();
        // Only the reserved-seat count needs the eligible (non-excluded)
        // prefix: hot ids outside the universe are checked lazily, up to
        // the STM seats; the fill resolves (and re-checks) the rest.
        let slots = shelf::fraction_slots(budget.stm_fraction, budget.shelf_size);
        for rid in &self.stm_hot {
            if self.stm_eligible >= slots {
                break;
            }
            if self.universe.contains_key(rid) || !self.folds.excluded_id(rid)? {
                self.stm_eligible += 1;
            }
        }
        Ok(())
    }

    /// The union fill over the ordered members, the self members and the
    /// trail-hot ids (a hot id outside the universe is resolved in the
    /// searched pairs).
    fn fill(&mut self) -> FillResult {
        let base = &self.base;
        let base_of = |rid: &str| base_level(base, rid);
        let inputs = FillInputs {
            ordered: &self.ordered,
            self_members: &self.self_members,
            stm_hot: &self.stm_hot,
            stm_eligible: self.stm_eligible,
            base_of: &base_of,
            budget: self.call.budget,
            working_set: self.working_set,
            dedup: self.config.shelf_dedup_identical_digests,
            newest_seats: self.config.newest_seat_guarantee,
        };
        let (folds, pairs) = (&self.folds, self.call.pairs);
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
                fused_score: None,
            })
        };
        fill_shelf(&mut self.universe, &inputs, &mut resolve)
    }

    /// One handle per seat, in seat order (the selected count at the anchor
    /// from the cache, else the journal).
    fn handles(&mut self, fill: &FillResult) -> Result<Vec<MemoryHandle>> {
        let mut handles: Vec<MemoryHandle> = Vec::with_capacity(fill.handle_order.len());
        for rid in &fill.handle_order {
            let c = &self.universe[rid];
            let contributions: Vec<String> = self
                .base
                .get(rid)
                .map(|s| s.contributions.clone())
                .unwrap_or_default();
            let cues = self.spread_cues.get(rid).cloned().unwrap_or_default();
            let binding = self.folds.binding_display(&c.assertion)?;
            let global_count = match self.counts.get(rid) {
                Some(n) => *n,
                None => {
                    let n = self
                        .sys
                        .journal
                        .selected_count(rid, Some(self.call.as_of))?;
                    if !self.call.anchored {
                        self.counts.insert(rid.clone(), n);
                    }
                    n
                }
            };
            handles.push(build_handle(
                c,
                HandleParts {
                    base_level: self.base_of(rid),
                    spread_cues: &cues,
                    contributions: &contributions,
                    digest: &fill.digests[rid],
                    binding,
                    admission: fill.admissions[rid],
                    global_count,
                },
                &self.config,
            ));
        }
        Ok(handles)
    }

    /// The result: stop reason, warnings (deduplicated, then the notes),
    /// drops, the budget report and the edges; also every drop in order, for
    /// the trace.
    fn result(
        &mut self,
        fill: FillReport,
        handles: Vec<MemoryHandle>,
    ) -> (ReconstructionResult, Vec<shelf::Drop>) {
        let budget = self.call.budget;
        let stop_reason = if !self.had_candidates && fill.handles == 0 {
            StopReason::NoCandidates
        } else if fill.token_exhausted {
            StopReason::BudgetExhausted
        } else {
            StopReason::Enough
        };
        let mut warnings = std::mem::take(&mut self.warnings);
        let mut seen = hash::HashSet::default();
        warnings.retain(|w| seen.insert(w.clone()));
        warnings.extend(std::mem::take(&mut self.notes));

        let dropped: Vec<shelf::Drop> = std::mem::take(&mut self.pre_dropped)
            .into_iter()
            .chain(fill.dropped)
            .collect();
        let considered = self.universe.len()
            + dropped
                .iter()
                .filter(|d| d.reason == crate::seam::DROP_BELOW_MIN_ACTIVATION)
                .count();
        let identity = budget.self_fraction > 0.0;
        let budget_spent = BudgetSpent {
            tokens_used: fill.tokens_used,
            token_budget: budget.token_budget,
            handles: fill.handles,
            stm_handles: fill.stm.0,
            stm_tokens_used: fill.stm.1,
            shelf_size: budget.shelf_size,
            edges_visited: self.edges.len(),
            max_edges: self.params.max_edges,
            candidates_considered: considered,
            self_handles: identity.then_some(fill.self_core.0),
            self_tokens_used: identity.then_some(fill.self_core.1),
        };
        let result = ReconstructionResult {
            trace_id: self.call.trace_id.to_owned(),
            view: self.call.view,
            as_of_seq: self.call.as_of,
            handles,
            edges: self.edges_out(fill.stm_slots),
            dropped: dropped
                .iter()
                .map(|d| DroppedEntry {
                    record_id: d.record_id.clone(),
                    score: d.score,
                    reason: d.reason,
                })
                .collect(),
            selector_route: "heuristic".into(),
            stop_reason,
            warnings,
            budget_spent,
        };
        (result, dropped)
    }

    /// A working set's edges: the walked ones, then the hottest pair trails
    /// the walk did not take (at most `max(stm seats, 2)`).
    fn edges_out(&self, stm_slots: usize) -> Vec<EdgeView> {
        let mut edges_out: Vec<EdgeView> = Vec::new();
        if !self.working_set {
            return edges_out;
        }
        edges_out.extend(self.edges.iter().cloned().map(EdgeView::Walked));
        if self.call.budget.stm_fraction > 0.0 && !self.trails.is_empty() {
            let walked: std::collections::HashSet<(String, String)> = self
                .edges
                .iter()
                .map(|e| {
                    let (a, b) = (e.source_id.clone(), e.target_id.clone());
                    if a <= b { (a, b) } else { (b, a) }
                })
                .collect();
            let mut ranked: Vec<(&(String, String), f64)> =
                self.trails.iter().map(|(p, v)| (p, *v)).collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            for (pair, v) in ranked.into_iter().take(stm_slots.max(2)) {
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
        edges_out
    }

    /// The trace a journaled recall appends (built only when wanted: the
    /// candidates sort, the JSON maps).
    fn trace(
        &self,
        result: &ReconstructionResult,
        dropped: &[shelf::Drop],
        fill: &FillResult,
    ) -> ReconstructionTrace {
        let stimulus = self.call.stimulus;
        let fingerprint = ids::query_fingerprint(&stimulus.cue_text, &stimulus.patterns);
        trace::build_trace(trace::TraceParts {
            result,
            stimulus,
            pairs: self.call.pairs,
            fingerprint: &fingerprint,
            channels: &self.channels_run,
            universe: &self.universe,
            dropped,
            admissions: &fill.admissions,
            budget: self.call.budget,
        })
    }

    /// The caches to give back: the folds grown by this call, the selected
    /// counts read, and the activation inputs when this call computed them.
    fn into_caches(self) -> Caches {
        let activation = self.fresh_activation.then_some((self.base, self.trails));
        Caches {
            folds: Some(self.folds.into_parts()),
            counts: self.counts,
            activation,
            hidden: HashSet::default(),
        }
    }
}

fn base_level(base: &std::collections::HashMap<String, ActivationScore>, rid: &str) -> f64 {
    base.get(rid).map_or(0.0, |s| s.base_level)
}

/// What the result reads of the fill (the rest stays for the trace).
struct FillReport {
    handles: usize,
    tokens_used: usize,
    token_exhausted: bool,
    stm_slots: usize,
    dropped: Vec<shelf::Drop>,
    /// `(handles, tokens)` admitted as `stm`.
    stm: (usize, usize),
    /// `(handles, tokens)` admitted as `self`.
    self_core: (usize, usize),
}

impl FillReport {
    /// The result's part of the fill; its drops move out.
    fn take(fill: &mut FillResult) -> Self {
        let by_label = |label: Admission| -> (usize, usize) {
            fill.admissions
                .iter()
                .filter(|(_, l)| **l == label)
                .fold((0, 0), |(n, t), (rid, _)| {
                    (n + 1, t + token_estimate(&fill.digests[rid]))
                })
        };
        let (stm, self_core) = (by_label(Admission::Stm), by_label(Admission::SelfCore));
        FillReport {
            handles: fill.handle_order.len(),
            tokens_used: fill.tokens_used,
            token_exhausted: fill.token_exhausted,
            stm_slots: fill.stm_slots,
            dropped: std::mem::take(&mut fill.dropped),
            stm,
            self_core,
        }
    }
}
