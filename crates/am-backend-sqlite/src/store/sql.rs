//! The structured read: a `TripleQuery` compiled to one SQL statement whose owner
//! filter is a plain, index-usable equality.
//!
//! Spec: stores.md "SQLiteTripleStore" (Reads, backlog 0058); "Our rules" (owner
//! filter uses the `(scope, owner_id, observed_at)` index; literal-object rule;
//! ties by insertion order in the query's direction).

use am_triples::assertion::{canonicalize_term, py_strip};
use am_triples::{Order, TripleQuery};
use rusqlite::types::Value as SqlValue;

/// A compiled read: SQL text, its parameters, and whether rows still need the
/// object rule applied in Rust (a query object whose trimmed and lowercased forms
/// differ: literal rows match the first, other rows the second).
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The SQL text.
    pub sql: String,
    /// Positional parameters.
    pub params: Vec<SqlValue>,
    /// Whether [`TripleQuery::object_matches`] must still filter the rows (then
    /// the limit is applied in Rust, after that filter).
    pub object_post_filter: bool,
}

/// Id lists up to this length are bound one parameter per id; longer ones are
/// bound as one JSON array (SQLite caps the parameters of a statement).
pub const MAX_INLINE_IDS: usize = 256;

/// The `WHERE` clause (without the keyword; empty when unfiltered), its
/// parameters, and whether the object rule needs a post-filter. `q` must be
/// canonicalized.
pub fn where_clause(q: &TripleQuery) -> (String, Vec<SqlValue>, bool) {
    let mut parts: Vec<String> = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    let mut post = false;
    let text = |v: &str| SqlValue::Text(v.to_owned());
    if let Some(ids) = &q.assertion_ids {
        if ids.len() <= MAX_INLINE_IDS {
            parts.push(format!(
                "assertion_id IN ({})",
                vec!["?"; ids.len()].join(", ")
            ));
            params.extend(ids.iter().map(|id| text(id)));
        } else {
            // SQLite caps a statement's parameters (32,766); a long id list rides
            // one JSON array parameter instead, still probing the primary key.
            parts.push("assertion_id IN (SELECT value FROM json_each(?))".into());
            params.push(SqlValue::Text(
                serde_json::to_string(ids).unwrap_or_else(|_| "[]".into()),
            ));
        }
    }
    for (col, v) in [("subject", &q.subject), ("predicate", &q.predicate)] {
        if let Some(v) = v {
            parts.push(format!("{col} = ?"));
            params.push(text(v));
        }
    }
    if let Some(o) = &q.object {
        let trimmed = py_strip(o);
        let lowered = canonicalize_term(o);
        if trimmed == lowered {
            parts.push("object = ?".into());
            params.push(text(trimmed));
        } else {
            parts.push("object IN (?, ?)".into());
            params.push(text(trimmed));
            params.push(text(&lowered));
            post = true;
        }
    }
    // The owner filter is a plain equality (never COALESCE), so SQLite can walk
    // idx_<table>_scope_owner_observed. When an id, subject or object already
    // selects a few rows, `+` keeps the planner (which has no statistics) from
    // preferring that ordered scope walk over the selective index.
    let selective = q.assertion_ids.is_some() || q.subject.is_some() || q.object.is_some();
    let unary = if selective { "+" } else { "" };
    for (col, v) in [("scope", &q.scope), ("owner_id", &q.owner_id)] {
        if let Some(v) = v {
            parts.push(format!("{unary}{col} = ?"));
            params.push(text(v));
        }
    }
    if let Some(s) = &q.since {
        parts.push("observed_at >= ?".into());
        params.push(text(s));
    }
    if let Some(u) = &q.until {
        parts.push("observed_at <= ?".into());
        params.push(text(u));
    }
    if let Some(at) = &q.active_at {
        // valid_until is exclusive.
        parts.push("(valid_from IS NULL OR valid_from <= ?)".into());
        params.push(text(at));
        parts.push("(valid_until IS NULL OR valid_until > ?)".into());
        params.push(text(at));
    }
    (parts.join(" AND "), params, post)
}

