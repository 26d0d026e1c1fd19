//! The synchronous API of `LanceDBTripleStore` called from every kind of caller
//! (issue 9: "the async runtime stays inside the crate"): from inside a caller's
//! own tokio runtime (`#[tokio::main]`, `#[tokio::test]` multi-thread and
//! current-thread flavours, a task spawned on it, `spawn_blocking`), across a
//! runtime's end, and from plain std threads at once.
//!
//! Every call path opens, adds, runs structured queries and a vector search, and
//! its answers are checked against `InMemoryTripleStore` given the same rows and
//! embedder (rows, order and `_retrieval` scores), so a runtime that answered
//! wrongly, hung on a nested `block_on` or panicked fails here.
//!
//! Spec: stores.md "LanceDBTripleStore" (a synchronous store); api.md
//! "Connectors".

use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_conformance::HashEmbedder;
use am_triples::{
    InMemoryTripleStore, Order, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use std::sync::Arc;

const DIM: usize = 16;

fn embedder() -> Arc<dyn TextEmbedder> {
    Arc::new(HashEmbedder::new(DIM, "runtime-test-16"))
}

fn open(dir: &tempfile::TempDir) -> LanceDBTripleStore {
    let uri = dir.path().join("kg").to_string_lossy().into_owned();
    LanceDBTripleStore::open(&uri, Some(embedder()), LanceStoreOptions::default())
        .expect("open a LanceDB store")
}

/// `n` rows of a caller `tag`: two scopes, three owners, objects with words the
/// hash embedder spreads over the space.
fn rows(tag: &str, n: usize) -> Vec<TripleAssertion> {
    const WORDS: &[&str] = &[
        "apple", "river", "stone", "cloud", "ember", "violin", "harbor",
    ];
    (0..n)
        .map(|i| {
            TripleAssertion::new(
                &format!("{tag}-s{}", i % 4),
                "mentions",
                &format!(
                    "{} {} {i}",
                    WORDS[i % WORDS.len()],
                    WORDS[(i * 3 + 1) % WORDS.len()]
                ),
            )
            .with_scope(if i.is_multiple_of(2) {
                "session"
            } else {
                "diary"
            })
            .with_owner(&format!("owner{}", i % 3))
            .with_observed_at(&format!("2026-05-01T00:00:{:02}.000000+00:00", i % 60))
            .with_id(&format!("{tag}-{i:04}"))
        })
        .collect()
}

/// The queries every path runs: a subject read, a scope+owner latest-5 read, and
/// a semantic search by text (limit 5).
fn queries(tag: &str) -> Vec<TripleQuery> {
    vec![
        TripleQuery {
            subject: Some(format!("{tag}-s1")),
            limit: 0,
            ..TripleQuery::default()
        },
        TripleQuery {
            scope: Some("session".into()),
            owner_id: Some("owner2".into()),
            limit: 5,
            ..TripleQuery::default()
        },
        TripleQuery {
            query_text: Some("river stone".into()),
            limit: 5,
            ..TripleQuery::default()
        },
    ]
}

/// What a query answered, comparably: id, object and `_retrieval` per row.
fn answer(store: &dyn TripleStore, q: &TripleQuery) -> Vec<(String, String, String)> {
    store
        .query(q)
        .expect("query")
        .into_iter()
        .map(|a| {
            let retrieval = a
                .attributes
                .get("_retrieval")
                .map(|v| v.get("score").map_or_else(String::new, ToString::to_string))
                .unwrap_or_default();
            (a.assertion_id.unwrap_or_default(), a.object, retrieval)
        })
        .collect()
}

/// The reference: an in-memory store given the same rows in the same order.
fn reference(added: &[TripleAssertion]) -> InMemoryTripleStore {
    let mem = InMemoryTripleStore::new(Some(embedder()));
    mem.add(added).expect("reference add");
    mem
}

/// Open, add in two batches, and check every query against the reference.
/// Returns the store so callers can keep using it elsewhere.
fn open_add_query_search(dir: &tempfile::TempDir, tag: &str) -> LanceDBTripleStore {
    let store = open(dir);
    let all = rows(tag, 40);
    store.add(&all[..25]).expect("first add");
    store.add(&all[25..]).expect("second add");
    check_against_reference(&store, tag, &all);
    store
}

fn check_against_reference(store: &LanceDBTripleStore, tag: &str, added: &[TripleAssertion]) {
    let mem = reference(added);
    for q in queries(tag) {
        let got = answer(store, &q);
        assert!(!got.is_empty(), "{tag}: {q:?} answered nothing");
        assert_eq!(got, answer(&mem, &q), "{tag}: {q:?}");
    }
    // The vector search really ranked: every row carries a score.
    let semantic = answer(store, &queries(tag)[2]);
    assert_eq!(semantic.len(), 5);
    assert!(semantic.iter().all(|(_, _, score)| !score.is_empty()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sync_api_works_inside_a_multi_thread_tokio_test() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_add_query_search(&dir, "mt");
    drop(store); // dropped on a worker of the caller's runtime
}

#[tokio::test(flavor = "current_thread")]
async fn the_sync_api_works_inside_a_current_thread_tokio_test() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_add_query_search(&dir, "ct");
    drop(store); // dropped inside the caller's only thread
}

#[tokio::main]
async fn main_multi_thread(dir: &tempfile::TempDir) {
    let store = open_add_query_search(dir, "main");
    // From a task spawned on the caller's runtime, with the store moved in.
    let store = tokio::spawn(async move {
        let more = rows("main-task", 6);
        store.add(&more).expect("add from a task");
        store
    })
    .await
    .unwrap();
    let mut added = rows("main", 40);
    added.extend(rows("main-task", 6));
    check_against_reference(&store, "main", &added);
    // And from the runtime's blocking pool.
    tokio::task::spawn_blocking(move || check_against_reference(&store, "main", &added))
        .await
        .unwrap();
}

#[test]
fn the_sync_api_works_inside_tokio_main() {
    let dir = tempfile::tempdir().unwrap();
    main_multi_thread(&dir);
    // The rows persisted: a fresh open outside any runtime sees them.
    let mut added = rows("main", 40);
    added.extend(rows("main-task", 6));
    check_against_reference(&open(&dir), "main", &added);
}

#[tokio::main(flavor = "current_thread")]
async fn main_current_thread(dir: &tempfile::TempDir) -> LanceDBTripleStore {
    let store = open_add_query_search(dir, "main-ct");
    // A task on the same (only) thread, interleaved with the store's calls.
    let local = tokio::spawn(async { 7 });
    store.add(&rows("main-ct-more", 3)).expect("add");
    assert_eq!(local.await.unwrap(), 7);
    store
}

#[test]
fn the_sync_api_works_inside_a_current_thread_tokio_main_and_after_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    // The store outlives the caller's runtime: its own runtime is untouched.
    let store = main_current_thread(&dir);
    let mut added = rows("main-ct", 40);
    added.extend(rows("main-ct-more", 3));
    check_against_reference(&store, "main-ct", &added);
    store
        .add(&rows("after", 2))
        .expect("add after the caller's runtime ended");
    added.extend(rows("after", 2));
    check_against_reference(&store, "main-ct", &added);
}

#[test]
fn a_store_opened_outside_a_runtime_serves_callers_inside_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir);
    let all = rows("outside", 40);
    tokio::runtime::Builder::new_current_thread()
        .build() // no drivers enabled: the store needs none of the caller's
        .unwrap()
        .block_on(async {
            store.add(&all).expect("add inside");
            check_against_reference(&store, "outside", &all);
            drop(store);
        });
}

