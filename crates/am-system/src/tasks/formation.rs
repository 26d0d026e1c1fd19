//! Formation's task rows: the row a record's formation queues (strength
//! 1.0, `basis_version` 0, cause `formation`) and the digest methods that
//! count as mechanical words. What a formation owes is computed by the
//! formation faculty (`formation/owed.rs`), which calls these.
//!
//! Spec: api.md "The memory task queue" (enqueue sites, `PENDING_TASK_KINDS`,
//! `FORMATION_PRIORITY`).

use super::task_id;
use am_journal::{TaskKind, TaskRow, TaskStatus};
use serde_json::json;

/// The digest methods that count as mechanical words (debt a
/// `digest.rewrite` owes), as 0.3.2 names them.
pub const MECHANICAL_DIGEST_METHODS: [&str; 4] = [
    "mechanical-floor-v1",
    "mechanical-flow-v1",
    "mechanical-v1",
    "mechanical-v2",
];

/// Formation's task row for a record's digest row `a` (strength 1.0,
/// `basis_version` 0, cause `formation`).
pub(crate) fn row(
    a: &am_triples::TripleAssertion,
    aid: &str,
    kind: TaskKind,
    basis: String,
    priority: i64,
    now: &str,
) -> TaskRow {
    TaskRow {
        task_id: task_id(kind, &a.subject, &basis),
        kind,
        capability: kind.capability().to_owned(),
        target_id: a.subject.clone(),
        assertion_id: aid.to_owned(),
        scope: a.scope.clone(),
        owner_id: a.owner_id.clone().unwrap_or_default(),
        basis,
        basis_version: 0,
        strength: 1.0,
        cause: json!("formation"),
        priority,
        depends_on: Vec::new(),
        not_before: None,
        windows: Vec::new(),
        cost_hint: None,
        max_attempts: 3,
        attempts: 0,
        status: TaskStatus::Pending,
        holder: None,
        lease_until: None,
        ripple_id: None,
        hop: None,
        result: None,
        error: None,
        superseded_by: None,
        created_at: now.to_owned(),
        updated_at: now.to_owned(),
    }
}
