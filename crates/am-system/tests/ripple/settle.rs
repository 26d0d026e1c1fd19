//! `settle_reconsideration` and `refresh_ripples`: `unchanged` acks and
//! writes nothing; `rewritten` hands `min(received, measured)` one hop
//! further; the ripple settles when no reconsideration is live, and two or
//! more changes queue one night-only consolidation.

use crate::common::written;
use crate::support::*;
use am_journal::{TaskKind, TaskStatus, Window};
use am_system::ripple::{Change, Decision, ReconsiderOutcome, RefreshRipples, RippleStatus};
use am_system::tasks::{Ack, Enqueue, ListTasks};
use am_triples::ErrorKind;
use serde_json::json;

#[test]
fn unchanged_acks_the_task_and_writes_nothing_else() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        ep(s, "c", &[("summarizes", &b)]);
        let r = seed(s, &seeding(&seed_id, Change::Revised));
        let t = task_on(s, &r.ripple_id, &b);
        claim(s, &t);
        let before = written(s);
        let out = settle_as(s, &t.task_id, "reader", ReconsiderOutcome::Unchanged)
            .unwrap()
            .value;
        assert_eq!(out.outcome, "unchanged");
        assert!(out.decisions.is_empty() && out.onward == 0.0);
        assert_eq!(written(s), before);
        let task = s.system.tasks().unwrap().task(&t.task_id).unwrap().unwrap();
        assert_eq!(task.status, TaskStatus::Done);
        // The ripple stops there: settled, nothing changed, no consolidation.
        assert_eq!(out.status, Some(RippleStatus::Settled));
        let d = s.system.ripple(&r.ripple_id).unwrap().unwrap();
        assert!(d.ripple.changed.is_empty());
        assert!(d.ripple.consolidate_task_id.is_none());
        // A second settlement is refused.
        let again = settle_as(s, &t.task_id, "reader", ReconsiderOutcome::Unchanged)
            .unwrap()
            .value;
        assert_eq!(again.reason.as_deref(), Some("not_live"));
    });
}

#[test]
fn the_onward_impact_is_the_smaller_of_received_and_measured() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let c = ep(s, "c", &[("summarizes", &b)]);
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        // Received 0.5; the reader found it only refined (0.25).
        let out = rewrite_and_settle(s, &r.ripple_id, &b, Change::Refined);
        assert!(close_to(out.onward, 0.25));
        // 0.25 × 1.0 × 0.5 = 0.125: under the floor (0.1338).
        assert_decision(on(&out.decisions, &c), Decision::BelowFloor, 0.125);
        let d = s.system.ripple(&r.ripple_id).unwrap().unwrap();
        let changed = &d.ripple.changed[0];
        assert_eq!(changed.record_id, b);
        assert_eq!((changed.before_version, changed.after_version), (0, 1));
        assert!(close_to(changed.received, 0.5) && close_to(changed.onward, 0.25));
    });
}

#[test]
fn a_rewritten_settlement_without_a_rewrite_is_refused_and_writes_nothing() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        ep(s, "c", &[("summarizes", &b)]);
        let r = seed(s, &seeding(&seed_id, Change::Revised));
        let t = task_on(s, &r.ripple_id, &b);
        claim(s, &t);
        let before = written(s);
        let detail = s.system.ripple(&r.ripple_id).unwrap();
        let out = settle_as(s, &t.task_id, "reader", ReconsiderOutcome::Rewritten)
            .unwrap()
            .value;
        assert_eq!(out.outcome, "refused");
        assert_eq!(out.reason.as_deref(), Some("not_rewritten"));
        assert_eq!(written(s), before);
        assert_eq!(s.system.ripple(&r.ripple_id).unwrap(), detail);
        // Another holder's lease is not ours to settle.
        let out = settle_as(s, &t.task_id, "someone-else", ReconsiderOutcome::Unchanged)
            .unwrap()
            .value;
        assert_eq!(out.reason.as_deref(), Some("not_holder"));
        assert_eq!(s.system.ripple(&r.ripple_id).unwrap(), detail);
    });
}

