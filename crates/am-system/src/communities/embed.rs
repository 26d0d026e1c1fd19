//! `embed_missing`: give the open formed records that have no vector one,
//! with the store's own embedder, one small commit-guarded commit per
//! vector, so that the next communities pass detects over them.
//!
//! Each record is embedded alone (the store's `preview_vectors`: the rules
//! of `add`, nothing written) and its vector written onto its stored digest
//! row in a write of its own (`apply_digest_rewrite` with the row's object,
//! attributes and canonical text unchanged and only the vector set: a
//! compare-and-set on the row as read, the commit guard called at
//! `store.replace_vectors`). A later record's failure never undoes an
//! earlier record's vector. The choices the spec leaves open (the receipt's
//! counts, the reasons' words, the order) are in docs/communities.md
//! "`embed_missing`".
//!
//! Spec: api.md "Communities (topics)" (`embed_missing`).

use crate::communities::args::EmbedMissing;
use crate::communities::graph::{closed_ids, pair_rows};
use crate::error::{Error, Result};
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use am_triples::{
    CommitPoint, DigestRewrite, ErrorKind, PreparedRewrite, TripleAssertion, VectorChange,
    canonical_text,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// `pass_name` of the receipt.
pub const EMBED_MISSING_PASS: &str = "embed_missing";

/// Why a record was not embedded (the words of `failed[].reason` and the
/// keys of `reasons`).
pub mod reason {
    /// The store has no embedder.
    pub const NO_EMBEDDER: &str = "no_embedder";
    /// The embedder failed on this record (it and the rest are skipped).
    pub const EMBEDDER_UNAVAILABLE: &str = "embedder_unavailable";
    /// The store computes no vector outside its own `add` (neither the
    /// SQLite nor the in-memory store).
    pub const UNSUPPORTED_STORE: &str = "unsupported_store";
    /// The text embedded to the zero vector (no known token): the row stays
    /// vector-less, as `add` stores it.
    pub const ZERO_VECTOR: &str = "zero_vector";
    /// A listed record already holds a vector.
    pub const ALREADY_EMBEDDED: &str = "already_embedded";
    /// A listed record is a topic (community records are never embedded).
    pub const COMMUNITY_RECORD: &str = "community_record";
    /// A listed id names no open formed record of these pairs.
    pub const UNKNOWN_RECORD: &str = "unknown_record";
    /// The vector's dimension is not the store's (never written).
    pub const DIMENSION_MISMATCH: &str = "dimension_mismatch";
    /// The embedder answered an empty, NaN or infinite vector (never written).
    pub const INVALID_VECTOR: &str = "invalid_vector";
    /// The row changed or went away between the read and the write.
    pub const ROW_CHANGED: &str = "row_changed";
}

/// One record `embed_missing` could not embed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmbedFailure {
    /// The record's graph id.
    pub id: String,
    /// `dimension_mismatch`, `invalid_vector` or `row_changed`.
    pub reason: String,
}

/// What `embed_missing` did (the spec's receipt, key for key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmbedMissingReport {
    /// `embed_missing`.
    pub pass_name: String,
    /// How many records got their vector (each in its own commit).
    pub embedded: usize,
    /// How many records were passed over without a write and without being a
    /// failure (their reasons are counted in `reasons`).
    pub skipped: usize,
    /// The records whose vector was refused, in the order they were met.
    pub failed: Vec<EmbedFailure>,
    /// Every record not embedded, counted by reason (skips and failures).
    pub reasons: BTreeMap<String, usize>,
    /// Whether `cancelled()` stopped the pass before a record (the records
    /// after it are neither embedded nor counted).
    pub cancelled: bool,
}

impl EmbedMissingReport {
    fn skip(&mut self, reason: &str, n: usize) {
        if n > 0 {
            self.skipped += n;
            *self.reasons.entry(reason.to_owned()).or_default() += n;
        }
    }

