//! The cursor that bounds `maintenance_due` (api.md: "the answer is folded
//! from the store's `assertions_after` feed, per (store, journal, scopes) in
//! the process, so a check reads only the rows written since the previous
//! check and re-reads the journal's formation bindings only when the journal
//! moved ... Same answer as the full scan").
//!
//! One [`PairsFold`] per pair list asked for, kept on the system (a cache:
//! [`crate::locks::CacheLock`]). It holds what the check needs and nothing
//! else:
//!
//! - the structure's two counts, folded row by row: each substrate record's
//!   title key (duplicate groups are the keys held by two or more records),
//!   which records are maintenance candidates, every component-relation edge
//!   by endpoint, and which records have a component neighbour (isolated =
//!   records without one). Rows only arrive (the store is append-only), so a
//!   record's links only grow: a record arriving links to the neighbours its
//!   earlier edges named, an edge arriving links two records already there;
//! - per pair, the seqs of its `remember` bindings, sorted, so the count
//!   after any anchor is one binary search;
//! - the sleep artifacts (dreams, maintenance candidates) and the highest
//!   seq of their bindings: `last_maintenance_seq`.
//!
//! A check follows each pair's change feed from its cursor (one index probe
//! per pair when nothing is new) and, only when the journal's seq moved, its
//! tail (`replay_records` since the seq read through). What the feed cannot
//! show is caught and answered by a rebuild from nothing: a digest row
//! rewritten in place (it keeps its feed position; its understanding version
//! lands in the journal's tail, `revision_records`), and a subject whose
//! digest row arrives twice (which of two rows the full scan keeps depends
//! on its read order). A store without the feed is read whole every time.

use std::collections::HashMap;

use am_journal::{BindingFilter, BindingSource, JournalRecord, MemoryJournal};
use am_triples::text::title_key;
use am_triples::{ErrorKind, Narrow, NarrowRow, TripleStore};

use super::tuning::COMPONENT_RELATIONS;
use crate::error::Result;
use crate::record::DigestRow;

/// Change-feed page size.
const FEED_PAGE: usize = 1000;

/// The attribute keys [`PairsFold::ingest`] reads of a row (the feed
/// decodes only these).
const DUE_KEYS: Narrow<'static> = Narrow {
    attributes: &[
        "record_kind",
        "maintenance_candidate",
        "record_edge",
        "bookkeeping",
        "title",
    ],
    provenance: &[],
};

/// std's maps with foldhash's per-process seeded hasher (a first check
/// hashes every id of the pairs several times; nothing reads them unsorted).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The folds of every pair list asked for on one system.
#[derive(Default)]
pub(crate) struct DueCursors {
    folds: HashMap<Vec<(String, String)>, PairsFold>,
}

/// What a fold answers: the anchor's formations and the structure's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DueCounts {
    /// `last_maintenance_seq` over the pairs.
    pub(crate) artifact_seq: i64,
    /// Duplicate-title groups.
    pub(crate) duplicate_groups: u64,
    /// Isolated records.
    pub(crate) isolated: u64,
}

impl DueCursors {
    /// Bring the fold of `pairs` up to date and answer; `None` when the
    /// store has no change feed (the caller reads whole).
    pub(crate) fn check(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
    ) -> Result<Option<(DueCounts, FormationSeqs<'_>)>> {
        let fold = self
            .folds
            .entry(pairs.to_vec())
            .or_insert_with(|| PairsFold::new(pairs));
        if !fold.refresh(store, journal)? {
            fold.reset();
            return Ok(None);
        }
        Ok(Some((fold.counts(), FormationSeqs(&fold.formations))))
    }
}

/// Each pair's `remember` binding seqs, sorted.
pub(crate) struct FormationSeqs<'a>(&'a [Vec<i64>]);

impl FormationSeqs<'_> {
    /// Formations strictly after `anchor`, over every pair.
    pub(crate) fn after(&self, anchor: i64) -> u64 {
        self.0
            .iter()
            .map(|seqs| seqs.len() - seqs.partition_point(|s| *s <= anchor))
            .map(|n| u64::try_from(n).unwrap_or(u64::MAX))
            .sum()
    }
}

