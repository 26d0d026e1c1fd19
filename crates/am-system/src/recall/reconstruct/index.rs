//! The recall index: an in-process mirror of the home's rows (per scope /
//! owner pair: window order, subject / object / id postings, keyword token
//! sets) and of the journal folds one recall reads at the current seq
//! (closures, per-record binding folds, the activation window), kept fresh
//! incrementally and checked at the start of every `reconstruct`.
//!
//! Freshness. The store side follows the change feed (`assertions_after`
//! over the whole home, one rowid-range read per recall when nothing is new),
//! so rows written by another handle or process are indexed before the recall
//! reads. A digest row rewritten in place (the understanding verbs: object,
//! attributes, canonical text) keeps its feed position, so the index follows
//! the journal's understanding versions instead (appended in the rewrite's
//! own transaction): each recall re-reads the rows named by the versions
//! since its last check ([`RecallIndex::refresh_rewrites`]). Otherwise rows
//! are append-only for everything the pipeline reads: the only other
//! in-place store changes are validity windows (`close_assertion` /
//! `narrow_assertion`: read only by queries with `active_at`, which the index
//! never answers), vector rewrites (the vector channel always asks the store)
//! and the open-time canonical-timestamp rewrite of a 0.3.x home (finished by
//! the opening handle before its first read; a legacy home being upgraded by
//! another process while this one recalls is the one case the index can lag,
//! until this system is reopened). The journal side follows `current_seq`:
//! a recall whose anchor is the current seq replays the journal tail since the
//! index's seq (bindings update the cached per-record folds, closures join the
//! closed set, a scoring event drops the activation window); a tail longer
//! than [`MAX_JOURNAL_TAIL`] or a failed recall resets the journal caches. An
//! explicitly anchored read below the current seq bypasses the journal caches.
//! Keyword discovery asks the store for positions within the position range
//! of the pair's indexed rows and serves those rows from here, so like every
//! other read of the recall it sees the rows as of its refresh (a row
//! committed by another process during the recall is read by the next one).
//!
//! Bounds. The store index is built on the second recall of a system (a
//! one-shot recall pays no build) and holds every row of the home, up to
//! [`MAX_INDEXED_ROWS`]; a larger home disables the index for that system
//! (every read goes to the store, as before). The binding cache holds at most
//! [`MAX_CACHED_BINDING_IDS`] record ids (then it is cleared).
//!
//! Every answer equals the store's: a query is answered only when its shape
//! is structured (scope given; no vector, text, time filters; newest first),
//! with the shared row predicate [`TripleQuery::matches`] and the contract's
//! order (`observed_at` descending, ties newest-inserted first).

use super::hash::{HashMap, HashSet};
use am_journal::SearchState;
use am_journal::{ClosureFilter, JournalRecord, MemoryJournal, ScopeBinding};
use am_triples::text::{canonical_text, fold_text};
use am_triples::{EmbeddingPin, FeedPage, Order, TripleAssertion, TripleQuery, TripleStore};
use std::sync::OnceLock;

use super::read::RecallRead;
use crate::recall::attention::ActivationScore;

/// The most rows the index mirrors; a larger home is read from the store.
pub(crate) const MAX_INDEXED_ROWS: usize = 300_000;
/// The longest journal tail replayed into the caches; longer resets them.
pub(crate) const MAX_JOURNAL_TAIL: i64 = 4096;
/// The most record ids whose binding folds are cached.
pub(crate) const MAX_CACHED_BINDING_IDS: usize = 200_000;
/// Change-feed page size while following the store.
const FEED_PAGE: usize = 1000;

/// One mirrored row.
struct IndexedRow {
    pos: i64,
    assertion: TripleAssertion,
    /// The keyword channel's token set of the row's canonical text, computed
    /// on first use.
    tokens: OnceLock<TokenSet>,
}

/// A row's keyword tokens, each once, ordered by [`RecallIndex::token_hash`]
/// then text, so a cue token is looked up by comparing hashes (the text only
/// where they are equal).
pub(crate) struct TokenSet {
    hashes: Box<[u64]>,
    tokens: Box<[String]>,
}

