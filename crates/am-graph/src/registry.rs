//! The connector registry: which [`GraphBackend`] serves a store, keyed by the
//! store's concrete type (`std::any::TypeId`), the most recently registered
//! matching type winning.
//!
//! Spec: api.md "Connectors (`abstractmemory.graph.backend`)" (`register_backend`,
//! `backend_for`, `registered_backends`).
//!
//! The in-memory connector (over `am_triples::InMemoryTripleStore`) is built in;
//! a backend crate registers its own (`am_backend_sqlite::graph::register()`),
//! since `am-graph` depends on no backend.

pub use crate::backend::{AnyStore, GraphJournal};
use crate::backend::{BackendResult, GraphBackend};
use std::any::{Any, TypeId};
use std::sync::{Arc, RwLock};

/// Builds a connector for a store (already known to be of the registered type)
/// and an optional journal.
pub type BackendFactory = Arc<
    dyn Fn(&AnyStore, Option<&GraphJournal>) -> BackendResult<Box<dyn GraphBackend>> + Send + Sync,
>;

struct Entry {
    type_id: TypeId,
    type_name: &'static str,
    factory: BackendFactory,
}

static REGISTRY: RwLock<Vec<Entry>> = RwLock::new(Vec::new());

fn builtin() -> Vec<(TypeId, &'static str, BackendFactory)> {
    vec![(
        TypeId::of::<am_triples::InMemoryTripleStore>(),
        std::any::type_name::<am_triples::InMemoryTripleStore>(),
        Arc::new(crate::memory_backend::factory) as BackendFactory,
    )]
}

/// Register `factory` as the connector of stores of type `S`. A later
/// registration for the same type wins over earlier ones (and over the built-in
/// in-memory connector).
pub fn register_backend<S: Any + Send + Sync>(
    factory: impl Fn(&AnyStore, Option<&GraphJournal>) -> BackendResult<Box<dyn GraphBackend>>
    + Send
    + Sync
    + 'static,
) {
    REGISTRY
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(Entry {
            type_id: TypeId::of::<S>(),
            type_name: std::any::type_name::<S>(),
            factory: Arc::new(factory),
        });
}

/// The connector for `store` (and `journal`): the most recently registered
/// factory for the store's concrete type, else the built-in one.
///
/// # Errors
/// `Unsupported` (Python's `NotImplementedError`) naming the store's type when no
/// connector is registered for it; the factory's own error otherwise.
pub fn backend_for(
    store: &AnyStore,
    journal: Option<&GraphJournal>,
) -> BackendResult<Box<dyn GraphBackend>> {
    let id = (**store).type_id();
    let found = {
        let reg = REGISTRY
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        reg.iter()
            .rev()
            .find(|e| e.type_id == id)
            .map(|e| Arc::clone(&e.factory))
    };
    let factory = match found {
        Some(f) => f,
        None => builtin()
            .into_iter()
            .find(|(t, _, _)| *t == id)
            .map(|(_, _, f)| f)
            .ok_or_else(|| {
                am_triples::Error::unsupported(format!(
                    "no graph connector is registered for this store type; expected one of {:?} \
                     (register one with am_graph::register_backend)",
                    registered_backends()
                ))
            })?,
    };
    factory(store, journal)
}

/// The store types with a connector, most recently registered first (the
/// built-in in-memory connector last), each once.
pub fn registered_backends() -> Vec<&'static str> {
    let reg = REGISTRY
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out: Vec<&'static str> = Vec::new();
    for e in reg.iter().rev() {
        if !out.contains(&e.type_name) {
            out.push(e.type_name);
        }
    }
    for (_, name, _) in builtin() {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}
