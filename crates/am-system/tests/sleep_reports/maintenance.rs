//! `maintenance_report`: a pure, deterministic phase-1 analysis that
//! deposits nothing; every policy number rides `tuning`; its refusals (bad
//! scopes, bad tuning, bad `as_of`) write nothing.

use crate::common::{assert_refused, home_bytes, on_both, written};
use crate::structural::{PAIR, form, gid, rec, report};
use am_system::sleep::{MaintenanceReport, SleepTuning};
use am_system::{CommitSelection, RecordKind};
use am_triples::ErrorKind;

fn tend(s: &crate::common::Stack, tuning: SleepTuning) -> am_system::sleep::Maintenance {
    s.system
        .maintenance_report(&MaintenanceReport {
            tuning,
            ..MaintenanceReport::new(&[PAIR])
        })
        .unwrap()
}

fn home(s: &crate::common::Stack) -> Vec<String> {
    form(
        s,
        "tend",
        vec![
            rec(RecordKind::Episode, "Harbor outage")
                .with_keywords(&["harbor", "outage"])
                .with_participants(&["person:ada"]),
            rec(RecordKind::Episode, "harbor OUTAGE")
                .with_keywords(&["harbor", "outage"])
                .with_participants(&["person:ada"]),
            rec(RecordKind::Lesson, "Unsourced"),
            rec(RecordKind::Lesson, "Sourced").with_edge("derived_from", "local:0"),
            rec(RecordKind::Memory, "Quiet")
                .with_edge("mentions", "local:0")
                .with_edge("supports", "local:0"),
            rec(RecordKind::Trait, "Harbor, outage"),
        ],
    )
}

#[test]
fn maintenance_report_names_gaps_duplicates_links_and_suppressions_and_proposes_only() {
    on_both(|s| {
        home(s);
        let base = report(s);
        let (a, b) = (gid(&base, "Harbor outage"), gid(&base, "harbor OUTAGE"));
        let m = tend(s, SleepTuning::default());
        // duplicate titles: same kind only (the trait shares the normalized
        // title, and a protected kind never enters the analysis)
        assert_eq!(m.duplicate_title_groups.len(), 1, "[{}]", s.name);
        assert_eq!(m.duplicate_title_groups[0].kind, "episode");
        assert_eq!(m.duplicate_title_groups[0].record_ids.len(), 2);
        // the unsourced lesson is named, the sourced one is not
        let unsourced: Vec<&str> = m
            .unsourced_lessons
            .iter()
            .map(|u| u.title.as_str())
            .collect();
        assert_eq!(unsourced, vec!["Unsourced"]);
        // a mentions edge beside a supports edge on one pair
        assert_eq!(m.edge_suppression_candidates.len(), 1);
        assert_eq!(
            m.edge_suppression_candidates[0].kind.as_str(),
            "low_information_edge"
        );
        // the two isolated episodes share two facets: a link proposal
        let pair = if a < b { (a, b) } else { (b, a) };
        assert!(m.isolated_link_candidates.iter().any(|l| l.pair == pair));
        // the duplicate group is the first (low-risk) proposal
        let p = &m.consolidation_proposals[0];
        assert_eq!(p.id, "consolidate:duplicate_title:1");
        assert_eq!(p.risk.as_str(), "low");
        assert!(m.operations.iter().all(|o| o.status == "proposed"));
        assert_eq!(m.counts.records, 6);
    });
}

#[test]
fn maintenance_report_is_a_pure_deterministic_read_that_deposits_nothing() {
    on_both(|s| {
        let ids = home(s);
        s.system
            .commit_selection(&CommitSelection::new("t", &ids[..2]))
            .unwrap();
        let before = written(s);
        let bytes = home_bytes(s);
        let first = tend(s, SleepTuning::default());
        assert_eq!(first, tend(s, SleepTuning::default()), "[{}]", s.name);
        assert_eq!(written(s), before, "[{}] nothing written", s.name);
        assert_eq!(home_bytes(s), bytes, "[{}] not a byte", s.name);
    });
}

