//! `narrate_dream` settles the dream's `dream.narrate` task: the one the
//! caller names with `task_id`, and, when none is named, the dream's live
//! `dream.narrate` task found by lookup, in the narration's transaction.
//!
//! Spec: api.md "The memory task queue" (the understanding verbs applied
//! "with `task_id=`, which settle the task in the same transaction";
//! `dream_pass` queues `dream.narrate`), "Understanding" (`narrate_dream`;
//! `retitle` completes a pending title's tasks "named or not"). The spec is
//! silent on a narration that names no task; ours settles the dream's task
//! as a pending title's is settled, so a reader that narrates without the id
//! does not leave night-only work standing (and `maintenance_due` due).
//! 0.3.2 has neither the queue nor `narrate_dream`.

use crate::common::{Stack, written};
use crate::support::{OWNER, SCOPE, form, stacks};
use am_journal::{TaskKind, TaskStatus};
use am_system::sleep::{DreamPass, MaintenanceDue};
use am_system::tasks::ListTasks;
use am_system::{
    AuthorKind, AuthorRef, MemoryRecordInput, NarrateDream, Outcome, Reason, RecordKind,
};
use serde_json::json;

/// Two unlinked episodes sharing two facets, and the dream `dream_pass`
/// forms over them (pending, with its `dream.narrate` task): its id.
fn dreamed(s: &Stack) -> String {
    for title in ["Harbor walk at dawn", "Reading tide tables"] {
        let mut r = MemoryRecordInput::new(RecordKind::Episode, title, &format!("{title}, lived."));
        r.keywords = vec!["harbor".into(), "tide".into()];
        form(s, r, title);
    }
    let r = s
        .system
        .dream_pass(&DreamPass::new(&[(SCOPE, OWNER)], OWNER), None)
        .unwrap()
        .value;
    r.dream_record_id.expect("a dream formed")
}

/// The dream's tasks of `kind`: (task id, status).
fn tasks_of(s: &Stack, dream: &str, kind: TaskKind) -> Vec<(String, TaskStatus)> {
    s.system
        .tasks()
        .unwrap()
        .tasks(&ListTasks {
            kind: Some(kind),
            target_id: Some(dream.to_owned()),
            ..ListTasks::default()
        })
        .unwrap()
        .into_iter()
        .map(|t| (t.task_id, t.status))
        .collect()
}

fn pending_night_work(s: &Stack) -> Option<u64> {
    let due = MaintenanceDue {
        tasks: true,
        ..MaintenanceDue::new(&[(SCOPE, OWNER)])
    };
    s.system.maintenance_due(&due).unwrap().pending_tasks
}

fn reader() -> AuthorRef {
    AuthorRef::new(AuthorKind::Operator, "laurent")
}

#[test]
fn a_narration_naming_no_task_settles_the_dreams_live_dream_narrate_task() {
    for (s, _) in stacks(true) {
        let dream = dreamed(&s);
        let waiting = tasks_of(&s, &dream, TaskKind::DreamNarrate);
        assert_eq!(
            waiting.len(),
            1,
            "[{}] dream_pass queued the narration",
            s.name
        );
        assert_eq!(waiting[0].1, TaskStatus::Pending);
        assert_eq!(pending_night_work(&s), Some(1), "[{}]", s.name);
        let r = s
            .system
            .narrate_dream(&NarrateDream::new(
                &dream,
                "I dreamt of the harbor at low tide.",
                reader(),
            ))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        assert_eq!(
            r.extra.get("tasks_completed"),
            Some(&json!([waiting[0].0])),
            "[{}]",
            s.name
        );
        assert_eq!(
            tasks_of(&s, &dream, TaskKind::DreamNarrate),
            [(waiting[0].0.clone(), TaskStatus::Done)],
            "[{}]",
            s.name
        );
        assert_eq!(
            pending_night_work(&s),
            Some(0),
            "[{}] no night-only work stands",
            s.name
        );
        // The dream's pending title and summary are not a narration's to settle.
        for kind in [TaskKind::TitleAuthor, TaskKind::DigestAuthor] {
            let live: Vec<_> = tasks_of(&s, &dream, kind)
                .into_iter()
                .filter(|(_, st)| st.is_live())
                .collect();
            assert_eq!(live.len(), 1, "[{}] {kind:?} still waits", s.name);
        }
    }
}

#[test]
fn a_narration_naming_its_task_settles_it_and_its_version_row_names_it() {
    for (s, _) in stacks(true) {
        let dream = dreamed(&s);
        let task = tasks_of(&s, &dream, TaskKind::DreamNarrate).remove(0).0;
        let mut args = NarrateDream::new(&dream, "The tide tables became a map.", reader());
        args.task_id = Some(task.clone());
        let r = s.system.narrate_dream(&args).unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        assert_eq!(r.extra.get("tasks_completed"), Some(&json!([task])));
        assert_eq!(
            tasks_of(&s, &dream, TaskKind::DreamNarrate),
            [(task.clone(), TaskStatus::Done)]
        );
        let versions = s.system.versions(&dream, Some("narration")).unwrap();
        assert_eq!(versions.len(), 1, "[{}]", s.name);
        assert_eq!(versions[0].version.task_id.as_deref(), Some(task.as_str()));
    }
}

#[test]
fn a_refused_narration_settles_nothing_and_writes_nothing() {
    for (s, _) in stacks(true) {
        let dream = dreamed(&s);
        let before = written(&s);
        let mut stale = NarrateDream::new(&dream, "A narration.", reader());
        stale.expected_version = 3;
        let r = s.system.narrate_dream(&stale).unwrap();
        assert_eq!(
            r.outcome,
            Outcome::Refused(Reason::Stale),
            "[{}] {r:?}",
            s.name
        );
        assert!(r.extra.get("tasks_completed").is_none());
        assert_eq!(
            tasks_of(&s, &dream, TaskKind::DreamNarrate)[0].1,
            TaskStatus::Pending,
            "[{}] the narration still waits",
            s.name
        );
        assert_eq!(written(&s), before, "[{}]", s.name);
        assert_eq!(pending_night_work(&s), Some(1));
    }
}
