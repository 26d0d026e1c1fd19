//! The ladder mirror: what the identity card needs of a home's formed rows
//! and formation bindings, per `(scope, owner)` pair, in a compact in-process
//! form kept fresh incrementally, so a card reads the ladder without reading
//! every row and binding again.
//!
//! Per pair it holds each formed digest row (`record_kind` text, neither a
//! `record_edge` nor `bookkeeping`; the card's history filter) as its
//! assertion id, its subject's record slot, its kind (trimmed, and as
//! written), its `observed_at` and its `explores` reference; the rows of each
//! kind in chronological order (`observed_at`, then assertion id); and each
//! record id's bindings in the pair as seq, lifecycle and whether the
//! binding puts the record in the prompt. Everything the card asks at an
//! anchor `T` is answered from these: a row existed at `T` when its subject
//! had a binding at or before `T`; a record's folded binding at `T` is its
//! latest one at or before `T`. Display fields (titles, digests, diary
//! links, dream signals) are not mirrored: the card reads the few rows it
//! shows from the store.
//!
//! Freshness, as the recall index keeps it (`reconstruct/index.rs`): the
//! rows follow the store's change feed (`assertions_after` within the pair:
//! one index probe per pair when nothing is new); a digest row rewritten in
//! place keeps its feed position, so the mirror re-reads the rows the
//! journal's understanding versions name since its last read; the bindings
//! follow the journal's tail (`replay_records` since the seq read through, in
//! chunks of [`TAIL_CHUNK`] seqs). A pair first asked for is read whole (its
//! bindings through the current seq, its rows through the feed from the
//! start). A store without the feed is read whole on every refresh. A failed
//! refresh leaves the mirror to be dropped (the system keeps a fresh one).

use crate::error::Result;
use crate::feed::{Followed, follow_feed};
use crate::recall::reconstruct::hash::HashMap;
use crate::record::DigestRow;
use am_journal::{BindingFilter, JournalRecord, Lifecycle, MemoryJournal, ScopeBinding};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::cmp::Ordering;
use std::sync::Arc;

/// Change-feed page size while following a pair's rows.
const FEED_PAGE: usize = 1000;
/// Seqs of the journal tail read per `replay_records` call.
pub(crate) const TAIL_CHUNK: i64 = 10_000;
/// Assertion ids per store read of the rows a card shows.
const FETCH_CHUNK: usize = 500;

/// Words (record kinds) held once, by number.
#[derive(Default)]
pub(crate) struct Words {
    ids: HashMap<Box<str>, u16>,
    words: Vec<Box<str>>,
}

impl Words {
    fn id(&mut self, w: &str) -> u16 {
        if let Some(id) = self.ids.get(w) {
            return *id;
        }
        let id = u16::try_from(self.words.len()).unwrap_or(u16::MAX);
        self.words.push(w.into());
        self.ids.insert(w.into(), id);
        id
    }

    /// The number of `w`, if it was ever seen.
    pub(crate) fn get(&self, w: &str) -> Option<u16> {
        self.ids.get(w).copied()
    }

    /// The word numbered `id`.
    pub(crate) fn word(&self, id: u16) -> &str {
        self.words.get(id as usize).map_or("", |w| w)
    }
}

/// One binding of a record, as the card reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BoundAt {
    /// Its seq.
    pub(crate) seq: i64,
    /// Its lifecycle.
    pub(crate) lifecycle: Lifecycle,
    /// `indexed` and `active` ([`ScopeBinding::is_prompt_active`](am_journal::ScopeBinding::is_prompt_active)).
    pub(crate) prompt_active: bool,
}

/// One record id's bindings in a pair.
pub(crate) struct RecordSlot {
    /// The record id.
    pub(crate) record_id: Arc<str>,
    /// The bindings before `last`, seq ascending.
    earlier: Vec<BoundAt>,
    /// The latest binding, `None` while only rows name the record.
    last: Option<BoundAt>,
    /// Whether some binding ever made it prompt-active.
    ever_active: bool,
}

impl RecordSlot {
    /// The seq of the record's first binding (`i64::MAX` when it has none).
    pub(crate) fn first_seq(&self) -> i64 {
        self.earlier
            .first()
            .or(self.last.as_ref())
            .map_or(i64::MAX, |b| b.seq)
    }

    /// The record's folded binding at `anchor`: its latest at or before it.
    pub(crate) fn at(&self, anchor: i64) -> Option<BoundAt> {
        match self.last {
            Some(b) if b.seq <= anchor => Some(b),
            _ => {
                let end = self.earlier.partition_point(|b| b.seq <= anchor);
                end.checked_sub(1).map(|i| self.earlier[i])
            }
        }
    }
}

