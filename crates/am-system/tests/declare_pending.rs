//! `declare_pending` and `rearm_pending` on both stacks (the in-memory pair
//! with its queue, the SQLite home with its `memq_*` tables): a stored
//! record declared pending gets what a record formed pending gets, in one
//! transaction; a pending record whose tasks ran out is re-armed; every
//! refusal and every `unchanged` answer writes nothing (rows, journal seq,
//! tasks, and on SQLite the file and WAL bytes). Identical answers on both
//! stacks.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions"
//! (`declare_pending`, `rearm_pending`, `revert_digest`'s
//! `provisional_summary` / `not_revertible`).

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_embed::OfflineEmbedder;
use am_journal::ClosureKind;
use am_journal::{
    AuthorKind, AuthorRef, InMemoryJournal, InMemoryTaskQueue, MemoryJournal, PairHome, TaskKind,
    TaskStatus,
};
use am_system::RecordKind;
use am_system::tasks::{Enqueue, FORMATION_PRIORITY, ListTasks, Release, ReleaseOutcome, task_id};
use am_system::{CloseRecord, DeclarePending, RearmPending, RevertDigest};
use am_system::{
    MemoryRecordInput, MemorySystem, Outcome, Reason, RememberMany, Retitle, RewriteDigest,
    SystemOptions, UnderstandingResult,
};
use am_triples::{ErrorKind, InMemoryTripleStore, TextEmbedder, TripleQuery, TripleStore};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const NOW: &str = "2026-03-01T12:00:00.000000+00:00";

/// The offline embedder, failing while `fail` is set.
struct Switchable {
    inner: OfflineEmbedder,
    fail: Arc<AtomicBool>,
}

impl TextEmbedder for Switchable {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(am_triples::Error::embedder("the endpoint is unreachable"));
        }
        self.inner.embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        self.inner.model_id()
    }
    fn dimension(&self) -> Option<usize> {
        self.inner.dimension()
    }
}

struct Stack {
    name: &'static str,
    system: MemorySystem,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    path: Option<PathBuf>,
    fail: Arc<AtomicBool>,
    _dir: tempfile::TempDir,
}

fn options(queue: bool) -> SystemOptions {
    SystemOptions {
        task_queue: queue,
        clock: Some(am_triples::fixed_clock(
            am_triples::Timestamp::parse(NOW).unwrap(),
        )),
        ..SystemOptions::default()
    }
}

fn embedder(fail: &Arc<AtomicBool>) -> Arc<dyn TextEmbedder> {
    Arc::new(Switchable {
        inner: OfflineEmbedder::new().unwrap(),
        fail: fail.clone(),
    })
}

fn memory(vectors: bool, queue: bool) -> Stack {
    let fail = Arc::new(AtomicBool::new(false));
    let store: Arc<dyn TripleStore> =
        Arc::new(InMemoryTripleStore::new(vectors.then(|| embedder(&fail))));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let system = if queue {
        let home = Arc::new(PairHome::with_task_queue(
            store.clone(),
            journal.clone(),
            Arc::new(InMemoryTaskQueue::new()),
        ));
        MemorySystem::over_home_with_options(home, options(true)).unwrap()
    } else {
        MemorySystem::with_options(store.clone(), journal.clone(), options(false)).unwrap()
    };
    Stack {
        name: "memory",
        system,
        store,
        journal,
        path: None,
        fail,
        _dir: tempfile::tempdir().unwrap(),
    }
}

fn sqlite(vectors: bool, queue: bool) -> Stack {
    let fail = Arc::new(AtomicBool::new(false));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(
        SqliteMemoryHome::open(
            &home,
            vectors.then(|| embedder(&fail)),
            SqliteStoreOptions::default(),
        )
        .unwrap(),
    );
    let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
    let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
    let system = MemorySystem::over_home_with_options(mh, options(queue)).unwrap();
    Stack {
        name: "sqlite",
        system,
        store,
        journal,
        path: Some(path),
        fail,
        _dir: dir,
    }
}

/// Run `check` on both stacks (with the queue) and require identical answers.
fn both(vectors: bool, check: impl Fn(&Stack) -> Value) -> Value {
    let a = check(&memory(vectors, true));
    let b = check(&sqlite(vectors, true));
    assert_eq!(a, b, "the two stacks answered differently");
    a
}

fn operator() -> AuthorRef {
    AuthorRef::new(AuthorKind::Operator, "ada")
}

fn form(s: &Stack, records: Vec<MemoryRecordInput>) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, "session", "s1", "turn-1"))
        .unwrap()
        .into_value()
}

fn lesson() -> MemoryRecordInput {
    MemoryRecordInput::new(
        RecordKind::Lesson,
        "Pool sizing",
        "Connection pools exhaust under sustained load.",
    )
}

fn untitled(kind: RecordKind, digest: &str) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(kind, "", digest).with_pending(&["title"]);
    r.title = None;
    r
}

fn row(s: &Stack, id: &str) -> am_triples::TripleAssertion {
    s.system.resolve_digest_assertion(id).unwrap().unwrap()
}

fn tasks(s: &Stack) -> Vec<am_journal::TaskRow> {
    s.system
        .tasks()
        .unwrap()
        .tasks(&ListTasks::default())
        .unwrap()
}

