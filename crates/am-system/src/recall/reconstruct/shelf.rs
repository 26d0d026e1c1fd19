//! Shelf assembly: the candidate cell, fusion (max over channels), the member
//! order, the union fill (phase-0 top match, self, stimulus share, STM,
//! stimulus remainder), admission labels, dropped reasons and handle building.
//!
//! Spec: architecture.md "Reconstruction: the union working set";
//! algorithms.md §7 (`Candidate.fused`, `order_members`, `fill_shelf`,
//! `build_handle`); 0.3.2's `shelf.py` and `self_component.py`.

use super::hash::{HashMap, HashSet};
use crate::config::{RecallBudget, ReconstructConfig};
use crate::kinds;
use crate::record::DigestRow;
use crate::seam::{ActivationParts, Admission, DropReason, MemoryHandle, OrderedMap, PayloadTier};
use am_triples::text::{bound_title, display_title, handle_digest, is_record_digest};
use am_triples::{JsonMap, TripleAssertion, token_estimate};
use serde_json::Value;
use std::cmp::Ordering;

/// Fixed channel precedence (cue order, trace channel sort).
pub(crate) const CHANNEL_ORDER: &[&str] = &[
    "exact",
    "keyword",
    "vector",
    "participants",
    "concept",
    "orientation",
    "neighbour",
];

/// One record's accumulation cell across the pipeline stages.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    /// The assertion (a digest or a plain triple; never an edge).
    pub assertion: TripleAssertion,
    /// Its assertion id.
    pub record_id: String,
    /// Channel → score in 0..=1, in the order channels first scored it.
    pub relevance: OrderedMap<f64>,
    /// Channel → "why" details.
    pub details: HashMap<String, Vec<String>>,
    /// The spread this stimulus gave it (max over pairs).
    pub spread: f64,
    /// The fused score a profile's own fusion gave it (the hybrid profile);
    /// `None`: fusion v1.
    pub fused_score: Option<f64>,
}

impl Candidate {
    /// Fusion v1: the max channel score (0 when unmatched), unless a
    /// profile's fusion set [`Candidate::fused_score`].
    pub(crate) fn fused(&self) -> f64 {
        if let Some(f) = self.fused_score {
            return f;
        }
        self.relevance
            .iter()
            .map(|(_, v)| *v)
            .fold(None, |acc: Option<f64>, v| {
                Some(acc.map_or(v, |a| a.max(v)))
            })
            .unwrap_or(0.0)
    }

    /// Whether any channel scored it.
    pub(crate) fn channel_matched(&self) -> bool {
        !self.relevance.is_empty()
    }
}

/// Whether an assertion may be a shelf member: it has an id, and it is neither
/// a record edge (edges conduct, never members) nor bookkeeping.
pub(crate) fn memberable(a: &TripleAssertion) -> bool {
    a.assertion_id.as_deref().is_some_and(|s| !s.is_empty())
        && !DigestRow::of(a).is_edge()
        && !DigestRow::of(a).flag("bookkeeping")
}

/// The 0.3.2 member order: channel-matched first, exact hits first, then
/// `fused + boost(base)/1000` descending, kind rank, `observed_at` descending,
/// record id ascending.
pub(crate) fn order_members(
    universe: &HashMap<String, Candidate>,
    base_of: &dyn Fn(&str) -> f64,
    boost: &dyn Fn(f64) -> f64,
    config: &ReconstructConfig,
) -> Vec<String> {
    struct Key<'a> {
        rid: &'a str,
        unmatched: bool,
        not_exact: bool,
        score: f64,
        rank: i64,
        observed: &'a str,
    }
    let mut keys: Vec<Key<'_>> = universe
        .iter()
        .map(|(rid, c)| Key {
            rid,
            unmatched: !c.channel_matched(),
            not_exact: !c.relevance.contains_key("exact"),
            score: c.fused() + boost(base_of(rid)) / 1000.0,
            rank: config.rank_of(&config.kind_of(&c.assertion)),
            observed: c.assertion.observed_at.as_str(),
        })
        .collect();
    keys.sort_by(|a, b| {
        a.unmatched
            .cmp(&b.unmatched)
            .then(a.not_exact.cmp(&b.not_exact))
            .then(b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal))
            .then(a.rank.cmp(&b.rank))
            .then(b.observed.cmp(a.observed))
            .then(a.rid.cmp(b.rid))
    });
    keys.into_iter().map(|k| k.rid.to_owned()).collect()
}