/// Our object rule on raw columns: a literal row (truthy `attributes.literal`)
/// matches when equal to the trimmed query object, any other row when equal to
/// the canonicalized one. `q` must be canonicalized.
pub fn object_rule(q: &TripleQuery, object: &str, attributes_json: Option<&str>) -> bool {
    let Some(o) = &q.object else { return true };
    let literal = attributes_json
        .and_then(|a| serde_json::from_str::<serde_json::Value>(a).ok())
        .is_some_and(|v| am_triples::assertion::json_truthy(v.get("literal")));
    if literal {
        object == py_strip(o)
    } else {
        object == canonicalize_term(o)
    }
}

/// The structured read `query(q)` runs: assertion columns only (no rowid:
/// SQL orders the rows), ordered by
/// `observed_at` then rowid in the query's direction, `LIMIT` after ordering
/// (in SQL unless the object rule needs a post-filter). `q` must be canonicalized.
pub fn structured(table: &str, q: &TripleQuery) -> Compiled {
    let (clause, params, post) = where_clause(q);
    let dir = match q.order {
        Order::Asc => "ASC",
        Order::Desc => "DESC",
    };
    let mut sql = format!(
        "SELECT {} FROM {table}",
        super::codec::ASSERTION_COLUMNS_WITHOUT_ROWID
    );
    if !clause.is_empty() {
        sql.push_str(" WHERE ");
        sql.push_str(&clause);
    }
    sql.push_str(&format!(" ORDER BY observed_at {dir}, rowid {dir}"));
    if !post && let Some(n) = q.effective_limit() {
        // A literal, not a bound `?`: SQLite re-prepares a statement whose LIMIT
        // is a bound parameter on every new binding (it plans with the value),
        // which costs more than the read itself.
        sql.push_str(&format!(" LIMIT {}", i64::try_from(n).unwrap_or(i64::MAX)));
    }
    Compiled {
        sql,
        params,
        object_post_filter: post,
    }
}

/// The structured read of a selective query (ids, subject or object: an index
/// that does not give `observed_at` order selects its rows) without `ORDER BY`
/// or `LIMIT`: the rows are ordered and limited in Rust
/// ([`super::read::structured`]), which spares SQLite's top-N temp B-tree.
/// `None` for any other query (an index or the table walk gives the order).
/// `q` must be canonicalized.
pub fn structured_unordered(table: &str, q: &TripleQuery) -> Option<Compiled> {
    let selective = q.assertion_ids.is_some() || q.subject.is_some() || q.object.is_some();
    if !selective {
        return None;
    }
    let (clause, params, post) = where_clause(q);
    Some(Compiled {
        sql: format!(
            "SELECT {} FROM {table} WHERE {clause}",
            super::codec::ASSERTION_COLUMNS
        ),
        params,
        object_post_filter: post,
    })
}

/// The query's `(scope, owner_id)` filter when those are its only structured
/// filters (either may be absent; `Some((None, None))`: no filter at all), which
/// the matrix cache applies in memory (rows' scope and owner are never updated).
/// `None` when any other structured filter is present (SQL reads candidates).
/// `q` must be canonicalized.
pub fn partition_filter(q: &TripleQuery) -> Option<(Option<&str>, Option<&str>)> {
    let TripleQuery {
        subject,
        predicate,
        object,
        scope,
        owner_id,
        assertion_ids,
        since,
        until,
        active_at,
        // Not structured filters (listed so a new filter field cannot slip by).
        query_text: _,
        query_vector: _,
        vector_column: _,
        min_score: _,
        limit: _,
        order: _,
    } = q;
    let other = subject.is_some()
        || predicate.is_some()
        || object.is_some()
        || assertion_ids.is_some()
        || since.is_some()
        || until.is_some()
        || active_at.is_some();
    (!other).then_some((scope.as_deref(), owner_id.as_deref()))
}

/// The candidate read of a semantic query: `rowid, object, attributes_json` (the
/// last two for the object rule's post-filter) of every row
/// passing the structured filters, in rowid order. `None` when the query has no
/// structured filter (every vectored row is a candidate).
pub fn candidates(table: &str, q: &TripleQuery) -> Option<Compiled> {
    let (clause, params, post) = where_clause(q);
    if clause.is_empty() {
        return None;
    }
    // Without the object post-filter only rowids are needed, which the
    // structured indexes cover: no table row is read per candidate.
    let cols = if post {
        "rowid, object, attributes_json"
    } else {
        "rowid, '' AS object, NULL AS attributes_json"
    };
    Some(Compiled {
        sql: format!("SELECT {cols} FROM {table} WHERE {clause} ORDER BY rowid"),
        params,
        object_post_filter: post,
    })
}
