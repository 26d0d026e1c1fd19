//! The memory task queue (`system.tasks()`), one test per contract sentence,
//! each on both stacks (the in-memory pair's queue and the SQLite home's
//! `memq_*` tables) with identical answers.
//!
//! Spec: api.md "The memory task queue: understanding in the background".

mod common;

use am_journal::{TaskKind, TaskStatus, Window};
use am_system::RecordKind;
use am_system::tasks::{
    Ack, Claim, ClaimTasks, DEFAULT_TASK_SECONDS, Enqueue, GATE_FLOOR, LeftOutReason, ListTasks,
    Prioritize, RIPPLE_WINDOW_CAP, Release, ReleaseOutcome, SelectForWindow, WindowSelection,
    task_id,
};
use am_system::{MemoryRecordInput, RememberMany, SystemOptions, TaskQueue};
use am_triples::{CommitGuard, ErrorKind};
use common::{PINNED_NOW, Stack, memory_stack, sqlite_stack};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

const LATER: &str = "2026-03-01T12:20:00.000000+00:00";
const MUCH_LATER: &str = "2026-03-01T14:00:00.000000+00:00";

fn queued() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        ..SystemOptions::default()
    }
}

/// Run `check` on both stacks and require identical answers.
fn both(check: impl Fn(&Stack, TaskQueue<'_>) -> Value) -> Value {
    let mem = memory_stack(queued());
    let sql = sqlite_stack(queued());
    let a = check(&mem, mem.system.tasks().unwrap());
    let b = check(&sql, sql.system.tasks().unwrap());
    assert_eq!(a, b, "the two stacks answered differently");
    a
}

fn task(kind: TaskKind, target: &str, strength: f64) -> Enqueue {
    Enqueue::new(
        kind,
        target,
        ("session", "s1"),
        &format!("{target}@v0"),
        strength,
        "backfill",
    )
}

fn ids(s: &WindowSelection) -> Vec<String> {
    s.tasks.iter().map(|t| t.task.task_id.clone()).collect()
}

fn reasons(s: &WindowSelection) -> Vec<(String, LeftOutReason)> {
    s.left_out
        .iter()
        .map(|l| (l.target_id().to_owned(), l.reason))
        .collect()
}

fn status(q: TaskQueue<'_>, id: &str, now: &str) -> TaskStatus {
    q.tasks(&ListTasks {
        now: Some(now.parse().unwrap()),
        ..ListTasks::default()
    })
    .unwrap()
    .into_iter()
    .find(|t| t.task_id == id)
    .unwrap()
    .status
}

fn claim_ids(
    q: TaskQueue<'_>,
    ids: &[&str],
    holder: &str,
    now: &str,
) -> am_system::tasks::ClaimResult {
    q.claim(&Claim {
        now: Some(now.parse().unwrap()),
        ..Claim::new(
            ids.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
            holder,
        )
    })
    .unwrap()
}

#[test]
fn enqueue_is_idempotent_by_task_id_hash_of_kind_target_basis() {
    both(|_, q| {
        let a = task(TaskKind::DigestRewrite, "ex:r1", 0.8);
        let first = q.enqueue(&a).unwrap();
        assert!(first.enqueued);
        assert_eq!(
            first.task_id,
            task_id(TaskKind::DigestRewrite, "ex:r1", "ex:r1@v0")
        );
        let again = q.enqueue(&a).unwrap();
        assert!(!again.enqueued);
        assert_eq!(again.task_id, first.task_id);
        assert_eq!(q.tasks(&ListTasks::default()).unwrap().len(), 1);
        assert_eq!(q.log(&first.task_id).unwrap().len(), 1);
        json!([first, again])
    });
}

#[test]
fn a_basis_older_than_the_records_current_version_is_refused_stale_basis() {
    both(|s, q| {
        let ids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Episode, "Pool", "The pool ran dry.")
                        .with_attribute("digest_version", 2),
                ],
                "session",
                "s1",
                "k1",
            ))
            .unwrap()
            .value;
        let mut old = task(TaskKind::DigestRewrite, &ids[0], 0.8);
        old.basis_version = 1;
        let r = q.enqueue(&old).unwrap();
        assert!(!r.enqueued);
        assert_eq!(r.reason.as_deref(), Some("stale_basis"));
        assert!(q.tasks(&ListTasks::default()).unwrap().is_empty());
        let mut current = old.clone();
        current.basis = format!("{}@v2", ids[0]);
        current.basis_version = 2;
        assert!(q.enqueue(&current).unwrap().enqueued);
        json!(r)
    });
}

#[test]
fn a_newer_basis_supersedes_the_older_pending_task() {
    both(|_, q| {
        let old = task(TaskKind::DigestRewrite, "ex:r1", 0.8);
        let old_id = q.enqueue(&old).unwrap().task_id;
        let mut newer = old.clone();
        newer.basis = "ex:r1@v1".into();
        newer.basis_version = 1;
        let r = q.enqueue(&newer).unwrap();
        assert!(r.enqueued);
        assert_eq!(r.superseded, std::slice::from_ref(&old_id));
        let t = q.task(&old_id).unwrap().unwrap();
        assert_eq!(t.status, TaskStatus::Superseded);
        assert_eq!(t.superseded_by.as_deref(), Some(r.task_id.as_str()));
        // And an older basis after it is stale.
        let mut older = old.clone();
        older.basis = "ex:r1@v0b".into();
        let stale = q.enqueue(&older).unwrap();
        assert_eq!(stale.reason.as_deref(), Some("stale_basis"));
        json!([r, stale])
    });
}

#[test]
fn enqueue_refuses_bad_arguments_and_writes_nothing() {
    both(|_, q| {
        let bad = task(TaskKind::DigestRewrite, "ex:r1", 1.5);
        assert_eq!(q.enqueue(&bad).unwrap_err().kind(), ErrorKind::InvalidInput);
        // max_attempts is positive by its type: a 0 or a negative count is
        // refused where the arguments are read, before the queue sees it.
        for n in [0, -2] {
            let line = json!({"kind": "digest.rewrite", "target_id": "ex:r1", "scope": "life",
                              "owner_id": "demo", "basis": "ex:r1@v0", "strength": 0.5,
                              "cause": "backfill", "max_attempts": n});
            let err = serde_json::from_value::<Enqueue>(line).expect_err("max_attempts");
            assert!(err.to_string().contains("nonzero"), "{err}");
        }
        let mut dream = task(TaskKind::DreamNarrate, "ex:d1", 0.5);
        dream.windows = Some(vec![Window::Turn]);
        let err = q.enqueue(&dream).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("night"), "{err}");
        assert!(q.tasks(&ListTasks::default()).unwrap().is_empty());
        json!(null)
    });
}

