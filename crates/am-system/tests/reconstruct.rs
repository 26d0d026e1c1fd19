//! `reconstruct` on both stacks (the in-memory pair; the SQLite store and
//! journal in one home), one test per contract sentence of api.md
//! "Reconstruction" / "Seam types", architecture.md "Reconstruction: the union
//! working set" and "Presence is not use", and troubleshooting "A record
//! exists but never surfaces in recall" / "Recall results change between runs".

mod common;

use am_journal::ClosureKind;
use am_journal::{EventFilter, EventKind, MemoryEvent, TraceFilter};
use am_journal::{PromptState, SearchState};
use am_system::RecordKind;
use am_system::{
    Activation, Bind, CloseAssertions, CloseRecord, CommitSelection, Reconstruct, Reinforce,
    Remember, RememberMany,
};
use am_system::{
    Admission, AttentionConfig, MemoryRecordInput as R, PayloadTier, RecallBudget,
    ReconstructionResult, Stimulus, SystemOptions, View, ids,
};
use am_triples::ErrorKind::InvalidInput;
use am_triples::TextEmbedder;
use common::{Stack, assert_refused, on_both, on_both_with, written};
use std::sync::Arc;

const S1: &[(&str, &str)] = &[("session", "s1")];

/// Anything holding a system under test.
trait Sys {
    fn sys(&self) -> &am_system::MemorySystem;
}

impl Sys for Stack {
    fn sys(&self) -> &am_system::MemorySystem {
        &self.system
    }
}

/// A stack with an embedding store (kept alive with its temporary directory).
struct EmbeddedStack {
    system: am_system::MemorySystem,
    _dir: Option<tempfile::TempDir>,
}

impl Sys for EmbeddedStack {
    fn sys(&self) -> &am_system::MemorySystem {
        &self.system
    }
}

/// Form the standard records in `session`/`s1`; returns the digest assertion ids.
fn form(s: &impl Sys) -> Vec<String> {
    let recs = [
        R::new(
            RecordKind::Episode,
            "Pool outage",
            "The database pool failed at noon.",
        )
        .with_keywords(&["pool", "outage"]),
        R::new(
            RecordKind::Lesson,
            "Restart order",
            "Restart the database pool first.",
        )
        .with_edge("derived_from", "local:0"),
        R::new(RecordKind::Memory, "Lunch", "Ada had soup for lunch."),
        R::new(
            RecordKind::Memory,
            "Garden",
            "The tomatoes are ripening in the garden.",
        ),
        R::new(RecordKind::Value, "Care", "I act with care.").with_attribute("value_class", "core"),
    ];
    s.sys()
        .remember_many(&RememberMany::new(recs.to_vec(), "session", "s1", "k"))
        .unwrap();
    (0..recs.len())
        .map(|i| ids::digest_assertion_id("k", i))
        .collect()
}

fn recall(s: &impl Sys, cue: &str, budget: &RecallBudget, view: View) -> ReconstructionResult {
    s.sys()
        .reconstruct(&Reconstruct {
            budget: budget.clone(),
            view,
            journal: false,
            ..Reconstruct::new(Stimulus::new(cue), S1)
        })
        .unwrap()
}

fn handle_ids(r: &ReconstructionResult) -> Vec<&str> {
    r.handles.iter().map(|h| h.record_id.as_str()).collect()
}

fn events(s: &Stack, kind: &str) -> Vec<MemoryEvent> {
    let mut f = EventFilter::new("session", "s1");
    f.kinds = vec![kind.into()];
    f.limit = 0;
    s.journal.events(&f).unwrap()
}

#[test]
fn broad_scopes_require_an_escalation_reason_and_a_refusal_writes_nothing() {
    on_both(|s| {
        form(s);
        let before = written(s);
        let ladder = [("session", "s1"), ("global", "")];
        let r = s.system.reconstruct(&Reconstruct {
            escalation_reason: Some("  ".into()),
            ..Reconstruct::new(Stimulus::new("pool"), &ladder)
        });
        assert_refused(
            s,
            &before,
            r,
            InvalidInput,
            &["['global']", "escalation_reason"],
        );
        let ok = s
            .system
            .reconstruct(&Reconstruct {
                escalation_reason: Some("cross-session check".into()),
                trace_id: Some("t-broad".into()),
                ..Reconstruct::new(Stimulus::new("pool"), &ladder)
            })
            .unwrap();
        let trace = s
            .journal
            .traces(&TraceFilter {
                trace_id: Some(ok.trace_id.clone()),
                ..TraceFilter::default()
            })
            .unwrap();
        assert_eq!(
            trace[0].escalation_reason.as_deref(),
            Some("cross-session check"),
            "[{}]",
            s.name
        );
    });
}

