//! The system's identity card stays a fresh read: `MemorySystem::entity_card`
//! keeps what it read of the ladder between cards (formed rows, formation
//! bindings, valence streams) and catches up from the store's change feed
//! and the journal's tail, so after every kind of write it must answer
//! exactly what `identity_card` answers over the same store and journal read
//! from nothing, at the head and at every earlier anchor. Writes the system
//! never sees (a valence event appended on the journal, a row added on the
//! store) count too. Both stacks, identical answers.
//!
//! Spec: api.md "Entity identity card" (a pure read; `as_of` anchors journal
//! signals and record existence).

mod common;

use am_journal::ClosureKind;
use am_journal::{Lifecycle, SearchState};
use am_journal::{UnderstandingVersion, ValenceEvent, ValenceKind};
use am_system::MemoryRecordInput;
use am_system::RecordKind;
use am_system::identity::Engram;
use am_system::observe::card::{EntityCard, identity_card};
use am_system::valence::GradationConfig;
use am_system::{Bind, CloseRecord, RememberMany, RewriteDigest};
use am_triples::rewrite::DigestRewrite;
use am_triples::{CommitPoint, TripleAssertion};
use common::{Stack, named, on_both, written};
use serde_json::{Value, json};

const EID: &str = "entity:pollux";
const LADDER: [(&str, &str); 3] = [("self", EID), ("diary", EID), ("life", EID)];

fn args(as_of: Option<i64>) -> EntityCard {
    EntityCard {
        as_of,
        current_window_events: std::num::NonZeroUsize::new(3).unwrap(),
        top_n: 2,
        ..EntityCard::new(&LADDER, EID)
    }
}

