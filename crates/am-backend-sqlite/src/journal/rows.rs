//! Row codecs of the `memj_*` tables: record → column values (JSON columns encoded
//! as the oracle does: compact separators, insertion order, UTF-8) and row → record.
//!
//! Spec: algorithms.md §9 "JSON columns"; oracle `journal_sqlite_rows.py`.

use am_journal::common::{json_dump, json_load};
use am_journal::{
    ActiveMemorySnapshot, ClosureRecord, MemoryEvent, ReconstructionTrace, Result, ScopeBinding,
    UnderstandingVersion, ValenceEvent,
};
use am_triples::JsonMap;
use rusqlite::{Connection, Row};
use serde_json::Value;

/// Map a SQLite error into the journal's `Storage` error (source and code kept).
pub(crate) use crate::error::sqlite as storage;

fn text(row: &Row<'_>, col: &str) -> Result<String> {
    row.get::<_, String>(col).map_err(storage)
}

/// A vocabulary column (a `kind`, a binding state), parsed by its wire name;
/// a name outside the vocabulary is `Storage` naming the column (both writers
/// of a home, this port and 0.3.2, check the vocabulary before they write).
fn vocab<V: std::str::FromStr<Err = am_journal::Error>>(row: &Row<'_>, col: &str) -> Result<V> {
    parse_column(&text(row, col)?, col)
}

/// [`vocab`] of a column already read as text.
pub(crate) fn parse_column<V: std::str::FromStr<Err = am_journal::Error>>(
    value: &str,
    col: &str,
) -> Result<V> {
    value.parse().map_err(|e: am_journal::Error| {
        am_journal::Error::storage(format!("column {col} holds {}", e.message()))
    })
}

fn opt_text(row: &Row<'_>, col: &str) -> Result<Option<String>> {
    row.get::<_, Option<String>>(col).map_err(storage)
}

fn json<T: serde::de::DeserializeOwned>(row: &Row<'_>, col: &str, default: T) -> Result<T> {
    let raw = opt_text(row, col)?;
    json_load(raw.as_deref(), col, default)
}

/// Encode `pair_ids` as `["a","b"]` (the key of the partial pair index).
pub(crate) fn pair_json(a: &str, b: &str) -> Result<String> {
    json_dump(&[a, b])
}

/// The multi-row event insert. `OR IGNORE` is not a dedup (callers dedup by
/// `event_id` first and allocate fresh seqs): it lets SQLite skip the statement
/// journal a multi-row `ABORT` insert needs to undo a half-applied statement,
/// and [`insert_events`] refuses the whole append when a row was not inserted.
const EVENT_COLUMNS: &str = "INSERT OR IGNORE INTO memj_events (seq, event_id, kind, scope, owner_id, record_id, pair_ids_json, weight, ttl_activity, matched, query_fingerprint, trace_id, observed_at, actor, reason, provenance_json) VALUES ";

/// Rows per multi-row event insert (16 columns each, far below SQLite's
/// bound-parameter limit).
const EVENT_ROWS_PER_STATEMENT: usize = 64;

/// The multi-row insert of `n` events (`n` a power of two up to 64), built once.
fn event_insert_sql(n: usize) -> &'static str {
    static SQL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let all = SQL.get_or_init(|| {
        let row = format!("({})", vec!["?"; 16].join(", "));
        (0..=EVENT_ROWS_PER_STATEMENT.ilog2())
            .map(|k| format!("{EVENT_COLUMNS}{}", vec![row.as_str(); 1 << k].join(", ")))
            .collect()
    });
    &all[n.ilog2() as usize]
}

/// Refuse an append when a multi-row `OR IGNORE` insert skipped a row (a seq or
/// id collision the caller's dedup should have made impossible); the caller's
/// transaction then rolls back, so nothing of the batch is written.
pub(crate) fn check_inserted(table: &str, inserted: usize, expected: usize) -> Result<()> {
    if inserted != expected {
        return Err(am_journal::Error::storage(format!(
            "{table}: expected to insert {expected} rows, SQLite inserted {inserted} \
             (a seq or id collision; nothing of this append is written)"
        )));
    }
    Ok(())
}

