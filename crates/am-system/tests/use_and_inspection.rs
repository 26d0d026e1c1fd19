//! Use and inspection on both stacks: `commit_selection` (per-record
//! `selected`, all-pairs `co_selected`, edge hop pairs, the depositing slice,
//! idempotency by trace id), deliberate acts, `activation`, `access_counts`,
//! `payload`, `bind`, closures, and both id namespaces.
//! Spec: api.md "Committing use, deliberate acts, inspection", "Bindings and closures".

mod common;

use am_journal::ClosureKind;
use am_journal::{
    BindingFilter, ClosureFilter, EventFilter, EventKind, MemoryEvent, ReconstructionTrace,
};
use am_journal::{PromptState, SearchState};
use am_system::RecordKind;
use am_system::{
    Activation, Attenuate, Bind, CloseAssertions, CloseRecord, CommitSelection, Refocus, Reinforce,
    Remember, RememberMany,
};
use am_system::{AttentionConfig, MemoryRecordInput, PayloadTier, SystemOptions, ids};
use am_triples::ErrorKind::{InvalidInput, NotFound, Unsupported};
use common::{Stack, assert_refused, on_both, on_both_with, written};
use serde_json::json;

/// Form `n` episodes in `session`/`s1`; returns (graph ids, digest assertion ids).
fn form(s: &Stack, n: usize, key: &str) -> (Vec<String>, Vec<String>) {
    let recs: Vec<MemoryRecordInput> = (0..n)
        .map(|i| {
            MemoryRecordInput::new(
                RecordKind::Episode,
                &format!("E{i}"),
                &format!("Episode number {i}."),
            )
        })
        .collect();
    let gids = s
        .system
        .remember_many(&RememberMany::new(recs.to_vec(), "session", "s1", key))
        .unwrap()
        .value;
    let aids = (0..n).map(|i| ids::digest_assertion_id(key, i)).collect();
    (gids, aids)
}

