//! The pin interplay between a real HTTP embedder and a store, as check
//! functions over a store opener, so every store runs the same checks.
//!
//! Spec: stores.md "Embedding-space pin"; troubleshooting "A home refuses your
//! embedder, or reports a dimension mismatch".

use super::{Reply, TestServer, openai_ok, rows, vector_for};
use am_embed::{OfflineEmbedder, OpenAICompatTextEmbedder};
use am_triples::{
    EmbeddingPin, ErrorKind, TextEmbedder, TripleAssertion, TripleQuery, TripleStore, build_pin,
    canonical_text,
};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// Opens a fresh store with `embedder` under the creation pin `pin`.
pub(crate) type Opener<'a> = &'a dyn Fn(
    Option<Arc<dyn TextEmbedder>>,
    EmbeddingPin,
) -> am_triples::Result<Box<dyn TripleStore>>;

pub(crate) const MODEL: &str = "text-embedding-test";

/// The error of an open that must fail.
fn refused(r: am_triples::Result<Box<dyn TripleStore>>) -> am_triples::Error {
    match r {
        Ok(_) => panic!("the store opened; expected a refusal"),
        Err(e) => e,
    }
}

pub(crate) fn pin(model: &str, dim: usize) -> EmbeddingPin {
    build_pin(Some(model), Some(dim), "creation", None).unwrap()
}

fn http(server: &TestServer) -> Arc<dyn TextEmbedder> {
    Arc::new(OpenAICompatTextEmbedder::new(format!("{}/v1", server.url()), MODEL).unwrap())
}

fn assertions() -> Vec<TripleAssertion> {
    vec![
        TripleAssertion::new("scrooge", "is", "a miser").with_scope("session"),
        TripleAssertion::new("tiny tim", "needs", "care").with_scope("session"),
    ]
}

/// The store holds no row: no structured hit, an empty change feed, and the
/// pin it was created with.
pub(crate) fn assert_nothing_stored(store: &dyn TripleStore, pin_before: &EmbeddingPin) {
    let all = store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    assert!(all.is_empty(), "rows were stored: {all:?}");
    if store.capabilities().change_feed {
        let page = store.assertions_after(0, None, None, 100).unwrap();
        assert!(page.rows.is_empty(), "the change feed holds rows");
    }
    let after = store.embedding_pin().unwrap().expect("the pin survives");
    assert_eq!(after.model_id, pin_before.model_id);
    assert_eq!(after.dimension, pin_before.dimension);
}

pub(crate) fn an_embedder_whose_model_contradicts_the_pin_is_refused_at_open(open: Opener<'_>) {
    let server = TestServer::start(|r| openai_ok(r, 8));
    let err = refused(open(Some(http(&server)), pin("another-model", 8)));
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains(MODEL) && msg.contains("another-model"),
        "{msg}"
    );
    assert!(server.requests().is_empty(), "nothing is embedded at open");
}

pub(crate) fn an_embedder_whose_declared_dimension_contradicts_the_pin_is_refused_at_open(
    open: Opener<'_>,
) {
    let server = TestServer::start(|r| openai_ok(r, 8));
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .dimension(384)
        .build()
        .unwrap();
    let err = refused(open(Some(Arc::new(e)), pin(MODEL, 8)));
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
    assert!(err.to_string().contains("384"), "{err}");
}

pub(crate) fn the_offline_embedder_is_refused_under_another_models_pin(open: Opener<'_>) {
    let e: Arc<dyn TextEmbedder> = Arc::new(OfflineEmbedder::new().unwrap());
    let err = refused(open(Some(Arc::clone(&e)), pin(MODEL, 64)));
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
    let err = refused(open(Some(e), pin("minishlab/potion-base-2M", 384)));
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
}

