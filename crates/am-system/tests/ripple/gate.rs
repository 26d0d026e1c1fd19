//! The gate's arithmetic on hand-computed graphs: potential = received ×
//! reliance × DECAY (0.5), accumulated per ripple; reconsidered when
//! `logistic(potential)` reaches 0.1 (potential ≥ 0.1338); at most
//! `MAX_HOPS` (2) out; at most `budget`; once per ripple.

use crate::support::*;
use am_system::RecordKind;
use am_system::ripple::{Change, Decision};
use am_system::tasks::{GATE_FLOOR, ListTasks};

#[test]
fn a_star_is_weighted_by_relation_and_the_floor_sits_at_potential_0_134() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let summary = ep(s, "summary", &[("summarizes", &seed_id)]);
        let support = ep(s, "support", &[("supports", &seed_id)]);
        let cont = ep(s, "continues", &[("continues", &seed_id)]);
        let mention = ep(s, "mention", &[("mentions", &seed_id)]);
        let amid = ep(s, "amid", &[("written_amid", &seed_id)]);
        // revised: 0.6 at the seed.
        let r = seed(s, &seeding(&seed_id, Change::Revised));
        assert!(r.opened);
        assert!(close_to(r.magnitude, 0.6));
        let d = &r.decisions;
        assert_decision(on(d, &summary), Decision::Reconsider, 0.6 * 1.0 * 0.5);
        assert_decision(on(d, &support), Decision::Reconsider, 0.6 * 0.75 * 0.5);
        assert_decision(on(d, &cont), Decision::Reconsider, 0.6 * 0.5 * 0.5);
        assert_decision(on(d, &mention), Decision::BelowFloor, 0.6 * 0.25 * 0.5);
        // `written_amid` carries nothing: not a candidate at all.
        assert!(d.iter().all(|x| x.record_id != amid), "{d:#?}");
        assert!(
            d.iter()
                .all(|x| x.hop == 1 && x.from.as_deref() == Some(seed_id.as_str()))
        );
        assert_eq!(on(d, &summary).via, "summarizes");
        // The floor: 0.15 clears it, 0.075 does not.
        assert!(logistic(0.15) >= GATE_FLOOR && logistic(0.1337) < GATE_FLOOR);
        assert!(logistic(0.134) >= GATE_FLOOR);
        assert_eq!(r.reconsider_task_ids.len(), 3);
        assert!(r.left_out.is_empty());
    });
}

#[test]
fn record_edges_count_in_both_directions() {
    on_both(|s| {
        let part = ep(s, "part", &[]);
        // The seed names the part; the part relies on the seed all the same.
        let seed_id = ep(s, "whole", &[("part_of", &part)]);
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        assert_decision(
            on(&r.decisions, &part),
            Decision::Reconsider,
            1.0 * 0.75 * 0.5,
        );
    });
}

#[test]
fn a_chain_hands_on_min_received_measured_one_hop_further_and_stops_below_the_floor() {
    on_both(|s| {
        let a = ep(s, "a", &[]);
        let b = ep(s, "b", &[("summarizes", &a)]);
        let c = ep(s, "c", &[("derived_from", &b)]);
        let d = ep(s, "d", &[("summarizes", &c)]);
        let r = seed(s, &seeding(&a, Change::Revised));
        assert_decision(on(&r.decisions, &b), Decision::Reconsider, 0.3);
        assert!(r.decisions.iter().all(|x| x.record_id != c));
        // b rewritten (revised, 0.6): onward min(0.3, 0.6) = 0.3; c at hop 2.
        let sb = rewrite_and_settle(s, &r.ripple_id, &b, Change::Revised);
        assert_eq!(sb.outcome, "rewritten");
        assert!(close_to(sb.onward, 0.3));
        let dc = on(&sb.decisions, &c);
        assert_eq!(dc.hop, 2);
        assert_decision(dc, Decision::Reconsider, 0.3 * 1.0 * 0.5);
        // c rewritten (refined, 0.25): onward min(0.15, 0.25) = 0.15; d at
        // hop 3 gets 0.075, under the floor.
        let sc = rewrite_and_settle(s, &r.ripple_id, &c, Change::Refined);
        assert!(close_to(sc.onward, 0.15));
        let dd = on(&sc.decisions, &d);
        assert_eq!(dd.hop, 3);
        assert_decision(dd, Decision::BelowFloor, 0.075);
        // b's other neighbour, the seed, is refractory.
        assert_eq!(on(&sb.decisions, &a).decision, Decision::Refractory);
        assert_eq!(sc.status.unwrap().as_str(), "consolidating");
    });
}

