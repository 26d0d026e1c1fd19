//! The one error type of every AbstractMemory crate: an [`ErrorKind`], a message,
//! context pairs, and the source error it came from.
//!
//! Conformance checks assert on [`ErrorKind`], never on message text. Messages name
//! what was expected and what arrived ("limit must be a positive int, got 0").
//! Every library crate returns this [`Error`] (the SQLite backend wraps it to
//! convert `rusqlite` errors with `?`), so a conversion between crates is the
//! identity: the kind, the context and the source survive every layer. A spec
//! *refusal* (an outcome the spec lists) is not an error; it is an `Ok` result.

use std::fmt;

/// What went wrong, independent of the crate or backend that reported it.
///
/// Backends map their native errors (SQLite, HTTP, LanceDB) into it at the trait
/// boundary. [`caller_at_fault`](ErrorKind::caller_at_fault) and
/// [`retry_may_help`](ErrorKind::retry_may_help) say who can fix it; `am` maps
/// its exit code from them. The names ([`name`](ErrorKind::name)) are the
/// `kind` of an `am exec` error answer.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The caller's input is malformed or violates a documented rule (Python's `ValueError`).
    InvalidInput,
    /// A named id or object does not exist.
    NotFound,
    /// The backend does not offer this operation (Python's `NotImplementedError`).
    Unsupported,
    /// The write conflicts with what is stored (a stale cursor, a conflicting digest).
    Conflict,
    /// A graph revision lacks the provenance the contract requires.
    ProvenanceRequired,
    /// A vector's dimension contradicts the store's embedding pin or the query.
    DimensionMismatch,
    /// The embedder failed (transport, HTTP status, malformed reply).
    Embedder,
    /// The storage engine failed (I/O, SQLite, a corrupt file).
    Storage,
    /// The engine refuses by policy (a newer schema, a contradicting embedder identity).
    Refused,
    /// An operation exceeded its time bound.
    Timeout,
    /// An invariant of this code is broken (a bug, or a home damaged behind our
    /// back): neither the caller's fault nor something a retry fixes.
    Internal,
}

