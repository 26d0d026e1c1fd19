//! The journal's error enum, mapped onto the shared [`am_triples::ErrorKind`].

use am_triples::ErrorKind;

/// Errors of a journal: refused input, invalid anchors, and storage failures.
///
/// Every refusal writes nothing; the message names what was expected and what arrived.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The record, filter or anchor is malformed (Python's `ValueError`).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The storage engine behind the journal failed.
    #[error("storage error: {0}")]
    Storage(String),
    /// The journal refuses by policy (a file whose journal tables are not ours to read).
    #[error("refused: {0}")]
    Refused(String),
    /// The journal cannot do what was asked (a commit guard on a journal
    /// type whose appends cannot call one).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The host's commit guard refused the append (kind `Refused`); nothing
    /// was appended. Carries the guard's own error.
    #[error(transparent)]
    GuardRefused(am_triples::GuardRefusal),
}

impl Error {
    /// The shared kind of this error, for callers and conformance checks.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidInput(_) => ErrorKind::InvalidInput,
            Error::Storage(_) => ErrorKind::Storage,
            Error::Refused(_) | Error::GuardRefused(_) => ErrorKind::Refused,
            Error::Unsupported(_) => ErrorKind::Unsupported,
        }
    }

    /// The commit guard's refusal, when this is one.
    pub fn guard_refusal(&self) -> Option<&am_triples::GuardRefusal> {
        match self {
            Error::GuardRefused(r) => Some(r),
            _ => None,
        }
    }

    /// Shorthand for [`Error::InvalidInput`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidInput(msg.into())
    }
}

impl From<am_triples::Error> for Error {
    fn from(e: am_triples::Error) -> Self {
        if let am_triples::Error::GuardRefused(r) = e {
            return Error::GuardRefused(r);
        }
        match e.kind() {
            ErrorKind::InvalidInput => Error::InvalidInput(strip_prefix(&e.to_string())),
            ErrorKind::Refused => Error::Refused(e.to_string()),
            ErrorKind::Unsupported => Error::Unsupported(e.to_string()),
            _ => Error::Storage(e.to_string()),
        }
    }
}

impl From<Error> for am_triples::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::InvalidInput(m) => am_triples::Error::InvalidInput(m),
            Error::Storage(m) => am_triples::Error::Storage(m),
            Error::Refused(m) => am_triples::Error::Refused(m),
            Error::Unsupported(m) => am_triples::Error::Unsupported(m),
            Error::GuardRefused(r) => am_triples::Error::GuardRefused(r),
        }
    }
}

fn strip_prefix(msg: &str) -> String {
    msg.strip_prefix("invalid input: ")
        .unwrap_or(msg)
        .to_string()
}

/// The journal's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
