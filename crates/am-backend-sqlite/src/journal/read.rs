//! Readers of the `memj_*` tables: filtered, seq-bounded, limited scans over the
//! 0.3.2 indexes, the per-record binding fold, the counters and the replay merge.

use super::append::current_seq;
use super::counts;
use super::rows::{self, storage};
use am_journal::journal::{canonical_pair, check_anchor};
use am_journal::{
    ActiveMemorySnapshot, BindingFilter, ClosureFilter, ClosureRecord, EventFilter, JournalRecord,
    MemoryEvent, ReconstructionTrace, Result, ScopeBinding, TraceFilter, UnderstandingVersion,
    ValenceEvent, ValenceFilter, VersionFilter, fold_bindings,
};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row};

/// A WHERE clause under construction.
#[derive(Default)]
struct Where {
    clauses: Vec<String>,
    params: Vec<SqlValue>,
}

impl Where {
    fn eq(&mut self, col: &str, v: impl Into<SqlValue>) {
        self.params.push(v.into());
        self.clauses.push(format!("{col} = ?{}", self.params.len()));
    }

    fn cmp(&mut self, col: &str, op: &str, v: Option<i64>) {
        if let Some(v) = v {
            self.params.push(SqlValue::Integer(v));
            self.clauses
                .push(format!("{col} {op} ?{}", self.params.len()));
        }
    }

    fn sql(&self) -> String {
        if self.clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", self.clauses.join(" AND "))
        }
    }
}

fn limit_sql(limit: usize) -> String {
    if limit == 0 {
        String::new()
    } else {
        format!(" LIMIT {limit}")
    }
}