    fn fail(&mut self, id: &str, reason: &str) {
        self.failed.push(EmbedFailure {
            id: id.to_owned(),
            reason: reason.to_owned(),
        });
        *self.reasons.entry(reason.to_owned()).or_default() += 1;
    }
}

/// The records a run embeds, and the listed ids it passes over.
struct Candidates {
    /// The vector-less open formed records' digest rows, by graph id.
    rows: Vec<TripleAssertion>,
    /// `(reason, count)` of the listed ids that are not candidates.
    passed_over: BTreeMap<&'static str, usize>,
}

fn candidates(
    sys: &crate::MemorySystem,
    args: &EmbedMissing,
    wanted: Option<&BTreeSet<String>>,
) -> Result<Candidates> {
    let store = sys.store.as_ref();
    let closed = closed_ids(sys.journal.as_ref())?;
    let mut seen: HashSet<String> = HashSet::new();
    let mut rows: BTreeMap<String, TripleAssertion> = BTreeMap::new();
    let mut passed_over: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut met: BTreeSet<String> = BTreeSet::new();
    for (scope, owner) in &args.scopes {
        let scope = scope.trim().to_lowercase();
        for a in pair_rows(store, &scope, owner.trim())? {
            let Some(aid) = a.assertion_id.clone() else {
                continue;
            };
            if !seen.insert(aid.clone()) {
                continue;
            }
            let v = DigestRow::of(&a);
            if v.is_edge() || v.kind_text().is_none() || v.flag("bookkeeping") {
                continue;
            }
            if closed.contains(&aid) || closed.contains(&a.subject) {
                continue;
            }
            if wanted.is_some_and(|w| !w.contains(&a.subject)) {
                continue;
            }
            if !met.insert(a.subject.clone()) {
                continue;
            }
            if v.kind_trimmed() == Some(RecordKind::Community) {
                if wanted.is_some() {
                    *passed_over.entry(reason::COMMUNITY_RECORD).or_default() += 1;
                }
                continue;
            }
            if store.stored_vector(&aid)?.is_some() {
                if wanted.is_some() {
                    *passed_over.entry(reason::ALREADY_EMBEDDED).or_default() += 1;
                }
                continue;
            }
            rows.insert(a.subject.clone(), a);
        }
    }
    if let Some(w) = wanted {
        let unknown = w.iter().filter(|id| !met.contains(*id)).count();
        if unknown > 0 {
            passed_over.insert(reason::UNKNOWN_RECORD, unknown);
        }
    }
    Ok(Candidates {
        rows: rows.into_values().collect(),
        passed_over,
    })
}

/// The vector-only write of one stored digest row: object, attributes and
/// canonical text as read, the vector set.
fn vector_write(row: &TripleAssertion, vector: Vec<f32>) -> PreparedRewrite {
    let text = canonical_text(row);
    PreparedRewrite {
        rewrite: DigestRewrite {
            assertion_id: row.assertion_id.clone().unwrap_or_default(),
            expected_object: row.object.clone(),
            expected_attributes: row.attributes.clone(),
            object: row.object.clone(),
            attributes: row.attributes.clone(),
        },
        old_text: text.clone(),
        text,
        vector: VectorChange::Set(vector),
    }
}

fn finite(v: &[f32]) -> bool {
    !v.is_empty() && v.iter().all(|x| x.is_finite())
}

