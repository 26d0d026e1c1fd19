//! The AbstractMemory journal (not yet built): the record families (`MemoryEvent`,
//! `ScopeBinding`, `ClosureRecord`, `ReconstructionTrace`, `ActiveMemorySnapshot`,
//! `ValenceEvent`, `UnderstandingVersion`) on one monotonic `seq` axis, the
//! `MemoryJournal` trait with idempotent appends by caller-supplied id, bounded
//! readers, never-decaying counters and the binding fold, and `InMemoryJournal`.
//!
//! Spec: api.md "The journal" and "Seam types"; architecture.md "The journal is the
//! time axis".
