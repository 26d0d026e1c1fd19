//! `TripleAssertion`: the append-only unit of layer 1, and term canonicalization.
//!
//! Spec: api.md "Layer 1 / TripleAssertion"; algorithms.md §1.

use crate::error::{Error, Result};
use crate::timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON object, as `provenance` and `attributes` hold.
pub type JsonMap = Map<String, Value>;

/// The scope an assertion gets when none (or a blank one) is given.
pub const DEFAULT_SCOPE: &str = "run";

/// Python's `str.isspace()`: Unicode White_Space plus U+001C..U+001F.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no argument.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Trim and lowercase a term (Python `str.strip().lower()`).
///
/// Spec: algorithms.md §1 `canonicalize_term`.
pub fn canonicalize_term(s: &str) -> String {
    py_strip(s).to_lowercase()
}

/// Strip; a blank value becomes `None`.
pub fn strip_optional(s: Option<&str>) -> Option<String> {
    s.map(py_strip).filter(|v| !v.is_empty()).map(str::to_owned)
}

/// Whether a JSON value is truthy the way Python's `bool()` reads it.
pub fn json_truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// One triple assertion: who said what about whom, when, in which scope, and why.
///
/// Fields are public so callers can build and read them freely; every store runs
/// [`TripleAssertion::canonicalized`] at its write boundary, so what is stored is
/// always canonical: subject, predicate and object trimmed and lowercased (a
/// `literal` object keeps its case), scope lowercased with default `run`, a blank
/// owner is `None`, and every timestamp is in the canonical UTC form.
///
/// JSON (`to_dict`/`from_dict`) uses the spec's field names and omits nulls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TripleAssertion {
    /// Read-side identity; stores stamp it on every result; optional on writes.
    /// First, so `to_dict` keys come in Python's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion_id: Option<String>,
    /// Canonical subject term.
    pub subject: String,
    /// Canonical predicate term.
    pub predicate: String,
    /// Canonical object term (case kept when `attributes.literal` is truthy).
    pub object: String,
    /// Partition label, lowercased; default `run`.
    #[serde(default = "default_scope")]
    pub scope: String,
    /// Identifier within the scope; `None` when absent or blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_id: Option<String>,
    /// Record time, canonical UTC text; defaults to now.
    #[serde(default)]
    pub observed_at: String,
    /// Start of the validity window (inclusive), canonical UTC text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<String>,
    /// End of the validity window (exclusive), canonical UTC text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<String>,
    /// Optional confidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Free-form provenance object.
    #[serde(default)]
    pub provenance: JsonMap,
    /// Free-form attributes object (`literal`, `record_kind`, `_retrieval`, ...).
    #[serde(default)]
    pub attributes: JsonMap,
}

/// The spec's `TripleAssertion` fields, in `to_dict` order.
const FIELDS: [&str; 12] = [
    "assertion_id",
    "subject",
    "predicate",
    "object",
    "scope",
    "owner_id",
    "observed_at",
    "valid_from",
    "valid_until",
    "confidence",
    "provenance",
    "attributes",
];

fn default_scope() -> String {
    DEFAULT_SCOPE.to_owned()
}

impl TripleAssertion {
    /// A new assertion with canonical terms, scope `run`, no owner and
    /// `observed_at` = now. Chain the `with_*` setters for the rest.
    ///
    /// # Examples
    /// ```
    /// use am_triples::TripleAssertion;
    /// let a = TripleAssertion::new(" Scrooge ", "IS", "Miser").with_scope("Session");
    /// assert_eq!((a.subject.as_str(), a.object.as_str(), a.scope.as_str()), ("scrooge", "miser", "session"));
    /// ```
    pub fn new(subject: &str, predicate: &str, object: &str) -> Self {
        TripleAssertion {
            subject: canonicalize_term(subject),
            predicate: canonicalize_term(predicate),
            object: canonicalize_term(object),
            scope: DEFAULT_SCOPE.to_owned(),
            owner_id: None,
            observed_at: timestamp::now_utc(),
            valid_from: None,
            valid_until: None,
            confidence: None,
            provenance: JsonMap::new(),
            attributes: JsonMap::new(),
            assertion_id: None,
        }
    }

