//! `probe` on both stacks: one test per sentence of api.md "Deliberate
//! reach" that can fail, and the orders 0.3.2 settles.

use crate::common::{
    Stack, assert_refused, home_bytes, memory_stack, on_both, sqlite_stack, written,
};
use crate::support::{LIFE, OWNER, garden, hit_ids, look};
use am_journal::{ClosureKind, EventFilter, EventKind, SearchState, TraceFilter};
use am_system::reach::{EffortName, Probe, ProbeBudget, ProbeEffort};
use am_system::{
    Bind, CloseRecord, MemoryRecordInput as R, RecordKind, RememberMany, Stimulus, SystemOptions,
    ids,
};
use am_triples::ErrorKind::InvalidInput;

const HEAP_CUE: &str = "when does the compost heap need turning";

#[test]
fn a_probe_ranks_direct_matches_by_relevance_each_with_why_and_both_ids() {
    on_both(|s| {
        let g = garden(s);
        let r = look(s, HEAP_CUE, LIFE);
        let ids = hit_ids(&r);
        assert_eq!(
            &ids[..2],
            [g.heap.as_str(), g.compost.as_str()],
            "[{}]",
            s.name
        );
        let top = &r.hits[0];
        assert_eq!(top.relevance.0, vec![("keyword".to_owned(), 4.0 / 6.0)]);
        assert_eq!(
            top.cues,
            vec!["keyword: matched when, compost, heap, turning (4/6)".to_owned()]
        );
        assert!(top.graph_id.starts_with("ex:lesson-"), "{}", top.graph_id);
        assert_eq!(top.title.as_deref(), Some("Heap temperature"));
        assert_eq!(top.kind, "lesson");
        assert_eq!((top.scope.as_str(), top.owner_id.as_str()), ("life", OWNER));
        assert!(r.channels.contains(&"keyword".to_owned()));
        assert_eq!(r.budget_spent["effort"], "standard");
        assert_eq!(r.budget_spent["hits"], r.hits.len());
    });
}

#[test]
fn concept_only_admissions_rank_after_every_direct_match() {
    on_both(|s| {
        garden(s);
        let r = look(s, HEAP_CUE, LIFE);
        assert!(
            r.channels.contains(&"concept".to_owned()),
            "[{}] {r:?}",
            s.name
        );
        let direct: Vec<bool> = r
            .hits
            .iter()
            .map(|h| h.relevance.0.iter().any(|(c, _)| c != "concept"))
            .collect();
        let first_concept = direct.iter().position(|d| !d).expect("a concept hit");
        assert!(direct[..first_concept].iter().all(|d| *d));
        assert!(
            direct[first_concept..].iter().all(|d| !*d),
            "[{}] {direct:?}",
            s.name
        );
        for h in &r.hits[first_concept..] {
            assert!(h.cues[0].starts_with("shared concepts: "), "{:?}", h.cues);
        }
    });
}

#[test]
fn machine_rows_rank_after_lived_records_that_match_as_well() {
    on_both(|s| {
        let g = garden(s);
        let r = look(s, "garden fork", LIFE);
        let ids = hit_ids(&r);
        let at = |id: &str| ids.iter().position(|x| *x == id).unwrap();
        assert!(at(&g.machine) > at(&g.compost), "[{}] {ids:?}", s.name);
        assert!(at(&g.machine) > at(&g.fork), "[{}] {ids:?}", s.name);
    });
}

#[test]
fn the_quick_effort_runs_no_concept_pass_and_returns_at_most_six_hits() {
    on_both(|s| {
        garden(s);
        let r = s
            .system
            .probe(&Probe {
                effort: ProbeEffort::Preset(EffortName::Quick),
                write_journal: false,
                ..Probe::new(
                    Stimulus::new("compost allotment garden plot"),
                    LIFE,
                    "quick look",
                )
            })
            .unwrap();
        assert!(
            !r.channels.contains(&"concept".to_owned()),
            "{:?}",
            r.channels
        );
        assert!(r.hits.len() <= 6);
        assert_eq!(r.budget_spent["effort"], "quick");
        assert_eq!(r.budget_spent["token_budget"], 1200);
    });
}

