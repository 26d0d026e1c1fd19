//! The owner's graph a system keeps between ripple calls (docs/ripple.md
//! "The owner's graph, kept between calls": new rows from the store's
//! change feed, rows rewritten in place read again as the journal's
//! understanding versions name them, closed ids from the journal's
//! closures) must answer exactly as a whole read. After every kind of
//! write (formation, a rewrite with new sources, a retraction, a
//! supersession, a ripple opened and settled, a world-model card over the
//! records, the claim of a pending card's authoring task, which rewrites
//! its marker in place, and writes through another handle on the same
//! store and journal), a dry run seeded on every record through the warm
//! system equals the same dry run through a system opened anew over the
//! same home. Both stacks.

use crate::common::{Stack, pinned_clock};
use crate::support::*;
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{AuthorKind, AuthorRef, InMemoryJournal, MemoryJournal, TaskKind, TaskStatus};
use am_system::recall::args::CloseRecord;
use am_system::ripple::{Change, SeedRipple};
use am_system::tasks::{Claim, ClaimTasks, ListTasks};
use am_system::understanding::args::RewriteDigest;
use am_system::world_models::WorldModelPass;
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany, SystemOptions};
use am_triples::{InMemoryTripleStore, TripleStore};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

fn options() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(pinned_clock()),
        ..SystemOptions::default()
    }
}

/// A stack and a way to open another system over the same home (a cold
/// one, nothing kept).
struct Home {
    stack: Stack,
    path: Option<PathBuf>,
    _dir: Option<tempfile::TempDir>,
}

impl Home {
    fn memory() -> Home {
        let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(None));
        let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
        let system = MemorySystem::with_options(store.clone(), journal.clone(), options()).unwrap();
        Home {
            stack: Stack::over("memory", store, journal, system),
            path: None,
            _dir: None,
        }
    }

    fn sqlite() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("home.sqlite3");
        let system = Self::open(&path);
        let (store, journal) = (system.store().clone(), system.journal().clone());
        Home {
            stack: Stack::over("sqlite", store, journal, system),
            path: Some(path),
            _dir: Some(dir),
        }
    }

    fn open(path: &std::path::Path) -> MemorySystem {
        let home = SqliteHome::open(path).unwrap();
        let mh = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
        MemorySystem::over_home_with_options(Arc::new(mh), options()).unwrap()
    }

    /// A system opened anew over the same store and journal.
    fn cold(&self) -> MemorySystem {
        match &self.path {
            Some(p) => Self::open(p),
            None => MemorySystem::with_options(
                self.stack.store.clone(),
                self.stack.journal.clone(),
                options(),
            )
            .unwrap(),
        }
    }
}

/// A dry run on every record of `ids` through the warm system and through
/// a cold one: equal answers.
fn check(h: &Home, ids: &[String], step: &str) {
    let cold = h.cold();
    for id in ids {
        for change in [Change::Revised, Change::Overturned] {
            let mut a = SeedRipple::new(id, json!({"cause": "backfill", "check": step}));
            a.change = change;
            a.dry_run = true;
            let warm = serde_json::to_value(h.stack.system.seed_ripple(&a).unwrap().value).unwrap();
            let fresh = serde_json::to_value(cold.seed_ripple(&a).unwrap().value).unwrap();
            assert_eq!(
                warm, fresh,
                "[{}] after {step}: seeded on {id}",
                h.stack.name
            );
        }
    }
}