#[test]
fn settling_another_kind_of_task_is_an_error() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let q = s.system.tasks().unwrap();
        let e = q
            .enqueue(&Enqueue::new(
                TaskKind::DigestRewrite,
                &seed_id,
                (SCOPE, OWNER),
                "b@1",
                0.5,
                json!("backfill"),
            ))
            .unwrap();
        let err = settle_as(s, &e.task_id, "reader", ReconsiderOutcome::Unchanged).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let err = settle_as(s, "nope", "reader", ReconsiderOutcome::Unchanged).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    });
}

#[test]
fn two_or_more_changes_queue_one_consolidation_leased_only_in_a_night_window() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let c = ep(s, "c", &[("supports", &seed_id)]);
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        let first = rewrite_and_settle(s, &r.ripple_id, &b, Change::Revised);
        assert_eq!(first.status, Some(RippleStatus::Open));
        let second = rewrite_and_settle(s, &r.ripple_id, &c, Change::Revised);
        assert_eq!(second.status, Some(RippleStatus::Consolidating));
        let d = s.system.ripple(&r.ripple_id).unwrap().unwrap();
        assert_eq!(d.ripple.changed.len(), 2);
        let consolidate: Vec<_> = d
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::RippleConsolidate)
            .collect();
        assert_eq!(consolidate.len(), 1);
        assert_eq!(consolidate[0].windows, vec![Window::Night]);
        assert_eq!(
            consolidate[0].ripple_id.as_deref(),
            Some(r.ripple_id.as_str())
        );
        assert_eq!(
            d.ripple.consolidate_task_id.as_deref(),
            Some(consolidate[0].task_id.as_str())
        );
    });
}

#[test]
fn refresh_ripples_closes_ripples_whose_reconsiderations_were_all_settled_otherwise() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let r = seed(s, &seeding(&seed_id, Change::Revised));
        assert!(
            s.system
                .refresh_ripples(&RefreshRipples::default())
                .unwrap()
                .is_empty()
        );
        let t = task_on(s, &r.ripple_id, &b);
        claim(s, &t);
        // Acked through the queue, not through the ripple: still open.
        s.system
            .tasks()
            .unwrap()
            .ack(&Ack {
                task_id: t.task_id.clone(),
                holder: "reader".into(),
                result: json!({"skipped": true}),
                now: None,
            })
            .unwrap();
        assert_eq!(
            s.system
                .ripple(&r.ripple_id)
                .unwrap()
                .unwrap()
                .ripple
                .status,
            RippleStatus::Open
        );
        let settled = s
            .system
            .refresh_ripples(&RefreshRipples::default())
            .unwrap();
        assert_eq!(settled.len(), 1);
        assert_eq!(settled[0].status, RippleStatus::Settled);
        assert_eq!(
            s.system
                .ripple(&r.ripple_id)
                .unwrap()
                .unwrap()
                .ripple
                .status,
            RippleStatus::Settled
        );
        assert!(
            s.system
                .refresh_ripples(&RefreshRipples::default())
                .unwrap()
                .is_empty()
        );
        let _ = ListTasks::default();
    });
}

#[test]
fn maintenance_due_with_tasks_counts_pending_ripple_work() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let c = ep(s, "c", &[("supports", &seed_id)]);
        let due = |s: &crate::common::Stack| {
            let mut a = am_system::sleep::MaintenanceDue::new(&[(SCOPE, OWNER)]);
            a.tasks = true;
            // A boundary at the head: nothing formed after it.
            a.since_seq = Some(s.journal.current_seq().unwrap());
            s.system.maintenance_due(&a).unwrap()
        };
        assert_eq!(due(s).pending_tasks, Some(0));
        assert!(!due(s).due);
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        // Two reconsiderations pending: due.
        let d = due(s);
        assert_eq!(d.pending_tasks, Some(2));
        assert!(d.due);
        rewrite_and_settle(s, &r.ripple_id, &b, Change::Revised);
        rewrite_and_settle(s, &r.ripple_id, &c, Change::Revised);
        // The consolidation waits for a night: still due.
        assert_eq!(due(s).pending_tasks, Some(1));
    });
}
