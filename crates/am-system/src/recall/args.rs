//! The arguments of recall's verbs: `reconstruct`, `commit_selection`, the
//! deliberate acts (`reinforce`, `attenuate`, `refocus`), `activation`, and
//! the bindings and closures (`bind`, `close_assertions`, `close_record`).
//!
//! Spec: api.md "Reconstruction", "Committing use, deliberate acts,
//! inspection", "Bindings and closures".

use crate::config::RecallBudget;
use crate::seam::{Stimulus, View};
use am_journal::{BindingSource, ClosureKind, Lifecycle, PromptState, SearchState};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};

fn yes() -> bool {
    true
}

fn default_weight() -> f64 {
    8.0
}

fn operator() -> String {
    "operator".to_owned()
}

fn retract() -> ClosureKind {
    ClosureKind::Retract
}

fn owned_pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}

fn owned<S: AsRef<str>>(ids: &[S]) -> Vec<String> {
    ids.iter().map(|s| s.as_ref().to_owned()).collect()
}

/// The arguments of [`crate::MemorySystem::reconstruct`]:
/// `reconstruct(stimulus, scopes=[...], budget=RecallBudget(), view="shelf",
/// escalation_reason=None, journal=True, trace_id=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reconstruct {
    /// The cue.
    pub stimulus: Stimulus,
    /// `(scope, owner_id)` pairs, narrow → broad (an empty owner matches any);
    /// JSON `[[scope, owner_id], ...]`. An empty ladder is refused by the verb.
    #[serde(default)]
    pub scopes: Vec<(String, String)>,
    /// The hard bounds of the read.
    #[serde(default)]
    pub budget: RecallBudget,
    /// `shelf` (default) or `working_set`.
    #[serde(default)]
    pub view: View,
    /// Why a broad scope is searched (required when one is).
    #[serde(default)]
    pub escalation_reason: Option<String>,
    /// Append the trace and the `listed` events (default true).
    #[serde(default = "yes")]
    pub journal: bool,
    /// A supplied trace identity makes a journaled read replay-safe.
    #[serde(default)]
    pub trace_id: Option<String>,
    /// This port's extension (the spec's `reconstruct` has no such keyword):
    /// the retrieval profile of this call, `spec` or `hybrid`; absent, the
    /// system's configured profile (`ReconstructConfig.hybrid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::config::RecallProfile>,
}

