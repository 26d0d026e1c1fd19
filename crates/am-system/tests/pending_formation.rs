//! Pending formation: `remember_many` with `pending = ["title"]` /
//! `["summary"]` on a home with a task queue forms the record with its
//! `attributes.pending` marker and queues the tasks it owes in the SAME
//! transaction; a failed queue write leaves no record behind; a home without
//! a queue refuses before writing anything. Both stacks, identical answers.
//!
//! Spec: api.md "Formation (typed records)", "The memory task queue"
//! (enqueue sites), "Authored with the record".

use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, InMemoryTaskQueue, MemoryJournal, PairHome, TaskKind};
use am_system::RecordKind;
use am_system::tasks::{FORMATION_PRIORITY, ListTasks, task_id};
use am_system::{
    AuthorContext, AuthorError, AuthorField, Authored, AuthoredRecord, AuthoringFailureReason,
    FormAuthored, MemoryRecordInput, MemorySystem, RememberMany, SystemOptions,
};
use am_triples::{CommitGuard, ErrorKind, InMemoryTripleStore, TripleQuery, TripleStore};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

const NOW: &str = "2026-03-01T12:00:00.000000+00:00";

struct Stack {
    name: &'static str,
    system: MemorySystem,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    /// Make the next queue write fail (a real SQLite trigger, or the
    /// in-memory queue's fault injection).
    fail_queue: Box<dyn Fn(bool)>,
    _dir: Option<tempfile::TempDir>,
}

fn options(guard: Option<CommitGuard>) -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(am_triples::fixed_clock(
            am_triples::Timestamp::parse(NOW).unwrap(),
        )),
        commit_guard: guard,
        ..SystemOptions::default()
    }
}

fn memory(guard: Option<CommitGuard>) -> Stack {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let queue = Arc::new(InMemoryTaskQueue::new());
    let home = Arc::new(PairHome::with_task_queue(
        store.clone(),
        journal.clone(),
        queue.clone(),
    ));
    let system = MemorySystem::over_home_with_options(home, options(guard)).unwrap();
    Stack {
        name: "memory",
        system,
        store,
        journal,
        fail_queue: Box::new(move |on| queue.inject_put_fault(usize::from(on))),
        _dir: None,
    }
}

fn sqlite(guard: Option<CommitGuard>) -> Stack {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let sqlite_store: Arc<SQLiteTripleStore> = mh.sqlite_store().clone();
    let store: Arc<dyn TripleStore> = sqlite_store.clone();
    let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
    let system = MemorySystem::over_home_with_options(mh, options(guard)).unwrap();
    Stack {
        name: "sqlite",
        system,
        store,
        journal,
        fail_queue: Box::new(move |on| {
            let sql = if on {
                "CREATE TRIGGER fail_queue BEFORE INSERT ON memq_tasks \
                 BEGIN SELECT RAISE(ABORT, 'injected queue fault'); END;"
            } else {
                "DROP TRIGGER fail_queue;"
            };
            sqlite_store
                .home()
                .conn()
                .lock()
                .unwrap()
                .execute_batch(sql)
                .unwrap();
        }),
        _dir: Some(dir),
    }
}

fn both(check: impl Fn(&Stack) -> Value) -> Value {
    let a = check(&memory(None));
    let b = check(&sqlite(None));
    assert_eq!(a, b, "the two stacks answered differently");
    a
}

fn form(s: &Stack, records: Vec<MemoryRecordInput>, key: &str) -> am_system::Result<Vec<String>> {
    s.system
        .remember_many(&RememberMany::new(records, "session", "s1", key))
        .map(|w| w.value)
}

fn untitled(kind: RecordKind, digest: &str) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(kind, "", digest).with_pending(&["title"]);
    r.title = None;
    r
}

fn digest_row(s: &Stack, graph_id: &str) -> am_triples::TripleAssertion {
    s.system
        .resolve_digest_assertion(graph_id)
        .unwrap()
        .unwrap()
}

fn all_tasks(s: &Stack) -> Vec<am_journal::TaskRow> {
    s.system
        .tasks()
        .unwrap()
        .tasks(&ListTasks::default())
        .unwrap()
}

fn rows(s: &Stack) -> usize {
    s.store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .len()
}

