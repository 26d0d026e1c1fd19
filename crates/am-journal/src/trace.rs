//! `ReconstructionTrace` (one recall) and `ActiveMemorySnapshot` (what entered a context).
//!
//! Spec: api.md "The journal" (`ReconstructionTrace`) and "Seam types"
//! (`ActiveMemorySnapshot`); oracle `journal.py`, `seam.py`.

use crate::common::canonical_observed_at;
use crate::error::Result;
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One `reconstruct()` / `probe()` call, as journaled.
///
/// JSON shape: `trace_id`, `trace_kind`, `query_fingerprint`, `need`,
/// `searched_scopes`, `escalation_reason`, `channels`, `candidates`, `selected`,
/// `dropped`, `cues`, `budgets`, `budget_spent`, `selector_route`, `stop_reason`,
/// `warnings`, `admissions`, `observed_at`, `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ReconstructionTrace {
    /// Caller-supplied idempotency key, or journal-assigned (uuid4).
    pub trace_id: String,
    /// `reconstruct` | `probe`.
    pub trace_kind: String,
    /// The query fingerprint (algorithms.md §9).
    pub query_fingerprint: String,
    /// The stimulus as read.
    pub need: JsonMap,
    /// The explicit `{scope, owner_id}` pairs searched.
    pub searched_scopes: Vec<JsonMap>,
    /// Why a broad scope was searched.
    pub escalation_reason: Option<String>,
    /// The channels that ran.
    pub channels: Vec<String>,
    /// Bounded `{record_id, scores}` rows.
    pub candidates: Vec<JsonMap>,
    /// Selected record ids.
    pub selected: Vec<String>,
    /// `{record_id, score, reason}` rows.
    pub dropped: Vec<JsonMap>,
    /// Human-readable cues.
    pub cues: Vec<String>,
    /// Budgets asked.
    pub budgets: JsonMap,
    /// Budgets spent.
    pub budget_spent: JsonMap,
    /// Selector route (`heuristic`).
    pub selector_route: String,
    /// Why the read stopped (`enough`).
    pub stop_reason: String,
    /// `#FALLBACK` warnings of the read.
    pub warnings: Vec<String>,
    /// record_id → admission label (`self` | `stm` | `stimulus` | `both`).
    pub admissions: JsonMap,
    /// When (canonical UTC text; blank = now at append).
    pub observed_at: String,
    /// Journal-assigned position on the seq axis (`-1` before append).
    pub seq: i64,
}

impl Default for ReconstructionTrace {
    fn default() -> Self {
        ReconstructionTrace {
            trace_id: String::new(),
            trace_kind: "reconstruct".into(),
            query_fingerprint: String::new(),
            need: JsonMap::new(),
            searched_scopes: Vec::new(),
            escalation_reason: None,
            channels: Vec::new(),
            candidates: Vec::new(),
            selected: Vec::new(),
            dropped: Vec::new(),
            cues: Vec::new(),
            budgets: JsonMap::new(),
            budget_spent: JsonMap::new(),
            selector_route: "heuristic".into(),
            stop_reason: "enough".into(),
            warnings: Vec::new(),
            admissions: JsonMap::new(),
            observed_at: String::new(),
            seq: -1,
        }
    }
}

impl ReconstructionTrace {
    /// A trace with `trace_id` (blank = journal-assigned) and `query_fingerprint`.
    pub fn new(trace_id: &str, query_fingerprint: &str) -> Self {
        ReconstructionTrace {
            trace_id: trace_id.into(),
            query_fingerprint: query_fingerprint.into(),
            ..ReconstructionTrace::default()
        }
    }

    /// Normalise: admission labels become strings (as the oracle's `str(v)`), the
    /// `observed_at` canonical.
    ///
    /// # Errors
    /// `InvalidInput` when `observed_at` is not a timestamp.
    pub fn normalized(&self) -> Result<Self> {
        let mut t = self.clone();
        t.trace_id = t.trace_id.trim().to_string();
        for v in t.admissions.values_mut() {
            if !v.is_string() {
                let text = match &*v {
                    Value::Null => "None".to_string(),
                    other => other.to_string(),
                };
                *v = Value::String(text);
            }
        }
        t.observed_at = canonical_observed_at(&t.observed_at)?;
        Ok(t)
    }
}

/// What actually entered a context: references and display metadata, never payload copies.
///
/// JSON shape (the seam's field order): `snapshot_id`, `seq`, `trace_id`,
/// `used_record_ids`, `display` (`{record_id, title, digest, token_estimate}` rows),
/// `prompt_token_estimate`, `observed_at`, `provenance` (including per-id admission labels).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ActiveMemorySnapshot {
    /// Caller-supplied idempotency key, or journal-assigned (uuid4).
    pub snapshot_id: String,
    /// Journal-assigned position on the seq axis (`-1` before append).
    pub seq: i64,
    /// The trace whose selection this records.
    pub trace_id: String,
    /// The ids that entered the context.
    pub used_record_ids: Vec<String>,
    /// Display rows.
    pub display: Vec<JsonMap>,
    /// Prompt tokens the host estimated.
    pub prompt_token_estimate: Option<i64>,
    /// When (canonical UTC text; blank = now at append).
    pub observed_at: String,
    /// Free JSON provenance.
    pub provenance: JsonMap,
}

impl Default for ActiveMemorySnapshot {
    fn default() -> Self {
        ActiveMemorySnapshot {
            snapshot_id: String::new(),
            seq: -1,
            trace_id: String::new(),
            used_record_ids: Vec::new(),
            display: Vec::new(),
            prompt_token_estimate: None,
            observed_at: String::new(),
            provenance: JsonMap::new(),
        }
    }
}

impl ActiveMemorySnapshot {
    /// A snapshot of `used_record_ids` for `trace_id`.
    pub fn new(snapshot_id: &str, trace_id: &str, used_record_ids: &[&str]) -> Self {
        ActiveMemorySnapshot {
            snapshot_id: snapshot_id.into(),
            trace_id: trace_id.into(),
            used_record_ids: used_record_ids.iter().map(|s| s.to_string()).collect(),
            ..ActiveMemorySnapshot::default()
        }
    }

    /// Normalise: `observed_at` canonical.
    ///
    /// # Errors
    /// `InvalidInput` when `observed_at` is not a timestamp.
    pub fn normalized(&self) -> Result<Self> {
        let mut s = self.clone();
        s.snapshot_id = s.snapshot_id.trim().to_string();
        s.observed_at = canonical_observed_at(&s.observed_at)?;
        Ok(s)
    }
}
