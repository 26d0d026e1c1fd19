//! `ClosureRecord`: belief lifecycle (retract, supersede, reinterpreted, merged).
//!
//! Spec: api.md "The journal" (`ClosureRecord`), architecture.md "Append-only, no
//! deletion"; oracle `journal.py` `ClosureRecord`.

use crate::common::canonical_observed_at;
use crate::error::{Error, Result};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};

am_triples::vocabulary! {
    /// How an assertion's belief ended: the kind of a [`ClosureRecord`] and of
    /// the graph's `close` op (`am_graph::CloseKind` is this type).
    pub enum ClosureKind("close kind") {
        /// The claim was wrong.
        Retract = "retract",
        /// A later claim replaces it (`replacement_ids` required).
        Supersede = "supersede",
        /// The writer no longer reads its source this way.
        Reinterpreted = "reinterpreted",
        /// Merged into another memory (`replacement_ids` required).
        Merged = "merged",
    }
}

impl ClosureKind {
    /// Whether this kind requires `replacement_ids` (`supersede`, `merged`).
    pub fn requires_replacements(self) -> bool {
        matches!(self, ClosureKind::Supersede | ClosureKind::Merged)
    }
}

/// The closure kinds a [`ClosureRecord`] accepts (`abstractmemory.journal.CLOSURE_KINDS`):
/// the wire names of [`ClosureKind`].
pub const CLOSURE_KINDS: [&str; 4] = ClosureKind::NAMES;

/// One belief-lifecycle record: the assertion leaves ranked retrieval but stays in
/// the store and in history.
///
/// JSON shape: `assertion_id`, `kind`, `reason`, `replacement_ids`, `observed_at`,
/// `actor`, `provenance`, `closure_id`, `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ClosureRecord {
    /// The assertion closed (required).
    pub assertion_id: String,
    /// How the belief ended (default `retract`, `close_record`'s default).
    pub kind: ClosureKind,
    /// Mandatory, non-empty.
    pub reason: String,
    /// Replacements: required for `supersede` and `merged`, optional otherwise.
    pub replacement_ids: Vec<String>,
    /// When (canonical UTC text; blank = now at append).
    pub observed_at: String,
    /// Who closed it.
    pub actor: String,
    /// Free JSON provenance.
    pub provenance: JsonMap,
    /// Caller-supplied idempotency key, or journal-assigned (uuid4).
    pub closure_id: String,
    /// Journal-assigned position on the seq axis (`-1` before append).
    pub seq: i64,
}

impl Default for ClosureRecord {
    fn default() -> Self {
        ClosureRecord {
            assertion_id: String::new(),
            kind: ClosureKind::Retract,
            reason: String::new(),
            replacement_ids: Vec::new(),
            observed_at: String::new(),
            actor: "system".into(),
            provenance: JsonMap::new(),
            closure_id: String::new(),
            seq: -1,
        }
    }
}

impl ClosureRecord {
    /// A closure of `assertion_id` of `kind` for `reason`.
    pub fn new(assertion_id: &str, kind: ClosureKind, reason: &str) -> Self {
        ClosureRecord {
            assertion_id: assertion_id.into(),
            kind,
            reason: reason.into(),
            ..ClosureRecord::default()
        }
    }

    /// The same closure naming `ids` as replacements.
    #[must_use]
    pub fn with_replacements(mut self, ids: &[&str]) -> Self {
        self.replacement_ids = ids.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The same closure with a caller-supplied id (an idempotency key).
    #[must_use]
    pub fn with_closure_id(mut self, id: &str) -> Self {
        self.closure_id = id.into();
        self
    }

    /// Validate and normalise: assertion required; a non-empty reason; `supersede` and `merged` name at least one replacement;
    /// blank replacement ids dropped; `observed_at` canonical.
    ///
    /// # Errors
    /// `InvalidInput` naming the rule and the value.
    pub fn normalized(&self) -> Result<Self> {
        let mut c = self.clone();
        let aid = c.assertion_id.trim();
        if aid.is_empty() {
            return Err(Error::invalid(format!(
                "ClosureRecord requires an assertion_id, got {}",
                am_triples::text::shown(&self.assertion_id)
            )));
        }
        c.assertion_id = aid.to_string();
        if c.reason.trim().is_empty() {
            return Err(Error::invalid(format!(
                "ClosureRecord requires a non-empty reason, got {}",
                am_triples::text::shown(&self.reason)
            )));
        }
        c.replacement_ids = c
            .replacement_ids
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if c.kind.requires_replacements() && c.replacement_ids.is_empty() {
            return Err(Error::invalid(format!(
                "{} closures require replacement_ids, got {:?}",
                c.kind, self.replacement_ids
            )));
        }
        c.observed_at = canonical_observed_at(&c.observed_at)?;
        Ok(c)
    }
}