impl ErrorKind {
    /// The kind's name as `am exec` answers it (`"InvalidInput"`, `"NotFound"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "InvalidInput",
            ErrorKind::NotFound => "NotFound",
            ErrorKind::Unsupported => "Unsupported",
            ErrorKind::Conflict => "Conflict",
            ErrorKind::ProvenanceRequired => "ProvenanceRequired",
            ErrorKind::DimensionMismatch => "DimensionMismatch",
            ErrorKind::Embedder => "Embedder",
            ErrorKind::Storage => "Storage",
            ErrorKind::Refused => "Refused",
            ErrorKind::Timeout => "Timeout",
            ErrorKind::Internal => "Internal",
        }
    }

    /// Whether the caller caused the error and can fix it by changing the call
    /// (its input, the ids it names, the home or embedder it chose). `am` exits
    /// with 2 for these kinds and 1 for the others.
    pub const fn caller_at_fault(self) -> bool {
        match self {
            ErrorKind::InvalidInput
            | ErrorKind::NotFound
            | ErrorKind::Unsupported
            | ErrorKind::Conflict
            | ErrorKind::ProvenanceRequired
            | ErrorKind::DimensionMismatch
            | ErrorKind::Refused => true,
            ErrorKind::Embedder | ErrorKind::Storage | ErrorKind::Timeout | ErrorKind::Internal => {
                false
            }
        }
    }

    /// Whether the same call may succeed if repeated unchanged: a transport or
    /// storage failure (a busy database, a server that was down) or a timeout.
    /// A refused input or a broken invariant fails the same way again.
    pub const fn retry_may_help(self) -> bool {
        matches!(
            self,
            ErrorKind::Embedder | ErrorKind::Storage | ErrorKind::Timeout
        )
    }

    /// The lower-case words a message of this kind starts with.
    const fn lead(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid input",
            ErrorKind::NotFound => "not found",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Conflict => "conflict",
            ErrorKind::ProvenanceRequired => "provenance required",
            ErrorKind::DimensionMismatch => "dimension mismatch",
            ErrorKind::Embedder => "embedder failed",
            ErrorKind::Storage => "storage error",
            ErrorKind::Refused => "refused",
            ErrorKind::Timeout => "timed out",
            ErrorKind::Internal => "internal error",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The boxed source of an [`Error`]: the native error it was made from.
pub type BoxedSource = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The tag of a malformed `SourceRef` (the graph's `InvalidSourceRef`, kind
/// [`ErrorKind::InvalidInput`]).
const INVALID_SOURCE_REF: &str = "invalid source reference";

/// The error of every AbstractMemory crate (after OpenDAL's `Error`).
///
/// - [`kind`](Error::kind): what went wrong, the only thing callers and checks
///   match on;
/// - [`message`](Error::message): what was expected and what arrived, complete
///   on its own (a wrapped native error's text is part of it);
/// - [`context`](Error::context): `key: value` pairs naming where it happened
///   (a path, a SQLite extended result code);
/// - the source ([`std::error::Error::source`]): the native error it was made
///   from (the `rusqlite::Error`, the embedder's structured `am_embed::Error`),
///   kept for callers that inspect it, never flattened away.
///
/// `Display` is `"<kind words>: <message>"`, then the context pairs in brackets
/// when there are any; it names no Python exception class.
///
/// # Examples
///
/// ```
/// use am_triples::{Error, ErrorKind};
///
/// let e = Error::invalid("limit must be a positive int, got 0").with_prefix("limit");
/// assert_eq!(e.kind(), ErrorKind::InvalidInput);
/// assert!(e.kind().caller_at_fault());
/// assert_eq!(e.to_string(), "invalid input: limit: limit must be a positive int, got 0");
/// ```
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// A finer, stable name inside the kind, used as the message's lead words.
    tag: Option<&'static str>,
    context: Vec<(&'static str, String)>,
    source: Option<BoxedSource>,
}

impl Error {
    /// An error of `kind` with `message` (what was expected and what arrived).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            tag: None,
            context: Vec::new(),
            source: None,
        }
    }

    /// [`ErrorKind::InvalidInput`]: malformed input or a violated rule.
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidInput, message)
    }

    /// [`ErrorKind::NotFound`]: an unknown id or object.
    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::NotFound, message)
    }

    /// [`ErrorKind::Unsupported`]: the backend does not offer the operation.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Unsupported, message)
    }

    /// [`ErrorKind::Conflict`]: a write that conflicts with what is stored.
    pub fn conflict(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Conflict, message)
    }

    /// [`ErrorKind::ProvenanceRequired`]: a revision lacks required provenance.
    pub fn provenance_required(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::ProvenanceRequired, message)
    }

    /// A malformed `SourceRef` (unknown kind, missing or blank id, bad `seq`,
    /// foreign field, synthetic run id, conflicting digest): kind
    /// [`ErrorKind::InvalidInput`], recognized by
    /// [`is_invalid_source_ref`](Error::is_invalid_source_ref).
    pub fn invalid_ref(message: impl Into<String>) -> Self {
        let mut e = Error::invalid(message);
        e.tag = Some(INVALID_SOURCE_REF);
        e
    }

    /// [`ErrorKind::DimensionMismatch`]: a vector of the wrong dimension.
    pub fn dimension_mismatch(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::DimensionMismatch, message)
    }

    /// [`ErrorKind::Embedder`]: the embedder failed.
    pub fn embedder(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Embedder, message)
    }

    /// [`ErrorKind::Storage`]: the storage engine failed.
    pub fn storage(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Storage, message)
    }

    /// [`ErrorKind::Refused`]: refused by policy.
    pub fn refused(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Refused, message)
    }

    /// [`ErrorKind::Timeout`]: an operation exceeded its time bound.
    pub fn timeout(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Timeout, message)
    }

    /// [`ErrorKind::Internal`]: a broken invariant of this code.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Internal, message)
    }

    /// An error of `kind` made from the native error `source`: the message is
    /// `lead` (when not empty) and the source's text, and the source is kept.
    pub fn from_source(
        kind: ErrorKind,
        lead: &str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        let message = if lead.is_empty() {
            source.to_string()
        } else {
            format!("{lead}: {source}")
        };
        Error::new(kind, message).with_source(source)
    }

    /// The kind of this error, for callers and conformance checks.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message: what was expected and what arrived (without the kind's words).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The context pairs, in the order they were added.
    pub fn context(&self) -> &[(&'static str, String)] {
        &self.context
    }

    /// The value of the context pair `key`, if any.
    pub fn context_value(&self, key: &str) -> Option<&str> {
        self.context
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is the graph's malformed-`SourceRef` error (Python's
    /// `InvalidSourceRef`, a `ValueError`: its kind is `InvalidInput`).
    pub fn is_invalid_source_ref(&self) -> bool {
        self.tag == Some(INVALID_SOURCE_REF)
    }

    /// The same error with the context pair `key: value` added.
    #[must_use]
    pub fn with_context(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.context.push((key, value.into()));
        self
    }

    /// The same error with `source` kept as its source (replacing any).
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// The same error with `kind` instead of its own (message, context and
    /// source kept), for a layer that knows better what the failure means.
    #[must_use]
    pub fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// The same error (same kind) with `prefix: ` before its message, to name the
    /// field or item it concerns ("observed_at: expected ..., got ...").
    #[must_use]
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}: {}", self.message);
        self
    }

    /// The same error with `suffix` appended to its message (used to name the
    /// store's embedding pin on embed-time failures).
    #[must_use]
    pub fn with_suffix(mut self, suffix: &str) -> Self {
        self.message = format!("{} {suffix}", self.message);
        self
    }

    /// The source error as a concrete type, when it is one.
    pub fn source_as<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.source.as_deref().and_then(|s| s.downcast_ref::<E>())
    }

    fn lead(&self) -> &'static str {
        self.tag.unwrap_or(self.kind.lead())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.lead(), self.message)?;
        if !self.context.is_empty() {
            f.write_str(" [")?;
            for (i, (k, v)) in self.context.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{k}: {v}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.kind).field("message", &self.message);
        if let Some(tag) = self.tag {
            d.field("tag", &tag);
        }
        if !self.context.is_empty() {
            d.field("context", &self.context);
        }
        if let Some(s) = &self.source {
            d.field("source", s);
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

/// Layer 1's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_classes_split_the_kinds() {
        for k in [
            ErrorKind::InvalidInput,
            ErrorKind::NotFound,
            ErrorKind::Unsupported,
            ErrorKind::Conflict,
            ErrorKind::ProvenanceRequired,
            ErrorKind::DimensionMismatch,
            ErrorKind::Refused,
        ] {
            assert!(k.caller_at_fault() && !k.retry_may_help(), "{k}");
        }
        for k in [ErrorKind::Embedder, ErrorKind::Storage, ErrorKind::Timeout] {
            assert!(!k.caller_at_fault() && k.retry_may_help(), "{k}");
        }
        assert!(!ErrorKind::Internal.caller_at_fault());
        assert!(!ErrorKind::Internal.retry_may_help());
    }

    #[test]
    fn a_source_is_kept_and_reachable() {
        let io = std::io::Error::other("disk gone");
        let e = Error::from_source(ErrorKind::Storage, "writing the home", io)
            .with_context("path", "/tmp/x");
        assert_eq!(e.kind(), ErrorKind::Storage);
        assert!(e.source_as::<std::io::Error>().is_some());
        assert!(std::error::Error::source(&e).is_some());
        assert_eq!(
            e.to_string(),
            "storage error: writing the home: disk gone [path: /tmp/x]"
        );
        assert_eq!(e.context_value("path"), Some("/tmp/x"));
    }

    #[test]
    fn prefixes_keep_kind_tag_and_source() {
        let e = Error::invalid_ref("seq must be an int >= 1, got 0").with_prefix("sources[1]");
        assert!(e.is_invalid_source_ref());
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            "invalid source reference: sources[1]: seq must be an int >= 1, got 0"
        );
    }
}
