//! `apply_redigestion` (deprecated): authored words for labelled-mechanical
//! records, each applied as a NEW record that supersedes the old one, so the
//! new record starts with zero use. `rewrite_digest` rewrites in place and
//! keeps the record's use: the answer carries the deprecation warning
//! saying so.
//!
//! Per entry (`{record_id, digest, title?, keywords?}`), in order; a refused
//! entry is an outcome, never the batch's failure:
//!
//! - `refused`: no id or no digest; an unknown record; a protected kind
//!   ([`REDIGESTION_PROTECTED_KINDS`]); a digest method outside
//!   `MECHANICAL_DIGEST_METHODS` (the label is the consent marker); words
//!   identical to the stored digest; a record formation refuses;
//! - `already_redigested`: the record is closed already and its would-be
//!   replacement does not exist (an earlier repair or revision closed it);
//! - `applied`: a new record of the same kind, payload_ref and participants,
//!   the old record's live outgoing edges plus `refines` to it, attributes
//!   `digest_method`, `redigested_from`, `origin_date`, provenance `{actor,
//!   source: "redigestion"}`, keyed `redigest|<old id>|<words>` (a replay
//!   re-derives the same id); the old record superseded by it.
//!
//! Every applied entry's formation and supersede closures commit in ONE
//! home transaction (0.3.2 makes two writes per entry); an entry naming a
//! record an earlier entry of the same call repairs reads as 0.3.2's
//! sequential calls would (another repair of it: `already_redigested`; the
//! same words again: `applied` with the same new id, nothing written twice).
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`apply_redigestion`). Outcome keys and reasons follow AbstractMemory
//! 0.3.2.

use std::collections::BTreeMap;

use am_journal::{ClosureFilter, ClosureKind};
use am_triples::TripleQuery;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::redigestion::REDIGESTION_PROTECTED_KINDS;
use crate::error::{Error, Result};
use crate::formation::args::RememberMany;
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::outcome::Warned;
use crate::recall::args::CloseRecord;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use crate::tasks::MECHANICAL_DIGEST_METHODS;

/// The deprecation warning every `apply_redigestion` answer carries.
pub const APPLY_REDIGESTION_DEPRECATION: &str = "DeprecationWarning: apply_redigestion is deprecated: it forms a NEW record per entry and supersedes the old one, so the repaired record starts with zero use; use rewrite_digest, which rewrites the reading in place and keeps the record's history and use";

/// One entry of an `apply_redigestion` batch.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedigestionEntry {
    /// The record's graph id.
    #[serde(default)]
    pub record_id: String,
    /// The authored words.
    #[serde(default)]
    pub digest: String,
    /// A new title (default: the record's).
    #[serde(default)]
    pub title: Option<String>,
    /// New keywords (default: the record's).
    #[serde(default)]
    pub keywords: Option<Vec<String>>,
}

/// `apply_redigestion(system, entries, *, actor,
/// digest_method="entity-authored", turn_id=None)`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyRedigestion {
    /// The entries, applied in order.
    pub entries: Vec<RedigestionEntry>,
    /// Who authored the words (non-blank; on every closure and new record).
    pub actor: String,
    /// The new records' digest method.
    #[serde(default = "default_method")]
    pub digest_method: String,
    /// The turn the new records form in.
    #[serde(default)]
    pub turn_id: Option<String>,
}

fn default_method() -> String {
    "entity-authored".to_owned()
}

impl ApplyRedigestion {
    /// `entries` authored by `actor`, labelled `entity-authored`.
    pub fn new(entries: Vec<RedigestionEntry>, actor: &str) -> Self {
        ApplyRedigestion {
            entries,
            actor: actor.to_owned(),
            digest_method: default_method(),
            turn_id: None,
        }
    }
}

/// One entry's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RedigestionOutcome {
    /// The entry's record id (trimmed).
    pub record_id: String,
    /// `applied`, `refused` or `already_redigested`.
    pub outcome: String,
    /// Why, when not applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The new record, when applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_record_id: Option<String>,
}

