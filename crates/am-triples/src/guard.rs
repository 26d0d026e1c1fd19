//! The commit guard: the host's half of the Stop fence that runs inside every
//! memory write transaction, immediately before its COMMIT.
//!
//! A host that must be able to refuse every memory write from a moment it
//! decides hands `MemorySystem` a [`CommitGuard`]: a cheap callable
//! `Fn(&str) -> Result<(), GuardError>` given the name of the commit point.
//! `MemorySystem` installs it on its store and its journal
//! ([`crate::TripleStore::install_commit_guard`]), so every write through them
//! calls it, whoever writes (the facade, a `MemoryGraph` over the same store
//! and journal, layer-1 writes, the journal's appends), once per outermost
//! transaction. A refusal rolls the transaction back; the caller receives
//! [`Error::guard_refusal`](crate::Error::guard_refusal) carrying the guard's own error unchanged
//! ([`GuardRefusal::source_error`], downcast it to the host's type).
//!
//! The commit points are a closed set, [`CommitPoint`]; `tests/commit_guard.rs`
//! of `am-system` enumerates every write verb and the point it reports.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Commit guard".

use crate::error::{Error, ErrorKind, Result};
use std::cell::Cell;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The error a guard refuses with: any error of the host's.
pub type GuardError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Where a write commits: the `where` a [`CommitGuard`] is called with.
///
/// Closed set: every write path of every store, journal, graph connector and
/// home names one of these (the spec's strings where the spec names one).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommitPoint {
    /// Any journal append (`journal`).
    ///
    /// Write paths: every `MemoryJournal` append (`append_events`,
    /// `append_binding(s)`, `append_closure(s)`, `append_trace`,
    /// `append_snapshot`, `append_selection`, `append_recall`,
    /// `append_valence`, `append_version`), in-memory and SQLite.
    Journal,
    /// A store's `add`, and formation's rows with their bindings
    /// (`store.add`).
    ///
    /// Write paths: `TripleStore::add` (the first-write pin commits inside it;
    /// LanceDB: before its table write); `remember_many` through
    /// `MemoryHome::transaction`.
    StoreAdd,
    /// A store's `close_assertion` (`store.close_assertion`).
    ///
    /// Write paths: `TripleStore::close_assertion` when it changes a row.
    StoreCloseAssertion,
    /// A store's `narrow_assertion` (`store.narrow_assertion`).
    ///
    /// Write paths: `TripleStore::narrow_assertion` when it changes a row.
    StoreNarrowAssertion,
    /// The SQLite store's vector swap of a re-embedding pass
    /// (`store.replace_vectors`).
    ///
    /// Write paths: `SQLiteTripleStore::replace_vectors` (the re-embedding
    /// swap); am-system's `embed_missing`, one vector onto one stored row
    /// (`apply_digest_rewrite` with only the vector changed), SQLite and
    /// in-memory.
    StoreReplaceVectors,
    /// A memory graph revision (`graph`).
    ///
    /// Write paths: `MemoryGraph::apply_revision` (SQLite, in-memory and
    /// LanceDB connectors; LanceDB: before the log row) and a LanceDB repair of
    /// a half-projected revision (one call for the repair and the revision
    /// whose transaction runs it first); closures appended after an off-file
    /// revision commit at `journal`.
    Graph,
    /// The SQLite graph's autocommit bookkeeping write marking a revision's
    /// closures appended to a journal in another file
    /// (`graph.mark_journal_applied`).
    ///
    /// Write paths: the SQLite graph's autocommit bookkeeping write marking an
    /// off-file revision's closures appended (under the home's write lock, so a
    /// barrier on the same handle covers it), the in-memory graph's (under the
    /// store's write lock) and the LanceDB connector's log-row update doing the
    /// same.
    GraphMarkJournalApplied,
    /// An understanding verb's in-place rewrite of a record's digest or card
    /// text with its version rows (`understanding.digest`).
    ///
    /// Write paths: `rewrite_digest`, a digest `revert_digest` (version rows +
    /// row rewrite (+ tasks) in one home transaction);
    /// `TripleStore::apply_digest_rewrite` at the point its caller names.
    UnderstandingDigest,
    /// An understanding verb's in-place retitle with its version row
    /// (`understanding.title`).
    ///
    /// Write paths: `retitle`, a title `revert_digest`.
    UnderstandingTitle,
    /// `narrate_dream`'s narration beside a dream's summary
    /// (`understanding.narration`).
    ///
    /// Write paths: `narrate_dream`.
    UnderstandingNarration,
    /// A world-model card's text written in place with its version row
    /// (`understanding.card`: the spec's `understanding.<field>` for the
    /// `card` field).
    ///
    /// Write paths: `rewrite_digest` of a world-model card's text (field
    /// `card`).
    UnderstandingCard,
    /// A pending marker written or re-armed with its version row and task
    /// (`declare_pending`, `rearm_pending`: `understanding.pending`, the
    /// spec's `understanding.<field>` for the `pending` field).
    ///
    /// Write paths: `declare_pending`, `rearm_pending` (the marker's version
    /// row, the row's attributes and the tasks in one home transaction).
    UnderstandingPending,
    /// A world-model card's key moved in place with its version row
    /// (`understanding.target`, the spec's `understanding.<field>` for the
    /// `target` field).
    ///
    /// Write paths: `rekey_world_model` (the version rows of field
    /// `target` and the card's row in one home transaction). The card moved
    /// by `retitle` / `declare_pending` of an interest (`card_rekey`) rides
    /// in that verb's own transaction, at its point.
    UnderstandingTarget,
    /// Records formed with the tasks they owe, in one transaction
    /// (`tasks.form_with_tasks`).
    ///
    /// Write paths: formation with the tasks its records owe (pending fields),
    /// one home transaction.
    TasksFormWithTasks,
    /// The task queue's `enqueue` (`tasks.enqueue`).
    ///
    /// Write paths: `TaskQueue::enqueue` / `enqueue_many`.
    TasksEnqueue,
    /// The task queue's `claim` (`tasks.claim`).
    ///
    /// Write paths: `TaskQueue::claim` (a claim that fails an exhausted task
    /// included).
    TasksClaim,
    /// The task queue's `ack` (`tasks.ack`).
    ///
    /// Write paths: `TaskQueue::ack`.
    TasksAck,
    /// The task queue's `release` (`tasks.release`).
    ///
    /// Write paths: `TaskQueue::release`.
    TasksRelease,
    /// The task queue's `supersede_stale` / `supersede_target`
    /// (`tasks.supersede`).
    ///
    /// Write paths: `TaskQueue::supersede_stale` / `supersede_target`.
    TasksSupersede,
    /// The task queue's `prioritize` (`tasks.prioritize`).
    ///
    /// Write paths: `TaskQueue::prioritize` (not `dry_run`).
    TasksPrioritize,
    /// A completed night's rows, one per `(scope, owner_id)` pair and kind
    /// (`tasks.record_maintenance`, the spec's name).
    ///
    /// Write paths: `TaskQueue::record_maintenance` (a completed night's
    /// `memq_maintenance` rows, one per pair).
    TasksRecordMaintenance,
    /// A ripple opened: its row, its gate decisions and its
    /// `ripple.reconsider` tasks (`ripple.seed`).
    ///
    /// Write paths: `seed_ripple` (not `dry_run`).
    RippleSeed,
    /// A reconsideration settled, or a ripple settled: the task, the next
    /// hop's decisions and tasks, the ripple row and its consolidation task
    /// (`ripple.settle`).
    ///
    /// Write paths: `settle_reconsideration`, `refresh_ripples`.
    RippleSettle,
}

