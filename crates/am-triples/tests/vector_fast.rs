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

/// One candidate bound: finite, infinite or NaN bounds (ties likely), exact or not.
fn bound() -> impl Strategy<Value = (f64, f64, bool)> {
    let edge = prop_oneof![
        8 => (-4i8..=4).prop_map(|x| f64::from(x) / 4.0),
        1 => Just(f64::NAN),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::INFINITY),
    ];
    (
        edge.clone(),
        (0u8..4).prop_map(|w| f64::from(w) / 8.0),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn the_streaming_bound_filter_keeps_the_answer_of_select_by_bounds(
        raw in prop::collection::vec(bound(), 0..80),
        limit in prop_oneof![Just(None), (0usize..12).prop_map(Some)],
        min_score in prop_oneof![Just(None), (-4i8..=4).prop_map(|x| Some(f64::from(x) / 4.0))],
    ) {
        use am_triples::vector::{BoundFilter, CosineBound, select_by_bounds};
        // The exact score of candidate i: inside its bounds when they are sane.
        let exact_of = |i: usize| {
            let (lo, w, _) = raw[i];
            if lo.is_finite() { lo + w / 2.0 } else { lo }
        };
        let bounds: Vec<CosineBound> = raw
            .iter()
            .enumerate()
            .map(|(i, &(lo, w, exact))| {
                let hi = lo + w;
                if exact { (i, lo, lo, Some(exact_of(i))) } else { (i, lo, hi, None) }
            })
            .collect();
        let mut filter = BoundFilter::new(min_score, limit);
        for b in &bounds {
            filter.offer(*b);
        }
        let kept = filter.into_kept();
        prop_assert!(kept.len() <= bounds.len());
        let bits = |r: Vec<(usize, f64)>| r.into_iter().map(|(i, s)| (i, s.to_bits())).collect::<Vec<_>>();
        prop_assert_eq!(
            bits(select_by_bounds(kept, min_score, limit, exact_of)),
            bits(select_by_bounds(bounds, min_score, limit, exact_of))
        );
    }
}

#[test]
fn the_bound_filter_drops_candidates_that_cannot_enter_the_top_k() {
    use am_triples::vector::BoundFilter;
    let mut filter = BoundFilter::new(None, Some(2));
    for (i, lo) in [0.9, 0.8, 0.1, 0.85, 0.2].into_iter().enumerate() {
        filter.offer((i, lo, lo + 0.01, None));
    }
    // After 0.9 and 0.8 the threshold is 0.8: 0.1 and 0.2 (upper 0.11, 0.21) go.
    let kept: Vec<usize> = filter.into_kept().iter().map(|b| b.0).collect();
    assert_eq!(kept, [0, 1, 3]);
}
