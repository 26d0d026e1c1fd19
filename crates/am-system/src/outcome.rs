//! The result envelope every understanding-family verb returns (api.md
//! "Understanding: in-place rewrites and versions": "Every verb returns
//! `{applied, outcome, reason, record_id, assertion_id, field, version, ...}`"),
//! with its closed vocabularies [`Outcome`] and [`Reason`].
//!
//! A spec refusal is not an error: the verb answers `Ok` with
//! [`Outcome::Refused`] naming its [`Reason`], having written nothing. A
//! malformed call (an unknown cause, a field outside the spec's list) is an
//! `Err` of kind `InvalidInput`. The verbs (`rewrite_digest`, `retitle`,
//! `declare_pending`, `rearm_pending`, `narrate_dream`, `revert_digest`)
//! return this type.
//!
//! [`Warned`] carries the warnings a verb raised with its result, so a caller
//! never drains another thread's warnings from shared state.

use am_triples::JsonMap;
use serde::{Deserialize, Serialize};

/// Why an understanding verb refused, or left a record unchanged (the spec's
/// refusal table and the `unchanged` reasons of `declare_pending` /
/// `rearm_pending`). Wire names are the spec's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// No formed record with that id.
    UnknownRecord,
    /// The entity's own acts (`UNDERSTANDING_PROTECTED_KINDS`).
    ProtectedKind,
    /// A dream's written summary stays; a narration goes beside it.
    UseNarrateDream,
    /// A card is authored through `author_world_model`.
    UseAuthorWorldModel,
    /// `keywords=` on a pending card.
    CardKeywords,
    /// `narrate_dream` on another kind.
    NotADream,
    /// The record is retracted or superseded (`replaced_by` names its replacement).
    Closed,
    /// A ripple's re-understanding record, unless the cause is `operator`.
    ConsolidationRecord,
    /// Blank text.
    EmptyText,
    /// `retitle` with an empty or whitespace title.
    EmptyTitle,
    /// `retitle` of an owner-direct diary entry whose `entry_hash` attests its title.
    HashChained,
    /// `expected_version` is not the record's current version.
    Stale,
    /// The store's embedder failed, or the record is vectored and the store has none.
    EmbedderUnavailable,
    /// `revert_digest` to a version the record never had.
    UnknownVersion,
    /// `revert_digest(..., field="target")`: a card's key moves through `rekey_world_model`.
    UseRekeyWorldModel,
    /// `revert_digest` to a provisional digest.
    ProvisionalSummary,
    /// `revert_digest(..., field="title")` to a version that held no title.
    NullTitle,
    /// `revert_digest` of a pending declaration or re-arm.
    NotRevertible,
    /// A verb that needs the task queue on a home opened without it.
    NoTaskQueue,
    /// `declare_pending`: every asked field is already pending with its live task.
    AlreadyPending,
    /// `rearm_pending`: the record has no pending marker.
    NotPending,
    /// `rearm_pending`: every pending field has a live task.
    LiveTask,
    /// `rekey_world_model`: no standing card is keyed `old_key`.
    UnknownCard,
    /// `rekey_world_model`: `new_key` already has a different standing card.
    TargetTaken,
    /// `rekey_world_model`: `new_key` is an alias of another card.
    AliasBoundElsewhere,
    /// `declare_pending`'s `card_rekey`: other active interests still elect
    /// the card's key, so the card stays.
    SharedCard,
}

/// What an understanding verb did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// A new version was written (`applied: true`).
    Applied,
    /// A pending record's exhausted authoring was queued again (`rearm_pending`;
    /// it writes, so `applied: true`).
    Rearmed,
    /// Nothing written, safe to retry; the reason when the spec names one
    /// (`already_pending`, `not_pending`, `live_task`), none for byte-identical text.
    Unchanged(Option<Reason>),
    /// Nothing written: the spec's refusal with its reason.
    Refused(Reason),
}

impl Outcome {
    /// Whether the verb wrote (`applied` in the wire form).
    pub fn applied(self) -> bool {
        matches!(self, Outcome::Applied | Outcome::Rearmed)
    }

