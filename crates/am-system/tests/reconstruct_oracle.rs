//! Differential test of `reconstruct` against AbstractMemory 0.3.2: the
//! scripted session in `tests/oracle/reconstruct_session.py` (formation in two
//! scopes, recalls in both views with participants, patterns, anchors, self
//! seats, `min_activation` and tight budgets, commits, a pin, hidden and
//! prompt-active bindings, a record closure, later formation, anchored
//! re-reads, a non-Latin cue) must give the same handle order, admissions,
//! scores, activations, cues, dropped reasons, warnings, trace candidates and
//! `listed` events (ids, weights, fingerprints) here, on both stacks.
//!
//! Needs `AM_ORACLE_PYTHON` (a python with `abstractmemory==0.3.2`); the test
//! fails with a message saying so when it is unset.
//!
//! Deliberate differences from 0.3.2 (the 0.5.2 spec wins, or the store words
//! its own refusals): the vector channel's `#FALLBACK` warning carries the
//! store's refusal text, compared up to that text; a dropped
//! `duplicate_digest` row's `duplicate_of` is kept on the trace (the seam's
//! `dropped` entry is `{record_id, score, reason}` in 0.5.2). The activation
//! window (`AttentionConfig.window_limit` 512 vs 0.3.2's 8192) is not reached
//! by this session, so it does not show.

mod common;

use am_journal::ClosureKind;
use am_journal::{EventFilter, TraceFilter};
use am_journal::{PromptState, SearchState};
use am_system::RecordKind;
use am_system::{Bind, CloseRecord, CommitSelection, Reconstruct, Reinforce, RememberMany};
use am_system::{MemoryRecordInput as R, RecallBudget, ReconstructionResult, Stimulus, View};
use common::{Stack, on_both};
use serde_json::{Map, Value, json};
use std::process::Command;

fn oracle_output() -> Value {
    let python = std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: point it at a python with abstractmemory==0.3.2 installed \
             (e.g. AM_ORACLE_PYTHON=/tmp/oracle/bin/python); this differential test cannot run without the oracle"
        )
    });
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/reconstruct_session.py"
    );
    let out = Command::new(&python)
        .arg(script)
        .output()
        .unwrap_or_else(|e| panic!("could not run {python} {script}: {e}"));
    assert!(
        out.status.success(),
        "the oracle session failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the oracle printed JSON")
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

struct Session<'a> {
    s: &'a Stack,
    out: Vec<Value>,
    /// A second system on the same home (other config), when set.
    other: Option<am_system::MemorySystem>,
}

impl Session<'_> {
    #[allow(clippy::too_many_arguments)] // Mirrors the Python helper's keywords.
    fn recall(
        &mut self,
        name: &str,
        stimulus: Stimulus,
        scopes: &[(&str, &str)],
        budget: RecallBudget,
        view: View,
        reason: Option<&str>,
        journal: bool,
    ) -> ReconstructionResult {
        let sys = self.other.as_ref().unwrap_or(&self.s.system);
        let r = sys
            .reconstruct(&Reconstruct {
                budget: budget.clone(),
                view,
                escalation_reason: reason.map(str::to_owned),
                journal,
                trace_id: Some(name.into()),
                ..Reconstruct::new(stimulus.clone(), scopes)
            })
            .unwrap_or_else(|e| panic!("[{}] recall {name}: {e}", self.s.name));
        let mut row = Map::new();
        row.insert("name".into(), json!(name));
        row.insert("result".into(), r.to_dict());
        if journal {
            let t = self
                .s
                .journal
                .traces(&TraceFilter {
                    trace_id: Some(name.into()),
                    limit: 1,
                    ..TraceFilter::default()
                })
                .unwrap()
                .remove(0);
            row.insert(
                "trace".into(),
                json!({"channels": t.channels, "candidates": t.candidates, "dropped": t.dropped,
                       "admissions": t.admissions, "selected": t.selected,
                       "query_fingerprint": t.query_fingerprint,
                       "escalation_reason": t.escalation_reason, "cues": t.cues}),
            );
            let mut f = EventFilter::new("session", "s1");
            f.kinds = vec!["listed".into()];
            f.limit = 0;
            let listed: Vec<Value> = self
                .s
                .journal
                .events(&f)
                .unwrap()
                .into_iter()
                .filter(|e| e.trace_id.as_deref() == Some(name))
                .map(|e| {
                    json!([
                        e.record_id,
                        e.weight,
                        e.event_id,
                        e.query_fingerprint,
                        e.actor
                    ])
                })
                .collect();
            row.insert("listed".into(), json!(listed));
        }
        self.out.push(Value::Object(row));
        r
    }
}

