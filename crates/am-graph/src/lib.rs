//! The AbstractMemory memory graph (not yet built): `SourceRef`, `Provenance`,
//! `Revision`/`RevisionOp`/`RevisionResult`, `MemoryGraph::apply_revision` (every
//! change a revision with ledger provenance, applied atomically and once), the
//! bounded reads (`history`, `sources_of`, `revisions`, ...), and the connector
//! traits `GraphBackend`/`GraphTx` with the in-memory connector.
//!
//! Spec: api.md "The memory graph: revisions and provenance".