#[test]
fn plain_threads_share_one_store_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(&dir));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                let tag = format!("thr{t}");
                let mine = rows(&tag, 12);
                for chunk in mine.chunks(4) {
                    store.add(chunk).expect("add from a thread");
                    // Structured reads see this thread's rows so far.
                    let got = store
                        .query(&TripleQuery {
                            subject: Some(format!("{tag}-s0")),
                            limit: 0,
                            ..TripleQuery::default()
                        })
                        .expect("query from a thread");
                    assert!(!got.is_empty());
                    let hits = store
                        .query(&TripleQuery {
                            query_text: Some("ember violin".into()),
                            limit: 3,
                            ..TripleQuery::default()
                        })
                        .expect("vector search from a thread");
                    assert_eq!(hits.len(), 3);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a thread panicked");
    }
    // Whatever the interleaving, the store holds every row in one insertion
    // order, and answers exactly as the reference given that order.
    let stored = store
        .query(&TripleQuery {
            limit: 0,
            order: Order::Asc,
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(stored.len(), 48);
    let by_insertion: Vec<TripleAssertion> = store
        .assertions_after(0, None, None, 100)
        .unwrap()
        .rows
        .into_iter()
        .map(|(_, a)| a)
        .collect();
    assert_eq!(by_insertion.len(), 48);
    let plain: Vec<TripleAssertion> = by_insertion
        .iter()
        .map(|a| {
            let mut a = a.clone();
            a.attributes.remove("_retrieval");
            a
        })
        .collect();
    let mem = reference(&plain);
    for t in 0..4 {
        for q in queries(&format!("thr{t}")) {
            assert_eq!(answer(store.as_ref(), &q), answer(&mem, &q), "{q:?}");
        }
    }
}

#[test]
fn plain_threads_each_with_their_own_store_run_at_once() {
    let threads: Vec<_> = (0..3)
        .map(|t| {
            std::thread::spawn(move || {
                let dir = tempfile::tempdir().unwrap();
                drop(open_add_query_search(&dir, &format!("own{t}")));
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a thread panicked");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_tasks_than_workers_share_one_store() {
    // Six tasks block the caller's two workers in turn on the store's calls;
    // the store's own runtime still makes progress, so nothing deadlocks.
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(&dir));
    let tasks: Vec<_> = (0..6)
        .map(|t| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let tag = format!("task{t}");
                store.add(&rows(&tag, 5)).expect("add from a task");
                let got = store
                    .query(&TripleQuery {
                        query_text: Some("apple harbor".into()),
                        limit: 4,
                        ..TripleQuery::default()
                    })
                    .expect("vector search from a task");
                assert_eq!(got.len(), 4);
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let stored = store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(stored.len(), 30);
}
