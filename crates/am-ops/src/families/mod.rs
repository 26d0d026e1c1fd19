//! The table's entries, one module per family (the sections of
//! docs/exec.md), each with the wire-only arguments structs of its verbs
//! (the engine's own arguments structs cover the others).

mod engine;
mod entity;
mod graph;
mod journal;
mod layer1;
mod observe;
mod sleep;
mod system;
mod tasks;
mod understanding;

pub use layer1::query_from_json;

pub(crate) use crate::args::NoArgs;
use crate::verb::Verb;

/// Every verb, in docs/exec.md's order.
pub(crate) fn all() -> Vec<Verb> {
    let mut v = engine::verbs();
    v.extend(layer1::verbs());
    v.extend(system::verbs());
    v.extend(journal::verbs());
    v.extend(understanding::verbs());
    v.extend(entity::verbs());
    v.extend(graph::verbs());
    v.extend(observe::verbs());
    v.extend(tasks::verbs());
    v.extend(sleep::verbs());
    v.extend(sleep::passes());
    v
}
