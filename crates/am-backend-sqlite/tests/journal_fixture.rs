//! The journal of a home written by AbstractMemory 0.3.2 reads back exactly: its
//! seq high-water mark, every record of the six families, the folds and the
//! counters, as the Python oracle read them (`journal_data/python-0.3.2-replay.json`,
//! written by `journal_data/dump_replay.py`) and as the session logged them
//! (`make_home.log.json`). The triples table is never touched.

use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_journal::EventKind;
use am_journal::{BindingFilter, EventFilter, MemoryEvent, MemoryJournal, ValenceFilter};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const FIXTURE_DIR: &str = "../../../shared/fixtures/python-0.3.2-home";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(FIXTURE_DIR)
        .join(name)
}

fn load_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn expected() -> Value {
    load_json(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/journal_data/python-0.3.2-replay.json"),
    )
}

/// A writable copy of the fixture home in a fresh temporary directory.
fn copy_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("home-0.3.2.sqlite3");
    std::fs::copy(fixture("home-0.3.2.sqlite3"), &dst).unwrap();
    let mut perms = std::fs::metadata(&dst).unwrap().permissions();
    #[allow(
        clippy::permissions_set_readonly_false,
        reason = "the fixture is read-only; the copy must be writable"
    )]
    perms.set_readonly(false);
    std::fs::set_permissions(&dst, perms).unwrap();
    (dir, dst)
}

fn open(path: &Path) -> SQLiteJournal {
    let home = SqliteHome::open(path).unwrap();
    SQLiteJournal::open(&home).unwrap()
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

#[test]
fn python_home_seq_high_water_is_30() {
    let (_dir, path) = copy_home();
    let j = open(&path);
    let log = load_json(&fixture("make_home.log.json"));
    assert_eq!(j.current_seq().unwrap(), 30);
    assert_eq!(log["current_seq"], json!(30));
}

#[test]
fn python_home_replays_every_record_exactly() {
    let (_dir, path) = copy_home();
    let j = open(&path);
    let got: Vec<Value> = j
        .replay_records(0, None)
        .unwrap()
        .iter()
        .map(|r| json!({"family": r.family(), "record": to_value(r)}))
        .collect();
    let want = expected()["records"].as_array().unwrap().clone();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
}

#[test]
fn python_home_readers_match_the_oracle() {
    let (_dir, path) = copy_home();
    let j = open(&path);
    let want = expected();
    let bindings: Vec<Value> = j
        .bindings(&BindingFilter::default())
        .unwrap()
        .iter()
        .map(to_value)
        .collect();
    assert_eq!(Value::Array(bindings), want["bindings_folded"]);
    let mut f = EventFilter::new("session", "s1");
    f.limit = 0;
    let events: Vec<Value> = j.events(&f).unwrap().iter().map(to_value).collect();
    assert_eq!(Value::Array(events), want["events_session_s1"]);
    let valence: Vec<Value> = j
        .valence_events(&ValenceFilter::new("session", "s1"))
        .unwrap()
        .iter()
        .map(to_value)
        .collect();
    assert_eq!(Value::Array(valence), want["valence_session_s1"]);
}

#[test]
fn python_home_counts_match_the_oracle_at_every_anchor() {
    let (_dir, path) = copy_home();
    let j = open(&path);
    let want = expected();
    for (rid, counts) in want["selected_counts"].as_object().unwrap() {
        for (anchor, n) in [None, Some(11), Some(12), Some(13), Some(30)]
            .iter()
            .zip(counts.as_array().unwrap())
        {
            assert_eq!(
                json!(j.selected_count(rid, *anchor).unwrap()),
                *n,
                "selected_count({rid}, {anchor:?})"
            );
        }
    }
    for (key, counts) in want["pair_counts"].as_object().unwrap() {
        let (a, b) = key.split_once('|').unwrap();
        for (anchor, n) in [None, Some(13), Some(14), Some(30)]
            .iter()
            .zip(counts.as_array().unwrap())
        {
            // Order-insensitive: ask with the pair reversed.
            assert_eq!(
                json!(j.pair_selected_count((b, a), *anchor).unwrap()),
                *n,
                "pair({key}, {anchor:?})"
            );
        }
    }
    for (ts, seq) in want["seq_at"].as_object().unwrap() {
        assert_eq!(json!(j.seq_at(ts).unwrap()), *seq, "seq_at({ts})");
    }
}

#[test]
fn python_home_matches_the_session_log() {
    let (_dir, path) = copy_home();
    let j = open(&path);
    let log = load_json(&fixture("make_home.log.json"));
    let by_seq = |seq: i64| {
        j.replay_records(seq - 1, Some(seq))
            .unwrap()
            .into_iter()
            .next()
            .map(|r| (r.family(), to_value(&r)))
            .unwrap()
    };
    let snap = &log["snapshot"];
    assert_eq!(
        by_seq(snap["seq"].as_i64().unwrap()),
        ("snapshot", snap.clone())
    );
    let bind = &log["bind"];
    assert_eq!(
        by_seq(bind["seq"].as_i64().unwrap()),
        ("binding", bind.clone())
    );
    let (family, closure) = by_seq(28);
    assert_eq!(
        (family, &closure["closure_id"]),
        ("closure", &log["close_record"][0])
    );
    let (_, pinned) = by_seq(29);
    assert_eq!(
        (&pinned["event_id"], &pinned["kind"]),
        (&log["reinforce"], &json!("pinned"))
    );
    let (_, refocus) = by_seq(30);
    assert_eq!(
        (&refocus["event_id"], &refocus["kind"]),
        (&log["refocus"], &json!("refocus"))
    );
    let valence_ids: Vec<Value> = j
        .valence_events(&ValenceFilter::new("session", "s1"))
        .unwrap()
        .iter()
        .rev()
        .map(|e| json!(e.event_id))
        .collect();
    let mut want = log["appraise"].as_array().unwrap().clone();
    want.extend(log["appraise_scar"].as_array().unwrap().iter().cloned());
    assert_eq!(valence_ids, want);
}

fn table_dump(path: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| r.get::<_, Option<String>>(0))
        .unwrap()
        .map(|r| r.unwrap().unwrap_or_default())
        .collect()
}

