//! Situate (api.md "Situating a past moment"): `situate`, `SituateBudget`
//! and `situate_prompt_block` on both stacks (`reads.rs`), and the differential
//! against AbstractMemory 0.3.2 on the same home (`oracle.rs`, needs
//! `AM_ORACLE_PYTHON`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod oracle;
mod reads;
