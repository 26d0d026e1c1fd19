//! Timestamps a Python AbstractMemory 0.3.2 home stored as given (offsets, `Z`,
//! naive values) are rewritten to the canonical UTC form on open, so since /
//! until / active_at and ordering answer by instants ("Our rules", spec README:
//! "Timestamps are normalized at the write boundary to the canonical UTC form,
//! so string comparison is instant comparison").
//!
//! Needs `AM_ORACLE_PYTHON` (a python with `abstractmemory==0.3.2`), as
//! `interop_python.rs` does; the home is written by
//! `tests/python/legacy_timestamps.py`.

mod common;

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{Order, TripleQuery, TripleStore};
use common::*;
use std::path::Path;

fn oracle_python() -> String {
    std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: this test needs the path of a python with \
             abstractmemory==0.3.2 installed (`cargo xtask test` sets it; e.g. \
             AM_ORACLE_PYTHON=/tmp/oracle/bin/python cargo test -p am-backend-sqlite --test legacy_timestamps)"
        )
    })
}

/// A home written by 0.3.2 with rows (in insertion order):
/// ra observed `2026-01-01T03:00:00-02:00` (05:00Z), valid 04:00Z..06:00Z;
/// rb `2026-01-01T04:00:00Z`; rc naive `2026-01-01 04:30`, valid from 04:30Z;
/// rd `next tuesday` (not a timestamp); re canonical 04:10Z.
fn python_home(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let python = oracle_python();
    let path = home_path(dir);
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/legacy_timestamps.py"
    );
    let status = std::process::Command::new(&python)
        .arg(script)
        .arg(&path)
        .status()
        .unwrap_or_else(|e| panic!("cannot run AM_ORACLE_PYTHON={python}: {e}"));
    assert!(status.success(), "the oracle script failed: {status}");
    path
}

fn query(store: &SQLiteTripleStore, q: TripleQuery) -> Vec<String> {
    let q = TripleQuery {
        scope: Some("session".into()),
        owner_id: Some("owner".into()),
        limit: 0,
        ..q
    };
    store
        .query(&q)
        .unwrap()
        .into_iter()
        .map(|a| a.object.trim_start_matches("object ").to_owned())
        .collect()
}

/// Every row's timestamp columns, raw, in rowid order.
fn raw_timestamps(path: &Path) -> Vec<(String, Option<String>, Option<String>)> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut stmt = c
        .prepare("SELECT observed_at, valid_from, valid_until FROM triples ORDER BY rowid")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Everything but the timestamp columns, plus the FTS index's own pages.
fn untouched_parts(path: &Path) -> Vec<Vec<Option<Vec<u8>>>> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut out = Vec::new();
    for sql in [
        "SELECT CAST(rowid AS BLOB), CAST(assertion_id AS BLOB), CAST(subject AS BLOB), \
         CAST(predicate AS BLOB), CAST(object AS BLOB), CAST(scope AS BLOB), CAST(owner_id AS BLOB), \
         CAST(confidence AS BLOB), CAST(provenance_json AS BLOB), CAST(attributes_json AS BLOB), \
         CAST(text AS BLOB) FROM triples ORDER BY rowid",
        "SELECT CAST(id AS BLOB), block FROM triples_fts_data ORDER BY id",
        "SELECT CAST(segid AS BLOB), CAST(term AS BLOB), CAST(pgno AS BLOB) FROM triples_fts_idx ORDER BY segid, term",
    ] {
        let mut stmt = c.prepare(sql).unwrap();
        let n = stmt.column_count();
        let rows: Vec<Vec<Option<Vec<u8>>>> = stmt
            .query_map([], |r| (0..n).map(|i| r.get(i)).collect())
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        out.extend(rows);
    }
    out
}

fn meta(path: &Path, key: &str) -> Option<String> {
    raw_opt_text(
        path,
        &format!("SELECT value FROM triples_meta WHERE key = '{key}'"),
    )
}

fn at(hhmm: &str) -> Option<String> {
    Some(format!("2026-01-01T{hhmm}:00Z"))
}

#[test]
fn since_until_and_active_at_answer_by_instants_on_a_home_python_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let path = python_home(&dir);
    let store = open(&path, None);
    // The break test: by text, until 04:00Z answered [ra, rc].
    assert_eq!(
        query(
            &store,
            TripleQuery {
                until: at("04:00"),
                ..Default::default()
            }
        ),
        ["rb"]
    );
    assert_eq!(
        query(
            &store,
            TripleQuery {
                since: at("04:10"),
                until: at("05:00"),
                order: Order::Asc,
                ..Default::default()
            }
        ),
        ["re", "rc", "ra"]
    );
    // ra is valid 04:00Z..06:00Z (written with -02:00); rc only from 04:30Z (naive).
    let mut active = query(
        &store,
        TripleQuery {
            active_at: at("04:15"),
            ..Default::default()
        },
    );
    active.sort();
    assert_eq!(active, ["ra", "rb", "rd", "re"]);
    let mut active = query(
        &store,
        TripleQuery {
            active_at: at("06:00"),
            ..Default::default()
        },
    );
    active.sort();
    assert_eq!(active, ["rb", "rc", "rd", "re"], "valid_until is exclusive");
}

