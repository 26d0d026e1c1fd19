//! The SQLite home of AbstractMemory (not yet built): one file holds the
//! `SQLiteTripleStore`, the `SQLiteJournal`, the graph tables and the task queue,
//! over one connection, so a revision and its closures commit in one transaction.
//! File-compatible with homes written by the Python AbstractMemory.
//!
//! Spec: stores.md "SQLiteTripleStore"; the 0.3.2 schema (`memj_*`, `{table}_meta`).
