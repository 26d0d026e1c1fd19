//! Faults (issue 23 §5): a full disk, and an embedder failing in the middle
//! of a batch, on real SQLite homes.
//!
//! The disk fills through SQLite's `max_page_count` (the file may not grow
//! past its pages; SQLite answers `SQLITE_FULL`, as it does for `ENOSPC`):
//! every write verb is driven until it fails, then the failure must be kind
//! `Storage` naming the home, the home must hold exactly what it held before
//! the call (rows, journal seq, revisions), pass `integrity_check`, answer
//! reads, and take writes again once the limit is lifted (space freed).
//!
//! The embedder is a real HTTP server on 127.0.0.1 (am-embed's test server)
//! that answers the first request of a batch and then stalls, answers
//! garbage or vectors of another dimension: nothing of the formation is
//! stored (no row, no binding, the seq unchanged) and the error names the
//! embedder's model and the home's pin.

#[path = "../../am-embed/tests/support/mod.rs"]
mod support;

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_embed::OpenAICompatTextEmbedder;
use am_journal::MemoryJournal;
use am_system::RecordKind;
use am_system::{
    MemoryRecordInput, MemorySystem, Reconstruct, RememberMany, Stimulus, SystemOptions,
};
use am_triples::{ErrorKind, TextEmbedder, TripleAssertion, TripleQuery, TripleStore};
use rusqlite::Connection;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{Reply, TestServer, openai_ok};

const SCOPE: &str = "faults";
const OWNER: &str = "f";

struct Opened {
    home: SqliteHome,
    store: Arc<SQLiteTripleStore>,
    journal: Arc<SQLiteJournal>,
    system: MemorySystem,
    graph: am_graph::MemoryGraph,
}

fn open(path: &Path, embedder: Option<Arc<dyn TextEmbedder>>) -> am_triples::Result<Opened> {
    let home = SqliteHome::open(path)?;
    let pin = match &embedder {
        Some(e) => Some(am_triples::pin::build_pin(
            Some(&e.model_id().unwrap_or_default()),
            e.dimension(),
            "creation",
            None,
        )?),
        None => None,
    };
    let store = Arc::new(SQLiteTripleStore::with_home(
        &home,
        embedder.clone(),
        SqliteStoreOptions {
            embedding_pin: pin,
            ..SqliteStoreOptions::default()
        },
    )?);
    let journal = Arc::new(SQLiteJournal::open(&home)?);
    let memory_home = SqliteMemoryHome::new(store.clone(), journal.clone())?;
    let system = MemorySystem::over_home_with_options(
        Arc::new(memory_home),
        SystemOptions {
            embedder,
            ..SystemOptions::default()
        },
    )?;
    let graph = am_backend_sqlite::graph::open_graph(store.clone(), Some(journal.clone()))?;
    Ok(Opened {
        home,
        store,
        journal,
        system,
        graph,
    })
}

/// What a refused write must leave unchanged.
#[derive(Debug, PartialEq)]
struct State {
    rows: usize,
    seq: i64,
    bindings: usize,
    revisions: usize,
}

fn state(path: &Path) -> State {
    let c = Connection::open(path).unwrap();
    let n = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or(0);
    State {
        rows: n("SELECT COUNT(*) FROM triples") as usize,
        seq: n("SELECT value FROM memj_seq"),
        bindings: n("SELECT COUNT(*) FROM memj_bindings") as usize,
        revisions: n("SELECT COUNT(*) FROM memg_revisions") as usize,
    }
}

fn integrity_ok(path: &Path) {
    let c = Connection::open(path).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

fn long_text(i: usize, n: usize) -> String {
    (0..n).map(|j| format!("w{i}x{j} ")).collect()
}

fn records(i: usize) -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new(
            RecordKind::Episode,
            &format!("Outage {i}"),
            &long_text(i, 300),
        ),
        MemoryRecordInput::new(
            RecordKind::Lesson,
            &format!("Lesson {i}"),
            &long_text(i + 7, 300),
        )
        .with_edge("derived_from", "local:0"),
    ]
}

