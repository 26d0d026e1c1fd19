//! The arguments of one exec line: typed getters that consume keys, and a
//! final check that refuses any argument the verb does not take.

use crate::error::{CliError, CliResult};
use am_triples::JsonMap;
use serde::Serialize;
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

    /// An optional integer.
    pub fn opt_i64(&mut self, key: &str) -> CliResult<Option<i64>> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.bad(key, "an integer", &v)),
        }
    }

    /// An optional non-negative integer.
    pub fn opt_usize(&mut self, key: &str) -> CliResult<Option<usize>> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| self.bad(key, "a non-negative integer", &v)),
        }
    }

    /// An optional number.
    pub fn opt_f64(&mut self, key: &str) -> CliResult<Option<f64>> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.bad(key, "a number", &v)),
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

    /// An optional list of strings.
    pub fn opt_str_list(&mut self, key: &str) -> CliResult<Option<Vec<String>>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s),
                    other => Err(self.bad(key, "a list of strings", &other)),
                })
                .collect::<CliResult<Vec<_>>>()
                .map(Some),
            Some(v) => Err(self.bad(key, "a list of strings", &v)),
        }
    }

    /// A list of strings (absent is empty).
    pub fn str_list(&mut self, key: &str) -> CliResult<Vec<String>> {
        Ok(self.opt_str_list(key)?.unwrap_or_default())
    }

    /// A required list of strings.
    pub fn req_str_list(&mut self, key: &str) -> CliResult<Vec<String>> {
        self.opt_str_list(key)?.ok_or_else(|| {
            CliError::invalid(format!(
                "{}: missing required argument {key:?} (a list of strings)",
                self.op
            ))
        })
    }

    /// An optional JSON object.
    pub fn opt_obj(&mut self, key: &str) -> CliResult<Option<JsonMap>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(v) => Err(self.bad(key, "a JSON object", &v)),
        }
    }

    /// A list of string pairs `[[a, b], ...]`.
    pub fn pairs(&mut self, key: &str) -> CliResult<Vec<(String, String)>> {
        let Some(v) = self.take(key) else {
            return Ok(Vec::new());
        };
        let Value::Array(items) = &v else {
            return Err(self.bad(key, "a list of [a, b] pairs", &v));
        };
        items
            .iter()
            .map(|p| match p.as_array().map(Vec::as_slice) {
                Some([Value::String(a), Value::String(b)]) => Ok((a.clone(), b.clone())),
                _ => Err(self.bad(key, "a list of [a, b] string pairs", p)),
            })
            .collect()
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

/// Deserialize a spec dataclass from a JSON object, refusing unknown fields
/// (the known ones are the fields of `T::default()` as serialized).
///
/// # Errors
/// Bad input naming the dataclass and the unknown or malformed field.
pub fn dataclass<T: DeserializeOwned + Serialize + Default>(
    name: &str,
    value: Value,
) -> CliResult<T> {
    let Value::Object(map) = &value else {
        return Err(CliError::invalid(format!(
            "{name} must be a JSON object, got {} ({value})",
            type_name(&value)
        )));
    };
    let known = serde_json::to_value(T::default()).unwrap_or(Value::Null);
    if let Some(k) = map.keys().find(|k| known.get(k.as_str()).is_none()) {
        let fields: Vec<&String> = known
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        return Err(CliError::invalid(format!(
            "{name} has no field {k:?} (fields: {fields:?})"
        )));
    }
    let mut cleaned = map.clone();
    cleaned.retain(|_, v| !v.is_null());
    serde_json::from_value(Value::Object(cleaned))
        .map_err(|e| CliError::invalid(format!("malformed {name}: {e}")))
}
