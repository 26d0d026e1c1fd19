//! The store's schema on disk: the triples table with AbstractMemory's names, its
//! indexes, the `{table}_meta` sidecar, the FTS5 keyword index, and the in-place
//! upgrades of older homes (the `embedding` column, JSON-text vectors to BLOBs).
//!
//! Spec: stores.md "SQLiteTripleStore"; troubleshooting "Opening an older home";
//! the 0.3.2 schema (`oracle-0.3.2/schema.sql`).

use crate::error::{Error, Result};
use crate::store::codec::{self, Decoded};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// The default triples table name.
pub const DEFAULT_TABLE: &str = "triples";

/// The store schema version this code writes and understands (meta key
/// [`META_SCHEMA_VERSION`]). A home declaring a larger one is refused.
pub const STORE_SCHEMA_VERSION: i64 = 1;

/// Meta key: the store schema version.
pub const META_SCHEMA_VERSION: &str = "schema_version";
/// Meta key: the embedding pin (compact JSON).
pub const META_EMBEDDING_PIN: &str = "embedding_pin";
/// Meta key: the FTS5 keyword index's rowid high-water.
pub const META_FTS_HIGH_WATER: &str = "fts_high_water";
/// Meta key: bumped whenever a keyword entry is replaced in place (a digest
/// rewrite), so every handle's keyword mirror rebuilds.
pub const META_FTS_GENERATION: &str = "fts_generation";
/// Meta key: the JSON→BLOB upgrade's rowid cursor.
pub const META_VECTOR_BLOB_HIGH_WATER: &str = "vector_blob_high_water";
/// Meta key: the vector encoding once the upgrade is complete.
pub const META_VECTOR_ENCODING: &str = "vector_encoding";
/// Meta key: bumped whenever stored vectors are rewritten (upgrade, re-embed), so
/// every handle's matrix cache rebuilds.
pub const META_VECTOR_GENERATION: &str = "vector_generation";
/// The value of [`META_VECTOR_ENCODING`] this code writes.
pub const VECTOR_ENCODING_F32_BLOB: &str = "float32-blob";

/// Meta key: the timestamp upgrade's rowid cursor.
pub const META_TIMESTAMP_HIGH_WATER: &str = "timestamp_high_water";
/// Meta key: the timestamp encoding once the timestamp upgrade is complete.
pub const META_TIMESTAMP_ENCODING: &str = "timestamp_encoding";
/// Meta key: how many rows the timestamp upgrade left as written because a
/// timestamp column holds text that is not a timestamp.
pub const META_TIMESTAMP_UNPARSEABLE_ROWS: &str = "timestamp_unparseable_rows";
/// The value of [`META_TIMESTAMP_ENCODING`] this code writes.
pub const TIMESTAMP_ENCODING_CANONICAL_UTC: &str = "canonical-utc";

/// Rows per transaction of the JSON→BLOB upgrade.
pub const DEFAULT_UPGRADE_BATCH_ROWS: usize = 5000;

/// Validate a table name (`[A-Za-z_][A-Za-z0-9_]*`): it is interpolated into SQL
/// identifiers, which cannot be bound as parameters. A blank name is the default.
///
/// # Errors
/// `InvalidInput` naming the rejected value.
pub fn checked_table(table_name: Option<&str>) -> Result<String> {
    let t = table_name.map(str::trim).unwrap_or_default();
    if t.is_empty() {
        return Ok(DEFAULT_TABLE.to_owned());
    }
    let mut chars = t.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !(first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')) {
        return Err(Error::from(am_triples::Error::invalid(format!(
            "table_name must match [A-Za-z_][A-Za-z0-9_]* (got {t:?}); it is interpolated into SQL identifiers"
        ))));
    }
    if let Some(clash) = table_name_clash(t) {
        return Err(Error::from(am_triples::Error::invalid(format!(
            "table_name {t:?} clashes with {clash}; choose a name that is not another \
             store's sidecar or keyword index"
        ))));
    }
    Ok(t.to_owned())
}

