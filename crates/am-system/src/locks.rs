//! Lock poisoning, decided once for am-system.
//!
//! A lock is poisoned when a thread panicked while holding it: what it
//! guards may be half updated. `MemorySystem` holds two sorts of locked
//! state, and the rule differs:
//!
//! - **A cache** ([`CacheLock`]): state kept only to answer faster, which the
//!   next call refreshes from the store and the journal anyway — the
//!   faculties' caches held in [`FacultyState`] (the recall index, the card's
//!   ladder mirror, the valence index) and the buffer of warnings no verb's
//!   result carried. A poisoned one is cleared:
//!   the next lock finds it reset to empty (its `Default`) with the poison
//!   cleared, and that call's refresh rebuilds it from the store and the
//!   journal. Nothing torn is ever read; the price is one rebuild (and, for
//!   the warnings buffer, the warnings it held).
//! - **Anything else** ([`hold`]): state no refresh rebuilds. A poisoned one
//!   fails the call with [`ErrorKind::Internal`](am_triples::ErrorKind)
//!   naming the lock; the system holds no such lock today, and one added
//!   later takes this rule.
//!
//! The store's and the journal's own locks are their backends' business
//! (`am_backend_sqlite` rolls an open transaction back on unwind).

use crate::error::{Error, Result};
use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The state the faculties keep fresh, held by the core without naming it
/// (ARCHITECTURE.md "Faculties": faculty state sits behind a type the core
/// defines). A faculty's cache is any `Default + Send` type of its own; the
/// first [`FacultyState::cache`] of that type creates it empty, and every
/// later one answers the same [`CacheLock`]. A new faculty adds a cache
/// without touching `MemorySystem`.
#[derive(Default)]
pub(crate) struct FacultyState(Mutex<Vec<Arc<dyn Any + Send + Sync>>>);

impl FacultyState {
    /// The cache of type `T`, created empty on first use.
    pub(crate) fn cache<T: Default + Send + 'static>(&self) -> Arc<CacheLock<T>> {
        // The list only grows by whole entries and runs no caller code while
        // locked: a panic elsewhere cannot leave it torn.
        let mut slots = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = slots
            .iter()
            .find(|slot| (***slot).is::<CacheLock<T>>())
            .and_then(|slot| Arc::clone(slot).downcast::<CacheLock<T>>().ok())
        {
            return found;
        }
        let fresh = Arc::new(CacheLock::<T>::default());
        slots.push(fresh.clone());
        fresh
    }
}

/// A cache behind a mutex: a poisoned lock is cleared and the cache reset to
/// empty, to be rebuilt by the caller's refresh (see the module docs).
#[derive(Default)]
pub(crate) struct CacheLock<T: Default>(Mutex<T>);

impl<T: Default> CacheLock<T> {
    /// The cache, locked; after a panic of another holder, reset to empty
    /// and the poison cleared.
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        match self.0.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                let mut guard = poisoned.into_inner();
                *guard = T::default();
                self.0.clear_poison();
                guard
            }
        }
    }
}

