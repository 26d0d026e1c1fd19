//! The identity card's sections that read the journal and the formed records
//! (api.md "Entity identity card"): age_and_context, current_state (a
//! trailing window), key_moments (magnitude >= 8 plus firsts, chronological)
//! and discoveries, each with its provenance; a pure read; `as_of` anchoring
//! journal signals and record existence. Both stacks, identical answers.

mod common;

use am_journal::ValenceEvent;
use am_system::MemoryRecordInput;
use am_system::RecordKind;
use am_system::observe::card::{
    CardGather, KEY_MOMENT_MAGNITUDE, age_and_context, current_state, discoveries, key_moments,
    likes_dislikes,
};
use am_system::valence::GradationConfig;
use am_system::{CloseRecord, RememberMany};
use common::{Stack, on_both, written};
use serde_json::{Value, json};
use std::num::NonZeroUsize;

fn appraise(s: &Stack, target: &str, sign: i64, magnitude: f64, reason: &str, at: &str) {
    s.journal
        .append_valence(&[ValenceEvent {
            observed_at: at.into(),
            ..ValenceEvent::appraisal(target, sign, magnitude, reason, "life", "e1")
        }])
        .unwrap();
}

/// A small life: two batches in `life`, one in `self`, appraisals, a supersession.
fn life(s: &Stack) -> (Vec<String>, i64) {
    let sys = &s.system;
    let first = sys
        .remember_many(&RememberMany::new(
            vec![
                MemoryRecordInput::new(RecordKind::Episode, "Garden", "We planted beans."),
                MemoryRecordInput::new(RecordKind::Interest, "Beans", "How beans climb."),
            ],
            "life",
            "e1",
            "b1",
        ))
        .unwrap()
        .value;
    appraise(
        s,
        &first[0],
        1,
        9.0,
        "the first harvest",
        "2026-03-01T13:00:00Z",
    );
    appraise(
        s,
        "person:ada",
        -1,
        2.0,
        "late again",
        "2026-03-01T14:00:00Z",
    );
    let anchor = s.journal.current_seq().unwrap();
    let second = sys
        .remember_many(&RememberMany::new(
            vec![
                MemoryRecordInput::new(RecordKind::Episode, "Rain", "The rain came."),
                MemoryRecordInput::new(RecordKind::Lesson, "Stakes", "Beans need stakes.")
                    .with_attribute("explores", first[1].clone()),
            ],
            "life",
            "e1",
            "b2",
        ))
        .unwrap()
        .value;
    appraise(s, &second[0], -1, 8.0, "the flood", "2026-03-02T10:00:00Z");
    sys.close_record(&CloseRecord::retract(&first[0], "newer").replaced_by(&[second[0].clone()]))
        .unwrap();
    let mut ids = first;
    ids.extend(second);
    (ids, anchor)
}

fn pairs() -> Vec<(String, String)> {
    vec![("life".into(), "e1".into()), ("self".into(), "e1".into())]
}

fn sections(s: &Stack, as_of: Option<i64>) -> Value {
    let g = CardGather::load(s.store.as_ref(), s.journal.as_ref(), &pairs(), as_of).unwrap();
    json!({
        "age_and_context": age_and_context(&g),
        "current_state": current_state(&g, NonZeroUsize::new(200).unwrap()),
        "key_moments": key_moments(&g, s.journal.as_ref(), KEY_MOMENT_MAGNITUDE).unwrap(),
        "discoveries": discoveries(&g),
        "likes_dislikes": likes_dislikes(&g, s.store.as_ref(), &GradationConfig::default(), 5).unwrap(),
    })
}

#[test]
fn every_section_names_its_source_and_both_stacks_answer_alike() {
    let answers = std::cell::RefCell::new(Vec::new());
    on_both(|s| {
        life(s);
        let v = sections(s, None);
        for key in [
            "age_and_context",
            "current_state",
            "key_moments",
            "discoveries",
        ] {
            assert!(
                v[key]["provenance"].as_str().is_some_and(|p| !p.is_empty()),
                "[{}] {key} has a provenance",
                s.name
            );
        }
        answers.borrow_mut().push(v);
    });
    let a = answers.into_inner();
    assert_eq!(a[0], a[1]);
}

#[test]
fn age_and_context_counts_history_by_kind_and_reports_timestamps_only() {
    on_both(|s| {
        life(s);
        let v = sections(s, None)["age_and_context"].clone();
        assert_eq!(v["journal_seq"], s.journal.current_seq().unwrap());
        assert_eq!(v["records_total"], 4, "a closure does not shrink the past");
        assert_eq!(v["record_counts"]["life"]["episode"], 2);
        assert_eq!(v["record_counts"]["life"]["interest"], 1);
        assert_eq!(v["first_observed_at"], common::PINNED_NOW);
        assert_eq!(v["last_observed_at"], "2026-03-02T10:00:00.000000+00:00");
    });
}

