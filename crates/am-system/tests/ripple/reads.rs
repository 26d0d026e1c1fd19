//! `ripples(scope, owner_id, status, limit)` and `ripple(ripple_id)`.

use crate::support::*;
use am_system::ripple::{Change, Decision, ListRipples, RippleStatus};

#[test]
fn ripples_lists_each_ripple_with_cause_magnitude_budget_and_filters() {
    on_both(|s| {
        let a = ep(s, "a", &[]);
        ep(s, "a2", &[("summarizes", &a)]);
        let lonely = ep(s, "lonely", &[]);
        let ra = seed(s, &seeding(&a, Change::Revised));
        let rl = seed(s, &seeding(&lonely, Change::Overturned));
        let all = s.system.ripples(&ListRipples::default()).unwrap();
        assert_eq!(all.len(), 2);
        let open = s
            .system
            .ripples(&ListRipples {
                status: Some(RippleStatus::Open),
                ..ListRipples::default()
            })
            .unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].ripple_id, ra.ripple_id);
        assert_eq!(open[0].budget, 20);
        assert!(close_to(open[0].magnitude, 0.6));
        assert_eq!(open[0].cause["cause"], "backfill");
        // No candidate: settled at once.
        let settled = s
            .system
            .ripples(&ListRipples {
                status: Some(RippleStatus::Settled),
                ..ListRipples::default()
            })
            .unwrap();
        assert_eq!(settled[0].ripple_id, rl.ripple_id);
        let none = s
            .system
            .ripples(&ListRipples {
                owner_id: Some("entity:pollux".into()),
                ..ListRipples::default()
            })
            .unwrap();
        assert!(none.is_empty());
        let mine = s
            .system
            .ripples(&ListRipples {
                scope: Some(SCOPE.into()),
                owner_id: Some(OWNER.into()),
                limit: 1,
                ..ListRipples::default()
            })
            .unwrap();
        assert_eq!(mine.len(), 1);
    });
}

#[test]
fn ripple_adds_the_member_tasks_and_every_gate_decision() {
    on_both(|s| {
        let a = ep(s, "a", &[]);
        let b = ep(s, "b", &[("summarizes", &a)]);
        let m = ep(s, "m", &[("mentions", &a)]);
        let r = seed(s, &seeding(&a, Change::Revised));
        let d = s.system.ripple(&r.ripple_id).unwrap().unwrap();
        assert_eq!(d.ripple.seed_id, a);
        assert_eq!(d.tasks.len(), 1);
        assert_eq!(d.tasks[0].target_id, b);
        assert_eq!(d.decisions.len(), 2);
        assert_eq!(on(&d.decisions, &m).decision, Decision::BelowFloor);
        assert_eq!(d.decisions, r.decisions);
        assert!(s.system.ripple("nope").unwrap().is_none());
    });
}
