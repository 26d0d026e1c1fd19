//! The replay stream (api.md "Replay stream"): envelopes in strict seq order
//! across the journal's families, bounds, filters on the lifted scope and
//! owner, correlation keys, enrichment and diary redaction, on both stacks
//! with identical answers.

mod common;

use am_journal::ClosureKind;
use am_journal::SearchState;
use am_journal::{UnderstandingVersion, ValenceEvent};
use am_system::MemoryRecordInput;
use am_system::RecordKind;
use am_system::observe::replay::{ExportReplay, ReplayEnvelope, ReplayFamily, export_replay};
use am_system::seam::Stimulus;
use am_system::{Bind, CloseRecord, CommitSelection, Reconstruct, Reinforce, RememberMany};
use common::{Stack, on_both};
use serde_json::{Value, json};

fn all(s: &Stack, args: &ExportReplay) -> Vec<ReplayEnvelope> {
    s.system
        .export_replay(args)
        .expect("the stream opens")
        .collect::<Result<Vec<_>, _>>()
        .expect("every envelope reads")
}

fn json_of(envs: &[ReplayEnvelope]) -> Vec<Value> {
    envs.iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

/// A small lived session: two formed batches (edges), a journaled recall, a
/// commit of two records (selected + co_selected), a reinforce, a binding, a
/// closure and an appraisal. Returns the graph ids.
fn live(s: &Stack) -> Vec<String> {
    let sys = &s.system;
    let ids = sys
        .remember_many(&RememberMany {
            turn_id: Some("turn-1".into()),
            ..RememberMany::new(
                vec![
                    MemoryRecordInput::new(
                        RecordKind::Episode,
                        "Pool outage",
                        "The pool failed at noon.",
                    )
                    .with_keywords(&["pool", "outage"]),
                    MemoryRecordInput::new(
                        RecordKind::Lesson,
                        "Restart order",
                        "Restart the pool first.",
                    )
                    .with_edge("derived_from", "local:0")
                    .with_keywords(&["pool"]),
                ],
                "session",
                "s1",
                "k1",
            )
        })
        .unwrap()
        .value;
    let other = sys
        .remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(
                RecordKind::Memory,
                "Tea",
                "Tea at four.",
            )],
            "project",
            "p1",
            "k2",
        ))
        .unwrap()
        .value;
    let r = sys
        .reconstruct(&Reconstruct {
            trace_id: Some("t1".into()),
            ..Reconstruct::new(Stimulus::new("pool outage"), &[("session", "s1")])
        })
        .unwrap();
    let used: Vec<String> = r.handles.iter().map(|h| h.record_id.clone()).collect();
    assert!(
        used.len() >= 2,
        "[{}] the recall found both records",
        s.name
    );
    sys.commit_selection(&CommitSelection::new("t1", &used[..2]))
        .unwrap();
    sys.reinforce(&Reinforce::new(&ids[0], "matters", "session", "s1"))
        .unwrap();
    sys.bind(&Bind::new(&other[0], "project", "p1", SearchState::Hidden))
        .unwrap();
    sys.close_record(&CloseRecord::retract(&ids[1], "wrong"))
        .unwrap();
    s.journal
        .append_valence(&[ValenceEvent {
            observed_at: common::PINNED_NOW.into(),
            ..ValenceEvent::appraisal(
                "tool:web_search",
                -1,
                3.0,
                "fabricated citations",
                "session",
                "s1",
            )
        }])
        .unwrap();
    let mut all_ids = ids;
    all_ids.extend(other);
    all_ids
}

/// Both stacks answer alike once the journal-assigned ids (random) are named
/// by position.
fn normalized(envs: &[ReplayEnvelope]) -> Vec<Value> {
    let mut text = serde_json::to_string(&json_of(envs)).unwrap();
    let mut n = 0;
    for e in envs {
        let p = serde_json::to_value(&e.payload).unwrap();
        for key in ["event_id", "binding_id", "closure_id", "snapshot_id"] {
            if let Some(id) = p.get(key).and_then(Value::as_str)
                && id.len() == 36
            {
                text = text.replace(id, &format!("assigned-{n}"));
                n += 1;
            }
        }
    }
    serde_json::from_str(&text).unwrap()
}

