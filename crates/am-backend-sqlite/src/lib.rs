//! The SQLite home of AbstractMemory: one file holds the `SQLiteTripleStore`, the
//! `SQLiteJournal`, the graph tables and the task queue, over one connection, so a
//! revision and its closures commit in one transaction. File-compatible with homes
//! written by the Python AbstractMemory.
//!
//! Spec: stores.md "SQLiteTripleStore"; the 0.3.2 schema (`memj_*`, `{table}_meta`).

pub mod cold_cut;
pub mod error;
pub mod graph;
pub mod home;
pub mod journal;
pub mod memory_home;
pub mod store;
pub mod tables;
pub mod tasks;

pub use error::{Error, Result};
pub use home::SqliteHome;
pub use memory_home::SqliteMemoryHome;
pub use store::{SQLiteTripleStore, SqliteStoreOptions, read_embedding_pin};
