//! `InMemoryJournal` specifics: its `#FALLBACK` volatility warning.

use am_journal::{InMemoryJournal, MemoryJournal};

#[test]
fn in_memory_journal_warns_once_that_it_is_volatile() {
    let j = InMemoryJournal::new();
    let warnings = j.take_warnings();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].starts_with("#FALLBACK: InMemoryJournal is volatile"),
        "{warnings:?}"
    );
    assert!(warnings[0].contains("SQLiteJournal"), "{warnings:?}");
    assert!(j.take_warnings().is_empty());
}
