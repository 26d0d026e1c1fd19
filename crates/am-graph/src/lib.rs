//! The AbstractMemory memory graph: `SourceRef`, `Provenance`,
//! `Revision`/`RevisionOp`/`RevisionResult` (the value types, built here), and —
//! being built — `MemoryGraph::apply_revision` (every change a revision with
//! ledger provenance, applied atomically and once), the bounded reads (`history`,
//! `sources_of`, `revisions`, ...), and the connector traits
//! `GraphBackend`/`GraphTx` with the in-memory connector.
//!
//! # Contract (each bullet becomes a `graph::*` conformance check)
//! - Every change to a mind written through the graph is a `Revision` carrying
//!   provenance that names a ledger source or a parent; an ungrounded revision is
//!   refused (`ProvenanceRequired`) and writes nothing.
//! - A revision applies atomically and once: replaying the same revision id is a
//!   no-op that returns the first result; a failing op rolls the whole revision back.
//! - Ops are `assert`, `close` and `narrow`; `close` and `narrow` move validity
//!   windows with `am_triples`'s window rules and record the cause in the same
//!   transaction as the window.
//! - Reads (`history`, `sources_of`, `revisions`) are bounded and pure.
//! - There is no delete.
//!
//! The value types validate and normalize at construction: a `SourceRef`,
//! `Provenance` or `Revision` that exists is well-formed, with every time in
//! `am_triples`'s canonical UTC text form.
//!
//! Architecture invariant: depends on `am-triples` and `am-journal` only; storage
//! backends implement `GraphBackend`/`GraphTx`, never the other way round.
//!
//! Spec: api.md "The memory graph: revisions and provenance".

pub mod backend;
pub mod error;
pub mod graph;
pub mod limits;
pub mod memory_backend;
pub mod provenance;
pub mod reads;
pub mod registry;
pub mod revision;
/// `SourceRef` and its rules, defined in the journal (below layer 2, so the
/// understanding verbs carry it too) and re-exported here.
pub use am_journal::source;

pub use error::{Error, Result};
pub use graph::MemoryGraph;
pub use limits::{
    DEFAULT_READ_LIMIT, DEFAULT_REVISION_PAGE, MAX_LINEAGE_VISITS, MAX_READ_LIMIT,
    check_read_limit, check_read_limit_json,
};
pub use provenance::{LEGACY_KEYS, PROVENANCE_KEYS, Provenance, dedupe_sources};
pub use reads::{HistoryEntry, LabelledSource};
pub use revision::{
    ADOPTING_CAUSES, AssertOp, CLOSE_KINDS, CloseKind, CloseOp, DIGEST_PREDICATE, NarrowOp,
    REVISION_CAUSES, REVISION_OPS, Revision, RevisionCause, RevisionDraft, RevisionOp,
    RevisionResult, SkippedOp, derive_assertion_id,
};
pub use source::{
    SOURCE_KINDS, SYNTHETIC_RUN_ID_PREFIXES, SourceFields, SourceKind, SourceRef,
    check_digest_agreement, is_synthetic_run_id,
};
