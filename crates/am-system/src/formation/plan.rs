//! The formation encoding: validated [`MemoryRecordInput`]s become one digest
//! assertion each (`dcterms:abstract`, literal), one assertion per edge
//! (`record_edge: true`) and one formation binding each, every id derived
//! from `(idempotency_key, position)`. Pure: no I/O; the facade applies the plan.
//!
//! Spec: api.md "Formation (typed records)"; algorithms.md §9 "How formation
//! works"; 0.3.2's `records.build_formation_plan`.

use crate::error::{Error, Result};
use crate::formation::records::MemoryRecordInput;
use crate::ids;
use crate::kinds::DIGEST_PREDICATE;
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use am_journal::ScopeBinding;
use am_journal::{BindingSource, Lifecycle, PromptState, SearchState};
use am_triples::{JsonMap, TripleAssertion};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Everything `remember_many` writes, derived before any I/O.
#[derive(Debug, Clone, PartialEq)]
pub struct FormationPlan {
    /// Graph ids (`ex:{kind}-…`) in input order.
    pub record_ids: Vec<String>,
    /// Digest and edge assertions, in input order (each digest before its edges).
    pub assertions: Vec<TripleAssertion>,
    /// One formation binding per record (`indexed` / `inactive` /
    /// `inactive_candidate`, source `remember`).
    pub bindings: Vec<ScopeBinding>,
    /// `#FALLBACK` notes raised while validating the records.
    pub warnings: Vec<String>,
}

impl FormationPlan {
    /// The ids of every planned assertion, for the idempotency pre-check.
    pub fn assertion_ids(&self) -> Vec<String> {
        self.assertions
            .iter()
            .filter_map(|a| a.assertion_id.clone())
            .collect()
    }
}

/// The content hash of one diary entry: `sha256(title \n digest \n observed_at)`
/// as 64 hex characters (the chain convention's `entry_hash`).
///
/// Spec: api.md "Diary formation rules"; 0.3.2's `diary.diary_entry_hash`.
pub fn diary_entry_hash(title: &str, digest: &str, observed_at: &str) -> String {
    let hex = diary_entry_hash_hex(title, digest, observed_at);
    // Lowercase ASCII hex digits only.
    String::from_utf8_lossy(&hex).into_owned()
}

/// [`diary_entry_hash`] as its 64 lowercase hex bytes, on the stack: the
/// payload is fed to the hasher in its three parts (no joined copy), and
/// the hex written through a table (no allocation; the chain audit
/// compares it with the claimed text directly).
pub(crate) fn diary_entry_hash_hex(title: &str, digest: &str, observed_at: &str) -> [u8; 64] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let sum = Sha256::new()
        .chain_update(title.as_bytes())
        .chain_update(b"\n")
        .chain_update(digest.as_bytes())
        .chain_update(b"\n")
        .chain_update(observed_at.as_bytes())
        .finalize();
    let mut out = [0u8; 64];
    for (i, b) in sum.iter().enumerate() {
        out[2 * i] = HEX[usize::from(b >> 4)];
        out[2 * i + 1] = HEX[usize::from(b & 0x0f)];
    }
    out
}

