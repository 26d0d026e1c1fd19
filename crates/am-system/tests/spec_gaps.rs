//! Small spec gaps, each pinned by its sentence: `close()` "releases the
//! journal only; the store is caller-owned". (Orientation admission, once a
//! gap here, is built: its tests are in `tests/world_models/orientation.rs`.)

mod common;

use am_backend_sqlite::{SqliteHome, SqliteStoreOptions};
use am_journal::ClosureKind;
use am_journal::{InMemoryJournal, MemoryJournal};
use am_system::RecordKind;
use am_system::{
    MemoryRecordInput, MemorySystem, Reconstruct, RememberMany, Stimulus, SystemOptions,
};
use am_triples::{InMemoryTripleStore, TripleQuery, TripleStore};
use common::on_both;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn gated(inner: Arc<dyn MemoryJournal>, closes: &Arc<AtomicUsize>) -> Arc<dyn MemoryJournal> {
    let closes = closes.clone();
    Arc::new(common::GatedJournal::new(inner, move |family| {
        if family == "close" {
            closes.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }))
}

fn rows(store: &dyn TripleStore) -> usize {
    store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .len()
}

#[test]
fn close_releases_the_journal_only_the_store_is_caller_owned() {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let stacks: Vec<(Arc<dyn TripleStore>, Arc<dyn MemoryJournal>)> = vec![
        (
            Arc::new(InMemoryTripleStore::new(None)),
            Arc::new(InMemoryJournal::new()),
        ),
        (
            Arc::new(
                am_backend_sqlite::SQLiteTripleStore::with_home(
                    &home,
                    None,
                    SqliteStoreOptions::default(),
                )
                .unwrap(),
            ),
            Arc::new(am_backend_sqlite::journal::SQLiteJournal::open(&home).unwrap()),
        ),
    ];
    for (store, journal) in stacks {
        let closes = Arc::new(AtomicUsize::new(0));
        let system = MemorySystem::with_options(
            store.clone(),
            gated(journal, &closes),
            SystemOptions {
                clock: Some(common::pinned_clock()),
                ..SystemOptions::default()
            },
        )
        .unwrap();
        system
            .remember_many(&RememberMany::new(
                vec![MemoryRecordInput::new(
                    RecordKind::Lesson,
                    "Pools",
                    "Pools run dry.",
                )],
                "life",
                "ada",
                "k",
            ))
            .unwrap();
        let before = rows(store.as_ref());
        system.close().unwrap();
        assert_eq!(closes.load(Ordering::SeqCst), 1, "the journal was released");
        // The store is the caller's: still open, every row still there.
        assert_eq!(rows(store.as_ref()), before);
    }
}

/// The display titles the stream serves for `id`, envelope by envelope.
fn titles_of(envelopes: &[serde_json::Value], graph_id: &str) -> Vec<serde_json::Value> {
    let id = serde_json::json!(graph_id);
    envelopes
        .iter()
        .filter(|e| e["display"]["record_id"] == id || e["display"]["graph_id"] == id)
        .map(|e| e["display"]["title"].clone())
        .collect()
}

#[test]
fn a_record_rewritten_during_a_replay_stream_shows_its_new_reading_in_later_envelopes() {
    on_both(|s| {
        let ids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Lesson, "Pools", "Pools run dry."),
                    MemoryRecordInput::new(RecordKind::Lesson, "Beans", "Beans climb poles."),
                ],
                "life",
                "castor",
                "replay-memo",
            ))
            .unwrap()
            .value;
        let aid = s.system.resolve_assertion_id(&ids[0]).unwrap();
        // Two uses of the first lesson: two `selected` events name it by
        // the same id, one before the rewrite and one after.
        for _ in 0..2 {
            let r = s
                .system
                .reconstruct(&Reconstruct::new(
                    Stimulus::new("pools"),
                    &[("life", "castor")],
                ))
                .unwrap();
            s.system
                .commit_selection(&am_system::CommitSelection::new(
                    &r.trace_id,
                    std::slice::from_ref(&aid),
                ))
                .unwrap();
        }
        let mut stream = s
            .system
            .export_replay(&am_system::observe::replay::ExportReplay::default())
            .unwrap();
        // Read up to the first `selected` event naming it (the memo holds it).
        loop {
            let e = serde_json::to_value(stream.next().unwrap().unwrap()).unwrap();
            if e["family"] == "event" && !titles_of(std::slice::from_ref(&e), &ids[0]).is_empty() {
                assert_eq!(
                    titles_of(std::slice::from_ref(&e), &ids[0]),
                    [serde_json::json!("Pools")],
                    "[{}] {e}",
                    s.name
                );
                break;
            }
        }
        let retitled = s
            .system
            .retitle(&am_system::Retitle::new(
                &ids[0],
                "Pool sizing",
                am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada"),
                serde_json::json!("operator"),
                0,
            ))
            .unwrap();
        assert_eq!(
            retitled.outcome,
            am_system::Outcome::Applied,
            "[{}]",
            s.name
        );
        let rest: Vec<serde_json::Value> = stream
            .map(|e| serde_json::to_value(e.unwrap()).unwrap())
            .collect();
        let later = titles_of(&rest, &ids[0]);
        assert!(!later.is_empty(), "[{}] no later envelope names it", s.name);
        assert!(
            later.iter().all(|t| t == "Pool sizing"),
            "[{}] a later envelope kept the old reading: {later:?}",
            s.name
        );
    });
}

