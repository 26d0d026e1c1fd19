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
//! The gather reads the ladder through two in-process mirrors kept fresh
//! from the journal's tail and the store's change feed: the formed rows and
//! formation bindings ([`mirror`]) and the valence streams
//! (`valence::index`, which `gradation` keeps too). A `MemorySystem` keeps
//! both between cards, so a card reads only what is new plus the few rows it
//! shows; [`identity_card`] over a bare store and journal builds them for
//! its one card.
//!
//! The composition is [`identity_card`] over a store and journal (0.3.2's
//! module function) and [`crate::MemorySystem::entity_card`]; beside the
//! spec's seven sections it carries 0.3.2's `problems` and `lessons`.
//!
//! Spec: api.md "Entity identity card"; memory-system.md "Observability: the
//! replay stream and the identity card"; operator.md §2.

pub(crate) mod mirror;

use crate::error::{Error, Result};
use crate::kinds::RecordKind;
use crate::pair_folds::PairFolds;
use crate::recall::reconstruct::hash::{HashMap as FastMap, HashSet as FastSet};
use crate::record::DigestRow;
use crate::seam::OrderedMap;
use crate::valence::index::{PairValence, ValenceIndex};
use am_journal::Lifecycle;
use am_journal::{ClosureFilter, ClosureKind, MemoryJournal, ValenceEvent, ValenceKind};
use am_triples::{TripleAssertion, TripleStore};
use mirror::{LadderMirror, PairMirror};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::num::NonZeroUsize;

/// Valence at or above this magnitude is a key moment (the standing-peak
/// band: scars and bonds break at 8).
pub const KEY_MOMENT_MAGNITUDE: f64 = 8.0;
/// The most recent key moments a card keeps (chronological).
pub const KEY_MOMENTS_BOUND: usize = 20;
/// How many reasons `current_state` names.
pub const TOP_REASONS_BOUND: usize = 5;

/// One read of a home's ladder at an anchor: what the history axis counts
/// (formed rows that existed then), the belief axis's rows (the closure and
/// hidden folds applied) of the kinds the sections show, and the ladder's
/// valence streams.
pub struct CardGather {
    /// The normalized `(scope, owner)` ladder.
    pub pairs: Vec<(String, String)>,
    /// The anchor seq.
    pub anchor: i64,
    mirror: LadderMirror,
    valence: ValenceIndex,
    /// Every closed assertion id at the anchor.
    closed: HashSet<String>,
    /// Per pair, the rows its latest-hidden bindings exclude.
    hidden: Vec<HashSet<String>>,
    /// Per pair: the kinds of its history in order of first appearance
    /// (chronological), with their counts.
    kind_counts: Vec<Vec<(String, usize)>>,
    /// Formed rows that existed at the anchor, over every pair.
    history_len: usize,
    /// The smallest and largest non-blank `observed_at` of those rows.
    history_stamps: Option<(String, String)>,
    /// The first dream and the first interest of the history, when any.
    firsts: Vec<(&'static str, TripleAssertion)>,
    /// Believed diary entries, chronological.
    diary: Vec<TripleAssertion>,
    /// Believed interests, chronological, with their folded lifecycle.
    interests: Vec<(TripleAssertion, Option<Lifecycle>)>,
    /// Believed dreams, chronological.
    dreams: Vec<TripleAssertion>,
    /// What believed rows `explores`.
    explores: HashSet<String>,
    /// Believed lessons.
    lessons_total: usize,
    /// The newest [`KEY_MOMENTS_BOUND`] believed lessons, newest first.
    lesson_candidates: Vec<TripleAssertion>,
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

/// One formed row of one ladder pair: (pair position, row number).
type At = (usize, u32);

impl CardGather {
    /// Read the ladder `pairs` at `as_of` (`None` = the head), building the
    /// mirrors for this one read.
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
        Self::over(
            LadderMirror::default(),
            ValenceIndex::default(),
            store,
            journal,
            pairs,
            as_of,
        )
    }

    /// [`CardGather::load`] through mirrors kept from earlier reads (caught
    /// up here); [`CardGather::into_mirrors`] hands them back.
    pub(crate) fn over(
        mut mirror: LadderMirror,
        mut valence: ValenceIndex,
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
        mirror.refresh(store, journal, &norm, current)?;
        for (scope, owner) in &norm {
            valence.pair(journal, scope, owner, current)?;
        }
        let (closed, hidden) = PairFolds::load_exclusions_by_pair(store, journal, &norm, anchor)?;
        let mut g = CardGather {
            pairs: norm,
            anchor,
            mirror,
            valence,
            closed,
            hidden,
            kind_counts: Vec::new(),
            history_len: 0,
            history_stamps: None,
            firsts: Vec::new(),
            diary: Vec::new(),
            interests: Vec::new(),
            dreams: Vec::new(),
            explores: HashSet::new(),
            lessons_total: 0,
            lesson_candidates: Vec::new(),
        };
        g.gather(store)?;
        Ok(g)
    }

    /// The mirrors, caught up, for the next read.
    pub(crate) fn into_mirrors(self) -> (LadderMirror, ValenceIndex) {
        (self.mirror, self.valence)
    }

    /// The mirror of the ladder's pair `i`.
    fn pair(&self, i: usize) -> Result<&PairMirror> {
        let (scope, owner) = &self.pairs[i];
        self.mirror
            .pair(scope, owner)
            .ok_or_else(|| Error::internal("the card's mirror lacks a pair it was refreshed for"))
    }

    /// The valence streams of the ladder, in ladder order.
    fn streams(&self) -> impl Iterator<Item = &PairValence> + '_ {
        self.pairs
            .iter()
            .filter_map(|(scope, owner)| self.valence.caught_up(scope, owner))
    }

