//! `SQLiteTripleStore`: the triples table, its FTS5 keyword index, the meta
//! sidecar (embedding pin, cursors) and vector search, in one SQLite file
//! compatible with homes written by the Python AbstractMemory.
//!
//! Spec: stores.md "SQLiteTripleStore" and "Shared behavior"; api.md "Layer 1"
//! (performance surfaces, `read_embedding_pin`); operator.md §6b.

pub mod codec;
mod discovery;
mod keywords;
mod names;
pub mod pin;
mod rank_read;
pub mod read;
pub mod rewrite;
pub mod schema;
pub mod sql;
pub(crate) mod state;
pub mod vectors;
pub mod write;

use crate::error::{Error, Result};
use crate::home::SqliteHome;
use am_triples::assertion::{canonical_scope, strip_optional};
use am_triples::embed::TextEmbedder;
use am_triples::pin::{self as tpin, EmbeddingPin};
use am_triples::store::{
    Capabilities, FeedPage, ReadAccelerator, TripleStore, resolve_query_vector,
};
use am_triples::{TripleAssertion, TripleQuery};
use keywords::{KEYWORD_ENGINE_MIRROR, KEYWORD_ENGINE_SQL, KeywordCache};
use rusqlite::{Connection, TransactionBehavior, params, params_from_iter};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use vectors::{Candidates, ENGINE_MATRIX, ENGINE_SCAN, MatrixCache};

pub use pin::read_embedding_pin;
pub use schema::{DEFAULT_TABLE, STORE_SCHEMA_VERSION, TimestampUpgradeReport, UpgradeReport};

/// The vectors of one write batch, by index into the batch.
type BatchVectors = HashMap<usize, Vec<f32>>;

/// How a [`SQLiteTripleStore`] opens its table.
#[derive(Debug, Clone)]
pub struct SqliteStoreOptions {
    /// The triples table (`None`: `triples`); must match `[A-Za-z_][A-Za-z0-9_]*`.
    pub table_name: Option<String>,
    /// The creation pin: written on a pinless store, checked against a stored one.
    pub embedding_pin: Option<EmbeddingPin>,
    /// Rows per transaction of the JSON→BLOB upgrade (default 5,000).
    pub upgrade_batch_rows: usize,
    /// Stop the JSON→BLOB upgrade after this many batches, as a kill would
    /// (tests of the resumable upgrade). `None`: run to completion.
    pub upgrade_stop_after_batches: Option<usize>,
    /// Stop the timestamp upgrade (0.3.x timestamps to the canonical UTC form)
    /// after this many batches of `upgrade_batch_rows`, as a kill would (tests of
    /// the resumable upgrade). `None`: run to completion.
    pub timestamp_upgrade_stop_after_batches: Option<usize>,
}

impl Default for SqliteStoreOptions {
    fn default() -> Self {
        SqliteStoreOptions {
            table_name: None,
            embedding_pin: None,
            upgrade_batch_rows: schema::DEFAULT_UPGRADE_BATCH_ROWS,
            upgrade_stop_after_batches: None,
            timestamp_upgrade_stop_after_batches: None,
        }
    }
}

/// The SQLite triple store: durable, structured queries and vector search in one
/// file, shared with the journal and the graph through its [`SqliteHome`].
///
/// # Contract
/// Everything [`TripleStore`] states, answering exactly as `InMemoryTripleStore`
/// does on the same inputs, plus:
/// - `add` is one `BEGIN IMMEDIATE` transaction of `INSERT OR IGNORE` rows (an
///   existing `assertion_id` is skipped), embedding happens before it, and a
///   refused batch writes zero rows.
/// - Vectors are float32 little-endian BLOBs in the `embedding` column; JSON-text
///   vectors of 0.3.x homes are upgraded in place on open (resumable).
/// - Timestamps a 0.3.x home stored as given (`observed_at`, `valid_from`,
///   `valid_until`) are rewritten to the canonical UTC form on open (resumable,
///   once per home: `timestamp_encoding = canonical-utc`); a value that is not a
///   timestamp stays as written and is reported `#FALLBACK` once per handle.
/// - Structured reads select the assertion columns only; the owner filter is an
///   equality `idx_<table>_scope_owner_observed` serves ([`Self::query_plan`]).
/// - The embedding pin lives in `{table}_meta` (`embedding_pin`).
/// - A store is enrolled in `am_journal::join` while it lives and answers
///   `TripleStore::home_member` (its file's `HomeKey` and its handle), so a
///   `SQLiteJournal` of the same file handed over beside it writes with it in
///   ONE transaction (`am_journal::join::shared_home`,
///   [`crate::SqliteMemoryHome::joined`]).
pub struct SQLiteTripleStore {
    /// Everything the handle holds; a joined home's transactions write
    /// through another handle of the same state (its caches included).
    state: Arc<state::StoreState>,
}

impl std::fmt::Debug for SQLiteTripleStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SQLiteTripleStore")
            .field("path", &self.state.home.path())
            .field("table", &self.state.table)
            .finish_non_exhaustive()
    }
}