/// Bind the 16 column values of one enriched event at parameters `base + 1..=base + 16`.
fn bind_event(stmt: &mut rusqlite::Statement<'_>, base: usize, e: &MemoryEvent) -> Result<()> {
    let pair = match &e.pair_ids {
        Some((a, b)) => Some(pair_json(a, b)?),
        None => None,
    };
    let provenance = json_dump(&e.provenance)?;
    let bind = |stmt: &mut rusqlite::Statement<'_>, i: usize, v: &dyn rusqlite::ToSql| {
        stmt.raw_bind_parameter(base + i, v).map_err(storage)
    };
    bind(stmt, 1, &e.seq)?;
    bind(stmt, 2, &e.event_id)?;
    bind(stmt, 3, &e.kind.as_str())?;
    bind(stmt, 4, &e.scope)?;
    bind(stmt, 5, &e.owner_id)?;
    bind(stmt, 6, &e.record_id)?;
    bind(stmt, 7, &pair)?;
    bind(stmt, 8, &e.weight)?;
    bind(stmt, 9, &e.ttl_activity)?;
    bind(stmt, 10, &i64::from(e.matched))?;
    bind(stmt, 11, &e.query_fingerprint)?;
    bind(stmt, 12, &e.trace_id)?;
    bind(stmt, 13, &e.observed_at)?;
    bind(stmt, 14, &e.actor)?;
    bind(stmt, 15, &e.reason)?;
    bind(stmt, 16, &provenance)?;
    Ok(())
}

/// Insert enriched events, in order, with as few statement executions as
/// possible: chunks of 64 rows, then 32, 16, ... 1 for the rest (seven cached
/// statement shapes), values bound in place. Each execution of an insert into
/// `memj_events` builds the constant list of `idx_memj_events_scoring`'s
/// `kind IN (...)` predicate afresh, so one execution per row would pay for it
/// per row.
///
/// # Errors
/// `Storage` when SQLite fails or a row was not inserted.
pub(crate) fn insert_events(conn: &Connection, events: &[&MemoryEvent]) -> Result<()> {
    let mut rest = events;
    while !rest.is_empty() {
        let n = if rest.len() >= EVENT_ROWS_PER_STATEMENT {
            EVENT_ROWS_PER_STATEMENT
        } else {
            1 << rest.len().ilog2()
        };
        let (chunk, tail) = rest.split_at(n);
        let mut stmt = conn.prepare_cached(event_insert_sql(n)).map_err(storage)?;
        for (k, e) in chunk.iter().enumerate() {
            bind_event(&mut stmt, 16 * k, e)?;
        }
        let inserted = stmt.raw_execute().map_err(storage)?;
        check_inserted("memj_events", inserted, n)?;
        rest = tail;
    }
    Ok(())
}

/// Decode a `memj_events` row.
pub(crate) fn row_to_event(r: &Row<'_>) -> Result<MemoryEvent> {
    let pair: Option<Vec<String>> = json(r, "pair_ids_json", None)?;
    Ok(MemoryEvent {
        kind: vocab(r, "kind")?,
        scope: text(r, "scope")?,
        owner_id: text(r, "owner_id")?,
        record_id: opt_text(r, "record_id")?,
        pair_ids: pair.and_then(|p| match p.as_slice() {
            [a, b] => Some((a.clone(), b.clone())),
            _ => None,
        }),
        weight: r.get("weight").map_err(storage)?,
        ttl_activity: r.get("ttl_activity").map_err(storage)?,
        matched: r.get::<_, i64>("matched").map_err(storage)? != 0,
        query_fingerprint: opt_text(r, "query_fingerprint")?,
        trace_id: opt_text(r, "trace_id")?,
        observed_at: text(r, "observed_at")?,
        actor: text(r, "actor")?,
        reason: opt_text(r, "reason")?,
        provenance: json(r, "provenance_json", JsonMap::new())?,
        event_id: text(r, "event_id")?,
        seq: r.get("seq").map_err(storage)?,
    })
}

pub(crate) const BINDING_INSERT: &str = "INSERT INTO memj_bindings (seq, binding_id, record_id, scope, owner_id, search_state, prompt_state, lifecycle, source, reason, observed_at, provenance_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

/// Insert one enriched binding.
pub(crate) fn insert_binding(conn: &rusqlite::Connection, b: &ScopeBinding) -> Result<()> {
    let provenance = json_dump(&b.provenance)?;
    conn.prepare_cached(BINDING_INSERT)
        .and_then(|mut s| {
            s.execute(rusqlite::params![
                b.seq,
                b.binding_id,
                b.record_id,
                b.scope,
                b.owner_id,
                b.search_state.as_str(),
                b.prompt_state.as_str(),
                b.lifecycle.as_str(),
                b.source.as_str(),
                b.reason,
                b.observed_at,
                provenance,
            ])
        })
        .map_err(storage)?;
    Ok(())
}