    /// A literal assertion: the object keeps its case (trim only) and
    /// `attributes.literal = true`.
    pub fn new_literal(subject: &str, predicate: &str, object: &str) -> Self {
        let mut a = Self::new(subject, predicate, object);
        a.object = py_strip(object).to_owned();
        a.attributes.insert("literal".into(), Value::Bool(true));
        a
    }

    /// Set the scope (lowercased; blank means `run`).
    pub fn with_scope(mut self, scope: &str) -> Self {
        self.scope = canonical_scope(scope);
        self
    }

    /// Set the owner (blank means none).
    pub fn with_owner(mut self, owner_id: &str) -> Self {
        self.owner_id = strip_optional(Some(owner_id));
        self
    }

    /// Set `observed_at` (validated when the assertion is written).
    pub fn with_observed_at(mut self, observed_at: &str) -> Self {
        self.observed_at = observed_at.to_owned();
        self
    }

    /// Set the validity window (either end may be `None`).
    pub fn with_validity(mut self, valid_from: Option<&str>, valid_until: Option<&str>) -> Self {
        self.valid_from = valid_from.map(str::to_owned);
        self.valid_until = valid_until.map(str::to_owned);
        self
    }

    /// Set the confidence.
    pub fn with_confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence);
        self
    }

    /// Set the provenance object.
    pub fn with_provenance(mut self, provenance: JsonMap) -> Self {
        self.provenance = provenance;
        self
    }

    /// Set the attributes object (re-canonicalizes the object if `literal` changes).
    pub fn with_attributes(mut self, attributes: JsonMap) -> Self {
        self.attributes = attributes;
        if !self.is_literal() {
            self.object = canonicalize_term(&self.object);
        }
        self
    }

    /// Set the assertion id (blank means none).
    pub fn with_id(mut self, assertion_id: &str) -> Self {
        self.assertion_id = strip_optional(Some(assertion_id));
        self
    }

    /// Whether `attributes.literal` is truthy (the object keeps its case).
    pub fn is_literal(&self) -> bool {
        json_truthy(self.attributes.get("literal"))
    }

    /// The canonical form of this assertion, as every store writes it.
    ///
    /// Trims and lowercases the terms (the object of a literal is only trimmed),
    /// lowercases the scope (blank → `run`), blanks become `None`, `observed_at`
    /// defaults to now, and every timestamp is normalized to canonical UTC.
    ///
    /// # Errors
    /// `InvalidInput` when a timestamp is not a timestamp, or the
    /// confidence is not finite.
    pub fn canonicalized(&self) -> Result<TripleAssertion> {
        let literal = self.is_literal();
        let observed = py_strip(&self.observed_at);
        let observed_at = if observed.is_empty() {
            timestamp::now_utc()
        } else {
            timestamp::normalize_timestamp(observed).map_err(|e| e.with_prefix("observed_at"))?
        };
        let valid_from = timestamp::normalize_optional(self.valid_from.as_deref())
            .map_err(|e| e.with_prefix("valid_from"))?;
        let valid_until = timestamp::normalize_optional(self.valid_until.as_deref())
            .map_err(|e| e.with_prefix("valid_until"))?;
        if let Some(c) = self.confidence
            && !c.is_finite()
        {
            return Err(Error::invalid(format!(
                "confidence must be finite, got {c}"
            )));
        }
        Ok(TripleAssertion {
            subject: canonicalize_term(&self.subject),
            predicate: canonicalize_term(&self.predicate),
            object: if literal {
                py_strip(&self.object).to_owned()
            } else {
                canonicalize_term(&self.object)
            },
            scope: canonical_scope(&self.scope),
            owner_id: strip_optional(self.owner_id.as_deref()),
            observed_at,
            valid_from,
            valid_until,
            confidence: self.confidence,
            provenance: self.provenance.clone(),
            attributes: self.attributes.clone(),
            assertion_id: strip_optional(self.assertion_id.as_deref()),
        })
    }

    /// The JSON object form (nulls omitted), as Python's `to_dict()`.
    pub fn to_dict(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Build from a JSON object, validating required fields (`subject`,
    /// `predicate`, `object` must be non-empty strings) and canonicalizing.
    /// A key that is not a field of the spec's `TripleAssertion` is refused,
    /// never dropped.
    ///
    /// # Errors
    /// `InvalidInput` naming the missing, mistyped or unknown field.
    pub fn from_dict(value: &Value) -> Result<TripleAssertion> {
        let obj = value
            .as_object()
            .ok_or_else(|| Error::invalid(format!("expected a JSON object, got {value}")))?;
        for field in ["subject", "predicate", "object"] {
            match obj.get(field) {
                Some(Value::String(s)) if py_strip(s).is_empty() => {
                    return Err(Error::invalid(format!(
                        "{field} must be a non-empty string, got {s:?}"
                    )));
                }
                Some(Value::String(_)) => {}
                Some(other) => {
                    return Err(Error::invalid(format!(
                        "{field} must be a string, got {other}"
                    )));
                }
                None => return Err(Error::invalid(format!("missing required field {field:?}"))),
            }
        }
        if let Some(unknown) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(Error::invalid(format!(
                "TripleAssertion has no field {unknown:?} (fields: {})",
                FIELDS.join(", ")
            )));
        }
        // Optional fields: null is absent; any other value must have the field's type.
        let mut present = obj.clone();
        present.retain(|_, v| !v.is_null());
        for (field, expected) in [
            ("assertion_id", "a string"),
            ("scope", "a string"),
            ("owner_id", "a string"),
            ("observed_at", "a string"),
            ("valid_from", "a string"),
            ("valid_until", "a string"),
            ("confidence", "a number"),
            ("provenance", "a JSON object"),
            ("attributes", "a JSON object"),
        ] {
            let fits = match present.get(field) {
                None => true,
                Some(v) => match expected {
                    "a number" => v.is_number(),
                    "a JSON object" => v.is_object(),
                    _ => v.is_string(),
                },
            };
            if !fits {
                return Err(Error::invalid(format!(
                    "{field} must be {expected}, got {}",
                    present[field]
                )));
            }
        }
        let mut parsed: TripleAssertion = serde_json::from_value(Value::Object(present))
            .map_err(|e| Error::invalid(format!("malformed assertion: {e}")))?;
        if parsed.observed_at.is_empty() {
            parsed.observed_at = timestamp::now_utc();
        }
        parsed.canonicalized()
    }
}

