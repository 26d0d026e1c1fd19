//! `InMemoryJournal`: the volatile reference journal (tests, experiments). It
//! raises a `#FALLBACK` warning at construction: the seq axis dies with the process.
//!
//! Spec: api.md "The journal"; troubleshooting.md "`#FALLBACK: InMemoryJournal is volatile`".

use crate::binding::{ScopeBinding, fold_bindings};
use crate::closure::ClosureRecord;
use crate::common::{fill_id, fill_observed_at};
use crate::error::Result;
use crate::event::{EventKind, MemoryEvent};
use crate::journal::{
    BindingFilter, ClosureFilter, EventFilter, JournalRecord, MemoryJournal, TraceFilter,
    ValenceFilter, VersionFilter, canonical_pair, check_anchor, normalize_all,
};
use crate::trace::{ActiveMemorySnapshot, ReconstructionTrace};
use crate::valence::ValenceEvent;
use crate::version::UnderstandingVersion;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// The warning every new [`InMemoryJournal`] raises.
pub const VOLATILE_WARNING: &str = "#FALLBACK: InMemoryJournal is volatile — journal events, bindings, closures, traces, snapshots and the seq axis are lost on process exit (as_of replay will not survive a restart). Use SQLiteJournal for durable memory.";

#[derive(Default)]
struct State {
    seq: i64,
    events: Vec<MemoryEvent>,
    events_by_id: HashMap<String, usize>,
    bindings: Vec<ScopeBinding>,
    bindings_by_id: HashMap<String, usize>,
    bindings_by_record: HashMap<String, Vec<usize>>,
    closures: Vec<ClosureRecord>,
    closures_by_id: HashMap<String, usize>,
    traces: Vec<ReconstructionTrace>,
    traces_by_id: HashMap<String, usize>,
    snapshots: Vec<ActiveMemorySnapshot>,
    snapshots_by_id: HashMap<String, usize>,
    valence: Vec<ValenceEvent>,
    valence_by_id: HashMap<String, usize>,
    versions: Vec<UnderstandingVersion>,
    versions_by_id: HashMap<String, usize>,
    /// record_id → ascending seqs of its `selected` events.
    selected: HashMap<String, Vec<i64>>,
    /// canonical pair → ascending seqs of its `co_selected` events.
    pairs: HashMap<(String, String), Vec<i64>>,
    warnings: Vec<String>,
}

impl State {
    fn next_seq(&mut self) -> i64 {
        self.seq += 1;
        self.seq
    }
}

/// A volatile, thread-safe journal in process memory (one mutex over all state).
///
/// # Examples
/// ```
/// use am_journal::{EventKind, InMemoryJournal, MemoryEvent, MemoryJournal};
/// let j = InMemoryJournal::new();
/// assert!(j.take_warnings()[0].starts_with("#FALLBACK: InMemoryJournal is volatile"));
/// let stored = j.append_events(&[MemoryEvent::on_record(EventKind::Selected, "r1", "session", "s1")]).unwrap();
/// assert_eq!((stored[0].seq, stored[0].weight), (1, 8.0));
/// assert_eq!(j.selected_count("r1", None).unwrap(), 1);
/// ```
pub struct InMemoryJournal {
    state: Mutex<State>,
    guard: am_triples::GuardSlot,
    /// Held by every append from before the guard to after the change; a
    /// write barrier holds it.
    write_lock: std::sync::Arc<am_triples::WriteLock>,
}

impl std::fmt::Debug for InMemoryJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryJournal")
            .field("seq", &self.lock().seq)
            .finish()
    }
}

impl Default for InMemoryJournal {
    fn default() -> Self {
        Self::new()
    }
}

fn take_limited<T: Clone>(iter: impl Iterator<Item = T>, limit: usize) -> Vec<T> {
    if limit == 0 {
        iter.collect()
    } else {
        iter.take(limit).collect()
    }
}

/// The index range of records with `lo < seq <= hi` in a seq-ascending family.
fn seq_range<T>(
    records: &[T],
    seq: impl Fn(&T) -> i64,
    lo: i64,
    hi: i64,
) -> std::ops::Range<usize> {
    let start = records.partition_point(|r| seq(r) <= lo);
    let end = records.partition_point(|r| seq(r) <= hi);
    start..end.max(start)
}