fn ids_of(r: &ReconstructionResult, n: usize) -> Vec<String> {
    r.handles
        .iter()
        .take(n)
        .map(|h| h.record_id.clone())
        .collect()
}

/// The same session as `reconstruct_session.py`, on one stack, in the same JSON shape.
fn rust_session(s: &Stack) -> Value {
    let sys = &s.system;
    let mut lunch = R::new(RecordKind::Memory, "Lunch", "Ada had soup for lunch.");
    lunch.participants = strs(&["person:ada", "person:bo"]);
    let mut outage = R::new(
        RecordKind::Episode,
        "Pool outage",
        "The database pool failed at noon during the deploy.",
    );
    outage.keywords = strs(&["pool", "outage"]);
    outage.participants = strs(&["person:ada"]);
    let ids = sys
        .remember_many(&RememberMany {
            turn_id: Some("turn-1".into()),
            ..RememberMany::new(
                vec![
                    outage,
                    R::new(
                        RecordKind::Lesson,
                        "Restart order",
                        "Restart the database pool before the application servers.",
                    )
                    .with_edge("derived_from", "local:0"),
                    R::new(
                        RecordKind::Decision,
                        "Pool size",
                        "We decided to raise the pool size to forty connections.",
                    ),
                    R::new(RecordKind::Value, "Care", "I act with care.")
                        .with_attribute("value_class", "core"),
                    lunch,
                    R::new(RecordKind::Trait, "Curious", "I am curious about systems."),
                    R::new(RecordKind::Memory, "Lunch again", "Ada had soup for lunch."),
                ],
                "session",
                "s1",
                "k1",
            )
        })
        .unwrap()
        .value;
    let gids = sys
        .remember_many(&RememberMany::new(
            vec![R::new(
                RecordKind::Memory,
                "Office",
                "The office pool table is broken.",
            )],
            "global",
            "",
            "k2",
        ))
        .unwrap()
        .value;
    let s1: &[(&str, &str)] = &[("session", "s1")];
    let ladder: &[(&str, &str)] = &[("session", "s1"), ("global", "")];
    let d = RecallBudget::default;
    let mut ss = Session {
        s,
        out: Vec::new(),
        other: None,
    };

    let r1 = ss.recall(
        "t1",
        Stimulus::new("database pool outage"),
        s1,
        d(),
        View::Shelf,
        None,
        true,
    );
    sys.commit_selection(&CommitSelection::new("t1", &ids_of(&r1, 2)))
        .unwrap();
    let r2 = ss.recall(
        "t2",
        Stimulus::new("pool restart").with_participants(&["person:ada"]),
        s1,
        d(),
        View::WorkingSet,
        None,
        true,
    );
    sys.commit_selection(&CommitSelection::new("t2", &ids_of(&r2, 3)))
        .unwrap();
    sys.reinforce(&Reinforce::new(&ids[4], "matters", "session", "s1"))
        .unwrap();
    sys.bind(&Bind::new(&ids[2], "session", "s1", SearchState::Hidden))
        .unwrap();
    for i in [3, 5] {
        let mut b = Bind::new(&ids[i], "session", "s1", SearchState::Indexed);
        b.prompt_state = PromptState::Active;
        sys.bind(&b).unwrap();
    }
    ss.recall(
        "t3",
        Stimulus::new("pool size decision"),
        ladder,
        RecallBudget {
            self_fraction: 0.25,
            ..d()
        },
        View::Shelf,
        Some("cross-session check"),
        true,
    );
    sys.close_record(&CloseRecord::new(
        &ids[1],
        ClosureKind::Retract,
        "wrong order",
    ))
    .unwrap();
    let r4 = ss.recall(
        "t4",
        Stimulus::new("restart the pool"),
        s1,
        RecallBudget {
            min_activation: Some(1.0),
            ..d()
        },
        View::WorkingSet,
        None,
        true,
    );
    let later = sys
        .remember_many(&RememberMany::new(
            vec![R::new(
                RecordKind::Memory,
                "Later outage",
                "Another pool outage happened later.",
            )],
            "session",
            "s1",
            "k3",
        ))
        .unwrap()
        .value;
    ss.recall(
        "t5",
        Stimulus::new("database pool outage").with_as_of(r1.as_of_seq),
        s1,
        d(),
        View::Shelf,
        None,
        false,
    );
    let mut subject = Map::new();
    subject.insert("subject".into(), json!(ids[0]));
    let mut scope_only = Map::new();
    scope_only.insert("scope".into(), json!("x"));
    let mut st6 = Stimulus::new("pool")
        .with_pattern(subject)
        .with_pattern(scope_only)
        .with_pattern(Map::new());
    st6.anchor_record_ids = vec![r2.handles.last().unwrap().record_id.clone(), "nope".into()];
    ss.recall(
        "t6",
        st6,
        s1,
        RecallBudget {
            shelf_size: 3,
            token_budget: 40,
            ..d()
        },
        View::Shelf,
        None,
        true,
    );
    ss.recall(
        "t7",
        Stimulus::new("soup lunch").with_participants(&["person:ada", "person:cy"]),
        s1,
        RecallBudget {
            shelf_size: 4,
            stm_fraction: 0.5,
            ..d()
        },
        View::WorkingSet,
        None,
        true,
    );
    ss.recall(
        "t8",
        Stimulus::new("Пул база"),
        s1,
        RecallBudget {
            max_candidates: 0,
            ..d()
        },
        View::Shelf,
        None,
        true,
    );
    ss.recall(
        "t9",
        Stimulus::new("pool").with_as_of(r4.as_of_seq),
        s1,
        d(),
        View::Shelf,
        None,
        false,
    );
    // The newest-seat guarantee through a second system on the same home.
    ss.other = Some(
        am_system::MemorySystem::over_home_with_options(
            s.system.home().clone(),
            am_system::SystemOptions {
                reconstruct_config: am_system::ReconstructConfig {
                    newest_seat_guarantee: 2,
                    ..am_system::ReconstructConfig::default()
                },
                clock: Some(common::pinned_clock()),
                ..am_system::SystemOptions::default()
            },
        )
        .unwrap(),
    );
    ss.recall(
        "t10",
        Stimulus::new("pool"),
        s1,
        RecallBudget {
            shelf_size: 3,
            stm_fraction: 0.0,
            ..d()
        },
        View::Shelf,
        None,
        true,
    );
    json!({"ids": ids, "global_ids": gids, "recalls": ss.out, "later_ids": later,
           "current_seq": sys.current_seq().unwrap()})
}

#[test]
fn scripted_recall_session_matches_abstractmemory_0_3_2() {
    let mut oracle = oracle_output();
    common::normalize_oracle(&mut oracle);
    on_both(|s| {
        let mut got = rust_session(s);
        common::normalize_oracle(&mut got);
        for key in ["ids", "global_ids", "later_ids", "current_seq"] {
            assert_eq!(got[key], oracle[key], "[{}] {key}", s.name);
        }
        let (g, o) = (
            got["recalls"].as_array().unwrap(),
            oracle["recalls"].as_array().unwrap(),
        );
        assert_eq!(g.len(), o.len());
        for (gr, or) in g.iter().zip(o) {
            let name = or["name"].as_str().unwrap();
            for part in ["result", "trace", "listed"] {
                assert_eq!(
                    gr[part], or[part],
                    "[{}] recall {name}: {part} differs\n rust: {}\n  0.3.2: {}",
                    s.name, gr[part], or[part]
                );
            }
        }
    });
}
