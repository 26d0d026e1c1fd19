//! Valence on both stacks, one test per contract sentence of api.md "Valence
//! and gradation" and memory-system.md "Valence: how experience felt" that
//! the differential test (`valence_oracle.rs`) does not already pin: every
//! refusal writes nothing, the index-served `gradation` equals the pure fold
//! at every anchor, the constructor's `GradationConfig` is the one folded
//! with, and valence never touches retrieval.

mod common;

use am_journal::{ValenceEvent, ValenceFilter, ValenceKind};
use am_system::RecordKind;
use am_system::{
    Appraise, BreakBond, Gradation, GradationConfig, HealScar, MemoryRecordInput as R, Stimulus,
    SystemOptions, compute_gradation,
};
use am_system::{Reconstruct, RememberMany};
use am_triples::ErrorKind::{InvalidInput, NotFound};
use common::{Stack, assert_refused, on_both, on_both_with, written};
use serde_json::{Value, json};

const S: &str = "self";
const O: &str = "entity:castor";

fn ap(target: &str, sign: i64, m: f64, reason: &str, id: &str) -> Appraise {
    Appraise {
        event_id: Some(id.into()),
        ..Appraise::new(target, sign, m, reason, S, O)
    }
}

#[test]
fn every_appraise_refusal_writes_nothing() {
    on_both(|s| {
        s.system
            .appraise(&ap("person:ada", 1, 2.0, "fine", "v0"))
            .unwrap();
        let before = written(s);
        let cases: Vec<(Appraise, am_triples::ErrorKind, &str)> = vec![
            (
                ap("person:ada", -1, 5.0, "harsh", "a1"),
                InvalidInput,
                "amplitude authority",
            ),
            (
                ap("person:ada", 0, 1.0, "no sign", "a2"),
                InvalidInput,
                "sign",
            ),
            (
                Appraise {
                    actor: "operator".into(),
                    ..ap("person:ada", 1, 11.0, "much", "a3")
                },
                InvalidInput,
                "magnitude",
            ),
            (
                ap("person:ada", 1, 0.5, "little", "a4"),
                InvalidInput,
                "magnitude",
            ),
            (
                ap("person:ada", 1, f64::NAN, "nan", "a4n"),
                InvalidInput,
                "magnitude",
            ),
            (ap("person:ada", 1, 1.0, "  ", "a5"), InvalidInput, "reason"),
            (
                Appraise {
                    scar: true,
                    ..ap("person:ada", 1, 1.0, "x", "a6")
                },
                InvalidInput,
                "sign -1",
            ),
            (
                Appraise {
                    bond: true,
                    ..ap("person:ada", -1, 1.0, "x", "a7")
                },
                InvalidInput,
                "sign +1",
            ),
            (
                Appraise {
                    bond: true,
                    scar: true,
                    ..ap("person:ada", -1, 1.0, "x", "a8")
                },
                InvalidInput,
                "one peak",
            ),
            (ap(" ", 1, 1.0, "x", "a9"), InvalidInput, "target_id"),
            (
                Appraise {
                    scope: " ".into(),
                    ..ap("person:ada", 1, 1.0, "x", "a10")
                },
                InvalidInput,
                "scope",
            ),
        ];
        for (args, kind, needle) in cases {
            assert_refused(s, &before, s.system.appraise(&args), kind, &[needle]);
        }
    });
}

#[test]
fn heal_and_break_refusals_write_nothing() {
    on_both(|s| {
        let sys = &s.system;
        sys.appraise(&Appraise {
            scar: true,
            actor: "operator".into(),
            ..ap("tool:x", -1, 9.0, "broke", "w1")
        })
        .unwrap();
        sys.appraise(&Appraise {
            bond: true,
            ..ap("person:ada", 1, 2.0, "kind", "b1")
        })
        .unwrap();
        let before = written(s);
        let heal = |id: &str| HealScar::new(id, "learned", S, O);
        let brk = |id: &str| BreakBond::new(id, "drifted", S, O);
        assert_refused(
            s,
            &before,
            sys.heal_scar(&heal("nope")),
            NotFound,
            &["scar"],
        );
        assert_refused(s, &before, sys.heal_scar(&heal("w1")), NotFound, &["scar"]);
        assert_refused(
            s,
            &before,
            sys.heal_scar(&heal(" ")),
            InvalidInput,
            &["scar_event_id"],
        );
        assert_refused(
            s,
            &before,
            sys.heal_scar(&HealScar {
                actor: "runtime".into(),
                ..heal("w1:scar")
            }),
            InvalidInput,
            &["reflective act"],
        );
        assert_refused(
            s,
            &before,
            sys.heal_scar(&HealScar {
                scope: "life".into(),
                ..heal("w1:scar")
            }),
            NotFound,
            &["scar"],
        );
        assert_refused(
            s,
            &before,
            sys.heal_scar(&HealScar::new("w1:scar", "", S, O)),
            InvalidInput,
            &["reason"],
        );
        assert_refused(
            s,
            &before,
            sys.break_bond(&brk("w1:scar")),
            NotFound,
            &["bond"],
        );
        assert_refused(
            s,
            &before,
            sys.break_bond(&brk("nope")),
            NotFound,
            &["bond"],
        );
        assert_refused(
            s,
            &before,
            sys.break_bond(&BreakBond {
                actor: "Runtime".into(),
                ..brk("b1:bond")
            }),
            InvalidInput,
            &["reflective act"],
        );
        // The defaults are deterministic, so a replay writes nothing.
        assert_eq!(sys.heal_scar(&heal("w1:scar")).unwrap(), "heal:w1:scar");
        assert_eq!(sys.break_bond(&brk("b1:bond")).unwrap(), "break:b1:bond");
        let after = written(s);
        assert_eq!(sys.heal_scar(&heal("w1:scar")).unwrap(), "heal:w1:scar");
        assert_eq!(sys.break_bond(&brk("b1:bond")).unwrap(), "break:b1:bond");
        assert_eq!(
            written(s),
            after,
            "[{}] a replayed resolution wrote",
            s.name
        );
    });
}