/// One dropped candidate as the trace stores it (`duplicate_of` only on
/// `duplicate_digest` drops).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Drop {
    /// The candidate.
    pub record_id: String,
    /// Its fused score (base activation for STM drops; 0 for self drops).
    pub score: f64,
    /// The reason.
    pub reason: DropReason,
    /// The seated record whose digest it repeats.
    pub duplicate_of: Option<String>,
}

impl Drop {
    fn new(record_id: &str, score: f64, reason: DropReason) -> Self {
        Drop {
            record_id: record_id.to_owned(),
            score,
            reason,
            duplicate_of: None,
        }
    }

    /// The JSON object form (`{record_id, score, reason[, duplicate_of]}`).
    pub(crate) fn to_json(&self) -> JsonMap {
        let mut m = JsonMap::new();
        m.insert("record_id".into(), Value::String(self.record_id.clone()));
        m.insert("score".into(), Value::from(self.score));
        m.insert(
            "reason".into(),
            Value::String(self.reason.as_str().to_owned()),
        );
        if let Some(d) = &self.duplicate_of {
            m.insert("duplicate_of".into(), Value::String(d.clone()));
        }
        m
    }
}

/// What the union fill hands back.
#[derive(Debug, Default)]
pub(crate) struct FillResult {
    /// Self block, then STM block, then stimulus block.
    pub handle_order: Vec<String>,
    /// Record → admission label.
    pub admissions: HashMap<String, Admission>,
    /// Drops in the order they were decided.
    pub dropped: Vec<Drop>,
    /// Record → handle digest.
    pub digests: HashMap<String, String>,
    /// Tokens the shelf spent.
    pub tokens_used: usize,
    /// Whether some candidate did not fit the token budget.
    pub token_exhausted: bool,
    /// STM seats of the budget.
    pub stm_slots: usize,
}

/// The inputs of [`fill_shelf`] besides the universe.
pub(crate) struct FillInputs<'a> {
    /// The member order.
    pub ordered: &'a [String],
    /// Self members, in seat order.
    pub self_members: &'a [String],
    /// Trail-hot ids at or above the STM floor, hottest first (excluded ids
    /// included: the resolver refuses them).
    pub stm_hot: &'a [String],
    /// How many of `stm_hot`'s leading ids are eligible, counted up to the STM
    /// seats (the reserved-seat arithmetic needs no more).
    pub stm_eligible: usize,
    /// Base activation of a record (0 when cold).
    pub base_of: &'a dyn Fn(&str) -> f64,
    /// The budget.
    pub budget: &'a RecallBudget,
    /// Whether the view is `working_set`.
    pub working_set: bool,
    /// Byte-identical digests take one seat.
    pub dedup: bool,
    /// Seats guaranteed to the newest-formed channel matches (0 = off).
    pub newest_seats: usize,
}

/// Python's `round()` on a non-negative float (half to even).
fn py_round(x: f64) -> usize {
    x.round_ties_even().max(0.0) as usize
}

/// `max(1, round(fraction × shelf))` capped at the shelf, 0 when the fraction is 0.
pub(crate) fn fraction_slots(fraction: f64, shelf: usize) -> usize {
    if fraction > 0.0 {
        shelf.min(py_round(fraction * shelf as f64).max(1))
    } else {
        0
    }
}

/// The C3 v1.2 union fill (algorithms.md §7 `fill_shelf`, with 0.3.2's
/// newest-seat guarantee when `newest_seats > 0`). `resolve_stm` turns a hot id that is not in the
/// universe into a member (or `None` when it is unresolvable in the searched
/// pairs, an edge, or excluded); it inserts it into `universe` itself.
pub(crate) fn fill_shelf(
    universe: &mut HashMap<String, Candidate>,
    inp: &FillInputs<'_>,
    resolve_stm: &mut dyn FnMut(&str) -> Option<Candidate>,
) -> FillResult {
    let mut fill = Fill::new(universe, inp);
    fill.seat_top();
    fill.seat_self();
    fill.fill_stimulus(
        fill.placed.len().max(
            fill.shelf_cap
                .saturating_sub(fill.stm_reserved_slots)
                .saturating_sub(fill.self_placed.len()),
        ),
        fill.total_tokens.saturating_sub(fill.stm_reserved_tokens),
    );
    fill.seat_stm(resolve_stm);
    // Stimulus remainder: unused reservations return to the stimulus order.
    fill.fill_stimulus(
        fill.shelf_cap
            .saturating_sub(fill.stm_placed.len())
            .saturating_sub(fill.self_placed.len()),
        fill.total_tokens,
    );
    fill.seat_newest();
    fill.drop_unseated();
    fill.finish()
}

