//! The disposal verbs' and the identity review's arguments and results.
//!
//! Defaults and result keys are 0.3.2's (`disposal.py`,
//! `identity_review.py`); the spec (api.md "Candidates, disposal, and
//! deliberate acts") names the keywords.

use serde::{Deserialize, Serialize};

fn operator() -> String {
    "operator".to_owned()
}

fn entity_reflection() -> String {
    "entity-reflection".to_owned()
}

fn two() -> i64 {
    2
}

/// `confirm_relation(source_id, relation, target_id, evidence_ids, reason,
/// proposed_by=None, actor="operator")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmRelation {
    /// The edge's subject record (either id namespace).
    pub source_id: String,
    /// One of `DISPOSAL_RELATIONS`.
    pub relation: String,
    /// The edge's object record (either id namespace).
    pub target_id: String,
    /// The waking evidence (mandatory, each a formed record).
    pub evidence_ids: Vec<String>,
    /// Why (mandatory).
    pub reason: String,
    /// The record that proposed the edge (a dream); never its own evidence.
    #[serde(default)]
    pub proposed_by: Option<String>,
    /// Who confirms.
    #[serde(default = "operator")]
    pub actor: String,
}

impl ConfirmRelation {
    /// Confirm `source relation target` on `evidence_ids` for `reason`.
    pub fn new(
        source_id: &str,
        relation: &str,
        target_id: &str,
        evidence_ids: &[&str],
        reason: &str,
    ) -> Self {
        ConfirmRelation {
            source_id: source_id.to_owned(),
            relation: relation.to_owned(),
            target_id: target_id.to_owned(),
            evidence_ids: evidence_ids.iter().map(|s| (*s).to_owned()).collect(),
            reason: reason.to_owned(),
            proposed_by: None,
            actor: operator(),
        }
    }
}

/// `confirm_relation`'s result (0.3.2's keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConfirmedEdge {
    /// `H("confirm|source|relation|target")[:32]`.
    pub edge_id: String,
    /// Whether this call wrote the edge (a replay finds it).
    pub created: bool,
    /// Always true: the audit events carry the evidence.
    pub evidence_recorded: bool,
    /// The source's graph id.
    pub source_id: String,
    /// The relation.
    pub relation: String,
    /// The target's graph id.
    pub target_id: String,
}

/// `promote_candidate(record_id, scope, owner_id, corroborating_ids, reason,
/// min_origins=2, prompt_state=None, actor="operator")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PromoteCandidate {
    /// The candidate (either id namespace).
    pub record_id: String,
    /// The binding's scope (blank: the candidate's).
    pub scope: String,
    /// The binding's owner (blank: the candidate's).
    pub owner_id: String,
    /// The corroborating records.
    pub corroborating_ids: Vec<String>,
    /// Why (mandatory).
    pub reason: String,
    /// Independent origins required (at least 1).
    #[serde(default = "two")]
    pub min_origins: i64,
    /// `active` | `inactive`; `None` keeps the candidate out of the prompt.
    #[serde(default)]
    pub prompt_state: Option<String>,
    /// Who promotes.
    #[serde(default = "operator")]
    pub actor: String,
}

impl PromoteCandidate {
    /// Promote `record_id` in `(scope, owner_id)` on `corroborating_ids`.
    pub fn new(
        record_id: &str,
        scope: &str,
        owner_id: &str,
        corroborating_ids: &[&str],
        reason: &str,
    ) -> Self {
        PromoteCandidate {
            record_id: record_id.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            corroborating_ids: corroborating_ids.iter().map(|s| (*s).to_owned()).collect(),
            reason: reason.to_owned(),
            min_origins: 2,
            prompt_state: None,
            actor: operator(),
        }
    }
}

/// `promote_candidate`'s result when it promoted (0.3.2's keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Promoted {
    /// The candidate's graph id.
    pub record_id: String,
    /// `promoted`.
    pub lifecycle: String,
    /// The promoting binding's seq.
    pub binding_seq: i64,
    /// Distinct witness origins other than the candidate's own.
    pub independent_origins: usize,
}

