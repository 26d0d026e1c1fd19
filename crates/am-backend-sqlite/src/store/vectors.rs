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
use crate::store::names::Names;
use crate::store::schema;
use am_triples::vector::{
    BoundFilter, CosineBound, cosine, cosine_of, keep_top, rank_by_cosine_fast, select_by_bounds,
};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};
use simsimd::SpatialSimilarity;

/// `vector_engine()` when the matrix cache serves.
pub const ENGINE_MATRIX: &str = "simd-matrix-cache";
/// `vector_engine()` when the reference scan serves.
pub const ENGINE_SCAN: &str = "reference-linear-scan";

/// Which cached rows a ranking considers.
#[derive(Debug, Clone, Copy)]
pub enum Candidates<'a> {
    /// Every cached row.
    All,
    /// These rowids, ascending (rows without a cached vector are skipped).
    Rowids(&'a [i64]),
    /// The rows whose `scope` and `owner_id` columns equal these values exactly
    /// (`None`: that column is not filtered), as SQL's `scope = ?` and
    /// `owner_id = ?` select them (a NULL or non-text column never matches).
    Partition {
        /// The scope to match, if filtered.
        scope: Option<&'a str>,
        /// The owner to match, if filtered.
        owner_id: Option<&'a str>,
    },
}

/// The float32 matrix of every vectored row, in rowid order, with each row's
/// `scope` and `owner_id` as interned ids (both columns are written once and
/// never updated), so partition filters run without SQL.
///
/// Memory: 4 bytes per dimension per vectored row, plus 24 bytes per row (its
/// rowid, squared norm, scope id and owner id), plus at most 1/16 growth slack,
/// plus one copy of each distinct scope and owner string.
#[derive(Debug, Default)]
pub struct MatrixCache {
    generation: i64,
    high_water: i64,
    dim: Option<usize>,
    data: Vec<f32>,
    rowids: Vec<i64>,
    sq_norms: Vec<f64>,
    scopes: Vec<u32>,
    owners: Vec<u32>,
    names: Names,
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
        cache.sq_norms.shrink_to_fit();
        cache.scopes.shrink_to_fit();
        cache.owners.shrink_to_fit();
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
            "SELECT rowid, embedding, scope, owner_id FROM {table} \
             WHERE rowid > ?1 AND embedding IS NOT NULL ORDER BY rowid"
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
                Decoded::F32(v) => {
                    let scope = self.intern(r.get_ref(2)?);
                    let owner = self.intern(r.get_ref(3)?);
                    self.push(rowid, v, scope, owner);
                }
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
            self.sq_norms = Vec::new();
            self.scopes = Vec::new();
            self.owners = Vec::new();
            self.names = Names::default();
        }
        Ok(())
    }

    fn intern(&mut self, cell: ValueRef<'_>) -> u32 {
        self.names.intern(cell)
    }

    fn push(&mut self, rowid: i64, v: Vec<f32>, scope: u32, owner: u32) {
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
            self.sq_norms.reserve_exact(rows_extra);
            self.scopes.reserve_exact(rows_extra);
            self.owners.reserve_exact(rows_extra);
        }
        self.sq_norms
            .push(v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum());
        self.data.extend_from_slice(&v);
        self.rowids.push(rowid);
        self.scopes.push(scope);
        self.owners.push(owner);
    }

    /// Patch one row after this handle's committed digest rewrite moved
    /// `vector_generation` from `generation`: its vector replaced, removed
    /// (`None`) or inserted in rowid order. The cache then stands at the new
    /// generation. A cache built at another generation, or a patch that could
    /// not be exact (a defect, another dimension), is left to rebuild.
    pub fn patch_row(
        &mut self,
        generation: i64,
        rowid: i64,
        v: Option<&[f32]>,
        scope: &str,
        owner_id: Option<&str>,
    ) {
        if self.generation != generation || self.defect.is_some() {
            return;
        }
        if rowid <= self.high_water && !self.patch(rowid, v, scope, owner_id) {
            return;
        }
        self.generation = generation + 1;
    }

    fn patch(
        &mut self,
        rowid: i64,
        v: Option<&[f32]>,
        scope: &str,
        owner_id: Option<&str>,
    ) -> bool {
        if let Some(v) = v
            && (self.dim.is_some_and(|d| d != v.len()) || v.iter().any(|x| !x.is_finite()))
        {
            return false;
        }
        let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>();
        match (self.rowids.binary_search(&rowid), v) {
            (Ok(i), Some(v)) => {
                let d = v.len();
                self.data[i * d..(i + 1) * d].copy_from_slice(v);
                self.sq_norms[i] = norm(v);
            }
            (Ok(i), None) => {
                let d = self.dim.unwrap_or(0);
                self.data.drain(i * d..(i + 1) * d);
                self.rowids.remove(i);
                self.sq_norms.remove(i);
                self.scopes.remove(i);
                self.owners.remove(i);
            }
            (Err(i), Some(v)) => {
                let d = v.len();
                let s = self.names.intern(ValueRef::Text(scope.as_bytes()));
                let o = match owner_id {
                    Some(o) => self.names.intern(ValueRef::Text(o.as_bytes())),
                    None => self.names.intern(ValueRef::Null),
                };
                self.dim = Some(d);
                self.data.splice(i * d..i * d, v.iter().copied());
                self.rowids.insert(i, rowid);
                self.sq_norms.insert(i, norm(v));
                self.scopes.insert(i, s);
                self.owners.insert(i, o);
            }
            (Err(_), None) => {}
        }
        true
    }

    /// Why the matrix cannot score exactly (the scan serves), if it cannot.
    pub fn defect(&self) -> Option<&str> {
        self.defect.as_deref()
    }

    /// The dimension of the cached vectors (`None` when there are none).
    pub fn dim(&self) -> Option<usize> {
        self.dim
    }

    /// Bytes held by the cache (matrix, rowids, squared norms, scope and owner
    /// ids with growth slack, and the interned strings).
    pub fn bytes(&self) -> usize {
        self.data.capacity() * 4
            + self.rowids.capacity() * 8
            + self.sq_norms.capacity() * 8
            + self.scopes.capacity() * 4
            + self.owners.capacity() * 4
            + self.names.bytes()
    }

    /// The cache indices of `candidates`, ascending.
    fn indices(&self, candidates: Candidates<'_>) -> Vec<usize> {
        match candidates {
            Candidates::All => (0..self.rowids.len()).collect(),
            Candidates::Rowids(c) => c
                .iter()
                .filter_map(|r| self.rowids.binary_search(r).ok())
                .collect(),
            Candidates::Partition { scope, owner_id } => {
                // A value no cached row holds selects nothing.
                let (Some(scope), Some(owner)) =
                    (self.names.filter(scope), self.names.filter(owner_id))
                else {
                    return Vec::new();
                };
                (0..self.rowids.len())
                    .filter(|&i| {
                        scope.is_none_or(|s| self.scopes[i] == s)
                            && owner.is_none_or(|o| self.owners[i] == o)
                    })
                    .collect()
            }
        }
    }

    fn row(&self, i: usize) -> &[f32] {
        let d = self.dim.unwrap_or(0);
        &self.data[i * d..(i + 1) * d]
    }

    /// Rank by the reference cosine: a SIMD float32 estimate per row (one dot
    /// product against the cached squared norm) with the error bound of
    /// [`am_triples::vector::rank_by_cosine_fast`] (`4·γₙ + 1e-9`, γₙ =
    /// n·u/(1−n·u), u = 2⁻²⁴), candidate selection by those bounds, then exact
    /// re-scoring of the candidates with the reference [`cosine`].
    /// `candidates` selects the rows considered (in rowid order).
    /// Returns `(rowid, score)` best first, ties by rowid ascending, `min_score`
    /// applied, truncated to `limit`: exactly `rank_by_cosine`'s answer.
    ///
    /// The caller guarantees `query.len() == self.dim()` and no defect.
    pub fn rank(
        &self,
        query: &[f32],
        candidates: Candidates<'_>,
        min_score: Option<f64>,
        limit: Option<usize>,
    ) -> Vec<(i64, f64)> {
        const UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0; // 2^-24
        let indices = self.indices(candidates);
        #[allow(clippy::cast_precision_loss, reason = "dimensions are far below 2^52")]
        let nu = query.len() as f64 * UNIT_ROUNDOFF;
        if query.is_empty() || nu >= 0.01 || min_score.is_some_and(f64::is_nan) {
            // Outside the bound's domain: the shared fast path decides per row.
            let rows: Vec<&[f32]> = indices.iter().map(|&i| self.row(i)).collect();
            return rank_by_cosine_fast(query, rows.iter(), |v| Some(*v), min_score, limit)
                .into_iter()
                .map(|(k, s)| (self.rowids[indices[k]], s))
                .collect();
        }
        let eps = 4.0 * (nu / (1.0 - nu)) + 1e-9;
        let sane = |x: f64| x.is_finite() && (1e-30..=1e30).contains(&x);
        let qn: f64 = query.iter().map(|x| f64::from(*x) * f64::from(*x)).sum();
        let q_sane = sane(qn);
        let q_root = qn.sqrt();
        // (index, lower bound, upper bound, exact score when already computed)
        let bound_of = |i: usize| -> CosineBound {
            let row = self.row(i);
            let vn = self.sq_norms[i];
            let dot = if q_sane && sane(vn) {
                f32::dot(query, row).filter(|d| d.is_finite())
            } else {
                None
            };
            match dot {
                Some(d) => {
                    let s = d / (q_root * vn.sqrt());
                    (i, s - eps, s + eps, None)
                }
                None => {
                    let s = cosine(query, row);
                    (i, s, s, Some(s))
                }
            }
        };
        // One thread: the same pass split over two cores measured slower (20 ms
        // vs 22-26 ms) on a 2-core machine kept busy by other work. The filter
        // keeps a short list, not one bound per row.
        let mut bounds = BoundFilter::new(min_score, limit);
        for &i in &indices {
            bounds.offer(bound_of(i));
        }
        select_by_bounds(bounds.into_kept(), min_score, limit, |i| {
            cosine(query, self.row(i))
        })
        .into_iter()
        .map(|(i, s)| (self.rowids[i], s))
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
    keep_top(
        rows.iter()
            .filter_map(|(rowid, d)| d.as_f64().map(|v| (*rowid, cosine_of(&q, &v)))),
        min_score,
        limit,
    )
}
