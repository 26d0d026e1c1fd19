//! Named conformance checks every AbstractMemory store, journal and graph connector
//! must pass, grouped by contract (`stores`, `vectors`, `journal`) and selected by
//! declared capabilities.
//!
//! A backend crate runs the suite from one test file with `harness = false`:
//!
//! ```no_run
//! use am_conformance::StoreFactory;
//! use am_triples::{EmbeddingPin, InMemoryTripleStore, TextEmbedder, TripleStore};
//! use std::sync::Arc;
//!
//! struct Memory;
//! impl StoreFactory for Memory {
//!     fn open(&self, e: Option<Arc<dyn TextEmbedder>>) -> am_triples::Result<Box<dyn TripleStore>> {
//!         Ok(Box::new(InMemoryTripleStore::new(e)))
//!     }
//!     fn open_with_pin(
//!         &self,
//!         e: Option<Arc<dyn TextEmbedder>>,
//!         pin: EmbeddingPin,
//!     ) -> am_triples::Result<Box<dyn TripleStore>> {
//!         Ok(Box::new(InMemoryTripleStore::with_pin(e, pin)?))
//!     }
//! }
//!
//! fn main() {
//!     am_conformance::main_for("memory", Memory);
//! }
//! ```
//!
//! Each check becomes a trial named `{group}::{check}` with the backend as its kind
//! (`test [memory] stores::limit_zero_is_unbounded ... ok`); `cargo xtask
//! conformance` runs every backend's file and prints those lines.

pub mod embedder;
pub mod graph;
pub mod guard;
pub mod harness;
pub mod journal;
pub mod rewrites;
mod rows;
pub mod side_by_side;
pub mod stores;
pub mod temp;
pub mod vectors;
pub mod workload;

pub use embedder::HashEmbedder;
pub use guard::{RecordingGuard, Stopped};
pub use harness::{Capability, Check, CheckResult, StoreFactory};
pub use temp::{TempDirFactory, TempStore};

use libtest_mimic::{Arguments, Trial};
use std::sync::Arc;

/// The `stores` and `vectors` trials for one backend, chosen by the capabilities
/// its factory declares.
pub fn run_all(backend: &str, factory: Arc<dyn StoreFactory>) -> Vec<Trial> {
    let caps = factory.capabilities();
    let mut out = harness::trials(backend, "stores", &stores::checks(), &factory, Some(&caps));
    out.extend(harness::trials(
        backend,
        "vectors",
        &vectors::checks(),
        &factory,
        Some(&caps),
    ));
    out
}

/// Run the store groups for `backend` as a libtest-mimic test binary (parses the
/// command line, runs, exits with the test status).
pub fn main_for(backend: &str, factory: impl StoreFactory + 'static) -> ! {
    let args = Arguments::from_args();
    let trials = run_all(backend, Arc::new(factory));
    libtest_mimic::run(&args, trials).exit()
}
