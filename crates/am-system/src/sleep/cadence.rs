//! The sleep cadence: whether a night would find new material, and how much
//! the home lived since its last one. All three reads are pure.
//!
//! - [`last_maintenance_seq`]: the journal seq of the newest sleep
//!   artifact's formation (a dream, or a maintenance candidate: the newest
//!   folded binding of any of them), `0` when the pairs never slept. As
//!   0.3.2 counts them, world-model cards are not such artifacts.
//! - [`maintenance_due`]: due when at least `min_new_records` records formed
//!   after the anchor (`since_seq`, else `last_maintenance_seq`; a formation
//!   is a `remember` binding of the pair), or when at least one formed and
//!   the fragmentation signal (duplicate-title groups + isolated records of
//!   [`structural_report`]) is at least `min_signal`. With nothing new it is
//!   never due, except for night work the queue holds: with `tasks`, the
//!   live tasks of the pairs that only a night runs (`dream.narrate`,
//!   `ripple.consolidate`) or that a ripple left (`ripple.reconsider`) are
//!   `pending_tasks`, and any makes the check due (api.md: "pending ripple
//!   and night-only memory tasks count as due"): `dream_pass` queues
//!   `dream.narrate`, `seed_ripple` / `settle_reconsideration` the ripple's.
//!   A pair's formation bindings are read with its owner exactly, as 0.3.2
//!   reads them (a blank owner counts the bindings written with a blank
//!   owner), while the structure reads every owner of a blank-owner pair.
//!   The system's check is cursor-bounded (see below).
//! - [`records_since_maintenance`](MemorySystem::records_since_maintenance): the idle → sleep read. The boundary is
//!   the later of the last completed night over the pairs (`memq_maintenance`,
//!   kind `night`) and the host's `after`; `count` is the formed records
//!   (digest rows; no edge, no bookkeeping row; closed records count)
//!   observed strictly after it; `fragmented` is the share of the live home a
//!   sleep would make whole.
//!
//! `fragmented`: `provisional` counts the distinct records the `placed`
//! events above the night's seq name in the pairs (a record's provisional
//! community; a placed record closed since counts there only). Nothing in
//! this port writes a `placed` event yet (communities have not landed), so
//! today it is `0`; `unvectored` counts the live records without a stored
//! vector, leaving out a record whose formation edges all name closed
//! records (nothing can ever place it, the sleep pass's `unplaced_closed`);
//! `pending` counts the live records whose title or summary is still being
//! written. `count` is the distinct live records in any of the three, so
//! `share = count / live` never exceeds 1.0 (`0.0` for an empty home).
//! Every store of this port answers `stored_vector`, the LanceDB one too, so
//! `fragmented` is always present here (the spec allows `None` for a store
//! that cannot say).
//!
//! The cursor: [`MemorySystem::maintenance_due`] keeps, per pair list on
//! the system (one store and journal), the fold of the rows read so far and
//! the journal seq its formations were read through, and answers from it
//! (`due_cursor.rs`); the free [`maintenance_due`] reads whole. Both answer
//! the same (the tests hold them to it after every kind of write).
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`maintenance_due`, `last_maintenance_seq`), "Consolidation (sleep and
//! dreams)" (`records_since_maintenance`); memory-system.md "Sleep".

use std::collections::{HashMap, HashSet};

use am_journal::{BindingFilter, BindingSource, ClosureFilter, MemoryJournal, TaskKind};
use am_triples::{Narrow, Timestamp, TripleStore};
use serde::Serialize;

use super::args::{
    LastMaintenanceSeq, MaintenanceDue, RecordsSinceMaintenance, StructuralReport, sleep_pairs,
};
use super::structural::{pair_query, pair_rows, structural_report};
use crate::error::{Error, Result};
use crate::record::DigestRow;
use crate::system::MemorySystem;
use crate::tasks::{LastMaintenance, ListTasks};

/// `last_maintenance_seq(store, journal, *, scopes)`: the journal seq of the
/// newest sleep artifact's formation over the pairs; `0` = never slept.
///
/// # Errors
/// `InvalidInput` for no pair or a blank scope; the store's or journal's
/// failure.
pub fn last_maintenance_seq(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &LastMaintenanceSeq,
) -> Result<i64> {
    let pairs = sleep_pairs("last_maintenance_seq", &args.scopes)?;
    artifact_seq(store, journal, &pairs)
}