#[test]
fn a_pending_title_forms_untitled_with_its_marker_and_its_title_author_task() {
    both(|s| {
        let ids = form(
            s,
            vec![untitled(RecordKind::Episode, "The pool ran dry at noon.")],
            "k1",
        )
        .unwrap();
        let row = digest_row(s, &ids[0]);
        assert_eq!(row.attributes["title"], Value::Null);
        assert_eq!(row.object, "The pool ran dry at noon.");
        let marker = &row.attributes["pending"];
        assert_eq!(
            *marker,
            json!({"title": true, "summary": false, "since": NOW, "attempts": 0})
        );
        let tasks = all_tasks(s);
        assert_eq!(tasks.len(), 1, "[{}]", s.name);
        let t = &tasks[0];
        let aid = row.assertion_id.clone().unwrap();
        assert_eq!(t.kind, TaskKind::TitleAuthor);
        assert_eq!(t.target_id, ids[0]);
        assert_eq!(t.assertion_id, aid);
        assert_eq!(t.basis, format!("{aid}@pending-title"));
        assert_eq!(t.priority, FORMATION_PRIORITY);
        assert_eq!(t.strength, 1.0);
        assert_eq!(t.capability, "summaries");
        assert_eq!(
            t.task_id,
            task_id(
                TaskKind::TitleAuthor,
                &ids[0],
                &format!("{aid}@pending-title")
            )
        );
        json!([marker, t])
    });
}

#[test]
fn a_pending_summary_queues_digest_author_and_never_a_rewrite_beside_it() {
    both(|s| {
        let r = MemoryRecordInput::new(RecordKind::Episode, "Pool", "Provisional body.")
            .with_pending(&["summary"])
            .with_attribute("digest_method", "mechanical-v2");
        let ids = form(s, vec![r], "k1").unwrap();
        let kinds: Vec<TaskKind> = all_tasks(s).iter().map(|t| t.kind).collect();
        assert_eq!(kinds, [TaskKind::DigestAuthor], "[{}]", s.name);
        let row = digest_row(s, &ids[0]);
        assert_eq!(row.attributes["pending"]["summary"], true);
        assert_eq!(row.attributes["title"], "Pool");
        json!(kinds)
    });
}

#[test]
fn a_labelled_mechanical_record_owes_one_digest_rewrite_and_a_summary_waits_for_it() {
    both(|s| {
        let episode = MemoryRecordInput::new(RecordKind::Episode, "Pool", "Pool ran dry.")
            .with_attribute("digest_method", "mechanical-v2");
        let mut summary = MemoryRecordInput::new(RecordKind::Summary, "Day", "A day of pools.")
            .with_attribute("digest_method", "mechanical-v1");
        summary.edges = vec![("summarizes".into(), "local:0".into())];
        let ids = form(s, vec![episode, summary], "k1").unwrap();
        let tasks = all_tasks(s);
        assert_eq!(tasks.len(), 2, "[{}]", s.name);
        let rewrite = tasks.iter().find(|t| t.target_id == ids[0]).unwrap();
        let summary = tasks.iter().find(|t| t.target_id == ids[1]).unwrap();
        assert_eq!(rewrite.kind, TaskKind::DigestRewrite);
        assert_eq!(summary.kind, TaskKind::DigestRewrite);
        assert_eq!(summary.depends_on, std::slice::from_ref(&rewrite.task_id));
        json!(tasks)
    });
}

#[test]
fn a_replayed_pending_formation_writes_nothing_twice() {
    both(|s| {
        let batch = || vec![untitled(RecordKind::Episode, "The pool ran dry.")];
        form(s, batch(), "k1").unwrap();
        let seq = s.journal.current_seq().unwrap();
        let (n, tasks) = (rows(s), all_tasks(s));
        let log = s.system.tasks().unwrap().log(&tasks[0].task_id).unwrap();
        form(s, batch(), "k1").unwrap();
        assert_eq!(s.journal.current_seq().unwrap(), seq);
        assert_eq!(rows(s), n);
        assert_eq!(all_tasks(s), tasks);
        assert_eq!(
            s.system.tasks().unwrap().log(&tasks[0].task_id).unwrap(),
            log
        );
        json!(tasks.len())
    });
}

#[test]
fn a_recorded_authoring_failure_rides_the_marker() {
    both(|s| {
        let mut r = untitled(RecordKind::Dream, "The night's composition.");
        let mut failure = am_triples::JsonMap::new();
        failure.insert("reason".into(), json!("author_raised"));
        failure.insert("error_class".into(), json!("Timeout"));
        failure.insert("message".into(), json!("the reader timed out"));
        failure.insert("at".into(), json!(NOW));
        failure.insert("fields".into(), json!(["title"]));
        r.pending_failure = Some(failure);
        let ids = form(s, vec![r], "k1").unwrap();
        let marker = digest_row(s, &ids[0]).attributes["pending"].clone();
        assert_eq!(marker["failure"]["reason"], "author_raised");
        assert_eq!(marker["failure"]["error_class"], "Timeout");
        marker
    });
}

