//! World models (api.md "World models (orientation cards)"): the card reads,
//! the alias reads and proposals, `world_model_pass` and
//! `world_model_update`, `rekey_world_model` and `card_rekey` (`rekey.rs`),
//! `alias_world_model` and `author_world_model(in_place=False)`
//! (`revise.rs`), orientation admission in `reconstruct`, on both
//! stacks, and the differential against
//! AbstractMemory 0.3.2 (`oracle.rs`, needs `AM_ORACLE_PYTHON`).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod author;
mod cache;
mod oracle;
mod orientation;
mod packet;
mod pass;
mod reads;
mod rekey;
mod revise;
mod stale;
mod support;
