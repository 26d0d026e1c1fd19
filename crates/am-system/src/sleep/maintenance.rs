//! `maintenance_report`: the night's phase-1 analysis, a pure read that
//! proposes and never acts. Over the structure ([`structural_report`]) and
//! one attribute-level scan of the pairs ([`tending_scan`]) it names:
//!
//! - **metadata gaps**: records missing keywords, intents or outcomes, for a
//!   waking re-digestion (sleep never fills a source's fields);
//! - **unsourced lessons**: a lesson or instruction with no derivation edge
//!   as its subject (`derived_from`, `answers`, `from_session`, `summarizes`,
//!   `refines`), no `supports` edge as its object, and no import provenance;
//! - **duplicate-title groups**: one kind, one [`title_key`];
//! - **near-duplicate pairs**: one kind, token Jaccard over title and digest
//!   at or above `near_dup_jaccard_floor`, or else the stored vectors'
//!   cosine at or above `near_dup_vector_floor`, over the `scan_limit`
//!   newest records; a pair below the Jaccard floor without both vectors is
//!   counted in `vectorless_pairs`, never guessed;
//! - **shared-source groups**: records whose `summarizes` / `derived_from`
//!   edges reach one target;
//! - **isolated-link candidates**: an isolated record sharing at least
//!   `min_shared_facets` facets with another record (a proposal only);
//! - **edge-suppression candidates**: a logical edge recorded more than once,
//!   or a `mentions` edge shadowed by a component relation on the same pair,
//!   each an append-only closure a waking act may elect;
//! - **consolidation proposals**, one per distinct source set, in the order
//!   duplicate titles → shared sources → near-duplicates, at most
//!   `list_bound` (only a `duplicate_title` proposal of risk `low` ever
//!   becomes a consolidation candidate, in `consolidation_pass`);
//! - the **operations** ledger over all of them.
//!
//! Identity and sole-author kinds ([`CONSOLIDATION_PROTECTED_KINDS`]) never
//! enter the duplicate or near-duplicate analysis; the night's own artifacts
//! (dreams, world-model cards, maintenance candidates) never enter any of it
//! (existing candidates are listed apart, `existing_candidates`, for the
//! pass's covered-group check). Every policy number rides [`SleepTuning`].
//!
//! Choices the spec leaves open follow 0.3.2 (`maintenance.maintenance_report`):
//! the report's keys, every ordering and bound, the operation ids and the
//! machine tokens (`phase`, `kind`, `risk`, `signal`, `suggested_kind`);
//! the prose (`action`, `reason`, `summary`, `review_action`, `caveat`) is
//! ours. Scores are rounded to 6 decimals as Python's `round` rounds.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`maintenance_report`); memory-system.md "Sleep".

use std::collections::{BTreeMap, BTreeSet, HashSet};

use am_journal::MemoryJournal;
use am_triples::assertion::{json_truthy, py_strip};
use am_triples::text::{jaccard, title_key, token_set};
use am_triples::{Lent, NarrowRow, TripleStore};
use serde_json::Value;

use super::args::{MaintenanceReport, StructuralReport, sleep_pairs};
use super::structural::{
    Atom, Key, SleepRow, Structure, StructureRows, anchor, py_text, visit_pair_rows,
};
use super::tuning::{COMPONENT_RELATIONS, SleepTuning};
use crate::error::Result;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use serde::Serialize;

/// Kinds that never enter consolidation inputs (duplicate titles,
/// near-duplicates): the entity's identity and its sole-author acts.
pub const CONSOLIDATION_PROTECTED_KINDS: [&str; 5] =
    ["value", "purpose", "trait", "realization", "diary"];

/// The near-duplicate evidence floor of a token: 3 characters.
const EVIDENCE_MIN_TOKEN_LEN: usize = 3;

am_triples::vocabulary! {
    /// How much a proposal risks.
    pub enum Risk("risk") {
        /// Likely right.
        Low = "low",
        /// Needs a look at the sources.
        Medium = "medium",
    }
}

am_triples::vocabulary! {
    /// The night's two phases an operation belongs to.
    pub enum Phase("phase") {
        /// Tending the data (metadata, duplicates, links, edges).
        DataQualityTending = "data_quality_tending",
        /// Insight beyond tending.
        FurtherInsight = "further_insight",
    }
}

am_triples::vocabulary! {
    /// What an operation of the ledger proposes.
    pub enum OperationKind("operation kind") {
        /// Fill missing fields at a waking re-digestion.
        MetadataGap = "metadata_gap",
        /// Link an isolated record after a waking review.
        IsolatedLinkCandidate = "isolated_link_candidate",
        /// Close a redundant edge.
        EdgeSuppressionCandidate = "edge_suppression_candidate",
        /// Form a consolidation candidate.
        ConsolidationCandidate = "consolidation_candidate",
    }
}

am_triples::vocabulary! {
    /// Why a consolidation proposal groups its sources.
    pub enum ProposalSignal("proposal signal") {
        /// One kind, one normalized title.
        DuplicateTitle = "duplicate_title",
        /// Derived from one shared source.
        SharedSource = "shared_source",
        /// Textually or vectorially near-identical.
        NearDuplicate = "near_duplicate",
    }
}

am_triples::vocabulary! {
    /// Why an edge is a suppression candidate.
    pub enum SuppressionKind("suppression kind") {
        /// The same logical edge recorded more than once.
        DuplicateEdge = "duplicate_edge",
        /// A `mentions` edge beside a stronger relation on the same pair.
        LowInformationEdge = "low_information_edge",
    }
}

