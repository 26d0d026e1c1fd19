//! Identity on both stacks: the engram refusals write nothing, authored
//! births (the host's `author` writes an unnamed item's title before it
//! forms), the default template, and the folded core after a record closes.

mod common;

use am_journal::ClosureKind;
use am_system::CloseRecord;
use am_system::formation::authoring::{AuthorContext, AuthorError, Authored};
use am_system::identity::{DEFAULT_SPARK_TEMPLATE, Engram, SelfRecords};
use am_triples::ErrorKind::InvalidInput;
use am_triples::JsonMap;
use common::{assert_refused, named, on_both, written};
use serde_json::{Value, json};

fn operator_author(kind: &str, body: &str, ctx: &AuthorContext) -> Result<Authored, AuthorError> {
    assert_eq!(ctx.pass, "engram");
    let mut who = JsonMap::new();
    who.insert("kind".into(), json!("operator"));
    who.insert("id".into(), json!("op:test"));
    Ok(Authored {
        title: Some(format!(
            "{kind}: {}",
            body.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        )),
        author: who,
        ..Authored::default()
    })
}

#[test]
fn engram_refusals_write_nothing() {
    on_both(|s| {
        let sys = &s.system;
        sys.engram(&Engram::new(named(), "entity:castor"), None)
            .unwrap();
        let before = written(s);
        let mut modified = named();
        modified.insert(
            "origin".into(),
            json!("Another origin story, told differently."),
        );
        assert_refused(
            s,
            &before,
            sys.engram(&Engram::new(modified, "entity:castor"), None),
            InvalidInput,
            &["other content"],
        );
        let mut v2 = named();
        v2.insert("spark".into(), json!(2));
        assert_refused(
            s,
            &before,
            sys.engram(&Engram::new(v2, "entity:castor"), None),
            InvalidInput,
            &["still prompt-active"],
        );
        let mut bad = named();
        bad.remove("honesty");
        assert_refused(
            s,
            &before,
            sys.engram(&Engram::new(bad, "entity:castor"), None),
            InvalidInput,
            &["lint errors", "honesty"],
        );
        let failing = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
            Err(AuthorError::new("Timeout", "the reader did not answer"))
        };
        assert_refused(
            s,
            &before,
            sys.engram(
                &Engram::new(DEFAULT_SPARK_TEMPLATE(), "entity:other"),
                Some(&failing),
            ),
            InvalidInput,
            &["author_raised", "task queue"],
        );
    });
}

#[test]
fn an_unnamed_item_is_authored_before_it_forms_and_a_replay_asks_nothing() {
    on_both(|s| {
        let sys = &s.system;
        let mut spark = DEFAULT_SPARK_TEMPLATE();
        spark.insert("name".into(), json!("Castor"));
        let r = sys
            .engram(
                &Engram::new(spark.clone(), "entity:castor"),
                Some(&operator_author),
            )
            .unwrap();
        assert!(r.created);
        // The three values are named; purpose, trait and honesty item are authored.
        assert_eq!(r.authoring.authored.len(), 3, "{:?}", r.authoring);
        assert!(r.authoring.failures.is_empty());
        let core = sys
            .self_records(&SelfRecords::new("self", "entity:castor"))
            .unwrap();
        assert_eq!(core.len(), 6);
        let limit = core
            .iter()
            .find(|a| a.attributes.get("trait_class") == Some(&json!("limit")))
            .unwrap();
        assert!(
            limit.attributes["title"]
                .as_str()
                .unwrap()
                .starts_with("trait: Report")
        );
        assert_eq!(
            limit.attributes["title_provenance"]["author"]["id"],
            json!("op:test")
        );
        // A replay never asks the author again.
        let never = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
            panic!("the author was asked about a record already formed")
        };
        let before = written(s);
        let again = sys
            .engram(&Engram::new(spark, "entity:castor"), Some(&never))
            .unwrap();
        assert!(!again.created && again.authoring.is_empty());
        assert_eq!(again.record_ids, r.record_ids);
        assert_eq!(written(s), before, "[{}] a replay wrote", s.name);
    });
}