fn digest_version(s: &MemorySystem, id: &str) -> i64 {
    let row = s.resolve_digest_assertion(id).unwrap().unwrap();
    row.attributes
        .get("digest_version")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

fn rewrite(s: &MemorySystem, id: &str, derived_from: &[&str]) {
    let mut rw = RewriteDigest::new(
        id,
        &format!("{id}: read again."),
        AuthorRef::new(AuthorKind::Operator, "op:reader"),
        json!("backfill"),
        digest_version(s, id),
    );
    rw.derived_from = derived_from.iter().map(|d| (*d).to_owned()).collect();
    let out = s.rewrite_digest(&rw).unwrap();
    assert!(out.outcome.applied(), "{out:?}");
}

fn with_ada(s: &MemorySystem, key: &str) -> Vec<String> {
    let records = (0..3)
        .map(|i| {
            let mut r = MemoryRecordInput::new(
                RecordKind::Episode,
                &format!("Ada {key} {i}"),
                &format!("Ada and the garden, {key} {i}."),
            );
            r.participants = vec!["person:ada".to_owned()];
            r
        })
        .collect();
    s.remember_many(&RememberMany::new(records, SCOPE, OWNER, key))
        .unwrap()
        .value
}

fn run(h: &Home) {
    let s = &h.stack;
    let mut ids: Vec<String> = Vec::new();
    let a = ep(s, "a", &[]);
    let b = ep(s, "b", &[("summarizes", &a)]);
    let c = ep(s, "c", &[("supports", &b), ("continues", &a)]);
    let d = form(s, RecordKind::Realization, "d", &[("reflected_in", &a)]);
    let re = form_with(s, RecordKind::Summary, "re", &[("summarizes", &b)], |r| {
        r.attributes
            .insert("summary_role".into(), json!("re-understanding"));
    });
    let theirs = form_as(
        s,
        "entity:pollux",
        RecordKind::Episode,
        "theirs",
        &[("summarizes", &a)],
    );
    ids.extend([a.clone(), b.clone(), c.clone(), d, re, theirs]);
    check(h, &ids, "formation");

    rewrite(&s.system, &b, &[&c]);
    check(h, &ids, "a rewrite with a new source");

    s.system
        .close_record(&CloseRecord::retract(&c, "no longer held"))
        .unwrap();
    check(h, &ids, "a retraction");

    let a2 = ep(s, "a2", &[("continues", &b)]);
    s.system
        .close_record(
            &CloseRecord::new(&a, am_journal::ClosureKind::Supersede, "read anew")
                .replaced_by(&[a2.as_str()]),
        )
        .unwrap();
    ids.push(a2.clone());
    check(h, &ids, "a supersession");

    let e = ep(s, "e", &[("summarizes", &a2)]);
    let f = ep(s, "f", &[("supports", &a2)]);
    ids.extend([e.clone(), f]);
    let r = seed(s, &seeding(&a2, Change::Overturned));
    assert!(r.opened && !r.reconsider_task_ids.is_empty(), "{r:?}");
    rewrite_and_settle(s, &r.ripple_id, &e, Change::Revised);
    check(h, &ids, "a ripple opened and one reconsideration settled");

    ids.extend(with_ada(&s.system, "ada-1"));
    let pass = WorldModelPass::new(&[(SCOPE, OWNER)], OWNER);
    s.system.world_model_pass(&pass, None).unwrap();
    let cards = am_system::world_models::current_world_models(
        s.store.as_ref(),
        Some(s.journal.as_ref()),
        &am_system::world_models::CardsOf::new(SCOPE, OWNER),
    )
    .unwrap();
    let card = cards
        .get("person:ada")
        .expect("a card on Ada")
        .subject
        .clone();
    ids.push(card.clone());
    check(h, &ids, "a world-model card over the records");

    let author = s
        .system
        .tasks()
        .unwrap()
        .tasks(&ListTasks {
            target_id: Some(card.clone()),
            kind: Some(TaskKind::DigestAuthor),
            ..ListTasks::default()
        })
        .unwrap()
        .into_iter()
        .find(|t| t.status == TaskStatus::Pending)
        .expect("the pending card's authoring task");
    let claimed = s
        .system
        .tasks()
        .unwrap()
        .claim(&Claim::new(
            ClaimTasks::Ids(vec![author.task_id.clone()]),
            "author",
        ))
        .unwrap();
    assert_eq!(claimed.claimed.len(), 1, "{claimed:?}");
    check(h, &ids, "the claim of the card's authoring task");

    let other = h.cold();
    let g = other
        .remember_many(&RememberMany::new(
            vec![{
                let mut r = MemoryRecordInput::new(RecordKind::Episode, "g", "g: what was held.");
                r.edges = vec![("summarizes".to_owned(), b.clone())];
                r
            }],
            SCOPE,
            OWNER,
            "k-g",
        ))
        .unwrap()
        .value
        .remove(0);
    ids.push(g.clone());
    check(h, &ids, "a formation through another handle");

    rewrite(&other, &g, &[&e]);
    other
        .close_record(&CloseRecord::retract(&b, "no longer held"))
        .unwrap();
    check(h, &ids, "a rewrite and a retraction through another handle");
}

#[test]
fn the_kept_owner_graph_answers_as_a_whole_read_after_every_kind_of_write() {
    run(&Home::memory());
    run(&Home::sqlite());
}
