//! The drive index: what the drive reads need of a pair, kept fresh
//! incrementally (a `FacultyState` cache: derived, rebuilt from the store and
//! the journal when lost), so `alive_drives` reads a 100,000-record ladder
//! without reading its 100,000 rows and bindings again.
//!
//! Per `(scope, owner)` pair it holds
//! - the rows a drive fold can read ([`drive_row`]: diary, dream and
//!   interest rows, rows that `explores` something, machine rows), with
//!   their feed positions, taken from the store's change feed
//!   (`assertions_after` within the pair). A rewrite in place keeps its feed
//!   position, so a row a rewrite names (the journal's understanding
//!   versions since the last read, as the card's ladder mirror follows them)
//!   is read again: a held row is replaced, a row that now carries a mark
//!   joins (its feed position unknown, the pair's rows are read back from the
//!   store by id from then on, in the store's order). A row that loses its
//!   mark stays held: the folds read rows by their marks, so an extra row
//!   changes no answer;
//! - the latest binding of each record in the pair (its seq and lifecycle:
//!   the pair's binding fold) and the records ordered by that seq, the
//!   binding axis `alive_drives` ranks recency on. A pair first asked for
//!   reads its bindings whole; later reads follow the journal's tail
//!   (`replay_records` since the seq read through).
//!
//! A store without the feed answers `false` from [`DriveIndex::refresh`]:
//! the caller reads the ladder whole.

use crate::error::Result;
use crate::feed::{Followed, follow_feed};
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use am_journal::{BindingFilter, JournalRecord, Lifecycle, MemoryJournal, ScopeBinding};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Change-feed page size while following a pair's rows.
const FEED_PAGE: usize = 2_000;
/// Seqs of the journal tail read per `replay_records` call.
const TAIL_CHUNK: i64 = 10_000;

/// Whether a machine wrote the row (a maintenance candidate, a bookkeeping
/// row): it never becomes or discharges a drive, and takes no place on the
/// recency axis.
pub(crate) fn is_machine(row: DigestRow<'_>) -> bool {
    row.flag("maintenance_candidate") || row.flag("bookkeeping")
}

/// Whether a drive fold can read row `a`: a diary, dream or interest row, a
/// row that `explores` something, or a machine row. Every fold over a
/// [`super::view::DriveView`] filters by one of these marks.
pub(crate) fn drive_row(a: &TripleAssertion) -> bool {
    let row = DigestRow::of(a);
    matches!(row.kind(), Some(RecordKind::Diary | RecordKind::Dream))
        || row.as_stored("record_kind").is_some_and(|k| {
            matches!(
                k.trim().to_lowercase().as_str(),
                "diary" | "dream" | "interest"
            )
        })
        || row.text("explores").is_some()
        || is_machine(row)
}

/// A record's latest binding in a pair.
#[derive(Clone, Copy)]
struct Latest {
    seq: i64,
    lifecycle: Lifecycle,
}

/// One pair's part of the index.
struct PairIndex {
    scope: String,
    owner: String,
    /// The feed cursor the drive rows are fresh to.
    cursor: i64,
    /// The pair's drive rows by assertion id, each with its feed position.
    rows: HashMap<String, (i64, TripleAssertion)>,
    /// A row joined through a rewrite, with no feed position known: the
    /// rows are read back from the store, in its order, from then on.
    unordered: bool,
    /// Each record's latest binding in the pair.
    latest: HashMap<Arc<str>, Latest>,
    /// `(latest seq, record)` of every bound record: the binding axis.
    axis: BTreeSet<(i64, Arc<str>)>,
}

impl PairIndex {
    fn new(scope: &str, owner: &str) -> Self {
        PairIndex {
            scope: scope.to_owned(),
            owner: owner.to_owned(),
            cursor: 0,
            rows: HashMap::new(),
            unordered: false,
            latest: HashMap::new(),
            axis: BTreeSet::new(),
        }
    }

    fn owner_filter(&self) -> Option<&str> {
        (!self.owner.is_empty()).then_some(self.owner.as_str())
    }

    fn bind(&mut self, b: &ScopeBinding) {
        let now = Latest {
            seq: b.seq,
            lifecycle: b.lifecycle,
        };
        match self.latest.get_mut(b.record_id.as_str()) {
            Some(held) if held.seq > b.seq => {}
            Some(held) => {
                let rid: Arc<str> = self
                    .axis
                    .take(&(held.seq, Arc::from(b.record_id.as_str())))
                    .map_or_else(|| Arc::from(b.record_id.as_str()), |(_, r)| r);
                *held = now;
                self.axis.insert((b.seq, rid));
            }
            None => {
                let rid: Arc<str> = Arc::from(b.record_id.as_str());
                self.latest.insert(rid.clone(), now);
                self.axis.insert((b.seq, rid));
            }
        }
    }

    /// Take in a row of the feed at `pos`, or (`None`) a row read again
    /// after a rewrite: held rows are replaced, a drive row joins.
    fn ingest(&mut self, pos: Option<i64>, a: &TripleAssertion) {
        let Some(id) = &a.assertion_id else { return };
        if let Some((_, held)) = self.rows.get_mut(id) {
            *held = a.clone();
            return;
        }
        if !drive_row(a) {
            return;
        }
        if pos.is_none() {
            self.unordered = true;
        }
        self.rows
            .insert(id.clone(), (pos.unwrap_or(i64::MAX), a.clone()));
    }

