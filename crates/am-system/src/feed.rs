//! Following the store's change feed: the one catch-up loop the kept
//! indexes share (the card mirror, the world-model cards cache, the drive
//! index, ripple's graph index, the community index).
//!
//! Each keeps a cursor into `assertions_after` and, on use, reads the rows
//! past it page by page until a short page says the feed's end is reached.
//! What each index does with a row, and what it does when the store offers
//! no feed, stays its own.

use am_triples::{ErrorKind, Narrow, Result, TripleAssertion, TripleStore};

/// How a follow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Followed {
    /// Every row past the cursor was handed on; the cursor is at the end.
    ToEnd,
    /// The store offers no change feed (`Unsupported`); nothing was read.
    NoFeed,
}

/// Read the feed past `*cursor` (within `scope` / `owner` when given,
/// each row narrowed to `keep` when given) in pages of `page` rows, handing
/// each row to `take` with its feed position, until a page comes back
/// short. `*cursor` only moves forward, past every row handed on.
///
/// # Errors
/// The store's failure other than `Unsupported` (rows handed on before it
/// stay taken, and `*cursor` is past them).
pub(crate) fn follow_feed(
    store: &dyn TripleStore,
    cursor: &mut i64,
    scope: Option<&str>,
    owner: Option<&str>,
    keep: Option<Narrow<'_>>,
    page: usize,
    mut take: impl FnMut(i64, TripleAssertion),
) -> Result<Followed> {
    loop {
        let read = match keep {
            Some(k) => store.assertions_after_narrow(*cursor, scope, owner, page, k),
            None => store.assertions_after(*cursor, scope, owner, page),
        };
        let rows = match read {
            Ok(p) => p,
            Err(e) if e.kind() == ErrorKind::Unsupported => return Ok(Followed::NoFeed),
            Err(e) => return Err(e),
        };
        let full = rows.rows.len() >= page;
        for (pos, a) in rows.rows {
            take(pos, a);
        }
        *cursor = (*cursor).max(rows.next_cursor);
        if !full {
            return Ok(Followed::ToEnd);
        }
    }
}
