//! `TripleQuery`: structured filters, id lookup, time filters, semantic search and
//! shaping, and the row predicate every store shares.
//!
//! Spec: api.md "Layer 1 / TripleQuery"; algorithms.md §1; "Our rules" (object
//! matching of literals, owner `None` = any owner, ties by insertion order).

use crate::assertion::{
    TripleAssertion, canonical_scope, canonicalize_term, py_strip, strip_optional,
};
use crate::error::Result;
use crate::timestamp;
use serde::{Deserialize, Serialize};

/// Result order of a non-semantic query, by `observed_at`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Oldest first; ties oldest-inserted first.
    Asc,
    /// Newest first (the default); ties newest-inserted first.
    #[default]
    Desc,
}

impl Order {
    /// Python's rule: `"asc"` (trimmed, any case) is ascending, anything else descending.
    pub fn parse(s: &str) -> Order {
        if py_strip(s).eq_ignore_ascii_case("asc") {
            Order::Asc
        } else {
            Order::Desc
        }
    }
}

/// The default `TripleQuery::limit`.
pub const DEFAULT_LIMIT: i64 = 100;
/// The default `TripleQuery::vector_column`.
pub const DEFAULT_VECTOR_COLUMN: &str = "vector";

/// A read against a [`crate::TripleStore`].
///
/// Every filter is optional. `limit <= 0` means unbounded. `owner_id = None` means
/// any owner. `since`/`until` are inclusive on `observed_at`; `active_at` keeps rows
/// whose window contains the instant (`valid_from <= at < valid_until`, either end
/// open). `query_text` (needs the store's embedder) or `query_vector` make the query
/// semantic: rows rank by cosine, ties by insertion order, and carry
/// `attributes._retrieval = {score, metric}`.
///
/// Its JSON Schema is closed (`additionalProperties: false`): the front ends
/// read a query with `am_cli`'s `query_from_json`, which refuses unknown keys
/// (serde alone would ignore them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[schemars(deny_unknown_fields)]
pub struct TripleQuery {
    /// Exact subject (canonicalized).
    pub subject: Option<String>,
    /// Exact predicate (canonicalized).
    pub predicate: Option<String>,
    /// Exact object: a literal row matches when equal after trimming, any other row
    /// when equal after canonicalization.
    pub object: Option<String>,
    /// Exact scope (lowercased).
    pub scope: Option<String>,
    /// Exact owner; `None` is any owner.
    pub owner_id: Option<String>,
    /// Only these ids (other filters still apply).
    pub assertion_ids: Option<Vec<String>>,
    /// `observed_at >= since`.
    pub since: Option<String>,
    /// `observed_at <= until`.
    pub until: Option<String>,
    /// Rows whose validity window contains this instant.
    pub active_at: Option<String>,
    /// Semantic query text, embedded with the store's embedder.
    pub query_text: Option<String>,
    /// Caller-supplied query vector.
    pub query_vector: Option<Vec<f32>>,
    /// The vector column (default `vector`).
    pub vector_column: String,
    /// Cosine threshold: rows scoring below it are dropped.
    pub min_score: Option<f64>,
    /// Maximum rows; `<= 0` is unbounded. Default 100.
    pub limit: i64,
    /// `observed_at` order for non-semantic queries. Default descending.
    pub order: Order,
}

impl Default for TripleQuery {
    fn default() -> Self {
        TripleQuery {
            subject: None,
            predicate: None,
            object: None,
            scope: None,
            owner_id: None,
            assertion_ids: None,
            since: None,
            until: None,
            active_at: None,
            query_text: None,
            query_vector: None,
            vector_column: DEFAULT_VECTOR_COLUMN.to_owned(),
            min_score: None,
            limit: DEFAULT_LIMIT,
            order: Order::Desc,
        }
    }
}

impl TripleQuery {
    /// An empty query (every row, newest first, limit 100).
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether this query ranks by cosine (`query_text` or `query_vector` set).
    pub fn is_semantic(&self) -> bool {
        self.query_text.is_some() || self.query_vector.is_some()
    }

