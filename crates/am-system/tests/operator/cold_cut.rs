//! `journal_cold_cut` / `verify_cold_cut` (am-backend-sqlite `cold_cut`): a
//! home file rebuilt with its attention-event mass cut, and the parity
//! checks between the two files. A SQLite-only tool: it works on the home
//! file (the in-memory stack has no file to rebuild).
//!
//! The differential (`tests/oracle/cold_cut_home.py`): 0.3.2 lives a home
//! with vectors and two retracted records and cuts it six ways; we cut the
//! same file the same six ways and compare the reports value for value (the
//! byte sizes by presence: the files' page layouts are each SQLite's own),
//! 0.3.2's checks by name with their numbers (the compaction record's `at`
//! aside), and what each rebuilt file holds (its events' seqs, the rows
//! holding a vector, the high water, traces and snapshots). 0.3.2's own
//! `verify_cold_cut` is then run on each file we cut.

use crate::common::oracle::{first_difference, run_generator};
use am_backend_sqlite::cold_cut::{ColdCut, PARTIAL_SUFFIX, journal_cold_cut, verify_cold_cut};
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::operator::MindMass;
use am_system::{MemoryRecordInput, MemorySystem, RememberMany, SystemOptions};
use rusqlite::Connection;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

const AT: &str = "2026-02-01T00:00:00+00:00";

struct Oracle {
    dir: tempfile::TempDir,
    out: Value,
}

fn oracle() -> &'static Oracle {
    static ORACLE: OnceLock<Oracle> = OnceLock::new();
    ORACLE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = run_generator(
            "cold_cut_home.py",
            &["build", "7", dir.path().to_str().unwrap()],
        );
        Oracle { dir, out }
    })
}

