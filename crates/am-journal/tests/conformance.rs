//! Runs the conformance group `journal` against `InMemoryJournal`:
//! `cargo test -p am-journal --test conformance`.

use am_conformance::journal::{JournalFactory, OpenJournal};
use am_journal::InMemoryJournal;

/// Every journal is a fresh, empty `InMemoryJournal`.
struct Memory;

impl JournalFactory for Memory {
    fn open(&self) -> am_journal::Result<OpenJournal> {
        Ok(OpenJournal {
            journal: Box::new(InMemoryJournal::new()),
            guard: Box::new(()),
        })
    }
}

fn main() {
    am_conformance::journal::main_for("memory", Memory);
}
