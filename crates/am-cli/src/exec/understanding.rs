//! The exec ops of the understanding verbs (docs/exec.md "Understanding"):
//! `rewrite_digest`, `retitle`, `narrate_dream`, `revert_digest`,
//! `declare_pending`, `rearm_pending`, `versions`
//! (the system's, with `current`; the journal's reader when the line names
//! `assertion_id`, `until_seq` or `limit`), `current_of`,
//! `record_understanding`, `understanding_fields`, `reading_provenance`.
//! Each reads the engine's own arguments struct and answers the spec's dict.

use super::Args;
use super::to_json;
use crate::error::{CliError, CliResult};
use am_system::verbs::{
    DeclarePending, NarrateDream, RearmPending, Retitle, RevertDigest, RewriteDigest,
};
use am_system::{MemorySystem, reading_provenance, understanding_fields};
use serde::Deserialize;
use serde_json::Value;

/// The ops this module answers.
pub(super) const OPS: &[&str] = &[
    "rewrite_digest",
    "retitle",
    "narrate_dream",
    "revert_digest",
    "declare_pending",
    "rearm_pending",
    "current_of",
    "record_understanding",
    "understanding_fields",
    "reading_provenance",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordArgs {
    record_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionsArgs {
    record_id: String,
    #[serde(default)]
    field: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldsArgs {
    /// The record whose digest row is read (either id namespace).
    record_id: String,
    #[serde(default)]
    version_count: Option<i64>,
    #[serde(default)]
    replaced_by: Option<String>,
}

/// Whether a `versions` line is the system's verb (`record_id`, `field`)
/// rather than the journal's reader.
pub(super) fn is_system_versions(a: &Args) -> bool {
    a.has("record_id")
        && !["assertion_id", "until_seq", "limit"]
            .iter()
            .any(|k| a.has(k))
}

fn row(sys: &MemorySystem, id: &str) -> CliResult<am_triples::TripleAssertion> {
    sys.resolve_digest_assertion(id)?.ok_or_else(|| {
        CliError::from(am_system::Error::not_found(format!(
            "unknown record id {:?}: neither a digest assertion id nor a graph record id",
            id.trim()
        )))
    })
}

/// Answer `op` when it is one of this module's.
pub(super) fn understanding_op(sys: &MemorySystem, op: &str, a: Args) -> CliResult<Value> {
    match op {
        "rewrite_digest" => to_json(&sys.rewrite_digest(&a.parse::<RewriteDigest>()?)?),
        "retitle" => to_json(&sys.retitle(&a.parse::<Retitle>()?)?),
        "narrate_dream" => to_json(&sys.narrate_dream(&a.parse::<NarrateDream>()?)?),
        "revert_digest" => to_json(&sys.revert_digest(&a.parse::<RevertDigest>()?)?),
        "declare_pending" => to_json(&sys.declare_pending(&a.parse::<DeclarePending>()?)?),
        "rearm_pending" => to_json(&sys.rearm_pending(&a.parse::<RearmPending>()?)?),
        "versions" => {
            let VersionsArgs { record_id, field } = a.parse()?;
            to_json(&sys.versions(&record_id, field.as_deref())?)
        }
        "current_of" => {
            let RecordArgs { record_id } = a.parse()?;
            to_json(&sys.current_of(&record_id)?)
        }
        "record_understanding" => {
            let RecordArgs { record_id } = a.parse()?;
            to_json(&sys.record_understanding(&record_id)?)
        }
        "understanding_fields" => {
            let FieldsArgs {
                record_id,
                version_count,
                replaced_by,
            } = a.parse()?;
            let r = row(sys, &record_id)?;
            to_json(&understanding_fields(
                &r,
                version_count,
                replaced_by.as_deref(),
            ))
        }
        "reading_provenance" => {
            let RecordArgs { record_id } = a.parse()?;
            to_json(&reading_provenance(&row(sys, &record_id)?))
        }
        other => Err(CliError::invalid(format!("unknown op {other:?}"))),
    }
}