fn select<T>(
    conn: &Connection,
    sql: &str,
    params: &[SqlValue],
    decode: impl Fn(&Row<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(sql).map_err(storage)?;
    let mut rows = stmt
        .query(rusqlite::params_from_iter(params.iter()))
        .map_err(storage)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(storage)? {
        out.push(decode(row)?);
    }
    Ok(out)
}

/// The kinds the activation window reads (attention kinds and the refocus
/// marker); `idx_memj_events_scoring` holds exactly these rows.
const SCORING_KINDS: &[&str] = &["co_selected", "pinned", "refocus", "selected", "silenced"];
/// [`SCORING_KINDS`] as the partial index's predicate.
const SCORING_KINDS_CLAUSE: &str =
    "kind IN ('co_selected', 'pinned', 'refocus', 'selected', 'silenced')";

fn anchors(conn: &Connection, since: Option<i64>, until: Option<i64>) -> Result<i64> {
    let hw = current_seq(conn)?;
    check_anchor("since_seq", since, hw)?;
    check_anchor("until_seq", until, hw)?;
    Ok(hw)
}

pub(crate) fn events(conn: &Connection, f: &EventFilter) -> Result<Vec<MemoryEvent>> {
    anchors(conn, f.since_seq, f.until_seq)?;
    let mut w = Where::default();
    w.eq("scope", f.scope.clone());
    w.eq("owner_id", f.owner_id.clone());
    if let Some(r) = &f.record_id {
        w.eq("record_id", r.clone());
    }
    if !f.kinds.is_empty() {
        let start = w.params.len();
        let marks: Vec<String> = (0..f.kinds.len())
            .map(|i| format!("?{}", start + i + 1))
            .collect();
        w.params
            .extend(f.kinds.iter().map(|k| SqlValue::Text(k.clone())));
        w.clauses.push(format!("kind IN ({})", marks.join(", ")));
        // A scoring-kinds read (the activation window) restates the partial
        // index's predicate as literals, so SQLite walks
        // idx_memj_events_scoring and never the audit events between them.
        if f.kinds.iter().all(|k| SCORING_KINDS.contains(&k.as_str())) {
            w.clauses.push(SCORING_KINDS_CLAUSE.to_string());
        }
    }
    w.cmp("seq", ">=", f.since_seq);
    w.cmp("seq", "<=", f.until_seq);
    let sql = format!(
        "SELECT * FROM memj_events{} ORDER BY seq DESC{}",
        w.sql(),
        limit_sql(f.limit)
    );
    select(conn, &sql, &w.params, rows::row_to_event)
}

pub(crate) fn bindings(conn: &Connection, f: &BindingFilter) -> Result<Vec<ScopeBinding>> {
    anchors(conn, None, f.until_seq)?;
    let mut w = Where::default();
    if let Some(r) = &f.record_id {
        w.eq("record_id", r.clone());
    }
    if let Some(s) = &f.scope {
        w.eq("scope", s.clone());
    }
    if let Some(o) = &f.owner_id {
        w.eq("owner_id", o.clone());
    }
    w.cmp("seq", "<=", f.until_seq);
    if f.fold && f.record_id.is_some() {
        // The per-record fold answers from idx_memj_bindings_fold
        // (record_id, scope, owner_id, seq): one MAX(seq) per key, then those rows.
        let sql = format!(
            "SELECT {} FROM memj_bindings WHERE seq IN (SELECT MAX(seq) FROM memj_bindings{} GROUP BY scope, owner_id) ORDER BY seq ASC",
            rows::BINDING_COLUMNS,
            w.sql()
        );
        return select(conn, &sql, &w.params, rows::row_to_binding);
    }
    let sql = format!(
        "SELECT {} FROM memj_bindings{} ORDER BY seq ASC",
        rows::BINDING_COLUMNS,
        w.sql()
    );
    let loaded = select(conn, &sql, &w.params, rows::row_to_binding)?;
    Ok(if f.fold {
        fold_bindings(&loaded)
    } else {
        loaded
    })
}

/// The latest-hidden bindings of one pair at `until_seq`: the hidden
/// bindings from the partial index `idx_memj_bindings_hidden`, each kept when
/// it is its key's latest binding at the anchor (one probe of
/// `idx_memj_bindings_fold`), oldest first.
pub(crate) fn hidden_bindings(
    conn: &Connection,
    scope: &str,
    owner_id: &str,
    until_seq: Option<i64>,
) -> Result<Vec<ScopeBinding>> {
    anchors(conn, None, until_seq)?;
    let until = until_seq.unwrap_or(i64::MAX);
    select(
        conn,
        &format!(
            "SELECT {} FROM memj_bindings b WHERE b.scope = ?1 AND b.owner_id = ?2 \
         AND b.search_state = 'hidden' AND b.seq <= ?3 \
         AND b.seq = (SELECT MAX(m.seq) FROM memj_bindings m WHERE m.record_id = b.record_id \
         AND m.scope = b.scope AND m.owner_id = b.owner_id AND m.seq <= ?3) ORDER BY b.seq ASC",
            rows::BINDING_COLUMNS
        ),
        &[
            SqlValue::from(scope.to_owned()),
            SqlValue::from(owner_id.to_owned()),
            SqlValue::from(until),
        ],
        rows::row_to_binding,
    )
}

pub(crate) fn closures(conn: &Connection, f: &ClosureFilter) -> Result<Vec<ClosureRecord>> {
    anchors(conn, None, f.until_seq)?;
    let mut w = Where::default();
    if let Some(a) = &f.assertion_id {
        w.eq("assertion_id", a.trim().to_string());
    }
    w.cmp("seq", "<=", f.until_seq);
    let sql = format!(
        "SELECT * FROM memj_closures{} ORDER BY seq DESC{}",
        w.sql(),
        limit_sql(f.limit)
    );
    select(conn, &sql, &w.params, rows::row_to_closure)
}

fn trace_where(f: &TraceFilter) -> Where {
    let mut w = Where::default();
    if let Some(t) = &f.trace_id {
        w.eq("trace_id", t.trim().to_string());
    }
    w.cmp("seq", "<=", f.until_seq);
    w
}

pub(crate) fn traces(conn: &Connection, f: &TraceFilter) -> Result<Vec<ReconstructionTrace>> {
    anchors(conn, None, f.until_seq)?;
    let w = trace_where(f);
    let sql = format!(
        "SELECT * FROM memj_traces{} ORDER BY seq DESC{}",
        w.sql(),
        limit_sql(f.limit)
    );
    select(conn, &sql, &w.params, rows::row_to_trace)
}

pub(crate) fn snapshots(conn: &Connection, f: &TraceFilter) -> Result<Vec<ActiveMemorySnapshot>> {
    anchors(conn, None, f.until_seq)?;
    let w = trace_where(f);
    let sql = format!(
        "SELECT * FROM memj_snapshots{} ORDER BY seq DESC{}",
        w.sql(),
        limit_sql(f.limit)
    );
    select(conn, &sql, &w.params, rows::row_to_snapshot)
}

pub(crate) fn valence(conn: &Connection, f: &ValenceFilter) -> Result<Vec<ValenceEvent>> {
    anchors(conn, f.since_seq, f.until_seq)?;
    let mut w = Where::default();
    w.eq("scope", f.scope.clone());
    w.eq("owner_id", f.owner_id.clone());
    if let Some(t) = &f.target_id {
        w.eq("target_id", t.clone());
    }
    w.cmp("seq", ">=", f.since_seq);
    w.cmp("seq", "<=", f.until_seq);
    let sql = format!(
        "SELECT * FROM memj_valence{} ORDER BY seq DESC{}",
        w.sql(),
        limit_sql(f.limit)
    );
    select(conn, &sql, &w.params, rows::row_to_valence)
}

pub(crate) fn versions(conn: &Connection, f: &VersionFilter) -> Result<Vec<UnderstandingVersion>> {
    anchors(conn, None, f.until_seq)?;
    let mut w = Where::default();
    if let Some(r) = &f.record_id {
        w.eq("record_id", r.trim().to_string());
    }
    if let Some(a) = &f.assertion_id {
        w.eq("assertion_id", a.trim().to_string());
    }
    if let Some(field) = &f.field {
        w.eq("field", field.trim().to_lowercase());
    }
    w.cmp("seq", "<=", f.until_seq);
    let sql = format!(
        "SELECT {} FROM memj_versions{} ORDER BY seq ASC{}",
        rows::VERSION_COLUMNS,
        w.sql(),
        limit_sql(f.limit)
    );
    select(conn, &sql, &w.params, rows::row_to_version)
}

pub(crate) fn replay(
    conn: &Connection,
    since: i64,
    until: Option<i64>,
) -> Result<Vec<JournalRecord>> {
    let hw = anchors(conn, Some(since), until)?;
    let hi = until.unwrap_or(hw);
    let p = [SqlValue::Integer(since), SqlValue::Integer(hi)];
    let range = "WHERE seq > ?1 AND seq <= ?2 ORDER BY seq ASC";
    let mut out: Vec<JournalRecord> = Vec::new();
    out.extend(
        select(
            conn,
            &format!("SELECT * FROM memj_events {range}"),
            &p,
            rows::row_to_event,
        )?
        .into_iter()
        .map(JournalRecord::Event),
    );
    out.extend(
        select(
            conn,
            &format!(
                "SELECT {} FROM memj_bindings {range}",
                rows::BINDING_COLUMNS
            ),
            &p,
            rows::row_to_binding,
        )?
        .into_iter()
        .map(JournalRecord::Binding),
    );
    out.extend(
        select(
            conn,
            &format!("SELECT * FROM memj_closures {range}"),
            &p,
            rows::row_to_closure,
        )?
        .into_iter()
        .map(JournalRecord::Closure),
    );
    out.extend(
        select(
            conn,
            &format!("SELECT * FROM memj_traces {range}"),
            &p,
            rows::row_to_trace,
        )?
        .into_iter()
        .map(JournalRecord::Trace),
    );
    out.extend(
        select(
            conn,
            &format!("SELECT * FROM memj_snapshots {range}"),
            &p,
            rows::row_to_snapshot,
        )?
        .into_iter()
        .map(JournalRecord::Snapshot),
    );
    out.extend(
        select(
            conn,
            &format!("SELECT * FROM memj_valence {range}"),
            &p,
            rows::row_to_valence,
        )?
        .into_iter()
        .map(JournalRecord::Valence),
    );
    out.sort_by_key(JournalRecord::seq);
    Ok(out)
}

/// [`replay`]'s records read only for their family and `observed_at`
/// (`MemoryJournal::visit_replay_times`): each family's column over the same
/// seq range, lent as SQLite steps to it, family by family. A cell that is
/// not text fails as the record's decode fails on it; the record's other
/// columns are not read.
pub(crate) fn replay_times(
    conn: &Connection,
    since: i64,
    until: Option<i64>,
    visit: &mut dyn FnMut(&'static str, &str),
) -> Result<()> {
    let hw = anchors(conn, Some(since), until)?;
    let hi = until.unwrap_or(hw);
    for (family, table) in [
        ("event", "memj_events"),
        ("binding", "memj_bindings"),
        ("closure", "memj_closures"),
        ("trace", "memj_traces"),
        ("snapshot", "memj_snapshots"),
        ("valence", "memj_valence"),
    ] {
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT observed_at FROM {table} WHERE seq > ?1 AND seq <= ?2"
            ))
            .map_err(storage)?;
        let mut rows = stmt.query([since, hi]).map_err(storage)?;
        while let Some(r) = rows.next().map_err(storage)? {
            if let rusqlite::types::ValueRef::Text(t) = r.get_ref(0).map_err(storage)?
                && let Ok(at) = std::str::from_utf8(t)
            {
                visit(family, at);
            } else {
                let at: String = r.get(0).map_err(storage)?;
                visit(family, &at);
            }
        }
    }
    Ok(())
}