fn stream_events(s: &Stack) -> Vec<MemoryEvent> {
    let mut f = EventFilter::new("session", "s1");
    f.limit = 0;
    let mut e = s.journal.events(&f).unwrap();
    e.reverse();
    e
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn commit_deposits_one_selected_per_used_record_and_co_selected_for_every_pair() {
    on_both(|s| {
        let (_, aids) = form(s, 3, "k");
        let snap = s
            .system
            .commit_selection(&CommitSelection {
                prompt_token_estimate: Some(120),
                ..CommitSelection::new("t1", &aids)
            })
            .unwrap()
            .value;
        let events = stream_events(s);
        let selected: Vec<&str> = events
            .iter()
            .filter(|e| e.kind == EventKind::Selected)
            .filter_map(|e| e.record_id.as_deref())
            .collect();
        assert_eq!(
            selected,
            aids.iter().map(String::as_str).collect::<Vec<_>>(),
            "[{}]",
            s.name
        );
        let pairs: Vec<(String, String)> =
            events.iter().filter_map(|e| e.pair_ids.clone()).collect();
        assert_eq!(pairs.len(), 3);
        for e in &events {
            let key = e.record_id.clone().unwrap_or_else(|| {
                let (a, b) = e.pair_ids.clone().unwrap();
                format!("{a}+{b}")
            });
            assert_eq!(e.event_id, ids::selection_event_id("t1", e.kind, &key));
            assert_eq!(
                e.weight,
                if e.kind == EventKind::Selected {
                    8.0
                } else {
                    4.0
                }
            );
            assert_eq!(e.trace_id.as_deref(), Some("t1"));
            assert_eq!(
                e.provenance["context_ref"],
                json!(ids::selection_snapshot_id("t1"))
            );
        }
        assert_eq!(snap.snapshot_id, ids::selection_snapshot_id("t1"));
        assert_eq!(snap.used_record_ids, aids);
        assert_eq!(snap.prompt_token_estimate, Some(120));
        assert_eq!(snap.provenance["used_count"], json!(3));
        assert_eq!(snap.provenance["admissions"][&aids[0]], json!("stimulus"));
        assert_eq!(snap.display[0]["digest"], json!("Episode number 0."));
    });
}

#[test]
fn commit_is_idempotent_by_trace_id_and_returns_the_original_snapshot() {
    on_both(|s| {
        let (gids, aids) = form(s, 2, "k");
        let first = s
            .system
            .commit_selection(&CommitSelection::new("t1", &aids))
            .unwrap()
            .value;
        let before = written(s);
        // Graph ids resolve to the same digest ids: a replay in the other namespace.
        let again = s
            .system
            .commit_selection(&CommitSelection::new("t1", &gids))
            .unwrap();
        assert_eq!(again.value, first, "[{}]", s.name);
        assert_eq!(written(s), before);
        assert!(
            again.warnings.is_empty(),
            "[{}] an equal replay warns nothing",
            s.name
        );
        let _ = s.system.take_warnings();
        let different = s
            .system
            .commit_selection(&CommitSelection::new("t1", &aids[..1]))
            .unwrap();
        assert_eq!(different.value, first);
        assert_eq!(written(s), before);
        assert!(
            different
                .warnings
                .iter()
                .any(|w| w.starts_with("#FALLBACK: commit_selection replay"))
        );
        assert!(
            s.system.take_warnings().is_empty(),
            "[{}] the warning travels with its result only",
            s.name
        );
    });
}

#[test]
fn only_stimulus_both_and_unlabelled_admissions_deposit() {
    on_both(|s| {
        let (_, aids) = form(s, 5, "k");
        let mut trace = ReconstructionTrace::new("t-adm", "fp");
        for (id, label) in aids.iter().zip(["stm", "self", "both", "stimulus"]) {
            trace.admissions.insert(id.clone(), json!(label));
        }
        s.journal.append_trace(&trace).unwrap();
        let snap = s
            .system
            .commit_selection(&CommitSelection::new("t-adm", &aids))
            .unwrap()
            .value;
        let events = stream_events(s);
        let selected: Vec<String> = events.iter().filter_map(|e| e.record_id.clone()).collect();
        assert_eq!(selected, aids[2..].to_vec(), "[{}]", s.name);
        for e in events.iter().filter(|e| e.kind == EventKind::CoSelected) {
            let (a, b) = e.pair_ids.clone().unwrap();
            assert!(
                aids[2..].contains(&a) && aids[2..].contains(&b),
                "a presence id paired: {a} {b}"
            );
        }
        assert_eq!(
            events
                .iter()
                .filter(|e| e.kind == EventKind::CoSelected)
                .count(),
            3
        );
        assert_eq!(
            snap.used_record_ids, aids,
            "the snapshot records every used id"
        );
        assert_eq!(snap.provenance["admissions"][&aids[0]], json!("stm"));
        assert_eq!(snap.provenance["admissions"][&aids[4]], json!("stimulus"));
    });
}

#[test]
fn stm_rehearsal_weight_deposits_weighted_selected_events_without_pairs() {
    on_both_with(
        || SystemOptions {
            attention_config: AttentionConfig {
                stm_rehearsal_weight: 2.0,
                ..AttentionConfig::default()
            },
            ..SystemOptions::default()
        },
        |s| {
            let (_, aids) = form(s, 2, "k");
            let mut trace = ReconstructionTrace::new("t", "fp");
            trace.admissions.insert(aids[0].clone(), json!("stm"));
            trace.admissions.insert(aids[1].clone(), json!("stm"));
            s.journal.append_trace(&trace).unwrap();
            s.system
                .commit_selection(&CommitSelection::new("t", &aids))
                .unwrap();
            let events = stream_events(s);
            assert_eq!(events.len(), 2);
            assert!(
                events
                    .iter()
                    .all(|e| e.kind == EventKind::Selected && e.weight == 2.0)
            );
        },
    );
}

#[test]
fn a_recorded_edge_between_used_records_deposits_its_hop_pairs() {
    on_both(|s| {
        let gids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Episode, "A", "Alpha."),
                    MemoryRecordInput::new(RecordKind::Lesson, "B", "Beta.")
                        .with_edge("derived_from", "local:0"),
                ],
                "session",
                "s1",
                "k",
            ))
            .unwrap()
            .value;
        let edge_id = ids::edge_assertion_id("k", 1, "derived_from", &gids[0]);
        let (a, b) = (
            ids::digest_assertion_id("k", 0),
            ids::digest_assertion_id("k", 1),
        );
        s.system
            .commit_selection(&CommitSelection::new("t", &[b.clone(), a.clone()]))
            .unwrap();
        let pairs: Vec<(String, String)> = stream_events(s)
            .into_iter()
            .filter_map(|e| e.pair_ids)
            .collect();
        let sorted = |x: &str, y: &str| {
            if x <= y {
                (x.to_owned(), y.to_owned())
            } else {
                (y.to_owned(), x.to_owned())
            }
        };
        assert_eq!(
            pairs,
            [sorted(&a, &b), sorted(&b, &edge_id), sorted(&edge_id, &a)],
            "[{}]",
            s.name
        );
    });
}

