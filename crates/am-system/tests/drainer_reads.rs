//! The drainer's reads on both stacks (the in-memory pair with its queue,
//! the SQLite home with its `memq_*` tables): `understanding_debt` (a pure
//! read of what is still mechanical or pending, and the queue beside it),
//! `enqueue_debt` (the backfill: one task per debt record that has none,
//! strength from lived use, dry-run by default) and `task_packet`
//! (everything a reader needs for one task, whole items only). Identical
//! answers on both stacks; every pure read and every dry run writes nothing.
//!
//! Spec: api.md "The memory task queue" ("On `MemorySystem`").

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, InMemoryTaskQueue, MemoryJournal, PairHome, TaskKind};
use am_system::CloseRecord;
use am_system::RecordKind;
use am_system::tasks::{EnqueueDebt, ListTasks, TaskPacket, UnderstandingDebt};
use am_system::{CommitSelection, MemoryRecordInput, MemorySystem, RememberMany, SystemOptions};
use am_triples::{ErrorKind, InMemoryTripleStore, TripleQuery, TripleStore};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

const NOW: &str = "2026-03-01T12:00:00.000000+00:00";

struct Stack {
    name: &'static str,
    system: MemorySystem,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    path: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

fn options() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(am_triples::fixed_clock(
            am_triples::Timestamp::parse(NOW).unwrap(),
        )),
        ..SystemOptions::default()
    }
}

fn memory() -> Stack {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let home = Arc::new(PairHome::with_task_queue(
        store.clone(),
        journal.clone(),
        Arc::new(InMemoryTaskQueue::new()),
    ));
    Stack {
        name: "memory",
        system: MemorySystem::over_home_with_options(home, options()).unwrap(),
        store,
        journal,
        path: None,
        _dir: tempfile::tempdir().unwrap(),
    }
}

fn sqlite() -> Stack {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
    let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
    Stack {
        name: "sqlite",
        system: MemorySystem::over_home_with_options(mh, options()).unwrap(),
        store,
        journal,
        path: Some(path),
        _dir: dir,
    }
}

fn both(check: impl Fn(&Stack) -> Value) -> Value {
    let a = check(&memory());
    let b = check(&sqlite());
    assert_eq!(a, b, "the two stacks answered differently");
    a
}

fn form(s: &Stack, records: Vec<MemoryRecordInput>, key: &str) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, "session", "s1", key))
        .unwrap()
        .into_value()
}

fn scopes() -> Vec<(String, String)> {
    vec![("session".into(), "s1".into())]
}

fn untitled(kind: RecordKind, digest: &str) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(kind, "", digest).with_pending(&["title"]);
    r.title = None;
    r
}

fn mechanical(title: &str, digest: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Lesson, title, digest)
        .with_attribute("digest_method", "mechanical-v1")
}

/// Rows, journal seq, tasks and their logs, and on SQLite the file and WAL
/// bytes.
type State = (String, i64, String, Option<(Vec<u8>, Vec<u8>)>);

/// The home's [`State`].
fn state(s: &Stack) -> State {
    let rows = s
        .store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    let q = s.system.tasks().unwrap();
    let all = q.tasks(&ListTasks::default()).unwrap();
    let logs: Vec<_> = all.iter().map(|t| q.log(&t.task_id).unwrap()).collect();
    (
        format!("{rows:?}"),
        s.journal.current_seq().unwrap(),
        format!("{all:?}{logs:?}"),
        s.path.as_ref().map(|p| {
            let wal = PathBuf::from(format!("{}-wal", p.display()));
            (
                std::fs::read(p).unwrap(),
                std::fs::read(wal).unwrap_or_default(),
            )
        }),
    )
}

