//! The drainer's reads on `MemorySystem` (pure): `pending_records`.
//!
//! Spec: api.md "The memory task queue" ("On `MemorySystem`":
//! `pending_records`).

use crate::error::Result;
use crate::kinds::DIGEST_PREDICATE;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::TaskKind;
use am_triples::TripleQuery;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

fn unowned_only() -> Option<bool> {
    Some(false)
}

/// `pending_records(*, scopes=None, live_task=False)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PendingRecords {
    /// `[(scope, owner_id)]`, or `None` for every scope.
    #[serde(default)]
    pub scopes: Option<Vec<(String, String)>>,
    /// `false` (default): records with a pending field no live task owns
    /// (what `rearm_pending` re-arms); `true`: records whose every pending
    /// field has a live task; `null` (the spec's `None`): every pending record.
    #[serde(default = "unowned_only")]
    pub live_task: Option<bool>,
}

impl Default for PendingRecords {
    fn default() -> Self {
        PendingRecords {
            scopes: None,
            live_task: Some(false),
        }
    }
}

/// One record still marked pending.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PendingRecord {
    /// The graph id.
    pub record_id: String,
    /// The digest assertion id.
    pub assertion_id: String,
    /// Its kind.
    pub record_kind: String,
    /// Its scope.
    pub scope: String,
    /// Its owner.
    pub owner_id: String,
    /// The marker (`attributes.pending`).
    pub pending: Value,
    /// The fields pending.
    pub fields: Vec<String>,
    /// Each pending field's live task, or `None`.
    pub live: BTreeMap<String, Option<String>>,
    /// The pending fields no live task owns.
    pub unowned: Vec<String>,
    /// How many times the record was re-armed.
    pub rearmed: i64,
}

impl MemorySystem {
    /// `pending_records`: a pure read of the records still marked pending,
    /// closed records left out, oldest marker first.
    ///
    /// # Errors
    /// `InvalidInput` without a task queue; the store's, journal's or
    /// queue's read failure.
    pub fn pending_records(&self, args: &PendingRecords) -> Result<Vec<PendingRecord>> {
        let q = self.tasks()?;
        let mut rows = Vec::new();
        let pairs: Vec<(Option<String>, Option<String>)> = match &args.scopes {
            None => vec![(None, None)],
            Some(s) => s
                .iter()
                .map(|(sc, ow)| (Some(sc.trim().to_lowercase()), Some(ow.trim().to_owned())))
                .collect(),
        };
        for (scope, owner_id) in pairs {
            rows.extend(self.store.query(&TripleQuery {
                predicate: Some(DIGEST_PREDICATE.to_owned()),
                scope,
                owner_id,
                limit: 0,
                ..TripleQuery::default()
            })?);
        }
        let live = self.home_live_authoring(&q)?;
        let mut out = Vec::new();
        for row in rows {
            let view = DigestRow::of(&row);
            let Some(Value::Object(marker)) = view.get("pending") else {
                continue;
            };
            let aid = row.assertion_id.clone().unwrap_or_default();
            if self.standing_closure(&aid)?.is_some() {
                continue;
            }
            let fields: Vec<String> = ["title", "summary"]
                .iter()
                .filter(|f| view.is_marked_pending(f))
                .map(|f| (*f).to_owned())
                .collect();
            if fields.is_empty() {
                continue;
            }
            let mut owned = BTreeMap::new();
            for f in &fields {
                let kind = if f == "title" {
                    TaskKind::TitleAuthor
                } else {
                    TaskKind::DigestAuthor
                };
                let task = live
                    .iter()
                    .find(|(k, target, _)| *k == kind && (*target == row.subject || *target == aid))
                    .map(|(_, _, id)| id.clone());
                owned.insert(f.clone(), task);
            }
            let unowned: Vec<String> = owned
                .iter()
                .filter(|(_, t)| t.is_none())
                .map(|(f, _)| f.clone())
                .collect();
            let keep = match args.live_task {
                Some(false) => !unowned.is_empty(),
                Some(true) => unowned.is_empty(),
                None => true,
            };
            if !keep {
                continue;
            }
            out.push(PendingRecord {
                record_id: row.subject.clone(),
                assertion_id: aid,
                record_kind: view.as_stored("record_kind").unwrap_or("").to_owned(),
                scope: row.scope.clone(),
                owner_id: row.owner_id.clone().unwrap_or_default(),
                pending: Value::Object(marker.clone()),
                fields,
                live: owned,
                unowned,
                rearmed: marker.get("rearmed").and_then(Value::as_i64).unwrap_or(0),
            });
        }
        out.sort_by(|a, b| {
            a.pending
                .get("since")
                .and_then(Value::as_str)
                .cmp(&b.pending.get("since").and_then(Value::as_str))
                .then_with(|| a.record_id.cmp(&b.record_id))
        });
        Ok(out)
    }

    /// The live authoring tasks: `(kind, target, task id)`.
    fn home_live_authoring(
        &self,
        q: &super::TaskQueue<'_>,
    ) -> Result<Vec<(TaskKind, String, String)>> {
        Ok(q.tasks(&super::ListTasks::default())?
            .into_iter()
            .filter(|t| {
                t.status.is_live()
                    && matches!(t.kind, TaskKind::TitleAuthor | TaskKind::DigestAuthor)
            })
            .map(|t| (t.kind, t.target_id, t.task_id))
            .collect())
    }
}