fn artifact_seq(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    pairs: &[(String, String)],
) -> Result<i64> {
    let mut artifacts: Vec<String> = Vec::new();
    for (scope, owner) in pairs {
        store.visit_narrow(&pair_query(scope, owner), ARTIFACT_KEYS, &mut |a| {
            if is_artifact(DigestRow::of_attributes(a.attributes)) {
                artifacts.push(a.subject.to_owned());
            }
        })?;
    }
    artifact_seq_of(journal, artifacts)
}

/// The attribute keys [`is_artifact`] reads.
pub(crate) const ARTIFACT_KEYS: Narrow<'static> = Narrow {
    attributes: &["record_kind", "maintenance_candidate"],
    provenance: &[],
};

/// Whether a row (of any predicate) is a sleep artifact's: a dream's, or a
/// maintenance candidate's.
pub(crate) fn is_artifact(row: DigestRow<'_>) -> bool {
    row.as_stored("record_kind") == Some("dream") || row.flag("maintenance_candidate")
}

/// The newest binding seq of any of `artifacts` (the graph ids of the
/// pairs' artifact rows, in any order, repeats allowed); `0` for none.
///
/// # Errors
/// The journal's failure.
pub(crate) fn artifact_seq_of(
    journal: &dyn MemoryJournal,
    mut artifacts: Vec<String>,
) -> Result<i64> {
    artifacts.sort();
    artifacts.dedup();
    let mut high = 0;
    for rid in &artifacts {
        for b in journal.bindings(&BindingFilter::record(rid))? {
            high = high.max(b.seq);
        }
    }
    Ok(high)
}

/// The kinds of task only a night (or a ripple) works off.
pub const NIGHT_TASK_KINDS: [TaskKind; 3] = [
    TaskKind::DreamNarrate,
    TaskKind::RippleConsolidate,
    TaskKind::RippleReconsider,
];

/// The answer of [`maintenance_due`], key for key with 0.3.2's, plus
/// `pending_tasks` when `tasks` was asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Cadence {
    /// Whether a night would find new material.
    pub due: bool,
    /// Why, one line per rule that fired (empty when not due).
    pub reasons: Vec<String>,
    /// The anchor formations were counted after.
    pub since_seq: i64,
    /// Records formed after the anchor.
    pub new_records: u64,
    /// Duplicate-title groups + isolated records.
    pub signal: u64,
    /// Duplicate-title groups.
    pub duplicate_groups: u64,
    /// Isolated records.
    pub isolated: u64,
    /// Live night-only and ripple tasks of the pairs (with `tasks` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_tasks: Option<u64>,
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Formation bindings of the pairs after `anchor` (owner read exactly).
fn formations_after(
    journal: &dyn MemoryJournal,
    pairs: &[(String, String)],
    anchor: i64,
) -> Result<u64> {
    let mut n = 0u64;
    for (scope, owner) in pairs {
        let filter = BindingFilter {
            scope: Some(scope.clone()),
            owner_id: Some(owner.clone()),
            fold: false,
            ..BindingFilter::default()
        };
        n += count(
            journal
                .bindings(&filter)?
                .iter()
                .filter(|b| b.seq > anchor && b.source == BindingSource::Remember)
                .count(),
        );
    }
    Ok(n)
}

/// The rule of the predicate over its counts.
fn decide(
    args: &MaintenanceDue,
    anchor: i64,
    new_records: u64,
    duplicate_groups: u64,
    isolated: u64,
    pending_tasks: Option<u64>,
) -> Cadence {
    let signal = duplicate_groups + isolated;
    let mut reasons = Vec::new();
    if new_records >= args.min_new_records.get() {
        reasons.push(format!(
            "{new_records} records formed after seq {anchor}, at least the {} asked for",
            args.min_new_records
        ));
    }
    if new_records > 0 && signal >= args.min_signal {
        reasons.push(format!(
            "{new_records} new record(s), and the home is fragmented: {duplicate_groups} \
             duplicate-title group(s) + {isolated} isolated = {signal}, at least {}",
            args.min_signal
        ));
    }
    if let Some(n) = pending_tasks.filter(|n| *n > 0) {
        reasons.push(format!(
            "{n} night-only or ripple task(s) wait in the queue"
        ));
    }
    Cadence {
        due: !reasons.is_empty(),
        reasons,
        since_seq: anchor,
        new_records,
        signal,
        duplicate_groups,
        isolated,
        pending_tasks,
    }
}