/// One record of the tending scan.
#[derive(Debug, Clone, PartialEq)]
pub struct TendingRecord {
    /// The graph id.
    pub record_id: String,
    /// The digest row's assertion id.
    pub assertion_id: String,
    /// The kind, as stored.
    pub kind: String,
    /// The title, trimmed (`""` when none).
    pub title: String,
    /// The digest text.
    pub digest: String,
    /// When it was observed.
    pub observed_at: String,
    /// Which of `keywords`, `intents`, `outcomes` it lacks, in that order.
    pub missing_fields: Vec<&'static str>,
    /// Whether it carries import provenance (`import_provenance`,
    /// `seeded_from`, `origin_path` or `payload_ref` attributes, or an
    /// `archive_path` or `source: archive-import` provenance).
    pub has_import_provenance: bool,
}

/// One formation edge of the tending scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TendingEdge {
    /// The relation, trimmed.
    pub predicate: String,
    /// The source record.
    pub subject: String,
    /// The target record.
    pub object: String,
    /// The edge's assertion id (`""` when it has none).
    pub assertion_id: String,
    /// When it was observed.
    pub observed_at: String,
}

/// A consolidation candidate already in the home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ExistingCandidate {
    /// The candidate's graph id.
    pub record_id: String,
    /// The records it stands for.
    pub source_ids: Vec<String>,
}

/// What one attribute-level pass over the pairs read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TendingScan {
    /// The records tending reads, by graph id (no dream, world-model card,
    /// bookkeeping row or maintenance candidate; closed records are kept).
    pub records: BTreeMap<String, TendingRecord>,
    /// Every formation edge, in the store's order.
    pub edges: Vec<TendingEdge>,
    /// The maintenance candidates, by record id.
    pub candidates: Vec<ExistingCandidate>,
}

/// One pure pass over `pairs` (keyed as the store keys them): the records
/// tending reads, every formation edge, and the existing candidates.
///
/// # Errors
/// The store's failure.
pub fn tending_scan(store: &dyn TripleStore, pairs: &[(String, String)]) -> Result<TendingScan> {
    let mut scan = TendingScan::default();
    for (scope, owner) in pairs {
        visit_pair_rows(store, scope, owner, &TENDING_PROVENANCE, &mut |row| {
            tending_row(&mut scan, &row, &SleepRow::of(&row));
        })?;
    }
    Ok(tending_finish(scan))
}

/// The provenance keys [`tending_row`] reads (its attribute keys are among
/// [`SLEEP_KEYS`](super::structural::SLEEP_KEYS)).
const TENDING_PROVENANCE: [&str; 2] = ["archive_path", "source"];

/// What the tending scan makes of a row that is no formation edge.
pub(crate) enum TendingKind<'a> {
    /// Nothing: no kind, a bookkeeping row, a dream or a world-model card.
    Skipped,
    /// An existing maintenance candidate.
    Candidate,
    /// A record tending reads, of this kind (as stored).
    Record(&'a str),
}

/// What the tending scan makes of `row` (no formation edge): its kind is
/// `record_kind` as stored, non-empty. The same rule as [`tending_row`]'s
/// over a [`SleepRow`] (mind_mass reads a `DigestRow`).
pub(crate) fn tending_kind(row: DigestRow<'_>) -> TendingKind<'_> {
    let Some(kind) = row.nonempty("record_kind") else {
        return TendingKind::Skipped;
    };
    if row.flag("bookkeeping") {
        return TendingKind::Skipped;
    }
    if row.flag("maintenance_candidate") {
        return TendingKind::Candidate;
    }
    if kind == "dream" || kind == "world_model" {
        return TendingKind::Skipped;
    }
    TendingKind::Record(kind)
}

/// A tending record's title: `attributes.title` as text, stripped (`""`
/// when none).
pub(crate) fn tending_title(row: DigestRow<'_>) -> String {
    match row.get("title") {
        Some(v) if json_truthy(Some(v)) => py_strip(&am_triples::text::py_str(v)).to_owned(),
        _ => String::new(),
    }
}

/// Fold one of the pairs' rows (in the store's order, pair after pair,
/// `attrs` its attributes, its provenance holding at least the
/// [`TENDING_PROVENANCE`] keys) into the scan; finish with
/// [`tending_finish`].
fn tending_row(scan: &mut TendingScan, a: &NarrowRow<'_>, attrs: &SleepRow<'_>) {
    let aid = a.assertion_id.unwrap_or_default().to_owned();
    if attrs.is_edge() {
        scan.edges.push(TendingEdge {
            predicate: py_strip(a.predicate).to_owned(),
            subject: a.subject.to_owned(),
            object: a.object.to_owned(),
            assertion_id: aid,
            observed_at: a.observed_at.to_owned(),
        });
        return;
    }
    let Some(kind) = attrs.nonempty(Key::RecordKind) else {
        return;
    };
    if attrs.flag(Key::Bookkeeping) {
        return;
    }
    if attrs.flag(Key::MaintenanceCandidate) {
        let source_ids = match attrs.get(Key::SourceIds).and_then(Lent::as_array) {
            Some(ids) => ids.iter().map(|v| v.py_str().into_owned()).collect(),
            None => Vec::new(),
        };
        scan.candidates.push(ExistingCandidate {
            record_id: a.subject.to_owned(),
            source_ids,
        });
        return;
    }
    if kind == "dream" || kind == "world_model" {
        return;
    }
    let missing_fields = [
        (Key::Keywords, "keywords"),
        (Key::Intents, "intents"),
        (Key::Outcomes, "outcomes"),
    ]
    .into_iter()
    .filter(|(k, _)| !attrs.flag(*k))
    .map(|(_, name)| name)
    .collect();
    let prov = |k: &str| a.provenance.get(k);
    let has_import_provenance = [
        Key::ImportProvenance,
        Key::SeededFrom,
        Key::OriginPath,
        Key::PayloadRef,
    ]
    .into_iter()
    .any(|k| attrs.flag(k))
        || json_truthy(prov("archive_path"))
        || prov("source").and_then(Value::as_str) == Some("archive-import");
    scan.records.insert(
        a.subject.to_owned(),
        TendingRecord {
            record_id: a.subject.to_owned(),
            assertion_id: aid,
            kind: kind.to_owned(),
            title: py_strip(&py_text(attrs.get(Key::Title))).to_owned(),
            digest: a.object.to_owned(),
            observed_at: a.observed_at.to_owned(),
            missing_fields,
            has_import_provenance,
        },
    );
}

/// The scan of the rows folded.
fn tending_finish(mut scan: TendingScan) -> TendingScan {
    scan.candidates
        .sort_by(|a, b| a.record_id.cmp(&b.record_id));
    scan
}

/// Python's `round(x, 6)`: the value's exact decimal expansion rounded half
/// to even at 6 places (Rust's formatting rounds the same way).
fn round6(x: f64) -> f64 {
    format!("{x:.6}").parse().unwrap_or(x)
}

/// A record missing facet fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MetadataGap {
    /// The record.
    pub record_id: String,
    /// Which of `keywords`, `intents`, `outcomes` it lacks.
    pub missing_fields: Vec<String>,
    /// Always `low`.
    pub risk: Risk,
    /// What a waking act would do.
    pub action: String,
}