#[test]
fn every_policy_number_rides_tuning() {
    on_both(|s| {
        home(s);
        let tight = tend(
            s,
            SleepTuning {
                list_bound: 1,
                operations_factor: 1,
                metadata_gaps_factor: 1,
                ..SleepTuning::default()
            },
        );
        assert_eq!(tight.metadata_gaps.len(), 1, "[{}]", s.name);
        assert_eq!(tight.operations.len(), 1);
        assert!(tight.operations_omitted > 0);
        // two shared facets are needed by default; three refuse this pair
        let strict = tend(
            s,
            SleepTuning {
                min_shared_facets: 4,
                ..SleepTuning::default()
            },
        );
        assert!(strict.isolated_link_candidates.is_empty());
        // a lower Jaccard floor finds the near-duplicate episodes' digests
        let loose = tend(
            s,
            SleepTuning {
                near_dup_jaccard_floor: 0.1,
                ..SleepTuning::default()
            },
        );
        assert!(!loose.near_duplicate_pairs.is_empty());
        let none = s
            .system
            .maintenance_report(&MaintenanceReport {
                scan_limit: Some(0),
                tuning: SleepTuning {
                    near_dup_jaccard_floor: 0.1,
                    ..SleepTuning::default()
                },
                ..MaintenanceReport::new(&[PAIR])
            })
            .unwrap();
        assert!(
            none.near_duplicate_pairs.is_empty(),
            "scan_limit 0 scans nothing"
        );
    });
}

#[test]
fn bad_scopes_bad_tuning_and_a_bad_as_of_are_refused_with_nothing_written() {
    on_both(|s| {
        home(s);
        let before = written(s);
        let head = s.journal.current_seq().unwrap();
        let cases: Vec<(MaintenanceReport, &str)> = vec![
            (MaintenanceReport::new(&[]), "scopes"),
            (MaintenanceReport::new(&[(" ", "s1")]), "scope"),
            (
                MaintenanceReport {
                    as_of: Some(head + 1),
                    ..MaintenanceReport::new(&[PAIR])
                },
                "as_of",
            ),
            (
                MaintenanceReport {
                    tuning: SleepTuning {
                        near_dup_jaccard_floor: 1.5,
                        ..SleepTuning::default()
                    },
                    ..MaintenanceReport::new(&[PAIR])
                },
                "near_dup_jaccard_floor",
            ),
            (
                MaintenanceReport {
                    tuning: SleepTuning {
                        list_bound: 0,
                        ..SleepTuning::default()
                    },
                    ..MaintenanceReport::new(&[PAIR])
                },
                "list_bound",
            ),
        ];
        for (args, needle) in cases {
            assert_refused(
                s,
                &before,
                s.system.maintenance_report(&args),
                ErrorKind::InvalidInput,
                &[needle],
            );
        }
        // an unknown tuning field is refused where the arguments are read
        assert!(
            serde_json::from_value::<MaintenanceReport>(serde_json::json!({
                "scopes": [["session", "s1"]],
                "tuning": {"near_dup_floor": 0.5}
            }))
            .is_err()
        );
    });
}

#[test]
fn the_nights_own_candidates_are_listed_apart_and_never_tended() {
    on_both(|s| {
        let ids = home(s);
        let _ = ids;
        let base = report(s);
        let (a, b) = (gid(&base, "Harbor outage"), gid(&base, "harbor OUTAGE"));
        s.system
            .remember_many(&am_system::RememberMany::new(
                vec![
                    rec(RecordKind::Summary, "Consolidated: Harbor outage")
                        .with_attribute("maintenance_candidate", true)
                        .with_attribute("source_ids", serde_json::json!([a.clone(), b.clone()]))
                        .with_edge("summarizes", &a)
                        .with_edge("summarizes", &b),
                ],
                PAIR.0,
                PAIR.1,
                "candidate",
            ))
            .unwrap();
        let m = tend(s, SleepTuning::default());
        assert_eq!(m.existing_candidates.len(), 1, "[{}]", s.name);
        assert_eq!(m.existing_candidates[0].source_ids, vec![a, b]);
        assert_eq!(m.counts.records, 6, "the candidate is not a tending record");
        assert!(
            m.shared_source_groups.is_empty(),
            "its edges source nothing"
        );
    });
}