/// One union fill in progress: the universe, the inputs, the seats so far
/// (stimulus, self and STM blocks) and the digests they hold.
struct Fill<'u, 'i> {
    universe: &'u mut HashMap<String, Candidate>,
    inp: &'i FillInputs<'i>,
    shelf_cap: usize,
    total_tokens: usize,
    stm_slots: usize,
    self_slots: usize,
    self_tokens_cap: usize,
    stm_reserved_slots: usize,
    stm_reserved_tokens: usize,
    r: FillResult,
    placed_digests: HashSet<String>,
    digest_owner: HashMap<String, String>,
    duplicate_of: HashMap<String, String>,
    dup_dropped: HashSet<String>,
    /// The phase-0 and stimulus seats (and the newest-seat guarantee's).
    placed: Vec<String>,
    self_placed: Vec<String>,
    stm_placed: Vec<String>,
    placed_set: HashSet<String>,
    top_matched: Option<String>,
    newest_evicted: HashSet<String>,
}

impl<'u, 'i> Fill<'u, 'i> {
    fn new(universe: &'u mut HashMap<String, Candidate>, inp: &'i FillInputs<'i>) -> Self {
        let budget = inp.budget;
        let shelf_cap = budget.shelf_size;
        let total_tokens = budget.token_budget;
        let stm_fraction = budget.stm_fraction.max(0.0);
        let self_fraction = budget.self_fraction.max(0.0);
        let stm_slots = fraction_slots(stm_fraction, shelf_cap);
        let mut r = FillResult {
            stm_slots,
            ..FillResult::default()
        };
        for rid in inp.ordered {
            r.digests
                .insert(rid.clone(), handle_digest(&universe[rid].assertion));
        }
        Fill {
            shelf_cap,
            total_tokens,
            stm_slots,
            self_slots: fraction_slots(self_fraction, shelf_cap),
            self_tokens_cap: (self_fraction * total_tokens as f64) as usize,
            stm_reserved_slots: stm_slots.min(inp.stm_eligible),
            stm_reserved_tokens: if inp.stm_eligible == 0 {
                0
            } else {
                (stm_fraction * total_tokens as f64) as usize
            },
            r,
            universe,
            inp,
            placed_digests: HashSet::default(),
            digest_owner: HashMap::default(),
            duplicate_of: HashMap::default(),
            dup_dropped: HashSet::default(),
            placed: Vec::new(),
            self_placed: Vec::new(),
            stm_placed: Vec::new(),
            placed_set: HashSet::default(),
            top_matched: None,
            newest_evicted: HashSet::default(),
        }
    }

    /// Whether `rid`'s digest repeats a seated one (with dedup on).
    fn is_dup(&self, rid: &str) -> bool {
        self.inp.dedup
            && self
                .r
                .digests
                .get(rid)
                .is_some_and(|d| self.placed_digests.contains(d))
    }

    /// Record `rid`'s digest as seated (its first seat owns it).
    fn register(&mut self, rid: &str) {
        if !self.inp.dedup {
            return;
        }
        if let Some(d) = self.r.digests.get(rid) {
            self.placed_digests.insert(d.clone());
            self.digest_owner
                .entry(d.clone())
                .or_insert_with(|| rid.to_owned());
        }
    }

    /// Seats taken in every block.
    fn seated(&self) -> usize {
        self.placed.len() + self.self_placed.len() + self.stm_placed.len()
    }

    /// `rid`'s digest, computed (and kept) if it has none yet.
    fn digest(&mut self, rid: &str) -> String {
        let universe = &*self.universe;
        self.r
            .digests
            .entry(rid.to_owned())
            .or_insert_with(|| handle_digest(&universe[rid].assertion))
            .clone()
    }