#[test]
fn select_for_window_is_a_pure_read() {
    both(|s, q| {
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:r1", 0.9))
            .unwrap();
        let before = common::written(s);
        let log_before = q
            .log(&task_id(TaskKind::DigestRewrite, "ex:r1", "ex:r1@v0"))
            .unwrap();
        let a = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        let b = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        assert_eq!(a, b);
        assert_eq!(common::written(s), before);
        assert_eq!(
            q.log(&task_id(TaskKind::DigestRewrite, "ex:r1", "ex:r1@v0"))
                .unwrap(),
            log_before
        );
        assert_eq!(q.counts().unwrap().by_status["pending"], 1);
        json!(a)
    });
}

#[test]
fn a_task_is_a_candidate_at_or_above_the_gates_floor_and_sensitivity_moves_the_gate() {
    both(|_, q| {
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:weak", 0.0))
            .unwrap();
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:strong", 0.9))
            .unwrap();
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        assert_eq!(sel.tasks.len(), 1);
        assert_eq!(sel.tasks[0].task.target_id, "ex:strong");
        assert_eq!(
            reasons(&sel),
            [("ex:weak".to_owned(), LeftOutReason::BelowGate)]
        );
        assert!(sel.left_out[0].activation < GATE_FLOOR);
        assert!(sel.tasks[0].activation >= GATE_FLOOR);
        assert_eq!(
            sel.tasks[0].activation,
            1.0 / (1.0 + (-6.0f64 * (0.9 - 0.5)).exp())
        );
        // Highest activation first.
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:mid", 0.5))
            .unwrap();
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        let order: Vec<&str> = sel
            .tasks
            .iter()
            .map(|t| t.task.target_id.as_str())
            .collect();
        assert_eq!(order, ["ex:strong", "ex:mid"]);
        // A higher sensitivity lifts the weak one... unless its strength is 0.
        let mut weak = task(TaskKind::DigestRewrite, "ex:faint", 0.1);
        weak.basis = "faint".into();
        q.enqueue(&weak).unwrap();
        let low = q
            .select_for_window(&SelectForWindow {
                sensitivity: 0.1,
                ..SelectForWindow::new(600.0)
            })
            .unwrap();
        let high = q
            .select_for_window(&SelectForWindow {
                sensitivity: 3.0,
                ..SelectForWindow::new(600.0)
            })
            .unwrap();
        assert!(high.tasks.len() > low.tasks.len());
        json!([sel, low, high])
    });
}

#[test]
fn candidates_are_taken_while_their_cost_fits_the_budget() {
    both(|_, q| {
        for (t, hint) in [("ex:a", 40.0), ("ex:b", 40.0), ("ex:c", 10.0)] {
            let mut e = task(TaskKind::DigestRewrite, t, 0.9);
            e.cost_hint = Some(hint);
            q.enqueue(&e).unwrap();
        }
        let sel = q.select_for_window(&SelectForWindow::new(60.0)).unwrap();
        let got: Vec<&str> = sel
            .tasks
            .iter()
            .map(|t| t.task.target_id.as_str())
            .collect();
        assert_eq!(got, ["ex:a", "ex:c"]);
        assert_eq!(sel.planned_seconds, 50.0);
        assert_eq!(
            reasons(&sel),
            [("ex:b".to_owned(), LeftOutReason::OverBudget)]
        );
        assert_eq!(sel.left_out_counts["over_budget"], 1);
        json!(sel)
    });
}

#[test]
fn cost_is_cost_of_else_the_kinds_recent_median_else_default_task_seconds() {
    both(|_, q| {
        let first = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:a", 0.9))
            .unwrap()
            .task_id;
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        assert_eq!(sel.tasks[0].cost, DEFAULT_TASK_SECONDS);
        // A host callable wins.
        let costed = q
            .select_for_window_costed(&SelectForWindow::new(600.0), Some(&|_| Some(7.0)))
            .unwrap();
        assert_eq!(costed.tasks[0].cost, 7.0);
        // Completed tasks of the kind give their median seconds.
        claim_ids(q, &[&first], "h", PINNED_NOW);
        q.ack(&Ack {
            task_id: first.clone(),
            holder: "h".into(),
            result: json!({"outcome": "applied", "seconds": 12.0}),
            now: None,
        })
        .unwrap();
        let second = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:b", 0.9))
            .unwrap()
            .task_id;
        let t = q.task(&second).unwrap().unwrap();
        assert_eq!(q.cost_of(&t).unwrap(), 12.0);
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        assert_eq!(sel.tasks[0].cost, 12.0);
        json!([costed.tasks[0].cost, sel.tasks[0].cost])
    });
}

#[test]
fn at_most_hard_cap_tasks_are_selected() {
    both(|_, q| {
        for i in 0..5 {
            q.enqueue(&task(TaskKind::DigestRewrite, &format!("ex:r{i}"), 0.9))
                .unwrap();
        }
        let sel = q
            .select_for_window(&SelectForWindow {
                hard_cap: 2,
                ..SelectForWindow::new(10_000.0)
            })
            .unwrap();
        assert_eq!(sel.tasks.len(), 2);
        assert_eq!(sel.left_out_counts["hard_cap"], 3);
        json!(sel)
    });
}

#[test]
fn at_most_twenty_ripple_reconsiderations_per_window() {
    both(|_, q| {
        let many: Vec<Enqueue> = (0..RIPPLE_WINDOW_CAP + 5)
            .map(|i| {
                let mut e = task(TaskKind::RippleReconsider, &format!("ex:m{i}"), 0.9);
                e.cost_hint = Some(1.0);
                e
            })
            .collect();
        q.enqueue_many(&many).unwrap();
        let sel = q
            .select_for_window(&SelectForWindow::new(10_000.0))
            .unwrap();
        assert_eq!(sel.tasks.len(), RIPPLE_WINDOW_CAP);
        assert_eq!(sel.left_out_counts["ripple_window_cap"], 5);
        json!(sel.left_out_counts)
    });
}

#[test]
fn dream_narrate_runs_only_in_night_and_nap_and_ripple_consolidate_only_in_night() {
    both(|_, q| {
        q.enqueue(&task(TaskKind::DreamNarrate, "ex:dream", 0.9))
            .unwrap();
        q.enqueue(&task(TaskKind::RippleConsolidate, "rip-1", 0.9))
            .unwrap();
        let mut out = Vec::new();
        for w in [Window::Turn, Window::Nap, Window::Night] {
            let sel = q
                .select_for_window(&SelectForWindow {
                    window: w,
                    ..SelectForWindow::new(600.0)
                })
                .unwrap();
            let got: BTreeSet<String> =
                sel.tasks.iter().map(|t| t.task.target_id.clone()).collect();
            out.push((w.as_str(), got, reasons(&sel)));
        }
        assert!(out[0].1.is_empty());
        assert!(out[0].2.iter().all(|(_, r)| *r == LeftOutReason::Window));
        assert_eq!(out[1].1, BTreeSet::from(["ex:dream".to_owned()]));
        assert_eq!(out[1].2, [("rip-1".to_owned(), LeftOutReason::Window)]);
        assert_eq!(out[2].1.len(), 2);
        json!(out)
    });
}

