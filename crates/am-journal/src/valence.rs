//! `ValenceEvent`: signed appraisals and standing markers (scar, bond, healing,
//! break, revalued), orthogonal to attention.
//!
//! Spec: api.md "Valence and gradation"; algorithms.md §8 "Validation"; oracle
//! `journal.py` `ValenceEvent`.

use crate::common::{canonical_observed_at, norm_scope};
use crate::error::{Error, Result};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

am_triples::vocabulary! {
    /// A [`ValenceEvent`]'s kind: an appraisal, or a standing marker and its
    /// resolutions (`VALENCE_KINDS`).
    pub enum ValenceKind("valence kind") {
        /// A signed appraisal (the default).
        Appraisal = "appraisal",
        /// A positive standing marker (sign +1).
        Bond = "bond",
        /// A bond dissolved (`provenance.breaks` names it).
        Break = "break",
        /// A scar resolved (`provenance.heals` names it).
        Healing = "healing",
        /// A target revalued (`provenance.factor` in 0..=1).
        Revalued = "revalued",
        /// A negative standing marker (sign -1).
        Scar = "scar",
    }
}

/// The valence kinds ([`ValenceKind`]).
pub const VALENCE_KINDS: [&str; 6] = ValenceKind::NAMES;

/// One signed appraisal on the valence axis.
///
/// JSON shape: `target_id`, `sign`, `magnitude`, `kind`, `value_refs`, `scope`,
/// `owner_id`, `reason`, `actor`, `trace_id`, `observed_at`, `provenance`,
/// `event_id`, `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ValenceEvent {
    /// A record id or a free identity string (`tool:web_search`).
    pub target_id: String,
    /// `+1` | `-1`.
    pub sign: i64,
    /// 1..=10, finite.
    pub magnitude: f64,
    /// The kind (default `appraisal`).
    pub kind: ValenceKind,
    /// The value records the appraisal is grounded in.
    pub value_refs: Vec<String>,
    /// Scope (lowercased; required).
    pub scope: String,
    /// Owner (trimmed).
    pub owner_id: String,
    /// Required: appraisals must be explainable.
    pub reason: Option<String>,
    /// Who appraised.
    pub actor: String,
    /// The trace it belongs to.
    pub trace_id: Option<String>,
    /// When (canonical UTC text; blank = now at append).
    pub observed_at: String,
    /// `heals`, `breaks`, `factor`, `outcome_class`, ...
    pub provenance: JsonMap,
    /// Caller-supplied idempotency key, or journal-assigned (uuid4).
    pub event_id: String,
    /// Journal-assigned position on the seq axis (`-1` before append).
    pub seq: i64,
}

impl Default for ValenceEvent {
    fn default() -> Self {
        ValenceEvent {
            target_id: String::new(),
            sign: 1,
            magnitude: 1.0,
            kind: ValenceKind::Appraisal,
            value_refs: Vec::new(),
            scope: String::new(),
            owner_id: String::new(),
            reason: None,
            actor: "runtime".into(),
            trace_id: None,
            observed_at: String::new(),
            provenance: JsonMap::new(),
            event_id: String::new(),
            seq: -1,
        }
    }
}

fn prov_text(p: &JsonMap, key: &str) -> String {
    match p.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(other) => other.to_string(),
    }
}

impl ValenceEvent {
    /// An appraisal of `target_id` with `sign` and `magnitude` for `reason`.
    pub fn appraisal(
        target_id: &str,
        sign: i64,
        magnitude: f64,
        reason: &str,
        scope: &str,
        owner_id: &str,
    ) -> Self {
        ValenceEvent {
            target_id: target_id.into(),
            sign,
            magnitude,
            reason: Some(reason.into()),
            scope: scope.into(),
            owner_id: owner_id.into(),
            ..ValenceEvent::default()
        }
    }

    /// The same event of `kind`.
    #[must_use]
    pub fn with_kind(mut self, kind: ValenceKind) -> Self {
        self.kind = kind;
        self
    }

    /// The same event with a caller-supplied id (an idempotency key).
    #[must_use]
    pub fn with_event_id(mut self, id: &str) -> Self {
        self.event_id = id.into();
        self
    }

    /// Validate and normalise (algorithms.md §8): target required; sign ±1;
    /// magnitude finite in 1..=10; scope required;
    /// reason non-empty; a scar is negative and a bond positive; healing names
    /// `provenance.heals`, break names `provenance.breaks`; revalued carries
    /// `provenance.factor` in 0..=1; blank value refs dropped.
    ///
    /// # Errors
    /// `InvalidInput` naming the rule and the value.
    pub fn normalized(&self) -> Result<Self> {
        let mut e = self.clone();
        let tid = e.target_id.trim();
        if tid.is_empty() {
            return Err(Error::invalid(format!(
                "ValenceEvent requires a non-empty target_id, got {:?}",
                self.target_id
            )));
        }
        e.target_id = tid.to_string();
        if e.sign != 1 && e.sign != -1 {
            return Err(Error::invalid(format!(
                "ValenceEvent.sign must be +1 or -1, got {}",
                e.sign
            )));
        }
        if !e.magnitude.is_finite() || !(1.0..=10.0).contains(&e.magnitude) {
            return Err(Error::invalid(format!(
                "ValenceEvent.magnitude must be within 1..10, got {}",
                e.magnitude
            )));
        }
        let scope = norm_scope(&e.scope);
        if scope.is_empty() {
            return Err(Error::invalid(format!(
                "ValenceEvent requires a non-empty scope, got {:?}",
                self.scope
            )));
        }
        e.scope = scope;
        e.owner_id = e.owner_id.trim().to_string();
        if e.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
            return Err(Error::invalid(format!(
                "ValenceEvent requires a non-empty reason (appraisals must be explainable), got {:?}",
                self.reason
            )));
        }
        e.value_refs = e
            .value_refs
            .iter()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
        match e.kind {
            ValenceKind::Healing if prov_text(&e.provenance, "heals").is_empty() => {
                return Err(Error::invalid(
                    "healing events must name the scar they resolve in provenance[\"heals\"], got none",
                ));
            }
            ValenceKind::Break if prov_text(&e.provenance, "breaks").is_empty() => {
                return Err(Error::invalid(
                    "break events must name the bond they dissolve in provenance[\"breaks\"], got none",
                ));
            }
            ValenceKind::Scar if e.sign != -1 => {
                return Err(Error::invalid(format!(
                    "scar events are negative by definition (sign must be -1), got {}",
                    e.sign
                )));
            }
            ValenceKind::Bond if e.sign != 1 => {
                return Err(Error::invalid(format!(
                    "bond events are positive by definition (sign must be +1), got {}",
                    e.sign
                )));
            }
            ValenceKind::Revalued => {
                let raw = e.provenance.get("factor");
                let factor = match raw {
                    Some(Value::Number(n)) => n.as_f64().unwrap_or(-1.0),
                    Some(Value::String(s)) => s.trim().parse::<f64>().unwrap_or(-1.0),
                    Some(Value::Bool(b)) => f64::from(u8::from(*b)),
                    _ => -1.0,
                };
                if !(0.0..=1.0).contains(&factor) {
                    return Err(Error::invalid(format!(
                        "revalued events require provenance[\"factor\"] in 0..1, got {raw:?}"
                    )));
                }
            }
            _ => {}
        }
        e.observed_at = canonical_observed_at(&e.observed_at)?;
        Ok(e)
    }
}
