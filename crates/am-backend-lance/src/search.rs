//! Semantic queries: LanceDB's cosine search proposes candidates, the reference
//! cosine decides.
//!
//! LanceDB scores with f32 arithmetic (`1 - x·y / |x| / |y|`), which differs from
//! the reference cosine (`am_triples::vector::cosine`, f64) in the last digits and
//! can therefore order near-ties differently. The store never returns LanceDB's
//! scores or order: it asks LanceDB's exact (flat, index-bypassing) cosine search
//! for the `fetch` nearest rows, re-scores them with the reference, and returns
//! them only when it can prove no row left out could enter the answer:
//!
//! - LanceDB's distance `d` of a row whose squared norm lies in
//!   `[NORM2_MIN, NORM2_MAX]` (and a query likewise) is within
//!   `eps = 8·γₙ + 16·u + 1e-9` of `1 - cosine` (γₙ = n·u/(1−n·u), u = 2⁻²⁴: the
//!   f32 dot product and norm bound, with a factor 4 to spare);
//! - every row left out has `d >= d_max`, the largest distance fetched, so its
//!   reference score is at most `bound = 1 - d_max + eps`;
//! - so the answer is exact when the fetch exhausted the rows, when `bound` is
//!   below `min_score`, or when the k-th reference score is above `bound`.
//!
//! Otherwise the fetch grows fourfold and the check repeats. Rows whose norm is
//! outside the range (LanceDB's f32 arithmetic may overflow or underflow on them)
//! are always read and scored with the reference; so are queries that cannot use
//! the proof (unbounded limit, a dimension other than the column's). The
//! `vector_norm2` column is what lets the filters tell the two kinds of rows
//! apart. Spec: stores.md "LanceDBTripleStore" (query mechanics); algorithms.md §4.

use crate::filter;
use crate::schema::{self, NORM2, StoredRow};
use am_triples::vector::rank_by_cosine_fast;
use am_triples::{Error, Result, TripleQuery};
use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::Float32Type;
use futures::TryStreamExt;
use lancedb::DistanceType;
use lancedb::Table;
use lancedb::query::{ExecutableQuery, QueryBase, Select};

/// Squared norms LanceDB's f32 cosine handles within the bound (no overflow of
/// `|x|²`, no underflow that matters).
pub const NORM2_MIN: f64 = 1e-20;
/// See [`NORM2_MIN`].
pub const NORM2_MAX: f64 = 1e20;
/// The unit roundoff of f32.
const U: f64 = 1.0 / 16_777_216.0;

/// The first fetch for a limit of `k`.
pub fn first_fetch(k: usize) -> usize {
    (2 * k).max(k + 16)
}

/// The bound on `|d_lance - (1 - cosine)|` for vectors of dimension `n`, or
/// `None` when `n` is too large for the bound to be useful.
pub fn lance_eps(n: usize) -> Option<f64> {
    #[allow(
        clippy::cast_precision_loss,
        reason = "n is a vector dimension, far below 2^52"
    )]
    let nu = n as f64 * U;
    (nu < 0.01).then(|| 8.0 * nu / (1.0 - nu) + 16.0 * U + 1e-9)
}

/// The filter selecting rows LanceDB can score within the bound.
pub fn in_range() -> String {
    format!("{NORM2} >= {NORM2_MIN:e} AND {NORM2} <= {NORM2_MAX:e}")
}

/// The filter selecting rows with a vector LanceDB cannot score within the bound.
pub fn out_of_range() -> String {
    format!("({NORM2} < {NORM2_MIN:e} OR {NORM2} > {NORM2_MAX:e})")
}

/// One LanceDB flat cosine search: the `fetch` nearest rows passing `where_`,
/// with `columns` and `_distance`.
pub async fn knn(
    table: Table,
    query: Vec<f32>,
    vector_column: String,
    where_: String,
    fetch: usize,
    columns: Vec<String>,
) -> Result<Vec<RecordBatch>> {
    let storage = |what: &'static str| {
        move |e: lancedb::Error| Error::storage(format!("LanceDB {what}: {e}")).with_source(e)
    };
    table
        .query()
        .nearest_to(query)
        .map_err(storage("nearest_to"))?
        .column(&vector_column)
        .distance_type(DistanceType::Cosine)
        .bypass_vector_index()
        .only_if(where_)
        .limit(fetch)
        .select(Select::columns(&columns))
        .execute()
        .await
        .map_err(storage("vector search"))?
        .try_collect::<Vec<_>>()
        .await
        .map_err(storage("vector search read"))
}

/// Decode a `knn` answer: the rows and LanceDB's distances, in LanceDB's order.
///
/// # Errors
/// `Storage` when the answer lacks `_distance` or a row column.
pub fn decode_knn(
    batches: &[RecordBatch],
    vector_column: &str,
) -> Result<(Vec<StoredRow>, Vec<f32>)> {
    let mut rows = Vec::new();
    let mut distances = Vec::new();
    for b in batches {
        let d = b
            .column_by_name("_distance")
            .and_then(|a| a.as_primitive_opt::<Float32Type>())
            .ok_or_else(|| Error::storage("LanceDB vector search answer lacks _distance"))?;
        distances.extend(d.iter().map(|x| x.unwrap_or(f32::NAN)));
        rows.extend(schema::from_batch(b, vector_column)?);
    }
    Ok((rows, distances))
}

/// What one round of the proof concluded.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// The ranking is the reference answer.
    Exact(Vec<(usize, f64)>),
    /// Fetch more rows and try again.
    FetchMore,
    /// LanceDB's distances are unusable (non-finite): score every row instead.
    Scan,
}

/// Rank `pool` (candidates that pass the row predicate, plus the out-of-range
/// rows, in insertion order) with the reference cosine, and decide whether the
/// ranking is exact given the round's LanceDB `distances` and whether the fetch
/// came back short (`exhausted`).
pub fn judge(
    q: &TripleQuery,
    query: &[f32],
    pool: &[StoredRow],
    distances: &[f32],
    exhausted: bool,
    eps: f64,
    k: usize,
) -> Verdict {
    if distances.iter().any(|d| !d.is_finite()) {
        return Verdict::Scan;
    }
    let ranked = rank_by_cosine_fast(
        query,
        pool.iter(),
        |r| r.vector.as_deref(),
        q.min_score,
        Some(k),
    );
    if exhausted {
        return Verdict::Exact(ranked);
    }
    let d_max = distances.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let bound = 1.0 - f64::from(d_max) + eps;
    let below_min = q.min_score.is_some_and(|m| bound < m);
    let kth_above = ranked.len() >= k && ranked[k - 1].1 > bound;
    if below_min || kth_above {
        Verdict::Exact(ranked)
    } else {
        Verdict::FetchMore
    }
}

/// The clause of a round: the query's filters and the in-range rows.
pub fn round_filter(q: &TripleQuery) -> String {
    filter::and(filter::where_clause(q), Some(in_range())).unwrap_or_else(in_range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eps_grows_with_the_dimension_and_gives_up_on_huge_ones() {
        let e384 = lance_eps(384).unwrap();
        assert!(e384 > 384.0 * 8.0 * U && e384 < 1e-3, "{e384}");
        assert!(lance_eps(1_000_000).is_none());
    }

    #[test]
    fn range_filters_are_complementary_sql() {
        assert_eq!(in_range(), "vector_norm2 >= 1e-20 AND vector_norm2 <= 1e20");
        assert_eq!(
            out_of_range(),
            "(vector_norm2 < 1e-20 OR vector_norm2 > 1e20)"
        );
    }
}