#[test]
fn every_live_task_is_selected_or_left_out_with_exactly_one_reason() {
    both(|_, q| {
        let dep = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:dep", 0.9))
            .unwrap()
            .task_id;
        let mut blocked = task(TaskKind::DigestRewrite, "ex:blocked", 0.9);
        blocked.depends_on = vec![dep.clone()];
        q.enqueue(&blocked).unwrap();
        let mut later = task(TaskKind::DigestRewrite, "ex:later", 0.9);
        later.not_before = Some(MUCH_LATER.parse().unwrap());
        q.enqueue(&later).unwrap();
        let mut other = task(TaskKind::DigestRewrite, "ex:other", 0.9);
        other.scope = "life".into();
        q.enqueue(&other).unwrap();
        q.enqueue(&task(TaskKind::TitleAuthor, "ex:title", 0.9))
            .unwrap();
        q.enqueue(&task(TaskKind::DreamNarrate, "ex:dream", 0.9))
            .unwrap();
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:weak", 0.0))
            .unwrap();
        let leased = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:leased", 0.9))
            .unwrap()
            .task_id;
        claim_ids(q, &[&leased], "other-holder", PINNED_NOW);
        let sel = q
            .select_for_window(&SelectForWindow {
                scopes: Some(vec![("session".into(), "s1".into())]),
                kinds: Some(vec![TaskKind::DigestRewrite, TaskKind::DreamNarrate]),
                ..SelectForWindow::new(600.0)
            })
            .unwrap();
        let mut seen: Vec<String> = ids(&sel);
        seen.extend(sel.left_out.iter().map(|l| l.task_id().to_owned()));
        let unique: BTreeSet<&String> = seen.iter().collect();
        assert_eq!(unique.len(), seen.len(), "a task was listed twice");
        let live: BTreeSet<String> = q
            .tasks(&ListTasks::default())
            .unwrap()
            .into_iter()
            .filter(|t| t.status.is_live())
            .map(|t| t.task_id)
            .collect();
        assert_eq!(unique.into_iter().cloned().collect::<BTreeSet<_>>(), live);
        let mut got = reasons(&sel);
        got.sort();
        assert_eq!(
            got,
            [
                ("ex:blocked".to_owned(), LeftOutReason::Blocked),
                ("ex:dream".to_owned(), LeftOutReason::Window),
                ("ex:later".to_owned(), LeftOutReason::NotBefore),
                ("ex:leased".to_owned(), LeftOutReason::Leased),
                ("ex:other".to_owned(), LeftOutReason::Scope),
                ("ex:title".to_owned(), LeftOutReason::Filtered),
                ("ex:weak".to_owned(), LeftOutReason::BelowGate),
            ]
        );
        json!(sel.left_out_counts)
    });
}

#[test]
fn a_task_waits_while_a_dependency_is_pending() {
    both(|_, q| {
        let dep = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:dep", 0.9))
            .unwrap()
            .task_id;
        let mut e = task(TaskKind::DigestAuthor, "ex:summary", 0.9);
        e.depends_on = vec![dep.clone()];
        let id = q.enqueue(&e).unwrap().task_id;
        let r = claim_ids(q, &[&id], "h", PINNED_NOW);
        assert_eq!(r.refused[0].reason, "blocked");
        claim_ids(q, &[&dep], "h", PINNED_NOW);
        q.ack(&Ack {
            task_id: dep,
            holder: "h".into(),
            result: json!({}),
            now: None,
        })
        .unwrap();
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        assert_eq!(ids(&sel), std::slice::from_ref(&id));
        assert_eq!(claim_ids(q, &[&id], "h", PINNED_NOW).claimed.len(), 1);
        json!(r)
    });
}

#[test]
fn a_claim_leases_and_spends_one_attempt_and_an_expired_lease_returns_the_task() {
    both(|_, q| {
        let id = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:r1", 0.9))
            .unwrap()
            .task_id;
        let first = claim_ids(q, &[&id], "alice", PINNED_NOW);
        assert_eq!(first.claimed[0].attempts, 1);
        assert_eq!(first.claimed[0].status, TaskStatus::Leased);
        assert_eq!(
            first.claimed[0].lease_until.as_deref(),
            Some("2026-03-01T12:10:00.000000+00:00")
        );
        let busy = claim_ids(q, &[&id], "bob", "2026-03-01T12:05:00.000000+00:00");
        assert_eq!(busy.refused[0].reason, "leased");
        // After the lease ends the task is back, and another holder takes it.
        assert_eq!(status(q, &id, LATER), TaskStatus::Pending);
        let second = claim_ids(q, &[&id], "bob", LATER);
        assert_eq!(second.claimed[0].attempts, 2);
        assert_eq!(second.claimed[0].holder.as_deref(), Some("bob"));
        let events: Vec<String> = q.log(&id).unwrap().into_iter().map(|r| r.event).collect();
        assert_eq!(events, ["enqueued", "claimed", "expired", "claimed"]);
        json!([first, busy, second])
    });
}

#[test]
fn a_task_claimed_max_attempts_times_without_settling_fails() {
    both(|_, q| {
        let mut e = task(TaskKind::DigestRewrite, "ex:r1", 0.9);
        e.max_attempts = NonZeroU32::new(2).unwrap();
        let id = q.enqueue(&e).unwrap().task_id;
        claim_ids(q, &[&id], "h", PINNED_NOW);
        claim_ids(q, &[&id], "h", LATER);
        assert_eq!(status(q, &id, MUCH_LATER), TaskStatus::Failed);
        let r = claim_ids(q, &[&id], "h", MUCH_LATER);
        assert_eq!(r.refused[0].reason, "max_attempts");
        let t = q.task(&id).unwrap().unwrap();
        assert_eq!(t.status, TaskStatus::Failed);
        assert_eq!(t.attempts, 2);
        json!(r)
    });
}

#[test]
fn ack_settles_a_leased_task_and_a_settled_one_answers_already_done() {
    both(|_, q| {
        let id = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:r1", 0.9))
            .unwrap()
            .task_id;
        let not_leased = q
            .ack(&Ack {
                task_id: id.clone(),
                holder: "h".into(),
                result: json!({}),
                now: None,
            })
            .unwrap();
        assert_eq!(not_leased.reason.as_deref(), Some("not_leased"));
        claim_ids(q, &[&id], "h", PINNED_NOW);
        let wrong = q
            .ack(&Ack {
                task_id: id.clone(),
                holder: "mallory".into(),
                result: json!({}),
                now: None,
            })
            .unwrap();
        assert_eq!(wrong.reason.as_deref(), Some("holder"));
        let result =
            json!({"outcome": "unchanged", "seconds": 41.2, "tokens": 3120, "run_id": "r-1"});
        let ok = q
            .ack(&Ack {
                task_id: id.clone(),
                holder: "h".into(),
                result: result.clone(),
                now: None,
            })
            .unwrap();
        assert!(ok.acked);
        assert_eq!(ok.task.as_ref().unwrap().result.as_ref(), Some(&result));
        let again = q
            .ack(&Ack {
                task_id: id.clone(),
                holder: "h".into(),
                result,
                now: None,
            })
            .unwrap();
        assert!(!again.acked);
        assert_eq!(again.reason.as_deref(), Some("already_done"));
        json!([not_leased, wrong, ok, again])
    });
}

