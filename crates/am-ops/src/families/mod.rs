//! The table's entries, one module per family: the session's own ops
//! (`engine`), layer 1, the journal's readers, the memory graph, and one
//! module per faculty of am-system (`formation`, `recall`, `understanding`,
//! `tasks`, `identity`, `valence`, `observe`, `world_models`, `sleep`, `reach`, `drives`,
//! `communities`, `situate`, `ripple`, `operator`), so a verb's
//! entry sits in the module named after its faculty's room. Each holds the wire-only arguments
//! structs of its verbs (the engine's own arguments structs cover the
//! others). docs/exec.md has a section per family.

mod candidates;
mod communities;
mod drives;
mod engine;
mod formation;
mod graph;
mod identity;
mod journal;
mod layer1;
mod observe;
mod operator;
mod reach;
mod recall;
mod ripple;
mod situate;
mod sleep;
mod tasks;
mod understanding;
mod valence;
mod world_models;

pub use layer1::query_from_json;

pub(crate) use crate::args::NoArgs;
use crate::verb::Verb;

/// Every verb, in docs/exec.md's order.
pub(crate) fn all() -> Vec<Verb> {
    let mut v = engine::verbs();
    v.extend(layer1::verbs());
    v.extend(formation::verbs());
    v.extend(recall::verbs());
    v.extend(journal::verbs());
    v.extend(understanding::verbs());
    v.extend(identity::verbs());
    v.extend(valence::verbs());
    v.extend(observe::verbs());
    v.extend(world_models::verbs());
    v.extend(reach::verbs());
    v.extend(communities::verbs());
    v.extend(graph::verbs());
    v.extend(tasks::verbs());
    v.extend(sleep::verbs());
    v.extend(sleep::passes());
    v.extend(drives::verbs());
    v.extend(situate::verbs());
    v.extend(ripple::verbs());
    v.extend(candidates::verbs());
    v.extend(operator::verbs());
    v
}
