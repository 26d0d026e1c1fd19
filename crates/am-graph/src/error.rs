//! The graph's error: the shared [`am_triples::Error`] (kind, message, context,
//! source), so the errors of the store and the journal underneath keep their
//! kind and source.
//!
//! Spec: api.md "The memory graph: revisions and provenance" (`ProvenanceRequired`,
//! `InvalidSourceRef`, the `ValueError`s of revisions and reads);
//! troubleshooting.md "`ProvenanceRequired` from `MemoryGraph.apply_revision`".
//!
//! - A memory or revision lacking the provenance the contract requires (no
//!   ledger source and no parent, a lineage that never reaches a source, crossed
//!   owners, a provenance key outside `PROVENANCE_KEYS`):
//!   [`Error::provenance_required`], kind `ProvenanceRequired`.
//! - A malformed `SourceRef` (unknown kind, missing or blank id, bad `seq`,
//!   unknown or foreign field, synthetic run id, bad or conflicting digest):
//!   [`Error::invalid_ref`], kind `InvalidInput` (Python's `InvalidSourceRef` is
//!   a `ValueError`), recognized by [`Error::is_invalid_source_ref`].
//! - No connector registered for the store: `Unsupported`; revisions awaiting
//!   closures with no journal attached (`repair`): `Refused`.
//!
//! Every refusal writes nothing.

pub use am_triples::{Error, Result};
