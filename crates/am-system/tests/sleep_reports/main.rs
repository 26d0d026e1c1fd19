//! The sleep faculty's reports and cadence (issue 38): `structural_report`,
//! `maintenance_report`, `last_maintenance_seq`, `maintenance_due` and
//! `records_since_maintenance`, one test per contract sentence, each on both
//! stacks (the in-memory pair and a SQLite home) with identical answers, and
//! the differential against AbstractMemory 0.3.2 on homes it built.
//!
//! Spec: api.md "Consolidation (sleep and dreams)", "Maintenance, health, and
//! operator tools"; memory-system.md "Sleep".

#[path = "../common/mod.rs"]
mod common;

mod cadence;
mod maintenance;
mod oracle;
mod structural;
