//! The valence index a `MemorySystem` keeps per `(scope, owner)`: every
//! valence event the journal holds in seq order, each target's positions in
//! it, the resolutions (healings, breaks) of the whole stream, an id lookup,
//! and running tallies (appraisals so far, the earliest and latest
//! `observed_at` so far) that answer at any anchor with one binary search. It
//! folds the journal from its tail (only the events after the seq it last
//! read), so `gradation` of one target reads that target's events and nothing
//! else, and the identity card reads the whole ladder without the journal.
//!
//! Nothing in the recall pipeline reads this index: valence never touches
//! retrieval (memory-system.md "Valence: how experience felt").

use super::gradation::{GradationConfig, GradationScore, Resolutions, fold_target};
use crate::error::Result;
use am_journal::{MemoryJournal, ValenceEvent, ValenceFilter, ValenceKind};
use std::collections::HashMap;

/// No event: the `u32` a position slot holds when nothing qualifies.
const NONE: u32 = u32::MAX;

/// The events of one `(scope, owner)` stream, as of `through`.
#[derive(Debug, Default)]
pub(crate) struct PairValence {
    /// The journal seq this index has read through.
    through: i64,
    /// Every event, seq ascending.
    events: Vec<ValenceEvent>,
    /// Each target's positions in `events`, ascending.
    by_target: HashMap<String, Vec<u32>>,
    /// Event id → position in `events`.
    by_id: HashMap<String, u32>,
    resolutions: Resolutions,
    /// `appraisals_before[i]`: the appraisals among `events[..i]` (one
    /// longer than `events`).
    appraisals_before: Vec<u32>,
    /// `earliest_upto[i]` / `latest_upto[i]`: the position of the smallest /
    /// largest non-blank `observed_at` among `events[..=i]` ([`NONE`] when
    /// all are blank).
    earliest_upto: Vec<u32>,
    latest_upto: Vec<u32>,
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
            self.push(e);
        }
        self.through = current;
        Ok(())
    }

    /// Append one event (its seq above every held one).
    fn push(&mut self, e: ValenceEvent) {
        let at = u32::try_from(self.events.len()).unwrap_or(NONE);
        self.resolutions.note(&e);
        if self.appraisals_before.is_empty() {
            self.appraisals_before.push(0);
        }
        let before = self.appraisals_before.last().copied().unwrap_or(0);
        self.appraisals_before
            .push(before + u32::from(e.kind == ValenceKind::Appraisal));
        let stamp = |i: u32| -> &str {
            self.events
                .get(i as usize)
                .map_or("", |x: &ValenceEvent| x.observed_at.as_str())
        };
        let (prev_lo, prev_hi) = (
            self.earliest_upto.last().copied().unwrap_or(NONE),
            self.latest_upto.last().copied().unwrap_or(NONE),
        );
        let (mut lo, mut hi) = (prev_lo, prev_hi);
        if !e.observed_at.is_empty() {
            if lo == NONE || e.observed_at.as_str() < stamp(lo) {
                lo = at;
            }
            // Ties keep the earlier event: both hold the same text.
            if hi == NONE || e.observed_at.as_str() > stamp(hi) {
                hi = at;
            }
        }
        self.earliest_upto.push(lo);
        self.latest_upto.push(hi);
        self.by_target
            .entry(e.target_id.clone())
            .or_default()
            .push(at);
        self.by_id.insert(e.event_id.clone(), at);
        self.events.push(e);
    }

    /// The event with id `event_id`, if the stream holds it.
    pub(crate) fn event(&self, event_id: &str) -> Option<&ValenceEvent> {
        self.events.get(*self.by_id.get(event_id)? as usize)
    }

    /// The events at or before `anchor`, seq ascending.
    pub(crate) fn events_at(&self, anchor: i64) -> &[ValenceEvent] {
        &self.events[..self.events.partition_point(|e| e.seq <= anchor)]
    }

    /// How many appraisal events stand at or before `anchor`.
    pub(crate) fn appraisals_at(&self, anchor: i64) -> usize {
        let end = self.events_at(anchor).len();
        self.appraisals_before.get(end).map_or(0, |n| *n as usize)
    }

    /// The smallest and largest non-blank `observed_at` at or before `anchor`.
    pub(crate) fn stamps_at(&self, anchor: i64) -> Option<(&str, &str)> {
        let end = self.events_at(anchor).len();
        let last = end.checked_sub(1)?;
        let (lo, hi) = (self.earliest_upto[last], self.latest_upto[last]);
        if lo == NONE {
            return None;
        }
        Some((
            self.events[lo as usize].observed_at.as_str(),
            self.events[hi as usize].observed_at.as_str(),
        ))
    }

    /// The healings and breaks of the whole stream (each resolves from its
    /// seq on).
    pub(crate) fn resolutions(&self) -> &Resolutions {
        &self.resolutions
    }

    /// Every target the stream holds (at any seq), in no particular order.
    pub(crate) fn targets(&self) -> impl Iterator<Item = &str> + '_ {
        self.by_target.keys().map(String::as_str)
    }

    /// Whether the stream holds events of `target` (at any seq).
    pub(crate) fn holds(&self, target: &str) -> bool {
        self.by_target.contains_key(target)
    }

    /// Append `target`'s events at or before `anchor` to `out`, oldest first.
    pub(crate) fn extend_stream_at<'a>(
        &'a self,
        target: &str,
        anchor: i64,
        out: &mut Vec<&'a ValenceEvent>,
    ) {
        if let Some(at) = self.by_target.get(target) {
            out.extend(
                at.iter()
                    .map(|i| &self.events[*i as usize])
                    .take_while(|e| e.seq <= anchor),
            );
        }
    }

    /// `target`'s events at or before `anchor`, oldest first.
    fn stream_at(&self, target: &str, anchor: i64) -> Vec<&ValenceEvent> {
        self.by_target.get(target).map_or_else(Vec::new, |at| {
            at.iter()
                .map(|i| &self.events[*i as usize])
                .take_while(|e| e.seq <= anchor)
                .collect()
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
        Some(fold_target(
            &stream,
            &self.resolutions,
            anchor,
            config,
            true,
        ))
    }

    /// Every target with events at or before `anchor`, the one appraised
    /// most recently first (0.3.2's order: its fold meets targets in the
    /// journal's newest-first read).
    pub(crate) fn targets_at(&self, anchor: i64) -> Vec<&str> {
        let mut t: Vec<(i64, &str)> = self
            .by_target
            .iter()
            .filter_map(|(target, at)| {
                let end = at.partition_point(|i| self.events[*i as usize].seq <= anchor);
                (end > 0).then(|| (self.events[at[end - 1] as usize].seq, target.as_str()))
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

    /// The stream of `(scope, owner)` as last caught up, if it was read.
    pub(crate) fn caught_up(&self, scope: &str, owner: &str) -> Option<&PairValence> {
        self.pairs.get(&(scope.to_owned(), owner.to_owned()))
    }
}