    /// Follow the store's feed; `false` when the store offers none.
    fn follow(&mut self, store: &dyn TripleStore) -> Result<bool> {
        let mut cursor = self.cursor;
        let (scope, owner) = (self.scope.clone(), self.owner_filter().map(str::to_owned));
        let followed = follow_feed(
            store,
            &mut cursor,
            Some(&scope),
            owner.as_deref(),
            None,
            FEED_PAGE,
            |pos, a| self.ingest(Some(pos), &a),
        );
        self.cursor = cursor;
        Ok(followed? == Followed::ToEnd)
    }
}

/// The drive index of every pair a drive read has asked for (see the
/// module doc).
#[derive(Default)]
pub(crate) struct DriveIndex {
    /// The journal seq the bindings and rewrites are read through.
    through: i64,
    pairs: Vec<PairIndex>,
}

impl DriveIndex {
    fn pair(&self, scope: &str, owner: &str) -> Option<&PairIndex> {
        self.pairs
            .iter()
            .find(|p| p.scope == scope && p.owner == owner)
    }

    /// Bring the normalized `pairs` (and the bindings of every pair held) up
    /// to the journal's `current` seq and the store's present rows. `false`
    /// when the store has no change feed (nothing is held then).
    ///
    /// # Errors
    /// The store's or journal's failure (the index is then to be dropped).
    pub(crate) fn refresh(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
        current: i64,
    ) -> Result<bool> {
        if current < self.through {
            // Not the journal this index read: start again.
            *self = DriveIndex::default();
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
            if !rewritten.is_empty() {
                for p in &mut self.pairs {
                    for a in store.query(&TripleQuery {
                        assertion_ids: Some(rewritten.clone()),
                        scope: Some(p.scope.clone()),
                        owner_id: p.owner_filter().map(str::to_owned),
                        limit: 0,
                        ..TripleQuery::default()
                    })? {
                        p.ingest(None, &a);
                    }
                }
            }
        }
        for (scope, owner) in pairs {
            if self.pair(scope, owner).is_some() {
                continue;
            }
            let mut p = PairIndex::new(scope, owner);
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
            if pairs.iter().any(|(s, o)| *s == p.scope && *o == p.owner) && !p.follow(store)? {
                *self = DriveIndex::default();
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The drive rows of a refreshed pair, in the store's query order (the
    /// order a whole read of the pair gives them: newest `observed_at`
    /// first, then latest stored first).
    ///
    /// # Errors
    /// The store's failure.
    pub(crate) fn rows(
        &self,
        store: &dyn TripleStore,
        scope: &str,
        owner: &str,
    ) -> Result<Vec<TripleAssertion>> {
        let Some(p) = self.pair(scope, owner) else {
            return Ok(Vec::new());
        };
        if p.rows.is_empty() {
            return Ok(Vec::new());
        }
        if p.unordered {
            let mut ids: Vec<String> = p.rows.keys().cloned().collect();
            ids.sort_unstable();
            return store.query(&TripleQuery {
                assertion_ids: Some(ids),
                scope: Some(p.scope.clone()),
                owner_id: p.owner_filter().map(str::to_owned),
                limit: 0,
                ..TripleQuery::default()
            });
        }
        let mut held: Vec<&(i64, TripleAssertion)> = p.rows.values().collect();
        held.sort_by(|(pa, a), (pb, b)| b.observed_at.cmp(&a.observed_at).then_with(|| pb.cmp(pa)));
        Ok(held.into_iter().map(|(_, a)| a.clone()).collect())
    }

    /// The folded lifecycle in a refreshed pair of each of `records` bound
    /// there.
    pub(crate) fn lifecycles<'r>(
        &self,
        scope: &str,
        owner: &str,
        records: impl Iterator<Item = &'r str>,
    ) -> HashMap<String, Lifecycle> {
        let Some(p) = self.pair(scope, owner) else {
            return HashMap::new();
        };
        records
            .filter_map(|r| p.latest.get(r).map(|l| (r.to_owned(), l.lifecycle)))
            .collect()
    }

    /// The newest records of the ladder's binding axis, newest first: each
    /// bound record once, by its newest binding in any of `pairs`, records
    /// `skip` names and blank ids taking no place, at most `limit`.
    pub(crate) fn newest(
        &self,
        pairs: &[(String, String)],
        skip: &HashSet<&str>,
        limit: usize,
    ) -> Vec<String> {
        // A record in the ladder's top `limit` is in the top `limit` of the
        // pair holding its newest binding: every record above it there is
        // above it in the ladder too.
        let mut candidates: Vec<(i64, &str)> = Vec::new();
        for (scope, owner) in pairs {
            let Some(p) = self.pair(scope, owner) else {
                continue;
            };
            let mut kept = 0;
            for (seq, rid) in p.axis.iter().rev() {
                if kept >= limit {
                    break;
                }
                if rid.is_empty() || skip.contains(&**rid) {
                    continue;
                }
                candidates.push((*seq, rid));
                kept += 1;
            }
        }
        candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for (_, rid) in candidates {
            if out.len() >= limit {
                break;
            }
            if seen.insert(rid) {
                out.push(rid.to_owned());
            }
        }
        out
    }
}
