//! Opening a home: a SQLite file (store and journal on one connection) or the
//! in-memory pair, with the chosen embedder, a creation pin from the
//! embedder's `model_id`/`dimension` on a new home, and a pinnable clock, all
//! wrapped in one [`MemorySystem`].

use crate::error::{CliError, CliResult};
use am_backend_sqlite::home::refuse_non_sqlite;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, InMemoryTaskQueue, MemoryHome, MemoryJournal, PairHome};
use am_system::{Clock, MemorySystem, ReconstructConfig, SystemOptions};
use am_triples::Timestamp;
use am_triples::timestamp::{format_utc, parse_timestamp};
use am_triples::{EmbeddingPin, InMemoryTripleStore, TextEmbedder, build_pin};
use rusqlite::{Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;

/// The engine's clock: the wall clock, or an instant pinned by `--clock` (or
/// set per turn by ingestion) that moves only when told.
#[derive(Debug, Clone, Default)]
pub struct PinnedClock {
    pinned: Arc<Mutex<Option<OffsetDateTime>>>,
}

impl PinnedClock {
    /// A wall clock (nothing pinned).
    pub fn wall() -> Self {
        Self::default()
    }

    /// A clock pinned to `iso`.
    ///
    /// # Errors
    /// Bad input when `iso` is not a timestamp.
    pub fn pinned_at(iso: &str) -> CliResult<Self> {
        let c = Self::default();
        c.set_iso(iso)?;
        Ok(c)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<OffsetDateTime>> {
        self.pinned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Pin the clock to `t`.
    pub fn set(&self, t: OffsetDateTime) {
        *self.lock() = Some(t);
    }

    /// Pin the clock to the timestamp text `iso`.
    ///
    /// # Errors
    /// Bad input when `iso` is not a timestamp.
    pub fn set_iso(&self, iso: &str) -> CliResult<()> {
        let t = parse_timestamp(iso).map_err(|e| CliError::from(e).context("clock"))?;
        self.set(t);
        Ok(())
    }

    /// Move a pinned clock forward by `seconds` (a wall clock is pinned at now first).
    ///
    /// # Errors
    /// Bad input for a negative or non-finite step.
    pub fn advance(&self, seconds: f64) -> CliResult<()> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(CliError::invalid(format!(
                "advance_s must be a finite number of seconds >= 0, got {seconds}"
            )));
        }
        if seconds > 1.0e12 {
            return Err(CliError::invalid(format!(
                "advance_s {seconds} moves the clock past the year 9999 (expected at most 1e12 seconds)"
            )));
        }
        let mut g = self.lock();
        let base = g.unwrap_or_else(OffsetDateTime::now_utc);
        let next = base
            .checked_add(time::Duration::seconds_f64(seconds))
            .filter(|t| t.year() <= 9999)
            .ok_or_else(|| {
                CliError::invalid(format!(
                    "advance_s {seconds} moves the clock past the year 9999 (from {})",
                    format_utc(base)
                ))
            })?;
        *g = Some(next);
        Ok(())
    }

    /// Now, in the canonical UTC text form.
    pub fn now(&self) -> String {
        self.timestamp().canonical()
    }

    /// Now (the pinned instant, or the wall clock's).
    pub fn timestamp(&self) -> Timestamp {
        // A pinned instant is within 1..=9999 (set_iso parses it, advance
        // refuses to pass 9999), so the wall clock answers only when nothing
        // is pinned.
        (*self.lock())
            .and_then(|t| Timestamp::from_datetime(t).ok())
            .unwrap_or_else(Timestamp::now)
    }

    /// The clock as the system's injectable [`Clock`].
    pub fn as_clock(&self) -> Clock {
        let me = self.clone();
        Arc::new(move || me.timestamp())
    }
}

/// Where a home lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HomeSpec {
    /// A SQLite file (created when missing).
    Sqlite(PathBuf),
    /// The in-memory store and journal.
    Memory,
}