#[test]
fn ordering_follows_instants_and_the_rows_read_back_canonical() {
    let dir = tempfile::tempdir().unwrap();
    let path = python_home(&dir);
    let store = open(&path, None);
    // rd ("next tuesday") is not an instant: left as written, it sorts as text.
    assert_eq!(
        query(
            &store,
            TripleQuery {
                order: Order::Asc,
                ..Default::default()
            }
        ),
        ["rb", "re", "rc", "ra", "rd"]
    );
    let canon = |s: &str| Some(s.to_owned());
    assert_eq!(
        raw_timestamps(&path),
        [
            (
                "2026-01-01T05:00:00.000000+00:00".to_owned(),
                canon("2026-01-01T04:00:00.000000+00:00"),
                canon("2026-01-01T06:00:00.000000+00:00")
            ),
            ("2026-01-01T04:00:00.000000+00:00".to_owned(), None, None),
            (
                "2026-01-01T04:30:00.000000+00:00".to_owned(),
                canon("2026-01-01T04:30:00.000000+00:00"),
                None
            ),
            ("next tuesday".to_owned(), None, None),
            ("2026-01-01T04:10:00.000000+00:00".to_owned(), None, None),
        ]
    );
    assert_eq!(
        meta(&path, "timestamp_encoding").as_deref(),
        Some("canonical-utc")
    );
}

#[test]
fn the_upgrade_rewrites_only_timestamps_terms_text_and_the_fts_index_stay_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let path = python_home(&dir);
    let before = untouched_parts(&path);
    drop(open(&path, None));
    assert_eq!(untouched_parts(&path), before);
}

#[test]
fn reopening_an_upgraded_home_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = python_home(&dir);
    drop(open(&path, None));
    checkpoint(&path);
    let before = bytes(&path);
    drop(open(&path, None));
    checkpoint(&path);
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_new_home_is_marked_canonical_at_creation_and_never_scans() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    drop(open(&path, None));
    assert_eq!(
        meta(&path, "timestamp_encoding").as_deref(),
        Some("canonical-utc")
    );
    assert_eq!(
        meta(&path, "timestamp_high_water"),
        None,
        "nothing was scanned"
    );
}

#[test]
fn an_interrupted_timestamp_upgrade_resumes_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let path = python_home(&dir);
    let original = raw_timestamps(&path);
    let opts = SqliteStoreOptions {
        upgrade_batch_rows: 2,
        timestamp_upgrade_stop_after_batches: Some(1),
        ..Default::default()
    };
    drop(SQLiteTripleStore::open(&path, None, opts).unwrap());
    let partial = raw_timestamps(&path);
    assert_eq!(partial[0].0, "2026-01-01T05:00:00.000000+00:00");
    assert_eq!(partial[1].0, "2026-01-01T04:00:00.000000+00:00");
    assert_eq!(
        partial[2..],
        original[2..],
        "rows above the cursor untouched"
    );
    assert_eq!(meta(&path, "timestamp_high_water").as_deref(), Some("2"));
    assert_eq!(meta(&path, "timestamp_encoding"), None);
    // The next open resumes above the cursor and finishes.
    let store = open(&path, None);
    assert_eq!(
        meta(&path, "timestamp_encoding").as_deref(),
        Some("canonical-utc")
    );
    assert_eq!(
        raw_timestamps(&path)[2].0,
        "2026-01-01T04:30:00.000000+00:00"
    );
    assert_eq!(
        query(
            &store,
            TripleQuery {
                until: at("04:00"),
                ..Default::default()
            }
        ),
        ["rb"]
    );
    // The unparseable row was counted once, not once per run.
    assert_eq!(
        meta(&path, "timestamp_unparseable_rows").as_deref(),
        Some("1")
    );
}

#[test]
fn a_value_that_is_not_a_timestamp_stays_as_written_and_warns_once_per_handle() {
    let dir = tempfile::tempdir().unwrap();
    let path = python_home(&dir);
    let store = open(&path, None);
    let warnings = store.take_warnings();
    let fallback: Vec<&String> = warnings
        .iter()
        .filter(|w| w.starts_with("#FALLBACK") && w.contains("not a timestamp"))
        .collect();
    assert_eq!(fallback.len(), 1, "{warnings:?}");
    assert!(fallback[0].contains("1 row(s)"), "{}", fallback[0]);
    assert!(
        !store
            .take_warnings()
            .iter()
            .any(|w| w.contains("not a timestamp")),
        "once per handle"
    );
    assert_eq!(raw_timestamps(&path)[3].0, "next tuesday");
    // A new handle on the upgraded home reports it again, without rescanning.
    drop(store);
    let again = open(&path, None);
    assert_eq!(
        again
            .take_warnings()
            .iter()
            .filter(|w| w.contains("1 row(s)") && w.contains("not a timestamp"))
            .count(),
        1
    );
}