/// Lowercase and trim a scope; blank means [`DEFAULT_SCOPE`].
pub fn canonical_scope(scope: &str) -> String {
    let s = canonicalize_term(scope);
    if s.is_empty() {
        DEFAULT_SCOPE.to_owned()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terms_are_trimmed_and_lowercased_but_literals_keep_case() {
        let a = TripleAssertion::new("  Alice ", "KNOWS", " Bob\u{1f}");
        assert_eq!(
            (a.subject.as_str(), a.predicate.as_str(), a.object.as_str()),
            ("alice", "knows", "bob")
        );
        let l = TripleAssertion::new_literal("x", "dcterms:abstract", "  Report Q3 ");
        assert_eq!(l.object, "Report Q3");
    }

    #[test]
    fn to_dict_omits_nulls_and_from_dict_validates() {
        let a = TripleAssertion::new("a", "b", "c").with_observed_at("2026-01-01T00:00:00Z");
        let d = a.to_dict();
        assert!(d.get("owner_id").is_none());
        assert_eq!(d["scope"], "run");
        let back = TripleAssertion::from_dict(&d).unwrap();
        assert_eq!(back.observed_at, "2026-01-01T00:00:00.000000+00:00");
        let err =
            TripleAssertion::from_dict(&json!({"subject": "a", "predicate": "b"})).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
        let err =
            TripleAssertion::from_dict(&json!({"subject": "a", "predicate": "b", "object": 3}))
                .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
    }

    #[test]
    fn blank_owner_is_none_and_blank_scope_is_run() {
        let a = TripleAssertion::new("a", "b", "c")
            .with_owner("  ")
            .with_scope(" ");
        assert_eq!(a.owner_id, None);
        assert_eq!(a.scope, "run");
    }
}
