//! The arguments of the understanding verbs: `rewrite_digest`, `retitle`,
//! `narrate_dream`, `revert_digest`, `declare_pending` and `rearm_pending`.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions", "Formation"
//! (pending fields).

use am_triples::{JsonMap, Timestamp};
use serde::{Deserialize, Serialize};

fn authored_v1() -> String {
    "authored-v1".to_owned()
}

fn formation_cause() -> serde_json::Value {
    serde_json::Value::String("formation".to_owned())
}

/// The arguments of [`crate::MemorySystem::rewrite_digest`]:
/// `rewrite_digest(record_id, *, text, author, cause, expected_version,
/// reader=None, sources=(), derived_from=(), title=None, keywords=None,
/// digest_method="authored-v1", magnitude=None, task_id=None,
/// understood_at=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RewriteDigest {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// The new digest, stored exactly as given.
    pub text: String,
    /// `{kind, id}`, kind in `AUTHOR_KINDS`.
    pub author: JsonMap,
    /// A cause in `REWRITE_CAUSES`, or `{"cause": ..., ...}` (extra keys kept).
    pub cause: serde_json::Value,
    /// Compare-and-set on the record's `digest_version` (0: never rewritten).
    pub expected_version: i64,
    /// `{provider, model, thinking}`: required for a model author.
    #[serde(default)]
    pub reader: Option<JsonMap>,
    /// Ledger `SourceRef` dicts (a model author needs at least one).
    #[serde(default)]
    pub sources: Vec<serde_json::Value>,
    /// Memories this reading was derived from.
    #[serde(default)]
    pub derived_from: Vec<String>,
    /// A new title, written with its own title version.
    #[serde(default)]
    pub title: Option<String>,
    /// New keywords.
    #[serde(default)]
    pub keywords: Option<Vec<String>>,
    /// How the words were produced (default `authored-v1`).
    #[serde(default = "authored_v1")]
    pub digest_method: String,
    /// The size of the change, when the reader says.
    #[serde(default)]
    pub magnitude: Option<f64>,
    /// The task this settles (needs the task queue: refused `no_task_queue`
    /// on a home without one).
    #[serde(default)]
    pub task_id: Option<String>,
    /// When the reading was written (default: now).
    #[serde(default)]
    pub understood_at: Option<Timestamp>,
}

