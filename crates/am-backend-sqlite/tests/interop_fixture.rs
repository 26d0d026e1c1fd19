//! Interop with a home written by the Python AbstractMemory 0.3.2
//! (`../shared/fixtures/python-0.3.2-home/`, written by `make_home.py` beside it):
//! a copy opens, upgrades its JSON-text vectors to float32 BLOBs keeping every row
//! and every term byte-identical, and answers what the Python session recorded in
//! `make_home.log.json`.
//! Spec: stores.md "SQLiteTripleStore"; troubleshooting "Opening an older home".

mod common;

use am_triples::{EmbeddingPin, TripleQuery, TripleStore};
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURE_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/python-0.3.2-home"
);

fn fixture(name: &str) -> PathBuf {
    Path::new(FIXTURE_DIR).join(name)
}

/// The raw `triples` rows the Python session dumped (`home-0.3.2-rows.jsonl`).
fn dumped_rows() -> Vec<serde_json::Map<String, Value>> {
    let text = std::fs::read_to_string(fixture("home-0.3.2-rows.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["table"] == "triples" && v.get("row").is_some())
        .map(|v| v["row"].as_object().unwrap().clone())
        .collect()
}

fn log() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("make_home.log.json")).unwrap()).unwrap()
}

fn copy_home(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("home-0.3.2.sqlite3");
    std::fs::copy(fixture("home-0.3.2.sqlite3"), &path).unwrap();
    // The fixture is read-only on disk; the copy is ours to upgrade.
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    #[allow(
        clippy::permissions_set_readonly_false,
        reason = "a private temporary copy"
    )]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).unwrap();
    path
}

const TERM_COLUMNS: [&str; 13] = [
    "assertion_id",
    "subject",
    "predicate",
    "object",
    "scope",
    "owner_id",
    "observed_at",
    "valid_from",
    "valid_until",
    "confidence",
    "provenance_json",
    "attributes_json",
    "text",
];

#[test]
fn a_python_home_opens_upgrades_its_vectors_and_keeps_every_row_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_home(&dir);
    let store = open(&path, Some(tiny()));
    let dumped = dumped_rows();
    assert_eq!(dumped.len(), 8);
    assert_eq!(store.row_count().unwrap(), 8);
    let c = rusqlite::Connection::open(&path).unwrap();
    for d in &dumped {
        let rowid = d["_rowid"].as_i64().unwrap();
        for col in TERM_COLUMNS {
            let got: rusqlite::types::Value = c
                .query_row(
                    &format!("SELECT {col} FROM triples WHERE rowid = ?1"),
                    [rowid],
                    |r| r.get(0),
                )
                .unwrap();
            let want = match &d[col] {
                Value::Null => rusqlite::types::Value::Null,
                Value::String(s) => rusqlite::types::Value::Text(s.clone()),
                Value::Number(n) => rusqlite::types::Value::Real(n.as_f64().unwrap()),
                other => panic!("unexpected dumped value {other}"),
            };
            assert_eq!(got, want, "row {rowid} column {col}");
        }
        let (ty, blob): (String, Option<Vec<u8>>) = c
            .query_row(
                "SELECT typeof(embedding), CASE WHEN typeof(embedding) = 'blob' THEN embedding END FROM triples WHERE rowid = ?1",
                [rowid],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        match d["embedding"].as_str() {
            None => assert_eq!(ty, "null", "row {rowid} stays vectorless"),
            Some(json) => {
                assert_eq!(ty, "blob", "row {rowid}");
                let want: Vec<f64> = serde_json::from_str(json).unwrap();
                let got: Vec<f32> = blob
                    .unwrap()
                    .chunks(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                let want32: Vec<f32> = want.iter().map(|x| *x as f32).collect();
                assert_eq!(got, want32, "row {rowid}");
            }
        }
    }
    let meta = |k: &str| {
        raw_opt_text(
            &path,
            &format!("SELECT value FROM triples_meta WHERE key = '{k}'"),
        )
    };
    assert_eq!(meta("vector_encoding").as_deref(), Some("float32-blob"));
    assert_eq!(
        meta("fts_high_water").as_deref(),
        Some("8"),
        "the keyword index was already current"
    );
    // The journal's tables are untouched by the store.
    assert_eq!(
        raw_i64(&path, "SELECT value FROM memj_seq WHERE id = 1"),
        log()["current_seq"].as_i64().unwrap()
    );
}

#[test]
fn a_python_home_answers_what_the_python_session_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_home(&dir);
    let store = open(&path, Some(tiny()));
    let log = log();
    // The pin the session read back.
    let pin: EmbeddingPin = serde_json::from_value(log["embedding_pin"].clone()).unwrap();
    assert_eq!(store.embedding_pin().unwrap(), Some(pin));
    // Each formed record's digest row, found by its record id (structured read),
    // is the handle the session's reconstruct returned for it, with its kind.
    let handles: Vec<(String, String)> = log["reconstruct"]["handles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h[0].as_str().unwrap().to_owned(),
                h[1].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for rid in log["record_ids"].as_array().unwrap() {
        let q = TripleQuery {
            subject: Some(rid.as_str().unwrap().into()),
            predicate: Some("dcterms:abstract".into()),
            scope: Some("session".into()),
            owner_id: Some("s1".into()),
            ..Default::default()
        };
        let got = store.query(&q).unwrap();
        assert_eq!(got.len(), 1, "{rid}");
        let id = got[0].assertion_id.clone().unwrap();
        let kind = got[0].attributes["record_kind"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            handles.contains(&(id.clone(), kind.clone())),
            "{rid}: {id} {kind}"
        );
    }
    // The vector channel of the logged reconstruct ("fusion energy report")
    // scored the episode, then the lesson: the same two lead our vector query.
    let with_vector: Vec<&str> = log["reconstruct"]["handles"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h[3].get("vector").is_some())
        .map(|h| h[0].as_str().unwrap())
        .collect();
    let q = TripleQuery {
        query_text: Some("fusion energy report".into()),
        limit: 0,
        ..Default::default()
    };
    let got = store.query(&q).unwrap();
    let ids: Vec<&str> = got
        .iter()
        .map(|a| a.assertion_id.as_deref().unwrap())
        .collect();
    assert_eq!(&ids[..with_vector.len()], with_vector.as_slice());
    // Edge rows never carry vectors: five digest rows rank, no more.
    assert_eq!(ids.len(), 5);
    // Python 0.3.2 scored these with its f64 JSON vectors (0.5892556509887897 for
    // the episode, from the oracle); the float32 BLOBs agree to float32 precision.
    let episode = got[0].attributes["_retrieval"]["score"].as_f64().unwrap();
    assert!(
        (episode - 0.589_255_650_988_789_7).abs() < 1e-6,
        "{episode}"
    );
    // Our object rule finds the capitalised literal digest (0.3.2's SQLite store
    // lowercases the query object and misses it).
    let q = TripleQuery {
        object: Some("Alice wrote the fusion energy report on Tuesday.".into()),
        ..Default::default()
    };
    let got = store.query(&q).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].assertion_id.as_deref(), Some(with_vector[0]));
}