    /// Phase 0: the best channel match seats against the full budget.
    fn seat_top(&mut self) {
        let universe = &*self.universe;
        self.top_matched = self
            .inp
            .ordered
            .iter()
            .find(|rid| universe[*rid].channel_matched())
            .cloned();
        if let Some(top) = self.top_matched.clone()
            && self.shelf_cap >= 1
        {
            let estimate = token_estimate(&self.r.digests[&top]);
            if estimate <= self.total_tokens {
                self.placed.push(top.clone());
                self.placed_set.insert(top.clone());
                self.register(&top);
                self.r.tokens_used += estimate;
            } else {
                self.r.token_exhausted = true;
            }
        }
    }

    /// Self: binding-state admission; the first member seats against the
    /// whole remaining budget, later ones within the self token cap.
    fn seat_self(&mut self) {
        let mut self_tokens_used = 0usize;
        if self.self_slots > 0 {
            for rid in self.inp.self_members {
                if self.self_placed.len() >= self.self_slots || self.seated() >= self.shelf_cap {
                    break;
                }
                if self.placed_set.contains(rid) {
                    continue;
                }
                let estimate = token_estimate(&self.digest(rid));
                if self.self_placed.is_empty() {
                    if self.r.tokens_used + estimate > self.total_tokens {
                        self.r.token_exhausted = true;
                        self.r
                            .dropped
                            .push(Drop::new(rid, 0.0, DropReason::SelfCapped));
                        continue;
                    }
                } else if self_tokens_used + estimate
                    > self
                        .self_tokens_cap
                        .min(self.total_tokens.saturating_sub(self.r.tokens_used))
                {
                    self.r
                        .dropped
                        .push(Drop::new(rid, 0.0, DropReason::SelfCapped));
                    continue;
                }
                self.self_placed.push(rid.clone());
                self.placed_set.insert(rid.clone());
                self.register(rid);
                self_tokens_used += estimate;
            }
        }
        self.r.tokens_used += self_tokens_used;
    }

    /// The stimulus order seats up to `slot_cap` stimulus seats within
    /// `token_cap` tokens; a repeated digest is remembered as a duplicate.
    fn fill_stimulus(&mut self, slot_cap: usize, token_cap: usize) {
        for rid in self.inp.ordered {
            if self.placed_set.contains(rid) {
                continue;
            }
            if self.is_dup(rid) {
                let owner = self
                    .digest_owner
                    .get(self.r.digests.get(rid).map_or("", String::as_str))
                    .cloned()
                    .unwrap_or_default();
                self.duplicate_of.entry(rid.clone()).or_insert(owner);
                continue;
            }
            if self.placed.len() >= slot_cap {
                break;
            }
            let estimate = token_estimate(&self.r.digests[rid]);
            if self.r.tokens_used + estimate > token_cap {
                self.r.token_exhausted = true;
                continue;
            }
            self.placed.push(rid.clone());
            self.placed_set.insert(rid.clone());
            self.register(rid);
            self.r.tokens_used += estimate;
        }
    }

    /// STM: trail-hot standing under its own caps (a hot id outside the
    /// universe is resolved into it).
    fn seat_stm(&mut self, resolve_stm: &mut dyn FnMut(&str) -> Option<Candidate>) {
        let inp = self.inp;
        let mut stm_tokens_used = 0usize;
        if inp.stm_eligible > 0 {
            let stm_token_cap = self
                .stm_reserved_tokens
                .min(self.total_tokens.saturating_sub(self.r.tokens_used));
            for rid in inp.stm_hot {
                if self.stm_placed.len() >= self.stm_slots || self.seated() >= self.shelf_cap {
                    break;
                }
                if self.placed_set.contains(rid) {
                    continue;
                }
                if !self.universe.contains_key(rid) {
                    let Some(c) = resolve_stm(rid) else {
                        continue;
                    };
                    self.r
                        .digests
                        .insert(rid.clone(), handle_digest(&c.assertion));
                    self.universe.insert(rid.clone(), c);
                }
                if inp.working_set
                    && let Some(min) = inp.budget.min_activation
                    && (inp.base_of)(rid) + self.universe[rid].spread < min
                {
                    continue;
                }
                let digest = self.digest(rid);
                let estimate = token_estimate(&digest);
                if self.is_dup(rid) {
                    let owner = self.digest_owner.get(&digest).cloned().unwrap_or_default();
                    let owner = self
                        .duplicate_of
                        .entry(rid.clone())
                        .or_insert(owner)
                        .clone();
                    let mut d = Drop::new(rid, (inp.base_of)(rid), DropReason::DuplicateDigest);
                    d.duplicate_of = Some(owner);
                    self.r.dropped.push(d);
                    self.dup_dropped.insert(rid.clone());
                    continue;
                }
                if stm_tokens_used + estimate > stm_token_cap {
                    self.r
                        .dropped
                        .push(Drop::new(rid, (inp.base_of)(rid), DropReason::StmCapped));
                    continue;
                }
                self.stm_placed.push(rid.clone());
                self.placed_set.insert(rid.clone());
                self.register(rid);
                stm_tokens_used += estimate;
            }
        }
        self.r.tokens_used += stm_tokens_used;
    }

