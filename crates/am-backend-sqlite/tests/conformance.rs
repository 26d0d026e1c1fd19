//! Runs the conformance suite (`stores`, `vectors`) against `SQLiteTripleStore`,
//! each check on a fresh home in its own temporary directory:
//! `cargo test -p am-backend-sqlite --test conformance` or
//! `cargo xtask conformance --backend sqlite`.

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_conformance::TempDirFactory;

fn main() {
    am_conformance::main_for(
        "sqlite",
        TempDirFactory(|dir: &std::path::Path, embedder, embedding_pin| {
            let options = SqliteStoreOptions {
                embedding_pin,
                ..SqliteStoreOptions::default()
            };
            Ok(SQLiteTripleStore::open(
                dir.join("home.sqlite3"),
                embedder,
                options,
            )?)
        }),
    );
}