impl TokenSet {
    /// Whether `token`, whose [`RecallIndex::token_hash`] is `hash`, is one
    /// of the row's tokens.
    pub(crate) fn contains(&self, token: &str, hash: u64) -> bool {
        let start = self.hashes.partition_point(|h| *h < hash);
        self.hashes[start..]
            .iter()
            .zip(&self.tokens[start..])
            .take_while(|(h, _)| **h == hash)
            .any(|(_, t)| t == token)
    }
}

/// One `(scope, owner)` pair's rows.
#[derive(Default)]
struct PairIndex {
    /// Row numbers, newest `observed_at` first, ties newest-inserted first.
    order: Vec<u32>,
    dirty: bool,
    by_id: HashMap<String, Vec<u32>>,
    by_subject: HashMap<String, Vec<u32>>,
    by_object: HashMap<String, Vec<u32>>,
    /// The lowest and highest position of the pair's rows.
    positions: Option<(i64, i64)>,
}

/// Whether the store index is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum StoreState {
    /// Not built yet: the first recall passes straight to the store.
    #[default]
    Cold,
    /// Built after the first recall; followed by the change feed.
    On,
    /// The store offers no change feed, or the home is too large.
    Off,
}

/// The journal folds at `seq`.
#[derive(Default)]
pub(crate) struct JournalCache {
    seq: Option<i64>,
    closed: HashSet<String>,
    bindings: HashMap<String, Vec<ScopeBinding>>,
    activation: Option<CachedActivation>,
    /// `selected_count(record_id, seq)` answers.
    selected_counts: HashMap<String, u64>,
    /// The latest-hidden `(record_id, scope, owner)` binding keys at `seq`
    /// (read once, then kept by the tail replay).
    hidden: Option<HashSet<(String, String, String)>>,
}

/// The activation fold's output for one scope ladder.
pub(crate) type ActivationInputs = (
    std::collections::HashMap<String, ActivationScore>,
    std::collections::HashMap<(String, String), f64>,
);

struct CachedActivation {
    pairs: Vec<(String, String)>,
    inputs: ActivationInputs,
}

/// The recall index of one `MemorySystem` (behind its mutex).
#[derive(Default)]
pub(crate) struct RecallIndex {
    state: StoreState,
    cursor: i64,
    /// The journal seq through which the mirrored rows carry every digest
    /// rewrite (an understanding version's row re-read); `None` before the
    /// first refresh.
    rewrites_seq: Option<i64>,
    rows: Vec<IndexedRow>,
    /// Assertion id → row number, for ids held by exactly one row.
    unique_ids: HashMap<String, u32>,
    duplicate_ids: HashSet<String>,
    pairs: HashMap<(String, String), PairIndex>,
    journal: JournalCache,
    /// Journal seqs `(from, to]` known to hold only this system's own inert
    /// audit records (a recall's or a reach's trace and its `listed` /
    /// `expanded` events), appended right after `from`: no fold, no rewrite
    /// and no row differs at any seq in `from..=to` (see
    /// [`RecallIndex::field_seq`]).
    own_audit: Option<(i64, i64)>,
    /// The hasher of [`TokenSet`]s (seeded once per index).
    token_hasher: foldhash::fast::RandomState,
}

fn sort_key(rows: &[IndexedRow], i: u32) -> (&str, i64) {
    let r = &rows[i as usize];
    (r.assertion.observed_at.as_str(), r.pos)
}

/// `fold_text` (case fold, NFKD, combining marks dropped) with the ASCII
/// shortcut: ASCII text is NFKD-stable with no combining marks and case-folds
/// to its lowercase, so the result is identical without the Unicode passes.
pub(crate) fn fold_for_tokens(text: &str) -> String {
    if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        fold_text(text)
    }
}

fn tokens_of(a: &TripleAssertion, hasher: &foldhash::fast::RandomState) -> TokenSet {
    use std::hash::BuildHasher;
    let folded = fold_for_tokens(&canonical_text(a));
    let mut out: Vec<(u64, String)> = folded
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|r| !r.is_empty())
        .map(|r| (hasher.hash_one(r), r.to_owned()))
        .collect();
    out.sort_unstable();
    out.dedup();
    let (hashes, tokens): (Vec<u64>, Vec<String>) = out.into_iter().unzip();
    TokenSet {
        hashes: hashes.into_boxed_slice(),
        tokens: tokens.into_boxed_slice(),
    }
}