/// Both stacks (with their task queue) with the offline embedder in the
/// store, so formed rows carry vectors (the SQLite home's directory kept alive beside it).
pub(crate) fn embedded_stacks() -> Vec<(crate::common::Stack, Option<tempfile::TempDir>)> {
    use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
    use std::sync::Arc;
    let e: Arc<dyn am_triples::TextEmbedder> = Arc::new(am_embed::OfflineEmbedder::new().unwrap());
    let options = || am_system::SystemOptions {
        clock: Some(crate::common::pinned_clock()),
        task_queue: true,
        ..am_system::SystemOptions::default()
    };
    let store: Arc<dyn am_triples::TripleStore> =
        Arc::new(am_triples::InMemoryTripleStore::new(Some(e.clone())));
    let journal: Arc<dyn am_journal::MemoryJournal> = Arc::new(am_journal::InMemoryJournal::new());
    let system =
        am_system::MemorySystem::with_options(store.clone(), journal.clone(), options()).unwrap();
    let memory = crate::common::Stack::over("memory", store, journal, system);
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let memory_home =
        Arc::new(SqliteMemoryHome::open(&home, Some(e), SqliteStoreOptions::default()).unwrap());
    let store: Arc<dyn am_triples::TripleStore> = memory_home.sqlite_store().clone();
    let journal: Arc<dyn am_journal::MemoryJournal> = memory_home.sqlite_journal().clone();
    let system = am_system::MemorySystem::over_home_with_options(memory_home, options()).unwrap();
    let sqlite = crate::common::Stack::over("sqlite", store, journal, system);
    vec![(memory, None), (sqlite, Some(dir))]
}

#[test]
fn below_the_jaccard_floor_the_stored_vectors_cosine_decides_and_without_vectors_the_pair_is_counted()
 {
    let pair = |s: &crate::common::Stack| {
        form(
            s,
            "para",
            vec![
                rec(RecordKind::Memory, "Database pool failed at noon"),
                rec(RecordKind::Memory, "Connections exhausted around midday"),
            ],
        )
    };
    for (stack, _dir) in embedded_stacks() {
        let s = &stack;
        let ids = pair(s);
        let v: Vec<Vec<f32>> = ids
            .iter()
            .map(|g| {
                let aid = s
                    .system
                    .resolve_digest_assertion(g)
                    .unwrap()
                    .unwrap()
                    .assertion_id
                    .unwrap();
                s.store
                    .stored_vector(&aid)
                    .unwrap()
                    .expect("a stored vector")
            })
            .collect();
        let cos = am_triples::vector::cosine(&v[0], &v[1]);
        let at = |floor: f64| {
            tend(
                s,
                SleepTuning {
                    near_dup_vector_floor: floor,
                    ..SleepTuning::default()
                },
            )
        };
        let found = at(cos);
        assert_eq!(
            found.near_duplicate_pairs.len(),
            1,
            "[{}] cos {cos}",
            s.name
        );
        let p = &found.near_duplicate_pairs[0];
        assert!(p.jaccard.is_none());
        let shown = p.vector_score.unwrap();
        assert!(
            (shown - cos).abs() <= 5e-7,
            "rounded to 6 places: {shown} vs {cos}"
        );
        assert_eq!(found.vectorless_pairs, 0);
        assert!(at((cos + 0.001).min(1.0)).near_duplicate_pairs.is_empty());
    }
    on_both(|s| {
        pair(s);
        let m = tend(s, SleepTuning::default());
        assert!(m.near_duplicate_pairs.is_empty(), "[{}]", s.name);
        assert_eq!(m.vectorless_pairs, 1, "no vectors: counted, never guessed");
    });
}
