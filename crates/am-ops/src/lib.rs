//! The verb table: every AbstractMemory verb declared once (its op name,
//! arguments struct, handler, summary, whether it writes, its call shape and
//! how its result is presented, the hooks it takes) and dispatched for every
//! front end: `am exec`, the servers, the Python package and the engine
//! manifest read this table, never a list of their own.
//!
//! [`dispatch`] runs one call: `dispatch(home, op, json_args, &host)` answers
//! the op's JSON and the warnings the call raised (its own: a call never
//! drains another's). A spec refusal is an `Ok` answer (the spec's outcome);
//! a malformed call is an [`OpError`] of kind `InvalidInput` naming the
//! argument.
//!
//! Adding a verb: its arguments struct beside the verb (deriving
//! `Deserialize` with `deny_unknown_fields` and `JsonSchema`), one entry in
//! the family's `verbs()` here, a line in a `tests/exec/*.jsonl` script and a
//! row in docs/exec.md (ARCHITECTURE.md, "Adding a verb").

pub mod args;
mod author;
pub mod error;
mod families;
pub mod home;
pub mod host;
pub mod manifest;
mod nulls;
pub mod verb;

pub use args::NoArgs;
pub use author::{EXHAUSTED_CLASS, ScriptedAuthor};
pub use error::{OpError, OpResult};
pub use families::query_from_json;
pub use home::{ClockChange, Home};
pub use host::{Hook, Host};
pub use manifest::{MANIFEST_VERSION, engine_manifest};
pub use verb::{Answer, Cadence, CallShape, Family, Present, Verb, to_json};

use am_triples::JsonMap;
use std::sync::OnceLock;

/// Every verb, in the order docs/exec.md lists them.
pub fn table() -> &'static [Verb] {
    static TABLE: OnceLock<Vec<Verb>> = OnceLock::new();
    TABLE.get_or_init(families::all)
}

/// The verb named `op`.
pub fn find(op: &str) -> Option<&'static Verb> {
    table().iter().find(|v| v.name == op)
}

/// Every op name, in table order.
pub fn op_names() -> impl Iterator<Item = &'static str> {
    table().iter().map(|v| v.name)
}

/// The refusal of an op the table does not hold, listing those it does.
pub fn unknown_op(op: &str) -> OpError {
    let known: Vec<&str> = op_names().collect();
    OpError::invalid(format!(
        "unknown op {op:?}; known ops: {}",
        known.join(", ")
    ))
}

/// Run `op` over `home` with its JSON arguments and the host's hooks. The
/// scripted form of a hook the verb declares (`author`, `cancel_after`) is
/// read from the arguments into the host ([`Host::scripted`]).
///
/// # Errors
/// `InvalidInput` for an unknown op or arguments the verb does not take;
/// the op's own refusal or failure.
pub fn dispatch(home: &mut dyn Home, op: &str, mut args: JsonMap, host: &Host) -> OpResult<Answer> {
    let verb = find(op).ok_or_else(|| unknown_op(op))?;
    if host.embedder_arg.is_some() && !verb.hooks.contains(&Hook::Embedder) {
        return Err(OpError::invalid(format!(
            "{op} takes no embedder object (only a verb whose embedder argument names a new space does: reembed_store, reembed_home)"
        )));
    }
    let host = host.scripted(verb.name, verb.hooks, &mut args)?;
    let answer = verb.call(home, &host, args)?;
    Ok(match host.leftover_warning(verb.name) {
        Some(w) => answer.with_warnings([w]),
        None => answer,
    })
}
