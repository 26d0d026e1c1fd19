//! The `vectors` group: semantic queries (ranking by the reference cosine, ties,
//! `min_score`, `_retrieval`), `query_text` without an embedder, vector refusals at
//! write and at query, and the embedding pin's refusals.
//!
//! Spec: api.md "TripleQuery" (semantic fields), "Embedders"; stores.md "Shared
//! behavior" and "Embedding-space pin"; algorithms.md §4 (the reference cosine).

use crate::check;
use crate::embedder::HashEmbedder;
use crate::harness::{Check, CheckResult, StoreFactory, ensure, ensure_eq, expect_kind, ok};
use crate::rows::{all_rows, ids, snapshot, unchanged};
use am_triples::pin::{PIN_SOURCE_CREATION, build_pin};
use am_triples::vector::cosine;
use am_triples::{ErrorKind, Order, TextEmbedder, TripleAssertion, TripleQuery, TripleStore};
use serde_json::Value;
use std::sync::Arc;

/// Every check of the group, with the capability each needs.
pub fn checks() -> Vec<Check<dyn StoreFactory>> {
    vec![
        check!(
            query_text_without_embedder_is_invalid_input_naming_the_embedder,
            VectorSearch
        ),
        check!(
            results_rank_by_reference_cosine_and_carry_retrieval,
            VectorSearch
        ),
        check!(query_vector_ranks_like_query_text, VectorSearch),
        check!(vector_ties_rank_oldest_inserted_first, VectorSearch),
        check!(min_score_keeps_scores_at_or_above_it, VectorSearch),
        check!(vector_limit_applies_after_ranking, VectorSearch),
        check!(structured_filters_apply_to_semantic_queries, VectorSearch),
        check!(
            stored_vector_is_the_embedding_of_canonical_text,
            VectorSearch
        ),
        check!(bad_query_vectors_are_invalid_input, VectorSearch),
        check!(
            bad_embeddings_are_refused_at_write_and_write_nothing,
            VectorSearch
        ),
        check!(
            zero_embedding_stores_the_row_without_a_vector_with_one_fallback_warning,
            VectorSearch
        ),
        check!(
            add_with_warnings_answers_its_own_warnings_and_leaves_none_to_drain,
            VectorSearch
        ),
        check!(bad_query_embeddings_are_refused, VectorSearch),
        check!(
            embedder_failure_is_an_embedder_error_and_writes_nothing,
            VectorSearch
        ),
        check!(
            query_embedder_failure_is_an_embedder_error_naming_the_pin,
            VectorSearch
        ),
        check!(embedded_write_pins_the_space, VectorSearch),
        check!(
            wrong_dimension_write_against_creation_pin_writes_zero_rows,
            VectorSearch
        ),
        check!(
            wrong_dimension_write_against_first_write_pin_writes_zero_rows,
            VectorSearch
        ),
        check!(mixed_dimension_batch_writes_zero_rows, VectorSearch),
        check!(wrong_dimension_query_vector_is_refused, VectorSearch),
        check!(
            contradicting_embedder_identity_is_refused_at_open,
            VectorSearch
        ),
    ]
}

const DIM: usize = 4;

/// The fixture embedder: subjects name their vectors.
fn embedder() -> HashEmbedder {
    HashEmbedder::new(DIM, "conformance-hash-4")
        .with_override("alpha", vec![1.0, 0.0, 0.0, 0.0])
        .with_override("beta", vec![0.6, 0.8, 0.0, 0.0])
        .with_override("gamma", vec![0.0, 1.0, 0.0, 0.0])
        .with_override("delta", vec![-1.0, 0.1, 0.0, 0.0])
        .with_override("epsilon", vec![0.3, 0.1, 0.7, 0.2])
}

fn open_with(f: &dyn StoreFactory, e: HashEmbedder) -> Result<Box<dyn TripleStore>, String> {
    let e: Arc<dyn TextEmbedder> = Arc::new(e);
    ok("open a store with an embedder", f.open(Some(e)))
}

fn row(subject: &str, observed_at: &str, id: &str) -> TripleAssertion {
    TripleAssertion::new(subject, "is", "thing")
        .with_observed_at(observed_at)
        .with_id(id)
}

