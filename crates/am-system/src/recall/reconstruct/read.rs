//! How one recall reads the home's rows: [`RecallRead`], the narrow read
//! trait the pipeline's phases take (a query's rows and the embedding pin).
//! Any [`TripleStore`] answers it itself; the recall's view,
//! [`super::index::IndexedStore`], answers it from the recall index first.

use am_triples::{EmbeddingPin, TripleAssertion, TripleQuery, TripleStore};

/// The reads one recall makes of the home's rows, and nothing else: a
/// query's rows and the store's embedding pin (named in a vector channel's
/// warnings). [`super::index::IndexedStore`] answers them from the recall
/// index first; every [`TripleStore`] answers them itself. The accelerated
/// reads (keyword discovery, a semantic ranking's positions) go to the
/// system's store, never through a view.
pub(crate) trait RecallRead {
    /// The rows `q` reads, as [`TripleStore::query`] returns them.
    ///
    /// # Errors
    /// As [`TripleStore::query`].
    fn rows(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>>;

    /// The store's embedding pin, as [`TripleStore::embedding_pin`].
    ///
    /// # Errors
    /// As [`TripleStore::embedding_pin`].
    fn pin(&self) -> am_triples::Result<Option<EmbeddingPin>>;
}

impl<S: TripleStore + ?Sized> RecallRead for S {
    fn rows(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        self.query(q)
    }

    fn pin(&self) -> am_triples::Result<Option<EmbeddingPin>> {
        self.embedding_pin()
    }
}
