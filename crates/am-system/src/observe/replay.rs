//! The replay stream: the journal's record families as one envelope shape, in
//! strict seq order, read lazily in bounded pages (history scrub and live tail
//! are the same read: poll with the last seen seq as `since_seq`).
//!
//! Every envelope carries its journal record verbatim as `payload`, the lifted
//! `scope` / `owner_id` and correlation keys, and (with `enrich`) a `display`
//! block resolved from the store: absent when unresolvable, never made up.
//! Diary words never leave: a diary record's display block is redacted
//! (`{"redacted": "diary", "graph_id", ...}` with its act-frame keys only), a
//! snapshot's display row of a diary record keeps only its id and token
//! estimate, and a diary record's `revision` payloads carry no text, title or
//! keywords.
//!
//! Memory is bounded: the journal is read `PAGE_SEQS` seqs at a time, and the
//! per-stream lookup memo is emptied when it reaches `MEMO_CAP` entries. A
//! row can be rewritten in place while a stream runs (`rewrite_digest`,
//! `retitle`, `declare_pending`): each write appends a version on the seq
//! axis, so the memo is valid for the journal head it was read at, and a
//! moved head evicts exactly the rows whose versions were appended since
//! (later envelopes show the new reading). The head is read again when the
//! journal's write mark moved (a write through this home: the next envelope
//! sees it) and at each new page (another connection's write: seen from the
//! next page on), not per envelope. `replaced_by` is read per
//! superseded record through the closure index, never the whole journal.
//!
//! Spec: api.md "Replay stream"; memory-system.md "Observability: the replay
//! stream and the identity card"; operator.md §5; troubleshooting "Replay
//! shows gaps in `seq`" (gaps under filters and redaction carry no meaning).

use crate::error::Result;
use crate::formation::reading::{UnderstandingFields, reading_provenance, understanding_fields};
use crate::kinds::{DEFAULT_KIND, RecordKind};
use crate::lookup::resolve_digest_assertion;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::journal::check_anchor;
use am_journal::{ClosureFilter, ClosureKind, JournalRecord, MemoryJournal, TraceFilter};
use am_triples::text::{handle_digest, token_estimate};
use am_triples::{JsonMap, TripleAssertion, TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// The stream's name, in every envelope.
pub const REPLAY_STREAM: &str = "abstractmemory.replay";
/// The envelope schema version (v1 is frozen; evolution is additive keys).
pub const REPLAY_STREAM_VERSION: u32 = 1;

am_triples::vocabulary! {
    /// A replay family: the six the stream emits by default, the opt-in
    /// `revision`, and `host`, reserved for the host's own markers (accepted
    /// by the filter, never emitted here).
    pub enum ReplayFamily("replay family") {
        /// Attention events.
        Event = "event",
        /// Visibility bindings.
        Binding = "binding",
        /// Belief lifecycle (closures).
        Closure = "closure",
        /// Reconstruction traces.
        Trace = "trace",
        /// Active-memory snapshots.
        Snapshot = "snapshot",
        /// Appraisals.
        Valence = "valence",
        /// Reserved for host-authored markers; never emitted by this package.
        Host = "host",
        /// Understanding versions (opt-in: emitted only when named).
        Revision = "revision",
    }
}

/// The families emitted when none are named (`REPLAY_FAMILIES`).
pub const REPLAY_FAMILIES: [ReplayFamily; 6] = [
    ReplayFamily::Event,
    ReplayFamily::Binding,
    ReplayFamily::Closure,
    ReplayFamily::Trace,
    ReplayFamily::Snapshot,
    ReplayFamily::Valence,
];
/// Families emitted only on request (`OPT_IN_FAMILIES`).
pub const OPT_IN_FAMILIES: [ReplayFamily; 1] = [ReplayFamily::Revision];
/// Families accepted by the filter and never emitted (`RESERVED_FAMILIES`).
pub const RESERVED_FAMILIES: [ReplayFamily; 1] = [ReplayFamily::Host];

/// Seqs read per journal page.
const PAGE_SEQS: i64 = 1024;
/// Lookups the per-stream memo holds before it is emptied.
const MEMO_CAP: usize = 65_536;

fn yes() -> bool {
    true
}

/// The arguments of [`export_replay`] and [`MemorySystem::export_replay`]:
/// `export_replay(*, scope=None, owner_id=None, since_seq=0, until_seq=None,
/// families=None, enrich=True)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportReplay {
    /// Keep envelopes whose lifted scope is this (lowercased); `None` = any.
    #[serde(default)]
    pub scope: Option<String>,
    /// Keep envelopes whose lifted owner is this (trimmed); `None` = any.
    #[serde(default)]
    pub owner_id: Option<String>,
    /// Exclusive lower bound: the last seq already seen (0 = from the start).
    #[serde(default)]
    pub since_seq: i64,
    /// Inclusive upper bound; `None` = the high-water mark at call time.
    #[serde(default)]
    pub until_seq: Option<i64>,
    /// Families to emit; `None` = [`REPLAY_FAMILIES`].
    #[serde(default)]
    pub families: Option<Vec<ReplayFamily>>,
    /// Resolve display blocks from the store (default true).
    #[serde(default = "yes")]
    pub enrich: bool,
}