#[test]
fn a_cycle_reconsiders_each_memory_once_per_ripple() {
    on_both(|s| {
        let a = ep(s, "a", &[]);
        let b = ep(s, "b", &[("summarizes", &a)]);
        let c = ep(s, "c", &[("summarizes", &b), ("derived_from", &a)]);
        let r = seed(s, &seeding(&a, Change::Revised));
        assert_decision(on(&r.decisions, &b), Decision::Reconsider, 0.3);
        assert_decision(on(&r.decisions, &c), Decision::Reconsider, 0.3);
        let sb = rewrite_and_settle(s, &r.ripple_id, &b, Change::Revised);
        // c already reconsidered, a is the seed: both refractory, no task.
        assert_eq!(on(&sb.decisions, &c).decision, Decision::Refractory);
        assert_eq!(on(&sb.decisions, &a).decision, Decision::Refractory);
        let tasks = s
            .system
            .tasks()
            .unwrap()
            .tasks(&ListTasks {
                ripple_id: Some(r.ripple_id.clone()),
                ..ListTasks::default()
            })
            .unwrap();
        assert_eq!(
            tasks.iter().filter(|t| t.target_id == c).count(),
            1,
            "{tasks:#?}"
        );
    });
}

#[test]
fn potential_accumulates_over_sources_and_a_memory_past_max_hops_is_left_out() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let c1 = ep(s, "c1", &[("summarizes", &b)]);
        let c2 = ep(s, "c2", &[("summarizes", &b)]);
        let d = ep(s, "d", &[("summarizes", &c1), ("summarizes", &c2)]);
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        assert_decision(on(&r.decisions, &b), Decision::Reconsider, 0.5);
        let sb = rewrite_and_settle(s, &r.ripple_id, &b, Change::Overturned);
        assert_decision(on(&sb.decisions, &c1), Decision::Reconsider, 0.25);
        assert_decision(on(&sb.decisions, &c2), Decision::Reconsider, 0.25);
        let s1 = rewrite_and_settle(s, &r.ripple_id, &c1, Change::Overturned);
        // Hop 3: 0.25 × 1.0 × 0.5 = 0.125, under the floor.
        assert_decision(on(&s1.decisions, &d), Decision::BelowFloor, 0.125);
        let s2 = rewrite_and_settle(s, &r.ripple_id, &c2, Change::Overturned);
        // A second source: 0.125 + 0.125 = 0.25 clears the floor, but hop 3
        // is past MAX_HOPS.
        let dd = on(&s2.decisions, &d);
        assert_decision(dd, Decision::MaxHops, 0.25);
        assert!(close_to(dd.contribution, 0.125));
        let detail = s.system.ripple(&r.ripple_id).unwrap().unwrap();
        assert!(
            detail.ripple.left_out.iter().any(|l| l.record_id == d
                && l.decision == Decision::MaxHops
                && close_to(l.potential, 0.25)),
            "{:#?}",
            detail.ripple.left_out
        );
    });
}

#[test]
fn protected_memories_are_never_reconsidered_and_are_listed_in_left_out() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let diary = form(
            s,
            RecordKind::Realization,
            "realization",
            &[("reflected_in", &seed_id)],
        );
        let value = form(s, RecordKind::Value, "value", &[("derived_from", &seed_id)]);
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        assert_decision(on(&r.decisions, &diary), Decision::Protected, 0.25);
        assert_decision(on(&r.decisions, &value), Decision::Protected, 0.5);
        assert!(r.reconsider_task_ids.is_empty());
        // A ripple's consolidation record is protected too.
        let consolidation = form_with(
            s,
            RecordKind::Summary,
            "consolidation",
            &[("summarizes", &seed_id)],
            |r| {
                r.attributes
                    .insert("summary_role".into(), serde_json::json!("re-understanding"));
            },
        );
        let r2 = seed(s, &{
            let mut a = seeding(&seed_id, Change::Revised);
            a.cause = serde_json::json!("operator");
            a
        });
        assert_decision(on(&r2.decisions, &consolidation), Decision::Protected, 0.3);
        let mut ids: Vec<&str> = r.left_out.iter().map(|l| l.record_id.as_str()).collect();
        ids.sort_unstable();
        let mut want = vec![diary.as_str(), value.as_str()];
        want.sort_unstable();
        assert_eq!(ids, want);
        assert!(r.left_out.iter().all(|l| l.decision == Decision::Protected));
    });
}

#[test]
fn a_budget_stop_keeps_the_strongest_lists_the_rest_and_warns_truncation() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let strong = ep(s, "strong", &[("summarizes", &seed_id)]);
        let middle = ep(s, "middle", &[("answers", &seed_id)]);
        let weak = ep(s, "weak", &[("continues", &seed_id)]);
        let mut args = seeding(&seed_id, Change::Revised);
        args.budget = 2;
        let out = s.system.seed_ripple(&args).unwrap();
        let r = &out.value;
        assert_decision(on(&r.decisions, &strong), Decision::Reconsider, 0.3);
        assert_decision(on(&r.decisions, &middle), Decision::Reconsider, 0.225);
        assert_decision(on(&r.decisions, &weak), Decision::Budget, 0.15);
        assert_eq!(r.reconsider_task_ids.len(), 2);
        assert_eq!(r.left_out.len(), 1);
        assert_eq!(r.left_out[0].record_id, weak);
        assert!(close_to(r.left_out[0].potential, 0.15));
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
        assert!(out.warnings[0].starts_with("#[WARNING:TRUNCATION]"));
    });
}

