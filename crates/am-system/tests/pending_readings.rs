//! Pending readings on both stacks (the in-memory pair with its queue, and
//! the SQLite home): a record whose title is still being written reads
//! `None` wherever a read serves a title (handles, the commit snapshot's
//! display rows, `recent_records`, the card's briefs), with the pending
//! fields named, never a placeholder or words from its body; a
//! `rewrite_digest` that brings the title settles it with the summary; an
//! `ack` that leaves a field pending with no live task says so.
//!
//! Spec: api.md "Formation (typed records)" ("Reads serve the missing title
//! as `None` (handles, display blocks with `pending`, ..., `recent_records`,
//! card briefs, probe hits), never a placeholder or words from the body"),
//! `retitle` ("`rewrite_digest` does the same for a pending summary"), "The
//! memory task queue" (`ack`).

mod common;

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{
    AuthorKind, AuthorRef, InMemoryJournal, InMemoryTaskQueue, MemoryJournal, PairHome, TaskKind,
};
use am_system::RecordKind;
use am_system::identity::{DEFAULT_SPARK_TEMPLATE, Engram};
use am_system::observe::card::EntityCard;
use am_system::observe::diagnostics::RecentRecords;
use am_system::tasks::{Ack, Claim, ListTasks};
use am_system::{
    CommitSelection, DeclarePending, MemoryRecordInput, MemorySystem, Reconstruct, RememberMany,
    RewriteDigest, Stimulus, SystemOptions,
};
use am_triples::{InMemoryTripleStore, Timestamp, TripleStore};
use serde_json::{Value, json};
use std::sync::Arc;

const EID: &str = "entity:castor";

struct Stack {
    name: &'static str,
    system: MemorySystem,
    _dir: Option<tempfile::TempDir>,
}

fn options() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(common::pinned_clock()),
        ..SystemOptions::default()
    }
}

fn memory() -> Stack {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let home = Arc::new(PairHome::with_task_queue(
        store,
        journal,
        Arc::new(InMemoryTaskQueue::new()),
    ));
    Stack {
        name: "memory",
        system: MemorySystem::over_home_with_options(home, options()).unwrap(),
        _dir: None,
    }
}

fn sqlite() -> Stack {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    Stack {
        name: "sqlite",
        system: MemorySystem::over_home_with_options(mh, options()).unwrap(),
        _dir: Some(dir),
    }
}

/// Run `check` on both stacks and require identical answers.
fn both(check: impl Fn(&Stack) -> Value) -> Value {
    let a = check(&memory());
    let b = check(&sqlite());
    assert_eq!(a, b, "the two stacks answered differently");
    a
}

fn operator() -> AuthorRef {
    AuthorRef::new(AuthorKind::Operator, "ada")
}

fn untitled(kind: RecordKind, digest: &str, pending: &[&str]) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(kind, "", digest).with_pending(pending);
    r.title = None;
    r
}

fn form(s: &Stack, records: Vec<MemoryRecordInput>, scope: &str, key: &str) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, scope, EID, key))
        .unwrap()
        .into_value()
}

fn aid(s: &Stack, id: &str) -> String {
    s.system.resolve_assertion_id(id).unwrap()
}

fn recall(s: &Stack, cue: &str, pairs: &[(&str, &str)]) -> am_system::ReconstructionResult {
    s.system
        .reconstruct(&Reconstruct::new(Stimulus::new(cue), pairs))
        .unwrap()
}

fn handle_title(r: &am_system::ReconstructionResult, record_id: &str) -> Value {
    let h = r
        .handles
        .iter()
        .find(|h| h.record_id == record_id)
        .unwrap_or_else(|| panic!("no handle for {record_id}"));
    h.to_dict()["title"].clone()
}