impl RewriteDigest {
    /// Rewrite `record_id`'s digest to `text`, by `author` for `cause`, if its
    /// version is still `expected_version`.
    pub fn new(
        record_id: &str,
        text: &str,
        author: JsonMap,
        cause: serde_json::Value,
        expected_version: i64,
    ) -> Self {
        RewriteDigest {
            record_id: record_id.to_owned(),
            text: text.to_owned(),
            author,
            cause,
            expected_version,
            reader: None,
            sources: Vec::new(),
            derived_from: Vec::new(),
            title: None,
            keywords: None,
            digest_method: authored_v1(),
            magnitude: None,
            task_id: None,
            understood_at: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::retitle`]: `retitle(record_id, *,
/// title, author, cause, expected_version, reader=None, sources=(),
/// task_id=None, understood_at=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Retitle {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// The new title, stored exactly as given (never cut).
    pub title: String,
    /// `{kind, id}`, kind in `AUTHOR_KINDS`.
    pub author: JsonMap,
    /// A cause in `REWRITE_CAUSES`, or `{"cause": ..., ...}`.
    pub cause: serde_json::Value,
    /// Compare-and-set on the record's `title_version` (0: never retitled).
    pub expected_version: i64,
    /// `{provider, model, thinking}`: required for a model author.
    #[serde(default)]
    pub reader: Option<JsonMap>,
    /// Ledger `SourceRef` dicts.
    #[serde(default)]
    pub sources: Vec<serde_json::Value>,
    /// The task this settles (needs the task queue).
    #[serde(default)]
    pub task_id: Option<String>,
    /// When the reading was written (default: now).
    #[serde(default)]
    pub understood_at: Option<Timestamp>,
}

impl Retitle {
    /// Retitle `record_id` to `title`, by `author` for `cause`, if its title
    /// version is still `expected_version`.
    pub fn new(
        record_id: &str,
        title: &str,
        author: JsonMap,
        cause: serde_json::Value,
        expected_version: i64,
    ) -> Self {
        Retitle {
            record_id: record_id.to_owned(),
            title: title.to_owned(),
            author,
            cause,
            expected_version,
            reader: None,
            sources: Vec::new(),
            task_id: None,
            understood_at: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::narrate_dream`]:
/// `narrate_dream(dream_id, *, text, author, expected_version=0, reader=None,
/// sources=(), cause="formation", task_id=None, understood_at=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NarrateDream {
    /// The dream: its graph id or its digest assertion id.
    pub dream_id: String,
    /// The narration, stored exactly as given.
    pub text: String,
    /// `{kind, id}`, kind in `AUTHOR_KINDS`.
    pub author: JsonMap,
    /// Compare-and-set on `narration_version` (default 0: never narrated).
    #[serde(default)]
    pub expected_version: i64,
    /// `{provider, model, thinking}`: required for a model author.
    #[serde(default)]
    pub reader: Option<JsonMap>,
    /// Ledger `SourceRef` dicts.
    #[serde(default)]
    pub sources: Vec<serde_json::Value>,
    /// Default `formation`.
    #[serde(default = "formation_cause")]
    pub cause: serde_json::Value,
    /// The task this settles (needs the task queue).
    #[serde(default)]
    pub task_id: Option<String>,
    /// When the narration was written (default: now).
    #[serde(default)]
    pub understood_at: Option<Timestamp>,
}

impl NarrateDream {
    /// Narrate `dream_id` with `text` by `author`.
    pub fn new(dream_id: &str, text: &str, author: JsonMap) -> Self {
        NarrateDream {
            dream_id: dream_id.to_owned(),
            text: text.to_owned(),
            author,
            expected_version: 0,
            reader: None,
            sources: Vec::new(),
            cause: formation_cause(),
            task_id: None,
            understood_at: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::revert_digest`]:
/// `revert_digest(record_id, to_version, *, expected_version, by=None,
/// reason=None, field=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertDigest {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// The version to restore (as a NEW version).
    pub to_version: i64,
    /// Compare-and-set on the field's current version.
    pub expected_version: i64,
    /// Who reverts: `{kind, id}` (default the operator), recorded in the cause.
    #[serde(default)]
    pub by: Option<JsonMap>,
    /// Why, recorded in the cause.
    #[serde(default)]
    pub reason: Option<String>,
    /// The field (default the record's own: `digest`, `card` for a card);
    /// `title` restores a title.
    #[serde(default)]
    pub field: Option<String>,
}

impl RevertDigest {
    /// Restore `record_id`'s version `to_version` if its version is still
    /// `expected_version`.
    pub fn new(record_id: &str, to_version: i64, expected_version: i64) -> Self {
        RevertDigest {
            record_id: record_id.to_owned(),
            to_version,
            expected_version,
            by: None,
            reason: None,
            field: None,
        }
    }
}

fn pending_fields() -> Vec<String> {
    vec!["title".into(), "summary".into()]
}

fn repair() -> String {
    "repair".into()
}

/// The arguments of [`crate::MemorySystem::declare_pending`]:
/// `declare_pending(record_id, *, fields=("title", "summary"),
/// cause="repair", reason=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclarePending {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// The fields declared pending (`PENDING_FIELDS`, non-empty).
    #[serde(default = "pending_fields")]
    pub fields: Vec<String>,
    /// A cause in `REWRITE_CAUSES` (default `repair`).
    #[serde(default = "repair")]
    pub cause: String,
    /// Why, recorded in the declaration's cause.
    #[serde(default)]
    pub reason: Option<String>,
}

impl DeclarePending {
    /// Declare `record_id`'s title and summary pending, cause `repair`.
    pub fn new(record_id: &str) -> Self {
        DeclarePending {
            record_id: record_id.to_owned(),
            fields: pending_fields(),
            cause: repair(),
            reason: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::rearm_pending`]:
/// `rearm_pending(record_id, *, cause="repair", reason=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RearmPending {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// A cause in `REWRITE_CAUSES` (default `repair`).
    #[serde(default = "repair")]
    pub cause: String,
    /// Why, recorded in the re-arm's cause.
    #[serde(default)]
    pub reason: Option<String>,
}

impl RearmPending {
    /// Re-arm `record_id`'s exhausted pending fields, cause `repair`.
    pub fn new(record_id: &str) -> Self {
        RearmPending {
            record_id: record_id.to_owned(),
            cause: repair(),
            reason: None,
        }
    }
}