fn big_add(i: usize) -> Vec<TripleAssertion> {
    (0..3)
        .map(|j| {
            TripleAssertion::new(&format!("s{i}"), "says", &long_text(i * 3 + j, 400))
                .with_scope(SCOPE)
                .with_owner(OWNER)
        })
        .collect()
}

fn big_revision(i: usize) -> am_graph::Revision {
    am_graph::Revision::from_dict(&serde_json::json!({
        "revision_id": format!("rev-{i}"), "scope": SCOPE, "owner_id": OWNER, "cause": "ingest",
        "occurred_at": "2026-01-05T09:00:00Z",
        "ops": [{"op": "assert", "payload": {"subject": format!("ex:t{i}"),
                 "predicate": "schema:description", "object": long_text(i, 600)}}],
        "provenance": {"sources": [{"kind": "artifact", "artifact_id": format!("note-{i}")}],
                       "actor": "faults"}}))
    .unwrap()
}

fn set_max_pages(home: &SqliteHome, pages: Option<i64>) {
    let conn = home.conn();
    let c = conn.lock().unwrap();
    let n = match pages {
        Some(p) => p,
        None => c
            .query_row("PRAGMA page_count", [], |r| r.get::<_, i64>(0))
            .unwrap(),
    };
    c.pragma_update(None, "max_page_count", n).unwrap();
}

/// Drive `write` until it fails; the failure must be `Storage` naming the
/// home, with the home unchanged by the failing call.
fn write_until_full(
    path: &Path,
    what: &str,
    mut write: impl FnMut(usize) -> am_triples::Result<()>,
) -> usize {
    for i in 0..400 {
        let before = state(path);
        match write(i) {
            Ok(()) => continue,
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Storage, "{what}: {e}");
                let msg = e.to_string();
                assert!(
                    msg.contains(&path.display().to_string()),
                    "{what}: the error does not name the home: {msg}"
                );
                assert_eq!(
                    state(path),
                    before,
                    "{what}: the failing write changed the home"
                );
                return i;
            }
        }
    }
    panic!("{what}: 400 writes fitted under the page limit");
}

fn reads_answer(o: &Opened) {
    let rows = o
        .store
        .query(&TripleQuery {
            scope: Some(SCOPE.into()),
            limit: 5,
            ..TripleQuery::default()
        })
        .unwrap();
    assert!(!rows.is_empty());
    let r = o
        .system
        .reconstruct(&Reconstruct {
            journal: false,
            ..Reconstruct::new(Stimulus::new("outage lesson"), &[(SCOPE, OWNER)])
        })
        .unwrap();
    assert!(!r.handles.is_empty());
    assert!(o.journal.current_seq().unwrap() > 0);
    let (revs, _) = o.graph.revisions(None, 10).unwrap();
    assert!(!revs.is_empty());
}

#[test]
fn a_full_disk_fails_each_write_with_storage_naming_the_home_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.sqlite3");
    let o = open(&path, None).unwrap();
    // Something of every kind first, then the disk is as full as the file.
    o.system
        .remember_many(&RememberMany::new(records(0), SCOPE, OWNER, "k0"))
        .unwrap();
    o.graph.apply_revision(&big_revision(0), false).unwrap();
    set_max_pages(&o.home, None);
    let formed = write_until_full(&path, "remember_many", |i| {
        o.system
            .remember_many(&RememberMany::new(
                records(i + 1),
                SCOPE,
                OWNER,
                &format!("k{}", i + 1),
            ))
            .map(|_| ())
    });
    let added = write_until_full(&path, "add", |i| o.store.add(&big_add(i)).map(|_| ()));
    let revised = write_until_full(&path, "apply_revision", |i| {
        o.graph
            .apply_revision(&big_revision(i + 1), false)
            .map(|_| ())
    });
    let recalled = write_until_full(&path, "a journaled reconstruct", |i| {
        o.system
            .reconstruct(&Reconstruct {
                trace_id: Some(format!("t{i}")),
                ..Reconstruct::new(Stimulus::new(&long_text(i, 50)), &[(SCOPE, OWNER)])
            })
            .map(|_| ())
    });
    eprintln!("fitted: {formed} formations, {added} adds, {revised} revisions, {recalled} recalls");
    integrity_ok(&path);
    reads_answer(&o);
}

