//! The `MemoryJournal` trait, its reader filters, the replay record enum and the
//! anchor rules every backend shares.
//!
//! Spec: api.md "The journal"; architecture.md "The journal is the time axis"
//! ("Invalid anchors raise; they never silently mean 'latest'").

use crate::binding::ScopeBinding;
use crate::closure::ClosureRecord;
use crate::common::norm_scope;
use crate::error::{Error, Result};
use crate::event::{MemoryEvent, all_event_kinds, is_event_kind};
use crate::trace::{ActiveMemorySnapshot, ReconstructionTrace};
use crate::valence::ValenceEvent;
use crate::version::UnderstandingVersion;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The default `limit` of `events`, `closures` and `valence_events` (512).
pub const DEFAULT_EVENT_LIMIT: usize = 512;
/// The default `limit` of `traces` and `snapshots` (100).
pub const DEFAULT_TRACE_LIMIT: usize = 100;

/// The append-only journal: seven record families on one monotonic `seq` axis.
///
/// # Contract
/// - Every appended record gets the next `seq` of ONE axis shared by all families
///   (starting at 1, gap-free for inserted records); `current_seq` is the
///   high-water mark.
/// - A caller-supplied id (`event_id`, `binding_id`, `closure_id`, `trace_id`,
///   `snapshot_id`, valence `event_id`, `version_id`) makes a repeated append a
///   no-op returning the ORIGINAL record (original seq, counters untouched);
///   in-batch duplicates resolve to the first occurrence. Blank ids are assigned.
/// - Batch appends are all-or-nothing: every record is validated first; an invalid
///   one (unknown kind, closure without a reason, supersede/merged without
///   replacements, ...) is `InvalidInput` and nothing is appended.
/// - Readers filter by seq bounds (`since_seq` inclusive for `events` and
///   `valence_events`, exclusive for `replay_records`; `until_seq` inclusive); an
///   anchor that is negative or beyond the high-water mark is `InvalidInput`
///   naming the high-water mark. `limit` 0 is unbounded.
/// - `events`, `closures`, `traces`, `snapshots`, `valence_events` read newest
///   first; `bindings` and `versions` oldest first; `replay_records` in seq order.
/// - `selected_count` / `pair_selected_count` are never-decaying global counts of
///   `selected` / `co_selected` events, optionally as of `until_seq`.
/// - Implementations are thread-safe (`Send + Sync`, `&self` methods).
/// - A journal is `Any`, so a graph connector sharing its home can recognize it
///   (`am_graph::registry::GraphJournal`). Writes spanning the store and the
///   journal go through a home ([`crate::home::MemoryHome`]).
pub trait MemoryJournal: Send + Sync + std::any::Any {
    /// Append attention events (all-or-nothing); returns the stored records.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid event (nothing appended); `Storage`.
    fn append_events(&self, events: &[MemoryEvent]) -> Result<Vec<MemoryEvent>>;
    /// Events of one `(scope, owner_id)` stream, newest first.
    ///
    /// # Errors
    /// `InvalidInput` for a blank scope, an unknown kind or an invalid anchor.
    fn events(&self, filter: &EventFilter) -> Result<Vec<MemoryEvent>>;
    /// Append one visibility binding.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid binding (nothing appended); `Storage`.
    fn append_binding(&self, binding: &ScopeBinding) -> Result<ScopeBinding>;
    /// Append several bindings, each getting the next `seq` in order; a supplied
    /// `binding_id` already appended (or repeated within the batch) returns the
    /// original record and appends nothing for it.
    ///
    /// The default validates every binding before appending any, then appends
    /// them one by one; `InMemoryJournal` and `SQLiteJournal` override it with
    /// one all-or-nothing append (one transaction on SQLite).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid binding (nothing appended); `Storage`.
    fn append_bindings(&self, bindings: &[ScopeBinding]) -> Result<Vec<ScopeBinding>> {
        normalize_all(bindings, ScopeBinding::normalized)?;
        once_guarded(self.commit_guard(), self.write_fence(), || {
            bindings.iter().map(|b| self.append_binding(b)).collect()
        })
    }
    /// Bindings, oldest first; folded latest-wins per `(record_id, scope, owner_id)` when `filter.fold`.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn bindings(&self, filter: &BindingFilter) -> Result<Vec<ScopeBinding>>;
    /// The per-record binding fold of many records in one call: for each
    /// distinct id of `record_ids`, exactly what
    /// `bindings(&BindingFilter { record_id: Some(id), fold: true, until_seq, .. })`
    /// returns (latest per `(scope, owner_id)` with `seq <= until_seq`, oldest
    /// first; empty for an unbound id), keyed by the id as given. Bounded by the
    /// ids asked for: never a read of every binding.
    ///
    /// The default loops over [`MemoryJournal::bindings`]; backends with an
    /// index override it with one batched read.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor; `Storage`.
    fn fold_bindings_for(
        &self,
        record_ids: &[String],
        until_seq: Option<i64>,
    ) -> Result<HashMap<String, Vec<ScopeBinding>>> {
        let mut out: HashMap<String, Vec<ScopeBinding>> = HashMap::new();
        for id in record_ids {
            if out.contains_key(id) {
                continue;
            }
            let folded = self.bindings(&BindingFilter {
                record_id: Some(id.clone()),
                until_seq,
                ..BindingFilter::default()
            })?;
            out.insert(id.clone(), folded);
        }
        Ok(out)
    }
    /// The latest-hidden bindings of one `(scope, owner_id)` pair as of
    /// `until_seq`: exactly the bindings of `bindings(&BindingFilter { scope,
    /// owner_id, fold: true, until_seq, .. })` whose `search_state` is
    /// `hidden`, oldest first (scope and owner normalized as the filter
    /// normalizes them). The exclusion folds read it; a journal with an
    /// index answers it without reading the pair's other bindings.
    ///
    /// The default filters [`MemoryJournal::bindings`].
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor; `Storage`.
    fn hidden_bindings(
        &self,
        scope: &str,
        owner_id: &str,
        until_seq: Option<i64>,
    ) -> Result<Vec<ScopeBinding>> {
        Ok(self
            .bindings(&BindingFilter {
                record_id: None,
                scope: Some(scope.to_owned()),
                owner_id: Some(owner_id.to_owned()),
                fold: true,
                until_seq,
            })?
            .into_iter()
            .filter(|b| b.search_state == crate::binding::SearchState::Hidden)
            .collect())
    }
    /// Append one closure.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid closure (nothing appended); `Storage`.
    fn append_closure(&self, closure: &ClosureRecord) -> Result<ClosureRecord>;
    /// Append several closures, each getting the next `seq` in order; a
    /// supplied `closure_id` already appended (or repeated within the batch)
    /// returns the original record and appends nothing for it. A
    /// belief-revision act that closes several assertions (`close_record`,
    /// `close_assertions`) appends them here: all of them or none.
    ///
    /// The default validates every closure before appending any, then appends
    /// them one by one under one guard check; `InMemoryJournal` and
    /// `SQLiteJournal` override it with one all-or-nothing append (one
    /// transaction on SQLite).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid closure (nothing appended); `Storage`.
    fn append_closures(&self, closures: &[ClosureRecord]) -> Result<Vec<ClosureRecord>> {
        normalize_all(closures, ClosureRecord::normalized)?;
        once_guarded(self.commit_guard(), self.write_fence(), || {
            closures.iter().map(|c| self.append_closure(c)).collect()
        })
    }
    /// Closures, newest first.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn closures(&self, filter: &ClosureFilter) -> Result<Vec<ClosureRecord>>;
    /// Append one reconstruction trace.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid trace (nothing appended); `Storage`.
    fn append_trace(&self, trace: &ReconstructionTrace) -> Result<ReconstructionTrace>;
    /// Traces, newest first.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn traces(&self, filter: &TraceFilter) -> Result<Vec<ReconstructionTrace>>;
    /// Append one active-memory snapshot.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid snapshot (nothing appended); `Storage`.
    fn append_snapshot(&self, snapshot: &ActiveMemorySnapshot) -> Result<ActiveMemorySnapshot>;
    /// Snapshots, newest first.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn snapshots(&self, filter: &TraceFilter) -> Result<Vec<ActiveMemorySnapshot>>;
    /// Append the records of one `commit_selection`: its events, then its
    /// snapshot (the snapshot's seq follows the events'). Exactly
    /// `append_events(events)` followed by `append_snapshot(snapshot)`, with the
    /// same idempotency by supplied id; an empty `events` appends the snapshot
    /// alone. Returns the stored events and the stored snapshot.
    ///
    /// The default validates everything first, then makes the two appends;
    /// `SQLiteJournal` overrides it with one transaction (all or nothing).
    /// Spec: api.md "Committing use" (`commit_selection`).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid event or snapshot (nothing appended); `Storage`.
    fn append_selection(
        &self,
        events: &[MemoryEvent],
        snapshot: &ActiveMemorySnapshot,
    ) -> Result<(Vec<MemoryEvent>, ActiveMemorySnapshot)> {
        normalize_all(events, MemoryEvent::normalized)?;
        snapshot.normalized()?;
        once_guarded(self.commit_guard(), self.write_fence(), || {
            let stored = if events.is_empty() {
                Vec::new()
            } else {
                self.append_events(events)?
            };
            Ok((stored, self.append_snapshot(snapshot)?))
        })
    }
    /// Append the records of one journaled `reconstruct`: its trace, then its
    /// `listed` events (their seqs follow the trace's). Exactly
    /// `append_trace(trace)` followed by `append_events(listed)`, with the same
    /// idempotency by supplied id; an empty `listed` appends the trace alone.
    /// Returns the stored trace and the stored events.
    ///
    /// The default validates the events first, then makes the two appends
    /// (`append_trace` validates the trace before it writes); `SQLiteJournal`
    /// overrides it with one transaction (all or nothing, one durable commit
    /// instead of two).
    /// Spec: api.md "Reconstruction" (`journal=true`: one trace plus inert
    /// `listed` events).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid trace or event (nothing appended); `Storage`.
    fn append_recall(
        &self,
        trace: &ReconstructionTrace,
        listed: &[MemoryEvent],
    ) -> Result<(ReconstructionTrace, Vec<MemoryEvent>)> {
        normalize_all(listed, MemoryEvent::normalized)?;
        once_guarded(self.commit_guard(), self.write_fence(), || {
            let stored = self.append_trace(trace)?;
            let events = if listed.is_empty() {
                Vec::new()
            } else {
                self.append_events(listed)?
            };
            Ok((stored, events))
        })
    }
    /// Append valence events (all-or-nothing).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid event (nothing appended); `Storage`.
    fn append_valence(&self, events: &[ValenceEvent]) -> Result<Vec<ValenceEvent>>;
    /// Valence events of one `(scope, owner_id)` stream, newest first.
    ///
    /// # Errors
    /// `InvalidInput` for a blank scope or an invalid anchor.
    fn valence_events(&self, filter: &ValenceFilter) -> Result<Vec<ValenceEvent>>;
    /// Append one understanding version.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid version (nothing appended); `Storage`.
    fn append_version(&self, version: &UnderstandingVersion) -> Result<UnderstandingVersion>;
    /// Install the host's commit guard: from now on every append calls it
    /// immediately before its COMMIT with [`am_triples::CommitPoint::Journal`],
    /// once per outermost transaction (a multi-record append calls it once); a
    /// refusal appends nothing and returns [`Error::guard_refusal`](am_triples::Error::guard_refusal). Installing
    /// the same guard again is a no-op.
    ///
    /// # Errors
    /// `Unsupported` naming the type for a journal whose appends cannot call a
    /// guard (the default); `InvalidInput` when a different guard is
    /// installed already.
    fn install_commit_guard(&self, guard: &am_triples::CommitGuard) -> Result<()> {
        let _ = guard;
        Err(am_triples::guard::unsupported_guard(std::any::type_name::<
            Self,
        >()))
    }
    /// The installed commit guard, if any.
    fn commit_guard(&self) -> Option<am_triples::CommitGuard> {
        None
    }
    /// What a write barrier holds to cover this journal's writers (see
    /// `TripleStore::write_fence`); the default covers nothing.
    fn write_fence(&self) -> am_triples::WriteFence {
        am_triples::WriteFence::uncovered(std::any::type_name::<Self>())
    }
    /// Where this journal commits ([`am_triples::HomeKey`]): a store of the
    /// same key that can open the shared transaction writes with it in ONE
    /// transaction (`crate::join::shared_home`: the SQLite journal and a
    /// SQLite store of the same file); `MemorySystem::new` and
    /// `with_options` ask it, so a pair of one file forms atomically. The
    /// default, `None`, shares no transaction (a [`crate::PairHome`] writes
    /// the pair in two steps).
    fn home_key(&self) -> Option<am_triples::HomeKey> {
        None
    }
    /// Understanding versions, oldest first.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn versions(&self, filter: &VersionFilter) -> Result<Vec<UnderstandingVersion>>;
    /// The six default families (`event`, `binding`, `closure`, `trace`,
    /// `snapshot`, `valence`) in strict seq order, `since_seq` exclusive,
    /// `until_seq` inclusive (`None` = the high-water mark at call time).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn replay_records(&self, since_seq: i64, until_seq: Option<i64>) -> Result<Vec<JournalRecord>>;
    /// What [`MemoryJournal::replay_records`] returns for the same bounds,
    /// read only for each record's family and `observed_at`: `visit` is
    /// called once per record with [`JournalRecord::family`] and
    /// [`JournalRecord::observed_at`], family by family (the order is not
    /// the stream's). A reader that counts the stream (the mind-mass
    /// report's journal curve) builds no record. The default reads
    /// `replay_records`; a journal with its own storage reads the two
    /// columns. `visit` must not call the journal (a journal may hold its
    /// connection for the read).
    ///
    /// # Errors
    /// As [`MemoryJournal::replay_records`].
    fn visit_replay_times(
        &self,
        since_seq: i64,
        until_seq: Option<i64>,
        visit: &mut dyn FnMut(&'static str, &str),
    ) -> Result<()> {
        for r in self.replay_records(since_seq, until_seq)? {
            visit(r.family(), r.observed_at());
        }
        Ok(())
    }
    /// The opt-in `revision` family: understanding versions in seq order, bounds as
    /// [`MemoryJournal::replay_records`].
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn revision_records(
        &self,
        since_seq: i64,
        until_seq: Option<i64>,
    ) -> Result<Vec<UnderstandingVersion>>;
    /// The global, never-decaying count of `selected` events for `record_id`
    /// (as of `until_seq` when given).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn selected_count(&self, record_id: &str, until_seq: Option<i64>) -> Result<u64>;
    /// The global, never-decaying count of `co_selected` events for the pair
    /// (order-insensitive; as of `until_seq` when given).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid anchor.
    fn pair_selected_count(&self, pair: (&str, &str), until_seq: Option<i64>) -> Result<u64>;
    /// The highest seq of an event, binding, closure or trace observed at or before
    /// `iso_ts` (snapshots, valence and versions never anchor folds); 0 when none.
    ///
    /// # Errors
    /// `InvalidInput` when `iso_ts` is not a timestamp.
    fn seq_at(&self, iso_ts: &str) -> Result<i64>;
    /// The high-water mark of the seq axis (0 for an empty journal).
    ///
    /// # Errors
    /// `Storage`.
    fn current_seq(&self) -> Result<i64>;

    /// A cheap mark of this handle's own writes: it changes whenever a write
    /// through this handle (or the home connection it shares) commits, and
    /// costs no read of the journal. A reader that memoizes rows (the replay
    /// stream) compares it between items and reads [`MemoryJournal::current_seq`]
    /// only when it moved; another connection's writes are not in it, so such
    /// a reader still reads the head at its own coarser boundaries. `None`
    /// (the default) means no such mark: read the head every time.
    fn write_mark(&self) -> Option<u64> {
        None
    }

    /// Release what this journal handle holds (api.md: `MemorySystem.close()`
    /// "releases the journal only; the store is caller-owned"). The default
    /// holds nothing to release; a connection shared with the store through
    /// one home file belongs to the home and closes with its last handle.
    /// Idempotent.
    ///
    /// # Errors
    /// `Storage` when the journal fails to release cleanly.
    fn close(&self) -> Result<()> {
        Ok(())
    }
    /// Drain the `#FALLBACK` warnings the journal has raised since the last call.
    fn take_warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// One journal record of any family, as the replay stream carries it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum JournalRecord {
    /// Family `event`.
    Event(MemoryEvent),
    /// Family `binding`.
    Binding(ScopeBinding),
    /// Family `closure`.
    Closure(ClosureRecord),
    /// Family `trace`.
    Trace(ReconstructionTrace),
    /// Family `snapshot`.
    Snapshot(ActiveMemorySnapshot),
    /// Family `valence`.
    Valence(ValenceEvent),
    /// Family `revision` (opt-in).
    Version(UnderstandingVersion),
}

impl JournalRecord {
    /// The replay family name: `event`, `binding`, `closure`, `trace`, `snapshot`, `valence`, `revision`.
    pub fn family(&self) -> &'static str {
        match self {
            JournalRecord::Event(_) => "event",
            JournalRecord::Binding(_) => "binding",
            JournalRecord::Closure(_) => "closure",
            JournalRecord::Trace(_) => "trace",
            JournalRecord::Snapshot(_) => "snapshot",
            JournalRecord::Valence(_) => "valence",
            JournalRecord::Version(_) => "revision",
        }
    }