/// Records missing keywords, intents or outcomes: most missing first, then
/// by id; at most `list_bound × metadata_gaps_factor`.
pub fn metadata_gaps(scan: &TendingScan, tuning: &SleepTuning) -> Vec<MetadataGap> {
    // Ordered and bounded first; only the gaps listed are built.
    let mut gaps: Vec<&TendingRecord> = scan
        .records
        .values()
        .filter(|r| !r.missing_fields.is_empty())
        .collect();
    gaps.sort_by(|a, b| {
        (std::cmp::Reverse(a.missing_fields.len()), &a.record_id)
            .cmp(&(std::cmp::Reverse(b.missing_fields.len()), &b.record_id))
    });
    gaps.truncate(
        tuning
            .list_bound
            .saturating_mul(tuning.metadata_gaps_factor),
    );
    gaps.into_iter()
        .map(|r| MetadataGap {
            record_id: r.record_id.clone(),
            missing_fields: r.missing_fields.iter().map(|f| (*f).to_owned()).collect(),
            risk: Risk::Low,
            action: "report only: a waking re-digestion computes the missing fields; \
                     sleep never changes a source record"
                .to_owned(),
        })
        .collect()
}

/// A lesson or instruction that names no source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct UnsourcedLesson {
    /// The record.
    pub record_id: String,
    /// `lesson` or `instruction`.
    pub kind: String,
    /// Its title.
    pub title: String,
    /// What a waking act would do.
    pub action: String,
}

/// Lessons and instructions with no derivation edge as subject, no
/// `supports` edge as object and no import provenance; by id, at most
/// `list_bound`.
pub fn unsourced_lessons(scan: &TendingScan, tuning: &SleepTuning) -> Vec<UnsourcedLesson> {
    const SUBJECT_SOURCING: [&str; 5] = [
        "derived_from",
        "answers",
        "from_session",
        "summarizes",
        "refines",
    ];
    let mut sourced: HashSet<&str> = HashSet::new();
    for e in &scan.edges {
        if SUBJECT_SOURCING.contains(&e.predicate.as_str()) {
            sourced.insert(&e.subject);
        }
        if e.predicate == "supports" {
            sourced.insert(&e.object);
        }
    }
    scan.records
        .values()
        .filter(|r| matches!(r.kind.as_str(), "lesson" | "instruction"))
        .filter(|r| !sourced.contains(r.record_id.as_str()) && !r.has_import_provenance)
        .take(tuning.list_bound)
        .map(|r| UnsourcedLesson {
            record_id: r.record_id.clone(),
            kind: r.kind.clone(),
            title: r.title.clone(),
            action: "report only: at a waking re-digestion, link the memories this distills \
                     (the lesson derived_from its source) or the evidence for it (an episode \
                     supports the lesson)"
                .to_owned(),
        })
        .collect()
}

/// Records of one kind sharing one normalized title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DuplicateTitleGroup {
    /// The kind.
    pub kind: String,
    /// The normalized title.
    pub title_key: String,
    /// The records, sorted.
    pub record_ids: Vec<String>,
}

fn protected(kind: &str) -> bool {
    CONSOLIDATION_PROTECTED_KINDS.contains(&kind)
}