impl CommitPoint {
    /// Every commit point, in declaration order.
    pub const ALL: &'static [CommitPoint] = &[
        CommitPoint::Journal,
        CommitPoint::StoreAdd,
        CommitPoint::StoreCloseAssertion,
        CommitPoint::StoreNarrowAssertion,
        CommitPoint::StoreReplaceVectors,
        CommitPoint::Graph,
        CommitPoint::GraphMarkJournalApplied,
        CommitPoint::UnderstandingDigest,
        CommitPoint::UnderstandingTitle,
        CommitPoint::UnderstandingNarration,
        CommitPoint::UnderstandingCard,
        CommitPoint::UnderstandingPending,
        CommitPoint::UnderstandingTarget,
        CommitPoint::TasksFormWithTasks,
        CommitPoint::TasksEnqueue,
        CommitPoint::TasksClaim,
        CommitPoint::TasksAck,
        CommitPoint::TasksRelease,
        CommitPoint::TasksSupersede,
        CommitPoint::TasksPrioritize,
        CommitPoint::TasksRecordMaintenance,
        CommitPoint::RippleSeed,
        CommitPoint::RippleSettle,
    ];

    /// The wire name the guard receives.
    pub fn as_str(self) -> &'static str {
        match self {
            CommitPoint::Journal => "journal",
            CommitPoint::StoreAdd => "store.add",
            CommitPoint::StoreCloseAssertion => "store.close_assertion",
            CommitPoint::StoreNarrowAssertion => "store.narrow_assertion",
            CommitPoint::StoreReplaceVectors => "store.replace_vectors",
            CommitPoint::Graph => "graph",
            CommitPoint::GraphMarkJournalApplied => "graph.mark_journal_applied",
            CommitPoint::UnderstandingDigest => "understanding.digest",
            CommitPoint::UnderstandingTitle => "understanding.title",
            CommitPoint::UnderstandingNarration => "understanding.narration",
            CommitPoint::UnderstandingCard => "understanding.card",
            CommitPoint::UnderstandingPending => "understanding.pending",
            CommitPoint::UnderstandingTarget => "understanding.target",
            CommitPoint::TasksFormWithTasks => "tasks.form_with_tasks",
            CommitPoint::TasksEnqueue => "tasks.enqueue",
            CommitPoint::TasksClaim => "tasks.claim",
            CommitPoint::TasksAck => "tasks.ack",
            CommitPoint::TasksRelease => "tasks.release",
            CommitPoint::TasksSupersede => "tasks.supersede",
            CommitPoint::TasksPrioritize => "tasks.prioritize",
            CommitPoint::TasksRecordMaintenance => "tasks.record_maintenance",
            CommitPoint::RippleSeed => "ripple.seed",
            CommitPoint::RippleSettle => "ripple.settle",
        }
    }
}