#[test]
fn self_records_fold_closures_and_order_by_kind_then_precedence() {
    on_both(|s| {
        let sys = &s.system;
        let r = sys
            .engram(&Engram::new(named(), "entity:castor"), None)
            .unwrap();
        let kinds: Vec<Value> = sys
            .self_records(&SelfRecords::new("self", "entity:castor"))
            .unwrap()
            .iter()
            .map(|a| a.attributes["record_kind"].clone())
            .collect();
        assert_eq!(
            kinds,
            [
                json!("value"),
                json!("value"),
                json!("value"),
                json!("purpose"),
                json!("trait"),
                json!("trait")
            ]
        );
        let seq = sys.current_seq().unwrap();
        sys.close_record(&CloseRecord::new(
            &r.record_ids.values[1],
            ClosureKind::Retract,
            "outgrown",
        ))
        .unwrap();
        let now = sys
            .self_records(&SelfRecords::new("self", "entity:castor"))
            .unwrap();
        assert_eq!(now.len(), 5);
        assert!(now.iter().all(|a| a.subject != r.record_ids.values[1]));
        let then = sys
            .self_records(&SelfRecords {
                as_of: Some(seq),
                ..SelfRecords::new("self", "entity:castor")
            })
            .unwrap();
        assert_eq!(then.len(), 6, "the core as of before the closure");
    });
}