/// An open home: the system and, for a SQLite home, its store handle.
pub struct Engine {
    /// The layer-2 facade.
    pub system: MemorySystem,
    /// The SQLite store (for keyword discovery and operator reads).
    pub sqlite: Option<Arc<SQLiteTripleStore>>,
    /// The in-memory store as its concrete type (for the graph's in-memory
    /// connector, whose state is shared per store object).
    pub memory: Option<Arc<InMemoryTripleStore>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("sqlite", &self.sqlite.is_some())
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Prepare a SQLite home for a bulk write (ingestion): let the WAL grow to
    /// 64 MiB of pages before SQLite checkpoints it, so thousands of small
    /// formation transactions do not each pay for a checkpoint's syncs. A
    /// setting of this connection only; the file and its durability rules
    /// (WAL, `synchronous = NORMAL`) are unchanged, and closing checkpoints.
    ///
    /// # Errors
    /// A failure when SQLite refuses the pragma.
    pub fn bulk_mode(&self) -> CliResult<()> {
        if let Some(store) = &self.sqlite {
            let conn = store.home().conn();
            let guard = conn
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            guard.pragma_update(None, "wal_autocheckpoint", 16_384)?;
        }
        Ok(())
    }
}

/// The creation pin of `embedder`: its model id and dimension, stamped with
/// the engine clock (so a pinned clock gives a stable `pinned_at`).
///
/// # Errors
/// The pin builder's refusal (an embedder reporting dimension 0).
pub fn creation_pin(
    embedder: Option<&Arc<dyn TextEmbedder>>,
    clock: &PinnedClock,
) -> CliResult<Option<EmbeddingPin>> {
    let Some(e) = embedder else { return Ok(None) };
    let (model_id, dimension) = (e.model_id(), e.dimension());
    if model_id.is_none() && dimension.is_none() {
        return Ok(None);
    }
    let mut pin = build_pin(model_id.as_deref(), dimension, "creation", None)?;
    pin.pinned_at = clock.now();
    Ok(Some(pin))
}

/// Check a `--home` path before anything opens it: a directory or a path
/// whose parent does not exist is bad input.
///
/// # Errors
/// Bad input naming the path and what was expected.
pub fn check_home_path(path: &Path) -> CliResult<()> {
    if path.as_os_str().is_empty() {
        return Err(CliError::invalid(
            "--home must name a SQLite file, got an empty path",
        ));
    }
    if path.is_dir() {
        return Err(CliError::invalid(format!(
            "--home {} is a directory; expected a SQLite file (existing or to create)",
            path.display()
        )));
    }
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
        && !parent.is_dir()
    {
        return Err(CliError::invalid(format!(
            "--home {}: the directory {} does not exist",
            path.display(),
            parent.display()
        )));
    }
    Ok(())
}

/// What `am` reads of an existing file before opening it: whether it is an
/// AbstractMemory home, the tables it holds, and its embedding pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeFacts {
    /// The tables (and views) the file holds.
    pub tables: Vec<String>,
    /// The embedding pin stored in `triples_meta`, if any.
    pub pin: Option<EmbeddingPin>,
}

impl HomeFacts {
    /// Whether the file is an AbstractMemory home (it holds the `triples`
    /// store) or a blank SQLite database (no table at all).
    pub fn is_home(&self) -> bool {
        self.tables.is_empty() || self.tables.iter().any(|t| t == "triples")
    }
}

/// Whether the home read by `conn` holds the table (or view) `name`.
pub fn table_exists(conn: &Connection, name: &str) -> CliResult<bool> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1",
        [name],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

/// Whether the home at `path` holds any store row (`false` for a missing
/// file or one without the store's table).
///
/// # Errors
/// As [`open_read_only`].
pub fn holds_rows(path: &Path) -> CliResult<bool> {
    if !path.is_file() {
        return Ok(false);
    }
    let conn = open_read_only(path)?;
    if !table_exists(&conn, "triples")? {
        return Ok(false);
    }
    conn.query_row("SELECT EXISTS (SELECT 1 FROM triples)", [], |r| {
        r.get::<_, bool>(0)
    })
    .map_err(CliError::from)
}