/// `maintenance_due(store, journal, *, scopes, since_seq=None,
/// min_new_records=12, min_signal=3)` over a store and journal (see the
/// module doc). Read whole; [`MemorySystem::maintenance_due`] is the
/// cursor-bounded one, with `tasks`.
///
/// # Errors
/// `InvalidInput` for no pair, a blank scope, a `since_seq` outside the
/// journal's seq range, or `tasks: true` (the queue is the system's: call
/// [`MemorySystem::maintenance_due`]); the store's or journal's failure.
pub fn maintenance_due(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &MaintenanceDue,
) -> Result<Cadence> {
    if args.tasks {
        return Err(Error::invalid(
            "maintenance_due(tasks=true) reads the system's task queue: call it on the system",
        ));
    }
    let pairs = sleep_pairs("maintenance_due", &args.scopes)?;
    let anchor = due_anchor(store, journal, &pairs, args.since_seq)?;
    let new_records = formations_after(journal, &pairs, anchor)?;
    let base = structural_report(
        store,
        journal,
        &StructuralReport {
            scopes: pairs,
            as_of: None,
            evidence_grade: false,
        },
    )?;
    Ok(decide(
        args,
        anchor,
        new_records,
        count(base.counts.duplicates),
        count(base.counts.isolated),
        None,
    ))
}

fn due_anchor(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    pairs: &[(String, String)],
    since_seq: Option<i64>,
) -> Result<i64> {
    match since_seq {
        Some(s) => {
            am_journal::journal::check_anchor("since_seq", Some(s), journal.current_seq()?)?;
            Ok(s)
        }
        None => artifact_seq(store, journal, pairs),
    }
}

am_triples::vocabulary! {
    /// Where the boundary of
    /// [`records_since_maintenance`](MemorySystem::records_since_maintenance)
    /// came from.
    pub enum BoundarySource("boundary source") {
        /// The last completed night (also on a tie with `after`).
        Memory = "memory",
        /// The host's own `after`.
        After = "after",
        /// Neither: the home's birth.
        Birth = "birth",
    }
}

/// How much of the live home a sleep would make whole.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Fragmented {
    /// Distinct live records that are any of the three below.
    pub count: u64,
    /// `count` over the live formed records (`0.0` for an empty home).
    pub share: f64,
    /// Records placed in a topic provisionally since the night (`placed`
    /// events; nothing in this port places a record yet, so `0` until
    /// communities land). A placed record closed since counts here only.
    pub provisional: u64,
    /// Live records without a stored vector (a record whose every formation
    /// edge names a closed record left out).
    pub unvectored: u64,
    /// Live records whose title or summary is still being written.
    pub pending: u64,
}

/// The answer of [`MemorySystem::records_since_maintenance`].
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SinceMaintenance {
    /// Records formed strictly after the boundary.
    pub count: u64,
    /// When the newest completed night over the pairs ended (`None`: none).
    pub last_maintenance_at: Option<String>,
    /// The boundary used (canonical); for `birth`, the oldest formed
    /// record's time (`None` for an empty home).
    pub since: Option<String>,
    /// Where the boundary came from.
    pub boundary_source: BoundarySource,
    /// The share of the live home a sleep would make whole.
    pub fragmented: Option<Fragmented>,
}

impl MemorySystem {
    /// [`last_maintenance_seq`] over this system's store and journal.
    ///
    /// # Errors
    /// As [`last_maintenance_seq`].
    pub fn last_maintenance_seq(&self, args: &LastMaintenanceSeq) -> Result<i64> {
        last_maintenance_seq(self.store().as_ref(), self.journal().as_ref(), args)
    }

