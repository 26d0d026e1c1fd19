//! The valence index a `MemorySystem` keeps per `(scope, owner)`: every
//! valence event the journal holds, grouped by target in seq order, with the
//! resolutions (healings, breaks) of the whole stream and an id lookup. It
//! folds the journal from its tail (only the events after the seq it last
//! read), so `gradation` of one target reads that target's events and nothing
//! else, at any anchor.
//!
//! Nothing in the recall pipeline reads this index: valence never touches
//! retrieval (memory-system.md "Valence: how experience felt").

use super::gradation::{GradationConfig, GradationScore, Resolutions, fold_target};
use crate::error::Result;
use am_journal::{MemoryJournal, ValenceEvent, ValenceFilter};
use std::collections::HashMap;

/// The events of one `(scope, owner)` stream, as of `through`.
#[derive(Debug, Default)]
pub(crate) struct PairValence {
    /// The journal seq this index has read through.
    through: i64,
    /// Each target's events, seq ascending.
    by_target: HashMap<String, Vec<ValenceEvent>>,
    /// Event id → (target, position in its stream).
    by_id: HashMap<String, (String, usize)>,
    resolutions: Resolutions,
}

impl PairValence {
    /// Read the journal's valence events of this pair after `through` up to
    /// `current` (the caller's high-water mark).
    fn catch_up(
        &mut self,
        journal: &dyn MemoryJournal,
        scope: &str,
        owner: &str,
        current: i64,
    ) -> Result<()> {
        if current <= self.through {
            return Ok(());
        }
        let filter = ValenceFilter {
            since_seq: Some(self.through + 1),
            until_seq: Some(current),
            limit: 0,
            ..ValenceFilter::new(scope, owner)
        };
        let mut fresh = journal.valence_events(&filter)?;
        fresh.reverse(); // oldest first
        for e in fresh {
            self.resolutions.note(&e);
            let stream = self.by_target.entry(e.target_id.clone()).or_default();
            self.by_id
                .insert(e.event_id.clone(), (e.target_id.clone(), stream.len()));
            stream.push(e);
        }
        self.through = current;
        Ok(())
    }

    /// The event with id `event_id`, if the stream holds it.
    pub(crate) fn event(&self, event_id: &str) -> Option<&ValenceEvent> {
        let (target, i) = self.by_id.get(event_id)?;
        self.by_target.get(target)?.get(*i)
    }

    /// `target`'s events at or before `anchor`, oldest first.
    fn stream_at(&self, target: &str, anchor: i64) -> &[ValenceEvent] {
        self.by_target.get(target).map_or(&[], |s| {
            let end = s.partition_point(|e| e.seq <= anchor);
            &s[..end]
        })
    }

    /// `target`'s standing at `anchor`, `None` when it has no events there.
    pub(crate) fn score(
        &self,
        target: &str,
        anchor: i64,
        config: &GradationConfig,
    ) -> Option<GradationScore> {
        let stream = self.stream_at(target, anchor);
        if stream.is_empty() {
            return None;
        }
        let refs: Vec<&ValenceEvent> = stream.iter().collect();
        Some(fold_target(&refs, &self.resolutions, anchor, config))
    }

    /// Every target with events at or before `anchor`, the one appraised
    /// most recently first (0.3.2's order: its fold meets targets in the
    /// journal's newest-first read).
    pub(crate) fn targets_at(&self, anchor: i64) -> Vec<&str> {
        let mut t: Vec<(i64, &str)> = self
            .by_target
            .iter()
            .filter_map(|(target, s)| {
                let end = s.partition_point(|e| e.seq <= anchor);
                (end > 0).then(|| (s[end - 1].seq, target.as_str()))
            })
            .collect();
        t.sort_unstable_by_key(|b| std::cmp::Reverse(b.0));
        t.into_iter().map(|(_, target)| target).collect()
    }
}

/// The per-pair valence streams of one system.
#[derive(Debug, Default)]
pub(crate) struct ValenceIndex {
    pairs: HashMap<(String, String), PairValence>,
}

impl ValenceIndex {
    /// The stream of `(scope, owner)`, caught up to `current`.
    ///
    /// # Errors
    /// The journal's failure (the index keeps what it had).
    pub(crate) fn pair(
        &mut self,
        journal: &dyn MemoryJournal,
        scope: &str,
        owner: &str,
        current: i64,
    ) -> Result<&PairValence> {
        let key = (scope.to_owned(), owner.to_owned());
        let pair = self.pairs.entry(key).or_default();
        pair.catch_up(journal, scope, owner, current)?;
        Ok(pair)
    }
}