/// Whether the home at `path` keeps a memory task queue (its `memq_tasks`
/// table exists: it has slept, or a host opened it with `task_queue`);
/// `false` for a missing or unreadable file.
pub fn keeps_task_queue(path: &Path) -> bool {
    path.is_file()
        && open_read_only(path).is_ok_and(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'memq_tasks'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .is_ok_and(|n| n > 0)
        })
}

/// Open `path` read-only, refusing a missing path or a file that is not SQLite.
///
/// # Errors
/// Bad input for a missing file, a directory, or a non-SQLite file; a
/// failure when SQLite cannot open it.
pub fn open_read_only(path: &Path) -> CliResult<Connection> {
    if !path.is_file() {
        return Err(CliError::invalid(format!(
            "--home {}: no such home file (expected an existing SQLite home)",
            path.display()
        )));
    }
    refuse_non_sqlite(path).map_err(CliError::from)?;
    // Read-only (nothing is created beside a home whose file or directory is
    // not writable here); SQLite reads the schema now, so a truncated file
    // with a valid header fails here.
    am_backend_sqlite::home::open_reader(path).map_err(|e| {
        let mut why = e
            .source_as::<rusqlite::Error>()
            .map_or_else(|| e.message().to_owned(), ToString::to_string);
        if e.message()
            .ends_with(am_backend_sqlite::error::DAMAGED_HOME)
        {
            why = format!("{why} {}", am_backend_sqlite::error::DAMAGED_HOME);
        }
        CliError::engine(
            am_triples::ErrorKind::Refused,
            format!(
                "--home {} is not a readable SQLite home: {why}",
                path.display()
            ),
        )
    })
}

/// Read the facts of the file at `path` without writing to it; `None` when
/// there is no file yet or it is empty (both become a new home).
///
/// # Errors
/// Bad input for a file that is not SQLite; a failure when SQLite fails.
pub fn read_facts(path: &Path) -> CliResult<Option<HomeFacts>> {
    if !path.is_file() || std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) == 0 {
        return Ok(None);
    }
    let conn = open_read_only(path)?;
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )?;
    let tables = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let pin = if tables.iter().any(|t| t == "triples_meta") {
        conn.query_row(
            "SELECT value FROM triples_meta WHERE key = ?1",
            [am_backend_sqlite::store::schema::META_EMBEDDING_PIN],
            |r| r.get::<_, Option<String>>(0),
        )
        .ok()
        .flatten()
        .and_then(|v| serde_json::from_str::<EmbeddingPin>(&v).ok())
    } else {
        None
    };
    Ok(Some(HomeFacts { tables, pin }))
}

/// Refuse to write into a SQLite file that is not an AbstractMemory home
/// (another application's database would gain the store's and journal's
/// tables), unless `force`.
///
/// # Errors
/// Bad input naming the file, some of its tables and `--force`.
pub fn refuse_foreign(path: &Path, facts: Option<&HomeFacts>, force: bool) -> CliResult<()> {
    let Some(f) = facts else { return Ok(()) };
    if force || f.is_home() {
        return Ok(());
    }
    let shown: Vec<&str> = f.tables.iter().take(5).map(String::as_str).collect();
    let more = f.tables.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Err(CliError::invalid(format!(
        "--home {} is a SQLite database of another application (tables {}{more}), not an AbstractMemory \
         home: writing would add AbstractMemory's tables to it. Name a new file, or pass --force to add them anyway",
        path.display(),
        shown.join(", ")
    )))
}