impl RecallIndex {
    /// Bring the store index up to the store's head (building it on the
    /// second recall). Errors of the feed turn the index off for this call's
    /// system (the store answers instead), never fail the recall.
    pub(crate) fn refresh_store(&mut self, store: &dyn TripleStore) {
        match self.state {
            StoreState::Off => return,
            StoreState::Cold => {
                if !store.capabilities().change_feed {
                    self.state = StoreState::Off;
                    return;
                }
                self.state = StoreState::On;
                // The first recall reads the store directly; build next time.
                return;
            }
            StoreState::On => {}
        }
        loop {
            let page: FeedPage = match store.assertions_after(self.cursor, None, None, FEED_PAGE) {
                Ok(p) => p,
                Err(_) => {
                    self.disable();
                    return;
                }
            };
            let full = page.rows.len() == FEED_PAGE;
            for (pos, a) in page.rows {
                self.push(pos, a);
            }
            if self.rows.len() > MAX_INDEXED_ROWS {
                self.disable();
                return;
            }
            self.cursor = self.cursor.max(page.next_cursor);
            if !full {
                break;
            }
        }
        for p in self.pairs.values_mut() {
            if p.dirty {
                let rows = &self.rows;
                p.order
                    .sort_unstable_by(|a, b| sort_key(rows, *b).cmp(&sort_key(rows, *a)));
                p.dirty = false;
            }
        }
    }

