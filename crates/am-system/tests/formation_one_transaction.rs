//! Formation on one SQLite home commits the store rows and the formation
//! bindings in ONE transaction (`MemoryHome::transaction` of a
//! `SqliteMemoryHome`): a journal append that fails rolls the store rows back,
//! on a real file. The in-memory pair (`PairHome`) has no shared transaction:
//! its writes are staged and applied after the body, store rows first. A record whose text
//! the offline embedder cannot embed (the zero vector) forms without a vector on
//! both stacks.
//! Spec: api.md `remember_many` ("Formation (typed records)"); architecture.md
//! "A write is one transaction or nothing".

mod common;

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_embed::OfflineEmbedder;
use am_journal::PromptState;
use am_journal::SearchState;
use am_journal::{
    BindingFilter, InMemoryJournal, MemoryHome, MemoryJournal, PairHome, ScopeBinding,
};
use am_system::RecordKind;
use am_system::RememberMany;
use am_system::{MemoryRecordInput, MemorySystem, SystemOptions};
use am_triples::{CommitPoint, ErrorKind};
use am_triples::{InMemoryTripleStore, TextEmbedder, TripleAssertion, TripleQuery, TripleStore};
use std::sync::Arc;

fn batch() -> Vec<MemoryRecordInput> {
    vec![
        MemoryRecordInput::new(
            RecordKind::Lesson,
            "Pools",
            "Connection pools exhaust under load.",
        ),
        MemoryRecordInput::new(
            RecordKind::Episode,
            "Outage",
            "The outage followed the pool exhaustion.",
        )
        .with_edge("follows", "local:0"),
    ]
}

fn options() -> SystemOptions {
    SystemOptions {
        clock: Some(common::pinned_clock()),
        ..SystemOptions::default()
    }
}

struct Home {
    _dir: tempfile::TempDir,
    store: Arc<SQLiteTripleStore>,
    journal: Arc<SQLiteJournal>,
    system: MemorySystem,
}

/// How a test opens its system over one SQLite file.
#[derive(Debug, Clone, Copy)]
enum Opening {
    /// `MemorySystem::over_home_with_options(SqliteMemoryHome::new(..))`, as `am` opens it.
    OverHome,
    /// `MemorySystem::with_options(store, journal)` on one `SqliteHome`.
    WithOptions,
    /// `MemorySystem::new(store, journal)` on one `SqliteHome`.
    New,
    /// `MemorySystem::with_options` with the journal on a second connection
    /// (`SqliteHome::open` twice) of the same file.
    TwoConnections,
}

const OPENINGS: [Opening; 4] = [
    Opening::OverHome,
    Opening::WithOptions,
    Opening::New,
    Opening::TwoConnections,
];

fn sqlite_home(embedder: Option<Arc<dyn TextEmbedder>>) -> Home {
    sqlite_home_opened(embedder, Opening::OverHome)
}

fn sqlite_home_opened(embedder: Option<Arc<dyn TextEmbedder>>, opening: Opening) -> Home {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let store = Arc::new(
        SQLiteTripleStore::with_home(&home, embedder, SqliteStoreOptions::default()).unwrap(),
    );
    let journal = match opening {
        Opening::TwoConnections => {
            Arc::new(SQLiteJournal::open(&SqliteHome::open(&path).unwrap()).unwrap())
        }
        _ => Arc::new(SQLiteJournal::open(&home).unwrap()),
    };
    let system = match opening {
        Opening::OverHome => {
            let memory_home =
                Arc::new(SqliteMemoryHome::new(store.clone(), journal.clone()).unwrap());
            MemorySystem::over_home_with_options(memory_home, options()).unwrap()
        }
        Opening::WithOptions | Opening::TwoConnections => {
            MemorySystem::with_options(store.clone(), journal.clone(), options()).unwrap()
        }
        Opening::New => MemorySystem::new(store.clone(), journal.clone()),
    };
    Home {
        _dir: dir,
        store,
        journal,
        system,
    }
}

