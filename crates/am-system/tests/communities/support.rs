//! Helpers the communities tests share: stacks with a task queue and a
//! topic embedder, lived records about a few topics, a scripted author.

use crate::common::{Stack, pinned_clock};
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{InMemoryJournal, MemoryJournal};
use am_system::communities::{CommunitiesPass, CommunitiesReport};
use am_system::formation::authoring::{AuthorContext, AuthorError, Authored};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany, SystemOptions};
use am_triples::{
    InMemoryTripleStore, JsonMap, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use serde_json::json;
use std::sync::Arc;

pub(crate) const OWNER: &str = "entity:castor";
pub(crate) const SCOPE: &str = "life";

/// The topic words and their axes: a text's vector is the sum of the axes
/// of the topic words it contains, plus a small, text-derived offset in the
/// last dimensions (so records differ); a text with no topic word embeds to
/// the zero vector (stored vector-less).
pub(crate) const TOPICS: [&str; 4] = ["garden", "music", "code", "cooking"];

pub(crate) struct TopicEmbedder;

impl TextEmbedder for TopicEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let low = t.to_lowercase();
                let mut v = vec![0.0f32; 8];
                let mut any = false;
                for (i, w) in TOPICS.iter().enumerate() {
                    if low.contains(w) {
                        v[i] = 1.0;
                        any = true;
                    }
                }
                if any {
                    let h = low
                        .bytes()
                        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
                    #[allow(clippy::cast_precision_loss)]
                    for (k, x) in v.iter_mut().enumerate().skip(4) {
                        *x = ((h >> (k * 4)) & 0xf) as f32 / 100.0;
                    }
                }
                v
            })
            .collect())
    }
    fn model_id(&self) -> Option<String> {
        Some("topic-embedder-v1".into())
    }
    fn dimension(&self) -> Option<usize> {
        Some(8)
    }
}

fn options(queue: bool) -> SystemOptions {
    SystemOptions {
        task_queue: queue,
        clock: Some(pinned_clock()),
        ..SystemOptions::default()
    }
}

pub(crate) fn memory(queue: bool) -> Stack {
    memory_with(queue, Some(Arc::new(TopicEmbedder)))
}

/// The in-memory pair with `embedder` on its store.
pub(crate) fn memory_with(queue: bool, embedder: Option<Arc<dyn TextEmbedder>>) -> Stack {
    let concrete = Arc::new(InMemoryTripleStore::new(embedder));
    let store: Arc<dyn TripleStore> = concrete;
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let system =
        MemorySystem::with_options(store.clone(), journal.clone(), options(queue)).unwrap();
    Stack::over("memory", store, journal, system)
}

pub(crate) struct Sqlite {
    pub stack: Stack,
    _dir: tempfile::TempDir,
}

pub(crate) fn sqlite(queue: bool) -> Sqlite {
    sqlite_with(queue, Some(Arc::new(TopicEmbedder)))
}

/// A SQLite home with `embedder` on its store.
pub(crate) fn sqlite_with(queue: bool, embedder: Option<Arc<dyn TextEmbedder>>) -> Sqlite {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let mh =
        Arc::new(SqliteMemoryHome::open(&home, embedder, SqliteStoreOptions::default()).unwrap());
    let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
    let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
    let system = MemorySystem::over_home_with_options(mh, options(queue)).unwrap();
    Sqlite {
        stack: Stack::over("sqlite", store, journal, system),
        _dir: dir,
    }
}

impl Sqlite {
    /// A second handle on the same home file (another process's view: its
    /// own connection, system and faculty state).
    pub(crate) fn second_handle(&self) -> Stack {
        let home = SqliteHome::open(self._dir.path().join("home.sqlite3")).unwrap();
        let mh = Arc::new(
            SqliteMemoryHome::open(
                &home,
                Some(Arc::new(TopicEmbedder)),
                SqliteStoreOptions::default(),
            )
            .unwrap(),
        );
        let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
        let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
        let system = MemorySystem::over_home_with_options(mh, options(true)).unwrap();
        Stack::over("sqlite-second", store, journal, system)
    }
}

/// Run `check` on the in-memory pair and the SQLite home (with the queue).
pub(crate) fn on_both(check: impl Fn(&Stack)) {
    check(&memory(true));
    let s = sqlite(true);
    check(&s.stack);
}

/// A lived episode.
pub(crate) fn episode(title: &str, digest: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Episode, title, digest)
}

/// Form `records` in the home pair under `key`.
pub(crate) fn live(s: &Stack, key: &str, records: Vec<MemoryRecordInput>) -> Vec<String> {
    s.system
        .remember_many(&RememberMany::new(records, SCOPE, OWNER, key))
        .unwrap()
        .value
}

/// `n` records about `topic`.
pub(crate) fn about(s: &Stack, topic: &str, n: usize, key: &str) -> Vec<String> {
    live(
        s,
        key,
        (0..n)
            .map(|i| {
                episode(
                    &format!("{topic} note {key} {i}"),
                    &format!("A day of {topic}, part {i} ({key})."),
                )
            })
            .collect(),
    )
}

/// A home of two topics: 6 garden records and 4 music records.
pub(crate) fn two_topics(s: &Stack) -> (Vec<String>, Vec<String>) {
    (about(s, "garden", 6, "g1"), about(s, "music", 4, "m1"))
}

pub(crate) fn pass_args() -> CommunitiesPass {
    CommunitiesPass::new(&[(SCOPE, OWNER)], OWNER)
}

pub(crate) fn never() -> bool {
    false
}

/// The pass without an author, never cancelled.
pub(crate) fn pass(s: &Stack) -> CommunitiesReport {
    s.system
        .communities_pass(&pass_args(), None, &never)
        .unwrap()
}

pub(crate) fn operator() -> JsonMap {
    let mut m = JsonMap::new();
    m.insert("kind".into(), json!("operator"));
    m.insert("id".into(), json!("op:ada"));
    m
}

/// An author that names each topic after its size.
pub(crate) fn namer(_kind: &str, body: &str, ctx: &AuthorContext) -> Result<Authored, AuthorError> {
    let first = body.lines().next().unwrap_or("").to_owned();
    let wants = |f: &str| ctx.fields.iter().any(|x| x.as_str() == f);
    Ok(Authored {
        title: wants("title").then(|| format!("Topic: {first}")),
        summary: wants("summary").then(|| format!("About {first}")),
        author: operator(),
        ..Authored::default()
    })
}

/// Every community digest row of the store (closed ones too), by subject.
pub(crate) fn community_rows(s: &Stack) -> Vec<TripleAssertion> {
    let mut v: Vec<TripleAssertion> = s
        .store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .filter(|a| a.attributes.get("record_kind").and_then(|k| k.as_str()) == Some("community"))
        .collect();
    v.sort_by(|a, b| a.subject.cmp(&b.subject));
    v
}