#[test]
fn a_custom_budget_bounds_hits_and_tokens_hard_and_reports_custom() {
    on_both(|s| {
        garden(s);
        let one = s
            .system
            .probe(&Probe {
                effort: ProbeEffort::Custom(ProbeBudget {
                    max_hits: 1,
                    ..ProbeBudget::STANDARD
                }),
                write_journal: false,
                ..Probe::new(Stimulus::new(HEAP_CUE), LIFE, "one hit")
            })
            .unwrap();
        assert_eq!(one.hits.len(), 1);
        assert!(!one.dropped.is_empty());
        assert!(one.dropped.iter().all(|d| d["reason"] == "over_max_hits"));
        assert_eq!(one.budget_spent["effort"], "custom");
        // A token budget smaller than any digest: the first hit still fits.
        let tight = s
            .system
            .probe(&Probe {
                effort: ProbeEffort::Custom(ProbeBudget {
                    token_budget: 1,
                    ..ProbeBudget::STANDARD
                }),
                write_journal: false,
                ..Probe::new(Stimulus::new(HEAP_CUE), LIFE, "a tight budget")
            })
            .unwrap();
        assert_eq!(tight.hits.len(), 1);
        assert!(tight.dropped.iter().all(|d| d["reason"] == "token_budget"));
    });
}

#[test]
fn a_blank_reason_is_refused_and_nothing_is_written() {
    on_both(|s| {
        garden(s);
        let before = written(s);
        let r = s
            .system
            .probe(&Probe::new(Stimulus::new("compost"), LIFE, "  \n "));
        assert_refused(s, &before, r, InvalidInput, &["reason"]);
    });
}

#[test]
fn an_empty_scope_ladder_is_refused_and_nothing_is_written() {
    on_both(|s| {
        garden(s);
        let before = written(s);
        let r = s.system.probe(&Probe::new(
            Stimulus::new("compost"),
            &[(" ", OWNER)],
            "why",
        ));
        assert_refused(s, &before, r, InvalidInput, &["scope"]);
    });
}

#[test]
fn an_invalid_concept_tuning_is_refused_and_nothing_is_written() {
    on_both(|s| {
        garden(s);
        let before = written(s);
        let mut budget = ProbeBudget::STANDARD;
        budget.concept_tuning.min_sources = 1;
        let r = s.system.probe(&Probe {
            effort: ProbeEffort::Custom(budget),
            ..Probe::new(Stimulus::new("compost"), LIFE, "why")
        });
        assert_refused(s, &before, r, InvalidInput, &["min_sources"]);
    });
}

#[test]
fn a_journaled_probe_appends_its_probe_trace_and_one_inert_listed_event_per_hit() {
    on_both(|s| {
        garden(s);
        let before = written(s);
        let r = s
            .system
            .probe(&Probe::new(
                Stimulus::new(HEAP_CUE),
                LIFE,
                "the lesson on heaps",
            ))
            .unwrap();
        let after = written(s);
        assert_eq!(
            after.seq_delta(&before),
            1 + r.hits.len() as i64,
            "[{}]",
            s.name
        );
        let traces = s
            .journal
            .traces(&TraceFilter {
                trace_id: Some(r.trace_id.clone()),
                ..TraceFilter::default()
            })
            .unwrap();
        assert_eq!(traces.len(), 1);
        let t = &traces[0];
        assert_eq!(t.trace_kind, "probe");
        assert_eq!(t.escalation_reason.as_deref(), Some("the lesson on heaps"));
        assert_eq!(t.need["probe_reason"], "the lesson on heaps");
        assert_eq!(t.selected, hit_ids(&r));
        let mut f = EventFilter::new("life", OWNER);
        f.kinds = vec!["listed".into()];
        f.limit = 0;
        let listed = s.journal.events(&f).unwrap();
        assert_eq!(listed.len(), r.hits.len());
        assert!(listed.iter().all(|e| e.kind == EventKind::Listed
            && e.trace_id.as_deref() == Some(r.trace_id.as_str())
            && e.provenance["probe"] == true));
        // Listed is inert: nothing was strengthened.
        let mut sel = EventFilter::new("life", OWNER);
        sel.kinds = vec!["selected".into()];
        assert!(s.journal.events(&sel).unwrap().is_empty());
    });
}