/// The `memj_bindings` columns [`row_to_binding`] reads, by position: every
/// binding read selects these (never `*`, whose order is the table's).
pub(crate) const BINDING_COLUMNS: &str = "seq, binding_id, record_id, scope, owner_id, \
     search_state, prompt_state, lifecycle, source, reason, observed_at, provenance_json";

/// Decode a `memj_bindings` row selected as [`BINDING_COLUMNS`], reading its
/// columns by position (a lookup by name compared each column's name per row:
/// 18 % of a first `maintenance_due` check at 100,000 records).
pub(crate) fn row_to_binding(r: &Row<'_>) -> Result<ScopeBinding> {
    let text = |i: usize| r.get::<_, String>(i).map_err(storage);
    let provenance: Option<String> = r.get(11).map_err(storage)?;
    Ok(ScopeBinding {
        seq: r.get(0).map_err(storage)?,
        binding_id: text(1)?,
        record_id: text(2)?,
        scope: text(3)?,
        owner_id: text(4)?,
        search_state: parse_column(&text(5)?, "search_state")?,
        prompt_state: parse_column(&text(6)?, "prompt_state")?,
        lifecycle: parse_column(&text(7)?, "lifecycle")?,
        source: parse_column(&text(8)?, "source")?,
        reason: r.get(9).map_err(storage)?,
        observed_at: text(10)?,
        provenance: json_load(provenance.as_deref(), "provenance_json", JsonMap::new())?,
    })
}

