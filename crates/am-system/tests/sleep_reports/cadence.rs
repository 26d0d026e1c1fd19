//! The cadence: `last_maintenance_seq`, `maintenance_due` (its cursor
//! answering exactly as the full scan after every kind of write) and
//! `records_since_maintenance`; their refusals write nothing.

use crate::common::{Stack, assert_refused, home_bytes, on_both, on_both_with, written};
use crate::structural::{PAIR, form, rec};
use am_journal::{AuthorKind, AuthorRef, SearchState, TaskKind};
use am_system::sleep::{
    BoundarySource, Cadence, LastMaintenanceSeq, MaintenanceDue, RecordsSinceMaintenance,
    maintenance_due,
};
use am_system::tasks::{Enqueue, RecordMaintenance};
use am_system::{Bind, CloseRecord, RecordKind, RememberMany, Retitle, SystemOptions};
use am_triples::ErrorKind;
use serde_json::json;
use std::num::NonZeroU64;

fn queued() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        ..SystemOptions::default()
    }
}

fn due(s: &Stack, args: &MaintenanceDue) -> Cadence {
    s.system.maintenance_due(args).unwrap()
}

/// The system's (cursor-bounded) answer, checked against the full scan.
fn checked(s: &Stack, args: &MaintenanceDue) -> Cadence {
    let ours = due(s, args);
    let whole = maintenance_due(s.store.as_ref(), s.journal.as_ref(), args).unwrap();
    assert_eq!(
        ours, whole,
        "[{}] the cursor and the full scan differ",
        s.name
    );
    ours
}

fn last_seq(s: &Stack) -> i64 {
    s.system
        .last_maintenance_seq(&LastMaintenanceSeq::new(&[PAIR]))
        .unwrap()
}

fn many(n: usize, key: &str) -> Vec<am_system::MemoryRecordInput> {
    (0..n)
        .map(|i| rec(RecordKind::Memory, &format!("{key} {i}")))
        .collect()
}

#[test]
fn last_maintenance_seq_is_0_for_a_home_that_never_slept() {
    on_both(|s| {
        form(s, "lived", many(3, "lived"));
        assert_eq!(last_seq(s), 0, "[{}]", s.name);
    });
}

#[test]
fn last_maintenance_seq_is_the_newest_sleep_artifacts_formation_seq() {
    on_both(|s| {
        form(s, "lived", many(3, "lived"));
        form(s, "dream", vec![rec(RecordKind::Dream, "A dream")]);
        let after_dream = s.journal.current_seq().unwrap();
        assert_eq!(last_seq(s), after_dream, "[{}]", s.name);
        form(s, "more", many(2, "more"));
        assert_eq!(last_seq(s), after_dream, "a record is no sleep artifact");
        let lived = form(s, "lived2", many(1, "lived2"));
        form(
            s,
            "cand",
            vec![
                rec(RecordKind::Summary, "Candidate")
                    .with_attribute("maintenance_candidate", true)
                    .with_edge("summarizes", &lived[0]),
            ],
        );
        assert_eq!(last_seq(s), s.journal.current_seq().unwrap());
    });
}

#[test]
fn a_store_with_zero_new_formations_is_never_due() {
    on_both(|s| {
        let r = checked(s, &MaintenanceDue::new(&[PAIR]));
        assert!(!r.due && r.reasons.is_empty(), "[{}] {r:?}", s.name);
        form(s, "lived", many(20, "lived"));
        form(s, "dream", vec![rec(RecordKind::Dream, "A dream")]);
        // 20 isolated records: a strong signal, but nothing formed since the
        // night's artifact
        let r = checked(s, &MaintenanceDue::new(&[PAIR]));
        assert_eq!(r.new_records, 0);
        assert!(r.signal >= 20);
        assert!(!r.due, "[{}] {r:?}", s.name);
    });
}

#[test]
fn enough_new_records_make_a_pass_due_on_their_own() {
    on_both(|s| {
        // linked in a chain: no fragmentation signal
        let chain: Vec<_> = (0..12)
            .map(|i| {
                let r = rec(RecordKind::Memory, &format!("step {i}"));
                if i == 0 {
                    r
                } else {
                    r.with_edge("continues", &format!("local:{}", i - 1))
                }
            })
            .collect();
        form(s, "chain", chain);
        let r = checked(s, &MaintenanceDue::new(&[PAIR]));
        assert_eq!((r.new_records, r.signal), (12, 0), "[{}]", s.name);
        assert!(r.due && r.reasons.len() == 1);
        let r = checked(
            s,
            &MaintenanceDue {
                min_new_records: NonZeroU64::new(13).unwrap(),
                ..MaintenanceDue::new(&[PAIR])
            },
        );
        assert!(!r.due);
    });
}

