//! `MemorySystem` with a `commit_guard`: it is installed on the store and the
//! journal; the facade's writes report their commit points and a refusal
//! writes nothing and reaches the caller as the guard's own error; a store
//! type that cannot call a guard is refused (`Unsupported`), naming the type.
//!
//! (Every write verb of every store, journal, graph connector and home is
//! enumerated in `am-backend-sqlite/tests/commit_guard.rs`.)
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Commit guard".

mod common;

use am_journal::InMemoryJournal;
use am_journal::SearchState;
use am_system::RecordKind;
use am_system::{
    Bind, CloseAssertions, CloseRecord, MemoryRecordInput, MemorySystem, NarrateDream,
    RememberMany, Retitle, RewriteDigest, SystemOptions,
};
use am_triples::{
    Capabilities, CommitGuard, ErrorKind, InMemoryTripleStore, TripleAssertion, TripleQuery,
    TripleStore,
};
use common::{on_both_with, written};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the operator pressed Stop")
    }
}

impl std::error::Error for Stopped {}

#[derive(Clone, Default)]
struct Host {
    calls: Arc<Mutex<Vec<String>>>,
    stopped: Arc<AtomicBool>,
}

impl Host {
    fn options(&self) -> SystemOptions {
        let host = self.clone();
        SystemOptions {
            commit_guard: Some(CommitGuard::new(move |point| {
                host.calls.lock().unwrap().push(point.to_owned());
                if host.stopped.load(Ordering::SeqCst) {
                    Err(Box::new(Stopped))
                } else {
                    Ok(())
                }
            })),
            ..SystemOptions::default()
        }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
}

fn records() -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new(
            RecordKind::Lesson,
            "Pools",
            "Connection pools exhaust under load.",
        ),
        MemoryRecordInput::new(
            RecordKind::Episode,
            "Outage",
            "The outage followed the exhaustion.",
        )
        .with_edge("follows", "local:0"),
    ]
}

/// Spec api.md "Commit guard": an understanding write commits at
/// `understanding.<field>`: a world-model card's text at `understanding.card`,
/// a pending declaration and its re-arm at `understanding.pending`.
#[test]
fn an_understanding_write_commits_at_understanding_field_card_and_pending_included() {
    let host = Host::default();
    on_both_with(
        || SystemOptions {
            task_queue: true,
            ..host.options()
        },
        |s| {
            let operator = am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada");
            let card = MemoryRecordInput::new(RecordKind::WorldModel, "Ada", "placeholder")
                .with_pending(&["summary"]);
            let ids = s
                .system
                .remember_many(&RememberMany::new(
                    vec![
                        card,
                        MemoryRecordInput::new(RecordKind::Episode, "Beds", "Bram builds beds."),
                    ],
                    "session",
                    "s1",
                    "cards",
                ))
                .unwrap();
            host.take();
            let r = s
                .system
                .rewrite_digest(&RewriteDigest::new(
                    &ids[0],
                    "Ada leases plot 14 and plants in April.",
                    operator.clone(),
                    serde_json::json!("repair"),
                    0,
                ))
                .unwrap();
            assert!(
                matches!(r.outcome, am_system::Outcome::Applied),
                "{}: {r:?}",
                s.name
            );
            assert_eq!(
                host.take(),
                ["understanding.card"],
                "{}: a card's text",
                s.name
            );
            let d = s
                .system
                .declare_pending(&am_system::DeclarePending::new(&ids[1]))
                .unwrap();
            assert!(
                matches!(d.outcome, am_system::Outcome::Applied),
                "{}: {d:?}",
                s.name
            );
            assert_eq!(
                host.take(),
                ["understanding.pending"],
                "{}: declare_pending",
                s.name
            );
            let q = s.system.tasks().unwrap();
            let gone = q
                .supersede_target(&ids[1], "the operator dropped them")
                .unwrap();
            assert!(!gone.is_empty(), "{}", s.name);
            host.take();
            let a = s
                .system
                .rearm_pending(&am_system::RearmPending::new(&ids[1]))
                .unwrap();
            assert!(
                matches!(a.outcome, am_system::Outcome::Rearmed),
                "{}: {a:?}",
                s.name
            );
            assert_eq!(
                host.take(),
                ["understanding.pending"],
                "{}: rearm_pending",
                s.name
            );
        },
    );
}

