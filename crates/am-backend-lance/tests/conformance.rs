//! Runs the conformance suite (`stores`, `vectors`) against `LanceDBTripleStore`,
//! each check on a fresh LanceDB directory of its own:
//! `cargo test -p am-backend-lance --test conformance` or
//! `cargo xtask conformance --backend lance`.

use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_conformance::StoreFactory;
use am_triples::{
    Capabilities, EmbeddingPin, FeedPage, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use std::sync::Arc;

/// A store and the temporary directory its home lives in (removed on drop).
struct TempStore {
    store: LanceDBTripleStore,
    _dir: tempfile::TempDir,
}

impl TripleStore for TempStore {
    fn capabilities(&self) -> Capabilities {
        self.store.capabilities()
    }
    fn add(&self, assertions: &[TripleAssertion]) -> am_triples::Result<Vec<String>> {
        self.store.add(assertions)
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
    fn stored_vector(&self, id: &str) -> am_triples::Result<Option<Vec<f32>>> {
        self.store.stored_vector(id)
    }
    fn embedding_pin(&self) -> am_triples::Result<Option<EmbeddingPin>> {
        self.store.embedding_pin()
    }
    fn take_warnings(&self) -> Vec<String> {
        self.store.take_warnings()
    }
}

/// Every store is a fresh `LanceDBTripleStore` in a new temporary directory.
struct Lance;

fn open(
    embedder: Option<Arc<dyn TextEmbedder>>,
    pin: Option<EmbeddingPin>,
) -> am_triples::Result<Box<dyn TripleStore>> {
    let dir = tempfile::tempdir().map_err(|e| am_triples::Error::Storage(e.to_string()))?;
    let options = LanceStoreOptions {
        embedding_pin: pin,
        ..LanceStoreOptions::default()
    };
    let uri = dir.path().join("kg");
    let store = LanceDBTripleStore::open(&uri.to_string_lossy(), embedder, options)?;
    Ok(Box::new(TempStore { store, _dir: dir }))
}

impl StoreFactory for Lance {
    fn open(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        open(embedder, None)
    }

    fn open_with_pin(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: EmbeddingPin,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        open(embedder, Some(pin))
    }
}

fn main() {
    am_conformance::main_for("lance", Lance);
}
