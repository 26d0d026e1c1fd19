//! Drives (api.md "Drives: what is alive and pressing"): `drive_pressure`,
//! `alive_drives`, `drive_groups`, `open_drive_partition` and
//! `cognition_health` on both stacks (`reads.rs`), the drive index kept
//! fresh against whole reads (`index.rs`), and the differential
//! against AbstractMemory 0.3.2 on the same homes (`oracle.rs`, needs
//! `AM_ORACLE_PYTHON`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod index;
mod oracle;
mod reads;
