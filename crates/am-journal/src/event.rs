//! `MemoryEvent`: one append-only attention event, its kind vocabularies and the
//! write-time weight normalisation.
//!
//! Spec: api.md "The journal" (`MemoryEvent`); algorithms.md §5 "Event weight
//! normalisation"; oracle `journal.py` `MemoryEvent.__post_init__`.

use crate::common::{canonical_observed_at, norm_scope};
use crate::error::{Error, Result};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};

am_triples::vocabulary! {
    /// A [`MemoryEvent`]'s kind: the attention kinds that feed activation
    /// ([`ATTENTION_KINDS`]), the decay marker ([`DECAY_MARKER_KINDS`]) and
    /// the audit-only kinds ([`AUDIT_KINDS`]); the names sorted, as the
    /// journal's refusals list them.
    pub enum EventKind("memory event kind") {
        /// Audit: the record was cited.
        Cited = "cited",
        /// Attention: a pair was used together (carries `pair_ids`, no record).
        CoSelected = "co_selected",
        /// Audit: the record was expanded.
        Expanded = "expanded",
        /// Audit: the record was listed.
        Listed = "listed",
        /// Attention: a deliberate pin (a reason required).
        Pinned = "pinned",
        /// Audit: formation placed the record in a community.
        Placed = "placed",
        /// The decay marker of a scope stream (a reason required, no record).
        Refocus = "refocus",
        /// Attention: the record was used (`commit_selection`).
        Selected = "selected",
        /// Audit: the record was shown.
        Shown = "shown",
        /// Attention: a deliberate silence (a reason required).
        Silenced = "silenced",
    }
}

impl EventKind {
    /// Whether this kind feeds activation (it is in [`ATTENTION_KINDS`]).
    pub fn feeds_attention(self) -> bool {
        matches!(
            self,
            EventKind::Selected | EventKind::CoSelected | EventKind::Pinned | EventKind::Silenced
        )
    }

    /// Whether this kind is the decay marker (`refocus`, [`DECAY_MARKER_KINDS`]).
    pub fn is_decay_marker(self) -> bool {
        self == EventKind::Refocus
    }

    /// Whether this kind is audit-only, recorded and never scored ([`AUDIT_KINDS`]).
    pub fn is_audit(self) -> bool {
        !self.feeds_attention() && !self.is_decay_marker()
    }

    /// Whether an event of this kind needs a non-empty reason (`pinned`,
    /// `silenced`, `refocus`: the deliberate acts).
    pub fn requires_reason(self) -> bool {
        matches!(
            self,
            EventKind::Pinned | EventKind::Silenced | EventKind::Refocus
        )
    }

    /// The write-time default weight of a weighted kind (`journal.DEFAULT_WEIGHTS`):
    /// selected 8, co_selected 4, pinned 8, silenced 8; `None` for the other kinds.
    pub fn default_weight(self) -> Option<f64> {
        match self {
            EventKind::Selected | EventKind::Pinned | EventKind::Silenced => Some(8.0),
            EventKind::CoSelected => Some(4.0),
            _ => None,
        }
    }
}

/// Kinds that feed activation: `selected`, `co_selected`, `pinned`, `silenced`.
pub const ATTENTION_KINDS: [&str; 4] = ["selected", "co_selected", "pinned", "silenced"];
/// The decay marker: `refocus` (contributes no weight itself).
pub const DECAY_MARKER_KINDS: [&str; 1] = ["refocus"];
/// Audit-only kinds, recorded and never scored: `listed`, `shown`, `expanded`, `cited`, `placed`.
pub const AUDIT_KINDS: [&str; 5] = ["listed", "shown", "expanded", "cited", "placed"];

/// Every event kind a journal accepts, sorted ([`EventKind::NAMES`]).
pub fn all_event_kinds() -> Vec<&'static str> {
    EventKind::NAMES.to_vec()
}

/// Whether `kind` (already lowercased) is a known event kind.
pub fn is_event_kind(kind: &str) -> bool {
    EventKind::parse(kind).is_ok()
}