/// A record's origin for the independence test: `(provenance.source, actor,
/// session_id or turn_id)`.
pub type Origin = (String, String, String);

/// Why a disposal verb refused (the home's state said no; nothing written).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DisposalRefusal {
    /// `promote_candidate`: fewer independent origins than `min_origins`.
    NotIndependent,
    /// `enact_realization`: the proposal is retracted or superseded.
    Closed,
    /// `enact_realization`: the proposal was rejected.
    Rejected,
}

/// A refusal: the reason, its sentence, and (for the independence test) the
/// origins it counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Refused {
    /// Always true (tells a refusal from a result on the wire).
    pub refused: bool,
    /// Why.
    pub reason: DisposalRefusal,
    /// The sentence naming the mechanism.
    pub message: String,
    /// `promote_candidate`: independent origins counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub independent_origins: Option<usize>,
    /// `promote_candidate`: the candidate's origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_origin: Option<Origin>,
    /// `promote_candidate`: each witness's origin, in the order given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness_origins: Option<Vec<Origin>>,
}

impl Refused {
    pub(crate) fn new(reason: DisposalRefusal, message: String) -> Self {
        Refused {
            refused: true,
            reason,
            message,
            independent_origins: None,
            candidate_origin: None,
            witness_origins: None,
        }
    }
}

/// A disposal verb's answer: its result, or a refusal (nothing written).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Disposal<T> {
    /// Refused by the home's state.
    Refused(Refused),
    /// Done.
    Done(T),
}

impl<T> Disposal<T> {
    /// The result, or `None` when refused.
    pub fn done(self) -> Option<T> {
        match self {
            Disposal::Done(t) => Some(t),
            Disposal::Refused(_) => None,
        }
    }

    /// The refusal, or `None` when done.
    pub fn refusal(&self) -> Option<&Refused> {
        match self {
            Disposal::Refused(r) => Some(r),
            Disposal::Done(_) => None,
        }
    }
}

/// `reject_candidate(record_id, scope, owner_id, reason, hide=False,
/// actor="operator")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectCandidate {
    /// The candidate (either id namespace).
    pub record_id: String,
    /// The binding's scope (blank: the candidate's).
    pub scope: String,
    /// The binding's owner (blank: the candidate's).
    pub owner_id: String,
    /// Why (mandatory).
    pub reason: String,
    /// Also hide it from search (a separate, stated act).
    #[serde(default)]
    pub hide: bool,
    /// Who rejects.
    #[serde(default = "operator")]
    pub actor: String,
}

impl RejectCandidate {
    /// Reject `record_id` in `(scope, owner_id)` for `reason`, kept indexed.
    pub fn new(record_id: &str, scope: &str, owner_id: &str, reason: &str) -> Self {
        RejectCandidate {
            record_id: record_id.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            reason: reason.to_owned(),
            hide: false,
            actor: operator(),
        }
    }
}

/// `reject_candidate`'s result (0.3.2's keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rejected {
    /// The candidate's graph id.
    pub record_id: String,
    /// `rejected`.
    pub lifecycle: String,
    /// Whether the binding hid it.
    pub hidden: bool,
    /// The rejecting binding's seq.
    pub binding_seq: i64,
}

/// `enact_realization(realization_id, supersession_record_id, reason,
/// actor="entity-reflection")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnactRealization {
    /// The held proposal (a `realization` record).
    pub realization_id: String,
    /// The entity's own record carrying the change (formed first).
    pub supersession_record_id: String,
    /// Why (mandatory).
    pub reason: String,
    /// Who enacts.
    #[serde(default = "entity_reflection")]
    pub actor: String,
}

impl EnactRealization {
    /// Enact `realization_id` by `supersession_record_id` for `reason`.
    pub fn new(realization_id: &str, supersession_record_id: &str, reason: &str) -> Self {
        EnactRealization {
            realization_id: realization_id.to_owned(),
            supersession_record_id: supersession_record_id.to_owned(),
            reason: reason.to_owned(),
            actor: entity_reflection(),
        }
    }
}

