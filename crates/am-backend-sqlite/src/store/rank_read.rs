//! `TripleStore::rank_positions` for SQLite: a semantic query filtered only
//! by scope/owner, ranked by the in-process matrix cache exactly as `query`
//! ranks it, returned as `(rowid, score)` without reading the rows. Any other
//! shape (more filters, a defective or mismatched cache, which `query` serves
//! by SQL or the reference scan with its warning) answers `None`.

use super::{SQLiteTripleStore, lock, sql};
use crate::store::vectors::{Candidates, MatrixCache};
use am_triples::TripleQuery;
use am_triples::store::resolve_query_vector;
use std::sync::atomic::Ordering;

impl SQLiteTripleStore {
    /// The matrix cache's ranking of a scope/owner-only semantic query, or
    /// `None` (see the module doc).
    ///
    /// # Errors
    /// As `query` fails for `q` (a bad query, a dimension against the pin,
    /// the embedder's failure), or `Storage`.
    pub(super) fn rank_partition(
        &self,
        q: &TripleQuery,
    ) -> am_triples::Result<Option<Vec<(i64, f64)>>> {
        let q = q.canonicalized()?;
        if !q.is_semantic() {
            return Ok(None);
        }
        let Some((scope, owner_id)) = sql::partition_filter(&q) else {
            return Ok(None);
        };
        let pin = self.load_pin()?;
        let Some(qv) = resolve_query_vector(&q, self.embedder().as_deref(), pin.as_ref())? else {
            return Ok(None);
        };
        if let Some(p) = &pin {
            p.check_query_dimension(qv.len())?;
        }
        let conn_arc = self.state.home.conn();
        let conn = lock(&conn_arc);
        let mut cache = lock(&self.state.cache);
        MatrixCache::refresh(&mut cache, &conn, &self.state.table)?;
        let Some(c) = cache.as_ref() else {
            return Ok(None);
        };
        if c.defect().is_some() || c.dim().is_some_and(|d| d != qv.len()) {
            return Ok(None);
        }
        self.state.serving_scan.store(false, Ordering::Relaxed);
        Ok(Some(c.rank(
            &qv,
            Candidates::Partition { scope, owner_id },
            q.min_score,
            q.effective_limit(),
        )))
    }
}
