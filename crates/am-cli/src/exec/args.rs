//! The arguments of one exec line and the one adapter that reads them:
//! [`Args::parse`] deserializes exactly the arguments struct the engine's verb
//! takes (its `Deserialize` refuses any argument the verb does not take), so
//! no op has a hand-written parser. A JSON `null` argument is absent, as the
//! spec's `None` keyword default.

use crate::error::{CliError, CliResult};
use am_triples::JsonMap;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The remaining arguments of one operation.
pub struct Args {
    op: String,
    map: JsonMap,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl Args {
    /// The arguments of `op`.
    pub fn new(op: &str, map: JsonMap) -> Self {
        Args {
            op: op.to_owned(),
            map,
        }
    }

    /// The arguments as the struct `T` the verb takes: the one adapter every
    /// op goes through. Top-level nulls are absent (the keyword's default).
    ///
    /// # Errors
    /// Bad input (`InvalidInput`) naming the op and the unknown, missing or
    /// mistyped argument, as serde reports it (`unknown field "colour",
    /// expected one of ...`).
    pub fn parse<T: DeserializeOwned>(self) -> CliResult<T> {
        let mut map = self.map;
        map.retain(|_, v| !v.is_null());
        serde_json::from_value(Value::Object(map)).map_err(|e| {
            CliError::invalid(format!(
                "{}: {e} (see docs/exec.md for its arguments)",
                self.op
            ))
        })
    }

    fn bad(&self, key: &str, expected: &str, got: &Value) -> CliError {
        CliError::invalid(format!(
            "{}: argument {key:?} must be {expected}, got {} ({got})",
            self.op,
            type_name(got)
        ))
    }

    /// Take `key` (a JSON null is absent).
    pub fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    /// A required string.
    pub fn req_str(&mut self, key: &str) -> CliResult<String> {
        self.opt_str(key)?.ok_or_else(|| {
            CliError::invalid(format!(
                "{}: missing required argument {key:?} (a string)",
                self.op
            ))
        })
    }

    /// An optional string.
    pub fn opt_str(&mut self, key: &str) -> CliResult<Option<String>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.bad(key, "a string", &v)),
        }
    }

    /// An optional boolean.
    pub fn opt_bool(&mut self, key: &str) -> CliResult<Option<bool>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(v) => Err(self.bad(key, "a boolean", &v)),
        }
    }

    /// Refuse any argument left unconsumed: a verb never ignores one.
    pub fn done(self) -> CliResult<()> {
        if self.map.is_empty() {
            return Ok(());
        }
        let keys: Vec<&String> = self.map.keys().collect();
        Err(CliError::invalid(format!(
            "{} does not take the argument(s) {keys:?} (see docs/exec.md for its arguments)",
            self.op
        )))
    }
}