/// A SQLite failure while opening names the file (SQLite's own message does not:
/// "attempt to write a readonly database"); other errors already say what they
/// refuse.
fn naming_path(e: Error, path: &Path) -> Error {
    if e.source_as::<rusqlite::Error>().is_some() {
        let prefix = format!("cannot open the SQLite home {}", path.display());
        return Error::from(e.into_inner().with_prefix(&prefix));
    }
    e
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every mutation under these locks is either a SQLite transaction (rolled
    // back on unwind) or a cache that is rebuilt from the file: a poisoned lock
    // holds nothing torn.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl SQLiteTripleStore {
    /// Open (creating if absent) the home at `path` and its store.
    ///
    /// # Errors
    /// As [`Self::with_home`] (a bad or clashing table name is refused before
    /// the file is created); `Refused` for a file that is not SQLite; `Storage`
    /// naming `path` when SQLite cannot open or write it (a read-only file, a
    /// file in a read-only directory).
    pub fn open(
        path: impl AsRef<Path>,
        embedder: Option<Arc<dyn TextEmbedder>>,
        options: SqliteStoreOptions,
    ) -> Result<Self> {
        let path = path.as_ref();
        let table = schema::checked_table(options.table_name.as_deref())?;
        let home = SqliteHome::open(path).map_err(|e| naming_path(e, path))?;
        Self::with_home_checked(home, table, embedder, options)
    }

    /// Open the store over an open home's shared connection: refuse what this
    /// code does not know, create the schema (idempotent), upgrade an older home
    /// in place, write a creation pin on a pinless store, and refuse an embedder
    /// or declared pin contradicting the stored one.
    ///
    /// # Errors
    /// `InvalidInput` for a table name outside `[A-Za-z_][A-Za-z0-9_]*` or one
    /// clashing with another store's sidecar or keyword index (`triples_meta`,
    /// `triples_fts`, ...); `Refused` for a newer schema, an unknown vector
    /// encoding, or an embedder/pin contradicting the stored pin (nothing
    /// written); `Storage` naming the home's path when SQLite fails (a read-only
    /// file or directory among others).
    pub fn with_home(
        home: &SqliteHome,
        embedder: Option<Arc<dyn TextEmbedder>>,
        options: SqliteStoreOptions,
    ) -> Result<Self> {
        let table = schema::checked_table(options.table_name.as_deref())?;
        Self::with_home_checked(home.clone(), table, embedder, options)
    }

    fn with_home_checked(
        home: SqliteHome,
        table: String,
        embedder: Option<Arc<dyn TextEmbedder>>,
        options: SqliteStoreOptions,
    ) -> Result<Self> {
        let path = home.path().to_path_buf();
        Self::open_store(home, table, embedder, options).map_err(|e| naming_path(e, &path))
    }

    fn open_store(
        home: SqliteHome,
        table: String,
        embedder: Option<Arc<dyn TextEmbedder>>,
        options: SqliteStoreOptions,
    ) -> Result<Self> {
        let mut open_warnings = Vec::new();
        {
            let conn_arc = home.conn();
            let mut conn = lock(&conn_arc);
            // Every refusal happens before the first write.
            schema::refuse_unknown(&conn, &table)?;
            let stored = pin::load(&conn, &table)?;
            let declared = tpin::declared_pin(options.embedding_pin.as_ref())?;
            tpin::check_at_open(stored.as_ref(), declared.as_ref(), embedder.as_deref())?;
            schema::ensure_schema(&mut conn, &table)?;
            schema::upgrade_vectors(
                &mut conn,
                &table,
                options.upgrade_batch_rows,
                options.upgrade_stop_after_batches,
            )?;
            let timestamps = schema::upgrade_timestamps(
                &mut conn,
                &table,
                options.upgrade_batch_rows,
                options.timestamp_upgrade_stop_after_batches,
            )?;
            if timestamps.unparseable > 0 {
                open_warnings.push(format!(
                    "#FALLBACK: {} row(s) of {table} hold an observed_at/valid_from/valid_until value \
                     that is not a timestamp (written by AbstractMemory 0.3.x, which stored them as given); \
                     they were left as written and compare as text, not as instants",
                    timestamps.unparseable
                ));
            }
            if stored.is_none()
                && let Some(d) = &declared
            {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                // Another process may have pinned between our read and this lock.
                if pin::load(&tx, &table)?.is_none() {
                    pin::store(&tx, &table, d)?;
                }
                tx.commit()?;
            }
        }
        let key = crate::home::home_key_of(&home.conn());
        let handle = am_journal::join::next_handle();
        let state = Arc::new(state::StoreState {
            home,
            table,
            embedder: RwLock::new(embedder),
            cache: Mutex::new(None),
            keywords: Mutex::new(None),
            keyword_mirrored: AtomicBool::new(false),
            scan_warned: AtomicBool::new(false),
            serving_scan: AtomicBool::new(false),
            warnings: Mutex::new(open_warnings),
            guard: am_triples::GuardSlot::new(),
            member: am_triples::HomeMember { home: key, handle },
        });
        let joins: std::sync::Weak<state::StoreState> = Arc::downgrade(&state);
        am_journal::join::enrol(handle, joins);
        Ok(SQLiteTripleStore { state })
    }

    /// Another handle of the store whose state `state` is (a joined home's).
    pub(crate) fn from_state(state: Arc<state::StoreState>) -> Self {
        SQLiteTripleStore { state }
    }

    /// Call the installed commit guard for a commit at `point` (`Ok` when
    /// none is installed): for the transactions of the home's other views
    /// (the graph, the memory home) that commit this store's rows.
    ///
    /// # Errors
    /// [`Error::guard_refusal`](am_triples::Error::guard_refusal).
    #[inline]
    pub fn check_commit_guard(&self, point: am_triples::CommitPoint) -> am_triples::Result<()> {
        self.state.guard.check(point)
    }

    /// The home this store lives in.
    pub fn home(&self) -> &SqliteHome {
        &self.state.home
    }

    /// The triples table's name.
    pub fn table_name(&self) -> &str {
        &self.state.table
    }

    fn embedder(&self) -> Option<Arc<dyn TextEmbedder>> {
        self.state
            .embedder
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn with_conn<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let conn = self.state.home.conn();
        let mut guard = lock(&conn);
        f(&mut guard).map_err(|e| Error::from(crate::error::at_home(e.into_inner(), &guard)))
    }

    /// Bytes held by this handle's keyword mirror (0 before the first keyword
    /// discovery with positions): 20 bytes per indexed row, 8 per posting, each
    /// term and each distinct scope and owner string once.
    pub fn keyword_cache_bytes(&self) -> usize {
        lock(&self.state.keywords)
            .as_ref()
            .map_or(0, KeywordCache::bytes)
    }

    /// Which path served this handle's last keyword discovery with positions:
    /// `"fts5-mirror"` (the in-process mirror of the FTS5 index) or
    /// `"fts5-sql"` (the FTS5 query; before the first, or when the mirror
    /// cannot answer exactly). Both return the same rows in the same order.
    pub fn keyword_engine(&self) -> &'static str {
        if self.state.keyword_mirrored.load(Ordering::Relaxed) {
            KEYWORD_ENGINE_MIRROR
        } else {
            KEYWORD_ENGINE_SQL
        }
    }

    /// Which path serves vector queries: `"simd-matrix-cache"` (the in-process
    /// float32 matrix) or `"reference-linear-scan"` (a stored or query vector the
    /// matrix cannot score exactly; labelled `#FALLBACK` once per handle).
    /// Both return the same rows, order and scores.
    pub fn vector_engine(&self) -> &'static str {
        if self.state.serving_scan.load(Ordering::Relaxed) {
            ENGINE_SCAN
        } else {
            ENGINE_MATRIX
        }
    }

    /// Bytes held by this handle's matrix cache (0 before the first semantic
    /// query): 4 bytes per dimension per vectored row plus 24 bytes per row
    /// (rowid, squared norm, interned scope and owner ids) and each distinct scope
    /// and owner string once.
    pub fn vector_cache_bytes(&self) -> usize {
        lock(&self.state.cache)
            .as_ref()
            .map_or(0, MatrixCache::bytes)
    }

    /// Number of rows in the table.
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn row_count(&self) -> Result<usize> {
        self.with_conn(|c| {
            let n: i64 = c.query_row(
                &format!("SELECT COUNT(*) FROM {}", self.state.table),
                [],
                |r| r.get(0),
            )?;
            Ok(usize::try_from(n).unwrap_or(0))
        })
    }

    /// SQLite's `EXPLAIN QUERY PLAN` lines (the `detail` column) for the
    /// structured read `query(q)` runs: for a selective query (ids, subject or
    /// object) the unordered statement whose rows are ordered in Rust, otherwise
    /// the `ORDER BY ... LIMIT` statement.
    ///
    /// # Errors
    /// `InvalidInput` for a bad query; `Storage` when SQLite fails.
    pub fn query_plan(&self, q: &TripleQuery) -> Result<Vec<String>> {
        let q = q.canonicalized()?;
        let compiled = sql::structured_unordered(&self.state.table, &q)
            .unwrap_or_else(|| sql::structured(&self.state.table, &q));
        self.with_conn(|c| {
            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {}", compiled.sql))?;
            let lines = stmt
                .query_map(params_from_iter(compiled.params.iter()), |r| {
                    r.get::<_, String>(3)
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(lines)
        })
    }

    /// Swap every stored vector for `vectors` (assertion id → vector) in one
    /// transaction, all or nothing: rows absent from `vectors` become vectorless,
    /// the new `pin` is written last, `vector_generation` is bumped (every
    /// handle's matrix cache rebuilds), and `embedder` (when given) becomes the
    /// live embedder. A zero vector (an embedder that found no known token)
    /// leaves its row vectorless with one `#FALLBACK` warning, as `add` does.
    /// Returns the number of rows that now hold a vector.
    ///
    /// # Errors
    /// `InvalidInput` for an empty, NaN or infinite vector;
    /// `DimensionMismatch` for mixed dimensions or a dimension other than the
    /// pin's; `Refused` when `embedder` contradicts `pin`; `Conflict` when the
    /// table no longer holds `expected_row_count` rows (another writer touched
    /// it). Nothing is written on error.
    pub fn replace_vectors(
        &self,
        vectors: &HashMap<String, Vec<f32>>,
        pin: &EmbeddingPin,
        expected_row_count: usize,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> Result<usize> {
        let mut ids: Vec<&String> = vectors.keys().collect();
        ids.sort();
        let ordered: Vec<Vec<f32>> = ids.iter().map(|id| vectors[*id].clone()).collect();
        // The write rule of `add`: a zero vector (the embedder found no known
        // token) leaves its row vectorless, with one #FALLBACK warning.
        let checked = am_triples::embed::embedded_batch(ordered)?;
        if let Some(d) = checked.dimension {
            pin.check_add_dimension(d)?;
        }
        if let Some(e) = &embedder {
            pin.check_embedder(e.as_ref())?;
        }
        let _write = self.state.home.write_lock().write();
        let changed = self.with_conn(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let count: i64 = tx.query_row(
                &format!("SELECT COUNT(*) FROM {}", self.state.table),
                [],
                |r| r.get(0),
            )?;
            if usize::try_from(count).ok() != Some(expected_row_count) {
                return Err(Error::from(am_triples::Error::conflict(format!(
                    "vector swap refused: the store changed mid-pass ({count} rows now, \
                     {expected_row_count} expected); nothing was written"
                ))));
            }
            tx.execute(
                &format!("UPDATE {} SET embedding = NULL", self.state.table),
                [],
            )?;
            let mut changed = 0usize;
            {
                let mut stmt = tx.prepare(&format!(
                    "UPDATE {} SET embedding = ?1 WHERE assertion_id = ?2",
                    self.state.table
                ))?;
                for (id, v) in ids.iter().zip(&checked.vectors) {
                    if let Some(v) = v {
                        changed += stmt.execute(params![codec::encode_f32(v), id])?;
                    }
                }
            }
            schema::meta_set(
                &tx,
                &self.state.table,
                schema::META_VECTOR_ENCODING,
                schema::VECTOR_ENCODING_F32_BLOB,
            )?;
            schema::bump_vector_generation(&tx, &self.state.table)?;
            pin::store(&tx, &self.state.table, pin)?;
            self.state
                .guard
                .check(am_triples::CommitPoint::StoreReplaceVectors)?;
            tx.commit()?;
            Ok(changed)
        })?;
        if checked.zero_rows > 0 {
            self.push_warning(am_triples::embed::zero_vector_warning(
                checked.zero_rows,
                ids.len(),
            ));
        }
        if let Some(e) = embedder {
            *self
                .state
                .embedder
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(e);
        }
        Ok(changed)
    }

    /// Keyword discovery over the FTS5 index: rows of `scope` (and `owner_id`;
    /// `None` is any owner, per "Our rules") matching ANY of `tokens`, best BM25
    /// match first, ties newest first, at most `limit`. Tokens are matched as
    /// quoted terms (the caller tokenizes); record edges and bookkeeping rows are
    /// not indexed. A pure read.
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn query_keywords(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TripleAssertion>> {
        let Some(matcher) = discovery::fts_match(&discovery::match_terms(tokens)) else {
            return Ok(Vec::new());
        };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let cols = codec::ASSERTION_COLUMNS
            .split(", ")
            .map(|c| format!("t.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let table = &self.state.table;
        let owner = strip_optional(owner_id);
        let mut params: Vec<rusqlite::types::Value> =
            vec![matcher.into(), canonical_scope(scope).into()];
        let owner_clause = match owner {
            Some(o) => {
                params.push(o.into());
                "AND t.owner_id = ?"
            }
            None => "",
        };
        // A literal limit: a bound LIMIT makes SQLite re-prepare per binding.
        let limit_sql = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with_conn(|c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {cols} FROM {table}_fts f JOIN {table} t ON t.rowid = f.rowid \
                 WHERE {table}_fts MATCH ? AND t.scope = ? {owner_clause} \
                 ORDER BY bm25({table}_fts), t.rowid DESC LIMIT {limit_sql}"
            ))?;
            let rows = stmt
                .query_map(params_from_iter(params.iter()), codec::row_to_assertion)?
                .map(|r| r.map(|(_, a)| a))
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    fn push_warning(&self, w: String) {
        lock(&self.state.warnings).push(w);
    }

    fn load_pin(&self) -> Result<Option<EmbeddingPin>> {
        self.with_conn(|c| pin::load(c, &self.state.table))
    }

    fn structured(&self, q: &TripleQuery) -> Result<Vec<TripleAssertion>> {
        self.with_conn(|c| read::structured(c, &self.state.table, q))
    }

    /// The change feed's page, each row cut to `keep` when given
    /// (`assertions_after` and `ReadAccelerator::assertions_after_narrow`).
    fn feed_page(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        keep: Option<am_triples::Narrow<'_>>,
    ) -> am_triples::Result<FeedPage> {
        let mut rows = Vec::new();
        let next = self.feed_read(cursor, scope, owner_id, limit, &mut |r| {
            rows.push(match keep {
                None => codec::row_to_assertion(r)?,
                Some(k) => codec::row_to_narrow_assertion(r, k)?,
            });
            Ok(())
        })?;
        Ok(FeedPage {
            rows,
            next_cursor: next,
        })
    }

    /// The change feed's page after `cursor`, each row given to `each` as
    /// SQLite steps to it (one read transaction: the page and the head come
    /// from one snapshot); answers the next cursor. When no row lies past the
    /// cursor, one seek to the last row answers, without a transaction. `each`
    /// sees rows selected with [`codec::ASSERTION_COLUMNS`].
    fn feed_read(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        each: &mut dyn FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<()>,
    ) -> am_triples::Result<i64> {
        let am_triples::store::FeedArgs {
            start,
            scope,
            owner_id: owner,
        } = am_triples::store::feed_args(cursor, scope, owner_id, limit)?;
        let head_sql = format!("SELECT COALESCE(MAX(rowid), 0) FROM {}", self.state.table);
        Ok(self.with_conn(|c| {
            // Nothing past the cursor (a caught-up reader's usual call): one
            // cached seek to the last row answers, with no transaction.
            let head: i64 = c.prepare_cached(&head_sql)?.query_row([], |r| r.get(0))?;
            if head <= start {
                return Ok(start);
            }
            let tx = c.transaction_with_behavior(TransactionBehavior::Deferred)?;
            let mut sql = format!(
                "SELECT {} FROM {} WHERE rowid > ?",
                codec::ASSERTION_COLUMNS,
                self.state.table
            );
            let mut p: Vec<rusqlite::types::Value> = vec![start.into()];
            if let Some(s) = &scope {
                sql.push_str(" AND scope = ?");
                p.push(s.clone().into());
            }
            if let Some(o) = &owner {
                sql.push_str(" AND owner_id = ?");
                p.push(o.clone().into());
            }
            // A literal limit: a bound LIMIT makes SQLite re-prepare per binding.
            sql.push_str(&format!(
                " ORDER BY rowid LIMIT {}",
                i64::try_from(limit).unwrap_or(i64::MAX)
            ));
            let (seen, last) = {
                let mut stmt = tx.prepare_cached(&sql)?;
                let mut rows = stmt.query(params_from_iter(p.iter()))?;
                let (mut seen, mut last) = (0usize, start);
                while let Some(r) = rows.next()? {
                    last = r.get(0)?;
                    each(r)?;
                    seen += 1;
                }
                (seen, last)
            };
            let next = if seen == limit {
                last
            } else {
                let head: i64 = tx.prepare_cached(&head_sql)?.query_row([], |r| r.get(0))?;
                head.max(start)
            };
            tx.commit()?;
            Ok(next)
        })?)
    }

    fn structured_narrow(
        &self,
        q: &TripleQuery,
        keep: am_triples::Narrow<'_>,
    ) -> Result<Vec<TripleAssertion>> {
        self.with_conn(|c| read::structured_narrow(c, &self.state.table, q, keep))
    }

    fn structured_visit(
        &self,
        q: &TripleQuery,
        keep: am_triples::Narrow<'_>,
        text: bool,
        visit: &mut dyn FnMut(am_triples::NarrowRow<'_>),
    ) -> Result<()> {
        self.with_conn(|c| read::structured_visit(c, &self.state.table, q, keep, text, visit))
    }

    fn note_scan(&self, reason: &str) {
        self.state.serving_scan.store(true, Ordering::Relaxed);
        if !self.state.scan_warned.swap(true, Ordering::Relaxed) {
            self.push_warning(format!(
                "#FALLBACK: SQLite vector search uses the reference linear scan: {reason}; \
                 the results are the same, only slower"
            ));
        }
    }

    fn semantic(&self, q: &TripleQuery, qv: &[f32]) -> Result<Vec<TripleAssertion>> {
        let limit = q.effective_limit();
        let conn_arc = self.state.home.conn();
        let conn = lock(&conn_arc);
        // The candidate rowids by SQL (`None`: every vectored row).
        let read_candidates = || -> Result<Option<Vec<i64>>> {
            let Some(compiled) = sql::candidates(&self.state.table, q) else {
                return Ok(None);
            };
            let mut stmt = conn.prepare_cached(&compiled.sql)?;
            let mut rows = stmt.query(params_from_iter(compiled.params.iter()))?;
            let mut ids = Vec::new();
            while let Some(r) = rows.next()? {
                let object: String = r.get(1)?;
                let attrs: Option<String> = r.get(2)?;
                if !compiled.object_post_filter || sql::object_rule(q, &object, attrs.as_deref()) {
                    ids.push(r.get(0)?);
                }
            }
            Ok(Some(ids))
        };
        // A scope/owner-only filter is applied by the matrix cache, which keeps
        // each row's (never updated) scope and owner: no SQL per query. Any other
        // filter (ids, terms, time window, `active_at`, which reads the updatable
        // valid_until) is read by SQL.
        let partition = sql::partition_filter(q);
        let candidates = match partition {
            Some(_) => None,
            None => read_candidates()?,
        };
        let ranked = {
            let mut cache = lock(&self.state.cache);
            MatrixCache::refresh(&mut cache, &conn, &self.state.table)?;
            let c = cache
                .as_ref()
                .ok_or_else(|| am_triples::Error::storage("vector cache missing after refresh"))?;
            let scan_reason = match (c.defect(), c.dim()) {
                (Some(d), _) => Some(format!(
                    "the store holds a vector the float32 matrix cannot score exactly ({d})"
                )),
                (None, Some(d)) if d != qv.len() => Some(format!(
                    "a query vector of dimension {} against stored vectors of dimension {d}",
                    qv.len()
                )),
                _ => None,
            };
            match scan_reason {
                None => {
                    self.state.serving_scan.store(false, Ordering::Relaxed);
                    let which = match (partition, candidates.as_deref()) {
                        (Some((scope, owner_id)), _) => Candidates::Partition { scope, owner_id },
                        (None, Some(ids)) => Candidates::Rowids(ids),
                        (None, None) => Candidates::All,
                    };
                    c.rank(qv, which, q.min_score, limit)
                }
                Some(reason) => {
                    drop(cache);
                    self.note_scan(&reason);
                    let candidates = match partition {
                        Some(_) => read_candidates()?,
                        None => candidates,
                    };
                    let rows = scan_rows(&conn, &self.state.table, candidates.as_deref())?;
                    vectors::scan_rank(qv, &rows, q.min_score, limit)
                }
            }
        };
        if ranked.is_empty() {
            return Ok(Vec::new());
        }
        let mut by_rowid: HashMap<i64, TripleAssertion> = HashMap::with_capacity(ranked.len());
        for chunk in ranked.chunks(500) {
            let sql = format!(
                "SELECT {} FROM {} WHERE rowid IN ({})",
                codec::ASSERTION_COLUMNS,
                self.state.table,
                vec!["?"; chunk.len()].join(", ")
            );
            // Cached: a query's limit fixes the chunk's length, so the same few
            // statements recur.
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk.iter().map(|(r, _)| *r)), |r| {
                codec::row_to_assertion(r)
            })?;
            for row in rows {
                let (rowid, a) = row?;
                by_rowid.insert(rowid, a);
            }
        }
        Ok(ranked
            .into_iter()
            .filter_map(|(rowid, score)| {
                let mut a = by_rowid.remove(&rowid)?;
                am_triples::store::stamp_retrieval(&mut a, score, None);
                Some(a)
            })
            .collect())
    }
}

/// Every vectored row (within `candidates` when given), decoded, in rowid order.
fn scan_rows(
    conn: &Connection,
    table: &str,
    candidates: Option<&[i64]>,
) -> Result<Vec<(i64, codec::Decoded)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT rowid, embedding FROM {table} WHERE embedding IS NOT NULL ORDER BY rowid"
    ))?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let rowid: i64 = r.get(0)?;
        if candidates.is_some_and(|c| c.binary_search(&rowid).is_err()) {
            continue;
        }
        out.push((rowid, codec::decode_cell(r.get_ref(1)?)));
    }
    Ok(out)
}

