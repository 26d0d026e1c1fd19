//! What a ripple reads of the home: the seed owner's live formed records,
//! their record edges, the cards' evidence and the stored vectors; and a
//! source's candidates.
//!
//! The owner's graph is every row of the owner (any scope), each cut to the
//! attribute keys the graph reads ([`GRAPH_KEYS`]), folded with the
//! journal's closures. A `MemorySystem` keeps it between calls
//! ([`GraphIndex`], a `FacultyState` cache: derived, rebuilt from the store
//! and the journal when lost), as the card index keeps a pair's cards: new
//! rows come from the store's change feed (`assertions_after` within the
//! owner), a row rewritten in place (which moves no feed cursor) is read
//! again when the journal's understanding versions name it, and the closed
//! ids follow the journal's closures (a closure is never undone). The fold
//! runs again only when one of these moved, over the held rows in the
//! store's query order, so the graph is the one a whole read
//! ([`OwnerGraph::read`]) gives; a call with nothing new reads one empty
//! feed page and the journal's head. The one other in-place change, the
//! mirror of a pending record's claims (`attributes.pending`), touches no
//! key the graph reads. A store without the feed, or an owner left blank,
//! is read whole each call. The stored vectors of the owner's live records
//! are read per call, and only when a source has one ([`Reading`]).

use super::similarity_weight;
use crate::config::{CARD_EVIDENCE_RELIANCE, RIPPLE_NEAREST_K};
use crate::error::Result;
use crate::feed::{Followed, follow_feed};
use crate::kinds::{DIGEST_PREDICATE, RecordKind};
use crate::record::DigestRow;
use crate::tasks::RELATION_WEIGHTS;
use am_journal::{ClosureFilter, JournalRecord, MemoryJournal};
use am_triples::{Narrow, TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Deref;
use std::sync::Arc;

/// Change-feed page size while following an owner's rows.
const FEED_PAGE: usize = 2_000;
/// The longest journal tail read record by record for its closures; a
/// longer one reads the journal's closures whole instead.
const CLOSURE_TAIL: i64 = 10_000;

/// The attribute keys the graph reads of a row (through [`DigestRow`]: the
/// edge mark, the kind, the digest version, the summary role, a card's
/// evidence); the owner's rows are read cut to these
/// ([`TripleStore::query_narrow`]: the same rows in the same order).
const GRAPH_KEYS: Narrow<'static> = Narrow {
    attributes: &[
        "record_edge",
        "record_kind",
        "digest_version",
        "summary_role",
        "known_source_ids",
    ],
    provenance: &[],
};

/// One of the owner's formed records.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rec {
    /// Its digest assertion id.
    pub assertion_id: String,
    /// Its scope.
    pub scope: String,
    /// Its owner.
    pub owner_id: String,
    /// Its current digest version.
    pub version: i64,
    /// Retracted or superseded.
    pub closed: bool,
    /// The entity's own act or a consolidation record.
    pub protected: bool,
    /// A card's evidence (`known_source_ids`).
    pub evidence: Vec<String>,
}

/// The owner's records and edges.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct OwnerGraph {
    /// By graph id.
    pub records: BTreeMap<String, Rec>,
    /// Live record edges `(subject, relation, object)` that carry reliance.
    pub edges: Vec<(String, String, String)>,
}

/// How much a memory relies on a source by `relation` (0: carries nothing).
pub(crate) fn relation_weight(relation: &str) -> f64 {
    RELATION_WEIGHTS
        .iter()
        .find(|(r, _)| *r == relation)
        .map_or(0.0, |(_, w)| *w)
}

/// Whether a record of this row is never reconsidered: the entity's own
/// acts (`UNDERSTANDING_PROTECTED_KINDS`) and a ripple's consolidation
/// record (`summary_role: re-understanding`).
pub(crate) fn is_protected(v: DigestRow<'_>) -> bool {
    v.kind_trimmed()
        .is_some_and(RecordKind::is_understanding_protected)
        || v.nonempty("summary_role") == Some("re-understanding")
}

