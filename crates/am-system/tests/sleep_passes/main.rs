//! The sleep faculty's write passes and their reads, one test per contract
//! sentence, each on both stacks (the in-memory pair and the SQLite home):
//! `unresolved_dreams` (`dreams`), `wake_cue_dedup_pass` (`dedup`), and the
//! rules the issue states for every pass (`rules`: sleep proposes, waking
//! evidence disposes; one transaction; idempotent), `narrate_dream`
//! settling the dream's `dream.narrate` task (`narration`). `oracle` compares
//! `unresolved_dreams` and the passes with AbstractMemory 0.3.2 on the same
//! home, `night_oracle` the whole night (`sleep_pass`).

#[path = "../common/mod.rs"]
mod common;

mod consolidation;
mod dedup;
mod dream;
mod dreams;
mod narration;
mod night;
mod night_oracle;
mod oracle;
mod resolution;
mod support;