impl crate::MemorySystem {
    /// `embed_missing` — embed the open formed records of `scopes` that
    /// have no vector (every one, or the listed `record_ids`) with the
    /// store's own embedder, one commit-guarded write per vector.
    /// `cancelled` is called before each record. Embedder failures are never
    /// raised (the receipt says `embedder_unavailable`, or `no_embedder`);
    /// a vector of another dimension than the store's is `failed`
    /// (`dimension_mismatch`) and never written; topic records are never
    /// embedded.
    ///
    /// # Errors
    /// `InvalidInput` for a blank owner, no scope pair, a blank scope or a
    /// home without a task queue, before anything is read or written; the
    /// commit guard's refusal and a storage failure (the vectors already
    /// written stand).
    pub fn embed_missing(
        &self,
        args: &EmbedMissing,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<EmbedMissingReport> {
        if args.owner_id.trim().is_empty() {
            return Err(Error::invalid(
                "embed_missing needs an owner_id: the records are the owner's",
            ));
        }
        if args.scopes.is_empty() {
            return Err(Error::invalid(
                "embed_missing needs at least one (scope, owner_id) pair",
            ));
        }
        if args.scopes.iter().any(|(s, _)| s.trim().is_empty()) {
            return Err(Error::invalid(
                "embed_missing: a scope pair has a blank scope",
            ));
        }
        if let Some(ids) = &args.record_ids
            && ids.iter().any(|id| id.trim().is_empty())
        {
            return Err(Error::invalid(
                "embed_missing: record_ids holds a blank id (graph ids, a recalled record's \
                 provenance.record_id)",
            ));
        }
        self.require_task_queue("embed_missing")?;
        let wanted: Option<BTreeSet<String>> = args
            .record_ids
            .as_ref()
            .map(|ids| ids.iter().map(|id| id.trim().to_owned()).collect());
        let found = candidates(self, args, wanted.as_ref())?;
        let mut report = EmbedMissingReport {
            pass_name: EMBED_MISSING_PASS.into(),
            embedded: 0,
            skipped: 0,
            failed: Vec::new(),
            reasons: BTreeMap::new(),
            cancelled: false,
        };
        for (r, n) in &found.passed_over {
            report.skip(r, *n);
        }
        let rows = found.rows;
        if rows.is_empty() {
            return Ok(report);
        }
        if self.store.embeds_on_add() == Some(false) {
            report.skip(reason::NO_EMBEDDER, rows.len());
            return Ok(report);
        }
        let mut dimension = self.store.embedding_pin()?.and_then(|p| p.dimension);
        for (i, row) in rows.iter().enumerate() {
            if cancelled() {
                report.cancelled = true;
                break;
            }
            let vector = match self.store.preview_vectors(std::slice::from_ref(row)) {
                Ok(Some(mut v)) if v.len() == 1 => v.remove(0),
                Ok(_) => {
                    report.skip(reason::UNSUPPORTED_STORE, rows.len() - i);
                    break;
                }
                Err(e) if e.kind() == ErrorKind::Embedder => {
                    report.skip(reason::EMBEDDER_UNAVAILABLE, rows.len() - i);
                    break;
                }
                Err(e) if e.kind() == ErrorKind::DimensionMismatch => {
                    report.fail(&row.subject, reason::DIMENSION_MISMATCH);
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::InvalidInput => {
                    report.fail(&row.subject, reason::INVALID_VECTOR);
                    continue;
                }
                Err(e) => return Err(e),
            };
            let Some(vector) = vector else {
                report.skip(reason::ZERO_VECTOR, 1);
                continue;
            };
            if !finite(&vector) {
                report.fail(&row.subject, reason::INVALID_VECTOR);
                continue;
            }
            match dimension {
                Some(d) if d != vector.len() => {
                    report.fail(&row.subject, reason::DIMENSION_MISMATCH);
                    continue;
                }
                Some(_) => {}
                None => dimension = Some(vector.len()),
            }
            match self
                .store
                .apply_digest_rewrite(&vector_write(row, vector), CommitPoint::StoreReplaceVectors)
            {
                Ok(()) => report.embedded += 1,
                Err(e) if matches!(e.kind(), ErrorKind::Conflict | ErrorKind::NotFound) => {
                    report.fail(&row.subject, reason::ROW_CHANGED);
                }
                Err(e) if e.kind() == ErrorKind::Unsupported => {
                    report.skip(reason::UNSUPPORTED_STORE, rows.len() - i);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(report)
    }
}