impl TripleStore for SQLiteTripleStore {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            close_assertion: true,
            narrow_assertion: true,
            change_feed: true,
            vector_search: true,
            digest_rewrite: true,
            persistent: true,
            cross_process_writers: true,
        }
    }

    fn add(&self, assertions: &[TripleAssertion]) -> am_triples::Result<Vec<String>> {
        let added = self.add_rows(assertions)?;
        self.record_warnings(added.warnings);
        Ok(added.ids)
    }

    fn add_with_warnings(
        &self,
        assertions: &[TripleAssertion],
    ) -> am_triples::Result<am_triples::Added> {
        self.add_rows(assertions)
    }

    fn query(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        let q = q.canonicalized()?;
        if !q.is_semantic() {
            return Ok(self.structured(&q)?);
        }
        let pin = self.load_pin()?;
        let Some(qv) = resolve_query_vector(&q, self.embedder().as_deref(), pin.as_ref())? else {
            return Ok(self.structured(&q)?);
        };
        if let Some(p) = &pin {
            p.check_query_dimension(qv.len())?;
        }
        Ok(self.semantic(&q, &qv)?)
    }

    /// Release this handle's matrix cache (4 bytes per dimension per vectored
    /// row plus its bookkeeping; [`SQLiteTripleStore::vector_cache_bytes`] is 0
    /// afterwards) and its keyword mirror ([`SQLiteTripleStore::keyword_cache_bytes`]). Nothing else: the connection belongs to the [`SqliteHome`],
    /// which the journal and the graph may share, and is closed when the last
    /// handle on it is dropped. The spec (stores.md "Shared behavior") states no
    /// refusal after `close`, so the handle stays usable: the next semantic
    /// query rebuilds the cache from the file. Idempotent; never fails.
    fn close(&self) -> am_triples::Result<()> {
        *lock(&self.state.cache) = None;
        *lock(&self.state.keywords) = None;
        Ok(())
    }

    fn close_assertion(&self, assertion_id: &str, valid_until: &str) -> am_triples::Result<bool> {
        self.close_row(assertion_id, valid_until)
    }

    fn narrow_assertion(&self, assertion_id: &str, valid_until: &str) -> am_triples::Result<bool> {
        self.narrow_row(assertion_id, valid_until)
    }

    fn assertions_after(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
    ) -> am_triples::Result<FeedPage> {
        self.feed_page(cursor, scope, owner_id, limit, None)
    }

    fn feed_head(&self) -> am_triples::Result<i64> {
        let sql = format!("SELECT COALESCE(MAX(rowid), 0) FROM {}", self.state.table);
        Ok(self.with_conn(|c| Ok(c.prepare_cached(&sql)?.query_row([], |r| r.get(0))?))?)
    }

    fn stored_vector(&self, assertion_id: &str) -> am_triples::Result<Option<Vec<f32>>> {
        let id = am_triples::assertion::py_strip(assertion_id).to_owned();
        if id.is_empty() {
            return Ok(None);
        }
        Ok(self.with_conn(|c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT embedding FROM {} WHERE assertion_id = ?1",
                self.state.table
            ))?;
            let mut rows = stmt.query([&id])?;
            Ok(match rows.next()? {
                None => None,
                Some(r) => match codec::decode_cell(r.get_ref(0)?) {
                    codec::Decoded::F32(v) => Some(v),
                    _ => None,
                },
            })
        })?)
    }

    fn embedding_pin(&self) -> am_triples::Result<Option<EmbeddingPin>> {
        Ok(self.load_pin()?)
    }

    fn replace_vectors(
        &self,
        vectors: &HashMap<String, Vec<f32>>,
        pin: &EmbeddingPin,
        expected_row_count: usize,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<usize> {
        Ok(SQLiteTripleStore::replace_vectors(
            self,
            vectors,
            pin,
            expected_row_count,
            embedder,
        )?)
    }

    fn has_file_meta(&self) -> bool {
        true
    }

    fn file_meta(&self, key: &str) -> am_triples::Result<Option<String>> {
        Ok(self.with_conn(|c| schema::meta_get(c, &self.state.table, key))?)
    }

    fn embeds_on_add(&self) -> Option<bool> {
        Some(self.embedder().is_some())
    }

    fn preview_vectors(
        &self,
        rows: &[TripleAssertion],
    ) -> am_triples::Result<Option<Vec<Option<Vec<f32>>>>> {
        // The rules of `add` (`embed_rows` over the canonical rows), nothing
        // written: `embed_missing` computes one stored row's vector with it.
        let canonical = rows
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<am_triples::Result<Vec<_>>>()?;
        let Some(embedder) = self.embedder() else {
            return Ok(Some(vec![None; rows.len()]));
        };
        let texts: Vec<String> = canonical
            .iter()
            .map(am_triples::text::canonical_text)
            .collect();
        let embedded =
            am_triples::store::embed_rows(Some(embedder.as_ref()), &canonical, &texts, || {
                Ok(self.load_pin()?)
            })?;
        Ok(Some(embedded.vectors))
    }

    fn prepare_digest_rewrite(
        &self,
        rewrite: &am_triples::DigestRewrite,
    ) -> am_triples::Result<am_triples::PreparedRewrite> {
        Ok(self.prepare_rewrite_row(rewrite)?)
    }

    fn apply_digest_rewrite(
        &self,
        prepared: &am_triples::PreparedRewrite,
        point: am_triples::CommitPoint,
    ) -> am_triples::Result<()> {
        Ok(self.apply_rewrite(prepared, point)?)
    }

    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.state.warnings))
    }

    fn install_commit_guard(&self, guard: &am_triples::CommitGuard) -> am_triples::Result<()> {
        self.state.guard.install(guard, "this SQLiteTripleStore")
    }

    fn commit_guard(&self) -> Option<am_triples::CommitGuard> {
        self.state.guard.get().cloned()
    }

    fn write_fence(&self) -> am_triples::WriteFence {
        self.state.home.write_fence()
    }

    fn home_member(&self) -> Option<am_triples::HomeMember> {
        Some(self.state.member.clone())
    }

    fn accelerator(&self) -> Option<&dyn ReadAccelerator> {
        Some(self)
    }
}