    /// Bring the mirrored rows up to the digest rewrites committed through
    /// `head` (the journal's seq, read before this recall's store refresh):
    /// every understanding version appended since the last check names a row
    /// rewritten in place (its object, attributes and canonical text), which
    /// the change feed never hands on again. Each such row is re-read from
    /// the store and replaced, with its object posting and its token set; an
    /// id held by several rows, or a row whose identity moved, rebuilds the
    /// index. A failing read turns the index off (the store answers).
    pub(crate) fn refresh_rewrites(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        head: i64,
    ) {
        let seen = self.rewrites_seq.replace(head);
        let Some(seen) = seen.filter(|s| *s < head) else {
            return;
        };
        if !self.active() {
            return;
        }
        let versions = match journal.revision_records(seen, Some(head)) {
            Ok(v) => v,
            Err(_) => {
                self.disable();
                return;
            }
        };
        let mut ids: Vec<String> = versions.into_iter().map(|v| v.assertion_id).collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            if self.duplicate_ids.contains(&id) {
                self.rebuild(store, head);
                return;
            }
            let Some(n) = self.unique_ids.get(&id).copied() else {
                continue;
            };
            let fresh = match store.query(&TripleQuery {
                assertion_ids: Some(vec![id]),
                limit: 1,
                ..TripleQuery::default()
            }) {
                Ok(rows) => rows.into_iter().next(),
                Err(_) => {
                    self.disable();
                    return;
                }
            };
            let Some(fresh) = fresh else {
                self.rebuild(store, head);
                return;
            };
            if !self.replace_row(n, fresh) {
                self.rebuild(store, head);
                return;
            }
        }
    }

    /// Replace row `n` by its rewritten self; `false` (nothing changed) when
    /// more than its object, attributes or text moved.
    fn replace_row(&mut self, n: u32, fresh: TripleAssertion) -> bool {
        let old = &self.rows[n as usize].assertion;
        if old.subject != fresh.subject
            || old.predicate != fresh.predicate
            || old.scope != fresh.scope
            || old.owner_id != fresh.owner_id
            || old.observed_at != fresh.observed_at
            || old.assertion_id != fresh.assertion_id
        {
            return false;
        }
        let key = (
            fresh.scope.clone(),
            fresh.owner_id.clone().unwrap_or_default(),
        );
        let Some(pair) = self.pairs.get_mut(&key) else {
            return false;
        };
        if old.object != fresh.object {
            if let Some(list) = pair.by_object.get_mut(&old.object) {
                list.retain(|i| *i != n);
                if list.is_empty() {
                    pair.by_object.remove(&old.object);
                }
            }
            let list = pair.by_object.entry(fresh.object.clone()).or_default();
            let at = list.partition_point(|i| *i < n);
            list.insert(at, n);
        }
        let row = &mut self.rows[n as usize];
        row.assertion = fresh;
        row.tokens = OnceLock::new();
        true
    }

    /// Drop the mirrored rows and read them again from the store (the
    /// journal caches stay).
    fn rebuild(&mut self, store: &dyn TripleStore, head: i64) {
        *self = RecallIndex {
            state: StoreState::On,
            journal: std::mem::take(&mut self.journal),
            token_hasher: self.token_hasher.clone(),
            rewrites_seq: Some(head),
            ..RecallIndex::default()
        };
        self.refresh_store(store);
    }

    fn disable(&mut self) {
        *self = RecallIndex {
            state: StoreState::Off,
            journal: std::mem::take(&mut self.journal),
            ..RecallIndex::default()
        };
    }

    fn push(&mut self, pos: i64, a: TripleAssertion) {
        let n = self.rows.len() as u32;
        let pair = self
            .pairs
            .entry((a.scope.clone(), a.owner_id.clone().unwrap_or_default()))
            .or_default();
        pair.order.push(n);
        pair.dirty = true;
        pair.positions = Some(match pair.positions {
            Some((lo, hi)) => (lo.min(pos), hi.max(pos)),
            None => (pos, pos),
        });
        if let Some(id) = a.assertion_id.as_deref() {
            pair.by_id.entry(id.to_owned()).or_default().push(n);
            if self.duplicate_ids.contains(id) {
            } else if self.unique_ids.remove(id).is_some() {
                self.duplicate_ids.insert(id.to_owned());
            } else {
                self.unique_ids.insert(id.to_owned(), n);
            }
        }
        pair.by_subject
            .entry(a.subject.clone())
            .or_default()
            .push(n);
        pair.by_object.entry(a.object.clone()).or_default().push(n);
        self.rows.push(IndexedRow {
            pos,
            assertion: a,
            tokens: OnceLock::new(),
        });
    }

    /// The feed cursor every held row came before, while the index is in
    /// use (`None` otherwise).
    pub(crate) fn feed_cursor(&self) -> Option<i64> {
        self.active().then_some(self.cursor)
    }

    fn active(&self) -> bool {
        self.state == StoreState::On && (self.cursor > 0 || !self.rows.is_empty())
    }

    /// The store's answer to a structured query, from the index; `None` when
    /// the index cannot answer (its shape, or the index is not built).
    fn answer(&self, q: &TripleQuery) -> Option<Vec<TripleAssertion>> {
        self.answer_refs(q)
            .map(|rows| rows.into_iter().cloned().collect())
    }

    /// [`RecallIndex::answer`] by reference: the rows the index holds, not copies.
    fn answer_refs(&self, q: &TripleQuery) -> Option<Vec<&TripleAssertion>> {
        if !self.active()
            || q.query_text.is_some()
            || q.query_vector.is_some()
            || q.since.is_some()
            || q.until.is_some()
            || q.active_at.is_some()
            || q.order != Order::Desc
        {
            return None;
        }
        let q = q.canonicalized().ok()?;
        let scope = q.scope.as_deref()?;
        let limit = usize::try_from(q.limit)
            .ok()
            .filter(|l| *l > 0)
            .unwrap_or(usize::MAX);
        let pairs: Vec<&PairIndex> = match q.owner_id.as_deref() {
            Some(o) => self
                .pairs
                .get(&(scope.to_owned(), o.to_owned()))
                .into_iter()
                .collect(),
            None => self
                .pairs
                .iter()
                .filter(|((s, _), _)| s == scope)
                .map(|(_, p)| p)
                .collect(),
        };
        let rows = &self.rows;
        let filtered = q.assertion_ids.is_some() || q.subject.is_some() || q.object.is_some();
        if !filtered && pairs.len() == 1 {
            return Some(
                pairs[0]
                    .order
                    .iter()
                    .map(|i| &rows[*i as usize].assertion)
                    .filter(|a| q.matches(a))
                    .take(limit)
                    .collect(),
            );
        }
        let mut hits: Vec<u32> = Vec::new();
        for p in pairs {
            if let Some(ids) = &q.assertion_ids {
                for id in ids {
                    hits.extend(p.by_id.get(id).into_iter().flatten());
                }
            } else if let Some(s) = &q.subject {
                hits.extend(p.by_subject.get(s).into_iter().flatten());
            } else if q.object.is_some() {
                // The object filter's rule depends on the row (literal or
                // term): collect both spellings, the predicate decides.
                let o = q.object.as_deref().unwrap_or_default();
                hits.extend(p.by_object.get(o).into_iter().flatten());
                let term = am_triples::canonicalize_term(o);
                if term != o {
                    hits.extend(p.by_object.get(&term).into_iter().flatten());
                }
            } else {
                hits.extend(p.order.iter());
            }
        }
        hits.sort_unstable_by(|a, b| sort_key(rows, *b).cmp(&sort_key(rows, *a)));
        hits.dedup();
        Some(
            hits.into_iter()
                .map(|i| &rows[i as usize].assertion)
                .filter(|a| q.matches(a))
                .take(limit)
                .collect(),
        )
    }

    /// The rows of a semantic ranking (`(position, score)` best first), each
    /// stamped with `attributes._retrieval = {score, metric}` as a store's
    /// semantic query stamps it; `None` when a position is not indexed (a row
    /// written since the refresh: the store answers instead).
    fn stamped(&self, ranked: &[(i64, f64)]) -> Option<Vec<TripleAssertion>> {
        let mut out = Vec::with_capacity(ranked.len());
        for (pos, score) in ranked {
            let n = self.rows.binary_search_by_key(pos, |r| r.pos).ok()?;
            let mut a = self.rows[n].assertion.clone();
            am_triples::store::stamp_retrieval(&mut a, *score, None);
            out.push(a);
        }
        Some(out)
    }

    /// The position range (inclusive) holding every indexed row of `scope`
    /// (canonical) and `owner_id` (`None`: any owner), or `None` when the
    /// index is not built or holds no such row.
    pub(crate) fn position_range(&self, scope: &str, owner_id: Option<&str>) -> Option<(i64, i64)> {
        if !self.active() {
            return None;
        }
        match owner_id {
            Some(o) => self.pairs.get(&(scope.to_owned(), o.to_owned()))?.positions,
            None => self
                .pairs
                .iter()
                .filter(|((s, _), _)| s == scope)
                .filter_map(|(_, p)| p.positions)
                .reduce(|(a, b), (c, d)| (a.min(c), b.max(d))),
        }
    }

    /// The indexed rows at these positions, in this order; `None` when a
    /// position is not indexed.
    pub(crate) fn rows_at(&self, positions: &[i64]) -> Option<Vec<TripleAssertion>> {
        positions
            .iter()
            .map(|pos| {
                let n = self.rows.binary_search_by_key(pos, |r| r.pos).ok()?;
                Some(self.rows[n].assertion.clone())
            })
            .collect()
    }

    /// The keyword token set of the indexed row with this id, when that row
    /// is exactly `a` (ids held by one row only).
    pub(crate) fn tokens(&self, a: &TripleAssertion) -> Option<&TokenSet> {
        if !self.active() {
            return None;
        }
        let n = *self.unique_ids.get(a.assertion_id.as_deref()?)?;
        let row = &self.rows[n as usize];
        // The row with this (unique) id; `a` may carry a `_retrieval` stamp,
        // which the token text never reads.
        let r = &row.assertion;
        if r.subject != a.subject
            || r.predicate != a.predicate
            || r.object != a.object
            || r.observed_at != a.observed_at
            || r.scope != a.scope
            || r.owner_id != a.owner_id
        {
            return None;
        }
        Some(
            row.tokens
                .get_or_init(|| tokens_of(&row.assertion, &self.token_hasher)),
        )
    }

    /// The rows formed next to the indexed row with this id in its own
    /// (scope, owner) pair's order (`observed_at`, then position): the nearest
    /// newer and the nearest older row that `keep` accepts, looking at most
    /// `reach` rows each way. Empty when the index does not hold the id once.
    pub(crate) fn neighbours(
        &self,
        rid: &str,
        reach: usize,
        keep: &dyn Fn(&TripleAssertion) -> bool,
    ) -> Vec<&TripleAssertion> {
        if !self.active() {
            return Vec::new();
        }
        let Some(&n) = self.unique_ids.get(rid) else {
            return Vec::new();
        };
        let a = &self.rows[n as usize].assertion;
        let Some(pair) = self
            .pairs
            .get(&(a.scope.clone(), a.owner_id.clone().unwrap_or_default()))
        else {
            return Vec::new();
        };
        let rows = &self.rows;
        let target = sort_key(rows, n);
        let Ok(at) = pair
            .order
            .binary_search_by(|i| target.cmp(&sort_key(rows, *i)))
        else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(2);
        let newer = pair.order[..at].iter().rev().take(reach);
        if let Some(i) = newer
            .map(|i| &rows[*i as usize].assertion)
            .find(|r| keep(r))
        {
            out.push(i);
        }
        let older = pair.order[at + 1..].iter().take(reach);
        if let Some(i) = older
            .map(|i| &rows[*i as usize].assertion)
            .find(|r| keep(r))
        {
            out.push(i);
        }
        out
    }

    /// The hash [`TokenSet::contains`] takes for `token`.
    pub(crate) fn token_hash(&self, token: &str) -> u64 {
        use std::hash::BuildHasher;
        self.token_hasher.hash_one(token)
    }

    /// Bring the journal caches to `current` (the journal's seq now). Returns
    /// whether they describe the folds at `current`.
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn refresh_journal(
        &mut self,
        journal: &dyn MemoryJournal,
        current: i64,
    ) -> crate::error::Result<()> {
        let cache = &mut self.journal;
        if let Some(seq) = cache.seq
            && seq <= current
            && current - seq <= MAX_JOURNAL_TAIL
        {
            if seq < current {
                for r in journal.replay_records(seq, Some(current))? {
                    match r {
                        JournalRecord::Binding(b) => {
                            if let Some(hidden) = cache.hidden.as_mut() {
                                let key =
                                    (b.record_id.clone(), b.scope.clone(), b.owner_id.clone());
                                if b.search_state == SearchState::Hidden {
                                    hidden.insert(key);
                                } else {
                                    hidden.remove(&key);
                                }
                            }
                            if let Some(list) = cache.bindings.get_mut(&b.record_id) {
                                list.retain(|x| !(x.scope == b.scope && x.owner_id == b.owner_id));
                                list.push(b);
                                list.sort_by_key(|x| x.seq);
                            }
                        }
                        JournalRecord::Closure(c) => {
                            cache.closed.insert(c.assertion_id);
                        }
                        JournalRecord::Event(e) => {
                            if e.kind.feeds_attention() || e.kind.is_decay_marker() {
                                cache.activation = None;
                            }
                            // Audit kinds are never use; anything else may count.
                            if !e.kind.is_audit() {
                                cache.selected_counts.clear();
                            }
                        }
                        _ => {}
                    }
                }
                cache.seq = Some(current);
            }
            if cache.bindings.len() > MAX_CACHED_BINDING_IDS {
                cache.bindings.clear();
            }
            return Ok(());
        }
        *cache = JournalCache::default();
        cache.closed = journal
            .closures(&ClosureFilter {
                assertion_id: None,
                until_seq: Some(current),
                limit: 0,
            })?
            .into_iter()
            .map(|c| c.assertion_id)
            .collect();
        cache.seq = Some(current);
        Ok(())
    }

    /// Move the journal caches from `from` past records this system just
    /// appended itself, when those records are exactly the seqs
    /// `from + 1 ..= from + n` (nobody else wrote in between) and none of them
    /// changes a cached fold: a reconstruction's or a reach's own trace and
    /// inert `listed` / `expanded` events (audit kinds: never scored, never a
    /// binding, closure or understanding version). The caches then describe
    /// the journal at `from + n` without replaying (decoding) those records
    /// on the next recall, and the seqs are remembered as inert
    /// ([`RecallIndex::field_seq`]). Anything else (another writer's record
    /// in the range, an idempotent replay returning older seqs) leaves the
    /// caches as they are, and the next refresh replays the tail as before.
    pub(crate) fn advance_past_own_audit(&mut self, from: i64, appended: &mut [i64]) {
        if appended.is_empty() {
            return;
        }
        appended.sort_unstable();
        let contiguous = appended
            .iter()
            .enumerate()
            .all(|(i, s)| *s == from + 1 + i as i64);
        if !contiguous {
            return;
        }
        let to = from + appended.len() as i64;
        self.own_audit = Some(match self.own_audit {
            Some((start, end)) if end == from => (start, to),
            _ => (from, to),
        });
        if self.journal.seq == Some(from) {
            self.journal.seq = Some(to);
        }
    }

    /// The journal seq a read at `seq` reads the same state as: the start of
    /// this system's own inert audit records when `seq` lies among them
    /// (the rows, their rewrites in place and every fold are the same at
    /// each of those seqs), `seq` itself otherwise. What
    /// [`crate::concepts::FieldStamp`]s are made of, so a reach's own trace
    /// does not make the next reach scan its concept field again.
    pub(crate) fn field_seq(&self, seq: i64) -> i64 {
        match self.own_audit {
            Some((from, to)) if (from..=to).contains(&seq) => from,
            _ => seq,
        }
    }

    /// The latest-hidden binding keys at `seq` (see
    /// [`super::folds::Folds::exclusion_headroom`]): kept while the caches
    /// are at `seq`, read from the journal otherwise.
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn hidden_keys(
        &mut self,
        journal: &dyn MemoryJournal,
        seq: i64,
    ) -> crate::error::Result<HashSet<(String, String, String)>> {
        if self.journal.seq != Some(seq) {
            return super::folds::Folds::hidden_keys_at(journal, seq);
        }
        if self.journal.hidden.is_none() {
            self.journal.hidden = Some(super::folds::Folds::hidden_keys_at(journal, seq)?);
        }
        Ok(self.journal.hidden.clone().unwrap_or_default())
    }

    /// Take the journal folds at `seq` (closed ids, cached binding folds) for
    /// one recall; `None` when the caches are not at `seq`. Give them back
    /// with [`RecallIndex::restore_folds`]; a recall that fails keeps them
    /// taken, which resets the caches on the next refresh.
    pub(crate) fn take_folds(&mut self, seq: i64) -> Option<super::folds::CachedFolds> {
        if self.journal.seq != Some(seq) {
            return None;
        }
        self.journal.seq = None;
        Some((
            std::mem::take(&mut self.journal.closed),
            std::mem::take(&mut self.journal.bindings),
        ))
    }

    /// Take the cached `selected_count` answers at `seq` (empty when the
    /// caches are elsewhere); give them back with [`RecallIndex::restore_counts`].
    pub(crate) fn take_counts(&mut self, seq: i64) -> HashMap<String, u64> {
        if self.journal.seq == Some(seq) {
            std::mem::take(&mut self.journal.selected_counts)
        } else {
            HashMap::default()
        }
    }

    /// Give back the `selected_count` answers at `seq` (dropped when the
    /// caches moved meanwhile, or past [`MAX_CACHED_BINDING_IDS`] ids).
    pub(crate) fn restore_counts(&mut self, seq: i64, counts: HashMap<String, u64>) {
        if self.journal.seq == Some(seq) && counts.len() <= MAX_CACHED_BINDING_IDS {
            self.journal.selected_counts = counts;
        }
    }

    /// Give back the folds taken at `seq`.
    pub(crate) fn restore_folds(
        &mut self,
        seq: i64,
        closed: HashSet<String>,
        bindings: HashMap<String, Vec<ScopeBinding>>,
    ) {
        self.journal.seq = Some(seq);
        self.journal.closed = closed;
        self.journal.bindings = bindings;
    }

    /// The cached activation inputs of this scope ladder at the caches' seq.
    pub(crate) fn activation(&self, pairs: &[(String, String)]) -> Option<ActivationInputs> {
        self.journal
            .activation
            .as_ref()
            .filter(|c| c.pairs == pairs)
            .map(|c| c.inputs.clone())
    }

    /// Remember the activation inputs of this scope ladder at the caches' seq.
    pub(crate) fn store_activation(
        &mut self,
        pairs: &[(String, String)],
        inputs: &ActivationInputs,
    ) {
        self.journal.activation = Some(CachedActivation {
            pairs: pairs.to_vec(),
            inputs: inputs.clone(),
        });
    }
}

