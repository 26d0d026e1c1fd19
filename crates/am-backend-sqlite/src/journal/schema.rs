//! The `memj_*` DDL: AbstractMemory 0.3.2's journal tables and indexes, byte for
//! byte as its `ensure_schema` writes them, plus the tables this port adds
//! (`memj_versions`, the checkpointed count logs) that Python's reader ignores.
//!
//! Spec: ../shared/spec/oracle-0.3.2/schema.sql; oracle `journal_sqlite_rows.ensure_schema`.

use rusqlite::Connection;

/// The 0.3.2 statements, in the oracle's order (the `admissions_json` column is
/// added by `ALTER TABLE` afterwards, as 0.3.2 does, so `sqlite_master.sql` matches).
const PY_DDL: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS memj_events (
          seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, kind TEXT NOT NULL,
          scope TEXT NOT NULL, owner_id TEXT NOT NULL, record_id TEXT,
          pair_ids_json TEXT, weight REAL NOT NULL, ttl_activity INTEGER,
          matched INTEGER NOT NULL DEFAULT 0, query_fingerprint TEXT, trace_id TEXT,
          observed_at TEXT NOT NULL, actor TEXT NOT NULL, reason TEXT,
          provenance_json TEXT)",
    "CREATE INDEX IF NOT EXISTS idx_memj_events_scope_seq ON memj_events(scope, seq DESC)",
    "CREATE INDEX IF NOT EXISTS idx_memj_events_record_seq ON memj_events(record_id, seq)",
    "CREATE INDEX IF NOT EXISTS idx_memj_events_scoring ON memj_events(scope, owner_id, seq DESC) \
     WHERE kind IN ('co_selected', 'pinned', 'refocus', 'selected', 'silenced')",
    "CREATE TABLE IF NOT EXISTS memj_bindings (
          seq INTEGER PRIMARY KEY, binding_id TEXT NOT NULL, record_id TEXT NOT NULL,
          scope TEXT NOT NULL, owner_id TEXT NOT NULL, search_state TEXT NOT NULL,
          prompt_state TEXT NOT NULL, lifecycle TEXT NOT NULL, source TEXT NOT NULL,
          reason TEXT, observed_at TEXT NOT NULL, provenance_json TEXT)",
    "CREATE INDEX IF NOT EXISTS idx_memj_bindings_fold ON memj_bindings(record_id, scope, owner_id, seq)",
    "CREATE INDEX IF NOT EXISTS idx_memj_bindings_hidden ON memj_bindings(scope, owner_id, seq) \
     WHERE search_state = 'hidden'",
    "CREATE TABLE IF NOT EXISTS memj_closures (
          seq INTEGER PRIMARY KEY, closure_id TEXT NOT NULL, assertion_id TEXT NOT NULL,
          kind TEXT NOT NULL, reason TEXT NOT NULL, replacement_ids_json TEXT NOT NULL,
          observed_at TEXT NOT NULL, actor TEXT NOT NULL, provenance_json TEXT)",
    "CREATE INDEX IF NOT EXISTS idx_memj_closures_assertion ON memj_closures(assertion_id)",
    "CREATE TABLE IF NOT EXISTS memj_traces (
          seq INTEGER PRIMARY KEY, trace_id TEXT NOT NULL, trace_kind TEXT NOT NULL,
          query_fingerprint TEXT NOT NULL, need_json TEXT NOT NULL,
          searched_scopes_json TEXT NOT NULL, escalation_reason TEXT,
          channels_json TEXT NOT NULL, candidates_json TEXT NOT NULL,
          selected_json TEXT NOT NULL, dropped_json TEXT NOT NULL, cues_json TEXT NOT NULL,
          budgets_json TEXT NOT NULL, budget_spent_json TEXT NOT NULL,
          selector_route TEXT NOT NULL, stop_reason TEXT NOT NULL,
          warnings_json TEXT NOT NULL, observed_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS memj_snapshots (
          seq INTEGER PRIMARY KEY, snapshot_id TEXT NOT NULL, trace_id TEXT NOT NULL,
          used_record_ids_json TEXT NOT NULL, display_json TEXT NOT NULL,
          prompt_token_estimate INTEGER, observed_at TEXT NOT NULL, provenance_json TEXT)",
    "CREATE TABLE IF NOT EXISTS memj_seq (
          id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)",
    "INSERT OR IGNORE INTO memj_seq (id, value) VALUES (1, 0)",
    "CREATE TABLE IF NOT EXISTS memj_selected_counts (
          record_id TEXT PRIMARY KEY, n INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS memj_valence (
          seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, target_id TEXT NOT NULL,
          sign INTEGER NOT NULL, magnitude REAL NOT NULL, kind TEXT NOT NULL,
          value_refs_json TEXT NOT NULL, scope TEXT NOT NULL, owner_id TEXT NOT NULL,
          reason TEXT NOT NULL, actor TEXT NOT NULL, trace_id TEXT,
          observed_at TEXT NOT NULL, provenance_json TEXT)",
    "CREATE INDEX IF NOT EXISTS idx_memj_valence_target ON memj_valence(target_id, seq DESC)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_memj_events_event_id ON memj_events(event_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_memj_bindings_binding_id ON memj_bindings(binding_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_memj_closures_closure_id ON memj_closures(closure_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_memj_snapshots_snapshot_id ON memj_snapshots(snapshot_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_memj_traces_trace_id ON memj_traces(trace_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_memj_valence_event_id ON memj_valence(event_id)",
];

