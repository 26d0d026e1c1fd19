//! `sleep_pass`: ONE night, `resolution → maintenance → world_models →
//! dream`, each sub-phase's dict, the summed `authoring` receipt, the
//! boundaries where the host ends the night, and the completion marker.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`sleep_pass`,
//! `records_since_maintenance`), memory-system.md "Sleep". 0.3.2's night
//! also runs `mining` and `identity`: here they are not sub-phases (the
//! spec's four are pinned below).

use crate::common::{Stack, assert_refused, written};
use crate::support::{OWNER, SCOPE, deposits, form, stacks, tasks};
use am_system::sleep::{
    CANCELLED_AT_START, NightHooks, RecordsSinceMaintenance, SleepPass, SleepResult,
    WORLD_MODELS_NOT_BUILT,
};
use am_system::tasks::{LastMaintenance, MaintenanceKind};
use am_system::{MemoryRecordInput, RecordKind};
use am_triples::ErrorKind;
use serde_json::Value;
use std::cell::{Cell, RefCell};

fn night() -> SleepPass {
    SleepPass::new(&[(SCOPE, OWNER)], OWNER)
}

/// A home with something for every phase: two islands sharing two facets
/// (a dream), and two lessons with one normalized title (a candidate).
fn lived(s: &Stack) {
    for (title, key) in [("Harbor walk at dawn", "a"), ("Reading tide tables", "b")] {
        let mut r = MemoryRecordInput::new(RecordKind::Episode, title, &format!("{title}, lived."));
        r.keywords = vec!["harbor".into(), "tide".into()];
        form(s, r, key);
    }
    form(
        s,
        MemoryRecordInput::new(RecordKind::Lesson, "Tea helps", "Tea helps the review."),
        "tea-1",
    );
    form(
        s,
        MemoryRecordInput::new(
            RecordKind::Lesson,
            "tea  helps!",
            "A cup of tea before reviews.",
        ),
        "tea-2",
    );
}

fn last_night(s: &Stack, kind: MaintenanceKind) -> Option<am_system::tasks::MaintenanceRow> {
    s.system
        .tasks()
        .unwrap()
        .last_maintenance(&LastMaintenance { scopes: None, kind })
        .unwrap()
}

fn run(s: &Stack, args: &SleepPass, hooks: &NightHooks<'_>) -> SleepResult {
    s.system.sleep_pass(args, None, hooks).unwrap().value
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn one_night_runs_the_four_sub_phases_in_canonical_order_and_records_its_completion() {
    for (s, _) in stacks(true) {
        lived(&s);
        let order = RefCell::new(Vec::<String>::new());
        let sink = |phase: &str, _: &str| order.borrow_mut().push(phase.to_owned());
        let hooks = NightHooks {
            phase_done: Some(&sink),
            ..NightHooks::default()
        };
        let r = run(&s, &night(), &hooks);
        let canonical = ["resolution", "maintenance", "world_models", "dream"];
        assert_eq!(r.phases, canonical);
        assert_eq!(*order.borrow(), canonical, "[{}]", s.name);
        assert_eq!(r.pass_name, "sleep_pass");
        assert_eq!(r.resolution.result.pass_name, "resolve_dreams_pass");
        assert_eq!(r.maintenance.result.created_count, 1, "[{}]", s.name);
        assert!(r.dream.created, "[{}] {:?}", s.name, r.dream.skipped_reason);
        assert_eq!(r.cancelled_after, None);
        assert_eq!(r.completion.len(), 1);
        assert_eq!(r.completion[0].kind, MaintenanceKind::Night);
        assert!(last_night(&s, MaintenanceKind::Night).is_some());
        let since = s
            .system
            .records_since_maintenance(&RecordsSinceMaintenance::default())
            .unwrap();
        assert_eq!(since.boundary_source.as_str(), "memory", "[{}]", s.name);
    }
}

#[test]
fn the_world_models_phase_is_skipped_with_its_stated_reason_never_silently() {
    for (s, _) in stacks(true) {
        lived(&s);
        let accounts = RefCell::new(Vec::<(String, String)>::new());
        let sink = |p: &str, a: &str| accounts.borrow_mut().push((p.to_owned(), a.to_owned()));
        let hooks = NightHooks {
            phase_done: Some(&sink),
            ..NightHooks::default()
        };
        let r = run(&s, &night(), &hooks);
        assert_eq!(r.world_models.pass_name, "world_model_pass");
        assert_eq!(r.world_models.skipped_reason, WORLD_MODELS_NOT_BUILT);
        let said = accounts
            .borrow()
            .iter()
            .find(|(p, _)| p == "world_models")
            .cloned()
            .unwrap();
        assert!(said.1.contains("skipped"), "{said:?}");
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["world_models"]["skipped_reason"].is_string());
    }
}

