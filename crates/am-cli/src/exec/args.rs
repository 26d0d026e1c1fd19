//! The arguments of one exec line and the one adapter that reads them:
//! [`Args::parse`] deserializes exactly the arguments struct the engine's verb
//! takes (its `Deserialize` refuses any argument the verb does not take), so
//! no op has a hand-written parser. A JSON `null` argument is absent, as the
//! spec's `None` keyword default, at every depth of a dataclass argument.

use super::nulls::NullIsAbsent;
use crate::error::{CliError, CliResult};
use am_triples::JsonMap;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The remaining arguments of one operation.
pub struct Args {
    op: String,
    map: JsonMap,
}

impl Args {
    /// The arguments of `op`.
    pub fn new(op: &str, map: JsonMap) -> Self {
        Args {
            op: op.to_owned(),
            map,
        }
    }

    /// Whether the line names argument `key` (a JSON `null` is absent).
    pub fn has(&self, key: &str) -> bool {
        self.map.get(key).is_some_and(|v| !v.is_null())
    }

    /// Remove argument `key` from the line and return it (a JSON `null` is
    /// absent): for an argument an op reads itself before the rest goes
    /// through [`Args::parse`] (`engram`'s scripted `author`).
    pub fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    /// The op this line names.
    pub fn op(&self) -> &str {
        &self.op
    }

    /// The arguments as the struct `T` the verb takes: the one adapter every
    /// op goes through. Top-level nulls are absent (the keyword's default),
    /// and so is a `null` field of any struct inside ([`NullIsAbsent`]).
    ///
    /// # Errors
    /// Bad input (`InvalidInput`) naming the op and the unknown, missing or
    /// mistyped argument, as serde reports it (`unknown field "colour",
    /// expected one of ...`); a mistyped value is named by its path in the
    /// line (`argument budget.token_budget: invalid type: string "x",
    /// expected usize`).
    pub fn parse<T: DeserializeOwned>(self) -> CliResult<T> {
        let mut map = self.map;
        map.retain(|_, v| !v.is_null());
        serde_path_to_error::deserialize(NullIsAbsent(Value::Object(map))).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let what = if path == "." {
                inner.to_string()
            } else {
                format!("argument {path}: {inner}")
            };
            CliError::invalid(format!(
                "{}: {what} (see docs/exec.md for its arguments)",
                self.op
            ))
        })
    }
}