fn semantic(text: &str) -> TripleQuery {
    TripleQuery {
        query_text: Some(text.into()),
        limit: 0,
        ..TripleQuery::default()
    }
}

fn scores(rows: &[TripleAssertion]) -> Result<Vec<f64>, String> {
    rows.iter()
        .map(|r| {
            am_triples::store::retrieval_score(r)
                .ok_or_else(|| format!("expected _retrieval.score on {:?}", r.assertion_id))
        })
        .collect()
}

fn fixture(s: &dyn TripleStore) -> CheckResult {
    // Observed times run against insertion order so time cannot explain the rank.
    ok(
        "add",
        s.add(&[
            row("gamma", "2026-01-05T00:00:00Z", "g"),
            row("beta", "2026-01-04T00:00:00Z", "b"),
            row("delta", "2026-01-03T00:00:00Z", "d"),
            row("alpha", "2026-01-02T00:00:00Z", "a"),
            row("epsilon", "2026-01-01T00:00:00Z", "e"),
        ]),
    )
    .map(drop)
}

/// `query_text` on a store without an embedder is `InvalidInput` naming the
/// missing embedder; there is no keyword fallback.
pub fn query_text_without_embedder_is_invalid_input_naming_the_embedder(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = ok("open without an embedder", f.open(None))?;
    ok("add", s.add(&[row("alpha", "2026-01-01T00:00:00Z", "a")]))?;
    let msg = expect_kind(
        "query_text",
        s.query(&semantic("alpha")),
        ErrorKind::InvalidInput,
    )?;
    ensure(msg.contains("embedder"), || {
        format!("expected the error to name the missing embedder, got {msg:?}")
    })
}

/// Semantic results order by the reference cosine (descending) and carry
/// `attributes._retrieval = {score, metric: "cosine"}` with the reference score.
pub fn results_rank_by_reference_cosine_and_carry_retrieval(f: &dyn StoreFactory) -> CheckResult {
    let e = embedder();
    let s = open_with(f, e.clone())?;
    fixture(&*s)?;
    let got = ok("query_text", s.query(&semantic("alpha")))?;
    let qv = e.embed_one("alpha");
    let mut expected: Vec<(String, f64)> = all_rows(&*s)?
        .iter()
        .map(|r| {
            let v = e.embed_one(&am_triples::canonical_text(r));
            (r.assertion_id.clone().unwrap_or_default(), cosine(&qv, &v))
        })
        .collect();
    expected.sort_by(|a, b| b.1.total_cmp(&a.1));
    ensure_eq(
        "ranked ids",
        ids(&got),
        expected.iter().map(|x| x.0.clone()).collect(),
    )?;
    ensure_eq(
        "scores (exactly the reference cosine)",
        scores(&got)?,
        expected.iter().map(|x| x.1).collect(),
    )?;
    for r in &got {
        ensure_eq(
            "_retrieval.metric",
            r.attributes
                .get("_retrieval")
                .and_then(|v| v.get("metric"))
                .cloned(),
            Some(Value::String("cosine".into())),
        )?;
    }
    Ok(())
}

/// A caller's `query_vector` ranks exactly as the same vector reached by `query_text`.
pub fn query_vector_ranks_like_query_text(f: &dyn StoreFactory) -> CheckResult {
    let e = embedder();
    let s = open_with(f, e.clone())?;
    fixture(&*s)?;
    let by_text = ok("query_text", s.query(&semantic("beta")))?;
    let by_vector = ok(
        "query_vector",
        s.query(&TripleQuery {
            query_vector: Some(e.embed_one("beta")),
            limit: 0,
            ..TripleQuery::default()
        }),
    )?;
    ensure_eq("ids", ids(&by_vector), ids(&by_text))?;
    ensure_eq("scores", scores(&by_vector)?, scores(&by_text)?)
}

