//! What a store holds, read for a check: every row, a snapshot (rows and
//! pin) a refusal must leave as it was, and row ids. The store groups
//! (`stores`, `rewrites`, `vectors`) share these.

use crate::harness::{CheckResult, ensure, ok};
use am_triples::{Order, TripleAssertion, TripleQuery, TripleStore};
use serde_json::Value;

/// Every row, oldest first, unbounded.
pub(crate) fn all_rows(s: &dyn TripleStore) -> Result<Vec<TripleAssertion>, String> {
    ok(
        "query every row",
        s.query(&TripleQuery {
            limit: 0,
            order: Order::Asc,
            ..TripleQuery::default()
        }),
    )
}

/// What a refusal must leave unchanged: every row (as JSON) and the pin.
pub(crate) fn snapshot(s: &dyn TripleStore) -> Result<(Vec<Value>, Option<String>), String> {
    let rows = all_rows(s)?.iter().map(TripleAssertion::to_dict).collect();
    let pin = ok("read the pin", s.embedding_pin())?.map(|p| {
        // `pinned_at` is part of the pin; compare the whole JSON.
        p.to_json()
    });
    Ok((rows, pin))
}

/// Check that `s` is exactly as `before`.
pub(crate) fn unchanged(
    what: &str,
    s: &dyn TripleStore,
    before: &(Vec<Value>, Option<String>),
) -> CheckResult {
    let after = snapshot(s)?;
    ensure(&after == before, || {
        format!(
            "{what}: expected the store unchanged after the refusal, got {after:?} (was {before:?})"
        )
    })
}

pub(crate) fn ids(rows: &[TripleAssertion]) -> Vec<String> {
    rows.iter()
        .map(|r| r.assertion_id.clone().unwrap_or_default())
        .collect()
}
