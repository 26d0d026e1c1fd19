//! What the sleep tests share: stacks with a settable clock and the task
//! queue, a scripted author, record builders, and the "deposits nothing"
//! snapshot.

use crate::common::{Stack, memory_stack, sqlite_stack};
use am_system::formation::authoring::{Author, AuthorContext, AuthorError, Authored};
use am_system::tasks::ListTasks;
use am_system::{Activation, MemoryRecordInput, RecordKind, RememberMany, SystemOptions};
use am_triples::{JsonMap, Timestamp};
use serde_json::json;
use std::sync::{Arc, Mutex};

pub(crate) const SCOPE: &str = "life";
pub(crate) const OWNER: &str = "castor";

/// A clock the test moves.
#[derive(Clone)]
pub(crate) struct Hands(Arc<Mutex<Timestamp>>);

impl Hands {
    pub(crate) fn set(&self, at: &str) {
        *self.0.lock().unwrap() = Timestamp::parse(at).unwrap();
    }
}

fn options(queue: bool, hands: &Hands) -> SystemOptions {
    let h = hands.0.clone();
    SystemOptions {
        task_queue: queue,
        clock: Some(Arc::new(move || *h.lock().unwrap())),
        ..SystemOptions::default()
    }
}

/// Both stacks (with the task queue when `queue`), each with its clock at
/// 2026-03-01 09:00 UTC.
pub(crate) fn stacks(queue: bool) -> Vec<(Stack, Hands)> {
    [memory_stack as fn(SystemOptions) -> Stack, sqlite_stack]
        .into_iter()
        .map(|make| {
            let hands = Hands(Arc::new(Mutex::new(
                Timestamp::parse("2026-03-01T09:00:00+00:00").unwrap(),
            )));
            (make(options(queue, &hands)), hands)
        })
        .collect()
}

/// Form one record under `key` at the stack's current clock.
pub(crate) fn form(s: &Stack, record: MemoryRecordInput, key: &str) -> String {
    s.system
        .remember_many(&RememberMany::new(vec![record], SCOPE, OWNER, key))
        .unwrap()
        .value
        .remove(0)
}

/// An episode with `title` and `digest`.
pub(crate) fn episode(title: &str, digest: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Episode, title, digest)
}

/// The wake-cue loop: the same question asked again and again.
pub(crate) const LOOP: &str = "Woke on the hourly cue and asked again whether the garden sensors reported any frost overnight";

/// An author that writes every wanted field, counting its calls.
pub(crate) fn operator_author(calls: Arc<Mutex<Vec<AuthorContext>>>) -> impl Author {
    move |_kind: &str, body: &str, ctx: &AuthorContext| -> Result<Authored, AuthorError> {
        calls.lock().unwrap().push(ctx.clone());
        let mut who = JsonMap::new();
        who.insert("kind".into(), json!("operator"));
        who.insert("id".into(), json!("laurent"));
        Ok(Authored {
            title: Some("A morning of repeated frost questions".into()),
            summary: Some(format!("The same frost question, asked many times: {body}")),
            author: who,
            ..Authored::default()
        })
    }
}

/// An author that always raises.
pub(crate) fn raising_author() -> impl Author {
    |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
        Err(AuthorError::new(
            "GatewayDown",
            "the model endpoint did not answer",
        ))
    }
}

/// Every task of the stack's queue (kind, target).
pub(crate) fn tasks(s: &Stack) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = s
        .system
        .tasks()
        .map(|q| {
            q.tasks(&ListTasks::default())
                .unwrap()
                .into_iter()
                .map(|t| (t.kind.as_str().to_owned(), t.target_id))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// What a pass must never change: the access counts of `ids` and the
/// pair's stored activation.
pub(crate) fn deposits(s: &Stack, ids: &[String]) -> String {
    let counts = s.system.access_counts(ids, &[]).unwrap();
    let act = s.system.activation(&Activation::new(SCOPE, OWNER)).unwrap();
    format!("{counts:?} {act:?}")
}
