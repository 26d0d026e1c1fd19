//! The composed entity identity card (api.md "Entity identity card";
//! memory-system.md "Observability"; operator.md §2): `entity_card` on
//! `MemorySystem` and the function form `identity_card(store, journal, ..)`,
//! every section with its provenance, a pure read, `as_of` anchoring journal
//! signals and record existence. Both stacks, identical answers. The
//! differential test against 0.3.2 is `tests/card_oracle.rs`.

mod common;

use am_journal::ValenceEvent;
use am_system::RecordKind;
use am_system::identity::Engram;
use am_system::observe::card::{EntityCard, identity_card};
use am_system::valence::GradationConfig;
use am_system::{CloseRecord, RememberMany};
use am_system::{MemoryRecordInput, SystemOptions};
use am_triples::ErrorKind::InvalidInput;
use common::{Stack, assert_refused, named, on_both, on_both_with, written};
use serde_json::{Value, json};

const EID: &str = "entity:castor";
const LADDER: [(&str, &str); 3] = [("self", EID), ("diary", EID), ("life", EID)];

fn card(s: &Stack, as_of: Option<i64>) -> Value {
    let c = s
        .system
        .entity_card(&EntityCard {
            as_of,
            ..EntityCard::new(&LADDER, EID)
        })
        .unwrap();
    serde_json::to_value(c).unwrap()
}

fn diary(title: &str, digest: &str, entry: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Diary, title, digest)
        .with_provenance("source", "diary-projection")
        .with_attribute("entry_id", entry)
        .with_attribute("private", true)
}

/// Born, then a life and a diary; returns (the value ids, the question's
/// id, the seq before the answer).
fn lived(s: &Stack) -> (Vec<String>, String, i64) {
    let sys = &s.system;
    let core = sys.engram(&Engram::new(named(), EID), None).unwrap();
    let life = sys
        .remember_many(&RememberMany::new(
            vec![
                MemoryRecordInput::new(RecordKind::Episode, "Garden", "We planted beans."),
                MemoryRecordInput::new(RecordKind::Interest, "Beans", "How do beans climb?"),
                MemoryRecordInput::new(RecordKind::Lesson, "Water", "Water at dawn."),
            ],
            "life",
            EID,
            "life-1",
        ))
        .unwrap()
        .value;
    s.journal
        .append_valence(&[ValenceEvent {
            observed_at: "2026-03-01T13:00:00Z".into(),
            ..ValenceEvent::appraisal(&life[0], 1, 9.0, "the first harvest", "life", EID)
        }])
        .unwrap();
    let q = sys
        .remember_many(&RememberMany::new(
            vec![
                diary("Why beans", "Why do beans lean east?", "entry-1")
                    .with_attribute("diary_type", "question"),
            ],
            "diary",
            EID,
            "diary-1",
        ))
        .unwrap()
        .value;
    let before = s.journal.current_seq().unwrap();
    sys.remember_many(&RememberMany::new(
        vec![
            diary("Beans lean", "To the morning sun.", "entry-2")
                .with_attribute("diary_type", "reflection")
                .with_attribute("answers", "entry-1"),
        ],
        "diary",
        EID,
        "diary-2",
    ))
    .unwrap();
    (core.record_ids.values, q[0].clone(), before)
}

const SECTIONS: [&str; 9] = [
    "identity",
    "age_and_context",
    "current_state",
    "likes_dislikes",
    "questions",
    "problems",
    "key_moments",
    "discoveries",
    "lessons",
];

#[test]
fn the_card_composes_every_section_each_naming_its_source_on_both_stacks_alike() {
    let answers = std::cell::RefCell::new(Vec::new());
    on_both(|s| {
        lived(s);
        let v = card(s, None);
        for key in SECTIONS {
            assert!(
                v[key]["provenance"].as_str().is_some_and(|p| !p.is_empty()),
                "[{}] {key} names its source: {v}",
                s.name
            );
        }
        assert_eq!(v["owner_id"], EID);
        assert_eq!(v["as_of_seq"], s.journal.current_seq().unwrap());
        assert_eq!(v["identity"]["name"], EID);
        assert_eq!(v["identity"]["spark_version"], 1);
        assert_eq!(v["identity"]["values"].as_array().unwrap().len(), 3);
        assert_eq!(v["likes_dislikes"]["likes"][0]["title"], "Garden");
        assert_eq!(
            v["key_moments"]["total"], 2,
            "the harvest and the first interest"
        );
        assert_eq!(v["lessons"]["total"], 1);
        assert_eq!(
            v["likes_dislikes"]["likes"][0]["negative"].to_string(),
            "0.0",
            "an empty channel is +0, never -0"
        );
        assert_eq!(v["current_state"]["negative"].to_string(), "0.0");
        answers.borrow_mut().push(v);
    });
    let a = answers.into_inner();
    assert_eq!(a[0], a[1]);
}

#[test]
fn the_function_form_over_a_store_and_journal_answers_as_the_system_does() {
    on_both(|s| {
        lived(s);
        let f = identity_card(
            s.store.as_ref(),
            s.journal.as_ref(),
            &EntityCard::new(&LADDER, EID),
            &GradationConfig::default(),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(f).unwrap(),
            card(s, None),
            "[{}]",
            s.name
        );
    });
}

