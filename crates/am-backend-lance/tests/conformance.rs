//! Runs the conformance suite (`stores`, `vectors`) against `LanceDBTripleStore`,
//! each check on a fresh LanceDB directory of its own:
//! `cargo test -p am-backend-lance --test conformance` or
//! `cargo xtask conformance --backend lance`.

use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_conformance::TempDirFactory;

fn main() {
    am_conformance::main_for(
        "lance",
        TempDirFactory(|dir: &std::path::Path, embedder, embedding_pin| {
            let options = LanceStoreOptions {
                embedding_pin,
                ..LanceStoreOptions::default()
            };
            LanceDBTripleStore::open(&dir.join("kg").to_string_lossy(), embedder, options)
        }),
    );
}