    /// `maintenance_due(..., tasks=system.tasks)`: [`maintenance_due`], with
    /// `tasks` the live night-only and ripple tasks of the pairs counted.
    ///
    /// # Errors
    /// As [`maintenance_due`]; `tasks: true` on a system without a task
    /// queue is `InvalidInput`.
    pub fn maintenance_due(&self, args: &MaintenanceDue) -> Result<Cadence> {
        let pairs = sleep_pairs("maintenance_due", &args.scopes)?;
        let pending = if args.tasks {
            Some(self.pending_night_tasks(&pairs)?)
        } else {
            None
        };
        let (store, journal) = (self.store().as_ref(), self.journal().as_ref());
        if let Some(s) = args.since_seq {
            am_journal::journal::check_anchor("since_seq", Some(s), journal.current_seq()?)?;
        }
        let cursors = self.faculty_state.cache::<super::due_cursor::DueCursors>();
        let mut cursors = cursors.lock();
        if let Some((counts, formations)) = cursors.check(store, journal, &pairs)? {
            let anchor = args.since_seq.unwrap_or(counts.artifact_seq);
            return Ok(decide(
                args,
                anchor,
                formations.after(anchor),
                counts.duplicate_groups,
                counts.isolated,
                pending,
            ));
        }
        drop(cursors);
        let whole = maintenance_due(
            store,
            journal,
            &MaintenanceDue {
                tasks: false,
                ..args.clone()
            },
        )?;
        Ok(decide(
            args,
            whole.since_seq,
            whole.new_records,
            whole.duplicate_groups,
            whole.isolated,
            pending,
        ))
    }

    fn pending_night_tasks(&self, pairs: &[(String, String)]) -> Result<u64> {
        let queue = self.tasks()?;
        let mut n = 0usize;
        for kind in NIGHT_TASK_KINDS {
            n += queue
                .tasks(&ListTasks {
                    kind: Some(kind),
                    ..ListTasks::default()
                })?
                .iter()
                .filter(|t| t.status.is_live())
                .filter(|t| {
                    pairs
                        .iter()
                        .any(|(s, o)| *s == t.scope && (o.is_empty() || *o == t.owner_id))
                })
                .count();
        }
        Ok(count(n))
    }

