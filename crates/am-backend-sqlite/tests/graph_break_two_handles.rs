//! Two handles (two stores, two connections) on one SQLite home writing through
//! the graph at once, while a third reads the change feed: no revision is
//! skipped or repeated across feed pages, and one revision id retried from both
//! handles is applied once (the other handle gets `applied = false`).
//!
//! Spec: api.md `MemoryGraph.revisions` ("Lossless: a revision's position is
//! allocated inside its write transaction and writers are serialized, so no
//! revision is skipped or repeated across calls, also while other connections
//! append"); `apply_revision` step 2 (an id already in the log returns
//! `applied = false`).

use am_backend_sqlite::graph::open_graph;
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_graph::Revision;
use am_graph::graph::MemoryGraph;
use serde_json::json;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

const PER_WRITER: usize = 40;

fn handle(path: &Path) -> MemoryGraph {
    let store =
        Arc::new(SQLiteTripleStore::open(path, None, SqliteStoreOptions::default()).unwrap());
    let journal = Arc::new(SQLiteJournal::open(store.home()).unwrap());
    open_graph(store, Some(journal)).unwrap()
}

fn rev(id: &str, assertion: &str) -> Revision {
    Revision::from_dict(&json!({
        "revision_id": id, "scope": "global", "owner_id": "person:ada", "cause": "ingest",
        "occurred_at": "2026-01-05T09:00:00Z",
        "ops": [{"op": "assert", "payload": {"assertion_id": assertion, "subject": "ex:dana",
            "predicate": "ex:said", "object": format!("ex:{assertion}")}}],
        "provenance": {"sources": [{"kind": "step", "run_id": "run-42", "seq": 3}],
                       "actor": "abstractnote"}
    }))
    .unwrap()
}

#[test]
fn the_change_feed_is_lossless_while_two_connections_append_and_a_shared_id_applies_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mind.sqlite3");
    let reader = handle(&path);
    let writers: Vec<_> = (0..2)
        .map(|k| {
            let g = handle(&path);
            std::thread::spawn(move || {
                let mut applied_shared = 0;
                for i in 0..PER_WRITER {
                    let own =
                        g.apply_revision(&rev(&format!("w{k}-{i}"), &format!("m{k}-{i}")), false);
                    assert!(own.unwrap().applied);
                    let shared =
                        g.apply_revision(&rev(&format!("shared-{i}"), &format!("s-{i}")), false);
                    if shared.unwrap().applied {
                        applied_shared += 1;
                    }
                }
                applied_shared
            })
        })
        .collect();
    let total = 3 * PER_WRITER;
    let mut seen: Vec<(String, i64)> = Vec::new();
    let mut cursor: Option<String> = None;
    let page = |cursor: &mut Option<String>, seen: &mut Vec<(String, i64)>| {
        let (revs, next) = reader.revisions(cursor.as_deref(), 7).unwrap();
        for r in &revs {
            seen.push((r.revision_id().to_owned(), next.parse().unwrap()));
        }
        *cursor = Some(next);
        revs.len()
    };
    while writers.iter().any(|w| !w.is_finished()) {
        page(&mut cursor, &mut seen);
        std::thread::yield_now();
    }
    let applied_shared: usize = writers.into_iter().map(|w| w.join().unwrap()).sum();
    while page(&mut cursor, &mut seen) > 0 {}
    assert_eq!(
        applied_shared, PER_WRITER,
        "each shared id applies once across both handles"
    );
    let ids: Vec<&str> = seen.iter().map(|(id, _)| id.as_str()).collect();
    let unique: HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), total, "every revision read once: {ids:?}");
    assert_eq!(unique.len(), total, "no revision repeated: {ids:?}");
    // The feed is in log order: replaying it from the start gives the same ids.
    let (all, head) = reader.revisions(None, 1000).unwrap();
    assert_eq!(
        all.iter().map(Revision::revision_id).collect::<Vec<_>>(),
        ids
    );
    assert_eq!(head, cursor.unwrap());
}