    /// The ladder's valence events at or before the anchor, pair by pair.
    fn valence_at(&self) -> impl Iterator<Item = &[ValenceEvent]> + '_ {
        self.streams().map(|p| p.events_at(self.anchor))
    }

    /// Valence events at or before the anchor.
    fn valence_len(&self) -> usize {
        self.valence_at().map(<[ValenceEvent]>::len).sum()
    }

    /// Whether a formed row with assertion id `id` existed at the anchor in
    /// some pair of the ladder (the history's ids).
    fn in_history(&self, id: &str) -> Result<bool> {
        for i in 0..self.pairs.len() {
            let p = self.pair(i)?;
            if p.row_of(id).is_some_and(|r| p.existed(r, self.anchor)) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Compute the history's counts and firsts and read the believed rows
    /// the sections show.
    fn gather(&mut self, store: &dyn TripleStore) -> Result<()> {
        let anchor = self.anchor;
        let mut excluded: Vec<FastSet<u32>> = Vec::with_capacity(self.pairs.len());
        let mut stamps: Option<(String, String)> = None;
        for i in 0..self.pairs.len() {
            let p = self.pair(i)?;
            let mut out: FastSet<u32> = FastSet::default();
            for id in self.closed.iter().chain(self.hidden.iter().flatten()) {
                out.extend(p.row_of(id));
            }
            excluded.push(out);
            let mut kinds: Vec<(u16, usize, u32)> = Vec::new();
            for (kind, rows) in p.kinds() {
                let mut existed = rows.iter().copied().filter(|r| p.existed(*r, anchor));
                let Some(first) = existed.next() else {
                    continue;
                };
                let mut n = 1;
                let (mut lo, mut last) = (None, first);
                if !p.rows[first as usize].observed_at.is_empty() {
                    lo = Some(first);
                }
                for r in existed {
                    n += 1;
                    last = r;
                    if lo.is_none() && !p.rows[r as usize].observed_at.is_empty() {
                        lo = Some(r);
                    }
                }
                kinds.push((kind, n, first));
                if let Some(lo) = lo {
                    let (lo, hi) = (
                        &*p.rows[lo as usize].observed_at,
                        &*p.rows[last as usize].observed_at,
                    );
                    stamps = Some(match stamps.take() {
                        None => (lo.to_owned(), hi.to_owned()),
                        Some((a, b)) => (
                            if lo < a.as_str() { lo.to_owned() } else { a },
                            if hi > b.as_str() { hi.to_owned() } else { b },
                        ),
                    });
                }
            }
            kinds.sort_by(|a, b| p.chrono(a.2, b.2));
            self.history_len += kinds.iter().map(|k| k.1).sum::<usize>();
            self.kind_counts.push(
                kinds
                    .into_iter()
                    .map(|(k, n, _)| (self.mirror.words.word(k).to_owned(), n))
                    .collect(),
            );
        }
        self.history_stamps = stamps;
        for (what, kind) in [
            ("first_dream", RecordKind::Dream),
            ("first_interest", RecordKind::Interest),
        ] {
            let mut first: Option<At> = None;
            for i in 0..self.pairs.len() {
                let p = self.pair(i)?;
                let Some(k) = self.mirror.words.get(kind.as_str()) else {
                    break;
                };
                let Some(r) = p
                    .rows_of_kind(k)
                    .iter()
                    .copied()
                    .find(|r| p.existed(*r, anchor))
                else {
                    continue;
                };
                if first.is_none_or(|f| self.chrono_at(f, (i, r)).is_gt()) {
                    first = Some((i, r));
                }
            }
            if let Some(at) = first {
                self.firsts
                    .extend(self.fetch(store, &[at])?.into_iter().map(|a| (what, a)));
            }
        }
        let believed = |g: &Self, kind: RecordKind, exact: bool| -> Result<Vec<At>> {
            let Some(k) = g.mirror.words.get(kind.as_str()) else {
                return Ok(Vec::new());
            };
            let mut out: Vec<At> = Vec::new();
            let mut from = 0;
            for (i, ex) in excluded.iter().enumerate() {
                let p = g.pair(i)?;
                let before = out.len();
                out.extend(
                    p.rows_of_kind(k)
                        .iter()
                        .copied()
                        .filter(|r| p.existed(*r, anchor) && !ex.contains(r))
                        .filter(|r| {
                            !exact
                                || g.mirror.words.word(p.rows[*r as usize].raw_kind)
                                    == kind.as_str()
                        })
                        .map(|r| (i, r)),
                );
                from += usize::from(out.len() > before);
            }
            // Chronological across the ladder; a tie keeps ladder order. One
            // pair's rows are in that order already.
            if from > 1 {
                out.sort_by(|a, b| g.chrono_at(*a, *b));
            }
            Ok(out)
        };
        let diary = believed(self, RecordKind::Diary, true)?;
        self.diary = self.fetch(store, &diary)?;
        let dreams = believed(self, RecordKind::Dream, false)?;
        self.dreams = self.fetch(store, &dreams)?;
        let interests = believed(self, RecordKind::Interest, false)?;
        let rows = self.fetch(store, &interests)?;
        self.interests = rows
            .into_iter()
            .map(|a| {
                let lifecycle = self.lifecycle_of(&a.subject)?;
                Ok((a, lifecycle))
            })
            .collect::<Result<_>>()?;
        let lessons = believed(self, RecordKind::Lesson, true)?;
        self.lessons_total = lessons.len();
        // The newest by `observed_at` first: every lesson from the
        // KEY_MOMENTS_BOUND-th newest's `observed_at` on (ties there are
        // ordered by subject, so all of them are candidates).
        let start = match lessons.len().checked_sub(KEY_MOMENTS_BOUND) {
            None => 0,
            Some(edge) => {
                let (i, r) = lessons[edge];
                let stamp = &self.pair(i)?.rows[r as usize].observed_at;
                let mut s = edge;
                while s > 0 {
                    let (j, q) = lessons[s - 1];
                    if self.pair(j)?.rows[q as usize].observed_at != *stamp {
                        break;
                    }
                    s -= 1;
                }
                s
            }
        };
        // The newest first as `lessons` orders them (`observed_at`, then the
        // record id, descending; a full tie keeps chronological order), and
        // only the shown ones read from the store.
        let mut newest: Vec<At> = lessons[start..].to_vec();
        let key = |(i, r): At| -> Result<(&str, &str)> {
            let p = self.pair(i)?;
            let row = &p.rows[r as usize];
            Ok((&row.observed_at, &p.records[row.slot as usize].record_id))
        };
        let mut keyed: Vec<((&str, &str), At)> = newest
            .iter()
            .map(|at| Ok((key(*at)?, *at)))
            .collect::<Result<_>>()?;
        keyed.sort_by(|a, b| b.0.cmp(&a.0));
        newest = keyed
            .into_iter()
            .take(KEY_MOMENTS_BOUND)
            .map(|(_, at)| at)
            .collect();
        self.lesson_candidates = self.fetch(store, &newest)?;
        for (i, ex) in excluded.iter().enumerate() {
            let p = self.pair(i)?;
            let found: Vec<String> = p
                .explorers()
                .filter(|r| p.existed(*r, anchor) && !ex.contains(r))
                .filter_map(|r| p.rows[r as usize].explores.as_deref().map(str::to_owned))
                .collect();
            self.explores.extend(found);
        }
        Ok(())
    }

    /// The chronological order of two ladder rows (ties: ladder order).
    fn chrono_at(&self, (i, r): At, (j, q): At) -> std::cmp::Ordering {
        let (Ok(a), Ok(b)) = (self.pair(i), self.pair(j)) else {
            return std::cmp::Ordering::Equal;
        };
        let (x, y) = (&a.rows[r as usize], &b.rows[q as usize]);
        (&x.observed_at, &x.assertion_id, i).cmp(&(&y.observed_at, &y.assertion_id, j))
    }

    /// The stored rows at `at`, in that order.
    fn fetch(&self, store: &dyn TripleStore, at: &[At]) -> Result<Vec<TripleAssertion>> {
        let mut rows: FastMap<At, TripleAssertion> = FastMap::default();
        for i in 0..self.pairs.len() {
            let mine: Vec<u32> = at.iter().filter(|x| x.0 == i).map(|x| x.1).collect();
            if mine.is_empty() {
                continue;
            }
            let p = self.pair(i)?;
            for a in p.fetch(store, &mine)? {
                if let Some(r) = a.assertion_id.as_deref().and_then(|id| p.row_of(id)) {
                    rows.insert((i, r), a);
                }
            }
        }
        Ok(at.iter().filter_map(|x| rows.remove(x)).collect())
    }

    /// The folded lifecycle of `record_id` at the anchor: its binding in the
    /// last pair of the ladder that binds it by then.
    fn lifecycle_of(&self, record_id: &str) -> Result<Option<Lifecycle>> {
        for i in (0..self.pairs.len()).rev() {
            if let Some(b) = self
                .pair(i)?
                .slot_of(record_id)
                .and_then(|s| s.at(self.anchor))
            {
                return Ok(Some(b.lifecycle));
            }
        }
        Ok(None)
    }
}

/// `age_and_context`: the journal seq, record counts by kind per scope, the
/// diary entry count, and the first and last `observed_at` (timestamps only:
/// age is the reader's subtraction).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
    let mut order: Vec<usize> = (0..g.pairs.len()).collect();
    order.sort_by(|a, b| g.pairs[*a].cmp(&g.pairs[*b]));
    for i in order {
        let scope = &g.pairs[i].0;
        for (kind, n) in &g.kind_counts[i] {
            if kind == RecordKind::Diary.as_str() {
                diary += n;
            }
            let idx = match counts.0.iter().position(|(s, _)| s == scope) {
                Some(i) => i,
                None => {
                    counts.0.push((scope.clone(), OrderedMap::new()));
                    counts.0.len() - 1
                }
            };
            let per = &mut counts.0[idx].1;
            match per.0.iter_mut().find(|(k, _)| k == kind) {
                Some((_, m)) => *m += n,
                None => per.0.push((kind.clone(), *n)),
            }
        }
    }
    let stamps: Vec<&str> = g
        .history_stamps
        .iter()
        .flat_map(|(lo, hi)| [lo.as_str(), hi.as_str()])
        .chain(
            g.streams()
                .filter_map(|p| p.stamps_at(g.anchor))
                .flat_map(|(lo, hi)| [lo, hi]),
        )
        .collect();
    let valence = g.valence_len();
    let provenance = if g.history_len == 0 && valence == 0 {
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
            g.history_len,
            g.pairs.len()
        )
    };
    AgeAndContext {
        journal_seq: g.anchor,
        record_counts: counts,
        records_total: g.history_len,
        diary_entries: diary,
        first_observed_at: stamps.iter().min().map(|s| (*s).to_owned()),
        last_observed_at: stamps.iter().max().map(|s| (*s).to_owned()),
        provenance,
    }
}