#[test]
fn some_new_material_plus_the_fragmentation_signal_makes_a_pass_due() {
    on_both(|s| {
        form(
            s,
            "frag",
            vec![
                rec(RecordKind::Memory, "Pool"),
                rec(RecordKind::Memory, "pool"),
                rec(RecordKind::Memory, "Tea"),
            ],
        );
        let r = checked(s, &MaintenanceDue::new(&[PAIR]));
        assert_eq!(
            (r.new_records, r.duplicate_groups, r.isolated, r.signal),
            (3, 1, 3, 4),
            "[{}]",
            s.name
        );
        assert!(r.due && r.reasons.len() == 1);
        let r = checked(
            s,
            &MaintenanceDue {
                min_signal: 5,
                ..MaintenanceDue::new(&[PAIR])
            },
        );
        assert!(!r.due);
    });
}

#[test]
fn since_seq_anchors_the_count_instead_of_the_last_night() {
    on_both(|s| {
        form(s, "a", many(2, "a"));
        let mid = s.journal.current_seq().unwrap();
        form(s, "b", many(3, "b"));
        let r = checked(
            s,
            &MaintenanceDue {
                since_seq: Some(mid),
                ..MaintenanceDue::new(&[PAIR])
            },
        );
        assert_eq!((r.since_seq, r.new_records), (mid, 3), "[{}]", s.name);
        let r = checked(s, &MaintenanceDue::new(&[PAIR]));
        assert_eq!((r.since_seq, r.new_records), (0, 5));
    });
}

#[test]
fn the_cursor_answers_exactly_as_the_full_scan_after_every_kind_of_write() {
    on_both(|s| {
        let args = MaintenanceDue::new(&[PAIR]);
        let any_owner = MaintenanceDue::new(&[("session", "")]);
        let both_pairs = MaintenanceDue::new(&[PAIR, ("project", "p1")]);
        let check = |s: &Stack| {
            checked(s, &args);
            checked(s, &any_owner);
            checked(s, &both_pairs);
        };
        check(s);
        let ids = form(
            s,
            "one",
            vec![
                rec(RecordKind::Memory, "Alpha"),
                rec(RecordKind::Memory, "Beta").with_edge("supports", "local:0"),
                rec(RecordKind::Memory, "alpha!"),
            ],
        );
        check(s);
        // an edge to an earlier batch's record, and a record another owner
        // formed in the scope
        form(
            s,
            "two",
            vec![rec(RecordKind::Lesson, "Gamma").with_edge("derived_from", &ids[2])],
        );
        s.system
            .remember_many(&RememberMany::new(
                vec![rec(RecordKind::Memory, "Alpha")],
                "session",
                "s2",
                "other",
            ))
            .unwrap();
        s.system
            .remember_many(&RememberMany::new(
                vec![rec(RecordKind::Memory, "Delta")],
                "project",
                "p1",
                "proj",
            ))
            .unwrap();
        check(s);
        // the night's artifacts move the anchor; their edges never link
        form(
            s,
            "dream",
            vec![rec(RecordKind::Dream, "Dream").with_edge("mentions", &ids[0])],
        );
        form(
            s,
            "cand",
            vec![
                rec(RecordKind::Summary, "Consolidated: Alpha")
                    .with_attribute("maintenance_candidate", true)
                    .with_edge("summarizes", &ids[0])
                    .with_edge("summarizes", &ids[2]),
            ],
        );
        check(s);
        // a binding on the dream moves the anchor again
        let dream = s
            .store
            .query(&am_triples::TripleQuery {
                limit: 0,
                ..am_triples::TripleQuery::default()
            })
            .unwrap()
            .into_iter()
            .find(|a| a.attributes.get("record_kind") == Some(&json!("dream")))
            .unwrap();
        s.system
            .bind(&Bind::new(
                &dream.subject,
                PAIR.0,
                PAIR.1,
                SearchState::Hidden,
            ))
            .unwrap();
        check(s);
        // a title rewritten in place (the feed cannot show it again): Beta
        // becomes a second Gamma, a new duplicate group
        let groups = due(s, &args).duplicate_groups;
        s.system
            .retitle(&Retitle::new(
                &ids[1],
                "Gamma",
                AuthorRef::new(AuthorKind::Operator, "ada"),
                json!("formation"),
                0,
            ))
            .unwrap();
        check(s);
        assert_eq!(due(s, &args).duplicate_groups, groups + 1);
        // a closure changes nothing of the raw structure
        s.system
            .close_record(&CloseRecord {
                record_id: ids[0].clone(),
                kind: am_journal::ClosureKind::Retract,
                reason: "wrong".into(),
                replacement_ids: Vec::new(),
            })
            .unwrap();
        check(s);
        form(s, "late", many(4, "late"));
        check(s);
        // repeated with nothing new: the same answer
        assert_eq!(due(s, &args), due(s, &args));
    });
}