/// Same-kind duplicate-title groups (protected kinds left out): largest
/// first, then by first id; at most `list_bound`.
pub fn duplicate_title_groups(
    scan: &TendingScan,
    tuning: &SleepTuning,
) -> Vec<DuplicateTitleGroup> {
    // Grouped by reference; only the groups of two or more are built.
    let mut by_key: BTreeMap<(&str, String), Vec<&str>> = BTreeMap::new();
    for r in scan.records.values().filter(|r| !protected(&r.kind)) {
        let key = title_key(&r.title);
        if !key.is_empty() {
            by_key
                .entry((r.kind.as_str(), key))
                .or_default()
                .push(r.record_id.as_str());
        }
    }
    let mut groups: Vec<DuplicateTitleGroup> = by_key
        .into_iter()
        .filter(|(_, ids)| ids.len() > 1)
        .map(|((kind, title_key), record_ids)| DuplicateTitleGroup {
            kind: kind.to_owned(),
            title_key,
            record_ids: record_ids.into_iter().map(str::to_owned).collect(),
        })
        .collect();
    groups.sort_by(|a, b| {
        (std::cmp::Reverse(a.record_ids.len()), &a.record_ids[0])
            .cmp(&(std::cmp::Reverse(b.record_ids.len()), &b.record_ids[0]))
    });
    groups.truncate(tuning.list_bound);
    groups
}

/// Two records of one kind that read as one.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct NearDuplicatePair {
    /// The two records, sorted.
    pub pair: (String, String),
    /// Their kind.
    pub kind: String,
    /// Their token Jaccard (when it cleared the floor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jaccard: Option<f64>,
    /// Their stored vectors' cosine (when the Jaccard did not clear and this
    /// did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_score: Option<f64>,
}

impl NearDuplicatePair {
    fn score(&self) -> f64 {
        self.jaccard
            .filter(|j| *j != 0.0)
            .or(self.vector_score)
            .unwrap_or(0.0)
    }
}

/// Same-kind near-duplicate pairs over the `scan_limit` newest records
/// (protected kinds left out): best first, then by pair; at most
/// `list_bound`. With them, how many pairs fell below the Jaccard floor
/// without two stored vectors to compare.
///
/// # Errors
/// The store's failure reading a vector.
pub fn near_duplicate_pairs(
    scan: &TendingScan,
    store: &dyn TripleStore,
    scan_limit: usize,
    tuning: &SleepTuning,
) -> Result<(Vec<NearDuplicatePair>, usize)> {
    let mut ordered: Vec<&TendingRecord> = scan
        .records
        .values()
        .filter(|r| !protected(&r.kind))
        .collect();
    ordered.sort_by(|a, b| (&b.observed_at, &b.record_id).cmp(&(&a.observed_at, &a.record_id)));
    ordered.truncate(scan_limit);
    let prints: Vec<BTreeSet<String>> = ordered
        .iter()
        .map(|r| token_set(&format!("{} {}", r.title, r.digest), EVIDENCE_MIN_TOKEN_LEN))
        .collect();
    let mut vectors: BTreeMap<usize, Option<Vec<f32>>> = BTreeMap::new();
    let mut vector = |i: usize| -> Result<Option<Vec<f32>>> {
        if let Some(v) = vectors.get(&i) {
            return Ok(v.clone());
        }
        let v = store.stored_vector(&ordered[i].assertion_id)?;
        vectors.insert(i, v.clone());
        Ok(v)
    };
    let mut pairs = Vec::new();
    let mut vectorless = 0usize;
    for i in 0..ordered.len() {
        for j in i + 1..ordered.len() {
            let (left, right) = (ordered[i], ordered[j]);
            if left.kind != right.kind {
                continue;
            }
            let pair = if left.record_id <= right.record_id {
                (left.record_id.clone(), right.record_id.clone())
            } else {
                (right.record_id.clone(), left.record_id.clone())
            };
            let score = jaccard(&prints[i], &prints[j]);
            if score >= tuning.near_dup_jaccard_floor {
                pairs.push(NearDuplicatePair {
                    pair,
                    kind: left.kind.clone(),
                    jaccard: Some(round6(score)),
                    vector_score: None,
                });
                continue;
            }
            match (vector(i)?, vector(j)?) {
                (Some(a), Some(b)) => {
                    let cos = am_triples::vector::cosine(&a, &b);
                    if cos >= tuning.near_dup_vector_floor {
                        pairs.push(NearDuplicatePair {
                            pair,
                            kind: left.kind.clone(),
                            jaccard: None,
                            vector_score: Some(round6(cos)),
                        });
                    }
                }
                _ => vectorless += 1,
            }
        }
    }
    pairs.sort_by(|a, b| {
        b.score()
            .total_cmp(&a.score())
            .then_with(|| a.pair.cmp(&b.pair))
    });
    pairs.truncate(tuning.list_bound);
    Ok((pairs, vectorless))
}

/// Records derived from one shared target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SharedSourceGroup {
    /// The shared target.
    pub source_id: String,
    /// The records whose `summarizes` / `derived_from` edges reach it.
    pub record_ids: Vec<String>,
}

