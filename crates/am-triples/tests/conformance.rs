//! Runs the conformance suite (`stores`, `vectors`) against `InMemoryTripleStore`:
//! `cargo test -p am-triples --test conformance` or `cargo xtask conformance --backend memory`.

use am_conformance::StoreFactory;
use am_triples::{EmbeddingPin, InMemoryTripleStore, TextEmbedder, TripleStore};
use std::sync::Arc;

/// Every store is a fresh, empty `InMemoryTripleStore`.
struct Memory;

impl StoreFactory for Memory {
    fn open(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        Ok(Box::new(InMemoryTripleStore::new(embedder)))
    }

    fn open_with_pin(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: EmbeddingPin,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        Ok(Box::new(InMemoryTripleStore::with_pin(embedder, pin)?))
    }
}

fn main() {
    am_conformance::main_for("memory", Memory);
}