#[test]
fn an_empty_scope_ladder_a_blank_trace_id_and_a_bad_budget_are_refused() {
    on_both(|s| {
        form(s);
        let before = written(s);
        let b = RecallBudget::default();
        let st = Stimulus::new("pool");
        let r = s.system.reconstruct(&Reconstruct {
            budget: b.clone(),
            ..Reconstruct::new(st.clone(), &[(" ", "x")])
        });
        assert_refused(
            s,
            &before,
            r,
            InvalidInput,
            &["at least one (scope, owner_id) pair"],
        );
        let r = s.system.reconstruct(&Reconstruct {
            budget: b.clone(),
            trace_id: Some(" ".into()),
            ..Reconstruct::new(st.clone(), S1)
        });
        assert_refused(
            s,
            &before,
            r,
            InvalidInput,
            &["trace_id must be a non-empty string"],
        );
        let bad = RecallBudget {
            self_fraction: 0.95,
            ..RecallBudget::default()
        };
        let r = s.system.reconstruct(&Reconstruct {
            budget: bad.clone(),
            ..Reconstruct::new(st.clone(), S1)
        });
        assert_refused(s, &before, r, InvalidInput, &["self_fraction", "0.95"]);
    });
}

#[test]
fn an_anchor_outside_zero_to_current_seq_is_an_error() {
    on_both(|s| {
        form(s);
        let before = written(s);
        let head = s.system.current_seq().unwrap();
        for bad in [-1, head + 1] {
            let r = s
                .system
                .reconstruct(&Reconstruct::new(Stimulus::new("pool").with_as_of(bad), S1));
            assert_refused(
                s,
                &before,
                r,
                InvalidInput,
                &["not a valid anchor", &format!("current_seq={head}")],
            );
        }
    });
}

#[test]
fn journal_false_writes_nothing() {
    on_both(|s| {
        form(s);
        let before = written(s);
        let r = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
        assert!(!r.handles.is_empty());
        assert_eq!(written(s), before, "[{}]", s.name);
    });
}

#[test]
fn journal_true_appends_one_trace_and_one_inert_listed_event_per_handle() {
    on_both(|s| {
        let aids = form(s);
        let before = s.system.current_seq().unwrap();
        let r = s
            .system
            .reconstruct(&Reconstruct::new(
                Stimulus::new("database pool").with_turn_id("turn-9"),
                S1,
            ))
            .unwrap();
        let listed = events(s, "listed");
        assert_eq!(listed.len(), r.handles.len(), "[{}]", s.name);
        assert!(
            listed
                .iter()
                .all(|e| e.trace_id.as_deref() == Some(r.trace_id.as_str())
                    && e.provenance.get("turn_id").and_then(|v| v.as_str()) == Some("turn-9")
                    && e.actor == "system")
        );
        assert_eq!(
            s.system.current_seq().unwrap() - before,
            1 + r.handles.len() as i64,
            "[{}] one trace plus the listed events",
            s.name
        );
        let trace = &s.journal.traces(&TraceFilter::default()).unwrap()[0];
        assert!(listed.iter().all(|e| e.weight == 0.0
            && e.query_fingerprint.as_deref() == Some(trace.query_fingerprint.as_str())));
        assert_eq!(trace.selected, handle_ids(&r));
        assert_eq!(trace.admissions.len(), r.handles.len());
        // Listing is not use: nothing gained activation.
        let act = s
            .system
            .activation(&Activation::new("session", "s1").of(&aids))
            .unwrap();
        assert!(act.iter().all(|(_, a)| a.base_level == 0.0), "[{}]", s.name);
    });
}

#[test]
fn a_supplied_trace_id_makes_a_journaled_read_replay_safe() {
    on_both(|s| {
        form(s);
        let seq = s.system.current_seq().unwrap();
        let st = Stimulus::new("database pool").with_as_of(seq);
        let b = RecallBudget::default();
        let first = s
            .system
            .reconstruct(&Reconstruct {
                budget: b.clone(),
                trace_id: Some("t-replay".into()),
                ..Reconstruct::new(st.clone(), S1)
            })
            .unwrap();
        let after_first = written(s);
        let again = s
            .system
            .reconstruct(&Reconstruct {
                budget: b.clone(),
                trace_id: Some("t-replay".into()),
                ..Reconstruct::new(st.clone(), S1)
            })
            .unwrap();
        assert_eq!(written(s), after_first, "[{}] a replay wrote rows", s.name);
        assert_eq!(first, again, "[{}]", s.name);
        let listed = events(s, "listed");
        assert!(listed.iter().all(|e| e.event_id
            == ids::selection_event_id(
                "t-replay",
                EventKind::Listed,
                e.record_id.as_deref().unwrap()
            )));
    });
}

