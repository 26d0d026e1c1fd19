//! The embedding-space pin against real embedders, on `SQLiteTripleStore` with
//! a real file: the same checks as on the in-memory store, plus reopening a home
//! with an embedder that contradicts the pin it was created with.
//! Spec: stores.md "Embedding-space pin"; troubleshooting "Embedding spaces".

mod support;

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions, read_embedding_pin};
use am_embed::OpenAICompatTextEmbedder;
use am_triples::{EmbeddingPin, ErrorKind, TextEmbedder, TripleAssertion, TripleStore};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::pin_checks::{self as checks, MODEL, pin};
use support::{TestServer, openai_ok};

fn open_file(
    path: &Path,
    embedder: Option<Arc<dyn TextEmbedder>>,
    pin: Option<EmbeddingPin>,
) -> am_triples::Result<SQLiteTripleStore> {
    let options = SqliteStoreOptions {
        embedding_pin: pin,
        ..SqliteStoreOptions::default()
    };
    SQLiteTripleStore::open(path, embedder, options).map_err(Into::into)
}

/// Runs one check with a fresh file per opened store, all under one temp dir.
fn with_files(check: fn(checks::Opener<'_>)) {
    let dir = tempfile::tempdir().unwrap();
    let n = AtomicUsize::new(0);
    let open = |embedder: Option<Arc<dyn TextEmbedder>>, pin: EmbeddingPin| {
        let path = dir
            .path()
            .join(format!("home-{}.sqlite3", n.fetch_add(1, Ordering::SeqCst)));
        let store: Box<dyn TripleStore> = Box::new(open_file(&path, embedder, Some(pin))?);
        Ok(store)
    };
    check(&open);
}

macro_rules! pin_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                with_files(checks::$name);
            }
        )*
    };
}

pin_tests!(
    an_embedder_whose_model_contradicts_the_pin_is_refused_at_open,
    an_embedder_whose_declared_dimension_contradicts_the_pin_is_refused_at_open,
    the_offline_embedder_is_refused_under_another_models_pin,
    a_matching_http_embedder_stores_its_vectors_and_ranks_by_them,
    a_wrong_dimension_reply_is_refused_and_nothing_is_stored,
    a_wrong_dimension_query_vector_is_refused_at_read,
    an_http_failure_during_add_names_the_pin_and_stores_nothing,
    a_timeout_during_add_stores_nothing,
    a_wrong_vector_count_during_add_stores_nothing,
    a_mixed_dimension_reply_during_add_stores_nothing,
    the_offline_embedder_under_its_own_pin_ranks_related_text_first,
);

fn http_embedder(server: &TestServer, model: &str) -> Arc<dyn TextEmbedder> {
    Arc::new(OpenAICompatTextEmbedder::new(format!("{}/v1", server.url()), model).unwrap())
}

fn rows_in(path: &Path) -> usize {
    let store = open_file(path, None, None).unwrap();
    let n = store.row_count().unwrap();
    store.close().unwrap();
    n
}

/// A home filled through one HTTP embedder (8-d), closed; returns its pin.
fn filled_home(path: &Path, server: &TestServer) -> EmbeddingPin {
    let store = open_file(
        path,
        Some(http_embedder(server, MODEL)),
        Some(pin(MODEL, 8)),
    )
    .unwrap();
    store
        .add(&[
            TripleAssertion::new("scrooge", "is", "a miser"),
            TripleAssertion::new("marley", "is", "a ghost"),
        ])
        .unwrap();
    store.close().unwrap();
    read_embedding_pin(path, None)
        .unwrap()
        .expect("pinned at creation")
}

#[test]
fn a_home_refuses_a_contradicting_http_embedder_on_reopen_and_the_file_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let server = TestServer::start(|r| openai_ok(r, 8));
    let before = filled_home(&path, &server);
    assert_eq!(before.model_id.as_deref(), Some(MODEL));
    assert_eq!(before.dimension, Some(8));

    let other = TestServer::start(|r| openai_ok(r, 8));
    let err = match open_file(&path, Some(http_embedder(&other, "another-model")), None) {
        Ok(_) => panic!("the home opened with a contradicting embedder"),
        Err(e) => e,
    };
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
    assert!(err.to_string().contains("another-model"), "{err}");
    assert!(other.requests().is_empty());
    assert_eq!(read_embedding_pin(&path, None).unwrap(), Some(before));
    assert_eq!(rows_in(&path), 2);
}

#[test]
fn a_wrong_dimension_reply_on_a_reopened_home_writes_zero_rows_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let server = TestServer::start(|r| openai_ok(r, 8));
    let before = filled_home(&path, &server);

    // Same model id, but the server now answers in another space: the identity
    // cannot tell, the dimension check at write does.
    let drifted = TestServer::start(|r| openai_ok(r, 4));
    let store = open_file(&path, Some(http_embedder(&drifted, MODEL)), None).unwrap();
    let err = store
        .add(&[TripleAssertion::new("tiny tim", "needs", "care")])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DimensionMismatch, "{err}");
    assert_eq!(drifted.requests().len(), 1);
    store.close().unwrap();
    assert_eq!(read_embedding_pin(&path, None).unwrap(), Some(before));
    assert_eq!(rows_in(&path), 2);
}
