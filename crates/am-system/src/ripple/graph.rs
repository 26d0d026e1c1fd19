//! What a ripple reads of the home: the seed owner's live formed records,
//! their record edges, the cards' evidence and the stored vectors; and a
//! source's candidates.
//!
//! One read per verb call: every row of the owner (any scope), each cut to
//! the attribute keys the graph reads ([`GRAPH_KEYS`]), the journal's
//! closures, and the stored vectors of the owner's live records (read only
//! when a source has one).

use super::similarity_weight;
use crate::config::{CARD_EVIDENCE_RELIANCE, RIPPLE_NEAREST_K};
use crate::error::Result;
use crate::kinds::{DIGEST_PREDICATE, RecordKind};
use crate::record::DigestRow;
use crate::tasks::RELATION_WEIGHTS;
use am_journal::{ClosureFilter, MemoryJournal};
use am_triples::{Narrow, TripleQuery, TripleStore};
use std::collections::{BTreeMap, HashMap, HashSet};

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
#[derive(Debug, Clone)]
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
#[derive(Debug, Default)]
pub(crate) struct OwnerGraph {
    /// By graph id.
    pub records: BTreeMap<String, Rec>,
    /// Live record edges `(subject, relation, object)` that carry reliance.
    pub edges: Vec<(String, String, String)>,
    /// Stored unit vectors by graph id (live records only; filled lazily).
    vectors: Option<Vec<(String, Vec<f32>)>>,
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

impl OwnerGraph {
    /// Read `owner`'s records (every scope).
    pub(crate) fn read(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        owner: &str,
    ) -> Result<OwnerGraph> {
        let closed: HashSet<String> = journal
            .closures(&ClosureFilter {
                limit: 0,
                ..ClosureFilter::default()
            })?
            .into_iter()
            .map(|c| c.assertion_id)
            .collect();
        let rows = store.query_narrow(
            &TripleQuery {
                owner_id: Some(owner.to_owned()),
                limit: 0,
                ..TripleQuery::default()
            },
            GRAPH_KEYS,
        )?;
        let mut g = OwnerGraph::default();
        for a in &rows {
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
        Ok(g)
    }

    fn vectors(&mut self, store: &dyn TripleStore) -> Result<&[(String, Vec<f32>)]> {
        if self.vectors.is_none() {
            let mut out = Vec::new();
            for (id, r) in &self.records {
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
        for (s, rel, o) in &self.edges {
            let w = relation_weight(rel);
            if s == source {
                offer(o, w, rel);
            } else if o == source {
                offer(s, w, rel);
            }
        }
        for (id, r) in &self.records {
            if !r.closed && r.evidence.iter().any(|e| e == source) {
                offer(id, CARD_EVIDENCE_RELIANCE, "evidence");
            }
        }
        // The others' vectors are read only when the source has one of its
        // own (the vectors held are the live records' with an assertion).
        let source_vec = match self.records.get(source) {
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
            .filter(|(id, _)| self.records.contains_key(id))
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
