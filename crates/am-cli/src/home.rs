//! Opening a home: a SQLite file (store and journal on one connection) or the
//! in-memory pair, with the chosen embedder, a creation pin from the
//! embedder's `model_id`/`dimension` on a new home, and a pinnable clock, all
//! wrapped in one [`MemorySystem`].

use crate::error::{CliError, CliResult};
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, MemoryHome, MemoryJournal, PairHome};
use am_system::{Clock, MemorySystem, ReconstructConfig, SystemOptions};
use am_triples::timestamp::{format_utc, parse_timestamp};
use am_triples::{EmbeddingPin, InMemoryTripleStore, TextEmbedder, build_pin};
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
        format_utc(self.lock().unwrap_or_else(OffsetDateTime::now_utc))
    }

    /// The clock as the system's injectable [`Clock`].
    pub fn as_clock(&self) -> Clock {
        let me = self.clone();
        Arc::new(move || me.now())
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
    open_with_pin(spec, embedder, pin, clock, config)
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
    open_with_pin(spec, embedder, None, clock, config)
}

fn open_with_pin(
    spec: &HomeSpec,
    embedder: Option<Arc<dyn TextEmbedder>>,
    pin: Option<EmbeddingPin>,
    clock: &PinnedClock,
    config: ReconstructConfig,
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
            (Arc::new(PairHome::new(store, journal)), None)
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
