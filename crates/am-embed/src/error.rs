//! The embedders' structured error: one variant per way an embedder can fail, each
//! mapped onto the shared [`am_triples::ErrorKind`].
//!
//! Messages name the endpoint (and model) and what was expected and what arrived,
//! so a dead or misconfigured server reads as exactly that.

use am_triples::ErrorKind;
use std::time::Duration;

/// What went wrong while configuring or calling an embedder.
///
/// `where_` fields name the request target: the URL, plus the model for
/// OpenAI-compatible servers (`http://127.0.0.1:1234/v1/embeddings (model 'm')`).
/// Every variant except [`Error::Config`] and [`Error::Timeout`] has kind
/// [`ErrorKind::Embedder`]; see [`Error::kind`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A constructor argument is invalid (blank `base_url` or `model`,
    /// `batch_size` 0, a zero timeout, a header value that cannot be sent).
    #[error("invalid embedder configuration: {0}")]
    Config(String),
    /// The server could not be reached (refused connection, DNS failure).
    #[error("embeddings server unreachable at {where_}: {message} (is the server running?)")]
    Connect {
        /// The request target.
        where_: String,
        /// The transport's explanation.
        message: String,
    },
    /// The request did not complete within the configured timeout.
    #[error("embeddings request to {where_} timed out after {timeout:?}")]
    Timeout {
        /// The request target.
        where_: String,
        /// The configured bound on the whole request (connect, send, headers, body).
        timeout: Duration,
    },
    /// Any other transport failure (a reset connection, a truncated body).
    #[error("embeddings request to {where_} failed: {message}")]
    Transport {
        /// The request target.
        where_: String,
        /// The transport's explanation.
        message: String,
    },
    /// The server answered with a non-success HTTP status.
    #[error("embeddings server HTTP {status} at {where_}: {message}{hint}")]
    Status {
        /// The request target.
        where_: String,
        /// The HTTP status code.
        status: u16,
        /// The body's own message (`{"error":{"message":..}}`, `{"detail":..}`, ...)
        /// or, failing that, the body text (cut to 500 characters) or the reason phrase.
        message: String,
        /// An actionable hint for well-known statuses (401), or empty.
        hint: String,
    },
    /// The reply body is not JSON.
    #[error("embeddings server at {where_} returned invalid JSON: {message}")]
    MalformedJson {
        /// The request target.
        where_: String,
        /// The parser's explanation.
        message: String,
    },
    /// The reply is JSON but not an embeddings reply (no `data` list, a row
    /// without a numeric `embedding` list, an `index` out of range or repeated).
    #[error("embeddings response from {where_} is malformed: {message}")]
    MalformedResponse {
        /// The request target.
        where_: String,
        /// What was expected and what arrived.
        message: String,
    },
    /// The reply holds another number of vectors than inputs were sent.
    #[error(
        "embeddings response from {where_} returned {got} vectors for {expected} inputs — cannot align results to texts"
    )]
    WrongCount {
        /// The request target.
        where_: String,
        /// Number of inputs sent.
        expected: usize,
        /// Number of vectors received.
        got: usize,
    },
    /// A vector's dimension differs from the others of the reply, from an earlier
    /// reply of the same embedder, or from the dimension the caller declared.
    #[error(
        "embeddings response from {where_} has inconsistent dimensions: expected {expected} ({basis}), got {got} for input {index} — one embedder is one embedding space"
    )]
    InconsistentDimension {
        /// The request target.
        where_: String,
        /// The dimension the vector should have had.
        expected: usize,
        /// Where `expected` comes from (`declared`, `earlier replies`, `input 0 of this call`).
        basis: String,
        /// The dimension that arrived.
        got: usize,
        /// Position of the offending vector among this call's inputs.
        index: usize,
    },
    /// A vector holds a value that is not a finite f32 (e.g. `1e39`).
    #[error(
        "embeddings response from {where_} holds a non-finite value ({value} as f32) at position {position} of the vector for input {index}"
    )]
    NonFinite {
        /// The request target.
        where_: String,
        /// Position of the vector among this call's inputs.
        index: usize,
        /// Position of the value inside the vector.
        position: usize,
        /// The value as sent.
        value: f64,
    },
    /// The offline model could not be loaded or run.
    #[error("offline embedding model {model}: {message}")]
    Model {
        /// The model id or directory.
        model: String,
        /// What failed.
        message: String,
    },
}

impl Error {
    /// The shared kind: [`ErrorKind::InvalidInput`] for [`Error::Config`],
    /// [`ErrorKind::Timeout`] for [`Error::Timeout`], [`ErrorKind::Embedder`]
    /// for everything else.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Config(_) => ErrorKind::InvalidInput,
            Error::Timeout { .. } => ErrorKind::Timeout,
            _ => ErrorKind::Embedder,
        }
    }
}

/// Through the `TextEmbedder` trait an embedder's error becomes the shared
/// error: its [`kind`](Error::kind), its text as the message, and the
/// structured error itself as the source (`source_as::<am_embed::Error>()`
/// gives back the HTTP status, the endpoint, the counts).
impl From<Error> for am_triples::Error {
    fn from(e: Error) -> Self {
        am_triples::Error::from_source(e.kind(), "", e)
    }
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_onto_the_shared_error_kind() {
        let cases = [
            (Error::Config("x".into()), ErrorKind::InvalidInput),
            (
                Error::Timeout {
                    where_: "u".into(),
                    timeout: Duration::from_millis(5),
                },
                ErrorKind::Timeout,
            ),
            (
                Error::WrongCount {
                    where_: "u".into(),
                    expected: 2,
                    got: 1,
                },
                ErrorKind::Embedder,
            ),
        ];
        for (e, kind) in cases {
            assert_eq!(e.kind(), kind);
            let shared: am_triples::Error = e.into();
            assert_eq!(shared.kind(), kind);
            assert!(shared.source_as::<Error>().is_some(), "{shared}");
        }
    }
}
