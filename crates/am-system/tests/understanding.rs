//! The understanding verbs on both stacks (the in-memory pair and the SQLite
//! home): a reading rewritten in place keeps the record's ids and usage and
//! keeps every earlier reading as a version; the answers are identical on
//! both stacks; every refusal of the spec's table that needs neither the task
//! queue nor world-model cards is returned with nothing written (row, keyword
//! entry, vector, journal seq; on SQLite the file and WAL bytes); recall finds
//! a rewritten record by its new words and no longer by its old ones.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions" (every verb,
//! "Provenance arguments", the result shape, the refusal table, "Backends");
//! stores.md "Shared behavior" (the one mutable cell).

mod common;

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_embed::OfflineEmbedder;
use am_journal::{
    AuthorKind, AuthorRef, ClosureKind, InMemoryJournal, MemoryHome, MemoryJournal, PairHome,
    ReaderRef, SourceRef,
};
use am_system::RecordKind;
use am_system::{CloseRecord, NarrateDream, Retitle, RevertDigest, RewriteDigest};
use am_system::{
    MemoryRecordInput, MemorySystem, Outcome, Reason, Reconstruct, RememberMany, Stimulus,
    SystemOptions, UnderstandingResult,
};
use am_triples::{
    ErrorKind, InMemoryTripleStore, ReadAccelerator, TextEmbedder, TripleQuery, TripleStore,
};
use common::PINNED_NOW;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The offline embedder, failing while `fail` is set (an unreachable endpoint).
struct Switchable {
    inner: OfflineEmbedder,
    fail: Arc<AtomicBool>,
}

impl TextEmbedder for Switchable {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(am_triples::Error::embedder(
                "the embedding endpoint is unreachable",
            ));
        }
        self.inner.embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        self.inner.model_id()
    }
    fn dimension(&self) -> Option<usize> {
        self.inner.dimension()
    }
}

struct Stack {
    name: &'static str,
    system: MemorySystem,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    path: Option<PathBuf>,
    sqlite: Option<Arc<SQLiteTripleStore>>,
    fail: Arc<AtomicBool>,
    _dir: tempfile::TempDir,
}

fn options() -> SystemOptions {
    SystemOptions {
        clock: Some(common::pinned_clock()),
        ..SystemOptions::default()
    }
}

fn embedder(fail: &Arc<AtomicBool>) -> Arc<dyn TextEmbedder> {
    Arc::new(Switchable {
        inner: OfflineEmbedder::new().unwrap(),
        fail: fail.clone(),
    })
}

fn memory(vectors: bool) -> Stack {
    let fail = Arc::new(AtomicBool::new(false));
    let store: Arc<dyn TripleStore> =
        Arc::new(InMemoryTripleStore::new(vectors.then(|| embedder(&fail))));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let system = MemorySystem::with_options(store.clone(), journal.clone(), options()).unwrap();
    Stack {
        name: "memory",
        system,
        store,
        journal,
        path: None,
        sqlite: None,
        fail,
        _dir: tempfile::tempdir().unwrap(),
    }
}

fn sqlite(vectors: bool) -> Stack {
    let fail = Arc::new(AtomicBool::new(false));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let memory_home = Arc::new(
        SqliteMemoryHome::open(
            &home,
            vectors.then(|| embedder(&fail)),
            SqliteStoreOptions::default(),
        )
        .unwrap(),
    );
    let sqlite = memory_home.sqlite_store().clone();
    let store: Arc<dyn TripleStore> = sqlite.clone();
    let journal: Arc<dyn MemoryJournal> = memory_home.sqlite_journal().clone();
    let system = MemorySystem::over_home_with_options(memory_home, options()).unwrap();
    Stack {
        name: "sqlite",
        system,
        store,
        journal,
        path: Some(path),
        sqlite: Some(sqlite),
        fail,
        _dir: dir,
    }
}

fn both(vectors: bool) -> [Stack; 2] {
    [memory(vectors), sqlite(vectors)]
}

fn author(kind: AuthorKind, id: &str) -> AuthorRef {
    AuthorRef::new(kind, id)
}

fn operator() -> AuthorRef {
    author(AuthorKind::Operator, "ada")
}

fn form(s: &Stack, records: Vec<MemoryRecordInput>) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, "session", "s1", "turn-1"))
        .unwrap()
        .into_value()
}

fn lesson() -> MemoryRecordInput {
    MemoryRecordInput::new(
        RecordKind::Lesson,
        "Pool sizing",
        "Connection pools exhaust under sustained load.",
    )
    .with_keywords(&["pools"])
}

fn rewrite(id: &str, text: &str, expected: i64) -> RewriteDigest {
    RewriteDigest::new(id, text, operator(), json!("operator"), expected)
}

/// What "nothing written" compares: every row (with its attributes), the
/// record's vector, the journal seq, and on SQLite the file and WAL bytes
/// (which hold the keyword index).
#[derive(Debug, PartialEq)]
struct State {
    rows: String,
    vector: Option<Vec<f32>>,
    seq: i64,
    bytes: Option<(Vec<u8>, Vec<u8>)>,
}

