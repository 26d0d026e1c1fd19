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

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// std's maps with foldhash's per-process seeded hasher (ids are hashed
/// hundreds of thousands of times per report; nothing reads them unsorted).
type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

use am_journal::{ClosureFilter, EventFilter, MemoryJournal};
use am_triples::assertion::py_strip;
use am_triples::lent::{self, Lent};
use am_triples::text::{each_facet_token, title_key};
use am_triples::{Narrow, NarrowRow, TripleAssertion, TripleQuery, TripleStore};
use serde::Serialize;

use super::args::{StructuralReport, sleep_pairs};
use super::tuning::{COMPONENT_RELATIONS, CONTEXT_RELATIONS, SleepTuning};
use crate::error::Result;
use crate::system::MemorySystem;

/// A text held once and shared by every place of the report that names it
/// (a record id appears in up to six of [`Structure`]'s fields, a facet in
/// thousands of records): a clone is a reference count, not a copy. It
/// reads as a `str` (`Deref`, `Borrow<str>`, so a map keyed by it is looked
/// up by `&str`), orders and compares as its text, and serializes as a JSON
/// string, so the report's JSON is the one owned strings gave.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Atom(Arc<str>);

impl Atom {
    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Atom {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Atom {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Atom {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Atom {
    fn from(s: &str) -> Self {
        Atom(Arc::from(s))
    }
}

impl From<String> for Atom {
    fn from(s: String) -> Self {
        Atom(Arc::from(s))
    }
}

impl PartialEq<str> for Atom {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Atom {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Atom {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Atom> for String {
    fn eq(&self, other: &Atom) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Atom> for &str {
    fn eq(&self, other: &Atom) -> bool {
        **self == *other.0
    }
}

impl Serialize for Atom {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// A JSON string, as `String`'s schema says.
impl schemars::JsonSchema for Atom {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        <String as schemars::JsonSchema>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <String as schemars::JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <String as schemars::JsonSchema>::json_schema(generator)
    }
}

/// One substrate record as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StructuralRecord {
    /// The record's graph id.
    pub record_id: Atom,
    /// Its digest row's assertion id.
    pub assertion_id: String,
    /// Its kind, as stored.
    pub kind: Atom,
    /// Its title, trimmed (`""` when it has none).
    pub title: String,
    /// Its lexical facets (keyword, intent and outcome tokens), sorted.
    pub facets: Vec<Atom>,
    /// Its participants, whole, sorted.
    pub participants: Vec<Atom>,
    /// How its digest was written (`""` when unsaid): machine-authored
    /// digests are no evidence of relatedness for the dream's bridges.
    pub digest_method: Atom,
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
/// 0.3.2's. Each record id and facet is one shared [`Atom`] wherever it
/// appears.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Structure {
    /// Every substrate record by graph id.
    pub records: BTreeMap<Atom, StructuralRecord>,
    /// The connected components over component relations, each sorted,
    /// ordered by their smallest id.
    pub components: Vec<Vec<Atom>>,
    /// Each record's component (an index into `components`).
    pub component_of: BTreeMap<Atom, usize>,
    /// Records with no component edge.
    pub isolated: Vec<Atom>,
    /// Records sharing a normalized title, by that title (groups of two or
    /// more).
    pub duplicates: BTreeMap<String, Vec<Atom>>,
    /// The records carrying each facet.
    pub facet_coverage: BTreeMap<Atom, Vec<Atom>>,
    /// Facets whose records lie in more than one component.
    pub underlinked_facets: Vec<Atom>,
    /// Each record's component neighbours.
    pub adjacency: BTreeMap<Atom, Vec<Atom>>,
    /// Pairs used together (`co_selected`): habit, never adjacency.
    pub trail_pairs: Vec<(Atom, Atom)>,
    /// Pairs joined by a context edge or an unknown predicate: already
    /// associated, never adjacency.
    pub context_pairs: Vec<(Atom, Atom)>,
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
        let hit = |pairs: &[(Atom, Atom)]| {
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

/// Python's `str(v or "")` of a lent attribute: falsy is `""`.
pub(crate) fn py_text<'v>(v: Option<&'v Lent<'_>>) -> Cow<'v, str> {
    match v {
        Some(v) if v.truthy() => v.py_str(),
        _ => Cow::Borrowed(""),
    }
}

/// Every row of one pair (a blank owner reads every owner).
pub(crate) fn pair_rows(
    store: &dyn TripleStore,
    scope: &str,
    owner: &str,
) -> Result<Vec<TripleAssertion>> {
    store.query(&pair_query(scope, owner))
}

/// Every row of one pair, each lent to `visit` with the [`SLEEP_KEYS`]
/// of its attributes and the provenance keys `provenance` names
/// ([`TripleStore::visit_narrow_text`]: the rows `query_narrow` returns, in
/// its order, none of them built; read the attributes with
/// [`SleepRow::of`]).
///
/// # Errors
/// The store's failure.
pub(crate) fn visit_pair_rows(
    store: &dyn TripleStore,
    scope: &str,
    owner: &str,
    provenance: &[&str],
    visit: &mut dyn FnMut(NarrowRow<'_>),
) -> Result<()> {
    let keep = Narrow {
        attributes: &SLEEP_KEYS,
        provenance,
    };
    store.visit_narrow_text(&pair_query(scope, owner), keep, visit)
}

pub(crate) fn pair_query(scope: &str, owner: &str) -> TripleQuery {
    TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        limit: 0,
        ..TripleQuery::default()
    }
}

/// The attribute keys sleep's whole-pair scans read of a row (the
/// structure's and the tending scan's), in [`Key`]'s order.
pub(crate) const SLEEP_KEYS: [&str; 15] = [
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
    "source_ids",
    "import_provenance",
    "seeded_from",
    "origin_path",
    "payload_ref",
];

/// A key of [`SLEEP_KEYS`], by its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    RecordEdge,
    RecordKind,
    Bookkeeping,
    MaintenanceCandidate,
    Keywords,
    Intents,
    Outcomes,
    Participants,
    Title,
    DigestMethod,
    SourceIds,
    ImportProvenance,
    SeededFrom,
    OriginPath,
    PayloadRef,
}

/// A row's [`SLEEP_KEYS`] attributes, read by [`Key`]: the values a
/// `DigestRow` over the row's attributes gives for the same keys (lent from
/// the stored text when the store lends it, [`NarrowRow::lend_attributes`]).
pub(crate) struct SleepRow<'t>([Option<Lent<'t>>; 15]);

impl<'t> SleepRow<'t> {
    /// The row's attributes.
    pub(crate) fn of(row: &NarrowRow<'t>) -> SleepRow<'t> {
        SleepRow(row.lend_attributes(&SLEEP_KEYS))
    }

    /// The attribute as stored.
    pub(crate) fn get(&self, k: Key) -> Option<&Lent<'t>> {
        self.0[k as usize].as_ref()
    }

    /// Python truthiness (absent is false).
    pub(crate) fn flag(&self, k: Key) -> bool {
        lent::truthy(self.get(k))
    }

    /// The string attribute as stored; `None` when `""` or not a string.
    pub(crate) fn nonempty(&self, k: Key) -> Option<&str> {
        self.get(k).and_then(Lent::as_str).filter(|s| !s.is_empty())
    }

    /// Whether the row is a formation edge (`record_edge` truthy).
    pub(crate) fn is_edge(&self) -> bool {
        self.flag(Key::RecordEdge)
    }
}

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
    let mut fold = StructureRows::new(journal, args, &pairs, hi)?;
    for (scope, owner) in &pairs {
        visit_pair_rows(store, scope, owner, &[], &mut |row| {
            let attrs = SleepRow::of(&row);
            fold.row(&row, &attrs);
        })?;
    }
    Ok(fold.finish())
}

/// Sort numbers by their texts (byte order, as `str` orders): by each
/// text's first 16 bytes as one big-endian integer (zero-padded: a key
/// that differs orders as the texts do), then each run of equal keys by
/// the whole texts. Ids share long prefixes (`ex:episode-…`), which a
/// text compare walks again at every step.
fn sort_by_text<'t>(numbers: &mut [u32], text: impl Fn(u32) -> &'t str) {
    let key = |t: &str| {
        let mut head = [0u8; 16];
        let n = t.len().min(16);
        head[..n].copy_from_slice(&t.as_bytes()[..n]);
        u128::from_be_bytes(head)
    };
    let mut keyed: Vec<(u128, u32)> = numbers.iter().map(|&n| (key(text(n)), n)).collect();
    keyed.sort_unstable();
    for (slot, (_, n)) in numbers.iter_mut().zip(&keyed) {
        *slot = *n;
    }
    let mut start = 0;
    while start < keyed.len() {
        let mut end = start + 1;
        while end < keyed.len() && keyed[end].0 == keyed[start].0 {
            end += 1;
        }
        if end - start > 1 {
            numbers[start..end].sort_unstable_by(|a, b| text(*a).cmp(text(*b)));
        }
        start = end;
    }
}

/// Texts numbered by first sight, each held once as an [`Atom`].
#[derive(Default)]
struct Interner {
    number: FastMap<Atom, u32>,
    texts: Vec<Atom>,
}

impl Interner {
    fn of(&mut self, text: &str) -> u32 {
        if let Some(&n) = self.number.get(text) {
            return n;
        }
        let n = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        let atom = Atom::from(text);
        self.texts.push(atom.clone());
        self.number.insert(atom, n);
        n
    }

    fn get(&self, text: &str) -> Option<u32> {
        self.number.get(text).copied()
    }

    fn text(&self, n: u32) -> &Atom {
        &self.texts[n as usize]
    }
}

/// [`structural_report`] folded one row at a time: [`StructureRows::row`]
/// for each of the pairs' rows in the store's order, pair after pair (each
/// with its [`SleepRow`]), then [`StructureRows::finish`]. A row keeps only
/// what the report shows of it; every graph id, predicate and facet is
/// numbered as it is first seen.
pub(crate) struct StructureRows {
    evidence_grade: bool,
    /// Every assertion id closed at the anchor (evidence grade only).
    closed: FastSet<String>,
    /// The `co_selected` events' hop pairs, and every id they name.
    events: Vec<(String, String)>,
    wanted: FastSet<String>,
    /// Each wanted assertion id's subject (the last row naming it wins).
    to_record: FastMap<String, String>,
    facet_min_len: usize,
    /// Every graph id the rows name (records and edge ends).
    ids: Interner,
    /// The edges' predicates, trimmed.
    predicates: Interner,
    /// Facet and participant texts.
    facets: Interner,
    edges: Vec<EdgeRow>,
    /// The maintenance candidates' ids.
    candidates: FastSet<u32>,
    /// Each substrate record's facts, by id number (the last row of a
    /// subject wins, as a dict keyed by subject does).
    records: Vec<Option<RecordFacts>>,
    /// The kinds and digest methods, each text one atom.
    small: FastMap<String, Atom>,
    /// The lowered text of a facet value.
    scratch: String,
    hi: i64,
}

/// A formation edge, as the structure routes it (id numbers).
struct EdgeRow {
    subject: u32,
    object: u32,
    predicate: u32,
}

/// What the report shows of a record's row.
struct RecordFacts {
    assertion_id: String,
    kind: Atom,
    title: String,
    /// Facet numbers, as found.
    facets: Vec<u32>,
    /// Participant numbers (among the facets' texts), as found.
    participants: Vec<u32>,
    digest_method: Atom,
}

impl StructureRows {
    /// A fold anchored at the journal seq `hi`: the closures (evidence
    /// grade) and the pairs' `co_selected` events up to `hi` are read now.
    ///
    /// # Errors
    /// The journal's failure.
    pub(crate) fn new(
        journal: &dyn MemoryJournal,
        args: &StructuralReport,
        pairs: &[(String, String)],
        hi: i64,
    ) -> Result<Self> {
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
        // Trails: only the assertion ids the co_selected events name are
        // mapped back to their records.
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
        let wanted = events
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        Ok(StructureRows {
            evidence_grade: args.evidence_grade,
            closed,
            events,
            wanted,
            to_record: FastMap::default(),
            facet_min_len: SleepTuning::default().facet_min_len,
            ids: Interner::default(),
            predicates: Interner::default(),
            facets: Interner::default(),
            edges: Vec::new(),
            candidates: FastSet::default(),
            records: Vec::new(),
            small: FastMap::default(),
            scratch: String::new(),
            hi,
        })
    }

    /// One text's atom among the kinds and digest methods.
    fn small_atom(&mut self, text: &str) -> Atom {
        if let Some(a) = self.small.get(text) {
            return a.clone();
        }
        let a = Atom::from(text);
        self.small.insert(text.to_owned(), a.clone());
        a
    }

    /// A row that names its subject for the trails.
    fn maps(&mut self, a: &NarrowRow<'_>) {
        if let Some(aid) = a.assertion_id
            && self.wanted.contains(aid)
        {
            self.to_record.insert(aid.to_owned(), a.subject.to_owned());
        }
    }

    /// Route one row (`attrs` its attributes): an edge, a substrate
    /// record, or neither.
    pub(crate) fn row(&mut self, a: &NarrowRow<'_>, attrs: &SleepRow<'_>) {
        let aid = a.assertion_id.unwrap_or_default();
        if self.evidence_grade && !aid.is_empty() && self.closed.contains(aid) {
            return;
        }
        if attrs.is_edge() {
            self.maps(a);
            let edge = EdgeRow {
                subject: self.ids.of(a.subject),
                object: self.ids.of(a.object),
                predicate: self.predicates.of(py_strip(a.predicate)),
            };
            self.edges.push(edge);
            return;
        }
        let Some(kind) = attrs.nonempty(Key::RecordKind) else {
            return;
        };
        if kind == "dream" || kind == "world_model" || attrs.flag(Key::Bookkeeping) {
            return;
        }
        let candidate = attrs.flag(Key::MaintenanceCandidate);
        if candidate {
            let n = self.ids.of(a.subject);
            self.candidates.insert(n);
        }
        if self.evidence_grade && (candidate || self.closed.contains(a.subject)) {
            return;
        }
        self.maps(a);
        // Facets: keyword, intent and outcome tokens; participants whole.
        let mut facets = Vec::new();
        for key in [Key::Keywords, Key::Intents, Key::Outcomes] {
            if let Some(values) = attrs.get(key).and_then(Lent::as_array) {
                for v in values {
                    let text = v.py_str();
                    let (interner, scratch) = (&mut self.facets, &mut self.scratch);
                    each_facet_token(&text, self.facet_min_len, scratch, &mut |t| {
                        facets.push(interner.of(t));
                    });
                }
            }
        }
        let mut participants = Vec::new();
        if let Some(raw) = attrs.get(Key::Participants).and_then(Lent::as_array) {
            for p in raw {
                let text = py_text(Some(p));
                let text = py_strip(&text);
                if !text.is_empty() {
                    participants.push(self.facets.of(text));
                }
            }
        }
        let facts = RecordFacts {
            assertion_id: aid.to_owned(),
            kind: self.small_atom(kind),
            title: py_strip(&py_text(attrs.get(Key::Title))).to_owned(),
            facets,
            participants,
            digest_method: self.small_atom(&py_text(attrs.get(Key::DigestMethod))),
        };
        let n = self.ids.of(a.subject) as usize;
        if self.records.len() <= n {
            self.records.resize_with(n + 1, || None);
        }
        self.records[n] = Some(facts);
    }

    /// The structure of the rows folded.
    pub(crate) fn finish(self) -> Structure {
        let StructureRows {
            events,
            to_record,
            ids: id_texts,
            predicates,
            facets: facet_texts,
            edges,
            candidates,
            records: mut slots,
            hi,
            ..
        } = self;
        // The records' id numbers in id order, and each id number's place
        // in it (u32::MAX: no record).
        let mut order: Vec<u32> = (0..slots.len())
            .filter(|&n| slots[n].is_some())
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
            .collect();
        sort_by_text(&mut order, |n| id_texts.text(n).as_str());
        let mut place: Vec<u32> = vec![u32::MAX; id_texts.texts.len()];
        for (i, &n) in order.iter().enumerate() {
            place[n as usize] = u32::try_from(i).unwrap_or(u32::MAX);
        }
        let atoms: Vec<Atom> = order.iter().map(|&n| id_texts.text(n).clone()).collect();
        let facts: Vec<RecordFacts> = order
            .iter()
            .filter_map(|&n| slots[n as usize].take())
            .collect();
        drop(slots);
        let index = |n: u32| -> Option<usize> {
            place
                .get(n as usize)
                .filter(|&&p| p != u32::MAX)
                .map(|&p| p as usize)
        };

        // Each predicate's route: a component relation (Some(true)), a
        // context one (Some(false)) or unknown (None).
        let routes: Vec<Option<bool>> = predicates
            .texts
            .iter()
            .map(|p| {
                if COMPONENT_RELATIONS.contains(&p.as_str()) {
                    Some(true)
                } else if CONTEXT_RELATIONS.contains(&p.as_str()) {
                    Some(false)
                } else {
                    None
                }
            })
            .collect();
        let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); atoms.len()];
        let mut context: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut unknown: BTreeSet<&str> = BTreeSet::new();
        let (mut context_edges, mut candidate_edges) = (0usize, 0usize);
        for e in &edges {
            if candidates.contains(&e.subject) || candidates.contains(&e.object) {
                candidate_edges += 1;
                continue;
            }
            let ends = (index(e.subject), index(e.object));
            let route = routes[e.predicate as usize];
            if route == Some(true) {
                if let (Some(l), Some(r)) = ends
                    && l != r
                {
                    neighbours[l].push(r);
                    neighbours[r].push(l);
                }
                continue;
            }
            context_edges += 1;
            if route.is_none() {
                unknown.insert(predicates.text(e.predicate).as_str());
            }
            // Ids are numbered in text order, so the numbers' order is the
            // texts' order.
            if let (Some(l), Some(r)) = ends
                && l != r
            {
                context.insert((l.min(r), l.max(r)));
            }
        }
        for n in &mut neighbours {
            n.sort_unstable();
            n.dedup();
        }

        let mut trail_pairs: BTreeSet<(&str, &str)> = BTreeSet::new();
        for (a, b) in &events {
            if let (Some(ra), Some(rb)) = (to_record.get(a.as_str()), to_record.get(b.as_str()))
                && ra != rb
            {
                trail_pairs.insert(ordered(ra, rb));
            }
        }

        // Components: union-find over the sorted ids, each root its smallest
        // member, so listing roots in id order lists components by smallest id.
        let mut parent: Vec<usize> = (0..atoms.len()).collect();
        for (l, peers) in neighbours.iter().enumerate() {
            for &r in peers {
                let (a, b) = (find(&mut parent, l), find(&mut parent, r));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        let mut component_at: Vec<usize> = vec![usize::MAX; atoms.len()];
        let mut components: Vec<Vec<Atom>> = Vec::new();
        let mut member_component: Vec<usize> = vec![0; atoms.len()];
        for (i, atom) in atoms.iter().enumerate() {
            let root = find(&mut parent, i);
            if component_at[root] == usize::MAX {
                components.push(Vec::new());
                component_at[root] = components.len() - 1;
            }
            let c = component_at[root];
            components[c].push(atom.clone());
            member_component[i] = c;
        }

        // Each record as shown, its title key and its facets (sorted by
        // text, each once).
        let by_text = |a: &u32, b: &u32| facet_texts.text(*a).cmp(facet_texts.text(*b));
        let mut records: Vec<StructuralRecord> = Vec::with_capacity(atoms.len());
        let mut titles: FastMap<String, Vec<usize>> = FastMap::default();
        let mut coverage: Vec<Vec<usize>> = vec![Vec::new(); facet_texts.texts.len()];
        for (i, f) in facts.into_iter().enumerate() {
            let key = title_key(&f.title);
            if !key.is_empty() {
                titles.entry(key).or_default().push(i);
            }
            let mut shown = |mut numbers: Vec<u32>| -> Vec<Atom> {
                numbers.sort_unstable_by(by_text);
                numbers.dedup();
                numbers
                    .into_iter()
                    .map(|n| {
                        // A text both a facet and a participant covers the
                        // record once.
                        let members = &mut coverage[n as usize];
                        if members.last() != Some(&i) {
                            members.push(i);
                        }
                        facet_texts.text(n).clone()
                    })
                    .collect()
            };
            let facets = shown(f.facets);
            let participants = shown(f.participants);
            records.push(StructuralRecord {
                record_id: atoms[i].clone(),
                assertion_id: f.assertion_id,
                kind: f.kind,
                title: f.title,
                facets,
                participants,
                digest_method: f.digest_method,
            });
        }
        let named = |members: &[usize]| -> Vec<Atom> {
            members.iter().map(|&j| atoms[j].clone()).collect()
        };
        let duplicates: BTreeMap<String, Vec<Atom>> = titles
            .into_iter()
            .filter(|(_, members)| members.len() > 1)
            .map(|(key, members)| (key, named(&members)))
            .collect();
        // A facet counts once some record shown carries it (a row a later
        // row of its subject replaced may have named others).
        let covered = || {
            coverage
                .iter()
                .zip(&facet_texts.texts)
                .filter(|(members, _)| !members.is_empty())
        };
        let underlinked_facets: Vec<Atom> = {
            let mut v: Vec<Atom> = covered()
                .filter(|(members, _)| {
                    let first = member_component[members[0]];
                    members.iter().any(|&j| member_component[j] != first)
                })
                .map(|(_, f)| f.clone())
                .collect();
            v.sort_unstable();
            v
        };
        let facet_coverage: BTreeMap<Atom, Vec<Atom>> = covered()
            .map(|(members, f)| (f.clone(), named(members)))
            .collect();
        let isolated: Vec<Atom> = atoms
            .iter()
            .zip(&neighbours)
            .filter(|(_, n)| n.is_empty())
            .map(|(id, _)| id.clone())
            .collect();
        // The keys arrive sorted: the maps are built in one pass.
        let component_of: BTreeMap<Atom, usize> = atoms
            .iter()
            .zip(&member_component)
            .map(|(id, c)| (id.clone(), *c))
            .collect();
        let adjacency: BTreeMap<Atom, Vec<Atom>> = atoms
            .iter()
            .zip(&neighbours)
            .map(|(id, n)| (id.clone(), named(n)))
            .collect();
        let counts = StructuralCounts {
            records: records.len(),
            components: components.len(),
            isolated: isolated.len(),
            duplicates: duplicates.len(),
            context_edges,
            candidate_edges,
        };
        // A trail's ends are record ids the rows named (else a fresh atom).
        let atom_of = |text: &str| {
            id_texts
                .get(text)
                .map_or_else(|| Atom::from(text), |n| id_texts.text(n).clone())
        };
        let trail_pairs = trail_pairs
            .into_iter()
            .map(|(a, b)| (atom_of(a), atom_of(b)))
            .collect();
        Structure {
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
            trail_pairs,
            context_pairs: context
                .into_iter()
                .map(|(l, r)| (atoms[l].clone(), atoms[r].clone()))
                .collect(),
            unknown_relations: unknown.into_iter().map(str::to_owned).collect(),
            counts,
            as_of_seq: hi,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::sort_by_text;

    #[test]
    fn numbers_sort_by_their_texts_in_byte_order() {
        let texts = [
            "ex:episode-3da3f577d46560596612d6b3f6",
            "ex:episode-3da3f577d46560596612d6b3f5",
            "ex:episode-3da3f",
            "ex:episode-3da3f\u{0}",
            "ex:episode-3da3",
            "",
            "ex:lesson-83643f0340bb5c811a22ac3bb7",
            "\u{0}",
            "ex:épisode",
            "ex:episode-3da3f577d46560596612d6b3f6x",
            "b",
            "a",
        ];
        let mut numbers: Vec<u32> = (0..u32::try_from(texts.len()).unwrap()).collect();
        sort_by_text(&mut numbers, |n| texts[n as usize]);
        let got: Vec<&str> = numbers.iter().map(|&n| texts[n as usize]).collect();
        let mut want = texts.to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
    }
}