/// Records whose `summarizes` / `derived_from` edges reach one target:
/// largest first, then by target; at most `list_bound`.
pub fn shared_source_groups(scan: &TendingScan, tuning: &SleepTuning) -> Vec<SharedSourceGroup> {
    let mut by_source: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in &scan.edges {
        if matches!(e.predicate.as_str(), "summarizes" | "derived_from")
            && scan.records.contains_key(&e.subject)
        {
            by_source.entry(&e.object).or_default().insert(&e.subject);
        }
    }
    let mut groups: Vec<SharedSourceGroup> = by_source
        .into_iter()
        .filter(|(_, ids)| ids.len() > 1)
        .map(|(source, ids)| SharedSourceGroup {
            source_id: source.to_owned(),
            record_ids: ids.into_iter().map(str::to_owned).collect(),
        })
        .collect();
    groups.sort_by(|a, b| {
        (std::cmp::Reverse(a.record_ids.len()), &a.source_id)
            .cmp(&(std::cmp::Reverse(b.record_ids.len()), &b.source_id))
    });
    groups.truncate(tuning.list_bound);
    groups
}

/// A proposal to link an isolated record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LinkCandidate {
    /// The two records, sorted.
    pub pair: (String, String),
    /// The facets they share (at most `shared_facets_shown`).
    pub shared_terms: Vec<String>,
    /// Always `medium`.
    pub risk: Risk,
    /// The relation a waking review might choose.
    pub suggested_kind: String,
    /// Why.
    pub reason: String,
}

/// An isolated record sharing at least `min_shared_facets` facets with
/// another tending record: most shared first, then by pair; at most
/// `list_bound`.
pub fn isolated_link_candidates(
    base: &Structure,
    scan: &TendingScan,
    tuning: &SleepTuning,
) -> Vec<LinkCandidate> {
    let facet_of: BTreeMap<&str, BTreeSet<&str>> = base
        .records
        .iter()
        .filter(|(rid, _)| scan.records.contains_key(rid.as_str()))
        .map(|(rid, r)| {
            (
                rid.as_str(),
                r.facets
                    .iter()
                    .chain(&r.participants)
                    .map(Atom::as_str)
                    .collect(),
            )
        })
        .collect();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut out = Vec::new();
    for isolated in &base.isolated {
        let Some(left) = facet_of.get(isolated.as_str()).filter(|f| !f.is_empty()) else {
            continue;
        };
        for (rid, facets) in &facet_of {
            if *rid == isolated.as_str() {
                continue;
            }
            let shared: Vec<String> = left
                .intersection(facets)
                .take(tuning.shared_facets_shown)
                .map(|s| (*s).to_owned())
                .collect();
            if shared.len() < tuning.min_shared_facets {
                continue;
            }
            let pair = if isolated.as_str() <= *rid {
                (isolated.to_string(), (*rid).to_owned())
            } else {
                ((*rid).to_owned(), isolated.to_string())
            };
            if !seen.insert(pair.clone()) {
                continue;
            }
            let reason = format!(
                "{} and {} have [{}] in common and one of them has no component link",
                pair.0,
                pair.1,
                shared.join(", ")
            );
            out.push(LinkCandidate {
                pair,
                shared_terms: shared,
                risk: Risk::Medium,
                suggested_kind: "mentions_or_supports_after_waking_review".to_owned(),
                reason,
            });
        }
    }
    out.sort_by(|a, b| {
        (std::cmp::Reverse(a.shared_terms.len()), &a.pair)
            .cmp(&(std::cmp::Reverse(b.shared_terms.len()), &b.pair))
    });
    out.truncate(tuning.list_bound);
    out
}

/// A redundant edge a waking act may close.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EdgeSuppression {
    /// Why it is redundant.
    pub kind: SuppressionKind,
    /// `[subject, object]`.
    pub pair: (String, String),
    /// The redundant edges' relation.
    pub predicate: String,
    /// The edge kept.
    pub keep_assertion_id: String,
    /// The edges a closure would close.
    pub redundant_assertion_ids: Vec<String>,
    /// What a waking act would do.
    pub action: String,
    /// Why.
    pub reason: String,
    /// Always `low`.
    pub risk: Risk,
}

