//! `apply_tend_elections` on both stacks: one test per contract sentence
//! (api.md "Tending elections"; 0.3.2's `tend.py` settles the mapping),
//! every refusal data with nothing of it written (file bytes, rows, journal
//! seq), and the one place 0.5.2 differs from 0.3.2: a `revise` election
//! seeds a ripple.

use crate::common::{Stack, home_bytes, on_both_with, written};
use crate::home::{OWNER, SCOPE, form, on_both, queued, rec};
use am_journal::{EventFilter, TraceFilter, ValenceFilter, ValenceKind};
use am_system::candidates::{
    ApplyTendElections, IDENTITY_SCOPE_PENDING_RULING, ParseTendBlock, TendAct, TendElection,
    TendReport, parse_tend_block,
};
use am_system::ripple::ListRipples;
use am_system::valence::Appraise;
use am_system::{RecordKind, RememberMany};
use am_triples::{ErrorKind, TripleQuery};
use serde_json::json;

const ACTOR: &str = "entity-reflection";
const NOW: &str = "2026-03-02T09:00:00.000000+00:00";

/// The elections of a block body (every line must parse).
fn block(text: &str) -> Vec<TendElection> {
    let parsed = parse_tend_block(&ParseTendBlock {
        text: text.to_owned(),
        max_elections: 20,
    })
    .unwrap();
    assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
    parsed.elections
}

fn args(text: &str) -> ApplyTendElections {
    let mut a = ApplyTendElections::new(block(text), SCOPE, OWNER, ACTOR);
    a.now = Some(am_triples::Timestamp::parse(NOW).unwrap());
    a
}

fn apply(s: &Stack, a: &ApplyTendElections) -> TendReport {
    s.system.apply_tend_elections(a).unwrap().value
}

fn events(s: &Stack, kind: &str) -> Vec<am_journal::MemoryEvent> {
    s.journal
        .events(&EventFilter {
            scope: SCOPE.into(),
            owner_id: OWNER.into(),
            record_id: None,
            kinds: vec![kind.to_owned()],
            since_seq: None,
            until_seq: None,
            limit: 0,
        })
        .unwrap()
}

/// `[garden, orchard, garden fed orchard (derived_from the garden), a dream]`.
fn garden(s: &Stack) -> Vec<String> {
    let mut fed = rec(
        RecordKind::Lesson,
        "Garden fed orchard",
        ("diary", "b", "s2"),
    );
    fed = fed.with_edge("derived_from", "local:0");
    form(
        s,
        "garden",
        vec![
            rec(RecordKind::Episode, "The garden", ("chat", "a", "s1")),
            rec(RecordKind::Episode, "The orchard", ("chat", "a", "s1")),
            fed,
            rec(
                RecordKind::Dream,
                "A joining dream",
                ("dream", "system", "n1"),
            ),
        ],
    )
}

