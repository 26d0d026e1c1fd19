//! Append-boundary rules every journal backend applies identically: id assignment,
//! `observed_at` canonicalisation, deterministic hashes and the JSON column codec.
//!
//! Spec: algorithms.md §9 ("Timestamps", "JSON columns"); oracle `journal_common.py`.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};

/// A fresh journal-assigned id: a hyphenated, time-ordered UUID (version 7: 48
/// bits of Unix milliseconds, then 74 random bits).
///
/// 0.3.2 assigns `str(uuid4())` (algorithms.md §9); ids only need uniqueness
/// there (`seq` orders records), and the text shape is the same. A time-ordered id
/// lands at the right edge of the `event_id` unique index instead of a random
/// page, which keeps batched appends on SQLite fast (see the `journal` bench).
pub fn new_id() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let random = uuid::Uuid::new_v4().into_bytes();
    let mut tail = [0u8; 10];
    tail.copy_from_slice(&random[..10]);
    uuid::Builder::from_unix_timestamp_millis(millis, &tail)
        .into_uuid()
        .to_string()
}

/// Lowercase sha256 hex of `text`, cut to its first `n` characters (algorithms.md §9 `H(x)[:n]`).
pub fn hash_hex(text: &str, n: usize) -> String {
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    digest[..n.min(digest.len())].to_string()
}

/// Canonicalise a record's `observed_at` at validation time: a blank value stays
/// blank (the append fills "now"), anything else is rewritten to the canonical UTC
/// text form `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`.
///
/// # Errors
/// `InvalidInput` naming the value when it is not a timestamp.
pub fn canonical_observed_at(value: &str) -> Result<String> {
    let raw = value.trim();
    if raw.is_empty() {
        return Ok(String::new());
    }
    am_triples::timestamp::normalize_timestamp(raw)
}

/// Fill a blank `observed_at` with now (canonical UTC form).
pub fn fill_observed_at(value: &mut String) {
    if value.trim().is_empty() {
        *value = am_triples::timestamp::now_utc();
    }
}

/// The trimmed id, or a fresh uuid4 when blank.
pub fn fill_id(value: &mut String) {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        *value = new_id();
    } else if trimmed.len() != value.len() {
        *value = trimmed.to_string();
    }
}

/// Encode a value for a `*_json` column as the oracle does: compact separators
/// (`,` and `:`), no key sorting (insertion order kept), non-ASCII kept as UTF-8.
///
/// # Errors
/// `InvalidInput` when the value cannot be encoded.
pub fn json_dump<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::invalid(format!("cannot encode a JSON column: {e}")))
}

/// Decode a `*_json` column; a NULL or empty cell is `default`.
///
/// # Errors
/// `Storage` naming the column when the cell is not valid JSON of the expected shape.
pub fn json_load<T: serde::de::DeserializeOwned>(
    raw: Option<&str>,
    column: &str,
    default: T,
) -> Result<T> {
    match raw {
        None | Some("") => Ok(default),
        Some(s) => serde_json::from_str(s).map_err(|e| {
            Error::storage(format!("column {column} holds malformed JSON ({e}): {s:?}"))
        }),
    }
}

/// Require a non-blank string, returning it trimmed.
///
/// # Errors
/// `InvalidInput` naming `what` when the value is blank.
pub fn require_text(value: &str, what: &str) -> Result<String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(Error::invalid(format!(
            "{what} must be a non-empty string, got {value:?}"
        )));
    }
    Ok(v.to_string())
}

/// Normalise a scope: trimmed and lowercased.
pub fn norm_scope(scope: &str) -> String {
    scope.trim().to_lowercase()
}