/// One formed digest row of a pair.
pub(crate) struct FormedRow {
    /// Its assertion id (every stored row has one).
    pub(crate) assertion_id: Arc<str>,
    /// Its subject's record slot.
    pub(crate) slot: u32,
    /// `record_kind`, trimmed (a [`Words`] number).
    pub(crate) kind: u16,
    /// `record_kind` as written.
    pub(crate) raw_kind: u16,
    /// Its `observed_at`.
    pub(crate) observed_at: Box<str>,
    /// `attributes.explores` (trimmed text), when it names something.
    pub(crate) explores: Option<Box<str>>,
    /// `false` once a rewrite left it no formed digest row.
    live: bool,
}

/// The mirror of one `(scope, owner)` pair.
pub(crate) struct PairMirror {
    /// The normalized scope.
    pub(crate) scope: String,
    /// The normalized owner (`""`: rows of any owner, bindings of owner `""`).
    pub(crate) owner: String,
    /// The store feed's cursor.
    cursor: i64,
    /// Whether the store offers the change feed.
    feed: bool,
    /// The formed rows, in the order read.
    pub(crate) rows: Vec<FormedRow>,
    by_assertion: HashMap<Arc<str>, u32>,
    /// Per trimmed kind, its live rows in chronological order (once
    /// [`PairMirror::settle`] has sorted the kinds in `unsorted`).
    by_kind: HashMap<u16, Vec<u32>>,
    /// Kinds whose lists took rows since they were last sorted.
    unsorted: Vec<u16>,
    /// Rows that carried an `explores` reference when read.
    explorers: Vec<u32>,
    /// Record slots, by record id.
    pub(crate) records: Vec<RecordSlot>,
    slot_of: HashMap<Arc<str>, u32>,
    /// Slots some binding ever made prompt-active, in that order.
    ever_active: Vec<u32>,
}

impl PairMirror {
    fn new(scope: &str, owner: &str) -> Self {
        PairMirror {
            scope: scope.to_owned(),
            owner: owner.to_owned(),
            cursor: 0,
            feed: true,
            rows: Vec::new(),
            by_assertion: HashMap::default(),
            by_kind: HashMap::default(),
            unsorted: Vec::new(),
            explorers: Vec::new(),
            records: Vec::new(),
            slot_of: HashMap::default(),
            ever_active: Vec::new(),
        }
    }

    /// The store's owner filter of this pair (`None`: any owner).
    fn owner_filter(&self) -> Option<String> {
        (!self.owner.is_empty()).then(|| self.owner.clone())
    }

    fn slot(&mut self, record_id: &str) -> u32 {
        if let Some(i) = self.slot_of.get(record_id) {
            return *i;
        }
        let id: Arc<str> = record_id.into();
        let i = u32::try_from(self.records.len()).unwrap_or(u32::MAX);
        self.records.push(RecordSlot {
            record_id: id.clone(),
            earlier: Vec::new(),
            last: None,
            ever_active: false,
        });
        self.slot_of.insert(id, i);
        i
    }

    /// The slot of `record_id`, if the pair has seen it.
    pub(crate) fn slot_of(&self, record_id: &str) -> Option<&RecordSlot> {
        self.slot_of
            .get(record_id)
            .map(|i| &self.records[*i as usize])
    }

    fn bind(&mut self, b: &ScopeBinding) {
        let at = BoundAt {
            seq: b.seq,
            lifecycle: b.lifecycle,
            prompt_active: b.is_prompt_active(),
        };
        let i = self.slot(&b.record_id);
        let slot = &mut self.records[i as usize];
        if let Some(prev) = slot.last.replace(at) {
            slot.earlier.push(prev);
        }
        if at.prompt_active && !slot.ever_active {
            slot.ever_active = true;
            self.ever_active.push(i);
        }
    }

    /// Whether row `r` existed at `anchor` (its subject bound by then).
    pub(crate) fn existed(&self, r: u32, anchor: i64) -> bool {
        let row = &self.rows[r as usize];
        row.live && self.records[row.slot as usize].first_seq() <= anchor
    }

    /// The row whose assertion id is `id`, if the pair holds it live.
    pub(crate) fn row_of(&self, id: &str) -> Option<u32> {
        self.by_assertion
            .get(id)
            .copied()
            .filter(|r| self.rows[*r as usize].live)
    }

    /// The live rows of trimmed kind `kind`, chronological.
    pub(crate) fn rows_of_kind(&self, kind: u16) -> &[u32] {
        self.by_kind.get(&kind).map_or(&[], Vec::as_slice)
    }

