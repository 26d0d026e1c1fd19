//! Interop with a live Python AbstractMemory 0.3.2: a home the oracle wrote
//! opens here, takes a `rewrite_digest`, and is still read by 0.3.2: the
//! rewritten row carries its new words (and 0.3.2's own keyword index finds
//! them, no longer the old ones), every other row is byte for byte as 0.3.2
//! wrote it, and its journal still opens.
//!
//! Needs `AM_ORACLE_PYTHON` (`cargo xtask test` sets it). Spec: api.md
//! "Understanding: in-place rewrites and versions" ("Backends": a SQLite
//! store whose journal shares its file); stores.md "Shared behavior".

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::RewriteDigest;
use am_system::{MemorySystem, Outcome};
use serde_json::{Value, json};
use std::sync::Arc;

fn oracle(mode: &str, home: &std::path::Path) -> Value {
    let python = std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: this interop test needs a python with abstractmemory==0.3.2 \
             (`cargo xtask test` sets it)"
        )
    });
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/understanding_interop.py"
    );
    let out = std::process::Command::new(&python)
        .arg(script)
        .arg(mode)
        .arg(home)
        .output()
        .unwrap_or_else(|e| panic!("cannot run AM_ORACLE_PYTHON={python}: {e}"));
    assert!(
        out.status.success(),
        "the oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn rows_by_id(v: &Value) -> std::collections::BTreeMap<String, Value> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["assertion_id"].as_str().unwrap().to_owned(), r.clone()))
        .collect()
}

#[test]
fn a_home_written_by_0_3_2_takes_a_rewrite_and_0_3_2_still_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let ids = oracle("write", &path);
    let first = ids[0].as_str().unwrap().to_owned();
    let before = oracle("read", &path);

    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let system = MemorySystem::over_home(mh);
    let mut args = RewriteDigest::new(
        &first,
        "Quantum lattices hum at dawn.",
        am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada"),
        json!("operator"),
        0,
    );
    args.title = Some("Lattice dawn".into());
    let r = system.rewrite_digest(&args).unwrap();
    assert_eq!(r.outcome, Outcome::Applied, "{r:?}");
    let aid = r.assertion_id.clone().unwrap();
    drop(system);
    drop(home);

    let after = oracle("read", &path);
    let (old, new) = (rows_by_id(&before), rows_by_id(&after));
    assert_eq!(old.len(), new.len(), "no row added or lost");
    for (id, row) in &old {
        if *id == aid {
            let now = &new[id];
            assert_eq!(now["object"], json!("Quantum lattices hum at dawn."));
            assert_eq!(now["attributes"]["title"], json!("Lattice dawn"));
            assert_eq!(now["attributes"]["digest_version"], json!(1));
            assert_eq!(now["subject"], row["subject"], "the graph id stays");
        } else {
            assert_eq!(&new[id], row, "0.3.2 reads row {id} as it wrote it");
        }
    }
    assert_eq!(
        after["new_words"],
        json!([aid]),
        "0.3.2's keyword index finds the new words"
    );
    assert_eq!(before["old_words"], json!([aid]));
    assert_eq!(after["old_words"], json!([]), "and no longer the old ones");
    assert_eq!(after["bindings"], before["bindings"]);
}
