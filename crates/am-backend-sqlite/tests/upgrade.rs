//! Opening older and foreign files: the `embedding` column added in place, 0.3.x
//! JSON-text vectors upgraded to float32 BLOBs in bounded, resumable
//! transactions, and the refusals (not SQLite, a newer schema) that leave the
//! file's bytes unchanged.
//! Spec: stores.md "SQLiteTripleStore"; troubleshooting "Opening an older home".

mod common;

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{ErrorKind, TripleAssertion, TripleQuery, TripleStore};
use common::*;
use std::path::Path;

fn rows(n: u32) -> Vec<TripleAssertion> {
    (0..n)
        .map(|i| {
            TripleAssertion::new(
                &format!("s{}", i % 5),
                "says",
                &format!("word{} tea river", i % 13),
            )
            .with_scope("session")
            .with_owner("s1")
            .with_observed_at(&format!("2026-03-01T00:{:02}:00Z", i % 60))
            .with_id(&format!("r{i:03}"))
        })
        .collect()
}

/// Turn a home written by this code into a 0.3.x one: JSON-text vectors (as
/// Python's `json.dumps` of the f64 values writes them) and no upgrade keys.
fn make_json_home(path: &Path, n: u32) {
    let store = open(path, Some(tiny()));
    store.add(&rows(n)).unwrap();
    drop(store);
    let c = rusqlite::Connection::open(path).unwrap();
    let e = TinyEmbedder::default();
    let texts: Vec<(i64, String)> = c
        .prepare("SELECT rowid, text FROM triples ORDER BY rowid")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (rowid, text) in texts {
        let json = serde_json::to_string(&e.embed_f64(&text)).unwrap();
        c.execute(
            "UPDATE triples SET embedding = ?1 WHERE rowid = ?2",
            rusqlite::params![json, rowid],
        )
        .unwrap();
    }
    c.execute("DELETE FROM triples_meta WHERE key IN ('vector_encoding', 'vector_blob_high_water', 'schema_version')", []).unwrap();
}

fn types(path: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(path).unwrap();
    c.prepare("SELECT typeof(embedding) FROM triples ORDER BY rowid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn meta(path: &Path, key: &str) -> Option<String> {
    raw_opt_text(
        path,
        &format!("SELECT value FROM triples_meta WHERE key = '{key}'"),
    )
}

#[test]
fn a_file_from_before_the_embedding_column_gets_it_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE triples (assertion_id TEXT PRIMARY KEY, subject TEXT NOT NULL, predicate TEXT NOT NULL,
              object TEXT NOT NULL, scope TEXT NOT NULL, owner_id TEXT, observed_at TEXT NOT NULL, valid_from TEXT,
              valid_until TEXT, confidence REAL, provenance_json TEXT, attributes_json TEXT, text TEXT);
             INSERT INTO triples VALUES ('old-1', 'alice', 'knows', 'bob', 'run', '', '2025-01-01T00:00:00.000000+00:00',
              NULL, NULL, 0.5, '{\"source\":\"v0\"}', '{}', 'alice knows bob');",
        )
        .unwrap();
    }
    let store = open(&path, Some(tiny()));
    let cols = raw_i64(
        &path,
        "SELECT COUNT(*) FROM pragma_table_info('triples') WHERE name = 'embedding'",
    );
    assert_eq!(cols, 1);
    let got = store.query(&TripleQuery::default()).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].owner_id.as_deref(), got[0].confidence),
        (None, Some(0.5))
    );
    assert_eq!(got[0].provenance["source"], "v0");
    // The old row stays vectorless: vector queries skip it.
    let q = TripleQuery {
        query_text: Some("alice".into()),
        ..Default::default()
    };
    assert!(store.query(&q).unwrap().is_empty());
    // The keyword index was backfilled at open.
    assert_eq!(
        raw_i64(
            &path,
            "SELECT COUNT(*) FROM triples_fts WHERE triples_fts MATCH 'alice'"
        ),
        1
    );
    store
        .add(&[TripleAssertion::new("alice", "likes", "tea")])
        .unwrap();
    assert_eq!(store.query(&q).unwrap().len(), 1);
}

#[test]
fn json_text_vectors_are_upgraded_to_float32_blobs_and_answers_stay_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    make_json_home(&path, 40);
    assert_eq!(raw_i64(&path, "SELECT COUNT(*) FROM triples"), 40);
    assert!(types(&path).iter().all(|t| t == "text"));
    let store = open(&path, Some(tiny()));
    assert!(types(&path).iter().all(|t| t == "blob"));
    assert_eq!(
        meta(&path, "vector_encoding").as_deref(),
        Some("float32-blob")
    );
    assert_eq!(meta(&path, "vector_blob_high_water").as_deref(), Some("40"));
    let e = TinyEmbedder::default();
    for a in rows(40) {
        let id = a.assertion_id.clone().unwrap();
        let v = store.stored_vector(&id).unwrap().unwrap();
        let text = am_triples::canonical_text(&a.canonicalized().unwrap());
        let want: Vec<f32> = e.embed_f64(&text).iter().map(|x| *x as f32).collect();
        assert_eq!(v, want, "{id}");
    }
}

