//! Communities (api.md "Communities (topics)"; memory-system.md "Topics:
//! communities"): `communities_pass`, the payload read, `community_of` and
//! the membership reads, on both stacks (the in-memory pair and the SQLite
//! home, each with a task queue and a topic embedder). 0.3.2 has no
//! communities: every rule here is read off the spec (each test names it).
//!
//! One binary, its modules by surface.

#[path = "../common/mod.rs"]
mod common;

mod embed_missing;
mod pass;
mod placement;
mod reads;
mod splits;
mod support;