/// Our rule: equal scores rank by insertion order, oldest inserted first,
/// whatever `observed_at` and `order` say.
pub fn vector_ties_rank_oldest_inserted_first(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, embedder())?;
    ok(
        "add",
        s.add(&[
            row("alpha one", "2026-01-03T00:00:00Z", "first"),
            row("gamma", "2026-01-09T00:00:00Z", "other"),
            row("alpha two", "2026-01-01T00:00:00Z", "second"),
        ]),
    )?;
    ok(
        "add",
        s.add(&[row("alpha three", "2026-01-02T00:00:00Z", "third")]),
    )?;
    for order in [Order::Desc, Order::Asc] {
        let got = ok(
            "query",
            s.query(&TripleQuery {
                order,
                ..semantic("alpha")
            }),
        )?;
        ensure_eq(
            &format!("tie order ({order:?})"),
            ids(&got),
            vec![
                "first".to_owned(),
                "second".into(),
                "third".into(),
                "other".into(),
            ],
        )?;
    }
    Ok(())
}

/// `min_score` drops rows scoring below it and keeps a row scoring exactly it.
pub fn min_score_keeps_scores_at_or_above_it(f: &dyn StoreFactory) -> CheckResult {
    let e = embedder();
    let s = open_with(f, e.clone())?;
    fixture(&*s)?;
    let beta = cosine(&e.embed_one("alpha"), &e.embed_one("beta is thing"));
    let got = ok(
        "query",
        s.query(&TripleQuery {
            min_score: Some(beta),
            ..semantic("alpha")
        }),
    )?;
    ensure_eq(
        "ids at or above beta's score",
        ids(&got),
        vec!["a".to_owned(), "b".into()],
    )?;
    let got = ok(
        "query",
        s.query(&TripleQuery {
            min_score: Some(1.5),
            ..semantic("alpha")
        }),
    )?;
    ensure_eq("ids above 1.5", got.len(), 0)
}

/// `limit` truncates the ranked list (best first); `limit <= 0` is unbounded.
pub fn vector_limit_applies_after_ranking(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, embedder())?;
    fixture(&*s)?;
    let got = ok(
        "query",
        s.query(&TripleQuery {
            limit: 2,
            ..semantic("gamma")
        }),
    )?;
    ensure_eq(
        "top 2 for gamma",
        ids(&got),
        vec!["g".to_owned(), "b".into()],
    )?;
    let got = ok(
        "query",
        s.query(&TripleQuery {
            limit: -3,
            ..semantic("gamma")
        }),
    )?;
    ensure_eq("unbounded", got.len(), 5)
}

/// Structured filters (scope, owner, terms, time) still apply to semantic queries.
pub fn structured_filters_apply_to_semantic_queries(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, embedder())?;
    ok(
        "add",
        s.add(&[
            row("alpha", "2026-01-01T00:00:00Z", "run-a"),
            row("alpha", "2026-01-01T00:00:00Z", "sess-a")
                .with_scope("session")
                .with_owner("o"),
            row("beta", "2026-01-02T00:00:00Z", "sess-b")
                .with_scope("session")
                .with_owner("o"),
            row("alpha", "2026-01-03T00:00:00Z", "sess-other")
                .with_scope("session")
                .with_owner("p"),
        ]),
    )?;
    let got = ok(
        "query",
        s.query(&TripleQuery {
            scope: Some("Session".into()),
            owner_id: Some("o".into()),
            ..semantic("alpha")
        }),
    )?;
    ensure_eq(
        "scope + owner",
        ids(&got),
        vec!["sess-a".to_owned(), "sess-b".into()],
    )?;
    let got = ok(
        "query",
        s.query(&TripleQuery {
            since: Some("2026-01-02T00:00:00Z".into()),
            ..semantic("alpha")
        }),
    )?;
    ensure_eq(
        "since",
        ids(&got),
        vec!["sess-other".to_owned(), "sess-b".into()],
    )
}

/// The stored vector of an assertion is its embedder's vector of the canonical text.
pub fn stored_vector_is_the_embedding_of_canonical_text(f: &dyn StoreFactory) -> CheckResult {
    let e = HashEmbedder::new(DIM, "conformance-hash-4");
    let s = open_with(f, e.clone())?;
    let mut a = TripleAssertion::new("Ada", "wrote", "notes").with_id("x");
    a.attributes
        .insert("original_context".into(), Value::String("In 1843.".into()));
    ok("add", s.add(&[a]))?;
    let stored = all_rows(&*s)?.remove(0);
    ensure_eq(
        "stored vector",
        ok("stored_vector", s.stored_vector("x"))?,
        Some(e.embed_one(&am_triples::canonical_text(&stored))),
    )
}