#[test]
fn only_the_seed_owners_memories_are_candidates() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let theirs = form_as(
            s,
            "entity:pollux",
            RecordKind::Episode,
            "theirs",
            &[("summarizes", &seed_id)],
        );
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        assert!(
            r.decisions.iter().all(|d| d.record_id != theirs),
            "{:#?}",
            r.decisions
        );
        assert!(r.reconsider_task_ids.is_empty());
    });
}

#[test]
fn a_retracted_or_superseded_candidate_is_closed_and_neither_reconsidered_nor_left_out() {
    on_both(|s| {
        let gone = ep(s, "gone", &[]);
        let old = ep(s, "old", &[]);
        let newer = ep(s, "newer", &[]);
        let kept = ep(s, "kept", &[]);
        // The seed's own edges name them, so the edges stay live when the
        // records close.
        let seed_id = ep(
            s,
            "seed",
            &[
                ("summarizes", &gone),
                ("summarizes", &old),
                ("supports", &kept),
            ],
        );
        s.system
            .close_record(&am_system::recall::args::CloseRecord::retract(
                &gone,
                "no longer held",
            ))
            .unwrap();
        s.system
            .close_record(
                &am_system::recall::args::CloseRecord::new(
                    &old,
                    am_journal::ClosureKind::Supersede,
                    "read anew",
                )
                .replaced_by(&[newer.as_str()]),
            )
            .unwrap();
        let r = seed(s, &seeding(&seed_id, Change::Revised));
        // 0.6 × 1.0 × 0.5 = 0.3 each: above the floor, but closed.
        assert_decision(on(&r.decisions, &gone), Decision::Closed, 0.3);
        assert_decision(on(&r.decisions, &old), Decision::Closed, 0.3);
        assert!(on(&r.decisions, &gone).task_id.is_none());
        // The live neighbour is reconsidered; the closed ones are not left
        // out (nothing to reconsider there).
        assert_decision(on(&r.decisions, &kept), Decision::Reconsider, 0.225);
        assert_eq!(r.reconsider_task_ids.len(), 1);
        assert!(r.left_out.is_empty(), "{:#?}", r.left_out);
        // Stored with its potential.
        let d = s.system.ripple(&r.ripple_id).unwrap().unwrap();
        assert_decision(on(&d.decisions, &gone), Decision::Closed, 0.3);
    });
}

#[test]
fn a_world_model_card_relies_on_every_record_its_evidence_holds() {
    on_both(|s| {
        // Twelve records about Ada: more than the card's capped source
        // edges, so some reach the card through its evidence alone.
        let records = (0..12)
            .map(|i| {
                let mut r = am_system::MemoryRecordInput::new(
                    RecordKind::Episode,
                    &format!("Ada {i}"),
                    &format!("Ada and the garden {i}."),
                );
                r.participants = vec!["person:ada".to_owned()];
                r
            })
            .collect();
        let sources = s
            .system
            .remember_many(&am_system::RememberMany::new(records, SCOPE, OWNER, "ada"))
            .unwrap()
            .value;
        let pass = am_system::world_models::WorldModelPass::new(&[(SCOPE, OWNER)], OWNER);
        s.system.world_model_pass(&pass, None).unwrap();
        let card = am_system::world_models::current_world_models(
            s.store.as_ref(),
            Some(s.journal.as_ref()),
            &am_system::world_models::CardsOf::new(SCOPE, OWNER),
        )
        .unwrap()["person:ada"]
            .subject
            .clone();
        let mut via_evidence = 0;
        for source in &sources {
            let mut a = seeding(source, Change::Revised);
            a.dry_run = true;
            let r = seed(s, &a);
            let d = on(&r.decisions, &card);
            // 0.6 × 1.0 × 0.5: a card relies on its evidence as on what it
            // was derived from.
            assert_decision(d, Decision::Reconsider, 0.3);
            assert!(close_to(d.reliance, 1.0), "{d:#?}");
            match d.via.as_str() {
                "evidence" => via_evidence += 1,
                "derived_from" => {}
                other => panic!("[{}] the card reached via {other}", s.name),
            }
        }
        assert!(
            via_evidence > 0,
            "[{}] every source was also an edge: the test reaches no card by evidence",
            s.name
        );
    });
}
