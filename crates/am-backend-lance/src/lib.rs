//! The LanceDB connector of AbstractMemory: [`LanceDBTripleStore`], an
//! append-only triple store on a LanceDB table (explicit Arrow schema, structured
//! filters compiled into a quoted `where` clause, LanceDB's cosine vector search
//! re-scored with the reference cosine under a proven bound, the embedding pin).
//!
//! # Contract
//! - Implements `am_triples::TripleStore` and passes the `stores` and `vectors`
//!   conformance groups for the capabilities it declares: no in-place
//!   `close_assertion`, and `narrow_assertion` is `Unsupported` (the spec's
//!   `NotImplementedError`, backlog 0057); no in-place digest rewrite (backlog
//!   0059); no serialized writers across processes.
//! - The public API is synchronous: the crate owns a private tokio runtime on its
//!   own thread and never nests `block_on`, so it works from plain threads and
//!   from inside a caller's own runtime (multi-thread or current-thread).
//! - Filter values are quoted, never interpolated raw into the where clause.
//! - Object storage (`s3://`, `gs://`, `az://`) is compiled in only with the
//!   `object-store` feature (see docs/stores.md).
//!
//! - [`graph`]: the LanceDB graph connector (a staged transaction whose reads
//!   overlay its writes, a log-first commit, `repair_projections` re-deriving a
//!   half-projected revision from the log), registered for
//!   `LanceDBTripleStore` by [`graph::register`]. It declares two exceptions
//!   (`am_graph::backend::GraphCapabilities`): writers of one mind in two
//!   processes are not serialized, and a crash mid-commit stays visible until
//!   `MemoryGraph::repair`.
//!
//! Spec: stores.md "LanceDBTripleStore"; api.md "Connectors"; getting-started §4.
//!
//! # Examples
//! ```
//! use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
//! use am_triples::{TripleAssertion, TripleQuery, TripleStore};
//! # let dir = tempfile::tempdir().unwrap();
//! # let uri = dir.path().join("kg");
//! let store = LanceDBTripleStore::open(uri.to_str().unwrap(), None, LanceStoreOptions::default())?;
//! store.add(&[TripleAssertion::new("e:scrooge", "is_a", "person").with_scope("global")])?;
//! let out = store.query(&TripleQuery { scope: Some("global".into()), limit: 10, ..TripleQuery::default() })?;
//! assert_eq!(out[0].object, "person");
//! store.close()?;
//! # Ok::<(), am_triples::Error>(())
//! ```

pub mod filter;
pub mod graph;
mod runtime;
pub mod schema;
pub mod search;
mod store;

pub use store::{LanceDBTripleStore, LanceStoreOptions, META_EMBEDDING_PIN};
