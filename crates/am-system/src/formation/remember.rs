//! `MemorySystem::remember_many` and `remember`: the formation plan applied
//! in one home transaction, with the tasks a pending field owes.
//!
//! Spec: api.md "Formation (typed records)"; algorithms.md §9.

use crate::error::{Error, Result};
use crate::formation::args::{Remember, RememberMany};
use crate::formation::build_formation_plan;
use crate::outcome::Warned;
use crate::system::MemorySystem;
use am_triples::TripleQuery;

/// Further queue writes a pass makes inside formation's transaction
/// ([`MemorySystem::form_batches_then`]).
pub(crate) type TasksHook<'a> = &'a mut dyn FnMut(&mut dyn am_journal::TasksTx) -> Result<()>;

/// Further writes a verb makes inside formation's transaction, with the
/// whole transaction in hand (the home's tables and its queue:
/// [`MemorySystem::form_batches_in`]).
pub(crate) type TxHook<'a> = &'a mut dyn FnMut(&mut dyn am_journal::HomeTx) -> Result<()>;

impl MemorySystem {
    // -- formation ----------------------------------------------------------------

    /// Form typed records (`remember_many`). Ids derive from
    /// `(idempotency_key, position)`, so a replay writes nothing new and returns
    /// the same graph ids. A supplied key already used for DIFFERENT content
    /// (another title or digest at a position) keeps the stored record
    /// too, and raises a `#FALLBACK` warning naming the key and both versions
    /// ([`crate::formation::key_reuse_warnings`], among the result's
    /// warnings): the new content was not formed. Each record gets one
    /// formation binding (`indexed` /
    /// `inactive` / `inactive_candidate`, source `remember`). Forming deposits
    /// no attention event. Edges may name batch siblings as `local:<i>`.
    /// Returns the graph ids (`ex:{kind}-…`) in input order, with the formation
    /// notes and what the write raised (a vectorless row, a first-write pin)
    /// as its [`Warned::warnings`].
    ///
    /// # Errors
    /// `InvalidInput` for a key whose stored record at some position belongs
    /// to another (scope, owner) or is of another kind
    /// ([`crate::formation::key_owner_conflict`]), for any refused record (see
    /// [`MemoryRecordInput::validated`](crate::MemoryRecordInput::validated)), an empty key, scope or batch, a bad
    /// `local:` target, or a `pending` field on a home without a task queue
    /// (a pending title or summary is stored only beside its authoring task).
    /// On a home with a task queue the records' `attributes.pending` markers
    /// and the tasks they owe (a pending field's `title.author` /
    /// `digest.author`, a `MECHANICAL_DIGEST_METHODS` record's
    /// `digest.rewrite`, a summary's waiting on what it summarizes) commit in
    /// the same transaction (`tasks.form_with_tasks`); a failed queue write
    /// leaves no record behind.
    /// Nothing is written on any refusal. The store's or journal's failure.
    pub fn remember_many(&self, args: &RememberMany) -> Result<Warned<Vec<String>>> {
        let Warned { value, warnings } = self.form_batches(std::slice::from_ref(args), &[])?;
        Ok(Warned::new(
            value.into_iter().next().unwrap_or_default(),
            warnings,
        ))
    }

    /// `remember_many` of several batches (each under its own key) and the
    /// `closures` that go with them (a sleep pass's supersedes of what its
    /// new records replace), all in ONE home transaction: every batch is
    /// planned and checked first (a refusal of any writes nothing), then the
    /// rows, their formation bindings, the closures and the tasks the records
    /// owe commit together. The commit point is formation's
    /// (`tasks.form_with_tasks` when a task is owed, else `store.add`), or
    /// `journal` for closures alone. Returns each batch's graph ids.
    ///
    /// # Errors
    /// As [`MemorySystem::remember_many`] for any batch; `InvalidInput` for
    /// an invalid closure. Nothing is written on any refusal.
    pub(crate) fn form_batches(
        &self,
        batches: &[RememberMany],
        closures: &[am_journal::ClosureRecord],
    ) -> Result<Warned<Vec<Vec<String>>>> {
        self.form_batches_queueing(batches, closures, &[])
    }

    /// [`MemorySystem::form_batches`] with further tasks a pass owes beside
    /// what the records owe (a formed dream's `dream.narrate`), queued in
    /// the same transaction (on a home with its queue; none without).
    ///
    /// # Errors
    /// As [`MemorySystem::form_batches`].
    pub(crate) fn form_batches_queueing(
        &self,
        batches: &[RememberMany],
        closures: &[am_journal::ClosureRecord],
        extra: &[crate::tasks::PlannedEnqueue],
    ) -> Result<Warned<Vec<Vec<String>>>> {
        self.form_batches_then(batches, closures, extra, None)
    }