#[test]
fn the_same_as_of_anchor_reproduces_a_result_exactly() {
    on_both(|s| {
        let aids = form(s);
        let anchor = s.system.current_seq().unwrap();
        let st = Stimulus::new("database pool lunch").with_as_of(anchor);
        let b = RecallBudget::default();
        let first = s
            .system
            .reconstruct(&Reconstruct {
                budget: b.clone(),
                view: View::WorkingSet,
                journal: false,
                trace_id: Some("t".into()),
                ..Reconstruct::new(st.clone(), S1)
            })
            .unwrap();
        assert_eq!(first.as_of_seq, anchor);
        // Later use, pins, bindings and closures change nothing at the anchor.
        s.system
            .commit_selection(&CommitSelection::new("c1", &aids[2..4]))
            .unwrap();
        s.system
            .reinforce(&Reinforce::new(&aids[3], "pin", "session", "s1"))
            .unwrap();
        s.system
            .bind(&Bind::new(&aids[0], "session", "s1", SearchState::Hidden))
            .unwrap();
        s.system
            .close_assertions(&CloseAssertions::new(
                &aids[1..2],
                ClosureKind::Retract,
                "wrong",
            ))
            .unwrap();
        let again = s
            .system
            .reconstruct(&Reconstruct {
                budget: b.clone(),
                view: View::WorkingSet,
                journal: false,
                trace_id: Some("t".into()),
                ..Reconstruct::new(st.clone(), S1)
            })
            .unwrap();
        assert_eq!(first, again, "[{}]", s.name);
        let now = recall(s, "database pool lunch", &b, View::WorkingSet);
        assert_ne!(
            handle_ids(&now),
            handle_ids(&first),
            "[{}] the head read moved on",
            s.name
        );
    });
}

#[test]
fn a_record_formed_after_an_explicit_anchor_is_excluded_with_a_note() {
    on_both(|s| {
        form(s);
        let anchor = s.system.current_seq().unwrap();
        let later = s
            .system
            .remember(&Remember::new(
                R::new(
                    RecordKind::Memory,
                    "Pool later",
                    "Another pool outage happened.",
                ),
                "session",
                "s1",
                "k2",
            ))
            .unwrap()
            .value;
        let later_aid = ids::digest_assertion_id("k2", 0);
        let r = s
            .system
            .reconstruct(&Reconstruct {
                journal: false,
                ..Reconstruct::new(Stimulus::new("pool outage").with_as_of(anchor), S1)
            })
            .unwrap();
        assert!(
            !handle_ids(&r).contains(&later_aid.as_str()),
            "[{}] {later}",
            s.name
        );
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("1 record(s) formed after the anchor"))
        );
        let head = recall(s, "pool outage", &RecallBudget::default(), View::Shelf);
        assert!(handle_ids(&head).contains(&later_aid.as_str()));
        assert!(
            !head
                .warnings
                .iter()
                .any(|w| w.contains("formed after the anchor"))
        );
    });
}

#[test]
fn a_hidden_binding_removes_a_record_from_ranked_retrieval_in_that_pair_only() {
    on_both(|s| {
        let aids = form(s);
        let gid = s
            .system
            .resolve_digest_assertion(&aids[0])
            .unwrap()
            .unwrap()
            .subject;
        s.system
            .bind(&Bind::new(&gid, "session", "s1", SearchState::Hidden))
            .unwrap();
        let r = recall(
            s,
            "database pool outage",
            &RecallBudget::default(),
            View::Shelf,
        );
        assert!(!handle_ids(&r).contains(&aids[0].as_str()), "[{}]", s.name);
        // Id lookups still see it.
        assert!(s.system.payload(&aids[0], PayloadTier::Digest).is_ok());
        // Hidden in another pair vetoes nothing here.
        s.system
            .bind(&Bind::new(&gid, "session", "other", SearchState::Indexed))
            .unwrap();
        let r = recall(
            s,
            "database pool outage",
            &RecallBudget::default(),
            View::Shelf,
        );
        assert!(!handle_ids(&r).contains(&aids[0].as_str()));
        // Rebinding indexed restores it, and the handle shows the folded binding.
        let mut b = Bind::new(&gid, "session", "s1", SearchState::Indexed);
        b.prompt_state = PromptState::Inactive;
        s.system.bind(&b).unwrap();
        let r = recall(
            s,
            "database pool outage",
            &RecallBudget::default(),
            View::Shelf,
        );
        let h = r
            .handles
            .iter()
            .find(|h| h.record_id == aids[0])
            .expect("restored");
        assert_eq!(h.binding, "indexed+inactive");
    });
}

#[test]
fn a_closed_record_leaves_ranked_retrieval() {
    on_both(|s| {
        let aids = form(s);
        s.system
            .close_record(&CloseRecord::new(
                &aids[1],
                ClosureKind::Retract,
                "wrong order",
            ))
            .unwrap();
        let r = recall(
            s,
            "restart database pool",
            &RecallBudget::default(),
            View::WorkingSet,
        );
        assert!(!handle_ids(&r).contains(&aids[1].as_str()), "[{}]", s.name);
        assert!(!r.dropped.iter().any(|d| d.record_id == aids[1]));
    });
}

