//! `sleep_pass`: ONE night, `resolution → maintenance → world_models →
//! dream`, each sub-phase's dict, the summed `authoring` receipt, the
//! boundaries where the host ends the night, and the completion marker.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`sleep_pass`,
//! `records_since_maintenance`), memory-system.md "Sleep". 0.3.2's night
//! also runs `mining` and `identity`: here they are not sub-phases (the
//! spec's four are pinned below).

use crate::common::{Stack, assert_refused, written};
use crate::support::{OWNER, SCOPE, deposits, form, operator_author, stacks, tasks};
use am_system::sleep::{
    CANCELLED_AT_START, NightHooks, RecordsSinceMaintenance, SleepPass, SleepResult,
    WORLD_MODELS_AS_OF,
};
use am_system::tasks::{LastMaintenance, MaintenanceKind};
use am_system::world_models::WorldModelPass;
use am_system::{MemoryRecordInput, RecordKind};
use am_triples::ErrorKind;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::sync::{Arc, Mutex};

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

/// Three lived episodes with Ada (the world models' evidence floor).
fn with_ada(s: &Stack, key: &str) {
    for i in 0..3 {
        let mut r = MemoryRecordInput::new(
            RecordKind::Episode,
            &format!("Ada {key} {i}"),
            &format!("Ada and the garden, {key} {i}."),
        );
        r.participants = vec!["person:ada".into()];
        form(s, r, &format!("{key}-{i}"));
    }
}

/// (target, revision, source_count, formed, pending) of each verdict.
fn verdicts(
    r: &am_system::world_models::WorldModelReport,
) -> Vec<(String, i64, usize, bool, Vec<String>)> {
    r.formed
        .iter()
        .map(|v| {
            (
                v.target.clone(),
                v.revision,
                v.source_count,
                v.formed,
                v.pending.clone(),
            )
        })
        .collect()
}