    /// The reason, when there is one.
    pub fn reason(self) -> Option<Reason> {
        match self {
            Outcome::Unchanged(r) => r,
            Outcome::Refused(r) => Some(r),
            Outcome::Applied | Outcome::Rearmed => None,
        }
    }
}

/// The wire names of [`Outcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum OutcomeName {
    Applied,
    Rearmed,
    Unchanged,
    Refused,
}

/// The shared result of the understanding verbs: `{applied, outcome, reason,
/// record_id, assertion_id, field, version, ...}`. The keys an `applied`
/// outcome adds are typed fields (absent when `None`); what only one verb
/// adds (`pending_cleared`, `card_rekey`, `declared`, `tasks`, ...) rides in
/// `extra`, serialized after them.
///
/// # Examples
/// ```
/// use am_system::outcome::{Outcome, Reason, UnderstandingResult};
/// let r = UnderstandingResult::new(Outcome::Refused(Reason::Stale), "ex:lesson-1", "digest");
/// let v = serde_json::to_value(&r).unwrap();
/// assert_eq!((v["applied"].as_bool(), v["outcome"].as_str(), v["reason"].as_str()),
///            (Some(false), Some("refused"), Some("stale")));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(into = "Wire", try_from = "Wire")]
pub struct UnderstandingResult {
    /// What the verb did (with its reason).
    pub outcome: Outcome,
    /// The record as the caller named it.
    pub record_id: String,
    /// The record's digest assertion id (`None` for an unknown record).
    pub assertion_id: Option<String>,
    /// The versioned field (`digest`, `card`, `narration`, `title`, `target`, `pending`).
    pub field: String,
    /// The record's version of `field` after the call.
    pub version: Option<i64>,
    /// `applied`: the version it replaced.
    pub previous_version: Option<i64>,
    /// `applied`: the new version row's deterministic id.
    pub version_id: Option<String>,
    /// `applied`: the new version row's journal seq.
    pub seq: Option<i64>,
    /// `applied`: whether version 0 (the original) was captured by this call.
    pub captured_original: Option<bool>,
    /// `applied`: whether the record's vector was rewritten.
    pub vector_rewritten: Option<bool>,
    /// `closed`: the replacement of a retracted or superseded record.
    pub replaced_by: Option<String>,
    /// A refusal's detail (the rule that refused).
    pub detail: Option<String>,
    /// The keys only one verb adds, after the shared ones.
    pub extra: JsonMap,
}

impl UnderstandingResult {
    /// An envelope with `outcome` for `record_id`'s `field`, every optional key absent.
    pub fn new(outcome: Outcome, record_id: &str, field: &str) -> Self {
        UnderstandingResult {
            outcome,
            record_id: record_id.to_owned(),
            assertion_id: None,
            field: field.to_owned(),
            version: None,
            previous_version: None,
            version_id: None,
            seq: None,
            captured_original: None,
            vector_rewritten: None,
            replaced_by: None,
            detail: None,
            extra: JsonMap::new(),
        }
    }
}

/// The envelope as it travels: `applied`, `outcome` and `reason` spelled out
/// (every key the typed fields do not name lands in `extra`).
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct Wire {
    applied: bool,
    outcome: OutcomeName,
    reason: Option<Reason>,
    record_id: String,
    assertion_id: Option<String>,
    field: String,
    version: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_version: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seq: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    captured_original: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vector_rewritten: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replaced_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    #[serde(flatten)]
    extra: JsonMap,
}

impl From<UnderstandingResult> for Wire {
    fn from(r: UnderstandingResult) -> Wire {
        let outcome = match r.outcome {
            Outcome::Applied => OutcomeName::Applied,
            Outcome::Rearmed => OutcomeName::Rearmed,
            Outcome::Unchanged(_) => OutcomeName::Unchanged,
            Outcome::Refused(_) => OutcomeName::Refused,
        };
        Wire {
            applied: r.outcome.applied(),
            outcome,
            reason: r.outcome.reason(),
            record_id: r.record_id,
            assertion_id: r.assertion_id,
            field: r.field,
            version: r.version,
            previous_version: r.previous_version,
            version_id: r.version_id,
            seq: r.seq,
            captured_original: r.captured_original,
            vector_rewritten: r.vector_rewritten,
            replaced_by: r.replaced_by,
            detail: r.detail,
            extra: r.extra,
        }
    }
}

