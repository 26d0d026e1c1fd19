//! The one home set-up every module of this binary shares: the pair, the
//! stacks (both, with or without the task queue), a record with its origin,
//! one formation, and a system over an oracle copy.

use crate::common::{Stack, on_both_with, pinned_clock};
use am_journal::MemoryJournal;
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany, SystemOptions};
use am_triples::{JsonMap, TripleStore};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

pub(crate) const SCOPE: &str = "life";
pub(crate) const OWNER: &str = "entity:castor";

/// Run `check` on both stacks, opened without a task queue.
pub(crate) fn on_both(check: impl Fn(&Stack)) {
    on_both_with(SystemOptions::default, check);
}

/// The options of a home with its task queue and the pinned clock.
pub(crate) fn queued() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(pinned_clock()),
        ..SystemOptions::default()
    }
}

/// The options of a home with its task queue and a clock that moves one
/// second per reading (so "later" evidence is later), from the pinned day.
pub(crate) fn ticking() -> SystemOptions {
    let n = Arc::new(AtomicU32::new(0));
    let clock: am_triples::Clock = Arc::new(move || {
        let t = n.fetch_add(1, Ordering::SeqCst);
        am_triples::Timestamp::parse(&format!(
            "2026-03-01T{:02}:{:02}:{:02}.000000+00:00",
            12 + t / 3600,
            (t / 60) % 60,
            t % 60
        ))
        .unwrap()
    });
    SystemOptions {
        task_queue: true,
        clock: Some(clock),
        ..SystemOptions::default()
    }
}

/// A system over an oracle copy's store and journal, with the task queue.
pub(crate) fn system_over(
    store: &Arc<dyn TripleStore>,
    journal: &Arc<dyn MemoryJournal>,
) -> MemorySystem {
    MemorySystem::with_options(store.clone(), journal.clone(), queued()).unwrap()
}

/// A record of `kind` with the origin `(source, actor, session)`.
pub(crate) fn rec(kind: RecordKind, title: &str, origin: (&str, &str, &str)) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(kind, title, &format!("{title}, lived."));
    let mut p = JsonMap::new();
    p.insert("source".into(), json!(origin.0));
    p.insert("actor".into(), json!(origin.1));
    p.insert("session_id".into(), json!(origin.2));
    r.provenance = p;
    if kind == RecordKind::Value {
        r.attributes
            .insert("value_class".into(), json!("revisable"));
    }
    r
}

/// Form `records` in the pair under `key`: their graph ids.
pub(crate) fn form(s: &Stack, key: &str, records: Vec<MemoryRecordInput>) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, SCOPE, OWNER, key))
        .unwrap()
        .value
}