#[test]
fn replaced_by_is_read_per_superseded_record_never_every_closure_of_the_journal_per_stream() {
    for sqlite in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (store, inner): (Arc<dyn TripleStore>, Arc<dyn MemoryJournal>) = if sqlite {
            let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
            (
                Arc::new(
                    am_backend_sqlite::SQLiteTripleStore::with_home(
                        &home,
                        None,
                        SqliteStoreOptions::default(),
                    )
                    .unwrap(),
                ),
                Arc::new(am_backend_sqlite::journal::SQLiteJournal::open(&home).unwrap()),
            )
        } else {
            (
                Arc::new(InMemoryTripleStore::new(None)),
                Arc::new(InMemoryJournal::new()),
            )
        };
        let full_reads = Arc::new(AtomicUsize::new(0));
        let counter = full_reads.clone();
        let journal: Arc<dyn MemoryJournal> =
            Arc::new(common::GatedJournal::new(inner, move |family| {
                if family == "closures:all" {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
                Ok(())
            }));
        let system = MemorySystem::with_options(
            store,
            journal,
            SystemOptions {
                clock: Some(common::pinned_clock()),
                ..SystemOptions::default()
            },
        )
        .unwrap();
        let ids = system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Lesson, "Pools", "Pools run dry."),
                    MemoryRecordInput::new(
                        RecordKind::Lesson,
                        "Pools again",
                        "Pools run dry at noon.",
                    ),
                ],
                "life",
                "castor",
                "superseded",
            ))
            .unwrap()
            .value;
        system
            .close_record(
                &am_system::CloseRecord::new(&ids[0], ClosureKind::Supersede, "newer")
                    .replaced_by(&[ids[1].clone()]),
            )
            .unwrap();
        full_reads.store(0, Ordering::SeqCst);
        let envelopes: Vec<serde_json::Value> = system
            .export_replay(&am_system::observe::replay::ExportReplay::default())
            .unwrap()
            .map(|e| serde_json::to_value(e.unwrap()).unwrap())
            .collect();
        assert!(
            envelopes
                .iter()
                .any(|e| e["display"]["replaced_by"].is_string()),
            "[sqlite={sqlite}] the superseded record names its replacement"
        );
        assert_eq!(
            full_reads.load(Ordering::SeqCst),
            0,
            "[sqlite={sqlite}] the stream read every closure of the journal"
        );
    }
}

/// Another connection's rewrite is not in this handle's write mark: the
/// stream reads the head again at each new page, so the new reading shows
/// from the next page of the journal on (`PAGE_SEQS` = 1,024 seqs).
#[test]
fn a_rewrite_through_another_connection_shows_in_the_stream_from_its_next_page_on() {
    use am_backend_sqlite::SqliteMemoryHome;
    use am_journal::{EventKind, MemoryEvent};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let open = || {
        let home = SqliteHome::open(&path).unwrap();
        let memory_home =
            Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
        MemorySystem::over_home(memory_home)
    };
    let first = open();
    let ids = first
        .remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(
                RecordKind::Lesson,
                "Pools",
                "Pools run dry.",
            )],
            "life",
            "castor",
            "replay-pages",
        ))
        .unwrap()
        .value;
    let aid = first.resolve_assertion_id(&ids[0]).unwrap();
    let events: Vec<MemoryEvent> = (0..3_000)
        .map(|_| MemoryEvent::on_record(EventKind::Listed, &aid, "life", "castor"))
        .collect();
    first.journal().append_events(&events).unwrap();
    let mut stream = first
        .export_replay(&am_system::observe::replay::ExportReplay::default())
        .unwrap();
    loop {
        // The first `listed` event: its row is in the stream's memo now.
        let e = serde_json::to_value(stream.next().unwrap().unwrap()).unwrap();
        if e["payload"]["kind"] == "listed" {
            assert_eq!(
                titles_of(std::slice::from_ref(&e), &ids[0]),
                ["Pools"],
                "{e}"
            );
            break;
        }
    }
    let second = open();
    let retitled = second
        .retitle(&am_system::Retitle::new(
            &ids[0],
            "Pool sizing",
            am_system::AuthorRef::new(am_system::AuthorKind::Operator, "ada"),
            serde_json::json!("operator"),
            0,
        ))
        .unwrap();
    assert_eq!(retitled.outcome, am_system::Outcome::Applied);
    let rest: Vec<serde_json::Value> = stream
        .map(|e| serde_json::to_value(e.unwrap()).unwrap())
        .filter(|e| e["seq"].as_i64().unwrap() > 1_024)
        .collect();
    let later = titles_of(&rest, &ids[0]);
    assert!(
        later.len() > 1_000,
        "{} later envelopes name it",
        later.len()
    );
    assert!(
        later.iter().all(|t| t == "Pool sizing"),
        "an envelope after the first page kept the old reading"
    );
}