#[test]
fn envelopes_come_in_strict_seq_order_with_the_frozen_shape_on_both_stacks_alike() {
    let answers = std::cell::RefCell::new(Vec::new());
    on_both(|s| {
        live(s);
        let envs = all(s, &ExportReplay::default());
        assert!(!envs.is_empty());
        let seqs: Vec<i64> = envs.iter().map(|e| e.seq).collect();
        let mut sorted = seqs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(seqs, sorted, "[{}] strict seq order", s.name);
        for v in json_of(&envs) {
            let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                &keys[..11],
                [
                    "stream",
                    "stream_version",
                    "seq",
                    "family",
                    "observed_at",
                    "scope",
                    "owner_id",
                    "trace_id",
                    "turn_id",
                    "run_id",
                    "payload"
                ],
                "[{}] envelope keys",
                s.name
            );
            assert_eq!(v["stream"], "abstractmemory.replay");
            assert_eq!(v["stream_version"], 1);
            assert_eq!(v["payload"]["seq"], v["seq"], "the payload is the record");
        }
        let families: std::collections::BTreeSet<&str> =
            envs.iter().map(|e| e.family.as_str()).collect();
        assert_eq!(
            families.into_iter().collect::<Vec<_>>(),
            [
                "binding", "closure", "event", "snapshot", "trace", "valence"
            ],
            "[{}] the six default families",
            s.name
        );
        let module: Vec<ReplayEnvelope> = export_replay(
            s.store.as_ref(),
            s.journal.as_ref(),
            &ExportReplay::default(),
        )
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
        assert_eq!(
            module, envs,
            "[{}] the module function is the method",
            s.name
        );
        answers.borrow_mut().push(normalized(&envs));
    });
    let answers = answers.into_inner();
    assert_eq!(answers[0], answers[1], "the two stacks stream alike");
}

#[test]
fn since_seq_is_exclusive_until_seq_inclusive_and_none_anchors_at_call_time() {
    on_both(|s| {
        live(s);
        let hw = s.journal.current_seq().unwrap();
        let window = all(
            s,
            &ExportReplay {
                until_seq: Some(6),
                ..ExportReplay::since(3)
            },
        );
        assert_eq!(
            window.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [4, 5, 6],
            "[{}]",
            s.name
        );
        let stream = s
            .system
            .export_replay(&ExportReplay::since(hw - 1))
            .unwrap();
        s.journal
            .append_valence(&[ValenceEvent::appraisal(
                "x", 1, 1.0, "later", "session", "s1",
            )])
            .unwrap();
        let got: Vec<i64> = stream.map(|e| e.unwrap().seq).collect();
        assert_eq!(got, [hw], "[{}] the stream never grows mid-read", s.name);
    });
}

#[test]
fn an_anchor_outside_the_axis_is_refused() {
    on_both(|s| {
        live(s);
        let hw = s.journal.current_seq().unwrap();
        for args in [
            ExportReplay::since(-1),
            ExportReplay::since(hw + 1),
            ExportReplay {
                until_seq: Some(hw + 5),
                ..ExportReplay::default()
            },
        ] {
            let err = s.system.export_replay(&args).err().expect("refused");
            assert_eq!(
                err.kind(),
                am_triples::ErrorKind::InvalidInput,
                "[{}]",
                s.name
            );
            assert!(err.to_string().contains(&hw.to_string()), "{err}");
        }
    });
}

#[test]
fn an_unknown_family_name_is_refused_when_the_arguments_are_read() {
    let err = serde_json::from_value::<ExportReplay>(json!({"families": ["event", "gossip"]}))
        .unwrap_err();
    assert!(err.to_string().contains("gossip"), "{err}");
    let err = serde_json::from_value::<ExportReplay>(json!({"colour": "red"})).unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
}

#[test]
fn host_is_accepted_by_the_filter_and_never_emitted() {
    on_both(|s| {
        live(s);
        let only_host = all(
            s,
            &ExportReplay {
                families: Some(vec![ReplayFamily::Host]),
                ..ExportReplay::default()
            },
        );
        assert!(only_host.is_empty(), "[{}]", s.name);
    });
}

