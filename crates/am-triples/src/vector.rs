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
    let n = a.len().min(b.len());
    if n == 0 {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        let (x, y) = (f64::from(a[i]), f64::from(b[i]));
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
/// [`Error::InvalidInput`] naming the defect.
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
/// [`Error::InvalidInput`] for a non-finite value or one outside f32's range.
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
    let mut scored: Vec<(usize, f64)> = items
        .into_iter()
        .enumerate()
        .filter_map(|(i, it)| vector_of(it).map(|v| (i, cosine(query, v))))
        .filter(|(_, s)| min_score.is_none_or(|m| *s >= m))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    if let Some(n) = limit {
        scored.truncate(n.max(1));
    }
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

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