/// The suffixes of the objects a store creates beside its table `T`: the meta
/// sidecar `T_meta`, the FTS5 keyword index `T_fts` and FTS5's shadow tables.
const DERIVED_SUFFIXES: [&str; 7] = [
    "_meta",
    "_fts",
    "_fts_data",
    "_fts_idx",
    "_fts_docsize",
    "_fts_config",
    "_fts_content",
];

/// What a table name would collide with, if anything: an object another store
/// (the default `triples` or any other table `T`) creates beside its table
/// (`T_meta`, `T_fts`, FTS5's `T_fts_*` shadow tables), or SQLite's reserved
/// `sqlite_` prefix. SQLite compares names without case, and so does this.
fn table_name_clash(t: &str) -> Option<String> {
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("sqlite_") {
        return Some("SQLite's reserved sqlite_ prefix".to_owned());
    }
    // The longest matching suffix names the owner (`x_fts_data` is x's, not
    // `x_fts`'s, shadow table).
    let (suffix, owner) = DERIVED_SUFFIXES
        .iter()
        .filter_map(|s| {
            lower
                .strip_suffix(s)
                .filter(|o| !o.is_empty())
                .map(|_| (*s, &t[..t.len() - s.len()]))
        })
        .max_by_key(|(s, _)| s.len())?;
    let what = match suffix {
        "_meta" => "meta sidecar",
        "_fts" => "FTS5 keyword index",
        _ => "FTS5 keyword index's shadow table",
    };
    Some(format!(
        "the {what} of the table {owner:?} ({owner}{suffix})"
    ))
}

/// Whether a table (or virtual table) of that name exists.
pub fn table_exists(conn: &Connection, name: &str) -> Result<bool> {
    // Cached: every semantic query reads the pin and `vector_generation`.
    let mut stmt = conn.prepare_cached(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
    )?;
    Ok(stmt.exists([name])?)
}

/// Read one meta value (`None` when the sidecar or the key is absent).
pub fn meta_get(conn: &Connection, table: &str, key: &str) -> Result<Option<String>> {
    if !table_exists(conn, &format!("{table}_meta"))? {
        return Ok(None);
    }
    let mut stmt =
        conn.prepare_cached(&format!("SELECT value FROM {table}_meta WHERE key = ?1"))?;
    Ok(stmt
        .query_row([key], |r| r.get::<_, Option<String>>(0))
        .optional()?
        .flatten())
}

/// Write one meta value (the caller owns the transaction).
pub fn meta_set(conn: &Connection, table: &str, key: &str, value: &str) -> Result<()> {
    conn.execute(
        &format!("INSERT OR REPLACE INTO {table}_meta (key, value) VALUES (?1, ?2)"),
        params![key, value],
    )?;
    Ok(())
}

/// An integer meta value; absent or malformed is `0`.
pub fn meta_int(conn: &Connection, table: &str, key: &str) -> Result<i64> {
    Ok(meta_get(conn, table, key)?
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or(0))
}

/// Bump `vector_generation` (the caller owns the transaction).
pub fn bump_vector_generation(conn: &Connection, table: &str) -> Result<()> {
    let g = meta_int(conn, table, META_VECTOR_GENERATION)?;
    meta_set(conn, table, META_VECTOR_GENERATION, &(g + 1).to_string())
}