/// The system's card (kept between calls) and the card read from nothing,
/// at the head and at every anchor in `anchors`; they must be equal, and
/// neither may write.
fn check(s: &Stack, anchors: &[i64], step: &str) -> Value {
    let before = written(s);
    let mut head = Value::Null;
    for as_of in std::iter::once(None).chain(anchors.iter().copied().map(Some)) {
        let warm = serde_json::to_value(s.system.entity_card(&args(as_of)).unwrap()).unwrap();
        let cold = serde_json::to_value(
            identity_card(
                s.store.as_ref(),
                s.journal.as_ref(),
                &args(as_of),
                &GradationConfig::default(),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(warm, cold, "[{}] {step}, as_of {as_of:?}", s.name);
        if as_of.is_none() {
            head = warm;
        }
    }
    assert_eq!(
        written(s),
        before,
        "[{}] {step}: a card writes nothing",
        s.name
    );
    head
}

fn appraise(s: &Stack, target: &str, sign: i64, magnitude: f64, scope: &str, at: &str) {
    s.journal
        .append_valence(&[ValenceEvent {
            observed_at: at.into(),
            ..ValenceEvent::appraisal(target, sign, magnitude, "felt", scope, EID)
        }])
        .unwrap();
}

fn diary(title: &str, entry: &str, diary_type: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Diary, title, &format!("{title}."))
        .with_provenance("source", "diary-projection")
        .with_attribute("entry_id", entry)
        .with_attribute("private", true)
        .with_attribute("diary_type", diary_type)
}

#[test]
fn the_system_card_answers_as_a_read_from_nothing_after_every_kind_of_write() {
    let heads = std::cell::RefCell::new(Vec::new());
    on_both(|s| {
        let sys = &s.system;
        let mut anchors: Vec<i64> = Vec::new();
        check(s, &anchors, "an empty home");
        sys.engram(&Engram::new(named(), EID), None).unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "born");

        // A life: every kind the sections read, 24 lessons formed at one
        // instant (ties on observed_at), a dream with signals.
        let mut inputs = vec![
            MemoryRecordInput::new(RecordKind::Episode, "Garden", "We planted beans."),
            MemoryRecordInput::new(RecordKind::Interest, "Beans", "How do beans climb?"),
            MemoryRecordInput::new(RecordKind::Interest, "Moss", "Why is moss green?"),
            MemoryRecordInput::new(RecordKind::Dream, "Flood", "The garden flooded.")
                .with_attribute("continuation_state", "unresolved")
                .with_attribute(
                    "signals",
                    json!([{"kind": "image", "felt": {"tone": "uneasy"}}]),
                ),
            MemoryRecordInput::new(RecordKind::Interest, "Ferns", "How do ferns unroll?"),
        ];
        for i in 0..24 {
            inputs.push(MemoryRecordInput::new(
                RecordKind::Lesson,
                &format!("Lesson {i}"),
                &format!("Learned {i}."),
            ));
        }
        let life = sys
            .remember_many(&RememberMany::new(inputs, "life", EID, "life-1"))
            .unwrap()
            .value;
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "a life formed");

        // Feelings in two pairs of the ladder about one target, a scar in
        // one pair healed in another, strong moments, a record-backed target.
        appraise(s, "person:ada", 1, 3.0, "life", "2026-03-01T13:00:00Z");
        appraise(s, "person:ada", -1, 9.0, "diary", "2026-03-01T13:30:00Z");
        appraise(s, &life[0], 1, 8.0, "life", "2026-03-01T14:00:00Z");
        appraise(s, "person:ada", 1, 2.0, "life", "2026-03-01T15:00:00Z");
        let scar = s
            .journal
            .append_valence(&[ValenceEvent {
                observed_at: "2026-03-01T16:00:00Z".into(),
                ..ValenceEvent::appraisal("tool:saw", -1, 9.0, "cut", "life", EID)
                    .with_kind(ValenceKind::Scar)
                    .with_event_id("scar-1")
            }])
            .unwrap();
        assert_eq!(scar.len(), 1);
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "feelings in two pairs");
        s.journal
            .append_valence(&[ValenceEvent {
                observed_at: "2026-03-01T17:00:00Z".into(),
                provenance: json!({"heals": "scar-1"}).as_object().unwrap().clone(),
                ..ValenceEvent::appraisal("tool:saw", 1, 2.0, "mended", "diary", EID)
                    .with_kind(ValenceKind::Healing)
            }])
            .unwrap();
        appraise(s, "tool:saw", 1, 4.0, "life", "2026-03-01T18:00:00Z");
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "a scar healed from another pair");

        // A diary: a question, a problem, and later their resolutions.
        sys.remember_many(&RememberMany::new(
            vec![
                diary("Why beans", "entry-1", "question"),
                diary("Weeds", "entry-2", "problem"),
            ],
            "diary",
            EID,
            "diary-1",
        ))
        .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "open questions");
        sys.remember_many(&RememberMany::new(
            vec![
                diary("Sun", "entry-3", "reflection").with_attribute("answers", "entry-1"),
                diary("Pulled", "entry-4", "reflection").with_attribute("resolves", "entry-2"),
            ],
            "diary",
            EID,
            "diary-2",
        ))
        .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "answered");

        // Closures: a supersession (the first), a retraction of a lesson.
        let next = sys
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(
                        RecordKind::Episode,
                        "Garden again",
                        "We replanted beans.",
                    ),
                    MemoryRecordInput::new(RecordKind::Lesson, "Stakes", "Beans need stakes.")
                        .with_attribute("explores", life[1].clone()),
                ],
                "life",
                EID,
                "life-2",
            ))
            .unwrap()
            .value;
        sys.close_record(
            &CloseRecord::new(&life[0], ClosureKind::Supersede, "replanted")
                .replaced_by(&[next[0].clone()]),
        )
        .unwrap();
        sys.close_record(&CloseRecord::retract(&life[5], "wrong"))
            .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "closures");

        // Bindings: a lesson hidden, an interest rejected, then shown again.
        sys.bind(&Bind::new(&life[6], "life", EID, SearchState::Hidden))
            .unwrap();
        sys.bind(&Bind {
            lifecycle: Lifecycle::Rejected,
            ..Bind::new(&life[2], "life", EID, SearchState::Indexed)
        })
        .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "hidden and rejected");
        sys.bind(&Bind::new(&life[6], "life", EID, SearchState::Indexed))
            .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "shown again");

        // A digest rewritten in place (the change feed never hands it on).
        let operator = am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada");
        sys.rewrite_digest(&RewriteDigest::new(
            &life[1],
            "How beans climb poles.",
            operator.clone(),
            json!("operator"),
            0,
        ))
        .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        check(s, &anchors, "a digest rewritten");

        // A host's own rewrite in place, written as the understanding verbs
        // write one (the store's rewrite and its version): a lesson's
        // attributes now say it explores the third interest.
        let row = sys.resolve_digest_assertion(&life[7]).unwrap().unwrap();
        let id = row.assertion_id.clone().unwrap();
        let mut attributes = row.attributes.clone();
        attributes.insert("explores".into(), json!(life[4]));
        let prepared = s
            .store
            .prepare_digest_rewrite(&DigestRewrite {
                assertion_id: id.clone(),
                expected_object: row.object.clone(),
                expected_attributes: row.attributes.clone(),
                object: row.object.clone(),
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
                text: Some(row.object.clone()),
                author: operator.to_map(),
                cause: json!("operator"),
                ..UnderstandingVersion::default()
            })
            .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        let rewritten = check(s, &anchors, "attributes rewritten in place");
        let ferns: Vec<&Value> = rewritten["discoveries"]["interests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["title"] == "Ferns")
            .collect();
        assert_eq!(ferns.len(), 1, "[{}] {rewritten}", s.name);
        assert_eq!(
            ferns[0]["explored"], true,
            "[{}] the rewrite is read",
            s.name
        );

        // A row added on the store itself, not through the system: never
        // bound, so it never existed for the card.
        s.store
            .add(&[TripleAssertion {
                scope: "life".into(),
                owner_id: Some(EID.into()),
                attributes: json!({"record_kind": "episode", "title": "Stray"})
                    .as_object()
                    .unwrap()
                    .clone(),
                ..TripleAssertion::new("stray:1", "dcterms:description", "A stray row.")
            }])
            .unwrap();
        anchors.push(s.journal.current_seq().unwrap());
        let head = check(s, &anchors, "a stray store row");

        assert_eq!(head["lessons"]["total"], 24, "25 formed, one retracted");
        assert_eq!(
            head["discoveries"]["interests_explored"], 2,
            "[{}] Beans and Ferns",
            s.name
        );
        assert_eq!(head["questions"]["resolved"].as_array().unwrap().len(), 1);
        assert_eq!(head["problems"]["resolved"].as_array().unwrap().len(), 1);
        assert_eq!(
            head["age_and_context"]["records_total"].as_u64().unwrap() as usize,
            head["age_and_context"]["record_counts"]
                .as_object()
                .unwrap()
                .values()
                .flat_map(|k| k.as_object().unwrap().values())
                .map(|n| n.as_u64().unwrap() as usize)
                .sum::<usize>()
        );
        heads.borrow_mut().push(head);
    });
    let h = heads.into_inner();
    assert_eq!(h[0], h[1], "both stacks answer alike");
}

#[test]
fn a_refused_card_leaves_the_next_one_fresh() {
    on_both(|s| {
        s.system.engram(&Engram::new(named(), EID), None).unwrap();
        check(s, &[], "born");
        let far = s.journal.current_seq().unwrap() + 5;
        assert!(s.system.entity_card(&args(Some(far))).is_err());
        appraise(s, "person:ada", 1, 9.0, "life", "2026-03-01T13:00:00Z");
        let head = check(s, &[], "after a refusal");
        assert_eq!(head["likes_dislikes"]["targets_total"], 1, "[{}]", s.name);
    });
}