#[test]
fn relevance_admits_and_activation_only_reorders() {
    on_both(|s| {
        let aids = form(s);
        // The garden record is made as hot as a record can be, but never matches.
        for i in 0..4 {
            s.system
                .reinforce(
                    &Reinforce::new(&aids[3], "pin", "session", "s1")
                        .with_weight(25.0)
                        .with_event_id(&format!("p{i}")),
                )
                .unwrap();
        }
        let r = recall(
            s,
            "database pool",
            &RecallBudget {
                stm_fraction: 0.0,
                ..RecallBudget::default()
            },
            View::Shelf,
        );
        let pos = |id: &str| handle_ids(&r).iter().position(|h| *h == id).unwrap();
        assert!(
            pos(&aids[3]) > pos(&aids[0]) && pos(&aids[3]) > pos(&aids[1]),
            "[{}]",
            s.name
        );
        let garden = &r.handles[pos(&aids[3])];
        assert!(garden.relevance.is_empty() && garden.activation.base_level == 25.0);
        // Among matched peers, activation reorders: pin the lesson.
        let before = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
        s.system
            .reinforce(&Reinforce::new(&aids[0], "pin", "session", "s1").with_weight(25.0))
            .unwrap();
        let after = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
        // Equal keyword scores: the lesson leads on kind rank until the episode is pinned.
        assert_eq!(before.handles[0].record_id, aids[1]);
        assert_eq!(after.handles[0].record_id, aids[0], "[{}]", s.name);
    });
}

#[test]
fn the_best_channel_match_is_seated_first_against_the_full_budget() {
    on_both(|s| {
        let aids = form(s);
        s.system
            .commit_selection(&CommitSelection::new("warm", &aids[2..4]))
            .unwrap();
        // The budget fits exactly one digest; STM reserves a quarter of it.
        let tokens = am_triples::token_estimate("The database pool failed at noon.");
        let b = RecallBudget {
            token_budget: tokens,
            ..RecallBudget::default()
        };
        let r = recall(s, "database pool failed noon", &b, View::Shelf);
        assert_eq!(handle_ids(&r), [aids[0].as_str()], "[{}]", s.name);
        assert_eq!(r.stop_reason, "budget_exhausted");
        assert!(r.dropped.iter().any(|d| d.reason == "budget_exhausted"));
    });
}

#[test]
fn shelf_size_and_token_budget_are_hard_bounds_with_dropped_reasons() {
    on_both(|s| {
        form(s);
        let r = recall(
            s,
            "pool",
            &RecallBudget {
                shelf_size: 2,
                ..RecallBudget::default()
            },
            View::Shelf,
        );
        assert_eq!(r.handles.len(), 2, "[{}]", s.name);
        assert!(r.dropped.iter().all(|d| d.reason == "below_shelf"));
        assert_eq!(r.dropped.len(), 3);
        let r = recall(
            s,
            "pool",
            &RecallBudget {
                token_budget: 20,
                ..RecallBudget::default()
            },
            View::Shelf,
        );
        let used: usize = r.handles.iter().map(|h| h.token_estimate).sum();
        assert!(used <= 20 && r.budget_spent.tokens_used == used);
        assert!(r.dropped.iter().all(|d| d.reason == "budget_exhausted"));
        let r = recall(
            s,
            "pool",
            &RecallBudget {
                max_candidates: 2,
                ..RecallBudget::default()
            },
            View::Shelf,
        );
        assert_eq!(r.budget_spent.candidates_considered, 2, "[{}]", s.name);
    });
}

#[test]
fn max_candidates_zero_gathers_nothing_and_says_so() {
    on_both(|s| {
        form(s);
        let r = recall(
            s,
            "pool",
            &RecallBudget {
                max_candidates: 0,
                ..RecallBudget::default()
            },
            View::Shelf,
        );
        assert!(r.handles.is_empty());
        assert_eq!(r.stop_reason, "no_candidates");
        assert_eq!(
            r.warnings,
            ["#FALLBACK: max_candidates <= 0 disables candidate gathering"]
        );
    });
}

