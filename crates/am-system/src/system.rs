//! `MemorySystem`: the layer-2 facade over an injected `TripleStore` and
//! `MemoryJournal` (and an optional `TextEmbedder`). This module holds the
//! constructor, the layer-1 passthroughs, id resolution across the two id
//! namespaces, formation, payload reads, bindings and closures; commit,
//! deliberate acts and inspection live in `system_use.rs`.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Formation (typed
//! records)", "Bindings and closures"; architecture.md "Append-only, no deletion".

use crate::config::{AttentionConfig, ReconstructConfig, SpreadParams};
use crate::error::{Error, Result};
use crate::locks::CacheLock;
use crate::outcome::Warned;
use am_journal::{MemoryHome, MemoryJournal, PairHome};
use am_triples::{TextEmbedder, Timestamp, TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// An injectable clock: answers the current instant as a [`Timestamp`]
/// (`am_triples::Clock`; [`am_triples::fixed_clock`] pins one).
pub use am_triples::Clock;

/// The scopes whose search needs an `escalation_reason` by default.
pub const DEFAULT_BROAD_SCOPES: &[&str] = &["global"];

/// A read-side evaluation arm for experiments; write paths are unaffected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ablation {
    /// `recency_embedding`: channels run, activation and spreading do not.
    RecencyEmbedding,
    /// `recency`: channels disabled too (a pure recency baseline).
    Recency,
}

impl Ablation {
    /// Parse `"recency_embedding"` / `"recency"` (trimmed, any case); blank is `None`.
    ///
    /// # Errors
    /// `InvalidInput` naming the valid arms and what arrived.
    pub fn parse(s: &str) -> Result<Option<Ablation>> {
        match s.trim().to_lowercase().as_str() {
            "" => Ok(None),
            "recency_embedding" => Ok(Some(Ablation::RecencyEmbedding)),
            "recency" => Ok(Some(Ablation::Recency)),
            _ => Err(Error::invalid(format!(
                "unknown ablation {s:?}; valid: none (full engine), 'recency_embedding' (no activation/spreading), \
                 'recency' (pure recency baseline: channels disabled too)"
            ))),
        }
    }
}

/// Everything `MemorySystem::with_options` takes besides the store and journal.
///
/// The spec's constructor also takes `selector` and `reflector`, "accepted
/// for signature stability but unused" (api.md "Layer 2"; the spec gives
/// them no shape): this port has no such fields until a verb uses them
/// (docs/retrieval.md "Selector and reflector").
#[derive(Clone, Default)]
pub struct SystemOptions {
    /// Enables the vector retrieval channel.
    pub embedder: Option<Arc<dyn TextEmbedder>>,
    /// Activation fold tunables.
    pub attention_config: AttentionConfig,
    /// Spreading walk tunables.
    pub spread_params: SpreadParams,
    /// Reconstruction kind policy and admission knobs.
    pub reconstruct_config: ReconstructConfig,
    /// The clock; default: now in canonical UTC.
    pub clock: Option<Clock>,
    /// Scopes needing an escalation reason; `None` = `{"global"}`.
    pub broad_scopes: Option<Vec<String>>,
    /// Read-side evaluation arm.
    pub ablation: Option<Ablation>,
    /// Open the home's memory task queue (`system.tasks()`): the in-memory
    /// pair gets an `InMemoryTaskQueue`, a given home opens its own
    /// (`MemoryHome::open_task_queue`; the SQLite home's `memq_*` tables).
    pub task_queue: bool,
    /// The host's commit guard (api.md "Commit guard"): installed on the
    /// store and the journal, so every write transaction through them calls
    /// it immediately before its COMMIT with the commit point; a refusal rolls
    /// the write back and the caller receives the guard's error
    /// ([`Error::guard_refusal`]).
    pub commit_guard: Option<am_triples::CommitGuard>,
    /// The gradation fold's tunables (api.md "Valence and gradation").
    pub gradation_config: crate::config::GradationConfig,
}