#[test]
fn opening_the_journal_never_touches_the_triples_table() {
    let (_dir, path) = copy_home();
    let dump = "SELECT assertion_id || '|' || observed_at || '|' || COALESCE(text, '') || '|' || COALESCE(attributes_json, '') FROM triples ORDER BY rowid";
    let schema = "SELECT sql FROM sqlite_master WHERE name NOT LIKE 'memj_%' AND name NOT LIKE '%memj%' ORDER BY name";
    let before = (table_dump(&path, dump), table_dump(&path, schema));
    let j = open(&path);
    j.append_events(&[MemoryEvent::on_record(
        EventKind::Selected,
        "r-new",
        "session",
        "s1",
    )])
    .unwrap();
    drop(j);
    assert_eq!((table_dump(&path, dump), table_dump(&path, schema)), before);
}

#[test]
fn memj_tables_are_created_exactly_as_python_creates_them() {
    let (_dir, path) = copy_home();
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = fresh_dir.path().join("fresh.sqlite3");
    drop(open(&fresh));
    let sql = "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE name LIKE '%memj%' ORDER BY name";
    let python = table_dump(&path, sql);
    let ours: Vec<String> = table_dump(&fresh, sql)
        .into_iter()
        .filter(|s| {
            ![
                "memj_versions",
                "memj_selected_log",
                "memj_pair_log",
                "memj_count_logs",
                "idx_memj_events_scoring",
                "idx_memj_bindings_hidden",
            ]
            .iter()
            .any(|t| s.contains(t))
        })
        .collect();
    assert_eq!(ours, python);
}

#[test]
fn appends_after_python_continue_the_axis_and_the_counts() {
    let (_dir, path) = copy_home();
    let j = open(&path);
    let rid = "f68228942d471e4605deea4a0870e5d3";
    let stored = j
        .append_events(&[MemoryEvent::on_record(
            EventKind::Selected,
            rid,
            "session",
            "s1",
        )])
        .unwrap();
    assert_eq!(stored[0].seq, 31);
    assert_eq!(j.selected_count(rid, None).unwrap(), 2);
    assert_eq!(j.selected_count(rid, Some(30)).unwrap(), 1);
    assert_eq!(j.selected_count(rid, Some(31)).unwrap(), 2);
    drop(j);
    let reopened = open(&path);
    assert_eq!(reopened.current_seq().unwrap(), 31);
}