#[test]
fn only_stimulus_and_both_admissions_deposit_at_commit() {
    on_both(|s| {
        let aids = form(s);
        s.system
            .commit_selection(&CommitSelection::new("warm", &aids[2..4]))
            .unwrap();
        let r = s
            .system
            .reconstruct(&Reconstruct {
                trace_id: Some("t-use".into()),
                ..Reconstruct::new(Stimulus::new("database pool"), S1)
            })
            .unwrap();
        let label = |id: &str| {
            r.handles
                .iter()
                .find(|h| h.record_id == id)
                .map(|h| h.admission)
        };
        assert_eq!(label(&aids[0]), Some(Admission::Stimulus), "[{}]", s.name);
        assert_eq!(label(&aids[2]), Some(Admission::Stm), "[{}]", s.name);
        let count = |id: &str| s.journal.selected_count(id, None).unwrap();
        let (stim0, stm0) = (count(&aids[0]), count(&aids[2]));
        s.system
            .commit_selection(&CommitSelection::new(
                "t-use",
                &[aids[0].clone(), aids[2].clone()],
            ))
            .unwrap();
        assert_eq!(count(&aids[0]), stim0 + 1, "[{}] stimulus deposits", s.name);
        assert_eq!(
            count(&aids[2]),
            stm0,
            "[{}] stm is presence, not use",
            s.name
        );
    });
}

#[test]
fn a_trail_hot_channel_match_is_admitted_as_both() {
    on_both(|s| {
        let aids = form(s);
        s.system
            .commit_selection(&CommitSelection::new("warm", &aids[0..1]))
            .unwrap();
        let r = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
        let h = r.handles.iter().find(|h| h.record_id == aids[0]).unwrap();
        assert_eq!(h.admission, Admission::Both, "[{}]", s.name);
        assert_eq!(h.activation.base_level, 8.0);
        assert_eq!(h.provenance["global_count"], 1);
    });
}

#[test]
fn prompt_active_bindings_take_self_seats_that_deposit_nothing() {
    on_both(|s| {
        let aids = form(s);
        let gid = s
            .system
            .resolve_digest_assertion(&aids[4])
            .unwrap()
            .unwrap()
            .subject;
        let mut b = Bind::new(&gid, "session", "s1", SearchState::Indexed);
        b.prompt_state = PromptState::Active;
        s.system.bind(&b).unwrap();
        let off = recall(s, "garden tomatoes", &RecallBudget::default(), View::Shelf);
        assert!(
            off.handles
                .iter()
                .all(|h| h.admission != Admission::SelfCore)
        );
        let budget = RecallBudget {
            self_fraction: 0.2,
            ..RecallBudget::default()
        };
        let r = s
            .system
            .reconstruct(&Reconstruct {
                budget: budget.clone(),
                trace_id: Some("t-self".into()),
                ..Reconstruct::new(Stimulus::new("garden tomatoes"), S1)
            })
            .unwrap();
        assert_eq!(
            r.handles[0].record_id, aids[4],
            "[{}] the self block leads",
            s.name
        );
        assert_eq!(r.handles[0].admission, Admission::SelfCore);
        assert_eq!(r.handles[0].binding, "indexed+active");
        assert_eq!(r.budget_spent.self_handles, Some(1));
        s.system
            .commit_selection(&CommitSelection::new("t-self", &aids[4..5]))
            .unwrap();
        assert_eq!(
            s.journal.selected_count(&aids[4], None).unwrap(),
            0,
            "[{}]",
            s.name
        );
    });
}

#[test]
fn the_working_set_view_carries_walked_edges_and_the_shelf_view_none() {
    on_both(|s| {
        let aids = form(s);
        s.system
            .commit_selection(&CommitSelection::new(
                "warm",
                &[aids[0].clone(), aids[3].clone()],
            ))
            .unwrap();
        let ws = recall(
            s,
            "database pool",
            &RecallBudget::default(),
            View::WorkingSet,
        );
        assert!(!ws.edges.is_empty(), "[{}]", s.name);
        let garden = ws.handles.iter().find(|h| h.record_id == aids[3]).unwrap();
        assert!(garden.activation.spread > 0.0);
        assert!(
            garden
                .cues
                .iter()
                .any(|c| c.starts_with("spread: via co_used from "))
        );
        let shelf = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
        assert!(shelf.edges.is_empty());
        assert_eq!(
            shelf.budget_spent.edges_visited,
            ws.budget_spent.edges_visited
        );
        // Hops and edges are bounded by the budget.
        let none = recall(
            s,
            "database pool",
            &RecallBudget {
                max_hops: 0,
                ..RecallBudget::default()
            },
            View::WorkingSet,
        );
        assert_eq!(none.budget_spent.edges_visited, 0);
        assert!(none.handles.iter().all(|h| h.activation.spread == 0.0));
        let one = recall(
            s,
            "database pool",
            &RecallBudget {
                max_edges: 1,
                ..RecallBudget::default()
            },
            View::WorkingSet,
        );
        assert_eq!(one.budget_spent.edges_visited, 1, "[{}]", s.name);
    });
}