#[test]
fn a_gradation_anchor_outside_the_journal_is_refused() {
    on_both(|s| {
        s.system
            .appraise(&ap("person:ada", 1, 2.0, "fine", "v0"))
            .unwrap();
        for bad in [-1, 2] {
            let err = s
                .system
                .gradation(&Gradation {
                    at_seq: Some(bad),
                    ..Gradation::new(S, O)
                })
                .unwrap_err();
            assert_eq!(err.kind(), InvalidInput, "[{}] {err}", s.name);
        }
    });
}

/// A script touching every fold rule, including a healing appended on
/// another target than its scar (the fold's resolutions are stream-wide).
fn script(s: &Stack) {
    let sys = &s.system;
    let op = |a: Appraise| Appraise {
        actor: "operator".into(),
        ..a
    };
    sys.appraise(&op(Appraise {
        bond: true,
        ..ap("person:bob", 1, 8.0, "trust", "b1")
    }))
    .unwrap();
    sys.appraise(&ap("person:bob", -1, 3.0, "late", "b2"))
        .unwrap();
    sys.appraise(&op(Appraise {
        scar: true,
        ..ap("tool:x", -1, 9.0, "lost work", "x1")
    }))
    .unwrap();
    sys.appraise(&op(Appraise {
        scar: true,
        ..ap("person:bob", -1, 9.0, "betrayal", "b3")
    }))
    .unwrap();
    for i in 0..8 {
        sys.appraise(&ap(
            "tool:y",
            if i % 3 == 0 { -1 } else { 1 },
            1.5,
            &format!("y{i}"),
            &format!("y{i}"),
        ))
        .unwrap();
    }
    let healing = ValenceEvent {
        provenance: [("heals".to_owned(), json!("x1:scar"))]
            .into_iter()
            .collect(),
        event_id: "cross".into(),
        actor: "operator".into(),
        ..ValenceEvent::appraisal("tool:elsewhere", 1, 1.0, "healed from afar", S, O)
            .with_kind(ValenceKind::Healing)
    };
    s.journal.append_valence(&[healing]).unwrap();
    let revalue = ValenceEvent {
        provenance: [("factor".to_owned(), json!(0.5))].into_iter().collect(),
        event_id: "rv".into(),
        ..ValenceEvent::appraisal("tool:y", 1, 1.0, "the past weighs less", S, O)
            .with_kind(ValenceKind::Revalued)
    };
    s.journal.append_valence(&[revalue]).unwrap();
    sys.appraise(&ap("tool:y", 1, 2.0, "after", "y9")).unwrap();
    sys.break_bond(&BreakBond::new("b1:bond", "over", S, O))
        .unwrap();
}

#[test]
fn gradation_from_the_index_equals_the_pure_fold_at_every_anchor() {
    on_both(|s| {
        script(s);
        let top = s.system.current_seq().unwrap();
        for anchor in 0..=top {
            let events = s
                .journal
                .valence_events(&ValenceFilter {
                    until_seq: Some(anchor),
                    limit: 0,
                    ..ValenceFilter::new(S, O)
                })
                .unwrap();
            let want = compute_gradation(&events, &GradationConfig::default()).unwrap();
            let all = s
                .system
                .gradation(&Gradation {
                    at_seq: Some(anchor),
                    ..Gradation::new(S, O)
                })
                .unwrap();
            assert_eq!(all.0.len(), want.len(), "[{}] anchor {anchor}", s.name);
            for (target, score) in all.iter() {
                assert_eq!(
                    Some(score),
                    want.get(target),
                    "[{}] {target} at {anchor}",
                    s.name
                );
                let one = s
                    .system
                    .gradation(&Gradation {
                        target_ids: Some(vec![target.to_owned()]),
                        at_seq: Some(anchor),
                        ..Gradation::new(S, O)
                    })
                    .unwrap();
                assert_eq!(
                    one.get(target),
                    Some(score),
                    "[{}] {target} at {anchor}",
                    s.name
                );
            }
        }
        let now = s.system.gradation(&Gradation::new(S, O)).unwrap();
        assert!(
            !now.get("tool:x").unwrap().scarred,
            "a healing on another target heals"
        );
        let bob = now.get("person:bob").unwrap();
        assert!(
            !bob.bonded && bob.scarred,
            "a later betrayal-scale scar breaks the bond"
        );
    });
}