#[test]
fn a_failed_enqueue_leaves_no_record_behind() {
    for s in [memory(None), sqlite(None)] {
        let (n, seq) = (rows(&s), s.journal.current_seq().unwrap());
        (s.fail_queue)(true);
        let err = form(
            &s,
            vec![untitled(RecordKind::Episode, "The pool ran dry.")],
            "k1",
        )
        .unwrap_err();
        (s.fail_queue)(false);
        assert_eq!(err.kind(), ErrorKind::Storage, "[{}] {err}", s.name);
        assert_eq!(rows(&s), n, "[{}] a record without its task", s.name);
        assert_eq!(s.journal.current_seq().unwrap(), seq, "[{}]", s.name);
        assert!(all_tasks(&s).is_empty(), "[{}]", s.name);
        // The same formation then lands whole.
        form(
            &s,
            vec![untitled(RecordKind::Episode, "The pool ran dry.")],
            "k1",
        )
        .unwrap();
        assert_eq!(all_tasks(&s).len(), 1, "[{}]", s.name);
        assert!(rows(&s) > n);
    }
}

#[test]
fn formation_with_tasks_commits_at_tasks_form_with_tasks() {
    let calls: Arc<Mutex<Vec<String>>> = Arc::default();
    let guard = || {
        let c = calls.clone();
        CommitGuard::new(move |p| {
            c.lock().unwrap().push(p.to_owned());
            Ok(())
        })
    };
    for s in [memory(Some(guard())), sqlite(Some(guard()))] {
        calls.lock().unwrap().clear();
        form(&s, vec![untitled(RecordKind::Episode, "Pending.")], "k1").unwrap();
        form(
            &s,
            vec![MemoryRecordInput::new(
                RecordKind::Episode,
                "Plain",
                "Plain.",
            )],
            "k2",
        )
        .unwrap();
        assert_eq!(
            *calls.lock().unwrap(),
            ["tasks.form_with_tasks", "store.add"],
            "[{}]",
            s.name
        );
    }
}

#[test]
fn a_home_without_a_task_queue_refuses_pending_formation_before_writing() {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let system = MemorySystem::new(store.clone(), journal.clone());
    let err = system
        .remember_many(&RememberMany::new(
            vec![untitled(RecordKind::Episode, "x")],
            "session",
            "s1",
            "k1",
        ))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("task_queue=True"), "{err}");
    assert_eq!(journal.current_seq().unwrap(), 0);
    assert!(
        store
            .query(&TripleQuery {
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap()
            .is_empty()
    );
}

fn operator() -> am_system::AuthorRef {
    am_system::AuthorRef::new(am_system::AuthorKind::Operator, "op")
}

fn dream_pass(fields: &[AuthorField]) -> FormAuthored {
    let mut record = MemoryRecordInput::new(RecordKind::Dream, "", "The night's composition.");
    record.title = None;
    FormAuthored {
        pass: "dream_pass".into(),
        records: vec![AuthoredRecord {
            record,
            fields: fields.to_vec(),
            source_ids: vec!["ex:episode-1".into()],
        }],
        scope: "session".into(),
        owner_id: "s1".into(),
        idempotency_key: "night-1".into(),
        turn_id: None,
    }
}

#[test]
fn an_authored_field_is_stored_with_its_provenance_and_owes_no_task() {
    both(|s| {
        let calls = Mutex::new(0);
        let author =
            |kind: &str, body: &str, ctx: &AuthorContext| -> Result<Authored, AuthorError> {
                *calls.lock().unwrap() += 1;
                assert_eq!((kind, body), ("dream", "The night's composition."));
                assert_eq!(ctx.pass, "dream_pass");
                assert_eq!(ctx.source_ids, ["ex:episode-1"]);
                Ok(Authored {
                    title: Some("A night of rivers".into()),
                    summary: Some("Rivers ran through the night.".into()),
                    author: operator().to_map(),
                    ..Authored::default()
                })
            };
        let args = dream_pass(&[AuthorField::Title, AuthorField::Summary]);
        let out = s
            .system
            .form_authored_or_pending(&args, Some(&author))
            .unwrap();
        let row = digest_row(s, &out.record_ids[0]);
        assert_eq!(row.attributes["title"], "A night of rivers");
        assert_eq!(row.object, "Rivers ran through the night.");
        assert_eq!(row.attributes["title_provenance"]["cause"], "formation");
        assert_eq!(row.attributes["digest_method"], "authored-v1");
        assert!(!row.attributes.contains_key("pending"));
        assert!(all_tasks(s).is_empty(), "[{}]", s.name);
        assert_eq!(out.authoring.authored.len(), 1);
        assert!(out.authoring.failures.is_empty());
        // A replay never asks the author again, and its receipt is empty.
        let again = s
            .system
            .form_authored_or_pending(&args, Some(&author))
            .unwrap();
        assert_eq!(*calls.lock().unwrap(), 1);
        assert!(again.authoring.is_empty());
        assert_eq!(again.record_ids, out.record_ids);
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
        json!(out.authoring)
    });
}

#[test]
fn a_failed_author_forms_pending_with_the_failure_its_tasks_and_a_receipt_line() {
    both(|s| {
        let author = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
            Err(AuthorError::new("Timeout", "the reader timed out"))
        };
        let args = dream_pass(&[AuthorField::Title, AuthorField::Summary]);
        let out = s
            .system
            .form_authored_or_pending(&args, Some(&author))
            .unwrap();
        let row = digest_row(s, &out.record_ids[0]);
        assert_eq!(row.attributes["title"], Value::Null);
        assert_eq!(
            row.attributes["pending"]["failure"]["reason"],
            "author_raised"
        );
        let mut kinds: Vec<TaskKind> = all_tasks(s).iter().map(|t| t.kind).collect();
        kinds.sort();
        assert_eq!(kinds, [TaskKind::TitleAuthor, TaskKind::DigestAuthor]);
        let f = &out.authoring.failures[0];
        assert_eq!(f.reason, AuthoringFailureReason::AuthorRaised);
        assert_eq!(f.error_class.as_deref(), Some("Timeout"));
        // Without an author: no_author_supplied, and a replay stays quiet.
        let none = s.system.form_authored_or_pending(&args, None).unwrap();
        assert!(none.authoring.is_empty());
        json!(out.authoring.failures)
    });
}

