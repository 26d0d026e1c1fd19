//! The structured read's execution: rows in `observed_at` order (ties by rowid)
//! in the query's direction, limited after ordering, as SQL's `ORDER BY
//! observed_at, rowid LIMIT n` returns them.
//!
//! A selective query (ids, subject or object) reads its few rows unordered and
//! keeps the best `limit` in Rust, decoding only rows that can still make the
//! cut; any row this path cannot order exactly as SQLite does (an `observed_at`
//! that is not text, a cell that does not decode) sends the whole read to the
//! SQL-ordered statement, so the answer (or the error) is always SQL's.
//!
//! Spec: stores.md "Shared behavior" (ordering + limit semantics).

use crate::error::Result;
use crate::store::{codec, sql};
use am_triples::{Narrow, Order, TripleAssertion, TripleQuery};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, params_from_iter};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The column index of `observed_at` in [`codec::ASSERTION_COLUMNS`].
const OBSERVED_AT: usize = 7;

/// The most rows a structured read reserves room for before reading any.
const PRESIZE_CAP: usize = 128;

/// A kept row, ordered best first: `(observed_at bytes, rowid)` ascending, or
/// descending for [`Order::Desc`] (SQLite compares TEXT with the BINARY
/// collation, byte by byte, as `[u8]` does).
struct Kept {
    rowid: i64,
    desc: bool,
    row: TripleAssertion,
}

fn rank(desc: bool, a: (&[u8], i64), b: (&[u8], i64)) -> Ordering {
    let asc = a.cmp(&b);
    if desc { asc.reverse() } else { asc }
}

impl Kept {
    fn key(&self) -> (&[u8], i64) {
        (self.row.observed_at.as_bytes(), self.rowid)
    }
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Kept {}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        rank(self.desc, self.key(), other.key())
    }
}

/// Run the structured read of `q` (canonicalized) on `table`.
///
/// # Errors
/// `Storage` when SQLite fails or a returned row does not decode.
pub fn structured(conn: &Connection, table: &str, q: &TripleQuery) -> Result<Vec<TripleAssertion>> {
    structured_with(conn, table, q, None)
}

/// [`structured`] with each row's attributes and provenance cut to `keep`
/// (only those keys decoded): the same rows in the same order.
///
/// # Errors
/// As [`structured`].
pub fn structured_narrow(
    conn: &Connection,
    table: &str,
    q: &TripleQuery,
    keep: Narrow<'_>,
) -> Result<Vec<TripleAssertion>> {
    structured_with(conn, table, q, Some(keep))
}