/// What `apply_redigestion` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RedigestionApplied {
    /// `apply_redigestion`.
    pub pass_name: String,
    /// Who authored the words.
    pub actor: String,
    /// Entries applied.
    pub applied: usize,
    /// Each entry's outcome, in order.
    pub outcomes: Vec<RedigestionOutcome>,
    /// What the pass deposits: nothing.
    pub deposits: String,
}

fn refused(record_id: &str, reason: impl Into<String>, outcome: &str) -> RedigestionOutcome {
    RedigestionOutcome {
        record_id: record_id.to_owned(),
        outcome: outcome.to_owned(),
        reason: Some(reason.into()),
        new_record_id: None,
    }
}

impl MemorySystem {
    /// Apply authored digests to labelled-mechanical records as new
    /// superseding records (see the module doc); the answer carries the
    /// deprecation warning.
    ///
    /// # Errors
    /// `InvalidInput` for a blank `actor` or `digest_method`; the home's
    /// failure (nothing of the batch lands).
    pub fn apply_redigestion(&self, args: &ApplyRedigestion) -> Result<Warned<RedigestionApplied>> {
        let author = args.actor.trim();
        if author.is_empty() {
            return Err(Error::invalid(
                "apply_redigestion requires a non-empty actor (who authored these words?)",
            ));
        }
        let method = args.digest_method.trim();
        if method.is_empty() {
            return Err(Error::invalid(
                "apply_redigestion requires a non-empty digest_method label",
            ));
        }
        let mut outcomes = Vec::new();
        let mut batches: Vec<RememberMany> = Vec::new();
        let mut closures = Vec::new();
        // Records this call repairs: old id -> the new id.
        let mut repaired: BTreeMap<String, String> = BTreeMap::new();
        let mut applied = 0usize;
        for entry in &args.entries {
            let gid = entry.record_id.trim();
            let words = entry.digest.trim();
            if gid.is_empty() || words.is_empty() {
                outcomes.push(refused(
                    gid,
                    "the entry names no record_id or carries no authored words",
                    "refused",
                ));
                continue;
            }
            let rows = self.store.query(&TripleQuery {
                subject: Some(gid.to_owned()),
                limit: 0,
                ..TripleQuery::default()
            })?;
            let Some(row) = rows
                .iter()
                .find(|a| am_triples::assertion::json_truthy(DigestRow::of(a).get("record_kind")))
            else {
                outcomes.push(refused(
                    gid,
                    "no record has this graph id (no digest row)",
                    "refused",
                ));
                continue;
            };
            let d = DigestRow::of(row);
            let kind_text = d.kind_text().unwrap_or_default().trim().to_lowercase();
            if REDIGESTION_PROTECTED_KINDS.contains(&kind_text.as_str()) {
                outcomes.push(refused(
                    gid,
                    format!(
                        "a {kind_text} record is never re-digested by a batch (REDIGESTION_PROTECTED_KINDS)"
                    ),
                    "refused",
                ));
                continue;
            }
            let old_method = d.text("digest_method").unwrap_or_default();
            if !MECHANICAL_DIGEST_METHODS.contains(&old_method) {
                let shown = if old_method.is_empty() {
                    "(unlabeled)"
                } else {
                    old_method
                };
                outcomes.push(refused(
                    gid,
                    format!(
                        "its digest_method {shown} is not a mechanical label, and only a mechanical label consents to a repair"
                    ),
                    "refused",
                ));
                continue;
            }
            if words == row.object.trim() {
                outcomes.push(refused(
                    gid,
                    "the words are the stored digest already; there is nothing to repair",
                    "refused",
                ));
                continue;
            }
            let key = format!("redigest|{gid}|{words}");
            let Ok(kind) = RecordKind::parse(&kind_text) else {
                outcomes.push(refused(
                    gid,
                    format!("formation refused: unknown record kind {kind_text:?}"),
                    "refused",
                ));
                continue;
            };
            let new_gid = crate::ids::record_id_for(kind, &key, 0);
            let earlier = repaired.get(gid).cloned();
            let exists_new = earlier.as_deref() == Some(new_gid.as_str())
                || !self
                    .store
                    .query(&TripleQuery {
                        subject: Some(new_gid.clone()),
                        limit: 1,
                        ..TripleQuery::default()
                    })?
                    .is_empty();
            let closed = earlier.is_some() || self.is_closed(row.assertion_id.as_deref())?;
            if closed && !exists_new {
                outcomes.push(refused(
                    gid,
                    "the record is closed already (an earlier repair or revision); a repair does not reopen it",
                    "already_redigested",
                ));
                continue;
            }
            if earlier.is_some() {
                // The same words again within this call: 0.3.2's second
                // call replays the formation and the closure, writing nothing.
                applied += 1;
                outcomes.push(RedigestionOutcome {
                    record_id: gid.to_owned(),
                    outcome: "applied".to_owned(),
                    reason: None,
                    new_record_id: Some(new_gid),
                });
                continue;
            }
            let mut edges: Vec<(String, String)> = Vec::new();
            for a in rows.iter().filter(|a| DigestRow::of(a).is_edge()) {
                if !self.is_closed(a.assertion_id.as_deref())? {
                    edges.push((a.predicate.clone(), a.object.clone()));
                }
            }
            edges.push(("refines".to_owned(), gid.to_owned()));
            let title = entry
                .title
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .or_else(|| d.text("title"))
                .unwrap_or_default();
            let mut record = MemoryRecordInput::new(kind, title, words);
            record.keywords = match &entry.keywords {
                Some(k) if !k.is_empty() => k.clone(),
                _ => strings(d.get("keywords")),
            };
            record.participants = strings(d.get("participants"));
            record.edges = edges;
            record.payload_ref = d.nonblank("payload_ref").map(str::to_owned);
            for (k, v) in [
                ("digest_method", json!(method)),
                ("redigested_from", json!(gid)),
                (
                    "origin_date",
                    json!(row.observed_at.chars().take(10).collect::<String>()),
                ),
            ] {
                record.attributes.insert(k.to_owned(), v);
            }
            record.provenance.insert("actor".to_owned(), json!(author));
            record
                .provenance
                .insert("source".to_owned(), json!("redigestion"));
            let mut batch = RememberMany::new(
                vec![record],
                &row.scope,
                row.owner_id.as_deref().unwrap_or_default(),
                &key,
            );
            batch.turn_id.clone_from(&args.turn_id);
            // Formation's own checks, per entry: a record formation refuses
            // is this entry's refusal, never the batch's.
            let clock = self.clock.clone();
            if let Err(e) = crate::formation::build_formation_plan(
                &batch.records,
                &batch.scope,
                &batch.owner_id,
                &batch.idempotency_key,
                batch.turn_id.as_deref(),
                &*clock,
            ) {
                outcomes.push(refused(gid, format!("formation refused: {e}"), "refused"));
                continue;
            }
            let close = CloseRecord::new(
                gid,
                ClosureKind::Supersede,
                &format!("re-digested by {author}: authored words replace the mechanical digest"),
            )
            .replaced_by(std::slice::from_ref(&new_gid));
            closures.extend(self.plan_close_record(&close)?);
            batches.push(batch);
            repaired.insert(gid.to_owned(), new_gid.clone());
            applied += 1;
            outcomes.push(RedigestionOutcome {
                record_id: gid.to_owned(),
                outcome: "applied".to_owned(),
                reason: None,
                new_record_id: Some(new_gid),
            });
        }
        let mut warnings = vec![APPLY_REDIGESTION_DEPRECATION.to_owned()];
        if !batches.is_empty() {
            warnings.extend(self.form_batches(&batches, &closures)?.warnings);
        }
        Ok(Warned::new(
            RedigestionApplied {
                pass_name: "apply_redigestion".to_owned(),
                actor: author.to_owned(),
                applied,
                outcomes,
                deposits:
                    "nothing: forming a record is not using one, and a closure revises a belief"
                        .to_owned(),
            },
            warnings,
        ))
    }

    fn is_closed(&self, assertion_id: Option<&str>) -> Result<bool> {
        let Some(id) = assertion_id else {
            return Ok(false);
        };
        Ok(!self
            .journal
            .closures(&ClosureFilter {
                assertion_id: Some(id.to_owned()),
                limit: 1,
                ..ClosureFilter::default()
            })?
            .is_empty())
    }
}

fn strings(v: Option<&serde_json::Value>) -> Vec<String> {
    v.and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