#[test]
fn a_home_that_filled_up_reopens_answers_reads_and_takes_writes_once_space_is_freed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.sqlite3");
    let o = open(&path, None).unwrap();
    o.system
        .remember_many(&RememberMany::new(records(0), SCOPE, OWNER, "k0"))
        .unwrap();
    o.graph.apply_revision(&big_revision(0), false).unwrap();
    set_max_pages(&o.home, None);
    let n = write_until_full(&path, "remember_many", |i| {
        o.system
            .remember_many(&RememberMany::new(
                records(i + 1),
                SCOPE,
                OWNER,
                &format!("k{}", i + 1),
            ))
            .map(|_| ())
    });
    let full = state(&path);
    // Another process opens the full home: it opens and answers every read.
    let other = open(&path, None).unwrap();
    reads_answer(&other);
    assert_eq!(state(&path), full, "opening and reading wrote something");
    drop(other);
    // Space is freed: the very write that failed now succeeds, once.
    set_max_pages(&o.home, Some(1 << 30));
    let retry = RememberMany::new(records(n + 1), SCOPE, OWNER, &format!("k{}", n + 1));
    let ids = o.system.remember_many(&retry).unwrap().value;
    assert_eq!(ids.len(), 2);
    assert!(
        state(&path).rows > full.rows,
        "the formation stored nothing"
    );
    o.store.add(&big_add(9999)).unwrap();
    o.graph.apply_revision(&big_revision(9999), false).unwrap();
    integrity_ok(&path);
    drop(o);
    let reopened = open(&path, None).unwrap();
    reads_answer(&reopened);
}

// ---------------------------------------------------------------- embedder

const MODEL: &str = "text-embedding-test";
const DIM: usize = 8;

/// An HTTP embedder with batches of 2 inputs, so a formation of 3 records
/// (6 rows with text) takes several requests.
fn http_embedder(server: &TestServer) -> Arc<dyn TextEmbedder> {
    Arc::new(
        OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
            .batch_size(2)
            .dimension(DIM)
            .timeout(std::time::Duration::from_millis(500))
            .build()
            .unwrap(),
    )
}

fn three_records(i: usize) -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new(
            RecordKind::Episode,
            &format!("Outage {i}"),
            "The pool failed at noon.",
        ),
        MemoryRecordInput::new(
            RecordKind::Lesson,
            &format!("Lesson {i}"),
            "Restart the pool first.",
        ),
        MemoryRecordInput::new(
            RecordKind::Memory,
            &format!("Lunch {i}"),
            "Ada had soup for lunch.",
        ),
    ]
}