/// A row count read through the home's connection (outside any transaction).
fn raw_count(h: &Home, table: &str) -> i64 {
    let conn = h.store.home().conn();
    let c = conn.lock().unwrap();
    c.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

fn execute(h: &Home, sql: &str) {
    h.store
        .home()
        .conn()
        .lock()
        .unwrap()
        .execute_batch(sql)
        .unwrap();
}

fn all_rows(store: &dyn TripleStore) -> Vec<TripleAssertion> {
    store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
}

fn bindings(j: &dyn MemoryJournal) -> Vec<ScopeBinding> {
    j.bindings(&BindingFilter::default()).unwrap()
}

/// Every way of opening a system over one SQLite file forms atomically:
/// `MemorySystem::new` / `with_options` find the one-transaction home
/// (`am_journal::join::shared_home`) instead of a two-step `PairHome`, so a
/// failure between the rows and the bindings tears no batch.
#[test]
fn a_failing_journal_append_rolls_back_the_store_rows_of_the_formation() {
    for opening in OPENINGS {
        a_failing_journal_append_rolls_back_the_store_rows_on(opening);
    }
}

fn a_failing_journal_append_rolls_back_the_store_rows_on(opening: Opening) {
    let h = sqlite_home_opened(None, opening);
    h.system
        .remember_many(&RememberMany::new(
            batch()[..1].to_vec(),
            "session",
            "s1",
            "before",
        ))
        .unwrap();
    let rows_before = raw_count(&h, "triples");
    let bindings_before = raw_count(&h, "memj_bindings");
    let seq_before = h.journal.current_seq().unwrap();
    // A real SQLite failure inside the journal's insert (not a mock).
    execute(
        &h,
        "CREATE TRIGGER refuse_bindings BEFORE INSERT ON memj_bindings \
         BEGIN SELECT RAISE(ABORT, 'bindings refused by the test trigger'); END;",
    );
    let err = h
        .system
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k1"))
        .unwrap_err();
    assert!(
        err.to_string().contains("refused by the test trigger"),
        "{opening:?}: {err}"
    );
    assert!(
        err.to_string().contains("rolled back"),
        "{opening:?}: {err}"
    );
    assert_eq!(raw_count(&h, "triples"), rows_before, "{opening:?}");
    assert_eq!(raw_count(&h, "triples_fts"), rows_before, "{opening:?}");
    assert_eq!(
        raw_count(&h, "memj_bindings"),
        bindings_before,
        "{opening:?}"
    );
    assert_eq!(h.journal.current_seq().unwrap(), seq_before, "{opening:?}");
    assert_eq!(all_rows(&*h.store).len() as i64, rows_before, "{opening:?}");
    // With the journal writable again, the same call forms everything once.
    execute(&h, "DROP TRIGGER refuse_bindings;");
    let ids = h
        .system
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k1"))
        .unwrap()
        .value;
    assert_eq!(ids.len(), 2, "{opening:?}");
    // Two digests and one edge; two bindings.
    assert_eq!(raw_count(&h, "triples"), rows_before + 3, "{opening:?}");
    assert_eq!(
        raw_count(&h, "memj_bindings"),
        bindings_before + 2,
        "{opening:?}"
    );
}

/// A store wrapper that forwards its reads, writes and fence but names no
/// home member (`TripleStore::home_member`): its system cannot form in one
/// transaction.
struct Opaque(Arc<SQLiteTripleStore>);

impl TripleStore for Opaque {
    fn capabilities(&self) -> am_triples::Capabilities {
        self.0.capabilities()
    }
    fn add(&self, a: &[TripleAssertion]) -> am_triples::Result<Vec<String>> {
        self.0.add(a)
    }
    fn query(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        self.0.query(q)
    }
    fn close(&self) -> am_triples::Result<()> {
        self.0.close()
    }
    fn write_fence(&self) -> am_triples::WriteFence {
        self.0.write_fence()
    }
}

#[test]
fn a_pair_of_one_file_that_cannot_share_a_transaction_warns_that_formation_takes_two_steps() {
    let h = sqlite_home(None);
    let opaque: Arc<dyn TripleStore> = Arc::new(Opaque(h.store.clone()));
    let system = MemorySystem::with_options(opaque, h.journal.clone(), options()).unwrap();
    let warnings = system.take_warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("#FALLBACK") && w.contains("two steps")),
        "{warnings:?}"
    );
    // The pair itself, of the same file, opens without that warning.
    let system = MemorySystem::with_options(h.store.clone(), h.journal.clone(), options()).unwrap();
    assert!(
        !system
            .take_warnings()
            .iter()
            .any(|w| w.contains("two steps")),
        "a pair sharing a transaction does not warn"
    );
}

