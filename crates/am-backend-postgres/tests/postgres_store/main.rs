//! What the PostgreSQL store promises beyond the shared conformance suite:
//! many handles (each a "host" with its own connection pool) writing one
//! table serialize without a gap or a repeat in the change feed, a row and
//! the pin outlive the handle, a refused commit writes nothing, and bad
//! arguments are refused at open. One throwaway server for the binary
//! (started by `main`, stopped and removed before it exits), one database
//! per test.

mod hosts;
mod open;
mod refusals;

use am_backend_postgres::testing::TempServer;
use am_backend_postgres::{PostgresStoreOptions, PostgresTripleStore};
use std::sync::Arc;

/// A new empty database's connection string.
pub(crate) fn database(server: &TempServer) -> String {
    server.create_database().expect("create a database")
}

/// A store on `db` without an embedder (default table).
pub(crate) fn store(db: &str) -> PostgresTripleStore {
    PostgresTripleStore::open(db, None, PostgresStoreOptions::default()).expect("open the store")
}

type Test = (&'static str, fn(&TempServer));

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let server = Arc::new(TempServer::start().unwrap_or_else(|e| {
        eprintln!("cannot start a throwaway PostgreSQL server: {e}");
        std::process::exit(101)
    }));
    let tests: Vec<Test> = [hosts::TESTS, open::TESTS, refusals::TESTS].concat();
    let trials = tests
        .into_iter()
        .map(|(name, f)| {
            let server = server.clone();
            libtest_mimic::Trial::test(name, move || {
                std::panic::catch_unwind(|| f(&server)).map_err(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default()
                        .into()
                })
            })
            .with_kind("postgres")
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    // Every trial (and its clone of the server) is gone: this drop stops
    // and removes the server.
    drop(server);
    conclusion.exit()
}
