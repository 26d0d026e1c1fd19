//! `SqliteHome`: one SQLite file, one connection, shared by the store, the journal,
//! the graph tables and the task queue of a home.
//!
//! Architecture invariant: every view of one home uses this one connection, so a
//! revision, its closures and its history commit in one transaction.

use crate::error::{Error, Result};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The connection of one home, shared by its views.
pub type SharedConn = Arc<Mutex<Connection>>;

/// The page cache of the home's connection, in KiB (as `PRAGMA cache_size`
/// takes it: negative means KiB).
pub const PAGE_CACHE_KIB: i64 = -65_536;

/// Pages the WAL may hold before the connection checkpoints it (64 MiB at
/// 4 KiB pages; SQLite's default is 1,000). A hot index page rewritten by many
/// batches is copied to the database file once per checkpoint instead of once
/// per 1,000 pages, which is most of the write cost of batched appends.
/// Durability is unchanged (WAL, `synchronous = NORMAL`); a reader still sees
/// every committed write, and closing the last connection checkpoints.
pub const WAL_AUTOCHECKPOINT_PAGES: i64 = 16_384;

/// Prepared statements the home's connection keeps cached.
pub const STATEMENT_CACHE_CAPACITY: usize = 128;

/// How long a contended writer waits for the lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The 16-byte header every SQLite 3 database file starts with.
pub const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuse an existing, non-empty file whose header is not SQLite's (an empty file
/// is a valid empty database). Reads at most 16 bytes; writes nothing.
///
/// # Errors
/// `Refused` naming the file and what its first bytes are; `Storage` when the
/// file cannot be read.
pub fn refuse_non_sqlite(path: &Path) -> Result<()> {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return Ok(()); // absent: SQLite creates it
    };
    let mut head = Vec::with_capacity(16);
    f.by_ref().take(16).read_to_end(&mut head).map_err(|e| {
        Error::from(am_triples::Error::storage(format!(
            "{}: {e}",
            path.display()
        )))
    })?;
    if head.is_empty() || head.as_slice() == SQLITE_HEADER {
        return Ok(());
    }
    Err(Error::refused(format!(
        "{} is not an SQLite home: expected the header {:?}, got {:?} (the file was left unchanged)",
        path.display(),
        String::from_utf8_lossy(SQLITE_HEADER),
        String::from_utf8_lossy(&head)
    )))
}

/// One SQLite file opened as an AbstractMemory home.
#[derive(Debug, Clone)]
pub struct SqliteHome {
    path: PathBuf,
    conn: SharedConn,
    /// Held by every write transaction of the home's views from before the
    /// guard to after the COMMIT; a write barrier holds it.
    write_lock: Arc<am_triples::WriteLock>,
    /// Opened read-only: the file or its directory is not writable here.
    read_only: bool,
}

