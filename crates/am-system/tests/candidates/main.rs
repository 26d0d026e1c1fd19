//! Candidates (api.md "Candidates, disposal, and deliberate acts"): the
//! disposal verbs (`disposal.rs`) and the identity review (`review.rs`) on
//! both stacks, and the differential against AbstractMemory 0.3.2
//! (`oracle.rs`, needs `AM_ORACLE_PYTHON`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod disposal;
mod home;
mod mining;
mod mining_oracle;
mod oracle;
mod review;
mod tend;
mod tend_apply;
mod tend_oracle;