#[test]
fn identity_is_the_folded_self_core_at_the_anchor() {
    on_both(|s| {
        let (values, _, _) = lived(s);
        let before = s.journal.current_seq().unwrap();
        s.system
            .close_record(&CloseRecord::retract(&values[2], "outgrown"))
            .unwrap();
        let now = card(s, None)["identity"].clone();
        let titles: Vec<&str> = now["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["title"].as_str().unwrap())
            .collect();
        assert_eq!(titles, ["shared_vulnerability", "honesty"], "[{}]", s.name);
        assert_eq!(now["values"][0]["value_class"], "core");
        assert_eq!(
            now["traits"][0]["trait_class"], "limit",
            "honesty items lead"
        );
        let then = card(s, Some(before))["identity"].clone();
        assert_eq!(then["values"].as_array().unwrap().len(), 3, "retired later");
        let unborn = card(s, Some(0))["identity"].clone();
        assert_eq!(unborn["values"], json!([]));
        assert_eq!(unborn["spark_version"], Value::Null);
    });
}

#[test]
fn a_question_answered_after_the_anchor_reads_open_at_it() {
    on_both(|s| {
        let (_, q, before) = lived(s);
        let now = card(s, None)["questions"].clone();
        assert_eq!(now["open"], json!([]), "[{}] {now}", s.name);
        assert_eq!(now["resolved"][0]["record_id"], q.as_str());
        assert_eq!(now["resolved"][0]["entry_id"], "entry-1");
        assert_eq!(
            now["resolved"][0]["resolved_by"].as_array().unwrap().len(),
            1
        );
        let then = card(s, Some(before))["questions"].clone();
        assert_eq!(then["open"][0]["record_id"], q.as_str(), "[{}]", s.name);
        assert_eq!(then["resolved"], json!([]));
    });
}

#[test]
fn composing_the_card_deposits_nothing() {
    on_both(|s| {
        lived(s);
        let before = written(s);
        let bytes = common::home_bytes(s);
        for as_of in [None, Some(0), Some(3)] {
            let _ = card(s, as_of);
        }
        assert_eq!(written(s), before, "[{}] journal seq and rows", s.name);
        assert_eq!(common::home_bytes(s), bytes, "[{}] file bytes", s.name);
    });
}

#[test]
fn a_record_formed_pending_is_briefed_pending_never_with_a_placeholder_title() {
    on_both_with(
        || SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
        |s| {
            let mut r = MemoryRecordInput::new(RecordKind::Lesson, "", "Stakes hold the beans up.")
                .with_pending(&["title"]);
            r.title = None;
            let ids = s
                .system
                .remember_many(&RememberMany::new(vec![r], "life", EID, "p1"))
                .unwrap()
                .value;
            let v = card(s, None)["lessons"]["lessons"][0].clone();
            assert_eq!(v["record_id"], ids[0].as_str(), "[{}] {v}", s.name);
            assert_eq!(v["pending"], json!(["title"]));
            assert_eq!(
                v["title"],
                Value::Null,
                "the missing title reads None: no placeholder stands in for it"
            );
            assert_eq!(v["statement"], "Stakes hold the beans up.");
        },
    );
}

#[test]
fn the_card_refuses_an_empty_ladder_a_blank_owner_an_empty_window_and_a_foreign_anchor() {
    // The window is positive by its type: a 0 is refused where the
    // arguments are read, before any stack is touched.
    let empty_window = serde_json::from_value::<EntityCard>(json!({
        "scope_pairs": LADDER, "owner_id": EID, "current_window_events": 0
    }))
    .expect_err("a window of 0");
    assert!(
        empty_window.to_string().contains("nonzero"),
        "{empty_window}"
    );
    on_both(|s| {
        lived(s);
        let before = written(s);
        let hw = s.journal.current_seq().unwrap();
        let cases = [
            (EntityCard::new(&[], EID), "ladder"),
            (EntityCard::new(&[("  ", EID)], EID), "ladder"),
            (EntityCard::new(&LADDER, " "), "owner_id"),
            (
                EntityCard {
                    as_of: Some(hw + 1),
                    ..EntityCard::new(&LADDER, EID)
                },
                "as_of",
            ),
            (
                EntityCard {
                    as_of: Some(-1),
                    ..EntityCard::new(&LADDER, EID)
                },
                "as_of",
            ),
        ];
        for (args, needle) in cases {
            assert_refused(
                s,
                &before,
                s.system.entity_card(&args),
                InvalidInput,
                &[needle],
            );
        }
    });
}

#[test]
fn the_card_arguments_take_the_spec_defaults_and_refuse_unknown_fields() {
    let a: EntityCard =
        serde_json::from_value(json!({"scope_pairs": [["self", EID]], "owner_id": EID})).unwrap();
    assert_eq!(a, EntityCard::new(&[("self", EID)], EID));
    assert_eq!(
        (a.current_window_events.get(), a.top_n, a.as_of),
        (200, 5, None)
    );
    assert!(
        serde_json::from_value::<EntityCard>(
            json!({"scope_pairs": [], "owner_id": EID, "until_seq": 3})
        )
        .is_err()
    );
}
