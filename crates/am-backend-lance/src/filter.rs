//! Structured filters compiled into LanceDB's SQL `where` clause, every value a
//! quoted string literal.
//!
//! LanceDB parses a filter with sqlparser's generic dialect (lance-datafusion's
//! `LanceDialect`): a string literal is `'...'` with a quote written twice, and a
//! backslash is an ordinary character (the dialect does not enable backslash
//! escapes). [`quote_literal`] is the only way a value enters a clause, so a term
//! holding quotes, backslashes or SQL keywords is compared literally and cannot
//! change the clause's structure.
//!
//! The clause is a pre-filter: the store re-checks every row it reads with
//! [`am_triples::TripleQuery::matches`], the one row predicate every store shares.
//! It never drops a row the predicate keeps (the object filter admits both the
//! trimmed and the canonical spelling; a very long id list is left to the
//! predicate). Spec: stores.md "LanceDBTripleStore" (query mechanics).

use am_triples::{TripleQuery, canonicalize_term};

/// An id lookup longer than this is not compiled into the clause (a SQL `IN`
/// list of tens of thousands of literals costs more to parse than to scan); the
/// shared row predicate applies it instead.
pub const MAX_IDS_IN_CLAUSE: usize = 512;

/// `value` as a SQL string literal: wrapped in single quotes, each single quote
/// doubled. Every other character, backslashes included, stands for itself.
pub fn quote_literal(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('\'');
    for c in value.chars() {
        if c == '\'' {
            out.push('\'');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// The `where` clause of a canonicalized query's structured filters, `None` when
/// it has none.
///
/// Shapes: `subject = '…'`, `predicate = '…'`, `object IN ('trimmed', 'canonical')`
/// (one literal when both spellings agree), `scope = '…'`, `owner_id = '…'`,
/// `assertion_id IN (…)`, `observed_at >= since`, `observed_at <= until`, and for
/// `active_at` `(valid_from IS NULL OR valid_from <= at) AND (valid_until IS NULL
/// OR valid_until > at)`, joined by `AND`. Timestamps are canonical UTC text, so
/// string order is instant order.
pub fn where_clause(q: &TripleQuery) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(ids) = &q.assertion_ids
        && ids.len() <= MAX_IDS_IN_CLAUSE
    {
        let list: Vec<String> = ids.iter().map(|i| quote_literal(i)).collect();
        parts.push(format!("assertion_id IN ({})", list.join(", ")));
    }
    if let Some(s) = &q.subject {
        parts.push(format!("subject = {}", quote_literal(s)));
    }
    if let Some(p) = &q.predicate {
        parts.push(format!("predicate = {}", quote_literal(p)));
    }
    if let Some(o) = &q.object {
        // A literal row matches the trimmed spelling, any other row the
        // canonical one: admit both, the row predicate picks per row.
        let canonical = canonicalize_term(o);
        if canonical == *o {
            parts.push(format!("object = {}", quote_literal(o)));
        } else {
            parts.push(format!(
                "object IN ({}, {})",
                quote_literal(o),
                quote_literal(&canonical)
            ));
        }
    }
    if let Some(s) = &q.scope {
        parts.push(format!("scope = {}", quote_literal(s)));
    }
    if let Some(o) = &q.owner_id {
        parts.push(format!("owner_id = {}", quote_literal(o)));
    }
    if let Some(s) = &q.since {
        parts.push(format!("observed_at >= {}", quote_literal(s)));
    }
    if let Some(u) = &q.until {
        parts.push(format!("observed_at <= {}", quote_literal(u)));
    }
    if let Some(at) = &q.active_at {
        let at = quote_literal(at);
        parts.push(format!("(valid_from IS NULL OR valid_from <= {at})"));
        parts.push(format!("(valid_until IS NULL OR valid_until > {at})"));
    }
    (!parts.is_empty()).then(|| parts.join(" AND "))
}

/// `AND` two optional clauses.
pub fn and(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("({a}) AND ({b})")),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_literal_doubles_single_quotes_and_keeps_backslashes() {
        assert_eq!(quote_literal("plain"), "'plain'");
        assert_eq!(quote_literal("o'brien"), "'o''brien'");
        assert_eq!(quote_literal(r"a\'b"), r"'a\''b'");
        assert_eq!(quote_literal(r"trailing\"), r"'trailing\'");
        assert_eq!(quote_literal("''"), "''''''");
    }

    #[test]
    fn a_query_without_filters_has_no_clause() {
        assert_eq!(where_clause(&TripleQuery::default()), None);
    }

    #[test]
    fn object_clause_admits_the_trimmed_and_the_canonical_spelling() {
        let q = TripleQuery {
            object: Some("Bob".into()),
            ..TripleQuery::default()
        }
        .canonicalized()
        .unwrap();
        assert_eq!(where_clause(&q).unwrap(), "object IN ('Bob', 'bob')");
    }

    #[test]
    fn long_id_lists_are_left_to_the_row_predicate() {
        let ids: Vec<String> = (0..=MAX_IDS_IN_CLAUSE).map(|i| i.to_string()).collect();
        let q = TripleQuery {
            assertion_ids: Some(ids),
            ..TripleQuery::default()
        };
        assert_eq!(where_clause(&q), None);
    }
}