/// Validate and encode a batch.
///
/// `clock` is called once per record: the digest's `observed_at` (which the
/// diary chain hash covers), shared by the record's edges and binding.
///
/// # Errors
/// `InvalidInput` for an empty key, scope or batch, any record
/// refused by [`MemoryRecordInput::validated`], a malformed or out-of-range
/// `local:<i>` target, or a record edge-referencing itself.
pub fn build_formation_plan(
    records: &[MemoryRecordInput],
    scope: &str,
    owner_id: &str,
    idempotency_key: &str,
    turn_id: Option<&str>,
    clock: &dyn Fn() -> am_triples::Timestamp,
) -> Result<FormationPlan> {
    let key = idempotency_key.trim();
    if key.is_empty() {
        return Err(Error::invalid(
            "remember_many requires a non-empty idempotency_key, got an empty one: it is the batch identity \
             that makes at-least-once replays no-ops",
        ));
    }
    let scope_n = scope.trim().to_lowercase();
    if scope_n.is_empty() {
        return Err(Error::invalid(
            "remember_many requires a non-empty scope, got an empty one",
        ));
    }
    if records.is_empty() {
        return Err(Error::invalid(
            "remember_many requires at least one MemoryRecordInput, got none (skip the call instead)",
        ));
    }
    let mut warnings = Vec::new();
    let items = records
        .iter()
        .map(|r| r.validated(&mut warnings))
        .collect::<Result<Vec<_>>>()?;
    let owner = owner_id.trim();
    let record_ids: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, r)| ids::record_id_for(r.kind, key, i))
        .collect();
    let now = || -> Result<String> { Ok(clock().canonical()) };

    let mut assertions = Vec::new();
    let mut bindings = Vec::new();
    for (position, r) in items.iter().enumerate() {
        let rid = &record_ids[position];
        let observed_at = now()?;
        let mut attrs: JsonMap = r.attributes.clone();
        attrs.insert("literal".into(), Value::Bool(true));
        attrs.insert(
            "record_kind".into(),
            Value::String(r.kind.as_str().to_owned()),
        );
        attrs.insert(
            "title".into(),
            r.title.clone().map_or(Value::Null, Value::String),
        );
        // A pending field's marker (`attributes.pending`); its task is
        // queued in the formation's transaction (`remember_many`).
        if !r.pending.is_empty() {
            let mut marker = JsonMap::new();
            marker.insert(
                "title".into(),
                Value::Bool(r.pending.iter().any(|f| f == "title")),
            );
            marker.insert(
                "summary".into(),
                Value::Bool(r.pending.iter().any(|f| f == "summary")),
            );
            marker.insert("since".into(), Value::String(observed_at.clone()));
            marker.insert("attempts".into(), Value::from(0));
            if let Some(f) = &r.pending_failure {
                marker.insert("failure".into(), Value::Object(f.clone()));
            }
            attrs.insert("pending".into(), Value::Object(marker));
        }
        for (name, values) in [
            ("intents", &r.intents),
            ("outcomes", &r.outcomes),
            ("keywords", &r.keywords),
            ("participants", &r.participants),
        ] {
            if !values.is_empty() {
                attrs.insert(
                    name.into(),
                    Value::Array(values.iter().cloned().map(Value::String).collect()),
                );
            }
        }
        if let Some(p) = &r.payload_ref {
            attrs.insert("payload_ref".into(), Value::String(p.clone()));
        }
        if let Some(t) = &r.topic {
            attrs.insert("topic".into(), Value::String(t.clone()));
        }
        let mut provenance = r.provenance.clone();
        if let Some(t) = turn_id.map(str::trim).filter(|t| !t.is_empty()) {
            provenance.insert("turn_id".into(), Value::String(t.to_owned()));
        }
        if r.kind == RecordKind::Diary && attrs.contains_key("prev_entry_hash") {
            let title = r.title.clone().unwrap_or_default();
            attrs.insert(
                "entry_hash".into(),
                Value::String(diary_entry_hash(&title, &r.digest, &observed_at)),
            );
        }
        // Rows are built whole (not through `TripleAssertion::new`, which would
        // read the wall clock only to be overwritten); the store canonicalizes
        // them at its write boundary.
        let owner_id = (!owner.is_empty()).then(|| owner.to_owned());
        let mut digest = TripleAssertion {
            subject: rid.clone(),
            predicate: DIGEST_PREDICATE.to_owned(),
            object: r.digest.clone(),
            scope: scope_n.clone(),
            owner_id: owner_id.clone(),
            observed_at: observed_at.clone(),
            valid_from: None,
            valid_until: None,
            confidence: r.confidence,
            provenance: provenance.clone(),
            attributes: attrs,
            assertion_id: Some(ids::digest_assertion_id(key, position)),
        };
        // The formation reading (version 0), when the caller stamped none and
        // its author is known (api.md `reading_provenance`).
        if let Some(stamp) = crate::formation::reading::formation_reading(&digest) {
            digest.attributes.insert("understanding".into(), stamp);
        }
        assertions.push(digest);
        for (relation, raw_target) in &r.edges {
            let target = edge_target(raw_target, position, &record_ids)?;
            let mut edge_attrs = JsonMap::new();
            edge_attrs.insert("record_edge".into(), Value::Bool(true));
            // An edge shares its record's formation instant.
            assertions.push(TripleAssertion {
                subject: rid.clone(),
                predicate: am_triples::canonicalize_term(relation),
                object: am_triples::canonicalize_term(&target),
                scope: scope_n.clone(),
                owner_id: owner_id.clone(),
                observed_at: observed_at.clone(),
                valid_from: None,
                valid_until: None,
                confidence: None,
                provenance: provenance.clone(),
                attributes: edge_attrs,
                assertion_id: Some(ids::edge_assertion_id(key, position, relation, &target)),
            });
        }
        bindings.push(ScopeBinding {
            record_id: rid.clone(),
            scope: scope_n.clone(),
            owner_id: owner.to_owned(),
            search_state: SearchState::Indexed,
            prompt_state: PromptState::Inactive,
            lifecycle: Lifecycle::InactiveCandidate,
            source: BindingSource::Remember,
            reason: None,
            observed_at: observed_at.clone(),
            provenance,
            binding_id: ids::formation_binding_id(key, position),
            seq: -1,
        });
    }
    Ok(FormationPlan {
        record_ids,
        assertions,
        bindings,
        warnings,
    })
}