#[test]
fn release_retry_spends_the_attempt_defer_spends_none_and_skip_is_terminal() {
    both(|_, q| {
        let mut e = task(TaskKind::DigestRewrite, "ex:retry", 0.9);
        e.max_attempts = NonZeroU32::new(2).unwrap();
        let retry = q.enqueue(&e).unwrap().task_id;
        let defer = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:defer", 0.9))
            .unwrap()
            .task_id;
        let skip = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:skip", 0.9))
            .unwrap()
            .task_id;
        claim_ids(q, &[&retry, &defer, &skip], "h", PINNED_NOW);
        let r1 = q
            .release(&Release::new(&retry, "h", ReleaseOutcome::Retry, "timeout"))
            .unwrap();
        assert_eq!(r1.task.as_ref().unwrap().status, TaskStatus::Pending);
        assert_eq!(r1.task.as_ref().unwrap().attempts, 1);
        claim_ids(q, &[&retry], "h", PINNED_NOW);
        let r2 = q
            .release(&Release::new(&retry, "h", ReleaseOutcome::Retry, "timeout"))
            .unwrap();
        assert_eq!(r2.task.as_ref().unwrap().status, TaskStatus::Failed);
        let d = q
            .release(&Release {
                until: Some(LATER.parse().unwrap()),
                ..Release::new(&defer, "h", ReleaseOutcome::Defer, "endpoint_unreachable")
            })
            .unwrap();
        let dt = d.task.clone().unwrap();
        assert_eq!(dt.status, TaskStatus::Deferred);
        assert_eq!(dt.attempts, 0);
        assert_eq!(dt.not_before.as_deref(), Some(LATER));
        assert_eq!(
            claim_ids(q, &[&defer], "h", PINNED_NOW).refused[0].reason,
            "not_before"
        );
        assert_eq!(claim_ids(q, &[&defer], "h", LATER).claimed.len(), 1);
        let s = q
            .release(&Release {
                detail: Some(json!({"tokens": 90_000})),
                ..Release::new(&skip, "h", ReleaseOutcome::Skip, "over_context")
            })
            .unwrap();
        assert_eq!(s.task.as_ref().unwrap().status, TaskStatus::Skipped);
        assert_eq!(
            claim_ids(q, &[&skip], "h", MUCH_LATER).refused[0].reason,
            "skipped"
        );
        let stranger = q
            .release(&Release::new(&defer, "mallory", ReleaseOutcome::Skip, "no"))
            .unwrap();
        assert_eq!(stranger.reason.as_deref(), Some("holder"));
        json!([r1, r2, d, s, stranger])
    });
}

#[test]
fn left_out_is_what_the_last_claimed_window_of_each_holder_and_window_left_out() {
    both(|_, q| {
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:strong", 0.9))
            .unwrap();
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:weak", 0.0))
            .unwrap();
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        let claimed = q
            .claim(&Claim::new(ClaimTasks::from(&sel), "drainer"))
            .unwrap();
        assert_eq!(claimed.claimed.len(), 1);
        let rows = q.left_out(Some("drainer"), None).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].window, Window::Turn);
        assert_eq!(rows[0].claimed, ids(&sel));
        assert_eq!(rows[0].left_out[0]["reason"], "below_gate");
        // A second window of the same holder and window replaces it.
        let sel2 = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        q.claim(&Claim::new(ClaimTasks::from(&sel2), "drainer"))
            .unwrap();
        let rows = q.left_out(Some("drainer"), Some(Window::Turn)).unwrap();
        assert_eq!(rows.len(), 1);
        assert!(rows[0].claimed.is_empty());
        assert!(q.left_out(Some("nobody"), None).unwrap().is_empty());
        json!(
            rows.iter()
                .map(|r| (&r.holder, r.window, &r.claimed, &r.left_out))
                .collect::<Vec<_>>()
        )
    });
}

#[test]
fn prioritize_moves_later_tasks_up_never_demotes_and_logs_one_row_each() {
    both(|_, q| {
        let late = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:a", 0.9))
            .unwrap()
            .task_id;
        let mut ahead = task(TaskKind::DigestRewrite, "ex:b", 0.9);
        ahead.priority = Some(1);
        let ahead = q.enqueue(&ahead).unwrap().task_id;
        let args = Prioritize {
            target_ids: vec!["ex:a".into(), "ex:b".into()],
            kinds: vec![TaskKind::DigestRewrite],
            priority: 10,
            reason: "operator asked".into(),
            dry_run: true,
            now: None,
        };
        assert_eq!(q.prioritize(&args).unwrap(), std::slice::from_ref(&late));
        assert_eq!(q.task(&late).unwrap().unwrap().priority, 50);
        let moved = q
            .prioritize(&Prioritize {
                dry_run: false,
                ..args
            })
            .unwrap();
        assert_eq!(moved, std::slice::from_ref(&late));
        assert_eq!(q.task(&late).unwrap().unwrap().priority, 10);
        assert_eq!(q.task(&ahead).unwrap().unwrap().priority, 1);
        let log = q.log(&late).unwrap();
        assert_eq!(log.iter().filter(|r| r.event == "prioritized").count(), 1);
        json!(moved)
    });
}

#[test]
fn supersede_target_supersedes_every_live_task_on_the_target() {
    both(|_, q| {
        let a = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:a", 0.9))
            .unwrap()
            .task_id;
        let b = q
            .enqueue(&task(TaskKind::TitleAuthor, "ex:a", 0.9))
            .unwrap()
            .task_id;
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:other", 0.9))
            .unwrap();
        let mut got = q.supersede_target("ex:a", "revised card").unwrap();
        got.sort();
        let mut want = vec![a, b];
        want.sort();
        assert_eq!(got, want);
        let c = q.counts().unwrap();
        assert_eq!(c.by_status["superseded"], 2);
        assert_eq!(c.live, 1);
        json!(c)
    });
}