/// The layer-2 memory system. See the crate docs and api.md "Layer 2".
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use am_system::{MemorySystem, MemoryRecordInput, RecordKind, RememberMany};
/// let system = MemorySystem::new(
///     Arc::new(am_triples::InMemoryTripleStore::new(None)),
///     Arc::new(am_journal::InMemoryJournal::new()),
/// );
/// let records = vec![MemoryRecordInput::new(RecordKind::Lesson, "Pool", "Size the pool.")];
/// let ids = system
///     .remember_many(&RememberMany::new(records, "session", "s1", "turn-1"))
///     .unwrap();
/// assert!(ids[0].starts_with("ex:lesson-"));
/// assert_eq!(system.current_seq().unwrap(), 1); // one formation binding, no event
/// ```
pub struct MemorySystem {
    /// The home every multi-part write commits through (`remember_many`).
    pub(crate) home: Arc<dyn MemoryHome>,
    pub(crate) store: Arc<dyn TripleStore>,
    pub(crate) journal: Arc<dyn MemoryJournal>,
    pub(crate) embedder: Option<Arc<dyn TextEmbedder>>,
    pub(crate) attention: AttentionConfig,
    pub(crate) spread: SpreadParams,
    pub(crate) reconstruct: ReconstructConfig,
    pub(crate) clock: Clock,
    pub(crate) broad_scopes: BTreeSet<String>,
    pub(crate) ablation: Option<Ablation>,
    /// The warnings no verb's result carried, until `take_warnings` (a
    /// cache: [`crate::locks`]).
    pub(crate) warnings: CacheLock<Vec<String>>,
    /// The recall index `reconstruct` keeps fresh (reconstruct/index.rs).
    pub(crate) recall_index: CacheLock<crate::recall::reconstruct::index::RecallIndex>,
    /// The gradation tunables (`SystemOptions::gradation_config`).
    pub(crate) gradation: crate::config::GradationConfig,
    /// The valence streams `gradation` keeps fresh (valence/index.rs).
    pub(crate) valence_index: CacheLock<crate::valence::index::ValenceIndex>,
    /// The ladder mirror `entity_card` keeps fresh (card/mirror.rs).
    pub(crate) card_mirror: CacheLock<crate::observe::card::mirror::LadderMirror>,
    /// The folds `maintenance_due` keeps fresh (sleep/due_cursor.rs).
    pub(crate) due_cursors: CacheLock<crate::sleep::due_cursor::DueCursors>,
}

impl std::fmt::Debug for MemorySystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemorySystem")
            .field("broad_scopes", &self.broad_scopes)
            .field("ablation", &self.ablation)
            .finish_non_exhaustive()
    }
}

/// The home of a store and a journal handed over separately: their
/// one-transaction home when they can share one
/// ([`am_journal::join::shared_home`]: the store's `home_member` and the
/// journal's `home_key` name one home, and the store's backend opens it; a
/// SQLite store and journal of one file), else a [`PairHome`]. When the pair
/// still lives in one file (a store wrapper that answers no
/// `TripleStore::home_member`), formation would commit its rows and its
/// bindings in two steps: the `#FALLBACK` warning returned says so.
fn home_of(
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    task_queue: bool,
) -> (Arc<dyn MemoryHome>, Option<String>) {
    if let Some(home) = am_journal::join::shared_home(store.clone(), journal.clone()) {
        return (home, None);
    }
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    let journal_files: Vec<_> = journal
        .write_fence()
        .files
        .iter()
        .filter_map(|f| canonical(f.path()))
        .collect();
    let shared_file = store
        .write_fence()
        .files
        .iter()
        .filter_map(|f| canonical(f.path()))
        .find(|p| journal_files.contains(p));
    let warning = shared_file.map(|p| {
        format!(
            "#FALLBACK: the store and the journal share the file {} but no transaction (the store type names no \
             home member): a formation commits its rows and its bindings in two steps; open the home as one \
             MemoryHome (MemorySystem::over_home) to form atomically",
            p.display()
        )
    });
    let home = if task_queue {
        PairHome::with_task_queue(
            store,
            journal,
            Arc::new(am_journal::InMemoryTaskQueue::new()),
        )
    } else {
        PairHome::new(store, journal)
    };
    (Arc::new(home), warning)
}

