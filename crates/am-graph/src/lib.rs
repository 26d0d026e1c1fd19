//! The AbstractMemory memory graph (not yet built): `SourceRef`, `Provenance`,
//! `Revision`/`RevisionOp`/`RevisionResult`, `MemoryGraph::apply_revision` (every
//! change a revision with ledger provenance, applied atomically and once), the
//! bounded reads (`history`, `sources_of`, `revisions`, ...), and the connector
//! traits `GraphBackend`/`GraphTx` with the in-memory connector.
//!
//! # Contract (to be built; each bullet becomes a `graph::*` conformance check)
//! - Every change to a mind written through the graph is a `Revision` carrying
//!   provenance that names a ledger source or a parent; an ungrounded revision is
//!   refused (`ProvenanceRequired`) and writes nothing.
//! - A revision applies atomically and once: replaying the same revision id is a
//!   no-op that returns the first result; a failing op rolls the whole revision back.
//! - Ops are `assert`, `close` and `narrow` (and the spec's others); `close` and
//!   `narrow` move validity windows with `am_triples`'s window rules and record the
//!   cause in the same transaction as the window.
//! - Reads (`history`, `sources_of`, `revisions`) are bounded and pure.
//! - There is no delete.
//!
//! Architecture invariant: depends on `am-triples` and `am-journal` only; storage
//! backends implement `GraphBackend`/`GraphTx`, never the other way round.
//!
//! Spec: api.md "The memory graph: revisions and provenance".
