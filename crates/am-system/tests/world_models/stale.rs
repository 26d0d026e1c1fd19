//! `rekey_world_model` refuses `stale` when another writer moves the card
//! between the re-key's read and its write (api.md "World models": the
//! refusals write nothing), on both stacks: two handles on one home, the
//! first handle's clock letting the second re-key the same card once,
//! after the first has read it.

use crate::support::{OWNER, SCOPE, episode, queued};
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{
    AuthorKind, AuthorRef, InMemoryJournal, InMemoryTaskQueue, MemoryJournal, PairHome,
};
use am_system::world_models::{CardsOf, RekeyWorldModel, WorldModelPass, current_world_models};
use am_system::{MemorySystem, Outcome, Reason, RememberMany, SystemOptions};
use am_triples::{InMemoryTripleStore, TripleStore};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

const NOW: &str = "2026-03-01T12:00:00+00:00";

fn rekey(old: &str, new: &str) -> RekeyWorldModel {
    RekeyWorldModel::new(
        old,
        new,
        (SCOPE, OWNER),
        AuthorRef::new(AuthorKind::Operator, "op:ada"),
        json!("repair"),
    )
}

/// Two handles on one home: `first`'s clock, once armed, lets `second`
/// re-key Ada's card to `person:ada-b` before it answers.
struct Pair {
    first: MemorySystem,
    second: Arc<OnceLock<MemorySystem>>,
    armed: Arc<AtomicUsize>,
    _dir: tempfile::TempDir,
}

fn interleaving(second: &Arc<OnceLock<MemorySystem>>, armed: &Arc<AtomicUsize>) -> SystemOptions {
    let (second, armed) = (second.clone(), armed.clone());
    SystemOptions {
        clock: Some(Arc::new(move || {
            // Armed with 2: the re-key reads the clock once as it starts,
            // before it reads the card, and again once its write is
            // prepared; the other writer runs at that second read.
            if armed
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok_and(|n| n == 1)
            {
                let r = second
                    .get()
                    .unwrap()
                    .rekey_world_model(&rekey("person:ada", "person:ada-b"))
                    .unwrap();
                assert_eq!(r.outcome, Outcome::Applied, "the other writer wrote");
            }
            am_triples::Timestamp::parse(NOW).unwrap()
        })),
        ..queued()
    }
}

fn pairs() -> [(&'static str, Pair); 2] {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let home = Arc::new(PairHome::with_task_queue(
        store,
        journal,
        Arc::new(InMemoryTaskQueue::new()),
    ));
    let (second, armed) = (Arc::new(OnceLock::new()), Arc::new(AtomicUsize::new(0)));
    let mem = Pair {
        first: MemorySystem::over_home_with_options(home.clone(), interleaving(&second, &armed))
            .unwrap(),
        second: second.clone(),
        armed,
        _dir: tempfile::tempdir().unwrap(),
    };
    let _ = mem
        .second
        .set(MemorySystem::over_home_with_options(home, queued()).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let open = || {
        let h = SqliteHome::open(&path).unwrap();
        Arc::new(SqliteMemoryHome::open(&h, None, SqliteStoreOptions::default()).unwrap())
    };
    let (second, armed) = (Arc::new(OnceLock::new()), Arc::new(AtomicUsize::new(0)));
    let first =
        MemorySystem::over_home_with_options(open(), interleaving(&second, &armed)).unwrap();
    let _ = second.set(MemorySystem::over_home_with_options(open(), queued()).unwrap());
    let sq = Pair {
        first,
        second,
        armed,
        _dir: dir,
    };
    [("memory", mem), ("sqlite", sq)]
}

#[test]
fn rekey_refuses_stale_when_another_writer_moves_the_card_between_read_and_write() {
    let mut answers = Vec::new();
    for (name, p) in pairs() {
        let ada: Vec<_> = (0..3)
            .map(|i| {
                episode(
                    &format!("Ada {i}"),
                    &format!("Ada and the garden, {i}."),
                    &["person:ada"],
                )
            })
            .collect();
        p.first
            .remember_many(&RememberMany::new(ada, SCOPE, OWNER, "a"))
            .unwrap();
        p.first
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        let seq = p.first.journal().current_seq().unwrap();
        p.armed.store(2, Ordering::SeqCst);
        let r = p
            .first
            .rekey_world_model(&rekey("person:ada", "person:ada-lovelace"))
            .unwrap();
        assert!(
            p.armed.load(Ordering::SeqCst) == 0,
            "[{name}] the other writer ran"
        );
        assert_eq!(r.outcome, Outcome::Refused(Reason::Stale), "[{name}] {r:?}");
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["applied"], json!(false), "[{name}]");
        assert!(v.get("version_id").is_none(), "[{name}] {v}");
        // What stands is the other writer's move, and only it: the stale
        // re-key wrote no version row and moved nothing.
        let cards = current_world_models(
            p.first.store().as_ref(),
            Some(p.first.journal().as_ref()),
            &CardsOf::new(SCOPE, OWNER),
        )
        .unwrap();
        assert_eq!(
            cards.keys().collect::<Vec<_>>(),
            vec!["person:ada-b"],
            "[{name}]"
        );
        assert_eq!(
            cards["person:ada-b"].attributes["aliases"],
            json!(["person:ada"]),
            "[{name}]"
        );
        let versions = p
            .first
            .versions(&cards["person:ada-b"].subject, Some("target"))
            .unwrap();
        let keys: Vec<_> = versions.iter().map(|v| v.version.text.as_deref()).collect();
        assert_eq!(
            keys,
            [Some("person:ada"), Some("person:ada-b")],
            "[{name}] the other writer's move only"
        );
        // The other writer's move is the journal's only growth.
        let after = p.first.journal().current_seq().unwrap();
        let by_second = p.second.get().unwrap().journal().current_seq().unwrap();
        assert_eq!(after, by_second, "[{name}]");
        assert!(after > seq, "[{name}]");
        answers.push(json!([v["outcome"], v["reason"], v["field"]]));
    }
    assert_eq!(
        answers[0], answers[1],
        "the two stacks answered differently"
    );
}