    /// [`MemorySystem::form_batches_queueing`] with `then`, further queue
    /// writes a pass makes in the same transaction after the records' tasks
    /// (a communities pass supersedes the tasks of the versions it closes
    /// and moves its standing topics' tasks up); skipped on a home without
    /// its queue.
    ///
    /// # Errors
    /// As [`MemorySystem::form_batches`], and `then`'s failure (nothing of
    /// the transaction lands).
    pub(crate) fn form_batches_then(
        &self,
        batches: &[RememberMany],
        closures: &[am_journal::ClosureRecord],
        extra: &[crate::tasks::PlannedEnqueue],
        then: Option<TasksHook<'_>>,
    ) -> Result<Warned<Vec<Vec<String>>>> {
        match then {
            Some(f) => {
                let mut whole = |tx: &mut dyn am_journal::HomeTx| f(tx.tasks()?);
                self.form_batches_in(batches, closures, extra, Some(&mut whole))
            }
            None => self.form_batches_in(batches, closures, extra, None),
        }
    }

    /// [`MemorySystem::form_batches_then`] with `then` given the whole
    /// transaction (a ripple's consolidation writes its ripple row and
    /// completes its task beside the record); skipped on a home without
    /// its queue.
    ///
    /// # Errors
    /// As [`MemorySystem::form_batches`], and `then`'s failure (nothing of
    /// the transaction lands).
    pub(crate) fn form_batches_in(
        &self,
        batches: &[RememberMany],
        closures: &[am_journal::ClosureRecord],
        extra: &[crate::tasks::PlannedEnqueue],
        mut then: Option<TxHook<'_>>,
    ) -> Result<Warned<Vec<Vec<String>>>> {
        let clock = self.clock.clone();
        let queued = self.home.has_task_queue();
        let mut now: Option<String> = None;
        let mut assertions = Vec::new();
        let mut bindings = Vec::new();
        let mut owed = Vec::new();
        let mut ids = Vec::with_capacity(batches.len());
        let mut warnings = Vec::new();
        for args in batches {
            let RememberMany {
                records,
                scope,
                owner_id,
                idempotency_key,
                turn_id,
            } = args;
            let plan = build_formation_plan(
                records,
                scope,
                owner_id,
                idempotency_key,
                turn_id.as_deref(),
                &*clock,
            )?;
            if !queued
                && let Some((i, r)) = records
                    .iter()
                    .enumerate()
                    .find(|(_, r)| r.pending.iter().any(|f| !f.trim().is_empty()))
            {
                return Err(Error::invalid(format!(
                    "record {i} forms with pending={:?}, but a pending title or summary is stored only beside its \
                     authoring task: open the home with MemorySystem(task_queue=True)",
                    r.pending
                )));
            }
            // The tasks the records owe (a pending field's authoring, a
            // mechanical digest's rewrite), queued in the same transaction.
            if queued {
                let now = now.get_or_insert_with(|| clock().canonical());
                owed.extend(crate::formation::owed::owed_tasks(&plan, now));
            }
            // A supplied key already used for different content: the stored
            // records are kept (replays are no-ops), and the caller is told.
            let digest_ids: Vec<String> = plan
                .assertions
                .iter()
                .filter(|a| a.predicate == crate::kinds::DIGEST_PREDICATE)
                .filter_map(|a| a.assertion_id.clone())
                .collect();
            let stored = self.store.query(&TripleQuery {
                assertion_ids: Some(digest_ids),
                limit: 0,
                ..TripleQuery::default()
            })?;
            // A key already used by another pair or kind is refused: its ids are
            // not this caller's to answer with.
            crate::formation::key_owner_conflict(&plan, idempotency_key, &stored)?;
            let reuse = crate::formation::key_reuse_warnings(&plan, idempotency_key, &stored);
            warnings.extend(plan.warnings);
            warnings.extend(reuse);
            assertions.extend(plan.assertions);
            bindings.extend(plan.bindings);
            ids.push(plan.record_ids);
        }
        let closures = closures
            .iter()
            .map(am_journal::ClosureRecord::normalized)
            .collect::<Result<Vec<_>>>()?;
        let extra: &[crate::tasks::PlannedEnqueue] = if queued { extra } else { &[] };
        if !queued {
            then = None;
        }
        let point = if !owed.is_empty() || !extra.is_empty() || then.is_some() {
            am_triples::CommitPoint::TasksFormWithTasks
        } else if assertions.is_empty() {
            am_triples::CommitPoint::Journal
        } else {
            am_triples::CommitPoint::StoreAdd
        };
        // The rows and the formation bindings commit through the home: ONE
        // transaction on a SQLite home (rows already stored are skipped and
        // not embedded again); any other pair adds the rows not stored yet,
        // then appends the bindings and the closures (`PairHome`'s rules: ids
        // are deterministic, so a replay after a failure between the two
        // appends nothing twice).
        let rows = self.home.prepare_rows(&assertions)?;
        // Placement at formation: each record's provisional community, its
        // `placed` event in the records' own transaction (a home with its
        // queue and a communities version only; never a failure).
        let placed = match (&now, queued) {
            (Some(now), true) => self.plan_placements(&assertions, &rows, now),
            _ => Vec::new(),
        };
        let written = self.home.transaction(point, &mut |tx| {
            if !assertions.is_empty() {
                tx.store().add(&rows)?;
                tx.journal().append_bindings(&bindings)?;
            }
            if !closures.is_empty() {
                tx.journal().append_closures(&closures)?;
            }
            if !placed.is_empty() {
                tx.journal().append_events(&placed)?;
            }
            if !owed.is_empty() {
                crate::formation::owed::enqueue_owed(tx.tasks()?, &owed)?;
            }
            for plan in extra {
                crate::tasks::enqueue_in(tx.tasks()?, plan)?;
            }
            if let Some(f) = then.as_mut() {
                f(tx)?;
            }
            Ok(())
        })?;
        if !placed.is_empty() {
            let row_ids: Vec<String> = assertions
                .iter()
                .filter_map(|a| a.assertion_id.clone())
                .collect();
            crate::hooks::placement().committed(self, &placed, &row_ids);
        }
        // The formation notes, a supplied key reused for other content, then
        // what the write itself raised (a vectorless row, the pin recorded at
        // the first embedded write).
        warnings.extend(written);
        Ok(Warned::new(ids, warnings))
    }

