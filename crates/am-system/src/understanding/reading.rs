//! The reading an understanding write records, as its arguments give it:
//! the part every understanding-style arguments struct shares ([`Reading`]:
//! `author`, `reader`, `sources`, `cause`, `understood_at`, `task_id`,
//! declared once by `with_reading!` in [`super::args`]) and the one
//! validation of its provenance ([`Reading::validate`]).
//!
//! Spec: api.md "Understanding: in-place rewrites and versions"
//! ("Provenance arguments").

use crate::error::{Error, Result};
use am_journal::{AuthorKind, AuthorRef, ReaderRef, RewriteCause, SourceRef};
use am_triples::{JsonMap, Timestamp};
use serde_json::Value;

/// Who wrote a reading, from what, why, when and for which task: the
/// reading fields of an understanding verb's arguments, borrowed (each
/// arguments struct's `reading()`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading<'a> {
    /// `{kind, id}`.
    pub author: &'a AuthorRef,
    /// `{provider, model, thinking}`, when a model read.
    pub reader: Option<&'a ReaderRef>,
    /// The ledger sources.
    pub sources: &'a [SourceRef],
    /// A cause in `REWRITE_CAUSES`, or `{"cause": ..., ...}`.
    pub cause: &'a Value,
    /// When the reading was written (`None`: now).
    pub understood_at: Option<Timestamp>,
    /// The task the write settles.
    pub task_id: Option<&'a str>,
}

/// Validated provenance of one understanding write, as a stamp and a
/// version row store it (JSON dicts: a reading restored from a stored
/// version keeps the dicts it was stored with).
#[derive(Debug, Clone, PartialEq)]
pub struct ValidProvenance {
    /// `{kind, id}`.
    pub author: JsonMap,
    /// `{provider, model, thinking}`.
    pub reader: Option<JsonMap>,
    /// Ledger `SourceRef` dicts.
    pub sources: Vec<Value>,
    /// The cause as given (a name, or a mapping with its extra keys).
    pub cause: Value,
}

impl ValidProvenance {
    /// The cause's name.
    pub fn cause_name(&self) -> &str {
        match &self.cause {
            Value::String(s) => s,
            Value::Object(m) => m.get("cause").and_then(Value::as_str).unwrap_or(""),
            _ => "",
        }
    }
}

/// An author a caller names (`author`, `revert_digest`'s `by`): its kind
/// one of the spec's four `AUTHOR_KINDS`, its id not blank. Returns its dict.
///
/// # Errors
/// `InvalidInput` naming `what` and what arrived.
pub fn validate_author(what: &str, a: &AuthorRef) -> Result<JsonMap> {
    if !AuthorKind::AUTHORS.contains(&a.kind.as_str()) {
        return Err(Error::invalid(format!(
            "{what}.kind must be one of {:?}, got {}",
            AuthorKind::AUTHORS,
            am_triples::text::shown(a.kind.as_str())
        )));
    }
    if a.id.trim().is_empty() {
        return Err(Error::invalid(format!(
            "{what}.id must be a non-empty string, got {}",
            am_triples::text::shown(&a.id)
        )));
    }
    Ok(a.to_map())
}

impl Reading<'_> {
    /// The one validation of an understanding write's provenance (api.md
    /// "Provenance arguments"): `author` per [`validate_author`]; a
    /// `reader`'s `provider` and `model` not blank; a model author
    /// (`entity-mind`, `capability-model`) also a `reader` and at least one
    /// ledger `SourceRef` in `sources` (each already a valid ref: the type
    /// admits no other); `cause` one of `REWRITE_CAUSES` or `{"cause": <one
    /// of them>, ...}` whose other keys are kept verbatim.
    ///
    /// # Errors
    /// `InvalidInput` naming the argument, the rule and what arrived.
    pub fn validate(&self) -> Result<ValidProvenance> {
        let author = validate_author("author", self.author)?;
        let model = self.author.is_model();
        let kind = self.author.kind;
        if let Some(r) = self.reader {
            for (key, value) in [("provider", &r.provider), ("model", &r.model)] {
                if value.trim().is_empty() {
                    return Err(Error::invalid(format!(
                        "reader.{key} must be a non-empty string, got {}",
                        am_triples::text::shown(value)
                    )));
                }
            }
        }
        if model && self.reader.is_none() {
            return Err(Error::invalid(format!(
                "a model author ({kind}) must pass reader = {{provider, model, thinking}}, got none"
            )));
        }
        if model && self.sources.is_empty() {
            return Err(Error::invalid(format!(
                "a model author ({kind}) must name at least one ledger SourceRef in sources (the step of its \
                 call), got none"
            )));
        }
        let cause = self.cause;
        let name = match cause {
            Value::String(s) => Some(s.as_str()),
            Value::Object(m) => m.get("cause").and_then(Value::as_str),
            _ => None,
        };
        if name.is_none_or(|n| RewriteCause::parse(n).is_err()) {
            return Err(Error::invalid(format!(
                "cause must be one of {:?} or {{\"cause\": ..., ...}}, got {cause}",
                RewriteCause::NAMES
            )));
        }
        Ok(ValidProvenance {
            author,
            reader: self.reader.map(ReaderRef::to_map),
            sources: self.sources.iter().map(SourceRef::to_dict).collect(),
            cause: cause.clone(),
        })
    }
}
