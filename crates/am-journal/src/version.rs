//! `UnderstandingVersion`: one reading of a record (its digest, a card's text, a
//! dream's narration, a title, a card's target, a pending declaration), with its
//! deterministic `version_id`.
//!
//! Spec: api.md "The journal" (`UnderstandingVersion`) and "Understanding:
//! in-place rewrites and versions". 0.3.2 has no such family; the table is
//! `memj_versions`.

use crate::common::{canonical_observed_at, hash_hex};
use crate::error::{Error, Result};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The fields a version reads: `digest`, `card`, `narration`, `title`, `target`,
/// and `pending` (the declarations and re-arms of `declare_pending` / `rearm_pending`).
pub const VERSION_FIELDS: [&str; 6] = ["card", "digest", "narration", "pending", "target", "title"];
am_triples::vocabulary! {
    /// Who authored a reading (the spec's `AUTHOR_KINDS`, plus `unrecorded`
    /// for a version row that names no origin; [`AuthorKind::AUTHORS`] is the
    /// spec's four, the kinds a caller may name).
    pub enum AuthorKind("author kind") {
        /// A capability model (a summaries or understanding model).
        CapabilityModel = "capability-model",
        /// The entity's own mind.
        EntityMind = "entity-mind",
        /// Mechanical words (no model read it).
        Mechanical = "mechanical",
        /// The operator.
        Operator = "operator",
        /// A reading whose row names no origin (never named by a caller).
        Unrecorded = "unrecorded",
    }
}

impl AuthorKind {
    /// The spec's `AUTHOR_KINDS`: who may author a reading (sorted).
    pub const AUTHORS: [&'static str; 4] =
        ["capability-model", "entity-mind", "mechanical", "operator"];
}

am_triples::vocabulary! {
    /// Why a reading was rewritten (`REWRITE_CAUSES`).
    pub enum RewriteCause("rewrite cause") {
        /// A backfill of old mechanical words.
        Backfill = "backfill",
        /// New evidence.
        Evidence = "evidence",
        /// Formation (the first authored reading).
        Formation = "formation",
        /// The operator.
        Operator = "operator",
        /// A repair.
        Repair = "repair",
        /// A revert to an earlier version.
        Revert = "revert",
        /// A ripple through connected memories.
        Ripple = "ripple",
    }
}

/// The spec's `AUTHOR_KINDS`: who may author a reading (`mechanical`,
/// `entity-mind`, `capability-model`, `operator`; sorted). The one list a
/// caller's author is checked against.
pub const AUTHOR_KINDS: [&str; 4] = AuthorKind::AUTHORS;
/// The author kinds a stored version row may carry: [`AUTHOR_KINDS`] plus
/// `unrecorded` (a reading whose row names no origin, never named by a
/// caller). Not the spec's list: only what the journal accepts on read.
pub const STORED_AUTHOR_KINDS: [&str; 5] = AuthorKind::NAMES;
/// Rewrite causes (`REWRITE_CAUSES`, [`RewriteCause`]).
pub const REWRITE_CAUSES: [&str; 7] = RewriteCause::NAMES;

/// The deterministic id of version `version` of `field` of the record whose digest
/// assertion is `assertion_id`: `H(assertion_id|field|version|understanding)[:32]`
/// (lowercase sha256 hex, algorithms.md §9 notation).
///
/// The spec states the id is deterministic but not its formula; this is ours, in
/// the style of the §9 derivations. A repeated append of the same reading is a
/// no-op returning the original.
pub fn understanding_version_id(assertion_id: &str, field: &str, version: i64) -> String {
    hash_hex(
        &format!(
            "{}|{}|{}|understanding",
            assertion_id.trim(),
            field.trim(),
            version
        ),
        32,
    )
}

/// One reading of a record.
///
/// JSON shape: `record_id`, `assertion_id`, `version`, `field`, `text`, `title`,
/// `keywords`, `digest_method`, `author`, `reader`, `sources`, `derived_from`,
/// `cause`, `magnitude`, `task_id`, `understood_at`, `version_id`, `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct UnderstandingVersion {
    /// The record's graph id.
    pub record_id: String,
    /// The record's digest assertion id.
    pub assertion_id: String,
    /// Version number (0 = the original, captured at the first rewrite).
    pub version: i64,
    /// One of [`VERSION_FIELDS`].
    pub field: String,
    /// The words; `None` only for a `title` version of a record whose title was pending.
    pub text: Option<String>,
    /// The title at this reading (`None` while pending).
    pub title: Option<String>,
    /// Keywords at this reading.
    pub keywords: Vec<String>,
    /// How the words were produced (`authored-v1`, `mechanical-...`).
    pub digest_method: Option<String>,
    /// `{kind, id}` with kind in [`AUTHOR_KINDS`].
    pub author: JsonMap,
    /// `{provider, model, thinking}` when a model wrote it.
    pub reader: Option<JsonMap>,
    /// Ledger `SourceRef` dicts.
    pub sources: Vec<Value>,
    /// Memories it was derived from.
    pub derived_from: Vec<String>,
    /// A cause in [`REWRITE_CAUSES`], or `{"cause": ..., ...}` with extra keys kept verbatim.
    pub cause: Value,
    /// Optional magnitude of the change.
    pub magnitude: Option<f64>,
    /// The task this reading completed.
    pub task_id: Option<String>,
    /// When the reading was written (canonical UTC text; blank = now at append).
    pub understood_at: String,
    /// Deterministic id ([`understanding_version_id`]); blank = derived at append.
    pub version_id: String,
    /// Journal-assigned position on the seq axis (`-1` before append).
    pub seq: i64,
}