#[test]
fn a_field_left_pending_on_a_home_without_a_queue_refuses_the_whole_batch() {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let system = MemorySystem::new(store.clone(), journal.clone());
    let err = system
        .form_authored_or_pending(&dream_pass(&[AuthorField::Title]), None)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(journal.current_seq().unwrap(), 0);
}

/// The drainer's loop: form pending, select, claim, author, settle through the
/// understanding verb with `task_id`, on both stacks.
#[test]
fn retitle_and_rewrite_digest_with_task_id_settle_the_task_and_clear_the_marker() {
    use am_system::tasks::{Ack, Claim, ClaimTasks, SelectForWindow};
    use am_system::{Retitle, RewriteDigest};
    both(|s| {
        let r = untitled(RecordKind::Episode, "The pool ran dry at noon.")
            .with_pending(&["title", "summary"]);
        let ids = form(s, vec![r], "k1").unwrap();
        let q = s.system.tasks().unwrap();
        let sel = q.select_for_window(&SelectForWindow::new(600.0)).unwrap();
        assert_eq!(sel.tasks.len(), 2, "[{}]", s.name);
        let claimed = q
            .claim(&Claim::new(ClaimTasks::from(&sel), "drainer"))
            .unwrap();
        let title_task = claimed
            .claimed
            .iter()
            .find(|t| t.kind == TaskKind::TitleAuthor)
            .unwrap()
            .task_id
            .clone();
        let retitled = s
            .system
            .retitle(&Retitle {
                task_id: Some(title_task.clone()),
                ..Retitle::new(&ids[0], "The dry pool", operator(), json!("formation"), 0)
            })
            .unwrap();
        let rj = serde_json::to_value(&retitled).unwrap();
        assert_eq!(rj["outcome"], "applied", "[{}] {rj}", s.name);
        assert_eq!(rj["pending_cleared"], json!(["title"]));
        assert_eq!(
            q.task(&title_task).unwrap().unwrap().status,
            am_journal::TaskStatus::Done
        );
        let acked = q
            .ack(&Ack {
                task_id: title_task.clone(),
                holder: "drainer".into(),
                result: json!({}),
                now: None,
            })
            .unwrap();
        assert_eq!(acked.reason.as_deref(), Some("already_done"));
        let row = digest_row(s, &ids[0]);
        assert_eq!(row.attributes["pending"]["title"], false);
        assert_eq!(row.attributes["pending"]["summary"], true);
        // Byte-identical words settling a pending summary are applied, not
        // unchanged; the marker goes, and the digest.author task completes
        // without naming it.
        let rewritten = s
            .system
            .rewrite_digest(&RewriteDigest::new(
                &ids[0],
                "The pool ran dry at noon.",
                operator(),
                json!("formation"),
                0,
            ))
            .unwrap();
        let wj = serde_json::to_value(&rewritten).unwrap();
        assert_eq!(wj["outcome"], "applied", "[{}] {wj}", s.name);
        assert_eq!(wj["pending_cleared"], json!(["summary"]));
        let row = digest_row(s, &ids[0]);
        assert!(
            !row.attributes.contains_key("pending"),
            "{:?}",
            row.attributes
        );
        assert_eq!(row.attributes["title"], "The dry pool");
        assert!(
            all_tasks(s)
                .iter()
                .all(|t| t.status == am_journal::TaskStatus::Done)
        );
        json!([rj["pending_cleared"], wj["pending_cleared"]])
    });
}

