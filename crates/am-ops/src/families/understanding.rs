//! Understanding: `rewrite_digest`, `retitle`, `narrate_dream`,
//! `revert_digest`, `declare_pending`, `rearm_pending`, `current_of`,
//! `record_understanding`, `understanding_fields`, `reading_provenance`
//! (the system's `versions` shares its name with the journal's reader: see
//! the journal family).

use crate::error::{OpError, OpResult};
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::{
    CurrentOf, MemorySystem, ReadingProvenance, RecordUnderstanding, UnderstandingFields,
    UnderstandingResult, reading_provenance, understanding_fields,
};
use am_system::{DeclarePending, NarrateDream, RearmPending, Retitle, RevertDigest, RewriteDigest};
use serde::Deserialize;

/// The arguments of a read of one record.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordArgs {
    /// The record (either id namespace).
    record_id: String,
}

/// `understanding_fields`' arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FieldsArgs {
    /// The record whose digest row is read (either id namespace).
    record_id: String,
    #[serde(default)]
    version_count: Option<i64>,
    #[serde(default)]
    replaced_by: Option<String>,
}

fn row(sys: &MemorySystem, id: &str) -> OpResult<am_triples::TripleAssertion> {
    sys.resolve_digest_assertion(id)?.ok_or_else(|| {
        OpError::from(am_system::Error::not_found(format!(
            "unknown record id {:?}: neither a digest assertion id nor a graph record id",
            id.trim()
        )))
    })
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Understanding;
    vec![
        Verb::declare("rewrite_digest", f, "Rewrite a record's digest (and optionally its title) as a new version, with its reading.")
            .writes()
            .object()
            .answers::<UnderstandingResult>()
            .run(|h, _, a: RewriteDigest| Answer::of(&h.system()?.rewrite_digest(&a)?)),
        Verb::declare("retitle", f, "Give a record a new title as a new version.")
            .writes()
            .object()
            .answers::<UnderstandingResult>()
            .run(|h, _, a: Retitle| Answer::of(&h.system()?.retitle(&a)?)),
        Verb::declare("narrate_dream", f, "Write a dream record's narration as a new version.")
            .writes()
            .object()
            .answers::<UnderstandingResult>()
            .run(|h, _, a: NarrateDream| Answer::of(&h.system()?.narrate_dream(&a)?)),
        Verb::declare("revert_digest", f, "Return a record's digest to an earlier version, as a new version.")
            .writes()
            .object()
            .answers::<UnderstandingResult>()
            .run(|h, _, a: RevertDigest| Answer::of(&h.system()?.revert_digest(&a)?)),
        Verb::declare("declare_pending", f, "Declare a record's field pending, queueing its authoring task.")
            .writes()
            .object()
            .answers::<UnderstandingResult>()
            .run(|h, _, a: DeclarePending| Answer::of(&h.system()?.declare_pending(&a)?)),
        Verb::declare("rearm_pending", f, "Re-arm a pending field whose task was settled without it, queueing a new task.")
            .writes()
            .object()
            .answers::<UnderstandingResult>()
            .run(|h, _, a: RearmPending| Answer::of(&h.system()?.rearm_pending(&a)?)),
        Verb::declare("current_of", f, "A record's current reading: its row and version numbers.")
            .object()
            .answers::<CurrentOf>()
            .run(|h, _, a: RecordArgs| Answer::of(&h.system()?.current_of(&a.record_id)?)),
        Verb::declare("record_understanding", f, "Everything a record's understanding holds: fields, versions, pending, provenance.")
            .object()
            .answers::<RecordUnderstanding>()
            .run(|h, _, a: RecordArgs| Answer::of(&h.system()?.record_understanding(&a.record_id)?)),
        Verb::declare("understanding_fields", f, "The understanding fields of a record's digest row.")
            .shape(CallShape::PureFunction)
            .object()
            .answers::<UnderstandingFields>()
            .run(|h, _, a: FieldsArgs| {
                let r = row(h.system()?, &a.record_id)?;
                Answer::of(&understanding_fields(&r, a.version_count, a.replaced_by.as_deref()))
            }),
        Verb::declare("reading_provenance", f, "Who read a record's digest row, when, from what.")
            .shape(CallShape::PureFunction)
            .object()
            .answers::<ReadingProvenance>()
            .run(|h, _, a: RecordArgs| Answer::of(&reading_provenance(&row(h.system()?, &a.record_id)?))),
    ]
}
