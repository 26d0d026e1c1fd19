//! SQLiteJournal-specific contracts: the axis survives reopen and is shared by
//! every connection to the file, appends join a caller's transaction, JSON columns
//! are encoded as the oracle encodes them, count logs catch up after a writer that
//! does not keep them, and the counters and the per-record binding fold answer
//! from indexes.

use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_journal::ClosureKind;
use am_journal::EventKind;
use am_journal::SearchState;
use am_journal::{
    BindingFilter, ClosureRecord, EventFilter, MemoryEvent, MemoryJournal, ReconstructionTrace,
    ScopeBinding,
};
use am_triples::ErrorKind;
use rusqlite::Connection;
use serde_json::json;
use std::path::{Path, PathBuf};

fn home_path() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    (dir, path)
}

fn open(path: &Path) -> (SqliteHome, SQLiteJournal) {
    let home = SqliteHome::open(path).unwrap();
    let journal = SQLiteJournal::open(&home).unwrap();
    (home, journal)
}

fn sel(rid: &str) -> MemoryEvent {
    MemoryEvent::on_record(EventKind::Selected, rid, "session", "s1")
}

#[test]
fn seq_axis_and_records_survive_reopen() {
    let (_dir, path) = home_path();
    {
        let (_home, j) = open(&path);
        j.append_events(&[sel("r1"), sel("r1")]).unwrap();
        j.append_binding(&ScopeBinding::new(
            "r1",
            "session",
            "s1",
            SearchState::Hidden,
        ))
        .unwrap();
    }
    let (_home, j) = open(&path);
    assert_eq!(j.current_seq().unwrap(), 3);
    assert_eq!(j.selected_count("r1", Some(1)).unwrap(), 1);
    assert_eq!(
        j.bindings(&BindingFilter::record("r1")).unwrap()[0].search_state,
        SearchState::Hidden
    );
    assert_eq!(j.append_events(&[sel("r2")]).unwrap()[0].seq, 4);
}

#[test]
fn every_connection_to_the_file_shares_one_axis() {
    let (_dir, path) = home_path();
    let (_h1, a) = open(&path);
    let (_h2, b) = open(&path);
    a.append_events(&[sel("r1")]).unwrap();
    let stored = b.append_events(&[sel("r1")]).unwrap();
    assert_eq!(stored[0].seq, 2);
    assert_eq!(a.selected_count("r1", Some(2)).unwrap(), 2);
    assert_eq!(a.selected_count("r1", None).unwrap(), 2);
}

#[test]
fn appends_inside_a_caller_transaction_commit_with_it() {
    let (_dir, path) = home_path();
    let (home, j) = open(&path);
    let conn = home.conn();
    {
        let mut guard = conn.lock().unwrap();
        guard
            .execute("CREATE TABLE revision_rows (id TEXT)", [])
            .unwrap();
        let tx = guard.transaction().unwrap();
        tx.execute("INSERT INTO revision_rows VALUES ('rev-1')", [])
            .unwrap();
        j.append_closures_in(
            &tx,
            &[ClosureRecord::new("a1", ClosureKind::Retract, "revised")],
        )
        .unwrap();
        j.append_events_in(&tx, &[sel("r1")]).unwrap();
        assert_eq!(j.current_seq_in(&tx).unwrap(), 2);
        tx.commit().unwrap();
    }
    assert_eq!(j.current_seq().unwrap(), 2);
    assert_eq!(j.replay_records(0, None).unwrap().len(), 2);
}

#[test]
fn appends_inside_a_rolled_back_transaction_leave_nothing() {
    let (_dir, path) = home_path();
    let (home, j) = open(&path);
    j.append_events(&[sel("r0")]).unwrap();
    let conn = home.conn();
    {
        let mut guard = conn.lock().unwrap();
        let tx = guard.transaction().unwrap();
        j.append_closures_in(
            &tx,
            &[ClosureRecord::new("a1", ClosureKind::Retract, "revised")],
        )
        .unwrap();
        j.append_events_in(
            &tx,
            &[
                sel("r1"),
                MemoryEvent::co_selected("r1", "r2", "session", "s1"),
            ],
        )
        .unwrap();
        tx.rollback().unwrap();
    }
    assert_eq!(j.current_seq().unwrap(), 1);
    assert_eq!(j.selected_count("r1", None).unwrap(), 0);
    assert_eq!(j.pair_selected_count(("r1", "r2"), Some(1)).unwrap(), 0);
    assert_eq!(j.append_events(&[sel("r1")]).unwrap()[0].seq, 2);
}

