//! Helpers the ripple tests share: a queue-backed stack pair, linked
//! records, a scripted reader.

use crate::common::{Stack, memory_stack, sqlite_stack};
use am_journal::{AuthorKind, AuthorRef, TaskRow};
use am_system::ripple::{
    Decision, GateDecision, ReconsiderOutcome, SeedResult, SeedRipple, SettleReconsideration,
    SettleResult,
};
use am_system::tasks::{Claim, ClaimTasks, ListTasks};
use am_system::understanding::args::RewriteDigest;
use am_system::{MemoryRecordInput, RecordKind, RememberMany, SystemOptions};
use serde_json::json;

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

/// Form one record of `kind` with `edges` (`(relation, target)`), owned by
/// `owner`; its graph id.
pub(crate) fn form_as(
    s: &Stack,
    owner: &str,
    kind: RecordKind,
    name: &str,
    edges: &[(&str, &str)],
) -> String {
    let mut r = MemoryRecordInput::new(kind, name, &format!("{name}: what was held."));
    r.edges = edges
        .iter()
        .map(|(rel, t)| ((*rel).to_owned(), (*t).to_owned()))
        .collect();
    if kind == RecordKind::Value {
        r.attributes
            .insert("value_class".into(), json!("revisable"));
    }
    s.system
        .remember_many(&RememberMany::new(
            vec![r],
            SCOPE,
            owner,
            &format!("k-{name}"),
        ))
        .unwrap()
        .value
        .remove(0)
}

/// [`form`] with the record adjusted by `adjust` first.
pub(crate) fn form_with(
    s: &Stack,
    kind: RecordKind,
    name: &str,
    edges: &[(&str, &str)],
    adjust: impl Fn(&mut MemoryRecordInput),
) -> String {
    let mut r = MemoryRecordInput::new(kind, name, &format!("{name}: what was held."));
    r.edges = edges
        .iter()
        .map(|(rel, t)| ((*rel).to_owned(), (*t).to_owned()))
        .collect();
    adjust(&mut r);
    s.system
        .remember_many(&RememberMany::new(
            vec![r],
            SCOPE,
            OWNER,
            &format!("k-{name}"),
        ))
        .unwrap()
        .value
        .remove(0)
}

/// [`form_as`] for the home owner.
pub(crate) fn form(s: &Stack, kind: RecordKind, name: &str, edges: &[(&str, &str)]) -> String {
    form_as(s, OWNER, kind, name, edges)
}

/// An episode with `edges`.
pub(crate) fn ep(s: &Stack, name: &str, edges: &[(&str, &str)]) -> String {
    form(s, RecordKind::Episode, name, edges)
}

/// A `backfill` ripple of `seed` with `change`.
pub(crate) fn seeding(seed: &str, change: am_system::ripple::Change) -> SeedRipple {
    let mut a = SeedRipple::new(seed, json!({"cause": "backfill", "task_id": "t-seed"}));
    a.change = change;
    a
}

pub(crate) fn seed(s: &Stack, args: &SeedRipple) -> SeedResult {
    s.system.seed_ripple(args).unwrap().value
}

/// The decision on `id` (the last one made).
pub(crate) fn on<'a>(decisions: &'a [GateDecision], id: &str) -> &'a GateDecision {
    decisions
        .iter()
        .rev()
        .find(|d| d.record_id == id)
        .unwrap_or_else(|| panic!("no decision on {id}: {decisions:#?}"))
}

pub(crate) fn close_to(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// `1 / (1 + e^-6(p − 0.5))`, written out.
pub(crate) fn logistic(p: f64) -> f64 {
    1.0 / (1.0 + (-6.0 * (p - 0.5)).exp())
}

pub(crate) fn assert_decision(d: &GateDecision, decision: Decision, potential: f64) {
    assert_eq!(d.decision, decision, "{d:#?}");
    assert!(
        close_to(d.potential, potential),
        "{d:#?} (want {potential})"
    );
    assert!(close_to(d.activation, logistic(potential)), "{d:#?}");
}

/// The live `ripple.reconsider` task on `target`.
pub(crate) fn task_on(s: &Stack, ripple_id: &str, target: &str) -> TaskRow {
    s.system
        .tasks()
        .unwrap()
        .tasks(&ListTasks {
            ripple_id: Some(ripple_id.to_owned()),
            target_id: Some(target.to_owned()),
            ..ListTasks::default()
        })
        .unwrap()
        .into_iter()
        .find(|t| t.status.is_live())
        .unwrap_or_else(|| panic!("no live task on {target}"))
}

/// The reader's side: claim the task on `target`, rewrite its digest as
/// the host does (`cause: ripple`, `task_id`), then settle it `rewritten`.
pub(crate) fn rewrite_and_settle(
    s: &Stack,
    ripple_id: &str,
    target: &str,
    change: am_system::ripple::Change,
) -> SettleResult {
    let t = task_on(s, ripple_id, target);
    claim(s, &t);
    let mut rw = RewriteDigest::new(
        target,
        &format!("{target}: read again after the change."),
        AuthorRef::new(AuthorKind::Operator, "op:reader"),
        json!({"cause": "ripple", "ripple_id": ripple_id, "task_id": t.task_id}),
        t.basis_version,
    );
    rw.task_id = Some(t.task_id.clone());
    let out = s.system.rewrite_digest(&rw).unwrap();
    assert!(out.outcome.applied(), "{out:?}");
    let mut settle = SettleReconsideration::new(&t.task_id, "reader", ReconsiderOutcome::Rewritten);
    settle.change = Some(change);
    s.system.settle_reconsideration(&settle).unwrap().value
}

/// `settle_reconsideration` of `task_id` by `holder` with `outcome`, no
/// change or distance given.
pub(crate) fn settle_as(
    s: &Stack,
    task_id: &str,
    holder: &str,
    outcome: ReconsiderOutcome,
) -> am_system::Result<am_system::Warned<SettleResult>> {
    s.system
        .settle_reconsideration(&SettleReconsideration::new(task_id, holder, outcome))
}

pub(crate) fn claim(s: &Stack, t: &TaskRow) {
    let c = Claim::new(ClaimTasks::Ids(vec![t.task_id.clone()]), "reader");
    let r = s.system.tasks().unwrap().claim(&c).unwrap();
    assert_eq!(r.claimed.len(), 1, "{r:?}");
}