#[test]
fn with_tasks_a_pending_dream_narration_counts_as_due() {
    on_both_with(queued, |s| {
        form(s, "lived", many(2, "lived"));
        form(s, "dream", vec![rec(RecordKind::Dream, "A dream")]);
        let with = MaintenanceDue {
            tasks: true,
            ..MaintenanceDue::new(&[PAIR])
        };
        let r = due(s, &with);
        assert_eq!(r.pending_tasks, Some(0), "[{}]", s.name);
        assert!(!r.due);
        s.system
            .tasks()
            .unwrap()
            .enqueue(&Enqueue::new(
                TaskKind::DreamNarrate,
                "ex:dream-1",
                PAIR,
                "ex:dream-1@1",
                0.5,
                "dream formed",
            ))
            .unwrap();
        let r = due(s, &with);
        assert_eq!(r.pending_tasks, Some(1), "[{}]", s.name);
        assert_eq!(r.new_records, 0);
        assert!(r.due && r.reasons.len() == 1);
        // another pair's task is not this pair's
        let other = MaintenanceDue {
            tasks: true,
            ..MaintenanceDue::new(&[("project", "p1")])
        };
        assert_eq!(due(s, &other).pending_tasks, Some(0));
        // without tasks the key is absent
        let plain = serde_json::to_value(due(s, &MaintenanceDue::new(&[PAIR]))).unwrap();
        assert!(plain.get("pending_tasks").is_none());
    });
}

#[test]
fn maintenance_due_and_last_maintenance_seq_are_pure_reads() {
    on_both(|s| {
        form(s, "lived", many(3, "lived"));
        let before = written(s);
        let bytes = home_bytes(s);
        due(s, &MaintenanceDue::new(&[PAIR]));
        due(s, &MaintenanceDue::new(&[PAIR]));
        last_seq(s);
        assert_eq!(written(s), before, "[{}]", s.name);
        assert_eq!(home_bytes(s), bytes, "[{}]", s.name);
    });
}

#[test]
fn bad_scopes_a_bad_since_seq_and_tasks_without_a_queue_are_refused_with_nothing_written() {
    on_both(|s| {
        form(s, "lived", many(3, "lived"));
        let before = written(s);
        let head = s.journal.current_seq().unwrap();
        for (args, needle) in [
            (MaintenanceDue::new(&[]), "scopes"),
            (MaintenanceDue::new(&[("", "s1")]), "scope"),
            (
                MaintenanceDue {
                    since_seq: Some(head + 1),
                    ..MaintenanceDue::new(&[PAIR])
                },
                "since_seq",
            ),
            (
                MaintenanceDue {
                    since_seq: Some(-1),
                    ..MaintenanceDue::new(&[PAIR])
                },
                "since_seq",
            ),
            (
                MaintenanceDue {
                    tasks: true,
                    ..MaintenanceDue::new(&[PAIR])
                },
                "task queue",
            ),
        ] {
            assert_refused(
                s,
                &before,
                s.system.maintenance_due(&args),
                ErrorKind::InvalidInput,
                &[needle],
            );
        }
        assert_refused(
            s,
            &before,
            s.system.last_maintenance_seq(&LastMaintenanceSeq::new(&[])),
            ErrorKind::InvalidInput,
            &["scopes"],
        );
        // min_new_records 0 is refused where the arguments are read
        assert!(
            serde_json::from_value::<MaintenanceDue>(
                json!({"scopes": [["session", "s1"]], "min_new_records": 0})
            )
            .is_err()
        );
    });
}

// -- records_since_maintenance ------------------------------------------------

fn since(s: &Stack, args: &RecordsSinceMaintenance) -> am_system::sleep::SinceMaintenance {
    s.system.records_since_maintenance(args).unwrap()
}

fn scoped() -> RecordsSinceMaintenance {
    RecordsSinceMaintenance {
        scopes: Some(vec![(PAIR.0.to_owned(), PAIR.1.to_owned())]),
        after: None,
    }
}