#[test]
fn the_revision_family_is_emitted_only_when_named_with_run_id_from_its_first_source() {
    on_both(|s| {
        let ids = live(s);
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        let mut v = UnderstandingVersion::new(
            &ids[0],
            row.assertion_id.as_deref().unwrap(),
            "digest",
            0,
            Some("The pool failed at noon."),
            ("capability-model", "summaries"),
            "formation",
        );
        v.sources = vec![json!({"kind": "step", "run_id": "run-9", "seq": 3})];
        s.journal.append_version(&v).unwrap();
        let default = all(s, &ExportReplay::default());
        assert!(
            default.iter().all(|e| e.family != ReplayFamily::Revision),
            "[{}] a rewrite adds nothing to the default stream",
            s.name
        );
        let revisions = all(
            s,
            &ExportReplay {
                families: Some(vec![ReplayFamily::Revision]),
                ..ExportReplay::default()
            },
        );
        assert_eq!(revisions.len(), 1, "[{}]", s.name);
        let r = serde_json::to_value(&revisions[0]).unwrap();
        assert_eq!(r["family"], "revision");
        assert_eq!(r["run_id"], "run-9");
        assert_eq!(r["trace_id"], Value::Null);
        assert_eq!(r["scope"], "session");
        assert_eq!(r["payload"]["text"], "The pool failed at noon.");
        assert_eq!(r["display"]["digest"], "The pool failed at noon.");
        assert_eq!(r["display"]["graph_id"], ids[0].as_str());
    });
}

#[test]
fn correlation_keys_are_always_present_and_null_when_absent() {
    on_both(|s| {
        live(s);
        for (e, v) in all(s, &ExportReplay::default())
            .iter()
            .zip(json_of(&all(s, &ExportReplay::default())))
        {
            for key in ["trace_id", "turn_id", "run_id"] {
                assert!(v.as_object().unwrap().contains_key(key), "{v}");
            }
            match e.family {
                ReplayFamily::Trace | ReplayFamily::Snapshot => {
                    assert_eq!(v["trace_id"], "t1", "[{}] {v}", s.name);
                }
                ReplayFamily::Valence => assert_eq!(v["trace_id"], Value::Null),
                _ => {}
            }
        }
    });
}

#[test]
fn filters_match_the_lifted_scope_and_owner_of_every_family() {
    on_both(|s| {
        live(s);
        let project = all(
            s,
            &ExportReplay {
                scope: Some(" Project ".into()),
                owner_id: Some("p1".into()),
                ..ExportReplay::default()
            },
        );
        assert!(!project.is_empty());
        assert!(
            project
                .iter()
                .all(|e| e.scope == "project" && e.owner_id == "p1"),
            "[{}]",
            s.name
        );
        let session = all(
            s,
            &ExportReplay {
                scope: Some("session".into()),
                ..ExportReplay::default()
            },
        );
        let fams: std::collections::BTreeSet<&str> =
            session.iter().map(|e| e.family.as_str()).collect();
        // A snapshot lifts through its trace, a closure through its assertion.
        for f in [
            "closure", "snapshot", "trace", "valence", "event", "binding",
        ] {
            assert!(fams.contains(f), "[{}] {f} lifted into session", s.name);
        }
    });
}