impl InMemoryJournal {
    /// A new empty journal; its `#FALLBACK` volatility warning is queued for
    /// [`MemoryJournal::take_warnings`].
    pub fn new() -> Self {
        let state = State {
            warnings: vec![VOLATILE_WARNING.to_string()],
            ..State::default()
        };
        InMemoryJournal {
            state: Mutex::new(state),
            guard: am_triples::GuardSlot::new(),
            write_lock: am_triples::WriteLock::new("the write lock of an InMemoryJournal"),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every mutation is prepared (validated) before the lock and applied without
        // fallible steps, so a poisoned lock cannot hide a half-written append.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Append one normalized binding under the lock; a supplied id already
    /// appended returns the original record.
    fn push_binding(st: &mut State, mut b: ScopeBinding) -> ScopeBinding {
        let supplied = b.binding_id.trim();
        if !supplied.is_empty()
            && let Some(&i) = st.bindings_by_id.get(supplied)
        {
            return st.bindings[i].clone();
        }
        fill_id(&mut b.binding_id);
        fill_observed_at(&mut b.observed_at);
        b.seq = st.next_seq();
        let idx = st.bindings.len();
        st.bindings_by_id.insert(b.binding_id.clone(), idx);
        st.bindings_by_record
            .entry(b.record_id.clone())
            .or_default()
            .push(idx);
        st.bindings.push(b.clone());
        b
    }

    /// Append one normalized closure under the lock; a supplied id already
    /// appended (in an earlier call or earlier in this batch) returns the
    /// original record.
    fn push_closure(st: &mut State, mut c: ClosureRecord) -> ClosureRecord {
        let supplied = c.closure_id.trim();
        if !supplied.is_empty()
            && let Some(&i) = st.closures_by_id.get(supplied)
        {
            return st.closures[i].clone();
        }
        fill_id(&mut c.closure_id);
        fill_observed_at(&mut c.observed_at);
        c.seq = st.next_seq();
        let idx = st.closures.len();
        st.closures_by_id.insert(c.closure_id.clone(), idx);
        st.closures.push(c.clone());
        c
    }
}

impl MemoryJournal for InMemoryJournal {
    fn install_commit_guard(&self, guard: &am_triples::CommitGuard) -> Result<()> {
        self.guard.install(guard, "this InMemoryJournal")
    }

    fn commit_guard(&self) -> Option<am_triples::CommitGuard> {
        self.guard.get().cloned()
    }

    fn write_fence(&self) -> am_triples::WriteFence {
        am_triples::WriteFence {
            locks: vec![self.write_lock.clone()],
            ..am_triples::WriteFence::default()
        }
    }

    fn append_events(&self, events: &[MemoryEvent]) -> Result<Vec<MemoryEvent>> {
        let items = normalize_all(events, MemoryEvent::normalized)?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        let mut out = Vec::with_capacity(items.len());
        for mut e in items {
            let supplied = e.event_id.trim();
            if !supplied.is_empty()
                && let Some(&i) = st.events_by_id.get(supplied)
            {
                out.push(st.events[i].clone());
                continue;
            }
            fill_id(&mut e.event_id);
            fill_observed_at(&mut e.observed_at);
            e.seq = st.next_seq();
            if e.kind == EventKind::Selected
                && let Some(rid) = e.record_id.clone()
            {
                st.selected.entry(rid).or_default().push(e.seq);
            } else if e.kind == EventKind::CoSelected
                && let Some(pair) = e.pair_ids.clone()
            {
                st.pairs.entry(pair).or_default().push(e.seq);
            }
            let idx = st.events.len();
            st.events_by_id.insert(e.event_id.clone(), idx);
            st.events.push(e.clone());
            out.push(e);
        }
        Ok(out)
    }

    fn events(&self, filter: &EventFilter) -> Result<Vec<MemoryEvent>> {
        let f = filter.normalized()?;
        let st = self.lock();
        check_anchor("since_seq", f.since_seq, st.seq)?;
        check_anchor("until_seq", f.until_seq, st.seq)?;
        let it = st.events.iter().rev().filter(|e| {
            e.scope == f.scope
                && e.owner_id == f.owner_id
                && f.record_id
                    .as_ref()
                    .is_none_or(|r| e.record_id.as_ref() == Some(r))
                && (f.kinds.is_empty() || f.kinds.iter().any(|k| k == e.kind.as_str()))
                && f.since_seq.is_none_or(|lo| e.seq >= lo)
                && f.until_seq.is_none_or(|hi| e.seq <= hi)
        });
        Ok(take_limited(it.cloned(), f.limit))
    }

    fn append_bindings(&self, bindings: &[ScopeBinding]) -> Result<Vec<ScopeBinding>> {
        let items = normalize_all(bindings, ScopeBinding::normalized)?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        Ok(items
            .into_iter()
            .map(|b| Self::push_binding(&mut st, b))
            .collect())
    }

    fn append_binding(&self, binding: &ScopeBinding) -> Result<ScopeBinding> {
        let b = binding.normalized()?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        Ok(Self::push_binding(&mut st, b))
    }

    fn bindings(&self, filter: &BindingFilter) -> Result<Vec<ScopeBinding>> {
        let f = filter.normalized();
        let st = self.lock();
        check_anchor("until_seq", f.until_seq, st.seq)?;
        let keep = |b: &&ScopeBinding| {
            f.scope.as_ref().is_none_or(|s| &b.scope == s)
                && f.owner_id.as_ref().is_none_or(|o| &b.owner_id == o)
                && f.until_seq.is_none_or(|hi| b.seq <= hi)
        };
        let matches: Vec<ScopeBinding> = match &f.record_id {
            Some(rid) => st
                .bindings_by_record
                .get(rid)
                .map(|idx| {
                    idx.iter()
                        .map(|&i| &st.bindings[i])
                        .filter(keep)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default(),
            None => st.bindings.iter().filter(keep).cloned().collect(),
        };
        Ok(if f.fold {
            fold_bindings(&matches)
        } else {
            matches
        })
    }

    fn fold_bindings_for(
        &self,
        record_ids: &[String],
        until_seq: Option<i64>,
    ) -> Result<HashMap<String, Vec<ScopeBinding>>> {
        // One lock for the batch; each id reads only its own index entry.
        let st = self.lock();
        check_anchor("until_seq", until_seq, st.seq)?;
        let mut out: HashMap<String, Vec<ScopeBinding>> = HashMap::new();
        for id in record_ids {
            if out.contains_key(id) {
                continue;
            }
            let matches: Vec<ScopeBinding> = st
                .bindings_by_record
                .get(id.trim())
                .map(|idx| {
                    idx.iter()
                        .map(|&i| &st.bindings[i])
                        .filter(|b| until_seq.is_none_or(|hi| b.seq <= hi))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            out.insert(id.clone(), fold_bindings(&matches));
        }
        Ok(out)
    }

    fn append_closure(&self, closure: &ClosureRecord) -> Result<ClosureRecord> {
        let c = closure.normalized()?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        Ok(Self::push_closure(&mut st, c))
    }

    fn append_closures(&self, closures: &[ClosureRecord]) -> Result<Vec<ClosureRecord>> {
        let items = normalize_all(closures, ClosureRecord::normalized)?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        Ok(items
            .into_iter()
            .map(|c| Self::push_closure(&mut st, c))
            .collect())
    }

    fn closures(&self, filter: &ClosureFilter) -> Result<Vec<ClosureRecord>> {
        let st = self.lock();
        check_anchor("until_seq", filter.until_seq, st.seq)?;
        let aid = filter.assertion_id.as_deref().map(str::trim);
        let it = st.closures.iter().rev().filter(|c| {
            aid.is_none_or(|a| c.assertion_id == a) && filter.until_seq.is_none_or(|hi| c.seq <= hi)
        });
        Ok(take_limited(it.cloned(), filter.limit))
    }

    fn append_trace(&self, trace: &ReconstructionTrace) -> Result<ReconstructionTrace> {
        let mut t = trace.normalized()?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        if !t.trace_id.is_empty()
            && let Some(&i) = st.traces_by_id.get(&t.trace_id)
        {
            return Ok(st.traces[i].clone());
        }
        fill_id(&mut t.trace_id);
        fill_observed_at(&mut t.observed_at);
        t.seq = st.next_seq();
        let idx = st.traces.len();
        st.traces_by_id.insert(t.trace_id.clone(), idx);
        st.traces.push(t.clone());
        Ok(t)
    }

    fn traces(&self, filter: &TraceFilter) -> Result<Vec<ReconstructionTrace>> {
        let st = self.lock();
        check_anchor("until_seq", filter.until_seq, st.seq)?;
        let tid = filter.trace_id.as_deref().map(str::trim);
        let it = st.traces.iter().rev().filter(|t| {
            tid.is_none_or(|id| t.trace_id == id) && filter.until_seq.is_none_or(|hi| t.seq <= hi)
        });
        Ok(take_limited(it.cloned(), filter.limit))
    }

    fn append_snapshot(&self, snapshot: &ActiveMemorySnapshot) -> Result<ActiveMemorySnapshot> {
        let mut s = snapshot.normalized()?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        if !s.snapshot_id.is_empty()
            && let Some(&i) = st.snapshots_by_id.get(&s.snapshot_id)
        {
            return Ok(st.snapshots[i].clone());
        }
        fill_id(&mut s.snapshot_id);
        fill_observed_at(&mut s.observed_at);
        s.seq = st.next_seq();
        let idx = st.snapshots.len();
        st.snapshots_by_id.insert(s.snapshot_id.clone(), idx);
        st.snapshots.push(s.clone());
        Ok(s)
    }

    fn snapshots(&self, filter: &TraceFilter) -> Result<Vec<ActiveMemorySnapshot>> {
        let st = self.lock();
        check_anchor("until_seq", filter.until_seq, st.seq)?;
        let tid = filter.trace_id.as_deref().map(str::trim);
        let it = st.snapshots.iter().rev().filter(|s| {
            tid.is_none_or(|id| s.trace_id == id) && filter.until_seq.is_none_or(|hi| s.seq <= hi)
        });
        Ok(take_limited(it.cloned(), filter.limit))
    }

    fn append_valence(&self, events: &[ValenceEvent]) -> Result<Vec<ValenceEvent>> {
        let items = normalize_all(events, ValenceEvent::normalized)?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        let mut out = Vec::with_capacity(items.len());
        for mut e in items {
            let supplied = e.event_id.trim();
            if !supplied.is_empty()
                && let Some(&i) = st.valence_by_id.get(supplied)
            {
                out.push(st.valence[i].clone());
                continue;
            }
            fill_id(&mut e.event_id);
            fill_observed_at(&mut e.observed_at);
            e.seq = st.next_seq();
            let idx = st.valence.len();
            st.valence_by_id.insert(e.event_id.clone(), idx);
            st.valence.push(e.clone());
            out.push(e);
        }
        Ok(out)
    }

    fn valence_events(&self, filter: &ValenceFilter) -> Result<Vec<ValenceEvent>> {
        let f = filter.normalized()?;
        let st = self.lock();
        check_anchor("since_seq", f.since_seq, st.seq)?;
        check_anchor("until_seq", f.until_seq, st.seq)?;
        // The family is seq-ascending: a tail read (`since_seq`) starts at
        // its first event instead of scanning the whole family.
        let start = f
            .since_seq
            .map_or(0, |lo| st.valence.partition_point(|e| e.seq < lo));
        let it = st.valence[start..].iter().rev().filter(|e| {
            e.scope == f.scope
                && e.owner_id == f.owner_id
                && f.target_id.as_ref().is_none_or(|t| &e.target_id == t)
                && f.since_seq.is_none_or(|lo| e.seq >= lo)
                && f.until_seq.is_none_or(|hi| e.seq <= hi)
        });
        Ok(take_limited(it.cloned(), f.limit))
    }

    fn append_version(&self, version: &UnderstandingVersion) -> Result<UnderstandingVersion> {
        let mut v = version.normalized()?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        self.guard.check(am_triples::CommitPoint::Journal)?;
        if let Some(&i) = st.versions_by_id.get(&v.version_id) {
            return Ok(st.versions[i].clone());
        }
        fill_observed_at(&mut v.understood_at);
        v.seq = st.next_seq();
        let idx = st.versions.len();
        st.versions_by_id.insert(v.version_id.clone(), idx);
        st.versions.push(v.clone());
        Ok(v)
    }

    fn versions(&self, filter: &VersionFilter) -> Result<Vec<UnderstandingVersion>> {
        let st = self.lock();
        check_anchor("until_seq", filter.until_seq, st.seq)?;
        let rid = filter.record_id.as_deref().map(str::trim);
        let aid = filter.assertion_id.as_deref().map(str::trim);
        let field = filter.field.as_deref().map(|f| f.trim().to_lowercase());
        let it = st.versions.iter().filter(|v| {
            rid.is_none_or(|r| v.record_id == r)
                && aid.is_none_or(|a| v.assertion_id == a)
                && field.as_deref().is_none_or(|f| v.field == f)
                && filter.until_seq.is_none_or(|hi| v.seq <= hi)
        });
        Ok(take_limited(it.cloned(), filter.limit))
    }

    fn replay_records(&self, since_seq: i64, until_seq: Option<i64>) -> Result<Vec<JournalRecord>> {
        let st = self.lock();
        check_anchor("since_seq", Some(since_seq), st.seq)?;
        check_anchor("until_seq", until_seq, st.seq)?;
        let (lo, hi) = (since_seq, until_seq.unwrap_or(st.seq));
        let mut out: Vec<JournalRecord> = Vec::new();
        out.extend(
            st.events[seq_range(&st.events, |r| r.seq, lo, hi)]
                .iter()
                .cloned()
                .map(JournalRecord::Event),
        );
        out.extend(
            st.bindings[seq_range(&st.bindings, |r| r.seq, lo, hi)]
                .iter()
                .cloned()
                .map(JournalRecord::Binding),
        );
        out.extend(
            st.closures[seq_range(&st.closures, |r| r.seq, lo, hi)]
                .iter()
                .cloned()
                .map(JournalRecord::Closure),
        );
        out.extend(
            st.traces[seq_range(&st.traces, |r| r.seq, lo, hi)]
                .iter()
                .cloned()
                .map(JournalRecord::Trace),
        );
        out.extend(
            st.snapshots[seq_range(&st.snapshots, |r| r.seq, lo, hi)]
                .iter()
                .cloned()
                .map(JournalRecord::Snapshot),
        );
        out.extend(
            st.valence[seq_range(&st.valence, |r| r.seq, lo, hi)]
                .iter()
                .cloned()
                .map(JournalRecord::Valence),
        );
        out.sort_by_key(JournalRecord::seq);
        Ok(out)
    }

    fn revision_records(
        &self,
        since_seq: i64,
        until_seq: Option<i64>,
    ) -> Result<Vec<UnderstandingVersion>> {
        let st = self.lock();
        check_anchor("since_seq", Some(since_seq), st.seq)?;
        check_anchor("until_seq", until_seq, st.seq)?;
        let hi = until_seq.unwrap_or(st.seq);
        Ok(st.versions[seq_range(&st.versions, |r| r.seq, since_seq, hi)].to_vec())
    }

    fn selected_count(&self, record_id: &str, until_seq: Option<i64>) -> Result<u64> {
        let st = self.lock();
        check_anchor("until_seq", until_seq, st.seq)?;
        Ok(count_until(st.selected.get(record_id.trim()), until_seq))
    }

    fn pair_selected_count(&self, pair: (&str, &str), until_seq: Option<i64>) -> Result<u64> {
        let st = self.lock();
        check_anchor("until_seq", until_seq, st.seq)?;
        Ok(count_until(st.pairs.get(&canonical_pair(pair)), until_seq))
    }

    fn seq_at(&self, iso_ts: &str) -> Result<i64> {
        let ts = am_triples::timestamp::normalize_timestamp(iso_ts)?;
        let st = self.lock();
        let best = st
            .events
            .iter()
            .map(|r| (r.seq, &r.observed_at))
            .chain(st.bindings.iter().map(|r| (r.seq, &r.observed_at)))
            .chain(st.closures.iter().map(|r| (r.seq, &r.observed_at)))
            .chain(st.traces.iter().map(|r| (r.seq, &r.observed_at)))
            .filter(|(_, at)| at.as_str() <= ts.as_str())
            .map(|(s, _)| s)
            .max()
            .unwrap_or(0);
        Ok(best)
    }

    fn current_seq(&self) -> Result<i64> {
        Ok(self.lock().seq)
    }

    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().warnings)
    }
}

fn count_until(seqs: Option<&Vec<i64>>, until_seq: Option<i64>) -> u64 {
    let Some(seqs) = seqs else { return 0 };
    let n = match until_seq {
        None => seqs.len(),
        Some(hi) => seqs.partition_point(|&s| s <= hi),
    };
    n as u64
}
