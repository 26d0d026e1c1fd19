//! Formation: how a record enters the home. The arguments of `remember_many`
//! and `remember`, the pure formation plan (ids, edges, bindings, the
//! idempotency-key checks), the record's validation, the host's author hook
//! with its authored-or-pending decision (the one place a title or summary is
//! authored or declared pending), and the reading of a stored row's
//! understanding and provenance.
//!
//! Spec: api.md "Formation (typed records)", "Authoring"; algorithms.md §9.

pub mod args;
pub mod authoring;
pub(crate) mod owed;
pub mod plan;
pub mod reading;
pub mod records;
mod remember;

pub use crate::kinds::DIGEST_PREDICATE;
pub(crate) use plan::diary_entry_hash_hex;
pub use plan::{
    FormationPlan, build_formation_plan, diary_entry_hash, key_owner_conflict, key_reuse_warnings,
};
