//! Helpers the world-model tests share: a queue-backed stack pair, lived
//! records, a scripted author.

use crate::common::{Stack, memory_stack, sqlite_stack};
use am_system::formation::authoring::{AuthorContext, AuthorError, Authored};
use am_system::world_models::{CardsOf, current_world_models, standing_world_models};
use am_system::{MemoryRecordInput, RecordKind, RememberMany, SystemOptions};
use am_triples::{JsonMap, TripleAssertion};
use serde_json::json;
use std::collections::BTreeMap;

pub(crate) const OWNER: &str = "entity:castor";
pub(crate) const SCOPE: &str = "life";

pub(crate) fn queued() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        ..SystemOptions::default()
    }
}

/// Run `check` on the in-memory pair and the SQLite home, both with a task
/// queue.
pub(crate) fn on_both(check: impl Fn(&Stack)) {
    for s in [memory_stack(queued()), sqlite_stack(queued())] {
        check(&s);
    }
}

/// A lived episode about `people`.
pub(crate) fn episode(title: &str, digest: &str, people: &[&str]) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(RecordKind::Episode, title, digest);
    r.participants = people.iter().map(|p| (*p).to_owned()).collect();
    r
}

/// Form `records` in the home pair under `key`.
pub(crate) fn live(s: &Stack, key: &str, records: Vec<MemoryRecordInput>) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, SCOPE, OWNER, key))
        .unwrap()
        .value
}

/// Three episodes with Ada (the evidence floor).
pub(crate) fn three_with_ada(s: &Stack, key: &str) -> Vec<String> {
    live(
        s,
        key,
        (0..3)
            .map(|i| {
                episode(
                    &format!("Ada {key} {i}"),
                    &format!("Ada and the garden, {key} {i}."),
                    &["person:ada"],
                )
            })
            .collect(),
    )
}

pub(crate) fn current(s: &Stack) -> BTreeMap<String, TripleAssertion> {
    current_world_models(
        s.store.as_ref(),
        Some(s.journal.as_ref()),
        &CardsOf::new(SCOPE, OWNER),
    )
    .unwrap()
}

pub(crate) fn standing(s: &Stack) -> BTreeMap<String, Vec<TripleAssertion>> {
    standing_world_models(
        s.store.as_ref(),
        Some(s.journal.as_ref()),
        &CardsOf::new(SCOPE, OWNER),
    )
    .unwrap()
}

pub(crate) fn operator() -> JsonMap {
    let mut m = JsonMap::new();
    m.insert("kind".into(), json!("operator"));
    m.insert("id".into(), json!("op:ada"));
    m
}

/// An author that writes every wanted field from the body, and records
/// what it was asked.
pub(crate) fn writer(
    asked: &std::sync::Mutex<Vec<AuthorContext>>,
) -> impl Fn(&str, &str, &AuthorContext) -> Result<Authored, AuthorError> + Send + Sync + '_ {
    move |_kind: &str, body: &str, ctx: &AuthorContext| {
        asked.lock().unwrap().push(ctx.clone());
        let wants = |f: &str| ctx.fields.iter().any(|x| x.as_str() == f);
        Ok(Authored {
            title: wants("title").then(|| "Ada, the neighbour".to_owned()),
            summary: wants("summary").then(|| {
                format!(
                    "Ada is a steady neighbour ({} lines read).",
                    body.lines().count()
                )
            }),
            author: operator(),
            ..Authored::default()
        })
    }
}
