//! The store's tables, created in one transaction at open, and the row codec.
//!
//! The layout mirrors the SQLite home's `{table}` and `{table}_meta`: the same
//! columns under the same names, plus `position` (the change feed's axis,
//! allocated under the write lock so it never gaps or repeats) and the vector
//! as `bytea` (little-endian `f32`) instead of JSON text. JSON columns are
//! `text`, not `jsonb`, so a row's keys come back in the order written.

use am_triples::{Error, JsonMap, Result, TripleAssertion};
use postgres::GenericClient;

/// The meta key of the embedding pin (as in the SQLite home).
pub(crate) const META_EMBEDDING_PIN: &str = "embedding_pin";
/// The meta key of the schema version.
pub(crate) const META_SCHEMA_VERSION: &str = "schema_version";
/// This crate's schema version.
pub(crate) const SCHEMA_VERSION: i64 = 1;

/// The columns a row is read back from, in [`row_to_assertion`]'s order.
pub(crate) const COLUMNS: &str = "position, assertion_id, subject, predicate, object, scope, \
     owner_id, observed_at, valid_from, valid_until, confidence, provenance_json, attributes_json";

/// A storage error from the driver, named for the operator.
pub(crate) fn pg(e: postgres::Error) -> Error {
    Error::storage(format!("postgres: {e}"))
}

/// A table name this crate accepts: `[a-z_][a-z0-9_]*`, at most 48 bytes.
///
/// # Errors
/// `InvalidInput` for anything else.
pub(crate) fn check_table_name(table: &str) -> Result<()> {
    let ok = !table.is_empty()
        && table.len() <= 48
        && table
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !table.as_bytes()[0].is_ascii_digit();
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "table must match [a-z_][a-z0-9_]* (at most 48 bytes), got {table:?}"
        )))
    }
}

/// The advisory-lock key of `table`'s writers (every host's): one 64-bit
/// number derived from the table name.
pub(crate) fn lock_key(table: &str) -> i64 {
    // FNV-1a: stable across builds and hosts.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in b"am-backend-postgres:write:".iter().chain(table.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    i64::from_ne_bytes(h.to_ne_bytes())
}

/// Take `table`'s write lock for the rest of the transaction.
pub(crate) fn lock_writers(tx: &mut impl GenericClient, table: &str) -> Result<()> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&lock_key(table)])
        .map_err(pg)?;
    Ok(())
}

/// Create the tables when missing, in one transaction (under the write lock,
/// so concurrent first opens do not race on the catalog).
pub(crate) fn ensure(client: &mut postgres::Client, table: &str) -> Result<()> {
    let mut tx = client.transaction().map_err(pg)?;
    lock_writers(&mut tx, table)?;
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS {table} (
           position BIGINT PRIMARY KEY,
           assertion_id TEXT NOT NULL UNIQUE,
           subject TEXT NOT NULL,
           predicate TEXT NOT NULL,
           object TEXT NOT NULL,
           scope TEXT NOT NULL,
           owner_id TEXT,
           observed_at TEXT NOT NULL,
           valid_from TEXT,
           valid_until TEXT,
           confidence DOUBLE PRECISION,
           provenance_json TEXT,
           attributes_json TEXT,
           text TEXT,
           embedding BYTEA
         );
         CREATE INDEX IF NOT EXISTS idx_{table}_spo ON {table}(subject, predicate, object);
         CREATE INDEX IF NOT EXISTS idx_{table}_scope_owner ON {table}(scope, owner_id);
         CREATE INDEX IF NOT EXISTS idx_{table}_observed ON {table}(observed_at COLLATE \"C\");
         CREATE INDEX IF NOT EXISTS idx_{table}_object ON {table}(object, predicate);
         CREATE TABLE IF NOT EXISTS {table}_meta (key TEXT PRIMARY KEY, value TEXT);"
    ))
    .map_err(pg)?;
    tx.execute(
        &format!(
            "INSERT INTO {table}_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING"
        ),
        &[&META_SCHEMA_VERSION, &SCHEMA_VERSION.to_string()],
    )
    .map_err(pg)?;
    tx.commit().map_err(pg)
}

/// One meta value.
pub(crate) fn meta_get(
    c: &mut impl GenericClient,
    table: &str,
    key: &str,
) -> Result<Option<String>> {
    let row = c
        .query_opt(
            &format!("SELECT value FROM {table}_meta WHERE key = $1"),
            &[&key],
        )
        .map_err(pg)?;
    Ok(row.and_then(|r| r.get::<_, Option<String>>(0)))
}

/// Set one meta value.
pub(crate) fn meta_set(
    c: &mut impl GenericClient,
    table: &str,
    key: &str,
    value: &str,
) -> Result<()> {
    c.execute(
        &format!(
            "INSERT INTO {table}_meta (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
        ),
        &[&key, &value],
    )
    .map_err(pg)?;
    Ok(())
}

/// A vector as stored: little-endian `f32`s.
pub(crate) fn encode_vector(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored vector back; `None` for a cell that is not a whole number of `f32`s.
pub(crate) fn decode_vector(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// A JSON object column as text (`None` for an empty object, as written by
/// the SQLite home).
pub(crate) fn encode_map(m: &JsonMap) -> Result<String> {
    serde_json::to_string(m).map_err(|e| Error::internal(format!("cannot encode JSON: {e}")))
}

fn decode_map(what: &str, s: Option<String>) -> Result<JsonMap> {
    match s {
        None => Ok(JsonMap::new()),
        Some(s) => serde_json::from_str(&s)
            .map_err(|e| Error::storage(format!("stored {what} is not a JSON object: {e}"))),
    }
}

/// A row read with [`COLUMNS`]: its position and its assertion.
pub(crate) fn row_to_assertion(r: &postgres::Row) -> Result<(i64, TripleAssertion)> {
    Ok((
        r.get(0),
        TripleAssertion {
            assertion_id: Some(r.get(1)),
            subject: r.get(2),
            predicate: r.get(3),
            object: r.get(4),
            scope: r.get(5),
            owner_id: r.get(6),
            observed_at: r.get(7),
            valid_from: r.get(8),
            valid_until: r.get(9),
            confidence: r.get(10),
            provenance: decode_map("provenance", r.get(11))?,
            attributes: decode_map("attributes", r.get(12))?,
        },
    ))
}