#[test]
fn an_unknown_id_is_refused_naming_both_namespaces_and_writes_nothing() {
    on_both(|s| {
        let (_, aids) = form(s, 1, "k");
        let before = written(s);
        let bogus = strings(&["ex:episode-nope"]);
        let both = ["assertion id", "graph record id"];
        assert_refused(
            s,
            &before,
            s.system.commit_selection(&CommitSelection::new(
                "t",
                &[aids[0].clone(), bogus[0].clone()],
            )),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system
                .reinforce(&Reinforce::new("nope", "r", "session", "s1")),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system
                .attenuate(&Attenuate::new("nope", "r", "session", "s1")),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system
                .activation(&Activation::new("session", "s1").of(&bogus)),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system.access_counts(&bogus, &[]),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system.payload("nope", PayloadTier::Digest),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system
                .bind(&Bind::new("nope", "session", "s1", SearchState::Hidden)),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system
                .close_assertions(&CloseAssertions::new(&bogus, ClosureKind::Retract, "wrong")),
            NotFound,
            &both,
        );
        assert_refused(
            s,
            &before,
            s.system
                .close_record(&CloseRecord::new("nope", ClosureKind::Retract, "wrong")),
            NotFound,
            &both,
        );
    });
}

#[test]
fn an_empty_commit_or_trace_id_is_refused_and_writes_nothing() {
    on_both(|s| {
        let (_, aids) = form(s, 1, "k");
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system.commit_selection(&CommitSelection::new(" ", &aids)),
            InvalidInput,
            &["trace_id"],
        );
        assert_refused(
            s,
            &before,
            s.system
                .commit_selection(&CommitSelection::new("t", &strings(&[" "]))),
            InvalidInput,
            &["used_record_id"],
        );
    });
}

#[test]
fn deliberate_acts_require_a_reason_and_write_nothing_without_one() {
    on_both(|s| {
        let (_, aids) = form(s, 1, "k");
        let before = written(s);
        let no_reason = Reinforce::new(&aids[0], "  ", "session", "s1");
        let no_reason_refocus = Refocus::new("  ", "session", "s1");
        assert_refused(
            s,
            &before,
            s.system.reinforce(&no_reason),
            InvalidInput,
            &["reason"],
        );
        assert_refused(
            s,
            &before,
            s.system.attenuate(&no_reason),
            InvalidInput,
            &["reason"],
        );
        assert_refused(
            s,
            &before,
            s.system.refocus(&no_reason_refocus),
            InvalidInput,
            &["reason"],
        );
    });
}

#[test]
fn deliberate_weights_clamp_to_1_through_25() {
    on_both(|s| {
        let (gids, _) = form(s, 1, "k");
        s.system
            .reinforce(&Reinforce::new(&gids[0], "matters", "session", "s1").with_weight(100.0))
            .unwrap();
        s.system
            .attenuate(&Attenuate::new(&gids[0], "noise", "session", "s1").with_weight(0.2))
            .unwrap();
        let weights: Vec<f64> = stream_events(s).iter().map(|e| e.weight).collect();
        assert_eq!(weights, [25.0, 1.0], "[{}]", s.name);
    });
}

#[test]
fn a_supplied_event_id_makes_a_deliberate_act_replay_a_no_op() {
    on_both(|s| {
        let (gids, _) = form(s, 1, "k");
        let act = Reinforce::new(&gids[0], "matters", "session", "s1").with_event_id("pin-1");
        assert_eq!(s.system.reinforce(&act).unwrap(), "pin-1");
        let before = written(s);
        assert_eq!(s.system.reinforce(&act).unwrap(), "pin-1");
        let refocus = Refocus::new("new topic", "session", "s1").with_event_id("rf-1");
        assert_eq!(s.system.refocus(&refocus).unwrap(), "rf-1");
        let after_refocus = written(s);
        assert_eq!(after_refocus.seq_delta(&before), 1);
        assert_eq!(s.system.refocus(&refocus).unwrap(), "rf-1");
        assert_eq!(written(s), after_refocus);
    });
}

