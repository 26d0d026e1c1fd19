//! The graph's error enum, mapped onto the shared [`am_triples::ErrorKind`].
//!
//! Spec: api.md "The memory graph: revisions and provenance" (`ProvenanceRequired`,
//! `InvalidSourceRef`, the `ValueError`s of revisions and reads);
//! troubleshooting.md "`ProvenanceRequired` from `MemoryGraph.apply_revision`".

use am_triples::ErrorKind;

/// Errors of the memory graph: refused provenance, malformed references and
/// revisions, and the failures of the store and journal underneath.
///
/// Every refusal writes nothing; the message names what was expected and what
/// arrived (or, for [`Error::ProvenanceRequired`], the rule that refused it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A memory or revision lacks the provenance the contract requires: it names
    /// no ledger source and no parent, its lineage never reaches a source, it
    /// crosses owners, or a provenance dict has a key outside `PROVENANCE_KEYS`.
    /// Kind [`ErrorKind::ProvenanceRequired`].
    #[error("ProvenanceRequired: {0}")]
    ProvenanceRequired(String),
    /// A malformed `SourceRef` (unknown kind, missing or blank id, bad `seq`,
    /// unknown or foreign field, synthetic run id, bad or conflicting digest).
    /// Python's `InvalidSourceRef`, a `ValueError`: kind [`ErrorKind::InvalidInput`].
    #[error("InvalidSourceRef: {0}")]
    InvalidSourceRef(String),
    /// Malformed input (Python's `ValueError`): a bad cause, time, op payload or limit.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A named id or object does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// No connector is registered for the store (Python's `NotImplementedError`).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The write conflicts with what is stored.
    #[error("conflict: {0}")]
    Conflict(String),
    /// Refused by policy (e.g. revisions await closures and no journal is attached:
    /// Python's `RuntimeError` in `repair`).
    #[error("refused: {0}")]
    Refused(String),
    /// The storage engine failed.
    #[error("storage error: {0}")]
    Storage(String),
    /// An error of the triple store underneath (its kind is kept).
    #[error(transparent)]
    Triples(#[from] am_triples::Error),
    /// An error of the journal underneath (its kind is kept).
    #[error(transparent)]
    Journal(#[from] am_journal::Error),
}

impl Error {
    /// The shared kind of this error, for callers and conformance checks.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::ProvenanceRequired(_) => ErrorKind::ProvenanceRequired,
            Error::InvalidSourceRef(_) | Error::InvalidInput(_) => ErrorKind::InvalidInput,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Unsupported(_) => ErrorKind::Unsupported,
            Error::Conflict(_) => ErrorKind::Conflict,
            Error::Refused(_) => ErrorKind::Refused,
            Error::Storage(_) => ErrorKind::Storage,
            Error::Triples(e) => e.kind(),
            Error::Journal(e) => e.kind(),
        }
    }

    /// Shorthand for [`Error::InvalidInput`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidInput(msg.into())
    }

    /// Shorthand for [`Error::InvalidSourceRef`].
    pub fn invalid_ref(msg: impl Into<String>) -> Self {
        Error::InvalidSourceRef(msg.into())
    }

    /// Shorthand for [`Error::ProvenanceRequired`].
    pub fn provenance_required(msg: impl Into<String>) -> Self {
        Error::ProvenanceRequired(msg.into())
    }

    /// Whether this is Python's `InvalidSourceRef` (a `ValueError` subclass: its
    /// [`kind`](Error::kind) is `InvalidInput`).
    pub fn is_invalid_source_ref(&self) -> bool {
        matches!(self, Error::InvalidSourceRef(_))
    }

    /// The same error (same variant) with `prefix: ` before its message, to name the
    /// field or op it concerns (`"ops[2].payload.valid_until: expected ..., got ..."`).
    pub fn with_prefix(self, prefix: &str) -> Self {
        match self {
            Error::ProvenanceRequired(m) => Error::ProvenanceRequired(format!("{prefix}: {m}")),
            Error::InvalidSourceRef(m) => Error::InvalidSourceRef(format!("{prefix}: {m}")),
            Error::InvalidInput(m) => Error::InvalidInput(format!("{prefix}: {m}")),
            Error::NotFound(m) => Error::NotFound(format!("{prefix}: {m}")),
            Error::Unsupported(m) => Error::Unsupported(format!("{prefix}: {m}")),
            Error::Conflict(m) => Error::Conflict(format!("{prefix}: {m}")),
            Error::Refused(m) => Error::Refused(format!("{prefix}: {m}")),
            Error::Storage(m) => Error::Storage(format!("{prefix}: {m}")),
            Error::Triples(e) => Error::Triples(e.with_prefix(prefix)),
            Error::Journal(e) => Error::Journal(e),
        }
    }
}

/// The graph's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