/// Spec api.md "World models" (`rekey_world_model`): a card's key moves at
/// `understanding.target`, in one transaction.
#[test]
fn a_card_rekey_commits_at_understanding_target() {
    let host = Host::default();
    on_both_with(
        || SystemOptions {
            task_queue: true,
            ..host.options()
        },
        |s| {
            let mut card = MemoryRecordInput::new(RecordKind::WorldModel, "Ada", "Ada, briefly.");
            card.attributes
                .insert("target".into(), serde_json::json!("person:ada"));
            card.attributes
                .insert("revision".into(), serde_json::json!(1));
            s.system
                .remember_many(&RememberMany::new(vec![card], "session", "s1", "cards"))
                .unwrap();
            host.take();
            let r = s
                .system
                .rekey_world_model(&am_system::world_models::RekeyWorldModel::new(
                    "person:ada",
                    "person:ada-l",
                    ("session", "s1"),
                    am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada"),
                    serde_json::json!("repair"),
                ))
                .unwrap();
            assert!(
                matches!(r.outcome, am_system::Outcome::Applied),
                "{}: {r:?}",
                s.name
            );
            assert_eq!(host.take(), ["understanding.target"], "{}", s.name);
            // `retitle` of a pending interest moves its card in ITS
            // transaction: one commit, at `understanding.title`.
            let mut interest = MemoryRecordInput::new(RecordKind::Interest, "", "Why soil rests.");
            interest.title = None;
            interest.pending = vec!["title".into()];
            let gid = s
                .system
                .remember_many(&RememberMany::new(vec![interest], "session", "s1", "i"))
                .unwrap()
                .value[0]
                .clone();
            s.system
                .world_model_pass(
                    &am_system::world_models::WorldModelPass::new(&[("session", "s1")], "s1"),
                    None,
                )
                .unwrap();
            host.take();
            let r = s
                .system
                .retitle(&Retitle::new(
                    &gid,
                    "Soil health",
                    am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada"),
                    serde_json::json!("formation"),
                    0,
                ))
                .unwrap();
            assert_eq!(
                r.extra["card_rekey"]["outcome"], "applied",
                "{}: {r:?}",
                s.name
            );
            assert_eq!(host.take(), ["understanding.title"], "{}", s.name);
        },
    );
}

