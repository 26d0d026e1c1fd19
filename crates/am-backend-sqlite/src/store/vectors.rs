//! Vector search: the in-process float32 matrix cache served by the shared SIMD
//! fast path (candidate selection with a margin, exact re-scoring), and the
//! reference linear scan it falls back to.
//!
//! Both paths return what `am_triples::vector::rank_by_cosine` returns over the
//! same rows in rowid order: the same rows, order and bit-identical scores.
//!
//! Spec: stores.md "SQLiteTripleStore" (matrix cache, `vector_generation`,
//! `vector_engine`); troubleshooting "`#FALLBACK: SQLite vector search uses the
//! Python linear scan`".

use crate::error::Result;
use crate::store::codec::{self, Decoded};
use crate::store::schema;
use am_triples::vector::rank_by_cosine_fast;
use rusqlite::{Connection, params};

/// `vector_engine()` when the matrix cache serves.
pub const ENGINE_MATRIX: &str = "simd-matrix-cache";
/// `vector_engine()` when the reference scan serves.
pub const ENGINE_SCAN: &str = "reference-linear-scan";

/// The reference cosine over f64 values: the same arithmetic as
/// [`am_triples::vector::cosine`] (for f32 inputs widened to f64 the result is
/// bit-identical), also used for 0.3.x JSON vectors float32 cannot hold.
pub fn cosine_f64(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n == 0 {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na <= 0.0 || nb <= 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// The float32 matrix of every vectored row, in rowid order.
///
/// Memory: 4 bytes per dimension per vectored row, plus 8 bytes per row (its
/// rowid), plus at most 1/16 growth slack.
#[derive(Debug, Default)]
pub struct MatrixCache {
    generation: i64,
    high_water: i64,
    dim: Option<usize>,
    data: Vec<f32>,
    rowids: Vec<i64>,
    defect: Option<String>,
}

impl MatrixCache {
    /// Build the cache from every vectored row of `table`.
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn build(conn: &Connection, table: &str) -> Result<Self> {
        let generation = schema::meta_int(conn, table, schema::META_VECTOR_GENERATION)?;
        let mut cache = MatrixCache {
            generation,
            ..MatrixCache::default()
        };
        cache.append_since(conn, table)?;
        cache.data.shrink_to_fit();
        cache.rowids.shrink_to_fit();
        Ok(cache)
    }

    /// Bring the cache up to date: rebuilt when `vector_generation` moved,
    /// otherwise appended with the rows written since (by any handle or process).
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn refresh(cache: &mut Option<MatrixCache>, conn: &Connection, table: &str) -> Result<()> {
        let generation = schema::meta_int(conn, table, schema::META_VECTOR_GENERATION)?;
        match cache {
            Some(c) if c.generation == generation => c.append_since(conn, table),
            _ => {
                *cache = Some(MatrixCache::build(conn, table)?);
                Ok(())
            }
        }
    }

    fn append_since(&mut self, conn: &Connection, table: &str) -> Result<()> {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT rowid, embedding FROM {table} WHERE rowid > ?1 AND embedding IS NOT NULL ORDER BY rowid"
        ))?;
        let mut rows = stmt.query(params![self.high_water])?;
        while let Some(r) = rows.next()? {
            let rowid: i64 = r.get(0)?;
            self.high_water = rowid;
            if self.defect.is_some() {
                continue;
            }
            match codec::decode_cell(r.get_ref(1)?) {
                Decoded::Missing => {}
                Decoded::F32(v) => self.push(rowid, v),
                Decoded::F64(_) => {
                    self.defect = Some(format!(
                        "row {rowid} holds a JSON vector value float32 cannot hold"
                    ));
                }
                Decoded::Malformed(why) => {
                    self.defect = Some(format!("row {rowid}: {why}"));
                }
            }
        }
        if self.defect.is_some() {
            self.data = Vec::new();
            self.rowids = Vec::new();
        }
        Ok(())
    }

    fn push(&mut self, rowid: i64, v: Vec<f32>) {
        if let Some(d) = self.dim
            && d != v.len()
        {
            self.defect = Some(format!(
                "mixed dimensions {d} and {} (row {rowid})",
                v.len()
            ));
            return;
        }
        if let Some((i, x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            self.defect = Some(format!("non-finite value {x} at index {i} (row {rowid})"));
            return;
        }
        self.dim = Some(v.len());
        let need = v.len();
        if self.data.capacity() - self.data.len() < need {
            // Grow by at least 1/16 so appends amortize without doubling memory.
            let extra = need.max(self.data.len() / 16);
            self.data.reserve_exact(extra);
            let rows_extra = 1usize.max(self.rowids.len() / 16);
            self.rowids.reserve_exact(rows_extra);
        }
        self.data.extend_from_slice(&v);
        self.rowids.push(rowid);
    }

    /// Why the matrix cannot score exactly (the scan serves), if it cannot.
    pub fn defect(&self) -> Option<&str> {
        self.defect.as_deref()
    }

    /// The dimension of the cached vectors (`None` when there are none).
    pub fn dim(&self) -> Option<usize> {
        self.dim
    }

    /// Bytes held by the cache (matrix and rowids, with growth slack).
    pub fn bytes(&self) -> usize {
        self.data.capacity() * 4 + self.rowids.capacity() * 8
    }

    fn row(&self, i: usize) -> &[f32] {
        let d = self.dim.unwrap_or(0);
        &self.data[i * d..(i + 1) * d]
    }

    /// Rank by the reference cosine through
    /// [`am_triples::vector::rank_by_cosine_fast`] (SIMD float32 estimates with
    /// an error margin, then exact re-scoring with the reference `cosine`).
    /// `candidates` are rowids in ascending order (`None`: every cached row).
    /// Returns `(rowid, score)` best first, ties by rowid ascending, `min_score`
    /// applied, truncated to `limit`: exactly `rank_by_cosine`'s answer.
    pub fn rank(
        &self,
        query: &[f32],
        candidates: Option<&[i64]>,
        min_score: Option<f64>,
        limit: Option<usize>,
    ) -> Vec<(i64, f64)> {
        let indices: Vec<usize> = match candidates {
            None => (0..self.rowids.len()).collect(),
            Some(c) => c
                .iter()
                .filter_map(|r| self.rowids.binary_search(r).ok())
                .collect(),
        };
        let rows: Vec<&[f32]> = indices.iter().map(|&i| self.row(i)).collect();
        rank_by_cosine_fast(query, rows.iter(), |v| Some(*v), min_score, limit)
            .into_iter()
            .map(|(k, s)| (self.rowids[indices[k]], s))
            .collect()
    }
}

/// The reference linear scan over `(rowid, decoded vector)` in rowid order:
/// exactly `rank_by_cosine`'s answer.
pub fn scan_rank(
    query: &[f32],
    rows: &[(i64, Decoded)],
    min_score: Option<f64>,
    limit: Option<usize>,
) -> Vec<(i64, f64)> {
    let q: Vec<f64> = query.iter().map(|x| f64::from(*x)).collect();
    let mut scored: Vec<(i64, f64)> = rows
        .iter()
        .filter_map(|(rowid, d)| d.as_f64().map(|v| (*rowid, cosine_f64(&q, &v))))
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
    fn cosine_f64_is_bit_identical_to_the_reference_for_f32_inputs() {
        use am_triples::vector::cosine;
        let a = [0.1f32, -0.7, 0.33, 1e-3];
        let b = [0.9f32, 0.2, -0.5];
        let wa: Vec<f64> = a.iter().map(|x| f64::from(*x)).collect();
        let wb: Vec<f64> = b.iter().map(|x| f64::from(*x)).collect();
        assert_eq!(cosine(&a, &b).to_bits(), cosine_f64(&wa, &wb).to_bits());
    }
}
