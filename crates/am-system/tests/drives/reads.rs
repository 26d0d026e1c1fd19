//! The drive reads on both stacks, one test per contract sentence that can
//! fail: folds (a retracted question is not pressure), refusals that write
//! nothing, the digest cut, standing dreams as drives, purity, and the
//! grouping's order independence.

use crate::common::{Stack, assert_refused, on_both, written};
use am_system::drives::{
    AliveDrives, DriveGroups, DriveItem, DriveScopes, cognition_health, drive_groups,
    drive_pressure, open_drive_partition,
};
use am_system::{CloseRecord, MemoryRecordInput, RecordKind, RememberMany};
use am_triples::ErrorKind;
use serde_json::json;

const SCOPE: &str = "diary";
const OWNER: &str = "entity:castor";

fn ladder() -> Vec<(String, String)> {
    vec![(SCOPE.to_owned(), OWNER.to_owned())]
}

fn form(s: &Stack, key: &str, r: MemoryRecordInput) -> String {
    s.system
        .remember_many(&RememberMany::new(vec![r], SCOPE, OWNER, key))
        .unwrap()
        .value
        .remove(0)
}

fn entry(diary_type: &str, title: &str, text: &str) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(RecordKind::Diary, title, text);
    r.attributes.insert("diary_type".into(), json!(diary_type));
    r.provenance.insert("source".into(), json!("owner-direct"));
    r
}

fn pressure(s: &Stack) -> am_system::drives::DrivePressure {
    drive_pressure(
        s.store.as_ref(),
        s.journal.as_ref(),
        &DriveScopes { scopes: ladder() },
    )
    .unwrap()
}

#[test]
fn a_retracted_question_is_not_pressure() {
    on_both(|s| {
        let q = form(
            s,
            "q1",
            entry("question", "Tides", "Why do tides lag the moon?"),
        );
        form(
            s,
            "q2",
            entry("question", "Ferry", "When does the ferry leave?"),
        );
        assert_eq!(pressure(s).open_questions, 2, "[{}]", s.name);
        s.system
            .close_record(&CloseRecord::retract(&q, "asked by mistake"))
            .unwrap();
        let p = pressure(s);
        assert_eq!((p.open_questions, p.total_open), (1, 1), "[{}]", s.name);
    });
}

#[test]
fn an_answered_question_leaves_pressure_and_moves_the_health_ratio() {
    on_both(|s| {
        let q = form(
            s,
            "q1",
            entry("question", "Tides", "Why do tides lag the moon?"),
        );
        let h = cognition_health(
            s.store.as_ref(),
            s.journal.as_ref(),
            &DriveScopes { scopes: ladder() },
        )
        .unwrap();
        assert_eq!(
            (h.questions.open, h.questions.ratio),
            (1, Some(0.0)),
            "[{}]",
            s.name
        );
        let mut a = entry("note", "Answer", "The moon's pull is delayed by the ocean.");
        a.attributes.insert("answers".into(), json!(q));
        form(s, "a1", a);
        assert_eq!(pressure(s).open_questions, 0, "[{}]", s.name);
        let h = cognition_health(
            s.store.as_ref(),
            s.journal.as_ref(),
            &DriveScopes { scopes: ladder() },
        )
        .unwrap();
        assert_eq!(
            (h.questions.resolved, h.questions.ratio),
            (1, Some(1.0)),
            "[{}]",
            s.name
        );
    });
}

#[test]
fn an_empty_category_has_no_ratio() {
    on_both(|s| {
        let h = cognition_health(
            s.store.as_ref(),
            s.journal.as_ref(),
            &DriveScopes { scopes: ladder() },
        )
        .unwrap();
        assert_eq!(h.questions.ratio, None);
        assert_eq!(h.problems.ratio, None);
        assert_eq!(h.interests.ratio, None);
    });
}

#[test]
fn a_ladder_without_a_pair_is_refused_and_writes_nothing() {
    on_both(|s| {
        form(
            s,
            "q1",
            entry("question", "Tides", "Why do tides lag the moon?"),
        );
        let before = written(s);
        let blank = vec![(" ".to_owned(), OWNER.to_owned())];
        let args = DriveScopes {
            scopes: blank.clone(),
        };
        assert_refused(
            s,
            &before,
            drive_pressure(s.store.as_ref(), s.journal.as_ref(), &args),
            ErrorKind::InvalidInput,
            &["drive_pressure", "pair"],
        );
        assert_refused(
            s,
            &before,
            cognition_health(s.store.as_ref(), s.journal.as_ref(), &args),
            ErrorKind::InvalidInput,
            &["cognition_health", "pair"],
        );
        assert_refused(
            s,
            &before,
            s.system.alive_drives(&AliveDrives {
                scopes: blank,
                k: 5,
            }),
            ErrorKind::InvalidInput,
            &["alive_drives", "pair"],
        );
        // 0.3.2's partition answers empty families for an empty ladder.
        let p = open_drive_partition(s.store.as_ref(), s.journal.as_ref(), &args).unwrap();
        assert!(p.question.is_empty() && p.problem.is_empty() && p.interest.is_empty());
    });
}

