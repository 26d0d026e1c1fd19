//! `rank_by_cosine_fast` returns exactly the reference `rank_by_cosine` answer
//! (rows, order, scores) on random data, including ties, duplicates, mixed
//! lengths, vectorless items, extreme magnitudes and thresholds equal to a score.

use am_triples::vector::{cosine, rank_by_cosine, rank_by_cosine_fast};
use proptest::prelude::*;

/// A value drawn to make ties likely (small integers), or any moderate float, or
/// an extreme magnitude that defeats the SIMD estimate.
fn value() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => (-3i8..=3).prop_map(f32::from),
        6 => -1.0f32..1.0,
        1 => prop_oneof![Just(1e-25f32), Just(-3e-30), Just(1e18), Just(-2e19)],
    ]
}

fn vector(dim: usize) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(value(), dim)
}

/// Items: mostly `dim`-long vectors, some shorter or longer, some without one,
/// some exact (or scaled) copies of earlier items.
fn items(dim: usize) -> impl Strategy<Value = Vec<Option<Vec<f32>>>> {
    prop::collection::vec(
        prop_oneof![
            8 => vector(dim).prop_map(Some),
            1 => (1..=dim + 3).prop_flat_map(vector).prop_map(Some),
            1 => Just(None),
        ],
        0..60,
    )
    .prop_flat_map(|base| {
        let n = base.len();
        (
            Just(base),
            prop::collection::vec((0..n.max(1), 0.5f32..3.0), 0..10),
        )
    })
    .prop_map(|(mut base, copies)| {
        for (i, scale) in copies {
            if let Some(Some(v)) = base.get(i).cloned() {
                base.push(Some(v.iter().map(|x| x * scale).collect()));
                base.push(Some(v));
            }
        }
        base
    })
}

fn of(v: &Option<Vec<f32>>) -> Option<&[f32]> {
    v.as_deref()
}

/// A query, the items, a limit, and a pick of one item's score as `min_score`.
type Case = (Vec<f32>, Vec<Option<Vec<f32>>>, Option<usize>, u8);

fn case() -> impl Strategy<Value = Case> {
    (1usize..24).prop_flat_map(|dim| {
        (
            prop_oneof![4 => vector(dim), 1 => (1..=dim + 2).prop_flat_map(vector)],
            items(dim),
            prop_oneof![Just(None), (1usize..12).prop_map(Some)],
            any::<u8>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fast_path_equals_reference((query, items, limit, pick) in case()) {
        // Thresholds: none, a fixed one, and exactly one item's reference score.
        let scores: Vec<f64> = items.iter().flatten().map(|v| cosine(&query, v)).collect();
        let exact = (!scores.is_empty()).then(|| scores[usize::from(pick) % scores.len()]);
        for min_score in [None, Some(0.0), Some(-0.5), Some(0.9), exact] {
            let fast = rank_by_cosine_fast(&query, items.iter(), of, min_score, limit);
            let reference = rank_by_cosine(&query, items.iter(), of, min_score, limit);
            // Compare scores bit for bit, not just by value.
            let bits = |r: &[(usize, f64)]| r.iter().map(|(i, s)| (*i, s.to_bits())).collect::<Vec<_>>();
            prop_assert_eq!(bits(&fast), bits(&reference), "min_score {:?} limit {:?}", min_score, limit);
        }
    }
}

#[test]
fn near_ties_beyond_f32_precision_keep_the_reference_order() {
    // Vectors whose cosines differ by less than the SIMD error bound.
    let query = [1.0f32, 1e-4, 0.0];
    let items: Vec<Vec<f32>> = (0..50)
        .map(|i| vec![1.0, 1e-4 + (i as f32) * 1e-9, 1e-7 * ((i % 7) as f32)])
        .collect();
    for limit in [Some(1), Some(3), Some(10), None] {
        let fast = rank_by_cosine_fast(&query, items.iter(), |v| Some(v.as_slice()), None, limit);
        let reference = rank_by_cosine(&query, items.iter(), |v| Some(v.as_slice()), None, limit);
        assert_eq!(fast, reference, "limit {limit:?}");
    }
}
