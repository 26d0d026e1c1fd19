//! What a system's reach keeps between calls (the recall index it reads
//! through, the concept memo and concept field, the keyword mirror of a
//! SQLite home) is derived state: after every kind of write, a system that
//! has reached all along answers `probe` and `familiarity` exactly as a
//! system opened afresh over the same store and journal (whose first read
//! goes to the store itself). The kept system also journals its own probes
//! between the compared ones: its trace and `listed` events leave its kept
//! concept field in use (they change no row and no fold), and what it then
//! answers is still the fresh system's.

use super::support::{BOTH, LIFE, OWNER, garden};
use crate::common::Stack;
use am_journal::{SearchState, UnderstandingVersion};
use am_system::concepts::ConceptAnchorTuning;
use am_system::reach::{EffortName, Familiarity, Probe, ProbeBudget, ProbeEffort, ProbeExpand};
use am_system::{
    AuthorKind, AuthorRef, Bind, CloseRecord, MemoryRecordInput as R, MemorySystem, RecordKind,
    Reinforce, RememberMany, Retitle, RewriteDigest, Stimulus, SystemOptions,
};
use am_triples::CommitPoint;
use am_triples::rewrite::DigestRewrite;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Trace ids of the kept system's journaled probes, one each.
static JOURNALED: AtomicUsize = AtomicUsize::new(0);

const CUES: [&str; 4] = [
    "compost heap turning",
    "the garden fork and the allotment",
    "thermophilic bacteria in the seed library",
    "kiln glaze crawling at cone six",
];

/// The efforts compared: the presets, and a narrow custom one whose windows
/// (6 rows) every new record moves.
fn efforts() -> Vec<ProbeEffort> {
    vec![
        ProbeEffort::Preset(EffortName::Standard),
        ProbeEffort::Preset(EffortName::Deep),
        ProbeEffort::Custom(ProbeBudget {
            max_candidates: 6,
            concept_tuning: ConceptAnchorTuning {
                scan_limit: 6,
                ..ConceptAnchorTuning::DEFAULT
            },
            ..ProbeBudget::STANDARD
        }),
    ]
}

fn fresh(s: &Stack) -> MemorySystem {
    MemorySystem::with_options(s.store.clone(), s.journal.clone(), SystemOptions::default())
        .unwrap()
}

/// Every cue, effort and ladder through the kept system and through a fresh
/// one: the same answers, the kept system's once pure and once journaled
/// (so each pure probe but the first follows the kept system's own trace).
/// Returns how many of the probes admitted a record by concept alone.
fn check(s: &Stack, step: &str) -> usize {
    let mut anchored = 0;
    for cue in CUES {
        for effort in efforts() {
            for ladder in [LIFE, BOTH] {
                for write_journal in [false, true] {
                    let trace_id = if write_journal {
                        format!("kept-{}", JOURNALED.fetch_add(1, Ordering::Relaxed))
                    } else {
                        "kept".into()
                    };
                    let args = Probe {
                        effort,
                        write_journal,
                        trace_id: Some(trace_id),
                        ..Probe::new(Stimulus::new(cue), ladder, "a test compares")
                    };
                    // The fresh system reads first and writes nothing: both
                    // read the same journal.
                    let again = fresh(s)
                        .probe(&Probe {
                            write_journal: false,
                            ..args.clone()
                        })
                        .unwrap();
                    let kept = s.system.probe(&args).unwrap();
                    assert_eq!(
                        kept, again,
                        "[{}] after {step}: probe {cue:?} {effort:?} {ladder:?}, journaled {write_journal}",
                        s.name
                    );
                    anchored += usize::from(kept.channels.iter().any(|c| c == "concept"));
                }
            }
        }
        let fam = Familiarity::new(Stimulus::new(cue), BOTH);
        assert_eq!(
            s.system.familiarity(&fam).unwrap(),
            fresh(s).familiarity(&fam).unwrap(),
            "[{}] after {step}: familiarity {cue:?}",
            s.name
        );
    }
    anchored
}

fn operator() -> AuthorRef {
    AuthorRef::new(AuthorKind::Operator, "ada")
}

