//! The system's card reads (`current_cards`, `standing_cards`) hold the card
//! rows between calls: another handle's writes on the same home must show in
//! the next read, on both stacks (one in-memory home shared by two systems,
//! and two systems on one SQLite file).

use crate::support::{OWNER, SCOPE, episode, queued};
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{
    AuthorKind, AuthorRef, InMemoryJournal, InMemoryTaskQueue, MemoryJournal, PairHome,
};
use am_system::world_models::{
    AuthorWorldModel, CardAuthor, CardsOf, RekeyWorldModel, WorldModelPass, current_world_models,
    standing_world_models,
};
use am_system::{MemorySystem, RememberMany};
use am_triples::{InMemoryTripleStore, TripleStore};
use serde_json::json;
use std::sync::Arc;

/// Two systems on one home, the store and journal they share, and the
/// directory that must outlive them.
struct Handles {
    name: &'static str,
    reader: MemorySystem,
    writer: MemorySystem,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    _dir: tempfile::TempDir,
}

fn both() -> [Handles; 2] {
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let home = Arc::new(PairHome::with_task_queue(
        store.clone(),
        journal.clone(),
        Arc::new(InMemoryTaskQueue::new()),
    ));
    let mem = Handles {
        name: "memory",
        reader: MemorySystem::over_home_with_options(home.clone(), queued()).unwrap(),
        writer: MemorySystem::over_home_with_options(home, queued()).unwrap(),
        store,
        journal,
        _dir: tempfile::tempdir().unwrap(),
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let open = || {
        let h = SqliteHome::open(&path).unwrap();
        Arc::new(SqliteMemoryHome::open(&h, None, SqliteStoreOptions::default()).unwrap())
    };
    let (r, w) = (open(), open());
    let store: Arc<dyn TripleStore> = r.sqlite_store().clone();
    let journal: Arc<dyn MemoryJournal> = r.sqlite_journal().clone();
    let sq = Handles {
        name: "sqlite",
        reader: MemorySystem::over_home_with_options(r, queued()).unwrap(),
        writer: MemorySystem::over_home_with_options(w, queued()).unwrap(),
        store,
        journal,
        _dir: dir,
    };
    [mem, sq]
}

fn ada(h: &Handles, key: &str) {
    let eps = (0..3)
        .map(|i| {
            episode(
                &format!("Ada {key} {i}"),
                &format!("Ada and the garden, {key} {i}."),
                &["person:ada"],
            )
        })
        .collect();
    h.writer
        .remember_many(&RememberMany::new(eps, SCOPE, OWNER, key))
        .unwrap();
}

fn pass(system: &MemorySystem) {
    system
        .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
        .unwrap();
}

/// The reader's two reads against the free functions' whole reads of the
/// same home, row for row.
fn reads_match(h: &Handles, when: &str) {
    let pair = CardsOf::new(SCOPE, OWNER);
    let free = current_world_models(h.store.as_ref(), Some(h.journal.as_ref()), &pair).unwrap();
    assert_eq!(
        h.reader.current_cards(&pair).unwrap(),
        free,
        "[{}] current_cards {when}",
        h.name
    );
    let free = standing_world_models(h.store.as_ref(), Some(h.journal.as_ref()), &pair).unwrap();
    assert_eq!(
        h.reader.standing_cards(&pair).unwrap(),
        free,
        "[{}] standing_cards {when}",
        h.name
    );
}

#[test]
fn a_card_rewritten_in_place_by_another_handle_is_read_fresh() {
    for h in both() {
        ada(&h, "a");
        pass(&h.writer);
        let pair = CardsOf::new(SCOPE, OWNER);
        let before = h.reader.current_cards(&pair).unwrap()["person:ada"].clone();
        let r = h
            .writer
            .author_world_model(&AuthorWorldModel {
                author: CardAuthor::Ref(AuthorRef::new(AuthorKind::Operator, "op:ada")),
                ..AuthorWorldModel::new("person:ada", "Ada holds the lease.", SCOPE, OWNER)
            })
            .unwrap();
        assert!(r.applied && r.in_place, "[{}] {r:?}", h.name);
        let after = &h.reader.current_cards(&pair).unwrap()["person:ada"];
        assert_eq!(
            after.assertion_id, before.assertion_id,
            "[{}] the same row",
            h.name
        );
        assert_eq!(
            after.object, "Ada holds the lease.",
            "[{}] its new words",
            h.name
        );
        assert_eq!(
            after.attributes["authored_lead"],
            json!("Ada holds the lease.")
        );
        reads_match(&h, "after the other handle's in-place authoring");
    }
}

#[test]
fn a_card_revised_or_rekeyed_by_another_handle_is_read_fresh() {
    for h in both() {
        ada(&h, "a");
        pass(&h.writer);
        reads_match(&h, "after the first card");
        let pair = CardsOf::new(SCOPE, OWNER);
        let first = h.reader.current_cards(&pair).unwrap()["person:ada"].clone();
        ada(&h, "b");
        pass(&h.writer);
        let revised = h.reader.current_cards(&pair).unwrap()["person:ada"].clone();
        assert_ne!(
            revised.subject, first.subject,
            "[{}] revision 2 is current",
            h.name
        );
        assert_eq!(
            h.reader.standing_cards(&pair).unwrap()["person:ada"].len(),
            1,
            "[{}] the closed revision 1 leaves the read",
            h.name
        );
        reads_match(&h, "after the other handle's revision");
        let r = h
            .writer
            .rekey_world_model(&RekeyWorldModel::new(
                "person:ada",
                "person:ada-b",
                (SCOPE, OWNER),
                AuthorRef::new(AuthorKind::Operator, "op:ada"),
                json!("repair"),
            ))
            .unwrap();
        assert_eq!(r.outcome, am_system::Outcome::Applied, "[{}] {r:?}", h.name);
        let cards = h.reader.current_cards(&pair).unwrap();
        assert!(
            cards.contains_key("person:ada-b") && !cards.contains_key("person:ada"),
            "[{}] the re-keyed card is read under its new key: {:?}",
            h.name,
            cards.keys().collect::<Vec<_>>()
        );
        reads_match(&h, "after the other handle's re-key");
    }
}
