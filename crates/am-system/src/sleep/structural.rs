//! `structural_report`: the shape of a home's record graph, a pure read.
//!
//! The substrate is every formed record of the pairs (a digest row with a
//! `record_kind`), except the night's own derived artifacts (`dream`,
//! `world_model`: a pass never feeds on what passes derive) and bookkeeping
//! rows. Formation edges are routed by predicate:
//!
//! - a [`COMPONENT_RELATIONS`] edge between two substrate records is
//!   adjacency, and components are the connected pieces of that undirected
//!   graph;
//! - a [`CONTEXT_RELATIONS`] edge, or one whose predicate is neither (an
//!   unknown predicate can never merge components silently), is counted in
//!   `counts.context_edges`; between two distinct substrate records it is a
//!   `context_pairs` entry (already associated), and an unknown predicate is
//!   named in `unknown_relations`;
//! - an edge touching a maintenance candidate (a machine summary, whose
//!   `summarizes` edges span sessions on purpose) is counted in
//!   `counts.candidate_edges` and is neither adjacency nor context.
//!
//! Co-use trails (`co_selected` events up to `as_of`, their hop ids mapped
//! back to records) are `trail_pairs`: habit, never adjacency. Isolated
//! records have no adjacency (a record linked only by context or trails is
//! still isolated). Duplicate titles group by
//! [`title_key`](am_triples::text::title_key); a facet is a
//! keyword/intent/outcome token ([`facet_tokens`], at least
//! `facet_min_len` characters) or a participant kept whole; a facet whose
//! records lie in more than one component is underlinked.
//!
//! Choices the spec leaves open follow 0.3.2 (`consolidation.structural_report`):
//! the report's keys; `as_of` bounds the journal reads only (the store's rows
//! are read as they stand); `refines` is a component relation; every list is
//! sorted, components by their smallest id, each pair `[low, high]`. Ours:
//! no pair, or a blank scope, is refused (`InvalidInput`), duplicate pairs
//! are read once, and a non-string `record_kind` is no record.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`structural_report`);
//! memory-system.md "Sleep".

use std::collections::{BTreeMap, BTreeSet};

/// std's maps with foldhash's per-process seeded hasher (ids are hashed
/// hundreds of thousands of times per report; nothing reads them unsorted).
type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

use am_journal::{ClosureFilter, EventFilter, MemoryJournal};
use am_triples::assertion::{json_truthy, py_strip};
use am_triples::text::{facet_tokens, py_str, title_key};
use am_triples::{Narrow, TripleAssertion, TripleQuery, TripleStore};
use serde::Serialize;
use serde_json::Value;

use super::args::{StructuralReport, sleep_pairs};
use super::tuning::{COMPONENT_RELATIONS, CONTEXT_RELATIONS, SleepTuning};
use crate::error::Result;
use crate::record::DigestRow;
use crate::system::MemorySystem;

/// One substrate record as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StructuralRecord {
    /// The record's graph id.
    pub record_id: String,
    /// Its digest row's assertion id.
    pub assertion_id: String,
    /// Its kind, as stored.
    pub kind: String,
    /// Its title, trimmed (`""` when it has none).
    pub title: String,
    /// Its lexical facets (keyword, intent and outcome tokens), sorted.
    pub facets: Vec<String>,
    /// Its participants, whole, sorted.
    pub participants: Vec<String>,
    /// How its digest was written (`""` when unsaid): machine-authored
    /// digests are no evidence of relatedness for the dream's bridges.
    pub digest_method: String,
}

/// The report's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StructuralCounts {
    /// Substrate records.
    pub records: usize,
    /// Components.
    pub components: usize,
    /// Isolated records.
    pub isolated: usize,
    /// Duplicate-title groups.
    pub duplicates: usize,
    /// Edges that are context or of an unknown predicate.
    pub context_edges: usize,
    /// Edges touching a maintenance candidate.
    pub candidate_edges: usize,
}

/// The answer of [`structural_report`]: the spec's dict, key for key with
/// 0.3.2's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Structure {
    /// Every substrate record by graph id.
    pub records: BTreeMap<String, StructuralRecord>,
    /// The connected components over component relations, each sorted,
    /// ordered by their smallest id.
    pub components: Vec<Vec<String>>,
    /// Each record's component (an index into `components`).
    pub component_of: BTreeMap<String, usize>,
    /// Records with no component edge.
    pub isolated: Vec<String>,
    /// Records sharing a normalized title, by that title (groups of two or
    /// more).
    pub duplicates: BTreeMap<String, Vec<String>>,
    /// The records carrying each facet.
    pub facet_coverage: BTreeMap<String, Vec<String>>,
    /// Facets whose records lie in more than one component.
    pub underlinked_facets: Vec<String>,
    /// Each record's component neighbours.
    pub adjacency: BTreeMap<String, Vec<String>>,
    /// Pairs used together (`co_selected`): habit, never adjacency.
    pub trail_pairs: Vec<(String, String)>,
    /// Pairs joined by a context edge or an unknown predicate: already
    /// associated, never adjacency.
    pub context_pairs: Vec<(String, String)>,
    /// The predicates of edges that are neither component nor context
    /// relations.
    pub unknown_relations: Vec<String>,
    /// The counts.
    pub counts: StructuralCounts,
    /// The journal seq the report was read at.
    pub as_of_seq: i64,
}

