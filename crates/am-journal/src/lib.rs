//! The AbstractMemory journal: the record families (`MemoryEvent`, `ScopeBinding`,
//! `ClosureRecord`, `ReconstructionTrace`, `ActiveMemorySnapshot`, `ValenceEvent`,
//! `UnderstandingVersion`) on one monotonic `seq` axis, the [`MemoryJournal`]
//! trait with idempotent appends by caller-supplied id, bounded readers,
//! never-decaying counters and the binding fold, and [`InMemoryJournal`]; the
//! home seam ([`home`]), the task queue's rows ([`task`]) and the table kit
//! for the home's own tables beside them ([`table`]).
//!
//! Spec: api.md "The journal" and "Seam types"; architecture.md "The journal is the
//! time axis" and "Append-only, no deletion"; algorithms.md §5 (event weights),
//! §8 (valence validation), §9 (timestamps, JSON columns).
//!
//! Architecture invariant: this crate knows nothing of SQL; `SQLiteJournal` lives
//! in `am-backend-sqlite` and reuses the record validation and the JSON codec here.
//!
//! Choices the spec leaves open (see also docs/sqlite-home.md, "The journal's tables"):
//! - `version_id` = `H(assertion_id|field|version|understanding)[:32]`
//!   ([`understanding_version_id`]): deterministic, as the spec requires; the
//!   formula is ours, in the style of algorithms.md §9.
//! - Ids the journal assigns to a blank `event_id` / `binding_id` /
//!   `closure_id` / `trace_id` / `snapshot_id` are hyphenated UUID version 7
//!   ([`common::new_id`]) where 0.3.2 writes uuid4: same text shape, unique,
//!   and time-ordered, so a SQLite id index grows at its right edge.
//! - `memj_versions`, the SQLite table of [`UnderstandingVersion`], is this
//!   port's layout (0.3.2 has no such family): documented in
//!   `am_backend_sqlite::journal::schema`.

pub mod author;
pub mod binding;
pub mod closure;
pub mod cold_cut;
pub mod common;
pub mod error;
pub mod event;
pub mod home;
pub mod join;
pub mod journal;
pub mod memory;
pub mod source;
pub mod table;
pub mod task;
pub mod task_index;
pub mod task_memory;
pub mod trace;
pub mod valence;
pub mod version;

pub use author::{AuthorRef, ReaderRef};
pub use binding::{
    BindingSource, Lifecycle, PromptState, ScopeBinding, SearchState, fold_bindings,
};
pub use closure::{CLOSURE_KINDS, ClosureKind, ClosureRecord};
pub use error::{Error, Result};
pub use event::{ATTENTION_KINDS, AUDIT_KINDS, DECAY_MARKER_KINDS, EventKind, MemoryEvent};
pub use home::{HomeTx, JournalTx, MemoryHome, PairHome, PreparedBatch, StoreTx};
pub use journal::{
    BindingFilter, ClosureFilter, EventFilter, JournalRecord, MemoryJournal, TraceFilter,
    ValenceFilter, VersionFilter,
};
pub use memory::InMemoryJournal;
pub use source::{
    SOURCE_KINDS, SYNTHETIC_RUN_ID_PREFIXES, SourceFields, SourceKind, SourceRef,
    check_digest_agreement, is_synthetic_run_id,
};
pub use table::{
    Cell, CellRow, Column, ColumnType, HomeRow, Index, JsonCell, TableDef, TableReads, TablesTx,
    get_row, put_cell_row, put_cell_rows, put_row, rows,
};
pub use task::{
    CAPABILITIES, TASK_KINDS, TASK_STATUSES, TaskFilter, TaskKind, TaskLogRow, TaskReads, TaskRow,
    TaskStatus, TasksTx, WINDOWS, Window, WindowRow,
};
pub use task_memory::InMemoryTaskQueue;
pub use trace::{ActiveMemorySnapshot, ReconstructionTrace};
pub use valence::{VALENCE_KINDS, ValenceEvent, ValenceKind};
pub use version::{AuthorKind, RewriteCause, UnderstandingVersion, understanding_version_id};
