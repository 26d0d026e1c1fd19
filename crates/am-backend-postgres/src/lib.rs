//! The PostgreSQL home of AbstractMemory, shared by many hosts (issue 46).
//!
//! Slice 1: [`PostgresTripleStore`], layer 1 on PostgreSQL (the change feed,
//! window changes, digest rewrites, exact vector search scored in Rust; no
//! keyword index yet), and
//! [`testing::TempServer`], a throwaway server for tests and xtask. The
//! journal, the graph connector and the home transaction are not built yet.
//!
//! Spec: stores.md "Shared behavior"; docs/stores.md "PostgreSQL home".

mod pool;
mod schema;
mod store;
pub mod testing;

pub use store::{PostgresStoreOptions, PostgresTripleStore};