#[test]
fn pending_records_lists_what_rearm_would_rearm_or_what_has_a_live_task() {
    use am_system::tasks::{Claim, PendingRecords};
    both(|s| {
        let ids = form(
            s,
            vec![
                untitled(RecordKind::Episode, "First."),
                MemoryRecordInput::new(RecordKind::Episode, "Plain", "Plain."),
            ],
            "k1",
        )
        .unwrap();
        let all = s
            .system
            .pending_records(&PendingRecords {
                live_task: None,
                ..PendingRecords::default()
            })
            .unwrap();
        assert_eq!(all.len(), 1, "[{}]", s.name);
        assert_eq!(all[0].record_id, ids[0]);
        assert_eq!(all[0].fields, ["title"]);
        assert!(all[0].live["title"].is_some());
        // Its task is live: not among the records to re-arm.
        assert!(
            s.system
                .pending_records(&PendingRecords::default())
                .unwrap()
                .is_empty()
        );
        // Its task runs out (max_attempts claims): now it is.
        let q = s.system.tasks().unwrap();
        let tid = all[0].live["title"].clone().unwrap();
        for now in [
            "2026-03-01T12:00:00Z",
            "2026-03-01T13:00:00Z",
            "2026-03-01T14:00:00Z",
        ] {
            q.claim(&Claim {
                now: Some(now.parse().unwrap()),
                ..Claim::new(vec![tid.clone()], "h")
            })
            .unwrap();
        }
        q.claim(&Claim {
            now: Some("2026-03-01T15:00:00Z".parse().unwrap()),
            ..Claim::new(vec![tid.clone()], "h")
        })
        .unwrap();
        let rearm = s
            .system
            .pending_records(&PendingRecords::default())
            .unwrap();
        assert_eq!(rearm.len(), 1, "[{}]", s.name);
        assert_eq!(rearm[0].unowned, ["title"]);
        json!(rearm)
    });
}

#[test]
fn each_claim_of_an_authoring_task_is_mirrored_into_the_markers_attempts() {
    use am_system::tasks::{Claim, ClaimTasks, Release, ReleaseOutcome};
    let later = "2026-03-01T13:00:00.000000+00:00";
    both(|s| {
        let r = untitled(RecordKind::Episode, "The pool ran dry at noon.")
            .with_pending(&["title", "summary"]);
        let ids = form(s, vec![r], "k1").unwrap();
        let attempts = || digest_row(s, &ids[0]).attributes["pending"]["attempts"].clone();
        assert_eq!(attempts(), json!(0));
        let q = s.system.tasks().unwrap();
        let of = |kind: TaskKind| {
            all_tasks(s)
                .into_iter()
                .find(|t| t.kind == kind)
                .unwrap()
                .task_id
        };
        let (title, summary) = (of(TaskKind::TitleAuthor), of(TaskKind::DigestAuthor));
        let claim = |id: &str, now: Option<&str>| {
            let mut c = Claim::new(ClaimTasks::Ids(vec![id.to_owned()]), "drainer");
            c.now = now.map(|n| n.parse().unwrap());
            let out = q.claim(&c).unwrap();
            assert_eq!(out.claimed.len(), 1, "[{}] {out:?}", s.name);
        };
        let mut seen = Vec::new();
        claim(&title, None);
        seen.push(attempts());
        q.release(&Release::new(
            &title,
            "drainer",
            ReleaseOutcome::Retry,
            "model_error",
        ))
        .unwrap();
        claim(&title, None);
        seen.push(attempts());
        // The other field's first claim does not lower it (the highest claim
        // count of the record's authoring tasks).
        claim(&summary, None);
        seen.push(attempts());
        // An expired lease claimed again is a claim too.
        claim(&title, Some(later));
        seen.push(attempts());
        assert_eq!(
            seen,
            vec![json!(1), json!(2), json!(2), json!(3)],
            "[{}]",
            s.name
        );
        // Only the marker moved: the words, the title and the flags stand.
        let row = digest_row(s, &ids[0]);
        assert_eq!(row.object, "The pool ran dry at noon.");
        assert_eq!(row.attributes["title"], Value::Null);
        assert_eq!(row.attributes["pending"]["title"], true);
        assert_eq!(row.attributes["pending"]["summary"], true);
        assert_eq!(row.attributes["pending"]["since"], NOW);
        json!(seen)
    });
}