/// The store as one recall sees it: structured queries the index can answer
/// come from the index, a semantic query the store ranks by position comes
/// from the index's rows, everything else from the store.
pub(crate) struct IndexedStore<'a> {
    /// The system's store.
    pub inner: &'a dyn TripleStore,
    /// The refreshed index.
    pub index: &'a RecallIndex,
}

impl<'a> IndexedStore<'a> {
    /// A structured query's rows by reference when the index answers it
    /// (exactly the rows `query` would copy), else `None`: ask `query`.
    pub(crate) fn query_refs(&self, q: &TripleQuery) -> Option<Vec<&'a TripleAssertion>> {
        self.index.answer_refs(q)
    }

    /// A query's rows as [`RecallRead::rows`] reads them, lent from the
    /// index when it answers (no copy), else the store's.
    ///
    /// # Errors
    /// As [`RecallRead::rows`].
    pub(crate) fn lend(
        &self,
        q: &TripleQuery,
    ) -> crate::error::Result<Vec<std::borrow::Cow<'a, TripleAssertion>>> {
        if let Some(rows) = self.query_refs(q) {
            return Ok(rows.into_iter().map(std::borrow::Cow::Borrowed).collect());
        }
        Ok(self
            .rows(q)?
            .into_iter()
            .map(std::borrow::Cow::Owned)
            .collect())
    }
}