fn aid(s: &Stack, id: &str) -> String {
    s.system.resolve_assertion_id(id).unwrap()
}

fn declare(s: &Stack, id: &str, fields: &[&str]) -> UnderstandingResult {
    s.system
        .declare_pending(&DeclarePending {
            fields: fields.iter().map(|f| (*f).to_owned()).collect(),
            ..DeclarePending::new(id)
        })
        .unwrap()
}

fn json_of(r: &UnderstandingResult) -> Value {
    serde_json::to_value(r).unwrap()
}

/// What "nothing written" compares: every row, the journal seq, every task
/// and log row, and on SQLite the file and WAL bytes.
#[derive(Debug, PartialEq)]
struct State {
    rows: String,
    seq: i64,
    tasks: String,
    bytes: Option<(Vec<u8>, Vec<u8>)>,
}

fn state(s: &Stack) -> State {
    let rows = s
        .store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    let tasks = match s.system.tasks() {
        Ok(q) => {
            let all = q.tasks(&ListTasks::default()).unwrap();
            let logs: Vec<_> = all.iter().map(|t| q.log(&t.task_id).unwrap()).collect();
            format!("{all:?}{logs:?}")
        }
        Err(_) => String::new(),
    };
    State {
        rows: format!("{rows:?}"),
        seq: s.journal.current_seq().unwrap(),
        tasks,
        bytes: s.path.as_ref().map(|p| {
            let wal = PathBuf::from(format!("{}-wal", p.display()));
            (
                std::fs::read(p).unwrap(),
                std::fs::read(wal).unwrap_or_default(),
            )
        }),
    }
}

/// `call` answers `outcome` and writes nothing.
fn writes_nothing(s: &Stack, outcome: Outcome, call: impl Fn() -> UnderstandingResult) -> Value {
    let before = state(s);
    let r = call();
    assert_eq!(r.outcome, outcome, "[{}] {r:?}", s.name);
    let v = json_of(&r);
    assert_eq!(v["applied"], json!(false), "[{}]", s.name);
    assert!(v.get("seq").is_none() && v.get("version_id").is_none());
    assert_eq!(state(s), before, "[{}] {outcome:?} wrote", s.name);
    v
}

#[test]
fn a_declared_record_gets_exactly_what_a_record_formed_pending_gets() {
    both(false, |s| {
        let ids = form(s, vec![lesson()]);
        let a = aid(s, &ids[0]);
        let r = declare(s, &ids[0], &["title", "summary"]);
        let j = json_of(&r);
        assert_eq!(j["outcome"], "applied", "[{}] {j}", s.name);
        assert_eq!(j["field"], "pending");
        assert_eq!((r.version, r.previous_version), (Some(1), Some(0)));
        assert_eq!(j["declared"], json!(["title", "summary"]));
        assert_eq!(j["already_pending"], json!([]));
        assert_eq!(j["title_version"], json!(1));
        assert_eq!(j["provisional"], json!({"field": "digest", "version": 0}));
        let title_id = task_id(
            TaskKind::TitleAuthor,
            &ids[0],
            &format!("{a}@pending-title"),
        );
        let summary_id = task_id(
            TaskKind::DigestAuthor,
            &ids[0],
            &format!("{a}@pending-summary"),
        );
        assert_eq!(
            j["tasks"],
            json!({"title": title_id, "summary": summary_id})
        );
        assert_eq!(j["enqueued"], json!([title_id, summary_id]));
        // The marker, the title stored None, the body kept.
        let d = row(s, &ids[0]);
        let marker = &d.attributes["pending"];
        assert_eq!(
            (&marker["title"], &marker["summary"], &marker["since"]),
            (&json!(true), &json!(true), &json!(NOW))
        );
        assert_eq!(d.attributes["title"], Value::Null);
        assert_eq!(d.object, "Connection pools exhaust under sustained load.");
        assert_eq!(d.attributes["pending_version"], json!(1));
        // Formation's tasks: capability summaries, FORMATION_PRIORITY, 1.0, basis_version 0.
        let queued = tasks(s);
        assert_eq!(queued.len(), 2);
        for t in &queued {
            assert_eq!(
                (
                    t.capability.as_str(),
                    t.priority,
                    t.strength,
                    t.basis_version
                ),
                ("summaries", FORMATION_PRIORITY, 1.0, 0)
            );
            assert_eq!(t.status, TaskStatus::Pending);
        }
        // The title it held stays as a title version; the declaration is a
        // version row of field `pending`.
        let titles = s.system.versions(&ids[0], Some("title")).unwrap();
        assert_eq!(titles.len(), 2);
        assert_eq!(titles[0].version.text.as_deref(), Some("Pool sizing"));
        assert_eq!(titles[1].version.text, None);
        let pending = s.system.versions(&ids[0], Some("pending")).unwrap();
        assert_eq!(pending.len(), 1);
        let p = &pending[0].version;
        assert_eq!(
            Value::Object(p.author.clone()),
            json!({"kind": "mechanical", "id": "declare_pending"})
        );
        assert_eq!(p.text.as_deref(), Some("title, summary"));
        assert_eq!(p.cause["cause"], "repair");
        assert_eq!(p.cause["tasks"], j["tasks"]);
        assert_eq!(p.cause["provisional"], j["provisional"]);
        // Served as pending: no title.
        assert_eq!(s.system.record_understanding(&ids[0]).unwrap().title, None);
        json!([j, titles, pending])
    });
}

