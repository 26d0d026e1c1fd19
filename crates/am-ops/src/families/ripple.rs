//! Ripple (am-system `ripple/`): `seed_ripple`, `settle_reconsideration`,
//! `refresh_ripples`, `form_consolidation`, `revert_ripple` and the reads
//! `ripples`, `ripple` (a home opened with its task queue).
//!
//! Spec: api.md "Ripple: a change reconsidered through connected memories".

use crate::verb::{Answer, Family, Verb};
use am_system::UnderstandingResult;
use am_system::ripple::{
    ConsolidationResult, FormConsolidation, ListRipples, RefreshRipples, RevertRipple,
    RippleDetail, RippleRow, SeedResult, SeedRipple, SettleReconsideration, SettleResult,
};
use serde::Deserialize;

/// `ripple(ripple_id)`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RippleArgs {
    /// The ripple.
    pub ripple_id: String,
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Ripple;
    vec![
        Verb::declare(
            "seed_ripple",
            f,
            "Open a ripple on a memory whose meaning changed: its connected memories pass the activation gate hop by hop, every decision stored with its potential; those above the floor are queued as ripple.reconsider tasks.",
        )
        .writes()
        .answers::<SeedResult>()
        .run(|h, _, a: SeedRipple| Answer::warned(h.system()?.seed_ripple(&a)?)),
        Verb::declare(
            "settle_reconsideration",
            f,
            "Settle a ripple.reconsider task: unchanged acks it; rewritten (after rewrite_digest with its task_id) hands min(received, measured) one hop further.",
        )
        .writes()
        .answers::<SettleResult>()
        .run(|h, _, a: SettleReconsideration| {
            Answer::warned(h.system()?.settle_reconsideration(&a)?)
        }),
        Verb::declare(
            "refresh_ripples",
            f,
            "Settle the open ripples none of whose reconsiderations is live (two or more changes queue a night-only consolidation).",
        )
        .writes()
        .answers::<Vec<RippleRow>>()
        .run(|h, _, a: RefreshRipples| Answer::of(&h.system()?.refresh_ripples(&a)?)),
        Verb::declare(
            "form_consolidation",
            f,
            "Complete a ripple.consolidate task (night windows): form the first-person \"what this changes\" summary (summary_role re-understanding) that summarizes every changed memory and derives from the seed; the ripple becomes consolidated.",
        )
        .writes()
        .answers::<ConsolidationResult>()
        .run(|h, _, a: FormConsolidation| Answer::of(&h.system()?.form_consolidation(&a)?)),
        Verb::declare(
            "revert_ripple",
            f,
            "Restore, as new versions, what a ripple changed (one revert_digest result per changed memory, latest first; a memory rewritten since is refused stale).",
        )
        .writes()
        .answers::<Vec<UnderstandingResult>>()
        .run(|h, _, a: RevertRipple| Answer::of(&h.system()?.revert_ripple(&a)?)),
        Verb::declare(
            "ripples",
            f,
            "The ripples, newest first, with their cause, magnitude, surprise, budget, changed members and left_out.",
        )
        .answers::<Vec<RippleRow>>()
        .run(|h, _, a: ListRipples| Answer::of(&h.system()?.ripples(&a)?)),
        Verb::declare(
            "ripple",
            f,
            "One ripple with its member tasks and every gate decision, or null.",
        )
        .answers::<Option<RippleDetail>>()
        .run(|h, _, a: RippleArgs| Answer::of(&h.system()?.ripple(&a.ripple_id)?)),
    ]
}