/// A record pending by formation, one pending by `declare_pending` and a
/// titled sibling, in one scope pair.
fn pending_pair(s: &Stack) -> (String, String, String) {
    let ids = form(
        s,
        vec![
            untitled(
                RecordKind::Lesson,
                "Zeppelins drift over quiet harbours.",
                &["title"],
            ),
            MemoryRecordInput::new(
                RecordKind::Lesson,
                "Zeppelin mooring",
                "Zeppelins moor at tall masts.",
            ),
            MemoryRecordInput::new(
                RecordKind::Lesson,
                "Zeppelin fuel",
                "Zeppelins burn little fuel aloft.",
            ),
        ],
        "life",
        "pending-readings",
    );
    let declared = s
        .system
        .declare_pending(&DeclarePending {
            fields: vec!["title".into()],
            ..DeclarePending::new(&ids[2])
        })
        .unwrap();
    assert_eq!(
        serde_json::to_value(&declared).unwrap()["declared"],
        json!(["title"]),
        "[{}]",
        s.name
    );
    (ids[0].clone(), ids[1].clone(), ids[2].clone())
}

#[test]
fn reads_serve_the_missing_title_as_none_on_handles_pending_by_formation_and_by_declare_pending() {
    both(|s| {
        let (formed, titled, declared) = pending_pair(s);
        let r = recall(s, "zeppelins", &[("life", EID)]);
        assert_eq!(
            handle_title(&r, &aid(s, &formed)),
            Value::Null,
            "[{}]",
            s.name
        );
        assert_eq!(
            handle_title(&r, &aid(s, &declared)),
            Value::Null,
            "[{}]",
            s.name
        );
        assert_eq!(
            handle_title(&r, &aid(s, &titled)),
            json!("Zeppelin mooring")
        );
        // Never words from the body, never the graph id's "s p o" preview.
        for h in &r.handles {
            let t = h.title.clone().unwrap_or_default();
            assert!(!t.contains("dcterms:abstract"), "[{}] {t:?}", s.name);
        }
        json!(r.handles.iter().map(|h| &h.title).collect::<Vec<_>>())
    });
}

#[test]
fn reads_serve_the_missing_title_as_none_on_handles_of_an_engram_without_an_author() {
    both(|s| {
        let born = s
            .system
            .engram(&Engram::new(DEFAULT_SPARK_TEMPLATE(), EID), None)
            .unwrap();
        assert_eq!(born.authoring.failures.len(), 3, "[{}]", s.name);
        let r = recall(s, "purpose honesty", &[("self", EID)]);
        let mut pending = 0;
        for h in &r.handles {
            let row = s
                .system
                .resolve_digest_assertion(&h.record_id)
                .unwrap()
                .unwrap();
            if row.attributes.contains_key("pending") {
                pending += 1;
                assert_eq!(h.to_dict()["title"], Value::Null, "[{}] {h:?}", s.name);
            } else {
                assert!(h.title.is_some(), "[{}] {h:?}", s.name);
            }
        }
        assert_eq!(pending, 3, "[{}] the three unnamed spark items", s.name);
        json!(r.handles.iter().map(|h| &h.title).collect::<Vec<_>>())
    });
}

#[test]
fn a_handle_keeps_the_120_code_point_display_cut_and_a_stored_title_is_never_cut() {
    both(|s| {
        let long = format!("Zeppelin {}", "é".repeat(150));
        let ids = form(
            s,
            vec![MemoryRecordInput::new(
                RecordKind::Lesson,
                &long,
                "Zeppelins need long names.",
            )],
            "life",
            "long-title",
        );
        let r = recall(s, "zeppelins", &[("life", EID)]);
        let shown = handle_title(&r, &aid(s, &ids[0]));
        let shown = shown.as_str().unwrap();
        assert_eq!(shown.chars().count(), 120);
        assert!(shown.ends_with('…'));
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(row.attributes["title"], json!(long), "stored whole");
        let recent = s
            .system
            .recent_records(&RecentRecords::new(
                &[("life", EID)],
                Timestamp::parse("2000-01-01T00:00:00Z").unwrap(),
            ))
            .unwrap();
        assert_eq!(recent.records[0].title.as_deref(), Some(long.as_str()));
        json!(shown)
    });
}