/// A store and a journal handed over separately share a transaction when
/// their typed home keys name one home (`TripleStore::home_member`,
/// `MemoryJournal::home_key`): the same file on one connection or two, not
/// two files, and not a wrapper that names no member.
#[test]
fn a_store_and_a_journal_join_by_their_home_keys_one_file_yes_two_files_no() {
    let a = sqlite_home_opened(None, Opening::TwoConnections);
    let b = sqlite_home(None);
    let key = |j: &Arc<SQLiteJournal>| j.home_key().expect("a SQLite journal has a key");
    let member = |s: &Arc<SQLiteTripleStore>| s.home_member().expect("a SQLite store has a member");
    assert_eq!(
        member(&a.store).home,
        key(&a.journal),
        "two connections, one file"
    );
    assert_ne!(member(&a.store).home, key(&b.journal), "two files");
    assert_ne!(member(&a.store).handle, member(&b.store).handle);
    let joined = |s: Arc<dyn TripleStore>, j: Arc<dyn MemoryJournal>| {
        am_journal::join::shared_home(s, j).is_some()
    };
    assert!(joined(a.store.clone(), a.journal.clone()));
    assert!(!joined(a.store.clone(), b.journal.clone()));
    assert!(!joined(
        Arc::new(Opaque(a.store.clone())),
        a.journal.clone()
    ));
    assert!(!joined(
        a.store.clone(),
        Arc::new(InMemoryJournal::new()) as Arc<dyn MemoryJournal>
    ));
}

#[test]
fn store_rows_and_formation_bindings_commit_together_and_a_replay_writes_nothing_twice() {
    let h = sqlite_home(None);
    let ids = h
        .system
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k1"))
        .unwrap()
        .value;
    let rows = all_rows(&*h.store);
    let b = bindings(&*h.journal);
    assert_eq!(rows.len(), 3);
    assert_eq!(
        b.iter().map(|b| b.record_id.clone()).collect::<Vec<_>>(),
        ids
    );
    let again = h
        .system
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k1"))
        .unwrap()
        .value;
    assert_eq!(again, ids);
    assert_eq!(all_rows(&*h.store).len(), 3);
    assert_eq!(bindings(&*h.journal).len(), 2);
}

fn binding(record_id: &str) -> ScopeBinding {
    ScopeBinding::new(record_id, "session", "s1", SearchState::Indexed)
        .with_binding_id(&format!("b-{record_id}"))
}

#[test]
fn a_sqlite_memory_home_refuses_a_store_and_journal_of_two_homes() {
    let a = sqlite_home(None);
    let b = sqlite_home(None);
    let err = SqliteMemoryHome::new(a.store.clone(), b.journal.clone()).unwrap_err();
    assert_eq!(am_triples::Error::from(err).kind(), ErrorKind::InvalidInput);
    assert_eq!(raw_count(&a, "triples"), 0);
    assert_eq!(raw_count(&b, "triples"), 0);
}

#[test]
fn a_sqlite_home_transaction_whose_body_fails_rolls_back_every_write_of_it() {
    let h = sqlite_home(None);
    let home = h.system.home().clone();
    let rows = home
        .prepare_rows(&[TripleAssertion::new("x", "y", "z").with_id("r1")])
        .unwrap();
    let err = home
        .transaction(CommitPoint::StoreAdd, &mut |tx| {
            tx.store().add(&rows)?;
            tx.journal().append_bindings(&[binding("ex:r1")])?;
            Err(am_triples::Error::invalid("the body gives up"))
        })
        .unwrap_err();
    assert!(err.to_string().contains("the body gives up"), "{err}");
    assert_eq!(raw_count(&h, "triples"), 0);
    assert_eq!(raw_count(&h, "triples_fts"), 0);
    assert_eq!(raw_count(&h, "memj_bindings"), 0);
    assert_eq!(h.journal.current_seq().unwrap(), 0);
    // The same body without the failure commits both.
    home.transaction(CommitPoint::StoreAdd, &mut |tx| {
        assert_eq!(tx.store().add(&rows)?, vec!["r1".to_owned()]);
        tx.journal().append_bindings(&[binding("ex:r1")])
    })
    .unwrap();
    assert_eq!(raw_count(&h, "triples"), 1);
    assert_eq!(raw_count(&h, "memj_bindings"), 1);
}

