//! Identity (am-system `identity/`): `lint_spark`, `canonical_spark_hash`,
//! `engram`, `self_records`.

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Hook;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::identity::{Engram, EngramResult, SelfRecords, canonical_spark_hash, lint_spark};
use am_triples::{JsonMap, TripleAssertion};
use serde::Deserialize;
use serde_json::json;

use super::observe::diary::rows;

fn yes() -> bool {
    true
}

/// `lint_spark`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LintArgs {
    /// The spark (the identity's founding document).
    spark: JsonMap,
    /// Whether the framework's own value is required.
    #[serde(default = "yes")]
    framework: bool,
}

/// `canonical_spark_hash`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HashArgs {
    spark: JsonMap,
}

fn engram(home: &mut dyn Home, host: &crate::Host, a: Engram) -> OpResult<Answer> {
    // A callable cannot travel in a JSON call: a call's `author` is the
    // callable's answers, scripted (Host::scripted).
    let r = home.system()?.engram(&a, host.author.as_deref())?;
    Answer::of(&r)
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Identity;
    vec![
        Verb::declare("lint_spark", f, "What is wrong with a spark (an empty list: nothing).")
            .shape(CallShape::PureFunction)
            .answers::<Vec<String>>()
            .run(|_, _, a: LintArgs| Ok(Answer::value(json!(lint_spark(&a.spark, a.framework))))),
        Verb::declare("canonical_spark_hash", f, "The spark's canonical hash (hex).")
            .shape(CallShape::PureFunction)
            .answers::<String>()
            .run(|_, _, a: HashArgs| Ok(Answer::value(json!(canonical_spark_hash(&a.spark))))),
        Verb::declare("engram", f, "Form the identity core from a spark (idempotent); unnamed items are authored by the host's author.")
            .writes()
            .object()
            .hooks(&[Hook::Author])
            .answers::<EngramResult>()
            .run(engram),
        Verb::declare("self_records", f, "The identity core's records (prompt-active self rows).")
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, a: SelfRecords| Ok(rows(&h.system()?.self_records(&a)?))),
    ]
}