    /// Newest-seat guarantee (off by default): the newest-formed channel
    /// matches get a seat; the lowest-ordered stimulus seat yields (never
    /// self, STM, the phase-0 match or another newest candidate).
    fn seat_newest(&mut self) {
        if self.inp.newest_seats == 0 || self.shelf_cap < 1 {
            return;
        }
        let universe = &*self.universe;
        let mut newest: Vec<&String> = universe
            .iter()
            .filter(|(_, c)| c.channel_matched())
            .map(|(rid, _)| rid)
            .collect();
        newest.sort_by(|a, b| {
            (universe[*b].assertion.observed_at.as_str(), b.as_str())
                .cmp(&(universe[*a].assertion.observed_at.as_str(), a.as_str()))
        });
        newest.truncate(self.inp.newest_seats);
        let newest: Vec<String> = newest.into_iter().cloned().collect();
        let inp = self.inp;
        let order_index: HashMap<&str, usize> = inp
            .ordered
            .iter()
            .enumerate()
            .map(|(i, r)| (r.as_str(), i))
            .collect();
        let mut protected: HashSet<String> = newest.iter().cloned().collect();
        for rid in &newest {
            if self.placed_set.contains(rid) || self.is_dup(rid) {
                continue;
            }
            let estimate = token_estimate(&self.digest(rid));
            let mut freed = 0;
            let mut evicted: Option<String> = None;
            if self.seated() >= self.shelf_cap {
                let (placed, top_matched) = (&self.placed, &self.top_matched);
                evicted = placed
                    .iter()
                    .filter(|p| {
                        let seated_top = Some(*p) == top_matched.as_ref()
                            && placed.first() == top_matched.as_ref();
                        !(protected.contains(*p) || seated_top)
                    })
                    .max_by_key(|p| order_index.get(p.as_str()).copied().unwrap_or(0))
                    .cloned();
                let Some(victim) = &evicted else {
                    self.r.dropped.push(Drop::new(
                        rid,
                        self.universe[rid].fused(),
                        DropReason::NewestSeatNoEvictable,
                    ));
                    continue;
                };
                freed = token_estimate(&self.r.digests[victim]);
            }
            if self.r.tokens_used - freed + estimate > self.total_tokens {
                self.r.dropped.push(Drop::new(
                    rid,
                    self.universe[rid].fused(),
                    DropReason::NewestSeatCapped,
                ));
                continue;
            }
            if let Some(victim) = evicted {
                self.placed.retain(|p| *p != victim);
                self.placed_set.remove(&victim);
                if let Some(d) = self.r.digests.get(&victim)
                    && self.digest_owner.get(d) == Some(&victim)
                {
                    self.placed_digests.remove(d);
                    self.digest_owner.remove(d);
                }
                self.r.tokens_used -= freed;
                self.r.dropped.push(Drop::new(
                    &victim,
                    self.universe[&victim].fused(),
                    DropReason::NewestSeatYielded,
                ));
                self.newest_evicted.insert(victim);
            }
            self.placed.push(rid.clone());
            self.placed_set.insert(rid.clone());
            self.register(rid);
            self.r.tokens_used += estimate;
            protected.insert(rid.clone());
        }
    }

