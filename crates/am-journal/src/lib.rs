//! The AbstractMemory journal: the record families (`MemoryEvent`, `ScopeBinding`,
//! `ClosureRecord`, `ReconstructionTrace`, `ActiveMemorySnapshot`, `ValenceEvent`,
//! `UnderstandingVersion`) on one monotonic `seq` axis, the [`MemoryJournal`]
//! trait with idempotent appends by caller-supplied id, bounded readers,
//! never-decaying counters and the binding fold, and [`InMemoryJournal`].
//!
//! Spec: api.md "The journal" and "Seam types"; architecture.md "The journal is the
//! time axis" and "Append-only, no deletion"; algorithms.md §5 (event weights),
//! §8 (valence validation), §9 (timestamps, JSON columns).
//!
//! Architecture invariant: this crate knows nothing of SQL; `SQLiteJournal` lives
//! in `am-backend-sqlite` and reuses the record validation and the JSON codec here.

pub mod binding;
pub mod closure;
pub mod common;
pub mod error;
pub mod event;
pub mod journal;
pub mod memory;
pub mod trace;
pub mod valence;
pub mod version;

pub use binding::{ScopeBinding, fold_bindings};
pub use closure::{CLOSURE_KINDS, ClosureRecord};
pub use error::{Error, Result};
pub use event::{ATTENTION_KINDS, AUDIT_KINDS, DECAY_MARKER_KINDS, MemoryEvent};
pub use journal::{
    BindingFilter, ClosureFilter, EventFilter, JournalRecord, MemoryJournal, TraceFilter,
    ValenceFilter, VersionFilter,
};
pub use memory::InMemoryJournal;
pub use trace::{ActiveMemorySnapshot, ReconstructionTrace};
pub use valence::{VALENCE_KINDS, ValenceEvent};
pub use version::{UnderstandingVersion, understanding_version_id};