    /// `records_since_maintenance(system, *, scopes=None, after=None)`: how
    /// much the home lived since its last completed night (see the module
    /// doc). A pure read.
    ///
    /// # Errors
    /// `InvalidInput` for an empty pair list or a blank scope (an
    /// unparseable `after` is refused where the arguments are read); the
    /// store's, journal's or queue's failure.
    pub fn records_since_maintenance(
        &self,
        args: &RecordsSinceMaintenance,
    ) -> Result<SinceMaintenance> {
        let pairs = args
            .scopes
            .as_deref()
            .map(|s| sleep_pairs("records_since_maintenance", s))
            .transpose()?;
        let last = if self.has_task_queue() {
            self.tasks()?.last_maintenance(&LastMaintenance {
                scopes: pairs.clone(),
                ..LastMaintenance::default()
            })?
        } else {
            None
        };
        let last_at = last
            .as_ref()
            .map(|r| Timestamp::parse(&r.completed_at))
            .transpose()?;
        let (boundary, source) = match (last_at, args.after) {
            (Some(m), Some(a)) if a > m => (Some(a), BoundarySource::After),
            (Some(m), _) => (Some(m), BoundarySource::Memory),
            (None, Some(a)) => (Some(a), BoundarySource::After),
            (None, None) => (None, BoundarySource::Birth),
        };

        let store = self.store().as_ref();
        let rows = match &pairs {
            Some(pairs) => {
                let mut rows = Vec::new();
                for (scope, owner) in pairs {
                    rows.extend(pair_rows(store, scope, owner)?);
                }
                rows
            }
            None => store.query(&am_triples::TripleQuery {
                limit: 0,
                ..am_triples::TripleQuery::default()
            })?,
        };
        let closed: HashSet<String> = self
            .journal()
            .closures(&ClosureFilter {
                limit: 0,
                ..ClosureFilter::default()
            })?
            .into_iter()
            .map(|c| c.assertion_id)
            .collect();
        // Formation edges by source record: what each record's edges name.
        let mut edges_of: HashMap<&str, Vec<&str>> = HashMap::new();
        for a in &rows {
            if DigestRow::of(a).is_edge() {
                edges_of.entry(&a.subject).or_default().push(&a.object);
            }
        }
        let mut formed = 0u64;
        let mut oldest: Option<Timestamp> = None;
        let mut live_ids: HashSet<&str> = HashSet::new();
        let mut digests = Vec::new();
        for a in &rows {
            let row = DigestRow::of(a);
            if row.is_edge() || row.kind_text().is_none() || row.flag("bookkeeping") {
                continue;
            }
            let Ok(at) = Timestamp::parse(&a.observed_at) else {
                continue;
            };
            if boundary.is_none_or(|b| at > b) {
                formed += 1;
            }
            oldest = Some(oldest.map_or(at, |o| o.min(at)));
            let aid = a.assertion_id.as_deref().unwrap_or_default();
            if !closed.contains(aid) && !closed.contains(&a.subject) {
                live_ids.insert(&a.subject);
                digests.push(a);
            }
        }
        // A record whose every formation edge names a closed record.
        let closed_subjects: HashSet<&str> = rows
            .iter()
            .filter(|a| {
                let aid = a.assertion_id.as_deref().unwrap_or_default();
                !DigestRow::of(a).is_edge() && (closed.contains(aid) || closed.contains(&a.subject))
            })
            .map(|a| a.subject.as_str())
            .collect();
        let unplaceable = |rid: &str| {
            edges_of.get(rid).is_some_and(|targets| {
                !targets.is_empty()
                    && targets
                        .iter()
                        .all(|t| closed_subjects.contains(t) && !live_ids.contains(t))
            })
        };
        // Provisional placements: the records the `placed` events above the
        // night name (graph id or digest assertion id), in the pairs read.
        let night_seq = last.as_ref().map_or(0, |r| r.seq);
        let event_pairs: Vec<(String, String)> = match &pairs {
            Some(p) => p.clone(),
            None => {
                let mut p: Vec<(String, String)> = rows
                    .iter()
                    .map(|a| (a.scope.clone(), a.owner_id.clone().unwrap_or_default()))
                    .collect();
                p.sort();
                p.dedup();
                p
            }
        };
        let mut subject_of: HashMap<&str, &str> = HashMap::new();
        for a in &rows {
            if let Some(aid) = a.assertion_id.as_deref()
                && !DigestRow::of(a).is_edge()
            {
                subject_of.insert(aid, &a.subject);
            }
        }
        let mut placed: HashSet<String> = HashSet::new();
        for (scope, owner) in &event_pairs {
            let filter = am_journal::EventFilter {
                kinds: vec![am_journal::EventKind::Placed.as_str().to_owned()],
                since_seq: Some(night_seq),
                limit: 0,
                ..am_journal::EventFilter::new(scope, owner)
            };
            for e in self.journal().events(&filter)? {
                if e.seq <= night_seq {
                    continue;
                }
                if let Some(rid) = e.record_id {
                    let rid = subject_of
                        .get(rid.as_str())
                        .map_or(rid.clone(), |s| (*s).to_owned());
                    placed.insert(rid);
                }
            }
        }
        let (mut unvectored, mut pending, mut fragmented) = (0u64, 0u64, 0u64);
        for a in &digests {
            let aid = a.assertion_id.as_deref().unwrap_or_default();
            let no_vector =
                store.stored_vector(aid)?.is_none_or(|v| v.is_empty()) && !unplaceable(&a.subject);
            let is_pending = !DigestRow::of(a).pending().is_empty();
            unvectored += u64::from(no_vector);
            pending += u64::from(is_pending);
            fragmented += u64::from(no_vector || is_pending || placed.contains(&a.subject));
        }
        let provisional = count(placed.len());
        let live = count(digests.len());
        #[allow(clippy::cast_precision_loss)] // counts far below 2^52
        let share = if live == 0 {
            0.0
        } else {
            fragmented as f64 / live as f64
        };
        let since = match source {
            BoundarySource::Birth => oldest.map(Timestamp::canonical),
            _ => boundary.map(Timestamp::canonical),
        };
        Ok(SinceMaintenance {
            count: formed,
            last_maintenance_at: last.map(|r| r.completed_at),
            since,
            boundary_source: source,
            fragmented: Some(Fragmented {
                count: fragmented,
                share,
                provisional,
                unvectored,
                pending,
            }),
        })
    }
}
