//! Recall (am-system `recall/`): `reconstruct`, `commit_selection`, the
//! deliberate acts (`reinforce`, `attenuate`, `refocus`), `activation`,
//! `access_counts`, `payload`, bindings (`bind`) and closures
//! (`close_assertions`, `close_record`).

use crate::error::OpResult;
use crate::home::Home;
use crate::verb::{Answer, Family, Verb, to_json};
use am_journal::ScopeBinding;
use am_system::{
    Activation, Bind, CloseAssertions, CloseRecord, CommitSelection, Reconstruct, Refocus,
    Reinforce,
};
use am_system::{ActiveMemorySnapshot, OrderedMap, Payload, StoredActivation};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `access_counts`' arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccessCountsArgs {
    #[serde(default)]
    record_ids: Vec<String>,
    #[serde(default)]
    pairs: Vec<(String, String)>,
}

fn digest_tier() -> String {
    "digest".to_owned()
}

/// `payload`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PayloadArgs {
    record_id: String,
    /// `digest` (default), or `raw` for a record formed with a `payload_ref`;
    /// `summary` is refused.
    #[serde(default = "digest_tier")]
    tier: String,
}

/// `access_counts`' answer: each record's count, and each pair's.
#[derive(Serialize, schemars::JsonSchema)]
struct AccessCountsAnswer {
    records: OrderedMap<u64>,
    pairs: Vec<((String, String), u64)>,
}

fn access_counts(home: &mut dyn Home, _: &crate::Host, a: AccessCountsArgs) -> OpResult<Answer> {
    let c = home.system()?.access_counts(&a.record_ids, &a.pairs)?;
    let pairs: Vec<Value> = c
        .pairs
        .iter()
        .map(|((x, y), n)| json!([[x, y], n]))
        .collect();
    Ok(Answer::value(
        json!({"records": to_json(&c.records)?, "pairs": pairs}),
    ))
}

fn payload(home: &mut dyn Home, _: &crate::Host, a: PayloadArgs) -> OpResult<Answer> {
    // An empty id is refused before the tier is read, as the spec's payload
    // checks its arguments in that order.
    let tier = if a.record_id.trim().is_empty() {
        am_system::PayloadTier::Digest
    } else {
        am_system::PayloadTier::requested(&a.tier)?
    };
    Answer::of(&home.system()?.payload(&a.record_id, tier)?)
}

fn reconstruct(home: &mut dyn Home, _: &crate::Host, a: Reconstruct) -> OpResult<Answer> {
    // The result keeps its own `warnings` (the spec's dict); the degraded
    // paths also reach the call's warnings, where a script looks for them.
    let result = home.system()?.reconstruct(&a)?;
    let warnings = result.warnings.clone();
    Ok(Answer::value(result.to_dict()).with_warnings(warnings))
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Recall;
    vec![
        Verb::declare(
            "reconstruct",
            f,
            "Recall: the shelf of handles relevant to a stimulus (journaled when asked).",
        )
        .writes()
        .object()
        .answers::<am_system::ReconstructionResult>()
        .run(reconstruct),
        Verb::declare(
            "commit_selection",
            f,
            "Commit what was used from a recall's shelf: the only thing that strengthens memory.",
        )
        .writes()
        .object()
        .answers::<ActiveMemorySnapshot>()
        .run(|h, _, a: CommitSelection| Answer::warned(h.system()?.commit_selection(&a)?)),
        Verb::declare(
            "reinforce",
            f,
            "A deliberate act strengthening records; answers the act's event id.",
        )
        .writes()
        .answers::<String>()
        .run(|h, _, a: Reinforce| Ok(Answer::value(json!(h.system()?.reinforce(&a)?)))),
        Verb::declare(
            "attenuate",
            f,
            "A deliberate act weakening records; answers the act's event id.",
        )
        .writes()
        .answers::<String>()
        .run(|h, _, a: Reinforce| Ok(Answer::value(json!(h.system()?.attenuate(&a)?)))),
        Verb::declare(
            "refocus",
            f,
            "A deliberate act moving attention to records; answers the act's event id.",
        )
        .writes()
        .answers::<String>()
        .run(|h, _, a: Refocus| Ok(Answer::value(json!(h.system()?.refocus(&a)?)))),
        Verb::declare(
            "activation",
            f,
            "Each record's stored activation (strength, count, last use).",
        )
        .answers::<OrderedMap<StoredActivation>>()
        .run(|h, _, a: Activation| Answer::of(&h.system()?.activation(&a)?)),
        Verb::declare(
            "access_counts",
            f,
            "Cumulative selected counts of records and co_selected counts of pairs.",
        )
        .answers::<AccessCountsAnswer>()
        .run(access_counts),
        Verb::declare("payload", f, "A record's payload at a tier (digest).")
            .object()
            .answers::<Payload>()
            .run(payload),
        Verb::declare(
            "bind",
            f,
            "Bind a record to a scope (prompt-active, pinned, ...); answers the binding.",
        )
        .writes()
        .object()
        .answers::<ScopeBinding>()
        .run(|h, _, a: Bind| Answer::of(&h.system()?.bind(&a)?)),
        Verb::declare(
            "close_assertions",
            f,
            "Close assertions with a reason (a closure record each); answers the closure ids.",
        )
        .writes()
        .answers::<Vec<String>>()
        .run(|h, _, a: CloseAssertions| {
            Ok(Answer::value(json!(h.system()?.close_assertions(&a)?)))
        }),
        Verb::declare(
            "close_record",
            f,
            "Close a whole record with a reason; answers the closure ids.",
        )
        .writes()
        .answers::<Vec<String>>()
        .run(|h, _, a: CloseRecord| Ok(Answer::value(json!(h.system()?.close_record(&a)?)))),
    ]
}