#[test]
fn alive_drives_cut_a_long_digest_and_say_so_only_then() {
    on_both(|s| {
        let long = "a".repeat(300);
        form(s, "long", entry("question", "Long", &long));
        form(s, "short", entry("question", "Short", "Why?"));
        let items = s
            .system
            .alive_drives(&AliveDrives::new(&[(SCOPE, OWNER)]))
            .unwrap();
        assert_eq!(items.len(), 2, "[{}]", s.name);
        for it in &items {
            let v = serde_json::to_value(it).unwrap();
            if it.title.as_deref() == Some("Long") {
                assert_eq!(it.digest.chars().count(), 280);
                assert!(it.digest.ends_with('…'));
                assert_eq!(
                    v["digest_truncation"],
                    json!({"mark": "#TRUNCATION", "kept": 279, "of": 300, "unit": "chars"})
                );
            } else {
                assert_eq!(it.digest, "Why?");
                assert!(v.get("digest_truncation").is_none(), "[{}] {v}", s.name);
            }
        }
    });
}

#[test]
fn unresolved_dreams_count_as_drives() {
    on_both(|s| {
        let mut d = MemoryRecordInput::new(RecordKind::Dream, "Rivers", "The night of rivers.");
        d.attributes
            .insert("continuation_state".into(), json!("unresolved"));
        form(s, "dream", d);
        assert_eq!(pressure(s).unresolved_tensions, 1, "[{}]", s.name);
        let items = s
            .system
            .alive_drives(&AliveDrives::new(&[(SCOPE, OWNER)]))
            .unwrap();
        assert_eq!(items.len(), 1, "[{}]", s.name);
        assert_eq!(items[0].drive, "unresolved tension");
        assert_eq!(items[0].alive_via, "recency");
    });
}

#[test]
fn the_drive_reads_write_nothing() {
    on_both(|s| {
        form(
            s,
            "q1",
            entry("question", "Kiln", "Why does the kiln glaze crawl?"),
        );
        let before = written(s);
        let scopes = DriveScopes { scopes: ladder() };
        drive_pressure(s.store.as_ref(), s.journal.as_ref(), &scopes).unwrap();
        cognition_health(s.store.as_ref(), s.journal.as_ref(), &scopes).unwrap();
        open_drive_partition(s.store.as_ref(), s.journal.as_ref(), &scopes).unwrap();
        s.system
            .alive_drives(&AliveDrives::new(&[(SCOPE, OWNER)]))
            .unwrap();
        assert_eq!(written(s), before, "[{}]", s.name);
    });
}

#[test]
fn a_group_of_drives_surfaces_as_one_item_boosted_by_its_size() {
    on_both(|s| {
        for (i, text) in [
            "Why does the kiln glaze crawl at cone six?",
            "Does slow kiln cooling stop the glaze crawling?",
            "Is the glaze crawling from kiln dust?",
        ]
        .iter()
        .enumerate()
        {
            form(
                s,
                &format!("k{i}"),
                entry("question", "Diary entry (question)", text),
            );
        }
        // Two unrelated questions, so the kiln words are no corpus-wide
        // template (a term on 90% of the texts and no title would be).
        form(
            s,
            "f",
            entry(
                "question",
                "Diary entry (question)",
                "Which flower grows by the gate?",
            ),
        );
        form(
            s,
            "t",
            entry(
                "question",
                "Diary entry (question)",
                "When is the tide highest?",
            ),
        );
        let items = s
            .system
            .alive_drives(&AliveDrives::new(&[(SCOPE, OWNER)]))
            .unwrap();
        assert_eq!(items.len(), 3, "[{}] {items:?}", s.name);
        let group: Vec<_> = items.iter().filter(|i| i.group_size.is_some()).collect();
        assert_eq!(group.len(), 1, "[{}] {items:?}", s.name);
        assert_eq!(group[0].group_size, Some(3));
        assert_eq!(group[0].group_alive_members.as_ref().map(Vec::len), Some(3));
        // The newest member carries (recency 1/(1 + 2/20)) plus two steps
        // of 0.15, and outranks the fresher singletons.
        let carrier = 1.0 / (1.0 + 2.0 / 20.0);
        assert!(
            (group[0].aliveness - (carrier + 0.3)).abs() < 1e-4,
            "{}",
            group[0].aliveness
        );
        assert_eq!(items[0].group_size, Some(3));
    });
}

fn item(id: &str, text: &str, at: &str) -> DriveItem {
    DriveItem {
        record_id: id.into(),
        title: Some(String::new()),
        text: Some(text.into()),
        digest: None,
        observed_at: Some(at.into()),
    }
}

#[test]
fn drive_groups_are_order_independent() {
    let items = vec![
        item("a", "kiln glaze crawling", "2026-01-03"),
        item("b", "glaze crawling kiln shelves", "2026-01-01"),
        item("c", "harbour ferry winter", "2026-01-02"),
        item("d", "winter harbour ferry times", "2026-01-04"),
        item("e", "a lonely flower", "2026-01-05"),
    ];
    let groups = drive_groups(&DriveGroups::new(items.clone()));
    assert_eq!(groups.len(), 2);
    let mut reversed = items.clone();
    reversed.reverse();
    let again = drive_groups(&DriveGroups::new(reversed));
    let key = |gs: &[am_system::drives::DriveGroup]| {
        let mut k: Vec<(Vec<String>, String, Vec<String>)> = gs
            .iter()
            .map(|g| {
                let mut m = g.members.clone();
                m.sort();
                (m, g.exemplar.clone(), g.shared_terms.clone())
            })
            .collect();
        k.sort();
        k
    };
    assert_eq!(key(&groups), key(&again));
    // The exemplar is the oldest member.
    assert!(groups.iter().any(|g| g.exemplar == "b"));
    assert!(groups.iter().any(|g| g.exemplar == "c"));
}