#[test]
fn a_declared_summary_keeps_the_body_calls_no_embedder_and_supersedes_the_live_body_task() {
    both(true, |s| {
        let ids = form(
            s,
            vec![lesson().with_attribute("digest_method", "mechanical-v1")],
        );
        let rewrite = tasks(s);
        assert_eq!(rewrite.len(), 1);
        assert_eq!(rewrite[0].kind, TaskKind::DigestRewrite);
        let vector = s.store.stored_vector(&aid(s, &ids[0])).unwrap();
        s.fail.store(true, Ordering::SeqCst);
        let r = declare(s, &ids[0], &["summary"]);
        s.fail.store(false, Ordering::SeqCst);
        let j = json_of(&r);
        assert_eq!(j["outcome"], "applied", "[{}] {j}", s.name);
        assert_eq!(j["vector_rewritten"], false);
        assert_eq!(j["superseded"], json!([rewrite[0].task_id]));
        assert!(j.get("title_version").is_none());
        let after = s
            .system
            .tasks()
            .unwrap()
            .task(&rewrite[0].task_id)
            .unwrap()
            .unwrap();
        assert_eq!(after.status, TaskStatus::Superseded);
        assert_eq!(s.store.stored_vector(&aid(s, &ids[0])).unwrap(), vector);
        let d = row(s, &ids[0]);
        assert_eq!(d.attributes["title"], "Pool sizing");
        assert_eq!(d.attributes["pending"]["summary"], true);
        assert_eq!(d.attributes["pending"]["title"], false);
        j
    });
}

#[test]
fn every_asked_field_already_pending_with_its_live_task_is_unchanged_already_pending() {
    both(false, |s| {
        let ids = form(s, vec![untitled(RecordKind::Episode, "The pool ran dry.")]);
        let live = tasks(s)[0].task_id.clone();
        let v = writes_nothing(s, Outcome::Unchanged(Some(Reason::AlreadyPending)), || {
            declare(s, &ids[0], &["title"])
        });
        assert_eq!(v["reason"], "already_pending");
        assert_eq!(v["tasks"], json!({"title": live}));
        v
    });
}

#[test]
fn a_pending_field_no_live_task_owns_is_repaired_through_rearm_pending() {
    both(false, |s| {
        let ids = form(s, vec![untitled(RecordKind::Episode, "The pool ran dry.")]);
        let first = tasks(s)[0].task_id.clone();
        let q = s.system.tasks().unwrap();
        q.claim(&am_system::tasks::Claim::new(vec![first.clone()], "h"))
            .unwrap();
        q.release(&Release::new(
            &first,
            "h",
            ReleaseOutcome::Skip,
            "over_context",
        ))
        .unwrap();
        let r = declare(s, &ids[0], &["title"]);
        let j = json_of(&r);
        assert_eq!(j["outcome"], "rearmed", "[{}] {j}", s.name);
        assert_eq!(j["applied"], true);
        assert_eq!(j["repaired"], json!(["title"]));
        let basis = format!("{}@pending-title@1", aid(s, &ids[0]));
        assert_eq!(
            j["tasks"]["title"],
            json!(task_id(TaskKind::TitleAuthor, &ids[0], &basis))
        );
        j
    });
}

#[test]
fn a_field_authored_once_and_declared_again_gets_the_next_free_basis() {
    both(false, |s| {
        let ids = form(s, vec![untitled(RecordKind::Episode, "The pool ran dry.")]);
        let first = tasks(s)[0].task_id.clone();
        s.system
            .retitle(&Retitle {
                task_id: Some(first.clone()),
                ..Retitle::new(&ids[0], "The dry pool", operator(), json!("formation"), 0)
            })
            .unwrap();
        let r = declare(s, &ids[0], &["title"]);
        let j = json_of(&r);
        assert_eq!(j["outcome"], "applied", "[{}] {j}", s.name);
        let basis = format!("{}@pending-title@1", aid(s, &ids[0]));
        assert_eq!(
            j["tasks"]["title"],
            json!(task_id(TaskKind::TitleAuthor, &ids[0], &basis))
        );
        // Title versions: None (formed pending), the authored title, None again.
        let titles: Vec<Option<String>> = s
            .system
            .versions(&ids[0], Some("title"))
            .unwrap()
            .into_iter()
            .map(|v| v.version.text)
            .collect();
        assert_eq!(titles, [None, Some("The dry pool".into()), None]);
        j
    });
}

#[test]
fn a_live_task_with_that_identity_queued_earlier_without_the_marker_is_adopted() {
    both(false, |s| {
        let ids = form(s, vec![lesson()]);
        let a = aid(s, &ids[0]);
        let queued = s
            .system
            .tasks()
            .unwrap()
            .enqueue(&Enqueue {
                assertion_id: a.clone(),
                ..Enqueue::new(
                    TaskKind::TitleAuthor,
                    &ids[0],
                    ("session", "s1"),
                    &format!("{a}@pending-title"),
                    1.0,
                    json!("repair"),
                )
            })
            .unwrap();
        let r = declare(s, &ids[0], &["title"]);
        let j = json_of(&r);
        assert_eq!(j["outcome"], "applied", "[{}] {j}", s.name);
        assert_eq!(j["adopted"], json!([queued.task_id]));
        assert_eq!(j["enqueued"], json!([]));
        assert_eq!(tasks(s).len(), 1);
        j
    });
}