    /// The `placed` events of the records `assertions` form (the installed
    /// [`crate::hooks::Placement`]): none before the pairs' first version, for
    /// a community record, or when anything fails (formation never fails for
    /// placement).
    fn plan_placements(
        &self,
        assertions: &[am_triples::TripleAssertion],
        rows: &am_journal::PreparedBatch,
        now: &str,
    ) -> Vec<am_journal::MemoryEvent> {
        use crate::record::DigestRow;
        let digests: Vec<&am_triples::TripleAssertion> = assertions
            .iter()
            .filter(|a| {
                let v = DigestRow::of(a);
                a.predicate == crate::kinds::DIGEST_PREDICATE
                    && !v.is_edge()
                    && !v.flag("bookkeeping")
                    && v.kind_text().is_some()
                    && v.kind_trimmed() != Some(crate::kinds::RecordKind::Community)
            })
            .collect();
        if digests.is_empty() {
            return Vec::new();
        }
        let pair_of = |a: &am_triples::TripleAssertion| {
            (a.scope.clone(), a.owner_id.clone().unwrap_or_default())
        };
        let mut pairs: Vec<(String, String)> = digests.iter().map(|a| pair_of(a)).collect();
        pairs.sort();
        pairs.dedup();
        let hook = crate::hooks::placement();
        if !hook.active(self, &pairs).unwrap_or(false) {
            return Vec::new();
        }
        // The vectors the rows will be stored with: the home's, computed while
        // preparing, or the store's preview (a home that embeds at write time).
        let preview = if rows.knows_vectors() {
            None
        } else {
            let owned: Vec<am_triples::TripleAssertion> =
                digests.iter().map(|a| (*a).clone()).collect();
            self.store.preview_vectors(&owned).ok().flatten()
        };
        let formed: Vec<crate::hooks::Formed> = digests
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let aid = a.assertion_id.as_deref().unwrap_or_default();
                let vector = match &preview {
                    Some(p) => p.get(i).cloned().flatten(),
                    None => rows.vector(aid).map(<[f32]>::to_vec),
                };
                let neighbours = assertions
                    .iter()
                    .filter(|e| {
                        e.subject == a.subject
                            && e.predicate != "written_amid"
                            && DigestRow::of(e).is_edge()
                    })
                    .map(|e| e.object.clone())
                    .collect();
                crate::hooks::Formed {
                    record_id: a.subject.clone(),
                    pair: pair_of(a),
                    vector,
                    neighbours,
                }
            })
            .collect();
        hook.plan(self, &formed, now).unwrap_or_default()
    }

    /// Form one record: `remember_many` of one, same idempotency.
    ///
    /// # Errors
    /// As [`MemorySystem::remember_many`].
    pub fn remember(&self, args: &Remember) -> Result<Warned<String>> {
        let Warned { value, warnings } = self.remember_many(&RememberMany {
            records: vec![args.record.clone()],
            scope: args.scope.clone(),
            owner_id: args.owner_id.clone(),
            idempotency_key: args.idempotency_key.clone(),
            turn_id: args.turn_id.clone(),
        })?;
        Ok(Warned::new(
            value.into_iter().next().unwrap_or_default(),
            warnings,
        ))
    }
}