    /// When the record was observed (a version: when it was understood).
    pub fn observed_at(&self) -> &str {
        match self {
            JournalRecord::Event(r) => &r.observed_at,
            JournalRecord::Binding(r) => &r.observed_at,
            JournalRecord::Closure(r) => &r.observed_at,
            JournalRecord::Trace(r) => &r.observed_at,
            JournalRecord::Snapshot(r) => &r.observed_at,
            JournalRecord::Valence(r) => &r.observed_at,
            JournalRecord::Version(r) => &r.understood_at,
        }
    }

    /// The record's seq.
    pub fn seq(&self) -> i64 {
        match self {
            JournalRecord::Event(r) => r.seq,
            JournalRecord::Binding(r) => r.seq,
            JournalRecord::Closure(r) => r.seq,
            JournalRecord::Trace(r) => r.seq,
            JournalRecord::Snapshot(r) => r.seq,
            JournalRecord::Valence(r) => r.seq,
            JournalRecord::Version(r) => r.seq,
        }
    }
}

/// Filter of [`MemoryJournal::events`]. `limit` 0 is unbounded. Deserializes
/// from the reader's keyword arguments (`scope` and `owner_id` required).
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventFilter {
    /// The scope (required; lowercased).
    pub scope: String,
    /// The owner (exact, trimmed).
    pub owner_id: String,
    /// Exact record id (`co_selected` events carry none and never match).
    #[serde(default)]
    pub record_id: Option<String>,
    /// Kinds to keep (empty = all); unknown kinds are `InvalidInput`.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Lowest seq kept (inclusive).
    #[serde(default)]
    pub since_seq: Option<i64>,
    /// Highest seq kept (inclusive).
    #[serde(default)]
    pub until_seq: Option<i64>,
    /// At most this many, newest first (default 512).
    #[serde(default = "default_event_limit")]
    pub limit: usize,
}