    /// Every kind with live rows, with them (no particular order).
    pub(crate) fn kinds(&self) -> impl Iterator<Item = (u16, &[u32])> + '_ {
        self.by_kind.iter().map(|(k, rows)| (*k, rows.as_slice()))
    }

    /// The live rows carrying an `explores` reference.
    pub(crate) fn explorers(&self) -> impl Iterator<Item = u32> + '_ {
        self.explorers.iter().copied().filter(|r| {
            let row = &self.rows[*r as usize];
            row.live && row.explores.is_some()
        })
    }

    /// The ids of the records prompt-active at `anchor`, in the order of
    /// their folded binding's seq (the binding fold's order).
    pub(crate) fn prompt_active_at(&self, anchor: i64) -> Vec<&str> {
        let mut active: Vec<(i64, &str)> = self
            .ever_active
            .iter()
            .map(|i| &self.records[*i as usize])
            .filter_map(|s| {
                s.at(anchor)
                    .filter(|b| b.prompt_active)
                    .map(|b| (b.seq, &*s.record_id))
            })
            .collect();
        active.sort_unstable_by_key(|(seq, _)| *seq);
        active.into_iter().map(|(_, id)| id).collect()
    }

    /// The chronological order of two rows: `observed_at`, then assertion id.
    pub(crate) fn chrono(&self, a: u32, b: u32) -> Ordering {
        let (x, y) = (&self.rows[a as usize], &self.rows[b as usize]);
        (&x.observed_at, &x.assertion_id).cmp(&(&y.observed_at, &y.assertion_id))
    }

    /// Add row `r` to its kind's list (sorted by [`PairMirror::settle`]: a
    /// sorted insert per row is quadratic when many rows share one
    /// `observed_at`).
    fn place(&mut self, r: u32) {
        let kind = self.rows[r as usize].kind;
        self.by_kind.entry(kind).or_default().push(r);
        if !self.unsorted.contains(&kind) {
            self.unsorted.push(kind);
        }
    }

    /// Sort the kinds' lists that took rows (chronological; each is sorted
    /// runs, which the stable sort merges).
    fn settle(&mut self) {
        for kind in std::mem::take(&mut self.unsorted) {
            if let Some(mut list) = self.by_kind.remove(&kind) {
                list.sort_by(|a, b| self.chrono(*a, *b));
                self.by_kind.insert(kind, list);
            }
        }
    }

    fn unplace(&mut self, r: u32) {
        let kind = self.rows[r as usize].kind;
        if let Some(mut list) = self.by_kind.remove(&kind) {
            list.retain(|x| *x != r);
            if !list.is_empty() {
                self.by_kind.insert(kind, list);
            }
        }
    }

    /// Take in one stored row of the pair (new, or read again after a
    /// rewrite): a formed digest row is held (or updated), any other row
    /// dropped (or, once held, retired).
    fn ingest(&mut self, a: &TripleAssertion, words: &mut Words) {
        let row = DigestRow::of(a);
        let kind = row.kind_text();
        let formed = kind.is_some() && !row.is_edge() && !row.flag("bookkeeping");
        let id = a.assertion_id.as_deref().unwrap_or_default();
        let held = self.by_assertion.get(id).copied();
        if let Some(r) = held
            && self.rows[r as usize].live
        {
            self.unplace(r);
            self.rows[r as usize].live = false;
        }
        if !formed {
            return;
        }
        let raw = row.as_stored("record_kind").unwrap_or_default();
        let (kind, raw_kind) = (words.id(kind.unwrap_or_default()), words.id(raw));
        let explores = row.text("explores").map(Box::from);
        let r = match held {
            Some(r) => {
                let row = &mut self.rows[r as usize];
                if row.explores.is_none() && explores.is_some() {
                    self.explorers.push(r);
                }
                let row = &mut self.rows[r as usize];
                (row.kind, row.raw_kind, row.explores) = (kind, raw_kind, explores);
                row.live = true;
                r
            }
            None => {
                let slot = self.slot(&a.subject);
                let r = u32::try_from(self.rows.len()).unwrap_or(u32::MAX);
                let assertion_id: Arc<str> = id.into();
                if explores.is_some() {
                    self.explorers.push(r);
                }
                self.rows.push(FormedRow {
                    assertion_id: assertion_id.clone(),
                    slot,
                    kind,
                    raw_kind,
                    observed_at: a.observed_at.as_str().into(),
                    explores,
                    live: true,
                });
                self.by_assertion.insert(assertion_id, r);
                r
            }
        };
        self.place(r);
    }

    /// Follow the store: the feed's new rows, or the whole pair again when
    /// the store offers no feed.
    fn follow(&mut self, store: &dyn TripleStore, words: &mut Words) -> Result<()> {
        let owner = self.owner_filter();
        if self.feed {
            let mut cursor = self.cursor;
            let scope = self.scope.clone();
            let followed = follow_feed(
                store,
                &mut cursor,
                Some(&scope),
                owner.as_deref(),
                None,
                FEED_PAGE,
                |_, a| self.ingest(&a, words),
            );
            self.cursor = cursor;
            let followed = followed?;
            match followed {
                Followed::ToEnd => return Ok(()),
                Followed::NoFeed => self.feed = false,
            }
        }
        // No feed: read the pair's rows again from nothing (its bindings
        // stay: they follow the journal).
        self.rows.clear();
        self.by_assertion.clear();
        self.by_kind.clear();
        self.unsorted.clear();
        self.explorers.clear();
        for a in store.query(&TripleQuery {
            scope: Some(self.scope.clone()),
            owner_id: owner,
            limit: 0,
            ..TripleQuery::default()
        })? {
            self.ingest(&a, words);
        }
        Ok(())
    }

    /// Read again the row `id` of the pair (a rewrite named it).
    fn reread(&mut self, store: &dyn TripleStore, id: &str, words: &mut Words) -> Result<()> {
        for a in store.query(&TripleQuery {
            assertion_ids: Some(vec![id.to_owned()]),
            scope: Some(self.scope.clone()),
            owner_id: self.owner_filter(),
            limit: 1,
            ..TripleQuery::default()
        })? {
            self.ingest(&a, words);
        }
        Ok(())
    }

    /// The stored rows `rows` of this pair, in the order given (a row the
    /// store no longer answers is left out).
    pub(crate) fn fetch(
        &self,
        store: &dyn TripleStore,
        rows: &[u32],
    ) -> Result<Vec<TripleAssertion>> {
        let mut by_id: HashMap<String, TripleAssertion> = HashMap::default();
        for chunk in rows.chunks(FETCH_CHUNK) {
            let ids: Vec<String> = chunk
                .iter()
                .map(|r| self.rows[*r as usize].assertion_id.to_string())
                .collect();
            for a in store.query(&TripleQuery {
                assertion_ids: Some(ids),
                scope: Some(self.scope.clone()),
                owner_id: self.owner_filter(),
                limit: 0,
                ..TripleQuery::default()
            })? {
                if let Some(id) = a.assertion_id.clone() {
                    by_id.insert(id, a);
                }
            }
        }
        Ok(rows
            .iter()
            .filter_map(|r| by_id.get(&*self.rows[*r as usize].assertion_id).cloned())
            .collect())
    }
}