#[test]
fn the_commit_snapshot_display_row_of_a_pending_title_reads_null() {
    both(|s| {
        let (formed, titled, _) = pending_pair(s);
        let r = recall(s, "zeppelins", &[("life", EID)]);
        let used = [aid(s, &formed), aid(s, &titled)];
        let snap = s
            .system
            .commit_selection(&CommitSelection::new(&r.trace_id, &used))
            .unwrap()
            .value;
        let title_of = |id: &str| {
            snap.display
                .iter()
                .find(|d| d["record_id"] == json!(id))
                .map(|d| d["title"].clone())
                .unwrap()
        };
        assert_eq!(title_of(&used[0]), Value::Null, "[{}]", s.name);
        // A titled record keeps 0.3.2's preview.
        assert!(title_of(&used[1]).as_str().is_some());
        json!(snap.display)
    });
}

#[test]
fn recent_records_serve_a_pending_title_as_none_with_the_pending_fields_named() {
    both(|s| {
        let (formed, titled, declared) = pending_pair(s);
        let recent = s
            .system
            .recent_records(&RecentRecords::new(
                &[("life", EID)],
                Timestamp::parse("2000-01-01T00:00:00Z").unwrap(),
            ))
            .unwrap();
        let j = serde_json::to_value(&recent).unwrap();
        for r in j["records"].as_array().unwrap() {
            let g = r["graph_id"].as_str().unwrap();
            if g == formed || g == declared {
                assert_eq!(r["title"], Value::Null, "[{}] {r}", s.name);
                assert_eq!(r["pending"], json!(["title"]), "[{}] {r}", s.name);
            } else {
                assert_eq!(g, titled);
                assert_eq!(r["title"], json!("Zeppelin mooring"));
                assert!(r.get("pending").is_none());
            }
        }
        j["records"].clone()
    });
}

#[test]
fn card_briefs_serve_a_pending_title_as_none_with_the_pending_fields_named() {
    both(|s| {
        s.system
            .engram(&Engram::new(DEFAULT_SPARK_TEMPLATE(), EID), None)
            .unwrap();
        form(
            s,
            vec![
                untitled(RecordKind::Interest, "How do zeppelins turn?", &["title"]),
                untitled(RecordKind::Lesson, "Zeppelins hum in the wind.", &["title"]),
            ],
            "life",
            "card-briefs",
        );
        let card = s
            .system
            .entity_card(&EntityCard::new(&[("self", EID), ("life", EID)], EID))
            .unwrap();
        let j = serde_json::to_value(&card).unwrap();
        let interest = &j["discoveries"]["interests"][0];
        assert_eq!(interest["title"], Value::Null, "[{}] {interest}", s.name);
        assert_eq!(interest["pending"], json!(["title"]));
        let lesson = &j["lessons"]["lessons"][0];
        assert_eq!(lesson["title"], Value::Null, "[{}] {lesson}", s.name);
        assert_eq!(lesson["pending"], json!(["title"]));
        let identity = &j["identity"];
        let items: Vec<&Value> = ["values", "purposes", "traits"]
            .iter()
            .flat_map(|k| identity[*k].as_array().unwrap())
            .collect();
        let pending: Vec<&&Value> = items
            .iter()
            .filter(|i| i.get("pending").is_some())
            .collect();
        assert_eq!(pending.len(), 3, "[{}] {identity}", s.name);
        for i in &pending {
            assert_eq!(i["title"], Value::Null, "[{}] {i}", s.name);
            assert_eq!(i["pending"], json!(["title"]));
        }
        for i in items.iter().filter(|i| i.get("pending").is_none()) {
            assert!(i["title"].as_str().is_some_and(|t| !t.is_empty()), "{i}");
        }
        json!([interest, lesson, identity])
    });
}