/// Refuse a home this code does not know, before anything is written: a meta
/// sidecar declaring a newer store schema, or a vector encoding other than ours.
///
/// # Errors
/// `Refused` naming what the file declares and what this code knows.
pub fn refuse_unknown(conn: &Connection, table: &str) -> Result<()> {
    if let Some(v) = meta_get(conn, table, META_SCHEMA_VERSION)? {
        let declared = v.trim().parse::<i64>().ok();
        if declared.is_none_or(|d| d > STORE_SCHEMA_VERSION) {
            return Err(Error::refused(format!(
                "{table}_meta declares store schema_version {v:?}, this code knows up to {STORE_SCHEMA_VERSION}; \
                 open the home with a newer AbstractMemory (nothing was written)"
            )));
        }
    }
    if let Some(v) = meta_get(conn, table, META_VECTOR_ENCODING)?
        && v != VECTOR_ENCODING_F32_BLOB
    {
        return Err(Error::refused(format!(
            "{table}_meta declares vector_encoding {v:?}, this code knows only {VECTOR_ENCODING_F32_BLOB:?} \
             (nothing was written)"
        )));
    }
    Ok(())
}

/// Whether every object of the current schema exists already (opening such a
/// home writes nothing and takes no write lock).
fn schema_complete(conn: &Connection, table: &str) -> Result<bool> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE name COLLATE NOCASE IN (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            table,
            format!("{table}_meta"),
            format!("{table}_fts"),
            format!("idx_{table}_spo"),
            format!("idx_{table}_scope_owner"),
            format!("idx_{table}_observed"),
            format!("idx_{table}_object"),
            format!("idx_{table}_scope_owner_observed"),
        ],
        |r| r.get(0),
    )?;
    Ok(n == 8 && has_embedding_column(conn, table)?)
}

fn has_embedding_column(conn: &Connection, table: &str) -> Result<bool> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let cols = stmt
        .query_map([], |r| r.get::<_, String>(1))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(cols.iter().any(|c| c == "embedding"))
}

/// Create (idempotently) the table, its indexes, the meta sidecar and the FTS5
/// index, add the `embedding` column to a file from before it existed, record the
/// schema version, and index rows above the FTS high-water.
///
/// # Errors
/// `Storage` when SQLite fails.
pub fn ensure_schema(conn: &mut Connection, table: &str) -> Result<()> {
    if !schema_complete(conn, table)? {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS {table} (
              assertion_id TEXT PRIMARY KEY,
              subject TEXT NOT NULL,
              predicate TEXT NOT NULL,
              object TEXT NOT NULL,
              scope TEXT NOT NULL,
              owner_id TEXT,
              observed_at TEXT NOT NULL,
              valid_from TEXT,
              valid_until TEXT,
              confidence REAL,
              provenance_json TEXT,
              attributes_json TEXT,
              text TEXT
            );
            CREATE INDEX IF NOT EXISTS idx_{table}_spo ON {table}(subject, predicate, object);
            CREATE INDEX IF NOT EXISTS idx_{table}_scope_owner ON {table}(scope, owner_id);
            CREATE INDEX IF NOT EXISTS idx_{table}_observed ON {table}(observed_at);
            CREATE INDEX IF NOT EXISTS idx_{table}_object ON {table}(object, predicate);
            CREATE INDEX IF NOT EXISTS idx_{table}_scope_owner_observed ON {table}(scope, owner_id, observed_at);
            CREATE TABLE IF NOT EXISTS {table}_meta (key TEXT PRIMARY KEY, value TEXT);
            CREATE VIRTUAL TABLE IF NOT EXISTS {table}_fts USING fts5(text, content={table}, content_rowid=rowid);"
        ))?;
        if !has_embedding_column(&tx, table)? {
            // The 0.3.x upgrade path: the column is added where ALTER TABLE puts it,
            // at the end, exactly as AbstractMemory does.
            tx.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN embedding TEXT"))?;
        }
        if meta_get(&tx, table, META_SCHEMA_VERSION)?.is_none() {
            meta_set(
                &tx,
                table,
                META_SCHEMA_VERSION,
                &STORE_SCHEMA_VERSION.to_string(),
            )?;
        }
        tx.commit()?;
    }
    // Backfill the keyword index only when rows sit above the cursor, so a
    // reader's open takes no write lock.
    let hw = meta_int(conn, table, META_FTS_HIGH_WATER)?;
    let max: i64 = conn.query_row(
        &format!("SELECT COALESCE(MAX(rowid), 0) FROM {table}"),
        [],
        |r| r.get(0),
    )?;
    if max > hw {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        sync_fts_index(&tx, table)?;
        tx.commit()?;
    }
    Ok(())
}