#[test]
fn a_claim_of_a_task_that_is_not_a_pending_fields_authoring_leaves_the_row_alone() {
    use am_system::tasks::{Claim, ClaimTasks};
    both(|s| {
        let mut r =
            MemoryRecordInput::new(RecordKind::Episode, "Dry pool", "The pool ran dry at noon.");
        r = r.with_attribute("digest_method", "mechanical-v1");
        let ids = form(s, vec![r], "k1").unwrap();
        let before = digest_row(s, &ids[0]);
        let t = all_tasks(s);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].kind, TaskKind::DigestRewrite);
        let q = s.system.tasks().unwrap();
        let out = q
            .claim(&Claim::new(
                ClaimTasks::Ids(vec![t[0].task_id.clone()]),
                "drainer",
            ))
            .unwrap();
        assert_eq!(out.claimed.len(), 1);
        assert_eq!(digest_row(s, &ids[0]), before, "[{}]", s.name);
        json!(out.claimed[0].attempts)
    });
}

#[test]
fn record_understanding_and_display_blocks_carry_pending_while_being_written() {
    use am_system::Retitle;
    use am_system::observe::replay::ExportReplay;
    both(|s| {
        let r = untitled(RecordKind::Episode, "The pool ran dry at noon.")
            .with_pending(&["title", "summary"]);
        let ids = form(s, vec![r], "k1").unwrap();
        let display = || -> Vec<Value> {
            s.system
                .export_replay(&ExportReplay::default())
                .unwrap()
                .map(|e| serde_json::to_value(e.unwrap()).unwrap())
                .filter_map(|e| e.get("display").cloned())
                .filter(|d| d.get("graph_id") == Some(&json!(ids[0])))
                .collect()
        };
        let u = serde_json::to_value(s.system.record_understanding(&ids[0]).unwrap()).unwrap();
        assert_eq!(
            u["pending"],
            json!(["title", "summary"]),
            "[{}] {u}",
            s.name
        );
        assert_eq!(u["title"], Value::Null);
        let blocks = display();
        assert!(!blocks.is_empty(), "[{}]", s.name);
        for d in &blocks {
            assert_eq!(
                d["pending"],
                json!(["title", "summary"]),
                "[{}] {d}",
                s.name
            );
            assert!(d.get("title").is_none_or(Value::is_null), "{d}");
        }
        s.system
            .retitle(&Retitle::new(
                &ids[0],
                "The dry pool",
                operator(),
                json!("formation"),
                0,
            ))
            .unwrap();
        let u2 = serde_json::to_value(s.system.record_understanding(&ids[0]).unwrap()).unwrap();
        assert_eq!(u2["pending"], json!(["summary"]), "[{}] {u2}", s.name);
        assert_eq!(u2["title"], "The dry pool");
        for d in display() {
            assert_eq!(d["pending"], json!(["summary"]), "[{}] {d}", s.name);
        }
        json!([u["pending"], u2["pending"]])
    });
}

