//! The drive index (am-system `drives/index.rs`): a system's own drive reads
//! go through an index kept fresh from the store's change feed and the
//! journal's tail, and must answer, after every kind of write, what a whole
//! read answers: `drive_pressure`, `open_drive_partition` and
//! `cognition_health` against the free functions (a whole read of the
//! ladder), `alive_drives` against a system opened afresh over the same
//! store and journal (its index read from nothing).

use crate::common::{Stack, on_both};
use am_journal::{Lifecycle, SearchState, UnderstandingVersion};
use am_system::drives::{
    AliveDrives, DriveScopes, cognition_health, drive_pressure, open_drive_partition,
};
use am_system::{
    Bind, CloseRecord, MemoryRecordInput, MemorySystem, RecordKind, Reinforce, RememberMany,
    Retitle,
};
use am_triples::CommitPoint;
use am_triples::rewrite::DigestRewrite;
use serde_json::json;

const OWNER: &str = "entity:castor";

fn ladder() -> Vec<(String, String)> {
    ["diary", "life"]
        .map(|s| (s.to_owned(), OWNER.to_owned()))
        .to_vec()
}

fn form(s: &Stack, scope: &str, key: &str, rs: Vec<MemoryRecordInput>) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(rs, scope, OWNER, key))
        .unwrap()
        .value
}

fn entry(diary_type: &str, title: &str, text: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Diary, title, text)
        .with_attribute("diary_type", diary_type)
        .with_provenance("source", "owner-direct")
}

/// The system's reads (through its index, kept fresh since the first
/// call) against the whole reads; returns the alive drives' JSON.
fn check(s: &Stack, step: &str) -> serde_json::Value {
    let args = DriveScopes { scopes: ladder() };
    let (store, journal) = (s.store.as_ref(), s.journal.as_ref());
    let label = format!("[{}] after {step}", s.name);
    assert_eq!(
        s.system.drive_pressure(&args).unwrap(),
        drive_pressure(store, journal, &args).unwrap(),
        "{label}: drive_pressure"
    );
    assert_eq!(
        s.system.open_drive_partition(&args).unwrap(),
        open_drive_partition(store, journal, &args).unwrap(),
        "{label}: open_drive_partition"
    );
    assert_eq!(
        s.system.cognition_health(&args).unwrap(),
        cognition_health(store, journal, &args).unwrap(),
        "{label}: cognition_health"
    );
    let alive = AliveDrives {
        scopes: ladder(),
        k: 50,
    };
    let kept = s.system.alive_drives(&alive).unwrap();
    let fresh = MemorySystem::new(s.store.clone(), s.journal.clone())
        .alive_drives(&alive)
        .unwrap();
    assert_eq!(kept, fresh, "{label}: alive_drives");
    serde_json::to_value(kept).unwrap()
}

#[test]
fn the_drive_index_kept_fresh_answers_as_a_whole_read_after_every_kind_of_write() {
    on_both(|s| {
        check(s, "nothing");
        let qs = form(
            s,
            "diary",
            "q",
            vec![
                entry(
                    "question",
                    "Tides",
                    "Why do tides lag the moon over the harbour?",
                ),
                entry(
                    "question",
                    "Tides again",
                    "Why do tides lag the moon at the pier?",
                ),
                entry("problem", "Leak", "The kiln door leaks heat at cone six."),
                entry("commitment", "Call", "I will call the ferry office."),
                entry("idea", "Sundial", "A sundial on the harbour wall."),
                MemoryRecordInput::new(RecordKind::Interest, "Ferns", "How ferns unroll."),
                MemoryRecordInput::new(RecordKind::Interest, "Moss", "How moss holds water."),
                MemoryRecordInput::new(RecordKind::Interest, "Lichen", "How lichen splits rock."),
            ],
        );
        check(s, "drives formed");
        let life: Vec<MemoryRecordInput> = (0..40)
            .map(|i| {
                MemoryRecordInput::new(
                    RecordKind::Episode,
                    &format!("Walk {i}"),
                    &format!("Walked the quay, day {i}."),
                )
            })
            .collect();
        let lived = form(s, "life", "walks", life);
        check(s, "lived records formed after them");

        let mut answer = entry("note", "Answer", "The ocean basin delays the bulge.");
        answer.attributes.insert("answers".into(), json!(qs[0]));
        let mut explorer =
            MemoryRecordInput::new(RecordKind::Lesson, "Fern study", "Ferns unroll by growth.");
        explorer.attributes.insert("explores".into(), json!(qs[5]));
        form(s, "diary", "answer", vec![answer]);
        form(s, "life", "explore", vec![explorer]);
        check(s, "an answer and an exploration");

        s.system
            .close_record(&CloseRecord::retract(&qs[2], "not a problem after all"))
            .unwrap();
        check(s, "a retraction");

        s.system
            .bind(&Bind::new(&qs[6], "diary", OWNER, SearchState::Hidden))
            .unwrap();
        s.system
            .bind(&Bind {
                lifecycle: Lifecycle::Rejected,
                ..Bind::new(&qs[4], "diary", OWNER, SearchState::Indexed)
            })
            .unwrap();
        check(s, "a hidden interest and a rejected idea");

        for id in [&qs[1], &qs[3], &lived[0]] {
            s.system
                .reinforce(&Reinforce::new(id, "keeps coming back", "diary", OWNER))
                .unwrap();
        }
        check(s, "reinforcements");

        let operator = am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada");
        let done = s
            .system
            .retitle(&Retitle::new(
                &qs[7],
                "Lichen by an hour of frost",
                operator.clone(),
                json!("operator"),
                0,
            ))
            .unwrap();
        assert!(done.outcome.applied(), "[{}] {done:?}", s.name);
        let rewritten = check(s, "a title rewritten in place");
        assert!(
            rewritten.to_string().contains("by an hour"),
            "[{}] the rewritten title is read: {rewritten}",
            s.name
        );

        // A host's rewrite in place that gives a lived record a mark it did
        // not have (it now explores the second interest): the change feed
        // never hands it on, the journal's version names it.
        let row = s
            .system
            .resolve_digest_assertion(&lived[3])
            .unwrap()
            .unwrap();
        let id = row.assertion_id.clone().unwrap();
        let mut attributes = row.attributes.clone();
        attributes.insert("explores".into(), json!(qs[6]));
        s.system
            .bind(&Bind::new(&qs[6], "diary", OWNER, SearchState::Indexed))
            .unwrap();
        let before = s.system.drive_pressure(&DriveScopes { scopes: ladder() });
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
        check(s, "attributes rewritten in place");
        let after = s
            .system
            .drive_pressure(&DriveScopes { scopes: ladder() })
            .unwrap();
        assert_eq!(
            after.unexplored_interests + 1,
            before.unwrap().unexplored_interests,
            "[{}] the rewrite's exploration is read",
            s.name
        );
    });
}