/// Duplicate logical edges (the earliest kept) and `mentions` edges shadowed
/// by a component relation on the same `(subject, object)`, between tending
/// records: by risk, pair and kind; at most `list_bound ×
/// suppressions_factor`.
pub fn edge_suppression_candidates(
    scan: &TendingScan,
    tuning: &SleepTuning,
) -> Vec<EdgeSuppression> {
    let scoped: Vec<&TendingEdge> = scan
        .edges
        .iter()
        .filter(|e| {
            scan.records.contains_key(&e.subject)
                && scan.records.contains_key(&e.object)
                && !e.assertion_id.is_empty()
        })
        .collect();
    let mut out = Vec::new();
    let mut by_exact: BTreeMap<(&str, &str, &str), Vec<&TendingEdge>> = BTreeMap::new();
    for e in &scoped {
        by_exact
            .entry((&e.subject, &e.predicate, &e.object))
            .or_default()
            .push(e);
    }
    for ((subject, predicate, object), mut group) in by_exact {
        if group.len() < 2 {
            continue;
        }
        group.sort_by(|a, b| {
            (&a.observed_at, &a.assertion_id).cmp(&(&b.observed_at, &b.assertion_id))
        });
        out.push(EdgeSuppression {
            kind: SuppressionKind::DuplicateEdge,
            pair: (subject.to_owned(), object.to_owned()),
            predicate: predicate.to_owned(),
            keep_assertion_id: group[0].assertion_id.clone(),
            redundant_assertion_ids: group[1..].iter().map(|e| e.assertion_id.clone()).collect(),
            action: "a waking act closes (append-only) the redundant edges".to_owned(),
            reason: format!(
                "the `{predicate}` edge is recorded {} times; the earliest stays the source",
                group.len()
            ),
            risk: Risk::Low,
        });
    }
    let mut by_pair: BTreeMap<(&str, &str), Vec<&TendingEdge>> = BTreeMap::new();
    for e in &scoped {
        by_pair.entry((&e.subject, &e.object)).or_default().push(e);
    }
    for ((subject, object), group) in by_pair {
        let mut mentions: Vec<&&TendingEdge> =
            group.iter().filter(|e| e.predicate == "mentions").collect();
        mentions.sort_by(|a, b| a.assertion_id.cmp(&b.assertion_id));
        let mut stronger: Vec<&&TendingEdge> = group
            .iter()
            .filter(|e| COMPONENT_RELATIONS.contains(&e.predicate.as_str()))
            .collect();
        stronger
            .sort_by(|a, b| (&a.predicate, &a.assertion_id).cmp(&(&b.predicate, &b.assertion_id)));
        if let (false, Some(strong)) = (mentions.is_empty(), stronger.first()) {
            out.push(EdgeSuppression {
                kind: SuppressionKind::LowInformationEdge,
                pair: (subject.to_owned(), object.to_owned()),
                predicate: "mentions".to_owned(),
                keep_assertion_id: strong.assertion_id.clone(),
                redundant_assertion_ids: mentions.iter().map(|e| e.assertion_id.clone()).collect(),
                action: "a waking act closes (append-only) the mentions edges".to_owned(),
                reason: format!(
                    "the pair's `{}` relation already says more than `mentions`",
                    strong.predicate
                ),
                risk: Risk::Low,
            });
        }
    }
    out.sort_by(|a, b| {
        (a.risk.as_str(), &a.pair, a.kind.as_str()).cmp(&(
            b.risk.as_str(),
            &b.pair,
            b.kind.as_str(),
        ))
    });
    out.truncate(tuning.list_bound.saturating_mul(tuning.suppressions_factor));
    out
}

/// A proposal to consolidate a group of records (a proposal only:
/// `consolidation_pass` forms candidates from the `duplicate_title` / `low`
/// ones).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ConsolidationProposal {
    /// `consolidate:<signal>:<n>` (n from 1 within its signal).
    pub id: String,
    /// Why the group is proposed.
    pub signal: ProposalSignal,
    /// The records, in the signal's order.
    pub source_ids: Vec<String>,
    /// The candidate's title: `Consolidated: ` and the first source's title
    /// (or its id).
    pub candidate_title: String,
    /// The first source's kind (`memory` when it is not a tending record).
    pub kind: String,
    /// The first `preserved_digests` sources' digests.
    pub preserved_digests: Vec<String>,
    /// `low` for duplicate titles, `medium` otherwise.
    pub risk: Risk,
    /// What a waking review does first.
    pub review_action: String,
    /// What the signal cannot tell.
    pub caveat: String,
}

/// One proposal per distinct source set, duplicate titles → shared sources →
/// near-duplicates, at most `list_bound`.
pub fn consolidation_proposals(
    scan: &TendingScan,
    duplicate_groups: &[DuplicateTitleGroup],
    near_dups: &[NearDuplicatePair],
    shared_sources: &[SharedSourceGroup],
    tuning: &SleepTuning,
) -> Vec<ConsolidationProposal> {
    let groups = duplicate_groups
        .iter()
        .map(|g| (ProposalSignal::DuplicateTitle, g.record_ids.clone()))
        .enumerate()
        .chain(
            shared_sources
                .iter()
                .map(|g| (ProposalSignal::SharedSource, g.record_ids.clone()))
                .enumerate(),
        )
        .chain(
            near_dups
                .iter()
                .map(|p| {
                    (
                        ProposalSignal::NearDuplicate,
                        vec![p.pair.0.clone(), p.pair.1.clone()],
                    )
                })
                .enumerate(),
        );
    let mut out: Vec<ConsolidationProposal> = Vec::new();
    let mut seen: HashSet<Vec<String>> = HashSet::new();
    for (i, (signal, ids)) in groups {
        if out.len() >= tuning.list_bound {
            break;
        }
        let mut key = ids.clone();
        key.sort();
        if ids.len() < 2 || !seen.insert(key) {
            continue;
        }
        let first = scan.records.get(&ids[0]);
        let title = first.map(|r| r.title.as_str()).filter(|t| !t.is_empty());
        let (risk, review_action, caveat) = match signal {
            ProposalSignal::DuplicateTitle => (
                Risk::Low,
                "open every source, check each keeps its own facts and caveats, then review the \
                 inactive summary candidate that summarizes them all",
                "one kind, one normalized title: most likely the same handle recorded again",
            ),
            ProposalSignal::SharedSource => (
                Risk::Medium,
                "check whether the shared source produced redundant derivations; consolidate only \
                 when the newer record keeps every fact particular to each source",
                "several records derive from one source: they may be legitimate specializations",
            ),
            ProposalSignal::NearDuplicate => (
                Risk::Medium,
                "open both records before any waking consolidation",
                "textual or vector likeness alone: the two may only share a topic",
            ),
        };
        out.push(ConsolidationProposal {
            id: format!("consolidate:{}:{}", signal.as_str(), i + 1),
            signal,
            candidate_title: format!("Consolidated: {}", title.unwrap_or(&ids[0])),
            kind: first.map_or_else(|| "memory".to_owned(), |r| r.kind.clone()),
            preserved_digests: ids
                .iter()
                .take(tuning.preserved_digests)
                .filter_map(|rid| scan.records.get(rid).map(|r| r.digest.clone()))
                .collect(),
            source_ids: ids,
            risk,
            review_action: review_action.to_owned(),
            caveat: caveat.to_owned(),
        });
    }
    out
}

