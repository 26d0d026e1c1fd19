//! The batched per-record binding fold: many records' latest bindings per
//! `(scope, owner_id)` in one statement per chunk of ids, answered from
//! `idx_memj_bindings_fold` (record_id, scope, owner_id, seq) — never a scan of
//! every binding.
//!
//! Spec: memory-system.md "Bindings and closures" (the binding fold a recall
//! reads per candidate); `MemoryJournal::fold_bindings_for`.

use super::append::current_seq;
use super::rows::{BINDING_COLUMNS, row_to_binding, storage};
use am_journal::journal::check_anchor;
use am_journal::{Result, ScopeBinding};
use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;
use std::collections::HashMap;

/// Ids per statement (well under SQLite's bound-parameter limit).
const CHUNK: usize = 256;

/// The folded bindings (latest per `(scope, owner_id)`, `seq <= until_seq`,
/// oldest first) of each distinct id of `record_ids`, keyed by the id as given;
/// an unbound id maps to an empty list. Ids are matched trimmed, as
/// `BindingFilter::normalized` trims them.
///
/// # Errors
/// `InvalidInput` for an anchor beyond the high-water mark; `Storage`.
pub(crate) fn fold_bindings_for(
    conn: &Connection,
    record_ids: &[String],
    until_seq: Option<i64>,
) -> Result<HashMap<String, Vec<ScopeBinding>>> {
    check_anchor("until_seq", until_seq, current_seq(conn)?)?;
    let mut out: HashMap<String, Vec<ScopeBinding>> = HashMap::new();
    // trimmed id → the ids as given that ask for it.
    let mut asked: HashMap<String, Vec<String>> = HashMap::new();
    for id in record_ids {
        if out.contains_key(id) {
            continue;
        }
        out.insert(id.clone(), Vec::new());
        asked
            .entry(id.trim().to_owned())
            .or_default()
            .push(id.clone());
    }
    let mut keys: Vec<&String> = asked.keys().collect();
    keys.sort();
    for chunk in keys.chunks(CHUNK) {
        let mut params: Vec<SqlValue> =
            chunk.iter().map(|k| SqlValue::Text((*k).clone())).collect();
        let marks = vec!["?"; chunk.len()].join(", ");
        let seq_clause = match until_seq {
            Some(hi) => {
                params.push(SqlValue::Integer(hi));
                " AND seq <= ?"
            }
            None => "",
        };
        // One MAX(seq) per (record_id, scope, owner_id) key from the fold
        // index, then those rows by primary key, in seq order.
        let sql = format!(
            "SELECT {BINDING_COLUMNS} FROM memj_bindings WHERE seq IN (SELECT MAX(seq) FROM memj_bindings \
             WHERE record_id IN ({marks}){seq_clause} GROUP BY record_id, scope, owner_id) ORDER BY seq ASC"
        );
        let mut stmt = conn.prepare_cached(&sql).map_err(storage)?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(storage)?;
        while let Some(row) = rows.next().map_err(storage)? {
            let b = row_to_binding(row)?;
            if let Some(ids) = asked.get(&b.record_id) {
                let (last, rest) = ids.split_last().unwrap_or((&b.record_id, &[]));
                for id in rest {
                    if let Some(list) = out.get_mut(id) {
                        list.push(b.clone());
                    }
                }
                if let Some(list) = out.get_mut(last) {
                    list.push(b);
                }
            }
        }
    }
    Ok(out)
}