fn default_clock() -> Clock {
    am_triples::wall_clock()
}

impl MemorySystem {
    /// A system with every default (no embedder, the spec's configs, broad
    /// scopes `{"global"}`, the wall clock) over `store` and `journal`: in
    /// ONE transaction per formation when they can share one
    /// ([`am_journal::join::shared_home`]: a SQLite store and journal of one
    /// file, on one connection or two), else as a [`PairHome`] (two steps,
    /// with a `#FALLBACK` warning when the two still share a file; see
    /// [`MemorySystem::over_home`] to pass a home).
    pub fn new(store: Arc<dyn TripleStore>, journal: Arc<dyn MemoryJournal>) -> Self {
        let (home, warning) = home_of(store, journal, false);
        let system = Self::build(home, SystemOptions::default());
        if let Some(w) = warning {
            system.warn(w);
        }
        system
    }

    /// A system with every default over `home` (e.g.
    /// `am_backend_sqlite::SqliteMemoryHome`: store and journal of one file,
    /// formation in ONE transaction).
    pub fn over_home(home: Arc<dyn MemoryHome>) -> Self {
        Self::build(home, SystemOptions::default())
    }

    /// A system with options over `store` and `journal`, in the home
    /// [`MemorySystem::new`] picks.
    ///
    /// # Errors
    /// As [`MemorySystem::over_home_with_options`].
    pub fn with_options(
        store: Arc<dyn TripleStore>,
        journal: Arc<dyn MemoryJournal>,
        options: SystemOptions,
    ) -> Result<Self> {
        let (home, warning) = home_of(store, journal, options.task_queue);
        let system = Self::over_home_with_options(home, options)?;
        if let Some(w) = warning {
            system.warn(w);
        }
        Ok(system)
    }

    /// A system with options over `home`.
    ///
    /// # Errors
    /// `Unsupported` for `task_queue: true` on a home that keeps no queue,
    /// and for a `commit_guard` on a store or journal type
    /// whose writes cannot call one (naming the type); `InvalidInput`
    /// for an invalid `RecallBudget`-free config (a zero `window_limit`), and
    /// for a `commit_guard` on a store or journal that already has a different
    /// one.
    pub fn over_home_with_options(
        home: Arc<dyn MemoryHome>,
        options: SystemOptions,
    ) -> Result<Self> {
        if options.task_queue {
            home.open_task_queue()?;
        }
        if options.attention_config.window_limit == 0 {
            return Err(Error::invalid(
                "AttentionConfig.window_limit must be a positive number of events, got 0",
            ));
        }
        options.gradation_config.validate()?;
        if let Some(guard) = &options.commit_guard {
            home.store().install_commit_guard(guard)?;
            home.journal().install_commit_guard(guard)?;
        }
        Ok(Self::build(home, options))
    }

    fn build(home: Arc<dyn MemoryHome>, options: SystemOptions) -> Self {
        let broad_scopes = match options.broad_scopes {
            Some(list) => list
                .iter()
                .map(|s| s.trim().to_lowercase())
                .filter(|s| !s.is_empty())
                .collect(),
            None => DEFAULT_BROAD_SCOPES
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        };
        let system = MemorySystem {
            store: home.store().clone(),
            journal: home.journal().clone(),
            home,
            embedder: options.embedder,
            attention: options.attention_config,
            spread: options.spread_params,
            reconstruct: options.reconstruct_config,
            clock: options.clock.unwrap_or_else(default_clock),
            broad_scopes,
            ablation: options.ablation,
            warnings: CacheLock::default(),
            recall_index: CacheLock::default(),
            gradation: options.gradation_config,
            valence_index: CacheLock::default(),
            card_mirror: CacheLock::default(),
            due_cursors: CacheLock::default(),
        };
        // What the store and journal raised before this system existed (a
        // volatile journal, an upgrade note) is reported by `take_warnings`,
        // not by the first verb's result.
        let mut early = system.store.take_warnings();
        early.extend(system.journal.take_warnings());
        for w in early {
            system.warn(w);
        }
        system
    }