/// The refusal of a supplied `idempotency_key` whose ids are already another
/// pair's or another kind's: ids derive from `(idempotency_key, position)`
/// alone (never salted with the scope or owner, so homes interoperate), so a
/// position whose stored digest belongs to another (scope, owner) or is of
/// another kind cannot be a replay of this call. Answering `ok` would hand
/// back ids this caller does not own (or, for another kind, ids that do not
/// exist). The error names the key and the position, never the other owner.
///
/// # Errors
/// `InvalidInput` for the first such position.
pub fn key_owner_conflict(
    plan: &FormationPlan,
    idempotency_key: &str,
    stored: &[TripleAssertion],
) -> Result<()> {
    let key = idempotency_key.trim();
    let digests = plan.assertions.iter().filter(|a| {
        a.predicate == DIGEST_PREDICATE && DigestRow::of(a).get("record_edge").is_none()
    });
    let kind = |a: &TripleAssertion| DigestRow::of(a).get("record_kind").cloned();
    for (position, planned) in digests.enumerate() {
        let Some(old) = stored
            .iter()
            .find(|s| s.assertion_id.is_some() && s.assertion_id == planned.assertion_id)
        else {
            continue;
        };
        let same_pair = old.scope == planned.scope
            && old.owner_id.as_deref().unwrap_or("") == planned.owner_id.as_deref().unwrap_or("");
        if same_pair && kind(old) == kind(planned) && old.subject == planned.subject {
            continue;
        }
        return Err(Error::invalid(format!(
            "remember_many: idempotency_key {key:?} is already used at position {position} by a record of \
             another scope, owner or kind; ids derive from (idempotency_key, position) alone, so this call \
             cannot replay it: give this batch a key of its own (for example prefixed with its scope and \
             owner); nothing was written"
        )));
    }
    Ok(())
}

