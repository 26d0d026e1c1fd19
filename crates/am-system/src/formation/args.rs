//! The arguments of formation's verbs: `remember_many` and `remember`.
//!
//! Spec: api.md "Formation (typed records)".

use crate::formation::records::MemoryRecordInput;
use serde::{Deserialize, Serialize};

/// The arguments of [`crate::MemorySystem::remember_many`]:
/// `remember_many(records, *, scope, owner_id, idempotency_key, turn_id=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberMany {
    /// The records to form, in order (edges may name siblings as `local:<i>`).
    pub records: Vec<MemoryRecordInput>,
    /// The scope of every record.
    pub scope: String,
    /// The owner of every record.
    pub owner_id: String,
    /// The batch key the record ids derive from (with each position).
    pub idempotency_key: String,
    /// The host's turn identity (provenance).
    #[serde(default)]
    pub turn_id: Option<String>,
}

impl RememberMany {
    /// Form `records` in `(scope, owner_id)` under `idempotency_key`.
    pub fn new(
        records: Vec<MemoryRecordInput>,
        scope: &str,
        owner_id: &str,
        idempotency_key: &str,
    ) -> Self {
        RememberMany {
            records,
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            idempotency_key: idempotency_key.to_owned(),
            turn_id: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::remember`]: `remember(record, ...)`,
/// the keywords of [`RememberMany`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Remember {
    /// The record to form.
    pub record: MemoryRecordInput,
    /// Its scope.
    pub scope: String,
    /// Its owner.
    pub owner_id: String,
    /// The batch key its id derives from.
    pub idempotency_key: String,
    /// The host's turn identity (provenance).
    #[serde(default)]
    pub turn_id: Option<String>,
}

impl Remember {
    /// Form `record` in `(scope, owner_id)` under `idempotency_key`.
    pub fn new(
        record: MemoryRecordInput,
        scope: &str,
        owner_id: &str,
        idempotency_key: &str,
    ) -> Self {
        Remember {
            record,
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            idempotency_key: idempotency_key.to_owned(),
            turn_id: None,
        }
    }
}