#[test]
fn enrichment_resolves_records_both_pair_members_and_formation_edges_never_fabricating() {
    on_both(|s| {
        let ids = live(s);
        let envs = json_of(&all(s, &ExportReplay::default()));
        let pair = envs
            .iter()
            .find(|v| v["payload"]["kind"] == "co_selected")
            .expect("a co_selected event");
        assert_eq!(
            pair["display"]["pair"].as_array().unwrap().len(),
            2,
            "{pair}"
        );
        let binding = envs
            .iter()
            .find(|v| v["family"] == "binding" && v["payload"]["record_id"] == ids[1].as_str())
            .expect("the lesson's formation binding");
        assert_eq!(binding["display"]["graph_id"], ids[1].as_str());
        assert_eq!(binding["display"]["kind"], "lesson");
        assert_eq!(binding["display"]["title"], "Restart order");
        assert_eq!(binding["display"]["digest"], "Restart the pool first.");
        assert_eq!(
            binding["display"]["edges"],
            json!([{"relation": "derived_from", "target_graph_id": ids[0]}])
        );
        assert_eq!(binding["display"]["digest_version"], 0, "never rewritten");
        assert_eq!(binding["display"]["version_count"], 1);
        assert_eq!(binding["display"]["cause"], "formation");
        assert_eq!(binding["display"]["authored_by"]["kind"], "entity-mind");
        assert_eq!(
            binding["display"]["token_estimate"],
            "Restart the pool first.".chars().count() / 4 + 1
        );
        let valence = envs.iter().find(|v| v["family"] == "valence").unwrap();
        assert!(
            valence.get("display").is_none(),
            "[{}] a free target string resolves to nothing: {valence}",
            s.name
        );
        let plain = all(
            s,
            &ExportReplay {
                enrich: false,
                ..ExportReplay::default()
            },
        );
        assert!(plain.iter().all(|e| e.display.is_none()));
    });
}

#[test]
fn the_stream_reads_across_pages_without_repeats_or_gaps() {
    on_both(|s| {
        let events: Vec<ValenceEvent> = (0..2500)
            .map(|i| ValenceEvent::appraisal(&format!("t{i}"), 1, 1.0, "ok", "session", "s1"))
            .collect();
        s.journal.append_valence(&events).unwrap();
        let seqs: Vec<i64> = all(s, &ExportReplay::default())
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, (1..=2500).collect::<Vec<_>>(), "[{}]", s.name);
        // Taking the first envelope reads only the first page.
        let first = s
            .system
            .export_replay(&ExportReplay::default())
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(first.seq, 1);
    });
}

const PRIVATE_WORDS: [&str; 6] = [
    "zanzibarquux",
    "mirrorwhisper",
    "velvetgrudge",
    "hollowlantern",
    "quietfracture",
    "emberlethe",
];

/// A home whose diary entries (private projections and owner-direct ones)
/// are full of private words, lived through every family.
fn private_home(s: &Stack) -> Vec<String> {
    let sys = &s.system;
    let w = PRIVATE_WORDS;
    let entries = vec![
        MemoryRecordInput::new(
            RecordKind::Diary,
            &format!("{} pool", w[0]),
            &format!("I felt {} about the pool and {}.", w[1], w[2]),
        )
        .with_keywords(&[w[3], "pool"])
        .with_provenance("source", "diary-projection")
        .with_attribute("entry_id", "entry-1")
        .with_attribute("diary_type", "question")
        .with_attribute("private", true),
        MemoryRecordInput::new(
            RecordKind::Diary,
            &format!("{} day", w[4]),
            &format!("The pool day, {}.", w[5]),
        )
        .with_provenance("source", "owner-direct")
        .with_attribute("diary_type", "reflection")
        .with_attribute("resolves", "entry-1")
        .with_attribute("resolves_status", "resolved_open_question")
        .with_attribute("resolved_title", "Pool question"),
        MemoryRecordInput::new(RecordKind::Episode, "Pool day", "We cleaned the pool.")
            .with_keywords(&["pool"])
            .with_edge("written_amid", "local:0"),
    ];
    let ids = sys
        .remember_many(&RememberMany::new(entries, "diary", "e1", "d1"))
        .unwrap()
        .value;
    let r = sys
        .reconstruct(&Reconstruct {
            trace_id: Some("t-priv".into()),
            ..Reconstruct::new(Stimulus::new("pool"), &[("diary", "e1")])
        })
        .unwrap();
    let used: Vec<String> = r.handles.iter().map(|h| h.record_id.clone()).collect();
    assert!(used.len() >= 2, "[{}] {used:?}", s.name);
    sys.commit_selection(&CommitSelection::new("t-priv", &used))
        .unwrap();
    sys.reinforce(&Reinforce::new(&ids[0], "matters", "diary", "e1"))
        .unwrap();
    sys.bind(&Bind::new(&ids[1], "diary", "e1", SearchState::Hidden))
        .unwrap();
    sys.close_record(&CloseRecord::retract(&ids[1], "superseded by the book"))
        .unwrap();
    s.journal
        .append_valence(&[ValenceEvent::appraisal(
            &ids[0], 1, 9.0, "felt", "diary", "e1",
        )])
        .unwrap();
    let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
    let mut v = UnderstandingVersion::new(
        &ids[0],
        row.assertion_id.as_deref().unwrap(),
        "title",
        1,
        Some(&format!("{} retitled", w[0])),
        ("entity-mind", "e1"),
        "operator",
    );
    v.title = Some(w[4].into());
    v.keywords = vec![w[3].into()];
    s.journal.append_version(&v).unwrap();
    ids
}

