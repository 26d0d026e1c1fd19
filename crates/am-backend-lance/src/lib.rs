//! The LanceDB connector of AbstractMemory (not yet built): `LanceDBTripleStore`
//! (explicit Arrow schema, structured filters compiled into a quoted where clause,
//! cosine vector search) and the LanceDB graph connector (log-first commits,
//! `repair_projections`). Its async runtime stays inside this crate.
//!
//! Spec: stores.md "LanceDBTripleStore"; api.md "Connectors".
