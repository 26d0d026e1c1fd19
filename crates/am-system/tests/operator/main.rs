//! The operator's tools (api.md "Maintenance, health, and operator tools"):
//! `mind_mass_report` on both stacks (`mass.rs`), `redigestion_candidates`
//! (`redigest.rs`), and the differential
//! against AbstractMemory 0.3.2 (`oracle.rs`, needs `AM_ORACLE_PYTHON`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod mass;
mod oracle;
mod redigest;
mod reembed;