fn state(s: &Stack, id: &str) -> State {
    let rows = s
        .store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    let aid = s.system.resolve_assertion_id(id).ok();
    State {
        rows: format!("{rows:?}"),
        vector: aid.and_then(|a| s.store.stored_vector(&a).unwrap()),
        seq: s.journal.current_seq().unwrap(),
        bytes: s.path.as_ref().map(|p| {
            let wal = PathBuf::from(format!("{}-wal", p.display()));
            (
                std::fs::read(p).unwrap(),
                std::fs::read(wal).unwrap_or_default(),
            )
        }),
    }
}

fn refused(s: &Stack, id: &str, reason: Reason, call: impl Fn() -> UnderstandingResult) {
    let before = state(s, id);
    let r = call();
    assert_eq!(r.outcome, Outcome::Refused(reason), "[{}] {r:?}", s.name);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["applied"], json!(false), "[{}]", s.name);
    assert!(v.get("seq").is_none() && v.get("version_id").is_none());
    assert_eq!(
        state(s, id),
        before,
        "[{}] a {reason:?} refusal wrote",
        s.name
    );
}

#[test]
fn a_rewrite_keeps_the_ids_and_keeps_the_original_as_version_0_identically_on_both_stacks() {
    let mut answers = Vec::new();
    for s in both(false) {
        let ids = form(&s, vec![lesson()]);
        let aid = s.system.resolve_assertion_id(&ids[0]).unwrap();
        let mut args = rewrite(&ids[0], "Size pools from the measured peak.", 0);
        args.keywords = Some(vec!["pools".into(), "peak".into()]);
        let r = s.system.rewrite_digest(&args).unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}]", s.name);
        assert_eq!(r.assertion_id.as_deref(), Some(aid.as_str()));
        assert_eq!((r.version, r.previous_version), (Some(1), Some(0)));
        assert_eq!(r.captured_original, Some(true));
        assert_eq!(r.vector_rewritten, Some(false));
        assert!(r.seq.is_some() && r.version_id.is_some());
        // The row keeps its assertion id and graph id; the words changed.
        assert_eq!(s.system.resolve_assertion_id(&ids[0]).unwrap(), aid);
        let row = s.system.resolve_digest_assertion(&aid).unwrap().unwrap();
        assert_eq!(row.object, "Size pools from the measured peak.");
        assert_eq!(row.attributes["digest_version"], json!(1));
        assert_eq!(row.attributes["digest_method"], json!("authored-v1"));
        let versions = s.system.versions(&ids[0], None).unwrap();
        assert_eq!(versions.len(), 2);
        let v0 = &versions[0];
        assert_eq!(v0.version.version, 0);
        assert_eq!(
            v0.version.text.as_deref(),
            Some("Connection pools exhaust under sustained load.")
        );
        // A lesson nobody stamped was written by the entity's mind.
        assert_eq!(
            v0.version.author,
            author(AuthorKind::EntityMind, "s1").to_map(),
            "[{}] version 0 keeps the provenance of the reading that wrote it",
            s.name
        );
        assert_eq!(v0.version.cause, json!("formation"));
        assert!(!v0.current && versions[1].current);
        assert_eq!(versions[1].version.author, operator().to_map());
        let understood = s.system.record_understanding(&ids[0]).unwrap();
        assert_eq!(understood.digest, "Size pools from the measured peak.");
        assert_eq!(understood.understanding.version_count, 2);
        answers.push((
            serde_json::to_value(&r).unwrap(),
            serde_json::to_value(&versions).unwrap(),
            serde_json::to_value(&understood).unwrap(),
        ));
        // Rewriting deposits nothing: no attention event was written.
        assert!(
            s.journal
                .events(&am_journal::EventFilter::new("session", "s1"))
                .unwrap()
                .is_empty()
        );
    }
    assert_eq!(answers[0], answers[1], "the two stacks answer alike");
}

#[test]
fn byte_identical_text_is_unchanged_and_writes_nothing() {
    for s in both(false) {
        let ids = form(&s, vec![lesson()]);
        let before = state(&s, &ids[0]);
        let r = s
            .system
            .rewrite_digest(&rewrite(
                &ids[0],
                "Connection pools exhaust under sustained load.",
                0,
            ))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Unchanged(None), "[{}]", s.name);
        assert_eq!(state(&s, &ids[0]), before);
    }
}

#[test]
fn a_second_rewrite_captures_no_second_original_and_revert_restores_a_new_version() {
    for s in both(false) {
        let ids = form(&s, vec![lesson()]);
        s.system
            .rewrite_digest(&rewrite(&ids[0], "Second reading.", 0))
            .unwrap();
        let r = s
            .system
            .rewrite_digest(&rewrite(&ids[0], "Third reading.", 1))
            .unwrap();
        assert_eq!(
            (r.version, r.captured_original),
            (Some(2), Some(false)),
            "[{}]",
            s.name
        );
        let back = s
            .system
            .revert_digest(&RevertDigest::new(&ids[0], 0, 2))
            .unwrap();
        assert_eq!(back.outcome, Outcome::Applied, "[{}] {back:?}", s.name);
        assert_eq!(back.version, Some(3));
        let versions = s.system.versions(&ids[0], Some("digest")).unwrap();
        assert_eq!(versions.len(), 4, "nothing is erased");
        let last = &versions[3].version;
        assert_eq!(
            last.text.as_deref(),
            Some("Connection pools exhaust under sustained load.")
        );
        assert_eq!(last.cause["cause"], json!("revert"));
        assert_eq!(last.cause["reverted_to"], json!(0));
        // The restored words keep the author who wrote them.
        assert_eq!(last.author, author(AuthorKind::EntityMind, "s1").to_map());
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(row.object, "Connection pools exhaust under sustained load.");
    }
}