#[test]
fn supersede_stale_supersedes_tasks_whose_target_moved_past_their_basis() {
    let record = || {
        RememberMany::new(
            vec![
                MemoryRecordInput::new(RecordKind::Episode, "Pool", "The pool ran dry.")
                    .with_attribute("digest_version", 1),
            ],
            "session",
            "s1",
            "k1",
        )
    };
    // Graph ids derive from (key, position): learn the id on a scratch home.
    let id = memory_stack(SystemOptions::default())
        .system
        .remember_many(&record())
        .unwrap()
        .value[0]
        .clone();
    both(|s, q| {
        // Queued while the record was unknown (no version to check), then the
        // record stands at digest version 1.
        let t = q.enqueue(&task(TaskKind::DigestRewrite, &id, 0.9)).unwrap();
        assert!(t.enqueued);
        assert!(q.supersede_stale().unwrap().is_empty());
        s.system.remember_many(&record()).unwrap();
        assert_eq!(
            q.supersede_stale().unwrap(),
            std::slice::from_ref(&t.task_id)
        );
        assert_eq!(
            q.task(&t.task_id).unwrap().unwrap().status,
            TaskStatus::Superseded
        );
        json!(t)
    });
}

#[test]
fn a_system_without_a_task_queue_has_no_tasks_handle() {
    for s in [
        memory_stack(SystemOptions::default()),
        sqlite_stack(SystemOptions::default()),
    ] {
        let err = s.system.tasks().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("task_queue=True"), "{err}");
    }
}

#[test]
fn every_queue_write_reports_its_tasks_commit_point_and_a_refusal_writes_nothing() {
    let calls: Arc<Mutex<Vec<String>>> = Arc::default();
    let refuse: Arc<Mutex<bool>> = Arc::default();
    let make = || {
        let (c, r) = (calls.clone(), refuse.clone());
        SystemOptions {
            task_queue: true,
            commit_guard: Some(CommitGuard::new(move |p| {
                c.lock().unwrap().push(p.to_owned());
                if *r.lock().unwrap() {
                    Err("stopped".into())
                } else {
                    Ok(())
                }
            })),
            ..SystemOptions::default()
        }
    };
    for s in [memory_stack(make()), sqlite_stack(make())] {
        let q = s.system.tasks().unwrap();
        let take = || std::mem::take(&mut *calls.lock().unwrap());
        take();
        let id = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:a", 0.9))
            .unwrap()
            .task_id;
        assert_eq!(take(), ["tasks.enqueue"], "{}", s.name);
        // A refused claim leaves the task unclaimed.
        *refuse.lock().unwrap() = true;
        let err = q.claim(&Claim::new(vec![id.clone()], "h")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Refused, "{}", s.name);
        *refuse.lock().unwrap() = false;
        assert_eq!(q.task(&id).unwrap().unwrap().status, TaskStatus::Pending);
        assert_eq!(q.log(&id).unwrap().len(), 1, "{}", s.name);
        take();
        q.claim(&Claim::new(vec![id.clone()], "h")).unwrap();
        assert_eq!(take(), ["tasks.claim"]);
        q.release(&Release::new(&id, "h", ReleaseOutcome::Retry, "x"))
            .unwrap();
        assert_eq!(take(), ["tasks.release"]);
        q.claim(&Claim::new(vec![id.clone()], "h")).unwrap();
        take();
        q.ack(&Ack {
            task_id: id.clone(),
            holder: "h".into(),
            result: json!({}),
            now: None,
        })
        .unwrap();
        assert_eq!(take(), ["tasks.ack"]);
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:b", 0.9))
            .unwrap();
        take();
        q.prioritize(&Prioritize {
            target_ids: vec!["ex:b".into()],
            kinds: vec![TaskKind::DigestRewrite],
            priority: 1,
            reason: "r".into(),
            dry_run: false,
            now: None,
        })
        .unwrap();
        assert_eq!(take(), ["tasks.prioritize"]);
        q.supersede_target("ex:b", "gone").unwrap();
        assert_eq!(take(), ["tasks.supersede"]);
        // Pure reads call no guard.
        q.select_for_window(&SelectForWindow::new(60.0)).unwrap();
        q.counts().unwrap();
        assert!(take().is_empty());
    }
}

// ---------------------------------------------------------------------------
// The declared constants and defaults, pinned to the spec's values.

#[test]
fn the_declared_vocabularies_are_the_specs_task_kinds_windows_and_capabilities() {
    use am_journal::{CAPABILITIES, TASK_KINDS, WINDOWS};
    assert_eq!(
        TASK_KINDS,
        [
            "title.author",
            "digest.author",
            "digest.rewrite",
            "card.author",
            "dream.narrate",
            "ripple.reconsider",
            "ripple.consolidate",
        ]
    );
    assert_eq!(WINDOWS, ["turn", "visit", "nap", "cycle", "night", "idle"]);
    assert_eq!(CAPABILITIES, ["summaries", "understanding"]);
    // The capability in parentheses of each kind.
    let capability: Vec<(&str, &str)> = TASK_KINDS
        .iter()
        .map(|k| {
            let kind: TaskKind = k.parse().unwrap();
            (*k, kind.capability())
        })
        .collect();
    assert_eq!(
        capability,
        [
            ("title.author", "summaries"),
            ("digest.author", "summaries"),
            ("digest.rewrite", "summaries"),
            ("card.author", "summaries"),
            ("dream.narrate", "understanding"),
            ("ripple.reconsider", "understanding"),
            ("ripple.consolidate", "understanding"),
        ]
    );
    // The window-only kinds.
    let only: Vec<(&str, Option<&[Window]>)> = TASK_KINDS
        .iter()
        .map(|k| (*k, k.parse::<TaskKind>().unwrap().window_only()))
        .filter(|(_, w)| w.is_some())
        .collect();
    assert_eq!(
        only,
        [
            ("dream.narrate", Some(&[Window::Night, Window::Nap][..])),
            ("ripple.consolidate", Some(&[Window::Night][..])),
        ]
    );
}

#[test]
fn the_priorities_are_formation_5_community_3_and_pending_priority_says_which() {
    use am_system::tasks::{COMMUNITY_PRIORITY, FORMATION_PRIORITY, pending_priority};
    assert_eq!(FORMATION_PRIORITY, 5);
    assert_eq!(COMMUNITY_PRIORITY, 3);
    assert_eq!(pending_priority("community"), 3);
    for kind in ["episode", "world_model", "dream", "summary", "lesson"] {
        assert_eq!(pending_priority(kind), 5, "{kind}");
    }
    // Ahead of every rewrite: a task queued without a priority that is not
    // a formation task waits behind both.
    const { assert!(am_system::tasks::DEFAULT_PRIORITY > FORMATION_PRIORITY) };
}