/// The two stacks opened with their task queue: the in-memory pair (a
/// `PairHome` with an in-memory queue) and the SQLite home. The directory
/// must outlive the SQLite system.
fn queued_systems() -> (
    am_system::MemorySystem,
    am_system::MemorySystem,
    tempfile::TempDir,
) {
    use std::sync::Arc;
    let options = || am_system::SystemOptions {
        task_queue: true,
        clock: Some(common::pinned_clock()),
        ..am_system::SystemOptions::default()
    };
    let memory = {
        let store: Arc<dyn am_triples::TripleStore> =
            Arc::new(am_triples::InMemoryTripleStore::new(None));
        let journal: Arc<dyn am_journal::MemoryJournal> =
            Arc::new(am_journal::InMemoryJournal::new());
        let queue = Arc::new(am_journal::InMemoryTaskQueue::new());
        let home = Arc::new(am_journal::PairHome::with_task_queue(store, journal, queue));
        am_system::MemorySystem::over_home_with_options(home, options()).unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let sqlite = {
        let home = am_backend_sqlite::SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
        let mh = Arc::new(
            am_backend_sqlite::SqliteMemoryHome::open(
                &home,
                None,
                am_backend_sqlite::SqliteStoreOptions::default(),
            )
            .unwrap(),
        );
        am_system::MemorySystem::over_home_with_options(mh, options()).unwrap()
    };
    (memory, sqlite, dir)
}

#[test]
fn on_a_home_with_a_task_queue_an_unauthored_birth_forms_pending_with_its_task() {
    let (memory, sqlite, _dir) = queued_systems();
    for sys in [&memory, &sqlite] {
        let r = sys
            .engram(
                &Engram::new(DEFAULT_SPARK_TEMPLATE(), "entity:castor"),
                None,
            )
            .unwrap();
        assert!(r.created);
        assert_eq!(r.authoring.failures.len(), 3, "{:?}", r.authoring);
        assert!(
            r.authoring
                .failures
                .iter()
                .all(|f| f.reason.as_str() == "no_author_supplied")
        );
        let core = sys
            .self_records(&SelfRecords::new("self", "entity:castor"))
            .unwrap();
        assert_eq!(core.len(), 6);
        let pending: Vec<_> = core
            .iter()
            .filter(|a| a.attributes.contains_key("pending"))
            .collect();
        assert_eq!(
            pending.len(),
            3,
            "the unnamed purpose, trait and honesty item"
        );
        assert!(
            pending
                .iter()
                .all(|a| a.attributes.get("title").is_none_or(Value::is_null))
        );
        let counts = sys.tasks().unwrap().counts().unwrap();
        let titles: usize = counts
            .by_kind
            .get("title.author")
            .map_or(0, |m| m.values().sum());
        assert_eq!(
            titles, 3,
            "one title.author task per pending birth title: {counts:?}"
        );
    }
}

/// Birth strictness (spec: 0.3.2's `engram`, catalogue "refused when
/// vectorless under a pinned space"): under a pinned embedding space an
/// identity core that would be stored without vectors is refused, naming
/// both repairs, and nothing is written. 0.3.2 forms the records and then
/// raises; the spec's refusals write nothing, so ours decides first.
#[test]
fn a_vectorless_birth_under_a_pinned_embedding_space_is_refused_and_writes_nothing() {
    use am_triples::pin::{PIN_SOURCE_CREATION, build_pin};
    use std::sync::Arc;
    let pin = || {
        build_pin(
            Some("minishlab/potion-base-2M"),
            Some(64),
            PIN_SOURCE_CREATION,
            None,
        )
        .unwrap()
    };
    let clock = || am_system::SystemOptions {
        clock: Some(common::pinned_clock()),
        ..am_system::SystemOptions::default()
    };
    // The in-memory pair and the SQLite home, each pinned, neither with an
    // embedder: every row they store is vectorless.
    let memory_store: Arc<dyn am_triples::TripleStore> =
        Arc::new(am_triples::InMemoryTripleStore::with_pin(None, pin()).unwrap());
    let memory_journal: Arc<dyn am_journal::MemoryJournal> =
        Arc::new(am_journal::InMemoryJournal::new());
    let memory = common::Stack::over(
        "memory",
        memory_store.clone(),
        memory_journal.clone(),
        am_system::MemorySystem::with_options(memory_store, memory_journal, clock()).unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let sqlite_pinned = |embedder: Option<Arc<dyn am_triples::TextEmbedder>>, pinned: bool| {
        let home = am_backend_sqlite::SqliteHome::open(&path).unwrap();
        let mh = Arc::new(
            am_backend_sqlite::SqliteMemoryHome::open(
                &home,
                embedder,
                am_backend_sqlite::SqliteStoreOptions {
                    embedding_pin: pinned.then(pin),
                    ..am_backend_sqlite::SqliteStoreOptions::default()
                },
            )
            .unwrap(),
        );
        common::Stack::over(
            "sqlite",
            mh.sqlite_store().clone(),
            mh.sqlite_journal().clone(),
            am_system::MemorySystem::over_home_with_options(mh, clock()).unwrap(),
        )
    };
    let sqlite = sqlite_pinned(None, true);
    for s in [&memory, &sqlite] {
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system
                .engram(&Engram::new(named(), "entity:castor"), None),
            InvalidInput,
            &["vectorless", "pinned embedding space", "re-embedding"],
        );
    }
    drop(sqlite);

    // A core born vectorless on a pinless home (a legal, deliberate mode),
    // replayed once the home is pinned and embedded: the replay would write
    // nothing and could never vector it, so it is refused too.
    let other = tempfile::tempdir().unwrap();
    let path2 = other.path().join("home.sqlite3");
    {
        let home = am_backend_sqlite::SqliteHome::open(&path2).unwrap();
        let mh = Arc::new(
            am_backend_sqlite::SqliteMemoryHome::open(&home, None, Default::default()).unwrap(),
        );
        let sys = am_system::MemorySystem::over_home_with_options(mh, clock()).unwrap();
        assert!(
            sys.engram(&Engram::new(named(), "entity:castor"), None)
                .unwrap()
                .created
        );
    }
    let embedder: Arc<dyn am_triples::TextEmbedder> =
        Arc::new(am_embed::OfflineEmbedder::new().unwrap());
    let replay = {
        let home = am_backend_sqlite::SqliteHome::open(&path2).unwrap();
        let mh = Arc::new(
            am_backend_sqlite::SqliteMemoryHome::open(
                &home,
                Some(embedder.clone()),
                am_backend_sqlite::SqliteStoreOptions {
                    embedding_pin: Some(pin()),
                    ..am_backend_sqlite::SqliteStoreOptions::default()
                },
            )
            .unwrap(),
        );
        common::Stack::over(
            "sqlite",
            mh.sqlite_store().clone(),
            mh.sqlite_journal().clone(),
            am_system::MemorySystem::over_home_with_options(mh, clock()).unwrap(),
        )
    };
    let before = written(&replay);
    assert_refused(
        &replay,
        &before,
        replay
            .system
            .engram(&Engram::new(named(), "entity:castor"), None),
        InvalidInput,
        &["vectorless", "born without vectors"],
    );

    // With its pinned embedder the same birth forms, vectored.
    let live = sqlite_pinned(Some(embedder), true);
    let r = live
        .system
        .engram(&Engram::new(named(), "entity:castor"), None)
        .unwrap();
    assert!(r.created);
    let digest = live
        .store
        .query(&am_triples::TripleQuery {
            subject: Some(r.record_ids.values[0].clone()),
            predicate: Some("dcterms:abstract".into()),
            limit: 1,
            ..am_triples::TripleQuery::default()
        })
        .unwrap();
    let id = digest[0].assertion_id.clone().unwrap();
    assert!(live.store.stored_vector(&id).unwrap().is_some());
}

/// api.md "Birth titles are authored": when `author` raises, the unnamed
/// item forms PENDING (title `None`, its `title.author` task queued in the
/// same formation) with `attributes.pending.failure` = `{reason:
/// "author_raised", error_class, message, at, fields: ["title"]}`, and
/// `EngramResult.authoring.failures` names each such record; a named item
/// is untouched. Both stacks, each opened with its task queue.
#[test]
fn an_author_that_raises_during_a_queued_birth_forms_pending_with_the_recorded_failure() {
    let (memory, sqlite, _dir) = queued_systems();
    let raising = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
        Err(AuthorError::new("Timeout", "the reader did not answer"))
    };
    let mut spark = DEFAULT_SPARK_TEMPLATE();
    spark.insert("name".into(), json!("Castor"));
    for sys in [&memory, &sqlite] {
        let r = sys
            .engram(&Engram::new(spark.clone(), "entity:castor"), Some(&raising))
            .unwrap();
        assert!(r.created);
        assert!(r.authoring.authored.is_empty(), "{:?}", r.authoring);
        // The template's unnamed purpose, trait and honesty item.
        let pending_ids = [
            r.record_ids.purposes[0].clone(),
            r.record_ids.traits[0].clone(),
            r.record_ids.honesty[0].clone(),
        ];
        let failed: Vec<&str> = r
            .authoring
            .failures
            .iter()
            .map(|f| f.record_id.as_str())
            .collect();
        assert_eq!(
            failed,
            pending_ids.iter().map(String::as_str).collect::<Vec<_>>()
        );
        for f in &r.authoring.failures {
            assert_eq!(f.reason.as_str(), "author_raised");
            assert_eq!(f.error_class.as_deref(), Some("Timeout"));
            assert_eq!(f.message, "the reader did not answer");
            assert_eq!(f.pass, "engram");
            assert_eq!(f.at, common::PINNED_NOW);
            assert_eq!(f.fields, [am_system::AuthorField::Title]);
        }
        let core = sys
            .self_records(&SelfRecords::new("self", "entity:castor"))
            .unwrap();
        assert_eq!(core.len(), 6, "every item forms, named or pending");
        for a in &core {
            let pending = pending_ids.contains(&a.subject);
            assert_eq!(
                a.attributes.contains_key("pending"),
                pending,
                "{}",
                a.subject
            );
            if !pending {
                assert!(a.attributes["title"].is_string());
                continue;
            }
            assert!(a.attributes.get("title").is_none_or(Value::is_null));
            assert_eq!(
                a.attributes["pending"]["failure"],
                json!({"reason": "author_raised", "error_class": "Timeout",
                       "message": "the reader did not answer", "at": common::PINNED_NOW,
                       "fields": ["title"]}),
                "{}",
                a.subject
            );
            let tasks = sys
                .tasks()
                .unwrap()
                .tasks(&am_system::tasks::ListTasks {
                    target_id: Some(a.subject.clone()),
                    ..Default::default()
                })
                .unwrap();
            let kinds: Vec<&str> = tasks.iter().map(|t| t.kind.as_str()).collect();
            assert_eq!(kinds, ["title.author"], "{}", a.subject);
        }
    }
}

