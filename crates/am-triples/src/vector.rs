//! Vector scoring: the reference cosine, `rank_by_cosine`, and vector validation.
//!
//! The reference defines the exact answer (algorithms.md §4): f64 accumulation, one
//! element at a time over the overlapping prefix, `dot / (sqrt(na) * sqrt(nb))`.
//! Fast paths (SIMD candidate selection) must return the same rows, order and
//! scores: they select candidates with a margin and re-score with [`cosine`].

use crate::error::{Error, Result};

/// The `metric` label every store puts in `_retrieval`.
pub const METRIC_COSINE: &str = "cosine";

/// The reference cosine of two f32 vectors, accumulated in f64 sequentially over
/// the overlapping prefix. 0.0 when either is empty or has zero norm.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    cosine_of(a, b)
}

/// The reference cosine over any values that widen to f64 exactly (f32, or the
/// f64 values of a 0.3.x JSON vector float32 cannot hold): the same arithmetic
/// as [`cosine`], which is this function on f32.
pub fn cosine_of<T: Copy + Into<f64>>(a: &[T], b: &[T]) -> f64 {
    let n = a.len().min(b.len());
    if n == 0 {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        let (x, y): (f64, f64) = (a[i].into(), b[i].into());
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na <= 0.0 || nb <= 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// Refuse vectors that cannot be ranked: empty, zero-norm, NaN or infinite.
///
/// # Errors
/// `InvalidInput` naming the defect.
pub fn validate_vector(v: &[f32]) -> Result<()> {
    if v.is_empty() {
        return Err(Error::invalid(
            "expected a non-empty vector, got an empty one",
        ));
    }
    if let Some((i, x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(Error::invalid(format!(
            "expected finite vector values, got {x} at index {i}"
        )));
    }
    if v.iter().all(|x| *x == 0.0) {
        return Err(Error::invalid(
            "expected a vector with non-zero norm, got all zeros",
        ));
    }
    Ok(())
}

/// Convert f64 values (from JSON) to f32, refusing values f32 cannot hold.
///
/// # Errors
/// `InvalidInput` for a non-finite value or one outside f32's range.
pub fn to_f32_vector(values: &[f64]) -> Result<Vec<f32>> {
    values
        .iter()
        .enumerate()
        .map(|(i, x)| {
            #[allow(clippy::cast_possible_truncation, reason = "range checked just below")]
            let f = *x as f32;
            if !x.is_finite() || !f.is_finite() {
                Err(Error::invalid(format!(
                    "vector value {x} at index {i} cannot be held as float32"
                )))
            } else {
                Ok(f)
            }
        })
        .collect()
}

/// Rank items by reference cosine against `query`.
///
/// Items are visited in input order; items without a vector are skipped; scores
/// below `min_score` are dropped; the sort is stable by score descending (ties keep
/// input order, i.e. insertion order); then truncated to `limit` (`None` =
/// unbounded). Returns `(index into items, score)`.
pub fn rank_by_cosine<'a, T: 'a>(
    query: &[f32],
    items: impl IntoIterator<Item = &'a T>,
    vector_of: impl Fn(&T) -> Option<&[f32]>,
    min_score: Option<f64>,
    limit: Option<usize>,
) -> Vec<(usize, f64)> {
    keep_top(
        items
            .into_iter()
            .enumerate()
            .filter_map(|(i, it)| vector_of(it).map(|v| (i, cosine(query, v)))),
        min_score,
        limit,
    )
}

/// The reference's selection over scored items given in input order: scores
/// below `min_score` are dropped, the rest stably sorted by score descending
/// (ties keep input order, i.e. insertion order), then truncated to `limit`
/// (at least 1; `None` = unbounded). [`rank_by_cosine`], [`select_by_bounds`]
/// and a store's own reference scan all select through here.
pub fn keep_top<I>(
    scored: impl IntoIterator<Item = (I, f64)>,
    min_score: Option<f64>,
    limit: Option<usize>,
) -> Vec<(I, f64)> {
    let mut kept: Vec<(I, f64)> = scored
        .into_iter()
        .filter(|(_, s)| min_score.is_none_or(|m| *s >= m))
        .collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1));
    if let Some(n) = limit {
        kept.truncate(n.max(1));
    }
    kept
}

/// The fast path of [`rank_by_cosine`]: the same answer (rows, order and scores,
/// bit for bit), computed with SIMD where it is safe.
///
/// Each item's cosine is first estimated with `simsimd` f32 dot products (the dot
/// and both squared norms over the overlapping prefix). The estimate is within
/// `eps = 4·γₙ + 1e-9` of the reference (γₙ = n·u/(1−n·u), u = 2⁻²⁴, the classic
/// bound for an f32 dot product of length n in any summation order, divided by the
/// norms by Cauchy–Schwarz). An item is a candidate unless its upper bound is
/// below `min_score`, or below the k-th largest lower bound among the items that
/// surely pass `min_score` (then k items surely outrank it). Candidates are
/// re-scored with the reference [`cosine`], filtered, stably sorted and truncated,
/// which is exactly what the reference does to them; a non-candidate can never be
/// in the reference's first k. Items whose estimate is not trustworthy (a squared
/// norm outside `[1e-30, 1e30]`, a non-finite value, an empty prefix, very long
/// vectors) are scored with the reference directly and always kept as candidates.
///
/// Shapes: `query` and the item vectors are f32 slices of any length (the cosine
/// is over the overlapping prefix). Returns `(index into items, score)` like
/// [`rank_by_cosine`]. Spec: algorithms.md §4 (the fast path must return the
/// reference's rows, order and scores).
///
/// # Examples
/// ```
/// use am_triples::vector::{rank_by_cosine, rank_by_cosine_fast};
/// let rows = vec![vec![1.0f32, 0.0], vec![0.6, 0.8], vec![0.0, 1.0]];
/// let fast = rank_by_cosine_fast(&[1.0, 0.2], rows.iter(), |v| Some(v.as_slice()), None, Some(2));
/// let reference = rank_by_cosine(&[1.0, 0.2], rows.iter(), |v| Some(v.as_slice()), None, Some(2));
/// assert_eq!(fast, reference);
/// ```
pub fn rank_by_cosine_fast<'a, T: 'a>(
    query: &[f32],
    items: impl IntoIterator<Item = &'a T>,
    vector_of: impl Fn(&T) -> Option<&[f32]>,
    min_score: Option<f64>,
    limit: Option<usize>,
) -> Vec<(usize, f64)> {
    let items: Vec<&T> = items.into_iter().collect();
    if min_score.is_some_and(f64::is_nan) {
        return rank_by_cosine(query, items.iter().copied(), vector_of, min_score, limit);
    }
    let query_norm = simd_dot(query, query);
    // (index, lower bound, upper bound, exact score when already computed)
    let mut bounds = BoundFilter::new(min_score, limit);
    for (i, it) in items.iter().enumerate() {
        let Some(v) = vector_of(it) else { continue };
        match approx_cosine(query, query_norm, v) {
            Some((s, eps)) => bounds.offer((i, s - eps, s + eps, None)),
            None => {
                let s = cosine(query, v);
                bounds.offer((i, s, s, Some(s)));
            }
        }
    }
    select_by_bounds(bounds.into_kept(), min_score, limit, |i| {
        vector_of(items[i]).map_or(f64::NAN, |v| cosine(query, v))
    })
}

/// One candidate of a SIMD pass: `(index, lower bound, upper bound, exact score
/// when the pass already computed it)` of its reference cosine.
pub type CosineBound = (usize, f64, f64, Option<f64>);

/// A streaming prefilter in front of [`select_by_bounds`]: it drops, as the
/// bounds are computed, every candidate that [`select_by_bounds`] would drop
/// anyway, so a pass over many rows keeps a short list instead of one bound per
/// row.
///
/// It tracks the `limit` largest lower bounds seen so far among candidates whose
/// lower bound passes `min_score`. The smallest of them only rises as candidates
/// arrive, and it never exceeds the final one [`select_by_bounds`] computes, so a
/// candidate whose upper bound is below it now is below the final one too. Every
/// candidate holding one of the final `limit` largest lower bounds is kept
/// (its upper bound is at least its lower bound), so [`select_by_bounds`] over
/// the kept candidates finds the same threshold and returns the same answer.
#[derive(Debug)]
pub struct BoundFilter {
    floor: f64,
    k: Option<usize>,
    /// The largest lower bounds so far (a min-heap of at most `k`).
    top: std::collections::BinaryHeap<std::cmp::Reverse<TotalF64>>,
    kept: Vec<CosineBound>,
}

/// An `f64` ordered by [`f64::total_cmp`].
#[derive(Debug, Clone, Copy)]
struct TotalF64(f64);

impl PartialEq for TotalF64 {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}
impl Eq for TotalF64 {}
impl PartialOrd for TotalF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TotalF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl BoundFilter {
    /// A filter for [`select_by_bounds`]`(_, min_score, limit, _)`.
    pub fn new(min_score: Option<f64>, limit: Option<usize>) -> Self {
        BoundFilter {
            floor: min_score.unwrap_or(f64::NEG_INFINITY),
            k: limit.map(|n| n.max(1)),
            top: std::collections::BinaryHeap::new(),
            kept: Vec::new(),
        }
    }

    /// Offer one candidate (in candidate order); it is kept unless it surely
    /// cannot enter the answer.
    #[inline]
    pub fn offer(&mut self, bound: CosineBound) {
        let (_, lo, hi, _) = bound;
        let mut threshold = f64::NEG_INFINITY;
        if let Some(k) = self.k {
            if lo >= self.floor {
                let full = self.top.len() >= k;
                if !full {
                    self.top.push(std::cmp::Reverse(TotalF64(lo)));
                } else if self.top.peek().is_some_and(|m| lo > m.0.0) {
                    self.top.pop();
                    self.top.push(std::cmp::Reverse(TotalF64(lo)));
                }
            }
            if self.top.len() >= k {
                threshold = self.top.peek().map_or(f64::NEG_INFINITY, |m| m.0.0);
            }
        }
        if hi.is_nan() || (hi >= self.floor && hi >= threshold) {
            self.kept.push(bound);
        }
    }

    /// The kept candidates, in the order offered.
    pub fn into_kept(self) -> Vec<CosineBound> {
        self.kept
    }
}

/// The selection every SIMD fast path shares: keep each candidate whose upper
/// bound could reach the top `limit` (the k-th largest lower bound among those
/// that surely pass `min_score`) and pass `min_score`, re-score it with
/// `exact_of(index)` (the reference [`cosine`]), then sort stably by score
/// descending (ties keep the candidates' order) and truncate to `limit`.
///
/// Returns `(index, score)`, exactly what [`rank_by_cosine`] returns over the
/// same candidates when the bounds are sound. A NaN upper bound is kept (and
/// re-scored) rather than trusted.
pub fn select_by_bounds(
    bounds: Vec<CosineBound>,
    min_score: Option<f64>,
    limit: Option<usize>,
    exact_of: impl Fn(usize) -> f64,
) -> Vec<(usize, f64)> {
    let floor = min_score.unwrap_or(f64::NEG_INFINITY);
    let k = limit.map(|n| n.max(1));
    // The k-th largest lower bound among items that surely pass `min_score`.
    let mut threshold = f64::NEG_INFINITY;
    if let Some(k) = k {
        let mut sure: Vec<f64> = bounds
            .iter()
            .map(|b| b.1)
            .filter(|lo| *lo >= floor)
            .collect();
        if sure.len() >= k {
            let (_, kth, _) = sure.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
            threshold = *kth;
        }
    }
    keep_top(
        bounds
            .into_iter()
            .filter(|(_, _, hi, _)| hi.is_nan() || (*hi >= floor && *hi >= threshold))
            .map(|(i, _, _, exact)| (i, exact.unwrap_or_else(|| exact_of(i)))),
        min_score,
        k,
    )
}

/// `simsimd`'s f32 dot product (0.0 for mismatched lengths, which callers avoid).
fn simd_dot(a: &[f32], b: &[f32]) -> f64 {
    use simsimd::SpatialSimilarity;
    f32::dot(a, b).unwrap_or(f64::NAN)
}

/// The SIMD estimate of the reference cosine and its error bound, or `None` when
/// the estimate cannot be trusted (the caller then uses the reference).
fn approx_cosine(query: &[f32], query_norm: f64, v: &[f32]) -> Option<(f64, f64)> {
    const UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0; // 2^-24, f32's unit roundoff
    let n = query.len().min(v.len());
    // n is a vector length, far below 2^52: the conversion is exact.
    let nu = n as f64 * UNIT_ROUNDOFF;
    if n == 0 || nu >= 0.01 {
        return None;
    }
    let (q, v) = (&query[..n], &v[..n]);
    let qn = if n == query.len() {
        query_norm
    } else {
        simd_dot(q, q)
    };
    let vn = simd_dot(v, v);
    let dot = simd_dot(q, v);
    let sane = |x: f64| x.is_finite() && (1e-30..=1e30).contains(&x);
    if !(sane(qn) && sane(vn) && dot.is_finite()) {
        return None;
    }
    let gamma = nu / (1.0 - nu);
    Some((dot / (qn.sqrt() * vn.sqrt()), 4.0 * gamma + 1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cosine_of_widened_f64_values_is_bit_identical_to_the_f32_reference() {
        let a = [0.1f32, -0.7, 0.33, 1e-3];
        let b = [0.9f32, 0.2, -0.5];
        let wa: Vec<f64> = a.iter().map(|x| f64::from(*x)).collect();
        let wb: Vec<f64> = b.iter().map(|x| f64::from(*x)).collect();
        assert_eq!(cosine(&a, &b).to_bits(), cosine_of(&wa, &wb).to_bits());
    }

    #[test]
    fn cosine_uses_overlapping_prefix_and_zero_norm_is_zero() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0, 5.0]) - 1.0).abs() < 1e-15);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[], &[1.0]), 0.0);
    }

    #[test]
    fn ties_keep_input_order() {
        let items = [vec![1.0f32, 0.0], vec![2.0, 0.0], vec![0.0, 1.0]];
        let r = rank_by_cosine(
            &[1.0, 0.0],
            items.iter(),
            |v| Some(v.as_slice()),
            None,
            None,
        );
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn invalid_vectors_are_refused() {
        for v in [
            vec![],
            vec![0.0f32, 0.0],
            vec![f32::NAN],
            vec![f32::INFINITY, 1.0],
        ] {
            assert_eq!(
                validate_vector(&v).unwrap_err().kind(),
                crate::ErrorKind::InvalidInput
            );
        }
        assert!(to_f32_vector(&[1e300]).is_err());
    }
}
