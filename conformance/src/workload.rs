//! The store bench's workload, shared by every store's `store` bench so their
//! figures compare (`cargo xtask bench --lance` prints them side by side): 50,000
//! rows ([`ROWS`]) of 384-d vectors ([`DIM`]) written in batches of 500
//! ([`BATCH`]), each row [`row`]`(i)` with the vector [`vector`]`(i)`, and an
//! embedder ([`Precomputed`]) that returns those vectors, so the benches time the
//! store, not a model.

use am_triples::{TextEmbedder, TripleAssertion};
use std::collections::HashMap;
use std::sync::Arc;

/// Rows in the benched store.
pub const ROWS: usize = 50_000;
/// The vector dimension.
pub const DIM: usize = 384;
/// Rows per `add`.
pub const BATCH: usize = 500;

/// An embedder that returns precomputed vectors, looked up by canonical text.
pub struct Precomputed {
    by_text: HashMap<String, Vec<f32>>,
}

impl TextEmbedder for Precomputed {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        texts
            .iter()
            .map(|t| {
                self.by_text.get(t).cloned().ok_or_else(|| {
                    am_triples::Error::embedder(format!("no precomputed vector for {t:?}"))
                })
            })
            .collect()
    }
    fn model_id(&self) -> Option<String> {
        Some("bench-384".into())
    }
    fn dimension(&self) -> Option<usize> {
        Some(DIM)
    }
}

/// A deterministic pseudo-random unit vector of [`DIM`] dimensions (xorshift).
pub fn vector(seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v: Vec<f32> = (0..DIM)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            #[allow(clippy::cast_precision_loss, reason = "bench data")]
            let f = (x >> 40) as f32 / (1u64 << 24) as f32;
            f - 0.5
        })
        .collect();
    let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
    v.iter_mut().for_each(|a| *a /= n);
    v
}

/// Row `i`: 5,000 subjects, two scopes, 20 owners, distinct `observed_at`.
pub fn row(i: usize) -> TripleAssertion {
    TripleAssertion::new(
        &format!("entity{}", i % 5000),
        "mentions",
        &format!("topic {i}"),
    )
    .with_scope(if i.is_multiple_of(2) {
        "session"
    } else {
        "diary"
    })
    .with_owner(&format!("owner{}", i % 20))
    .with_observed_at(&format!("2026-05-01T00:00:00.{:06}+00:00", i % 1_000_000))
    .with_id(&format!("bench-{i:07}"))
}

/// An embedder that knows the vectors of rows `range`.
///
/// # Panics
/// When a row fails to canonicalize (it cannot: the rows are fixed).
pub fn embedder_for(range: std::ops::Range<usize>) -> Arc<Precomputed> {
    let by_text = range
        .map(|i| {
            let a = row(i).canonicalized().expect("bench rows canonicalize");
            (am_triples::canonical_text(&a), vector(i as u64))
        })
        .collect();
    Arc::new(Precomputed { by_text })
}

/// Add rows `0..ROWS` to `store` in batches of [`BATCH`]: the benched home.
///
/// # Panics
/// When an `add` fails (the store must embed with [`embedder_for`]`(0..ROWS)` or a superset).
pub fn fill(store: &dyn am_triples::TripleStore) {
    for b in 0..ROWS / BATCH {
        let rows: Vec<TripleAssertion> = (b * BATCH..(b + 1) * BATCH).map(row).collect();
        store.add(&rows).expect("add");
    }
}

/// The benched subject read: the 10 rows of `entity1234`.
pub fn subject_query() -> am_triples::TripleQuery {
    am_triples::TripleQuery {
        subject: Some("entity1234".into()),
        ..am_triples::TripleQuery::default()
    }
}

/// The benched scope+owner read: the latest 50 rows of `session` / `owner4`.
pub fn latest_query() -> am_triples::TripleQuery {
    am_triples::TripleQuery {
        scope: Some("session".into()),
        owner_id: Some("owner4".into()),
        limit: 50,
        ..am_triples::TripleQuery::default()
    }
}

/// The benched vector query: limit 10 around a vector no row holds.
pub fn vector_query() -> am_triples::TripleQuery {
    am_triples::TripleQuery {
        query_vector: Some(vector(424_242)),
        limit: 10,
        ..am_triples::TripleQuery::default()
    }
}

/// Extra batches the add bench writes past the benched home before it wraps.
pub const EXTRA_BATCHES: usize = 200;

/// The add bench's next batch: rows `*next..*next + BATCH`, moving `next` on.
/// After [`EXTRA_BATCHES`] batches it wraps to [`ROWS`]; those ids are already
/// stored, which the store skips, and the call is still one batch. An embedder
/// for `0..ROWS + EXTRA_BATCHES * BATCH` knows every row it returns.
pub fn next_batch(next: &mut usize) -> Vec<TripleAssertion> {
    let rows = (*next..*next + BATCH).map(row).collect();
    *next += BATCH;
    if *next >= ROWS + EXTRA_BATCHES * BATCH {
        *next = ROWS;
    }
    rows
}