impl TryFrom<Wire> for UnderstandingResult {
    type Error = String;

    fn try_from(w: Wire) -> Result<Self, String> {
        let outcome = match (w.outcome, w.reason) {
            (OutcomeName::Applied, None) => Outcome::Applied,
            (OutcomeName::Rearmed, None) => Outcome::Rearmed,
            (OutcomeName::Unchanged, r) => Outcome::Unchanged(r),
            (OutcomeName::Refused, Some(r)) => Outcome::Refused(r),
            (OutcomeName::Refused, None) => {
                return Err("outcome \"refused\" needs a reason, got null".to_owned());
            }
            (o, Some(r)) => {
                return Err(format!(
                    "outcome {o:?} carries no reason, got {r:?} (only unchanged and refused do)"
                ));
            }
        };
        if outcome.applied() != w.applied {
            return Err(format!(
                "applied must be {} for outcome {:?}, got {}",
                outcome.applied(),
                w.outcome,
                w.applied
            ));
        }
        Ok(UnderstandingResult {
            outcome,
            record_id: w.record_id,
            assertion_id: w.assertion_id,
            field: w.field,
            version: w.version,
            previous_version: w.previous_version,
            version_id: w.version_id,
            seq: w.seq,
            captured_original: w.captured_original,
            vector_rewritten: w.vector_rewritten,
            replaced_by: w.replaced_by,
            detail: w.detail,
            extra: w.extra,
        })
    }
}

/// A verb's result with the `#FALLBACK` (and other) warnings it raised:
/// they travel with the result that caused them instead of being drained
/// from shared state (`MemorySystem::take_warnings` keeps only what no verb
/// owns, such as what opening a home raised). Derefs to the value.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Warned<T> {
    /// The result.
    pub value: T,
    /// What degraded or was noted while producing it, in order.
    pub warnings: Vec<String>,
}

impl<T> Warned<T> {
    /// A result with its warnings.
    pub fn new(value: T, warnings: Vec<String>) -> Self {
        Warned { value, warnings }
    }

    /// The result, dropping the warnings.
    pub fn into_value(self) -> T {
        self.value
    }
}