#[test]
fn an_empty_home_counts_nothing_since_birth() {
    on_both_with(queued, |s| {
        let r = since(s, &RecordsSinceMaintenance::default());
        assert_eq!(r.count, 0, "[{}]", s.name);
        assert_eq!(r.boundary_source, BoundarySource::Birth);
        assert_eq!((r.since, r.last_maintenance_at), (None, None));
        let f = r.fragmented.unwrap();
        assert_eq!((f.count, f.share), (0, 0.0));
    });
}

#[test]
fn without_a_night_or_after_the_count_runs_from_birth_the_oldest_records_time() {
    on_both_with(queued, |s| {
        form(
            s,
            "lived",
            vec![
                rec(RecordKind::Memory, "One"),
                rec(RecordKind::Memory, "Two").with_edge("supports", "local:0"),
                rec(RecordKind::Memory, "Ledger").with_attribute("bookkeeping", true),
            ],
        );
        let r = since(s, &scoped());
        assert_eq!(r.boundary_source, BoundarySource::Birth, "[{}]", s.name);
        assert_eq!(r.count, 2, "edges and bookkeeping rows are not records");
        assert_eq!(r.since.as_deref(), Some(crate::common::PINNED_NOW));
    });
}

#[test]
fn a_completed_night_is_the_boundary_and_a_later_after_wins() {
    on_both_with(queued, |s| {
        form(s, "before", many(2, "before"));
        s.system
            .tasks()
            .unwrap()
            .record_maintenance(&RecordMaintenance {
                now: Some("2026-03-01T12:00:00Z".parse().unwrap()),
                ..RecordMaintenance::new(&[PAIR])
            })
            .unwrap();
        // the pinned clock forms at 12:00:00 too: a record at the boundary
        // is not after it
        let r = since(s, &scoped());
        assert_eq!(r.boundary_source, BoundarySource::Memory, "[{}]", s.name);
        assert_eq!(r.count, 0);
        assert_eq!(
            r.last_maintenance_at.as_deref(),
            Some(crate::common::PINNED_NOW)
        );
        // the host's own earlier `after` loses; a tie goes to memory
        for after in ["2026-03-01T11:00:00Z", "2026-03-01T12:00:00+00:00"] {
            let r = since(
                s,
                &RecordsSinceMaintenance {
                    after: Some(after.parse().unwrap()),
                    ..scoped()
                },
            );
            assert_eq!(r.boundary_source, BoundarySource::Memory);
        }
        // an `after` earlier than every record, alone: every record counts
        let r = since(
            s,
            &RecordsSinceMaintenance {
                scopes: Some(vec![("project".into(), "p1".into())]),
                after: Some("2026-03-01T11:00:00".parse().unwrap()),
            },
        );
        assert_eq!(r.boundary_source, BoundarySource::After);
        assert_eq!(r.since.as_deref(), Some("2026-03-01T11:00:00.000000+00:00"));
        assert_eq!(r.count, 0, "nothing formed in that pair");
        let r = since(
            s,
            &RecordsSinceMaintenance {
                after: Some("2026-03-01T13:00:00+01:00".parse().unwrap()),
                ..scoped()
            },
        );
        // 13:00+01:00 is 12:00Z: a tie with memory
        assert_eq!(r.boundary_source, BoundarySource::Memory);
    });
}

#[test]
fn records_formed_after_the_boundary_count_closed_ones_too() {
    on_both_with(queued, |s| {
        let ids = form(s, "lived", many(3, "lived"));
        s.system
            .close_record(&CloseRecord {
                record_id: ids[0].clone(),
                kind: am_journal::ClosureKind::Retract,
                reason: "wrong".into(),
                replacement_ids: Vec::new(),
            })
            .unwrap();
        let r = since(
            s,
            &RecordsSinceMaintenance {
                after: Some("2026-03-01T11:00:00Z".parse().unwrap()),
                ..scoped()
            },
        );
        assert_eq!(r.count, 3, "[{}]", s.name);
        assert_eq!(r.boundary_source, BoundarySource::After);
    });
}

#[test]
fn fragmented_counts_each_live_unvectored_or_pending_record_once() {
    on_both_with(queued, |s| {
        let ids = form(
            s,
            "frag",
            vec![
                rec(RecordKind::Memory, "One"),
                rec(RecordKind::Memory, "Two"),
                rec(RecordKind::Summary, "Pending")
                    .with_pending(&["title"])
                    .with_edge("summarizes", "local:1"),
            ],
        );
        let r = since(s, &scoped());
        let f = r.fragmented.unwrap();
        // no embedder: no record has a vector (the pending summary's edge
        // names a live record: it can still be placed)
        assert_eq!(
            (f.count, f.unvectored, f.pending, f.provisional),
            (3, 3, 1, 0),
            "[{}]",
            s.name
        );
        assert!((f.share - 1.0).abs() < f64::EPSILON);
        // a closed record leaves the live home
        s.system
            .close_record(&CloseRecord {
                record_id: ids[0].clone(),
                kind: am_journal::ClosureKind::Retract,
                reason: "wrong".into(),
                replacement_ids: Vec::new(),
            })
            .unwrap();
        let f = since(s, &scoped()).fragmented.unwrap();
        assert_eq!((f.count, f.unvectored), (2, 2));
    });
}