    /// The layer-1 store handle.
    pub fn store(&self) -> &Arc<dyn TripleStore> {
        &self.store
    }

    /// The journal handle.
    pub fn journal(&self) -> &Arc<dyn MemoryJournal> {
        &self.journal
    }

    /// The write barrier (api.md "Write barrier"), the bumper's half of the
    /// Stop fence: while the returned hold lives, every write transaction of
    /// this system's store and journal whose commit guard has passed has
    /// committed, none commits, and every later one calls its guard after the
    /// block. It takes, in order, the store's and the journal's in-process
    /// write locks, then one `BEGIN IMMEDIATE` per distinct SQLite file (on a
    /// connection of its own: it waits for every other connection's write
    /// transaction, in this process or another, and holds off new ones); it
    /// writes nothing. Dropping the hold releases them in reverse. Re-entrant
    /// within one thread. A store or journal without those locks (LanceDB) is
    /// named in `uncovered`, with a `#FALLBACK` warning in the hold's
    /// `warnings`. Keep the block short: a writer of
    /// another process waits at most its busy timeout (5 s). A memory write
    /// on the barrier's own thread inside the block is not supported.
    ///
    /// The spec's two SQLite autocommit commit points: a pinless store's
    /// first-write pin commits inside its `add`'s transaction in this port
    /// (covered like any `add`); an off-file graph's `mark_journal_applied`
    /// calls the guard under the home's write lock, so a barrier on the same
    /// handle covers it, while through another handle or process one such
    /// write whose guard passed may land after the bump.
    ///
    /// # Errors
    /// Kind `Timeout` ([`am_triples::Error::barrier_timeout`], naming the lock or
    /// file a writer still holds) when `timeout` elapses, everything acquired
    /// released; `InvalidInput` when taken inside a memory write transaction
    /// of its own thread (it would wait for itself).
    pub fn write_barrier(
        &self,
        timeout: Option<std::time::Duration>,
    ) -> Result<am_triples::BarrierHold> {
        let hold = am_triples::barrier::acquire(
            &[self.store.write_fence(), self.journal.write_fence()],
            timeout,
        )?;
        Ok(hold)
    }

    /// The home the system's multi-part writes commit through.
    pub fn home(&self) -> &Arc<dyn MemoryHome> {
        &self.home
    }

    /// The system embedder (enables the vector channel), if any.
    pub fn embedder(&self) -> Option<&Arc<dyn TextEmbedder>> {
        self.embedder.as_ref()
    }

    /// The activation fold tunables.
    pub fn attention_config(&self) -> &AttentionConfig {
        &self.attention
    }

    /// The spreading walk tunables.
    pub fn spread_params(&self) -> &SpreadParams {
        &self.spread
    }

    /// The reconstruction kind policy and knobs.
    pub fn reconstruct_config(&self) -> &ReconstructConfig {
        &self.reconstruct
    }

    /// The scopes whose search needs an `escalation_reason` (lowercased).
    pub fn broad_scopes(&self) -> &BTreeSet<String> {
        &self.broad_scopes
    }

    /// The read-side evaluation arm, if any.
    pub fn ablation(&self) -> Option<Ablation> {
        self.ablation
    }

    /// Now, from the injected clock, in the canonical UTC text form.
    ///
    /// # Errors
    /// None today (the clock answers a [`Timestamp`]); the `Result` stays for
    /// the callers written against the text clock.
    pub fn now(&self) -> Result<String> {
        Ok((self.clock)().canonical())
    }

    /// Now, from the injected clock.
    pub fn now_timestamp(&self) -> Timestamp {
        (self.clock)()
    }