#[test]
fn activation_folds_the_window_and_anchors_at_a_seq() {
    on_both(|s| {
        let (gids, aids) = form(s, 2, "k");
        let anchor = s.system.current_seq().unwrap();
        s.system
            .commit_selection(&CommitSelection::new("t1", &aids[..1]))
            .unwrap();
        let now = s
            .system
            .activation(&Activation::new("session", "s1").of(&gids))
            .unwrap();
        assert_eq!(now.get(&gids[0]).unwrap().base_level, 8.0, "[{}]", s.name);
        assert_eq!(now.get(&gids[1]).unwrap().base_level, 0.0);
        let then = s
            .system
            .activation(&Activation {
                at_seq: Some(anchor),
                ..Activation::new("session", "s1").of(&gids)
            })
            .unwrap();
        assert_eq!(then.get(&gids[0]).unwrap().base_level, 0.0);
        let all = s
            .system
            .activation(&Activation::new("session", "s1"))
            .unwrap();
        assert_eq!(
            all.iter().map(|(k, _)| k.to_owned()).collect::<Vec<_>>(),
            [aids[0].clone()]
        );
        let before = written(s);
        let past_head = s.system.current_seq().unwrap() + 5;
        assert_refused(
            s,
            &before,
            s.system.activation(&Activation {
                at_seq: Some(past_head),
                ..Activation::new("session", "s1")
            }),
            InvalidInput,
            &[],
        );
    });
}

#[test]
fn the_global_count_never_windows_while_activation_does() {
    on_both_with(
        || SystemOptions {
            attention_config: AttentionConfig {
                window_limit: 3,
                ..AttentionConfig::default()
            },
            ..SystemOptions::default()
        },
        |s| {
            let (_, aids) = form(s, 2, "k");
            for t in 0..3 {
                s.system
                    .commit_selection(&CommitSelection::new(&format!("old-{t}"), &aids[..1]))
                    .unwrap();
            }
            for t in 0..3 {
                s.system
                    .commit_selection(&CommitSelection::new(&format!("new-{t}"), &aids[1..]))
                    .unwrap();
            }
            let act = s
                .system
                .activation(&Activation::new("session", "s1").of(&aids))
                .unwrap();
            assert_eq!(
                act.get(&aids[0]).unwrap().base_level,
                0.0,
                "[{}] out of the window",
                s.name
            );
            let counts = s
                .system
                .access_counts(&aids, &[(aids[1].clone(), aids[0].clone())])
                .unwrap();
            assert_eq!(counts.records.get(&aids[0]), Some(&3));
            assert_eq!(counts.records.get(&aids[1]), Some(&3));
            assert_eq!(counts.pairs[0].1, 0);
        },
    );
}

#[test]
fn access_counts_key_as_passed_and_pairs_are_order_insensitive() {
    on_both(|s| {
        let (gids, aids) = form(s, 2, "k");
        s.system
            .commit_selection(&CommitSelection::new("t1", &aids))
            .unwrap();
        s.system
            .commit_selection(&CommitSelection::new(
                "t2",
                &[aids[1].clone(), aids[0].clone()],
            ))
            .unwrap();
        let counts = s
            .system
            .access_counts(&gids, &[(gids[1].clone(), aids[0].clone())])
            .unwrap();
        assert_eq!(counts.records.get(&gids[0]), Some(&2));
        assert_eq!(counts.pairs, [((gids[1].clone(), aids[0].clone()), 2)]);
    });
}