#[test]
fn retitle_changes_only_the_title_and_keeps_the_old_title_as_version_0() {
    for s in both(false) {
        let ids = form(&s, vec![lesson()]);
        let args = Retitle::new(
            &ids[0],
            "Sizing connection pools",
            operator(),
            json!("repair"),
            0,
        );
        let r = s.system.retitle(&args).unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        assert_eq!((r.field.as_str(), r.version), ("title", Some(1)));
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(row.object, "Connection pools exhaust under sustained load.");
        assert_eq!(row.attributes["title"], json!("Sizing connection pools"));
        assert_eq!(row.attributes.get("digest_version"), None);
        let titles = s.system.versions(&ids[0], Some("title")).unwrap();
        assert_eq!(titles.len(), 2);
        assert_eq!(titles[0].version.text.as_deref(), Some("Pool sizing"));
        assert!(s.system.versions(&ids[0], None).unwrap().is_empty());
        // The same title again: unchanged.
        let again = s
            .system
            .retitle(&Retitle::new(
                &ids[0],
                "Sizing connection pools",
                operator(),
                json!("repair"),
                1,
            ))
            .unwrap();
        assert_eq!(again.outcome, Outcome::Unchanged(None));
        // And back to the first one.
        let back = s
            .system
            .revert_digest(&RevertDigest {
                field: Some("title".into()),
                ..RevertDigest::new(&ids[0], 0, 1)
            })
            .unwrap();
        assert_eq!(back.outcome, Outcome::Applied, "[{}] {back:?}", s.name);
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(row.attributes["title"], json!("Pool sizing"));
    }
}

#[test]
fn a_rewrite_with_a_title_writes_the_title_version_too() {
    for s in both(false) {
        let ids = form(&s, vec![lesson()]);
        let mut args = rewrite(&ids[0], "Measure, then size.", 0);
        args.title = Some("Measured pool sizing".into());
        let r = s.system.rewrite_digest(&args).unwrap();
        assert_eq!(
            r.extra.get("title_version"),
            Some(&json!(1)),
            "[{}]",
            s.name
        );
        let titles = s.system.versions(&ids[0], Some("title")).unwrap();
        assert_eq!(
            titles
                .iter()
                .map(|v| v.version.text.clone())
                .collect::<Vec<_>>(),
            vec![
                Some("Pool sizing".to_owned()),
                Some("Measured pool sizing".to_owned())
            ]
        );
    }
}

#[test]
fn narrate_dream_stores_a_narration_beside_the_summary() {
    for s in both(true) {
        let ids = form(
            &s,
            vec![MemoryRecordInput::new(
                RecordKind::Dream,
                "Night of pools",
                "Tensions between pools and load.",
            )],
        );
        let before_vector = state(&s, &ids[0]).vector;
        let r = s
            .system
            .narrate_dream(&NarrateDream::new(
                &ids[0],
                "I dreamt the pools overflowed.",
                operator(),
            ))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        assert_eq!((r.field.as_str(), r.version), ("narration", Some(1)));
        assert_eq!(r.vector_rewritten, Some(false));
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(row.object, "Tensions between pools and load.");
        assert_eq!(
            state(&s, &ids[0]).vector,
            before_vector,
            "the vector stands"
        );
        let u = s.system.record_understanding(&ids[0]).unwrap();
        let v = serde_json::to_value(&u).unwrap();
        assert_eq!(v["narration"], json!("I dreamt the pools overflowed."));
        assert_eq!(v["narrated"], json!(true));
        assert_eq!(v["narration_version"], json!(1));
    }
}

#[test]
fn current_of_follows_supersede_closures_to_the_live_record() {
    for s in both(false) {
        let ids = form(
            &s,
            vec![
                MemoryRecordInput::new(RecordKind::Claim, "A", "The pool holds ten."),
                MemoryRecordInput::new(RecordKind::Claim, "B", "The pool holds twenty."),
                MemoryRecordInput::new(RecordKind::Claim, "C", "The pool holds thirty."),
            ],
        );
        for (old, new) in [(0, 1), (1, 2)] {
            s.system
                .close_record(
                    &CloseRecord::new(&ids[old], ClosureKind::Supersede, "measured again")
                        .replaced_by(&[ids[new].clone()]),
                )
                .unwrap();
        }
        let c = s.system.current_of(&ids[0]).unwrap();
        assert_eq!(c.current_id, ids[2], "[{}]", s.name);
        assert_eq!((c.hops, c.closed), (2, None));
        assert_eq!(c.chain, ids);
        s.system
            .close_record(&CloseRecord::retract(&ids[2], "wrong"))
            .unwrap();
        let c = s.system.current_of(&ids[0]).unwrap();
        assert_eq!(c.closed, Some(ClosureKind::Retract));
    }
}

