//! The recall index as a read-only view for the reads beside `reconstruct`
//! (reach's `probe`, `familiarity` and `probe_expand`): the index refreshed
//! and its journal folds taken at the anchor at entry, given back at exit,
//! exactly as `reconstruct`'s pipeline does, so a deliberate reach reads the
//! same rows and the same exclusions a recall at that anchor reads.

use super::channels::EXCLUSION_OVERFETCH_CAP;
use super::folds::Folds;
use super::index::{IndexedStore, RecallIndex};
use crate::error::Result;
use crate::system::MemorySystem;

/// What a read beside `reconstruct` sees: the store index first, the
/// exclusion folds at its anchor, and the folds' over-fetch headroom.
pub(crate) struct RecallView<'v> {
    /// The store as a recall reads it (index first).
    pub store: &'v IndexedStore<'v>,
    /// The closure, hidden and (anchored) future folds at the anchor.
    pub folds: &'v Folds<'v>,
    /// Extra rows a bounded fetch asks for so excluded rows cannot shadow
    /// eligible ones.
    pub headroom: usize,
    /// The state this view reads at (the index's feed cursor, the journal's
    /// head, the folds' anchor, each seq read through
    /// [`RecallIndex::field_seq`], so this system's own inert audit records
    /// move neither), when the index is in use: two views at one stamp read
    /// the same rows and exclusions.
    pub stamp: Option<crate::concepts::FieldStamp>,
}

impl MemorySystem {
    /// Run `f` over a [`RecallView`] of `pairs` at `as_of` (which the caller
    /// has checked lies in `0..=current_seq`). A read below the current seq
    /// neither reads nor writes the index's journal caches.
    ///
    /// # Errors
    /// The store's or journal's failure, or `f`'s.
    pub(crate) fn with_recall_view<R>(
        &self,
        pairs: &[(String, String)],
        as_of: i64,
        f: impl FnOnce(&RecallView<'_>) -> Result<R>,
    ) -> Result<R> {
        let head = self.journal.current_seq()?;
        let anchored = as_of < head;
        let index = self.faculty_state.cache::<RecallIndex>();
        let mut index = index.lock();
        index.refresh_store(self.store.as_ref());
        index.refresh_rewrites(self.store.as_ref(), self.journal.as_ref(), head);
        let (hidden, cached) = if anchored {
            (Folds::hidden_keys_at(self.journal.as_ref(), as_of)?, None)
        } else {
            index.refresh_journal(self.journal.as_ref(), as_of)?;
            let hidden = index.hidden_keys(self.journal.as_ref(), as_of)?;
            (hidden, index.take_folds(as_of))
        };
        let (out, parts) = {
            let store = IndexedStore {
                inner: self.store.as_ref(),
                index: &index,
            };
            let folds = Folds::load(
                &store,
                self.journal.as_ref(),
                pairs,
                as_of,
                anchored,
                cached,
            )?;
            let headroom = folds.exclusion_headroom(&hidden, EXCLUSION_OVERFETCH_CAP)?;
            let out = f(&RecallView {
                store: &store,
                folds: &folds,
                headroom,
                stamp: index
                    .feed_cursor()
                    .map(|cursor| (cursor, index.field_seq(head), index.field_seq(as_of))),
            })?;
            (out, folds.into_parts())
        };
        if !anchored {
            index.restore_folds(as_of, parts.0, parts.1);
        }
        Ok(out)
    }
}
