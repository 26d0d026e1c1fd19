//! The SQL of the SQLite graph connector's keyed reads, in one place, so the
//! reads run exactly the statements [`keyed_reads`] lists and
//! `SqliteGraphBackend::query_plans` explains (every one an index search).
//!
//! Spec: api.md "The graph tables (SQLite)" ("Every keyed read above is an index
//! search").

use super::GraphTables;
use am_graph::MAX_READ_LIMIT;

fn lim(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// The log's columns, in `revision_row`'s order.
pub(super) const REVISION_COLUMNS: &str = "seq, revision_id, scope, owner_id, cause, \
     occurred_at, recorded_at, ops_json, provenance_json, summary, journal_applied";

/// Whether a memory was asserted through the graph (`?1` memory id).
pub(super) fn is_memory(t: &GraphTables) -> String {
    format!(
        "SELECT 1 FROM {} WHERE memory_id = ?1 AND event = 'asserted' LIMIT 1",
        t.history
    )
}

/// A revision's position in the log (`?1` revision id).
pub(super) fn revision_seq(t: &GraphTables) -> String {
    format!("SELECT seq FROM {} WHERE revision_id = ?1", t.revisions)
}

/// A row's owner (`?1` assertion id).
pub(super) fn row_owner(t: &GraphTables) -> String {
    format!("SELECT owner_id FROM {} WHERE assertion_id = ?1", t.triples)
}

/// The first revision that closed a memory (`?1` memory id).
pub(super) fn closing_revision(t: &GraphTables) -> String {
    format!(
        "SELECT revision_id FROM {} WHERE memory_id = ?1 AND event = 'closed' \
         ORDER BY seq LIMIT 1",
        t.history
    )
}

/// The graph's open memory holding a claim (`?1..?6` subject, predicate,
/// object, scope, owner, valid_from).
pub(super) fn open_same_claim(t: &GraphTables) -> String {
    format!(
        "SELECT t.assertion_id FROM {t} t WHERE t.subject = ?1 AND t.predicate = ?2 \
         AND t.object = ?3 AND t.scope = ?4 AND t.owner_id IS ?5 AND t.valid_from IS ?6 \
         AND t.valid_until IS NULL \
         AND EXISTS (SELECT 1 FROM {h} h WHERE h.memory_id = t.assertion_id AND h.event = 'asserted') \
         ORDER BY t.rowid LIMIT 1",
        t = t.triples,
        h = t.history
    )
}

/// The newest digest assertion of the graph with a subject (`?1` subject, `?2`
/// the digest predicate).
pub(super) fn digest_assertion(t: &GraphTables) -> String {
    format!(
        "SELECT tr.assertion_id FROM {tr} tr WHERE tr.subject = ?1 AND tr.predicate = ?2 \
         AND EXISTS (SELECT 1 FROM {h} h WHERE h.memory_id = tr.assertion_id AND h.event = 'asserted') \
         ORDER BY tr.rowid DESC LIMIT 1",
        tr = t.triples,
        h = t.history
    )
}

/// One provenance row's ref (`?1` memory id, `?2` ref key).
pub(super) fn source_ref(t: &GraphTables) -> String {
    format!(
        "SELECT ref_json FROM {} WHERE memory_id = ?1 AND ref_key = ?2",
        t.provenance
    )
}

/// Whether a row exists (`?1` assertion id).
pub(super) fn row_exists(t: &GraphTables) -> String {
    format!("SELECT 1 FROM {} WHERE assertion_id = ?1", t.triples)
}

/// A row's window (`?1` assertion id).
pub(super) fn window(t: &GraphTables) -> String {
    format!(
        "SELECT valid_from, valid_until FROM {} WHERE assertion_id = ?1",
        t.triples
    )
}

/// History rows by `column` (`memory_id` or `revision_id`; `?1`), of one
/// event when `event` (`?2`), in record order.
pub(super) fn history_where(t: &GraphTables, column: &str, event: bool, limit: usize) -> String {
    let event_clause = if event { " AND event = ?2" } else { "" };
    format!(
        "SELECT seq, memory_id, event, at, revision_id, detail_json FROM {} \
         WHERE {column} = ?1{event_clause} ORDER BY seq LIMIT {}",
        t.history,
        lim(limit)
    )
}

/// A memory's history with each revision's cause (`?1` memory id).
pub(super) fn history(t: &GraphTables, limit: usize) -> String {
    format!(
        "SELECT h.seq, h.memory_id, h.event, h.at, h.revision_id, h.detail_json, \
         COALESCE(r.cause, '') FROM {h} h LEFT JOIN {r} r ON r.revision_id = h.revision_id \
         WHERE h.memory_id = ?1 ORDER BY h.seq LIMIT {n}",
        h = t.history,
        r = t.revisions,
        n = lim(limit)
    )
}

/// A memory's provenance rows (`?1` memory id).
pub(super) fn sources(t: &GraphTables, limit: usize) -> String {
    format!(
        "SELECT memory_id, ref_key, ref_kind, run_id, revision_id, ref_json, via, owner_id \
         FROM {} WHERE memory_id = ?1 ORDER BY rowid LIMIT {}",
        t.provenance,
        lim(limit)
    )
}

/// What a memory was derived from (`?1` memory id).
pub(super) fn parents(t: &GraphTables, limit: usize) -> String {
    format!(
        "SELECT from_id FROM {} WHERE memory_id = ?1 ORDER BY rowid LIMIT {}",
        t.derivations,
        lim(limit)
    )
}

/// What was derived from a memory (`?1` memory id).
pub(super) fn children(t: &GraphTables, limit: usize) -> String {
    format!(
        "SELECT memory_id FROM {} WHERE from_id = ?1 ORDER BY rowid LIMIT {}",
        t.derivations,
        lim(limit)
    )
}

/// The memories naming a ref, by `column` (`ref_key` or `run_id`; `?1`), each
/// once, in first-recorded order.
pub(super) fn with_ref(t: &GraphTables, column: &str, limit: usize) -> String {
    format!(
        "SELECT memory_id, MIN(rowid) AS first FROM {} WHERE {column} = ?1 \
         GROUP BY memory_id ORDER BY first LIMIT {}",
        t.provenance,
        lim(limit)
    )
}

/// Whether a memory of one of `owners` owners names a ref, by `column` (`?1`
/// the key, then the owners).
pub(super) fn names_ref(t: &GraphTables, column: &str, owners: usize) -> String {
    format!(
        "SELECT EXISTS (SELECT 1 FROM {} WHERE {column} = ? AND owner_id IN ({}))",
        t.provenance,
        vec!["?"; owners].join(", ")
    )
}

/// A page of the log after a seq (`?1`).
pub(super) fn revisions_page(t: &GraphTables, limit: usize) -> String {
    format!(
        "SELECT {REVISION_COLUMNS} FROM {} WHERE seq > ?1 ORDER BY seq LIMIT {}",
        t.revisions,
        lim(limit)
    )
}

/// The log's head.
pub(super) fn log_head(t: &GraphTables) -> String {
    format!("SELECT COALESCE(MAX(seq), 0) FROM {}", t.revisions)
}

/// One logged revision (`?1` revision id).
pub(super) fn logged_revision(t: &GraphTables) -> String {
    format!(
        "SELECT {REVISION_COLUMNS} FROM {} WHERE revision_id = ?1",
        t.revisions
    )
}

/// The revisions awaiting their closures, oldest first.
pub(super) fn pending_journal(t: &GraphTables, limit: usize) -> String {
    format!(
        "SELECT {REVISION_COLUMNS} FROM {} WHERE journal_applied = 0 ORDER BY seq LIMIT {}",
        t.revisions,
        lim(limit)
    )
}

/// Mark a revision's closures appended (`?1` revision id).
pub(super) fn mark_journal_applied(t: &GraphTables) -> String {
    format!(
        "UPDATE {} SET journal_applied = 1 WHERE revision_id = ?1 AND journal_applied = 0",
        t.revisions
    )
}

/// Every keyed read (and keyed update) of the connector, named, as it runs
/// (reads with a limit at [`MAX_READ_LIMIT`]; `names_ref` with two owners).
pub(super) fn keyed_reads(t: &GraphTables) -> Vec<(&'static str, String)> {
    let n = MAX_READ_LIMIT;
    vec![
        ("is_memory", is_memory(t)),
        ("revision_seq", revision_seq(t)),
        ("row_owner", row_owner(t)),
        ("closing_revision", closing_revision(t)),
        ("open_same_claim", open_same_claim(t)),
        ("digest_assertion", digest_assertion(t)),
        ("source_ref", source_ref(t)),
        ("row_exists", row_exists(t)),
        ("window", window(t)),
        (
            "history_by_revision",
            history_where(t, "revision_id", false, n),
        ),
        (
            "closed_by_revision",
            history_where(t, "revision_id", true, n),
        ),
        ("history", history(t, n)),
        ("sources", sources(t, n)),
        ("parents", parents(t, n)),
        ("children", children(t, n)),
        ("with_ref_key", with_ref(t, "ref_key", n)),
        ("with_ref_run", with_ref(t, "run_id", n)),
        ("names_ref_key", names_ref(t, "ref_key", 2)),
        ("names_ref_run", names_ref(t, "run_id", 2)),
        ("revisions_page", revisions_page(t, n)),
        ("log_head", log_head(t)),
        ("logged_revision", logged_revision(t)),
        ("pending_journal", pending_journal(t, n)),
        ("mark_journal_applied", mark_journal_applied(t)),
    ]
}