/// Every accelerated read: `subjects_with_predicate` in one indexed read,
/// `rank_positions` from the matrix cache's partitions, the keyword reads
/// from the FTS5 index (and its in-process mirror).
impl ReadAccelerator for SQLiteTripleStore {
    fn assertions_after_narrow(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        keep: am_triples::Narrow<'_>,
    ) -> am_triples::Result<FeedPage> {
        self.feed_page(cursor, scope, owner_id, limit, Some(keep))
    }

    /// The feed's page lent row by row as SQLite steps to it.
    fn visit_after_narrow(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        keep: am_triples::Narrow<'_>,
        visit: &mut dyn FnMut(i64, am_triples::NarrowRow<'_>),
    ) -> am_triples::Result<(usize, i64)> {
        let mut seen = 0usize;
        let next = self.feed_read(cursor, scope, owner_id, limit, &mut |r| {
            codec::visit_narrow_row(r, keep, &mut *visit)?;
            seen += 1;
            Ok(())
        })?;
        Ok((seen, next))
    }

    /// A structured read (no object filter, which reads `attributes.literal`)
    /// decodes only the kept keys of each row's JSON columns; any other
    /// query is read whole and cut.
    fn query_narrow(
        &self,
        q: &TripleQuery,
        keep: am_triples::Narrow<'_>,
    ) -> am_triples::Result<Vec<TripleAssertion>> {
        let q = q.canonicalized()?;
        if q.is_semantic() || q.object.is_some() {
            let mut rows = self.query(&q)?;
            for row in &mut rows {
                keep.apply(row);
            }
            return Ok(rows);
        }
        Ok(self.structured_narrow(&q, keep)?)
    }

    /// [`ReadAccelerator::query_narrow`]'s rows lent one by one as SQLite
    /// steps to them (a structured read); any other query is read whole,
    /// cut, and lent.
    fn visit_narrow(
        &self,
        q: &TripleQuery,
        keep: am_triples::Narrow<'_>,
        visit: &mut dyn FnMut(am_triples::NarrowRow<'_>),
    ) -> am_triples::Result<()> {
        let q = q.canonicalized()?;
        if q.is_semantic() || q.object.is_some() {
            for mut row in self.query(&q)? {
                keep.apply(&mut row);
                visit(am_triples::NarrowRow::of(&row));
            }
            return Ok(());
        }
        Ok(self.structured_visit(&q, keep, false, visit)?)
    }

    /// [`ReadAccelerator::visit_narrow`]'s read, each row lent from the
    /// statement with its attributes column's text (a structured read);
    /// any other query is read whole, cut and lent as `visit_narrow` lends
    /// it.
    fn visit_narrow_text(
        &self,
        q: &TripleQuery,
        keep: am_triples::Narrow<'_>,
        visit: &mut dyn FnMut(am_triples::NarrowRow<'_>),
    ) -> am_triples::Result<()> {
        let q = q.canonicalized()?;
        if q.is_semantic() || q.object.is_some() {
            for mut row in self.query(&q)? {
                keep.apply(&mut row);
                visit(am_triples::NarrowRow::of(&row));
            }
            return Ok(());
        }
        Ok(self.structured_visit(&q, keep, true, visit)?)
    }

    fn subjects_with_predicate(
        &self,
        subjects: &[String],
        predicate: &str,
    ) -> am_triples::Result<std::collections::HashSet<String>> {
        use am_triples::assertion::canonicalize_term;
        let predicate = canonicalize_term(predicate);
        // Canonicalized as `query` canonicalizes a subject; a blank one
        // (which `query` would not filter on) is asked alone.
        let mut by_canonical: HashMap<String, Vec<&String>> = HashMap::new();
        let mut out = std::collections::HashSet::new();
        let mut alone: Vec<String> = Vec::new();
        for s in subjects {
            let c = canonicalize_term(s);
            if c.is_empty() || predicate.is_empty() {
                alone.push(s.clone());
            } else {
                by_canonical.entry(c).or_default().push(s);
            }
        }
        if !alone.is_empty() {
            let mut q = TripleQuery::default();
            for s in alone {
                q.subject = Some(s.clone());
                q.predicate = Some(predicate.clone());
                q.limit = 1;
                if !self.query(&q)?.is_empty() {
                    out.insert(s);
                }
            }
        }
        if by_canonical.is_empty() {
            return Ok(out);
        }
        let keys: Vec<&str> = by_canonical.keys().map(String::as_str).collect();
        let list = serde_json::to_string(&keys).map_err(|e| {
            am_triples::Error::internal(format!("a subject list did not encode: {e}"))
        })?;
        let found = self.with_conn(|c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT j.value FROM json_each(?2) j WHERE EXISTS \
                 (SELECT 1 FROM {} WHERE subject = j.value AND predicate = ?1)",
                self.state.table
            ))?;
            let rows = stmt.query_map(params![predicate, list], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
        })?;
        for subject in found {
            if let Some(inputs) = by_canonical.get(&subject) {
                out.extend(inputs.iter().map(|s| (*s).clone()));
            }
        }
        Ok(out)
    }

    fn rank_positions(&self, q: &TripleQuery) -> am_triples::Result<Option<Vec<(i64, f64)>>> {
        self.rank_partition(q)
    }

    fn query_keywords(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
    ) -> am_triples::Result<Vec<TripleAssertion>> {
        Ok(SQLiteTripleStore::query_keywords(
            self, tokens, scope, owner_id, limit,
        )?)
    }

    fn keyword_positions(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        positions: (i64, i64),
    ) -> am_triples::Result<Option<Vec<i64>>> {
        Ok(Some(self.keyword_rowids(
            tokens, scope, owner_id, limit, positions,
        )?))
    }

    fn keyword_scores(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        positions: (i64, i64),
    ) -> am_triples::Result<Option<Vec<(i64, f64)>>> {
        Ok(Some(self.keyword_scored(
            tokens, scope, owner_id, limit, positions,
        )?))
    }
}
