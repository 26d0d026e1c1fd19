//! `structural_report`: components over component relations only, context
//! and unknown predicates as `context_pairs`, trails apart, isolated
//! records, duplicate titles, facet coverage, adjacency; a pure read; its
//! refusals write nothing.

use crate::common::{Stack, assert_refused, home_bytes, on_both, written};
use am_system::sleep::{Atom, StructuralReport, Structure};
use am_system::{CloseRecord, CommitSelection, MemoryRecordInput, RecordKind, RememberMany};
use am_triples::ErrorKind;

pub(crate) const PAIR: (&str, &str) = ("session", "s1");

pub(crate) fn rec(kind: RecordKind, title: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(kind, title, &format!("{title}: what happened."))
}

/// Form `records` in [`PAIR`] under `key`; their graph ids.
pub(crate) fn form(s: &Stack, key: &str, records: Vec<MemoryRecordInput>) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, PAIR.0, PAIR.1, key))
        .unwrap()
        .value
}

pub(crate) fn report(s: &Stack) -> Structure {
    s.system
        .structural_report(&StructuralReport::new(&[PAIR]))
        .unwrap()
}

/// The graph id of the substrate record titled `title`.
pub(crate) fn gid(r: &Structure, title: &str) -> String {
    let found: Vec<&Atom> = r
        .records
        .iter()
        .filter(|(_, v)| v.title == title)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(found.len(), 1, "one record titled {title:?}: {found:?}");
    found[0].to_string()
}