/// A query vector that is empty, zero, NaN or infinite is `InvalidInput`.
pub fn bad_query_vectors_are_invalid_input(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, embedder())?;
    fixture(&*s)?;
    for (what, v) in [
        ("empty", vec![]),
        ("zero", vec![0.0; DIM]),
        ("NaN", vec![1.0, f32::NAN, 0.0, 0.0]),
        ("infinite", vec![f32::INFINITY, 0.0, 0.0, 0.0]),
        ("negative infinite", vec![0.0, f32::NEG_INFINITY, 0.0, 0.0]),
    ] {
        let q = TripleQuery {
            query_vector: Some(v),
            limit: 0,
            ..TripleQuery::default()
        };
        expect_kind(what, s.query(&q), ErrorKind::InvalidInput)?;
    }
    Ok(())
}

fn bad_vector_embedder() -> HashEmbedder {
    embedder()
        .with_override("zerovec", vec![0.0; DIM])
        .with_override("nanvec", vec![1.0, f32::NAN, 0.0, 0.0])
        .with_override("infvec", vec![1.0, 0.0, f32::INFINITY, 0.0])
}

/// An embedding that is NaN or infinite refuses the whole write batch
/// (`InvalidInput`, or `Embedder` for the embedder's fault) and writes nothing.
pub fn bad_embeddings_are_refused_at_write_and_write_nothing(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, bad_vector_embedder())?;
    fixture(&*s)?;
    let before = snapshot(&*s)?;
    for bad in ["nanvec", "infvec"] {
        let batch = [
            row("alpha", "2026-02-01T00:00:00Z", "ok-1"),
            row(bad, "2026-02-01T00:00:00Z", "bad"),
        ];
        match s.add(&batch) {
            Err(e) if matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::Embedder) => {}
            other => {
                return Err(format!(
                    "{bad}: expected an InvalidInput or Embedder error, got {other:?}"
                ));
            }
        }
        unchanged(bad, &*s, &before)?;
    }
    Ok(())
}

/// `add_with_warnings` answers the warnings of its own write with its ids
/// (here the batch's zero-vector `#FALLBACK`) and leaves nothing for
/// `take_warnings`, so a layer-2 caller never reads another writer's
/// warnings; `add` keeps them for `take_warnings`.
pub fn add_with_warnings_answers_its_own_warnings_and_leaves_none_to_drain(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = open_with(f, bad_vector_embedder())?;
    fixture(&*s)?;
    s.take_warnings();
    let added = ok(
        "add_with_warnings a batch with one zero embedding",
        s.add_with_warnings(&[
            row("alpha", "2026-02-01T00:00:00Z", "w-ok"),
            row("zerovec", "2026-02-01T00:00:00Z", "w-z"),
        ]),
    )?;
    ensure_eq(
        "ids",
        added.ids.clone(),
        vec!["w-ok".to_owned(), "w-z".to_owned()],
    )?;
    ensure(
        added.warnings.len() == 1
            && added.warnings[0].starts_with("#FALLBACK")
            && added.warnings[0].contains("1 of 2"),
        || {
            format!(
                "expected the write's one #FALLBACK warning, got {:?}",
                added.warnings
            )
        },
    )?;
    ensure_eq(
        "take_warnings after add_with_warnings",
        s.take_warnings(),
        Vec::<String>::new(),
    )?;
    ok(
        "add a batch with one zero embedding",
        s.add(&[row("zerovec", "2026-02-02T00:00:00Z", "w-z2")]),
    )?;
    let drained = s.take_warnings();
    ensure(
        drained.len() == 1 && drained[0].starts_with("#FALLBACK"),
        || format!("expected add's warning for take_warnings, got {drained:?}"),
    )
}