/// Every assertion id the journal has closed (a digest row's closure names
/// the record's graph id too), through `until` when given.
fn closed_ids(journal: &dyn MemoryJournal, until: Option<i64>) -> Result<HashSet<String>> {
    Ok(journal
        .closures(&ClosureFilter {
            until_seq: until,
            limit: 0,
            ..ClosureFilter::default()
        })?
        .into_iter()
        .map(|c| c.assertion_id)
        .collect())
}

impl OwnerGraph {
    /// Read `owner`'s records (every scope) whole: the answer the kept
    /// graph ([`GraphIndex`]) must give.
    pub(crate) fn read(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        owner: &str,
    ) -> Result<OwnerGraph> {
        let closed = closed_ids(journal, None)?;
        let rows = store.query_narrow(
            &TripleQuery {
                owner_id: Some(owner.to_owned()),
                limit: 0,
                ..TripleQuery::default()
            },
            GRAPH_KEYS,
        )?;
        Ok(OwnerGraph::fold(rows.iter(), &closed))
    }

    /// Fold the owner's rows, in the store's query order (newest observed
    /// first, then latest stored first), with the closed ids.
    fn fold<'a>(
        rows: impl Iterator<Item = &'a TripleAssertion>,
        closed: &HashSet<String>,
    ) -> OwnerGraph {
        let mut g = OwnerGraph::default();
        for a in rows {
            let v = DigestRow::of(a);
            let aid = a.assertion_id.clone().unwrap_or_default();
            let is_closed = closed.contains(&aid) || closed.contains(&a.subject);
            if v.is_edge() {
                if !is_closed && relation_weight(&a.predicate) > 0.0 {
                    g.edges
                        .push((a.subject.clone(), a.predicate.clone(), a.object.clone()));
                }
                continue;
            }
            if a.predicate != DIGEST_PREDICATE || v.kind_text().is_none() {
                continue;
            }
            let evidence = match v.get("known_source_ids") {
                Some(serde_json::Value::Array(ids)) => ids
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            let rec = Rec {
                assertion_id: aid,
                scope: a.scope.clone(),
                owner_id: a.owner_id.clone().unwrap_or_default(),
                version: v.version("digest_version"),
                closed: is_closed,
                protected: is_protected(v),
                evidence,
            };
            // A live row wins over a closed one of the same record.
            match g.records.get(&a.subject) {
                Some(old) if !old.closed => {}
                _ => {
                    g.records.insert(a.subject.clone(), rec);
                }
            }
        }
        g.edges.sort();
        g.edges.dedup();
        g
    }
}

/// The rows of one owner the index holds.
#[derive(Default)]
struct OwnerRows {
    /// The feed cursor the rows are fresh to.
    cursor: i64,
    /// Every row of the owner, cut to [`GRAPH_KEYS`], by feed position.
    rows: BTreeMap<i64, TripleAssertion>,
    /// Assertion id → feed position.
    positions: HashMap<String, i64>,
    /// The fold of `rows` (`None`: to fold again).
    graph: Option<Arc<OwnerGraph>>,
}

/// The owners' graphs a ripple has read (see the module docs).
#[derive(Default)]
pub(crate) struct GraphIndex {
    /// The journal seq the closures and rewrites are read through; `None`
    /// before the first read.
    through: Option<i64>,
    /// Every assertion or record id closed through `through`.
    closed: HashSet<String>,
    owners: HashMap<String, OwnerRows>,
}