/// Index rows above the `fts_high_water` cursor in the FTS5 keyword index (the
/// caller owns the transaction). Record edges and bookkeeping rows are excluded
/// exactly as AbstractMemory 0.3.2 excludes them: any non-null
/// `attributes.record_edge` or `attributes.bookkeeping` keeps a row out.
///
/// # Errors
/// `Storage` when SQLite fails.
pub fn sync_fts_index(conn: &Connection, table: &str) -> Result<()> {
    let hw = meta_int(conn, table, META_FTS_HIGH_WATER)?;
    conn.execute(
        &format!(
            "INSERT INTO {table}_fts (rowid, text) \
             SELECT rowid, COALESCE(text, '') FROM {table} WHERE rowid > ?1 \
             AND json_extract(COALESCE(attributes_json, '{{}}'), '$.record_edge') IS NULL \
             AND json_extract(COALESCE(attributes_json, '{{}}'), '$.bookkeeping') IS NULL"
        ),
        [hw],
    )?;
    let new_high: i64 = conn.query_row(
        &format!("SELECT COALESCE(MAX(rowid), ?1) FROM {table}"),
        [hw],
        |r| r.get(0),
    )?;
    meta_set(conn, table, META_FTS_HIGH_WATER, &new_high.to_string())
}

/// What one run of the JSON→BLOB upgrade did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpgradeReport {
    /// Rows whose JSON-text vector became a float32 BLOB.
    pub rewritten: usize,
    /// Rows kept as JSON text because float32 cannot hold a value (the reference
    /// scan serves them, labelled).
    pub kept: usize,
    /// Whether the upgrade finished (`vector_encoding = float32-blob` written).
    pub complete: bool,
}

/// Upgrade JSON-text vectors (0.3.x) to float32 BLOBs in place, in transactions
/// of `batch_rows` rows above the `vector_blob_high_water` cursor, so it is
/// idempotent and an interrupted run resumes. On completion writes
/// `vector_encoding = float32-blob` and bumps `vector_generation`.
/// `stop_after_batches` stops early (tests simulate a kill with it).
///
/// The parse of the JSON text (most of the CPU) overlaps the SQL work: inside
/// batch N's transaction, after its `UPDATE`s, batch N+1's rows are read (the
/// write lock is held, so they are what the next transaction would read) and
/// parsed on other threads while batch N commits. The next transaction uses
/// them only when its cursor is where batch N left it and no other connection
/// has committed in between (`PRAGMA data_version` unchanged); otherwise it
/// reads and parses its rows again. Each cell's rewrite depends on that cell
/// alone, so the result is the same either way.
///
/// # Errors
/// `Storage` when SQLite fails (the batch in flight rolls back).
pub fn upgrade_vectors(
    conn: &mut Connection,
    table: &str,
    batch_rows: usize,
    stop_after_batches: Option<usize>,
) -> Result<UpgradeReport> {
    if meta_get(conn, table, META_VECTOR_ENCODING)?.as_deref() == Some(VECTOR_ENCODING_F32_BLOB) {
        return Ok(UpgradeReport {
            complete: true,
            ..UpgradeReport::default()
        });
    }
    // The upgrade reads every JSON vector (overflow pages, twice: the SELECT
    // and the UPDATE freeing them) once; memory-mapped reads spare a pread
    // and a page-cache copy per page. Reads only: writes still go through the
    // WAL as before, so durability is unchanged. The connection's own setting
    // is restored afterwards.
    let mmap_before: i64 = conn.query_row("PRAGMA mmap_size", [], |r| r.get(0))?;
    conn.pragma_update(None, "mmap_size", UPGRADE_MMAP_BYTES.max(mmap_before))?;
    let upgraded = upgrade_vector_batches(conn, table, batch_rows, stop_after_batches);
    let restored = conn.pragma_update(None, "mmap_size", mmap_before);
    let report = upgraded?;
    restored?;
    Ok(report)
}