/// An embedder's zero vector (a text with no known token) does not sink the
/// batch: that row is stored without a vector (structured reads find it, vector
/// queries do not), the other rows keep theirs, and the batch raises exactly one
/// `#FALLBACK` warning naming how many rows.
pub fn zero_embedding_stores_the_row_without_a_vector_with_one_fallback_warning(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = open_with(f, bad_vector_embedder())?;
    fixture(&*s)?;
    s.take_warnings();
    ok(
        "add a batch with two zero embeddings",
        s.add(&[
            row("alpha", "2026-02-01T00:00:00Z", "ok-1"),
            row("zerovec", "2026-02-01T00:00:00Z", "z-1"),
            row("zerovec", "2026-02-02T00:00:00Z", "z-2"),
        ]),
    )?;
    let warnings = s.take_warnings();
    ensure(
        warnings.len() == 1
            && warnings[0].starts_with("#FALLBACK")
            && warnings[0].contains("2 of 3"),
        || format!("expected one #FALLBACK warning naming 2 of 3 rows, got {warnings:?}"),
    )?;
    for id in ["z-1", "z-2"] {
        ensure_eq(
            &format!("stored_vector({id})"),
            ok("stored_vector", s.stored_vector(id))?,
            None,
        )?;
    }
    ensure(
        ok("stored_vector", s.stored_vector("ok-1"))?.is_some(),
        || "expected ok-1 to keep its vector".to_owned(),
    )?;
    let exact = ok(
        "structured query",
        s.query(&TripleQuery {
            subject: Some("zerovec".into()),
            ..TripleQuery::default()
        }),
    )?;
    ensure_eq(
        "structured rows",
        ids(&exact),
        vec!["z-2".to_owned(), "z-1".to_owned()],
    )?;
    let ranked = ok("vector query", s.query(&semantic("alpha")))?;
    ensure(ranked.iter().all(|r| r.subject != "zerovec"), || {
        format!("a vectorless row ranked: {:?}", ids(&ranked))
    })?;
    Ok(())
}

/// A `query_text` whose embedding is zero, NaN or infinite is an error, never a
/// ranking.
pub fn bad_query_embeddings_are_refused(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, bad_vector_embedder())?;
    fixture(&*s)?;
    for bad in ["zerovec", "nanvec", "infvec"] {
        match s.query(&semantic(bad)) {
            Err(e) if matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::Embedder) => {}
            other => {
                return Err(format!(
                    "{bad}: expected an InvalidInput or Embedder error, got {other:?}"
                ));
            }
        }
    }
    Ok(())
}

/// An embedder failure during `add` is an `Embedder` error and writes zero rows
/// (no partial batch, no pin change).
pub fn embedder_failure_is_an_embedder_error_and_writes_nothing(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = open_with(f, embedder().failing_on("broken"))?;
    fixture(&*s)?;
    let before = snapshot(&*s)?;
    expect_kind(
        "add with a failing embedder",
        s.add(&[
            row("alpha", "2026-02-01T00:00:00Z", "ok-1"),
            row("broken", "2026-02-01T00:00:00Z", "bad"),
        ]),
        ErrorKind::Embedder,
    )?;
    unchanged("add with a failing embedder", &*s, &before)
}

/// An embedder failure while embedding `query_text` is an `Embedder` error whose
/// message names the store's pin (`[store pin: ...]`).
pub fn query_embedder_failure_is_an_embedder_error_naming_the_pin(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = open_with(f, embedder().failing_on("broken"))?;
    fixture(&*s)?;
    let msg = expect_kind(
        "query_text",
        s.query(&semantic("broken")),
        ErrorKind::Embedder,
    )?;
    ensure(msg.contains("store pin"), || {
        format!("expected the error to name the store pin, got {msg:?}")
    })
}

/// After the first embedded write, the store is pinned to the embedder's space.
pub fn embedded_write_pins_the_space(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, embedder())?;
    fixture(&*s)?;
    let pin = ok("embedding_pin", s.embedding_pin())?
        .ok_or("embedding_pin: expected a pin after an embedded write, got none")?;
    ensure_eq(
        "pin identity",
        (pin.model_id.as_deref(), pin.dimension),
        (Some("conformance-hash-4"), Some(DIM)),
    )
}