#[test]
fn a_guarded_system_reports_one_commit_point_per_facade_write() {
    let host = Host::default();
    on_both_with(
        || host.options(),
        |s| {
            host.take();
            let ids = s
                .system
                .remember_many(&RememberMany::new(records(), "session", "s1", "k1"))
                .unwrap();
            assert_eq!(host.take(), ["store.add"], "{}: remember_many", s.name);
            s.system
                .bind(&Bind::new(&ids[0], "session", "s1", SearchState::Hidden))
                .unwrap();
            assert_eq!(host.take(), ["journal"], "{}: bind", s.name);
            s.system
                .add(&[TripleAssertion::new("x", "y", "z")])
                .unwrap();
            assert_eq!(host.take(), ["store.add"], "{}: add", s.name);
            let operator = am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada");
            let cause = serde_json::json!("operator");
            s.system
                .rewrite_digest(&RewriteDigest::new(
                    &ids[0],
                    "Measure, then size.",
                    operator.clone(),
                    cause.clone(),
                    0,
                ))
                .unwrap();
            assert_eq!(
                host.take(),
                ["understanding.digest"],
                "{}: rewrite_digest",
                s.name
            );
            s.system
                .retitle(&Retitle::new(
                    &ids[0],
                    "Measured pools",
                    operator.clone(),
                    cause.clone(),
                    0,
                ))
                .unwrap();
            assert_eq!(host.take(), ["understanding.title"], "{}: retitle", s.name);
            let dream = s
                .system
                .remember_many(&RememberMany::new(
                    vec![MemoryRecordInput::new(
                        RecordKind::Dream,
                        "Night",
                        "Tensions.",
                    )],
                    "session",
                    "s1",
                    "k2",
                ))
                .unwrap();
            host.take();
            s.system
                .narrate_dream(&NarrateDream::new(&dream[0], "I dreamt.", operator))
                .unwrap();
            assert_eq!(
                host.take(),
                ["understanding.narration"],
                "{}: narrate_dream",
                s.name
            );
            // A close of several assertions is one commit: the episode's
            // digest and its `follows` edge.
            let closed = s
                .system
                .close_record(&CloseRecord::retract(&ids[1], "wrong order"))
                .unwrap();
            assert_eq!(closed.len(), 2, "{}: the digest and its edge", s.name);
            assert_eq!(host.take(), ["journal"], "{}: close_record", s.name);
            s.system
                .close_assertions(&CloseAssertions::new(
                    &ids[..],
                    am_journal::ClosureKind::Reinterpreted,
                    "read anew",
                ))
                .unwrap();
            assert_eq!(host.take(), ["journal"], "{}: close_assertions", s.name);
        },
    );
}

#[test]
fn a_refused_formation_writes_nothing_and_returns_the_guards_error() {
    let host = Host::default();
    on_both_with(
        || host.options(),
        |s| {
            let before = written(s);
            host.stopped.store(true, Ordering::SeqCst);
            let err = s
                .system
                .remember_many(&RememberMany::new(records(), "session", "s1", "k1"))
                .unwrap_err();
            host.stopped.store(false, Ordering::SeqCst);
            assert_eq!(err.kind(), ErrorKind::Refused, "{}", s.name);
            let refusal = err.guard_refusal().expect("a guard refusal");
            assert_eq!(refusal.point().as_str(), "store.add");
            assert!(refusal.source_error().downcast_ref::<Stopped>().is_some());
            assert_eq!(written(s), before, "{}: nothing written", s.name);
            // Memory recorded nothing about the refusal: the same call forms once.
            s.system
                .remember_many(&RememberMany::new(records(), "session", "s1", "k1"))
                .unwrap();
            assert_eq!(written(s).seq_delta(&before), 2, "{}", s.name);
        },
    );
}

/// A store whose writes cannot call a guard (the trait's default).
struct Unguardable(InMemoryTripleStore);

impl TripleStore for Unguardable {
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
    fn add(&self, assertions: &[TripleAssertion]) -> am_triples::Result<Vec<String>> {
        self.0.add(assertions)
    }
    fn query(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        self.0.query(q)
    }
    fn close(&self) -> am_triples::Result<()> {
        self.0.close()
    }
}

#[test]
fn a_guard_on_a_store_type_that_cannot_call_one_is_refused_naming_the_type() {
    let err = MemorySystem::with_options(
        Arc::new(Unguardable(InMemoryTripleStore::new(None))),
        Arc::new(InMemoryJournal::new()),
        Host::default().options(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("Unguardable"), "{err}");
}

#[test]
fn a_second_different_guard_on_a_guarded_store_is_refused() {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn am_journal::MemoryJournal> = Arc::new(InMemoryJournal::new());
    let first = Host::default().options();
    MemorySystem::with_options(store.clone(), journal.clone(), first.clone()).unwrap();
    // The same guard again is accepted.
    MemorySystem::with_options(store.clone(), journal.clone(), first).unwrap();
    let err = MemorySystem::with_options(store, journal, Host::default().options()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}
