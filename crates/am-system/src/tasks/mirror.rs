//! Each claim of a pending record's `title.author` / `digest.author` task is
//! mirrored into the record's marker: `attributes.pending.attempts` becomes
//! the highest claim count of its authoring tasks, written in the claim's
//! own transaction (the row rewritten in place, its words, keyword entry and
//! vector untouched).
//!
//! The rewrites are prepared before the claim's transaction (a home
//! prepares a rewrite outside it) for the claims the claim rules will make;
//! inside it, a record whose claims came out otherwise (another writer
//! claimed between the read and the write) is left as it stands, and a row
//! another writer moved fails the transaction with `Conflict`, which the
//! claim retries from a fresh read.
//!
//! Choices the spec leaves open (ours): the mirror is `max(attempts, the
//! claimed task's attempts)`, so a `defer` (which refunds an attempt) never
//! lowers it and `rearm_pending` is what restarts it.
//!
//! Spec: api.md "The memory task queue" (task kinds: "each claim mirrored
//! into the marker's `attempts`").

use super::{TaskQueue, effective};
use crate::error::Result;
use crate::record::DigestRow;
use am_journal::{HomeTx, TaskKind, TaskReads, TaskRow, TaskStatus};
use am_triples::{DigestRewrite, ErrorKind, PreparedRewrite};
use serde_json::{Value, json};
use std::collections::HashMap;

/// One record's marker rewrite, prepared for the claims expected of it.
pub(crate) struct Mirror {
    /// The task ids whose claims it expects, with the attempt each reaches.
    expects: Vec<(String, i64)>,
    prepared: PreparedRewrite,
}

/// Whether `t` (as read at `now`) is one the claim rules will lease.
fn claimable(r: &dyn TaskReads, t: &TaskRow, now: &str) -> Result<bool> {
    let status = effective(t, now);
    if !status.is_live() || status == TaskStatus::Leased || t.attempts >= t.max_attempts {
        return Ok(false);
    }
    if t.not_before.as_deref().is_some_and(|nb| nb > now) {
        return Ok(false);
    }
    for d in &t.depends_on {
        if r.task(d)?.is_some_and(|x| effective(&x, now).is_live()) {
            return Ok(false);
        }
    }
    Ok(true)
}

impl TaskQueue<'_> {
    /// The marker rewrites the claim of `ids` at `now` owes (none for a
    /// task that is not a pending field's authoring, or whose record holds
    /// no marker or already mirrors it).
    pub(crate) fn plan_mirrors(&self, ids: &[String], now: &str) -> Result<Vec<Mirror>> {
        let expected: Vec<TaskRow> = self.read(|r| {
            let mut out = Vec::new();
            for id in ids {
                if let Some(t) = r.task(id)?
                    && matches!(t.kind, TaskKind::TitleAuthor | TaskKind::DigestAuthor)
                    && claimable(r, &t, now)?
                {
                    out.push(t);
                }
            }
            Ok(out)
        })?;
        if expected.is_empty() {
            return Ok(Vec::new());
        }
        let key = |t: &TaskRow| {
            if t.assertion_id.is_empty() {
                t.target_id.clone()
            } else {
                t.assertion_id.clone()
            }
        };
        let keys: Vec<String> = expected.iter().map(key).collect();
        let rows = self.target_rows(&keys)?;
        let mut by_record: HashMap<String, (am_triples::TripleAssertion, Vec<(String, i64)>)> =
            HashMap::new();
        let mut order: Vec<String> = Vec::new();
        for t in &expected {
            let Some(row) = rows.get(&key(t)) else {
                continue;
            };
            let Some(aid) = row.assertion_id.clone() else {
                continue;
            };
            if !matches!(DigestRow::of(row).get("pending"), Some(Value::Object(_))) {
                continue;
            }
            let entry = by_record.entry(aid.clone()).or_insert_with(|| {
                order.push(aid.clone());
                (row.clone(), Vec::new())
            });
            entry.1.push((t.task_id.clone(), t.attempts + 1));
        }
        let mut out = Vec::new();
        for aid in order {
            let Some((row, expects)) = by_record.remove(&aid) else {
                continue;
            };
            let marker = row
                .attributes
                .get("pending")
                .and_then(|p| p.get("attempts"))
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let attempts = expects
                .iter()
                .map(|(_, a)| *a)
                .max()
                .unwrap_or(0)
                .max(marker);
            if attempts == marker {
                continue;
            }
            let mut attributes = row.attributes.clone();
            if let Some(Value::Object(m)) = attributes.get_mut("pending") {
                m.insert("attempts".into(), json!(attempts));
            }
            let rewrite = DigestRewrite {
                assertion_id: aid.clone(),
                expected_object: row.object.clone(),
                expected_attributes: row.attributes.clone(),
                object: row.object.clone(),
                attributes,
            };
            let prepared = match self.sys.home.prepare_rewrite(&rewrite) {
                Ok(p) => p,
                // A home that rewrites no row in place keeps no marker to mirror.
                Err(e) if e.kind() == ErrorKind::Unsupported => continue,
                Err(e) => return Err(e),
            };
            out.push(Mirror { expects, prepared });
        }
        Ok(out)
    }
}

/// Write the mirrors whose expected claims `claimed` made, in the claim's
/// transaction `tx`.
pub(crate) fn apply_mirrors(
    tx: &mut dyn HomeTx,
    mirrors: &[Mirror],
    claimed: &[TaskRow],
) -> Result<()> {
    for m in mirrors {
        let made = m.expects.iter().all(|(id, attempt)| {
            claimed
                .iter()
                .any(|t| &t.task_id == id && t.attempts == *attempt)
        });
        if made {
            tx.store().rewrite_digest(&m.prepared)?;
        }
    }
    Ok(())
}