/// A write whose vectors have another dimension than the creation pin is
/// `DimensionMismatch` and writes zero rows.
pub fn wrong_dimension_write_against_creation_pin_writes_zero_rows(
    f: &dyn StoreFactory,
) -> CheckResult {
    let pin = ok(
        "build_pin",
        build_pin(None, Some(3), PIN_SOURCE_CREATION, None),
    )?;
    let e: Arc<dyn TextEmbedder> = Arc::new(embedder().anonymous());
    let s = ok("open with a 3-d pin", f.open_with_pin(Some(e), pin))?;
    let before = snapshot(&*s)?;
    expect_kind(
        "4-d write into a 3-d store",
        s.add(&[row("alpha", "2026-01-01T00:00:00Z", "a")]),
        ErrorKind::DimensionMismatch,
    )?;
    unchanged("4-d write into a 3-d store", &*s, &before)
}

/// After the first write pinned the space, a write of another dimension is
/// `DimensionMismatch` and writes zero rows.
pub fn wrong_dimension_write_against_first_write_pin_writes_zero_rows(
    f: &dyn StoreFactory,
) -> CheckResult {
    let e = embedder()
        .anonymous()
        .with_override("short", vec![1.0, 2.0, 3.0]);
    let s = open_with(f, e)?;
    fixture(&*s)?;
    let before = snapshot(&*s)?;
    expect_kind(
        "3-d write into a 4-d store",
        s.add(&[row("short", "2026-01-01T00:00:00Z", "s")]),
        ErrorKind::DimensionMismatch,
    )?;
    unchanged("3-d write into a 4-d store", &*s, &before)
}

/// A batch mixing vector dimensions is `DimensionMismatch` and writes zero rows.
pub fn mixed_dimension_batch_writes_zero_rows(f: &dyn StoreFactory) -> CheckResult {
    let e = embedder()
        .anonymous()
        .with_override("short", vec![1.0, 2.0, 3.0]);
    let s = open_with(f, e)?;
    let before = snapshot(&*s)?;
    expect_kind(
        "mixed batch",
        s.add(&[
            row("alpha", "2026-01-01T00:00:00Z", "a"),
            row("short", "2026-01-01T00:00:00Z", "s"),
        ]),
        ErrorKind::DimensionMismatch,
    )?;
    unchanged("mixed batch", &*s, &before)
}

/// A query vector whose dimension contradicts the pin is `DimensionMismatch`.
pub fn wrong_dimension_query_vector_is_refused(f: &dyn StoreFactory) -> CheckResult {
    let s = open_with(f, embedder())?;
    fixture(&*s)?;
    let q = TripleQuery {
        query_vector: Some(vec![1.0, 0.0, 0.0]),
        ..TripleQuery::default()
    };
    expect_kind(
        "3-d query into a 4-d store",
        s.query(&q),
        ErrorKind::DimensionMismatch,
    )
    .map(drop)
}

/// Opening a pinned store with an embedder whose known model id or dimension
/// contradicts the pin is `Refused`; a matching or anonymous embedder opens.
pub fn contradicting_embedder_identity_is_refused_at_open(f: &dyn StoreFactory) -> CheckResult {
    let pin = ok(
        "build_pin",
        build_pin(
            Some("conformance-hash-4"),
            Some(DIM),
            PIN_SOURCE_CREATION,
            None,
        ),
    )?;
    let open = |e: HashEmbedder| {
        let e: Arc<dyn TextEmbedder> = Arc::new(e);
        f.open_with_pin(Some(e), pin.clone())
            .map(|s| s.capabilities())
    };
    expect_kind(
        "other model",
        open(HashEmbedder::new(DIM, "another-model")),
        ErrorKind::Refused,
    )?;
    expect_kind(
        "other dimension",
        open(HashEmbedder::new(8, "conformance-hash-4")),
        ErrorKind::Refused,
    )?;
    ok("matching embedder", open(embedder()))?;
    ok("anonymous embedder", open(embedder().anonymous()))?;
    Ok(())
}