impl Default for UnderstandingVersion {
    fn default() -> Self {
        UnderstandingVersion {
            record_id: String::new(),
            assertion_id: String::new(),
            version: 0,
            field: "digest".into(),
            text: None,
            title: None,
            keywords: Vec::new(),
            digest_method: None,
            author: JsonMap::new(),
            reader: None,
            sources: Vec::new(),
            derived_from: Vec::new(),
            cause: Value::String("formation".into()),
            magnitude: None,
            task_id: None,
            understood_at: String::new(),
            version_id: String::new(),
            seq: -1,
        }
    }
}

fn cause_name(cause: &Value) -> Option<&str> {
    match cause {
        Value::String(s) => Some(s.as_str()),
        Value::Object(m) => m.get("cause").and_then(Value::as_str),
        _ => None,
    }
}

impl UnderstandingVersion {
    /// Version `version` of `field` of a record, with `text`, written by `author`
    /// (`(kind, id)`, stored as `{"kind": kind, "id": id}`) for `cause`.
    pub fn new(
        record_id: &str,
        assertion_id: &str,
        field: &str,
        version: i64,
        text: Option<&str>,
        author: (&str, &str),
        cause: &str,
    ) -> Self {
        let (author_kind, author_id) = author;
        let mut author = JsonMap::new();
        author.insert("kind".into(), Value::String(author_kind.into()));
        author.insert("id".into(), Value::String(author_id.into()));
        UnderstandingVersion {
            record_id: record_id.into(),
            assertion_id: assertion_id.into(),
            field: field.into(),
            version,
            text: text.map(str::to_string),
            author,
            cause: Value::String(cause.into()),
            ..UnderstandingVersion::default()
        }
    }

    /// Validate and normalise: ids required; field in [`VERSION_FIELDS`]; version
    /// non-negative; `text` absent only on a `title` version; author kind in
    /// [`STORED_AUTHOR_KINDS`]; cause in [`REWRITE_CAUSES`]; magnitude finite;
    /// `understood_at` canonical; a blank `version_id` derived.
    ///
    /// # Errors
    /// `InvalidInput` naming the rule and the value.
    pub fn normalized(&self) -> Result<Self> {
        let mut v = self.clone();
        for (what, value) in [
            ("record_id", &mut v.record_id),
            ("assertion_id", &mut v.assertion_id),
        ] {
            let t = value.trim().to_string();
            if t.is_empty() {
                return Err(Error::invalid(format!(
                    "UnderstandingVersion requires a non-empty {what}, got {value:?}"
                )));
            }
            *value = t;
        }
        let field = v.field.trim().to_lowercase();
        if !VERSION_FIELDS.contains(&field.as_str()) {
            return Err(Error::invalid(format!(
                "UnderstandingVersion.field must be one of {VERSION_FIELDS:?}, got {:?}",
                self.field
            )));
        }
        v.field = field;
        if v.version < 0 {
            return Err(Error::invalid(format!(
                "UnderstandingVersion.version must be >= 0, got {}",
                v.version
            )));
        }
        if v.text.is_none() && v.field != "title" {
            return Err(Error::invalid(format!(
                "UnderstandingVersion.text may be None only on a title version, got None on field {:?}",
                v.field
            )));
        }
        let author_kind = v.author.get("kind").and_then(Value::as_str).unwrap_or("");
        if !STORED_AUTHOR_KINDS.contains(&author_kind) {
            return Err(Error::invalid(format!(
                "UnderstandingVersion.author.kind must be one of {STORED_AUTHOR_KINDS:?}, got {}",
                am_triples::text::shown(&v.author.get("kind"))
            )));
        }
        match cause_name(&v.cause) {
            Some(c) if REWRITE_CAUSES.contains(&c) => {}
            _ => {
                return Err(Error::invalid(format!(
                    "UnderstandingVersion.cause must be one of {REWRITE_CAUSES:?} (or {{\"cause\": ...}}), got {}",
                    v.cause
                )));
            }
        }
        if let Some(m) = v.magnitude
            && !m.is_finite()
        {
            return Err(Error::invalid(format!(
                "UnderstandingVersion.magnitude must be finite, got {m}"
            )));
        }
        v.understood_at = canonical_observed_at(&v.understood_at)?;
        v.version_id = v.version_id.trim().to_string();
        if v.version_id.is_empty() {
            v.version_id = understanding_version_id(&v.assertion_id, &v.field, v.version);
        }
        Ok(v)
    }
}