/// One entry of the operations ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Operation {
    /// `maintenance:metadata:<id>`, `maintenance:link:<a>|<b>`,
    /// `maintenance:edge:<s>|<o>|<predicate>`, or the proposal's id.
    pub id: String,
    /// The phase it belongs to.
    pub phase: Phase,
    /// What it proposes.
    pub kind: OperationKind,
    /// Always `proposed`: sleep proposes.
    pub status: String,
    /// The records it names.
    pub node_ids: Vec<String>,
    /// One line on it.
    pub summary: String,
    /// Its risk.
    pub risk: Risk,
}

/// The report's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MaintenanceCounts {
    /// Tending records.
    pub records: usize,
    /// Existing maintenance candidates.
    pub existing_candidates: usize,
    /// Metadata gaps listed.
    pub metadata_gaps: usize,
    /// Unsourced lessons listed.
    pub unsourced_lessons: usize,
    /// Duplicate-title groups listed.
    pub duplicate_title_groups: usize,
    /// Near-duplicate pairs listed.
    pub near_duplicate_pairs: usize,
    /// Shared-source groups listed.
    pub shared_source_groups: usize,
    /// Link candidates listed.
    pub isolated_link_candidates: usize,
    /// Edge-suppression candidates listed.
    pub edge_suppression_candidates: usize,
    /// Consolidation proposals.
    pub consolidation_proposals: usize,
}

/// The answer of [`maintenance_report`]: the spec's dict, key for key with
/// 0.3.2's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Maintenance {
    /// `maintenance_report`.
    pub pass_name: String,
    /// The journal seq the structure was read at.
    pub as_of_seq: i64,
    /// Records missing facet fields.
    pub metadata_gaps: Vec<MetadataGap>,
    /// Lessons and instructions naming no source.
    pub unsourced_lessons: Vec<UnsourcedLesson>,
    /// Same-kind duplicate titles.
    pub duplicate_title_groups: Vec<DuplicateTitleGroup>,
    /// Same-kind near-duplicates.
    pub near_duplicate_pairs: Vec<NearDuplicatePair>,
    /// Pairs below the Jaccard floor without two stored vectors.
    pub vectorless_pairs: usize,
    /// Records derived from one target.
    pub shared_source_groups: Vec<SharedSourceGroup>,
    /// Proposed links for isolated records.
    pub isolated_link_candidates: Vec<LinkCandidate>,
    /// Redundant edges a waking act may close.
    pub edge_suppression_candidates: Vec<EdgeSuppression>,
    /// Consolidation proposals.
    pub consolidation_proposals: Vec<ConsolidationProposal>,
    /// The maintenance candidates already in the home.
    pub existing_candidates: Vec<ExistingCandidate>,
    /// The operations ledger (phase, kind, risk, id order), at most
    /// `list_bound × operations_factor`.
    pub operations: Vec<Operation>,
    /// Operations past the bound.
    pub operations_omitted: usize,
    /// The structure's isolated records that tending reads.
    pub isolated: Vec<String>,
    /// The counts.
    pub counts: MaintenanceCounts,
}

fn operations(
    gaps: &[MetadataGap],
    links: &[LinkCandidate],
    suppressions: &[EdgeSuppression],
    proposals: &[ConsolidationProposal],
) -> Vec<Operation> {
    let tending = Phase::DataQualityTending;
    let mut ops: Vec<Operation> = Vec::new();
    for g in gaps {
        ops.push(Operation {
            id: format!("maintenance:metadata:{}", g.record_id),
            phase: tending,
            kind: OperationKind::MetadataGap,
            status: "proposed".to_owned(),
            node_ids: vec![g.record_id.clone()],
            summary: format!(
                "lacks {}: a waking re-digestion fills them",
                g.missing_fields.join(", ")
            ),
            risk: g.risk,
        });
    }
    for l in links {
        ops.push(Operation {
            id: format!("maintenance:link:{}|{}", l.pair.0, l.pair.1),
            phase: tending,
            kind: OperationKind::IsolatedLinkCandidate,
            status: "proposed".to_owned(),
            node_ids: vec![l.pair.0.clone(), l.pair.1.clone()],
            summary: l.reason.clone(),
            risk: l.risk,
        });
    }
    for s in suppressions {
        ops.push(Operation {
            id: format!("maintenance:edge:{}|{}|{}", s.pair.0, s.pair.1, s.predicate),
            phase: tending,
            kind: OperationKind::EdgeSuppressionCandidate,
            status: "proposed".to_owned(),
            node_ids: vec![s.pair.0.clone(), s.pair.1.clone()],
            summary: s.reason.clone(),
            risk: s.risk,
        });
    }
    for p in proposals {
        ops.push(Operation {
            id: p.id.clone(),
            phase: match p.signal {
                ProposalSignal::SharedSource => Phase::FurtherInsight,
                _ => tending,
            },
            kind: OperationKind::ConsolidationCandidate,
            status: "proposed".to_owned(),
            node_ids: p.source_ids.clone(),
            summary: format!("{} proposal: `{}`", p.signal.as_str(), p.candidate_title),
            risk: p.risk,
        });
    }
    ops.sort_by(|a, b| {
        (a.phase.as_str(), a.kind.as_str(), a.risk.as_str(), &a.id).cmp(&(
            b.phase.as_str(),
            b.kind.as_str(),
            b.risk.as_str(),
            &b.id,
        ))
    });
    ops
}

