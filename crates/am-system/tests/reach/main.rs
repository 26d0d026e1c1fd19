//! Deliberate reach (api.md "Deliberate reach: probe, expansion,
//! familiarity"): `probe`, `probe_expand`, `familiarity`, concept anchoring
//! (`concept_terms`, `expand_by_concepts`) on both stacks, and the
//! differential against AbstractMemory 0.3.2 (`oracle.rs`, needs
//! `AM_ORACLE_PYTHON`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod concepts;
mod expand;
mod familiarity;
mod kept;
mod oracle;
mod probe;
mod support;
