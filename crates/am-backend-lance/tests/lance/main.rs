//! The LanceDB connector's own tests, beyond the conformance suites, in one
//! test binary: each LanceDB test binary links the whole lance tree (about
//! 440 MB unoptimized), so one binary instead of six saves CI five links and
//! about 2 GB of target directory.

mod common;

mod commit_guard;
mod graph_refusals;
mod graph_repair;
mod runtime;
mod store;
mod vector_differential;