#[test]
fn a_supplied_trace_id_derives_the_listed_event_ids() {
    on_both(|s| {
        garden(s);
        let r = s
            .system
            .probe(&Probe {
                trace_id: Some("probe-pinned".into()),
                ..Probe::new(Stimulus::new(HEAP_CUE), LIFE, "pinned")
            })
            .unwrap();
        assert_eq!(r.trace_id, "probe-pinned");
        let mut f = EventFilter::new("life", OWNER);
        f.kinds = vec!["listed".into()];
        let listed = s.journal.events(&f).unwrap();
        for e in &listed {
            let rid = e.record_id.as_deref().unwrap();
            assert_eq!(
                e.event_id,
                ids::selection_event_id("probe-pinned", EventKind::Listed, rid)
            );
        }
    });
}

#[test]
fn write_journal_false_writes_nothing_not_one_byte_of_the_home() {
    on_both(|s| {
        garden(s);
        let (rows, bytes) = (written(s), home_bytes(s));
        for effort in [EffortName::Quick, EffortName::Standard, EffortName::Deep] {
            let r = s
                .system
                .probe(&Probe {
                    effort: ProbeEffort::Preset(effort),
                    write_journal: false,
                    ..Probe::new(Stimulus::new(HEAP_CUE), LIFE, "look only")
                })
                .unwrap();
            assert!(!r.hits.is_empty());
        }
        assert_eq!(written(s), rows, "[{}]", s.name);
        assert_eq!(
            home_bytes(s),
            bytes,
            "[{}] the home's bytes changed",
            s.name
        );
    });
}

#[test]
fn hidden_and_closed_records_are_never_reached() {
    on_both(|s| {
        let g = garden(s);
        s.system
            .bind(&Bind::new(&g.compost, "life", OWNER, SearchState::Hidden))
            .unwrap();
        s.system
            .close_record(&CloseRecord::new(&g.heap, ClosureKind::Retract, "wrong"))
            .unwrap();
        let r = look(s, HEAP_CUE, LIFE);
        let ids = hit_ids(&r);
        assert!(!ids.contains(&g.compost.as_str()), "[{}] {ids:?}", s.name);
        assert!(!ids.contains(&g.heap.as_str()), "[{}] {ids:?}", s.name);
    });
}

#[test]
fn as_of_anchors_the_reach_before_a_later_record() {
    on_both(|s| {
        garden(s);
        let anchor = s.journal.current_seq().unwrap();
        s.system
            .remember_many(&RememberMany::new(
                vec![R::new(
                    RecordKind::Episode,
                    "Late heap",
                    "The compost heap steamed at dawn.",
                )],
                "life",
                OWNER,
                "late",
            ))
            .unwrap();
        let late = ids::digest_assertion_id("late", 0);
        let now = look(s, "compost heap steamed", LIFE);
        assert!(hit_ids(&now).contains(&late.as_str()));
        let mut stim = Stimulus::new("compost heap steamed");
        stim.as_of = Some(anchor);
        let then = s
            .system
            .probe(&Probe {
                write_journal: false,
                ..Probe::new(stim, LIFE, "as it was")
            })
            .unwrap();
        assert_eq!(then.as_of_seq, anchor);
        assert!(!hit_ids(&then).contains(&late.as_str()), "[{}]", s.name);
    });
}

/// 0.5.2 differs from 0.3.2 here: a hit whose title is pending serves
/// `None` (0.3.2 served `""`), never words from the body.
#[test]
fn a_pending_title_is_served_as_none_where_0_3_2_served_an_empty_string() {
    let queued = || SystemOptions {
        task_queue: true,
        ..SystemOptions::default()
    };
    for s in [memory_stack(queued()), sqlite_stack(queued())] {
        let s: &Stack = &s;
        s.system
            .remember_many(&RememberMany::new(
                vec![
                    R::new(
                        RecordKind::Episode,
                        "",
                        "The compost heap smouldered overnight.",
                    )
                    .with_pending(&["title"]),
                ],
                "life",
                OWNER,
                "pend",
            ))
            .unwrap();
        let r = look(s, "compost heap smouldered", LIFE);
        let h = r
            .hits
            .iter()
            .find(|h| h.record_id == ids::digest_assertion_id("pend", 0))
            .unwrap_or_else(|| panic!("[{}] {r:?}", s.name));
        assert_eq!(h.title, None, "[{}]", s.name);
        let json = serde_json::to_value(h).unwrap();
        assert!(json["title"].is_null());
    }
}
