//! The night's dream and tending verbs (the "sleep" family, docs/exec.md
//! "Dreams"): `unresolved_dreams`, `wake_cue_dedup_pass` and
//! `consolidation_pass`.

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Hook;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::sleep::{
    ConsolidationPass, ConsolidationResult, UnresolvedDreams, WakeCueDedup, WakeCueDedupResult,
    unresolved_dreams,
};
use am_triples::TripleAssertion;
use serde::Deserialize;
use serde_json::Value;

fn yes() -> bool {
    true
}

fn hundred() -> usize {
    100
}

/// `unresolved_dreams`'s arguments with the spec's `journal=` switch (the
/// session's journal, or none: a layer-1 read).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DreamsArgs {
    scope: String,
    owner_id: String,
    #[serde(default = "hundred")]
    limit: usize,
    #[serde(default = "yes")]
    journal: bool,
}

fn dreams(home: &mut dyn Home, d: DreamsArgs) -> OpResult<Answer> {
    let sys = home.system()?;
    let j = d.journal.then_some(&**sys.journal());
    let args = UnresolvedDreams {
        limit: d.limit,
        ..UnresolvedDreams::new(&d.scope, &d.owner_id)
    };
    let rows = unresolved_dreams(&**sys.store(), j, &args)?;
    Ok(Answer::value(Value::Array(
        rows.iter().map(TripleAssertion::to_dict).collect(),
    )))
}

fn dedup(home: &mut dyn Home, host: &crate::Host, a: WakeCueDedup) -> OpResult<Answer> {
    // A callable cannot travel in a JSON call: a call's `author` is the
    // callable's answers, scripted (Host::scripted).
    Answer::warned(
        home.system()?
            .wake_cue_dedup_pass(&a, host.author.as_deref())?,
    )
}

fn consolidate(home: &mut dyn Home, host: &crate::Host, a: ConsolidationPass) -> OpResult<Answer> {
    Answer::warned(
        home.system()?
            .consolidation_pass(&a, host.author.as_deref())?,
    )
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Sleep;
    vec![
        Verb::declare("unresolved_dreams", f, "The standing dreams (unresolved or continued), oldest first.")
            .shape(CallShape::StoreJournalFunction)
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, d: DreamsArgs| dreams(h, d)),
        Verb::declare("wake_cue_dedup_pass", f, "Collapse near-identical same-day records into one day summary, authored by the host's author or pending.")
            .writes()
            .object()
            .hooks(&[Hook::Author])
            .answers::<WakeCueDedupResult>()
            .run(dedup),
        Verb::declare("consolidation_pass", f, "The tending write: low-risk duplicate-title groups into inactive, review-gated summary candidates, authored by the host's author or pending.")
            .writes()
            .object()
            .hooks(&[Hook::Author])
            .answers::<ConsolidationResult>()
            .run(consolidate),
    ]
}