/// One append-only access/attention event.
///
/// JSON shape (field order is the oracle's `to_dict`): `kind`, `scope`, `owner_id`,
/// `record_id`, `pair_ids` (`[a, b]`, sorted), `weight`, `ttl_activity`, `matched`,
/// `query_fingerprint`, `trace_id`, `observed_at`, `actor`, `reason`, `provenance`,
/// `event_id`, `seq`. `event_id` and `seq` are journal-assigned when blank / `-1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct MemoryEvent {
    /// The kind: attention, the decay marker or audit-only.
    pub kind: EventKind,
    /// The scope stream (lowercased; required).
    pub scope: String,
    /// The owner within the scope (trimmed; may be empty).
    pub owner_id: String,
    /// The record; `None` for `refocus` and `co_selected`.
    pub record_id: Option<String>,
    /// The canonical sorted pair of a `co_selected` trail.
    pub pair_ids: Option<(String, String)>,
    /// Weight stored at write time (normalised, see [`MemoryEvent::normalized`]).
    pub weight: f64,
    /// Pins/silences: expiry by burst-rank distance (positive).
    pub ttl_activity: Option<i64>,
    /// Whether the record matched a channel.
    pub matched: bool,
    /// The fingerprint of the query that produced the event.
    pub query_fingerprint: Option<String>,
    /// The trace the event belongs to.
    pub trace_id: Option<String>,
    /// When (canonical UTC text; blank = now at append).
    pub observed_at: String,
    /// `runtime` | `operator` | `system`.
    pub actor: String,
    /// Required for `pinned`, `silenced`, `refocus`.
    pub reason: Option<String>,
    /// Free JSON provenance.
    pub provenance: JsonMap,
    /// Caller-supplied idempotency key, or journal-assigned (uuid4).
    pub event_id: String,
    /// Journal-assigned position on the seq axis (`-1` before append).
    pub seq: i64,
}

/// The default event is a `listed` one (audit-only, never scored, so a
/// default can never feed activation by accident); name the kind.
impl Default for MemoryEvent {
    fn default() -> Self {
        MemoryEvent {
            kind: EventKind::Listed,
            scope: String::new(),
            owner_id: String::new(),
            record_id: None,
            pair_ids: None,
            weight: 0.0,
            ttl_activity: None,
            matched: false,
            query_fingerprint: None,
            trace_id: None,
            observed_at: String::new(),
            actor: "system".into(),
            reason: None,
            provenance: JsonMap::new(),
            event_id: String::new(),
            seq: -1,
        }
    }
}

impl MemoryEvent {
    /// An event of `kind` on `record_id` in `(scope, owner_id)`.
    pub fn on_record(kind: EventKind, record_id: &str, scope: &str, owner_id: &str) -> Self {
        MemoryEvent {
            kind,
            record_id: Some(record_id.into()),
            scope: scope.into(),
            owner_id: owner_id.into(),
            ..MemoryEvent::default()
        }
    }

    /// A `co_selected` pair trail between `a` and `b`.
    pub fn co_selected(a: &str, b: &str, scope: &str, owner_id: &str) -> Self {
        MemoryEvent {
            kind: EventKind::CoSelected,
            pair_ids: Some((a.into(), b.into())),
            scope: scope.into(),
            owner_id: owner_id.into(),
            ..MemoryEvent::default()
        }
    }

    /// A `refocus` decay marker for a scope stream.
    pub fn refocus(reason: &str, scope: &str, owner_id: &str) -> Self {
        MemoryEvent {
            kind: EventKind::Refocus,
            reason: Some(reason.into()),
            scope: scope.into(),
            owner_id: owner_id.into(),
            ..MemoryEvent::default()
        }
    }

    /// The same event with a caller-supplied id (an idempotency key).
    #[must_use]
    pub fn with_event_id(mut self, id: &str) -> Self {
        self.event_id = id.into();
        self
    }

    /// The same event with `reason`.
    #[must_use]
    pub fn with_reason(mut self, reason: &str) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// The same event with `weight` (normalised at append).
    #[must_use]
    pub fn with_weight(mut self, weight: f64) -> Self {
        self.weight = weight;
        self
    }