/// The memory map the JSON→BLOB upgrade reads through (bytes; SQLite maps at
/// most the file's size).
const UPGRADE_MMAP_BYTES: i64 = 1 << 30;

/// The batches of [`upgrade_vectors`] (the encoding is not `float32-blob` yet).
fn upgrade_vector_batches(
    conn: &mut Connection,
    table: &str,
    batch_rows: usize,
    stop_after_batches: Option<usize>,
) -> Result<UpgradeReport> {
    let mut report = UpgradeReport::default();
    let batch = i64::try_from(batch_rows.max(1)).unwrap_or(i64::MAX);
    let mut batches = 0usize;
    let mut ahead: Option<ReadAhead> = None;
    loop {
        if stop_after_batches.is_some_and(|n| batches >= n) {
            return Ok(report);
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let hw = meta_int(&tx, table, META_VECTOR_BLOB_HIGH_WATER)?;
        let version = data_version(&tx)?;
        let (rows, rewritten) = match ahead.take() {
            Some(a) if a.above == hw && a.data_version == version => a.join(),
            _ => {
                let rows = read_vector_batch(&tx, table, hw, batch)?;
                let rewritten = rewrites(&rows);
                (rows, rewritten)
            }
        };
        let Some(&(last, _)) = rows.last() else {
            meta_set(&tx, table, META_VECTOR_ENCODING, VECTOR_ENCODING_F32_BLOB)?;
            bump_vector_generation(&tx, table)?;
            tx.commit()?;
            report.complete = true;
            return Ok(report);
        };
        {
            let mut update = tx.prepare_cached(&format!(
                "UPDATE {table} SET embedding = ?1 WHERE rowid = ?2"
            ))?;
            for ((rowid, _), rewrite) in rows.iter().zip(rewritten) {
                match rewrite {
                    None => {}
                    Some(Rewrite::Null) => {
                        update.execute(params![Option::<Vec<u8>>::None, rowid])?;
                        report.rewritten += 1;
                    }
                    Some(Rewrite::Blob(blob)) => {
                        update.execute(params![blob, rowid])?;
                        report.rewritten += 1;
                    }
                    Some(Rewrite::Keep) => report.kept += 1,
                }
            }
        }
        meta_set(&tx, table, META_VECTOR_BLOB_HIGH_WATER, &last.to_string())?;
        batches += 1;
        if stop_after_batches.is_none_or(|n| batches < n) {
            let next = read_vector_batch(&tx, table, last, batch)?;
            if !next.is_empty() {
                ahead = Some(ReadAhead::spawn(last, version, next));
            }
        }
        tx.commit()?;
    }
}

/// `PRAGMA data_version`: changes when another connection commits.
fn data_version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
}

