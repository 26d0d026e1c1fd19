//! Communities (am-system `communities/`): `communities_pass`,
//! `communities`, `community_of`, `community_keys_of`,
//! `community_memberships_of`, `embed_missing`.

use crate::error::OpResult;
use crate::home::Home;
use crate::host::{Hook, Host};
use crate::verb::{Answer, Family, Verb};
use am_system::communities::{
    Communities, CommunitiesPass, CommunitiesPayload, CommunitiesReport, CommunityKeysOf,
    CommunityMembership, CommunityOf, CommunityOfAnswer, EmbedMissing, EmbedMissingReport,
};
use std::collections::BTreeMap;

fn pass(home: &mut dyn Home, host: &Host, a: CommunitiesPass) -> OpResult<Answer> {
    // The pass calls `cancelled()` once, after planning: the phase `plan`
    // is reported done first, so a scripted `cancel_after: "plan"` cancels.
    let stop = || {
        host.phase_done("plan");
        host.cancelled.as_ref().is_some_and(|f| f())
    };
    Answer::of(
        &home
            .system()?
            .communities_pass(&a, host.author.as_deref(), &stop)?,
    )
}

fn embed_missing(home: &mut dyn Home, host: &Host, a: EmbedMissing) -> OpResult<Answer> {
    // `cancelled()` is asked before each record: from the second ask on, the
    // phase `record` (one record handled) is reported first, so a scripted
    // `cancel_after: "record"` stops the pass after its first record.
    let asked = std::cell::Cell::new(false);
    let stop = || {
        if asked.replace(true) {
            host.phase_done("record");
        }
        host.cancelled.as_ref().is_some_and(|f| f())
    };
    Answer::of(&home.system()?.embed_missing(&a, &stop)?)
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Communities;
    vec![
        Verb::declare(
            "communities_pass",
            f,
            "One night's topics: detect, carry keys, lay out, author within the budget or pend; one transaction.",
        )
        .writes()
        .hooks(&[Hook::Author, Hook::Cancel])
        .answers::<CommunitiesReport>()
        .run(pass),
        Verb::declare(
            "communities",
            f,
            "The topics payload (version 2): largest first, with facts and links; `version` reads an earlier one.",
        )
        .answers::<CommunitiesPayload>()
        .run(|h, _, a: Communities| Answer::of(&h.system()?.communities(&a)?)),
        Verb::declare("community_of", f, "Which topic one record is in now.")
            .answers::<CommunityOfAnswer>()
            .run(|h, _, a: CommunityOf| Answer::of(&h.system()?.community_of(&a)?)),
        Verb::declare(
            "community_keys_of",
            f,
            "Each record's topic key (or null), from the in-memory community index.",
        )
        .answers::<BTreeMap<String, Option<String>>>()
        .run(|h, _, a: CommunityKeysOf| Answer::of(&h.system()?.community_keys_of(&a)?)),
        Verb::declare(
            "community_memberships_of",
            f,
            "Each record's {key, provisional} (or null), from the in-memory community index.",
        )
        .answers::<BTreeMap<String, Option<CommunityMembership>>>()
        .run(|h, _, a: CommunityKeysOf| Answer::of(&h.system()?.community_memberships_of(&a)?)),
        Verb::declare(
            "embed_missing",
            f,
            "Embed the open formed records that have no vector with the store's embedder, one guarded commit per vector.",
        )
        .writes()
        .hooks(&[Hook::Cancel])
        .answers::<EmbedMissingReport>()
        .run(embed_missing),
    ]
}
