//! The `journal` group: every contract sentence of the `MemoryJournal` trait (one
//! seq axis, idempotent appends by supplied id, all-or-nothing batches and
//! refusals that append nothing, record validation, readers with filters, seq
//! bounds and limits, the binding fold, the never-decaying counters, the replay
//! merge, invalid anchors, `seq_at`).
//!
//! Spec: api.md "The journal" and "Seam types"; architecture.md "The journal is the
//! time axis"; algorithms.md §5 (event weights), §8 (valence), §9 (timestamps).

use crate::check;
use crate::harness::{Check, CheckResult, ensure, ensure_eq};
use am_journal::{
    ActiveMemorySnapshot, BindingFilter, ClosureFilter, ClosureKind, ClosureRecord, EventFilter,
    EventKind, MemoryEvent, MemoryJournal, ReconstructionTrace, ScopeBinding, TraceFilter,
    UnderstandingVersion, ValenceEvent, ValenceFilter, ValenceKind, VersionFilter,
    understanding_version_id,
};
use am_journal::{BindingSource, Lifecycle, PromptState, SearchState};
use am_triples::ErrorKind;
use libtest_mimic::{Arguments, Trial};
use serde_json::{Value, json};
use std::any::Any;
use std::sync::Arc;

/// A journal opened for one check, with whatever must outlive it (a temporary home).
pub struct OpenJournal {
    /// The journal under test.
    pub journal: Box<dyn MemoryJournal>,
    /// Dropped after the journal (a `tempfile::TempDir`, or `()`).
    pub guard: Box<dyn Any + Send>,
}

impl std::ops::Deref for OpenJournal {
    type Target = dyn MemoryJournal;
    fn deref(&self) -> &Self::Target {
        &*self.journal
    }
}

/// Opens fresh, isolated journals for the `journal` group.
///
/// # Contract
/// Every call returns a new, empty journal that shares nothing with journals opened
/// before (a new temporary home for a persistent backend).
pub trait JournalFactory: Send + Sync {
    /// A fresh empty journal.
    ///
    /// # Errors
    /// Whatever the backend reports when it cannot open one.
    fn open(&self) -> am_journal::Result<OpenJournal>;
}

/// The `journal` trials for one backend.
pub fn run_all(backend: &str, factory: Arc<dyn JournalFactory>) -> Vec<Trial> {
    crate::harness::trials(backend, "journal", &checks(), &factory, None)
}

/// Run the `journal` group for `backend` as a libtest-mimic test binary.
pub fn main_for(backend: &str, factory: impl JournalFactory + 'static) -> ! {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, run_all(backend, Arc::new(factory))).exit()
}

/// Every check of the group.
pub fn checks() -> Vec<Check<dyn JournalFactory>> {
    vec![
        check!(empty_journal_is_at_seq_zero_and_first_record_gets_one),
        check!(every_family_shares_one_monotonic_seq_axis),
        check!(replayed_appends_do_not_consume_seq),
        check!(supplied_event_id_replay_returns_the_original),
        check!(supplied_binding_id_replay_returns_the_original),
        check!(append_bindings_is_ordered_idempotent_and_all_or_nothing),
        check!(append_recall_appends_the_trace_then_its_listed_events_all_or_nothing),
        check!(supplied_closure_id_replay_returns_the_original),
        check!(append_closures_is_ordered_idempotent_and_all_or_nothing),
        check!(supplied_trace_id_replay_returns_the_original),
        check!(supplied_snapshot_id_replay_returns_the_original),
        check!(supplied_valence_event_id_replay_returns_the_original),
        check!(version_id_is_deterministic_and_replay_returns_the_original),
        check!(in_batch_duplicate_ids_resolve_to_the_first),
        check!(blank_ids_are_assigned_and_unique),
        check!(batch_append_is_all_or_nothing),
        check!(closure_without_reason_is_invalid_input_and_appends_nothing),
        check!(supersede_without_replacements_is_invalid_input_and_appends_nothing),
        check!(merged_without_replacements_is_invalid_input_and_appends_nothing),
        check!(reinterpreted_and_retract_need_no_replacements),
        check!(deliberate_acts_and_refocus_require_a_reason),
        check!(event_weights_are_normalised_at_write_time),
        check!(non_finite_weight_and_non_positive_ttl_are_invalid_input),
        check!(co_selected_pair_is_sorted_distinct_and_recordless),
        check!(refocus_carries_no_record_and_other_kinds_need_one),
        check!(event_scope_is_required_and_lowercased),
        check!(observed_at_is_canonical_utc_and_bad_timestamps_are_refused),
        check!(hidden_implies_inactive_and_a_binding_keeps_its_states),
        check!(valence_events_are_validated),
        check!(understanding_versions_are_validated),
        check!(events_read_newest_first_within_one_scope_owner_stream),
        check!(events_filter_by_record_kinds_and_inclusive_seq_bounds),
        check!(events_limit_defaults_to_512_and_zero_is_unbounded),
        check!(events_unknown_kind_filter_and_blank_scope_are_invalid_input),
        check!(co_selected_events_never_match_a_record_filter),
        check!(bindings_fold_latest_wins_per_record_scope_owner),
        check!(bindings_fold_as_of_a_seq),
        check!(unfolded_bindings_read_oldest_first),
        check!(closures_filter_by_assertion_newest_first),
        check!(traces_and_snapshots_filter_by_trace_id_newest_first),
        check!(valence_events_filter_by_target_newest_first),
        check!(versions_read_oldest_first_by_record_field_and_anchor),
        check!(replay_records_merge_six_families_in_seq_order),
        check!(replay_times_are_the_replay_stream_s_families_and_times),
        check!(revision_records_carry_versions_only),
        check!(selected_count_counts_selected_only_and_never_decays),
        check!(selected_count_as_of_a_seq),
        check!(pair_selected_count_is_order_insensitive_and_anchored),
        check!(anchor_beyond_high_water_is_invalid_input_naming_it),
        check!(negative_anchor_is_invalid_input),
        check!(seq_at_is_the_latest_fold_record_at_or_before_the_time),
        check!(seq_at_with_a_bad_timestamp_is_invalid_input),
        check!(take_warnings_drains),
        check!(concurrent_appends_get_distinct_gap_free_seqs),
    ]
}

// ---- helpers ----------------------------------------------------------------

const S: &str = "session";
const O: &str = "s1";

fn open(f: &dyn JournalFactory) -> Result<OpenJournal, String> {
    f.open()
        .map_err(|e| format!("opening a journal failed: {e}"))
}

fn ok<T>(what: &str, r: am_journal::Result<T>) -> Result<T, String> {
    r.map_err(|e| format!("{what}: unexpected {} error: {e}", e.kind()))
}

fn expect_invalid<T: std::fmt::Debug>(
    what: &str,
    r: am_journal::Result<T>,
) -> Result<String, String> {
    match r {
        Ok(v) => Err(format!(
            "{what}: expected an InvalidInput error, got Ok({v:?})"
        )),
        Err(e) if e.kind() == ErrorKind::InvalidInput => Ok(e.to_string()),
        Err(e) => Err(format!(
            "{what}: expected InvalidInput, got {} ({e})",
            e.kind()
        )),
    }
}

/// Everything a journal holds, to prove a refusal wrote nothing.
fn state(j: &dyn MemoryJournal) -> Result<(i64, Value), String> {
    let seq = ok("current_seq", j.current_seq())?;
    let records = ok("replay_records", j.replay_records(0, None))?;
    let versions = ok("revision_records", j.revision_records(0, None))?;
    Ok((seq, json!({"records": records, "versions": versions})))
}

fn refused_unchanged<T: std::fmt::Debug>(
    j: &dyn MemoryJournal,
    what: &str,
    op: impl FnOnce() -> am_journal::Result<T>,
) -> CheckResult {
    let before = state(j)?;
    expect_invalid(what, op())?;
    ensure(state(j)? == before, || {
        format!("{what}: the refused append changed the journal")
    })
}