#[test]
fn payload_serves_the_digest_and_raw_tiers_and_refuses_the_rest() {
    on_both(|s| {
        let gid = s
            .system
            .remember(&Remember::new(
                MemoryRecordInput::new(RecordKind::Episode, "T", "The digest.")
                    .with_payload_ref("artifact:1"),
                "session",
                "s1",
                "k",
            ))
            .unwrap()
            .value;
        let d = s.system.payload(&gid, PayloadTier::Digest).unwrap();
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"record_id": gid, "tier": "digest", "content": "The digest.", "token_estimate": 3})
        );
        let r = s
            .system
            .payload(&ids::digest_assertion_id("k", 0), PayloadTier::Raw)
            .unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"record_id": ids::digest_assertion_id("k", 0), "tier": "raw",
                   "payload_ref": "artifact:1", "content": null, "token_estimate": null})
        );
        let before = written(s);
        assert_refused(
            s,
            &before,
            PayloadTier::requested("summary").and_then(|t| s.system.payload(&gid, t)),
            Unsupported,
            &["summary"],
        );
        assert_refused(
            s,
            &before,
            PayloadTier::requested("verbatim").and_then(|t| s.system.payload(&gid, t)),
            InvalidInput,
            &["verbatim", "digest"],
        );
    });
}

#[test]
fn bind_appends_a_visibility_event_idempotent_by_binding_id() {
    on_both(|s| {
        let (gids, _) = form(s, 1, "k");
        let mut args = Bind::new(&gids[0], "session", "s1", SearchState::Hidden);
        args.binding_id = Some("b-1".into());
        args.reason = Some("noise".into());
        let b = s.system.bind(&args).unwrap();
        assert_eq!(
            (
                b.record_id.as_str(),
                b.search_state.as_str(),
                b.binding_id.as_str()
            ),
            (gids[0].as_str(), "hidden", "b-1")
        );
        let before = written(s);
        assert_eq!(s.system.bind(&args).unwrap().seq, b.seq);
        assert_eq!(written(s), before);
        let folded = s
            .journal
            .bindings(&BindingFilter::record(&gids[0]))
            .unwrap();
        assert_eq!(folded.len(), 1);
        assert_eq!(folded[0].search_state, SearchState::Hidden);
        let mut bad = Bind::new(&gids[0], "session", "s1", SearchState::Hidden);
        bad.prompt_state = PromptState::Active;
        assert_refused(s, &before, s.system.bind(&bad), InvalidInput, &[]);
    });
}

#[test]
fn close_record_closes_digest_and_edges_with_deterministic_ids() {
    on_both(|s| {
        let gids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Episode, "A", "Alpha."),
                    MemoryRecordInput::new(RecordKind::Lesson, "B", "Beta.")
                        .with_edge("derived_from", "local:0"),
                ],
                "session",
                "s1",
                "k",
            ))
            .unwrap()
            .value;
        let closed = s
            .system
            .close_record(&CloseRecord::new(&gids[1], ClosureKind::Retract, "wrong"))
            .unwrap();
        let digest = ids::digest_assertion_id("k", 1);
        let edge = ids::edge_assertion_id("k", 1, "derived_from", &gids[0]);
        assert_eq!(
            closed,
            [
                ids::closure_id(&gids[1], ClosureKind::Retract, &digest),
                ids::closure_id(&gids[1], ClosureKind::Retract, &edge)
            ],
            "[{}]",
            s.name
        );
        let before = written(s);
        assert_eq!(
            s.system
                .close_record(&CloseRecord::new(
                    &digest,
                    ClosureKind::Retract,
                    "other words"
                ))
                .unwrap(),
            closed
        );
        assert_eq!(written(s), before);
        let closures = s.journal.closures(&ClosureFilter::default()).unwrap();
        assert_eq!(closures.len(), 2);
    });
}

#[test]
fn close_assertions_validates_every_closure_before_appending_any() {
    on_both(|s| {
        let (_, aids) = form(s, 2, "k");
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system.close_assertions(&CloseAssertions::new(
                &aids,
                ClosureKind::Supersede,
                "newer",
            )),
            InvalidInput,
            &["replacement"],
        );
        assert_refused(
            s,
            &before,
            s.system
                .close_assertions(&CloseAssertions::new(&aids, ClosureKind::Retract, " ")),
            InvalidInput,
            &["reason"],
        );
        assert_refused(
            s,
            &before,
            s.system.close_assertions(&CloseAssertions::new::<&str>(
                &[],
                ClosureKind::Retract,
                "x",
            )),
            InvalidInput,
            &["at least one"],
        );
        let ids = s
            .system
            .close_assertions(
                &CloseAssertions::new(&aids, ClosureKind::Supersede, "newer")
                    .replaced_by(&aids[1..]),
            )
            .unwrap();
        assert_eq!(ids.len(), 2);
    });
}