/// [`structured_narrow`]'s rows, in its order, each lent to `visit` as it is
/// read (`ReadAccelerator::visit_narrow`): no row is built. A selective query
/// (ordered in Rust over its few rows) is read as `structured_narrow` reads it
/// and its rows lent. With `text`, each row's attributes are lent as their
/// stored text (`ReadAccelerator::visit_narrow_text`) where a row is lent
/// from the statement.
///
/// # Errors
/// As [`structured`].
pub fn structured_visit(
    conn: &Connection,
    table: &str,
    q: &TripleQuery,
    keep: Narrow<'_>,
    text: bool,
    visit: &mut dyn FnMut(am_triples::NarrowRow<'_>),
) -> Result<()> {
    let compiled = sql::structured(table, q);
    if sql::structured_unordered(table, q).is_some() || compiled.object_post_filter {
        for row in structured_with(conn, table, q, Some(keep))? {
            visit(am_triples::NarrowRow::of(&row));
        }
        return Ok(());
    }
    let limit = q.effective_limit().unwrap_or(usize::MAX);
    let mut stmt = conn.prepare_cached(&compiled.sql)?;
    let mut rows = stmt.query(params_from_iter(compiled.params.iter()))?;
    let mut seen = 0usize;
    while seen < limit
        && let Some(r) = rows.next()?
    {
        if text {
            codec::visit_narrow_text_row_without_rowid(r, keep, visit)?;
        } else {
            codec::visit_narrow_row_without_rowid(r, keep, visit)?;
        }
        seen += 1;
    }
    Ok(())
}

fn structured_with(
    conn: &Connection,
    table: &str,
    q: &TripleQuery,
    keep: Option<Narrow<'_>>,
) -> Result<Vec<TripleAssertion>> {
    if let Some(compiled) = sql::structured_unordered(table, q)
        && let Some(rows) = ordered_in_rust(conn, &compiled, q, keep)?
    {
        return Ok(rows);
    }
    ordered_by_sql(conn, &sql::structured(table, q), q, keep)
}

fn ordered_by_sql(
    conn: &Connection,
    compiled: &sql::Compiled,
    q: &TripleQuery,
    keep: Option<Narrow<'_>>,
) -> Result<Vec<TripleAssertion>> {
    let limit = q.effective_limit().unwrap_or(usize::MAX);
    let mut stmt = conn.prepare_cached(&compiled.sql)?;
    let mut rows = stmt.query(params_from_iter(compiled.params.iter()))?;
    // Sized for the limit up front (a `TripleAssertion` is a few hundred bytes:
    // growing by doubling re-copied them, about 6% of a 50-row read in the
    // profile); an unlimited read starts at the cap and grows as before.
    let mut out = Vec::with_capacity(limit.min(PRESIZE_CAP));
    while out.len() < limit
        && let Some(r) = rows.next()?
    {
        let a = match keep {
            None => codec::row_to_assertion_without_rowid(r)?,
            Some(k) => codec::row_to_narrow_assertion_without_rowid(r, k)?,
        };
        // A cut row may lack `attributes.literal`, which the object rule
        // reads: a narrow read never has an object filter (the store's
        // `query_narrow` sends such a query to the whole read).
        if !compiled.object_post_filter || q.object_matches(&a) {
            out.push(a);
        }
    }
    Ok(out)
}

/// The best `limit` rows of the unordered statement, best first; `None` when a
/// row that could make the cut cannot be ordered or decoded exactly as SQL
/// would (the caller then runs the SQL-ordered statement).
fn ordered_in_rust(
    conn: &Connection,
    compiled: &sql::Compiled,
    q: &TripleQuery,
    keep: Option<Narrow<'_>>,
) -> Result<Option<Vec<TripleAssertion>>> {
    let limit = q.effective_limit().unwrap_or(usize::MAX);
    let desc = q.order == Order::Desc;
    let mut stmt = conn.prepare_cached(&compiled.sql)?;
    let mut rows = stmt.query(params_from_iter(compiled.params.iter()))?;
    // The kept rows with the worst on top, evicted when a better one arrives.
    let mut kept: BinaryHeap<Kept> = BinaryHeap::new();
    while let Some(r) = rows.next()? {
        let ValueRef::Integer(rowid) = r.get_ref(0)? else {
            return Ok(None);
        };
        // NULL, numbers and blobs order before or after all text in SQLite.
        let ValueRef::Text(observed) = r.get_ref(OBSERVED_AT)? else {
            return Ok(None);
        };
        if kept.len() >= limit
            && kept
                .peek()
                .is_none_or(|worst| rank(desc, (observed, rowid), worst.key()).is_ge())
        {
            continue;
        }
        let decoded = match keep {
            None => codec::row_to_assertion(r),
            Some(k) => codec::row_to_narrow_assertion(r, k),
        };
        let Ok((_, row)) = decoded else {
            return Ok(None);
        };
        if row.observed_at.as_bytes() != observed {
            return Ok(None);
        }
        if compiled.object_post_filter && !q.object_matches(&row) {
            continue;
        }
        kept.push(Kept { rowid, desc, row });
        if kept.len() > limit {
            kept.pop();
        }
    }
    Ok(Some(
        kept.into_sorted_vec().into_iter().map(|k| k.row).collect(),
    ))
}