    /// Record a `#FALLBACK` (or other) warning for the host to drain.
    pub(crate) fn warn(&self, message: String) {
        self.warnings.lock().push(message);
    }

    /// Drain the warnings no verb's result carried: what opening the store
    /// and journal raised (a volatile journal), what opening the system
    /// raised (a pair of one file forming in two steps), and what the store
    /// and journal raised outside a verb of
    /// this system. A verb's own warnings travel with its result
    /// ([`crate::Warned`], `ReconstructionResult::warnings`).
    pub fn take_warnings(&self) -> Vec<String> {
        let mut out = std::mem::take(&mut *self.warnings.lock());
        out.extend(self.store.take_warnings());
        out.extend(self.journal.take_warnings());
        out
    }

    // -- layer-1 passthroughs -------------------------------------------------

    /// Layer-1 write passthrough (`store.add`), refusing first, as the
    /// memory graph's assert refuses it, a validity window that ends before
    /// it starts (`valid_until` before `valid_from`, compared as instants; an
    /// equal pair, an empty window, is allowed). Nothing is written on a refusal.
    ///
    /// # Errors
    /// `InvalidInput` naming the assertion's index and both times;
    /// the store's refusal.
    pub fn add(&self, assertions: &[TripleAssertion]) -> Result<Vec<String>> {
        check_windows(assertions)?;
        self.store.add(assertions)
    }

    /// [`MemorySystem::add`] with the warnings the write raised (a first
    /// write's pin, rows stored without a vector) in its result, not in the
    /// store's shared buffer: what a front end answers per call.
    ///
    /// # Errors
    /// As [`MemorySystem::add`].
    pub fn add_warned(&self, assertions: &[TripleAssertion]) -> Result<Warned<Vec<String>>> {
        check_windows(assertions)?;
        let added = self.store.add_with_warnings(assertions)?;
        Ok(Warned {
            value: added.ids,
            warnings: added.warnings,
        })
    }

    /// Layer-1 read passthrough. Direct id lookups bypass closure and binding
    /// folds by design (audit completeness); ranked retrieval applies them.
    ///
    /// # Errors
    /// The store's refusal.
    pub fn query(&self, q: &TripleQuery) -> Result<Vec<TripleAssertion>> {
        self.store.query(q)
    }

    /// Journal passthrough: the highest seq observed at or before `iso_ts`.
    ///
    /// # Errors
    /// The journal's refusal (a non-timestamp).
    pub fn seq_at(&self, iso_ts: &str) -> Result<i64> {
        self.journal.seq_at(iso_ts)
    }

    /// Journal passthrough: the current high-water mark (the `as_of` of a read now).
    ///
    /// # Errors
    /// The journal's storage error.
    pub fn current_seq(&self) -> Result<i64> {
        self.journal.current_seq()
    }

    /// Release the journal ([`MemoryJournal::close`]) and nothing else: the
    /// store is caller-owned and stays open (api.md: "`close()` releases the
    /// journal only; the store is caller-owned").
    ///
    /// # Errors
    /// The journal's failure to release.
    pub fn close(&self) -> Result<()> {
        let _ = self.take_warnings();
        self.journal.close()?;
        Ok(())
    }

    // -- id namespaces ----------------------------------------------------------

    /// A record's digest assertion from either id namespace: the assertion
    /// itself when `id` is an assertion id, else the newest `dcterms:abstract`
    /// assertion whose subject is `id` (a graph id). `None` when neither.
    ///
    /// # Errors
    /// The store's refusal.
    pub fn resolve_digest_assertion(&self, id: &str) -> Result<Option<TripleAssertion>> {
        crate::lookup::resolve_digest_assertion(self.store.as_ref(), id)
    }