#[test]
fn a_record_whose_every_edge_names_a_closed_record_is_not_unvectored() {
    on_both_with(queued, |s| {
        let ids = form(s, "sources", many(2, "source"));
        form(
            s,
            "summary",
            vec![
                rec(RecordKind::Summary, "Of closed sources")
                    .with_edge("summarizes", &ids[0])
                    .with_edge("summarizes", &ids[1]),
            ],
        );
        for id in &ids {
            s.system
                .close_record(&CloseRecord {
                    record_id: id.clone(),
                    kind: am_journal::ClosureKind::Retract,
                    reason: "consolidated away".into(),
                    replacement_ids: Vec::new(),
                })
                .unwrap();
        }
        let f = since(s, &scoped()).fragmented.unwrap();
        assert_eq!((f.count, f.unvectored), (0, 0), "[{}]", s.name);
        assert!(f.share.abs() < f64::EPSILON);
    });
}

#[test]
fn records_since_maintenance_is_a_pure_read_and_refuses_an_empty_pair_list() {
    on_both_with(queued, |s| {
        form(s, "lived", many(2, "lived"));
        let before = written(s);
        let bytes = home_bytes(s);
        since(s, &scoped());
        since(s, &RecordsSinceMaintenance::default());
        assert_eq!(written(s), before, "[{}]", s.name);
        assert_eq!(home_bytes(s), bytes);
        assert_refused(
            s,
            &before,
            s.system
                .records_since_maintenance(&RecordsSinceMaintenance {
                    scopes: Some(Vec::new()),
                    after: None,
                }),
            ErrorKind::InvalidInput,
            &["scopes"],
        );
        assert!(
            serde_json::from_value::<RecordsSinceMaintenance>(json!({"after": "yesterday"}))
                .is_err()
        );
    });
}

#[test]
fn records_with_a_stored_vector_are_not_unvectored() {
    for (stack, _dir) in crate::maintenance::embedded_stacks() {
        let s = &stack;
        form(s, "vectored", many(3, "vectored"));
        let f = since(s, &scoped()).fragmented.unwrap();
        assert_eq!(
            (f.count, f.unvectored, f.pending),
            (0, 0, 0),
            "[{}]",
            s.name
        );
    }
}

#[test]
fn provisional_counts_the_records_placed_since_the_night_a_closed_one_there_only() {
    for (stack, _dir) in crate::maintenance::embedded_stacks() {
        let s = &stack;
        let ids = form(s, "placed", many(3, "placed"));
        let aid = |g: &str| {
            s.system
                .resolve_digest_assertion(g)
                .unwrap()
                .unwrap()
                .assertion_id
                .unwrap()
        };
        let place = |rid: &str| {
            s.journal
                .append_events(&[am_journal::MemoryEvent::on_record(
                    am_journal::EventKind::Placed,
                    rid,
                    PAIR.0,
                    PAIR.1,
                )])
                .unwrap();
        };
        // placed before the night: not counted once the night completes
        place(&ids[2]);
        s.system
            .tasks()
            .unwrap()
            .record_maintenance(&RecordMaintenance::new(&[PAIR]))
            .unwrap();
        // after it: one by graph id, one by digest assertion id (twice)
        place(&ids[0]);
        place(&aid(&ids[1]));
        place(&aid(&ids[1]));
        let f = since(s, &scoped()).fragmented.unwrap();
        assert_eq!(
            (f.provisional, f.count, f.unvectored),
            (2, 2, 0),
            "[{}]",
            s.name
        );
        s.system
            .close_record(&CloseRecord {
                record_id: ids[1].clone(),
                kind: am_journal::ClosureKind::Retract,
                reason: "wrong".into(),
                replacement_ids: Vec::new(),
            })
            .unwrap();
        let f = since(s, &scoped()).fragmented.unwrap();
        assert_eq!(
            (f.provisional, f.count),
            (2, 1),
            "[{}] closed: provisional only",
            s.name
        );
        assert!((f.share - 0.5).abs() < 1e-12, "one of two live records");
    }
}