fn default_event_limit() -> usize {
    DEFAULT_EVENT_LIMIT
}

fn default_trace_limit() -> usize {
    DEFAULT_TRACE_LIMIT
}

fn yes() -> bool {
    true
}

impl EventFilter {
    /// The stream of `(scope, owner_id)`, default limit 512.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        EventFilter {
            scope: scope.into(),
            owner_id: owner_id.into(),
            record_id: None,
            kinds: Vec::new(),
            since_seq: None,
            until_seq: None,
            limit: DEFAULT_EVENT_LIMIT,
        }
    }

    /// Normalised copy: scope lowercased (required), owner/record trimmed (a blank
    /// record means none), kinds lowercased, deduplicated and sorted.
    ///
    /// # Errors
    /// `InvalidInput` for a blank scope or an unknown kind.
    pub fn normalized(&self) -> Result<Self> {
        let scope = norm_scope(&self.scope);
        if scope.is_empty() {
            return Err(Error::invalid(format!(
                "events() requires a non-empty scope, got {:?}",
                self.scope
            )));
        }
        let mut kinds: Vec<String> = self
            .kinds
            .iter()
            .map(|k| k.trim().to_lowercase())
            .filter(|k| !k.is_empty())
            .collect();
        kinds.sort();
        kinds.dedup();
        let unknown: Vec<&String> = kinds.iter().filter(|k| !is_event_kind(k)).collect();
        if !unknown.is_empty() {
            return Err(Error::invalid(format!(
                "unknown memory event kinds in filter: {unknown:?} (known: {:?})",
                all_event_kinds()
            )));
        }
        Ok(EventFilter {
            scope,
            owner_id: self.owner_id.trim().to_string(),
            record_id: self
                .record_id
                .as_deref()
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_string),
            kinds,
            since_seq: self.since_seq,
            until_seq: self.until_seq,
            limit: self.limit,
        })
    }
}