#[test]
fn the_constructors_gradation_config_is_the_one_folded_with() {
    let config = || SystemOptions {
        gradation_config: GradationConfig {
            channel_clamp: 5.0,
            ..GradationConfig::default()
        },
        ..SystemOptions::default()
    };
    on_both_with(config, |s| {
        for i in 0..4 {
            s.system
                .appraise(&ap("tool:z", 1, 3.0, "good", &format!("z{i}")))
                .unwrap();
        }
        let g = s.system.gradation(&Gradation::new(S, O)).unwrap();
        let z = g.get("tool:z").unwrap();
        assert_eq!((z.positive, z.net, z.positive_count), (5.0, 5.0, 4));
    });
    let bad = SystemOptions {
        gradation_config: GradationConfig {
            break_magnitude: 0.0,
            ..GradationConfig::default()
        },
        ..SystemOptions::default()
    };
    let err = am_system::MemorySystem::with_options(
        std::sync::Arc::new(am_triples::InMemoryTripleStore::new(None)),
        std::sync::Arc::new(am_journal::InMemoryJournal::new()),
        bad,
    )
    .unwrap_err();
    assert_eq!(err.kind(), InvalidInput);
}

#[test]
fn unknown_targets_read_neutral_and_nothing_decays() {
    on_both(|s| {
        s.system
            .appraise(&ap("person:ada", 1, 2.0, "fine", "v0"))
            .unwrap();
        let g = s
            .system
            .gradation(&Gradation {
                target_ids: Some(vec!["never:seen".into(), "person:ada".into()]),
                ..Gradation::new(S, O)
            })
            .unwrap();
        assert_eq!(
            serde_json::to_value(g.get("never:seen").unwrap()).unwrap(),
            json!({"net": 0.0, "positive": 0.0, "negative": 0.0, "positive_count": 0,
                   "negative_count": 0, "scarred": false, "bonded": false, "contributions": []})
        );
        // A thousand unrelated journal records later, the standing is the same.
        let before = g.get("person:ada").unwrap().clone();
        for i in 0..50 {
            s.system
                .appraise(&ap("tool:other", 1, 1.0, "noise", &format!("n{i}")))
                .unwrap();
        }
        let later = s.system.gradation(&Gradation::new(S, O)).unwrap();
        assert_eq!(later.get("person:ada"), Some(&before));
    });
}

fn strip_seqs(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !k.contains("seq") && k != "trace_id");
            m.values_mut().for_each(strip_seqs);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_seqs),
        _ => {}
    }
}

#[test]
fn valence_never_touches_retrieval() {
    on_both(|s| {
        let sys = &s.system;
        let recs = vec![
            R::new(
                RecordKind::Episode,
                "Pool outage",
                "The database pool failed at noon.",
            )
            .with_keywords(&["pool"]),
            R::new(
                RecordKind::Lesson,
                "Restart order",
                "Restart the database pool first.",
            ),
            R::new(
                RecordKind::Episode,
                "Lunch",
                "Ada and Bob had lunch by the pool.",
            ),
        ];
        let ids = sys
            .remember_many(&RememberMany::new(recs, "session", "s1", "k"))
            .unwrap()
            .into_value();
        let recall = || {
            let mut st = Stimulus::new("database pool");
            st.participants = vec!["person:ada".into()];
            let r = sys
                .reconstruct(&Reconstruct {
                    journal: false,
                    ..Reconstruct::new(st, &[("session", "s1")])
                })
                .unwrap();
            let mut v = serde_json::to_value(r).unwrap();
            strip_seqs(&mut v);
            v
        };
        let before = recall();
        let digests = sys.resolve_assertion_ids(&ids).unwrap();
        let mut targets: Vec<String> = ids.clone();
        targets.extend(digests.into_iter().map(|(_, d)| d));
        targets.push("person:ada".into());
        for (i, t) in targets.iter().enumerate() {
            for (j, scope) in ["session", "self"].iter().enumerate() {
                let sign = if i % 2 == 0 { 1 } else { -1 };
                let a = Appraise {
                    actor: "operator".into(),
                    scar: sign < 0,
                    bond: sign > 0,
                    event_id: Some(format!("{i}-{j}")),
                    ..Appraise::new(t, sign, 10.0, "strongly felt", scope, "s1")
                };
                sys.appraise(&a).unwrap();
            }
        }
        assert_eq!(recall(), before, "[{}] valence changed a recall", s.name);
    });
}