#[test]
fn min_activation_filters_working_set_members_but_never_channel_matches() {
    on_both(|s| {
        let aids = form(s);
        let b = RecallBudget {
            min_activation: Some(1.0),
            ..RecallBudget::default()
        };
        let r = recall(s, "database pool", &b, View::WorkingSet);
        assert!(
            handle_ids(&r).contains(&aids[0].as_str())
                && handle_ids(&r).contains(&aids[1].as_str())
        );
        assert!(!handle_ids(&r).contains(&aids[3].as_str()), "[{}]", s.name);
        assert!(
            r.dropped
                .iter()
                .any(|d| d.record_id == aids[3] && d.reason == "below_min_activation")
        );
        let shelf = recall(s, "database pool", &b, View::Shelf);
        assert!(
            handle_ids(&shelf).contains(&aids[3].as_str()),
            "[{}] shelf view ignores it",
            s.name
        );
    });
}

#[test]
fn the_keyword_channel_is_labelled_and_a_non_latin_cue_says_why_it_found_nothing() {
    on_both(|s| {
        let aids = form(s);
        let r = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
        assert!(r.warnings.contains(
            &"#FALLBACK: keyword channel v1 = token scan over the gathered candidates (keyword discovery through the home's FTS5 index is off: turn it on with ReconstructConfig.keyword_discovery, or recall with the hybrid profile as am recall does; am exec: profile hybrid on the line, or --profile hybrid)".to_owned()
        ));
        let h = r.handles.iter().find(|h| h.record_id == aids[1]).unwrap();
        assert_eq!(h.relevance.get("keyword"), Some(&1.0));
        assert_eq!(h.cues[0], "keyword: matched database, pool (2/2)");
        let r = recall(s, "пул база", &RecallBudget::default(), View::Shelf);
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("cue produced no indexable tokens")),
            "[{}]",
            s.name
        );
    });
}

#[test]
fn exact_patterns_score_one_and_order_first() {
    on_both(|s| {
        let aids = form(s);
        let gid = s
            .system
            .resolve_digest_assertion(&aids[2])
            .unwrap()
            .unwrap()
            .subject;
        let mut p = am_triples::JsonMap::new();
        p.insert("subject".into(), gid.into());
        let st = Stimulus::new("database pool").with_pattern(p);
        let r = s
            .system
            .reconstruct(&Reconstruct {
                journal: false,
                ..Reconstruct::new(st.clone(), S1)
            })
            .unwrap();
        assert_eq!(r.handles[0].record_id, aids[2], "[{}]", s.name);
        assert_eq!(r.handles[0].relevance.get("exact"), Some(&1.0));
    });
}

#[test]
fn the_participants_channel_scores_shared_over_wanted() {
    on_both(|s| {
        let mut rec = R::new(RecordKind::Memory, "Walk", "A long walk by the river.");
        rec.participants = vec!["person:ada".into(), "person:bo".into()];
        s.system
            .remember(&Remember::new(rec.clone(), "session", "s1", "kp"))
            .unwrap();
        let st = Stimulus::new("river").with_participants(&["person:ada", "person:cy"]);
        let r = s
            .system
            .reconstruct(&Reconstruct {
                journal: false,
                ..Reconstruct::new(st.clone(), S1)
            })
            .unwrap();
        assert_eq!(
            r.handles[0].relevance.get("participants"),
            Some(&0.5),
            "[{}]",
            s.name
        );
        assert!(
            r.handles[0]
                .cues
                .contains(&"shared-with: person:ada (1/2)".to_owned())
        );
    });
}

fn embedder_options() -> SystemOptions {
    let e: Arc<dyn TextEmbedder> = Arc::new(am_embed::OfflineEmbedder::new().unwrap());
    SystemOptions {
        embedder: Some(e),
        ..SystemOptions::default()
    }
}

/// A stack whose store embeds on write with the model the system embeds cues with.
fn embedded_stack(which: &str) -> EmbeddedStack {
    use am_backend_sqlite::journal::SQLiteJournal;
    use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
    use am_journal::{InMemoryJournal, MemoryJournal};
    use am_triples::{InMemoryTripleStore, TripleStore};
    let e: Arc<dyn TextEmbedder> = Arc::new(am_embed::OfflineEmbedder::new().unwrap());
    let mut o = embedder_options();
    o.clock = Some(common::pinned_clock());
    let (store, journal, dir): (Arc<dyn TripleStore>, Arc<dyn MemoryJournal>, _) =
        if which == "memory" {
            (
                Arc::new(InMemoryTripleStore::new(Some(e))),
                Arc::new(InMemoryJournal::new()),
                None,
            )
        } else {
            let dir = tempfile::tempdir().unwrap();
            let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
            (
                Arc::new(
                    SQLiteTripleStore::with_home(&home, Some(e), SqliteStoreOptions::default())
                        .unwrap(),
                ),
                Arc::new(SQLiteJournal::open(&home).unwrap()),
                Some(dir),
            )
        };
    let system = am_system::MemorySystem::with_options(store, journal, o).unwrap();
    EmbeddedStack { system, _dir: dir }
}