    /// Every ordered member left without a seat is dropped: as a duplicate
    /// digest, or for the budget or the shelf.
    fn drop_unseated(&mut self) {
        for rid in self.inp.ordered {
            if self.placed_set.contains(rid)
                || self.dup_dropped.contains(rid)
                || self.newest_evicted.contains(rid)
            {
                continue;
            }
            let fused = self.universe[rid].fused();
            if self.duplicate_of.contains_key(rid) || self.is_dup(rid) {
                let owner = self.duplicate_of.get(rid).cloned().unwrap_or_else(|| {
                    self.digest_owner
                        .get(self.r.digests.get(rid).map_or("", String::as_str))
                        .cloned()
                        .unwrap_or_default()
                });
                let mut d = Drop::new(rid, fused, DropReason::DuplicateDigest);
                d.duplicate_of = Some(owner);
                self.r.dropped.push(d);
                continue;
            }
            let reason = if self.r.token_exhausted {
                DropReason::BudgetExhausted
            } else {
                DropReason::BelowShelf
            };
            self.r.dropped.push(Drop::new(rid, fused, reason));
        }
    }

    /// Admission labels: self > both > stm > stimulus; an STM-fill seat is
    /// always `stm`, `both` only for stimulus-fill seats that are trail-hot.
    /// Then the handle order: self block, STM block, stimulus block.
    fn finish(self) -> FillResult {
        let mut r = self.r;
        let stm_hot_set: HashSet<&str> = self.inp.stm_hot.iter().map(String::as_str).collect();
        let self_set: HashSet<&str> = if self.self_slots > 0 {
            self.inp.self_members.iter().map(String::as_str).collect()
        } else {
            HashSet::default()
        };
        for rid in &self.stm_placed {
            let label = if self_set.contains(rid.as_str()) {
                Admission::SelfCore
            } else {
                Admission::Stm
            };
            r.admissions.insert(rid.clone(), label);
        }
        for rid in &self.self_placed {
            r.admissions.insert(rid.clone(), Admission::SelfCore);
        }
        for rid in &self.placed {
            let label = if self_set.contains(rid.as_str()) {
                Admission::SelfCore
            } else if stm_hot_set.contains(rid.as_str()) {
                if self.universe[rid].channel_matched() {
                    Admission::Both
                } else {
                    Admission::Stm
                }
            } else {
                Admission::Stimulus
            };
            r.admissions.insert(rid.clone(), label);
        }
        r.handle_order = self
            .self_placed
            .into_iter()
            .chain(self.stm_placed)
            .chain(self.placed)
            .collect();
        r
    }
}

/// Everything a handle carries besides its candidate.
pub(crate) struct HandleParts<'a> {
    /// Base activation.
    pub base_level: f64,
    /// `spread: via … from …` cues.
    pub spread_cues: &'a [String],
    /// The activation fold's reasons.
    pub contributions: &'a [String],
    /// The handle digest.
    pub digest: &'a str,
    /// The folded binding display string.
    pub binding: String,
    /// The admission label.
    pub admission: Admission,
    /// The never-decaying selected count at the anchor.
    pub global_count: u64,
}