#[test]
fn an_interrupted_upgrade_resumes_where_it_stopped_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    make_json_home(&path, 40);
    // The first open stops after one batch of 7 rows, as a kill would.
    let opts = SqliteStoreOptions {
        upgrade_batch_rows: 7,
        upgrade_stop_after_batches: Some(1),
        ..Default::default()
    };
    drop(SQLiteTripleStore::open(&path, Some(tiny()), opts).unwrap());
    let t = types(&path);
    assert!(
        t[..7].iter().all(|x| x == "blob") && t[7..].iter().all(|x| x == "text"),
        "{t:?}"
    );
    assert_eq!(meta(&path, "vector_blob_high_water").as_deref(), Some("7"));
    assert_eq!(meta(&path, "vector_encoding"), None);
    // A reader in between sees every vector (blob or text) and the same ranking.
    let reference = {
        let copy = dir.path().join("reference.sqlite3");
        make_json_home(&copy, 40);
        let s = open(&copy, Some(tiny()));
        let q = TripleQuery {
            query_text: Some("word3 tea".into()),
            limit: 0,
            ..Default::default()
        };
        s.query(&q).unwrap()
    };
    let gen_before = meta(&path, "vector_generation");
    let store = open(&path, Some(tiny()));
    assert!(types(&path).iter().all(|t| t == "blob"));
    assert_eq!(
        meta(&path, "vector_encoding").as_deref(),
        Some("float32-blob")
    );
    assert_ne!(
        meta(&path, "vector_generation"),
        gen_before,
        "the upgrade bumps vector_generation"
    );
    let q = TripleQuery {
        query_text: Some("word3 tea".into()),
        limit: 0,
        ..Default::default()
    };
    assert_eq!(store.query(&q).unwrap(), reference);
    drop(store);
    // Opening again changes nothing.
    checkpoint(&path);
    let before = bytes(&path);
    drop(open(&path, Some(tiny())));
    checkpoint(&path);
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_json_value_float32_cannot_hold_stays_text_and_the_scan_serves_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    make_json_home(&path, 5);
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "UPDATE triples SET embedding = '[1e300, 1.0]' WHERE assertion_id = 'r002'",
            [],
        )
        .unwrap();
    }
    let store = open(&path, None);
    assert_eq!(types(&path), ["blob", "blob", "text", "blob", "blob"]);
    assert_eq!(store.stored_vector("r002").unwrap(), None);
    let q = TripleQuery {
        query_vector: Some(vec![1.0; 16]),
        limit: 0,
        ..Default::default()
    };
    assert_eq!(store.query(&q).unwrap().len(), 5);
    assert_eq!(store.vector_engine(), "reference-linear-scan");
    assert_eq!(store.take_warnings().len(), 1);
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.sqlite3");
    let content = b"These are my notes, definitely not a database.\n".repeat(200);
    std::fs::write(&path, &content).unwrap();
    let err = SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    assert!(err.to_string().contains("not an SQLite home"), "{err}");
    assert_eq!(bytes(&path), content);
    assert!(!dir.path().join("notes.sqlite3-wal").exists());
}

#[test]
fn a_home_declaring_a_newer_schema_is_refused_and_left_unchanged() {
    for (key, value) in [
        ("schema_version", "99"),
        ("vector_encoding", "float16-blob"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = home_path(&dir);
        let store = open(&path, Some(tiny()));
        store.add(&rows(3)).unwrap();
        drop(store);
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute(
                "INSERT OR REPLACE INTO triples_meta (key, value) VALUES (?1, ?2)",
                [key, value],
            )
            .unwrap();
        }
        checkpoint(&path);
        let before = bytes(&path);
        let err = SQLiteTripleStore::open(&path, Some(tiny()), SqliteStoreOptions::default())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Refused, "{key}");
        assert!(err.to_string().contains(value), "{err}");
        checkpoint(&path);
        assert_eq!(bytes(&path), before, "{key}");
    }
}

/// The child half of the kill test: when `AM_UPGRADE_CHILD_HOME` is set, open
/// that home with one-row upgrade batches (so a kill lands mid-way) and return.
#[test]
fn upgrade_child_process() {
    if let Ok(home) = std::env::var("AM_UPGRADE_CHILD_HOME") {
        let opts = SqliteStoreOptions {
            upgrade_batch_rows: 1,
            ..Default::default()
        };
        drop(SQLiteTripleStore::open(Path::new(&home), None, opts).unwrap());
    }
}

#[test]
fn an_upgrade_killed_with_sigkill_resumes_on_reopen_with_every_row_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    make_json_home(&path, 300);
    let reference = {
        let copy = dir.path().join("reference.sqlite3");
        make_json_home(&copy, 300);
        let s = open(&copy, Some(tiny()));
        let q = TripleQuery {
            query_text: Some("word7 river".into()),
            limit: 0,
            ..Default::default()
        };
        (
            s.query(&q).unwrap(),
            s.query(&TripleQuery {
                limit: 0,
                ..Default::default()
            })
            .unwrap(),
        )
    };
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "upgrade_child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("AM_UPGRADE_CHILD_HOME", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the upgrade has visibly started, then kill -9 (wherever it is:
    // mid-batch or between batches, the reopen below must finish the job).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let started = raw_opt_text(
            &path,
            "SELECT value FROM triples_meta WHERE key = 'vector_blob_high_water'",
        )
        .is_some();
        if started || std::time::Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().ok(); // SIGKILL on Unix
    child.wait().unwrap();
    println!(
        "killed the upgrade at vector_blob_high_water = {:?} of 300 rows",
        meta(&path, "vector_blob_high_water")
    );
    let store = open(&path, Some(tiny()));
    assert!(types(&path).iter().all(|t| t == "blob"));
    assert_eq!(
        meta(&path, "vector_encoding").as_deref(),
        Some("float32-blob")
    );
    let q = TripleQuery {
        query_text: Some("word7 river".into()),
        limit: 0,
        ..Default::default()
    };
    assert_eq!(store.query(&q).unwrap(), reference.0);
    assert_eq!(
        store
            .query(&TripleQuery {
                limit: 0,
                ..Default::default()
            })
            .unwrap(),
        reference.1
    );
}