/// Filter of [`MemoryJournal::bindings`]. `None` = no filter; an explicit `""` owner matches exactly.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BindingFilter {
    /// Exact record id.
    #[serde(default)]
    pub record_id: Option<String>,
    /// Exact scope (lowercased).
    #[serde(default)]
    pub scope: Option<String>,
    /// Exact owner.
    #[serde(default)]
    pub owner_id: Option<String>,
    /// Fold latest-wins per `(record_id, scope, owner_id)` (default true).
    #[serde(default = "yes")]
    pub fold: bool,
    /// Highest seq kept (inclusive): the fold as of this seq.
    #[serde(default)]
    pub until_seq: Option<i64>,
}

impl Default for BindingFilter {
    fn default() -> Self {
        BindingFilter {
            record_id: None,
            scope: None,
            owner_id: None,
            fold: true,
            until_seq: None,
        }
    }
}

impl BindingFilter {
    /// The folded bindings of one record.
    pub fn record(record_id: &str) -> Self {
        BindingFilter {
            record_id: Some(record_id.into()),
            ..BindingFilter::default()
        }
    }

    /// Normalised copy (trimmed ids, lowercased scope).
    pub fn normalized(&self) -> Self {
        BindingFilter {
            record_id: self.record_id.as_deref().map(|s| s.trim().to_string()),
            scope: self.scope.as_deref().map(norm_scope),
            owner_id: self.owner_id.as_deref().map(|s| s.trim().to_string()),
            fold: self.fold,
            until_seq: self.until_seq,
        }
    }
}