pub(crate) fn revisions(
    conn: &Connection,
    since: i64,
    until: Option<i64>,
) -> Result<Vec<UnderstandingVersion>> {
    let hw = anchors(conn, Some(since), until)?;
    let p = [
        SqlValue::Integer(since),
        SqlValue::Integer(until.unwrap_or(hw)),
    ];
    select(
        conn,
        &format!(
            "SELECT {} FROM memj_versions WHERE seq > ?1 AND seq <= ?2 ORDER BY seq ASC",
            rows::VERSION_COLUMNS
        ),
        &p,
        rows::row_to_version,
    )
}

fn one_i64(conn: &Connection, sql: &str, params: &[SqlValue]) -> Result<i64> {
    conn.prepare_cached(sql)
        .and_then(|mut s| {
            s.query_row(rusqlite::params_from_iter(params.iter()), |r| {
                r.get::<_, Option<i64>>(0)
            })
            .optional()
        })
        .map_err(storage)
        .map(|v| v.flatten().unwrap_or(0))
}

fn as_count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// `selected` events of `record_id` through `until` (default: the high-water
/// mark). At the mark, 0.3.2's `memj_selected_counts` answers (one probe);
/// before it, the last count-log checkpoint plus the events after it
/// (`counts::selected_as_of`).
pub(crate) fn selected_count(
    conn: &Connection,
    record_id: &str,
    until: Option<i64>,
) -> Result<u64> {
    let hw = anchors(conn, None, until)?;
    let n = match until {
        Some(hi) if hi < hw => counts::selected_as_of(conn, record_id, hi)?,
        _ => one_i64(
            conn,
            "SELECT n FROM memj_selected_counts WHERE record_id = ?1",
            &[SqlValue::Text(record_id.to_string())],
        )?,
    };
    Ok(as_count(n))
}

/// `co_selected` events of the pair (either order) through `until` (default:
/// the high-water mark): the last count-log checkpoint plus the pair's index
/// entries after it (`counts::pair_as_of`).
pub(crate) fn pair_selected_count(
    conn: &Connection,
    pair: (&str, &str),
    until: Option<i64>,
) -> Result<u64> {
    let hw = anchors(conn, None, until)?;
    let (a, b) = canonical_pair(pair);
    let n = counts::pair_as_of(conn, &a, &b, until.unwrap_or(hw))?;
    Ok(as_count(n))
}

pub(crate) fn seq_at(conn: &Connection, ts: &str) -> Result<i64> {
    // Snapshots, valence and versions never anchor folds (as 0.3.2's seq_at).
    let union = [
        "memj_events",
        "memj_bindings",
        "memj_closures",
        "memj_traces",
    ]
    .iter()
    .map(|t| format!("SELECT MAX(seq) AS s FROM {t} WHERE observed_at <= ?1"))
    .collect::<Vec<_>>()
    .join(" UNION ALL ");
    one_i64(
        conn,
        &format!("SELECT MAX(s) FROM ({union})"),
        &[SqlValue::Text(ts.to_string())],
    )
}