/// `enact_realization`'s result (0.3.2's keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Enacted {
    /// The proposal's graph id.
    pub realization_id: String,
    /// `promoted`.
    pub lifecycle: String,
    /// The enacting record's graph id.
    pub enacted_by: String,
    /// `H("enact|enacting|derived_from|proposal")[:32]`.
    pub edge_id: String,
    /// Whether this call wrote the edge.
    pub edge_created: bool,
    /// The promoting binding's seq.
    pub binding_seq: i64,
    /// When (canonical UTC).
    pub enacted_at: String,
}

/// A dream's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DreamDisposition {
    /// Waking evidence confirms the association: a real edge, the dream superseded.
    Confirmed,
    /// The association does not hold: the dream retracted.
    Dissolved,
}

/// `dispose_dream(dream_id, disposition, reason, relation=None,
/// source_id=None, target_id=None, evidence_ids=(), actor="operator")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DisposeDream {
    /// The dream (either id namespace).
    pub dream_id: String,
    /// `confirmed` | `dissolved`.
    pub disposition: DreamDisposition,
    /// Why (mandatory).
    pub reason: String,
    /// Confirmed: the edge's relation.
    #[serde(default)]
    pub relation: Option<String>,
    /// Confirmed: the edge's source.
    #[serde(default)]
    pub source_id: Option<String>,
    /// Confirmed: the edge's target.
    #[serde(default)]
    pub target_id: Option<String>,
    /// Confirmed: the waking evidence.
    #[serde(default)]
    pub evidence_ids: Vec<String>,
    /// Who disposes.
    #[serde(default = "operator")]
    pub actor: String,
}

impl DisposeDream {
    /// Dispose of `dream_id` as `disposition` for `reason` (no edge).
    pub fn new(dream_id: &str, disposition: DreamDisposition, reason: &str) -> Self {
        DisposeDream {
            dream_id: dream_id.to_owned(),
            disposition,
            reason: reason.to_owned(),
            relation: None,
            source_id: None,
            target_id: None,
            evidence_ids: Vec::new(),
            actor: operator(),
        }
    }
}

/// `dispose_dream`'s result (0.3.2's keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DreamDisposed {
    /// The dream's graph id.
    pub dream_id: String,
    /// The verdict.
    pub disposition: DreamDisposition,
    /// Confirmed: the edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<ConfirmedEdge>,
    /// The dream's closures, digest first.
    pub closure_ids: Vec<String>,
}

/// `identity_review_pass(scopes, owner_id)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentityReview {
    /// The `(scope, owner)` pairs to review.
    pub scopes: Vec<(String, String)>,
    /// The reviewing owner (0.3.2 takes it and reads the pairs only).
    pub owner_id: String,
}

impl IdentityReview {
    /// Review `scopes` for `owner_id`.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        IdentityReview {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            owner_id: owner_id.to_owned(),
        }
    }
}

/// Evidence counts of one proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvidenceCount {
    /// `records`.
    pub unit: String,
    /// Its `derived_from` edges.
    pub total: usize,
    /// Those whose target resolves and is believed.
    pub alive: usize,
}

/// One pending proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PendingProposal {
    /// Its graph id.
    pub record_id: String,
    /// Its title (`""` when none).
    pub title: String,
    /// Its digest row's `observed_at`.
    pub formed_at: String,
    /// Its `session_id`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Its `phase`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Its evidence.
    pub evidence: EvidenceCount,
    /// Each bar it fails, as a sentence.
    pub bar_failures: Vec<String>,
}

/// The review's counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReviewCounts {
    /// Proposals still pending.
    pub pending: usize,
    /// Pending proposals failing a bar.
    pub bars_failing: usize,
    /// Proposals closed or disposed.
    pub disposed: usize,
}

/// `identity_review_pass`'s report (0.3.2's keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdentityReviewReport {
    /// `identity_review_pass`.
    pub pass_name: String,
    /// `records`.
    pub unit: String,
    /// The pending proposals by graph id.
    pub pending: Vec<PendingProposal>,
    /// The counts.
    pub counts: ReviewCounts,
    /// What the report is (our sentence).
    pub provenance: String,
}
