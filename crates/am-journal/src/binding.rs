//! `ScopeBinding`: append-only visibility events and the latest-wins fold.
//!
//! Spec: api.md "The journal" (`ScopeBinding`), architecture.md "Append-only, no
//! deletion"; oracle `journal.py` `ScopeBinding`, `fold_bindings`.

use crate::common::canonical_observed_at;
use crate::error::{Error, Result};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

am_triples::vocabulary! {
    /// A binding's `search_state`: whether retrieval may rank the record.
    #[derive(Default)]
    pub enum SearchState("search_state") {
        /// Out of ranked retrieval.
        Hidden = "hidden",
        /// Rankable (the default).
        #[default]
        Indexed = "indexed",
    }
}

am_triples::vocabulary! {
    /// A binding's `prompt_state` (`hidden` implies `inactive`).
    #[derive(Default)]
    pub enum PromptState("prompt_state") {
        /// Shown in the prompt.
        Active = "active",
        /// Not shown (the default).
        #[default]
        Inactive = "inactive",
    }
}

am_triples::vocabulary! {
    /// A binding's `lifecycle`.
    #[derive(Default)]
    pub enum Lifecycle("lifecycle") {
        /// Held back, a candidate for later.
        InactiveCandidate = "inactive_candidate",
        /// No lifecycle state (the default).
        #[default]
        None = "none",
        /// Promoted.
        Promoted = "promoted",
        /// Rejected.
        Rejected = "rejected",
        /// Reviewed.
        Reviewed = "reviewed",
        /// Superseded.
        Superseded = "superseded",
    }
}

am_triples::vocabulary! {
    /// What wrote a binding (`source`).
    #[derive(Default)]
    pub enum BindingSource("source") {
        /// An election.
        Election = "election",
        /// A maintenance pass.
        Maintenance = "maintenance",
        /// The operator (the default).
        #[default]
        Operator = "operator",
        /// Formation (`remember`).
        Remember = "remember",
        /// A graph revision.
        Revision = "revision",
    }
}

/// `search_state` values: `indexed` | `hidden` ([`SearchState`]).
pub const SEARCH_STATES: [&str; 2] = SearchState::NAMES;
/// `prompt_state` values: `active` | `inactive` ([`PromptState`]).
pub const PROMPT_STATES: [&str; 2] = PromptState::NAMES;
/// `lifecycle` values ([`Lifecycle`]).
pub const LIFECYCLES: [&str; 6] = Lifecycle::NAMES;
/// `source` values ([`BindingSource`]).
pub const BINDING_SOURCES: [&str; 5] = BindingSource::NAMES;

/// One visibility event; the latest `seq` per `(record_id, scope, owner_id)` wins.
///
/// JSON shape: `record_id`, `scope`, `owner_id`, `search_state`, `prompt_state`,
/// `lifecycle`, `source`, `reason`, `observed_at`, `provenance`, `binding_id`, `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ScopeBinding {
    /// The record bound (required).
    pub record_id: String,
    /// Scope (lowercased).
    pub scope: String,
    /// Owner (trimmed).
    pub owner_id: String,
    /// `indexed` (the default) | `hidden`.
    pub search_state: SearchState,
    /// `active` | `inactive` (the default).
    pub prompt_state: PromptState,
    /// The lifecycle label (default `none`).
    pub lifecycle: Lifecycle,
    /// What wrote it (default `operator`).
    pub source: BindingSource,
    /// Why.
    pub reason: Option<String>,
    /// When (canonical UTC text; blank = now at append).
    pub observed_at: String,
    /// Free JSON provenance.
    pub provenance: JsonMap,
    /// Caller-supplied idempotency key, or journal-assigned (uuid4).
    pub binding_id: String,
    /// Journal-assigned position on the seq axis (`-1` before append).
    pub seq: i64,
}

impl Default for ScopeBinding {
    fn default() -> Self {
        ScopeBinding {
            record_id: String::new(),
            scope: String::new(),
            owner_id: String::new(),
            search_state: SearchState::Indexed,
            prompt_state: PromptState::Inactive,
            lifecycle: Lifecycle::None,
            source: BindingSource::Operator,
            reason: None,
            observed_at: String::new(),
            provenance: JsonMap::new(),
            binding_id: String::new(),
            seq: -1,
        }
    }
}

impl ScopeBinding {
    /// Whether the binding puts its record in the prompt: `search_state`
    /// `indexed` and `prompt_state` `active` (the identity core's and the
    /// card's test of a prompt-active record).
    pub fn is_prompt_active(&self) -> bool {
        self.search_state == SearchState::Indexed && self.prompt_state == PromptState::Active
    }

    /// A binding of `record_id` in `(scope, owner_id)` with `search_state`, the rest defaulted.
    pub fn new(record_id: &str, scope: &str, owner_id: &str, search_state: SearchState) -> Self {
        ScopeBinding {
            record_id: record_id.into(),
            scope: scope.into(),
            owner_id: owner_id.into(),
            search_state,
            ..ScopeBinding::default()
        }
    }

    /// The same binding with a caller-supplied id (an idempotency key).
    #[must_use]
    pub fn with_binding_id(mut self, id: &str) -> Self {
        self.binding_id = id.into();
        self
    }

    /// Validate and normalise: record required (trimmed); scope lowercased,
    /// owner trimmed; `hidden` with `active` refused; `observed_at` canonical.
    /// (The states, lifecycle and source are known by their types; an
    /// argument reads them folded, see `am_triples::vocab::folded`.)
    ///
    /// # Errors
    /// `InvalidInput` naming the field and the value.
    pub fn normalized(&self) -> Result<Self> {
        let mut b = self.clone();
        let rid = b.record_id.trim();
        if rid.is_empty() {
            return Err(Error::invalid(format!(
                "ScopeBinding requires a record_id, got {}",
                am_triples::text::shown(&self.record_id)
            )));
        }
        b.record_id = rid.to_string();
        b.scope = b.scope.trim().to_lowercase();
        b.owner_id = b.owner_id.trim().to_string();
        if b.search_state == SearchState::Hidden && b.prompt_state == PromptState::Active {
            return Err(Error::invalid(
                "hidden implies inactive (a hidden record cannot be prompt-active), got search_state=\"hidden\" with prompt_state=\"active\"",
            ));
        }
        b.observed_at = canonical_observed_at(&b.observed_at)?;
        Ok(b)
    }
}

/// Latest-wins fold per `(record_id, scope, owner_id)`: the binding with the
/// highest `seq` of each key, returned in ascending `seq` order.
///
/// Spec: api.md "The journal" (`fold_bindings(bindings)`).
pub fn fold_bindings(bindings: &[ScopeBinding]) -> Vec<ScopeBinding> {
    let mut latest: HashMap<(&str, &str, &str), &ScopeBinding> = HashMap::new();
    for b in bindings {
        let key = (b.record_id.as_str(), b.scope.as_str(), b.owner_id.as_str());
        match latest.get(&key) {
            Some(cur) if cur.seq >= b.seq => {}
            _ => {
                latest.insert(key, b);
            }
        }
    }
    let mut out: Vec<ScopeBinding> = latest.into_values().cloned().collect();
    out.sort_by_key(|b| b.seq);
    out
}