impl Structure {
    /// Whether `a` and `b` are already associated (a trail or a context
    /// edge between them), in either order.
    #[must_use]
    pub fn associated(&self, a: &str, b: &str) -> bool {
        let pair = ordered(a, b);
        let hit = |pairs: &[(String, String)]| {
            pairs
                .binary_search_by(|(x, y)| (x.as_str(), y.as_str()).cmp(&(pair.0, pair.1)))
                .is_ok()
        };
        hit(&self.trail_pairs) || hit(&self.context_pairs)
    }
}

fn ordered<'s>(a: &'s str, b: &'s str) -> (&'s str, &'s str) {
    if a <= b { (a, b) } else { (b, a) }
}

fn owned_pair(a: &str, b: &str) -> (String, String) {
    let (x, y) = ordered(a, b);
    (x.to_owned(), y.to_owned())
}

/// Python's `str(v or "")` of an attribute: falsy is `""`.
fn py_text(v: Option<&Value>) -> String {
    match v {
        Some(v) if json_truthy(Some(v)) => py_str(v),
        _ => String::new(),
    }
}

/// A record's lexical facets and participants (api.md "Sleep": facets are
/// keyword, intent and outcome tokens; participants are kept whole).
pub(crate) fn facets_of(
    row: DigestRow<'_>,
    min_len: usize,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut lexical = BTreeSet::new();
    for field in ["keywords", "intents", "outcomes"] {
        if let Some(Value::Array(values)) = row.get(field) {
            let texts: Vec<String> = values.iter().map(py_str).collect();
            lexical.extend(facet_tokens(texts.iter().map(String::as_str), min_len));
        }
    }
    let mut participants = BTreeSet::new();
    if let Some(Value::Array(raw)) = row.get("participants") {
        for p in raw {
            let text = py_text(Some(p));
            let text = py_strip(&text);
            if !text.is_empty() {
                participants.insert(text.to_owned());
            }
        }
    }
    (lexical, participants)
}

/// Every row of one pair (a blank owner reads every owner).
pub(crate) fn pair_rows(
    store: &dyn TripleStore,
    scope: &str,
    owner: &str,
) -> Result<Vec<TripleAssertion>> {
    store.query(&pair_query(scope, owner))
}

/// Every row of one pair, each with only the attribute and provenance keys
/// `keep` names ([`TripleStore::query_narrow`]: the same rows in the same
/// order, the rest of their JSON never decoded).
pub(crate) fn narrow_pair_rows(
    store: &dyn TripleStore,
    scope: &str,
    owner: &str,
    keep: Narrow<'_>,
) -> Result<Vec<TripleAssertion>> {
    store.query_narrow(&pair_query(scope, owner), keep)
}

fn pair_query(scope: &str, owner: &str) -> TripleQuery {
    TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        limit: 0,
        ..TripleQuery::default()
    }
}

/// The attribute keys the structure reads of a row (every key
/// [`structure_of_rows`] and [`facets_of`] ask a [`DigestRow`] for).
pub(crate) const STRUCTURE_KEYS: [&str; 10] = [
    "record_edge",
    "record_kind",
    "bookkeeping",
    "maintenance_candidate",
    "keywords",
    "intents",
    "outcomes",
    "participants",
    "title",
    "digest_method",
];

/// The journal seq a sleep read is anchored at: `as_of` checked against
/// the head, or the head.
pub(crate) fn anchor(journal: &dyn MemoryJournal, as_of: Option<i64>) -> Result<i64> {
    let head = journal.current_seq()?;
    am_journal::journal::check_anchor("as_of", as_of, head)?;
    Ok(as_of.unwrap_or(head))
}

/// Union-find over indices, the smaller root kept (components are named by
/// their smallest id).
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// `structural_report(store, journal, *, scopes, as_of=None)`: the graph's
/// shape over `scopes` (see the module doc). A pure read.
///
/// # Errors
/// `InvalidInput` for no pair, a blank scope, or an `as_of` outside the
/// journal's seq range; the store's or journal's failure.
pub fn structural_report(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &StructuralReport,
) -> Result<Structure> {
    let pairs = sleep_pairs("structural_report", &args.scopes)?;
    let hi = anchor(journal, args.as_of)?;
    let keep = Narrow {
        attributes: &STRUCTURE_KEYS,
        provenance: &[],
    };
    let mut rows: Vec<TripleAssertion> = Vec::new();
    for (scope, owner) in &pairs {
        rows.extend(narrow_pair_rows(store, scope, owner, keep)?);
    }
    structure_of_rows(&rows, journal, args, &pairs, hi)
}