#[test]
fn understanding_debt_counts_what_is_still_mechanical_or_pending_and_the_queue_beside_it() {
    both(|s| {
        let ids = form(
            s,
            vec![
                untitled(RecordKind::Episode, "The pool ran dry."),
                mechanical("Pools", "pools: exhaust, load"),
                MemoryRecordInput::new(RecordKind::Episode, "Plain", "Authored words."),
                MemoryRecordInput::new(RecordKind::Lesson, "Floor", "floor words")
                    .with_attribute("digest_method", "my-floor-v1"),
            ],
            "k1",
        );
        let before = state(s);
        let d = s
            .system
            .understanding_debt(&UnderstandingDebt {
                scopes: scopes(),
                methods: None,
            })
            .unwrap();
        assert_eq!(state(s), before, "[{}] a pure read wrote", s.name);
        let j = serde_json::to_value(&d).unwrap();
        assert_eq!(
            j["debt"],
            json!({"title.author": {"episode": 1}, "digest.rewrite": {"lesson": 1}}),
            "[{}] {j}",
            s.name
        );
        assert_eq!((d.total, d.unqueued), (2, 0));
        assert_eq!(j["by_capability"], json!({"summaries": 2}));
        assert_eq!(
            j["queue"],
            json!({"title.author": {"pending": 1}, "digest.rewrite": {"pending": 1}})
        );
        assert!(d.oldest_pending.is_some());
        // `methods` widens the labels counted as debt.
        let wide = s
            .system
            .understanding_debt(&UnderstandingDebt {
                scopes: scopes(),
                methods: Some(vec!["my-floor-v1".into()]),
            })
            .unwrap();
        assert_eq!((wide.total, wide.unqueued), (3, 1));
        assert!(wide.methods.contains(&"my-floor-v1".to_owned()));
        // A closed record owes nothing.
        s.system
            .close_record(&CloseRecord::retract(&ids[1], "wrong"))
            .unwrap();
        let after = s
            .system
            .understanding_debt(&UnderstandingDebt {
                scopes: scopes(),
                methods: None,
            })
            .unwrap();
        assert_eq!(after.total, 1);
        json!([j, serde_json::to_value(&wide).unwrap()])
    });
}

#[test]
fn enqueue_debt_is_a_dry_run_by_default_and_queues_one_task_per_debt_record_without_one() {
    both(|s| {
        let ids = form(
            s,
            vec![
                MemoryRecordInput::new(RecordKind::Lesson, "A", "a words")
                    .with_attribute("digest_method", "legacy-v0"),
                MemoryRecordInput::new(RecordKind::Lesson, "B", "b words")
                    .with_attribute("digest_method", "legacy-v0"),
                MemoryRecordInput::new(RecordKind::Lesson, "C", "c words")
                    .with_attribute("digest_method", "legacy-v0"),
            ],
            "k1",
        );
        // Lived use: A selected three times, B once, C never.
        for (i, times) in [(0usize, 3), (1, 1)] {
            for t in 0..times {
                s.system
                    .commit_selection(&CommitSelection::new(&format!("t{i}-{t}"), &[&ids[i]]))
                    .unwrap();
            }
        }
        let methods = Some(vec!["legacy-v0".to_owned()]);
        let before = state(s);
        let dry = s
            .system
            .enqueue_debt(&EnqueueDebt {
                methods: methods.clone(),
                ..EnqueueDebt::new(scopes())
            })
            .unwrap();
        assert_eq!(state(s), before, "[{}] a dry run wrote", s.name);
        assert!(dry.dry_run);
        assert_eq!((dry.enqueued, dry.tasks.len(), dry.n_max), (0, 3, 3));
        // Strongest first: 0.1 + 0.9 · ln(1 + n) / ln(1 + n_max).
        let strengths: Vec<(String, f64)> = dry
            .tasks
            .iter()
            .map(|t| (t.target_id.clone(), t.strength))
            .collect();
        let want = |n: f64| 0.1 + 0.9 * (1.0 + n).ln() / 4f64.ln();
        assert_eq!(strengths[0], (ids[0].clone(), 1.0));
        assert_eq!(strengths[1].0, ids[1]);
        assert!((strengths[1].1 - want(1.0)).abs() < 1e-12);
        assert_eq!(strengths[2], (ids[2].clone(), 0.1));
        assert!(dry.tasks.iter().all(|t| t.kind == TaskKind::DigestRewrite));
        let wet = s
            .system
            .enqueue_debt(&EnqueueDebt {
                dry_run: false,
                methods: methods.clone(),
                ..EnqueueDebt::new(scopes())
            })
            .unwrap();
        assert_eq!(wet.enqueued, 3, "[{}]", s.name);
        let queued = s
            .system
            .tasks()
            .unwrap()
            .tasks(&ListTasks::default())
            .unwrap();
        assert_eq!(queued.len(), 3);
        assert!(queued.iter().all(|t| t.priority == 90));
        // Every debt record has its task now: nothing more to queue.
        let again = s
            .system
            .enqueue_debt(&EnqueueDebt {
                dry_run: false,
                methods,
                ..EnqueueDebt::new(scopes())
            })
            .unwrap();
        assert_eq!((again.enqueued, again.already_queued), (0, 3));
        json!([dry, wet, again])
    });
}