/// Build one handle (algorithms.md §7 `build_handle`).
pub(crate) fn build_handle(
    c: &Candidate,
    p: HandleParts<'_>,
    config: &ReconstructConfig,
) -> MemoryHandle {
    let a = &c.assertion;
    let row = DigestRow::of(a);
    let mut cues: Vec<String> = Vec::new();
    for ch in CHANNEL_ORDER {
        if let Some(d) = c.details.get(*ch) {
            cues.extend(d.iter().cloned());
        }
    }
    cues.extend(p.spread_cues.iter().cloned());
    cues.extend(p.contributions.iter().cloned());
    if cues.is_empty() {
        if p.admission == Admission::Stm {
            cues.push(format!("stm: trail-hot (base_level {:.1})", p.base_level));
        } else {
            cues.push(format!(
                "recent: scope {}/{}",
                a.scope,
                a.owner_id.as_deref().unwrap_or("")
            ));
        }
    }
    // A formed record whose title is pending (or missing) reads `None`,
    // never a placeholder or its body's words (api.md "Formation"); a plain
    // triple keeps 0.3.2's bounded `"s p o"` display title.
    let title = if is_record_digest(a) {
        row.served_title().map(|t| bound_title(&t))
    } else {
        Some(match row.title() {
            Some(t) => bound_title(t),
            None => display_title(a),
        })
    };
    let payload_tiers = if row.payload_ref().is_some() {
        vec![PayloadTier::Digest, PayloadTier::Raw]
    } else {
        vec![PayloadTier::Digest]
    };
    let mut prov = JsonMap::new();
    prov.insert("observed_at".into(), Value::String(a.observed_at.clone()));
    if let Some(conf) = a.confidence {
        prov.insert("confidence".into(), Value::from(conf));
    }
    if !a.provenance.is_empty() {
        prov.insert(
            "assertion_provenance".into(),
            Value::Object(a.provenance.clone()),
        );
    }
    if row.as_stored("record_kind").is_some() {
        prov.insert("record_id".into(), Value::String(a.subject.clone()));
    }
    if let Some(t) = row.text("topic") {
        prov.insert("topic".into(), Value::String(t.to_owned()));
    }
    prov.insert("global_count".into(), Value::from(p.global_count));
    for key in ["entry_id", "diary_type", "phase"] {
        if let Some(v) = row.text(key) {
            prov.insert(key.into(), Value::String(v.to_owned()));
        }
    }
    MemoryHandle {
        record_id: c.record_id.clone(),
        kind: config.kind_of(a),
        title,
        digest: p.digest.to_owned(),
        token_estimate: token_estimate(p.digest),
        relevance: c.relevance.clone(),
        activation: ActivationParts {
            base_level: p.base_level,
            spread: c.spread,
            total: p.base_level + c.spread,
        },
        cues,
        binding: p.binding,
        scope: a.scope.clone(),
        owner_id: a.owner_id.clone().unwrap_or_default(),
        provenance: prov,
        payload_tiers,
        admission: p.admission,
    }
}

/// The canonical self-block order: `KIND_RANKS` (not the configured ranks),
/// then record id.
pub(crate) fn self_order_key(kind: &str) -> i64 {
    kinds::KIND_RANKS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(kinds::DEFAULT_KIND_RANK, |(_, r)| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: &str, observed: &str, keyword: Option<f64>) -> (String, Candidate) {
        let mut a = TripleAssertion::new(id, "says", &format!("text of {id}"));
        a.assertion_id = Some(id.into());
        a.observed_at = observed.into();
        let mut relevance = OrderedMap::new();
        if let Some(k) = keyword {
            relevance.insert("keyword", k);
        }
        (
            id.to_owned(),
            Candidate {
                assertion: a,
                record_id: id.into(),
                relevance,
                details: HashMap::default(),
                spread: 0.0,
                fused_score: None,
            },
        )
    }

    #[test]
    fn the_newest_seat_guarantee_evicts_the_lowest_ordered_stimulus_seat() {
        let mut universe: HashMap<String, Candidate> = [
            cand("a", "2026-01-01T00:00:00.000000+00:00", Some(1.0)),
            cand("b", "2026-01-02T00:00:00.000000+00:00", Some(0.9)),
            cand("c", "2026-01-03T00:00:00.000000+00:00", Some(0.1)),
        ]
        .into_iter()
        .collect();
        let config = ReconstructConfig::default();
        let ordered = order_members(&universe, &|_| 0.0, &|_| 0.0, &config);
        assert_eq!(ordered, ["a", "b", "c"]);
        let budget = RecallBudget {
            shelf_size: 2,
            stm_fraction: 0.0,
            ..RecallBudget::default()
        };
        let run = |universe: &mut HashMap<String, Candidate>, newest_seats| {
            let inp = FillInputs {
                ordered: &ordered,
                self_members: &[],
                stm_hot: &[],
                stm_eligible: 0,
                base_of: &|_| 0.0,
                budget: &budget,
                working_set: false,
                dedup: true,
                newest_seats,
            };
            fill_shelf(universe, &inp, &mut |_| None)
        };
        let off = run(&mut universe, 0);
        assert_eq!(off.handle_order, ["a", "b"]);
        let on = run(&mut universe, 1);
        // The newest match (c) takes the seat of the lowest-ordered one (b);
        // the phase-0 top match (a) is never the victim.
        assert_eq!(on.handle_order, ["a", "c"]);
        assert_eq!(
            on.dropped
                .iter()
                .map(|d| (d.record_id.as_str(), d.reason))
                .collect::<Vec<_>>(),
            [("b", DropReason::NewestSeatYielded)]
        );
    }
}