#[test]
fn the_nights_authoring_receipt_sums_its_sub_phases_receipts() {
    for (s, _) in stacks(true) {
        lived(&s);
        let r = run(&s, &night(), &NightHooks::default());
        assert_eq!(r.maintenance.result.authoring.failures.len(), 1);
        assert_eq!(r.dream.authoring.failures.len(), 1);
        assert_eq!(r.authoring.failures.len(), 2, "[{}]", s.name);
        let passes: Vec<&str> = r
            .authoring
            .failures
            .iter()
            .map(|f| f.pass.as_str())
            .collect();
        assert_eq!(passes, ["consolidation_pass", "dream_pass"]);
    }
}

/// A `should_continue` that says yes `n` times, then no.
fn yes_times(n: usize) -> impl Fn() -> bool {
    let left = Cell::new(n);
    move || {
        let l = left.get();
        if l == 0 {
            false
        } else {
            left.set(l - 1);
            true
        }
    }
}

#[test]
fn should_continue_ends_the_night_at_each_boundary_later_phases_skip_in_their_own_shapes() {
    for (after, yeses, ran) in [
        (CANCELLED_AT_START, 0, 0_usize),
        ("resolution", 1, 1),
        ("maintenance", 2, 2),
        ("maintenance", 3, 2),
    ] {
        for (s, _) in stacks(true) {
            lived(&s);
            let go = yes_times(yeses);
            let hooks = NightHooks {
                should_continue: Some(&go),
                ..NightHooks::default()
            };
            let r = run(&s, &night(), &hooks);
            assert_eq!(
                r.cancelled_after.as_deref(),
                Some(after),
                "[{}] {yeses}",
                s.name
            );
            let json = serde_json::to_value(&r).unwrap();
            for (i, phase) in ["resolution", "maintenance", "dream"].iter().enumerate() {
                let i = if *phase == "dream" { 3 } else { i };
                let why = json[phase]["skipped_reason"].as_str();
                if i < ran {
                    assert!(why.is_none(), "[{}] {phase} ran: {why:?}", s.name);
                } else {
                    assert!(
                        why.is_some_and(|w| w.starts_with("cancelled:") && w.contains(after)),
                        "[{}] {phase}: {why:?}",
                        s.name
                    );
                }
            }
            assert!(!r.dream.created);
            assert!(r.completion.is_empty(), "a cancelled night records nothing");
            assert!(last_night(&s, MaintenanceKind::Night).is_none());
        }
    }
}

#[test]
fn cancelled_shapes_mirror_the_real_ones_key_for_key() {
    for (s, _) in stacks(true) {
        lived(&s);
        let stop = || false;
        let hooks = NightHooks {
            should_continue: Some(&stop),
            ..NightHooks::default()
        };
        let cancelled = serde_json::to_value(run(&s, &night(), &hooks)).unwrap();
        let real = serde_json::to_value(run(&s, &night(), &NightHooks::default())).unwrap();
        for phase in ["resolution", "maintenance", "world_models", "dream"] {
            let mut want = keys(&real[phase]);
            if !want.contains(&"skipped_reason".to_owned()) {
                want.push("skipped_reason".to_owned());
                want.sort();
            }
            assert_eq!(keys(&cancelled[phase]), want, "[{}] {phase}", s.name);
        }
        assert_eq!(
            keys(&cancelled["maintenance"]["report"]),
            keys(&real["maintenance"]["report"])
        );
        assert_eq!(
            keys(&cancelled["dream"]["report"]),
            keys(&real["dream"]["report"])
        );
    }
}

#[test]
fn cancelled_before_the_completion_marker_the_night_records_nothing_and_the_next_completes_idempotently()
 {
    for (s, _) in stacks(true) {
        lived(&s);
        // `cancelled` is asked at the four boundaries, then before the
        // marker: true only there.
        let calls = Cell::new(0);
        let late = || {
            calls.set(calls.get() + 1);
            calls.get() > 4
        };
        let hooks = NightHooks {
            cancelled: Some(&late),
            ..NightHooks::default()
        };
        let r = run(&s, &night(), &hooks);
        assert_eq!(
            calls.get(),
            5,
            "asked at each boundary and before the marker"
        );
        assert!(r.dream.created, "the dream phase ran whole");
        assert_eq!(r.cancelled_after.as_deref(), Some("dream"));
        assert!(r.completion.is_empty());
        assert!(
            last_night(&s, MaintenanceKind::Night).is_none(),
            "[{}]",
            s.name
        );
        // The next night finds the work done and completes.
        let before_tasks = tasks(&s);
        let again = run(&s, &night(), &NightHooks::default());
        assert_eq!(again.maintenance.result.created_count, 0);
        assert!(!again.dream.created);
        assert_eq!(tasks(&s), before_tasks, "nothing formed twice");
        assert_eq!(again.completion.len(), 1);
        assert!(last_night(&s, MaintenanceKind::Night).is_some());
    }
}