#[test]
fn the_vector_channel_scores_with_a_confidence_scaled_floor() {
    for which in ["memory", "sqlite"] {
        let s = embedded_stack(which);
        let aids = form(&s);
        let r = recall(&s, "soup for lunch", &RecallBudget::default(), View::Shelf);
        assert!(
            !r.warnings.iter().any(|w| w.contains("vector channel")),
            "[{which}] {:?}",
            r.warnings
        );
        let lunch = r.handles.iter().find(|h| h.record_id == aids[2]).unwrap();
        let v = *lunch.relevance.get("vector").expect("a vector score");
        assert!(v > 0.0 && v <= 1.0, "[{which}] {v}");
        assert!(lunch.cues.iter().any(|c| c.starts_with("vector: cosine ")));
    }
}

#[test]
fn a_vector_channel_failure_degrades_to_a_fallback_warning() {
    on_both(|s| {
        form(s);
        // No embedder anywhere: the store refuses query_text.
        let r = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("#FALLBACK: vector channel unavailable: ")),
            "[{}]",
            s.name
        );
        assert!(!r.handles.is_empty());
    });
    for which in ["memory", "sqlite"] {
        let s = embedded_stack(which);
        form(&s);
        // A cue embedding of the wrong dimension: the store's DimensionMismatch becomes a warning.
        let mut st = Stimulus::new("database pool");
        st.embedding = Some(vec![0.5; 3]);
        let r = s
            .sys()
            .reconstruct(&Reconstruct {
                journal: false,
                ..Reconstruct::new(st.clone(), S1)
            })
            .unwrap();
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("#FALLBACK: vector channel unavailable: ")),
            "[{which}] {:?}",
            r.warnings
        );
        assert!(!r.handles.is_empty());
    }
}

#[test]
fn the_activation_fold_reads_only_its_bounded_window() {
    on_both_with(
        || SystemOptions {
            attention_config: AttentionConfig {
                window_limit: 2,
                ..AttentionConfig::default()
            },
            ..SystemOptions::default()
        },
        |s| {
            let aids = form(s);
            s.system
                .commit_selection(&CommitSelection::new("old", &aids[3..4]))
                .unwrap();
            s.system
                .commit_selection(&CommitSelection::new("new", &aids[2..3]))
                .unwrap();
            s.system
                .commit_selection(&CommitSelection::new("newer", &aids[0..1]))
                .unwrap();
            let r = recall(
                s,
                "nothing matches this",
                &RecallBudget::default(),
                View::Shelf,
            );
            let base = |id: &str| {
                r.handles
                    .iter()
                    .find(|h| h.record_id == id)
                    .map(|h| h.activation.base_level)
            };
            assert_eq!(base(&aids[3]), Some(0.0), "[{}] outside the window", s.name);
            assert!(base(&aids[2]).unwrap() > 0.0);
        },
    );
}

#[test]
fn both_stacks_give_identical_results() {
    let run = |s: &Stack| {
        let aids = form(s);
        s.system
            .commit_selection(&CommitSelection::new("c", &aids[0..3]))
            .unwrap();
        s.system
            .reinforce(&Reinforce::new(&aids[3], "pin", "session", "s1"))
            .unwrap();
        let mut out = Vec::new();
        for (cue, view) in [
            ("database pool", View::Shelf),
            ("lunch garden", View::WorkingSet),
            ("care", View::Shelf),
        ] {
            out.push(
                s.system
                    .reconstruct(&Reconstruct {
                        view,
                        trace_id: Some(cue.into()),
                        ..Reconstruct::new(Stimulus::new(cue), S1)
                    })
                    .unwrap()
                    .to_dict()
                    .to_string()
                    // The stores word their query_text refusal differently.
                    .replace("SQLiteTripleStore", "the store"),
            );
        }
        out
    };
    let m = run(&common::memory_stack(SystemOptions::default()));
    let q = run(&common::sqlite_stack(SystemOptions::default()));
    for (a, b) in m.iter().zip(&q) {
        assert_eq!(a, b, "memory:\n{a}\nsqlite:\n{b}");
    }
}