#[test]
fn the_drainer_completes_a_declared_record_through_retitle_and_rewrite_digest() {
    both(false, |s| {
        let ids = form(s, vec![lesson()]);
        let r = declare(s, &ids[0], &["title", "summary"]);
        let j = json_of(&r);
        let t = s
            .system
            .retitle(&Retitle {
                task_id: j["tasks"]["title"].as_str().map(str::to_owned),
                ..Retitle::new(&ids[0], "Sizing pools", operator(), json!("repair"), 1)
            })
            .unwrap();
        assert_eq!(json_of(&t)["pending_cleared"], json!(["title"]));
        let w = s
            .system
            .rewrite_digest(&RewriteDigest::new(
                &ids[0],
                "Pools run dry when sized from the mean.",
                operator(),
                json!("repair"),
                0,
            ))
            .unwrap();
        assert_eq!(json_of(&w)["pending_cleared"], json!(["summary"]));
        assert!(!row(s, &ids[0]).attributes.contains_key("pending"));
        assert!(tasks(s).iter().all(|t| t.status == TaskStatus::Done));
        // The body the declaration made provisional is never restored.
        let rev = s
            .system
            .revert_digest(&RevertDigest::new(&ids[0], 0, 1))
            .unwrap();
        assert_eq!(
            rev.outcome,
            Outcome::Refused(Reason::ProvisionalSummary),
            "[{}]",
            s.name
        );
        // A pending declaration is not a reading.
        let rev = s
            .system
            .revert_digest(&RevertDigest {
                field: Some("pending".into()),
                ..RevertDigest::new(&ids[0], 1, 1)
            })
            .unwrap();
        assert_eq!(rev.outcome, Outcome::Refused(Reason::NotRevertible));
        json!([t, w])
    });
}

#[test]
fn revert_digest_refuses_the_provisional_body_a_record_was_formed_with() {
    both(false, |s| {
        let mut r = MemoryRecordInput::new(RecordKind::Episode, "The pool", "The pool ran dry.")
            .with_pending(&["summary"]);
        r.title = Some("The pool".into());
        let ids = form(s, vec![r]);
        s.system
            .rewrite_digest(&RewriteDigest::new(
                &ids[0],
                "The pool ran dry at noon, under load.",
                operator(),
                json!("formation"),
                0,
            ))
            .unwrap();
        writes_nothing(s, Outcome::Refused(Reason::ProvisionalSummary), || {
            s.system
                .revert_digest(&RevertDigest::new(&ids[0], 0, 1))
                .unwrap()
        })
    });
}

#[test]
fn declare_pending_refusals_write_nothing() {
    both(true, |s| {
        let ids = form(
            s,
            vec![
                lesson(),
                MemoryRecordInput::new(RecordKind::Interest, "Pools", "I care about pools."),
                MemoryRecordInput::new(RecordKind::Episode, "Old", "An old reading."),
                MemoryRecordInput::new(RecordKind::Summary, "Ripple", "What this changes.")
                    .with_edge("summarizes", "local:0")
                    .with_attribute("summary_role", "re-understanding"),
                MemoryRecordInput::new(RecordKind::Diary, "Owner note", "My own words.")
                    .with_provenance("source", "owner-direct")
                    .with_attribute("entry_hash", "abc123"),
            ],
        );
        let (l, interest, old, ripple, diary) = (&ids[0], &ids[1], &ids[2], &ids[3], &ids[4]);
        s.system
            .close_record(
                &CloseRecord::new(old, ClosureKind::Supersede, "better reading")
                    .replaced_by(std::slice::from_ref(l)),
            )
            .unwrap();
        let mut out = Vec::new();
        out.push(writes_nothing(
            s,
            Outcome::Refused(Reason::UnknownRecord),
            || declare(s, "ex:nothing-here", &["title"]),
        ));
        out.push(writes_nothing(s, Outcome::Refused(Reason::Closed), || {
            let r = declare(s, old, &["title"]);
            assert_eq!(r.replaced_by.as_deref(), Some(l.as_str()));
            r
        }));
        out.push(writes_nothing(
            s,
            Outcome::Refused(Reason::ProtectedKind),
            || declare(s, interest, &["summary"]),
        ));
        out.push(writes_nothing(
            s,
            Outcome::Refused(Reason::ProtectedKind),
            || declare(s, diary, &["summary"]),
        ));
        out.push(writes_nothing(
            s,
            Outcome::Refused(Reason::ConsolidationRecord),
            || declare(s, ripple, &["summary"]),
        ));
        out.push(writes_nothing(
            s,
            Outcome::Refused(Reason::HashChained),
            || declare(s, diary, &["title"]),
        ));
        s.fail.store(true, Ordering::SeqCst);
        out.push(writes_nothing(
            s,
            Outcome::Refused(Reason::EmbedderUnavailable),
            || declare(s, l, &["title"]),
        ));
        s.fail.store(false, Ordering::SeqCst);
        json!(out)
    });
}