#[test]
fn a_cycle_window_skips_the_dream_and_is_recorded_as_a_cycle_not_a_night() {
    for (s, _) in stacks(true) {
        lived(&s);
        let mut cycle = night();
        cycle.include_dream = false;
        let r = run(&s, &cycle, &NightHooks::default());
        assert!(
            r.dream
                .skipped_reason
                .as_deref()
                .is_some_and(|w| w.starts_with("cycle window")),
            "{:?}",
            r.dream.skipped_reason
        );
        assert_eq!(r.dream.dream_record_id, None);
        assert_eq!(r.maintenance.result.created_count, 1);
        assert_eq!(r.completion[0].kind, MaintenanceKind::Cycle);
        assert!(last_night(&s, MaintenanceKind::Night).is_none());
        assert!(last_night(&s, MaintenanceKind::Cycle).is_some());
        let since = s
            .system
            .records_since_maintenance(&RecordsSinceMaintenance::default())
            .unwrap();
        assert_eq!(
            since.boundary_source.as_str(),
            "birth",
            "a cycle moves no cadence"
        );
    }
}

#[test]
fn a_report_only_night_writes_and_records_nothing_even_without_the_task_queue() {
    for queue in [true, false] {
        for (s, _) in stacks(queue) {
            lived(&s);
            let before = written(&s);
            let mut dry = night();
            dry.report_only = true;
            let r = run(&s, &dry, &NightHooks::default());
            assert_eq!(r.maintenance.result.created_count, 0);
            assert_eq!(
                r.dream.skipped_reason.as_deref(),
                Some("report_only requested")
            );
            assert!(r.completion.is_empty());
            assert_eq!(written(&s), before, "[{}] queue {queue}", s.name);
        }
    }
}

#[test]
fn a_write_without_the_task_queue_as_of_with_a_write_or_a_cap_outside_the_band_is_refused_before_any_phase()
 {
    for (s, _) in stacks(false) {
        lived(&s);
        let before = written(&s);
        assert_refused(
            &s,
            &before,
            s.system.sleep_pass(&night(), None, &NightHooks::default()),
            ErrorKind::InvalidInput,
            &["task_queue=True"],
        );
    }
    for (s, _) in stacks(true) {
        lived(&s);
        let before = written(&s);
        let mut anchored = night();
        anchored.as_of = Some(1);
        assert_refused(
            &s,
            &before,
            s.system.sleep_pass(&anchored, None, &NightHooks::default()),
            ErrorKind::InvalidInput,
            &["as_of", "report_only"],
        );
        let mut wide = night();
        wide.max_candidates = 9;
        assert_refused(
            &s,
            &before,
            s.system.sleep_pass(&wide, None, &NightHooks::default()),
            ErrorKind::InvalidInput,
            &["max_candidates"],
        );
        assert_refused(
            &s,
            &before,
            s.system.sleep_pass(
                &SleepPass::new(&[(SCOPE, OWNER)], " "),
                None,
                &NightHooks::default(),
            ),
            ErrorKind::InvalidInput,
            &["owner_id"],
        );
    }
}

#[test]
fn sleep_proposes_waking_evidence_disposes_access_counts_and_activation_unchanged_across_a_night() {
    for (s, _) in stacks(true) {
        lived(&s);
        let ids: Vec<String> = s
            .store
            .query(&am_triples::TripleQuery {
                scope: Some(SCOPE.to_owned()),
                limit: 0,
                ..am_triples::TripleQuery::default()
            })
            .unwrap()
            .into_iter()
            .map(|a| a.subject)
            .collect();
        let before = deposits(&s, &ids);
        let r = run(&s, &night(), &NightHooks::default());
        assert!(r.dream.created && r.maintenance.result.created_count == 1);
        assert_eq!(deposits(&s, &ids), before, "[{}]", s.name);
    }
}

#[test]
fn the_night_threads_its_tending_into_the_dream_operations_as_salience_acts_as_signals() {
    for (s, _) in stacks(true) {
        lived(&s);
        let r = run(&s, &night(), &NightHooks::default());
        let ops = r.maintenance.result.report.operations.len();
        assert!(ops > 0);
        let grouped: Vec<_> = r
            .dream
            .signals
            .iter()
            .filter(|sig| sig.phase == "maintenance" && sig.act == "grouped")
            .collect();
        assert_eq!(grouped.len(), 1, "[{}] {:?}", s.name, r.dream.signals);
        assert!(
            grouped[0]
                .touched
                .contains(&r.maintenance.result.created[0].candidate_id)
        );
        let stored = s
            .store
            .query(&am_triples::TripleQuery {
                subject: r.dream.dream_record_id.clone(),
                predicate: Some("dcterms:abstract".to_owned()),
                limit: 1,
                ..am_triples::TripleQuery::default()
            })
            .unwrap();
        assert!(
            stored[0].object.contains("The night also moved"),
            "{}",
            stored[0].object
        );
        let underlinked = r.dream.report.underlinked_facets.len();
        let base = 3 * r.dream.proposals.len() + 2 * r.dream.questions.len() + underlinked;
        assert_eq!(r.dream.salience, base + ops.min(4), "[{}]", s.name);
    }
}