/// The `#FALLBACK` warnings for a supplied `idempotency_key` already used
/// for different content: for each planned digest whose id is stored
/// (`stored`, the rows already under the plan's digest ids) with another
/// record id, text or title, one warning naming the key, the position and
/// both versions. The stored record is kept (a replay is a no-op returning
/// the original ids, spec api.md "Formation"); the warning makes visible that
/// this call's content was not formed. A true replay (same content) warns
/// nothing.
pub fn key_reuse_warnings(
    plan: &FormationPlan,
    idempotency_key: &str,
    stored: &[TripleAssertion],
) -> Vec<String> {
    let key = idempotency_key.trim();
    let digests = plan.assertions.iter().filter(|a| {
        a.predicate == DIGEST_PREDICATE && DigestRow::of(a).get("record_edge").is_none()
    });
    let mut out = Vec::new();
    for (position, planned) in digests.enumerate() {
        let Some(old) = stored
            .iter()
            .find(|s| s.assertion_id.is_some() && s.assertion_id == planned.assertion_id)
        else {
            continue;
        };
        let title = |a: &TripleAssertion| {
            a.attributes
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        if old.subject == planned.subject
            && old.object == planned.object
            && title(old) == title(planned)
        {
            continue;
        }
        out.push(format!(
            "#FALLBACK: remember_many: idempotency_key {key:?} was already used for different content \
             (position {position}: stored {} {:?} \"{}\", this call {} {:?} \"{}\"); the stored record is kept \
             and this call's record was NOT formed: give new content a new idempotency_key",
            old.subject,
            title(old),
            excerpt(&old.object),
            planned.subject,
            title(planned),
            excerpt(&planned.object),
        ));
    }
    out
}

fn excerpt(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// Resolve a `local:<i>` batch reference to its sibling's graph id; any other
/// target passes through.
fn edge_target(target: &str, position: usize, record_ids: &[String]) -> Result<String> {
    let Some(index) = target.strip_prefix("local:") else {
        return Ok(target.to_owned());
    };
    let index: usize = index.parse().map_err(|_| {
        Error::invalid(format!(
            "invalid batch-internal edge target {target:?} (expected 'local:<index>')"
        ))
    })?;
    if index >= record_ids.len() {
        return Err(Error::invalid(format!(
            "batch-internal edge target {target:?} is out of range (batch has {} records)",
            record_ids.len()
        )));
    }
    if index == position {
        return Err(Error::invalid(format!(
            "record at position {position} cannot edge-reference itself ({target:?})"
        )));
    }
    Ok(record_ids[index].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> am_triples::Timestamp {
        am_triples::Timestamp::parse("2026-01-02T03:04:05Z").unwrap()
    }

    #[test]
    fn a_record_encodes_as_one_literal_digest_plus_one_assertion_per_edge() {
        let recs = [
            MemoryRecordInput::new(RecordKind::Episode, "Outage", "The Pool Failed.")
                .with_keywords(&["pool"]),
            MemoryRecordInput::new(RecordKind::Lesson, "Fix", "Restart it.")
                .with_edge("derived_from", "local:0"),
        ];
        let plan =
            build_formation_plan(&recs, " Session ", "s1", "k", Some("turn-9"), &clock).unwrap();
        assert_eq!(
            plan.record_ids[0],
            ids::record_id_for(RecordKind::Episode, "k", 0)
        );
        assert_eq!(plan.assertions.len(), 3);
        let d = &plan.assertions[0];
        assert_eq!(
            (d.predicate.as_str(), d.object.as_str(), d.scope.as_str()),
            ("dcterms:abstract", "The Pool Failed.", "session")
        );
        assert_eq!(d.observed_at, "2026-01-02T03:04:05.000000+00:00");
        assert_eq!(
            d.assertion_id.as_deref(),
            Some(ids::digest_assertion_id("k", 0).as_str())
        );
        let keys: Vec<&String> = d.attributes.keys().collect();
        assert_eq!(keys, ["literal", "record_kind", "title", "keywords"]);
        assert_eq!(d.provenance["turn_id"], "turn-9");
        let e = &plan.assertions[2];
        assert_eq!(
            (e.subject.as_str(), e.object.as_str()),
            (plan.record_ids[1].as_str(), plan.record_ids[0].as_str())
        );
        assert_eq!(e.attributes["record_edge"], true);
        assert_eq!(
            e.assertion_id.as_deref(),
            Some(ids::edge_assertion_id("k", 1, "derived_from", &plan.record_ids[0]).as_str())
        );
        assert_eq!(
            plan.bindings[1].binding_id,
            ids::formation_binding_id("k", 1)
        );
        assert_eq!(plan.bindings[1].lifecycle, Lifecycle::InactiveCandidate);
    }

    #[test]
    fn local_targets_must_name_another_sibling_in_range() {
        for bad in ["local:0", "local:5", "local:x"] {
            let recs = [MemoryRecordInput::new(RecordKind::Memory, "t", "d").with_edge("rel", bad)];
            assert!(
                build_formation_plan(&recs, "s", "", "k", None, &clock).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn chained_diary_entries_carry_the_hash_of_title_digest_and_stored_time() {
        let r = MemoryRecordInput::new(RecordKind::Diary, "Day", "Quiet.")
            .with_provenance("source", "owner-direct")
            .with_attribute("prev_entry_hash", "");
        let plan = build_formation_plan(&[r], "s", "o", "k", None, &clock).unwrap();
        let d = &plan.assertions[0];
        assert_eq!(
            d.attributes["entry_hash"],
            diary_entry_hash("Day", "Quiet.", &d.observed_at)
        );
    }

    #[test]
    fn empty_key_scope_or_batch_is_refused() {
        let r = [MemoryRecordInput::new(RecordKind::Memory, "t", "d")];
        assert!(build_formation_plan(&r, "s", "", " ", None, &clock).is_err());
        assert!(build_formation_plan(&r, " ", "", "k", None, &clock).is_err());
        assert!(build_formation_plan(&[], "s", "", "k", None, &clock).is_err());
    }
}