fn row_id(s: &Stack, graph_id: &str) -> String {
    s.store
        .query(&TripleQuery {
            subject: Some(graph_id.to_owned()),
            predicate: Some("dcterms:abstract".to_owned()),
            limit: 1,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .next()
        .and_then(|a| a.assertion_id)
        .unwrap_or_default()
}

/// Everything "nothing written" compares: file bytes, rows and seq.
fn snapshot(s: &Stack) -> (Vec<(String, Vec<u8>)>, crate::common::Written) {
    (home_bytes(s), written(s))
}

#[test]
fn pin_and_silence_write_the_deliberate_events_in_the_records_own_pair() {
    on_both(|s| {
        let ids = garden(s);
        let r = apply(
            s,
            &args(&format!(
                "pin: {} — reason: keep it near\nsilence: {} — reason: let it recede",
                ids[0], ids[1]
            )),
        );
        assert_eq!(r.applied.len(), 2, "[{}] {:?}", s.name, r.refused);
        let pinned = events(s, "pinned");
        let silenced = events(s, "silenced");
        assert_eq!((pinned.len(), silenced.len()), (1, 1), "[{}]", s.name);
        assert_eq!(
            pinned[0].record_id.as_deref(),
            Some(row_id(s, &ids[0]).as_str())
        );
        assert_eq!(pinned[0].reason.as_deref(), Some("keep it near"));
        assert_eq!(pinned[0].actor, ACTOR);
        assert_eq!(
            silenced[0].record_id.as_deref(),
            Some(row_id(s, &ids[1]).as_str())
        );
        let TendAct::Event(e) = &r.applied[0].result else {
            panic!("an event")
        };
        assert_eq!(e.kind, "pinned");
        assert_eq!(e.event_id, pinned[0].event_id);
        assert_eq!(e.scope.as_deref(), Some(SCOPE));
        assert_eq!(r.applied_at, NOW);
    });
}

#[test]
fn refocus_marks_the_batch_stream_and_takes_no_target() {
    on_both(|s| {
        garden(s);
        let r = apply(s, &args("refocus: — reason: the topic moved"));
        assert_eq!(r.applied.len(), 1);
        let marks = events(s, "refocus");
        assert_eq!(marks.len(), 1, "[{}]", s.name);
        assert_eq!(marks[0].reason.as_deref(), Some("the topic moved"));
        assert_eq!(marks[0].record_id, None);
    });
}

#[test]
fn revisit_reads_the_seed_and_one_expansion_step_journaling_its_trace_and_inert_expanded_events() {
    on_both(|s| {
        let ids = garden(s);
        let before = s.system.access_counts(&[ids[2].clone()], &[]).unwrap();
        let r = apply(
            s,
            &args(&format!("revisit: {} — reason: what grew from it", ids[0])),
        );
        assert_eq!(r.applied.len(), 1, "[{}] {:?}", s.name, r.refused);
        let path = &r.revisit_paths[0];
        assert_eq!(path.seed.graph_id, ids[0]);
        assert_eq!(path.seed.title, "The garden");
        assert!(
            path.seed
                .digest
                .as_deref()
                .is_some_and(|d| d.contains("The garden"))
        );
        assert_eq!(path.iterations, 1);
        assert_eq!(
            path.paths.len(),
            1,
            "[{}] the lesson derived from it",
            s.name
        );
        assert_eq!(path.paths[0].graph_id, ids[2]);
        let TendAct::Revisit(act) = &r.applied[0].result else {
            panic!("a revisit")
        };
        assert_eq!(act.paths_found, 1);
        let traces = s
            .journal
            .traces(&TraceFilter {
                trace_id: Some(act.trace_id.clone()),
                ..TraceFilter::default()
            })
            .unwrap();
        assert_eq!(traces.len(), 1);
        assert_eq!(traces[0].trace_kind, "expand");
        assert_eq!(
            traces[0].escalation_reason.as_deref(),
            Some("what grew from it")
        );
        assert_eq!(events(s, "expanded").len(), 1);
        // Reading is not using: no access count moved.
        assert_eq!(
            s.system.access_counts(&[ids[2].clone()], &[]).unwrap(),
            before
        );
    });
}

#[test]
fn dispose_confirm_and_reject_go_through_dispose_dream() {
    on_both(|s| {
        let ids = garden(s);
        let more = form(
            s,
            "stray",
            vec![rec(
                RecordKind::Dream,
                "A stray dream",
                ("dream", "system", "n2"),
            )],
        );
        let r = apply(
            s,
            &args(&format!(
                "dispose: {} confirm relation=supports source={} target={} evidence={} — reason: the day joined them\n\
                 dispose: {} reject — reason: it did not hold",
                ids[3], ids[0], ids[1], ids[2], more[0]
            )),
        );
        assert_eq!(r.applied.len(), 2, "[{}] {:?}", s.name, r.refused);
        let TendAct::Dispose(confirmed) = &r.applied[0].result else {
            panic!("a disposal")
        };
        assert!(confirmed.edge.as_ref().is_some_and(|e| e.created));
        let edges = s
            .store
            .query(&TripleQuery {
                subject: Some(ids[0].clone()),
                predicate: Some("supports".into()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(edges.len(), 1, "[{}] the confirmed edge", s.name);
        assert_eq!(events(s, "cited").len(), 2);
        let TendAct::Dispose(dissolved) = &r.applied[1].result else {
            panic!("a disposal")
        };
        assert!(dissolved.edge.is_none());
        assert_eq!(dissolved.closure_ids.len(), 1);
        // A confirmation without its edge is dispose_dream's refusal, as data.
        let r = apply(
            s,
            &args(&format!(
                "dispose: {} confirm — reason: no edge named",
                ids[3]
            )),
        );
        assert_eq!(r.refused.len(), 1, "[{}]", s.name);
    });
}

#[test]
fn heal_scar_and_break_bond_resolve_the_standing_marker_by_target_or_event_id() {
    on_both(|s| {
        garden(s);
        let appraise = |target: &str, sign: i64, scar: bool| {
            let mut a = Appraise::new(target, sign, 2.0, "it hurt", SCOPE, OWNER);
            a.scar = scar;
            a.bond = !scar;
            s.system.appraise(&a).unwrap()
        };
        appraise("person:ada", -1, true);
        let bond = appraise("person:bo", 1, false);
        let r = apply(
            s,
            &args(&format!(
                "heal_scar: person:ada — reason: it changed\nbreak_bond: {} — reason: it broke\n\
                 heal_scar: person:cy — reason: nothing stands",
                bond[1]
            )),
        );
        assert_eq!(r.applied.len(), 2, "[{}] {:?}", s.name, r.refused);
        assert_eq!(r.refused.len(), 1);
        assert!(
            r.refused[0].reason.contains("no standing scar"),
            "{}",
            r.refused[0].reason
        );
        let stream = s
            .journal
            .valence_events(&ValenceFilter::new(SCOPE, OWNER))
            .unwrap();
        let healing: Vec<_> = stream
            .iter()
            .filter(|e| e.kind == ValenceKind::Healing)
            .collect();
        let breaking: Vec<_> = stream
            .iter()
            .filter(|e| e.kind == ValenceKind::Break)
            .collect();
        assert_eq!((healing.len(), breaking.len()), (1, 1), "[{}]", s.name);
        assert_eq!(healing[0].target_id, "person:ada");
        assert_eq!(breaking[0].provenance["breaks"], json!(bond[1]));
        // Healed, the scar no longer stands: a second heal by target is refused.
        let r = apply(s, &args("heal_scar: person:ada — reason: again"));
        assert_eq!(r.refused.len(), 1, "[{}]", s.name);
    });
}

#[test]
fn revise_seeds_an_evidence_ripple_that_re_reads_the_seed_a_0_5_2_verb_0_3_2_lacks() {
    on_both_with(queued, |s| {
        let ids = garden(s);
        let r = apply(
            s,
            &args(&format!(
                "revise: {} evidence={} — reason: I saw it wrong",
                ids[0], ids[1]
            )),
        );
        assert_eq!(r.applied.len(), 1, "[{}] {:?}", s.name, r.refused);
        let TendAct::Revise(act) = &r.applied[0].result else {
            panic!("a ripple seed")
        };
        assert!(act.opened);
        assert!((act.magnitude - 0.6).abs() < 1e-9, "revised: 0.6");
        assert!(
            !act.reconsider_task_ids.is_empty(),
            "the seed re-read first"
        );
        let ripples = s.system.ripples(&ListRipples::default()).unwrap();
        assert_eq!(ripples.len(), 1, "[{}]", s.name);
        assert_eq!(ripples[0].seed_id, ids[0]);
        assert_eq!(ripples[0].cause["cause"], json!("evidence"));
        assert_eq!(ripples[0].cause["evidence"], json!([ids[1]]));
        assert_eq!(
            ripples[0].cause["election"]["reason"],
            json!("I saw it wrong")
        );
    });
}

#[test]
fn revise_on_a_home_without_its_task_queue_is_refused_as_data() {
    on_both(|s| {
        let ids = garden(s);
        let before = snapshot(s);
        let r = apply(s, &args(&format!("revise: {} — reason: changed", ids[0])));
        assert_eq!(r.refused.len(), 1, "[{}]", s.name);
        assert!(r.refused[0].reason.contains("task queue"));
        assert_eq!(snapshot(s), before, "[{}] nothing written", s.name);
    });
}

#[test]
fn identity_scope_records_are_refused_pending_the_ruling() {
    on_both(|s| {
        let ids = garden(s);
        let core = s
            .system
            .remember_many(&RememberMany::new(
                vec![rec(RecordKind::Value, "Tending", ("diary", "b", "s2"))],
                "self",
                OWNER,
                "core",
            ))
            .unwrap()
            .value;
        let before = snapshot(s);
        let mut a = args(&format!(
            "pin: {} — reason: my own value\nrevisit: {} — reason: self_pairs",
            core[0], ids[0]
        ));
        a.self_pairs = vec![(SCOPE.to_uppercase(), OWNER.to_owned())];
        let r = apply(s, &a);
        assert_eq!(r.refused.len(), 2, "[{}] {:?}", s.name, r.applied);
        for refused in &r.refused {
            assert_eq!(refused.reason, IDENTITY_SCOPE_PENDING_RULING);
        }
        assert_eq!(snapshot(s), before, "[{}] nothing written", s.name);
        // A dream the night wrote into `self` is machine output, not
        // identity: its disposal is tended (0.3.2's exemption).
        let dream = s
            .system
            .remember_many(&RememberMany::new(
                vec![rec(
                    RecordKind::Dream,
                    "A self dream",
                    ("dream", "system", "n3"),
                )],
                "self",
                OWNER,
                "self-dream",
            ))
            .unwrap()
            .value;
        let r = apply(
            s,
            &args(&format!(
                "dispose: {} reject — reason: it did not hold",
                dream[0]
            )),
        );
        assert_eq!(r.applied.len(), 1, "[{}] {:?}", s.name, r.refused);
    });
}

#[test]
fn only_the_entity_reflection_channel_tends_absent_or_another_refuses_every_election() {
    on_both(|s| {
        let ids = garden(s);
        let before = snapshot(s);
        for channel in [None, Some("workplace".to_owned()), Some(" ".to_owned())] {
            let mut a = args(&format!(
                "pin: {} — reason: a\nrefocus: — reason: b",
                ids[0]
            ));
            a.channel = channel.clone();
            let r = apply(s, &a);
            assert!(r.applied.is_empty(), "[{}] {channel:?}", s.name);
            assert_eq!(r.refused.len(), 2);
            assert!(r.refused[0].reason.contains("entity-reflection"));
        }
        assert_eq!(snapshot(s), before, "[{}] nothing written", s.name);
    });
}

#[test]
fn refusals_are_data_the_batch_never_aborts_and_write_nothing_of_theirs() {
    on_both(|s| {
        let ids = garden(s);
        let other = s
            .system
            .remember_many(&RememberMany::new(
                vec![rec(RecordKind::Episode, "Not mine", ("chat", "a", "s1"))],
                SCOPE,
                "person:bo",
                "other",
            ))
            .unwrap()
            .value;
        let edge = s
            .store
            .query(&TripleQuery {
                predicate: Some("derived_from".into()),
                limit: 1,
                ..TripleQuery::default()
            })
            .unwrap()[0]
            .assertion_id
            .clone()
            .unwrap();
        let mut elections = block(&format!(
            "pin: ex:nope — reason: unknown\npin: {} — reason: foreign\npin: diary:3 — reason: a book entry\n\
             silence: local:0 — reason: a batch local\nrevisit: {edge} — reason: an edge\n\
             dispose: {} reject — reason: not a dream",
            other[0], ids[0]
        ));
        let mut unknown = elections[0].clone();
        unknown.verb = "hug".into();
        let mut blank = elections[0].clone();
        blank.reason = " ".into();
        elections.push(unknown);
        elections.push(blank);
        let before = snapshot(s);
        let mut a = ApplyTendElections::new(elections.clone(), SCOPE, OWNER, ACTOR);
        a.now = args("").now;
        let r = apply(s, &a);
        assert!(r.applied.is_empty(), "[{}] {:?}", s.name, r.applied);
        assert_eq!(r.refused.len(), elections.len());
        for (refused, e) in r.refused.iter().zip(&elections) {
            assert_eq!(&refused.election, e, "in order, the election as given");
            assert!(!refused.reason.trim().is_empty());
        }
        assert!(
            r.refused[1].reason.contains("person:bo"),
            "{}",
            r.refused[1].reason
        );
        assert_eq!(snapshot(s), before, "[{}] refusals write nothing", s.name);
        // Beside a refusal, an applied election still lands.
        let mut a = args(&format!(
            "pin: ex:nope — reason: x\npin: {} — reason: y",
            ids[0]
        ));
        a.now = None;
        let r = apply(s, &a);
        assert_eq!((r.applied.len(), r.refused.len()), (1, 1));
        assert_eq!(events(s, "pinned").len(), 1);
    });
}

#[test]
fn a_blank_actor_or_scope_is_invalid_input_and_writes_nothing() {
    on_both(|s| {
        let ids = garden(s);
        let before = snapshot(s);
        let mut a = args(&format!("pin: {} — reason: x", ids[0]));
        a.actor = "  ".into();
        let e = s.system.apply_tend_elections(&a).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        let mut a = args(&format!("pin: {} — reason: x", ids[0]));
        a.scope = " ".into();
        let e = s.system.apply_tend_elections(&a).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert_eq!(snapshot(s), before, "[{}] nothing written", s.name);
    });
}

#[test]
fn dry_run_plans_every_election_and_writes_nothing() {
    on_both_with(queued, |s| {
        let ids = garden(s);
        let text = format!(
            "pin: {} — reason: a\nrefocus: — reason: b\nrevisit: {} — reason: c\nrevise: {} — reason: d\n\
             dispose: {} reject — reason: e\npin: ex:nope — reason: f",
            ids[0], ids[0], ids[1], ids[3]
        );
        let before = snapshot(s);
        let mut a = args(&text);
        a.dry_run = true;
        let planned = apply(s, &a);
        assert!(planned.dry_run);
        assert_eq!((planned.applied.len(), planned.refused.len()), (5, 1));
        assert_eq!(snapshot(s), before, "[{}] a dry run writes nothing", s.name);
        let done = apply(s, &args(&text));
        assert_eq!(
            done.applied.len(),
            5,
            "[{}] the dry run predicted it",
            s.name
        );
        assert_eq!(
            serde_json::to_value(&planned.refused).unwrap(),
            serde_json::to_value(&done.refused).unwrap()
        );
    });
}

#[test]
fn a_replay_at_the_same_instant_writes_nothing_twice() {
    on_both_with(queued, |s| {
        let ids = garden(s);
        let text = format!(
            "pin: {} — reason: a\nsilence: {} — reason: b\nrefocus: — reason: c\nrevisit: {} — reason: d\n\
             revise: {} — reason: e",
            ids[0], ids[1], ids[0], ids[1]
        );
        let first = apply(s, &args(&text));
        assert_eq!(first.applied.len(), 5, "[{}] {:?}", s.name, first.refused);
        let after = written(s);
        let again = apply(s, &args(&text));
        assert_eq!(again.applied.len(), 5);
        assert_eq!(written(s), after, "[{}] the replay wrote nothing", s.name);
        let TendAct::Revise(r) = &again.applied[4].result else {
            panic!("a ripple seed")
        };
        assert!(!r.opened, "the ripple stands");
    });
}

#[test]
fn two_elections_of_one_act_in_a_block_the_second_is_refused() {
    on_both(|s| {
        let ids = garden(s);
        let r = apply(
            s,
            &args(&format!(
                "dispose: {d} reject — reason: a\ndispose: {d} reject — reason: b",
                d = ids[3]
            )),
        );
        assert_eq!((r.applied.len(), r.refused.len()), (1, 1), "[{}]", s.name);
        assert!(r.refused[0].reason.contains("one line, one act"));
    });
}