#[test]
fn recall_finds_a_rewritten_record_by_its_new_words_and_no_longer_by_its_old() {
    for s in both(true) {
        let ids = form(
            &s,
            vec![
                lesson(),
                MemoryRecordInput::new(
                    RecordKind::Episode,
                    "Lunch",
                    "We ate noodles by the river.",
                ),
                MemoryRecordInput::new(
                    RecordKind::Episode,
                    "Walk",
                    "A long walk through the orchard.",
                ),
            ],
        );
        let aid = s.system.resolve_assertion_id(&ids[0]).unwrap();
        let old_vector = s.store.stored_vector(&aid).unwrap();
        // Warm the SQLite caches first, so the patched ones are what answer.
        if let Some(sq) = &s.sqlite {
            let found = sq
                .keyword_positions(&["exhaust".into()], "session", None, 10, (0, i64::MAX))
                .unwrap();
            assert_eq!(found.map(|f| f.len()), Some(1));
        }
        let _ = s.store.query(&TripleQuery {
            query_text: Some("pools".into()),
            limit: 3,
            ..TripleQuery::default()
        });
        let r = s
            .system
            .rewrite_digest(&rewrite(&ids[0], "Quantum lattices hum at dawn.", 0))
            .unwrap();
        assert_eq!(r.vector_rewritten, Some(true), "[{}]", s.name);
        assert_ne!(s.store.stored_vector(&aid).unwrap(), old_vector);
        // The vector channel: the new words rank the record first.
        let hits = s
            .store
            .query(&TripleQuery {
                query_text: Some("Quantum lattices hum at dawn.".into()),
                limit: 1,
                ..TripleQuery::default()
            })
            .unwrap();
        assert_eq!(
            hits[0].assertion_id.as_deref(),
            Some(aid.as_str()),
            "[{}]",
            s.name
        );
        // The keyword index (FTS5, the mirror) on SQLite.
        if let Some(sq) = &s.sqlite {
            for (word, n) in [("lattices", 1), ("exhaust", 0)] {
                let by_sql = sq
                    .query_keywords(&[word.into()], "session", None, 10)
                    .unwrap();
                assert_eq!(by_sql.len(), n, "fts5 {word}");
                let by_mirror = sq
                    .keyword_positions(&[word.into()], "session", None, 10, (0, i64::MAX))
                    .unwrap()
                    .unwrap();
                assert_eq!(by_mirror.len(), n, "mirror {word}");
            }
            assert_eq!(sq.keyword_engine(), "fts5-mirror");
        }
        // The keyword channel of reconstruct.
        let recall = |cue: &str| {
            s.system
                .reconstruct(&Reconstruct {
                    journal: false,
                    ..Reconstruct::new(Stimulus::new(cue), &[("session", "s1")])
                })
                .unwrap()
        };
        let new = recall("quantum lattices");
        let hit = new.handles.iter().find(|h| h.record_id == aid);
        assert!(
            hit.is_some_and(|h| h.relevance.get("keyword").is_some_and(|k| *k > 0.0)),
            "[{}] found by its new words",
            s.name
        );
        let old = recall("exhaust sustained");
        assert!(
            !old.handles
                .iter()
                .any(|h| h.record_id == aid && h.relevance.get("keyword").is_some_and(|k| *k > 0.0)),
            "[{}] no longer found by its old words",
            s.name
        );
    }
}