#[test]
fn declare_and_rearm_refuse_no_task_queue_on_a_home_opened_without_it() {
    for s in [memory(false, false), sqlite(false, false)] {
        let ids = form(&s, vec![lesson()]);
        writes_nothing(&s, Outcome::Refused(Reason::NoTaskQueue), || {
            declare(&s, &ids[0], &["title"])
        });
        writes_nothing(&s, Outcome::Refused(Reason::NoTaskQueue), || {
            s.system.rearm_pending(&RearmPending::new(&ids[0])).unwrap()
        });
    }
}

#[test]
fn fields_outside_pending_fields_none_or_a_cause_outside_rewrite_causes_raise() {
    for s in [memory(false, true), sqlite(false, true)] {
        let ids = form(&s, vec![lesson()]);
        let before = state(&s);
        for args in [
            DeclarePending {
                fields: vec!["digest".into()],
                ..DeclarePending::new(&ids[0])
            },
            DeclarePending {
                fields: vec![],
                ..DeclarePending::new(&ids[0])
            },
            DeclarePending {
                cause: "whim".into(),
                ..DeclarePending::new(&ids[0])
            },
        ] {
            let e = s.system.declare_pending(&args).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{args:?}");
        }
        let e = s
            .system
            .rearm_pending(&RearmPending {
                cause: "whim".into(),
                ..RearmPending::new(&ids[0])
            })
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert_eq!(state(&s), before);
    }
}

/// Run `tid` out of attempts: three claims whose leases expire, then a
/// fourth claim that fails it.
fn exhaust(s: &Stack, tid: &str) {
    exhaust_on(&s.system, tid);
}

/// [`exhaust`] on one system.
fn exhaust_on(system: &MemorySystem, tid: &str) {
    let q = system.tasks().unwrap();
    for now in [
        "2026-03-01T12:00:00Z",
        "2026-03-01T13:00:00Z",
        "2026-03-01T14:00:00Z",
        "2026-03-01T15:00:00Z",
    ] {
        q.claim(&am_system::tasks::Claim {
            now: Some(now.parse().unwrap()),
            ..am_system::tasks::Claim::new(vec![tid.to_owned()], "h")
        })
        .unwrap();
    }
}

#[test]
fn rearm_pending_queues_formations_task_again_for_a_field_whose_tasks_ran_out() {
    both(false, |s| {
        let r =
            untitled(RecordKind::Episode, "The pool ran dry.").with_pending(&["title", "summary"]);
        let ids = form(s, vec![r]);
        let a = aid(s, &ids[0]);
        let all = tasks(s);
        let title = all
            .iter()
            .find(|t| t.kind == TaskKind::TitleAuthor)
            .unwrap()
            .task_id
            .clone();
        let summary = all
            .iter()
            .find(|t| t.kind == TaskKind::DigestAuthor)
            .unwrap()
            .task_id
            .clone();
        exhaust(s, &title);
        let r = s
            .system
            .rearm_pending(&RearmPending {
                reason: Some("the endpoint came back".into()),
                ..RearmPending::new(&ids[0])
            })
            .unwrap();
        let j = json_of(&r);
        assert_eq!(j["outcome"], "rearmed", "[{}] {j}", s.name);
        assert_eq!(j["applied"], true);
        let new = task_id(
            TaskKind::TitleAuthor,
            &ids[0],
            &format!("{a}@pending-title@1"),
        );
        assert_eq!(j["tasks"], json!({"title": new, "summary": summary}));
        assert_eq!(j["live"], json!({"summary": summary}));
        assert_eq!(j["enqueued"], json!([new]));
        assert_eq!(j["rearmed"], json!(1));
        assert_eq!(j["exhausted"]["title"][0]["task_id"], json!(title));
        assert_eq!(j["exhausted"]["title"][0]["status"], "failed");
        // The marker stays; it counts the re-arm.
        let d = row(s, &ids[0]);
        let m = &d.attributes["pending"];
        assert_eq!((&m["title"], &m["rearmed"]), (&json!(true), &json!(1)));
        assert_eq!(m["last_rearmed_at"], json!(NOW));
        assert_eq!(d.attributes["title"], Value::Null);
        let t = s.system.tasks().unwrap().task(&new).unwrap().unwrap();
        assert_eq!(
            (t.status, t.priority, t.basis_version),
            (TaskStatus::Pending, FORMATION_PRIORITY, 0)
        );
        let pending = s.system.versions(&ids[0], Some("pending")).unwrap();
        assert_eq!(pending.len(), 1);
        let p = &pending[0].version;
        assert_eq!(p.digest_method.as_deref(), Some("rearm-pending-v1"));
        assert_eq!(p.text.as_deref(), Some("title"));
        assert_eq!(p.cause["reason"], "the endpoint came back");
        assert_eq!(p.cause["live"], json!({"summary": summary}));
        assert_eq!(
            Value::Object(p.author.clone()),
            json!({"kind": "mechanical", "id": "rearm_pending"})
        );
        j
    });
}

