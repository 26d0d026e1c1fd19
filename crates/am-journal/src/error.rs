//! The journal's error: the shared [`am_triples::Error`] (kind, message,
//! context, source), so a journal error crosses into the store, the graph and
//! layer 2 with its kind and source intact.
//!
//! A journal reports [`ErrorKind::InvalidInput`](am_triples::ErrorKind::InvalidInput)
//! for a malformed record, filter or anchor, `Storage` when the engine behind it
//! fails, and `Refused` for a file whose journal tables are not ours to read.
//! Every refusal writes nothing; the message names what was expected and what
//! arrived.

pub use am_triples::{Error, Result};

/// The home's result type: layer 1's error, whose kinds cover the store's
/// refusals (`DimensionMismatch`, `Embedder`, ...) and the journal's (the
/// same error). Defined here, below `home` and the task queue's rows, which
/// both name it; `am_journal::home::HomeResult` re-exports it.
pub type HomeResult<T> = Result<T>;