    /// The same event tagged with `trace_id`.
    #[must_use]
    pub fn with_trace(mut self, trace_id: &str) -> Self {
        self.trace_id = Some(trace_id.into());
        self
    }

    /// The same event observed at `ts` (any timestamp form; canonicalised at append).
    #[must_use]
    pub fn with_observed_at(mut self, ts: &str) -> Self {
        self.observed_at = ts.into();
        self
    }

    /// Whether this event feeds activation (its kind is in [`ATTENTION_KINDS`]).
    pub fn feeds_attention(&self) -> bool {
        self.kind.feeds_attention()
    }

    /// Validate and normalise, as the oracle's `__post_init__` does (the kind
    /// is known by its type); a reason for `pinned`/`silenced`/`refocus`; `refocus` carries no
    /// record; `co_selected` carries two distinct ids, sorted, and no record; other
    /// kinds carry a record; scope required and lowercased; weights finite, pinned
    /// and silenced clamped to 1..=25 (0 → default 8), other weighted kinds 0 →
    /// default; `ttl_activity` positive; `observed_at` canonical UTC.
    ///
    /// # Errors
    /// `InvalidInput` naming the rule and the value that broke it.
    pub fn normalized(&self) -> Result<Self> {
        let mut e = self.clone();
        let kind = e.kind;
        if kind.requires_reason() && e.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
            return Err(Error::invalid(format!(
                "memory event kind {:?} requires a non-empty reason, got {}",
                kind.as_str(),
                am_triples::text::shown(&e.reason)
            )));
        }
        match kind {
            EventKind::Refocus => {
                if e.record_id.is_some() {
                    return Err(Error::invalid(format!(
                        "refocus events carry no record_id (scope-level marker), got {}",
                        am_triples::text::shown(&e.record_id)
                    )));
                }
            }
            EventKind::CoSelected => {
                let Some((a, b)) = e.pair_ids.as_ref() else {
                    return Err(Error::invalid(
                        "co_selected events require pair_ids=(id_a, id_b), got none",
                    ));
                };
                let (a, b) = (a.trim().to_string(), b.trim().to_string());
                if a.is_empty() || b.is_empty() {
                    return Err(Error::invalid(format!(
                        "co_selected events require two non-empty ids, got ({a:?}, {b:?})"
                    )));
                }
                if a == b {
                    return Err(Error::invalid(format!(
                        "co_selected pair must reference two distinct records, got ({a:?}, {b:?})"
                    )));
                }
                e.pair_ids = Some(if a <= b { (a, b) } else { (b, a) });
                e.record_id = None;
            }
            _ => {
                let rid = e.record_id.as_deref().map(str::trim).unwrap_or("");
                if rid.is_empty() {
                    return Err(Error::invalid(format!(
                        "memory event kind {:?} requires a record_id, got {}",
                        kind.as_str(),
                        am_triples::text::shown(&e.record_id)
                    )));
                }
                e.record_id = Some(rid.to_string());
            }
        }
        let scope = norm_scope(&e.scope);
        if scope.is_empty() {
            return Err(Error::invalid(format!(
                "memory events require a scope, got {:?}",
                e.scope
            )));
        }
        e.scope = scope;
        e.owner_id = e.owner_id.trim().to_string();
        if !e.weight.is_finite() {
            return Err(Error::invalid(format!(
                "memory event weight must be finite, got {}",
                e.weight
            )));
        }
        if matches!(kind, EventKind::Pinned | EventKind::Silenced) {
            let w = if e.weight == 0.0 { 8.0 } else { e.weight.abs() };
            e.weight = w.clamp(1.0, 25.0);
        } else if let Some(d) = kind.default_weight()
            && e.weight == 0.0
        {
            e.weight = d;
        }
        if let Some(ttl) = e.ttl_activity
            && ttl <= 0
        {
            return Err(Error::invalid(format!(
                "ttl_activity must be a positive activity distance, got {ttl} (omit it for a non-expiring act)"
            )));
        }
        e.observed_at = canonical_observed_at(&e.observed_at)?;
        Ok(e)
    }
}