/// The rows of one upgrade batch: `(rowid, embedding text)` above `above`, in
/// rowid order (`None` for a cell that is not text).
fn read_vector_batch(
    conn: &Connection,
    table: &str,
    above: i64,
    batch: i64,
) -> Result<Vec<(i64, Option<String>)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT rowid, CASE WHEN typeof(embedding) = 'text' THEN embedding END \
         FROM {table} WHERE rowid > ?1 ORDER BY rowid LIMIT ?2"
    ))?;
    let rows = stmt
        .query_map(params![above, batch], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The upgrade's next batch, read inside the previous batch's transaction and
/// parsed on other threads while that transaction commits.
struct ReadAhead {
    /// The cursor the rows were read above.
    above: i64,
    /// `PRAGMA data_version` when they were read.
    data_version: i64,
    /// The parse: the rows and their rewrites.
    parse: std::thread::JoinHandle<ParsedBatch>,
}

/// A batch's rows with the rewrite of each (see [`rewrites`]).
type ParsedBatch = (Vec<(i64, Option<String>)>, Vec<Option<Rewrite>>);

impl ReadAhead {
    fn spawn(above: i64, data_version: i64, rows: Vec<(i64, Option<String>)>) -> Self {
        let parse = std::thread::spawn(move || {
            let rewritten = rewrites(&rows);
            (rows, rewritten)
        });
        ReadAhead {
            above,
            data_version,
            parse,
        }
    }

    fn join(self) -> ParsedBatch {
        self.parse
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    }
}

/// What the JSON→BLOB upgrade writes for one JSON-text `embedding` cell.
enum Rewrite {
    /// Blank text: the row has no vector (NULL).
    Null,
    /// A vector float32 holds: its BLOB.
    Blob(Vec<u8>),
    /// A value float32 cannot hold, or not a vector: kept as written.
    Keep,
}

fn rewrite_of(text: &str) -> Rewrite {
    if text.trim().is_empty() {
        return Rewrite::Null;
    }
    match codec::decode_json(text) {
        Decoded::F32(v) => Rewrite::Blob(codec::encode_f32(&v)),
        _ => Rewrite::Keep,
    }
}

/// The rewrite of each row's text cell (`None`: not text), in row order. The
/// parse (most of the upgrade's time) is split over the available cores; each
/// cell's result depends on that cell alone, so the answer is the same however
/// it is split.
fn rewrites(rows: &[(i64, Option<String>)]) -> Vec<Option<Rewrite>> {
    let decode = |chunk: &[(i64, Option<String>)]| -> Vec<Option<Rewrite>> {
        chunk
            .iter()
            .map(|(_, t)| t.as_deref().map(rewrite_of))
            .collect()
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(8);
    if threads < 2 || rows.len() < 64 {
        return decode(rows);
    }
    std::thread::scope(|scope| {
        let parts: Vec<_> = rows
            .chunks(rows.len().div_ceil(threads))
            .map(|chunk| scope.spawn(move || decode(chunk)))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// What one run of the timestamp upgrade did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimestampUpgradeReport {
    /// Rows with at least one timestamp column rewritten to the canonical form.
    pub rewritten: usize,
    /// Rows (over every run, from meta) holding a value that is not a timestamp,
    /// left as written.
    pub unparseable: usize,
    /// Whether the upgrade finished (`timestamp_encoding = canonical-utc` written).
    pub complete: bool,
}

/// One timestamp column's value after the upgrade: `Ok(None)` keeps it,
/// `Ok(Some(new))` rewrites it, `Err(())` is text that is not a timestamp.
/// A blank `valid_from`/`valid_until` becomes NULL, as the write boundary
/// (`normalize_optional`) and the row decoder already read it.
fn upgraded_timestamp(
    value: Option<&str>,
    optional: bool,
) -> std::result::Result<Option<Option<String>>, ()> {
    let Some(v) = value else { return Ok(None) };
    if optional && v.trim().is_empty() {
        return Ok(Some(None));
    }
    match am_triples::timestamp::normalize_timestamp(v) {
        Ok(canon) if canon == v => Ok(None),
        Ok(canon) => Ok(Some(Some(canon))),
        Err(_) => Err(()),
    }
}

/// Rewrite `observed_at`, `valid_from` and `valid_until` of rows written by
/// AbstractMemory 0.3.x (which stored timestamps as given) to the canonical UTC
/// form, so string comparison is instant comparison (spec README "Our rules").
/// Runs in transactions of `batch_rows` rows above the `timestamp_high_water`
/// cursor (idempotent; an interrupted run resumes); on completion writes
/// `timestamp_encoding = canonical-utc`, after which it never scans again. A
/// value that is not a timestamp is left as written and its row counted in
/// `timestamp_unparseable_rows`. Terms, text, vectors and the FTS index are
/// untouched. `stop_after_batches` stops early (tests simulate a kill with it).
///
/// # Errors
/// `Storage` when SQLite fails (the batch in flight rolls back).
pub fn upgrade_timestamps(
    conn: &mut Connection,
    table: &str,
    batch_rows: usize,
    stop_after_batches: Option<usize>,
) -> Result<TimestampUpgradeReport> {
    let mut report = TimestampUpgradeReport::default();
    if meta_get(conn, table, META_TIMESTAMP_ENCODING)?.as_deref()
        == Some(TIMESTAMP_ENCODING_CANONICAL_UTC)
    {
        report.complete = true;
        report.unparseable = unparseable_timestamp_rows(conn, table)?;
        return Ok(report);
    }
    let batch = i64::try_from(batch_rows.max(1)).unwrap_or(i64::MAX);
    let mut batches = 0usize;
    loop {
        if stop_after_batches.is_some_and(|n| batches >= n) {
            report.unparseable = unparseable_timestamp_rows(conn, table)?;
            return Ok(report);
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let hw = meta_int(&tx, table, META_TIMESTAMP_HIGH_WATER)?;
        type Row = (i64, Option<String>, Option<String>, Option<String>);
        let rows: Vec<Row> = {
            let mut stmt = tx.prepare(&format!(
                "SELECT rowid, \
                 CASE WHEN typeof(observed_at) = 'text' THEN observed_at END, \
                 CASE WHEN typeof(valid_from) = 'text' THEN valid_from END, \
                 CASE WHEN typeof(valid_until) = 'text' THEN valid_until END \
                 FROM {table} WHERE rowid > ?1 ORDER BY rowid LIMIT ?2"
            ))?;
            stmt.query_map(params![hw, batch], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<rusqlite::Result<_>>()?
        };
        let Some(&(last, ..)) = rows.last() else {
            meta_set(
                &tx,
                table,
                META_TIMESTAMP_ENCODING,
                TIMESTAMP_ENCODING_CANONICAL_UTC,
            )?;
            tx.commit()?;
            report.complete = true;
            report.unparseable = unparseable_timestamp_rows(conn, table)?;
            return Ok(report);
        };
        let mut unparseable = 0usize;
        {
            let columns = ["observed_at", "valid_from", "valid_until"];
            for (rowid, observed, from, until) in &rows {
                let values = [observed, from, until];
                let mut bad = false;
                let mut changed = false;
                for (i, (column, value)) in columns.iter().zip(values).enumerate() {
                    match upgraded_timestamp(value.as_deref(), i > 0) {
                        Ok(None) => {}
                        Ok(Some(new)) => {
                            tx.prepare_cached(&format!(
                                "UPDATE {table} SET {column} = ?1 WHERE rowid = ?2"
                            ))?
                            .execute(params![new, rowid])?;
                            changed = true;
                        }
                        Err(()) => bad = true,
                    }
                }
                report.rewritten += usize::from(changed);
                unparseable += usize::from(bad);
            }
        }
        if unparseable > 0 {
            let before = meta_int(&tx, table, META_TIMESTAMP_UNPARSEABLE_ROWS)?;
            let total = before + i64::try_from(unparseable).unwrap_or(i64::MAX);
            meta_set(
                &tx,
                table,
                META_TIMESTAMP_UNPARSEABLE_ROWS,
                &total.to_string(),
            )?;
        }
        meta_set(&tx, table, META_TIMESTAMP_HIGH_WATER, &last.to_string())?;
        tx.commit()?;
        batches += 1;
    }
}

/// The `timestamp_unparseable_rows` count recorded by the timestamp upgrade.
///
/// # Errors
/// `Storage` when SQLite fails.
pub fn unparseable_timestamp_rows(conn: &Connection, table: &str) -> Result<usize> {
    Ok(usize::try_from(meta_int(conn, table, META_TIMESTAMP_UNPARSEABLE_ROWS)?).unwrap_or(0))
}
