//! One transaction for a store and a journal handed over separately.
//!
//! `MemorySystem::new(store, journal)` receives two trait objects. When they
//! live in one transaction home (a SQLite store and a SQLite journal of one
//! file), formation must still commit its rows and its bindings in ONE
//! transaction. That home is opened by the store's backend, which alone
//! knows the store's concrete type; the rest of the system sees only typed
//! identities ([`am_triples::home_key`]):
//!
//! - a store that can open the shared transaction enrols itself here when
//!   it opens ([`enrol`], a weak entry withdrawn when it drops) and answers
//!   `TripleStore::home_member`: its home's `HomeKey` and its handle;
//! - a journal answers `MemoryJournal::home_key`;
//! - [`shared_home`] compares the two keys and asks the enrolled store
//!   ([`JoinsJournal::join`]) for the home.
//!
//! Nothing is downcast; a store or journal without a key (the default, a
//! wrapper that forwards none) joins nothing, and the caller builds a
//! [`crate::PairHome`].

use crate::home::MemoryHome;
use crate::journal::MemoryJournal;
use am_triples::TripleStore;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// A store's backend's way to write the store and a journal of its home in
/// ONE transaction.
pub trait JoinsJournal: Send + Sync {
    /// A home writing this store and `journal` in ONE transaction, whose
    /// views are `store` (this store, or a wrapper that forwarded this
    /// store's member) and `journal`; `None` when they cannot share one.
    fn join(
        self: Arc<Self>,
        store: Arc<dyn TripleStore>,
        journal: Arc<dyn MemoryJournal>,
    ) -> Option<Arc<dyn MemoryHome>>;
}

/// The enrolled stores, by handle (weak: an entry never keeps a store open).
static ENROLLED: Mutex<Vec<(u64, Weak<dyn JoinsJournal>)>> = Mutex::new(Vec::new());
static NEXT_HANDLE: AtomicU64 = AtomicU64::new(1);

fn enrolled() -> std::sync::MutexGuard<'static, Vec<(u64, Weak<dyn JoinsJournal>)>> {
    // Every change under this lock is one push or one retain: a panic cannot
    // leave it torn.
    ENROLLED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fresh handle for a store about to enrol (unique in the process).
pub fn next_handle() -> u64 {
    NEXT_HANDLE.fetch_add(1, Ordering::Relaxed)
}

/// Enrol `store` under `handle` (from [`next_handle`]); entries whose store
/// is gone are dropped on the way.
pub fn enrol(handle: u64, store: Weak<dyn JoinsJournal>) {
    let mut all = enrolled();
    all.retain(|(h, s)| *h != handle && s.strong_count() > 0);
    all.push((handle, store));
}

/// Withdraw the store enrolled under `handle` (its backend calls this when
/// the store drops).
pub fn withdraw(handle: u64) {
    enrolled().retain(|(h, _)| *h != handle);
}

/// The home writing `store` and `journal` in ONE transaction, when the
/// store's member and the journal's key name one home and the store's
/// backend can open it; `None` otherwise (see the module docs).
pub fn shared_home(
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
) -> Option<Arc<dyn MemoryHome>> {
    let member = store.home_member()?;
    if journal.home_key()? != member.home {
        return None;
    }
    let joins = enrolled()
        .iter()
        .find(|(h, _)| *h == member.handle)
        .and_then(|(_, s)| s.upgrade())?;
    joins.join(store, journal)
}