#[test]
fn every_refusal_of_the_table_is_returned_with_nothing_written() {
    for s in both(true) {
        let ids = form(
            &s,
            vec![
                lesson(),
                MemoryRecordInput::new(RecordKind::Value, "Candour", "I say what I see.")
                    .with_attribute("value_class", "core"),
                MemoryRecordInput::new(RecordKind::Dream, "Night", "Tensions of the day."),
                MemoryRecordInput::new(RecordKind::WorldModel, "Pools", "What I know of pools."),
                MemoryRecordInput::new(RecordKind::Episode, "Old", "An old reading."),
                MemoryRecordInput::new(RecordKind::Summary, "Ripple", "What this changes.")
                    .with_edge("summarizes", "local:0")
                    .with_attribute("summary_role", "re-understanding"),
                MemoryRecordInput::new(RecordKind::Diary, "Owner note", "My own words.")
                    .with_provenance("source", "owner-direct")
                    .with_attribute("entry_hash", "abc123"),
            ],
        );
        let (l, value, dream, card, old, ripple, diary) = (
            &ids[0], &ids[1], &ids[2], &ids[3], &ids[4], &ids[5], &ids[6],
        );
        s.system
            .close_record(
                &CloseRecord::new(old, ClosureKind::Supersede, "better reading")
                    .replaced_by(std::slice::from_ref(l)),
            )
            .unwrap();
        let sys = &s.system;
        refused(&s, l, Reason::UnknownRecord, || {
            sys.rewrite_digest(&rewrite("ex:nothing-here", "x", 0))
                .unwrap()
        });
        refused(&s, value, Reason::ProtectedKind, || {
            sys.rewrite_digest(&rewrite(value, "Other words.", 0))
                .unwrap()
        });
        refused(&s, dream, Reason::UseNarrateDream, || {
            sys.rewrite_digest(&rewrite(dream, "Other words.", 0))
                .unwrap()
        });
        refused(&s, card, Reason::UseAuthorWorldModel, || {
            sys.rewrite_digest(&rewrite(card, "Other words.", 0))
                .unwrap()
        });
        refused(&s, l, Reason::NotADream, || {
            sys.narrate_dream(&NarrateDream::new(l, "A narration.", operator()))
                .unwrap()
        });
        refused(&s, old, Reason::Closed, || {
            let r = sys
                .rewrite_digest(&rewrite(old, "Other words.", 0))
                .unwrap();
            assert_eq!(r.replaced_by.as_deref(), Some(l.as_str()));
            r
        });
        refused(&s, ripple, Reason::ConsolidationRecord, || {
            let mut a = rewrite(ripple, "Other words.", 0);
            a.cause = json!("ripple");
            sys.rewrite_digest(&a).unwrap()
        });
        refused(&s, l, Reason::EmptyText, || {
            sys.rewrite_digest(&rewrite(l, "  \n", 0)).unwrap()
        });
        refused(&s, l, Reason::EmptyTitle, || {
            sys.retitle(&Retitle::new(l, " ", operator(), json!("repair"), 0))
                .unwrap()
        });
        refused(&s, diary, Reason::HashChained, || {
            sys.retitle(&Retitle::new(
                diary,
                "A better title",
                operator(),
                json!("repair"),
                0,
            ))
            .unwrap()
        });
        refused(&s, l, Reason::Stale, || {
            sys.rewrite_digest(&rewrite(l, "Other words.", 3)).unwrap()
        });
        refused(&s, l, Reason::NoTaskQueue, || {
            let mut a = rewrite(l, "Other words.", 0);
            a.task_id = Some("task-1".into());
            sys.rewrite_digest(&a).unwrap()
        });
        s.fail.store(true, Ordering::SeqCst);
        refused(&s, l, Reason::EmbedderUnavailable, || {
            sys.rewrite_digest(&rewrite(l, "Other words.", 0)).unwrap()
        });
        refused(&s, l, Reason::EmbedderUnavailable, || {
            sys.retitle(&Retitle::new(
                l,
                "A new title",
                operator(),
                json!("repair"),
                0,
            ))
            .unwrap()
        });
        s.fail.store(false, Ordering::SeqCst);
        // The revert refusals need a rewritten record.
        sys.rewrite_digest(&rewrite(l, "Second reading.", 0))
            .unwrap();
        refused(&s, l, Reason::UnknownVersion, || {
            sys.revert_digest(&RevertDigest::new(l, 7, 1)).unwrap()
        });
        refused(&s, l, Reason::UseRekeyWorldModel, || {
            sys.revert_digest(&RevertDigest {
                field: Some("target".into()),
                ..RevertDigest::new(l, 0, 0)
            })
            .unwrap()
        });
        refused(&s, l, Reason::NotRevertible, || {
            sys.revert_digest(&RevertDigest {
                field: Some("pending".into()),
                ..RevertDigest::new(l, 0, 0)
            })
            .unwrap()
        });
        refused(&s, l, Reason::Stale, || {
            sys.revert_digest(&RevertDigest::new(l, 0, 0)).unwrap()
        });
    }
}

#[test]
fn a_title_version_that_held_no_title_is_refused_as_null_title() {
    // A title version 0 holds no title only for a record formed with its
    // title pending (the task queue's); the rule is checked on a version row
    // the journal holds as such a record's would be.
    for s in both(false) {
        let ids = form(&s, vec![lesson()]);
        let aid = s.system.resolve_assertion_id(&ids[0]).unwrap();
        s.system
            .retitle(&Retitle::new(
                &ids[0],
                "Sizing pools",
                operator(),
                json!("repair"),
                0,
            ))
            .unwrap();
        let mut v = am_journal::UnderstandingVersion::new(
            &ids[0],
            &aid,
            "title",
            5,
            None,
            ("mechanical", "formation"),
            "formation",
        );
        v.understood_at = PINNED_NOW.into();
        s.journal.append_version(&v).unwrap();
        refused(&s, &ids[0], Reason::NullTitle, || {
            s.system
                .revert_digest(&RevertDigest {
                    field: Some("title".into()),
                    ..RevertDigest::new(&ids[0], 5, 1)
                })
                .unwrap()
        });
    }
}