/// [`structural_report`] over the pairs' rows already read (in the store's
/// order, pair after pair; each holding at least the [`STRUCTURE_KEYS`] of
/// its attributes) at the anchor `hi`.
///
/// # Errors
/// The journal's failure.
pub(crate) fn structure_of_rows(
    rows: &[TripleAssertion],
    journal: &dyn MemoryJournal,
    args: &StructuralReport,
    pairs: &[(String, String)],
    hi: i64,
) -> Result<Structure> {
    let closed: FastSet<String> = if args.evidence_grade {
        journal
            .closures(&ClosureFilter {
                until_seq: Some(hi),
                limit: 0,
                ..ClosureFilter::default()
            })?
            .into_iter()
            .map(|c| c.assertion_id)
            .collect()
    } else {
        FastSet::default()
    };
    let facet_min_len = SleepTuning::default().facet_min_len;

    // Route every row: an edge, a substrate record (the last row of a
    // subject wins, as a dict keyed by subject does), or neither. `maps`
    // marks the rows whose assertion id names its subject for the trails.
    let mut maps = vec![false; rows.len()];
    let mut edge_rows: Vec<usize> = Vec::new();
    let mut record_row: FastMap<&str, usize> = FastMap::default();
    let mut candidates: FastSet<&str> = FastSet::default();
    for (i, a) in rows.iter().enumerate() {
        let aid = a.assertion_id.as_deref().unwrap_or_default();
        if args.evidence_grade && !aid.is_empty() && closed.contains(aid) {
            continue;
        }
        let row = DigestRow::of(a);
        if row.is_edge() {
            maps[i] = true;
            edge_rows.push(i);
            continue;
        }
        let Some(kind) = row.nonempty("record_kind") else {
            continue;
        };
        if kind == "dream" || kind == "world_model" || row.flag("bookkeeping") {
            continue;
        }
        let candidate = row.flag("maintenance_candidate");
        if candidate {
            candidates.insert(&a.subject);
        }
        if args.evidence_grade && (candidate || closed.contains(&a.subject)) {
            continue;
        }
        maps[i] = true;
        record_row.insert(&a.subject, i);
    }
    let mut ids: Vec<&str> = record_row.keys().copied().collect();
    ids.sort_unstable();
    let index: FastMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();

    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
    let mut context: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut unknown: BTreeSet<&str> = BTreeSet::new();
    let (mut context_edges, mut candidate_edges) = (0usize, 0usize);
    for &e in &edge_rows {
        let a = &rows[e];
        let (subject, object) = (a.subject.as_str(), a.object.as_str());
        if candidates.contains(subject) || candidates.contains(object) {
            candidate_edges += 1;
            continue;
        }
        let predicate = py_strip(&a.predicate);
        let ends = (index.get(subject), index.get(object));
        if COMPONENT_RELATIONS.contains(&predicate) {
            if let (Some(&l), Some(&r)) = ends
                && l != r
            {
                neighbours[l].push(r);
                neighbours[r].push(l);
            }
            continue;
        }
        context_edges += 1;
        if !CONTEXT_RELATIONS.contains(&predicate) {
            unknown.insert(predicate);
        }
        if subject != object && ends.0.is_some() && ends.1.is_some() {
            context.insert(ordered(subject, object));
        }
    }
    for n in &mut neighbours {
        n.sort_unstable();
        n.dedup();
    }

    // Trails: only the assertion ids the co_selected events name are mapped
    // back to their records.
    let mut events = Vec::new();
    for (scope, owner) in pairs {
        let filter = EventFilter {
            kinds: vec!["co_selected".to_owned()],
            until_seq: Some(hi),
            limit: 0,
            ..EventFilter::new(scope, owner)
        };
        events.extend(
            journal
                .events(&filter)?
                .into_iter()
                .filter_map(|e| e.pair_ids),
        );
    }
    let mut trail_pairs: BTreeSet<(String, String)> = BTreeSet::new();
    if !events.is_empty() {
        let wanted: FastSet<&str> = events
            .iter()
            .flat_map(|(a, b)| [a.as_str(), b.as_str()])
            .collect();
        let mut to_record: FastMap<&str, &str> = FastMap::default();
        for (i, a) in rows.iter().enumerate() {
            if let Some(aid) = a.assertion_id.as_deref()
                && maps[i]
                && wanted.contains(aid)
            {
                to_record.insert(aid, &a.subject);
            }
        }
        for (a, b) in &events {
            if let (Some(ra), Some(rb)) = (to_record.get(a.as_str()), to_record.get(b.as_str()))
                && ra != rb
            {
                trail_pairs.insert(owned_pair(ra, rb));
            }
        }
    }

    // Components: union-find over the sorted ids, each root its smallest
    // member, so listing roots in id order lists components by smallest id.
    let mut parent: Vec<usize> = (0..ids.len()).collect();
    for (l, peers) in neighbours.iter().enumerate() {
        for &r in peers {
            let (a, b) = (find(&mut parent, l), find(&mut parent, r));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut component_index: FastMap<usize, usize> = FastMap::default();
    let mut components: Vec<Vec<String>> = Vec::new();
    let mut member_component: Vec<usize> = vec![0; ids.len()];
    for (i, id) in ids.iter().enumerate() {
        let root = find(&mut parent, i);
        let c = *component_index.entry(root).or_insert_with(|| {
            components.push(Vec::new());
            components.len() - 1
        });
        components[c].push((*id).to_owned());
        member_component[i] = c;
    }

    // Each record as shown, its title key and its facets.
    let mut records: Vec<StructuralRecord> = Vec::with_capacity(ids.len());
    let mut titles: FastMap<String, Vec<usize>> = FastMap::default();
    let mut coverage: FastMap<String, Vec<usize>> = FastMap::default();
    for (i, id) in ids.iter().enumerate() {
        let a = &rows[record_row[id]];
        let row = DigestRow::of(a);
        let (facets, participants) = facets_of(row, facet_min_len);
        let title = py_strip(&py_text(row.get("title"))).to_owned();
        let key = title_key(&title);
        if !key.is_empty() {
            titles.entry(key).or_default().push(i);
        }
        let all: BTreeSet<&String> = facets.iter().chain(&participants).collect();
        for facet in all {
            match coverage.get_mut(facet.as_str()) {
                Some(v) => v.push(i),
                None => {
                    coverage.insert(facet.clone(), vec![i]);
                }
            }
        }
        records.push(StructuralRecord {
            record_id: (*id).to_owned(),
            assertion_id: a.assertion_id.clone().unwrap_or_default(),
            kind: row.nonempty("record_kind").unwrap_or_default().to_owned(),
            title,
            facets: facets.into_iter().collect(),
            participants: participants.into_iter().collect(),
            digest_method: py_text(row.get("digest_method")),
        });
    }
    let named =
        |members: &[usize]| -> Vec<String> { members.iter().map(|&j| ids[j].to_owned()).collect() };
    let duplicates: BTreeMap<String, Vec<String>> = titles
        .into_iter()
        .filter(|(_, members)| members.len() > 1)
        .map(|(key, members)| (key, named(&members)))
        .collect();
    let underlinked_facets: Vec<String> = {
        let mut v: Vec<String> = coverage
            .iter()
            .filter(|(_, members)| {
                let first = member_component[members[0]];
                members.iter().any(|&j| member_component[j] != first)
            })
            .map(|(f, _)| f.clone())
            .collect();
        v.sort_unstable();
        v
    };
    let facet_coverage: BTreeMap<String, Vec<String>> = coverage
        .into_iter()
        .map(|(f, members)| (f, named(&members)))
        .collect();
    let isolated: Vec<String> = ids
        .iter()
        .zip(&neighbours)
        .filter(|(_, n)| n.is_empty())
        .map(|(id, _)| (*id).to_owned())
        .collect();
    let component_of: BTreeMap<String, usize> = ids
        .iter()
        .zip(&member_component)
        .map(|(id, c)| ((*id).to_owned(), *c))
        .collect();
    let adjacency: BTreeMap<String, Vec<String>> = ids
        .iter()
        .zip(&neighbours)
        .map(|(id, n)| ((*id).to_owned(), named(n)))
        .collect();
    let counts = StructuralCounts {
        records: records.len(),
        components: components.len(),
        isolated: isolated.len(),
        duplicates: duplicates.len(),
        context_edges,
        candidate_edges,
    };
    Ok(Structure {
        records: records
            .into_iter()
            .map(|r| (r.record_id.clone(), r))
            .collect(),
        components,
        component_of,
        isolated,
        duplicates,
        facet_coverage,
        underlinked_facets,
        adjacency,
        trail_pairs: trail_pairs.into_iter().collect(),
        context_pairs: context
            .into_iter()
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .collect(),
        unknown_relations: unknown.into_iter().map(str::to_owned).collect(),
        counts,
        as_of_seq: hi,
    })
}

impl MemorySystem {
    /// [`structural_report`] over this system's store and journal.
    ///
    /// # Errors
    /// As [`structural_report`].
    pub fn structural_report(&self, args: &StructuralReport) -> Result<Structure> {
        structural_report(self.store().as_ref(), self.journal().as_ref(), args)
    }
}
