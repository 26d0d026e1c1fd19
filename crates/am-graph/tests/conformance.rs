//! Runs the conformance group `graph` against the in-memory connector
//! (`InMemoryTripleStore` + `InMemoryJournal`), each check on a fresh store:
//! `cargo test -p am-graph --test conformance`.

use am_conformance::graph::{GraphFactory, OpenGraph};
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_journal::InMemoryJournal;
use am_triples::InMemoryTripleStore;
use std::sync::Arc;

/// Every graph is a fresh in-memory store with an in-memory journal.
struct Memory;

type Handles = (Arc<InMemoryTripleStore>, Arc<InMemoryJournal>);

impl GraphFactory for Memory {
    fn open(&self) -> am_graph::Result<OpenGraph> {
        let store = Arc::new(InMemoryTripleStore::new(None));
        let journal = Arc::new(InMemoryJournal::new());
        let graph = MemoryGraph::new(
            Arc::clone(&store),
            Some(GraphJournal::new(Arc::clone(&journal))),
        )?;
        Ok(OpenGraph {
            graph,
            store: store.clone(),
            journal: journal.clone(),
            guard: Box::new((store, journal)),
        })
    }

    fn reopen(&self, g: &OpenGraph) -> am_graph::Result<MemoryGraph> {
        let (store, journal) = g
            .guard
            .downcast_ref::<Handles>()
            .ok_or_else(|| am_graph::Error::invalid("not a graph this factory opened"))?;
        MemoryGraph::new(
            Arc::clone(store),
            Some(GraphJournal::new(Arc::clone(journal))),
        )
    }
}

fn main() {
    am_conformance::graph::main_for("memory", Memory);
}
