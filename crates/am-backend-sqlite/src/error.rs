//! The SQLite backend's error: the shared [`am_triples::Error`], wrapped so that
//! `?` converts a `rusqlite::Error` into it inside this crate (the orphan rule
//! keeps that conversion out of `am-triples`, which knows nothing of SQL).
//!
//! [`sqlite`] is the one mapping of a SQLite failure: kind `Storage`, the
//! extended result code as the context pair `sqlite_code`, and the
//! `rusqlite::Error` kept as the source.

use am_triples::ErrorKind;

/// The context key holding SQLite's extended result code (e.g. `2067` for
/// `SQLITE_CONSTRAINT_UNIQUE`).
pub const SQLITE_CODE: &str = "sqlite_code";

/// The context key naming the home file a storage failure happened in.
pub const HOME: &str = "home";

/// Name the home file on a `Storage` failure that does not name it yet
/// (SQLite's own text does not: "database or disk is full"). Every entry
/// point of the home's views (the store's connection, the journal's reads and
/// appends, the memory home's and the graph's transactions) passes its
/// errors through here, so a failure of a host with several homes says which.
///
/// A write SQLite refused because the home is read-only for this process
/// (`SQLITE_READONLY` and its extended codes) becomes kind `Refused`, saying
/// so: retrying the same write cannot help.
pub fn at_home(e: am_triples::Error, conn: &rusqlite::Connection) -> am_triples::Error {
    let Some(path) = conn.path().filter(|p| !p.is_empty()) else {
        return e;
    };
    if e.kind() != ErrorKind::Storage || e.context_value(HOME).is_some() {
        return e;
    }
    let read_only = e
        .context_value(SQLITE_CODE)
        .and_then(|c| c.parse::<i32>().ok())
        .is_some_and(|c| c & 0xff == rusqlite::ffi::SQLITE_READONLY);
    let e = if read_only {
        e.with_kind(ErrorKind::Refused).with_prefix(&format!(
            "the home {path} is read-only here (its file or its directory is not writable by this \
             process): writes are refused, nothing was written"
        ))
    } else {
        e
    };
    e.with_context(HOME, path)
}

/// Errors of the SQLite home, its store and its journal: the shared error.
///
/// It dereferences to [`am_triples::Error`] (`kind()`, `message()`,
/// `context()`) and converts into it losslessly.
pub struct Error(am_triples::Error);

impl Error {
    /// The shared kind of this error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind()
    }

    /// [`ErrorKind::Refused`]: the file is not a home this code can open (not
    /// SQLite, a newer schema).
    pub fn refused(message: impl Into<String>) -> Self {
        Error(am_triples::Error::refused(message))
    }

    /// The shared error inside.
    pub fn into_inner(self) -> am_triples::Error {
        self.0
    }
}

/// Map a SQLite failure into the shared error: kind `Storage`, message
/// `sqlite: <SQLite's text>`, the extended result code as context
/// [`SQLITE_CODE`] when SQLite reported one, and the `rusqlite::Error` as the
/// source.
pub fn sqlite(e: rusqlite::Error) -> am_triples::Error {
    let code = e.sqlite_error().map(|f| f.extended_code);
    let damaged = matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    );
    let mut err = am_triples::Error::from_source(ErrorKind::Storage, "sqlite", e);
    if damaged {
        err = err.with_suffix(DAMAGED_HOME);
    }
    match code {
        Some(c) => err.with_context(SQLITE_CODE, c.to_string()),
        None => err,
    }
}

/// What a SQLITE_CORRUPT or SQLITE_NOTADB error adds: the file is damaged,
/// how to check it and how to repair it (no home is checked at open: it would
/// read the whole file; SQLite reports the damage it meets).
pub const DAMAGED_HOME: &str = "(the home file is damaged: check it with PRAGMA integrity_check, \
     `sqlite3 HOME 'PRAGMA integrity_check'`; then restore a backup, or recover what is readable into a new \
     file with `sqlite3 HOME .recover | sqlite3 NEW` and open NEW; docs/operator.md, \"A damaged home\")";

impl std::ops::Deref for Error {
    type Target = am_triples::Error;
    fn deref(&self) -> &am_triples::Error {
        &self.0
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error(sqlite(e))
    }
}

impl From<am_triples::Error> for Error {
    fn from(e: am_triples::Error) -> Self {
        Error(e)
    }
}

impl From<Error> for am_triples::Error {
    fn from(e: Error) -> Self {
        e.0
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0)
    }
}

/// The SQLite backend's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sqlite_failure_keeps_its_extended_code_and_source() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (x UNIQUE); INSERT INTO t VALUES (1);")
            .unwrap();
        let raw = conn.execute("INSERT INTO t VALUES (1)", []).unwrap_err();
        let e: Error = raw.into();
        assert_eq!(e.kind(), ErrorKind::Storage);
        assert_eq!(e.context_value(SQLITE_CODE), Some("2067"));
        let inner = e.into_inner();
        assert!(inner.source_as::<rusqlite::Error>().is_some());
    }
}
