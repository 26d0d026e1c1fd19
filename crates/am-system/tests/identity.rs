//! Identity on both stacks: the engram refusals write nothing, authored
//! births (the host's `author` writes an unnamed item's title before it
//! forms), the default template, and the folded core after a record closes.

mod common;

use am_system::authoring::{AuthorContext, AuthorError, Authored};
use am_system::identity::{DEFAULT_SPARK_TEMPLATE, Engram, SelfRecords};
use am_system::verbs::CloseRecord;
use am_triples::ErrorKind::InvalidInput;
use am_triples::JsonMap;
use common::{assert_refused, on_both, written};
use serde_json::{Value, json};

fn named() -> JsonMap {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/sparks.json"
    ))
    .unwrap();
    let all: JsonMap = serde_json::from_str(&text).unwrap();
    all["named"].as_object().unwrap().clone()
}

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
            "retract",
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

#[test]
fn on_a_home_with_a_task_queue_an_unauthored_birth_forms_pending_with_its_task() {
    use std::sync::Arc;
    let options = || am_system::SystemOptions {
        task_queue: true,
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