    /// `Some(n)` for a positive limit, `None` for unbounded.
    pub fn effective_limit(&self) -> Option<usize> {
        usize::try_from(self.limit).ok().filter(|n| *n > 0)
    }

    /// The canonical form every store evaluates.
    ///
    /// Terms trimmed and lowercased (the object is kept trimmed only; see
    /// [`TripleQuery::object_matches`]), blanks become `None`, timestamps
    /// normalized to canonical UTC, empty id lists become `None`, a NaN
    /// `min_score` becomes `None`.
    ///
    /// # Errors
    /// `InvalidInput` for a timestamp that is not a timestamp, or a query
    /// vector that is empty or holds a zero norm, NaN or infinity.
    pub fn canonicalized(&self) -> Result<TripleQuery> {
        let term = |v: &Option<String>| {
            v.as_deref()
                .map(canonicalize_term)
                .filter(|s| !s.is_empty())
        };
        let ts = |name: &str, v: &Option<String>| {
            timestamp::normalize_optional(v.as_deref()).map_err(|e| e.with_prefix(name))
        };
        if let Some(v) = &self.query_vector {
            crate::vector::validate_vector(v).map_err(|e| e.with_prefix("query_vector"))?;
        }
        let ids = self.assertion_ids.as_ref().map(|ids| {
            ids.iter()
                .map(|s| py_strip(s).to_owned())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        });
        Ok(TripleQuery {
            subject: term(&self.subject),
            predicate: term(&self.predicate),
            object: strip_optional(self.object.as_deref()),
            scope: self
                .scope
                .as_deref()
                .map(py_strip)
                .filter(|s| !s.is_empty())
                .map(canonical_scope),
            owner_id: strip_optional(self.owner_id.as_deref()),
            assertion_ids: ids.filter(|v| !v.is_empty()),
            since: ts("since", &self.since)?,
            until: ts("until", &self.until)?,
            active_at: ts("active_at", &self.active_at)?,
            query_text: strip_optional(self.query_text.as_deref()),
            query_vector: self.query_vector.clone(),
            vector_column: {
                let c = py_strip(&self.vector_column);
                if c.is_empty() {
                    DEFAULT_VECTOR_COLUMN.to_owned()
                } else {
                    c.to_owned()
                }
            },
            min_score: self.min_score.filter(|s| !s.is_nan()),
            limit: self.limit,
            order: self.order,
        })
    }

    /// Whether `row.object` matches this (canonicalized) query's object filter.
    ///
    /// Our rule: a literal row matches when equal after trimming; any other row
    /// when equal after canonicalization.
    pub fn object_matches(&self, row: &TripleAssertion) -> bool {
        match &self.object {
            None => true,
            Some(o) if row.is_literal() => row.object == py_strip(o),
            Some(o) => row.object == canonicalize_term(o),
        }
    }

    /// Whether a stored (canonical) row passes every structured filter of this
    /// canonicalized query: terms, scope, owner, ids, `since`/`until`, `active_at`.
    ///
    /// Timestamps compare as strings, which is instant order for canonical values.
    pub fn matches(&self, row: &TripleAssertion) -> bool {
        fn eq(f: &Option<String>, v: &str) -> bool {
            f.as_deref().is_none_or(|f| f == v)
        }
        eq(&self.subject, &row.subject)
            && eq(&self.predicate, &row.predicate)
            && self.object_matches(row)
            && eq(&self.scope, &row.scope)
            && self
                .owner_id
                .as_deref()
                .is_none_or(|o| row.owner_id.as_deref() == Some(o))
            && self
                .assertion_ids
                .as_ref()
                .is_none_or(|ids| row.assertion_id.as_ref().is_some_and(|id| ids.contains(id)))
            && self
                .since
                .as_deref()
                .is_none_or(|s| row.observed_at.as_str() >= s)
            && self
                .until
                .as_deref()
                .is_none_or(|u| row.observed_at.as_str() <= u)
            && self.active_at.as_deref().is_none_or(|at| {
                row.valid_from.as_deref().is_none_or(|f| f <= at)
                    && row.valid_until.as_deref().is_none_or(|u| u > at)
            })
    }
}
