//! Resolving a record from either id namespace over a bare store: the one
//! rule the facade's `resolve_digest_assertion`, the replay stream, the
//! recall diagnostics and the entity card share.
//!
//! Spec: api.md "Formation (typed records)" (graph ids and digest assertion
//! ids); 0.3.2's `records.resolve_digest_assertion`.

use crate::error::Result;
use crate::kinds::DIGEST_PREDICATE;
use am_triples::{TripleAssertion, TripleQuery, TripleStore};

/// A record's digest assertion from either id namespace: the assertion itself
/// when `id` is an assertion id, else the newest `dcterms:abstract` assertion
/// whose subject is `id` (a graph id). `None` when neither (a blank id too).
///
/// # Errors
/// The store's failure.
pub fn resolve_digest_assertion(
    store: &dyn TripleStore,
    id: &str,
) -> Result<Option<TripleAssertion>> {
    let rid = id.trim();
    if rid.is_empty() {
        return Ok(None);
    }
    let by_id = store.query(&TripleQuery {
        assertion_ids: Some(vec![rid.to_owned()]),
        limit: 1,
        ..TripleQuery::default()
    })?;
    if let Some(row) = by_id
        .into_iter()
        .find(|a| a.assertion_id.as_deref() == Some(rid))
    {
        return Ok(Some(row));
    }
    let by_subject = store.query(&TripleQuery {
        subject: Some(rid.to_owned()),
        predicate: Some(DIGEST_PREDICATE.to_owned()),
        limit: 1,
        ..TripleQuery::default()
    })?;
    Ok(by_subject.into_iter().next())
}

/// Python truthiness of an optional JSON value (the one rule, am-triples').
pub(crate) use am_triples::assertion::json_truthy as truthy;
