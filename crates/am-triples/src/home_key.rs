//! Typed identities of transaction homes: which store and which journal can
//! commit in ONE transaction.
//!
//! A store and a journal handed over separately (`MemorySystem::new(store,
//! journal)`) can form a record atomically only when they live in one
//! transaction home (today: a SQLite store and a SQLite journal of one
//! database file). Each says where it commits with a [`HomeKey`]
//! (`TripleStore::home_member`, `am_journal::MemoryJournal::home_key`); a
//! store that can open the shared transaction also names its handle
//! ([`HomeMember::handle`]), under which its backend enrolled it in
//! `am_journal::join`. `am_journal::join::shared_home` compares the two
//! keys and asks the enrolled store for the home: no value is downcast, and
//! a store or journal that answers no key (the default; a wrapper that does
//! not forward it) joins nothing.

use std::path::{Path, PathBuf};

/// Where a store or a journal commits: equal keys share a transaction home.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HomeKey {
    /// A database file, by its canonical path (two connections of one file
    /// share it).
    File(PathBuf),
    /// A database without a file (in memory, temporary), by the identity of
    /// the one in-process connection that holds it.
    Connection(usize),
}

impl HomeKey {
    /// The key of the database file `path` (canonicalized), or `None` when
    /// the path is empty or names no existing file.
    pub fn file(path: &Path) -> Option<HomeKey> {
        if path.as_os_str().is_empty() {
            return None;
        }
        std::fs::canonicalize(path).ok().map(HomeKey::File)
    }
}

/// A store's place in its transaction home: the home's key, and the handle
/// under which its backend enrolled the store for a shared transaction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HomeMember {
    /// Where the store commits.
    pub home: HomeKey,
    /// The store's enrolment (`am_journal::join::enrol`).
    pub handle: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_spellings_of_one_file_are_one_home_and_no_file_is_none() {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let path = crate_dir.join("Cargo.toml");
        let detour = crate_dir.join("src").join("..").join("Cargo.toml");
        assert!(HomeKey::file(&path).is_some());
        assert_eq!(HomeKey::file(&path), HomeKey::file(&detour));
        assert_ne!(
            HomeKey::file(&path),
            HomeKey::file(&crate_dir.join("src/lib.rs"))
        );
        assert_eq!(HomeKey::file(Path::new("")), None);
        assert_eq!(HomeKey::file(&crate_dir.join("absent.sqlite3")), None);
    }
}
