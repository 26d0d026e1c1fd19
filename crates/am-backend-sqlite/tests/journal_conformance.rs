//! Runs the conformance group `journal` against `SQLiteJournal`, each check on a
//! fresh home in its own temporary directory:
//! `cargo test -p am-backend-sqlite --test journal_conformance`.

use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_conformance::journal::{JournalFactory, OpenJournal};

/// Every journal is a fresh `SQLiteJournal` in a new temporary home.
struct Sqlite;

impl JournalFactory for Sqlite {
    fn open(&self) -> am_journal::Result<OpenJournal> {
        let dir = tempfile::tempdir().map_err(|e| am_journal::Error::storage(e.to_string()))?;
        let home = SqliteHome::open(dir.path().join("home.sqlite3"))
            .map_err(|e| am_journal::Error::storage(e.to_string()))?;
        let journal = SQLiteJournal::open(&home)?;
        Ok(OpenJournal {
            journal: Box::new(journal),
            guard: Box::new(dir),
        })
    }
}

fn main() {
    am_conformance::journal::main_for("sqlite", Sqlite);
}