#[test]
fn rearm_pending_is_unchanged_not_pending_or_live_task_and_refuses_unknown_and_closed() {
    both(false, |s| {
        let ids = form(
            s,
            vec![
                lesson(),
                untitled(RecordKind::Episode, "The pool ran dry."),
                untitled(RecordKind::Episode, "An old reading."),
            ],
        );
        s.system
            .close_record(&CloseRecord::retract(&ids[2], "wrong"))
            .unwrap();
        let rearm = |id: &str| s.system.rearm_pending(&RearmPending::new(id)).unwrap();
        let live = tasks(s)
            .into_iter()
            .find(|t| t.target_id == ids[1])
            .unwrap()
            .task_id;
        let mut out = Vec::new();
        out.push(writes_nothing(
            s,
            Outcome::Unchanged(Some(Reason::NotPending)),
            || rearm(&ids[0]),
        ));
        let v = writes_nothing(s, Outcome::Unchanged(Some(Reason::LiveTask)), || {
            rearm(&ids[1])
        });
        assert_eq!(v["tasks"], json!({"title": live}));
        out.push(v);
        out.push(writes_nothing(
            s,
            Outcome::Refused(Reason::UnknownRecord),
            || rearm("ex:nothing-here"),
        ));
        out.push(writes_nothing(s, Outcome::Refused(Reason::Closed), || {
            rearm(&ids[2])
        }));
        json!(out)
    });
}

#[test]
fn a_pending_summary_of_a_dream_a_card_or_a_public_diary_projection_is_taken_by_rewrite_digest() {
    both(false, |s| {
        let ids = form(
            s,
            vec![
                MemoryRecordInput::new(RecordKind::Dream, "Night", "Tensions of the day.")
                    .with_attribute("signals", json!({"tension": 0.4})),
                MemoryRecordInput::new(RecordKind::WorldModel, "Pools", "What I know of pools."),
                MemoryRecordInput::new(RecordKind::Diary, "Tuesday", "A page of the book.")
                    .with_provenance("source", "diary-projection")
                    .with_attribute("entry_id", "entry-1")
                    .with_pending(&["summary"]),
                MemoryRecordInput::new(RecordKind::Diary, "Owner note", "My own words.")
                    .with_provenance("source", "owner-direct"),
            ],
        );
        let (dream, card, public, owner) = (&ids[0], &ids[1], &ids[2], &ids[3]);
        let words = |id: &str, text: &str| {
            s.system
                .rewrite_digest(&RewriteDigest::new(
                    id,
                    text,
                    operator(),
                    json!("repair"),
                    0,
                ))
                .unwrap()
        };
        // Not pending: the spec's refusals stand.
        assert_eq!(
            words(dream, "Other.").outcome,
            Outcome::Refused(Reason::UseNarrateDream)
        );
        assert_eq!(
            words(card, "Other.").outcome,
            Outcome::Refused(Reason::UseAuthorWorldModel)
        );
        let mut out = Vec::new();
        // The public projection formed pending; the dream and the card are
        // declared so.
        for id in [dream, card] {
            let d = declare(s, id, &["summary"]);
            assert_eq!(d.outcome, Outcome::Applied, "[{}] {d:?}", s.name);
        }
        assert_eq!(
            declare(s, owner, &["summary"]).outcome,
            Outcome::Refused(Reason::ProtectedKind)
        );
        // A pending card's keywords are its evidence facets.
        let r = writes_nothing(s, Outcome::Refused(Reason::CardKeywords), || {
            let mut a = RewriteDigest::new(card, "Pools run dry.", operator(), json!("repair"), 0);
            a.keywords = Some(vec!["pools".into()]);
            s.system.rewrite_digest(&a).unwrap()
        });
        out.push(r);
        for (id, text, field) in [
            (dream, "The day's tensions, read.", "digest"),
            (card, "Pools run dry under load.", "card"),
            (public, "Tuesday, in a line.", "digest"),
        ] {
            let r = json_of(&words(id, text));
            assert_eq!(r["outcome"], "applied", "[{}] {r}", s.name);
            assert_eq!(r["field"], field);
            assert_eq!(r["pending_cleared"], json!(["summary"]));
            assert_eq!(row(s, id).object, text);
            out.push(r);
        }
        // The dream's signals stay.
        assert_eq!(row(s, dream).attributes["signals"], json!({"tension": 0.4}));
        assert_eq!(s.system.versions(card, None).unwrap().len(), 2);
        json!(out)
    });
}

