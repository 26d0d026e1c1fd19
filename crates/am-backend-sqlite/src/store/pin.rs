//! The embedding pin in the `{table}_meta` sidecar, and the pure peek
//! `read_embedding_pin` that never opens a store.
//!
//! Spec: stores.md "Embedding-space pin"; operator.md §6b; troubleshooting
//! "A home refuses your embedder, or reports a dimension mismatch".

use crate::error::Result;
use crate::store::schema::{self, META_EMBEDDING_PIN};
use am_triples::EmbeddingPin;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// The stored pin (`None` when the store is pinless).
///
/// # Errors
/// `Storage` when SQLite fails or the stored text is not a pin.
pub fn load(conn: &Connection, table: &str) -> Result<Option<EmbeddingPin>> {
    match schema::meta_get(conn, table, META_EMBEDDING_PIN)? {
        None => Ok(None),
        Some(s) => Ok(Some(EmbeddingPin::from_json(&s)?)),
    }
}

/// Write the pin as compact JSON (the caller owns the transaction).
///
/// # Errors
/// `Storage` when SQLite fails.
pub fn store(conn: &Connection, table: &str, pin: &EmbeddingPin) -> Result<()> {
    schema::meta_set(conn, table, META_EMBEDDING_PIN, &pin.to_json())
}

/// Peek at a store file's embedding pin without opening a store: a read-only
/// connection that never creates the file, a table or the schema, and never
/// flips the journal mode. A missing file, a file that is not a home, a missing
/// sidecar or row, or malformed JSON all read as `None` (as AbstractMemory's
/// `read_embedding_pin` does).
///
/// `table_name` is the store's table (`None`: `triples`).
///
/// # Errors
/// `InvalidInput` for a table name outside `[A-Za-z_][A-Za-z0-9_]*`.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// let pin = am_backend_sqlite::read_embedding_pin(dir.path().join("absent.sqlite3"), None).unwrap();
/// assert!(pin.is_none());
/// ```
pub fn read_embedding_pin(
    path: impl AsRef<Path>,
    table_name: Option<&str>,
) -> Result<Option<EmbeddingPin>> {
    let table = schema::checked_table(table_name)?;
    let path = path.as_ref();
    if !path.is_file() {
        return Ok(None);
    }
    let Ok(conn) = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    ) else {
        return Ok(None);
    };
    let value: Option<String> = conn
        .query_row(
            &format!("SELECT value FROM {table}_meta WHERE key = ?1"),
            [META_EMBEDDING_PIN],
            |r| r.get(0),
        )
        .ok();
    Ok(value.and_then(|v| EmbeddingPin::from_json(&v).ok()))
}