#[test]
fn a_home_transaction_refuses_rows_another_home_prepared_and_writes_nothing() {
    let a = sqlite_home(None);
    let pair = PairHome::new(
        Arc::new(InMemoryTripleStore::new(None)),
        Arc::new(InMemoryJournal::new()),
    );
    let foreign = pair
        .prepare_rows(&[TripleAssertion::new("x", "y", "z").with_id("r1")])
        .unwrap();
    let err = a
        .system
        .home()
        .transaction(CommitPoint::StoreAdd, &mut |tx| {
            tx.store().add(&foreign).map(|_| ())
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let own = a
        .system
        .home()
        .prepare_rows(&[TripleAssertion::new("x", "y", "z").with_id("r1")])
        .unwrap();
    let err = pair
        .transaction(CommitPoint::StoreAdd, &mut |tx| {
            tx.store().add(&own).map(|_| ())
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(raw_count(&a, "triples"), 0);
    assert!(all_rows(&**pair.store()).is_empty());
}

#[test]
fn the_in_memory_pair_writes_nothing_while_the_body_runs_nor_when_it_fails() {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let journal = Arc::new(InMemoryJournal::new());
    let pair = PairHome::new(store.clone(), journal.clone());
    let rows = pair
        .prepare_rows(&[TripleAssertion::new("x", "y", "z").with_id("r1")])
        .unwrap();
    let err = pair
        .transaction(CommitPoint::StoreAdd, &mut |tx| {
            tx.store().add(&rows)?;
            tx.journal().append_bindings(&[binding("ex:r1")])?;
            assert!(all_rows(&*store).is_empty(), "staged, not written");
            assert_eq!(journal.current_seq().unwrap(), 0);
            Err(am_triples::Error::invalid("the body gives up"))
        })
        .unwrap_err();
    assert!(err.to_string().contains("the body gives up"), "{err}");
    assert!(all_rows(&*store).is_empty());
    assert_eq!(journal.current_seq().unwrap(), 0);
    // An invalid binding is refused when issued, before anything is written.
    let mut bad = binding("ex:r1");
    bad.search_state = SearchState::Hidden;
    bad.prompt_state = PromptState::Active;
    let err = pair
        .transaction(CommitPoint::StoreAdd, &mut |tx| {
            tx.store().add(&rows)?;
            tx.journal().append_bindings(&[bad.clone()])
        })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(all_rows(&*store).is_empty());
    assert_eq!(journal.current_seq().unwrap(), 0);
}

#[test]
fn the_in_memory_pair_has_no_shared_transaction_and_forms_in_two_steps() {
    let store = Arc::new(InMemoryTripleStore::new(None));
    let journal = Arc::new(InMemoryJournal::new());
    let system = MemorySystem::with_options(store.clone(), journal.clone(), options()).unwrap();
    let ids = system
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k1"))
        .unwrap()
        .value;
    assert_eq!(all_rows(&*store).len(), 3);
    assert_eq!(
        bindings(&*journal)
            .iter()
            .map(|b| b.record_id.clone())
            .collect::<Vec<_>>(),
        ids
    );
    let again = system
        .remember_many(&RememberMany::new(batch().to_vec(), "session", "s1", "k1"))
        .unwrap()
        .value;
    assert_eq!(again, ids);
    assert_eq!(all_rows(&*store).len(), 3);
    assert_eq!(bindings(&*journal).len(), 2);
}

/// A record whose text has no token the offline embedder knows embeds to the
/// zero vector: it forms without a vector (found by exact reads, not by vector
/// queries), the rest of the batch keeps its vectors, and the store warns once.
#[test]
fn a_record_the_offline_embedder_cannot_embed_forms_without_a_vector_on_both_stacks() {
    let embedder: Arc<dyn TextEmbedder> = Arc::new(OfflineEmbedder::new().unwrap());
    let records = [
        MemoryRecordInput::new(
            RecordKind::Lesson,
            "Pools",
            "Connection pools exhaust under load.",
        ),
        MemoryRecordInput::new(RecordKind::Lesson, "😀", "😀"),
        MemoryRecordInput::new(RecordKind::Lesson, "\0", "\0"),
    ];
    let memory_store: Arc<dyn TripleStore> =
        Arc::new(InMemoryTripleStore::new(Some(embedder.clone())));
    let memory_journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let memory =
        MemorySystem::with_options(memory_store.clone(), memory_journal, options()).unwrap();
    let h = sqlite_home(Some(embedder.clone()));
    let sqlite_store: Arc<dyn TripleStore> = h.store.clone();
    let mut seen = Vec::new();
    for (system, store) in [(&memory, &memory_store), (&h.system, &sqlite_store)] {
        let ids = system
            .remember_many(&RememberMany::new(
                records.to_vec(),
                "session",
                "s1",
                "emoji",
            ))
            .unwrap();
        assert_eq!(ids.len(), 3);
        let rows = all_rows(&**store);
        let digest_id = |i: usize| {
            rows.iter()
                .find(|a| a.subject == ids[i])
                .and_then(|a| a.assertion_id.clone())
                .unwrap()
        };
        assert!(store.stored_vector(&digest_id(0)).unwrap().is_some());
        assert!(store.stored_vector(&digest_id(1)).unwrap().is_none());
        assert!(store.stored_vector(&digest_id(2)).unwrap().is_none());
        let warnings: Vec<String> = ids
            .warnings
            .iter()
            .filter(|w| w.contains("zero vector"))
            .cloned()
            .collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("2 of 3"), "{warnings:?}");
        seen.push((ids.value, rows.len()));
    }
    assert_eq!(seen[0], seen[1], "both stacks form the same records");
}

/// A home transaction answers the warnings its committed writes raised (here
/// the `#FALLBACK` of the embedding pin created at the first write)
/// and leaves none for the store's `take_warnings`, on the SQLite home and
/// on the in-memory pair; a transaction whose body fails answers none.
#[test]
fn a_home_transaction_answers_the_warnings_of_its_writes_and_leaves_none_to_drain() {
    let embedder: Arc<dyn TextEmbedder> = Arc::new(OfflineEmbedder::new().unwrap());
    let h = sqlite_home(Some(embedder.clone()));
    let sqlite: Arc<dyn MemoryHome> =
        Arc::new(SqliteMemoryHome::new(h.store.clone(), h.journal.clone()).unwrap());
    let pair_store: Arc<dyn TripleStore> =
        Arc::new(InMemoryTripleStore::new(Some(embedder.clone())));
    let pair: Arc<dyn MemoryHome> = Arc::new(PairHome::new(
        pair_store,
        Arc::new(InMemoryJournal::new()) as Arc<dyn MemoryJournal>,
    ));
    for home in [sqlite, pair] {
        home.store().take_warnings();
        let rows = home
            .prepare_rows(&[
                TripleAssertion::new("ex:a", "dcterms:abstract", "Connection pools exhaust.")
                    .with_id("w-a"),
                TripleAssertion::new("ex:b", "dcterms:abstract", "😀").with_id("w-b"),
            ])
            .unwrap();
        let failed = home.transaction(CommitPoint::StoreAdd, &mut |tx| {
            tx.store().add(&rows)?;
            Err(am_triples::Error::invalid("the body refuses"))
        });
        assert_eq!(failed.unwrap_err().kind(), ErrorKind::InvalidInput);
        assert_eq!(home.store().take_warnings(), Vec::<String>::new());
        let warnings = home
            .transaction(CommitPoint::StoreAdd, &mut |tx| {
                tx.store().add(&rows)?;
                Ok(())
            })
            .unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("#FALLBACK") && warnings[0].contains("FIRST WRITE"),
            "{warnings:?}"
        );
        assert_eq!(home.store().take_warnings(), Vec::<String>::new());
    }
}

/// Warnings travel with the result that caused them: while another thread
/// drains the system's `take_warnings` without pause, every formation still
/// answers its own zero-vector `#FALLBACK`, on both stacks.
#[test]
fn a_formation_keeps_its_warnings_while_another_thread_drains_take_warnings() {
    let embedder: Arc<dyn TextEmbedder> = Arc::new(OfflineEmbedder::new().unwrap());
    let memory = MemorySystem::with_options(
        Arc::new(InMemoryTripleStore::new(Some(embedder.clone()))),
        Arc::new(InMemoryJournal::new()),
        options(),
    )
    .unwrap();
    let h = sqlite_home(Some(embedder));
    for system in [&memory, &h.system] {
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = system.take_warnings();
                }
            });
            for i in 0..40 {
                let formed = system
                    .remember_many(&RememberMany::new(
                        vec![
                            MemoryRecordInput::new(
                                RecordKind::Lesson,
                                &format!("Pools {i}"),
                                "Pools exhaust.",
                            ),
                            MemoryRecordInput::new(RecordKind::Lesson, "\0", &"\0".repeat(i + 1)),
                        ],
                        "session",
                        "s1",
                        &format!("drain-{i}"),
                    ))
                    .unwrap();
                let zero = formed
                    .warnings
                    .iter()
                    .filter(|w| w.contains("zero vector"))
                    .count();
                assert_eq!(zero, 1, "batch {i}: {:?}", formed.warnings);
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    }
}