#[test]
fn bad_provenance_arguments_are_errors_and_write_nothing() {
    for s in both(false) {
        let ids = form(&s, vec![lesson()]);
        let before = state(&s, &ids[0]);
        let model = author(AuthorKind::CapabilityModel, "summaries");
        let reader = ReaderRef {
            provider: "lmstudio".into(),
            model: "qwen3".into(),
            thinking: json!(false),
        };
        let cases: Vec<RewriteDigest> = vec![
            // A stored reading's kind is never a caller's; an author is someone.
            RewriteDigest::new(
                &ids[0],
                "x",
                author(AuthorKind::Unrecorded, "a"),
                json!("operator"),
                0,
            ),
            RewriteDigest::new(
                &ids[0],
                "x",
                author(AuthorKind::Operator, " "),
                json!("operator"),
                0,
            ),
            RewriteDigest::new(&ids[0], "x", operator(), json!("because"), 0),
            RewriteDigest::new(&ids[0], "x", operator(), json!({"why": "no cause key"}), 0),
            // A model author without its reader, then without a ledger source.
            RewriteDigest::new(&ids[0], "x", model.clone(), json!("backfill"), 0),
            RewriteDigest {
                reader: Some(reader.clone()),
                ..RewriteDigest::new(&ids[0], "x", model.clone(), json!("backfill"), 0)
            },
            RewriteDigest {
                reader: Some(ReaderRef {
                    provider: " ".into(),
                    ..reader.clone()
                }),
                sources: vec![SourceRef::step("run-1", 4).unwrap()],
                ..RewriteDigest::new(&ids[0], "x", model.clone(), json!("backfill"), 0)
            },
        ];
        for (i, args) in cases.iter().enumerate() {
            let err = s
                .system
                .rewrite_digest(args)
                .expect_err(&format!("case {i}"));
            assert_eq!(
                err.kind(),
                ErrorKind::InvalidInput,
                "[{}] case {i}: {err}",
                s.name
            );
            assert_eq!(state(&s, &ids[0]), before, "[{}] case {i} wrote", s.name);
        }
        // A model author with its reader and its ledger step is accepted, and
        // a cause mapping keeps its extra keys verbatim.
        let ok = RewriteDigest {
            reader: Some(reader),
            sources: vec![SourceRef::step("run-1", 4).unwrap()],
            ..RewriteDigest::new(
                &ids[0],
                "Measured sizing.",
                model,
                json!({"cause": "backfill", "ripple_id": "r-9"}),
                0,
            )
        };
        assert_eq!(
            s.system.rewrite_digest(&ok).unwrap().outcome,
            Outcome::Applied
        );
        let v = s.system.versions(&ids[0], None).unwrap();
        assert_eq!(
            v[1].version.cause,
            json!({"cause": "backfill", "ripple_id": "r-9"})
        );
        assert_eq!(v[1].version.sources[0]["seq"], json!(4));
    }
}

/// api.md "Provenance arguments (validated; a bad value raises
/// `ValueError`)": an `understood_at` that is not a timestamp is a malformed
/// call whatever the record's state. The field is a [`am_triples::Timestamp`],
/// so the refusal happens once, where the arguments are read (an `am exec`
/// line, any JSON), before any record is looked at; a timestamp in any
/// accepted form reads as its canonical UTC instant.
#[test]
fn an_understood_at_that_is_not_a_timestamp_is_an_error_whatever_the_records_state() {
    fn with_at(args: &impl serde::Serialize, at: &str) -> Value {
        let mut v = serde_json::to_value(args).unwrap();
        v["understood_at"] = json!(at);
        v
    }
    let same = "Connection pools exhaust under sustained load.";
    let rewrites = [
        RewriteDigest::new("ex:nothing", "x", operator(), json!("operator"), 0),
        RewriteDigest::new("ex:r", "x", operator(), json!("operator"), 7),
        RewriteDigest::new("ex:r", same, operator(), json!("operator"), 0),
    ];
    for (i, r) in rewrites.iter().enumerate() {
        let err = serde_json::from_value::<RewriteDigest>(with_at(r, "yesterday"))
            .expect_err(&format!("rewrite case {i}"));
        assert!(err.to_string().contains("timestamp"), "{err}");
        let ok: RewriteDigest =
            serde_json::from_value(with_at(r, "2026-01-01T02:00:00+02:00")).unwrap();
        assert_eq!(
            ok.understood_at.map(|t| t.to_string()).as_deref(),
            Some("2026-01-01T00:00:00.000000+00:00")
        );
    }
    let retitle = Retitle::new("ex:r", "Pool sizing", operator(), json!("repair"), 3);
    assert!(serde_json::from_value::<Retitle>(with_at(&retitle, "yesterday")).is_err());
    assert!(serde_json::from_value::<Retitle>(with_at(&retitle, "2026-01-01")).is_ok());
    let narrate = NarrateDream::new("ex:d", "I dreamt.", operator());
    assert!(serde_json::from_value::<NarrateDream>(with_at(&narrate, "")).is_err());
    assert!(serde_json::from_value::<NarrateDream>(with_at(&narrate, "2026-01-01T09:30Z")).is_ok());
}