impl SqliteHome {
    /// Open (creating if absent) the home at `path`: WAL, `busy_timeout` 5 s,
    /// `synchronous = NORMAL`, as AbstractMemory opens it, with a 64 MiB page
    /// cache ([`PAGE_CACHE_KIB`]) and a 64 MiB WAL autocheckpoint
    /// ([`WAL_AUTOCHECKPOINT_PAGES`]).
    ///
    /// An existing home this process cannot write (its file's mode, a
    /// read-only mount, a directory it may not create the WAL in) opens
    /// read-only instead ([`SqliteHome::read_only`],
    /// [`open_read_only_connection`]): reads answer, writes are refused with
    /// kind `Refused` naming the home, nothing is created beside the file.
    ///
    /// # Errors
    /// `Refused` for an existing file that is not an SQLite database (checked
    /// before SQLite touches it, so its bytes stay unchanged); `Storage` when
    /// SQLite cannot open the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        refuse_non_sqlite(&path)?;
        if not_writable(&path) {
            return Self::open_read_only(path);
        }
        let conn = Connection::open(&path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        match set_wal(&conn) {
            // The file is writable but its directory is not: SQLite cannot
            // create the WAL and its index beside it.
            Err(e) if path.is_file() && is_read_only_directory(&e) => {
                drop(conn);
                return Self::open_read_only(path);
            }
            other => other?,
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // A 64 MiB page cache keeps the indexes of a large home hot for writes
        // and reads (SQLite's default is 2 MiB); memory is only used as pages load.
        conn.pragma_update(None, "cache_size", PAGE_CACHE_KIB)?;
        conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
        // The store, journal and graph views share this connection; a cache
        // larger than rusqlite's default 16 keeps their statements prepared.
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
        Ok(Self::over(path, conn, false))
    }

    fn over(path: PathBuf, conn: Connection, read_only: bool) -> Self {
        SqliteHome {
            write_lock: am_triples::WriteLock::new(format!("the write lock of {}", path.display())),
            path,
            conn: Arc::new(Mutex::new(conn)),
            read_only,
        }
    }

    /// A home whose file or directory this process cannot write
    /// ([`open_read_only_connection`]): every read answers, every write is
    /// refused (kind `Refused`, naming the home), nothing is created beside
    /// the file.
    fn open_read_only(path: PathBuf) -> Result<Self> {
        let conn = open_read_only_connection(&path)?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
        Ok(Self::over(path, conn, true))
    }

    /// Whether the home was opened read-only (its file or its directory is
    /// not writable by this process).
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// The file this home lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The home's in-process write lock (re-entrant): every write
    /// transaction of its views holds it around the connection's
    /// transaction, guard and COMMIT included.
    pub fn write_lock(&self) -> &Arc<am_triples::WriteLock> {
        &self.write_lock
    }

    /// What a write barrier holds to cover this home's writers: its write
    /// lock, then the file's write lock (`BEGIN IMMEDIATE` on a connection of
    /// the barrier's own).
    pub fn write_fence(&self) -> am_triples::WriteFence {
        am_triples::WriteFence {
            locks: vec![self.write_lock.clone()],
            files: vec![Arc::new(HomeFile(self.path.clone()))],
            uncovered: None,
        }
    }

    /// The shared connection (store, journal and graph views lock it per operation).
    pub fn conn(&self) -> SharedConn {
        Arc::clone(&self.conn)
    }
}

/// Where a store or journal over `conn` commits ([`am_triples::HomeKey`]):
/// the connection's main database file (canonical path), or, for a database
/// without a file, the connection itself. Two connections of one file have
/// one key, so a store and a journal opened over them share a transaction
/// (`SqliteMemoryHome::joined`).
pub fn home_key_of(conn: &SharedConn) -> am_triples::HomeKey {
    let file = conn
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .path()
        .map(PathBuf::from);
    file.as_deref()
        .and_then(am_triples::HomeKey::file)
        .unwrap_or_else(|| am_triples::HomeKey::Connection(Arc::as_ptr(conn).addr()))
}

/// Whether `path` is an existing file this process may not open for writing
/// (its mode, a read-only mount). Opening for writing changes nothing.
fn not_writable(path: &Path) -> bool {
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(_) => false,
        Err(e) => matches!(
            e.kind(),
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
        ),
    }
}

/// `SQLITE_READONLY | (6 << 8)`: a file cannot be created in the directory.
const SQLITE_READONLY_DIRECTORY: i32 = 1544;

/// SQLite's answer for a WAL home whose directory it may not create files in
/// (`SQLITE_READONLY_DIRECTORY`, or `SQLITE_CANTOPEN` for the index).
fn is_read_only_directory(e: &rusqlite::Error) -> bool {
    e.sqlite_error().is_some_and(|f| {
        f.extended_code == SQLITE_READONLY_DIRECTORY || f.code == rusqlite::ErrorCode::CannotOpen
    })
}