impl Default for ExportReplay {
    fn default() -> Self {
        ExportReplay {
            scope: None,
            owner_id: None,
            since_seq: 0,
            until_seq: None,
            families: None,
            enrich: true,
        }
    }
}

impl ExportReplay {
    /// Everything after `since_seq` (exclusive), default families, enriched.
    pub fn since(since_seq: i64) -> Self {
        ExportReplay {
            since_seq,
            ..ExportReplay::default()
        }
    }
}

/// One formation edge of a record, as a binding's display block draws it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub struct EdgeRef {
    /// The edge's relation (its predicate).
    pub relation: String,
    /// The target record's graph id.
    pub target_graph_id: String,
}

/// The display block of a resolvable non-diary record.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecordDisplay {
    /// The id as the journal record named it.
    pub record_id: String,
    /// `record_kind`, or `memory` for a plain triple.
    pub kind: String,
    /// The title (a plain triple: `"{subject} {predicate}"`); absent while pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The fields still pending (`title`, `summary`), when any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// `token_estimate` of the record's digest.
    pub token_estimate: usize,
    /// The record's graph id (formed rows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_id: Option<String>,
    /// The interaction-correlation key the record carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visit_id: Option<String>,
    /// A dream's signal list, verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signals: Option<Value>,
    /// Formation edges (binding envelopes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<EdgeRef>>,
    /// The current digest text (binding and revision envelopes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// A community record's stable topic key (`attributes.community_key`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub community_key: Option<String>,
    /// A community record's version (`attributes.basis.version_seq`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_seq: Option<Value>,
    /// A community record's member count (`attributes.size`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Value>,
    /// The current reading's provenance (formed records only:
    /// `understanding_fields`, with `replaced_by` for a superseded record).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub reading: Option<UnderstandingFields>,
}

/// The redacted display block of a diary record: topology and act frame, no words.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DiaryDisplay {
    /// Always `"diary"`.
    pub redacted: &'static str,
    /// The entry's graph id.
    pub graph_id: String,
    /// The entry's `diary_type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diary_type: Option<String>,
    /// The book's entry id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// The fields still pending, when any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// Who wrote the entry (`{kind, id}`).
    pub authored_by: JsonMap,
    /// When.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub understood_at: Option<String>,
    /// Why.
    pub cause: Value,
    /// The resolution claim (a graph id or an entry id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolves: Option<String>,
    /// The book's verdict on the claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolves_status: Option<String>,
    /// The resolved record's graph id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_record_id: Option<String>,
    /// The resolved record's title as formed (never on a private entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_title: Option<String>,
    /// Formation edges (binding envelopes only; act frame, not content).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<EdgeRef>>,
}

/// An envelope's display block.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ReplayDisplay {
    /// Both members of a `co_selected` pair (those that resolve).
    Pair {
        /// The members' blocks, in the pair's order.
        pair: Vec<ReplayDisplay>,
    },
    /// A non-diary record.
    Record(Box<RecordDisplay>),
    /// A diary record, redacted.
    Diary(Box<DiaryDisplay>),
}

