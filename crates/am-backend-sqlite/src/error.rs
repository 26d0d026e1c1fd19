//! The SQLite backend's error enum, mapped onto the shared `ErrorKind`.

use am_triples::ErrorKind;

/// Errors of the SQLite home, its store and its journal.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A layer-1 error (invalid input, dimension mismatch, embedder, ...).
    #[error(transparent)]
    Triples(#[from] am_triples::Error),
    /// SQLite itself failed.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The file is not a home this code can open (not SQLite, a newer schema).
    #[error("refused: {0}")]
    Refused(String),
}

impl Error {
    /// The shared kind of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Triples(e) => e.kind(),
            Error::Sqlite(_) => ErrorKind::Storage,
            Error::Refused(_) => ErrorKind::Refused,
        }
    }
}

impl From<Error> for am_triples::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Triples(t) => t,
            Error::Sqlite(s) => am_triples::Error::Storage(s.to_string()),
            Error::Refused(r) => am_triples::Error::Refused(r),
        }
    }
}

/// The SQLite backend's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