#[test]
fn current_state_is_a_trailing_window_over_appraisals() {
    on_both(|s| {
        life(s);
        let g = CardGather::load(s.store.as_ref(), s.journal.as_ref(), &pairs(), None).unwrap();
        let all = current_state(&g, NonZeroUsize::new(200).unwrap());
        assert_eq!(all.event_count, 3);
        assert_eq!((all.positive, all.negative, all.net), (9.0, 10.0, -1.0));
        assert_eq!(all.top_reasons[0], "+9 the first harvest");
        let last = current_state(&g, NonZeroUsize::MIN);
        assert_eq!(last.event_count, 1, "[{}]", s.name);
        assert_eq!(last.negative, 8.0, "only the newest appraisal is current");
    });
}

#[test]
fn key_moments_are_strong_feelings_and_firsts_in_time_order() {
    on_both(|s| {
        let (ids, _) = life(s);
        let v = sections(s, None)["key_moments"].clone();
        let kinds: Vec<String> = v["moments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                format!(
                    "{}:{}",
                    m["type"].as_str().unwrap(),
                    m["what"].as_str().unwrap_or("")
                )
            })
            .collect();
        assert_eq!(
            kinds,
            ["first:first_interest", "valence:", "valence:"],
            "[{}] {v}",
            s.name
        );
        assert_eq!(v["moments"][0]["record_id"], ids[1].as_str());
        assert_eq!(v["total"], 3);
        let stamps: Vec<&str> = v["moments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["observed_at"].as_str().unwrap())
            .collect();
        let mut sorted = stamps.clone();
        sorted.sort_unstable();
        assert_eq!(stamps, sorted);
    });
}

#[test]
fn discoveries_read_standing_interests_and_mark_the_explored() {
    on_both(|s| {
        let (ids, anchor) = life(s);
        let v = sections(s, None)["discoveries"].clone();
        assert_eq!(v["interests"][0]["record_id"], ids[1].as_str());
        assert_eq!(v["interests"][0]["explored"], true, "[{}]", s.name);
        assert_eq!(v["interests_open"], 0);
        assert_eq!(v["unresolved_dreams"], 0);
        let before = sections(s, Some(anchor))["discoveries"].clone();
        assert_eq!(
            before["interests"][0]["explored"], false,
            "at the anchor the exploring lesson did not exist yet"
        );
    });
}

#[test]
fn as_of_anchors_journal_signals_and_record_existence() {
    on_both(|s| {
        let (_, anchor) = life(s);
        let v = sections(s, Some(anchor));
        assert_eq!(v["age_and_context"]["journal_seq"], anchor);
        assert_eq!(
            v["age_and_context"]["records_total"], 2,
            "[{}] records formed after the anchor did not exist",
            s.name
        );
        assert_eq!(v["current_state"]["event_count"], 2);
        assert_eq!(v["key_moments"]["total"], 2, "the flood came later");
        let err = CardGather::load(
            s.store.as_ref(),
            s.journal.as_ref(),
            &pairs(),
            Some(s.journal.current_seq().unwrap() + 1),
        )
        .err()
        .expect("an anchor beyond the axis is refused");
        assert_eq!(err.kind(), am_triples::ErrorKind::InvalidInput);
    });
}

#[test]
fn composing_the_sections_writes_nothing() {
    on_both(|s| {
        life(s);
        let before = written(s);
        let _ = sections(s, None);
        assert_eq!(written(s), before, "[{}]", s.name);
    });
}

#[test]
fn likes_and_dislikes_report_the_two_channels_apart_with_record_titles() {
    on_both(|s| {
        let (ids, anchor) = life(s);
        let v = sections(s, None)["likes_dislikes"].clone();
        assert_eq!(v["likes"][0]["target"], ids[0].as_str(), "[{}] {v}", s.name);
        assert_eq!(
            v["likes"][0]["title"], "Garden",
            "a record-backed target is titled"
        );
        assert_eq!(v["dislikes"][0]["target"], ids[2].as_str());
        assert_eq!(v["dislikes"][1]["target"], "person:ada");
        assert!(
            v["dislikes"][1].get("title").is_none(),
            "a free target has no title"
        );
        assert_eq!(v["targets_total"], 3);
        let g = CardGather::load(s.store.as_ref(), s.journal.as_ref(), &pairs(), None).unwrap();
        let one = likes_dislikes(&g, s.store.as_ref(), &GradationConfig::default(), 1).unwrap();
        assert_eq!((one.likes.len(), one.dislikes.len()), (1, 1));
        let before = sections(s, Some(anchor))["likes_dislikes"].clone();
        assert_eq!(
            before["targets_total"], 2,
            "the flood had not happened at the anchor"
        );
    });
}
