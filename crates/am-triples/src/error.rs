//! The shared error kind of every AbstractMemory crate, and layer 1's error enum.
//!
//! Conformance checks assert on [`ErrorKind`], never on message text. Messages name
//! what was expected and what arrived ("limit must be a positive int, got 0").

/// What went wrong, independent of the crate or backend that reported it.
///
/// Every crate's error enum has a `kind()` that maps into this value; backends map
/// their native errors (SQLite, HTTP, LanceDB) into it at the trait boundary.
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
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// Layer 1's error: one variant per [`ErrorKind`] it can report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Malformed input; the message names what was expected and what arrived.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// An unknown id.
    #[error("not found: {0}")]
    NotFound(String),
    /// The store does not offer the operation.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A conflicting write.
    #[error("conflict: {0}")]
    Conflict(String),
    /// A vector dimension that contradicts the pin or the query.
    #[error("dimension mismatch: {0}")]
    DimensionMismatch(String),
    /// The embedder failed.
    #[error("embedder failed: {0}")]
    Embedder(String),
    /// The storage engine failed.
    #[error("storage error: {0}")]
    Storage(String),
    /// Refused by policy.
    #[error("refused: {0}")]
    Refused(String),
    /// Timed out.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The host's commit guard refused the commit (kind `Refused`); the
    /// transaction was rolled back. Carries the guard's own error.
    #[error(transparent)]
    GuardRefused(crate::guard::GuardRefusal),
    /// A write barrier's timeout elapsed (kind `Timeout`); it names the lock
    /// or file a writer still held.
    #[error(transparent)]
    BarrierTimeout(crate::barrier::WriteBarrierTimeout),
}

impl Error {
    /// The kind of this error, for callers and conformance checks.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidInput(_) => ErrorKind::InvalidInput,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Unsupported(_) => ErrorKind::Unsupported,
            Error::Conflict(_) => ErrorKind::Conflict,
            Error::DimensionMismatch(_) => ErrorKind::DimensionMismatch,
            Error::Embedder(_) => ErrorKind::Embedder,
            Error::Storage(_) => ErrorKind::Storage,
            Error::Refused(_) => ErrorKind::Refused,
            Error::Timeout(_) => ErrorKind::Timeout,
            Error::GuardRefused(_) => ErrorKind::Refused,
            Error::BarrierTimeout(_) => ErrorKind::Timeout,
        }
    }

    /// The commit guard's refusal, when this is one.
    pub fn guard_refusal(&self) -> Option<&crate::guard::GuardRefusal> {
        match self {
            Error::GuardRefused(r) => Some(r),
            _ => None,
        }
    }

    /// Shorthand for [`Error::InvalidInput`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidInput(msg.into())
    }

    /// The same error (same kind) with `prefix: ` before its message, to name the
    /// field or item it concerns ("observed_at: expected ..., got ...").
    pub fn with_prefix(self, prefix: &str) -> Self {
        self.map_message(|m| format!("{prefix}: {m}"))
    }

    /// The same error with `suffix` appended to its message (used to name the
    /// store's embedding pin on embed-time failures).
    pub fn with_suffix(self, suffix: &str) -> Self {
        self.map_message(|m| format!("{m} {suffix}"))
    }

    /// The same error (same kind) with its message rewritten by `f`; the
    /// structured refusals (a guard's, a barrier's timeout) carry no message
    /// and stay as they are.
    fn map_message(self, f: impl FnOnce(String) -> String) -> Self {
        match self {
            Error::InvalidInput(m) => Error::InvalidInput(f(m)),
            Error::NotFound(m) => Error::NotFound(f(m)),
            Error::Unsupported(m) => Error::Unsupported(f(m)),
            Error::Conflict(m) => Error::Conflict(f(m)),
            Error::DimensionMismatch(m) => Error::DimensionMismatch(f(m)),
            Error::Embedder(m) => Error::Embedder(f(m)),
            Error::Storage(m) => Error::Storage(f(m)),
            Error::Refused(m) => Error::Refused(f(m)),
            Error::Timeout(m) => Error::Timeout(f(m)),
            Error::GuardRefused(r) => Error::GuardRefused(r),
            Error::BarrierTimeout(t) => Error::BarrierTimeout(t),
        }
    }
}

/// Layer 1's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