/// `invalid_result` end to end: an author answer whose provenance is
/// refused (a mechanical author, a model author without its reader and
/// ledger source) forms the record pending for every wanted field; one
/// whose wanted field is missing or empty stores what was authored and
/// forms the rest pending. The failure rides the marker, its tasks are
/// queued, the receipt carries it.
#[test]
fn an_unusable_author_result_forms_pending_invalid_result_with_its_tasks_and_receipt() {
    both(|s| {
        let answers: Vec<(&str, Authored)> = vec![
            (
                "mechanical",
                Authored {
                    title: Some("A night of rivers".into()),
                    summary: Some("Rivers ran through the night.".into()),
                    author: json!({"kind": "mechanical", "id": "pass"})
                        .as_object()
                        .unwrap()
                        .clone(),
                    ..Authored::default()
                },
            ),
            (
                "model-without-reader",
                Authored {
                    title: Some("A night of rivers".into()),
                    summary: Some("Rivers ran through the night.".into()),
                    author: json!({"kind": "capability-model", "id": "m"})
                        .as_object()
                        .unwrap()
                        .clone(),
                    ..Authored::default()
                },
            ),
            (
                "empty-summary",
                Authored {
                    title: Some("A night of rivers".into()),
                    summary: Some("  ".into()),
                    author: operator().to_map(),
                    ..Authored::default()
                },
            ),
            (
                "missing-title",
                Authored {
                    summary: Some("Rivers ran through the night.".into()),
                    author: operator().to_map(),
                    ..Authored::default()
                },
            ),
        ];
        let mut out = Vec::new();
        for (name, answer) in answers {
            let author = move |_: &str,
                               _: &str,
                               _: &AuthorContext|
                  -> Result<Authored, AuthorError> { Ok(answer.clone()) };
            let args = FormAuthored {
                idempotency_key: format!("night-{name}"),
                ..dream_pass(&[AuthorField::Title, AuthorField::Summary])
            };
            let before = all_tasks(s).len();
            let r = s
                .system
                .form_authored_or_pending(&args, Some(&author))
                .unwrap();
            let id = &r.record_ids[0];
            let row = digest_row(s, id);
            let marker = &row.attributes["pending"];
            let failure = &marker["failure"];
            assert_eq!(failure["reason"], "invalid_result", "[{}] {name}", s.name);
            assert_eq!(failure["error_class"], Value::Null, "[{}] {name}", s.name);
            assert!(
                failure["message"].as_str().is_some_and(|m| !m.is_empty()),
                "[{}] {name}",
                s.name
            );
            assert_eq!(failure["at"], NOW);
            let (left, authored): (&[&str], &[AuthorField]) = match name {
                "empty-summary" => (&["summary"], &[AuthorField::Title]),
                "missing-title" => (&["title"], &[AuthorField::Summary]),
                _ => (&["title", "summary"], &[]),
            };
            assert_eq!(failure["fields"], json!(left), "[{}] {name}", s.name);
            for f in ["title", "summary"] {
                assert_eq!(
                    marker[f],
                    json!(left.contains(&f)),
                    "[{}] {name} {f}",
                    s.name
                );
            }
            // What was authored stands with its provenance; the rest waits.
            if authored.contains(&AuthorField::Title) {
                assert_eq!(row.attributes["title"], "A night of rivers");
                assert!(row.attributes.contains_key("title_provenance"));
            } else {
                assert_eq!(row.attributes["title"], Value::Null, "[{}] {name}", s.name);
                assert!(!row.attributes.contains_key("title_provenance"));
            }
            if authored.contains(&AuthorField::Summary) {
                assert_eq!(row.object, "Rivers ran through the night.");
                assert_eq!(row.attributes["digest_method"], "authored-v1");
            } else {
                assert_eq!(
                    row.object, "The night's composition.",
                    "[{}] {name}",
                    s.name
                );
            }
            // One authoring task per field left pending.
            let mut kinds: Vec<TaskKind> = all_tasks(s)
                .iter()
                .filter(|t| &t.target_id == id)
                .map(|t| t.kind)
                .collect();
            kinds.sort();
            let mut want: Vec<TaskKind> = left
                .iter()
                .map(|f| {
                    if *f == "title" {
                        TaskKind::TitleAuthor
                    } else {
                        TaskKind::DigestAuthor
                    }
                })
                .collect();
            want.sort();
            assert_eq!(kinds, want, "[{}] {name}", s.name);
            assert_eq!(all_tasks(s).len(), before + left.len());
            // The receipt.
            assert_eq!(r.authoring.failures.len(), 1, "[{}] {name}", s.name);
            let f = &r.authoring.failures[0];
            assert_eq!(f.reason, AuthoringFailureReason::InvalidResult);
            assert_eq!((&f.record_id, f.error_class.as_deref()), (id, None));
            assert_eq!(json!(f.fields), json!(left));
            assert_eq!(
                r.authoring
                    .authored
                    .iter()
                    .flat_map(|a| a.fields.clone())
                    .collect::<Vec<_>>(),
                authored
            );
            out.push(json!([name, failure, r.authoring]));
        }
        json!(out)
    });
}

