//! Layer 2's error: one enum for every `MemorySystem` refusal, mapped onto the
//! shared [`am_triples::ErrorKind`] that callers and conformance checks assert on.
//!
//! Messages name what was expected and what arrived ("unknown record id 'x':
//! neither a store assertion id nor a graph record id ..."), as the spec's
//! errors do. Spec: api.md "Layer 2" contract 5 ("invalid input raises
//! actionable errors").

use am_triples::ErrorKind;

/// Everything a layer-2 call can refuse or fail with.
///
/// Every refusal writes nothing: validation runs before the first store or
/// journal append.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Malformed input or a violated rule (Python's `ValueError`); the message
    /// names what was expected and what arrived.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// An id that resolves in neither id namespace (the message names both).
    #[error("not found: {0}")]
    NotFound(String),
    /// An operation this home does not offer (a payload tier reserved for
    /// later, a pending field on a home without a task queue).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The layer-1 store refused or failed.
    #[error(transparent)]
    Store(#[from] am_triples::Error),
    /// The journal refused or failed; `kind` is the journal's own error kind.
    #[error("journal: {message}")]
    Journal {
        /// The journal error's kind.
        kind: ErrorKind,
        /// The journal error's message.
        message: String,
    },
}

impl Error {
    /// The shared kind of this error, for callers and conformance checks.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidInput(_) => ErrorKind::InvalidInput,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Unsupported(_) => ErrorKind::Unsupported,
            Error::Store(e) => e.kind(),
            Error::Journal { kind, .. } => *kind,
        }
    }

    /// Shorthand for [`Error::InvalidInput`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidInput(msg.into())
    }

    /// The commit guard's refusal, when this is one (the guard's own error is
    /// its [`am_triples::GuardRefusal::source_error`]).
    pub fn guard_refusal(&self) -> Option<&am_triples::GuardRefusal> {
        match self {
            Error::Store(e) => e.guard_refusal(),
            _ => None,
        }
    }
}

impl From<am_journal::Error> for Error {
    fn from(e: am_journal::Error) -> Self {
        if let am_journal::Error::GuardRefused(r) = e {
            return Error::Store(am_triples::Error::GuardRefused(r));
        }
        Error::Journal {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

/// Layer 2's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
