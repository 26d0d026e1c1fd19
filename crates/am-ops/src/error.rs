//! The table's error: a kind (the shared [`ErrorKind`]) and a message naming
//! what was expected and what arrived. An engine error keeps its own text
//! (`invalid input: ...`) and itself as the source; a refusal the table
//! words itself (a malformed line, an unknown op) carries its message as is.

use am_triples::ErrorKind;
use std::sync::Arc;

/// A refusal or failure of one op.
#[derive(Debug, Clone)]
pub struct OpError {
    /// The error's kind.
    pub kind: ErrorKind,
    /// What was expected and what arrived.
    pub message: String,
    /// The engine's error this one was made from, when there is one.
    pub source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

/// The result of one op.
pub type OpResult<T> = Result<T, OpError>;

impl OpError {
    /// An error of `kind` with `message` (as is).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        OpError {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// A malformed call (`InvalidInput`).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }

    /// A failure of the table itself (`Internal`).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// The same error with `context: ` in front of its message.
    #[must_use]
    pub fn context(mut self, context: &str) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Every library crate's error (store, journal, graph, layer 2) is the
/// shared `am_triples::Error`: its text and kind, itself as the source.
impl From<am_triples::Error> for OpError {
    fn from(e: am_triples::Error) -> Self {
        OpError {
            kind: e.kind(),
            message: e.to_string(),
            source: Some(Arc::new(e)),
        }
    }
}
