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

/// The attribute `key` of `a` as a trimmed, non-empty string.
pub(crate) fn attr_str<'a>(a: &'a TripleAssertion, key: &str) -> Option<&'a str> {
    a.attributes
        .get(key)
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Whether `a` is a formed record's row (a digest with `record_kind`, or a
/// formation edge with `record_edge`).
pub(crate) fn is_formed(a: &TripleAssertion) -> bool {
    attr_str(a, "record_kind").is_some() || truthy(a.attributes.get("record_edge"))
}

/// Python truthiness of an optional JSON value (the one rule, am-triples').
pub(crate) use am_triples::assertion::json_truthy as truthy;

/// The fields a record's `attributes.pending` marker names as still pending
/// (`title`, `summary`), in that order; empty when none.
pub(crate) fn pending_fields(a: &TripleAssertion) -> Vec<String> {
    let Some(serde_json::Value::Object(marker)) = a.attributes.get("pending") else {
        return Vec::new();
    };
    ["title", "summary"]
        .into_iter()
        .filter(|f| truthy(marker.get(*f)))
        .map(str::to_owned)
        .collect()
}

/// The title a read serves for a formed record: its stored title, whole
/// (never cut), or `None` while the title is pending or missing (api.md
/// "Formation": never a placeholder or words from the body).
pub(crate) fn served_title(a: &TripleAssertion) -> Option<String> {
    if pending_fields(a).iter().any(|f| f == "title") {
        return None;
    }
    attr_str(a, "title").map(str::to_owned)
}

/// Whether a diary entry is private (`attributes.private` anything but
/// absent, `null` or `false`).
pub(crate) fn is_private(a: &TripleAssertion) -> bool {
    !matches!(
        a.attributes.get("private"),
        None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false))
    )
}
