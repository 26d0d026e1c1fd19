//! The LanceDB connector of AbstractMemory (not yet built): `LanceDBTripleStore`
//! (explicit Arrow schema, structured filters compiled into a quoted where clause,
//! cosine vector search) and the LanceDB graph connector (log-first commits,
//! `repair_projections`). Its async runtime stays inside this crate.
//!
//! # Contract (to be built)
//! - Implements `am_triples::TripleStore` and passes the `stores` and `vectors`
//!   conformance groups for the capabilities it declares: no in-place
//!   `close_assertion`, and `narrow_assertion` is `Unsupported` (the spec's
//!   `NotImplementedError`, backlog 0057), so those checks are not listed for it.
//! - The public API is synchronous: the crate owns a private runtime on its own
//!   thread and never nests `block_on`, so it works when called from inside
//!   another tokio runtime.
//! - Filter values are quoted, never interpolated raw into the where clause.
//!
//! Spec: stores.md "LanceDBTripleStore"; api.md "Connectors".