/// A home formed through a well-behaved server, then a formation whose
/// second embedding request gets `bad`: refused naming the model and the pin,
/// nothing of it stored.
fn a_failure_mid_batch(bad: fn(&support::Request) -> Reply, want: ErrorKind) -> String {
    let calls = Arc::new(AtomicUsize::new(0));
    let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let server = {
        let (calls, failing) = (calls.clone(), failing.clone());
        TestServer::start(move |r| {
            let n = calls.fetch_add(1, Ordering::SeqCst);
            if failing.load(Ordering::SeqCst) && n % 2 == 1 {
                bad(r)
            } else {
                openai_ok(r, DIM)
            }
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("embedded.sqlite3");
    let o = open(&path, Some(http_embedder(&server))).unwrap();
    o.system
        .remember_many(&RememberMany::new(three_records(0), SCOPE, OWNER, "k0"))
        .unwrap();
    let before = state(&path);
    calls.store(0, Ordering::SeqCst);
    failing.store(true, Ordering::SeqCst);
    let err = o
        .system
        .remember_many(&RememberMany::new(three_records(1), SCOPE, OWNER, "k1"))
        .unwrap_err();
    assert!(
        calls.load(Ordering::SeqCst) >= 2,
        "the failure came before the batch's second request"
    );
    assert_eq!(err.kind(), want, "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains(MODEL),
        "the error does not name the embedder: {msg}"
    );
    assert!(
        msg.contains(&format!("[store pin: {MODEL}@{DIM}d (creation)]")),
        "the error does not name the pin: {msg}"
    );
    assert_eq!(
        state(&path),
        before,
        "part of the refused formation was stored"
    );
    integrity_ok(&path);
    // The server recovers: the same formation then stores all of it.
    failing.store(false, Ordering::SeqCst);
    o.system
        .remember_many(&RememberMany::new(three_records(1), SCOPE, OWNER, "k1"))
        .unwrap();
    assert!(state(&path).rows > before.rows);
    msg
}

#[test]
fn an_embedder_timing_out_mid_batch_stores_nothing_and_names_the_embedder_and_pin() {
    a_failure_mid_batch(|_| Reply::Stall, ErrorKind::Timeout);
}

#[test]
fn an_embedder_answering_garbage_mid_batch_stores_nothing_and_names_the_embedder_and_pin() {
    a_failure_mid_batch(
        |_| Reply::Raw(200, "{\"data\": [ not json".into()),
        ErrorKind::Embedder,
    );
}

#[test]
fn an_embedder_answering_another_dimension_mid_batch_stores_nothing_and_names_the_embedder_and_pin()
{
    a_failure_mid_batch(|r| openai_ok(r, DIM + 4), ErrorKind::Embedder);
}

#[test]
fn an_embedder_answering_zero_vectors_mid_batch_stores_those_rows_without_a_vector_with_one_fallback()
 {
    // The spec's zero-vector rule, not a refusal: the second request's texts
    // come back as zero vectors.
    let calls = Arc::new(AtomicUsize::new(0));
    let zeroed = Arc::new(AtomicUsize::new(0));
    let server = {
        let (calls, zeroed) = (calls.clone(), zeroed.clone());
        TestServer::start(move |r| {
            if calls.fetch_add(1, Ordering::SeqCst) == 1 {
                zeroed.store(r.inputs().len(), Ordering::SeqCst);
                let data: Vec<serde_json::Value> = (0..r.inputs().len())
                    .map(|i| serde_json::json!({"object": "embedding", "index": i, "embedding": vec![0.0; DIM]}))
                    .collect();
                Reply::Json(200, serde_json::json!({"data": data}))
            } else {
                openai_ok(r, DIM)
            }
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zero.sqlite3");
    let o = open(&path, Some(http_embedder(&server))).unwrap();
    let formed = o
        .system
        .remember_many(&RememberMany::new(three_records(0), SCOPE, OWNER, "k0"))
        .unwrap();
    assert!(
        calls.load(Ordering::SeqCst) >= 2,
        "one batch of several requests"
    );
    let zeroed = zeroed.load(Ordering::SeqCst);
    let lead = format!("#FALLBACK: the embedder returned the zero vector for {zeroed} of");
    let fallbacks: Vec<&String> = formed
        .warnings
        .iter()
        .filter(|w| w.starts_with(&lead))
        .collect();
    assert_eq!(fallbacks.len(), 1, "{:?}", formed.warnings);
    let c = Connection::open(&path).unwrap();
    let (rows, embedded): (usize, usize) = c
        .query_row("SELECT COUNT(*), COUNT(embedding) FROM triples", [], |r| {
            Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize))
        })
        .unwrap();
    let texts = server
        .requests()
        .iter()
        .map(|r| r.inputs().len())
        .sum::<usize>();
    assert!(
        zeroed > 0 && rows >= texts,
        "every row of the formation is stored"
    );
    assert_eq!(
        embedded,
        texts - zeroed,
        "the zero-vector rows, and only they, have no vector"
    );
    integrity_ok(&path);
}