/// api.md "Legacy birth labels": the pattern counts only on `value` /
/// `purpose` / `trait` records carrying `attributes.spark_version`; a title
/// that merely contains such words is not a label.
#[test]
fn a_legacy_birth_label_counts_only_on_an_identity_record_with_a_spark_version() {
    use am_system::identity::is_legacy_birth_label_record;
    let row = |kind: &str, title: &str, spark_version: Option<i64>| {
        let mut attrs = json!({"record_kind": kind, "title": title});
        if let Some(v) = spark_version {
            attrs["spark_version"] = json!(v);
        }
        am_triples::TripleAssertion::from_dict(&json!({
            "subject": "ex:trait-1", "predicate": "dcterms:abstract", "object": "Wait.",
            "scope": "self", "owner_id": "entity:castor", "attributes": attrs}))
        .unwrap()
    };
    assert!(is_legacy_birth_label_record(&row(
        "trait",
        "trait-0",
        Some(1)
    )));
    assert!(is_legacy_birth_label_record(&row(
        "trait",
        "limit-3",
        Some(1)
    )));
    assert!(is_legacy_birth_label_record(&row(
        "value",
        "value-12",
        Some(2)
    )));
    assert!(!is_legacy_birth_label_record(&row(
        "trait", "trait-0", None
    )));
    assert!(!is_legacy_birth_label_record(&row(
        "lesson",
        "trait-0",
        Some(1)
    )));
    assert!(!is_legacy_birth_label_record(&row(
        "trait",
        "my trait-0",
        Some(1)
    )));
    assert!(!is_legacy_birth_label_record(&row(
        "purpose",
        "Purpose-0",
        Some(1)
    )));
}