/// Filter of [`MemoryJournal::closures`]. `limit` 0 is unbounded.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClosureFilter {
    /// Exact assertion id.
    #[serde(default)]
    pub assertion_id: Option<String>,
    /// Highest seq kept (inclusive).
    #[serde(default)]
    pub until_seq: Option<i64>,
    /// At most this many, newest first (default 512).
    #[serde(default = "default_event_limit")]
    pub limit: usize,
}

impl Default for ClosureFilter {
    fn default() -> Self {
        ClosureFilter {
            assertion_id: None,
            until_seq: None,
            limit: DEFAULT_EVENT_LIMIT,
        }
    }
}

/// Filter of [`MemoryJournal::traces`] and [`MemoryJournal::snapshots`]. `limit` 0 is unbounded.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceFilter {
    /// Exact trace id.
    #[serde(default)]
    pub trace_id: Option<String>,
    /// Highest seq kept (inclusive).
    #[serde(default)]
    pub until_seq: Option<i64>,
    /// At most this many, newest first (default 100).
    #[serde(default = "default_trace_limit")]
    pub limit: usize,
}

impl Default for TraceFilter {
    fn default() -> Self {
        TraceFilter {
            trace_id: None,
            until_seq: None,
            limit: DEFAULT_TRACE_LIMIT,
        }
    }
}

