//! What a [`super::SQLiteTripleStore`] handle holds, behind one `Arc`: the
//! home connection, the table, the embedder, the caches, the guard, and the
//! store's place in `am_journal::join` (enrolled while the state lives,
//! withdrawn when it drops).

use super::keywords::KeywordCache;
use super::vectors::MatrixCache;
use crate::home::SqliteHome;
use am_triples::embed::TextEmbedder;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};

/// The state of one store (every handle of it shares it).
pub(crate) struct StoreState {
    pub(super) home: SqliteHome,
    pub(super) table: String,
    pub(super) embedder: RwLock<Option<Arc<dyn TextEmbedder>>>,
    pub(super) cache: Mutex<Option<MatrixCache>>,
    pub(super) keywords: Mutex<Option<KeywordCache>>,
    pub(super) keyword_mirrored: AtomicBool,
    pub(super) scan_warned: AtomicBool,
    pub(super) serving_scan: AtomicBool,
    pub(super) warnings: Mutex<Vec<String>>,
    /// The host's commit guard.
    pub(super) guard: am_triples::GuardSlot,
    /// Where the store commits and its enrolment in `am_journal::join`.
    pub(super) member: am_triples::HomeMember,
}

impl Drop for StoreState {
    fn drop(&mut self) {
        am_journal::join::withdraw(self.member.handle);
    }
}