pub(crate) fn a_matching_http_embedder_stores_its_vectors_and_ranks_by_them(open: Opener<'_>) {
    let server = TestServer::start(|r| openai_ok(r, 8));
    let store = open(Some(http(&server)), pin(MODEL, 8)).unwrap();
    let input = assertions();
    let ids = store.add(&input).unwrap();
    assert_eq!(ids.len(), 2);
    let texts: Vec<String> = input
        .iter()
        .map(|a| canonical_text(&a.canonicalized().unwrap()))
        .collect();
    for (id, text) in ids.iter().zip(&texts) {
        assert_eq!(store.stored_vector(id).unwrap(), Some(vector_for(text, 8)));
    }
    let hits = store
        .query(&TripleQuery {
            query_text: Some(texts[1].clone()),
            limit: 1,
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(hits[0].assertion_id.as_ref(), Some(&ids[1]));
}

pub(crate) fn a_wrong_dimension_reply_is_refused_and_nothing_is_stored(open: Opener<'_>) {
    let server = TestServer::start(|r| openai_ok(r, 4));
    let p = pin(MODEL, 8);
    let store = open(Some(http(&server)), p.clone()).unwrap();
    let err = store.add(&assertions()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DimensionMismatch, "{err}");
    let msg = err.to_string();
    assert!(msg.contains('4') && msg.contains("8d"), "{msg}");
    assert_eq!(server.requests().len(), 1, "the embedder was called");
    assert_nothing_stored(store.as_ref(), &p);
}

pub(crate) fn a_wrong_dimension_query_vector_is_refused_at_read(open: Opener<'_>) {
    let server = TestServer::start(|r| openai_ok(r, 4));
    let store = open(Some(http(&server)), pin(MODEL, 8)).unwrap();
    let err = store
        .query(&TripleQuery {
            query_text: Some("who is scrooge".into()),
            ..TripleQuery::default()
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DimensionMismatch, "{err}");
}

pub(crate) fn an_http_failure_during_add_names_the_pin_and_stores_nothing(open: Opener<'_>) {
    let server = TestServer::start(|_| {
        Reply::Json(
            400,
            json!({"error": {"message": "model 'text-embedding-test' not loaded"}}),
        )
    });
    let p = pin(MODEL, 8);
    let store = open(Some(http(&server)), p.clone()).unwrap();
    let err = store.add(&assertions()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedder, "{err}");
    let msg = err.to_string();
    assert!(msg.contains("not loaded"), "{msg}");
    assert!(
        msg.contains("[store pin: text-embedding-test@8d (creation)]"),
        "{msg}"
    );
    assert_nothing_stored(store.as_ref(), &p);
}

pub(crate) fn a_timeout_during_add_stores_nothing(open: Opener<'_>) {
    let server = TestServer::start(|_| Reply::Stall);
    let e = OpenAICompatTextEmbedder::builder(format!("{}/v1", server.url()), MODEL)
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let p = pin(MODEL, 8);
    let store = open(Some(Arc::new(e)), p.clone()).unwrap();
    let err = store.add(&assertions()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert_nothing_stored(store.as_ref(), &p);
}

pub(crate) fn a_wrong_vector_count_during_add_stores_nothing(open: Opener<'_>) {
    let server = TestServer::start(|r| {
        let inputs = r.inputs();
        Reply::Json(200, json!({"data": rows(&inputs[1..], |_| 8)}))
    });
    let p = pin(MODEL, 8);
    let store = open(Some(http(&server)), p.clone()).unwrap();
    let err = store.add(&assertions()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedder, "{err}");
    assert_nothing_stored(store.as_ref(), &p);
}

pub(crate) fn a_mixed_dimension_reply_during_add_stores_nothing(open: Opener<'_>) {
    let server = TestServer::start(|r| {
        let inputs = r.inputs();
        Reply::Json(200, json!({"data": rows(&inputs, |i| 8 + i)}))
    });
    let p = pin(MODEL, 8);
    let store = open(Some(http(&server)), p.clone()).unwrap();
    let err = store.add(&assertions()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedder, "{err}");
    assert_nothing_stored(store.as_ref(), &p);
}

pub(crate) fn the_offline_embedder_under_its_own_pin_ranks_related_text_first(open: Opener<'_>) {
    let e: Arc<dyn TextEmbedder> = Arc::new(OfflineEmbedder::new().unwrap());
    let store = open(Some(e), pin("minishlab/potion-base-2M", 64)).unwrap();
    store
        .add(&[
            TripleAssertion::new("caroline", "adopted", "a puppy"),
            TripleAssertion::new("melanie", "filed", "her quarterly taxes"),
        ])
        .unwrap();
    let hits = store
        .query(&TripleQuery {
            query_text: Some("new dog".into()),
            limit: 2,
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(hits[0].subject, "caroline");
}