fn sel(rid: &str) -> MemoryEvent {
    MemoryEvent::on_record(EventKind::Selected, rid, S, O)
}

fn append(j: &dyn MemoryJournal, events: &[MemoryEvent]) -> Result<Vec<MemoryEvent>, String> {
    ok("append_events", j.append_events(events))
}

fn version(field: &str, n: i64, text: &str) -> UnderstandingVersion {
    UnderstandingVersion::new(
        "ex:memory-1",
        "a1",
        field,
        n,
        Some(text),
        ("operator", "op"),
        "operator",
    )
}

fn seqs<T>(items: &[T], seq: impl Fn(&T) -> i64) -> Vec<i64> {
    items.iter().map(seq).collect()
}

fn all_events(j: &dyn MemoryJournal, f: EventFilter) -> Result<Vec<MemoryEvent>, String> {
    ok("events", j.events(&f))
}

// ---- the seq axis -----------------------------------------------------------

/// An empty journal is at seq 0; the first record gets seq 1.
pub fn empty_journal_is_at_seq_zero_and_first_record_gets_one(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    ensure_eq(
        "current_seq of an empty journal",
        ok("current_seq", j.current_seq())?,
        0,
    )?;
    let e = append(&*j, &[sel("r1")])?;
    ensure_eq("first seq", e[0].seq, 1)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// Every append gets the next seq of ONE axis shared by all seven families.
pub fn every_family_shares_one_monotonic_seq_axis(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let got = vec![
        append(&*j, &[sel("r1")])?[0].seq,
        ok(
            "binding",
            j.append_binding(&ScopeBinding::new("r1", S, O, SearchState::Indexed)),
        )?
        .seq,
        ok(
            "closure",
            j.append_closure(&ClosureRecord::new("a1", ClosureKind::Retract, "wrong")),
        )?
        .seq,
        ok("trace", j.append_trace(&ReconstructionTrace::new("", "fp")))?.seq,
        ok(
            "snapshot",
            j.append_snapshot(&ActiveMemorySnapshot::new("", "t1", &["r1"])),
        )?
        .seq,
        ok(
            "valence",
            j.append_valence(&[ValenceEvent::appraisal("r1", 1, 2.0, "good", S, O)]),
        )?[0]
            .seq,
        ok("version", j.append_version(&version("digest", 0, "words")))?.seq,
        append(&*j, &[sel("r2"), sel("r3")])?[1].seq,
    ];
    ensure_eq("seqs across families", got, vec![1, 2, 3, 4, 5, 6, 7, 9])?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 9)
}

/// A replayed append consumes no seq: the axis stays gap-free for inserted records.
pub fn replayed_appends_do_not_consume_seq(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    append(&*j, &[sel("r1").with_event_id("e1")])?;
    append(&*j, &[sel("r1").with_event_id("e1")])?;
    let e = append(&*j, &[sel("r2")])?;
    ensure_eq("seq after a replay", e[0].seq, 2)
}

/// A supplied `event_id` makes a repeated append a no-op returning the ORIGINAL
/// record (original seq and payload; the selected count untouched).
pub fn supplied_event_id_replay_returns_the_original(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let first = append(
        &*j,
        &[sel("r1")
            .with_event_id("e1")
            .with_observed_at("2026-01-01T00:00:00Z")],
    )?;
    let replay = append(
        &*j,
        &[sel("r2")
            .with_event_id("e1")
            .with_observed_at("2026-02-01T00:00:00Z")],
    )?;
    ensure_eq("replayed event", &replay[0], &first[0])?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)?;
    ensure_eq(
        "selected_count(r1)",
        ok("count", j.selected_count("r1", None))?,
        1,
    )?;
    ensure_eq(
        "selected_count(r2)",
        ok("count", j.selected_count("r2", None))?,
        0,
    )
}

/// A supplied `binding_id` makes a repeated append a no-op returning the original.
pub fn supplied_binding_id_replay_returns_the_original(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let first = ok(
        "bind",
        j.append_binding(
            &ScopeBinding::new("r1", S, O, SearchState::Indexed).with_binding_id("b1"),
        ),
    )?;
    let replay = ok(
        "bind",
        j.append_binding(&ScopeBinding::new("r1", S, O, SearchState::Hidden).with_binding_id("b1")),
    )?;
    ensure_eq("replayed binding", replay, first)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// `append_bindings` appends a batch in order on the seq axis, returns a supplied
/// id already appended as the original record, and refuses a batch holding one
/// invalid binding without appending any of it.
pub fn append_bindings_is_ordered_idempotent_and_all_or_nothing(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let batch = [
        ScopeBinding::new("r1", S, O, SearchState::Indexed).with_binding_id("b1"),
        ScopeBinding::new("r2", S, O, SearchState::Hidden).with_binding_id("b2"),
    ];
    let first = ok("append_bindings", j.append_bindings(&batch))?;
    ensure_eq(
        "seqs",
        first.iter().map(|b| b.seq).collect::<Vec<_>>(),
        vec![1, 2],
    )?;
    let replay = ok(
        "append_bindings",
        j.append_bindings(&[
            ScopeBinding::new("r1", S, O, SearchState::Hidden).with_binding_id("b1"),
            ScopeBinding::new("r3", S, O, SearchState::Indexed).with_binding_id("b3"),
        ]),
    )?;
    ensure_eq("replayed binding", replay[0].clone(), first[0].clone())?;
    ensure_eq("new binding seq", replay[1].seq, 3)?;
    let mut bad = ScopeBinding::new("r4", S, O, SearchState::Indexed).with_binding_id("b4");
    bad.search_state = SearchState::Hidden;
    bad.prompt_state = PromptState::Active;
    refused_unchanged(&*j, "a batch with one invalid binding", || {
        j.append_bindings(&[
            ScopeBinding::new("r5", S, O, SearchState::Indexed).with_binding_id("b5"),
            bad,
        ])
    })
}

/// `append_recall` (a journaled `reconstruct`'s records) appends the trace, then
/// its `listed` events on the next seqs; a replay with the same supplied ids
/// returns the originals and appends nothing; a recall holding one invalid
/// event (or an invalid trace) is refused whole: nothing of it is appended.
pub fn append_recall_appends_the_trace_then_its_listed_events_all_or_nothing(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let listed = |rid: &str, id: &str| {
        let mut e = MemoryEvent::on_record(EventKind::Listed, rid, S, O).with_event_id(id);
        e.trace_id = Some("t1".into());
        e
    };
    let trace = ReconstructionTrace::new("t1", "fp-1");
    let (stored, events) = ok(
        "append_recall",
        j.append_recall(&trace, &[listed("r1", "l1"), listed("r2", "l2")]),
    )?;
    ensure_eq("trace seq", stored.seq, 1)?;
    ensure_eq("listed seqs", seqs(&events, |e| e.seq), vec![2, 3])?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 3)?;
    let (replayed, again) = ok(
        "append_recall",
        j.append_recall(&trace, &[listed("r1", "l1"), listed("r2", "l2")]),
    )?;
    ensure_eq("replayed trace", replayed, stored)?;
    ensure_eq("replayed events", again, events)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 3)?;
    let (alone, none) = ok(
        "append_recall",
        j.append_recall(&ReconstructionTrace::new("t2", "fp-2"), &[]),
    )?;
    ensure_eq(
        "a trace without listed events",
        (alone.seq, none.len()),
        (4, 0),
    )?;
    refused_unchanged(&*j, "a recall with one invalid event", || {
        j.append_recall(
            &ReconstructionTrace::new("t3", "fp-3"),
            &[
                listed("r3", "l3"),
                // A pin without a reason.
                MemoryEvent::on_record(EventKind::Pinned, "r4", S, O),
            ],
        )
    })?;
    let mut bad_trace = ReconstructionTrace::new("t4", "fp-4");
    bad_trace.observed_at = "not a timestamp".into();
    refused_unchanged(&*j, "a recall whose trace is invalid", || {
        j.append_recall(&bad_trace, &[listed("r5", "l5")])
    })
}