/// Lock `lock`, which guards `what`: state no refresh rebuilds (see the
/// module docs).
///
/// # Errors
/// `Internal` naming `what` when a thread panicked while holding it.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the rule for a lock that is not a cache; none yet"
    )
)]
pub(crate) fn hold<'a, T>(lock: &'a Mutex<T>, what: &str) -> Result<MutexGuard<'a, T>> {
    lock.lock().map_err(|_| {
        Error::internal(format!(
            "the lock of {what} is poisoned: a thread panicked while holding it, so what it guards \
             may be torn; nothing was read or written (open the system again)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryRecordInput, MemorySystem, Reconstruct, RememberMany, Stimulus};
    use am_journal::InMemoryJournal;
    use am_triples::{ErrorKind, InMemoryTripleStore};
    use std::sync::Arc;

    /// Tear `cache` as a panicking holder would: on another thread, run
    /// `tear` on the locked cache and panic while still holding it.
    fn poison_with<T: Default + Send>(cache: &CacheLock<T>, tear: impl FnOnce(&mut T) + Send) {
        std::thread::scope(|s| {
            let holder = s.spawn(|| {
                let mut guard = cache.lock();
                tear(&mut guard);
                panic!("a holder of the cache panicked (this test's doing)");
            });
            assert!(holder.join().is_err(), "the holder was to panic");
        });
        assert!(cache.0.is_poisoned(), "the cache lock was to be poisoned");
    }

    fn system() -> MemorySystem {
        MemorySystem::new(
            Arc::new(InMemoryTripleStore::new(None)),
            Arc::new(InMemoryJournal::new()),
        )
    }

    fn formed(
        system: &MemorySystem,
        kind: crate::kinds::RecordKind,
        (scope, owner): (&str, &str),
        words: &[&str],
    ) {
        let records = words
            .iter()
            .map(|w| MemoryRecordInput::new(kind, w, &format!("The pool {w} at noon.")))
            .collect();
        system
            .remember_many(&RememberMany::new(records, scope, owner, "k1"))
            .unwrap();
    }

    const PAIR: (&str, &str) = ("session", "s1");

    #[test]
    fn a_poisoned_lock_of_what_no_refresh_rebuilds_fails_the_call_with_internal() {
        let lock = Mutex::new(7);
        assert_eq!(*hold(&lock, "the counter").unwrap(), 7);
        let _ = std::thread::scope(|s| {
            s.spawn(|| {
                let _guard = lock.lock().unwrap();
                panic!("a holder panicked (this test's doing)");
            })
            .join()
        });
        let err = hold(&lock, "the counter").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Internal);
        assert!(err.to_string().contains("the counter"), "{err}");
    }

    fn recall(system: &MemorySystem) -> Vec<String> {
        system
            .reconstruct(&Reconstruct::new(
                Stimulus::new("pool noon"),
                &[("session", "s1")],
            ))
            .unwrap()
            .handles
            .iter()
            .map(|h| h.record_id.clone())
            .collect()
    }

    /// A recall after a panic inside the recall index answers from an index
    /// rebuilt from the store, not from the rows the panicking holder left.
    #[test]
    fn a_poisoned_recall_index_is_cleared_and_rebuilt_from_the_store() {
        let (home, elsewhere) = (system(), system());
        formed(
            &home,
            crate::kinds::RecordKind::Lesson,
            PAIR,
            &["failed", "stalled"],
        );
        formed(
            &elsewhere,
            crate::kinds::RecordKind::Lesson,
            PAIR,
            &["flooded", "burned", "froze"],
        );
        let before = recall(&home);
        assert_eq!(before.len(), 2);
        // Warm: the second recall builds the index from the feed.
        assert_eq!(recall(&home), before);
        poison_with(
            &home
                .faculty_state
                .cache::<crate::recall::reconstruct::index::RecallIndex>(),
            |index| {
                // Torn: another home's rows mirrored into this index (the
                // second refresh reads the feed).
                index.refresh_store(elsewhere.store().as_ref());
                index.refresh_store(elsewhere.store().as_ref());
            },
        );
        assert_eq!(recall(&home), before);
        assert!(
            !home
                .faculty_state
                .cache::<crate::recall::reconstruct::index::RecallIndex>()
                .0
                .is_poisoned()
        );
        assert_eq!(recall(&home), before, "and the rebuilt index serves again");
    }

    fn appraise(system: &MemorySystem, target: &str, sign: i64) {
        system
            .appraise(&crate::valence::Appraise::new(
                target,
                sign,
                2.0,
                "it mattered",
                "session",
                "s1",
            ))
            .unwrap();
    }

    fn gradation(system: &MemorySystem) -> serde_json::Value {
        let g = system
            .gradation(&crate::valence::Gradation::new("session", "s1"))
            .unwrap();
        serde_json::to_value(&g).unwrap()
    }

    /// A gradation after a panic inside the valence index folds the home's
    /// own valence events again, not the streams the panicking holder left.
    #[test]
    fn a_poisoned_valence_index_is_cleared_and_rebuilt_from_the_journal() {
        let (home, elsewhere) = (system(), system());
        appraise(&home, "ex:pool", 1);
        appraise(&home, "ex:lunch", 1);
        // Not ahead of the home's journal (a mirror ahead is dropped anyway).
        appraise(&elsewhere, "ex:storm", -1);
        let before = gradation(&home);
        poison_with(
            &home
                .faculty_state
                .cache::<crate::valence::index::ValenceIndex>(),
            |index| {
                // Torn: a rebuild that read another home's journal.
                *index = Default::default();
                let j = elsewhere.journal().as_ref();
                index
                    .pair(j, "session", "s1", j.current_seq().unwrap())
                    .unwrap();
            },
        );
        assert_eq!(gradation(&home), before);
        assert!(
            !home
                .faculty_state
                .cache::<crate::valence::index::ValenceIndex>()
                .0
                .is_poisoned()
        );
    }

    const EID: &str = "entity:castor";

    fn card(system: &MemorySystem) -> serde_json::Value {
        let ladder = [("self", EID), ("life", EID)];
        let card = system
            .entity_card(&crate::observe::card::EntityCard::new(&ladder, EID))
            .unwrap();
        serde_json::to_value(&card).unwrap()
    }

    /// An entity card after a panic inside the ladder mirror reads the
    /// home's own records again, not the rows the panicking holder left.
    #[test]
    fn a_poisoned_card_mirror_is_cleared_and_rebuilt_from_the_store_and_journal() {
        let (home, elsewhere) = (system(), system());
        formed(
            &home,
            crate::kinds::RecordKind::Purpose,
            ("self", EID),
            &["honesty", "care"],
        );
        // Not ahead of the home's journal (a mirror ahead is dropped anyway).
        formed(
            &elsewhere,
            crate::kinds::RecordKind::Lesson,
            ("life", EID),
            &["speed", "haste"],
        );
        let before = card(&home);
        poison_with(
            &home
                .faculty_state
                .cache::<crate::observe::card::mirror::LadderMirror>(),
            |mirror| {
                // Torn: a rebuild that read another home's store and journal.
                *mirror = Default::default();
                let (s, j) = (elsewhere.store().as_ref(), elsewhere.journal().as_ref());
                let pairs = [
                    ("self".to_owned(), EID.to_owned()),
                    ("life".to_owned(), EID.to_owned()),
                ];
                mirror
                    .refresh(s, j, &pairs, j.current_seq().unwrap())
                    .unwrap();
            },
        );
        assert_eq!(card(&home), before);
        assert!(
            !home
                .faculty_state
                .cache::<crate::observe::card::mirror::LadderMirror>()
                .0
                .is_poisoned()
        );
    }

    /// The warnings buffer is a cache of what to hand over: a panic inside it
    /// clears it, and it collects (and hands over) warnings again.
    #[test]
    fn faculty_state_answers_one_cache_per_type_created_empty_on_first_use() {
        let state = FacultyState::default();
        state.cache::<Vec<u8>>().lock().push(7);
        state.cache::<String>().lock().push('x');
        assert_eq!(*state.cache::<Vec<u8>>().lock(), vec![7]);
        assert_eq!(*state.cache::<String>().lock(), "x");
        assert!(Arc::ptr_eq(
            &state.cache::<Vec<u8>>(),
            &state.cache::<Vec<u8>>()
        ));
        assert!(state.cache::<Vec<u16>>().lock().is_empty());
    }

    #[test]
    fn a_poisoned_warnings_buffer_is_cleared_and_collects_again() {
        let home = system();
        let _ = home.take_warnings();
        home.warn("#FALLBACK: kept".to_owned());
        poison_with(&home.warnings, |w| {
            w.push("#FALLBACK: half written".to_owned())
        });
        assert_eq!(home.take_warnings(), Vec::<String>::new());
        home.warn("#FALLBACK: after".to_owned());
        assert_eq!(home.take_warnings(), vec!["#FALLBACK: after".to_owned()]);
        assert!(!home.warnings.0.is_poisoned());
    }
}
