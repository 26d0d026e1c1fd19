//! Stores that live in a directory of their own (a SQLite file, a LanceDB
//! directory): [`TempDirFactory`] opens every store the suite asks for in a new
//! temporary directory, and [`TempStore`] keeps that directory until the store
//! is dropped, so every check runs on a fresh, isolated home.

use crate::harness::StoreFactory;
use am_triples::store::FeedPage;
use am_triples::{
    Capabilities, EmbeddingPin, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use std::path::Path;
use std::sync::Arc;

/// A store and the temporary directory its home lives in (removed on drop).
/// Every [`TripleStore`] method is the store's own.
pub struct TempStore<S> {
    store: S,
    _dir: tempfile::TempDir,
}

// A forwarding wrapper forwards every method: a default here would answer
// for the store it wraps.
#[deny(clippy::missing_trait_methods)]
impl<S: TripleStore> TripleStore for TempStore<S> {
    fn capabilities(&self) -> Capabilities {
        self.store.capabilities()
    }
    fn add(&self, assertions: &[TripleAssertion]) -> am_triples::Result<Vec<String>> {
        self.store.add(assertions)
    }
    fn add_with_warnings(
        &self,
        assertions: &[TripleAssertion],
    ) -> am_triples::Result<am_triples::Added> {
        self.store.add_with_warnings(assertions)
    }
    fn query(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        self.store.query(q)
    }
    fn close(&self) -> am_triples::Result<()> {
        self.store.close()
    }

    fn close_assertion(&self, id: &str, valid_until: &str) -> am_triples::Result<bool> {
        self.store.close_assertion(id, valid_until)
    }
    fn narrow_assertion(&self, id: &str, valid_until: &str) -> am_triples::Result<bool> {
        self.store.narrow_assertion(id, valid_until)
    }
    fn assertions_after(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
    ) -> am_triples::Result<FeedPage> {
        self.store.assertions_after(cursor, scope, owner_id, limit)
    }
    fn feed_head(&self) -> am_triples::Result<i64> {
        self.store.feed_head()
    }
    fn stored_vector(&self, id: &str) -> am_triples::Result<Option<Vec<f32>>> {
        self.store.stored_vector(id)
    }
    fn embedding_pin(&self) -> am_triples::Result<Option<EmbeddingPin>> {
        self.store.embedding_pin()
    }
    fn has_file_meta(&self) -> bool {
        self.store.has_file_meta()
    }
    fn file_meta(&self, key: &str) -> am_triples::Result<Option<String>> {
        self.store.file_meta(key)
    }
    fn replace_vectors(
        &self,
        vectors: &std::collections::HashMap<String, Vec<f32>>,
        pin: &EmbeddingPin,
        expected_row_count: usize,
        embedder: Option<std::sync::Arc<dyn am_triples::TextEmbedder>>,
    ) -> am_triples::Result<usize> {
        self.store
            .replace_vectors(vectors, pin, expected_row_count, embedder)
    }
    fn preview_vectors(
        &self,
        rows: &[am_triples::TripleAssertion],
    ) -> am_triples::Result<Option<Vec<Option<Vec<f32>>>>> {
        self.store.preview_vectors(rows)
    }
    fn embeds_on_add(&self) -> Option<bool> {
        self.store.embeds_on_add()
    }
    fn prepare_digest_rewrite(
        &self,
        rewrite: &am_triples::DigestRewrite,
    ) -> am_triples::Result<am_triples::PreparedRewrite> {
        self.store.prepare_digest_rewrite(rewrite)
    }
    fn apply_digest_rewrite(
        &self,
        prepared: &am_triples::PreparedRewrite,
        point: am_triples::CommitPoint,
    ) -> am_triples::Result<()> {
        self.store.apply_digest_rewrite(prepared, point)
    }
    fn take_warnings(&self) -> Vec<String> {
        self.store.take_warnings()
    }
    fn install_commit_guard(&self, guard: &am_triples::CommitGuard) -> am_triples::Result<()> {
        self.store.install_commit_guard(guard)
    }
    fn commit_guard(&self) -> Option<am_triples::CommitGuard> {
        self.store.commit_guard()
    }
    fn write_fence(&self) -> am_triples::WriteFence {
        self.store.write_fence()
    }
    fn accelerator(&self) -> Option<&dyn am_triples::ReadAccelerator> {
        self.store.accelerator()
    }
    /// The checks open no home transaction: the wrapper joins none.
    fn home_member(&self) -> Option<am_triples::HomeMember> {
        None
    }
}

/// A [`StoreFactory`] whose every store is opened by `open(dir, embedder, pin)`
/// in a new temporary directory `dir` (`pin` is `Some` for `open_with_pin`).
///
/// ```no_run
/// use am_conformance::TempDirFactory;
/// use am_triples::InMemoryTripleStore;
///
/// am_conformance::main_for(
///     "memory",
///     TempDirFactory(|_dir: &std::path::Path, embedder, pin| match pin {
///         None => Ok(InMemoryTripleStore::new(embedder)),
///         Some(pin) => InMemoryTripleStore::with_pin(embedder, pin),
///     }),
/// );
/// ```
pub struct TempDirFactory<F>(pub F);

impl<F, S> StoreFactory for TempDirFactory<F>
where
    F: Fn(&Path, Option<Arc<dyn TextEmbedder>>, Option<EmbeddingPin>) -> am_triples::Result<S>
        + Send
        + Sync,
    S: TripleStore + 'static,
{
    fn open(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        self.open_in(embedder, None)
    }

    fn open_with_pin(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: EmbeddingPin,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        self.open_in(embedder, Some(pin))
    }
}

impl<F> TempDirFactory<F> {
    /// A new temporary directory and the store `self.0` opens in it.
    fn open_in<S: TripleStore + 'static>(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: Option<EmbeddingPin>,
    ) -> am_triples::Result<Box<dyn TripleStore>>
    where
        F: Fn(&Path, Option<Arc<dyn TextEmbedder>>, Option<EmbeddingPin>) -> am_triples::Result<S>,
    {
        let dir = tempfile::tempdir().map_err(|e| {
            am_triples::Error::storage(format!("cannot create a temporary directory: {e}"))
        })?;
        let store = (self.0)(dir.path(), embedder, pin)?;
        Ok(Box::new(TempStore { store, _dir: dir }))
    }
}