#[test]
fn keyword_discovery_finds_matches_outside_the_recent_window_where_the_store_has_an_index() {
    let opts = || SystemOptions {
        reconstruct_config: am_system::ReconstructConfig {
            keyword_discovery: true,
            ..am_system::ReconstructConfig::default()
        },
        ..SystemOptions::default()
    };
    on_both_with(opts, |s| {
        s.system
            .remember(&Remember::new(
                R::new(RecordKind::Memory, "Old", "The zeppelin hangar flooded."),
                "session",
                "s1",
                "old",
            ))
            .unwrap();
        let newer: Vec<R> = (0..6)
            .map(|i| {
                R::new(
                    RecordKind::Memory,
                    &format!("N{i}"),
                    &format!("Newer note number {i}."),
                )
            })
            .collect();
        s.system
            .remember_many(&RememberMany::new(newer.to_vec(), "session", "s1", "new"))
            .unwrap();
        let old = ids::digest_assertion_id("old", 0);
        let b = RecallBudget {
            max_candidates: 3,
            ..RecallBudget::default()
        };
        let r = recall(s, "zeppelin hangar", &b, View::Shelf);
        if s.name == "sqlite" {
            assert_eq!(
                r.handles[0].record_id, old,
                "[sqlite] discovered through FTS5"
            );
            assert_eq!(r.handles[0].relevance.get("keyword"), Some(&1.0));
            assert!(
                !r.warnings.iter().any(|w| w.contains("token scan")),
                "{:?}",
                r.warnings
            );
        } else {
            assert!(
                !handle_ids(&r).contains(&old.as_str()),
                "[memory] no index, no discovery"
            );
            assert!(r.warnings.iter().any(|w| w.starts_with(
                "#FALLBACK: keyword discovery requested but the store has no FTS5 index"
            )));
        }
    });
}

#[test]
fn the_ablation_arms_are_read_side_and_labelled_on_every_result() {
    let arm = |a: am_system::Ablation| {
        move || SystemOptions {
            ablation: Some(a),
            ..SystemOptions::default()
        }
    };
    on_both_with(arm(am_system::Ablation::Recency), |s| {
        let aids = form(s);
        s.system
            .commit_selection(&CommitSelection::new("c", &aids[2..3]))
            .unwrap();
        let r = recall(
            s,
            "database pool",
            &RecallBudget::default(),
            View::WorkingSet,
        );
        assert!(
            r.handles
                .iter()
                .all(|h| h.relevance.is_empty() && h.activation.total == 0.0)
        );
        assert!(r.edges.is_empty());
        assert_eq!(
            &r.warnings[r.warnings.len() - 2..],
            [
                "ablation=recency (pure recency baseline)",
                "ablation=recency: channels disabled — stimulus cues, patterns and anchors are ignored"
            ],
            "[{}]",
            s.name
        );
    });
    on_both_with(arm(am_system::Ablation::RecencyEmbedding), |s| {
        let aids = form(s);
        s.system
            .commit_selection(&CommitSelection::new("c", &aids[2..3]))
            .unwrap();
        let r = recall(
            s,
            "database pool",
            &RecallBudget::default(),
            View::WorkingSet,
        );
        assert!(
            r.handles[0].relevance.get("keyword").is_some(),
            "[{}] channels run",
            s.name
        );
        assert!(
            r.handles
                .iter()
                .all(|h| h.activation.total == 0.0 && h.admission != Admission::Stm)
        );
        assert_eq!(
            r.warnings.last().unwrap(),
            "ablation=recency_embedding (Arm B)"
        );
    });
}

/// With `ReconstructConfig.concept_expansion` on, a record that shares a
/// discriminative concept ("noon", held by two records) with a channel match
/// joins as a `concept` admission though the cue never names it; off (the
/// default), it is no concept admission. No `#FALLBACK` either way (the expansion is built).
#[test]
fn concept_expansion_admits_a_record_sharing_a_rare_concept_with_a_match() {
    let with = |on: bool| {
        move || SystemOptions {
            reconstruct_config: am_system::ReconstructConfig {
                concept_expansion: on,
                ..am_system::ReconstructConfig::default()
            },
            ..SystemOptions::default()
        }
    };
    for on in [true, false] {
        on_both_with(with(on), |s| {
            form(s);
            s.system
                .remember(&Remember::new(
                    R::new(RecordKind::Memory, "Bells", "The bells rang at noon."),
                    "session",
                    "s1",
                    "bells",
                ))
                .unwrap();
            let bells = ids::digest_assertion_id("bells", 0);
            let r = recall(s, "database pool", &RecallBudget::default(), View::Shelf);
            assert!(
                !r.warnings.iter().any(|w| w.contains("concept_expansion")),
                "[{}] {:?}",
                s.name,
                r.warnings
            );
            let h = r.handles.iter().find(|h| h.record_id == bells);
            if on {
                let h = h.unwrap_or_else(|| panic!("[{}] bells not admitted: {r:?}", s.name));
                assert!(
                    h.relevance
                        .0
                        .iter()
                        .any(|(c, v)| c == "concept" && *v > 0.0)
                );
                assert!(
                    h.cues
                        .iter()
                        .any(|c| c.starts_with("shared concepts: ") && c.contains("noon")),
                    "[{}] {:?}",
                    s.name,
                    h.cues
                );
            } else {
                // It may still sit on the shelf as a recent candidate, never
                // as a concept admission.
                assert!(
                    h.is_none_or(|h| h.relevance.0.iter().all(|(c, _)| c != "concept")),
                    "[{}] a concept admission with expansion off",
                    s.name
                );
            }
        });
    }
}