/// A supplied `closure_id` makes a repeated append a no-op returning the original.
pub fn supplied_closure_id_replay_returns_the_original(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let first = ok(
        "close",
        j.append_closure(
            &ClosureRecord::new("a1", ClosureKind::Retract, "first").with_closure_id("c1"),
        ),
    )?;
    let replay = ok(
        "close",
        j.append_closure(
            &ClosureRecord::new("a2", ClosureKind::Retract, "second").with_closure_id("c1"),
        ),
    )?;
    ensure_eq("replayed closure", replay, first)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// `append_closures` appends a batch in order on the seq axis, returns a
/// supplied id already appended (or repeated earlier in the batch) as the
/// original record, and refuses a batch whose later closure is invalid
/// without appending any of it.
pub fn append_closures_is_ordered_idempotent_and_all_or_nothing(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let batch = [
        ClosureRecord::new("a1", ClosureKind::Retract, "wrong").with_closure_id("c1"),
        ClosureRecord::new("a2", ClosureKind::Supersede, "newer")
            .with_replacements(&["a3"])
            .with_closure_id("c2"),
        ClosureRecord::new("a4", ClosureKind::Retract, "again").with_closure_id("c1"),
    ];
    let first = ok("append_closures", j.append_closures(&batch))?;
    ensure_eq("seqs", seqs(&first, |c| c.seq), vec![1, 2, 1])?;
    ensure_eq("in-batch duplicate", first[2].clone(), first[0].clone())?;
    let replay = ok(
        "append_closures",
        j.append_closures(&[
            ClosureRecord::new("a2", ClosureKind::Retract, "replayed").with_closure_id("c2"),
            ClosureRecord::new("a5", ClosureKind::Retract, "new").with_closure_id("c5"),
        ]),
    )?;
    ensure_eq("replayed closure", replay[0].clone(), first[1].clone())?;
    ensure_eq("new closure seq", replay[1].seq, 3)?;
    refused_unchanged(&*j, "a batch whose later closure has no reason", || {
        j.append_closures(&[
            ClosureRecord::new("a6", ClosureKind::Retract, "fine").with_closure_id("c6"),
            ClosureRecord::new("a7", ClosureKind::Retract, "  ").with_closure_id("c7"),
        ])
    })
}

/// A supplied `trace_id` makes a repeated append a no-op returning the original (the first trace wins).
pub fn supplied_trace_id_replay_returns_the_original(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let first = ok(
        "trace",
        j.append_trace(&ReconstructionTrace::new("t1", "fp-1")),
    )?;
    let replay = ok(
        "trace",
        j.append_trace(&ReconstructionTrace::new("t1", "fp-2")),
    )?;
    ensure_eq("replayed trace", replay, first)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// A supplied `snapshot_id` makes a repeated append a no-op returning the original.
pub fn supplied_snapshot_id_replay_returns_the_original(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let first = ok(
        "snapshot",
        j.append_snapshot(&ActiveMemorySnapshot::new("s1", "t1", &["r1"])),
    )?;
    let replay = ok(
        "snapshot",
        j.append_snapshot(&ActiveMemorySnapshot::new("s1", "t1", &["r1", "r2"])),
    )?;
    ensure_eq("replayed snapshot", replay, first)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// A supplied valence `event_id` makes a repeated append a no-op returning the original.
pub fn supplied_valence_event_id_replay_returns_the_original(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let ev = ValenceEvent::appraisal("r1", 1, 2.0, "good", S, O).with_event_id("v1");
    let first = ok("valence", j.append_valence(std::slice::from_ref(&ev)))?;
    let other = ValenceEvent::appraisal("r1", -1, 5.0, "bad", S, O).with_event_id("v1");
    let replay = ok("valence", j.append_valence(&[other]))?;
    ensure_eq("replayed valence", replay, first)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// `version_id` is deterministic (`understanding_version_id(assertion_id, field,
/// version)`), so appending the same reading again returns the original.
pub fn version_id_is_deterministic_and_replay_returns_the_original(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let first = ok(
        "version",
        j.append_version(&version("digest", 1, "new words")),
    )?;
    ensure_eq(
        "version_id",
        first.version_id.clone(),
        understanding_version_id("a1", "digest", 1),
    )?;
    ensure_eq("version_id length", first.version_id.len(), 32)?;
    let replay = ok(
        "version",
        j.append_version(&version("digest", 1, "other words")),
    )?;
    ensure_eq("replayed version", replay, first)?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// In one batch, a repeated supplied id resolves to the first occurrence.
pub fn in_batch_duplicate_ids_resolve_to_the_first(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let out = append(
        &*j,
        &[sel("r1").with_event_id("e1"), sel("r2").with_event_id("e1")],
    )?;
    ensure_eq("second of the batch", &out[1], &out[0])?;
    ensure_eq("current_seq", ok("current_seq", j.current_seq())?, 1)
}

/// Blank ids are journal-assigned, unique, and never conflict.
pub fn blank_ids_are_assigned_and_unique(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let out = append(&*j, &[sel("r1"), sel("r1")])?;
    ensure(
        !out[0].event_id.is_empty() && out[0].event_id != out[1].event_id,
        || {
            format!(
                "expected two distinct assigned ids, got {:?} and {:?}",
                out[0].event_id, out[1].event_id
            )
        },
    )?;
    ensure_eq(
        "selected_count",
        ok("count", j.selected_count("r1", None))?,
        2,
    )
}

// ---- refusals ---------------------------------------------------------------

/// A batch with one invalid event is refused whole: nothing of it is appended.
pub fn batch_append_is_all_or_nothing(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    append(&*j, &[sel("r0")])?;
    refused_unchanged(&*j, "batch with an invalid event", || {
        j.append_events(&[
            sel("r1"),
            // A pin without a reason.
            MemoryEvent::on_record(EventKind::Pinned, "r2", S, O),
            sel("r3"),
        ])
    })?;
    refused_unchanged(&*j, "valence batch with an invalid event", || {
        j.append_valence(&[
            ValenceEvent::appraisal("r1", 1, 2.0, "good", S, O),
            ValenceEvent::appraisal("r1", 1, 20.0, "too much", S, O),
        ])
    })
}

/// A closure without a reason is `InvalidInput` and nothing is appended.
pub fn closure_without_reason_is_invalid_input_and_appends_nothing(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    refused_unchanged(&*j, "blank reason", || {
        j.append_closure(&ClosureRecord::new("a1", ClosureKind::Retract, "  "))
    })
}

/// A supersede without replacements is `InvalidInput` and nothing is appended.
pub fn supersede_without_replacements_is_invalid_input_and_appends_nothing(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    refused_unchanged(&*j, "supersede without replacements", || {
        j.append_closure(
            &ClosureRecord::new("a1", ClosureKind::Supersede, "newer").with_replacements(&[" "]),
        )
    })
}

/// A merged closure without replacements is `InvalidInput` and nothing is appended.
pub fn merged_without_replacements_is_invalid_input_and_appends_nothing(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    refused_unchanged(&*j, "merged without replacements", || {
        j.append_closure(&ClosureRecord::new("a1", ClosureKind::Merged, "duplicate"))
    })
}

/// `retract` and `reinterpreted` need no replacements; the assertion id is trimmed.
pub fn reinterpreted_and_retract_need_no_replacements(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let c = ok(
        "reinterpreted",
        j.append_closure(&ClosureRecord::new(
            " a1 ",
            ClosureKind::Reinterpreted,
            "read anew",
        )),
    )?;
    ensure_eq("kind", c.kind.as_str(), "reinterpreted")?;
    ensure_eq("assertion_id", c.assertion_id.as_str(), "a1")?;
    let m = ok(
        "merged",
        j.append_closure(
            &ClosureRecord::new("a2", ClosureKind::Merged, "dup").with_replacements(&["a3"]),
        ),
    )?;
    ensure_eq("replacement_ids", m.replacement_ids, vec!["a3".to_string()])?;
    ok(
        "retract",
        j.append_closure(&ClosureRecord::new("a4", ClosureKind::Retract, "wrong")),
    )
    .map(|_| ())
}

/// `pinned`, `silenced` and `refocus` require a non-empty reason.
pub fn deliberate_acts_and_refocus_require_a_reason(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    for kind in [EventKind::Pinned, EventKind::Silenced] {
        refused_unchanged(&*j, kind.as_str(), || {
            j.append_events(&[MemoryEvent::on_record(kind, "r1", S, O)])
        })?;
    }
    refused_unchanged(&*j, "refocus", || {
        j.append_events(&[MemoryEvent::refocus(" ", S, O)])
    })
}

/// Weights are normalised at write time (algorithms.md §5): pinned/silenced
/// `clamp(|w| or 8, 1, 25)`; selected 0 → 8; co_selected 0 → 4; audit kinds keep theirs.
pub fn event_weights_are_normalised_at_write_time(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let pin = |w: f64| {
        MemoryEvent::on_record(EventKind::Pinned, "r1", S, O)
            .with_reason("why")
            .with_weight(w)
    };
    let out = append(
        &*j,
        &[
            pin(0.0),
            pin(30.0),
            pin(-3.0),
            pin(0.5),
            MemoryEvent::on_record(EventKind::Silenced, "r1", S, O)
                .with_reason("why")
                .with_weight(-40.0),
            sel("r1"),
            sel("r1").with_weight(2.5),
            MemoryEvent::co_selected("r1", "r2", S, O),
            MemoryEvent::on_record(EventKind::Listed, "r1", S, O),
            MemoryEvent::on_record(EventKind::Placed, "r1", S, O).with_weight(1.5),
        ],
    )?;
    let got: Vec<f64> = out.iter().map(|e| e.weight).collect();
    ensure_eq(
        "weights",
        got,
        vec![8.0, 25.0, 3.0, 1.0, 25.0, 8.0, 2.5, 4.0, 0.0, 1.5],
    )
}

/// A non-finite weight and a `ttl_activity` ≤ 0 are `InvalidInput`.
pub fn non_finite_weight_and_non_positive_ttl_are_invalid_input(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    refused_unchanged(&*j, "NaN weight", || {
        j.append_events(&[sel("r1").with_weight(f64::NAN)])
    })?;
    refused_unchanged(&*j, "infinite weight", || {
        j.append_events(&[sel("r1").with_weight(f64::INFINITY)])
    })?;
    let mut ttl = MemoryEvent::on_record(EventKind::Pinned, "r1", S, O).with_reason("why");
    ttl.ttl_activity = Some(0);
    refused_unchanged(&*j, "ttl 0", || j.append_events(std::slice::from_ref(&ttl)))?;
    ttl.ttl_activity = Some(3);
    ensure_eq("ttl kept", append(&*j, &[ttl])?[0].ttl_activity, Some(3))
}

/// A `co_selected` pair is stored sorted, carries no record id, and must name two distinct records.
pub fn co_selected_pair_is_sorted_distinct_and_recordless(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let mut e = MemoryEvent::co_selected(" zeta ", "alpha", S, O);
    e.record_id = Some("ignored".into());
    let out = append(&*j, &[e])?;
    ensure_eq(
        "pair_ids",
        out[0].pair_ids.clone(),
        Some(("alpha".to_string(), "zeta".to_string())),
    )?;
    ensure_eq("record_id", out[0].record_id.clone(), None)?;
    refused_unchanged(&*j, "pair of one record", || {
        j.append_events(&[MemoryEvent::co_selected("a", "a", S, O)])
    })?;
    let mut no_pair = MemoryEvent::co_selected("a", "b", S, O);
    no_pair.pair_ids = None;
    refused_unchanged(&*j, "co_selected without a pair", || {
        j.append_events(&[no_pair])
    })
}

/// `refocus` carries no record id; every other non-pair kind requires one.
pub fn refocus_carries_no_record_and_other_kinds_need_one(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let mut r = MemoryEvent::refocus("topic shift", S, O);
    r.record_id = Some("r1".into());
    refused_unchanged(&*j, "refocus with a record", || j.append_events(&[r]))?;
    let mut s = sel("r1");
    s.record_id = Some("  ".into());
    refused_unchanged(&*j, "selected without a record", || j.append_events(&[s]))?;
    let out = append(&*j, &[MemoryEvent::refocus("topic shift", S, O)])?;
    ensure_eq("refocus record_id", out[0].record_id.clone(), None)
}

/// Events require a scope; the scope is lowercased and trimmed, the owner trimmed.
pub fn event_scope_is_required_and_lowercased(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    refused_unchanged(&*j, "blank scope", || {
        j.append_events(&[MemoryEvent::on_record(EventKind::Selected, "r1", " ", O)])
    })?;
    let out = append(
        &*j,
        &[MemoryEvent::on_record(
            EventKind::Selected,
            " r1 ",
            " Session ",
            " s1 ",
        )],
    )?;
    ensure_eq(
        "(scope, owner_id, record_id)",
        (
            out[0].scope.as_str(),
            out[0].owner_id.as_str(),
            out[0].record_id.as_deref(),
        ),
        ("session", "s1", Some("r1")),
    )
}

/// `observed_at` is canonical UTC with microseconds (`Z` and naive values accepted,
/// blank = now); a value that is not a timestamp is `InvalidInput`.
pub fn observed_at_is_canonical_utc_and_bad_timestamps_are_refused(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let out = append(
        &*j,
        &[
            sel("r1").with_observed_at("2026-01-01T10:00:00Z"),
            sel("r1").with_observed_at("2026-01-01T12:00:00+02:00"),
            sel("r1").with_observed_at("2026-01-01 10:00:00.5"),
            sel("r1"),
        ],
    )?;
    ensure_eq(
        "Z",
        out[0].observed_at.as_str(),
        "2026-01-01T10:00:00.000000+00:00",
    )?;
    ensure_eq(
        "offset",
        out[1].observed_at.as_str(),
        "2026-01-01T10:00:00.000000+00:00",
    )?;
    ensure_eq(
        "naive",
        out[2].observed_at.as_str(),
        "2026-01-01T10:00:00.500000+00:00",
    )?;
    ensure(
        out[3].observed_at.len() == 32 && out[3].observed_at.ends_with("+00:00"),
        || {
            format!(
                "blank observed_at should become now in canonical form, got {:?}",
                out[3].observed_at
            )
        },
    )?;
    refused_unchanged(&*j, "bad event timestamp", || {
        j.append_events(&[sel("r1").with_observed_at("yesterday")])
    })?;
    let mut b = ScopeBinding::new("r1", S, O, SearchState::Indexed);
    b.observed_at = "not a time".into();
    refused_unchanged(&*j, "bad binding timestamp", || j.append_binding(&b))
}

/// `hidden` implies `inactive`; a binding needs a record; a binding keeps its
/// states, lifecycle and source as written (the defaults `inactive`, `none`,
/// `operator`). (The vocabularies are the fields' types; an argument reads
/// them folded, `am_system::Bind`.)
pub fn hidden_implies_inactive_and_a_binding_keeps_its_states(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let mut hidden_active = ScopeBinding::new("r1", S, O, SearchState::Hidden);
    hidden_active.prompt_state = PromptState::Active;
    refused_unchanged(&*j, "hidden + active", || j.append_binding(&hidden_active))?;
    refused_unchanged(&*j, "blank record", || {
        j.append_binding(&ScopeBinding::new(" ", S, O, SearchState::Indexed))
    })?;
    let stored = ok(
        "bind",
        j.append_binding(&ScopeBinding::new("r1", S, O, SearchState::Hidden)),
    )?;
    ensure_eq(
        "(search_state, prompt_state, lifecycle, source)",
        (
            stored.search_state.as_str(),
            stored.prompt_state.as_str(),
            stored.lifecycle.as_str(),
            stored.source.as_str(),
        ),
        ("hidden", "inactive", "none", "operator"),
    )?;
    let mut b = ScopeBinding::new("r2", S, O, SearchState::Indexed);
    b.prompt_state = PromptState::Active;
    b.lifecycle = Lifecycle::Promoted;
    b.source = BindingSource::Election;
    let stored = ok("bind promoted", j.append_binding(&b))?;
    ensure_eq(
        "(prompt_state, lifecycle, source)",
        (stored.prompt_state, stored.lifecycle, stored.source),
        (
            PromptState::Active,
            Lifecycle::Promoted,
            BindingSource::Election,
        ),
    )
}

/// Valence events are validated (algorithms.md §8): sign ±1, magnitude 1..=10,
/// reason, scope, scar negative, bond positive, healing names
/// `heals`, break names `breaks`, revalued has `factor` in 0..=1.
pub fn valence_events_are_validated(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let ap = |sign: i64, m: f64| ValenceEvent::appraisal("t", sign, m, "why", S, O);
    let with_prov = |kind: ValenceKind, sign: i64, key: &str, v: Value| {
        let mut e = ap(sign, 2.0).with_kind(kind);
        if !key.is_empty() {
            e.provenance.insert(key.into(), v);
        }
        e
    };
    let refused = vec![
        ("sign 0", ap(0, 2.0)),
        ("magnitude 0.5", ap(1, 0.5)),
        ("magnitude 11", ap(1, 11.0)),
        ("magnitude NaN", ap(1, f64::NAN)),
        (
            "reason",
            ValenceEvent {
                reason: Some(" ".into()),
                ..ap(1, 2.0)
            },
        ),
        (
            "scope",
            ValenceEvent {
                scope: " ".into(),
                ..ap(1, 2.0)
            },
        ),
        (
            "target",
            ValenceEvent {
                target_id: " ".into(),
                ..ap(1, 2.0)
            },
        ),
        (
            "positive scar",
            with_prov(ValenceKind::Scar, 1, "", Value::Null),
        ),
        (
            "negative bond",
            with_prov(ValenceKind::Bond, -1, "", Value::Null),
        ),
        (
            "healing without heals",
            with_prov(ValenceKind::Healing, 1, "", Value::Null),
        ),
        (
            "break without breaks",
            with_prov(ValenceKind::Break, -1, "", Value::Null),
        ),
        (
            "revalued factor 2",
            with_prov(ValenceKind::Revalued, 1, "factor", json!(2.0)),
        ),
        (
            "revalued without factor",
            with_prov(ValenceKind::Revalued, 1, "", Value::Null),
        ),
    ];
    for (what, e) in refused {
        refused_unchanged(&*j, what, || j.append_valence(std::slice::from_ref(&e)))?;
    }
    let accepted = vec![
        with_prov(ValenceKind::Scar, -1, "", Value::Null),
        with_prov(ValenceKind::Bond, 1, "", Value::Null),
        with_prov(ValenceKind::Healing, 1, "heals", json!("e1")),
        with_prov(ValenceKind::Break, -1, "breaks", json!("e2")),
        with_prov(ValenceKind::Revalued, 1, "factor", json!(0.5)),
        ap(-1, 10.0),
    ];
    let out = ok("valid valence", j.append_valence(&accepted))?;
    ensure_eq("accepted", out.len(), 6)
}

/// Understanding versions are validated: field vocabulary, version ≥ 0, text
/// absent only on a title version, author kind, cause vocabulary.
pub fn understanding_versions_are_validated(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let refused = vec![
        ("field", version("summary", 0, "x")),
        ("version", version("digest", -1, "x")),
        (
            "text",
            UnderstandingVersion {
                text: None,
                ..version("digest", 0, "x")
            },
        ),
        (
            "author",
            UnderstandingVersion::new("r", "a", "digest", 0, Some("x"), ("ghost", "g"), "operator"),
        ),
        (
            "cause",
            UnderstandingVersion::new("r", "a", "digest", 0, Some("x"), ("operator", "o"), "whim"),
        ),
        (
            "record",
            UnderstandingVersion {
                record_id: " ".into(),
                ..version("digest", 0, "x")
            },
        ),
    ];
    for (what, v) in refused {
        refused_unchanged(&*j, what, || j.append_version(&v))?;
    }
    let title0 = UnderstandingVersion {
        text: None,
        title: None,
        ..version("title", 0, "")
    };
    let mut dict_cause = version("digest", 1, "y");
    dict_cause.cause = json!({"cause": "ripple", "ripple_id": "rp1"});
    ok("title version 0 without text", j.append_version(&title0))?;
    let stored = ok("dict cause", j.append_version(&dict_cause))?;
    ensure_eq(
        "cause kept verbatim",
        stored.cause,
        json!({"cause": "ripple", "ripple_id": "rp1"}),
    )
}

// ---- readers ----------------------------------------------------------------

/// `events` reads one `(scope, owner_id)` stream, newest first.
pub fn events_read_newest_first_within_one_scope_owner_stream(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    append(
        &*j,
        &[
            sel("r1"),
            MemoryEvent::on_record(EventKind::Selected, "r1", "other", O),
            sel("r2"),
            MemoryEvent::on_record(EventKind::Selected, "r3", S, "s2"),
            sel("r3"),
        ],
    )?;
    let got = all_events(&*j, EventFilter::new("SESSION", O))?;
    ensure_eq("seqs", seqs(&got, |e| e.seq), vec![5, 3, 1])
}

/// `events` filters by record, kinds and inclusive `since_seq` / `until_seq`.
pub fn events_filter_by_record_kinds_and_inclusive_seq_bounds(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    append(
        &*j,
        &[
            sel("r1"),
            MemoryEvent::on_record(EventKind::Listed, "r1", S, O),
            sel("r2"),
            MemoryEvent::on_record(EventKind::Shown, "r1", S, O),
            sel("r1"),
        ],
    )?;
    let mut fl = EventFilter::new(S, O);
    fl.record_id = Some("r1".into());
    ensure_eq(
        "record r1",
        seqs(&all_events(&*j, fl.clone())?, |e| e.seq),
        vec![5, 4, 2, 1],
    )?;
    fl.kinds = vec!["Selected".into(), "shown".into()];
    ensure_eq(
        "kinds",
        seqs(&all_events(&*j, fl.clone())?, |e| e.seq),
        vec![5, 4, 1],
    )?;
    fl.since_seq = Some(2);
    fl.until_seq = Some(4);
    ensure_eq("bounds", seqs(&all_events(&*j, fl)?, |e| e.seq), vec![4])
}

/// `events` defaults to 512 newest; `limit` 0 is unbounded.
pub fn events_limit_defaults_to_512_and_zero_is_unbounded(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let batch: Vec<MemoryEvent> = (0..520).map(|i| sel(&format!("r{i}"))).collect();
    append(&*j, &batch)?;
    let got = all_events(&*j, EventFilter::new(S, O))?;
    ensure_eq("default limit", got.len(), 512)?;
    ensure_eq("newest first", got[0].seq, 520)?;
    let mut fl = EventFilter::new(S, O);
    fl.limit = 0;
    ensure_eq("limit 0", all_events(&*j, fl.clone())?.len(), 520)?;
    fl.limit = 3;
    ensure_eq(
        "limit 3",
        seqs(&all_events(&*j, fl)?, |e| e.seq),
        vec![520, 519, 518],
    )
}

/// An unknown kind in the filter and a blank scope are `InvalidInput`.
pub fn events_unknown_kind_filter_and_blank_scope_are_invalid_input(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    let mut fl = EventFilter::new(S, O);
    fl.kinds = vec!["selected".into(), "viewed".into()];
    expect_invalid("unknown kind filter", j.events(&fl))?;
    expect_invalid("blank scope", j.events(&EventFilter::new("  ", O)))?;
    expect_invalid(
        "valence blank scope",
        j.valence_events(&ValenceFilter::new("", O)),
    )
    .map(|_| ())
}

/// `co_selected` events carry no record id and never match a per-record filter.
pub fn co_selected_events_never_match_a_record_filter(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    append(
        &*j,
        &[MemoryEvent::co_selected("r1", "r2", S, O), sel("r1")],
    )?;
    let mut fl = EventFilter::new(S, O);
    fl.record_id = Some("r1".into());
    ensure_eq("record r1", seqs(&all_events(&*j, fl)?, |e| e.seq), vec![2])?;
    let mut fl = EventFilter::new(S, O);
    fl.kinds = vec!["co_selected".into()];
    ensure_eq(
        "kind co_selected",
        seqs(&all_events(&*j, fl)?, |e| e.seq),
        vec![1],
    )
}

fn bind(
    j: &dyn MemoryJournal,
    rid: &str,
    scope: &str,
    owner: &str,
    state: SearchState,
) -> Result<ScopeBinding, String> {
    ok(
        "bind",
        j.append_binding(&ScopeBinding::new(rid, scope, owner, state)),
    )
}

/// The fold keeps the latest binding per `(record_id, scope, owner_id)`, in seq order.
pub fn bindings_fold_latest_wins_per_record_scope_owner(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    bind(&*j, "r1", S, O, SearchState::Indexed)?;
    bind(&*j, "r1", S, O, SearchState::Hidden)?;
    bind(&*j, "r1", S, "s2", SearchState::Indexed)?;
    bind(&*j, "r2", S, O, SearchState::Indexed)?;
    bind(&*j, "r1", "global", "", SearchState::Hidden)?;
    bind(&*j, "r1", S, O, SearchState::Indexed)?;
    let all = ok("bindings", j.bindings(&BindingFilter::default()))?;
    ensure_eq("folded seqs", seqs(&all, |b| b.seq), vec![3, 4, 5, 6])?;
    let r1 = ok("bindings", j.bindings(&BindingFilter::record("r1")))?;
    ensure_eq("r1 folded seqs", seqs(&r1, |b| b.seq), vec![3, 5, 6])?;
    let mut fl = BindingFilter::record("r1");
    fl.scope = Some("SESSION".into());
    fl.owner_id = Some(O.into());
    let one = ok("bindings", j.bindings(&fl))?;
    ensure_eq(
        "r1 in (session, s1)",
        one.iter()
            .map(|b| (b.seq, b.search_state))
            .collect::<Vec<_>>(),
        vec![(6, SearchState::Indexed)],
    )?;
    let from_fn = am_journal::fold_bindings(&ok(
        "bindings",
        j.bindings(&BindingFilter {
            fold: false,
            ..BindingFilter::default()
        }),
    )?);
    ensure_eq(
        "fold_bindings agrees",
        seqs(&from_fn, |b| b.seq),
        vec![3, 4, 5, 6],
    )
}

/// The fold as of a seq sees only bindings at or before it.
pub fn bindings_fold_as_of_a_seq(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    bind(&*j, "r1", S, O, SearchState::Indexed)?;
    bind(&*j, "r1", S, O, SearchState::Hidden)?;
    bind(&*j, "r1", S, O, SearchState::Indexed)?;
    for (anchor, want) in [(1, "indexed"), (2, "hidden"), (3, "indexed")] {
        let mut fl = BindingFilter::record("r1");
        fl.until_seq = Some(anchor);
        let got = ok("bindings", j.bindings(&fl))?;
        ensure_eq(
            &format!("fold as of {anchor}"),
            got.iter()
                .map(|b| (b.seq, b.search_state.as_str()))
                .collect::<Vec<_>>(),
            vec![(anchor, want)],
        )?;
    }
    Ok(())
}

/// Unfolded bindings read every matching binding, oldest first.
pub fn unfolded_bindings_read_oldest_first(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    bind(&*j, "r1", S, O, SearchState::Indexed)?;
    bind(&*j, "r2", S, O, SearchState::Indexed)?;
    bind(&*j, "r1", S, O, SearchState::Hidden)?;
    let fl = BindingFilter {
        record_id: Some("r1".into()),
        fold: false,
        ..BindingFilter::default()
    };
    ensure_eq(
        "seqs",
        seqs(&ok("bindings", j.bindings(&fl))?, |b| b.seq),
        vec![1, 3],
    )
}

/// `closures` filters by assertion and anchor, newest first, limited.
pub fn closures_filter_by_assertion_newest_first(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    for a in ["a1", "a2", "a1", "a1"] {
        ok(
            "close",
            j.append_closure(&ClosureRecord::new(a, ClosureKind::Retract, "why")),
        )?;
    }
    let mut fl = ClosureFilter {
        assertion_id: Some("a1".into()),
        ..ClosureFilter::default()
    };
    ensure_eq(
        "a1",
        seqs(&ok("closures", j.closures(&fl))?, |c| c.seq),
        vec![4, 3, 1],
    )?;
    fl.until_seq = Some(3);
    fl.limit = 1;
    ensure_eq(
        "a1 until 3 limit 1",
        seqs(&ok("closures", j.closures(&fl))?, |c| c.seq),
        vec![3],
    )?;
    ensure_eq(
        "all",
        ok("closures", j.closures(&ClosureFilter::default()))?.len(),
        4,
    )
}

/// `traces` and `snapshots` filter by trace id and anchor, newest first.
pub fn traces_and_snapshots_filter_by_trace_id_newest_first(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    ok(
        "trace",
        j.append_trace(&ReconstructionTrace::new("t1", "fp")),
    )?;
    ok(
        "trace",
        j.append_trace(&ReconstructionTrace::new("t2", "fp")),
    )?;
    ok(
        "snap",
        j.append_snapshot(&ActiveMemorySnapshot::new("", "t1", &["r1"])),
    )?;
    ok(
        "snap",
        j.append_snapshot(&ActiveMemorySnapshot::new("", "t2", &["r2"])),
    )?;
    ok(
        "snap",
        j.append_snapshot(&ActiveMemorySnapshot::new("", "t1", &["r3"])),
    )?;
    ensure_eq(
        "traces",
        seqs(&ok("traces", j.traces(&TraceFilter::default()))?, |t| t.seq),
        vec![2, 1],
    )?;
    let fl = TraceFilter {
        trace_id: Some("t1".into()),
        ..TraceFilter::default()
    };
    ensure_eq(
        "trace t1",
        seqs(&ok("traces", j.traces(&fl))?, |t| t.seq),
        vec![1],
    )?;
    ensure_eq(
        "snapshots t1",
        seqs(&ok("snapshots", j.snapshots(&fl))?, |s| s.seq),
        vec![5, 3],
    )?;
    let fl = TraceFilter {
        trace_id: Some("t1".into()),
        until_seq: Some(4),
        limit: 0,
    };
    ensure_eq(
        "snapshots t1 until 4",
        seqs(&ok("snapshots", j.snapshots(&fl))?, |s| s.seq),
        vec![3],
    )
}

/// `valence_events` reads one stream newest first, filtered by target and bounds.
pub fn valence_events_filter_by_target_newest_first(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    ok(
        "valence",
        j.append_valence(&[
            ValenceEvent::appraisal("t1", 1, 2.0, "a", S, O),
            ValenceEvent::appraisal("t2", 1, 2.0, "b", S, O),
            ValenceEvent::appraisal("t1", -1, 3.0, "c", S, "s2"),
            ValenceEvent::appraisal("t1", -1, 3.0, "d", S, O),
        ]),
    )?;
    let mut fl = ValenceFilter::new(S, O);
    ensure_eq(
        "stream",
        seqs(&ok("valence", j.valence_events(&fl))?, |e| e.seq),
        vec![4, 2, 1],
    )?;
    fl.target_id = Some("t1".into());
    ensure_eq(
        "t1",
        seqs(&ok("valence", j.valence_events(&fl))?, |e| e.seq),
        vec![4, 1],
    )?;
    fl.since_seq = Some(2);
    ensure_eq(
        "t1 since 2",
        seqs(&ok("valence", j.valence_events(&fl))?, |e| e.seq),
        vec![4],
    )
}

/// `versions` reads oldest first, filtered by record, assertion, field and anchor.
pub fn versions_read_oldest_first_by_record_field_and_anchor(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    ok("v", j.append_version(&version("digest", 0, "one")))?;
    ok("v", j.append_version(&version("title", 0, "Title")))?;
    ok("v", j.append_version(&version("digest", 1, "two")))?;
    let mut other = version("digest", 0, "x");
    other.record_id = "ex:memory-2".into();
    other.assertion_id = "a2".into();
    other.version_id = String::new();
    ok("v", j.append_version(&other))?;
    let mut fl = VersionFilter {
        record_id: Some("ex:memory-1".into()),
        field: Some("digest".into()),
        ..VersionFilter::default()
    };
    let got = ok("versions", j.versions(&fl))?;
    ensure_eq(
        "digest versions",
        got.iter().map(|v| (v.seq, v.version)).collect::<Vec<_>>(),
        vec![(1, 0), (3, 1)],
    )?;
    fl.until_seq = Some(2);
    ensure_eq(
        "as of 2",
        seqs(&ok("versions", j.versions(&fl))?, |v| v.seq),
        vec![1],
    )?;
    let by_assertion = VersionFilter {
        assertion_id: Some("a1".into()),
        ..VersionFilter::default()
    };
    ensure_eq(
        "a1",
        seqs(&ok("versions", j.versions(&by_assertion))?, |v| v.seq),
        vec![1, 2, 3],
    )?;
    ensure_eq(
        "all",
        ok("versions", j.versions(&VersionFilter::default()))?.len(),
        4,
    )
}

/// `replay_records` merges the six default families in strict seq order, `since`
/// exclusive and `until` inclusive; versions are not among them.
pub fn replay_records_merge_six_families_in_seq_order(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    ok(
        "binding",
        j.append_binding(&ScopeBinding::new("r1", S, O, SearchState::Indexed)),
    )?;
    append(&*j, &[sel("r1")])?;
    ok("version", j.append_version(&version("digest", 0, "w")))?;
    ok(
        "trace",
        j.append_trace(&ReconstructionTrace::new("t1", "fp")),
    )?;
    ok(
        "valence",
        j.append_valence(&[ValenceEvent::appraisal("r1", 1, 2.0, "g", S, O)]),
    )?;
    ok(
        "snapshot",
        j.append_snapshot(&ActiveMemorySnapshot::new("", "t1", &["r1"])),
    )?;
    ok(
        "closure",
        j.append_closure(&ClosureRecord::new("a1", ClosureKind::Retract, "w")),
    )?;
    append(&*j, &[sel("r2")])?;
    let all = ok("replay", j.replay_records(0, None))?;
    let got: Vec<(i64, &str)> = all.iter().map(|r| (r.seq(), r.family())).collect();
    ensure_eq(
        "families",
        got,
        vec![
            (1, "binding"),
            (2, "event"),
            (4, "trace"),
            (5, "valence"),
            (6, "snapshot"),
            (7, "closure"),
            (8, "event"),
        ],
    )?;
    let window = ok("replay", j.replay_records(2, Some(6)))?;
    ensure_eq(
        "window (2, 6]",
        window.iter().map(|r| r.seq()).collect::<Vec<_>>(),
        vec![4, 5, 6],
    )?;
    ensure_eq(
        "tail at high water",
        ok("replay", j.replay_records(8, None))?.len(),
        0,
    )
}

/// `visit_replay_times` lends exactly the `(family, observed_at)` of the
/// records `replay_records` returns for the same bounds (as a multiset: its
/// order is the journal's own), and refuses the anchors replay refuses.
pub fn replay_times_are_the_replay_stream_s_families_and_times(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    ok(
        "binding",
        j.append_binding(&ScopeBinding::new("r1", S, O, SearchState::Indexed)),
    )?;
    append(&*j, &[sel("r1")])?;
    ok("version", j.append_version(&version("digest", 0, "w")))?;
    ok(
        "trace",
        j.append_trace(&ReconstructionTrace::new("t1", "fp")),
    )?;
    ok(
        "valence",
        j.append_valence(&[ValenceEvent::appraisal("r1", 1, 2.0, "g", S, O)]),
    )?;
    ok(
        "snapshot",
        j.append_snapshot(&ActiveMemorySnapshot::new("", "t1", &["r1"])),
    )?;
    ok(
        "closure",
        j.append_closure(&ClosureRecord::new("a1", ClosureKind::Retract, "w")),
    )?;
    append(&*j, &[sel("r2")])?;
    for (since, until) in [(0, None), (2, Some(6)), (1, Some(1)), (8, None)] {
        let mut want: Vec<(String, String)> = ok("replay", j.replay_records(since, until))?
            .iter()
            .map(|r| (r.family().to_owned(), r.observed_at().to_owned()))
            .collect();
        let mut got: Vec<(String, String)> = Vec::new();
        ok(
            "visit_replay_times",
            j.visit_replay_times(since, until, &mut |family, at| {
                got.push((family.to_owned(), at.to_owned()));
            }),
        )?;
        want.sort();
        got.sort();
        ensure_eq(&format!("replay times ({since}, {until:?}]"), got, want)?;
    }
    let hw = ok("current_seq", j.current_seq())?;
    expect_invalid(
        "visit_replay_times past the high water",
        j.visit_replay_times(0, Some(hw + 1), &mut |_, _| {}),
    )?;
    expect_invalid(
        "visit_replay_times from a negative anchor",
        j.visit_replay_times(-1, None, &mut |_, _| {}),
    )
    .map(|_| ())
}

/// `revision_records` is the opt-in family: versions only, bounds as replay.
pub fn revision_records_carry_versions_only(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    ok("v", j.append_version(&version("digest", 0, "a")))?;
    append(&*j, &[sel("r1")])?;
    ok("v", j.append_version(&version("digest", 1, "b")))?;
    ensure_eq(
        "all",
        seqs(&ok("rev", j.revision_records(0, None))?, |v| v.seq),
        vec![1, 3],
    )?;
    ensure_eq(
        "after 1",
        seqs(&ok("rev", j.revision_records(1, Some(3)))?, |v| v.seq),
        vec![3],
    )
}

// ---- counters ---------------------------------------------------------------

/// `selected_count` counts `selected` events only (never audit kinds, pins or
/// pairs) and never decays (refocus, silencing and closures leave it alone).
pub fn selected_count_counts_selected_only_and_never_decays(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    append(
        &*j,
        &[
            sel("r1"),
            MemoryEvent::on_record(EventKind::Listed, "r1", S, O),
            MemoryEvent::on_record(EventKind::Pinned, "r1", S, O).with_reason("keep"),
            MemoryEvent::co_selected("r1", "r2", S, O),
            MemoryEvent::on_record(EventKind::Selected, "r1", "other", "x"),
            MemoryEvent::refocus("shift", S, O),
            MemoryEvent::on_record(EventKind::Silenced, "r1", S, O).with_reason("quiet"),
        ],
    )?;
    ok(
        "close",
        j.append_closure(&ClosureRecord::new("r1", ClosureKind::Retract, "gone")),
    )?;
    ensure_eq(
        "selected_count(r1)",
        ok("count", j.selected_count("r1", None))?,
        2,
    )?;
    ensure_eq(
        "selected_count(r2)",
        ok("count", j.selected_count("r2", None))?,
        0,
    )?;
    ensure_eq(
        "unknown record",
        ok("count", j.selected_count("nobody", None))?,
        0,
    )
}

/// `selected_count(record_id, until_seq)` is the count as of that seq.
pub fn selected_count_as_of_a_seq(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    append(
        &*j,
        &[
            sel("r1"),
            sel("r2"),
            sel("r1"),
            MemoryEvent::on_record(EventKind::Listed, "r1", S, O),
            sel("r1"),
        ],
    )?;
    let got: Vec<u64> = (0..=5)
        .map(|s| j.selected_count("r1", Some(s)))
        .collect::<am_journal::Result<_>>()
        .map_err(|e| e.to_string())?;
    ensure_eq("counts as of 0..=5", got, vec![0, 1, 1, 2, 2, 3])
}

/// `pair_selected_count` counts `co_selected` per canonical pair, in either order, as of a seq.
pub fn pair_selected_count_is_order_insensitive_and_anchored(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    append(
        &*j,
        &[
            MemoryEvent::co_selected("b", "a", S, O),
            MemoryEvent::co_selected("a", "c", S, O),
            sel("a"),
            MemoryEvent::co_selected("a", "b", "other", O),
        ],
    )?;
    ensure_eq(
        "(a, b)",
        ok("pair", j.pair_selected_count(("a", "b"), None))?,
        2,
    )?;
    ensure_eq(
        "(b, a)",
        ok("pair", j.pair_selected_count(("b", "a"), None))?,
        2,
    )?;
    ensure_eq(
        "(b, a) as of 3",
        ok("pair", j.pair_selected_count(("b", "a"), Some(3)))?,
        1,
    )?;
    ensure_eq(
        "(a, c) as of 1",
        ok("pair", j.pair_selected_count(("c", "a"), Some(1)))?,
        0,
    )?;
    ensure_eq(
        "(b, c)",
        ok("pair", j.pair_selected_count(("b", "c"), None))?,
        0,
    )
}

// ---- anchors ----------------------------------------------------------------

fn expect_names_high_water<T: std::fmt::Debug>(
    what: &str,
    r: am_journal::Result<T>,
    hw: i64,
) -> CheckResult {
    let msg = expect_invalid(what, r)?;
    ensure(msg.contains(&format!("high-water mark is {hw}")), || {
        format!("{what}: the message should name the high-water mark {hw}, got {msg:?}")
    })
}

fn anchored_reads(j: &dyn MemoryJournal, a: i64) -> Vec<(&'static str, am_journal::Result<usize>)> {
    let ev = EventFilter {
        until_seq: Some(a),
        ..EventFilter::new(S, O)
    };
    let ev_since = EventFilter {
        since_seq: Some(a),
        ..EventFilter::new(S, O)
    };
    let va = ValenceFilter {
        until_seq: Some(a),
        ..ValenceFilter::new(S, O)
    };
    let tf = TraceFilter {
        until_seq: Some(a),
        ..TraceFilter::default()
    };
    vec![
        ("events until", j.events(&ev).map(|v| v.len())),
        ("events since", j.events(&ev_since).map(|v| v.len())),
        (
            "bindings",
            j.bindings(&BindingFilter {
                until_seq: Some(a),
                ..BindingFilter::default()
            })
            .map(|v| v.len()),
        ),
        (
            "bindings of a record",
            j.bindings(&BindingFilter {
                until_seq: Some(a),
                ..BindingFilter::record("r1")
            })
            .map(|v| v.len()),
        ),
        (
            "closures",
            j.closures(&ClosureFilter {
                until_seq: Some(a),
                ..ClosureFilter::default()
            })
            .map(|v| v.len()),
        ),
        ("traces", j.traces(&tf).map(|v| v.len())),
        ("snapshots", j.snapshots(&tf).map(|v| v.len())),
        ("valence", j.valence_events(&va).map(|v| v.len())),
        (
            "versions",
            j.versions(&VersionFilter {
                until_seq: Some(a),
                ..VersionFilter::default()
            })
            .map(|v| v.len()),
        ),
        (
            "replay until",
            j.replay_records(0, Some(a)).map(|v| v.len()),
        ),
        ("replay since", j.replay_records(a, None).map(|v| v.len())),
        ("revisions", j.revision_records(0, Some(a)).map(|v| v.len())),
        (
            "selected_count",
            j.selected_count("r1", Some(a)).map(|n| n as usize),
        ),
        (
            "pair_selected_count",
            j.pair_selected_count(("r1", "r2"), Some(a))
                .map(|n| n as usize),
        ),
    ]
}

/// An anchor beyond the high-water mark is `InvalidInput` naming the mark, on every
/// reader; it never silently means "latest".
pub fn anchor_beyond_high_water_is_invalid_input_naming_it(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    append(&*j, &[sel("r1"), sel("r2")])?;
    for (what, r) in anchored_reads(&*j, 3) {
        expect_names_high_water(what, r, 2)?;
    }
    for (what, r) in anchored_reads(&*j, 2) {
        ok(what, r)?;
    }
    Ok(())
}

/// A negative anchor is `InvalidInput` on every reader.
pub fn negative_anchor_is_invalid_input(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    append(&*j, &[sel("r1")])?;
    for (what, r) in anchored_reads(&*j, -1) {
        expect_names_high_water(what, r, 1)?;
    }
    Ok(())
}

/// `seq_at(ts)` is the highest seq of an event, binding, closure or trace observed
/// at or before `ts` (snapshots and valence never anchor); 0 before everything.
pub fn seq_at_is_the_latest_fold_record_at_or_before_the_time(
    f: &dyn JournalFactory,
) -> CheckResult {
    let j = open(f)?;
    append(&*j, &[sel("r1").with_observed_at("2026-01-01T10:00:00Z")])?;
    let mut b = ScopeBinding::new("r1", S, O, SearchState::Indexed);
    b.observed_at = "2026-01-01T11:00:00Z".into();
    ok("bind", j.append_binding(&b))?;
    let mut s = ActiveMemorySnapshot::new("", "t", &["r1"]);
    s.observed_at = "2026-01-01T11:30:00Z".into();
    ok("snapshot", j.append_snapshot(&s))?;
    let mut v = ValenceEvent::appraisal("r1", 1, 2.0, "g", S, O);
    v.observed_at = "2026-01-01T11:40:00Z".into();
    ok("valence", j.append_valence(&[v]))?;
    for (ts, want) in [
        ("2026-01-01T09:59:59Z", 0),
        ("2026-01-01T10:00:00+00:00", 1),
        ("2026-01-01T12:30:00+02:00", 1),
        ("2026-01-01T13:30:00+02:00", 2),
        ("2026-01-01T11:59:00", 2),
    ] {
        ensure_eq(&format!("seq_at({ts})"), ok("seq_at", j.seq_at(ts))?, want)?;
    }
    Ok(())
}

/// `seq_at` with a value that is not a timestamp is `InvalidInput`.
pub fn seq_at_with_a_bad_timestamp_is_invalid_input(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    expect_invalid("seq_at(soon)", j.seq_at("soon")).map(|_| ())
}

/// `take_warnings` drains: a second call returns nothing.
pub fn take_warnings_drains(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let _ = j.take_warnings();
    ensure_eq("second take", j.take_warnings(), Vec::<String>::new())
}

/// Journals are thread-safe: concurrent appends from several threads get distinct,
/// gap-free seqs and every record lands.
pub fn concurrent_appends_get_distinct_gap_free_seqs(f: &dyn JournalFactory) -> CheckResult {
    let j = open(f)?;
    let journal: &dyn MemoryJournal = &*j;
    let results: Vec<Result<Vec<i64>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                s.spawn(move || {
                    let mut got = Vec::new();
                    for i in 0..25 {
                        let batch = [sel(&format!("r{t}-{i}")), sel("shared")];
                        got.extend(append(journal, &batch)?.iter().map(|e| e.seq));
                        let b = ScopeBinding::new(&format!("r{t}"), S, O, SearchState::Indexed);
                        got.push(ok("bind", journal.append_binding(&b))?.seq);
                    }
                    Ok(got)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    all.sort_unstable();
    ensure_eq("seqs", all, (1..=300).collect::<Vec<i64>>())?;
    ensure_eq(
        "selected_count(shared)",
        ok("count", j.selected_count("shared", None))?,
        100,
    )
}