/// Insert one enriched closure.
pub(crate) fn insert_closure(conn: &rusqlite::Connection, c: &ClosureRecord) -> Result<()> {
    let replacements = json_dump(&c.replacement_ids)?;
    let provenance = json_dump(&c.provenance)?;
    conn.prepare_cached(
        "INSERT INTO memj_closures (seq, closure_id, assertion_id, kind, reason, replacement_ids_json, observed_at, actor, provenance_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )
    .and_then(|mut s| {
        s.execute(rusqlite::params![
            c.seq,
            c.closure_id,
            c.assertion_id,
            c.kind.as_str(),
            c.reason,
            replacements,
            c.observed_at,
            c.actor,
            provenance,
        ])
    })
    .map_err(storage)?;
    Ok(())
}

/// Decode a `memj_closures` row.
pub(crate) fn row_to_closure(r: &Row<'_>) -> Result<ClosureRecord> {
    Ok(ClosureRecord {
        assertion_id: text(r, "assertion_id")?,
        kind: vocab(r, "kind")?,
        reason: text(r, "reason")?,
        replacement_ids: json(r, "replacement_ids_json", Vec::new())?,
        observed_at: text(r, "observed_at")?,
        actor: text(r, "actor")?,
        provenance: json(r, "provenance_json", JsonMap::new())?,
        closure_id: text(r, "closure_id")?,
        seq: r.get("seq").map_err(storage)?,
    })
}

/// Insert one enriched trace.
pub(crate) fn insert_trace(conn: &rusqlite::Connection, t: &ReconstructionTrace) -> Result<()> {
    let cols = [
        json_dump(&t.need)?,
        json_dump(&t.searched_scopes)?,
        json_dump(&t.channels)?,
        json_dump(&t.candidates)?,
        json_dump(&t.selected)?,
        json_dump(&t.dropped)?,
        json_dump(&t.cues)?,
        json_dump(&t.budgets)?,
        json_dump(&t.budget_spent)?,
        json_dump(&t.warnings)?,
        json_dump(&t.admissions)?,
    ];
    conn.prepare_cached(
        "INSERT INTO memj_traces (seq, trace_id, trace_kind, query_fingerprint, need_json, searched_scopes_json, escalation_reason, channels_json, candidates_json, selected_json, dropped_json, cues_json, budgets_json, budget_spent_json, selector_route, stop_reason, warnings_json, admissions_json, observed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
    )
    .and_then(|mut s| {
        s.execute(rusqlite::params![
            t.seq,
            t.trace_id,
            t.trace_kind,
            t.query_fingerprint,
            cols[0],
            cols[1],
            t.escalation_reason,
            cols[2],
            cols[3],
            cols[4],
            cols[5],
            cols[6],
            cols[7],
            cols[8],
            t.selector_route,
            t.stop_reason,
            cols[9],
            cols[10],
            t.observed_at,
        ])
    })
    .map_err(storage)?;
    Ok(())
}

/// Decode a `memj_traces` row (a NULL `admissions_json`, from before the column, reads as `{}`).
pub(crate) fn row_to_trace(r: &Row<'_>) -> Result<ReconstructionTrace> {
    Ok(ReconstructionTrace {
        trace_id: text(r, "trace_id")?,
        trace_kind: text(r, "trace_kind")?,
        query_fingerprint: text(r, "query_fingerprint")?,
        need: json(r, "need_json", JsonMap::new())?,
        searched_scopes: json(r, "searched_scopes_json", Vec::new())?,
        escalation_reason: opt_text(r, "escalation_reason")?,
        channels: json(r, "channels_json", Vec::new())?,
        candidates: json(r, "candidates_json", Vec::new())?,
        selected: json(r, "selected_json", Vec::new())?,
        dropped: json(r, "dropped_json", Vec::new())?,
        cues: json(r, "cues_json", Vec::new())?,
        budgets: json(r, "budgets_json", JsonMap::new())?,
        budget_spent: json(r, "budget_spent_json", JsonMap::new())?,
        selector_route: text(r, "selector_route")?,
        stop_reason: text(r, "stop_reason")?,
        warnings: json(r, "warnings_json", Vec::new())?,
        admissions: json(r, "admissions_json", JsonMap::new())?,
        observed_at: text(r, "observed_at")?,
        seq: r.get("seq").map_err(storage)?,
    })
}

/// Insert one enriched snapshot.
pub(crate) fn insert_snapshot(conn: &rusqlite::Connection, s: &ActiveMemorySnapshot) -> Result<()> {
    let used = json_dump(&s.used_record_ids)?;
    let display = json_dump(&s.display)?;
    let provenance = json_dump(&s.provenance)?;
    conn.prepare_cached(
        "INSERT INTO memj_snapshots (seq, snapshot_id, trace_id, used_record_ids_json, display_json, prompt_token_estimate, observed_at, provenance_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )
    .and_then(|mut st| {
        st.execute(rusqlite::params![
            s.seq,
            s.snapshot_id,
            s.trace_id,
            used,
            display,
            s.prompt_token_estimate,
            s.observed_at,
            provenance,
        ])
    })
    .map_err(storage)?;
    Ok(())
}

/// Decode a `memj_snapshots` row.
pub(crate) fn row_to_snapshot(r: &Row<'_>) -> Result<ActiveMemorySnapshot> {
    Ok(ActiveMemorySnapshot {
        snapshot_id: text(r, "snapshot_id")?,
        seq: r.get("seq").map_err(storage)?,
        trace_id: text(r, "trace_id")?,
        used_record_ids: json(r, "used_record_ids_json", Vec::new())?,
        display: json(r, "display_json", Vec::new())?,
        prompt_token_estimate: r.get("prompt_token_estimate").map_err(storage)?,
        observed_at: text(r, "observed_at")?,
        provenance: json(r, "provenance_json", JsonMap::new())?,
    })
}

/// Insert one enriched valence event.
pub(crate) fn insert_valence(conn: &rusqlite::Connection, e: &ValenceEvent) -> Result<()> {
    let refs = json_dump(&e.value_refs)?;
    let provenance = json_dump(&e.provenance)?;
    conn.prepare_cached(
        "INSERT INTO memj_valence (seq, event_id, target_id, sign, magnitude, kind, value_refs_json, scope, owner_id, reason, actor, trace_id, observed_at, provenance_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )
    .and_then(|mut s| {
        s.execute(rusqlite::params![
            e.seq,
            e.event_id,
            e.target_id,
            e.sign,
            e.magnitude,
            e.kind.as_str(),
            refs,
            e.scope,
            e.owner_id,
            e.reason.as_deref().unwrap_or(""),
            e.actor,
            e.trace_id,
            e.observed_at,
            provenance,
        ])
    })
    .map_err(storage)?;
    Ok(())
}

/// Decode a `memj_valence` row.
pub(crate) fn row_to_valence(r: &Row<'_>) -> Result<ValenceEvent> {
    Ok(ValenceEvent {
        target_id: text(r, "target_id")?,
        sign: r.get("sign").map_err(storage)?,
        magnitude: r.get("magnitude").map_err(storage)?,
        kind: vocab(r, "kind")?,
        value_refs: json(r, "value_refs_json", Vec::new())?,
        scope: text(r, "scope")?,
        owner_id: text(r, "owner_id")?,
        reason: opt_text(r, "reason")?,
        actor: text(r, "actor")?,
        trace_id: opt_text(r, "trace_id")?,
        observed_at: text(r, "observed_at")?,
        provenance: json(r, "provenance_json", JsonMap::new())?,
        event_id: text(r, "event_id")?,
        seq: r.get("seq").map_err(storage)?,
    })
}

/// Insert one enriched understanding version.
pub(crate) fn insert_version(conn: &rusqlite::Connection, v: &UnderstandingVersion) -> Result<()> {
    let keywords = json_dump(&v.keywords)?;
    let author = json_dump(&v.author)?;
    let reader = match &v.reader {
        Some(r) => Some(json_dump(r)?),
        None => None,
    };
    let sources = json_dump(&v.sources)?;
    let derived = json_dump(&v.derived_from)?;
    let cause = json_dump(&v.cause)?;
    conn.prepare_cached(
        "INSERT INTO memj_versions (seq, version_id, record_id, assertion_id, version, field, text, title, keywords_json, digest_method, author_json, reader_json, sources_json, derived_from_json, cause_json, magnitude, task_id, understood_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
    )
    .and_then(|mut s| {
        s.execute(rusqlite::params![
            v.seq,
            v.version_id,
            v.record_id,
            v.assertion_id,
            v.version,
            v.field,
            v.text,
            v.title,
            keywords,
            v.digest_method,
            author,
            reader,
            sources,
            derived,
            cause,
            v.magnitude,
            v.task_id,
            v.understood_at,
        ])
    })
    .map_err(storage)?;
    Ok(())
}

/// Decode a `memj_versions` row.
/// The columns of `memj_versions` in the order [`row_to_version`] reads them
/// by position (a by-name lookup per cell showed in `versions` reads).
pub(crate) const VERSION_COLUMNS: &str = "seq, version_id, record_id, assertion_id, version, field, \
     text, title, keywords_json, digest_method, author_json, reader_json, sources_json, \
     derived_from_json, cause_json, magnitude, task_id, understood_at";

/// One `memj_versions` row selected with [`VERSION_COLUMNS`].
pub(crate) fn row_to_version(r: &Row<'_>) -> Result<UnderstandingVersion> {
    let s = |i: usize| -> Result<String> { r.get::<_, String>(i).map_err(storage) };
    let o = |i: usize| -> Result<Option<String>> { r.get::<_, Option<String>>(i).map_err(storage) };
    // JSON is parsed from the borrowed cell, never copied first.
    fn j<T: serde::de::DeserializeOwned>(
        r: &Row<'_>,
        i: usize,
        col: &str,
        default: T,
    ) -> Result<T> {
        let cell = r.get_ref(i).map_err(storage)?;
        let raw = match cell {
            rusqlite::types::ValueRef::Null => None,
            other => Some(other.as_str().map_err(|e| {
                storage(rusqlite::Error::FromSqlConversionFailure(
                    i,
                    other.data_type(),
                    Box::new(e),
                ))
            })?),
        };
        json_load(raw, col, default)
    }
    Ok(UnderstandingVersion {
        seq: r.get(0).map_err(storage)?,
        version_id: s(1)?,
        record_id: s(2)?,
        assertion_id: s(3)?,
        version: r.get(4).map_err(storage)?,
        field: s(5)?,
        text: o(6)?,
        title: o(7)?,
        keywords: j(r, 8, "keywords_json", Vec::new())?,
        digest_method: o(9)?,
        author: j(r, 10, "author_json", JsonMap::new())?,
        reader: j(r, 11, "reader_json", None)?,
        sources: j(r, 12, "sources_json", Vec::new())?,
        derived_from: j(r, 13, "derived_from_json", Vec::new())?,
        cause: j(r, 14, "cause_json", Value::Null)?,
        magnitude: r.get(15).map_err(storage)?,
        task_id: o(16)?,
        understood_at: s(17)?,
    })
}