#[test]
fn the_world_models_phase_forms_the_cards_a_world_model_pass_would_pending_without_an_author() {
    let twins = stacks(true);
    for ((s, _), (twin, _)) in stacks(true).into_iter().zip(twins) {
        with_ada(&s, "a");
        with_ada(&twin, "a");
        let accounts = RefCell::new(Vec::<(String, String)>::new());
        let sink = |p: &str, a: &str| accounts.borrow_mut().push((p.to_owned(), a.to_owned()));
        let hooks = NightHooks {
            phase_done: Some(&sink),
            ..NightHooks::default()
        };
        let r = run(&s, &night(), &hooks);
        let alone = twin
            .system
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        let w = &r.world_models;
        assert_eq!(w.skipped_reason, None, "[{}]", s.name);
        assert_eq!(w.result.pass_name, "world_model_pass");
        assert_eq!(verdicts(&w.result), verdicts(&alone), "[{}]", s.name);
        assert_eq!(
            verdicts(&w.result),
            [(
                "person:ada".to_owned(),
                1,
                3,
                true,
                vec!["title".to_owned(), "summary".to_owned()]
            )]
        );
        assert_eq!(w.result.formed_count, 1);
        let wm_failures: Vec<_> = r
            .authoring
            .failures
            .iter()
            .filter(|f| f.pass == "world_model_pass")
            .collect();
        assert_eq!(
            wm_failures.len(),
            1,
            "[{}] the card's receipt is summed",
            s.name
        );
        let said = accounts
            .borrow()
            .iter()
            .find(|(p, _)| p == "world_models")
            .cloned()
            .unwrap();
        assert!(said.1.contains("1 card(s) formed"), "{said:?}");
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["world_models"].get("skipped_reason").is_none());
        assert_eq!(
            json["world_models"]["authoring"]["failures"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }
}

#[test]
fn with_an_author_the_nights_cards_are_authored_and_owe_nothing() {
    for (s, _) in stacks(true) {
        with_ada(&s, "a");
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let r = s
            .system
            .sleep_pass(&night(), Some(&author), &NightHooks::default())
            .unwrap()
            .value;
        let w = &r.world_models.result;
        assert_eq!(w.formed.len(), 1, "[{}] {w:?}", s.name);
        assert!(w.formed[0].pending.is_empty(), "[{}] {w:?}", s.name);
        assert_eq!(w.authoring.authored.len(), 1);
        assert!(
            calls
                .lock()
                .unwrap()
                .iter()
                .any(|c| c.pass == "world_model_pass"),
            "the host's author was asked for the card"
        );
        assert!(
            r.authoring
                .authored
                .iter()
                .any(|a| a.pass == "world_model_pass"),
            "[{}] the card's receipt is in the night's",
            s.name
        );
    }
}

#[test]
fn a_second_night_over_unchanged_evidence_forms_no_card() {
    for (s, _) in stacks(true) {
        with_ada(&s, "a");
        let first = run(&s, &night(), &NightHooks::default());
        assert_eq!(first.world_models.result.formed_count, 1);
        let before = tasks(&s);
        let second = run(&s, &night(), &NightHooks::default());
        let w = &second.world_models.result;
        assert!(w.formed.is_empty(), "[{}] {w:?}", s.name);
        assert_eq!(w.formed_count, 0);
        let unchanged: Vec<&str> = w.unchanged.iter().map(|u| u.target.as_str()).collect();
        assert_eq!(unchanged, ["person:ada"], "[{}]", s.name);
        assert!(
            !second
                .authoring
                .failures
                .iter()
                .any(|f| f.pass == "world_model_pass"),
            "an unchanged card owes no new receipt"
        );
        assert_eq!(tasks(&s), before, "[{}] nothing formed twice", s.name);
    }
}

#[test]
fn a_dream_after_the_world_models_carries_the_card_formed_signal() {
    for (s, _) in stacks(true) {
        lived(&s);
        with_ada(&s, "a");
        let r = run(&s, &night(), &NightHooks::default());
        assert!(r.dream.created, "[{}] {:?}", s.name, r.dream.skipped_reason);
        let card = r.world_models.result.formed[0].card_id.clone().unwrap();
        let sig = r
            .dream
            .signals
            .iter()
            .find(|g| g.phase == "world_models")
            .unwrap_or_else(|| panic!("[{}] {:?}", s.name, r.dream.signals));
        assert_eq!(sig.act, "card_formed");
        assert_eq!(sig.kind.as_str(), "changed_understanding");
        assert_eq!(sig.touched, [card]);
        assert!(sig.fragment.contains("ada"), "{}", sig.fragment);
    }
}

#[test]
fn an_as_of_night_skips_the_world_models_saying_why_in_the_real_shape() {
    for (s, _) in stacks(true) {
        with_ada(&s, "a");
        let mut anchored = night();
        anchored.report_only = true;
        anchored.as_of = Some(1);
        let r = run(&s, &anchored, &NightHooks::default());
        assert_eq!(
            r.world_models.skipped_reason.as_deref(),
            Some(WORLD_MODELS_AS_OF)
        );
        assert!(r.world_models.result.formed.is_empty());
        let real = serde_json::to_value(run(&s, &night(), &NightHooks::default())).unwrap();
        let json = serde_json::to_value(&r).unwrap();
        let mut want = keys(&real["world_models"]);
        want.push("skipped_reason".to_owned());
        want.sort();
        assert_eq!(keys(&json["world_models"]), want, "[{}]", s.name);
    }
}

#[test]
fn cancelled_after_maintenance_the_world_models_are_skipped_in_their_real_shape_and_form_nothing() {
    for (s, _) in stacks(true) {
        with_ada(&s, "a");
        let go = yes_times(2);
        let hooks = NightHooks {
            should_continue: Some(&go),
            ..NightHooks::default()
        };
        let r = run(&s, &night(), &hooks);
        assert_eq!(r.cancelled_after.as_deref(), Some("maintenance"));
        assert!(
            r.world_models
                .skipped_reason
                .as_deref()
                .is_some_and(|w| w.starts_with("cancelled:") && w.contains("maintenance")),
            "[{}] {:?}",
            s.name,
            r.world_models.skipped_reason
        );
        assert!(r.world_models.result.formed.is_empty());
        assert!(
            !r.authoring
                .failures
                .iter()
                .any(|f| f.pass == "world_model_pass"),
            "no card was formed"
        );
        let real = serde_json::to_value(run(&s, &night(), &NightHooks::default())).unwrap();
        assert_eq!(
            real["world_models"]["formed_count"], 1,
            "the card was left for the next night"
        );
        let json = serde_json::to_value(&r).unwrap();
        let mut want = keys(&real["world_models"]);
        want.push("skipped_reason".to_owned());
        want.sort();
        assert_eq!(keys(&json["world_models"]), want, "[{}]", s.name);
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
        ("world_models", 3, 3),
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
            for (i, phase) in ["resolution", "maintenance", "world_models", "dream"]
                .iter()
                .enumerate()
            {
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