/// The `(scope, owner)` streams of the home at `path`, in order (an index
/// scan of `(scope, owner_id)`).
///
/// # Errors
/// As [`open_read_only`].
pub fn streams(path: &Path) -> CliResult<Vec<(String, String)>> {
    let conn = open_read_only(path)?;
    let mut stmt = conn.prepare(
        "SELECT DISTINCT scope, COALESCE(owner_id, '') FROM triples ORDER BY scope, owner_id",
    )?;
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Refuse a `--scope SCOPE:OWNER` that names no stream of the home (an
/// unknown scope or owner, or an owner spelled in another case: owner ids
/// are exact), listing the streams it holds as `inspect` does.
///
/// # Errors
/// Bad input: "no such scope", the known streams, a case-insensitive match.
pub fn require_stream(path: &Path, scope: &str, owner: &str) -> CliResult<()> {
    // The common case, one index probe; the listing only on a miss.
    let conn = open_read_only(path)?;
    let held: Option<i64> = conn
        .query_row(
            "SELECT 1 FROM triples WHERE scope = ?1 AND owner_id = ?2 LIMIT 1",
            [scope, owner],
            |r| r.get(0),
        )
        .optional()?;
    drop(conn);
    if held.is_some() {
        return Ok(());
    }
    let known = streams(path)?;
    let name = |(s, o): &(String, String)| format!("{s}:{o}");
    let wanted = format!("{scope}:{owner}");
    let hint = known
        .iter()
        .find(|k| {
            name(k).eq_ignore_ascii_case(&wanted) || name(k).to_lowercase() == wanted.to_lowercase()
        })
        .map(|k| {
            format!(
                " (did you mean {}? owner ids are case-sensitive)",
                crate::text::escape(&name(k))
            )
        })
        .unwrap_or_default();
    const SHOWN: usize = 20;
    let mut list: Vec<String> = known
        .iter()
        .take(SHOWN)
        .map(|k| crate::text::escape(&name(k)))
        .collect();
    if known.len() > SHOWN {
        list.push(format!(
            "and {} more (am inspect lists them)",
            known.len() - SHOWN
        ));
    }
    let list = if list.is_empty() {
        "none: the home holds no records".to_owned()
    } else {
        list.join(", ")
    };
    Err(CliError::invalid(format!(
        "--scope {}: no such scope in {}{hint}; known: {list}",
        crate::text::escape(&wanted),
        path.display()
    )))
}

/// Refuse a `--scope SCOPE` (no owner) that names no scope of the home.
///
/// # Errors
/// Bad input: "no such scope" and the known scopes.
pub fn require_scope(path: &Path, scope: &str) -> CliResult<()> {
    let known = streams(path)?;
    if known.iter().any(|(s, _)| s == scope) {
        return Ok(());
    }
    let mut scopes: Vec<String> = known.iter().map(|(s, _)| crate::text::escape(s)).collect();
    scopes.dedup();
    let list = if scopes.is_empty() {
        "none: the home holds no records".to_owned()
    } else {
        scopes.join(", ")
    };
    Err(CliError::invalid(format!(
        "--scope {}: no such scope in {}; known: {list}",
        crate::text::escape(scope),
        path.display()
    )))
}

/// Open a home with `embedder`, `clock` and `config`, declaring the
/// embedder's creation pin (a new home is pinned to it).
///
/// # Errors
/// Bad input for a path that is not a home, an embedder contradicting the
/// home's pin, a newer schema; a failure when SQLite fails.
pub fn open(
    spec: &HomeSpec,
    embedder: Option<Arc<dyn TextEmbedder>>,
    clock: &PinnedClock,
    config: ReconstructConfig,
) -> CliResult<Engine> {
    let pin = creation_pin(embedder.as_ref(), clock)?;
    open_with_pin(spec, embedder, pin, clock, (config, false))
}

/// [`open`] with the memory task queue when `task_queue` (`am exec
/// --task-queue`, `am tasks`): the SQLite home's `memq_*` tables are created
/// when missing.
///
/// # Errors
/// As [`open`].
pub fn open_queued(
    spec: &HomeSpec,
    embedder: Option<Arc<dyn TextEmbedder>>,
    clock: &PinnedClock,
    task_queue: bool,
) -> CliResult<Engine> {
    open_queued_with(
        spec,
        embedder,
        clock,
        task_queue,
        ReconstructConfig::default(),
    )
}

/// [`open_queued`] with a reconstruct config (`am exec --profile`).
///
/// # Errors
/// As [`open`].
pub fn open_queued_with(
    spec: &HomeSpec,
    embedder: Option<Arc<dyn TextEmbedder>>,
    clock: &PinnedClock,
    task_queue: bool,
    config: ReconstructConfig,
) -> CliResult<Engine> {
    let pin = creation_pin(embedder.as_ref(), clock)?;
    open_with_pin(spec, embedder, pin, clock, (config, task_queue))
}

/// Open an existing home to read it (`query`, `recall`): no pin is declared,
/// so a home without one is not pinned by a read; the embedder is still
/// checked against a stored pin.
///
/// # Errors
/// As [`open`].
pub fn open_to_read(
    spec: &HomeSpec,
    embedder: Option<Arc<dyn TextEmbedder>>,
    clock: &PinnedClock,
    config: ReconstructConfig,
) -> CliResult<Engine> {
    open_with_pin(spec, embedder, None, clock, (config, false))
}

fn open_with_pin(
    spec: &HomeSpec,
    embedder: Option<Arc<dyn TextEmbedder>>,
    pin: Option<EmbeddingPin>,
    clock: &PinnedClock,
    (config, task_queue): (ReconstructConfig, bool),
) -> CliResult<Engine> {
    let mut memory = None;
    let (memory_home, sqlite): (Arc<dyn MemoryHome>, _) = match spec {
        HomeSpec::Memory => {
            let store = Arc::new(match pin {
                Some(p) => InMemoryTripleStore::with_pin(embedder.clone(), p)?,
                None => InMemoryTripleStore::new(embedder.clone()),
            });
            memory = Some(Arc::clone(&store));
            let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
            if task_queue {
                // `--memory --task-queue`: the in-memory pair keeps its
                // queue beside it, with the same answers as the SQLite home's.
                let queue = Arc::new(InMemoryTaskQueue::new());
                (
                    Arc::new(PairHome::with_task_queue(store, journal, queue)),
                    None,
                )
            } else {
                (Arc::new(PairHome::new(store, journal)), None)
            }
        }
        HomeSpec::Sqlite(path) => {
            check_home_path(path)?;
            let home = SqliteHome::open(path)
                .map_err(|e| CliError::from(e).context(&format!("--home {}", path.display())))?;
            let store = Arc::new(
                SQLiteTripleStore::with_home(
                    &home,
                    embedder.clone(),
                    SqliteStoreOptions {
                        embedding_pin: pin,
                        ..SqliteStoreOptions::default()
                    },
                )
                .map_err(|e| CliError::from(e).context(&format!("--home {}", path.display())))?,
            );
            let journal = Arc::new(am_backend_sqlite::journal::SQLiteJournal::open(&home)?);
            let memory_home = SqliteMemoryHome::new(store.clone(), journal)?;
            (Arc::new(memory_home), Some(store))
        }
    };
    let system = MemorySystem::over_home_with_options(
        memory_home,
        SystemOptions {
            embedder,
            clock: Some(clock.as_clock()),
            reconstruct_config: config,
            task_queue,
            ..SystemOptions::default()
        },
    )?;
    Ok(Engine {
        system,
        sqlite,
        memory,
    })
}

/// The files a SQLite home at `path` consists of (the database, its WAL,
/// shared-memory index and rollback journal).
fn home_files(path: &Path) -> Vec<PathBuf> {
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|suffix| {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            PathBuf::from(p)
        })
        .collect()
}

/// Whether the SQLite home at `path` holds nothing: no assertion and no
/// journal record (a pin, the schema and meta rows only).
fn is_blank(path: &Path) -> bool {
    let Ok(conn) = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    ) else {
        return false;
    };
    let count = |sql: &str| -> Option<i64> { conn.query_row(sql, [], |r| r.get(0)).ok() };
    let tables = count(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('triples', 'memj_seq')",
    );
    let rows = count("SELECT COUNT(*) FROM (SELECT 1 FROM triples LIMIT 1)").unwrap_or(0);
    let seq = count("SELECT COALESCE(MAX(value), 0) FROM memj_seq").unwrap_or(0);
    tables.is_some() && rows == 0 && seq == 0
}

/// Remove the home at `path` when this command created it and it holds
/// nothing (a command that failed, or an exec whose every line was refused):
/// bad input and failures leave no new home behind. A home that existed
/// before, or that holds any row or journal record, is kept.
pub fn remove_if_created_and_blank(path: &Path) {
    if is_blank(path) {
        for f in home_files(path) {
            // A file that is not there is already what we want.
            let _ = std::fs::remove_file(f);
        }
    }
}