impl Reconstruct {
    /// A journaled shelf read of `stimulus` over `scopes` with the default budget.
    pub fn new(stimulus: Stimulus, scopes: &[(&str, &str)]) -> Self {
        Reconstruct {
            stimulus,
            scopes: owned_pairs(scopes),
            budget: RecallBudget::default(),
            view: View::Shelf,
            escalation_reason: None,
            journal: true,
            trace_id: None,
            profile: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::commit_selection`]:
/// `commit_selection(trace_id, used_record_ids, *, prompt_token_estimate=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitSelection {
    /// The trace of the recall whose handles were used.
    pub trace_id: String,
    /// The records that actually entered the context (either id namespace).
    pub used_record_ids: Vec<String>,
    /// The host's token estimate of the prompt (stored on the snapshot).
    #[serde(default)]
    pub prompt_token_estimate: Option<i64>,
}

impl CommitSelection {
    /// Commit `used_record_ids` of `trace_id`.
    pub fn new<S: AsRef<str>>(trace_id: &str, used_record_ids: &[S]) -> Self {
        CommitSelection {
            trace_id: trace_id.to_owned(),
            used_record_ids: owned(used_record_ids),
            prompt_token_estimate: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::reinforce`] (and, the same
/// signature, [`crate::MemorySystem::attenuate`]): `reinforce(record_id, *,
/// reason, weight=8, ttl_activity=None, scope, owner_id, event_id=None,
/// actor="operator", provenance=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reinforce {
    /// The record (either id namespace).
    pub record_id: String,
    /// Why (mandatory, non-empty).
    pub reason: String,
    /// The stream's scope.
    pub scope: String,
    /// The stream's owner.
    pub owner_id: String,
    /// Strength; clamped to 1..=25 by the journal (default 8).
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Expiry by burst-rank distance (positive).
    #[serde(default)]
    pub ttl_activity: Option<i64>,
    /// An idempotency key: a replay returns the original event id.
    #[serde(default)]
    pub event_id: Option<String>,
    /// Who acted (default `operator`).
    #[serde(default = "operator")]
    pub actor: String,
    /// Free provenance.
    #[serde(default)]
    pub provenance: JsonMap,
}

/// The arguments of [`crate::MemorySystem::attenuate`]: the signature of
/// [`Reinforce`] (api.md: "`attenuate(...)` (same signature)").
pub type Attenuate = Reinforce;

impl Reinforce {
    /// An act on `record_id` for `reason` in `(scope, owner_id)`, the rest at
    /// the defaults.
    pub fn new(record_id: &str, reason: &str, scope: &str, owner_id: &str) -> Self {
        Reinforce {
            record_id: record_id.to_owned(),
            reason: reason.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            weight: default_weight(),
            ttl_activity: None,
            event_id: None,
            actor: operator(),
            provenance: JsonMap::new(),
        }
    }

    /// The same act with a weight.
    #[must_use]
    pub fn with_weight(mut self, weight: f64) -> Self {
        self.weight = weight;
        self
    }

    /// The same act with an idempotency key.
    #[must_use]
    pub fn with_event_id(mut self, event_id: &str) -> Self {
        self.event_id = Some(event_id.to_owned());
        self
    }

    /// The same act with an activity TTL.
    #[must_use]
    pub fn with_ttl(mut self, ttl_activity: i64) -> Self {
        self.ttl_activity = Some(ttl_activity);
        self
    }
}

/// The arguments of [`crate::MemorySystem::refocus`]: `refocus(*, reason,
/// scope, owner_id, event_id=None, actor="operator", provenance=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Refocus {
    /// Why (mandatory, non-empty).
    pub reason: String,
    /// The stream's scope.
    pub scope: String,
    /// The stream's owner.
    pub owner_id: String,
    /// An idempotency key: a replay returns the original event id.
    #[serde(default)]
    pub event_id: Option<String>,
    /// Who acted (default `operator`).
    #[serde(default = "operator")]
    pub actor: String,
    /// Free provenance.
    #[serde(default)]
    pub provenance: JsonMap,
}

impl Refocus {
    /// A topic shift for `reason` in `(scope, owner_id)`.
    pub fn new(reason: &str, scope: &str, owner_id: &str) -> Self {
        Refocus {
            reason: reason.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            event_id: None,
            actor: operator(),
            provenance: JsonMap::new(),
        }
    }

    /// The same act with an idempotency key.
    #[must_use]
    pub fn with_event_id(mut self, event_id: &str) -> Self {
        self.event_id = Some(event_id.to_owned());
        self
    }
}

/// The arguments of [`crate::MemorySystem::activation`]:
/// `activation(record_ids=None, *, scope, owner_id, at_seq=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Activation {
    /// The records to read (either namespace); `None` = every in-window record.
    #[serde(default)]
    pub record_ids: Option<Vec<String>>,
    /// The stream's scope.
    pub scope: String,
    /// The stream's owner.
    pub owner_id: String,
    /// The anchor (default: now).
    #[serde(default)]
    pub at_seq: Option<i64>,
}

impl Activation {
    /// Every in-window record of `(scope, owner_id)`, now.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        Activation {
            record_ids: None,
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            at_seq: None,
        }
    }

    /// The same read limited to `record_ids`.
    #[must_use]
    pub fn of<S: AsRef<str>>(mut self, record_ids: &[S]) -> Self {
        self.record_ids = Some(owned(record_ids));
        self
    }
}

/// The arguments of [`crate::MemorySystem::bind`]: `bind(record_id, *, scope,
/// owner_id, search_state, prompt_state="inactive", lifecycle="none",
/// source="operator", reason=None, binding_id=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bind {
    /// The record (either namespace; stored as passed).
    pub record_id: String,
    /// The scope pair's scope.
    pub scope: String,
    /// The scope pair's owner.
    pub owner_id: String,
    /// `indexed` | `hidden` (read trimmed and lowercased, as every state
    /// below).
    #[serde(deserialize_with = "am_triples::vocab::folded")]
    pub search_state: SearchState,
    /// `active` | `inactive` (default); `active` admits into the self component.
    #[serde(default, deserialize_with = "am_triples::vocab::folded")]
    pub prompt_state: PromptState,
    /// Lifecycle label (default, and when blank, `none`).
    #[serde(default, deserialize_with = "am_triples::vocab::folded_or_default")]
    pub lifecycle: Lifecycle,
    /// Who bound it (default, and when blank, `operator`).
    #[serde(default, deserialize_with = "am_triples::vocab::folded_or_default")]
    pub source: BindingSource,
    /// Why.
    #[serde(default)]
    pub reason: Option<String>,
    /// An idempotency key.
    #[serde(default)]
    pub binding_id: Option<String>,
}

impl Bind {
    /// Bind `record_id` with `search_state` in `(scope, owner_id)`, the rest at
    /// the defaults.
    pub fn new(record_id: &str, scope: &str, owner_id: &str, search_state: SearchState) -> Self {
        Bind {
            record_id: record_id.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            search_state,
            prompt_state: PromptState::default(),
            lifecycle: Lifecycle::default(),
            source: BindingSource::default(),
            reason: None,
            binding_id: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::close_assertions`]:
/// `close_assertions(assertion_ids, *, kind, replacement_ids=(), reason)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseAssertions {
    /// The assertions to close (either namespace).
    pub assertion_ids: Vec<String>,
    /// `retract` | `supersede` | `reinterpreted` | `merged` (read trimmed
    /// and lowercased).
    #[serde(deserialize_with = "am_triples::vocab::folded")]
    pub kind: ClosureKind,
    /// Why (mandatory).
    pub reason: String,
    /// The replacements (required for `supersede` and `merged`).
    #[serde(default)]
    pub replacement_ids: Vec<String>,
}

impl CloseAssertions {
    /// Close `assertion_ids` as `kind` for `reason`, no replacements. The
    /// order (what, kind, why) is [`CloseRecord::new`]'s with its kind.
    pub fn new<S: AsRef<str>>(assertion_ids: &[S], kind: ClosureKind, reason: &str) -> Self {
        CloseAssertions {
            assertion_ids: owned(assertion_ids),
            kind,
            reason: reason.to_owned(),
            replacement_ids: Vec::new(),
        }
    }

    /// The same closure with replacements.
    #[must_use]
    pub fn replaced_by<S: AsRef<str>>(mut self, replacement_ids: &[S]) -> Self {
        self.replacement_ids = owned(replacement_ids);
        self
    }
}

/// The arguments of [`crate::MemorySystem::close_record`]:
/// `close_record(record_id, *, reason, kind="retract", replacement_ids=())`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseRecord {
    /// The record (either namespace).
    pub record_id: String,
    /// `retract` (default) | `supersede` | `reinterpreted` | `merged` (read
    /// trimmed and lowercased).
    #[serde(default = "retract", deserialize_with = "am_triples::vocab::folded")]
    pub kind: ClosureKind,
    /// Why (mandatory).
    pub reason: String,
    /// The replacements (required for `supersede` and `merged`).
    #[serde(default)]
    pub replacement_ids: Vec<String>,
}

impl CloseRecord {
    /// Close `record_id` as `kind` for `reason`, no replacements (the order of
    /// [`CloseAssertions::new`]; the spec's default kind is `retract`).
    pub fn new(record_id: &str, kind: ClosureKind, reason: &str) -> Self {
        CloseRecord {
            record_id: record_id.to_owned(),
            kind,
            reason: reason.to_owned(),
            replacement_ids: Vec::new(),
        }
    }

    /// Retract `record_id` for `reason` (the spec's default kind).
    pub fn retract(record_id: &str, reason: &str) -> Self {
        CloseRecord::new(record_id, retract(), reason)
    }

    /// The same closure with replacements.
    #[must_use]
    pub fn replaced_by<S: AsRef<str>>(mut self, replacement_ids: &[S]) -> Self {
        self.replacement_ids = owned(replacement_ids);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_keywords_take_the_spec_defaults_when_absent() {
        let r: Reinforce = serde_json::from_value(
            json!({"record_id": "r", "reason": "why", "scope": "s", "owner_id": "o"}),
        )
        .unwrap();
        assert_eq!(r, Reinforce::new("r", "why", "s", "o"));
        assert_eq!((r.weight, r.actor.as_str()), (8.0, "operator"));
        let b: Bind = serde_json::from_value(
            json!({"record_id": "r", "scope": "s", "owner_id": "o", "search_state": "hidden"}),
        )
        .unwrap();
        assert_eq!(b, Bind::new("r", "s", "o", SearchState::Hidden));
        let c: CloseRecord =
            serde_json::from_value(json!({"record_id": "r", "reason": "wrong"})).unwrap();
        assert_eq!(c, CloseRecord::retract("r", "wrong"));
        let rc: Reconstruct = serde_json::from_value(
            json!({"stimulus": {"cue_text": "pool"}, "scopes": [["session", "s1"]]}),
        )
        .unwrap();
        assert_eq!(
            rc,
            Reconstruct::new(Stimulus::new("pool"), &[("session", "s1")])
        );
        assert!(rc.journal);
    }

    #[test]
    fn an_argument_the_verb_does_not_take_is_refused_by_name() {
        let e = serde_json::from_value::<Refocus>(
            json!({"reason": "why", "scope": "s", "owner_id": "o", "weight": 3}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("weight"), "{e}");
        let e = serde_json::from_value::<Reconstruct>(
            json!({"stimulus": {"cue_text": "x", "colour": "red"}, "scopes": []}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
    }

    #[test]
    fn a_close_kind_is_read_trimmed_and_lowercased_and_an_unknown_one_is_refused_as_it_arrived() {
        let c: CloseAssertions = serde_json::from_value(
            json!({"assertion_ids": ["a"], "kind": " Supersede ", "reason": "newer"}),
        )
        .unwrap();
        assert_eq!(c.kind, ClosureKind::Supersede);
        let c: CloseRecord =
            serde_json::from_value(json!({"record_id": "r", "kind": "MERGED", "reason": "dup"}))
                .unwrap();
        assert_eq!(c.kind, ClosureKind::Merged);
        let e = serde_json::from_value::<CloseAssertions>(
            json!({"assertion_ids": ["a"], "kind": "Forget", "reason": "x"}),
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with(
                "close kind must be one of [\"retract\", \"supersede\", \"reinterpreted\", \"merged\"], got \"Forget\""
            ),
            "{e}"
        );
        assert!(
            serde_json::from_value::<CloseRecord>(
                json!({"record_id": "r", "kind": "", "reason": "x"})
            )
            .is_err()
        );
    }

    #[test]
    fn bind_reads_its_states_folded_and_a_blank_lifecycle_or_source_as_the_default() {
        let b: Bind = serde_json::from_value(json!({
            "record_id": "r", "scope": "s", "owner_id": "o", "search_state": " Indexed ",
            "prompt_state": "ACTIVE", "lifecycle": " ", "source": ""
        }))
        .unwrap();
        assert_eq!(
            (b.search_state, b.prompt_state, b.lifecycle, b.source),
            (
                SearchState::Indexed,
                PromptState::Active,
                Lifecycle::None,
                BindingSource::Operator
            )
        );
        let b: Bind = serde_json::from_value(json!({
            "record_id": "r", "scope": "s", "owner_id": "o", "search_state": "hidden",
            "lifecycle": "Promoted", "source": "Election"
        }))
        .unwrap();
        assert_eq!(
            (b.prompt_state, b.lifecycle, b.source),
            (
                PromptState::Inactive,
                Lifecycle::Promoted,
                BindingSource::Election
            )
        );
        for (field, value, names) in [
            ("search_state", "gone", "[\"hidden\", \"indexed\"]"),
            ("search_state", "", "[\"hidden\", \"indexed\"]"),
            ("prompt_state", "on", "[\"active\", \"inactive\"]"),
            (
                "lifecycle",
                "dead",
                "[\"inactive_candidate\", \"none\", \"promoted\", \"rejected\", \"reviewed\", \"superseded\"]",
            ),
            (
                "source",
                "x",
                "[\"election\", \"maintenance\", \"operator\", \"remember\", \"revision\"]",
            ),
        ] {
            let mut v =
                json!({"record_id": "r", "scope": "s", "owner_id": "o", "search_state": "indexed"});
            v[field] = json!(value);
            let e = serde_json::from_value::<Bind>(v).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("{field} must be one of {names}, got {value:?}")),
                "{e}"
            );
        }
    }

    #[test]
    fn a_required_argument_is_required() {
        let e = serde_json::from_value::<Bind>(
            json!({"record_id": "r", "scope": "s", "owner_id": "o"}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("search_state"), "{e}");
        let e = serde_json::from_value::<CloseAssertions>(
            json!({"assertion_ids": ["a"], "kind": "retract"}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("reason"), "{e}");
    }
}