#[test]
fn a_refused_append_inside_a_caller_transaction_writes_nothing() {
    let (_dir, path) = home_path();
    let (home, j) = open(&path);
    let conn = home.conn();
    let mut guard = conn.lock().unwrap();
    let tx = guard.transaction().unwrap();
    let err = j
        .append_closures_in(
            &tx,
            &[ClosureRecord::new("a1", ClosureKind::Supersede, "newer")],
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(j.current_seq_in(&tx).unwrap(), 0);
    let n: i64 = tx
        .query_row("SELECT COUNT(*) FROM memj_closures", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn json_columns_are_compact_utf8_and_keep_key_order() {
    let (_dir, path) = home_path();
    let (home, j) = open(&path);
    let mut e = MemoryEvent::co_selected("zeta", "alpha", "session", "s1");
    e.provenance.insert("z".into(), json!("café"));
    e.provenance.insert("a".into(), json!([1, 2.5, null]));
    j.append_events(&[e]).unwrap();
    let mut t = ReconstructionTrace::new("t1", "fp");
    t.admissions.insert("r2".into(), json!("stm"));
    t.admissions.insert("r1".into(), json!("both"));
    j.append_trace(&t).unwrap();
    let conn = home.conn();
    let guard = conn.lock().unwrap();
    let (prov, pair): (String, String) = guard
        .query_row(
            "SELECT provenance_json, pair_ids_json FROM memj_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(prov, r#"{"z":"café","a":[1,2.5,null]}"#);
    assert_eq!(pair, r#"["alpha","zeta"]"#);
    let admissions: String = guard
        .query_row("SELECT admissions_json FROM memj_traces", [], |r| r.get(0))
        .unwrap();
    assert_eq!(admissions, r#"{"r2":"stm","r1":"both"}"#);
}

/// Simulate a writer that keeps `memj_selected_counts` but not the count logs
/// (AbstractMemory 0.3.2): rows and the seq counter written directly.
fn python_style_selected(conn: &Connection, seq: i64, rid: &str) {
    conn.execute(
        "INSERT INTO memj_events (seq, event_id, kind, scope, owner_id, record_id, weight, observed_at, actor, provenance_json) \
         VALUES (?1, ?2, 'selected', 'session', 's1', ?3, 8.0, '2026-01-01T00:00:00.000000+00:00', 'runtime', '{}')",
        rusqlite::params![seq, format!("py-{seq}"), rid],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO memj_selected_counts (record_id, n) VALUES (?1, 1) ON CONFLICT(record_id) DO UPDATE SET n = n + 1",
        [rid],
    )
    .unwrap();
    conn.execute("UPDATE memj_seq SET value = ?1 WHERE id = 1", [seq])
        .unwrap();
}

#[test]
fn counts_stay_exact_after_a_writer_that_keeps_no_count_logs() {
    let (_dir, path) = home_path();
    let (_home, j) = open(&path);
    j.append_events(&[sel("r1")]).unwrap();
    {
        let other = Connection::open(&path).unwrap();
        python_style_selected(&other, 2, "r1");
        python_style_selected(&other, 3, "r1");
    }
    // Before any catch-up the anchored count falls back to counting events.
    assert_eq!(j.selected_count("r1", Some(2)).unwrap(), 2);
    assert_eq!(j.selected_count("r1", None).unwrap(), 3);
    // The next append catches the logs up first.
    assert_eq!(j.append_events(&[sel("r1")]).unwrap()[0].seq, 4);
    assert_eq!(
        (0..=4)
            .map(|s| j.selected_count("r1", Some(s)).unwrap())
            .collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4]
    );
    drop(j);
    let (_home2, reopened) = open(&path);
    assert_eq!(reopened.selected_count("r1", Some(3)).unwrap(), 3);
}

fn plan(conn: &Connection, sql: &str, params: &[&dyn rusqlite::ToSql]) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    stmt.query_map(params, |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn counters_and_the_record_fold_answer_from_indexes() {
    let (_dir, path) = home_path();
    let (_home, _j) = open(&path);
    let conn = Connection::open(&path).unwrap();
    let anchored = plan(
        &conn,
        "SELECT n FROM memj_selected_log WHERE record_id = ?1 AND seq <= ?2 ORDER BY seq DESC LIMIT 1",
        &[&"r1", &5],
    );
    assert!(
        anchored.contains("PRIMARY KEY") && !anchored.contains("SCAN"),
        "{anchored}"
    );
    let pair = plan(
        &conn,
        "SELECT n FROM memj_pair_log WHERE id_a = ?1 AND id_b = ?2 AND seq <= ?3 ORDER BY seq DESC LIMIT 1",
        &[&"a", &"b", &5],
    );
    assert!(
        pair.contains("PRIMARY KEY") && !pair.contains("SCAN"),
        "{pair}"
    );
    let fold = plan(
        &conn,
        "SELECT seq, binding_id, record_id, scope, owner_id, search_state, prompt_state, lifecycle, source, reason, observed_at, provenance_json FROM memj_bindings WHERE seq IN (SELECT MAX(seq) FROM memj_bindings WHERE record_id = ?1 AND seq <= ?2 GROUP BY scope, owner_id) ORDER BY seq ASC",
        &[&"r1", &5],
    );
    assert!(
        fold.contains("idx_memj_bindings_fold") && !fold.contains("SCAN memj_bindings"),
        "{fold}"
    );
    let events = plan(
        &conn,
        "SELECT * FROM memj_events WHERE scope = ?1 AND owner_id = ?2 ORDER BY seq DESC LIMIT 512",
        &[&"session", &"s1"],
    );
    assert!(events.contains("idx_memj_events_scope_seq"), "{events}");
    // The activation window never walks the audit events between scoring ones.
    let window = plan(
        &conn,
        "SELECT * FROM memj_events WHERE scope = ?1 AND owner_id = ?2 AND kind IN (?3) AND \
         kind IN ('co_selected', 'pinned', 'refocus', 'selected', 'silenced') AND seq <= ?4 \
         ORDER BY seq DESC LIMIT 512",
        &[&"session", &"s1", &"selected", &5],
    );
    assert!(window.contains("idx_memj_events_scoring"), "{window}");
    // hidden_bindings reads the partial index and probes the fold index per
    // hidden binding, never scanning the pair's bindings.
    let hidden = plan(
        &conn,
        "SELECT seq, binding_id, record_id, scope, owner_id, search_state, prompt_state, lifecycle, source, reason, observed_at, provenance_json FROM memj_bindings b WHERE b.scope = ?1 AND b.owner_id = ?2 \
         AND b.search_state = 'hidden' AND b.seq <= ?3 \
         AND b.seq = (SELECT MAX(m.seq) FROM memj_bindings m WHERE m.record_id = b.record_id \
         AND m.scope = b.scope AND m.owner_id = b.owner_id AND m.seq <= ?3) ORDER BY b.seq ASC",
        &[&"session", &"s1", &5],
    );
    assert!(
        hidden.contains("idx_memj_bindings_hidden")
            && hidden.contains("idx_memj_bindings_fold")
            && !hidden.contains("SCAN"),
        "{hidden}"
    );
}

#[test]
fn events_reader_sees_what_the_fixture_style_writer_wrote() {
    let (_dir, path) = home_path();
    let (_home, j) = open(&path);
    {
        let other = Connection::open(&path).unwrap();
        python_style_selected(&other, 1, "r9");
    }
    let got = j.events(&EventFilter::new("session", "s1")).unwrap();
    assert_eq!(
        (got.len(), got[0].event_id.as_str(), got[0].weight),
        (1, "py-1", 8.0)
    );
}