/// Filter of [`MemoryJournal::valence_events`]. `limit` 0 is unbounded.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValenceFilter {
    /// The scope (required; lowercased).
    pub scope: String,
    /// The owner (exact).
    pub owner_id: String,
    /// Exact target (blank = any).
    #[serde(default)]
    pub target_id: Option<String>,
    /// Lowest seq kept (inclusive).
    #[serde(default)]
    pub since_seq: Option<i64>,
    /// Highest seq kept (inclusive).
    #[serde(default)]
    pub until_seq: Option<i64>,
    /// At most this many, newest first (default 512).
    #[serde(default = "default_event_limit")]
    pub limit: usize,
}

impl ValenceFilter {
    /// The valence stream of `(scope, owner_id)`, default limit 512.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        ValenceFilter {
            scope: scope.into(),
            owner_id: owner_id.into(),
            target_id: None,
            since_seq: None,
            until_seq: None,
            limit: DEFAULT_EVENT_LIMIT,
        }
    }

    /// Normalised copy.
    ///
    /// # Errors
    /// `InvalidInput` for a blank scope.
    pub fn normalized(&self) -> Result<Self> {
        let scope = norm_scope(&self.scope);
        if scope.is_empty() {
            return Err(Error::invalid(format!(
                "valence_events() requires a non-empty scope, got {:?}",
                self.scope
            )));
        }
        Ok(ValenceFilter {
            scope,
            owner_id: self.owner_id.trim().to_string(),
            target_id: self
                .target_id
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string),
            ..self.clone()
        })
    }
}