#[test]
fn a_declaration_whose_task_write_fails_leaves_no_marker_and_no_version() {
    // The in-memory pair, its queue failing its next put.
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let queue = Arc::new(InMemoryTaskQueue::new());
    let home = Arc::new(PairHome::with_task_queue(
        store.clone(),
        journal.clone(),
        queue.clone(),
    ));
    let mem = Stack {
        name: "memory",
        system: MemorySystem::over_home_with_options(home, options(true)).unwrap(),
        store,
        journal,
        path: None,
        fail: Arc::new(AtomicBool::new(false)),
        _dir: tempfile::tempdir().unwrap(),
    };
    let sq = sqlite(false, true);
    for s in [&mem, &sq] {
        let ids = form(s, vec![lesson()]);
        let before = state(s);
        if s.name == "memory" {
            queue.inject_put_fault(1);
        } else {
            let p = s.path.as_ref().unwrap();
            rusqlite::Connection::open(p)
                .unwrap()
                .execute_batch(
                    "CREATE TRIGGER fail_queue BEFORE INSERT ON memq_tasks \
                     BEGIN SELECT RAISE(ABORT, 'injected queue fault'); END;",
                )
                .unwrap();
        }
        let before = State {
            bytes: None,
            ..before
        };
        assert!(
            s.system
                .declare_pending(&DeclarePending::new(&ids[0]))
                .is_err(),
            "[{}] the failed task write fails the declaration",
            s.name
        );
        let after = State {
            bytes: None,
            ..state(s)
        };
        assert_eq!(after, before, "[{}] the row moved without its task", s.name);
        assert!(!row(s, &ids[0]).attributes.contains_key("pending"));
        assert!(
            s.system
                .versions(&ids[0], Some("pending"))
                .unwrap()
                .is_empty()
        );
    }
}