#[test]
fn the_gate_constants_are_activation_gates_values() {
    use am_system::tasks::{
        CHANGE_MAGNITUDE, DECAY, GATE_K, GATE_THETA, MAX_HOPS, RELATION_WEIGHTS, RIPPLE_BUDGET,
        activation,
    };
    assert_eq!(
        (GATE_K, GATE_THETA, GATE_FLOOR, DECAY),
        (6.0, 0.5, 0.1, 0.5)
    );
    assert_eq!((MAX_HOPS, RIPPLE_BUDGET, RIPPLE_WINDOW_CAP), (2, 20, 20));
    assert_eq!(
        CHANGE_MAGNITUDE,
        [
            ("unchanged", 0.0),
            ("refined", 0.25),
            ("revised", 0.6),
            ("overturned", 1.0)
        ]
    );
    let mut weights: Vec<(&str, f64)> = RELATION_WEIGHTS.to_vec();
    weights.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(
        weights,
        [
            ("answers", 0.75),
            ("continues", 0.5),
            ("derived_from", 1.0),
            ("from_session", 0.5),
            ("mentions", 0.25),
            ("part_of", 0.75),
            ("refines", 1.0),
            ("reflected_in", 0.5),
            ("summarizes", 1.0),
            ("supports", 0.75),
        ]
    );
    // 1 / (1 + e^-6(sensitivity·strength − 0.5)), written out here.
    for (strength, sensitivity) in [(0.0, 1.0), (0.3, 1.0), (0.5, 1.0), (1.0, 1.0), (0.4, 2.5)] {
        let want = 1.0 / (1.0 + (-6.0f64 * (sensitivity * strength - 0.5)).exp());
        assert!(
            (activation(strength, sensitivity) - want).abs() < 1e-12,
            "{strength} {sensitivity}"
        );
    }
    // The floor is reached at a potential of 0.134 (the ripple's words).
    assert!(activation(0.134, 1.0) >= GATE_FLOOR);
    assert!(activation(0.133, 1.0) < GATE_FLOOR);
    // DEFAULT_TASK_SECONDS: the spec names it, not its value; ours is 30 s
    // (docs/tasks.md's `am tasks` example plans 30.0 s a task).
    assert_eq!(DEFAULT_TASK_SECONDS, 30.0);
}

#[test]
fn the_methods_defaults_are_the_specs() {
    // enqueue: assertion_id="", basis_version=0, priority=None,
    // depends_on=(), not_before=None, windows=None, cost_hint=None,
    // max_attempts=3, ripple_id=None, hop=None, now=None.
    let e: Enqueue = serde_json::from_value(json!({
        "kind": "digest.rewrite", "target_id": "ex:a", "scope": "session",
        "owner_id": "s1", "basis": "ex:a@v0", "strength": 0.5, "cause": "backfill"
    }))
    .unwrap();
    let want = Enqueue::new(
        TaskKind::DigestRewrite,
        "ex:a",
        ("session", "s1"),
        "ex:a@v0",
        0.5,
        "backfill",
    );
    assert_eq!(e, want);
    assert_eq!(
        (
            e.assertion_id.as_str(),
            e.basis_version,
            e.priority,
            e.depends_on.len(),
            e.max_attempts.get()
        ),
        ("", 0, None, 0, 3)
    );
    assert!(e.not_before.is_none() && e.windows.is_none() && e.cost_hint.is_none());
    assert!(e.ripple_id.is_none() && e.hop.is_none() && e.now.is_none());
    // select_for_window: sensitivity=1.0, window="turn", scopes=None,
    // kinds=None, capabilities=None, hard_cap=64, cost_of=None.
    let s: SelectForWindow = serde_json::from_value(json!({"budget_seconds": 120.0})).unwrap();
    assert_eq!(s, SelectForWindow::new(120.0));
    assert_eq!(
        (s.sensitivity, s.window, s.hard_cap),
        (1.0, Window::Turn, 64)
    );
    assert!(s.scopes.is_none() && s.kinds.is_none() && s.capabilities.is_none());
    assert!(s.cost_of.is_none());
    // claim: lease_seconds=600, window=None.
    let c: Claim = serde_json::from_value(json!({"tasks": ["t1"], "holder": "h"})).unwrap();
    assert_eq!(c, Claim::new(vec!["t1".to_owned()], "h"));
    assert_eq!((c.lease_seconds, c.window), (600.0, None));
    // release: until=None, detail=None.
    let r: Release = serde_json::from_value(
        json!({"task_id": "t1", "holder": "h", "outcome": "skip", "reason": "why"}),
    )
    .unwrap();
    assert_eq!(r, Release::new("t1", "h", ReleaseOutcome::Skip, "why"));
    // tasks: status=None, kind=None, target_id=None, ripple_id=None, limit=0.
    let l: ListTasks = serde_json::from_value(json!({})).unwrap();
    assert_eq!(l, ListTasks::default());
    assert_eq!(l.limit, 0);
    assert!(l.status.is_none() && l.kind.is_none());
    assert!(l.target_id.is_none() && l.ripple_id.is_none());
    // prioritize: dry_run=False.
    let p: Prioritize = serde_json::from_value(
        json!({"target_ids": ["ex:a"], "kinds": ["title.author"], "priority": 3, "reason": "r"}),
    )
    .unwrap();
    assert!(!p.dry_run);
}

#[test]
fn a_selection_answers_the_specs_keys_and_the_gate_it_used() {
    let keys = |v: &Value| -> BTreeSet<String> {
        v.as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<BTreeSet<_>>()
    };
    let set = |k: &[&str]| -> BTreeSet<String> { k.iter().map(|s| (*s).to_owned()).collect() };
    both(|_, q| {
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:strong", 0.9))
            .unwrap();
        q.enqueue(&task(TaskKind::DigestRewrite, "ex:weak", 0.0))
            .unwrap();
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        let v = serde_json::to_value(&sel).unwrap();
        assert_eq!(
            keys(&v),
            set(&[
                "window",
                "budget_seconds",
                "sensitivity",
                "hard_cap",
                "gate",
                "at",
                "tasks",
                "planned_seconds",
                "left_out",
                "left_out_counts"
            ])
        );
        assert_eq!(v["gate"], json!({"k": 6.0, "theta": 0.5, "floor": 0.1}));
        assert_eq!(v["at"], PINNED_NOW, "the engine clock");
        // A selected task: the task plus its activation and cost.
        let t = &v["tasks"][0];
        assert!(t.get("activation").is_some() && t.get("cost").is_some());
        assert_eq!(t["task_id"], json!(sel.tasks[0].task.task_id));
        assert_eq!(
            keys(&v["left_out"][0]),
            set(&[
                "task_id",
                "kind",
                "target_id",
                "reason",
                "activation",
                "cost_seconds"
            ])
        );
        assert_eq!(v["left_out_counts"], json!({"below_gate": 1}));
        assert_eq!(v["planned_seconds"], json!(DEFAULT_TASK_SECONDS));
        v
    });
}

#[test]
fn a_topics_authoring_task_waits_at_community_priority_ahead_of_every_other_pending_record() {
    both(|s, q| {
        let mut topic =
            MemoryRecordInput::new(RecordKind::Community, "", "Members: the garden, the pool.");
        topic.title = None;
        let mut episode = MemoryRecordInput::new(RecordKind::Episode, "", "Ada took plot 14.");
        episode.title = None;
        s.system
            .remember_many(&RememberMany::new(
                vec![
                    episode.with_pending(&["title"]),
                    topic.with_pending(&["title"]),
                ],
                "session",
                "s1",
                "k1",
            ))
            .unwrap();
        let mut got: Vec<(i64, f64)> = q
            .tasks(&ListTasks::default())
            .unwrap()
            .iter()
            .map(|t| (t.priority, t.strength))
            .collect();
        got.sort_by_key(|(p, _)| *p);
        assert_eq!(got, [(3, 1.0), (5, 1.0)], "[{}]", s.name);
        // A window with room for one names the topic first.
        let sel = q
            .select_for_window(&SelectForWindow::new(DEFAULT_TASK_SECONDS))
            .unwrap();
        assert_eq!(sel.tasks.len(), 1);
        assert_eq!(sel.tasks[0].task.priority, 3);
        json!(got)
    });
}