impl fmt::Display for CommitPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The guard's refusal of one commit: the point and the guard's own error.
#[derive(Debug, Clone)]
pub struct GuardRefusal {
    point: CommitPoint,
    source: Arc<dyn std::error::Error + Send + Sync + 'static>,
}

impl GuardRefusal {
    /// The commit point the guard refused.
    pub fn point(&self) -> CommitPoint {
        self.point
    }

    /// The guard's error, unchanged (downcast it to the host's type).
    pub fn source_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.source
    }
}

impl fmt::Display for GuardRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the commit guard refused the commit at {}: {} (nothing of the transaction was written)",
            self.point, self.source
        )
    }
}

impl std::error::Error for GuardRefusal {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

// The error's constructor and accessor for a refusal live beside the
// refusal, so that error.rs names nothing of this module.
impl Error {
    /// The host's commit guard refused the commit: kind [`ErrorKind::Refused`],
    /// the [`GuardRefusal`] (the commit point and the guard's own error) kept
    /// as the source; the transaction was rolled back.
    pub fn guard_refused(refusal: GuardRefusal) -> Self {
        Error::from_source(ErrorKind::Refused, "", refusal)
    }

    /// The commit guard's refusal, when this is one.
    pub fn guard_refusal(&self) -> Option<&GuardRefusal> {
        self.source_as()
    }
}

type GuardFn = dyn Fn(&str) -> std::result::Result<(), GuardError> + Send + Sync;

/// A host's commit guard. Cloning shares it; two guards are the same guard
/// when they are clones of one [`CommitGuard::new`].
#[derive(Clone)]
pub struct CommitGuard(Arc<GuardFn>);

impl fmt::Debug for CommitGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommitGuard").finish_non_exhaustive()
    }
}

