//! Every refusal of `InMemoryTripleStore`: an error with a kind, a message naming
//! what was expected and what arrived, and a store left exactly as it was (rows,
//! pin, change feed).

use am_conformance::HashEmbedder;
use am_triples::pin::{PIN_SOURCE_CREATION, build_pin};
use am_triples::{
    ErrorKind, InMemoryTripleStore, Order, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use std::sync::Arc;

type Snapshot = (Vec<serde_json::Value>, Option<String>, usize);

fn snapshot(s: &InMemoryTripleStore) -> Snapshot {
    let rows = s
        .query(&TripleQuery {
            limit: 0,
            order: Order::Asc,
            ..TripleQuery::default()
        })
        .unwrap();
    let pin = s.embedding_pin().unwrap().map(|p| p.to_json());
    let feed = s
        .assertions_after(0, None, None, 10_000)
        .unwrap()
        .rows
        .len();
    (
        rows.iter().map(TripleAssertion::to_dict).collect(),
        pin,
        feed,
    )
}

/// A store with two embedded rows (pinned at first write, 4 dimensions) and one
/// closed window.
fn seeded() -> InMemoryTripleStore {
    let e: Arc<dyn TextEmbedder> = Arc::new(
        HashEmbedder::new(4, "hash-4")
            .with_override("zerovec", vec![0.0; 4])
            .with_override("nanvec", vec![f32::NAN, 1.0, 0.0, 0.0])
            .with_override("short", vec![1.0, 1.0])
            .failing_on("broken"),
    );
    let s = InMemoryTripleStore::new(Some(e));
    s.add(&[
        TripleAssertion::new("alice", "knows", "bob")
            .with_id("a")
            .with_observed_at("2026-01-01T00:00:00Z"),
        TripleAssertion::new("alice", "knows", "carol")
            .with_id("closed")
            .with_observed_at("2026-01-02T00:00:00Z")
            .with_validity(Some("2026-01-01T00:00:00Z"), Some("2026-06-01T00:00:00Z")),
    ])
    .unwrap();
    s.take_warnings();
    s
}

fn row(object: &str) -> TripleAssertion {
    TripleAssertion::new("x", "y", object).with_observed_at("2026-03-01T00:00:00Z")
}

/// Run `op` on a seeded store; expect `kind` with every needle in the message, and
/// the store unchanged.
fn refused<T: std::fmt::Debug>(
    what: &str,
    op: impl FnOnce(&InMemoryTripleStore) -> am_triples::Result<T>,
    kind: ErrorKind,
    needles: &[&str],
) {
    let s = seeded();
    let before = snapshot(&s);
    let err = op(&s).expect_err(what);
    assert_eq!(err.kind(), kind, "{what}: {err}");
    let msg = err.to_string();
    for n in needles {
        assert!(msg.contains(n), "{what}: message {msg:?} should name {n:?}");
    }
    assert_eq!(snapshot(&s), before, "{what}: the store changed");
}

#[test]
fn bad_observed_at_is_refused() {
    refused(
        "observed_at",
        |s| s.add(&[row("ok"), row("bad").with_observed_at("yesterday")]),
        ErrorKind::InvalidInput,
        &["observed_at", "yesterday", "timestamp"],
    );
}

#[test]
fn bad_validity_window_is_refused() {
    refused(
        "valid_from",
        |s| s.add(&[row("bad").with_validity(Some("2026-13-01"), None)]),
        ErrorKind::InvalidInput,
        &["valid_from", "2026-13-01"],
    );
    refused(
        "valid_until",
        |s| s.add(&[row("bad").with_validity(None, Some("later"))]),
        ErrorKind::InvalidInput,
        &["valid_until", "later"],
    );
}

#[test]
fn non_finite_confidence_is_refused() {
    refused(
        "confidence",
        |s| s.add(&[row("ok"), row("bad").with_confidence(f64::INFINITY)]),
        ErrorKind::InvalidInput,
        &["confidence", "inf"],
    );
}

#[test]
fn a_zero_embedding_stores_the_row_without_a_vector_with_one_fallback_warning() {
    let s = seeded();
    let ids = s
        .add(&[row("fine"), row("zerovec"), row("zerovec").with_id("z2")])
        .unwrap();
    assert_eq!(ids.len(), 3);
    assert!(s.stored_vector(&ids[0]).unwrap().is_some());
    assert!(s.stored_vector(&ids[1]).unwrap().is_none());
    assert!(s.stored_vector("z2").unwrap().is_none());
    let warnings = s.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("#FALLBACK"), "{warnings:?}");
    assert!(warnings[0].contains("2 of 3"), "{warnings:?}");
    // Structured reads find the vectorless rows; vector queries do not.
    let exact = s
        .query(&TripleQuery {
            object: Some("zerovec".into()),
            ..TripleQuery::default()
        })
        .unwrap();
    assert_eq!(exact.len(), 2);
    let semantic = s
        .query(&TripleQuery {
            query_vector: Some(vec![1.0, 0.0, 0.0, 0.0]),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    assert!(semantic.iter().all(|a| a.object != "zerovec"));
}

#[test]
fn a_zero_query_vector_is_refused() {
    refused(
        "zero query vector",
        |s| {
            s.query(&TripleQuery {
                query_vector: Some(vec![0.0; 4]),
                ..TripleQuery::default()
            })
        },
        ErrorKind::InvalidInput,
        &["non-zero", "zeros"],
    );
}

#[test]
fn nan_embeddings_are_refused() {
    refused(
        "NaN embedding",
        |s| s.add(&[row("nanvec")]),
        ErrorKind::InvalidInput,
        &["finite", "NaN"],
    );
}

#[test]
fn wrong_dimension_embedding_is_refused_naming_both_dimensions() {
    refused(
        "2-d write into a 4-d store",
        |s| s.add(&[row("short")]),
        ErrorKind::DimensionMismatch,
        &["dimension 2", "hash-4@4d", "zero rows written"],
    );
}

#[test]
fn embedder_failure_is_refused_naming_the_pin() {
    refused(
        "failing embedder",
        |s| s.add(&[row("fine"), row("broken")]),
        ErrorKind::Embedder,
        &["broken", "[store pin: hash-4@4d"],
    );
}

#[test]
fn query_refusals_change_nothing() {
    let q = TripleQuery::default;
    refused(
        "query_vector of the wrong dimension",
        |s| {
            s.query(&TripleQuery {
                query_vector: Some(vec![1.0; 3]),
                ..q()
            })
        },
        ErrorKind::DimensionMismatch,
        &["dimension 3", "@4d"],
    );
    refused(
        "infinite query_vector",
        |s| {
            s.query(&TripleQuery {
                query_vector: Some(vec![1.0, f32::INFINITY, 0.0, 0.0]),
                ..q()
            })
        },
        ErrorKind::InvalidInput,
        &["query_vector", "inf", "index 1"],
    );
    refused(
        "since",
        |s| {
            s.query(&TripleQuery {
                since: Some("last week".into()),
                ..q()
            })
        },
        ErrorKind::InvalidInput,
        &["since", "last week"],
    );
    refused(
        "query_text with a failing embedder",
        |s| {
            s.query(&TripleQuery {
                query_text: Some("broken".into()),
                ..q()
            })
        },
        ErrorKind::Embedder,
        &["store pin"],
    );
}

#[test]
fn query_text_without_an_embedder_names_the_embedder() {
    let s = InMemoryTripleStore::new(None);
    s.add(&[row("a")]).unwrap();
    let err = s
        .query(&TripleQuery {
            query_text: Some("a".into()),
            ..TripleQuery::default()
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(
        err.to_string().contains("requires a configured embedder"),
        "{err}"
    );
}

#[test]
fn window_refusals_change_nothing() {
    refused(
        "close: empty id",
        |s| s.close_assertion("  ", "2026-02-01"),
        ErrorKind::InvalidInput,
        &["assertion_id"],
    );
    refused(
        "close: bad time",
        |s| s.close_assertion("a", "soon"),
        ErrorKind::InvalidInput,
        &["soon"],
    );
    refused(
        "narrow: open window",
        |s| s.narrow_assertion("a", "2026-02-01"),
        ErrorKind::InvalidInput,
        &["open", "close_assertion"],
    );
    refused(
        "narrow: empty end",
        |s| s.narrow_assertion("closed", ""),
        ErrorKind::InvalidInput,
        &["valid_until"],
    );
    refused(
        "narrow: bad time",
        |s| s.narrow_assertion("closed", "2026-01-01T25:00"),
        ErrorKind::InvalidInput,
        &["2026-01-01T25:00"],
    );
    refused(
        "feed: limit 0",
        |s| s.assertions_after(0, None, None, 0),
        ErrorKind::InvalidInput,
        &["limit", "got 0"],
    );
}

#[test]
fn contradicting_embedder_is_refused_at_open_naming_both_identities() {
    let pin = build_pin(Some("model-a"), Some(4), PIN_SOURCE_CREATION, None).unwrap();
    let e: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(4, "model-b"));
    let err = InMemoryTripleStore::with_pin(Some(e), pin.clone()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    assert!(
        err.to_string().contains("model-b") && err.to_string().contains("model-a@4d"),
        "{err}"
    );
    let e: Arc<dyn TextEmbedder> = Arc::new(HashEmbedder::new(8, "model-a"));
    let err = InMemoryTripleStore::with_pin(Some(e), pin).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    assert!(err.to_string().contains("dimension 8"), "{err}");
}