/// The drainer's loop again, with ANOTHER connection to the same SQLite file
/// claiming the title task and queuing a task on the record between the
/// formation and the verbs (the in-memory stack: the same writes, through
/// its one handle). The verbs' targeted reads and their settlement (in a
/// transaction whose first queue access is a read by id, then a write) run
/// on a handle whose live set is stale; both stacks end with the same tasks
/// and logs, and the SQLite file reads the same on a cold handle.
#[test]
fn verbs_with_task_id_settle_by_target_after_another_connection_wrote_the_queue() {
    use am_system::tasks::{Claim, Enqueue};
    use am_system::{Retitle, RewriteDigest};
    let end = both(|s| {
        let r = untitled(RecordKind::Episode, "The pool ran dry at noon.")
            .with_pending(&["title", "summary"]);
        let ids = form(s, vec![r], "k1").unwrap();
        let other = s._dir.as_ref().map(|d| {
            let home = SqliteHome::open(d.path().join("home.sqlite3")).unwrap();
            let mh = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
            MemorySystem::over_home_with_options(Arc::new(mh), options(None)).unwrap()
        });
        let writer = other.as_ref().unwrap_or(&s.system);
        let title_task = all_tasks(s)
            .into_iter()
            .find(|t| t.kind == TaskKind::TitleAuthor)
            .unwrap()
            .task_id;
        let wq = writer.tasks().unwrap();
        let claimed = wq
            .claim(&Claim::new(vec![title_task.clone()], "drainer"))
            .unwrap();
        assert_eq!(claimed.claimed.len(), 1, "[{}]", s.name);
        let extra = wq
            .enqueue(&Enqueue::new(
                TaskKind::RippleReconsider,
                &ids[0],
                ("session", "s1"),
                &format!("{}@ripple", ids[0]),
                0.5,
                "ripple",
            ))
            .unwrap();
        assert!(extra.enqueued);
        let retitled = s
            .system
            .retitle(&Retitle {
                task_id: Some(title_task.clone()),
                ..Retitle::new(&ids[0], "The dry pool", operator(), json!("formation"), 0)
            })
            .unwrap();
        let rj = serde_json::to_value(&retitled).unwrap();
        assert_eq!(rj["outcome"], "applied", "[{}] {rj}", s.name);
        // Another write between the two verbs.
        wq.supersede_target(&format!("{}-nothing", ids[0]), "none")
            .unwrap();
        wq.enqueue(&Enqueue::new(
            TaskKind::DigestRewrite,
            "ex:elsewhere",
            ("session", "s1"),
            "ex:elsewhere@v0",
            0.5,
            "backfill",
        ))
        .unwrap();
        let rewritten = s
            .system
            .rewrite_digest(&RewriteDigest::new(
                &ids[0],
                "The pool ran dry at noon.",
                operator(),
                json!("formation"),
                0,
            ))
            .unwrap();
        let wj = serde_json::to_value(&rewritten).unwrap();
        assert_eq!(
            wj["pending_cleared"],
            json!(["summary"]),
            "[{}] {wj}",
            s.name
        );
        let q = s.system.tasks().unwrap();
        let tasks = all_tasks(s);
        let by_target = q
            .tasks(&ListTasks {
                target_id: Some(ids[0].clone()),
                ..ListTasks::default()
            })
            .unwrap();
        let logs: Vec<_> = tasks.iter().map(|t| q.log(&t.task_id).unwrap()).collect();
        let seen = json!({"tasks": tasks, "by_target": by_target, "logs": logs});
        if let Some(d) = &s._dir {
            let home = SqliteHome::open(d.path().join("home.sqlite3")).unwrap();
            let mh = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
            let cold = MemorySystem::over_home_with_options(Arc::new(mh), options(None)).unwrap();
            let cq = cold.tasks().unwrap();
            let ctasks = cq.tasks(&ListTasks::default()).unwrap();
            let cby = cq
                .tasks(&ListTasks {
                    target_id: Some(ids[0].clone()),
                    ..ListTasks::default()
                })
                .unwrap();
            let clogs: Vec<_> = ctasks.iter().map(|t| cq.log(&t.task_id).unwrap()).collect();
            assert_eq!(
                json!({"tasks": ctasks, "by_target": cby, "logs": clogs}),
                seen,
                "a cold handle reads the file otherwise"
            );
        }
        // The ids are hashes of the same inputs on both stacks; the record
        // ids are not, so compare statuses and events by kind.
        json!(
            tasks
                .iter()
                .zip(&logs)
                .map(|(t, l)| json!({
                    "kind": t.kind.as_str(),
                    "status": t.status.as_str(),
                    "events": l.iter().map(|r| r.event.clone()).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>()
        )
    });
    assert_eq!(
        end,
        json!([
            {"kind": "title.author", "status": "done", "events": ["enqueued", "claimed", "completed"]},
            {"kind": "digest.author", "status": "done", "events": ["enqueued", "completed"]},
            {"kind": "ripple.reconsider", "status": "pending", "events": ["enqueued"]},
            {"kind": "digest.rewrite", "status": "pending", "events": ["enqueued"]},
        ])
    );
}
