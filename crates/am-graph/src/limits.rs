//! The graph's bounds: read limits, the lineage walk's cap, and the bounded-read rule.
//!
//! Spec: api.md "The memory graph: revisions and provenance" / `MemoryGraph`
//! ("every read is bounded: `limit` must be a positive int and is clamped to
//! `MAX_READ_LIMIT` = 1000; `0`, a negative, a bool or a float raises `ValueError`")
//! and its constants.

use crate::error::{Error, Result};
use serde_json::Value;

/// The default `limit` of `history`, `sources_of` and `derived_from_source` (200).
pub const DEFAULT_READ_LIMIT: usize = 200;

/// The default page size of the change feed `revisions(after, limit)` (100).
pub const DEFAULT_REVISION_PAGE: usize = 100;

/// The largest `limit` any graph read honours; larger ones are clamped to it
/// (1000). Also the most owners `names_ref` accepts.
pub const MAX_READ_LIMIT: usize = 1000;

/// The most memories a transitive lineage walk (`sources_of`) visits (1000).
pub const MAX_LINEAGE_VISITS: usize = 1000;

/// Check a read's `limit` given as an integer: it must be ≥ 1; it is clamped to
/// [`MAX_READ_LIMIT`].
///
/// # Errors
/// `InvalidInput` for `0` or a negative ("limit must be a positive int, got 0").
///
/// # Examples
/// ```
/// use am_graph::limits::{check_read_limit, MAX_READ_LIMIT};
/// assert_eq!(check_read_limit(5).unwrap(), 5);
/// assert_eq!(check_read_limit(1_000_000).unwrap(), MAX_READ_LIMIT);
/// assert!(check_read_limit(0).is_err());
/// ```
pub fn check_read_limit(limit: i64) -> Result<usize> {
    if limit < 1 {
        return Err(Error::invalid(format!(
            "limit must be a positive int, got {limit}"
        )));
    }
    let limit = usize::try_from(limit).unwrap_or(MAX_READ_LIMIT);
    Ok(limit.min(MAX_READ_LIMIT))
}

/// Check a read's `limit` as it arrives on the wire (`am exec`, JSON): it must be
/// a JSON integer ≥ 1 (not a bool, not a float such as `5.0`); it is clamped to
/// [`MAX_READ_LIMIT`]. A JSON integer beyond `i64` is clamped too.
///
/// # Errors
/// `InvalidInput` for `0`, a negative, a bool, a float, or any other
/// JSON value ("limit must be a positive int, got true").
pub fn check_read_limit_json(limit: &Value) -> Result<usize> {
    match limit {
        Value::Number(n) if n.is_i64() => check_read_limit(n.as_i64().unwrap_or(0)),
        // A u64 beyond i64::MAX is positive: clamp it.
        Value::Number(n) if n.is_u64() => Ok(MAX_READ_LIMIT),
        other => Err(Error::invalid(format!(
            "limit must be a positive int, got {other}"
        ))),
    }
}
