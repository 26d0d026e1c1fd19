//! `SqliteHome`: one SQLite file, one connection, shared by the store, the journal,
//! the graph tables and the task queue of a home.
//!
//! Architecture invariant: every view of one home uses this one connection, so a
//! revision, its closures and its history commit in one transaction.

use crate::error::Result;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The connection of one home, shared by its views.
pub type SharedConn = Arc<Mutex<Connection>>;

/// How long a contended writer waits for the lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// One SQLite file opened as an AbstractMemory home.
#[derive(Debug, Clone)]
pub struct SqliteHome {
    path: PathBuf,
    conn: SharedConn,
}

impl SqliteHome {
    /// Open (creating if absent) the home at `path`: WAL, `busy_timeout` 5 s,
    /// `synchronous = NORMAL`, as AbstractMemory opens it.
    ///
    /// # Errors
    /// `Storage` when SQLite cannot open the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let conn = Connection::open(&path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "wal")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(SqliteHome { path, conn: Arc::new(Mutex::new(conn)) })
    }

    /// The file this home lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The shared connection (store, journal and graph views lock it per operation).
    pub fn conn(&self) -> SharedConn {
        Arc::clone(&self.conn)
    }
}