/// Statements after the `admissions_json` migration (as 0.3.2 orders them).
const PY_DDL_TAIL: &[&str] = &[
    "CREATE INDEX IF NOT EXISTS idx_memj_snapshots_trace ON memj_snapshots(trace_id)",
    "CREATE INDEX IF NOT EXISTS idx_memj_events_trace ON memj_events(trace_id)",
    "CREATE INDEX IF NOT EXISTS idx_memj_events_pair ON memj_events(pair_ids_json) WHERE kind = 'co_selected'",
];

/// Tables this port adds (Python 0.3.2 ignores them).
///
/// `memj_versions` holds the `UnderstandingVersion` family (0.5.2; the spec
/// fixes the fields, not a table): one row per version, `seq` on the shared
/// axis, `version_id` unique (`H(assertion_id|field|version|understanding)[:32]`,
/// `am_journal::understanding_version_id`), the record's fields as columns and
/// its structured fields as `*_json` text (`keywords`, `author`, `reader`,
/// `sources`, `derived_from`, `cause`), read by `(record_id, field, seq)` and
/// `(assertion_id, field, seq)`.
///
/// The two count logs hold checkpoints `(key, seq, n)`: `n` events of the key
/// through `seq`, one row per `CHECKPOINT_EVERY` (8) events of the key
/// (`counts.rs`), so an anchored count is one primary-key probe plus fewer
/// than 8 entries of 0.3.2's own event indexes at any journal size;
/// `memj_count_logs` records the seq through which checkpoints are kept (a
/// writer that does not keep them, such as Python 0.3.2, leaves them behind,
/// and they are caught up on the next open or append; counts stay exact
/// meanwhile, only longer to read).
const RS_DDL: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS memj_versions (
          seq INTEGER PRIMARY KEY, version_id TEXT NOT NULL, record_id TEXT NOT NULL,
          assertion_id TEXT NOT NULL, version INTEGER NOT NULL, field TEXT NOT NULL,
          text TEXT, title TEXT, keywords_json TEXT NOT NULL, digest_method TEXT,
          author_json TEXT NOT NULL, reader_json TEXT, sources_json TEXT NOT NULL,
          derived_from_json TEXT NOT NULL, cause_json TEXT NOT NULL, magnitude REAL,
          task_id TEXT, understood_at TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_memj_versions_version_id ON memj_versions(version_id)",
    "CREATE INDEX IF NOT EXISTS idx_memj_versions_record ON memj_versions(record_id, field, seq)",
    "CREATE INDEX IF NOT EXISTS idx_memj_versions_assertion ON memj_versions(assertion_id, field, seq)",
    "CREATE TABLE IF NOT EXISTS memj_selected_log (
          record_id TEXT NOT NULL, seq INTEGER NOT NULL, n INTEGER NOT NULL,
          PRIMARY KEY (record_id, seq)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS memj_pair_log (
          id_a TEXT NOT NULL, id_b TEXT NOT NULL, seq INTEGER NOT NULL, n INTEGER NOT NULL,
          PRIMARY KEY (id_a, id_b, seq)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS memj_count_logs (
          id INTEGER PRIMARY KEY CHECK (id = 1), high_water INTEGER NOT NULL)",
    "INSERT OR IGNORE INTO memj_count_logs (id, high_water) VALUES (1, 0)",
];

/// Create every journal table and index that is missing (idempotent; runs inside
/// the caller's transaction). Never touches a table that is not `memj_*`.
///
/// # Errors
/// SQLite's error when a statement fails.
pub fn ensure_schema(conn: &Connection) -> rusqlite::Result<()> {
    for sql in PY_DDL {
        conn.execute(sql, [])?;
    }
    let has_admissions: bool = conn
        .prepare("SELECT 1 FROM pragma_table_info('memj_traces') WHERE name = 'admissions_json'")?
        .exists([])?;
    if !has_admissions {
        conn.execute(
            "ALTER TABLE memj_traces ADD COLUMN admissions_json TEXT",
            [],
        )?;
    }
    for sql in PY_DDL_TAIL.iter().chain(RS_DDL) {
        conn.execute(sql, [])?;
    }
    Ok(())
}