/// `current_state`: the trailing window over the most recent appraisal
/// events (current is a window, not a point).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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

/// The `current_state` section of `g` over the last `window` appraisals
/// (positive by its type: current is a window, and an empty one describes
/// nothing, so a 0 is refused where the arguments are read).
pub fn current_state(g: &CardGather, window: NonZeroUsize) -> CurrentState {
    let window = window.get();
    let total: usize = g.streams().map(|p| p.appraisals_at(g.anchor)).sum();
    let recent = newest_appraisals(g, window);
    let recent = recent.as_slice();
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
            total
        )
    };
    CurrentState {
        net: positive - negative,
        positive,
        negative,
        event_count: recent.len(),
        window_events: window,
        top_reasons,
        provenance,
    }
}

/// The ladder's newest `window` appraisal events at the anchor, oldest
/// first: the pairs' streams merged from their ends by seq.
fn newest_appraisals(g: &CardGather, window: usize) -> Vec<&ValenceEvent> {
    let streams: Vec<&[ValenceEvent]> = g.valence_at().collect();
    let before = |s: &[ValenceEvent], end: usize| {
        s[..end]
            .iter()
            .rposition(|e| e.kind == ValenceKind::Appraisal)
    };
    let mut heads: Vec<Option<usize>> = streams.iter().map(|s| before(s, s.len())).collect();
    let mut out: Vec<&ValenceEvent> = Vec::new();
    while out.len() < window {
        let Some((p, at)) = heads
            .iter()
            .enumerate()
            .filter_map(|(p, h)| h.map(|at| (p, at)))
            .max_by_key(|(p, at)| streams[*p][*at].seq)
        else {
            break;
        };
        out.push(&streams[p][at]);
        heads[p] = before(streams[p], at);
    }
    out.reverse();
    out
}