#[test]
fn the_debt_reads_need_scopes_and_a_cause_of_rewrite_causes() {
    for s in [memory(), sqlite()] {
        let e = s
            .system
            .understanding_debt(&UnderstandingDebt {
                scopes: vec![],
                methods: None,
            })
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        let e = s
            .system
            .enqueue_debt(&EnqueueDebt {
                cause: "whim".into(),
                ..EnqueueDebt::new(scopes())
            })
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
    }
}

#[test]
fn task_packet_carries_the_target_its_expected_version_and_whole_sources_newest_first() {
    both(|s| {
        let sources = form(
            s,
            vec![
                MemoryRecordInput::new(
                    RecordKind::Episode,
                    "Monday",
                    "The pool ran dry on Monday.",
                ),
                MemoryRecordInput::new(
                    RecordKind::Episode,
                    "Tuesday",
                    "The pool ran dry again on Tuesday.",
                ),
            ],
            "k1",
        );
        let mut summary =
            MemoryRecordInput::new(RecordKind::Summary, "Week", "The week of the dry pool.")
                .with_pending(&["title"])
                .with_edge("summarizes", &sources[0])
                .with_edge("summarizes", &sources[1]);
        summary.title = None;
        let ids = form(s, vec![summary], "k2");
        let q = s.system.tasks().unwrap();
        let task = q
            .tasks(&ListTasks {
                target_id: Some(ids[0].clone()),
                ..ListTasks::default()
            })
            .unwrap()
            .remove(0);
        let before = state(s);
        let p = s
            .system
            .task_packet(&TaskPacket::new(&task.task_id))
            .unwrap();
        assert_eq!(state(s), before, "[{}] a packet read wrote", s.name);
        assert_eq!(p["target_state"], "live", "[{}] {p}", s.name);
        assert_eq!(p["target"]["record_id"], json!(ids[0]));
        assert_eq!(p["target"]["title"], Value::Null);
        assert_eq!(p["expected_version"], json!(0));
        let got: Vec<&Value> = p["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| &i["record_id"])
            .collect();
        assert_eq!(got.len(), 2);
        assert_eq!(p["left_out"], json!([]));
        // A budget too small for a source leaves it out whole.
        let target_tokens = p["tokens"].as_u64().unwrap()
            - p["sources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["tokens"].as_u64().unwrap())
                .sum::<u64>();
        let tight = s
            .system
            .task_packet(&TaskPacket {
                token_budget: usize::try_from(target_tokens).unwrap(),
                ..TaskPacket::new(&task.task_id)
            })
            .unwrap();
        assert_eq!(tight["sources"], json!([]));
        assert_eq!(tight["left_out"].as_array().unwrap().len(), 2);
        // A closed target says so.
        s.system
            .close_record(&CloseRecord::retract(&ids[0], "wrong"))
            .unwrap();
        let closed = s
            .system
            .task_packet(&TaskPacket::new(&task.task_id))
            .unwrap();
        assert_eq!(closed["target_state"], "closed");
        // An unknown task is not found.
        let e = s.system.task_packet(&TaskPacket::new("nope")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        json!([p, tight["left_out"]])
    });
}