/// One pair list's fold.
struct PairsFold {
    pairs: Vec<(String, String)>,
    /// Per pair: its feed cursor.
    cursors: Vec<i64>,
    /// The journal seq the tail was read through (`-1`: not yet).
    journal_seq: i64,
    /// Every id a row named (a subject, or an edge's object), by its number:
    /// the sets below hold numbers, each id is stored once.
    ids: FastMap<String, u32>,
    /// Substrate records.
    records: FastSet<u32>,
    /// Title key → how many records hold it.
    titles: FastMap<String, u64>,
    /// Keys held by two or more records.
    duplicate_groups: u64,
    /// Maintenance candidates among the records.
    candidates: FastSet<u32>,
    /// Component-relation edges by endpoint (both directions; a repeated
    /// edge is listed again, which links nothing new).
    edges: FastMap<u32, Vec<u32>>,
    /// Records with at least one component neighbour.
    linked: FastSet<u32>,
    /// Every subject a digest row was read for (a second row rebuilds).
    subjects: FastSet<u32>,
    /// Per pair: `remember` binding seqs, sorted.
    formations: Vec<Vec<i64>>,
    /// Dreams and maintenance candidates.
    artifacts: FastSet<String>,
    /// The highest binding seq of any artifact.
    artifact_seq: i64,
    /// Read whole from now on: the store has no feed, or holds a subject
    /// with two digest rows.
    read_whole: bool,
    /// This refresh started from nothing.
    fresh: bool,
}

impl PairsFold {
    fn new(pairs: &[(String, String)]) -> Self {
        PairsFold {
            pairs: pairs.to_vec(),
            cursors: vec![0; pairs.len()],
            journal_seq: -1,
            ids: FastMap::default(),
            records: FastSet::default(),
            titles: FastMap::default(),
            duplicate_groups: 0,
            candidates: FastSet::default(),
            edges: FastMap::default(),
            linked: FastSet::default(),
            subjects: FastSet::default(),
            formations: vec![Vec::new(); pairs.len()],
            artifacts: FastSet::default(),
            artifact_seq: 0,
            read_whole: false,
            fresh: true,
        }
    }

    fn reset(&mut self) {
        let read_whole = self.read_whole;
        *self = PairsFold::new(&self.pairs);
        self.read_whole = read_whole;
    }

    fn counts(&self) -> DueCounts {
        DueCounts {
            artifact_seq: self.artifact_seq,
            duplicate_groups: self.duplicate_groups,
            isolated: u64::try_from(self.records.len() - self.linked.len()).unwrap_or(u64::MAX),
        }
    }

    /// Follow the journal's tail and the store's feeds; `false` when the
    /// store has no feed.
    fn refresh(&mut self, store: &dyn TripleStore, journal: &dyn MemoryJournal) -> Result<bool> {
        if self.read_whole {
            return Ok(false);
        }
        for _attempt in 0..2 {
            self.fresh = self.journal_seq < 0;
            let head = journal.current_seq()?;
            let rebuild = self.journal_seq >= 0
                && head != self.journal_seq
                && !journal
                    .revision_records(self.journal_seq, Some(head))?
                    .is_empty();
            if rebuild {
                self.reset();
                continue;
            }
            if head != self.journal_seq {
                self.follow_journal(journal, head)?;
            }
            match self.follow_store(store, journal) {
                Ok(true) => return Ok(true),
                Ok(false) if self.fresh => {
                    // A subject whose digest row is stored twice: this fold
                    // cannot say which row the full scan keeps.
                    self.read_whole = true;
                    self.reset();
                    return Ok(false);
                }
                Ok(false) => {
                    // A subject arrived twice: rebuild from nothing.
                    self.reset();
                }
                Err(e) if e.kind() == ErrorKind::Unsupported => {
                    self.read_whole = true;
                    return Ok(false);
                }
                Err(e) => {
                    self.reset();
                    return Err(e);
                }
            }
        }
        // The second attempt started from nothing; what still asks for a
        // rebuild is answered by reading whole.
        self.reset();
        Ok(false)
    }

    /// The journal's tail after the seq read through, up to `head`.
    fn follow_journal(&mut self, journal: &dyn MemoryJournal, head: i64) -> Result<()> {
        let since = self.journal_seq.max(0);
        for r in journal.replay_records(since, Some(head))? {
            let JournalRecord::Binding(b) = r else {
                continue;
            };
            if self.artifacts.contains(&b.record_id) {
                self.artifact_seq = self.artifact_seq.max(b.seq);
            }
            if b.source != BindingSource::Remember {
                continue;
            }
            for (i, (scope, owner)) in self.pairs.iter().enumerate() {
                if b.scope == *scope && b.owner_id == *owner {
                    let seqs = &mut self.formations[i];
                    let at = seqs.partition_point(|s| *s <= b.seq);
                    seqs.insert(at, b.seq);
                }
            }
        }
        self.journal_seq = head;
        Ok(())
    }

