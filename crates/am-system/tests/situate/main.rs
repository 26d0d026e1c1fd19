//! Situate (api.md "Situating a past moment"): `situate`, `SituateBudget`
//! and `situate_prompt_block` on both stacks (`reads.rs`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod reads;