/// One envelope of the stream.
///
/// JSON shape: `stream`, `stream_version`, `seq`, `family`, `observed_at`,
/// `scope`, `owner_id`, `trace_id`, `turn_id`, `run_id` (the three
/// correlation keys always present, null when absent), `payload` (the record,
/// verbatim but for diary sealing), `display` (when enriched and resolvable).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReplayEnvelope {
    /// [`REPLAY_STREAM`].
    pub stream: &'static str,
    /// [`REPLAY_STREAM_VERSION`].
    pub stream_version: u32,
    /// The record's seq.
    pub seq: i64,
    /// The record's family.
    pub family: ReplayFamily,
    /// The record's own time.
    pub observed_at: String,
    /// The lifted scope (`""` when unresolvable or mixed).
    pub scope: String,
    /// The lifted owner (`""` when unresolvable or mixed).
    pub owner_id: String,
    /// The trace the record belongs to.
    pub trace_id: Option<String>,
    /// The turn, from the record's provenance.
    pub turn_id: Option<String>,
    /// The run, from the record's provenance (a revision: its first ledger source).
    pub run_id: Option<String>,
    /// The journal record.
    pub payload: JournalRecord,
    /// The display block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<ReplayDisplay>,
}

/// The replay stream over a store and journal: an iterator of envelopes in
/// strict seq order. See [`export_replay`].
pub struct ReplayStream<'a> {
    store: &'a dyn TripleStore,
    journal: &'a dyn MemoryJournal,
    scope: Option<String>,
    owner: Option<String>,
    wanted: [bool; 8],
    defaults: bool,
    revisions: bool,
    enrich: bool,
    cursor: i64,
    hi: i64,
    page: VecDeque<JournalRecord>,
    memo: Memo,
    failed: bool,
}

/// The stream of `args` over `store` and `journal` (the module function
/// `export_replay(store, journal, ...)`).
///
/// The bounds are checked at call time (`since_seq` and `until_seq` within
/// `0..=` the high-water mark); the records are read lazily, a page of seqs
/// at a time, so memory stays bounded at any journal size. `until_seq: None`
/// anchors at the high-water mark of this call: a stream never grows while
/// it is read.
///
/// # Errors
/// `InvalidInput` for an anchor outside the journal's axis; the journal's
/// failure. Each item is `Err` when a later page or lookup fails (the
/// stream ends after it).
///
/// # Examples
/// ```
/// # use std::sync::Arc;
/// # use am_journal::{InMemoryJournal, MemoryJournal};
/// # use am_triples::{InMemoryTripleStore, TripleStore};
/// use am_system::observe::replay::{export_replay, ExportReplay};
/// let store = InMemoryTripleStore::new(None);
/// let journal = InMemoryJournal::new();
/// let envelopes: Vec<_> = export_replay(&store, &journal, &ExportReplay::since(0))?
///     .collect::<Result<_, _>>()?;
/// assert!(envelopes.is_empty());
/// # Ok::<(), am_system::Error>(())
/// ```
pub fn export_replay<'a>(
    store: &'a dyn TripleStore,
    journal: &'a dyn MemoryJournal,
    args: &ExportReplay,
) -> Result<ReplayStream<'a>> {
    let hw = journal.current_seq()?;
    check_anchor("since_seq", Some(args.since_seq), hw)?;
    check_anchor("until_seq", args.until_seq, hw)?;
    let families: Vec<ReplayFamily> = match &args.families {
        Some(f) => f.clone(),
        None => REPLAY_FAMILIES.to_vec(),
    };
    let mut wanted = [false; 8];
    for f in &families {
        wanted[family_index(*f)] = true;
    }
    let defaults = REPLAY_FAMILIES.iter().any(|f| wanted[family_index(*f)]);
    let revisions = wanted[family_index(ReplayFamily::Revision)];
    let scope = args
        .scope
        .as_deref()
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty());
    let owner = args
        .owner_id
        .as_deref()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    Ok(ReplayStream {
        store,
        journal,
        scope,
        owner,
        wanted,
        defaults,
        revisions,
        enrich: args.enrich,
        cursor: args.since_seq,
        hi: args.until_seq.unwrap_or(hw),
        page: VecDeque::new(),
        memo: Memo::default(),
        failed: false,
    })
}