#[test]
fn a_kept_reach_answers_as_a_fresh_system_after_every_kind_of_write() {
    crate::common::on_both(|s| {
        let mut anchored = check(s, "nothing");
        let g = garden(s);
        anchored += check(s, "the garden formed");
        // The same again: the kept state is now warm.
        anchored += check(s, "nothing new");

        let more: Vec<R> = (0..8)
            .map(|i| {
                R::new(
                    if i % 2 == 0 {
                        RecordKind::Episode
                    } else {
                        RecordKind::Lesson
                    },
                    &format!("Compost note {i}"),
                    &format!(
                        "Turning the compost heap on plot {i}; the kiln glaze crawled at cone {}.",
                        i % 3
                    ),
                )
                .with_keywords(&["compost", if i % 2 == 0 { "kiln" } else { "glaze" }])
                .with_participants(&["person:ada"])
            })
            .collect();
        let more = s
            .system
            .remember_many(&RememberMany::new(more, "life", OWNER, "more"))
            .unwrap()
            .value;
        anchored += check(s, "newer records that move the windows");

        let done = s
            .system
            .retitle(&Retitle::new(
                &g.heap,
                "Thermophilic heap by the seed library",
                operator(),
                json!("operator"),
                0,
            ))
            .unwrap();
        assert!(done.outcome.applied(), "[{}] {done:?}", s.name);
        anchored += check(s, "a title rewritten in place");

        let done = s
            .system
            .rewrite_digest(&RewriteDigest {
                keywords: Some(vec!["glaze".into(), "allotment".into()]),
                ..RewriteDigest::new(
                    &more[3],
                    "The glaze crawled again at cone six by the allotment shed.",
                    operator(),
                    json!("operator"),
                    0,
                )
            })
            .unwrap();
        assert!(done.outcome.applied(), "[{}] {done:?}", s.name);
        anchored += check(s, "a digest and its keywords rewritten in place");

        s.system
            .close_record(&CloseRecord::retract(&g.compost, "it was the other plot"))
            .unwrap();
        anchored += check(s, "a retraction");

        s.system
            .bind(&Bind::new(&more[0], "life", OWNER, SearchState::Hidden))
            .unwrap();
        anchored += check(s, "a hidden record");
        s.system
            .bind(&Bind::new(&more[0], "life", OWNER, SearchState::Indexed))
            .unwrap();
        anchored += check(s, "the record shown again");

        for id in [&g.fork, &more[5]] {
            s.system
                .reinforce(&Reinforce::new(id, "keeps coming back", "life", OWNER))
                .unwrap();
        }
        anchored += check(s, "reinforcements");

        s.system
            .probe(&Probe::new(
                Stimulus::new("compost heap turning"),
                BOTH,
                "a journaled reach",
            ))
            .unwrap();
        anchored += check(s, "a journaled probe");

        // A journaled expansion by the kept system, then one by a second
        // system over the same home (not this system's own trace).
        for system in [&s.system, &fresh(s)] {
            system
                .probe_expand(&ProbeExpand::new(&[&g.compost], "a journaled expansion"))
                .unwrap();
            anchored += check(s, "a journaled expansion");
        }
        // A second system's journaled probe.
        fresh(s)
            .probe(&Probe::new(
                Stimulus::new("kiln glaze crawling at cone six"),
                BOTH,
                "another system's reach",
            ))
            .unwrap();
        anchored += check(s, "another system's journaled probe");

        // A host's rewrite in place that gives a record keywords it did not
        // have: the change feed never hands it on, the journal's version
        // names it.
        let row = s
            .system
            .resolve_digest_assertion(&more[6])
            .unwrap()
            .unwrap();
        let id = row.assertion_id.clone().unwrap();
        let mut attributes = row.attributes.clone();
        attributes.insert("keywords".into(), json!(["thermophilic", "bacteria"]));
        let prepared = s
            .store
            .prepare_digest_rewrite(&DigestRewrite {
                assertion_id: id.clone(),
                expected_object: row.object.clone(),
                expected_attributes: row.attributes.clone(),
                object: "Thermophilic bacteria in the seed library jar.".into(),
                attributes,
            })
            .unwrap();
        s.store
            .apply_digest_rewrite(&prepared, CommitPoint::UnderstandingDigest)
            .unwrap();
        s.journal
            .append_version(&UnderstandingVersion {
                record_id: row.subject.clone(),
                assertion_id: id,
                version: 1,
                text: Some("Thermophilic bacteria in the seed library jar.".into()),
                author: operator().to_map(),
                cause: json!("operator"),
                ..UnderstandingVersion::default()
            })
            .unwrap();
        anchored += check(s, "a host's rewrite in place");

        let notes: Vec<R> = (0..3)
            .map(|i| {
                R::new(
                    RecordKind::Lesson,
                    &format!("Seed library {i}"),
                    "Thermophilic bacteria notes filed by the seed library.",
                )
                .with_keywords(&["thermophilic"])
            })
            .collect();
        s.system
            .remember_many(&RememberMany::new(notes, "notes", OWNER, "notes2"))
            .unwrap();
        anchored += check(s, "records in the ladder's second pair");
        assert!(
            anchored > 20,
            "[{}] concept anchoring admitted in {anchored} probes only",
            s.name
        );
    });
}