/// `maintenance_report(store, journal, *, scopes, as_of=None,
/// scan_limit=None, tuning=SleepTuning())`: the phase-1 analysis (see the
/// module doc). Deterministic; a pure read that deposits nothing.
///
/// # Errors
/// `InvalidInput` for no pair, a blank scope, an `as_of` outside the
/// journal's seq range, or a tuning [`SleepTuning::validate`] refuses; the
/// store's or journal's failure.
pub fn maintenance_report(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &MaintenanceReport,
) -> Result<Maintenance> {
    let tuning = &args.tuning;
    tuning.validate()?;
    let pairs = sleep_pairs("maintenance_report", &args.scopes)?;
    let hi = anchor(journal, args.as_of)?;
    // One read of the pairs serves both the structure and the tending scan.
    let mut structure = StructureRows::new(
        journal,
        &StructuralReport {
            scopes: pairs.clone(),
            as_of: args.as_of,
            evidence_grade: false,
        },
        &pairs,
        hi,
    )?;
    let mut scan = TendingScan::default();
    for (scope, owner) in &pairs {
        visit_pair_rows(store, scope, owner, &TENDING_PROVENANCE, &mut |row| {
            let attrs = SleepRow::of(&row);
            structure.row(&row, &attrs);
            tending_row(&mut scan, &row, &attrs);
        })?;
    }
    let base = structure.finish();
    let scan = tending_finish(scan);
    let gaps = metadata_gaps(&scan, tuning);
    let unsourced = unsourced_lessons(&scan, tuning);
    let duplicates = duplicate_title_groups(&scan, tuning);
    let (near, vectorless) = near_duplicate_pairs(
        &scan,
        store,
        tuning.resolve_scan_limit(args.scan_limit),
        tuning,
    )?;
    let shared = shared_source_groups(&scan, tuning);
    let links = isolated_link_candidates(&base, &scan, tuning);
    let suppressions = edge_suppression_candidates(&scan, tuning);
    let proposals = consolidation_proposals(&scan, &duplicates, &near, &shared, tuning);
    let mut ops = operations(&gaps, &links, &suppressions, &proposals);
    let bound = tuning.list_bound.saturating_mul(tuning.operations_factor);
    let omitted = ops.len().saturating_sub(bound);
    ops.truncate(bound);
    let isolated = base
        .isolated
        .iter()
        .filter(|rid| scan.records.contains_key(rid.as_str()))
        .map(ToString::to_string)
        .collect();
    let counts = MaintenanceCounts {
        records: scan.records.len(),
        existing_candidates: scan.candidates.len(),
        metadata_gaps: gaps.len(),
        unsourced_lessons: unsourced.len(),
        duplicate_title_groups: duplicates.len(),
        near_duplicate_pairs: near.len(),
        shared_source_groups: shared.len(),
        isolated_link_candidates: links.len(),
        edge_suppression_candidates: suppressions.len(),
        consolidation_proposals: proposals.len(),
    };
    Ok(Maintenance {
        pass_name: "maintenance_report".to_owned(),
        as_of_seq: base.as_of_seq,
        metadata_gaps: gaps,
        unsourced_lessons: unsourced,
        duplicate_title_groups: duplicates,
        near_duplicate_pairs: near,
        vectorless_pairs: vectorless,
        shared_source_groups: shared,
        isolated_link_candidates: links,
        edge_suppression_candidates: suppressions,
        consolidation_proposals: proposals,
        existing_candidates: scan.candidates,
        operations: ops,
        operations_omitted: omitted,
        isolated,
        counts,
    })
}

impl MemorySystem {
    /// [`maintenance_report`] over this system's store and journal.
    ///
    /// # Errors
    /// As [`maintenance_report`].
    pub fn maintenance_report(&self, args: &MaintenanceReport) -> Result<Maintenance> {
        maintenance_report(self.store().as_ref(), self.journal().as_ref(), args)
    }
}

#[cfg(test)]
mod tests {
    use crate::sleep::structural::{Key, SLEEP_KEYS};

    #[test]
    fn each_sleep_key_is_read_at_its_index() {
        let keys = [
            (Key::RecordEdge, "record_edge"),
            (Key::RecordKind, "record_kind"),
            (Key::Bookkeeping, "bookkeeping"),
            (Key::MaintenanceCandidate, "maintenance_candidate"),
            (Key::Keywords, "keywords"),
            (Key::Intents, "intents"),
            (Key::Outcomes, "outcomes"),
            (Key::Participants, "participants"),
            (Key::Title, "title"),
            (Key::DigestMethod, "digest_method"),
            (Key::SourceIds, "source_ids"),
            (Key::ImportProvenance, "import_provenance"),
            (Key::SeededFrom, "seeded_from"),
            (Key::OriginPath, "origin_path"),
            (Key::PayloadRef, "payload_ref"),
        ];
        assert_eq!(keys.len(), SLEEP_KEYS.len());
        for (k, name) in keys {
            assert_eq!(SLEEP_KEYS[k as usize], name);
        }
    }
}