/// Switch the connection to WAL. SQLite answers `SQLITE_BUSY` to this pragma
/// without calling the busy handler while another process is creating or
/// converting the same file (a deadlock it refuses to wait on), so the
/// switch is retried here for up to the busy timeout. A file already in WAL
/// mode is left as it is (the mode is persistent).
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    let started = std::time::Instant::now();
    loop {
        let attempt = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0))
            .and_then(|mode| {
                if mode.eq_ignore_ascii_case("wal") {
                    Ok(())
                } else {
                    conn.pragma_update(None, "journal_mode", "wal")
                }
            });
        match attempt {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// Open the home at `path` for reading only, creating nothing beside it.
///
/// A home closed cleanly has no `-wal` beside it: it is opened `immutable`
/// (SQLite reads the file as it is, without the shared-memory index it could
/// not create in a read-only directory, and takes no lock). A home with a
/// `-wal` (a writer is open, or one stopped without closing) is opened
/// `mode=ro`, which reads the committed frames of the WAL through its
/// existing index.
///
/// # Errors
/// `Storage` naming the file when SQLite cannot open or read it.
pub fn open_read_only_connection(path: &Path) -> Result<Connection> {
    use rusqlite::OpenFlags;
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let mode = if Path::new(&wal).exists() {
        "mode=ro"
    } else {
        "mode=ro&immutable=1"
    };
    // A URI path: `%`, `?` and `#` would end or escape it.
    let mut uri = String::from("file:");
    for ch in path.to_string_lossy().chars() {
        match ch {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push('?');
    uri.push_str(mode);
    let opened = Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .and_then(|conn| {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // Make SQLite read the header and schema now, so a file it cannot
        // read fails here.
        conn.query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })?;
        Ok(conn)
    });
    opened.map_err(|e| {
        Error::from(crate::error::sqlite(e).with_prefix(&format!(
            "cannot read the read-only home {}",
            path.display()
        )))
    })
}

/// Open the home at `path` for a read-only look (`am inspect`, the facts read
/// before a write): `SQLITE_OPEN_READ_ONLY`, or, when the file or its
/// directory is not writable here, [`open_read_only_connection`], so that
/// nothing is created beside a read-only home.
///
/// # Errors
/// `Storage` naming the file when SQLite cannot open or read it.
pub fn open_reader(path: &Path) -> Result<Connection> {
    use rusqlite::OpenFlags;
    if not_writable(path) {
        return open_read_only_connection(path);
    }
    let opened = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .and_then(|conn| {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })?;
        Ok(conn)
    });
    match opened {
        Ok(conn) => Ok(conn),
        Err(e) if is_read_only_directory(&e) => open_read_only_connection(path),
        Err(e) => Err(Error::from(
            crate::error::sqlite(e)
                .with_prefix(&format!("cannot read the home {}", path.display())),
        )),
    }
}

/// The home file as a barrier's [`am_triples::FileLock`].
struct HomeFile(PathBuf);

/// An open `BEGIN IMMEDIATE` of a barrier, on its own connection; ROLLBACK on drop.
struct FileHold(Connection);

impl Drop for FileHold {
    fn drop(&mut self) {
        // It wrote nothing; a failing ROLLBACK still releases the lock when
        // the connection closes right after.
        let _ = self.0.execute_batch("ROLLBACK");
    }
}

impl am_triples::FileLock for HomeFile {
    fn path(&self) -> &Path {
        &self.0
    }

    fn lock(&self, deadline: Option<std::time::Instant>) -> am_triples::Result<Box<dyn Send>> {
        let storage = |e: rusqlite::Error| {
            am_triples::Error::storage(format!("write barrier on {}: {e}", self.0.display()))
        };
        let conn = Connection::open(&self.0).map_err(storage)?;
        loop {
            let wait = match deadline {
                None => Duration::from_secs(1),
                Some(d) => {
                    let left = d.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        return Err(am_triples::Error::timeout(format!(
                            "the write lock of the file {}",
                            self.0.display()
                        )));
                    }
                    left.min(Duration::from_secs(1))
                }
            };
            conn.busy_timeout(wait).map_err(storage)?;
            match conn.execute_batch("BEGIN IMMEDIATE") {
                Ok(()) => return Ok(Box::new(FileHold(conn))),
                Err(rusqlite::Error::SqliteFailure(f, _))
                    if f.code == rusqlite::ErrorCode::DatabaseBusy
                        || f.code == rusqlite::ErrorCode::DatabaseLocked => {}
                Err(e) => return Err(storage(e)),
            }
        }
    }
}
