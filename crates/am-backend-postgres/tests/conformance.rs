//! Runs the conformance suite (`stores`, `vectors`) against
//! `PostgresTripleStore`, each check on a new database of one throwaway
//! server this binary starts and stops itself:
//! `cargo test -p am-backend-postgres --test conformance` or
//! `cargo xtask conformance --backend postgres`.

use am_backend_postgres::testing::TempServer;
use am_backend_postgres::{PostgresStoreOptions, PostgresTripleStore};
use am_conformance::StoreFactory;
use am_triples::{EmbeddingPin, TextEmbedder, TripleStore};
use std::sync::Arc;

struct Postgres(Arc<TempServer>);

impl Postgres {
    fn open_in(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        embedding_pin: Option<EmbeddingPin>,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        let db = self
            .0
            .create_database()
            .map_err(am_triples::Error::storage)?;
        let options = PostgresStoreOptions {
            embedding_pin,
            ..PostgresStoreOptions::default()
        };
        Ok(Box::new(PostgresTripleStore::open(&db, embedder, options)?))
    }
}

impl StoreFactory for Postgres {
    fn open(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        self.open_in(embedder, None)
    }

    fn open_with_pin(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: EmbeddingPin,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        self.open_in(embedder, Some(pin))
    }
}

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let server = match TempServer::start() {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("cannot start a throwaway PostgreSQL server: {e}");
            std::process::exit(101);
        }
    };
    let trials = am_conformance::run_all("postgres", Arc::new(Postgres(server.clone())));
    let conclusion = libtest_mimic::run(&args, trials);
    // Every trial is done: stop and remove the server before exiting.
    drop(server);
    conclusion.exit()
}
