//! Candidates: machines propose, the entity or the operator disposes. The
//! disposer's verbs (`confirm_relation`, `promote_candidate`,
//! `reject_candidate`, `enact_realization`, `dispose_dream`) and the
//! identity review (`identity_review_pass`), and the tending grammar
//! (`parse_tend_block`, `tend.rs`) with its application
//! (`apply_tend_elections`, `tend_apply.rs`: the elections through the
//! existing verbs, planned, then one transaction).
//!
//! Spec: api.md "Candidates, disposal, and deliberate acts" and the
//! constant `DISPOSAL_RELATIONS` ("Vocabularies"). 0.3.2's `disposal.py`
//! and `identity_review.py` settle ids, keys and order; docs/candidates.md
//! lists the choices.
//!
//! How it works. Every verb plans purely (each check, each row, binding,
//! audit event and closure computed before anything is written) and writes
//! once: one binding append, or one transaction of the home for a verb that
//! writes an edge beside its events, binding or closures. Edge ids derive
//! from the endpoints and relation, audit event ids from the edge and the
//! evidence set, so a replay writes nothing twice. The state of the home
//! saying no (too few independent origins, a closed or rejected proposal)
//! is a [`Refused`] answer with nothing written; a malformed call (a blank
//! reason, an unknown record or relation) is an `InvalidInput` error.
//! `confirm_relation`'s audit events are `cited`: audit-only, so judging a
//! record never strengthens it. The identity review only reads.

pub mod args;
mod disposal;
pub mod mining;
mod review;
pub mod tend;
pub mod tend_apply;

pub use args::{
    ConfirmRelation, ConfirmedEdge, Disposal, DisposalRefusal, DisposeDream, DreamDisposed,
    DreamDisposition, EnactRealization, Enacted, EvidenceCount, IdentityReview,
    IdentityReviewReport, Origin, PendingProposal, PromoteCandidate, Promoted, Refused,
    RejectCandidate, Rejected, ReviewCounts,
};
pub use disposal::{independent_origins, origin_of};
pub use mining::{
    InterestOffer, LessonOffer, MineCandidates, MinedCandidates, MinedDriveGroup, MintedOffer,
    ProposalEvidence, QuestionProposal, QuestionProposals, ResolveQuestions, SkippedOffer,
    resolve_questions_pass,
};
pub use tend::{
    DEFAULT_MAX_ELECTIONS, IDENTITY_SCOPE_PENDING_RULING, ParseTendBlock, TEND_VERBS, TendBlock,
    TendElection, TendRefusal, parse_tend_block,
};
pub use tend_apply::{
    ApplyTendElections, REFLECTION_CHANNEL, ReviseAct, RevisitAct, RevisitPath, RevisitSeed,
    TendAct, TendApplied, TendEvent, TendRefused, TendReport,
};

/// The relations `confirm_relation` may write: claims waking evidence can
/// confirm about two records (derivation, answer, support, composition,
/// summary, continuation). Each is a component relation; formation-frame
/// relations (`from_session`, `reflected_in`, `written_amid`) and the
/// dream's own `mentions` are not offered. Sorted.
pub const DISPOSAL_RELATIONS: [&str; 6] = [
    "answers",
    "continues",
    "derived_from",
    "part_of",
    "summarizes",
    "supports",
];