fn pair(a: &str, b: &str) -> (Atom, Atom) {
    if a <= b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

/// One batch: a derived_from chain (A <- B), a `written_amid` pair (C, D),
/// an unknown predicate (E -> F), and a lone record G.
fn shaped(s: &Stack) -> Structure {
    form(
        s,
        "shape",
        vec![
            rec(RecordKind::Memory, "Alpha"),
            rec(RecordKind::Lesson, "Beta").with_edge("derived_from", "local:0"),
            rec(RecordKind::Memory, "Gamma"),
            rec(RecordKind::Episode, "Delta").with_edge("written_amid", "local:2"),
            rec(RecordKind::Memory, "Epsilon"),
            rec(RecordKind::Decision, "Zeta").with_edge("decided_after", "local:4"),
            rec(RecordKind::Memory, "Eta"),
        ],
    );
    report(s)
}

#[test]
fn components_are_computed_over_component_relations_edges_only() {
    on_both(|s| {
        let r = shaped(s);
        let (a, b) = (gid(&r, "Alpha"), gid(&r, "Beta"));
        assert_eq!(
            r.component_of[a.as_str()],
            r.component_of[b.as_str()],
            "[{}]",
            s.name
        );
        assert_eq!(r.adjacency[a.as_str()], vec![b.clone()]);
        assert_eq!(r.adjacency[b.as_str()], vec![a.clone()]);
        // seven records, one component of two, five singletons
        assert_eq!(r.counts.records, 7);
        assert_eq!(r.counts.components, 6);
        assert_eq!(r.components.len(), 6);
        let joined = {
            let mut v = vec![a.clone(), b.clone()];
            v.sort();
            v
        };
        assert!(r.components.iter().any(|c| *c == joined));
        // components are listed by their smallest id, each sorted
        let firsts: Vec<&str> = r.components.iter().map(|c| c[0].as_str()).collect();
        assert!(firsts.windows(2).all(|w| w[0] < w[1]), "{firsts:?}");
        assert!(
            r.components
                .iter()
                .all(|c| c.windows(2).all(|w| w[0] < w[1]))
        );
        for (i, c) in r.components.iter().enumerate() {
            for id in c {
                assert_eq!(r.component_of[id], i);
            }
        }
    });
}

#[test]
fn context_relations_never_define_components_their_pairs_are_context_pairs() {
    on_both(|s| {
        let r = shaped(s);
        let (c, d) = (gid(&r, "Gamma"), gid(&r, "Delta"));
        assert_ne!(
            r.component_of[c.as_str()],
            r.component_of[d.as_str()],
            "[{}]",
            s.name
        );
        assert!(r.adjacency[c.as_str()].is_empty() && r.adjacency[d.as_str()].is_empty());
        assert!(r.context_pairs.contains(&pair(&c, &d)));
        assert!(r.associated(&d, &c));
    });
}

#[test]
fn unknown_predicates_never_define_components_and_are_named_in_unknown_relations() {
    on_both(|s| {
        let r = shaped(s);
        let (e, f) = (gid(&r, "Epsilon"), gid(&r, "Zeta"));
        assert_ne!(
            r.component_of[e.as_str()],
            r.component_of[f.as_str()],
            "[{}]",
            s.name
        );
        assert!(r.context_pairs.contains(&pair(&e, &f)));
        assert_eq!(r.unknown_relations, vec!["decided_after".to_owned()]);
        // written_amid and decided_after are the two context edges
        assert_eq!(r.counts.context_edges, 2);
        assert_eq!(r.context_pairs.len(), 2);
    });
}

#[test]
fn a_record_linked_only_by_context_or_trails_is_still_isolated() {
    on_both(|s| {
        let r = shaped(s);
        let mut expected: Vec<String> = ["Gamma", "Delta", "Epsilon", "Zeta", "Eta"]
            .iter()
            .map(|t| gid(&r, t))
            .collect();
        expected.sort();
        assert_eq!(r.isolated, expected, "[{}]", s.name);
        assert_eq!(r.counts.isolated, 5);
    });
}

#[test]
fn co_use_trails_are_reported_apart_as_trail_pairs_never_adjacency() {
    on_both(|s| {
        let ids = form(
            s,
            "trail",
            vec![
                rec(RecordKind::Memory, "Pool"),
                rec(RecordKind::Memory, "Tea"),
            ],
        );
        let before = report(s);
        assert!(before.trail_pairs.is_empty());
        s.system
            .commit_selection(&CommitSelection::new("t1", &ids))
            .unwrap();
        let r = report(s);
        let (p, t) = (gid(&r, "Pool"), gid(&r, "Tea"));
        assert_eq!(r.trail_pairs, vec![pair(&p, &t)], "[{}]", s.name);
        assert_ne!(r.component_of[p.as_str()], r.component_of[t.as_str()]);
        assert_eq!(r.isolated.len(), 2);
        assert!(r.associated(&t, &p));
        // anchored before the commit, the trail is not there yet
        let anchored = s
            .system
            .structural_report(&StructuralReport {
                as_of: Some(before.as_of_seq),
                ..StructuralReport::new(&[PAIR])
            })
            .unwrap();
        assert!(anchored.trail_pairs.is_empty());
        assert_eq!(anchored.as_of_seq, before.as_of_seq);
    });
}

#[test]
fn duplicate_titles_group_by_their_normalized_title_across_kinds() {
    on_both(|s| {
        form(
            s,
            "dups",
            vec![
                rec(RecordKind::Memory, "Pool sizing"),
                rec(RecordKind::Lesson, "pool,  SIZING!"),
                rec(RecordKind::Memory, "Pool sizing notes"),
            ],
        );
        let r = report(s);
        let mut group = vec![gid(&r, "Pool sizing"), gid(&r, "pool,  SIZING!")];
        group.sort();
        assert_eq!(r.duplicates.len(), 1, "[{}] {:?}", s.name, r.duplicates);
        assert_eq!(r.duplicates["pool sizing"], group);
        assert_eq!(r.counts.duplicates, 1);
    });
}

#[test]
fn facet_coverage_lists_each_facets_records_and_underlinked_facets_span_components() {
    on_both(|s| {
        form(
            s,
            "facets",
            vec![
                rec(RecordKind::Memory, "One")
                    .with_keywords(&["Pool outage", "db"])
                    .with_participants(&["person:ada"]),
                rec(RecordKind::Memory, "Two")
                    .with_keywords(&["outage"])
                    .with_edge("supports", "local:0"),
                rec(RecordKind::Memory, "Three")
                    .with_keywords(&["pool."])
                    .with_participants(&[" person:ada "]),
            ],
        );
        let r = report(s);
        let (one, two, three) = (gid(&r, "One"), gid(&r, "Two"), gid(&r, "Three"));
        assert_eq!(
            r.records[one.as_str()].facets,
            vec!["outage", "pool"],
            "[{}]",
            s.name
        );
        assert_eq!(r.records[one.as_str()].participants, vec!["person:ada"]);
        assert_eq!(r.records[three.as_str()].participants, vec!["person:ada"]);
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert_eq!(
            r.facet_coverage["outage"],
            sorted(vec![one.clone(), two.clone()])
        );
        assert_eq!(
            r.facet_coverage["pool"],
            sorted(vec![one.clone(), three.clone()])
        );
        assert_eq!(
            r.facet_coverage["person:ada"],
            sorted(vec![one.clone(), three.clone()])
        );
        assert!(!r.facet_coverage.contains_key("db"), "shorter than 3");
        // outage sits inside one component (One-Two); pool and ada span two
        assert_eq!(r.underlinked_facets, vec!["person:ada", "pool"]);
    });
}

#[test]
fn dreams_world_models_and_bookkeeping_rows_are_not_substrate() {
    on_both(|s| {
        form(
            s,
            "artifacts",
            vec![
                rec(RecordKind::Memory, "Lived"),
                rec(RecordKind::Dream, "A dream").with_edge("mentions", "local:0"),
                rec(RecordKind::WorldModel, "A card").with_edge("refines", "local:0"),
                rec(RecordKind::Memory, "Ledger").with_attribute("bookkeeping", true),
            ],
        );
        let r = report(s);
        let titles: Vec<&str> = r.records.values().map(|v| v.title.as_str()).collect();
        assert_eq!(titles, vec!["Lived"], "[{}]", s.name);
        assert!(r.context_pairs.is_empty());
        assert_eq!(r.isolated.len(), 1);
    });
}

#[test]
fn a_maintenance_candidates_edges_never_define_components_and_are_counted_apart() {
    on_both(|s| {
        form(
            s,
            "cand",
            vec![
                rec(RecordKind::Episode, "Monday"),
                rec(RecordKind::Episode, "Tuesday"),
                rec(RecordKind::Summary, "Theme")
                    .with_attribute("maintenance_candidate", true)
                    .with_edge("summarizes", "local:0")
                    .with_edge("summarizes", "local:1"),
            ],
        );
        let r = report(s);
        let (m, t, c) = (gid(&r, "Monday"), gid(&r, "Tuesday"), gid(&r, "Theme"));
        assert_eq!(r.counts.candidate_edges, 2, "[{}]", s.name);
        assert_eq!(r.counts.components, 3);
        let isolated = |id: &str| r.isolated.iter().any(|x| x == id);
        assert!(isolated(&c) && isolated(&m) && isolated(&t));
        assert!(r.context_pairs.is_empty());
        // the evidence-grade view leaves the candidate out altogether
        let graded = s
            .system
            .structural_report(&StructuralReport {
                evidence_grade: true,
                ..StructuralReport::new(&[PAIR])
            })
            .unwrap();
        assert!(!graded.records.contains_key(c.as_str()));
        assert_eq!(graded.counts.records, 2);
    });
}

#[test]
fn the_evidence_grade_view_folds_closed_records_and_the_raw_view_keeps_them() {
    on_both(|s| {
        let ids = form(
            s,
            "closed",
            vec![
                rec(RecordKind::Memory, "Kept"),
                rec(RecordKind::Memory, "Retracted").with_edge("supports", "local:0"),
            ],
        );
        s.system
            .close_record(&CloseRecord {
                record_id: ids[1].clone(),
                kind: am_journal::ClosureKind::Retract,
                reason: "wrong".into(),
                replacement_ids: Vec::new(),
            })
            .unwrap();
        let raw = report(s);
        assert_eq!(raw.counts.records, 2, "[{}]", s.name);
        assert_eq!(raw.counts.components, 1);
        let graded = s
            .system
            .structural_report(&StructuralReport {
                evidence_grade: true,
                ..StructuralReport::new(&[PAIR])
            })
            .unwrap();
        let titles: Vec<&str> = graded.records.values().map(|v| v.title.as_str()).collect();
        assert_eq!(titles, vec!["Kept"]);
        assert_eq!(graded.isolated.len(), 1);
    });
}

#[test]
fn structural_report_is_a_pure_read() {
    on_both(|s| {
        let ids = form(
            s,
            "pure",
            vec![
                rec(RecordKind::Memory, "Pool").with_keywords(&["pool"]),
                rec(RecordKind::Memory, "Tea").with_edge("supports", "local:0"),
            ],
        );
        s.system
            .commit_selection(&CommitSelection::new("t1", &ids))
            .unwrap();
        let before = written(s);
        let bytes = home_bytes(s);
        let first = report(s);
        let second = report(s);
        assert_eq!(first, second, "[{}] deterministic", s.name);
        assert_eq!(written(s), before, "[{}] nothing written", s.name);
        assert_eq!(home_bytes(s), bytes, "[{}] not a byte", s.name);
    });
}

#[test]
fn only_the_named_pairs_are_read_and_a_blank_owner_reads_every_owner_of_the_scope() {
    on_both(|s| {
        form(s, "mine", vec![rec(RecordKind::Memory, "Mine")]);
        s.system
            .remember_many(&RememberMany::new(
                vec![rec(RecordKind::Memory, "Theirs")],
                "session",
                "s2",
                "theirs",
            ))
            .unwrap();
        assert_eq!(report(s).counts.records, 1, "[{}]", s.name);
        let all = s
            .system
            .structural_report(&StructuralReport::new(&[("Session", "")]))
            .unwrap();
        assert_eq!(all.counts.records, 2);
        // a pair named twice (in any case) is read once
        let twice = s
            .system
            .structural_report(&StructuralReport::new(&[PAIR, ("SESSION ", " s1")]))
            .unwrap();
        assert_eq!(twice, report(s));
    });
}

#[test]
fn an_empty_home_reports_no_records_and_the_heads_seq() {
    on_both(|s| {
        let r = report(s);
        assert_eq!(r.counts.records, 0, "[{}]", s.name);
        assert!(r.components.is_empty() && r.records.is_empty());
        assert_eq!(r.as_of_seq, s.journal.current_seq().unwrap());
    });
}

#[test]
fn bad_scopes_and_an_as_of_outside_the_journal_are_refused_with_nothing_written() {
    on_both(|s| {
        form(s, "x", vec![rec(RecordKind::Memory, "X")]);
        let before = written(s);
        let head = s.journal.current_seq().unwrap();
        let none = StructuralReport {
            scopes: Vec::new(),
            ..StructuralReport::new(&[])
        };
        assert_refused(
            s,
            &before,
            s.system.structural_report(&none),
            ErrorKind::InvalidInput,
            &["structural_report", "scopes"],
        );
        assert_refused(
            s,
            &before,
            s.system
                .structural_report(&StructuralReport::new(&[("  ", "s1")])),
            ErrorKind::InvalidInput,
            &["scope"],
        );
        for bad in [head + 1, -1] {
            assert_refused(
                s,
                &before,
                s.system.structural_report(&StructuralReport {
                    as_of: Some(bad),
                    ..StructuralReport::new(&[PAIR])
                }),
                ErrorKind::InvalidInput,
                &["as_of"],
            );
        }
    });
}

#[test]
fn the_report_serializes_as_the_specs_dict() {
    on_both(|s| {
        let r = shaped(s);
        let v = serde_json::to_value(&r).unwrap();
        let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "adjacency",
                "as_of_seq",
                "component_of",
                "components",
                "context_pairs",
                "counts",
                "duplicates",
                "facet_coverage",
                "isolated",
                "records",
                "trail_pairs",
                "underlinked_facets",
                "unknown_relations",
            ]
        );
        let pair = &v["context_pairs"][0];
        assert!(pair.is_array() && pair.as_array().unwrap().len() == 2);
    });
}