#[test]
fn a_home_full_of_private_words_leaks_none_through_any_family() {
    on_both(|s| {
        private_home(s);
        let every = Some(ReplayFamily::ALL.to_vec());
        for enrich in [true, false] {
            let envs = all(
                s,
                &ExportReplay {
                    families: every.clone(),
                    enrich,
                    ..ExportReplay::default()
                },
            );
            let fams: std::collections::BTreeSet<&str> =
                envs.iter().map(|e| e.family.as_str()).collect();
            assert_eq!(fams.len(), 7, "[{}] every family lived: {fams:?}", s.name);
            let text = serde_json::to_string(&envs).unwrap().to_lowercase();
            for word in PRIVATE_WORDS {
                assert!(
                    !text.contains(word),
                    "[{}] {word} leaked (enrich={enrich})",
                    s.name
                );
            }
        }
    });
}

#[test]
fn diary_display_blocks_are_redacted_to_topology_and_act_frame() {
    on_both(|s| {
        let ids = private_home(s);
        let envs = json_of(&all(s, &ExportReplay::default()));
        let formation = |id: &str| {
            envs.iter()
                .find(|v| {
                    v["family"] == "binding"
                        && v["payload"]["record_id"] == id
                        && v["payload"]["source"] == "remember"
                })
                .unwrap()
                .clone()
        };
        let private = formation(&ids[0]);
        assert_eq!(
            private["display"],
            json!({"redacted": "diary", "graph_id": ids[0], "diary_type": "question", "entry_id": "entry-1",
                   "authored_by": {"kind": "entity-mind", "id": "e1"},
                   "understood_at": common::PINNED_NOW, "cause": "formation"}),
            "[{}] topology, act frame and who wrote it, when and why",
            s.name
        );
        let resolving = formation(&ids[1]);
        assert_eq!(resolving["display"]["resolves"], "entry-1");
        assert_eq!(
            resolving["display"]["resolves_status"],
            "resolved_open_question"
        );
        // The public (not private) entry carries the resolved title.
        assert_eq!(resolving["display"]["resolved_title"], "Pool question");
        let episode = formation(&ids[2]);
        assert_eq!(episode["display"]["title"], "Pool day");
        let snapshot = envs.iter().find(|v| v["family"] == "snapshot").unwrap();
        let rows = snapshot["payload"]["display"].as_array().unwrap();
        let sealed = rows.iter().filter(|r| r["redacted"] == "diary").count();
        assert!(sealed >= 1, "[{}] {rows:?}", s.name);
        for row in rows.iter().filter(|r| r["redacted"] != "diary") {
            assert_eq!(row["digest"], "We cleaned the pool.", "{row}");
        }
    });
}

#[test]
fn a_superseded_records_display_block_names_its_replacement() {
    on_both(|s| {
        let ids = live(s);
        s.system
            .close_record(
                &CloseRecord::new(&ids[0], ClosureKind::Supersede, "newer")
                    .replaced_by(&[ids[2].clone()]),
            )
            .unwrap();
        let envs = json_of(&all(s, &ExportReplay::default()));
        let closure = envs
            .iter()
            .rev()
            .find(|v| v["family"] == "closure" && v["payload"]["kind"] == "supersede")
            .expect("the supersession");
        assert!(
            closure["display"]["replaced_by"].is_string(),
            "[{}] {closure}",
            s.name
        );
        let untouched = envs
            .iter()
            .find(|v| v["family"] == "binding" && v["payload"]["record_id"] == ids[2].as_str())
            .unwrap();
        assert!(untouched["display"].get("replaced_by").is_none());
    });
}
