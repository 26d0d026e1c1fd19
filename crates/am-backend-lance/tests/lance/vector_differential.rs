//! `LanceDBTripleStore`'s semantic queries answer exactly as the reference store
//! (`InMemoryTripleStore`): same ids, same order, same score bits, on vectors
//! built to trip an f32 scorer (exact ties, one-ulp neighbours, scaled copies)
//! and on vectors whose norms LanceDB's f32 arithmetic cannot handle (outliers,
//! always scored by the reference), with and without filters and `min_score`.

use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_triples::{
    InMemoryTripleStore, Result, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use std::sync::Arc;

const DIM: usize = 16;

/// Text `r{i} ...` embeds to the i-th prepared vector.
struct Prepared(Vec<Vec<f32>>);

impl TextEmbedder for Prepared {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let i: usize = t[1..t.find(' ').unwrap()].parse().unwrap();
                self.0[i].clone()
            })
            .collect())
    }
    fn model_id(&self) -> Option<String> {
        Some("prepared".into())
    }
    fn dimension(&self) -> Option<usize> {
        Some(DIM)
    }
}

fn lcg(state: &mut u64) -> f32 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    #[allow(clippy::cast_precision_loss, reason = "test data")]
    let x = (*state >> 40) as f32 / (1u64 << 24) as f32;
    x * 2.0 - 1.0
}

fn vectors() -> Vec<Vec<f32>> {
    let mut s = 7u64;
    let mut out: Vec<Vec<f32>> = (0..120)
        .map(|_| (0..DIM).map(|_| lcg(&mut s)).collect())
        .collect();
    let base = out[3].clone();
    // Exact ties: the same vector three more times.
    for _ in 0..3 {
        out.push(base.clone());
    }
    // One-ulp neighbours and scaled copies of the same direction.
    let mut ulp = base.clone();
    ulp[0] = f32::from_bits(ulp[0].to_bits() + 1);
    out.push(ulp);
    out.push(base.iter().map(|x| x * 3.0).collect());
    out.push(base.iter().map(|x| x * 0.1).collect());
    // Outliers: norms LanceDB's f32 scorer cannot be trusted with.
    out.push(base.iter().map(|x| x * 1e12).collect());
    out.push(base.iter().map(|x| x * 1e-12).collect());
    out.push(out[10].iter().map(|x| x * 1e15).collect());
    out
}

fn rows(n: usize) -> Vec<TripleAssertion> {
    (0..n)
        .map(|i| {
            TripleAssertion::new(
                &format!("r{i}"),
                "has",
                if i % 3 == 0 { "Even" } else { "odd" },
            )
            .with_scope(if i % 2 == 0 { "a" } else { "b" })
            .with_id(&format!("id{i}"))
        })
        .collect()
}

fn answer(s: &dyn TripleStore, q: &TripleQuery) -> Vec<(String, u64)> {
    s.query(q)
        .unwrap()
        .into_iter()
        .map(|r| {
            let score = r.attributes["_retrieval"]["score"].as_f64().unwrap();
            (r.assertion_id.unwrap(), score.to_bits())
        })
        .collect()
}

#[test]
fn semantic_answers_equal_the_reference_store_bit_for_bit() {
    let vs = vectors();
    let n = vs.len();
    let embedder: Arc<dyn TextEmbedder> = Arc::new(Prepared(vs.clone()));
    let reference = InMemoryTripleStore::new(Some(embedder.clone()));
    let dir = tempfile::tempdir().unwrap();
    let lance = LanceDBTripleStore::open(
        &dir.path().join("kg").to_string_lossy(),
        Some(embedder),
        LanceStoreOptions::default(),
    )
    .unwrap();
    let all = rows(n);
    // Two batches, so the table has more than one fragment.
    for chunk in all.chunks(70) {
        reference.add(chunk).unwrap();
        lance.add(chunk).unwrap();
    }
    let mut checked = 0;
    for probe in [3usize, 10, 42, n - 1, n - 3] {
        for limit in [1i64, 3, 4, 10, 0] {
            for min_score in [None, Some(0.2), Some(0.999_999)] {
                for (scope, object) in [(None, None), (Some("a"), None), (None, Some("even"))] {
                    let q = TripleQuery {
                        query_vector: Some(vs[probe].clone()),
                        limit,
                        min_score,
                        scope: scope.map(str::to_owned),
                        object: object.map(str::to_owned),
                        ..TripleQuery::default()
                    };
                    assert_eq!(
                        answer(&lance, &q),
                        answer(&reference, &q),
                        "probe {probe} limit {limit} min_score {min_score:?} scope {scope:?} object {object:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 5 * 5 * 3 * 3);
}