/// api.md "Provenance arguments": `author = {"kind", "id"}` with kind in
/// `AUTHOR_KINDS`, `reader = {"provider", "model", "thinking"}`, `sources`
/// ledger `SourceRef` dicts. The arguments carry them typed, so a malformed
/// one is refused where the arguments are read (an `am exec` line, any
/// JSON), and a well-formed one reads and writes back as the spec's dict.
#[test]
fn author_reader_and_sources_read_and_write_as_the_specs_dicts_and_a_malformed_one_is_refused() {
    let call = json!({
        "record_id": "ex:r", "text": "x", "cause": "backfill", "expected_version": 0,
        "author": {"kind": "capability-model", "id": "summaries"},
        "reader": {"provider": "lmstudio", "model": "qwen3", "thinking": false},
        "sources": [{"kind": "step", "run_id": "run-7", "seq": 3},
                    {"kind": "artifact", "artifact_id": "note-1"}],
    });
    let args: RewriteDigest = serde_json::from_value(call.clone()).unwrap();
    let back = serde_json::to_value(&args).unwrap();
    for key in ["author", "reader", "sources"] {
        assert_eq!(
            serde_json::to_string(&back[key]).unwrap(),
            serde_json::to_string(&call[key]).unwrap(),
            "{key} writes back byte for byte"
        );
    }
    let refused = [
        ("author", json!({"kind": "someone", "id": "a"})),
        ("author", json!({"kind": "unrecorded", "id": "a"})),
        ("author", json!({"kind": "operator"})),
        (
            "author",
            json!({"kind": "operator", "id": "ada", "role": "x"}),
        ),
        ("reader", json!({"provider": "lmstudio", "model": "qwen3"})),
        (
            "reader",
            json!({"provider": "p", "model": "m", "thinking": 1, "temp": 0}),
        ),
        ("sources", json!([{"kind": "step", "run_id": "run-1"}])),
        ("sources", json!([{"kind": "run", "run_id": "diary:e1"}])),
        ("sources", json!(["step:run-1#3"])),
    ];
    for (key, value) in refused {
        let mut bad = call.clone();
        bad[key] = value.clone();
        assert!(
            serde_json::from_value::<RewriteDigest>(bad.clone()).is_err(),
            "rewrite_digest took {key} = {value}"
        );
        let mut retitle = bad.clone();
        let o = retitle.as_object_mut().unwrap();
        o.remove("text");
        o.insert("title".into(), json!("T"));
        assert!(
            serde_json::from_value::<Retitle>(retitle).is_err(),
            "retitle took {key} = {value}"
        );
        let mut narrate = bad;
        let o = narrate.as_object_mut().unwrap();
        let id = o.remove("record_id").unwrap();
        o.insert("dream_id".into(), id);
        assert!(
            serde_json::from_value::<NarrateDream>(narrate).is_err(),
            "narrate_dream took {key} = {value}"
        );
    }
    let mut revert = json!({"record_id": "ex:r", "to_version": 0, "expected_version": 1});
    revert["by"] = json!({"kind": "operator", "id": "ada"});
    assert!(serde_json::from_value::<RevertDigest>(revert.clone()).is_ok());
    revert["by"] = json!({"kind": "boss", "id": "ada"});
    assert!(serde_json::from_value::<RevertDigest>(revert).is_err());
}

#[test]
fn a_store_that_cannot_rewrite_in_place_is_unsupported_and_a_journal_elsewhere_is_invalid() {
    // A SQLite store whose journal lives in another file (here: in memory).
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("store.sqlite3")).unwrap();
    let store: Arc<dyn TripleStore> =
        Arc::new(SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default()).unwrap());
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let sys = MemorySystem::with_options(store, journal, options()).unwrap();
    let ids = sys
        .remember_many(&RememberMany::new(vec![lesson()], "session", "s1", "k"))
        .unwrap()
        .into_value();
    let err = sys
        .rewrite_digest(&rewrite(&ids[0], "Other.", 0))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    // A home over a store without the capability (LanceDB declares none).
    let other = dir.path().join("journal.sqlite3");
    let jhome = SqliteHome::open(&other).unwrap();
    let j: Arc<dyn MemoryJournal> = Arc::new(SQLiteJournal::open(&jhome).unwrap());
    let no_rewrite = PairHome::new(Arc::new(NoRewrite(InMemoryTripleStore::new(None))), j);
    assert_eq!(
        no_rewrite.check_rewrite().unwrap_err().kind(),
        ErrorKind::Unsupported
    );
}

/// A store that declares no `digest_rewrite` capability (as LanceDB does).
struct NoRewrite(InMemoryTripleStore);

impl TripleStore for NoRewrite {
    fn capabilities(&self) -> am_triples::Capabilities {
        am_triples::Capabilities {
            digest_rewrite: false,
            ..self.0.capabilities()
        }
    }
    fn add(&self, a: &[am_triples::TripleAssertion]) -> am_triples::Result<Vec<String>> {
        self.0.add(a)
    }
    fn query(&self, q: &TripleQuery) -> am_triples::Result<Vec<am_triples::TripleAssertion>> {
        self.0.query(q)
    }
    fn close(&self) -> am_triples::Result<()> {
        self.0.close()
    }
}