/// A second handle on the same home, and the first handle's clock that lets
/// it write once, when armed: another writer moving the row between the
/// declaration's read and its write.
struct Interleaved {
    first: MemorySystem,
    second: Arc<std::sync::OnceLock<MemorySystem>>,
    armed: Arc<AtomicBool>,
    path: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

/// The first handle's clock: `NOW`, and once armed, the second handle's
/// retitle of `target` before it answers.
fn interleaving_options(
    second: &Arc<std::sync::OnceLock<MemorySystem>>,
    armed: &Arc<AtomicBool>,
    target: &Arc<std::sync::Mutex<String>>,
) -> SystemOptions {
    let (second, armed, target) = (second.clone(), armed.clone(), target.clone());
    SystemOptions {
        task_queue: true,
        clock: Some(Arc::new(move || {
            if armed.swap(false, Ordering::SeqCst) {
                let id = target.lock().unwrap().clone();
                let r = second
                    .get()
                    .unwrap()
                    .retitle(&Retitle::new(
                        &id,
                        "Another writer's title",
                        operator(),
                        json!("repair"),
                        0,
                    ))
                    .unwrap();
                assert_eq!(r.outcome, Outcome::Applied, "the other writer wrote");
            }
            am_triples::Timestamp::parse(NOW).unwrap()
        })),
        ..SystemOptions::default()
    }
}

/// Both stacks with a second handle each, the first handle's clock
/// interleaving the second's retitle of `target` once armed.
fn interleaved(target: &Arc<std::sync::Mutex<String>>) -> [(&'static str, Interleaved); 2] {
    // The in-memory pair: two systems over one home.
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let home = Arc::new(PairHome::with_task_queue(
        store.clone(),
        journal.clone(),
        Arc::new(InMemoryTaskQueue::new()),
    ));
    let (second, armed) = (
        Arc::new(std::sync::OnceLock::new()),
        Arc::new(AtomicBool::new(false)),
    );
    let mem = Interleaved {
        first: MemorySystem::over_home_with_options(
            home.clone(),
            interleaving_options(&second, &armed, target),
        )
        .unwrap(),
        second: second.clone(),
        armed,
        path: None,
        _dir: tempfile::tempdir().unwrap(),
    };
    let _ = mem
        .second
        .set(MemorySystem::over_home_with_options(home, options(true)).unwrap());
    // The SQLite home: two handles (two connections) on one file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let open = |p: &PathBuf| {
        let h = SqliteHome::open(p).unwrap();
        Arc::new(SqliteMemoryHome::open(&h, None, SqliteStoreOptions::default()).unwrap())
    };
    let (second, armed) = (
        Arc::new(std::sync::OnceLock::new()),
        Arc::new(AtomicBool::new(false)),
    );
    let sq = Interleaved {
        first: MemorySystem::over_home_with_options(
            open(&path),
            interleaving_options(&second, &armed, target),
        )
        .unwrap(),
        second: second.clone(),
        armed,
        path: Some(path.clone()),
        _dir: dir,
    };
    let _ = sq
        .second
        .set(MemorySystem::over_home_with_options(open(&path), options(true)).unwrap());
    [("memory", mem), ("sqlite", sq)]
}

#[test]
fn declare_pending_refuses_stale_when_another_writer_moves_the_row_between_read_and_write() {
    let target = Arc::new(std::sync::Mutex::new(String::new()));
    let stacks = interleaved(&target);
    let mut answers = Vec::new();
    for (name, s) in &stacks {
        let _ = &s.path;
        for fields in [&["title"][..], &["summary"][..], &["title", "summary"][..]] {
            let ids = s
                .first
                .remember_many(&RememberMany::new(
                    vec![lesson()],
                    "session",
                    "s1",
                    &format!("turn-{}", fields.join("-")),
                ))
                .unwrap()
                .into_value();
            *target.lock().unwrap() = ids[0].clone();
            s.armed.store(true, Ordering::SeqCst);
            let r = s
                .first
                .declare_pending(&DeclarePending {
                    fields: fields.iter().map(|f| (*f).to_owned()).collect(),
                    ..DeclarePending::new(&ids[0])
                })
                .unwrap();
            assert!(
                !s.armed.load(Ordering::SeqCst),
                "[{name}] the other writer ran"
            );
            assert_eq!(r.outcome, Outcome::Refused(Reason::Stale), "[{name}] {r:?}");
            let v = json_of(&r);
            assert_eq!(v["applied"], json!(false));
            assert!(v.get("seq").is_none() && v.get("version_id").is_none());
            // What stands is the other writer's row: no marker, no task, no
            // declaration in the journal.
            let now = s.first.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
            assert_eq!(now.attributes["title"], json!("Another writer's title"));
            assert!(!now.attributes.contains_key("pending"), "[{name}]");
            let q = s.first.tasks().unwrap();
            assert!(
                q.tasks(&ListTasks::default()).unwrap().is_empty(),
                "[{name}]"
            );
            assert!(
                s.first
                    .versions(&ids[0], Some("pending"))
                    .unwrap()
                    .is_empty(),
                "[{name}]"
            );
            answers.push(json!([fields, v["reason"], v["outcome"]]));
        }
    }
    assert_eq!(
        answers[..3],
        answers[3..],
        "the two stacks answered differently"
    );
}

#[test]
fn rearm_pending_refuses_stale_when_another_writer_moves_the_row_between_read_and_write() {
    let target = Arc::new(std::sync::Mutex::new(String::new()));
    let stacks = interleaved(&target);
    let mut answers = Vec::new();
    for (name, s) in &stacks {
        // A pending summary whose only task ran out.
        let ids = s
            .first
            .remember_many(&RememberMany::new(
                vec![lesson().with_pending(&["summary"])],
                "session",
                "s1",
                "turn-rearm",
            ))
            .unwrap()
            .into_value();
        let q = s.first.tasks().unwrap();
        let ran_out = q.tasks(&ListTasks::default()).unwrap()[0].task_id.clone();
        exhaust_on(&s.first, &ran_out);
        let before = s.first.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        *target.lock().unwrap() = ids[0].clone();
        s.armed.store(true, Ordering::SeqCst);
        let r = s.first.rearm_pending(&RearmPending::new(&ids[0])).unwrap();
        assert!(
            !s.armed.load(Ordering::SeqCst),
            "[{name}] the other writer ran"
        );
        assert_eq!(r.outcome, Outcome::Refused(Reason::Stale), "[{name}] {r:?}");
        let v = json_of(&r);
        assert_eq!(v["applied"], json!(false));
        assert!(v.get("seq").is_none() && v.get("version_id").is_none());
        // What stands is the other writer's row with the marker as it was:
        // no re-arm counted, no task queued, no re-arm in the journal.
        let now = s.first.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(now.attributes["title"], json!("Another writer's title"));
        assert_eq!(
            now.attributes["pending"], before.attributes["pending"],
            "[{name}]"
        );
        assert!(now.attributes["pending"].get("rearmed").is_none());
        let all = q.tasks(&ListTasks::default()).unwrap();
        assert_eq!(all.len(), 1, "[{name}] no new task");
        assert_eq!(all[0].status, TaskStatus::Failed);
        assert!(
            s.first
                .versions(&ids[0], Some("pending"))
                .unwrap()
                .is_empty(),
            "[{name}]"
        );
        answers.push(json!([v["reason"], v["outcome"]]));
    }
    assert_eq!(
        answers[0], answers[1],
        "the two stacks answered differently"
    );
}

/// `card_rekey` is a documented no-op until world-model cards land: an
/// interest whose title is declared pending (or re-armed) moves no card and
/// its result carries no `card_rekey`.
#[test]
fn an_interests_declared_title_moves_no_card_and_answers_no_card_rekey_until_cards_land() {
    both(false, |s| {
        let ids = form(
            s,
            vec![
                MemoryRecordInput::new(
                    RecordKind::Interest,
                    "Gardening",
                    "I want to grow tomatoes.",
                ),
                lesson(),
            ],
        );
        let interest = aid(s, &ids[0]);
        let others = || -> String {
            let rows = s
                .store
                .query(&TripleQuery {
                    limit: 0,
                    ..TripleQuery::default()
                })
                .unwrap();
            format!(
                "{:?}",
                rows.iter()
                    .filter(|r| r.assertion_id.as_deref() != Some(interest.as_str()))
                    .collect::<Vec<_>>()
            )
        };
        let before = others();
        let r = declare(s, &ids[0], &["title"]);
        let j = json_of(&r);
        assert_eq!(j["outcome"], "applied", "[{}] {j}", s.name);
        assert_eq!(j["title_version"], json!(1), "the title was declared");
        assert!(j.get("card_rekey").is_none(), "[{}] {j}", s.name);
        assert_eq!(others(), before, "[{}] no other row moved", s.name);
        assert!(
            s.system
                .record_understanding(&ids[0])
                .unwrap()
                .title
                .is_none()
        );
        // Its task runs out and is re-armed: still no card moves.
        let title = tasks(s)[0].task_id.clone();
        exhaust(s, &title);
        let r = s.system.rearm_pending(&RearmPending::new(&ids[0])).unwrap();
        let k = json_of(&r);
        assert_eq!(k["outcome"], "rearmed", "[{}] {k}", s.name);
        assert!(k.get("card_rekey").is_none(), "[{}] {k}", s.name);
        assert_eq!(others(), before, "[{}] no other row moved", s.name);
        json!([j, k])
    });
}