thread_local! {
    /// Depth of outermost transactions on this thread whose guard has already
    /// been called (their inner writes do not call it again).
    static PASSED: Cell<u32> = const { Cell::new(0) };
}

impl CommitGuard {
    /// A guard calling `check` with the commit point's name.
    pub fn new(
        check: impl Fn(&str) -> std::result::Result<(), GuardError> + Send + Sync + 'static,
    ) -> Self {
        CommitGuard(Arc::new(check))
    }

    /// Whether `other` is this guard (a clone of it).
    pub fn same(&self, other: &CommitGuard) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Call the guard for a commit at `point`, unless this thread is inside an
    /// outer transaction whose guard already passed ([`CommitGuard::passed`]).
    ///
    /// # Errors
    /// [`Error::guard_refusal`](crate::Error::guard_refusal) carrying the guard's error.
    pub fn check(&self, point: CommitPoint) -> Result<()> {
        if PASSED.with(Cell::get) > 0 {
            return Ok(());
        }
        (self.0)(point.as_str()).map_err(|e| {
            Error::guard_refused(GuardRefusal {
                point,
                source: Arc::from(e),
            })
        })
    }

    /// Run `apply` as the inner writes of an outer transaction whose guard has
    /// passed: guards called on this thread inside it return `Ok` without
    /// being called (once per outermost transaction).
    pub fn passed<R>(apply: impl FnOnce() -> R) -> R {
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                PASSED.with(|d| d.set(d.get() - 1));
            }
        }
        PASSED.with(|d| d.set(d.get() + 1));
        let _leave = Leave;
        apply()
    }
}

/// Where a store or journal keeps its guard: empty until one is installed,
/// then that guard for the life of the handle. Checking an empty slot is one
/// atomic load.
#[derive(Debug, Default)]
pub struct GuardSlot(OnceLock<CommitGuard>);

impl GuardSlot {
    /// An empty slot.
    pub const fn new() -> Self {
        GuardSlot(OnceLock::new())
    }

    /// Install `guard` (installing the same guard again is a no-op).
    ///
    /// # Errors
    /// `InvalidInput` when another guard is installed already (`what` names
    /// the store or journal).
    pub fn install(&self, guard: &CommitGuard, what: &str) -> Result<()> {
        let installed = self.0.get_or_init(|| guard.clone());
        if installed.same(guard) {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "{what} already has a different commit guard; one guard per store and journal (install the \
                 same guard, or open a new handle)"
            )))
        }
    }

    /// The installed guard.
    pub fn get(&self) -> Option<&CommitGuard> {
        self.0.get()
    }

    /// Call the installed guard for `point` (`Ok` when none is installed).
    ///
    /// # Errors
    /// [`Error::guard_refusal`](crate::Error::guard_refusal).
    #[inline]
    pub fn check(&self, point: CommitPoint) -> Result<()> {
        match self.0.get() {
            None => Ok(()),
            Some(g) => g.check(point),
        }
    }
}

/// The refusal of a store or journal type whose writes cannot call a guard.
pub fn unsupported_guard(type_name: &str) -> Error {
    Error::unsupported(format!(
        "{type_name} cannot call a commit guard before its commits; a guarded MemorySystem needs a store \
         and journal that can (the in-memory pair, the SQLite home, LanceDB)"
    ))
}