/// A fault at each step of the SQLite transaction (a real SQLite error raised
/// by a trigger on the table that step writes, the commit guard before the
/// COMMIT) and an embedder failure before it: each leaves the file and its WAL
/// byte for byte as they were.
#[test]
fn a_fault_at_any_step_of_the_sqlite_rewrite_leaves_the_home_byte_identical() {
    let steps = [
        (
            "version rows",
            "CREATE TRIGGER fault BEFORE INSERT ON memj_versions BEGIN SELECT RAISE(ABORT, 'injected'); END",
        ),
        (
            "row update",
            "CREATE TRIGGER fault BEFORE UPDATE ON triples BEGIN SELECT RAISE(ABORT, 'injected'); END",
        ),
        (
            "generation bump",
            "CREATE TRIGGER fault BEFORE INSERT ON triples_meta BEGIN SELECT RAISE(ABORT, 'injected'); END",
        ),
        (
            "seq counter",
            "CREATE TRIGGER fault BEFORE UPDATE ON memj_seq BEGIN SELECT RAISE(ABORT, 'injected'); END",
        ),
        (
            "keyword index",
            "CREATE TRIGGER fault BEFORE INSERT ON triples_fts_data BEGIN SELECT RAISE(ABORT, 'injected'); END",
        ),
    ];
    for (step, trigger) in steps {
        let s = sqlite(true);
        let ids = form(&s, vec![lesson()]);
        {
            let conn = rusqlite::Connection::open(s.path.as_ref().unwrap()).unwrap();
            conn.execute_batch(trigger).unwrap();
        }
        let before = state(&s, &ids[0]);
        let err = s
            .system
            .rewrite_digest(&rewrite(&ids[0], "Quantum lattices hum.", 0))
            .expect_err(step);
        // FTS5 reports its shadow table's abort as a constraint failure.
        let fired = err.to_string().contains("injected")
            || (step == "keyword index" && err.to_string().contains("constraint failed"));
        assert!(fired, "{step}: {err}");
        assert_eq!(err.kind(), ErrorKind::Storage, "{step}: {err}");
        assert_eq!(state(&s, &ids[0]), before, "{step} left a torn write");
    }
    // The embedder fails before the transaction: a refusal, nothing written.
    let s = sqlite(true);
    let ids = form(&s, vec![lesson()]);
    s.fail.store(true, Ordering::SeqCst);
    refused(&s, &ids[0], Reason::EmbedderUnavailable, || {
        s.system
            .rewrite_digest(&rewrite(&ids[0], "Quantum lattices hum.", 0))
            .unwrap()
    });
    // The commit guard refuses right before the COMMIT.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let guarded = MemorySystem::over_home_with_options(
        mh.clone(),
        SystemOptions {
            commit_guard: Some(am_triples::CommitGuard::new(move |point| {
                if flag.load(Ordering::SeqCst) {
                    Err(format!("stopped at {point}").into())
                } else {
                    Ok(())
                }
            })),
            ..options()
        },
    )
    .unwrap();
    let ids = guarded
        .remember_many(&RememberMany::new(vec![lesson()], "session", "s1", "k"))
        .unwrap()
        .into_value();
    let bytes = || {
        (
            std::fs::read(&path).unwrap(),
            std::fs::read(format!("{}-wal", path.display())).unwrap_or_default(),
        )
    };
    let before = bytes();
    stop.store(true, Ordering::SeqCst);
    let err = guarded
        .rewrite_digest(&rewrite(&ids[0], "Other words.", 0))
        .unwrap_err();
    let refusal = err.guard_refusal().expect("a guard refusal");
    assert_eq!(refusal.point().as_str(), "understanding.digest");
    assert_eq!(bytes(), before);
    let _ = mh;
}

#[test]
fn a_digest_revert_restores_its_title_unless_the_record_was_retitled_since() {
    for s in both(false) {
        let ids = form(&s, vec![lesson(), lesson_b()]);
        // Rewritten with a new title, then reverted: the old title comes back.
        let mut args = rewrite(&ids[0], "Measure first.", 0);
        args.title = Some("Measured pools".into());
        s.system.rewrite_digest(&args).unwrap();
        let r = s
            .system
            .revert_digest(&RevertDigest::new(&ids[0], 0, 1))
            .unwrap();
        assert_eq!(
            r.extra.get("title_version"),
            Some(&json!(2)),
            "[{}]",
            s.name
        );
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(row.attributes["title"], json!("Pool sizing"));
        // Retitled after its rewrite: the revert keeps that title.
        let mut args = rewrite(&ids[1], "Second reading.", 0);
        args.title = Some("Second title".into());
        s.system.rewrite_digest(&args).unwrap();
        s.system
            .retitle(&Retitle::new(
                &ids[1],
                "Chosen title",
                operator(),
                json!("operator"),
                1,
            ))
            .unwrap();
        let r = s
            .system
            .revert_digest(&RevertDigest::new(&ids[1], 0, 1))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied);
        assert_eq!(r.extra.get("title_version"), None);
        let row = s.system.resolve_digest_assertion(&ids[1]).unwrap().unwrap();
        assert_eq!(row.attributes["title"], json!("Chosen title"));
        assert_eq!(row.object, "Backups rot unless restored.");
    }
}

fn lesson_b() -> MemoryRecordInput {
    MemoryRecordInput::new(
        RecordKind::Lesson,
        "Backups",
        "Backups rot unless restored.",
    )
}

#[test]
fn retitle_does_not_refuse_a_protected_kind_and_rewrites_its_vector() {
    for s in both(true) {
        let ids = form(
            &s,
            vec![
                MemoryRecordInput::new(RecordKind::Value, "Candour", "I say what I see.")
                    .with_attribute("value_class", "core"),
            ],
        );
        let before = state(&s, &ids[0]);
        let r = s
            .system
            .retitle(&Retitle::new(
                &ids[0],
                "Candour, always",
                operator(),
                json!("repair"),
                0,
            ))
            .unwrap();
        assert_eq!(r.outcome, Outcome::Applied, "[{}] {r:?}", s.name);
        assert_eq!(r.vector_rewritten, Some(true));
        let row = s.system.resolve_digest_assertion(&ids[0]).unwrap().unwrap();
        assert_eq!(row.object, "I say what I see.", "the body is untouched");
        assert_ne!(state(&s, &ids[0]).vector, before.vector);
        // Its body stays protected.
        let body = s
            .system
            .rewrite_digest(&rewrite(&ids[0], "Other words.", 0))
            .unwrap();
        assert_eq!(body.outcome, Outcome::Refused(Reason::ProtectedKind));
    }
}