/// The mirror of every pair a card has asked for.
#[derive(Default)]
pub(crate) struct LadderMirror {
    /// The journal seq the bindings are read through.
    through: i64,
    pairs: Vec<PairMirror>,
    /// The record kinds.
    pub(crate) words: Words,
}

impl LadderMirror {
    /// Bring the normalized `pairs` (and every pair held) up to the journal's
    /// `current` seq and the store's present rows.
    ///
    /// # Errors
    /// The store's or journal's failure (the mirror is then to be dropped).
    pub(crate) fn refresh(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        current: i64,
    ) -> Result<()> {
        if current < self.through {
            // Not the journal this mirror read: start again.
            *self = LadderMirror::default();
        }
        if current > self.through && !self.pairs.is_empty() {
            let mut lo = self.through;
            while lo < current {
                let hi = (lo + TAIL_CHUNK).min(current);
                for rec in journal.replay_records(lo, Some(hi))? {
                    if let JournalRecord::Binding(b) = rec
                        && let Some(p) = self
                            .pairs
                            .iter_mut()
                            .find(|p| p.scope == b.scope && p.owner == b.owner_id)
                    {
                        p.bind(&b);
                    }
                }
                lo = hi;
            }
            let mut rewritten: Vec<String> = journal
                .revision_records(self.through, Some(current))?
                .into_iter()
                .map(|v| v.assertion_id)
                .collect();
            rewritten.sort_unstable();
            rewritten.dedup();
            for p in &mut self.pairs {
                for id in &rewritten {
                    p.reread(store, id, &mut self.words)?;
                }
            }
        }
        for (scope, owner) in pairs {
            if self.pair(scope, owner).is_some() {
                continue;
            }
            let mut p = PairMirror::new(scope, owner);
            for b in journal.bindings(&BindingFilter {
                record_id: None,
                scope: Some(scope.clone()),
                owner_id: Some(owner.clone()),
                fold: false,
                until_seq: Some(current),
            })? {
                p.bind(&b);
            }
            self.pairs.push(p);
        }
        self.through = current;
        for p in &mut self.pairs {
            if pairs.iter().any(|(s, o)| *s == p.scope && *o == p.owner) {
                p.follow(store, &mut self.words)?;
            }
        }
        for p in &mut self.pairs {
            p.settle();
        }
        Ok(())
    }

    /// The mirror of a normalized pair, once refreshed for it.
    pub(crate) fn pair(&self, scope: &str, owner: &str) -> Option<&PairMirror> {
        self.pairs
            .iter()
            .find(|p| p.scope == scope && p.owner == owner)
    }
}
