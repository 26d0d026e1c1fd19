//! The operator's tools (api.md "Maintenance, health, and operator tools"):
//! `mind_mass_report` on both stacks (`mass.rs`), `redigestion_candidates`
//! (`redigest.rs`), `journal_cold_cut` / `verify_cold_cut` on the SQLite
//! home file with their own differential (`cold_cut.rs`), and the differential
//! against AbstractMemory 0.3.2 (`oracle.rs`, needs `AM_ORACLE_PYTHON`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod cold_cut;
mod mass;
mod oracle;
mod redigest;
mod reembed;