// ---------------------------------------------------------------------------
// task, tasks, log, counts.

/// Run `check` on both stacks with an engine clock the test moves.
fn both_clocked(check: impl Fn(&Stack, TaskQueue<'_>, &Mutex<String>) -> Value) -> Value {
    let run = |make: fn(SystemOptions) -> Stack| {
        let clock = Arc::new(Mutex::new(PINNED_NOW.to_owned()));
        let c = clock.clone();
        let s = make(SystemOptions {
            task_queue: true,
            clock: Some(Arc::new(move || {
                am_triples::Timestamp::parse(&c.lock().unwrap()).unwrap()
            })),
            ..SystemOptions::default()
        });
        check(&s, s.system.tasks().unwrap(), &clock)
    };
    let a = run(memory_stack);
    let b = run(sqlite_stack);
    assert_eq!(a, b, "the two stacks answered differently");
    a
}

#[test]
fn task_answers_the_task_as_it_reads_now_or_none() {
    both_clocked(|_, q, clock| {
        assert_eq!(q.task("no-such-task").unwrap(), None);
        let mut once = task(TaskKind::DigestRewrite, "ex:once", 0.9);
        once.max_attempts = NonZeroU32::MIN;
        let once = q.enqueue(&once).unwrap().task_id;
        let twice = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:twice", 0.9))
            .unwrap()
            .task_id;
        let fresh = q.task(&twice).unwrap().unwrap();
        assert_eq!(
            Some(&fresh),
            q.tasks(&ListTasks::default())
                .unwrap()
                .iter()
                .find(|t| t.task_id == twice)
        );
        assert_eq!((fresh.status, fresh.attempts), (TaskStatus::Pending, 0));
        // Claimed at the engine clock (no `now=`): leased for 600 s.
        q.claim(&Claim::new(vec![once.clone(), twice.clone()], "h"))
            .unwrap();
        let leased = q.task(&twice).unwrap().unwrap();
        assert_eq!(leased.status, TaskStatus::Leased);
        assert_eq!(leased.holder.as_deref(), Some("h"));
        // The engine clock passes the lease's end: the task reads as
        // returned, or as failed once it spent max_attempts.
        *clock.lock().unwrap() = LATER.to_owned();
        let back = q.task(&twice).unwrap().unwrap();
        assert_eq!((back.status, back.attempts), (TaskStatus::Pending, 1));
        assert_eq!(q.task(&once).unwrap().unwrap().status, TaskStatus::Failed);
        json!([fresh, leased, back])
    });
}

#[test]
fn tasks_filters_by_status_kind_target_and_ripple_in_queue_order_and_limit_keeps_the_first() {
    both(|_, q| {
        let a = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:a", 0.9))
            .unwrap()
            .task_id;
        let b = q
            .enqueue(&task(TaskKind::TitleAuthor, "ex:b", 0.9))
            .unwrap()
            .task_id;
        let mut c = task(TaskKind::RippleReconsider, "ex:c", 0.9);
        c.ripple_id = Some("r1".into());
        c.hop = Some(1);
        let c = q.enqueue(&c).unwrap().task_id;
        let mut d = task(TaskKind::RippleReconsider, "ex:d", 0.9);
        d.ripple_id = Some("r2".into());
        let d = q.enqueue(&d).unwrap().task_id;
        let list = |args: ListTasks| -> Vec<String> {
            q.tasks(&args)
                .unwrap()
                .into_iter()
                .map(|t| t.task_id)
                .collect()
        };
        // Default: every task, in queue order.
        assert_eq!(
            list(ListTasks::default()),
            [a.clone(), b.clone(), c.clone(), d.clone()]
        );
        assert_eq!(
            list(ListTasks {
                kind: Some(TaskKind::DigestRewrite),
                ..ListTasks::default()
            }),
            std::slice::from_ref(&a)
        );
        assert_eq!(
            list(ListTasks {
                target_id: Some("ex:b".into()),
                ..ListTasks::default()
            }),
            std::slice::from_ref(&b)
        );
        assert_eq!(
            list(ListTasks {
                ripple_id: Some("r1".into()),
                ..ListTasks::default()
            }),
            std::slice::from_ref(&c)
        );
        assert_eq!(
            list(ListTasks {
                kind: Some(TaskKind::RippleReconsider),
                ripple_id: Some("r2".into()),
                ..ListTasks::default()
            }),
            std::slice::from_ref(&d)
        );
        assert!(
            list(ListTasks {
                kind: Some(TaskKind::TitleAuthor),
                target_id: Some("ex:a".into()),
                ..ListTasks::default()
            })
            .is_empty()
        );
        // limit keeps the first n; 0 is all.
        assert_eq!(
            list(ListTasks {
                limit: 2,
                ..ListTasks::default()
            }),
            [a.clone(), b.clone()]
        );
        // status reads as of `now`: a lease that ended reads pending.
        claim_ids(q, &[&b], "h", PINNED_NOW);
        let by_status = |status, now: &str| {
            list(ListTasks {
                status: Some(status),
                now: Some(now.parse().unwrap()),
                ..ListTasks::default()
            })
        };
        assert_eq!(
            by_status(TaskStatus::Leased, PINNED_NOW),
            std::slice::from_ref(&b)
        );
        assert_eq!(
            by_status(TaskStatus::Pending, PINNED_NOW),
            [a.clone(), c.clone(), d.clone()]
        );
        assert!(by_status(TaskStatus::Leased, LATER).is_empty());
        assert_eq!(by_status(TaskStatus::Pending, LATER).len(), 4);
        // The status filter applies before the limit.
        assert_eq!(
            list(ListTasks {
                status: Some(TaskStatus::Pending),
                limit: 1,
                now: Some(PINNED_NOW.parse().unwrap()),
                ..ListTasks::default()
            }),
            std::slice::from_ref(&a)
        );
        json!([a, b, c, d])
    });
}

#[test]
fn log_is_every_transition_of_that_task_oldest_first_with_its_holder_and_particulars() {
    both(|_, q| {
        assert!(q.log("no-such-task").unwrap().is_empty());
        let id = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:a", 0.9))
            .unwrap()
            .task_id;
        let other = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:other", 0.9))
            .unwrap()
            .task_id;
        claim_ids(q, &[&id, &other], "h", PINNED_NOW);
        q.release(&Release {
            now: Some(PINNED_NOW.parse().unwrap()),
            ..Release::new(&id, "h", ReleaseOutcome::Retry, "timeout")
        })
        .unwrap();
        claim_ids(q, &[&id], "h2", LATER);
        q.ack(&Ack {
            task_id: id.clone(),
            holder: "h2".into(),
            result: json!({"outcome": "unchanged", "seconds": 3.0}),
            now: Some(LATER.parse().unwrap()),
        })
        .unwrap();
        let log = q.log(&id).unwrap();
        assert!(log.iter().all(|r| r.task_id == id), "only that task's rows");
        let events: Vec<(&str, Option<&str>, &str)> = log
            .iter()
            .map(|r| (r.event.as_str(), r.holder.as_deref(), r.at.as_str()))
            .collect();
        assert_eq!(
            events,
            [
                ("enqueued", None, PINNED_NOW),
                ("claimed", Some("h"), PINNED_NOW),
                ("released", Some("h"), PINNED_NOW),
                ("claimed", Some("h2"), LATER),
                ("acked", Some("h2"), LATER),
            ]
        );
        assert!(log.windows(2).all(|w| w[0].seq < w[1].seq), "oldest first");
        assert_eq!(log[1].detail["attempt"], 1);
        assert_eq!(log[3].detail["attempt"], 2);
        assert_eq!(
            log[1].detail["lease_until"],
            "2026-03-01T12:10:00.000000+00:00"
        );
        // The other task's log is its own.
        let theirs: Vec<String> = q
            .log(&other)
            .unwrap()
            .into_iter()
            .map(|r| r.event)
            .collect();
        assert_eq!(theirs, ["enqueued", "claimed"]);
        json!(
            log.iter()
                .map(|r| json!([r.event, r.holder, r.at, r.detail]))
                .collect::<Vec<_>>()
        )
    });
}

#[test]
fn counts_answers_total_live_by_status_and_by_kind_as_of_the_engine_clock() {
    both_clocked(|_, q, clock| {
        let empty = serde_json::to_value(q.counts().unwrap()).unwrap();
        assert_eq!(
            empty,
            json!({"total": 0, "live": 0, "by_status": {}, "by_kind": {}})
        );
        let a = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:a", 0.9))
            .unwrap()
            .task_id;
        let b = q
            .enqueue(&task(TaskKind::TitleAuthor, "ex:b", 0.9))
            .unwrap()
            .task_id;
        let skip = q
            .enqueue(&task(TaskKind::DigestRewrite, "ex:c", 0.9))
            .unwrap()
            .task_id;
        q.claim(&Claim::new(vec![a, b, skip.clone()], "h")).unwrap();
        q.release(&Release::new(
            &skip,
            "h",
            ReleaseOutcome::Skip,
            "over_context",
        ))
        .unwrap();
        let now = serde_json::to_value(q.counts().unwrap()).unwrap();
        assert_eq!(
            now,
            json!({
                "total": 3, "live": 2,
                "by_status": {"leased": 2, "skipped": 1},
                "by_kind": {
                    "digest.rewrite": {"leased": 1, "skipped": 1},
                    "title.author": {"leased": 1}
                }
            })
        );
        // The leases end on the engine clock: the tasks count as pending.
        *clock.lock().unwrap() = LATER.to_owned();
        let later = serde_json::to_value(q.counts().unwrap()).unwrap();
        assert_eq!(later["by_status"], json!({"pending": 2, "skipped": 1}));
        assert_eq!(later["live"], 2);
        json!([empty, now, later])
    });
}

/// The walk over the candidates is in run order (priority, activation
/// higher first, queue order) across however many tasks it walks; the
/// `hard_cap` tail is listed in queue order.
#[test]
fn the_selection_walks_candidates_in_run_order_and_lists_the_hard_cap_tail_in_queue_order() {
    use am_system::tasks::activation;
    let n = 700usize;
    let spec = |i: usize| -> (i64, f64, f64) {
        let priority = [50, 5, 90, 5, 50][i % 5];
        let strength = 0.2 + ((i * 37) % 80) as f64 / 100.0;
        let cost = 1.0 + ((i * 7) % 13) as f64;
        (priority, strength, cost)
    };
    let enqueue_all = |q: TaskQueue<'_>| -> Vec<String> {
        let batch: Vec<Enqueue> = (0..n)
            .map(|i| {
                let (priority, strength, cost) = spec(i);
                let mut e = task(TaskKind::DigestRewrite, &format!("ex:w{i}"), strength);
                e.priority = Some(priority);
                e.cost_hint = Some(cost);
                e
            })
            .collect();
        q.enqueue_many(&batch)
            .unwrap()
            .into_iter()
            .map(|r| r.task_id)
            .collect()
    };
    both(|_, q| {
        let queued = enqueue_all(q);
        // The reference: every candidate fully ordered, then walked.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            let (pa, sa, _) = spec(a);
            let (pb, sb, _) = spec(b);
            pa.cmp(&pb)
                .then(activation(sb, 1.0).total_cmp(&activation(sa, 1.0)))
                .then(a.cmp(&b))
        });
        // A budget that never fills the cap: the walk crosses every chunk.
        let budget = 400.0;
        let (mut planned, mut taken, mut over) = (0.0, Vec::new(), Vec::new());
        for &i in &order {
            let cost = spec(i).2;
            if planned + cost > budget {
                over.push(queued[i].clone());
            } else {
                planned += cost;
                taken.push(queued[i].clone());
            }
        }
        // Under the default cap of 64, so every candidate is walked (the
        // walk orders its prefix in chunks from 256).
        assert!(taken.len() < 64, "{}", taken.len());
        let sel = q.select_for_window(&SelectForWindow::new(budget)).unwrap();
        assert_eq!(ids(&sel), taken);
        let left: Vec<String> = sel
            .left_out
            .iter()
            .map(|l| l.task_id().to_owned())
            .collect();
        assert_eq!(left, over);
        assert_eq!(sel.planned_seconds, planned);
        // A cap of 10 with room for all: the 10 first in run order, the
        // rest `hard_cap` in queue order.
        let capped = q
            .select_for_window(&SelectForWindow {
                hard_cap: 10,
                ..SelectForWindow::new(1e9)
            })
            .unwrap();
        let first: Vec<String> = order[..10].iter().map(|&i| queued[i].clone()).collect();
        assert_eq!(ids(&capped), first);
        let mut rest: Vec<usize> = order[10..].to_vec();
        rest.sort_unstable();
        let tail: Vec<String> = rest.iter().map(|&i| queued[i].clone()).collect();
        assert_eq!(
            capped
                .left_out
                .iter()
                .map(|l| l.task_id().to_owned())
                .collect::<Vec<_>>(),
            tail
        );
        assert!(
            capped
                .left_out
                .iter()
                .all(|l| l.reason == LeftOutReason::HardCap)
        );
        json!([ids(&sel), ids(&capped)])
    });
}