/// The card's `likes_dislikes` entry of an appraised record whose title is
/// pending names the pending field, so it is told from a bare target.
#[test]
fn a_liked_record_whose_title_is_pending_is_named_pending_on_the_card() {
    both(|s| {
        let ids = form(
            s,
            vec![untitled(
                RecordKind::Episode,
                "The pears ripened on the old tree.",
                &["title"],
            )],
            "self",
            "liked-pending",
        );
        s.system
            .appraise(&am_system::Appraise::new(
                &ids[0], 1, 2.0, "sweet", "self", EID,
            ))
            .unwrap();
        s.system
            .appraise(&am_system::Appraise::new(
                "tool:spade",
                1,
                1.0,
                "sturdy",
                "self",
                EID,
            ))
            .unwrap();
        let card = s
            .system
            .entity_card(&EntityCard::new(&[("self", EID)], EID))
            .unwrap();
        let j = serde_json::to_value(&card).unwrap();
        let likes = j["likes_dislikes"]["likes"].as_array().unwrap();
        let record = likes
            .iter()
            .find(|l| l["target"] == ids[0].as_str())
            .expect("liked");
        assert_eq!(record.get("title"), None, "[{}] {record}", s.name);
        assert_eq!(record["pending"], json!(["title"]), "[{}] {record}", s.name);
        let bare = likes
            .iter()
            .find(|l| l["target"] == "tool:spade")
            .expect("liked");
        assert_eq!(bare.get("pending"), None, "[{}] {bare}", s.name);
        json!(likes)
    });
}

#[test]
fn rewrite_digest_with_a_title_settles_a_pending_title_and_summary_together() {
    both(|s| {
        let ids = form(
            s,
            vec![untitled(
                RecordKind::Lesson,
                "Zeppelins drift over quiet harbours.",
                &["title", "summary"],
            )],
            "life",
            "both-pending",
        );
        let live = |s: &Stack| {
            s.system
                .tasks()
                .unwrap()
                .tasks(&ListTasks::default())
                .unwrap()
                .into_iter()
                .filter(|t| t.status.is_live())
                .map(|t| t.kind.as_str().to_owned())
                .collect::<Vec<_>>()
        };
        let mut before = live(s);
        before.sort();
        assert_eq!(before, ["digest.author", "title.author"], "[{}]", s.name);
        let w = s
            .system
            .rewrite_digest(&RewriteDigest {
                title: Some("Zeppelin harbours".into()),
                ..RewriteDigest::new(
                    &ids[0],
                    "Zeppelins drift where harbours are quiet.",
                    operator(),
                    json!("repair"),
                    0,
                )
            })
            .unwrap();
        let j = serde_json::to_value(&w).unwrap();
        assert_eq!(
            j["pending_cleared"],
            json!(["summary", "title"]),
            "[{}] {j}",
            s.name
        );
        assert_eq!(j["tasks_completed"].as_array().map(Vec::len), Some(2));
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert!(!row.attributes.contains_key("pending"), "[{}]", s.name);
        assert_eq!(row.attributes["title"], json!("Zeppelin harbours"));
        assert!(
            live(s).is_empty(),
            "[{}] the title.author task stayed live",
            s.name
        );
        json!([j["pending_cleared"], j["title_version"]])
    });
}

#[test]
fn an_ack_that_leaves_a_field_pending_with_no_live_task_says_so_naming_the_field() {
    both(|s| {
        let ids = form(
            s,
            vec![untitled(
                RecordKind::Lesson,
                "Zeppelins drift over quiet harbours.",
                &["title", "summary"],
            )],
            "life",
            "ack-pending",
        );
        let q = s.system.tasks().unwrap();
        let task = q
            .tasks(&ListTasks {
                kind: Some(TaskKind::TitleAuthor),
                ..ListTasks::default()
            })
            .unwrap()
            .remove(0);
        let claimed = q
            .claim(&Claim::new(vec![task.task_id.clone()], "drainer"))
            .unwrap();
        assert_eq!(claimed.claimed.len(), 1, "[{}]", s.name);
        let ack = q
            .ack(&Ack {
                task_id: task.task_id.clone(),
                holder: "drainer".into(),
                result: json!({"outcome": "unchanged"}),
                now: None,
            })
            .unwrap();
        assert!(ack.acked, "[{}]", s.name);
        assert_eq!(ack.warnings.len(), 1, "[{}] {ack:?}", s.name);
        let w = &ack.warnings[0];
        assert!(
            w.contains("title") && w.contains(&ids[0]),
            "[{}] {w}",
            s.name
        );
        assert!(w.contains("rearm_pending"), "{w}");
        // The summary keeps its live `digest.author` task: not named.
        assert!(!w.contains("summary"), "{w}");
        json!(ack.warnings)
    });
}