/// `key_moments`: high-magnitude feelings and firsts, chronological, the most
/// recent [`KEY_MOMENTS_BOUND`].
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
        .valence_at()
        .flatten()
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
    for (what, a) in &g.firsts {
        moments.push((
            a.observed_at.clone(),
            -1,
            serde_json::json!({"type": "first", "what": what, "record_id": a.subject,
                "title": DigestRow::of(a).served_title(), "observed_at": a.observed_at}),
        ));
    }
    let mut first_super = None;
    for c in journal.closures(&ClosureFilter {
        assertion_id: None,
        until_seq: Some(g.anchor),
        limit: 0,
    })? {
        if c.kind == ClosureKind::Supersede
            && first_super
                .as_ref()
                .is_none_or(|f: &am_journal::ClosureRecord| c.seq < f.seq)
            && g.in_history(&c.assertion_id)?
        {
            first_super = Some(c);
        }
    }
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct InterestBrief {
    /// The record's graph id.
    pub record_id: String,
    /// Its kind.
    pub kind: String,
    /// Its title (`None` while pending: `pending` names it).
    pub title: Option<String>,
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    let explores = &g.explores;
    let mut interests = Vec::new();
    for (a, lifecycle) in &g.interests {
        let row = DigestRow::of(a);
        if row.kind_trimmed() != Some(RecordKind::Interest)
            || *lifecycle == Some(Lifecycle::Rejected)
        {
            continue;
        }
        let explored = explores.contains(a.subject.as_str())
            || a.assertion_id
                .as_deref()
                .is_some_and(|id| explores.contains(id));
        interests.push(InterestBrief {
            record_id: a.subject.clone(),
            kind: RecordKind::Interest.as_str().into(),
            title: row.served_title(),
            statement: a.object.clone(),
            observed_at: a.observed_at.clone(),
            entry_id: row.entry_id().map(str::to_owned),
            pending: row.pending(),
            explored,
        });
    }
    let explored = interests.iter().filter(|i| i.explored).count();
    let mut unresolved = 0;
    let (mut signal_count, mut signal_dreams) = (0, 0);
    let mut kinds: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut tones: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for a in &g.dreams {
        let row = DigestRow::of(a);
        if row.kind_trimmed() != Some(RecordKind::Dream)
            || !matches!(
                row.as_stored("continuation_state"),
                Some("unresolved" | "continued")
            )
        {
            continue;
        }
        unresolved += 1;
        let signals: Vec<&serde_json::Map<String, Value>> = row
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StandingEntry {
    /// The appraised target.
    pub target: String,
    /// A record-backed target's title as formed (absent for a bare target
    /// and while the record's title is pending: `pending` names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A record-backed target's fields still pending, when any (so a pending
    /// title is told from a bare target).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
    config.validate()?;
    let streams: Vec<&PairValence> = g.streams().collect();
    let mut resolutions = crate::valence::gradation::Resolutions::default();
    for p in &streams {
        resolutions.absorb(p.resolutions());
    }
    // Each target once, its events of every pair walked by seq; scores only
    // (the card shows no contribution strings).
    let mut grades: Vec<(&str, crate::valence::GradationScore)> = Vec::new();
    let mut stream: Vec<&ValenceEvent> = Vec::new();
    for (i, p) in streams.iter().enumerate() {
        for target in p.targets() {
            // A target an earlier pair holds was graded with that pair.
            if streams[..i].iter().any(|q| q.holds(target)) {
                continue;
            }
            stream.clear();
            p.extend_stream_at(target, g.anchor, &mut stream);
            let alone = stream.len();
            for q in &streams[i + 1..] {
                q.extend_stream_at(target, g.anchor, &mut stream);
            }
            if stream.is_empty() {
                continue;
            }
            if stream.len() > alone {
                stream.sort_by_key(|e| e.seq);
            }
            let score = crate::valence::gradation::fold_target(
                &stream,
                &resolutions,
                g.anchor,
                config,
                false,
            );
            grades.push((target, score));
        }
    }
    // The `top_n` targets of a channel: the strongest, then more appraisals,
    // then the target (a total order: ties cannot reorder).
    let pick = |channel: fn(&crate::valence::GradationScore) -> (f64, u64)| -> Vec<usize> {
        let mut t: Vec<(f64, u64, &str, usize)> = grades
            .iter()
            .enumerate()
            .filter_map(|(i, (target, s))| {
                let (v, n) = channel(s);
                (v > 0.0).then_some((v, n, *target, i))
            })
            .collect();
        let order = |a: &(f64, u64, &str, usize), b: &(f64, u64, &str, usize)| {
            b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2))
        };
        if top_n == 0 {
            t.clear();
        } else if top_n < t.len() {
            t.select_nth_unstable_by(top_n - 1, order);
            t.truncate(top_n);
        }
        t.sort_by(order);
        t.into_iter().map(|x| x.3).collect()
    };
    let likes = pick(|s| (s.positive, s.positive_count));
    let dislikes = pick(|s| (s.negative, s.negative_count));
    let entry = |i: usize| -> Result<StandingEntry> {
        let (t, s) = &grades[i];
        let row = crate::lookup::resolve_digest_assertion(store, t)?;
        let pending = row
            .as_ref()
            .map(|a| DigestRow::of(a).pending())
            .unwrap_or_default();
        let title = row
            .as_ref()
            .filter(|_| !pending.iter().any(|f| f == "title"))
            .and_then(|a| DigestRow::of(a).title().map(str::to_owned));
        Ok(StandingEntry {
            target: (*t).to_owned(),
            title,
            pending,
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
            g.valence_len(),
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RowBrief {
    /// The record's graph id.
    pub record_id: String,
    /// Its kind.
    pub kind: String,
    /// Its title as formed (`None` while pending: `pending` names it).
    pub title: Option<String>,
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
    let row = DigestRow::of(a);
    RowBrief {
        record_id: a.subject.clone(),
        kind: row.kind_text().unwrap_or_default().to_owned(),
        title: row.served_title(),
        statement: a.object.clone(),
        observed_at: a.observed_at.clone(),
        entry_id: row.entry_id().map(str::to_owned),
        pending: row.pending(),
        resolved_by: None,
    }
}

/// One item of the identity core.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct IdentityItem {
    /// Its title (`None` while pending: `pending` names it).
    pub title: Option<String>,
    /// Its statement (the digest).
    pub statement: String,
    /// The fields still pending, when any (never a placeholder title).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// A value's class, when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_class: Option<Value>,
    /// A trait's class (`limit` for honesty items), when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trait_class: Option<Value>,
}

/// `identity`: the folded self core at the anchor.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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

/// The `identity` section: the folded self core of every pair of the ladder
/// at the anchor ([`crate::identity::self_records`]'s rows, from the
/// gather's binding fold; first appearance kept), by kind.
///
/// # Errors
/// The store's failure.
pub fn identity(g: &CardGather, store: &dyn TripleStore, owner: &str) -> Result<IdentitySection> {
    let mut core: Vec<TripleAssertion> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (i, (scope, pair_owner)) in g.pairs.iter().enumerate() {
        let hidden = &g.hidden[i];
        let rows = crate::identity::core_records(
            store,
            (scope, pair_owner),
            g.pair(i)?.prompt_active_at(g.anchor),
            |id| g.closed.contains(id) || hidden.contains(id),
            None,
        )?;
        for a in rows {
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
        let row = DigestRow::of(a);
        let class = |k: &str| {
            row.get(k)
                .filter(|v| crate::lookup::truthy(Some(*v)))
                .cloned()
        };
        let mut item = IdentityItem {
            title: row.served_title(),
            statement: a.object.clone(),
            pending: row.pending(),
            value_class: None,
            trait_class: None,
        };
        match row.kind() {
            Some(RecordKind::Value) => {
                item.value_class = class("value_class");
                out.values.push(item);
            }
            Some(RecordKind::Purpose) => out.purposes.push(item),
            Some(RecordKind::Trait) => {
                item.trait_class = class("trait_class");
                out.traits.push(item);
            }
            _ => continue,
        }
        if let Some(v) = row.get("spark_version").and_then(crate::identity::as_int) {
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
        .diary
        .iter()
        .filter(|a| DigestRow::of(a).kind() == Some(RecordKind::Diary))
        .collect();
    let mut resolved_by: HashMap<&str, Vec<&str>> = HashMap::new();
    for a in &diary {
        for key in ["answers", "resolves"] {
            if let Some(r) = DigestRow::of(a).text(key) {
                resolved_by.entry(r).or_default().push(a.subject.as_str());
            }
        }
    }
    let (mut open, mut resolved) = (Vec::new(), Vec::new());
    for a in diary
        .iter()
        .filter(|a| DigestRow::of(a).as_stored("diary_type") == Some(diary_type))
    {
        let entry = match DigestRow::of(a).get("entry_id") {
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    // The gather read the newest, in this order; the total counts them all.
    let mut rows: Vec<&TripleAssertion> = g
        .lesson_candidates
        .iter()
        .filter(|a| DigestRow::of(a).kind() == Some(RecordKind::Lesson))
        .collect();
    rows.sort_by(|a, b| (&b.observed_at, &b.subject).cmp(&(&a.observed_at, &a.subject)));
    let total = g.lessons_total;
    let provenance = if total == 0 {
        "no lesson at this anchor: nothing distilled yet".to_owned()
    } else {
        format!(
            "{} believed lesson(s), newest first, the {KEY_MOMENTS_BOUND} newest shown; a count \
             that only grows, never a ratio",
            total
        )
    };
    Lessons {
        lessons: rows
            .iter()
            .take(KEY_MOMENTS_BOUND)
            .map(|a| row_brief(a))
            .collect(),
        total,
        provenance,
    }
}

// -- the composed card ---------------------------------------------------------

/// The default trailing window of `current_state`, in appraisal events.
pub const DEFAULT_CURRENT_WINDOW: NonZeroUsize = NonZeroUsize::new(200).unwrap();

fn default_window() -> NonZeroUsize {
    DEFAULT_CURRENT_WINDOW
}

fn default_top_n() -> usize {
    5
}

/// The arguments of the identity card: `entity_card(*, scope_pairs,
/// owner_id, current_window_events=200, top_n=5, as_of=None)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityCard {
    /// The home's scope ladder (JSON `[[scope, owner_id], ...]`), for example
    /// `[["self", eid], ["diary", eid], ["life", eid]]`.
    pub scope_pairs: Vec<(String, String)>,
    /// The entity (the card's `identity.name`).
    pub owner_id: String,
    /// The trailing window of `current_state`, in appraisal events
    /// (positive by its type: a 0 is refused where the arguments are read).
    #[serde(default = "default_window")]
    pub current_window_events: NonZeroUsize,
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
/// `InvalidInput` for an empty ladder, a blank owner or an anchor outside
/// the journal's axis (a window of 0 is refused where the arguments are
/// read); the store's or journal's failure.
pub fn identity_card(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &EntityCard,
    config: &crate::valence::GradationConfig,
) -> Result<IdentityCard> {
    let pairs = checked_args(args)?;
    let g = CardGather::load(store, journal, &pairs, args.as_of)?;
    compose(&g, store, journal, args, config)
}

/// The card's arguments checked (the ladder, the owner; the window is
/// positive by its type); the normalized ladder.
fn checked_args(args: &EntityCard) -> Result<Vec<(String, String)>> {
    let pairs = normalize_pairs(&args.scope_pairs);
    if pairs.is_empty() {
        return Err(Error::invalid(
            "entity_card needs at least one (scope, owner_id) pair with a non-empty scope (an \
             empty ladder describes nobody), got none",
        ));
    }
    if args.owner_id.trim().is_empty() {
        return Err(Error::invalid(
            "entity_card needs a non-empty owner_id (the entity), got a blank one",
        ));
    }
    Ok(pairs)
}

/// Every section of the card over one gather.
fn compose(
    g: &CardGather,
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &EntityCard,
    config: &crate::valence::GradationConfig,
) -> Result<IdentityCard> {
    let owner = args.owner_id.trim();
    Ok(IdentityCard {
        owner_id: owner.to_owned(),
        as_of_seq: g.anchor,
        identity: identity(g, store, owner)?,
        age_and_context: age_and_context(g),
        current_state: current_state(g, args.current_window_events),
        likes_dislikes: likes_dislikes(g, store, config, args.top_n)?,
        questions: questions(g),
        problems: problems(g),
        key_moments: key_moments(g, journal, config.break_magnitude)?,
        discoveries: discoveries(g),
        lessons: lessons(g),
        scope_pairs: g.pairs.clone(),
    })
}

impl crate::system::MemorySystem {
    /// The identity card of this system's home ([`identity_card`] with the
    /// system's gradation config). A pure read, through the system's ladder
    /// mirror and valence index (caught up from the journal's tail and the
    /// store's feed, then kept for the next card).
    ///
    /// # Errors
    /// As [`identity_card`].
    pub fn entity_card(&self, args: &EntityCard) -> Result<IdentityCard> {
        let pairs = checked_args(args)?;
        let (store, journal) = (self.store().as_ref(), self.journal().as_ref());
        // A refused anchor leaves the mirrors as they are.
        am_journal::journal::check_anchor("as_of", args.as_of, journal.current_seq()?)?;
        let (mirror, valence) = (
            self.faculty_state.cache::<mirror::LadderMirror>(),
            self.faculty_state.cache::<ValenceIndex>(),
        );
        let (mut mirror, mut valence) = (mirror.lock(), valence.lock());
        // Taken out while the guards are held; a failed gather leaves fresh
        // (empty) mirrors behind, rebuilt by the next read.
        let g = CardGather::over(
            std::mem::take(&mut *mirror),
            std::mem::take(&mut *valence),
            store,
            journal,
            &pairs,
            args.as_of,
        )?;
        let card = compose(&g, store, journal, args, &self.gradation);
        (*mirror, *valence) = g.into_mirrors();
        card
    }
}