impl MemorySystem {
    /// The replay stream of this system's store and journal
    /// (`system.export_replay(...)`); see [`export_replay`].
    ///
    /// # Errors
    /// As [`export_replay`].
    pub fn export_replay(&self, args: &ExportReplay) -> Result<ReplayStream<'_>> {
        export_replay(self.store().as_ref(), self.journal().as_ref(), args)
    }
}

fn family_index(f: ReplayFamily) -> usize {
    ReplayFamily::ALL
        .iter()
        .position(|x| *x == f)
        .unwrap_or_default()
}

fn family_of(r: &JournalRecord) -> ReplayFamily {
    match r {
        JournalRecord::Event(_) => ReplayFamily::Event,
        JournalRecord::Binding(_) => ReplayFamily::Binding,
        JournalRecord::Closure(_) => ReplayFamily::Closure,
        JournalRecord::Trace(_) => ReplayFamily::Trace,
        JournalRecord::Snapshot(_) => ReplayFamily::Snapshot,
        JournalRecord::Valence(_) => ReplayFamily::Valence,
        JournalRecord::Version(_) => ReplayFamily::Revision,
    }
}

impl ReplayStream<'_> {
    /// The seq the stream has read through (the cursor a tail resumes from
    /// once the stream is exhausted).
    pub fn cursor(&self) -> i64 {
        self.cursor
    }

    /// The record a superseded row was replaced by (its first supersession's
    /// first replacement): this row's closures only, memoized per row.
    fn replaced_by(&mut self, a: &TripleAssertion) -> Result<Option<String>> {
        if DigestRow::of(a).kind_text().is_none() {
            return Ok(None);
        }
        let id = a.assertion_id.clone().unwrap_or_default();
        if let Some(r) = self.memo.replaced.get(&id) {
            return Ok(r.clone());
        }
        let mut closures = self.journal.closures(&ClosureFilter {
            assertion_id: Some(id.clone()),
            until_seq: None,
            limit: 0,
        })?;
        closures.sort_by_key(|c| c.seq);
        let first = closures
            .into_iter()
            .filter(|c| c.kind == ClosureKind::Supersede && c.assertion_id == id)
            .find_map(|c| c.replacement_ids.into_iter().next());
        self.memo.bound();
        self.memo.replaced.insert(id, first.clone());
        Ok(first)
    }

    /// Keep the memo exact: when the journal head moved since the memo was
    /// last checked, evict the rows whose versions were appended since (a
    /// rewrite in place) and every memoized `replaced_by` (a closure).
    ///
    /// The head is read when this handle's write mark moved (the next item
    /// after a write through this home sees it), at every new page (another
    /// connection's writes: seen from the next `PAGE_SEQS` page on), and on
    /// every item when the journal keeps no mark.
    fn revalidate(&mut self) -> Result<()> {
        let mark = self.journal.write_mark();
        if mark.is_some()
            && mark == self.memo.mark
            && !self.memo.page_read
            && self.memo.seq.is_some()
        {
            return Ok(());
        }
        self.memo.mark = mark;
        self.memo.page_read = false;
        let head = self.journal.current_seq()?;
        if let Some(seen) = self.memo.seq {
            if seen == head {
                return Ok(());
            }
            self.memo.replaced.clear();
            if seen < head {
                for v in self.journal.revision_records(seen, Some(head))? {
                    self.memo.rows.remove(&v.assertion_id);
                    self.memo.rows.remove(&v.record_id);
                }
            } else {
                self.memo.rows.clear();
            }
        }
        self.memo.seq = Some(head);
        Ok(())
    }

    /// Read pages until one holds records or the bound is reached.
    fn fill(&mut self) -> Result<()> {
        while self.page.is_empty() && self.cursor < self.hi {
            let upper = (self.cursor.saturating_add(PAGE_SEQS)).min(self.hi);
            let mut records = if self.defaults {
                self.journal.replay_records(self.cursor, Some(upper))?
            } else {
                Vec::new()
            };
            if self.revisions {
                records.extend(
                    self.journal
                        .revision_records(self.cursor, Some(upper))?
                        .into_iter()
                        .map(JournalRecord::Version),
                );
            }
            records.retain(|r| self.wanted[family_index(family_of(r))]);
            records.sort_by_key(JournalRecord::seq);
            self.memo.page_read = true;
            self.page = records.into();
            self.cursor = upper;
        }
        Ok(())
    }

    fn envelope(&mut self, mut record: JournalRecord) -> Result<Option<ReplayEnvelope>> {
        let family = family_of(&record);
        let (scope, owner_id) = self.lift_scope_owner(&record)?;
        if self.scope.as_ref().is_some_and(|s| *s != scope)
            || self.owner.as_ref().is_some_and(|o| *o != owner_id)
        {
            return Ok(None);
        }
        let (trace_id, turn_id, run_id) = correlation(&record);
        self.seal(&mut record)?;
        let display = if self.enrich {
            self.enrich(&record)?
        } else {
            None
        };
        Ok(Some(ReplayEnvelope {
            stream: REPLAY_STREAM,
            stream_version: REPLAY_STREAM_VERSION,
            seq: record.seq(),
            family,
            observed_at: observed_at(&record).to_owned(),
            scope,
            owner_id,
            trace_id,
            turn_id,
            run_id,
            payload: record,
            display,
        }))
    }

    /// `(scope, owner_id)` of a record: direct for events, bindings and
    /// valence; a trace's single searched pair (mixed or none: `("", "")`); a
    /// snapshot through its trace; a closure or revision through its
    /// assertion in the store.
    fn lift_scope_owner(&mut self, record: &JournalRecord) -> Result<(String, String)> {
        Ok(match record {
            JournalRecord::Event(e) => (e.scope.clone(), e.owner_id.clone()),
            JournalRecord::Binding(b) => (b.scope.clone(), b.owner_id.clone()),
            JournalRecord::Valence(v) => (v.scope.clone(), v.owner_id.clone()),
            JournalRecord::Closure(c) => {
                let (store, id) = (self.store, c.assertion_id.clone());
                pair_of(self.memo.resolve(store, &id)?)
            }
            JournalRecord::Version(v) => {
                let store = self.store;
                let row = match self.memo.resolve(store, &v.assertion_id)? {
                    Some(a) => Some(a),
                    None => self.memo.resolve(store, &v.record_id)?,
                };
                pair_of(row)
            }
            JournalRecord::Trace(t) => {
                let pair = trace_pair(&t.searched_scopes);
                self.memo.remember_trace(&t.trace_id, &pair);
                pair
            }
            JournalRecord::Snapshot(s) => {
                if let Some(p) = self.memo.traces.get(&s.trace_id) {
                    p.clone()
                } else {
                    let found = self.journal.traces(&TraceFilter {
                        trace_id: Some(s.trace_id.clone()),
                        until_seq: None,
                        limit: 1,
                    })?;
                    let pair = found.first().map_or_else(
                        || (String::new(), String::new()),
                        |t| trace_pair(&t.searched_scopes),
                    );
                    self.memo.remember_trace(&s.trace_id, &pair);
                    pair
                }
            }
        })
    }

    /// Diary words never ride a payload: a snapshot's display row of a diary
    /// record keeps only its id and token estimate; a diary record's
    /// understanding version keeps no text, title or keywords.
    fn seal(&mut self, record: &mut JournalRecord) -> Result<()> {
        let store = self.store;
        match record {
            JournalRecord::Snapshot(s) => {
                for row in &mut s.display {
                    let Some(id) = row.get("record_id").and_then(Value::as_str) else {
                        continue;
                    };
                    let id = id.to_owned();
                    if is_diary(self.memo.resolve(store, &id)?) {
                        let mut sealed = JsonMap::new();
                        sealed.insert("record_id".into(), Value::String(id));
                        sealed.insert("redacted".into(), Value::String("diary".into()));
                        if let Some(t) = row.get("token_estimate") {
                            sealed.insert("token_estimate".into(), t.clone());
                        }
                        *row = sealed;
                    }
                }
            }
            JournalRecord::Version(v) => {
                let row = match self.memo.resolve(store, &v.assertion_id)? {
                    Some(a) => Some(a),
                    None => self.memo.resolve(store, &v.record_id)?,
                };
                if is_diary(row) {
                    v.text = None;
                    v.title = None;
                    v.keywords.clear();
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn enrich(&mut self, record: &JournalRecord) -> Result<Option<ReplayDisplay>> {
        let store = self.store;
        let (rid, with_edges, with_digest) = match record {
            JournalRecord::Event(e) => {
                if let Some((a, b)) = &e.pair_ids {
                    let mut members = Vec::new();
                    for id in [a, b] {
                        if let Some(row) = self.memo.resolve(store, id)? {
                            let replaced = self.replaced_by(&row)?;
                            members.push(display_block(&row, id, replaced.as_deref()));
                        }
                    }
                    return Ok(
                        (!members.is_empty()).then_some(ReplayDisplay::Pair { pair: members })
                    );
                }
                match &e.record_id {
                    Some(r) => (r.clone(), false, false),
                    None => return Ok(None),
                }
            }
            JournalRecord::Binding(b) => (b.record_id.clone(), true, true),
            JournalRecord::Closure(c) => (c.assertion_id.clone(), false, false),
            JournalRecord::Valence(v) => (v.target_id.clone(), false, false),
            JournalRecord::Version(v) => (v.record_id.clone(), false, true),
            JournalRecord::Trace(_) | JournalRecord::Snapshot(_) => return Ok(None),
        };
        if rid.trim().is_empty() {
            return Ok(None);
        }
        let Some(row) = self.memo.resolve(store, &rid)? else {
            return Ok(None);
        };
        let replaced = self.replaced_by(&row)?;
        let mut block = display_block(&row, &rid, replaced.as_deref());
        if with_edges {
            let mut edges = self.memo.edges(store, &row)?;
            if DigestRow::of(&row).kind_trimmed() == Some(RecordKind::Community) {
                // A topic's binding draws its revision chain, never an edge
                // per member.
                edges = edges
                    .map(|e| {
                        e.into_iter()
                            .filter(|x| x.relation == "refines")
                            .collect::<Vec<_>>()
                    })
                    .filter(|e| !e.is_empty());
            }
            match &mut block {
                ReplayDisplay::Record(r) => r.edges = edges,
                ReplayDisplay::Diary(d) => d.edges = edges,
                ReplayDisplay::Pair { .. } => {}
            }
        }
        if with_digest && let ReplayDisplay::Record(r) = &mut block {
            r.digest = Some(handle_digest(&row));
        }
        Ok(Some(block))
    }
}

impl Iterator for ReplayStream<'_> {
    type Item = Result<ReplayEnvelope>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            if let Err(e) = self.fill() {
                self.failed = true;
                return Some(Err(e));
            }
            let record = self.page.pop_front()?;
            if let Err(e) = self.revalidate() {
                self.failed = true;
                return Some(Err(e));
            }
            match self.envelope(record) {
                Ok(Some(env)) => return Some(Ok(env)),
                Ok(None) => {}
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

fn pair_of(row: Option<Arc<TripleAssertion>>) -> (String, String) {
    row.map_or_else(
        || (String::new(), String::new()),
        |a| (a.scope.clone(), a.owner_id.clone().unwrap_or_default()),
    )
}

fn is_diary(row: Option<Arc<TripleAssertion>>) -> bool {
    row.is_some_and(|a| DigestRow::of(&a).kind_trimmed() == Some(RecordKind::Diary))
}

/// A trace's single searched pair; `("", "")` when it searched several or none.
fn trace_pair(searched: &[JsonMap]) -> (String, String) {
    let mut pairs: Vec<(String, String)> = searched
        .iter()
        .map(|s| {
            let get = |k: &str| {
                s.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            (get("scope"), get("owner_id"))
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    if pairs.len() == 1 {
        pairs.swap_remove(0)
    } else {
        (String::new(), String::new())
    }
}

fn observed_at(r: &JournalRecord) -> &str {
    match r {
        JournalRecord::Event(x) => &x.observed_at,
        JournalRecord::Binding(x) => &x.observed_at,
        JournalRecord::Closure(x) => &x.observed_at,
        JournalRecord::Trace(x) => &x.observed_at,
        JournalRecord::Snapshot(x) => &x.observed_at,
        JournalRecord::Valence(x) => &x.observed_at,
        JournalRecord::Version(x) => &x.understood_at,
    }
}

/// A provenance key as a non-blank string.
fn prov_key(p: &JsonMap, key: &str) -> Option<String> {
    match p.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    }
}

fn blank_none(s: &Option<String>) -> Option<String> {
    s.as_ref().filter(|t| !t.is_empty()).cloned()
}

/// `(trace_id, turn_id, run_id)`: traces and snapshots their own trace;
/// events and valence their `trace_id` plus provenance `turn_id` / `run_id`;
/// bindings and closures their provenance keys; a revision the `run_id` of
/// its first ledger source.
fn correlation(r: &JournalRecord) -> (Option<String>, Option<String>, Option<String>) {
    match r {
        JournalRecord::Trace(t) => (
            Some(t.trace_id.clone()).filter(|s| !s.is_empty()),
            None,
            None,
        ),
        JournalRecord::Snapshot(s) => (
            Some(s.trace_id.clone()).filter(|s| !s.is_empty()),
            None,
            None,
        ),
        JournalRecord::Event(e) => (
            blank_none(&e.trace_id),
            prov_key(&e.provenance, "turn_id"),
            prov_key(&e.provenance, "run_id"),
        ),
        JournalRecord::Valence(v) => (
            blank_none(&v.trace_id),
            prov_key(&v.provenance, "turn_id"),
            prov_key(&v.provenance, "run_id"),
        ),
        JournalRecord::Binding(b) => (
            prov_key(&b.provenance, "trace_id"),
            prov_key(&b.provenance, "turn_id"),
            prov_key(&b.provenance, "run_id"),
        ),
        JournalRecord::Closure(c) => (
            prov_key(&c.provenance, "trace_id"),
            prov_key(&c.provenance, "turn_id"),
            prov_key(&c.provenance, "run_id"),
        ),
        JournalRecord::Version(v) => {
            let run = v
                .sources
                .first()
                .and_then(Value::as_object)
                .and_then(|s| prov_key(s, "run_id"));
            (None, None, run)
        }
    }
}

/// The display block of `a`, named by `requested_id`: a diary record redacted
/// to its act frame, any other record `{record_id, kind, title, token_estimate,
/// graph_id, ...}`.
fn display_block(
    a: &TripleAssertion,
    requested_id: &str,
    replaced_by: Option<&str>,
) -> ReplayDisplay {
    let row = DigestRow::of(a);
    let kind = row.kind_text();
    let kind_typed = row.kind_trimmed();
    let pending = row.pending();
    let owned = |k: &str| row.text(k).map(str::to_owned);
    if kind_typed == Some(RecordKind::Diary) {
        let who = reading_provenance(a);
        return ReplayDisplay::Diary(Box::new(DiaryDisplay {
            redacted: "diary",
            graph_id: a.subject.clone(),
            diary_type: owned("diary_type"),
            entry_id: row.entry_id().map(str::to_owned),
            pending,
            authored_by: who.author,
            understood_at: who.understood_at,
            cause: who.cause,
            resolves: owned("resolves"),
            resolves_status: owned("resolves_status"),
            resolved_record_id: owned("resolved_record_id"),
            resolved_title: if row.is_private() {
                None
            } else {
                owned("resolved_title")
            },
            edges: None,
        }));
    }
    let formed = row.is_formed();
    let title = if pending.iter().any(|f| f == "title") {
        None
    } else {
        match row.title() {
            Some(t) => Some(t.to_owned()),
            // A row that is not a record's digest (a plain triple, a
            // formation edge) is titled by its own words; a record without a
            // title has none (never a placeholder).
            None if kind.is_none() => Some(format!("{} {}", a.subject, a.predicate)),
            None => None,
        }
    };
    // A topic's display keys ride only a community record, and only when
    // the record carries them (communities are formed by a pass this
    // package does not run yet): absent, never made up.
    let community = kind_typed == Some(RecordKind::Community);
    let signals = match (kind_typed, row.get("signals")) {
        (Some(RecordKind::Dream), Some(s @ Value::Array(_))) => Some(s.clone()),
        _ => None,
    };
    ReplayDisplay::Record(Box::new(RecordDisplay {
        record_id: requested_id.to_owned(),
        kind: kind.unwrap_or(DEFAULT_KIND).to_owned(),
        title,
        pending,
        token_estimate: token_estimate(&handle_digest(a)),
        graph_id: formed.then(|| a.subject.clone()),
        visit_id: owned("visit_id"),
        signals,
        edges: None,
        digest: None,
        community_key: community.then(|| owned("community_key")).flatten(),
        version_seq: community
            .then(|| {
                row.get("basis")
                    .and_then(Value::as_object)
                    .and_then(|b| b.get("version_seq"))
                    .filter(|v| v.is_number())
                    .cloned()
            })
            .flatten(),
        size: community
            .then(|| row.get("size").filter(|v| v.is_number()).cloned())
            .flatten(),
        reading: kind
            .is_some()
            .then(|| understanding_fields(a, None, replaced_by)),
    }))
}

/// The per-stream lookups: resolved rows, formation edges, trace pairs and
/// supersessions. A row is valid for the journal head `seq` it was read at
/// (a rewrite appends a version; [`ReplayStream::revalidate`] evicts it);
/// formation edges and trace pairs never change. Emptied at [`MEMO_CAP`]
/// entries.
#[derive(Default)]
struct Memo {
    rows: HashMap<String, Option<Arc<TripleAssertion>>>,
    edges: HashMap<(String, String, String), Option<Vec<EdgeRef>>>,
    traces: HashMap<String, (String, String)>,
    replaced: HashMap<String, Option<String>>,
    /// The journal head the memo was last checked at.
    seq: Option<i64>,
    /// The journal's write mark at that check ([`MemoryJournal::write_mark`]).
    mark: Option<u64>,
    /// A new page was read since that check: read the head again (another
    /// connection's writes are not in the mark).
    page_read: bool,
}

impl Memo {
    fn bound(&mut self) {
        if self.rows.len() + self.edges.len() + self.traces.len() + self.replaced.len() >= MEMO_CAP
        {
            self.rows.clear();
            self.edges.clear();
            self.traces.clear();
            self.replaced.clear();
        }
    }

    fn resolve(
        &mut self,
        store: &dyn TripleStore,
        id: &str,
    ) -> Result<Option<Arc<TripleAssertion>>> {
        if let Some(r) = self.rows.get(id) {
            return Ok(r.clone());
        }
        self.bound();
        let row = resolve_digest_assertion(store, id)?.map(Arc::new);
        self.rows.insert(id.to_owned(), row.clone());
        Ok(row)
    }

    fn remember_trace(&mut self, trace_id: &str, pair: &(String, String)) {
        self.bound();
        self.traces.insert(trace_id.to_owned(), pair.clone());
    }

    /// The formation edges of `a`'s subject in its own pair, sorted; `None`
    /// when it has none.
    fn edges(
        &mut self,
        store: &dyn TripleStore,
        a: &TripleAssertion,
    ) -> Result<Option<Vec<EdgeRef>>> {
        let owner = a.owner_id.clone().unwrap_or_default();
        let key = (a.subject.clone(), a.scope.clone(), owner.clone());
        if let Some(e) = self.edges.get(&key) {
            return Ok(e.clone());
        }
        self.bound();
        let mut edges: Vec<EdgeRef> = store
            .query(&TripleQuery {
                subject: Some(a.subject.clone()),
                scope: Some(a.scope.clone()),
                owner_id: (!owner.is_empty()).then_some(owner),
                limit: 0,
                ..TripleQuery::default()
            })?
            .into_iter()
            .filter(|e| DigestRow::of(e).is_edge())
            .map(|e| EdgeRef {
                relation: e.predicate,
                target_graph_id: e.object,
            })
            .collect();
        edges.sort();
        let edges = (!edges.is_empty()).then_some(edges);
        self.edges.insert(key, edges.clone());
        Ok(edges)
    }
}

/// Refuse a family list naming nothing the stream knows (used by callers
/// that take family names as text, e.g. `am replay --family`).
///
/// # Errors
/// `InvalidInput` naming the known families and what arrived.
pub fn parse_families(names: &[String]) -> Result<Vec<ReplayFamily>> {
    names
        .iter()
        .map(|n| ReplayFamily::parse(n.trim()))
        .collect()
}