impl<T> std::ops::Deref for Warned<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(r: &UnderstandingResult) -> String {
        serde_json::to_string(r).unwrap()
    }

    #[test]
    fn an_applied_result_has_the_shared_keys_first_then_what_applied_adds() {
        let mut r = UnderstandingResult::new(Outcome::Applied, "ex:lesson-1", "digest");
        r.assertion_id = Some("a1".into());
        r.version = Some(2);
        r.previous_version = Some(1);
        r.version_id = Some("v".into());
        r.seq = Some(9);
        r.captured_original = Some(false);
        r.vector_rewritten = Some(true);
        r.extra.insert("title_version".into(), json!(1));
        assert_eq!(
            text(&r),
            r#"{"applied":true,"outcome":"applied","reason":null,"record_id":"ex:lesson-1","assertion_id":"a1","field":"digest","version":2,"previous_version":1,"version_id":"v","seq":9,"captured_original":false,"vector_rewritten":true,"title_version":1}"#
        );
        let back: UnderstandingResult = serde_json::from_str(&text(&r)).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn a_refusal_is_applied_false_with_its_reason_and_no_applied_keys() {
        let mut r = UnderstandingResult::new(Outcome::Refused(Reason::Closed), "ex:m-1", "digest");
        r.assertion_id = Some("a1".into());
        r.version = Some(0);
        r.replaced_by = Some("ex:m-2".into());
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"applied": false, "outcome": "refused", "reason": "closed", "record_id": "ex:m-1",
                   "assertion_id": "a1", "field": "digest", "version": 0, "replaced_by": "ex:m-2"})
        );
        let unknown =
            UnderstandingResult::new(Outcome::Refused(Reason::UnknownRecord), "ex:nope", "title");
        assert_eq!(
            text(&unknown),
            r#"{"applied":false,"outcome":"refused","reason":"unknown_record","record_id":"ex:nope","assertion_id":null,"field":"title","version":null}"#
        );
    }

    #[test]
    fn unchanged_and_rearmed_carry_their_reason_and_applied_flag() {
        let same = UnderstandingResult::new(Outcome::Unchanged(None), "r", "title");
        let v = serde_json::to_value(&same).unwrap();
        assert_eq!(
            (
                v["applied"].clone(),
                v["outcome"].clone(),
                v["reason"].clone()
            ),
            (json!(false), json!("unchanged"), json!(null))
        );
        let pending = UnderstandingResult::new(
            Outcome::Unchanged(Some(Reason::AlreadyPending)),
            "r",
            "pending",
        );
        assert_eq!(
            serde_json::to_value(&pending).unwrap()["reason"],
            "already_pending"
        );
        let rearmed = UnderstandingResult::new(Outcome::Rearmed, "r", "pending");
        let v = serde_json::to_value(&rearmed).unwrap();
        assert_eq!(
            (v["applied"].clone(), v["outcome"].clone()),
            (json!(true), json!("rearmed"))
        );
    }

    #[test]
    fn every_reason_has_the_spec_wire_name() {
        let names = [
            (Reason::UnknownRecord, "unknown_record"),
            (Reason::ProtectedKind, "protected_kind"),
            (Reason::UseNarrateDream, "use_narrate_dream"),
            (Reason::UseAuthorWorldModel, "use_author_world_model"),
            (Reason::CardKeywords, "card_keywords"),
            (Reason::NotADream, "not_a_dream"),
            (Reason::Closed, "closed"),
            (Reason::ConsolidationRecord, "consolidation_record"),
            (Reason::EmptyText, "empty_text"),
            (Reason::EmptyTitle, "empty_title"),
            (Reason::HashChained, "hash_chained"),
            (Reason::Stale, "stale"),
            (Reason::EmbedderUnavailable, "embedder_unavailable"),
            (Reason::UnknownVersion, "unknown_version"),
            (Reason::UseRekeyWorldModel, "use_rekey_world_model"),
            (Reason::ProvisionalSummary, "provisional_summary"),
            (Reason::NullTitle, "null_title"),
            (Reason::NotRevertible, "not_revertible"),
            (Reason::NoTaskQueue, "no_task_queue"),
            (Reason::AlreadyPending, "already_pending"),
            (Reason::NotPending, "not_pending"),
            (Reason::LiveTask, "live_task"),
            (Reason::UnknownCard, "unknown_card"),
            (Reason::TargetTaken, "target_taken"),
            (Reason::AliasBoundElsewhere, "alias_bound_elsewhere"),
            (Reason::SharedCard, "shared_card"),
        ];
        for (reason, name) in names {
            assert_eq!(serde_json::to_value(reason).unwrap(), json!(name));
            assert_eq!(
                serde_json::from_value::<Reason>(json!(name)).unwrap(),
                reason
            );
        }
    }

    #[test]
    fn an_inconsistent_envelope_is_refused_when_read() {
        let base = json!({"applied": false, "outcome": "refused", "reason": null, "record_id": "r",
                          "assertion_id": null, "field": "digest", "version": null});
        assert!(serde_json::from_value::<UnderstandingResult>(base).is_err());
        let lying = json!({"applied": false, "outcome": "applied", "reason": null, "record_id": "r",
                           "assertion_id": null, "field": "digest", "version": 1});
        assert!(serde_json::from_value::<UnderstandingResult>(lying).is_err());
        let reasoned = json!({"applied": true, "outcome": "applied", "reason": "stale", "record_id": "r",
                              "assertion_id": null, "field": "digest", "version": 1});
        assert!(serde_json::from_value::<UnderstandingResult>(reasoned).is_err());
    }
}