impl RecallRead for IndexedStore<'_> {
    fn rows(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        if let Some(rows) = self.index.answer(q) {
            return Ok(rows);
        }
        if self.index.active()
            && (q.query_vector.is_some() || q.query_text.is_some())
            && let Some(ranked) = self.inner.rank_positions(q)?
            && let Some(rows) = self.index.stamped(&ranked)
        {
            return Ok(rows);
        }
        self.inner.query(q)
    }

    fn pin(&self) -> am_triples::Result<Option<EmbeddingPin>> {
        self.inner.embedding_pin()
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_token_fold_shortcut_equals_fold_text() {
        let every_ascii: String = (0u8..128).map(char::from).collect();
        for text in [
            every_ascii.as_str(),
            "Database POOL outage at 03:00 — restart",
            "ex:memory-0123ABCdef\tDeploy_Latency (Queue) ½",
            "Ünïcödé Straße ﬁle",
            "",
        ] {
            assert_eq!(fold_for_tokens(text), fold_text(text), "{text:?}");
        }
    }

    #[test]
    fn a_token_set_holds_exactly_the_row_tokens_and_compares_text_where_hashes_are_equal() {
        let index = RecallIndex::default();
        let a = TripleAssertion::new(
            "Caroline",
            "went to",
            "the LGBTQ support group — 2023, again",
        );
        let set = tokens_of(&a, &index.token_hasher);
        let folded = super::fold_for_tokens(&canonical_text(&a));
        for token in folded
            .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
            .filter(|r| !r.is_empty())
        {
            assert!(set.contains(token, index.token_hash(token)), "{token}");
        }
        for absent in ["carolin", "groups", "2024", ""] {
            assert!(!set.contains(absent, index.token_hash(absent)), "{absent}");
        }
        // Tokens sharing one hash are told apart by their text.
        let colliding = TokenSet {
            hashes: vec![1, 7, 7, 7, 9].into_boxed_slice(),
            tokens: ["a", "b", "c", "d", "e"].map(str::to_owned).into(),
        };
        assert!(colliding.contains("c", 7));
        assert!(colliding.contains("d", 7));
        assert!(!colliding.contains("a", 7));
        assert!(!colliding.contains("e", 7));
        assert!(!colliding.contains("x", 8));
    }

    #[test]
    fn only_this_systems_own_contiguous_audit_seqs_read_as_the_seq_before_them() {
        let mut index = RecallIndex::default();
        assert_eq!(index.field_seq(5), 5);
        // Another writer's record came first: 7 and 8 are not right after 5.
        index.advance_past_own_audit(5, &mut [8, 7]);
        assert_eq!((index.field_seq(7), index.field_seq(8)), (7, 8));
        // Ours, right after 8 (in any order): 9..=11 read as 8.
        index.advance_past_own_audit(8, &mut [11, 9, 10]);
        for seq in 8..=11 {
            assert_eq!(index.field_seq(seq), 8, "{seq}");
        }
        assert_eq!((index.field_seq(7), index.field_seq(12)), (7, 12));
        // Ours again right after: the run grows.
        index.advance_past_own_audit(11, &mut [12]);
        assert_eq!(index.field_seq(12), 8);
        // A replay returning older seqs, or a gap, maps nothing new.
        index.advance_past_own_audit(12, &mut [3, 4]);
        index.advance_past_own_audit(12, &mut [14]);
        assert_eq!((index.field_seq(13), index.field_seq(14)), (13, 14));
        assert_eq!(index.field_seq(12), 8);
        // A later run of ours replaces the remembered one.
        index.advance_past_own_audit(20, &mut [21, 22]);
        assert_eq!((index.field_seq(22), index.field_seq(12)), (20, 12));
        index.advance_past_own_audit(22, &mut []);
        assert_eq!(index.field_seq(22), 20);
    }
}
