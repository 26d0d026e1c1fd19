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
    pub enum SearchState("search_state") {
        /// Out of ranked retrieval.
        Hidden = "hidden",
        /// Rankable (the default).
        Indexed = "indexed",
    }
}

am_triples::vocabulary! {
    /// A binding's `prompt_state` (`hidden` implies `inactive`).
    pub enum PromptState("prompt_state") {
        /// Shown in the prompt.
        Active = "active",
        /// Not shown (the default).
        Inactive = "inactive",
    }
}

am_triples::vocabulary! {
    /// A binding's `lifecycle`.
    pub enum Lifecycle("lifecycle") {
        /// Held back, a candidate for later.
        InactiveCandidate = "inactive_candidate",
        /// No lifecycle state (the default).
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
    pub enum BindingSource("source") {
        /// An election.
        Election = "election",
        /// A maintenance pass.
        Maintenance = "maintenance",
        /// The operator (the default).
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
    /// `indexed` | `hidden`.
    pub search_state: String,
    /// `active` | `inactive`.
    pub prompt_state: String,
    /// One of [`LIFECYCLES`].
    pub lifecycle: String,
    /// One of [`BINDING_SOURCES`].
    pub source: String,
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
            search_state: "indexed".into(),
            prompt_state: "inactive".into(),
            lifecycle: "none".into(),
            source: "operator".into(),
            reason: None,
            observed_at: String::new(),
            provenance: JsonMap::new(),
            binding_id: String::new(),
            seq: -1,
        }
    }
}

fn one_of(value: &str, what: &str, allowed: &[&str], default: Option<&str>) -> Result<String> {
    let v = value.trim().to_lowercase();
    let v = if v.is_empty() {
        default.unwrap_or("").to_string()
    } else {
        v
    };
    if allowed.contains(&v.as_str()) {
        Ok(v)
    } else {
        Err(Error::invalid(format!(
            "{what} must be one of {allowed:?}, got {value:?}"
        )))
    }
}

impl ScopeBinding {
    /// Whether the binding puts its record in the prompt: `search_state`
    /// `indexed` and `prompt_state` `active` (the identity core's and the
    /// card's test of a prompt-active record).
    pub fn is_prompt_active(&self) -> bool {
        self.search_state == "indexed" && self.prompt_state == "active"
    }

    /// A binding of `record_id` in `(scope, owner_id)` with `search_state`, the rest defaulted.
    pub fn new(record_id: &str, scope: &str, owner_id: &str, search_state: &str) -> Self {
        ScopeBinding {
            record_id: record_id.into(),
            scope: scope.into(),
            owner_id: owner_id.into(),
            search_state: search_state.into(),
            ..ScopeBinding::default()
        }
    }

    /// The same binding with a caller-supplied id (an idempotency key).
    #[must_use]
    pub fn with_binding_id(mut self, id: &str) -> Self {
        self.binding_id = id.into();
        self
    }

    /// Validate and normalise: record required; states, lifecycle and source from
    /// their vocabularies (lifecycle blank → `none`, source blank → `operator`);
    /// `hidden` with `active` refused; `observed_at` canonical.
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
        b.search_state = one_of(&b.search_state, "search_state", &SEARCH_STATES, None)?;
        b.prompt_state = one_of(&b.prompt_state, "prompt_state", &PROMPT_STATES, None)?;
        if b.search_state == "hidden" && b.prompt_state == "active" {
            return Err(Error::invalid(
                "hidden implies inactive (a hidden record cannot be prompt-active), got search_state=\"hidden\" with prompt_state=\"active\"",
            ));
        }
        b.lifecycle = one_of(&b.lifecycle, "lifecycle", &LIFECYCLES, Some("none"))?;
        b.source = one_of(&b.source, "source", &BINDING_SOURCES, Some("operator"))?;
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