impl GraphIndex {
    /// Bring the closures and the held rows up to the journal's head.
    fn follow_journal(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
    ) -> Result<()> {
        let head = journal.current_seq()?;
        let through = match self.through {
            Some(t) if t <= head => t,
            // First read, or not the journal this index read: start again.
            _ => {
                *self = GraphIndex::default();
                self.closed = closed_ids(journal, Some(head))?;
                self.through = Some(head);
                return Ok(());
            }
        };
        if through == head {
            return Ok(());
        }
        let mut closed_more = false;
        if head - through > CLOSURE_TAIL {
            self.closed = closed_ids(journal, Some(head))?;
            closed_more = true;
        } else {
            for rec in journal.replay_records(through, Some(head))? {
                if let JournalRecord::Closure(c) = rec {
                    closed_more |= self.closed.insert(c.assertion_id);
                }
            }
        }
        if closed_more {
            for o in self.owners.values_mut() {
                o.graph = None;
            }
        }
        let mut rewritten: Vec<String> = journal
            .revision_records(through, Some(head))?
            .into_iter()
            .map(|v| v.assertion_id)
            .collect();
        rewritten.sort_unstable();
        rewritten.dedup();
        if !rewritten.is_empty() {
            for (owner, o) in &mut self.owners {
                let held: Vec<String> = rewritten
                    .iter()
                    .filter(|id| o.positions.contains_key(*id))
                    .cloned()
                    .collect();
                if held.is_empty() {
                    continue;
                }
                for a in store.query_narrow(
                    &TripleQuery {
                        assertion_ids: Some(held),
                        owner_id: Some(owner.clone()),
                        limit: 0,
                        ..TripleQuery::default()
                    },
                    GRAPH_KEYS,
                )? {
                    if let Some(pos) = a.assertion_id.as_ref().and_then(|id| o.positions.get(id)) {
                        o.rows.insert(*pos, a);
                    }
                }
                o.graph = None;
            }
        }
        self.through = Some(head);
        Ok(())
    }

    /// The graph of `owner` (not blank), caught up with the journal's head
    /// and the store's feed; `None` when the store has no change feed.
    ///
    /// # Errors
    /// The store's or the journal's failure (the index is then to be
    /// dropped).
    pub(crate) fn graph(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        owner: &str,
    ) -> Result<Option<Arc<OwnerGraph>>> {
        // The journal first: a closure or rewrite committed after the head
        // is read is read on the next call.
        self.follow_journal(store, journal)?;
        let GraphIndex { closed, owners, .. } = self;
        let o = owners.entry(owner.to_owned()).or_default();
        let (positions, rows, graph) = (&mut o.positions, &mut o.rows, &mut o.graph);
        let followed = follow_feed(
            store,
            &mut o.cursor,
            None,
            Some(owner),
            Some(GRAPH_KEYS),
            FEED_PAGE,
            |pos, a| {
                if let Some(id) = &a.assertion_id {
                    positions.insert(id.clone(), pos);
                }
                rows.insert(pos, a);
                *graph = None;
            },
        )?;
        if followed == Followed::NoFeed {
            return Ok(None);
        }
        if let Some(g) = &o.graph {
            return Ok(Some(Arc::clone(g)));
        }
        let mut held: Vec<(&i64, &TripleAssertion)> = o.rows.iter().collect();
        // The store's query order: newest observed first, then latest
        // stored first.
        held.sort_by(|(pa, a), (pb, b)| b.observed_at.cmp(&a.observed_at).then_with(|| pb.cmp(pa)));
        let g = Arc::new(OwnerGraph::fold(held.into_iter().map(|(_, a)| a), closed));
        o.graph = Some(Arc::clone(&g));
        Ok(Some(g))
    }
}

impl crate::MemorySystem {
    /// The graph of `owner` as this call reads it: kept in the
    /// [`GraphIndex`] when the store has a change feed, else read whole.
    ///
    /// # Errors
    /// The store's or the journal's failure.
    pub(crate) fn ripple_graph(&self, owner: &str) -> Result<Reading> {
        if !owner.is_empty() {
            let cache = self.faculty_state.cache::<GraphIndex>();
            let mut index = cache.lock();
            match index.graph(self.store.as_ref(), self.journal.as_ref(), owner) {
                Ok(Some(g)) => return Ok(Reading::new(g)),
                Ok(None) => *index = GraphIndex::default(),
                Err(e) => {
                    *index = GraphIndex::default();
                    return Err(e);
                }
            }
        }
        Ok(Reading::new(Arc::new(OwnerGraph::read(
            self.store.as_ref(),
            self.journal.as_ref(),
            owner,
        )?)))
    }
}

