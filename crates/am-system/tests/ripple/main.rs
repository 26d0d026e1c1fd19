//! Ripple (api.md "Ripple: a change reconsidered through connected
//! memories"; memory-system.md "The ripple"): the gate's arithmetic on
//! hand-computed graphs (`gate.rs`: a chain, a star, a cycle, protected
//! records, a budget stop, accumulation past `MAX_HOPS`), `seed_ripple`'s
//! rules (`seed.rs`: cause, magnitude, refusals, idempotence, dry runs
//! writing nothing), settlement (`settle.rs`) and the reads (`reads.rs`),
//! on both stacks. AbstractMemory 0.3.2 has no ripple: every test is named
//! after the spec sentence it pins, or after our documented choice
//! (docs/ripple.md).

#[path = "../common/mod.rs"]
mod common;

mod consolidate;
mod gate;
mod kept_graph;
mod reads;
mod seed;
mod settle;
mod support;
mod vectors;

mod drainer_example;
#[allow(dead_code)]
#[path = "../../examples/ripple_drainer.rs"]
mod ripple_drainer;