    /// Map ids of either namespace (digest assertion ids or `ex:` graph ids) to
    /// the assertion ids the journal keys on: `(as passed, trimmed) → resolved`,
    /// in input order, blanks skipped, duplicates kept once.
    ///
    /// # Errors
    /// `NotFound` naming the id and both namespaces for an id that
    /// resolves in neither; the store's refusal.
    pub fn resolve_assertion_ids(&self, ids: &[String]) -> Result<Vec<(String, String)>> {
        Ok(self.resolve_with_rows(ids)?.0)
    }

    /// [`MemorySystem::resolve_assertion_ids`], also returning the resolved
    /// rows keyed by assertion id (so callers need not read them again).
    pub(crate) fn resolve_with_rows(&self, ids: &[String]) -> Result<Resolved> {
        let mut wanted: Vec<String> = Vec::new();
        for id in ids {
            let id = id.trim();
            if !id.is_empty() && !wanted.iter().any(|w| w == id) {
                wanted.push(id.to_owned());
            }
        }
        let mut rows: HashMap<String, TripleAssertion> = HashMap::new();
        if wanted.is_empty() {
            return Ok((Vec::new(), rows));
        }
        for a in self.store.query(&TripleQuery {
            assertion_ids: Some(wanted.clone()),
            limit: 0,
            ..TripleQuery::default()
        })? {
            if let Some(id) = a.assertion_id.clone() {
                rows.insert(id, a);
            }
        }
        let mut out = Vec::with_capacity(wanted.len());
        for id in wanted {
            if rows.contains_key(&id) {
                out.push((id.clone(), id));
                continue;
            }
            match self.resolve_digest_assertion(&id)? {
                Some(a) if a.assertion_id.is_some() => {
                    let aid = a.assertion_id.clone().unwrap_or_default();
                    rows.insert(aid.clone(), a);
                    out.push((id, aid));
                }
                _ => return Err(unknown_id(&id)),
            }
        }
        Ok((out, rows))
    }

    /// Resolve one id (either namespace) to its digest assertion id.
    ///
    /// # Errors
    /// `NotFound` naming both namespaces; the store's refusal.
    pub fn resolve_assertion_id(&self, id: &str) -> Result<String> {
        let trimmed = id.trim();
        if trimmed.is_empty() {
            return Err(Error::invalid(
                "a record id must be a non-empty string, got an empty one",
            ));
        }
        self.resolve_assertion_ids(&[trimmed.to_owned()])?
            .into_iter()
            .next()
            .map(|(_, aid)| aid)
            .ok_or_else(|| unknown_id(trimmed))
    }
}

/// Resolved ids `(as passed, assertion id)` and the rows keyed by assertion id.
pub(crate) type Resolved = (Vec<(String, String)>, HashMap<String, TripleAssertion>);

/// The error for an id that resolves in neither namespace.
pub(crate) fn unknown_id(id: &str) -> Error {
    Error::not_found(format!(
        "unknown record id {id:?}: neither a store assertion id (handle.record_id) nor a graph record id \
         (an ex:… subject with a dcterms:abstract digest assertion, as remember_many returns)"
    ))
}

/// The module form of [`MemorySystem::write_barrier`].
///
/// # Errors
/// As [`MemorySystem::write_barrier`].
pub fn write_barrier(
    system: &MemorySystem,
    timeout: Option<std::time::Duration>,
) -> Result<am_triples::BarrierHold> {
    system.write_barrier(timeout)
}

/// Refuse a validity window that ends before it starts (an equal pair, an
/// empty window, is allowed): the one check `add` and `add_warned` share.
fn check_windows(assertions: &[TripleAssertion]) -> Result<()> {
    use am_triples::timestamp::parse_timestamp;
    for (i, a) in assertions.iter().enumerate() {
        if let (Some(from), Some(until)) = (&a.valid_from, &a.valid_until)
            && let (Ok(f), Ok(u)) = (parse_timestamp(from), parse_timestamp(until))
            && u < f
        {
            return Err(Error::invalid(format!(
                "assertions[{i}]: valid_until {until} is before valid_from {from} (a window cannot end \
                 before it starts; an equal pair, an empty window, is allowed); nothing was written"
            )));
        }
    }
    Ok(())
}
