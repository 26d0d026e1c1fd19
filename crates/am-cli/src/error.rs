//! The command's error: a message naming what was expected and what arrived,
//! the shared [`ErrorKind`] when the engine reported one, and the exit code.
//!
//! Exit codes: 0 ok, 2 bad input (the caller can fix it: a malformed argument,
//! an unknown id, a file that is not a home, a contradicting embedder), 1 a
//! failure outside the caller's control (storage, embedder transport, a bug).

use am_triples::ErrorKind;

/// Exit code of a refused input.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code of a failure outside the caller's control.
pub const EXIT_FAILURE: u8 = 1;

/// A refusal or failure of one `am` command.
#[derive(Debug, Clone)]
pub struct CliError {
    /// The engine's error kind, when the engine reported the error.
    pub kind: Option<ErrorKind>,
    /// The process exit code (1 or 2).
    pub code: u8,
    /// What was expected and what arrived.
    pub message: String,
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// The exit code of an engine error kind: the caller's input (2) or not (1).
pub fn code_of(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::Storage | ErrorKind::Embedder | ErrorKind::Timeout => EXIT_FAILURE,
        _ => EXIT_BAD_INPUT,
    }
}

/// The `ErrorKind` name as exec answers it (`InvalidInput`, `NotFound`, ...).
pub fn kind_name(kind: Option<ErrorKind>) -> String {
    kind.map_or_else(|| "Internal".to_owned(), |k| k.to_string())
}

impl CliError {
    /// A bad-input refusal (exit 2, kind `InvalidInput`).
    pub fn invalid(message: impl Into<String>) -> Self {
        CliError {
            kind: Some(ErrorKind::InvalidInput),
            code: EXIT_BAD_INPUT,
            message: message.into(),
        }
    }

    /// A failure outside the caller's control (exit 1, no engine kind).
    pub fn failure(message: impl Into<String>) -> Self {
        CliError {
            kind: None,
            code: EXIT_FAILURE,
            message: message.into(),
        }
    }

    /// An engine error of `kind` with `message`.
    pub fn engine(kind: ErrorKind, message: impl Into<String>) -> Self {
        CliError {
            kind: Some(kind),
            code: code_of(kind),
            message: message.into(),
        }
    }

    /// The same error with `context: ` in front of its message.
    #[must_use]
    pub fn context(mut self, context: &str) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

impl From<am_triples::Error> for CliError {
    fn from(e: am_triples::Error) -> Self {
        CliError::engine(e.kind(), e.to_string())
    }
}

impl From<am_system::Error> for CliError {
    fn from(e: am_system::Error) -> Self {
        CliError::engine(e.kind(), e.to_string())
    }
}

impl From<am_journal::Error> for CliError {
    fn from(e: am_journal::Error) -> Self {
        CliError::engine(e.kind(), e.to_string())
    }
}

impl From<am_backend_sqlite::Error> for CliError {
    fn from(e: am_backend_sqlite::Error) -> Self {
        CliError::engine(e.kind(), e.to_string())
    }
}

impl From<am_embed::Error> for CliError {
    fn from(e: am_embed::Error) -> Self {
        CliError::engine(e.kind(), e.to_string())
    }
}

impl From<rusqlite::Error> for CliError {
    fn from(e: rusqlite::Error) -> Self {
        CliError::engine(ErrorKind::Storage, format!("sqlite: {e}"))
    }
}

/// The command's result type.
pub type CliResult<T> = Result<T, CliError>;
