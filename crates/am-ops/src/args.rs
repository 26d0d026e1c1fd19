//! The one adapter that reads a call's JSON arguments: [`parse`]
//! deserializes exactly the arguments struct the verb takes (its
//! `Deserialize` refuses any argument the verb does not take), so no op has
//! a hand-written parser. A JSON `null` argument is absent, as the spec's
//! `None` keyword default, at every depth of a dataclass argument
//! ([`crate::nulls`]).

use crate::error::{OpError, OpResult};
use crate::nulls::NullIsAbsent;
use am_triples::JsonMap;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The arguments of an op that takes none.
#[derive(Debug, Clone, Copy, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The arguments of `op` as the struct `T` the verb takes. Top-level nulls
/// are absent (the keyword's default), and so is a `null` field of any
/// struct inside.
///
/// # Errors
/// Bad input (`InvalidInput`) naming the op and the unknown, missing or
/// mistyped argument, as serde reports it (`unknown field "colour",
/// expected one of ...`); a mistyped value is named by its path in the
/// call (`argument budget.token_budget: invalid type: string "x",
/// expected usize`).
pub fn parse<T: DeserializeOwned>(op: &str, mut map: JsonMap) -> OpResult<T> {
    map.retain(|_, v| !v.is_null());
    serde_path_to_error::deserialize(NullIsAbsent(Value::Object(map))).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let what = if path == "." {
            inner.to_string()
        } else {
            format!("argument {path}: {inner}")
        };
        OpError::invalid(format!("{op}: {what} (see docs/exec.md for its arguments)"))
    })
}