    /// Every pair's feed after its cursor; `Ok(false)` asks for a rebuild.
    fn follow_store(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
    ) -> Result<bool> {
        for i in 0..self.pairs.len() {
            loop {
                let (scope, owner) = self.pairs[i].clone();
                // Each row is folded as the store lends it; the sleep
                // artifacts it meets are looked up in the journal after
                // the page (the store may hold the home's connection while
                // it lends).
                let mut met: Vec<String> = Vec::new();
                let mut again = false;
                let (seen, next) = store.visit_after_narrow(
                    self.cursors[i],
                    Some(&scope),
                    (!owner.is_empty()).then_some(owner.as_str()),
                    FEED_PAGE,
                    DUE_KEYS,
                    &mut |_, a| {
                        if !again && !self.ingest(a, &mut met) {
                            again = true;
                        }
                    },
                )?;
                for id in met {
                    for b in journal.bindings(&BindingFilter::record(&id))? {
                        self.artifact_seq = self.artifact_seq.max(b.seq);
                    }
                }
                if again {
                    return Ok(false);
                }
                self.cursors[i] = self.cursors[i].max(next);
                if seen < FEED_PAGE {
                    break;
                }
            }
        }
        Ok(true)
    }

    /// The number of `id`, given one when it is new.
    fn number(&mut self, id: &str) -> u32 {
        if let Some(&n) = self.ids.get(id) {
            return n;
        }
        let n = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.insert(id.to_owned(), n);
        n
    }

    /// Fold one row; `false` when its subject's digest row was read before.
    /// A sleep artifact met for the first time is added to `met` (its
    /// bindings' seqs are the caller's to read).
    fn ingest(&mut self, a: NarrowRow<'_>, met: &mut Vec<String>) -> bool {
        let row = DigestRow::of_attributes(a.attributes);
        if (row.as_stored("record_kind") == Some("dream") || row.flag("maintenance_candidate"))
            && !self.artifacts.contains(a.subject)
        {
            self.artifacts.insert(a.subject.to_owned());
            met.push(a.subject.to_owned());
        }
        if row.is_edge() {
            if COMPONENT_RELATIONS.contains(&am_triples::assertion::py_strip(a.predicate)) {
                let (s, o) = (self.number(a.subject), self.number(a.object));
                self.edges.entry(s).or_default().push(o);
                self.edges.entry(o).or_default().push(s);
                if self.joins(s, o) {
                    self.linked.insert(s);
                    self.linked.insert(o);
                }
            }
            return true;
        }
        let Some(kind) = row.nonempty("record_kind") else {
            return true;
        };
        let skipped = kind == "dream" || kind == "world_model" || row.flag("bookkeeping");
        let candidate = row.flag("maintenance_candidate");
        let key = if skipped {
            String::new()
        } else {
            let title =
                am_triples::text::py_str(row.get("title").unwrap_or(&serde_json::Value::Null));
            if am_triples::assertion::json_truthy(row.get("title")) {
                title_key(am_triples::assertion::py_strip(&title))
            } else {
                String::new()
            }
        };
        let rid = self.number(a.subject);
        if !self.subjects.insert(rid) {
            return false;
        }
        if skipped {
            return true;
        }
        if candidate {
            self.candidates.insert(rid);
        }
        if !key.is_empty() {
            let n = self.titles.entry(key).or_default();
            *n += 1;
            if *n == 2 {
                self.duplicate_groups += 1;
            }
        }
        self.records.insert(rid);
        if let Some(peers) = self.edges.get(&rid) {
            let joined: Vec<u32> = peers
                .iter()
                .copied()
                .filter(|&p| self.joins(rid, p))
                .collect();
            if !joined.is_empty() {
                self.linked.insert(rid);
                self.linked.extend(joined);
            }
        }
        true
    }

    /// Whether an edge between `a` and `b` is adjacency now: two distinct
    /// records, neither a maintenance candidate.
    fn joins(&self, a: u32, b: u32) -> bool {
        a != b
            && self.records.contains(&a)
            && self.records.contains(&b)
            && !self.candidates.contains(&a)
            && !self.candidates.contains(&b)
    }
}