fn args_of(call: &Value) -> ColdCut {
    let mut a = ColdCut::new(call["archive_ref"].as_str().unwrap());
    a.cut_seq = call["cut_seq"].as_i64().unwrap_or(0);
    a.pair_cuts = call["pair_cuts"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_owned(),
                        p[1].as_str().unwrap().to_owned(),
                        p[2].as_i64().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    a.exported_stream_ref = call["exported_stream_ref"].as_str().map(str::to_owned);
    a.null_retired_embeddings = call["null_retired_embeddings"].as_bool().unwrap_or(true);
    a.cut_traces = call["cut_traces"].as_bool().unwrap_or(false);
    a
}

fn contents(path: &Path) -> Value {
    let c = Connection::open(path).unwrap();
    let col = |sql: &str| -> Vec<Value> {
        let mut s = c.prepare(sql).unwrap();
        s.query_map([], |r| r.get::<_, rusqlite::types::Value>(0))
            .unwrap()
            .map(|v| match v.unwrap() {
                rusqlite::types::Value::Integer(i) => json!(i),
                rusqlite::types::Value::Text(t) => json!(t),
                other => json!(format!("{other:?}")),
            })
            .collect()
    };
    let one = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
    json!({
        "event_seqs": col("SELECT seq FROM memj_events ORDER BY seq"),
        "vectored": col("SELECT assertion_id FROM triples WHERE embedding IS NOT NULL ORDER BY assertion_id"),
        "high_water": one("SELECT value FROM memj_seq"),
        "traces": one("SELECT COUNT(*) FROM memj_traces"),
        "snapshots": one("SELECT COUNT(*) FROM memj_snapshots"),
    })
}

/// The source file, copied: the cut reads it, and the test checks it is
/// never written.
fn source_copy(dir: &Path) -> PathBuf {
    let p = dir.join("src.sqlite3");
    std::fs::copy(oracle().dir.path().join("rust.sqlite3"), &p).unwrap();
    p
}

fn file_bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

/// 0.3.2's checks, `at` aside (the instant each cut ran).
fn without_at(mut v: Value) -> Value {
    if let Some(cs) = v["checks"].as_array_mut() {
        for c in cs {
            if let Some(m) = c.as_object_mut() {
                m.remove("at");
            }
        }
    }
    v
}

#[test]
fn journal_cold_cut_and_verify_match_abstractmemory_0_3_2_value_for_value() {
    let o = oracle();
    let dir = tempfile::tempdir().unwrap();
    let src = source_copy(dir.path());
    let before = file_bytes(&src);
    assert_eq!(
        contents(&src)["event_seqs"],
        json!(o.out["source"]["event_seqs"])
    );
    let calls = o.out["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 6);
    let mut compared = 0;
    for (i, entry) in calls.iter().enumerate() {
        let call = &entry["call"];
        let dst = dir.path().join(format!("ours-{i}.sqlite3"));
        let got = journal_cold_cut(&src, &dst, &args_of(call), AT);
        if entry.get("error").is_some() {
            let e = got.expect_err(&format!("call {i} {call}: 0.3.2 refused it"));
            assert_eq!(e.kind(), am_triples::ErrorKind::InvalidInput, "call {i}");
            assert!(!dst.exists(), "call {i}: a refused cut left a file");
            // Diverges from 0.3.2 on purpose: its pair guard refuses after
            // it has begun building DST, leaving a half-built file there;
            // ours refuses before anything is written.
            if call["cut_seq"].as_i64().unwrap_or(0) > 0 {
                assert_eq!(
                    entry["dst_exists"],
                    json!(true),
                    "call {i}: 0.3.2's half file"
                );
            } else {
                assert_eq!(entry["dst_exists"], json!(false), "call {i}");
            }
            compared += 1;
            continue;
        }
        let report = serde_json::to_value(got.unwrap()).unwrap();
        let mut theirs = entry["result"].clone();
        for k in ["bytes_before", "bytes_after"] {
            assert!(report[k].as_u64().unwrap() > 0, "call {i}: {k}");
            assert!(theirs[k].as_u64().unwrap() > 0);
            theirs[k] = report[k].clone();
        }
        if let Some(d) = first_difference(&report, &theirs, "") {
            panic!("call {i} {call}: the report differs at {d}\n ours: {report}\n 0.3.2: {theirs}");
        }
        assert_eq!(
            contents(&dst),
            entry["contents"],
            "call {i}: what the rebuilt file holds"
        );
        let ours = serde_json::to_value(verify_cold_cut(&src, &dst).unwrap()).unwrap();
        assert_eq!(ours["ok"], json!(true), "call {i}: {ours}");
        let ours = without_at(ours);
        let theirs = without_at(entry["verify"].clone());
        let their_checks = theirs["checks"].as_array().unwrap();
        let our_checks = ours["checks"].as_array().unwrap();
        // 0.3.2's checks first, in its order, value for value; then ours
        // for the tables 0.3.2 does not know, each holding.
        assert_eq!(
            &our_checks[..their_checks.len()],
            &their_checks[..],
            "call {i}: 0.3.2's checks"
        );
        for c in &our_checks[their_checks.len()..] {
            assert!(c["check"].as_str().unwrap().ends_with("_row_parity"), "{c}");
            assert_eq!(c["ok"], json!(true), "{c}");
        }
        // 0.3.2's own verify on the file we cut.
        let cross = run_generator(
            "cold_cut_home.py",
            &["verify", src.to_str().unwrap(), dst.to_str().unwrap()],
        );
        assert_eq!(
            cross["ok"],
            json!(true),
            "call {i}: 0.3.2 on our file: {cross}"
        );
        assert_eq!(
            without_at(cross)["checks"],
            json!(their_checks),
            "call {i}: 0.3.2 reads our file as its own"
        );
        compared += 1;
    }
    assert_eq!(compared, 6);
    assert_eq!(file_bytes(&src), before, "the source file was written");
}

/// A home of ours with recalls (events), two pairs and a closed record.
fn lived_home(dir: &Path) -> PathBuf {
    let path = dir.join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let sys = MemorySystem::over_home_with_options(mh, SystemOptions::default()).unwrap();
    for (pair, n) in [(("life", "ada"), 12), (("diary", "ada"), 3)] {
        let recs = (0..n)
            .map(|i| {
                MemoryRecordInput::new(
                    am_system::RecordKind::Episode,
                    &format!("Kiln day {i}"),
                    &format!("fired the kiln on day {i} and the glaze held"),
                )
            })
            .collect();
        let ids = sys
            .remember_many(&RememberMany::new(
                recs,
                pair.0,
                pair.1,
                &format!("{}-k", pair.0),
            ))
            .unwrap()
            .value;
        for id in ids.iter().take(n / 2) {
            sys.reinforce(&am_system::Reinforce::new(
                id,
                "it mattered",
                pair.0,
                pair.1,
            ))
            .unwrap();
        }
    }
    let first = sys
        .store()
        .query(&am_triples::TripleQuery {
            scope: Some("life".into()),
            limit: 1,
            ..am_triples::TripleQuery::default()
        })
        .unwrap();
    let retired = first[0].subject.clone();
    sys.close_record(&am_system::CloseRecord::new(
        &retired,
        am_journal::ClosureKind::Retract,
        "a copy",
    ))
    .unwrap();
    drop(sys);
    path
}

fn seq_of(path: &Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row("SELECT value FROM memj_seq", [], |r| r.get(0))
        .unwrap()
}

fn events(path: &Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM memj_events", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_cut_leaves_the_source_untouched_and_the_rebuilt_home_opens_and_appends_above_the_high_water() {
    let dir = tempfile::tempdir().unwrap();
    let src = lived_home(dir.path());
    let before = file_bytes(&src);
    let high = seq_of(&src);
    let n = events(&src);
    assert!(n >= 6, "the home has events to cut ({n})");
    let dst = dir.path().join("cut.sqlite3");
    let mut args = ColdCut::new("archive://ada-whole");
    args.cut_seq = high;
    args.pair_cuts = vec![
        ("life".into(), "ada".into(), high),
        ("diary".into(), "ada".into(), 0),
    ];
    let r = journal_cold_cut(&src, &dst, &args, AT).unwrap();
    assert_eq!((r.events_before, r.events_after), (n, 0));
    assert_eq!(file_bytes(&src), before, "the source was written");
    assert!(!PathBuf::from(format!("{}{PARTIAL_SUFFIX}", dst.display())).exists());
    let v = verify_cold_cut(&src, &dst).unwrap();
    assert!(v.ok, "{v:?}");
    assert!(
        v.checks
            .iter()
            .any(|c| c.check == "memj_versions_row_parity" && c.ok),
        "this port's own tables are checked too"
    );
    // The rebuilt file is a home: it opens, its mass report reads the cut,
    // and the next record lands above the old high water.
    let home = SqliteHome::open(&dst).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let sys = MemorySystem::over_home_with_options(mh, SystemOptions::default()).unwrap();
    let mass = sys
        .mind_mass_report(
            &serde_json::from_value::<MindMass>(json!({"scopes": [["life", "ada"]]})).unwrap(),
            None,
        )
        .unwrap();
    let c = serde_json::to_value(&mass).unwrap()["journal"]["compaction"].clone();
    assert_eq!(c["available"], json!(true), "{c}");
    assert_eq!(c["cut_seq"], json!(high));
    assert_eq!(c["archive_ref"], json!("archive://ada-whole"));
    sys.remember_many(&RememberMany::new(
        vec![MemoryRecordInput::new(
            am_system::RecordKind::Episode,
            "After the cut",
            "the first thing remembered in the smaller home",
        )],
        "life",
        "ada",
        "after",
    ))
    .unwrap();
    assert!(sys.current_seq().unwrap() > high);
}

#[test]
fn a_second_cut_appends_its_record_and_keeps_the_first_cuts_archive_ref() {
    let dir = tempfile::tempdir().unwrap();
    let src = lived_home(dir.path());
    let once = dir.path().join("once.sqlite3");
    let twice = dir.path().join("twice.sqlite3");
    journal_cold_cut(&src, &once, &ColdCut::new("archive://first"), AT).unwrap();
    journal_cold_cut(&once, &twice, &ColdCut::new("archive://second"), AT).unwrap();
    let raw: String = Connection::open(&twice)
        .unwrap()
        .query_row(
            "SELECT value FROM triples_meta WHERE key = 'compaction'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let history: Value = serde_json::from_str(&raw).unwrap();
    let refs: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["archive_ref"].as_str().unwrap())
        .collect();
    assert_eq!(refs, ["archive://first", "archive://second"]);
}

#[test]
fn refused_cuts_write_nothing_at_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let src = lived_home(dir.path());
    let before = file_bytes(&src);
    let dst = dir.path().join("cut.sqlite3");
    let high = seq_of(&src);
    let mut unnamed = ColdCut::new("archive://a");
    unnamed.cut_seq = high;
    unnamed.pair_cuts = vec![("life".into(), "ada".into(), high)];
    for (what, args) in [
        ("a blank archive_ref", ColdCut::new("  ")),
        ("a global cut naming one pair of two", unnamed),
    ] {
        let e = journal_cold_cut(&src, &dst, &args, AT).unwrap_err();
        assert_eq!(e.kind(), am_triples::ErrorKind::InvalidInput, "{what}: {e}");
        assert!(!dst.exists(), "{what}");
        if what.contains("pair") {
            assert!(
                e.to_string().contains("diary|ada"),
                "it names the pair: {e}"
            );
        }
    }
    std::fs::write(&dst, b"someone's file").unwrap();
    let e = journal_cold_cut(&src, &dst, &ColdCut::new("archive://a"), AT).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(std::fs::read(&dst).unwrap(), b"someone's file");
    assert_eq!(file_bytes(&src), before);
}

#[test]
fn verify_names_the_table_and_its_numbers_when_the_rebuilt_file_lost_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let src = lived_home(dir.path());
    let dst = dir.path().join("cut.sqlite3");
    journal_cold_cut(&src, &dst, &ColdCut::new("archive://a"), AT).unwrap();
    let c = Connection::open(&dst).unwrap();
    let bindings: i64 = c
        .query_row("SELECT COUNT(*) FROM memj_bindings", [], |r| r.get(0))
        .unwrap();
    c.execute(
        "DELETE FROM memj_bindings WHERE seq = (SELECT MAX(seq) FROM memj_bindings)",
        [],
    )
    .unwrap();
    drop(c);
    let v = verify_cold_cut(&src, &dst).unwrap();
    assert!(!v.ok);
    let failed: Vec<_> = v.checks.iter().filter(|c| !c.ok).collect();
    let names: Vec<&str> = failed.iter().map(|c| c.check.as_str()).collect();
    assert_eq!(names, ["memj_bindings_row_parity"]);
    assert_eq!(failed[0].detail["src"], json!(bindings));
    assert_eq!(failed[0].detail["dst"], json!(bindings - 1));
}