/// Filter of [`MemoryJournal::versions`] (`versions(record_id=, assertion_id=, field=, until_seq=, limit=0)`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct VersionFilter {
    /// Exact record (graph) id.
    pub record_id: Option<String>,
    /// Exact digest assertion id.
    pub assertion_id: Option<String>,
    /// Exact field.
    pub field: Option<String>,
    /// Highest seq kept (inclusive).
    pub until_seq: Option<i64>,
    /// At most this many, oldest first (default 0 = all).
    pub limit: usize,
}

/// Check an anchor against the high-water mark `hw`: it must lie in `0..=hw`.
///
/// # Errors
/// `InvalidInput` naming the anchor, the value and the high-water mark.
pub fn check_anchor(name: &str, value: Option<i64>, hw: i64) -> Result<()> {
    match value {
        Some(v) if v < 0 || v > hw => Err(Error::invalid(format!(
            "{name} must be within 0..={hw} (the journal's high-water mark is {hw}), got {v}"
        ))),
        _ => Ok(()),
    }
}

/// Canonical sorted pair of trimmed ids.
pub fn canonical_pair(pair: (&str, &str)) -> (String, String) {
    let (a, b) = (pair.0.trim().to_string(), pair.1.trim().to_string());
    if a <= b { (a, b) } else { (b, a) }
}

/// Validate a whole batch before anything is written.
///
/// # Errors
/// The first record's validation error.
pub fn normalize_all<T>(items: &[T], f: impl Fn(&T) -> Result<T>) -> Result<Vec<T>> {
    items.iter().map(f).collect()
}

/// Run the appends of one multi-record call as one outermost transaction:
/// under the journal's write locks, the guard (if any) called once, before
/// them, and not again by them.
fn once_guarded<T>(
    guard: Option<am_triples::CommitGuard>,
    fence: am_triples::WriteFence,
    appends: impl FnOnce() -> Result<T>,
) -> Result<T> {
    // The journal's write locks for the whole call, so a barrier sees it as
    // one transaction (the appends inside re-enter them).
    let _held: Vec<_> = fence
        .locks
        .iter()
        .map(am_triples::WriteLock::write)
        .collect();
    match guard {
        None => appends(),
        Some(g) => {
            g.check(am_triples::CommitPoint::Journal)?;
            am_triples::CommitGuard::passed(appends)
        }
    }
}