/// One call's reading of an owner's graph: the graph, and the stored unit
/// vectors of its live records, read when a source first needs them.
pub(crate) struct Reading {
    graph: Arc<OwnerGraph>,
    /// Stored unit vectors by graph id (live records only; filled lazily).
    vectors: Option<Vec<(String, Vec<f32>)>>,
}

impl Deref for Reading {
    type Target = OwnerGraph;

    fn deref(&self) -> &OwnerGraph {
        &self.graph
    }
}

impl Reading {
    fn new(graph: Arc<OwnerGraph>) -> Reading {
        Reading {
            graph,
            vectors: None,
        }
    }

    fn vectors(&mut self, store: &dyn TripleStore) -> Result<&[(String, Vec<f32>)]> {
        if self.vectors.is_none() {
            let mut out = Vec::new();
            for (id, r) in &self.graph.records {
                if r.closed || r.assertion_id.is_empty() {
                    continue;
                }
                if let Some(v) = store.stored_vector(&r.assertion_id)?
                    && let Some(u) = unit(v)
                {
                    out.push((id.clone(), u));
                }
            }
            self.vectors = Some(out);
        }
        Ok(self.vectors.as_deref().unwrap_or_default())
    }

    /// The candidates of `source`: `(record id, reliance, via)`, one per
    /// record (the strongest way wins; ties keep edges, then evidence, then
    /// similarity), the source itself and records outside the owner's left
    /// out, sorted by id.
    pub(crate) fn candidates(
        &mut self,
        store: &dyn TripleStore,
        source: &str,
    ) -> Result<Vec<(String, f64, String)>> {
        let mut best: HashMap<String, (f64, String)> = HashMap::new();
        let mut offer = |id: &str, w: f64, via: &str| {
            if id == source || w <= 0.0 {
                return;
            }
            match best.get(id) {
                Some((old, _)) if *old >= w => {}
                _ => {
                    best.insert(id.to_owned(), (w, via.to_owned()));
                }
            }
        };
        for (s, rel, o) in &self.graph.edges {
            let w = relation_weight(rel);
            if s == source {
                offer(o, w, rel);
            } else if o == source {
                offer(s, w, rel);
            }
        }
        for (id, r) in &self.graph.records {
            if !r.closed && r.evidence.iter().any(|e| e == source) {
                offer(id, CARD_EVIDENCE_RELIANCE, "evidence");
            }
        }
        // The others' vectors are read only when the source has one of its
        // own (the vectors held are the live records' with an assertion).
        let source_vec = match self.graph.records.get(source) {
            Some(r) if !r.closed && !r.assertion_id.is_empty() => match &self.vectors {
                Some(held) => held
                    .iter()
                    .find(|(id, _)| id == source)
                    .map(|(_, v)| v.clone()),
                None => store.stored_vector(&r.assertion_id)?.and_then(unit),
            },
            _ => None,
        };
        if let Some(sv) = source_vec {
            let mut near: Vec<(f64, &str)> = self
                .vectors(store)?
                .iter()
                .filter(|(id, _)| id != source)
                .map(|(id, v)| (dot(&sv, v), id.as_str()))
                .collect();
            near.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            near.truncate(RIPPLE_NEAREST_K);
            let near: Vec<(f64, String)> =
                near.into_iter().map(|(c, i)| (c, i.to_owned())).collect();
            for (c, id) in near {
                offer(&id, similarity_weight(c), "similar");
            }
        }
        let mut out: Vec<(String, f64, String)> = best
            .into_iter()
            .filter(|(id, _)| self.graph.records.contains_key(id))
            .map(|(id, (w, via))| (id, w, via))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

fn unit(mut v: Vec<f32>) -> Option<Vec<f32>> {
    let n: f64 = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if v.is_empty() || n == 0.0 || !n.is_finite() {
        return None;
    }
    for x in &mut v {
        *x = (f64::from(*x) / n) as f32;
    }
    Some(v)
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum::<f64>()
        .clamp(-1.0, 1.0)
}
