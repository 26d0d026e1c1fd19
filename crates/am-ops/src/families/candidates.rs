//! Candidates (am-system `candidates/`): the disposer's verbs
//! `confirm_relation`, `promote_candidate`, `reject_candidate`,
//! `enact_realization`, `dispose_dream`, and the pure read
//! `identity_review_pass`, the pure `parse_tend_block` and
//! `apply_tend_elections` (the elections through those verbs); then the
//! machine's offers, `mine_candidates_pass` (writes, authored or pending)
//! and `resolve_questions_pass` (proposals only).
//!
//! Spec: api.md "Candidates, disposal, and deliberate acts", "Tending
//! elections".

use crate::host::Hook;
use crate::verb::{Answer, Cadence, CallShape, Family, Verb};
use am_system::candidates::{ApplyTendElections, TendReport};
use am_system::candidates::{
    ConfirmRelation, ConfirmedEdge, Disposal, DisposeDream, DreamDisposed, EnactRealization,
    Enacted, IdentityReview, IdentityReviewReport, ParseTendBlock, PromoteCandidate, Promoted,
    RejectCandidate, Rejected, TendBlock, parse_tend_block,
};
use am_system::candidates::{MineCandidates, MinedCandidates, QuestionProposals, ResolveQuestions};

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Candidates;
    vec![
        Verb::declare(
            "confirm_relation",
            f,
            "Turn a proposed association into a real typed edge (a DISPOSAL_RELATIONS relation) on waking evidence; idempotent by source, relation and target; one inert cited audit event per endpoint, never activation.",
        )
        .shape(CallShape::StoreJournalFunction)
        .writes()
        .answers::<ConfirmedEdge>()
        .run(|h, _, a: ConfirmRelation| Answer::of(&h.system()?.confirm_relation(&a)?)),
        Verb::declare(
            "promote_candidate",
            f,
            "Promote an inactive candidate when at least min_origins corroborating records come from origins independent of each other and of the candidate; otherwise refused, naming the origins counted, nothing written.",
        )
.cadence(Cadence::WakingVerb, &["independent-origin-corroboration", "repetition-is-not-corroboration"])
        .shape(CallShape::StoreJournalFunction)
        .writes()
        .answers::<Disposal<Promoted>>()
        .run(|h, _, a: PromoteCandidate| Answer::of(&h.system()?.promote_candidate(&a)?)),
        Verb::declare(
            "reject_candidate",
            f,
            "The honest no: a rejected lifecycle binding with a mandatory reason; the record stays indexed unless hide is said.",
        )
.cadence(Cadence::WakingVerb, &["append-only", "judgment-is-not-erasure"])
        .shape(CallShape::StoreJournalFunction)
        .writes()
        .answers::<Rejected>()
        .run(|h, _, a: RejectCandidate| Answer::of(&h.system()?.reject_candidate(&a)?)),
        Verb::declare(
            "enact_realization",
            f,
            "The entity's adoption of a held identity-amendment proposal: a derived_from edge from its own enacting record to the proposal and a promoted binding; a rejected or closed proposal is refused.",
        )
.cadence(Cadence::WakingVerb, &["append-only", "refuses-disposed-proposals", "crash-replay-idempotent"])
        .shape(CallShape::StoreJournalFunction)
        .writes()
        .answers::<Disposal<Enacted>>()
        .run(|h, _, a: EnactRealization| Answer::of(&h.system()?.enact_realization(&a)?)),
        Verb::declare(
            "dispose_dream",
            f,
            "A dream's whole verdict in one call: confirmed writes the confirmed edge and supersedes the dream; dissolved retracts it.",
        )
.cadence(Cadence::WakingVerb, &["append-only", "evidence-mandatory"])
        .shape(CallShape::StoreJournalFunction)
        .writes()
        .answers::<DreamDisposed>()
        .run(|h, _, a: DisposeDream| Answer::of(&h.system()?.dispose_dream(&a)?)),
        Verb::declare(
            "identity_review_pass",
            f,
            "The pending identity-amendment proposals and their evidence bar; writes nothing.",
        )
.cadence(Cadence::NightlyOnly, &["pure-read", "registrar-never-authors", "verdicts-pull-visible"])
        .shape(CallShape::StoreJournalFunction)
        .answers::<IdentityReviewReport>()
        .run(|h, _, a: IdentityReview| Answer::of(&h.system()?.identity_review_pass(&a)?)),
        Verb::declare(
            "parse_tend_block",
            f,
            "Parse one tend block body (one `verb: <target> — reason: <text>` per line) into elections and refusals; refusals are data, never errors.",
        )
        .shape(CallShape::PureFunction)
        .answers::<TendBlock>()
        .run(|_, _, a: ParseTendBlock| Answer::of(&parse_tend_block(&a)?)),
        Verb::declare(
            "apply_tend_elections",
            f,
            "Apply parsed tending elections through the existing verbs (pin, silence, refocus, heal_scar, break_bond, revisit through probe_expand, dispose through dispose_dream, revise seeding a ripple), every election planned first and all their writes in one transaction; a refused election is data beside the others, identity-scope records refused pending a ruling; dry_run writes nothing.",
        )
        // No cadence: 0.3.2's manifest lists no tending pass, and ours
        // declares none beyond its table (am-ops tests/table.rs).
        .shape(CallShape::StoreJournalFunction)
        .writes()
        .answers::<TendReport>()
        .run(|h, _, a: ApplyTendElections| Answer::warned(h.system()?.apply_tend_elections(&a)?)),
        Verb::declare(
            "mine_candidates_pass",
            f,
            "One mining pass: lesson offers (resolved tensions that lived across sessions), interest offers (recurring themes no interest declares) and question-resolution proposals; at most max_candidates offers formed, each authored by the host's author or pending; a standing offer is skipped; report_only writes nothing.",
        )
        .cadence(
            Cadence::NightPhase,
            &[
                "as-of-refused",
                "capped-offer-pool",
                "fingerprint-idempotent",
                "offers-never-enactments",
            ],
        )
        .shape(CallShape::StoreJournalFunction)
        .writes()
        .hooks(&[Hook::Author])
        .answers::<MinedCandidates>()
        .run(|h, host, a: MineCandidates| {
            Answer::warned(h.system()?.mine_candidates_pass(&a, host.author.as_deref())?)
        }),
        Verb::declare(
            "resolve_questions_pass",
            f,
            "Open questions and problems matched against later records sharing their words: proposals only, zero writes (only a diary entry with answers= or resolves= settles one).",
        )
        .cadence(
            Cadence::NightPhase,
            &[
                "answering-map-from-believed-rows",
                "proposals-never-closures",
                "pure-read",
            ],
        )
        .shape(CallShape::StoreJournalFunction)
        .answers::<QuestionProposals>()
        .run(|h, _, a: ResolveQuestions| Answer::of(&h.system()?.resolve_questions_pass(&a)?)),
    ]
}
