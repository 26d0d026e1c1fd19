//! `TripleStore::keyword_positions` for SQLite: the FTS5 keyword discovery of
//! `query_keywords` (same MATCH, same scope/owner filter, same order: BM25
//! best first, ties newest rowid first, same limit), confined to a rowid
//! range and returning rowids only. The store's keyword mirror
//! (`keywords.rs`) answers it when it can answer exactly; otherwise the FTS5
//! query does, where the range lets FTS5 skip the doclist entries outside it
//! and no row is decoded. BM25 reads the statistics of the whole index either
//! way, so every score, and therefore the order, is the unconfined query's.

use super::keywords::KeywordCache;
use super::{SQLiteTripleStore, lock};
use crate::error::Result;
use am_triples::assertion::{canonical_scope, strip_optional};
use rusqlite::{Connection, params_from_iter};
use std::sync::atomic::Ordering;

/// The discovery terms of `tokens`: each token trimmed, its double quotes
/// removed, empty ones dropped (each term is one quoted FTS5 phrase).
pub(super) fn match_terms(tokens: &[String]) -> Vec<String> {
    tokens
        .iter()
        .map(|t| t.trim().replace('"', ""))
        .filter(|t| !t.is_empty())
        .collect()
}

/// The FTS5 MATCH expression of `terms` ([`match_terms`]): each quoted, joined
/// by `OR`; `None` when there is none (both keyword reads then answer nothing).
pub(super) fn fts_match(terms: &[String]) -> Option<String> {
    (!terms.is_empty()).then(|| {
        terms
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" OR ")
    })
}

impl SQLiteTripleStore {
    /// The rowids of `query_keywords(tokens, scope, owner_id, limit)` whose
    /// rowid lies in `range` (inclusive `(low, high)`), in its order.
    ///
    /// # Errors
    /// `Storage` on SQLite failure (no FTS5 table included).
    pub(super) fn keyword_rowids(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        range: (i64, i64),
    ) -> Result<Vec<i64>> {
        Ok(self
            .keyword_scored(tokens, scope, owner_id, limit, range)?
            .into_iter()
            .map(|(r, _)| r)
            .collect())
    }

    /// [`SQLiteTripleStore::keyword_rowids`] with each row's BM25 score
    /// (`-bm25()`, positive, higher is better).
    ///
    /// # Errors
    /// `Storage` on SQLite failure (no FTS5 table included).
    pub(super) fn keyword_scored(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        range: (i64, i64),
    ) -> Result<Vec<(i64, f64)>> {
        let terms = match_terms(tokens);
        if terms.is_empty() || limit == 0 || range.0 > range.1 {
            return Ok(Vec::new());
        }
        let table = &self.state.table;
        let scope = canonical_scope(scope);
        let owner = strip_optional(owner_id);
        self.with_conn(|c| {
            // Inside a transaction (a caller holding the home's connection
            // mid-write), the FTS5 query reads what the transaction sees; the
            // mirror only ever holds committed rows.
            let served = if c.is_autocommit() {
                let mut mirror = lock(&self.state.keywords);
                KeywordCache::refresh(&mut mirror, c, table)?;
                mirror
                    .as_mut()
                    .and_then(|m| m.rank(&terms, &scope, owner.as_deref(), limit, range))
            } else {
                None
            };
            self.state
                .keyword_mirrored
                .store(served.is_some(), Ordering::Relaxed);
            match (served, fts_match(&terms)) {
                (Some(rows), _) => Ok(rows),
                (None, Some(matcher)) => {
                    sql_rowids(c, table, &matcher, &scope, owner.as_deref(), limit, range)
                }
                (None, None) => Ok(Vec::new()),
            }
        })
    }
}

/// `keyword_scored` by the FTS5 query itself.
fn sql_rowids(
    c: &Connection,
    table: &str,
    matcher: &str,
    scope: &str,
    owner: Option<&str>,
    limit: usize,
    range: (i64, i64),
) -> Result<Vec<(i64, f64)>> {
    let mut params: Vec<rusqlite::types::Value> = vec![
        matcher.to_owned().into(),
        range.0.into(),
        range.1.into(),
        scope.to_owned().into(),
    ];
    let owner_clause = match owner {
        Some(o) => {
            params.push(o.to_owned().into());
            "AND t.owner_id = ?"
        }
        None => "",
    };
    // A literal limit, as `query_keywords` (a bound LIMIT re-prepares).
    // CROSS JOIN keeps the FTS5 scan outermost: with the rowid range the
    // planner may otherwise walk the triples table by rowid and run the
    // MATCH once per row (two orders of magnitude slower, same answer).
    let limit_sql = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut stmt = c.prepare_cached(&format!(
        "SELECT t.rowid, -bm25({table}_fts) FROM {table}_fts f CROSS JOIN {table} t ON t.rowid = f.rowid \
         WHERE {table}_fts MATCH ? AND f.rowid >= ? AND f.rowid <= ? \
         AND t.scope = ? {owner_clause} \
         ORDER BY bm25({table}_fts), t.rowid DESC LIMIT {limit_sql}"
    ))?;
    let rows = stmt
        .query_map(params_from_iter(params.iter()), |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}
