//! The command's error: a message naming what was expected and what arrived,
//! the shared [`ErrorKind`], and the exit code mapped from the kind.
//!
//! Exit codes: 0 ok, 2 bad input (the kind is
//! [`caller_at_fault`](ErrorKind::caller_at_fault): a malformed argument, an
//! unknown id, a file that is not a home, a contradicting embedder), 1 a
//! failure outside the caller's control (storage, embedder transport, a bug:
//! kind `Internal`).

use am_triples::ErrorKind;

/// Exit code of a refused input.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code of a failure outside the caller's control.
pub const EXIT_FAILURE: u8 = 1;

/// A refusal or failure of one `am` command.
#[derive(Debug, Clone)]
pub struct CliError {
    /// The error's kind (`Internal` for a failure of the command itself).
    pub kind: ErrorKind,
    /// The process exit code (1 or 2).
    pub code: u8,
    /// What was expected and what arrived.
    pub message: String,
    /// The engine's error this one was made from (kind, context and its own
    /// source kept), when there is one.
    pub source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The exit code of an error kind: the caller's input (2) or not (1).
pub fn code_of(kind: ErrorKind) -> u8 {
    if kind.caller_at_fault() {
        EXIT_BAD_INPUT
    } else {
        EXIT_FAILURE
    }
}

/// The `ErrorKind` name as exec answers it (`InvalidInput`, `NotFound`, ...).
pub fn kind_name(kind: ErrorKind) -> &'static str {
    kind.name()
}

impl CliError {
    /// A bad-input refusal (exit 2, kind `InvalidInput`).
    pub fn invalid(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::InvalidInput,
            code: EXIT_BAD_INPUT,
            message: message.into(),
            source: None,
        }
    }

    /// A failure outside the caller's control (exit 1, kind `Internal`).
    pub fn failure(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::Internal,
            code: EXIT_FAILURE,
            message: message.into(),
            source: None,
        }
    }

    /// An engine error of `kind` with `message`.
    pub fn engine(kind: ErrorKind, message: impl Into<String>) -> Self {
        CliError {
            kind,
            code: code_of(kind),
            message: message.into(),
            source: None,
        }
    }

    /// The same error keeping `source` (the engine error it was made from).
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(std::sync::Arc::new(source));
        self
    }

    /// The same error with `context: ` in front of its message.
    #[must_use]
    pub fn context(mut self, context: &str) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

/// Every library crate's error (the store's, the journal's, the graph's, layer
/// 2's) is the shared `am_triples::Error`.
impl From<am_triples::Error> for CliError {
    fn from(e: am_triples::Error) -> Self {
        CliError::engine(e.kind(), e.to_string()).with_source(e)
    }
}

impl From<am_backend_sqlite::Error> for CliError {
    fn from(e: am_backend_sqlite::Error) -> Self {
        CliError::engine(e.kind(), e.to_string()).with_source(e)
    }
}

impl From<am_embed::Error> for CliError {
    fn from(e: am_embed::Error) -> Self {
        CliError::engine(e.kind(), e.to_string()).with_source(e)
    }
}

impl From<rusqlite::Error> for CliError {
    fn from(e: rusqlite::Error) -> Self {
        am_backend_sqlite::error::sqlite(e).into()
    }
}

/// A verb table refusal keeps its kind and message (and its source).
impl From<am_ops::OpError> for CliError {
    fn from(e: am_ops::OpError) -> Self {
        CliError {
            kind: e.kind,
            code: code_of(e.kind),
            message: e.message,
            source: e.source,
        }
    }
}

/// A command's error handed to the verb table (a session's reopen, its
/// clock): the same kind and message.
impl From<CliError> for am_ops::OpError {
    fn from(e: CliError) -> Self {
        let mut out = am_ops::OpError::new(e.kind, e.message);
        out.source = e.source;
        out
    }
}

/// The command's result type.
pub type CliResult<T> = Result<T, CliError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_error_keeps_its_kind_its_message_and_itself_as_the_source() {
        let e = am_triples::Error::storage("disk full").with_context("path", "/h");
        let cli = CliError::from(e);
        assert_eq!(cli.kind, ErrorKind::Storage);
        assert_eq!(cli.code, EXIT_FAILURE);
        let source = std::error::Error::source(&cli).expect("the engine error");
        let engine = source
            .downcast_ref::<am_triples::Error>()
            .expect("the engine error's own type");
        assert_eq!(engine.context_value("path"), Some("/h"));
        assert!(std::error::Error::source(&CliError::invalid("x")).is_none());
    }
}
