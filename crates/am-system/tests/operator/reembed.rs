//! `reembed_store` / `reembed_home` on both stacks: the home moves to a new
//! space (a new model and a new dimension) whole, pin last, with a marker
//! record; an embedder that fails, or lies about its dimension, or a store
//! that changes mid-pass leaves the old vectors and pin, nothing written.

use crate::common::Stack;
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::kinds::RecordKind;
use am_system::operator::{MindMass, ReembedStore};
use am_system::{MemoryRecordInput, RememberMany};
use am_system::{MemorySystem, SystemOptions};
use am_triples::ErrorKind;
use am_triples::pin::build_pin;
use am_triples::{
    EmbeddingPin, InMemoryTripleStore, TextEmbedder, TripleAssertion, TripleQuery, TripleStore,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const PAIR: (&str, &str) = ("life", "demo");

/// A deterministic embedder of `dim` dimensions (letter counts folded).
struct Letters {
    dim: usize,
    model: &'static str,
}

impl TextEmbedder for Letters {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; self.dim];
                for (i, b) in t.bytes().enumerate() {
                    v[(usize::from(b) + i) % self.dim] += 1.0;
                }
                v[0] += 1.0;
                v
            })
            .collect())
    }
    fn model_id(&self) -> Option<String> {
        Some(self.model.to_owned())
    }
    fn dimension(&self) -> Option<usize> {
        Some(self.dim)
    }
}

fn old() -> Arc<dyn TextEmbedder> {
    Arc::new(Letters {
        dim: 8,
        model: "letters-8",
    })
}

fn new_space() -> Arc<dyn TextEmbedder> {
    Arc::new(Letters {
        dim: 12,
        model: "letters-12",
    })
}

/// Both stacks pinned to `letters-8`, with three records (one with an edge).
fn stacks() -> Vec<(Stack, Option<tempfile::TempDir>)> {
    stacks_with(SystemOptions::default)
}

/// As [`stacks`], each system opened with `options()`.
fn stacks_with(options: fn() -> SystemOptions) -> Vec<(Stack, Option<tempfile::TempDir>)> {
    let e = old();
    let pin = build_pin(e.model_id().as_deref(), e.dimension(), "creation", None).unwrap();
    let mem: Arc<dyn TripleStore> =
        Arc::new(InMemoryTripleStore::with_pin(Some(e.clone()), pin.clone()).unwrap());
    let mj: Arc<dyn am_journal::MemoryJournal> = Arc::new(am_journal::InMemoryJournal::new());
    let ms = MemorySystem::with_options(mem.clone(), mj.clone(), options()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let mh = Arc::new(
        SqliteMemoryHome::open(
            &home,
            Some(e),
            SqliteStoreOptions {
                embedding_pin: Some(pin),
                ..SqliteStoreOptions::default()
            },
        )
        .unwrap(),
    );
    let (store, journal): (Arc<dyn TripleStore>, Arc<dyn am_journal::MemoryJournal>) =
        (mh.sqlite_store().clone(), mh.sqlite_journal().clone());
    let system = MemorySystem::over_home_with_options(mh, options()).unwrap();
    let out = vec![
        (Stack::over("memory", mem, mj, ms), None),
        (Stack::over("sqlite", store, journal, system), Some(dir)),
    ];
    for (s, _) in &out {
        let ids = s
            .system
            .remember_many(&RememberMany::new(
                vec![
                    MemoryRecordInput::new(RecordKind::Memory, "Kiln", "the kiln glaze crawled"),
                    MemoryRecordInput::new(RecordKind::Lesson, "Bisque", "wash the bisque first"),
                ],
                PAIR.0,
                PAIR.1,
                "k1",
            ))
            .unwrap()
            .value;
        let mut linked =
            MemoryRecordInput::new(RecordKind::Episode, "Firing", "fired the kiln at dawn");
        linked.edges.push(("mentions".into(), ids[0].clone()));
        s.system
            .remember_many(&RememberMany::new(vec![linked], PAIR.0, PAIR.1, "k2"))
            .unwrap();
    }
    out
}

fn all_rows(s: &Stack) -> Vec<TripleAssertion> {
    s.store
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
}

/// Every row's id and stored vector length (`None`: vectorless), sorted.
fn vector_shape(s: &Stack) -> Vec<(String, Option<usize>)> {
    let mut v: Vec<(String, Option<usize>)> = all_rows(s)
        .into_iter()
        .map(|a| {
            let id = a.assertion_id.unwrap();
            let len = s.store.stored_vector(&id).unwrap().map(|v| v.len());
            (id, len)
        })
        .collect();
    v.sort();
    v
}

fn pin_of(s: &Stack) -> Option<EmbeddingPin> {
    s.store.embedding_pin().unwrap()
}

#[test]
fn reembed_moves_every_vector_to_the_new_space_with_the_pin_and_a_marker_on_both_stacks() {
    for (s, _dir) in stacks() {
        let before = vector_shape(&s);
        assert!(
            before.iter().any(|(_, l)| *l == Some(8)),
            "[{}] starts in 8d",
            s.name
        );
        let seq = s.journal.current_seq().unwrap();
        let mut seen = Vec::new();
        let r = s
            .system
            .reembed_store(&ReembedStore::new(PAIR.1), new_space(), &mut |d, of| {
                seen.push((d, of))
            })
            .unwrap();
        assert_eq!(r.rows, before.len(), "[{}]", s.name);
        assert_eq!(r.skipped_edges, 1, "[{}] the one formation edge", s.name);
        assert_eq!(r.vectored, r.rows - 1, "[{}]", s.name);
        assert_eq!(
            r.old_pin.as_ref().and_then(|p| p.model_id.as_deref()),
            Some("letters-8")
        );
        assert_eq!(
            (
                r.new_pin.model_id.as_deref(),
                r.new_pin.dimension,
                r.new_pin.source.as_str()
            ),
            (Some("letters-12"), Some(12), "reembed"),
            "[{}]",
            s.name
        );
        assert_eq!(
            pin_of(&s).as_ref(),
            Some(&r.new_pin),
            "[{}] the pin is the new one",
            s.name
        );
        assert_eq!(
            seen.last(),
            Some(&(r.rows - 1, r.rows - 1)),
            "[{}] progress",
            s.name
        );
        // Every row that held a vector now holds a 12d one; the edge none.
        for (id, len) in vector_shape(&s) {
            let was = before.iter().find(|(b, _)| *b == id).map(|(_, l)| *l);
            match was {
                Some(Some(_)) => assert_eq!(len, Some(12), "[{}] {id}", s.name),
                Some(None) => assert_eq!(len, None, "[{}] {id} stays vectorless", s.name),
                None => assert_eq!(
                    len,
                    Some(12),
                    "[{}] the marker forms in the new space",
                    s.name
                ),
            }
        }
        // The marker: a bookkeeping claim naming both spaces.
        let marker = s
            .store
            .query(&TripleQuery {
                subject: Some(r.marker_record_id.clone()),
                predicate: Some("dcterms:abstract".into()),
                limit: 1,
                ..TripleQuery::default()
            })
            .unwrap()
            .remove(0);
        assert_eq!(marker.attributes["record_kind"], "claim");
        assert_eq!(marker.attributes["bookkeeping"], true);
        assert_eq!(marker.attributes["old_model_id"], "letters-8");
        assert_eq!(marker.attributes["new_dimension"], 12);
        assert!(marker.object.contains("letters-8") && marker.object.contains("letters-12"));
        assert!(
            s.journal.current_seq().unwrap() > seq,
            "[{}] the act is journaled",
            s.name
        );
        // A semantic query now runs in the new space, and the report agrees.
        let hits = s
            .store
            .query(&TripleQuery {
                query_text: Some("kiln glaze".into()),
                limit: 3,
                ..TripleQuery::default()
            })
            .unwrap();
        assert!(!hits.is_empty(), "[{}] the new space answers", s.name);
        let wired = new_space();
        let mass = s
            .system
            .mind_mass_report(&MindMass::new(&[PAIR]), Some(wired.as_ref()))
            .unwrap();
        assert_eq!(mass.embedding.matches, Some(true), "[{}]", s.name);
        assert_eq!(mass.embedding.vector_scan.off_dimension, 0, "[{}]", s.name);
    }
}

#[test]
fn reembed_home_is_reembed_store() {
    for (s, _dir) in stacks() {
        let r = s
            .system
            .reembed_home(&ReembedStore::new(PAIR.1), new_space(), &mut |_, _| {})
            .unwrap();
        assert_eq!(pin_of(&s).unwrap().dimension, Some(12), "[{}]", s.name);
        assert_eq!(r.new_pin.source, "reembed");
    }
}

/// Every row's id and vector length, the pin, the journal's seq.
type HomeState = (Vec<(String, Option<usize>)>, Option<EmbeddingPin>, i64);

/// What a refused re-embed must leave: the vectors, the pin, the rows, the seq.
fn untouched(s: &Stack) -> HomeState {
    (vector_shape(s), pin_of(s), s.journal.current_seq().unwrap())
}

/// Declares `declared` dimensions, embeds in 12.
struct Liar {
    declared: usize,
}

impl TextEmbedder for Liar {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        new_space().embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        Some("liar".into())
    }
    fn dimension(&self) -> Option<usize> {
        Some(self.declared)
    }
}

#[test]
fn reembed_refuses_an_embedder_whose_vectors_disagree_with_its_declared_dimension() {
    for (s, _dir) in stacks() {
        let before = untouched(&s);
        let err = s
            .system
            .reembed_store(
                &ReembedStore::new(PAIR.1),
                Arc::new(Liar { declared: 16 }),
                &mut |_, _| {},
            )
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "[{}] {err}", s.name);
        assert!(err.to_string().contains("declares dimension 16"), "{err}");
        assert_eq!(untouched(&s), before, "[{}] nothing written", s.name);
    }
}

/// Fails on its `fail_at`-th call.
struct Flaky {
    calls: AtomicUsize,
    fail_at: usize,
}

impl TextEmbedder for Flaky {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        if self.calls.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at {
            return Err(am_triples::Error::storage("the embedding server went away"));
        }
        new_space().embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        Some("letters-12".into())
    }
}

#[test]
fn an_embedder_failing_mid_pass_leaves_the_old_vectors_and_pin() {
    for (s, _dir) in stacks() {
        let before = untouched(&s);
        let mut args = ReembedStore::new(PAIR.1);
        args.batch_size = 1;
        let flaky = Arc::new(Flaky {
            calls: AtomicUsize::new(0),
            fail_at: 3,
        });
        assert!(
            s.system
                .reembed_store(&args, flaky, &mut |_, _| {})
                .is_err()
        );
        assert_eq!(untouched(&s), before, "[{}] nothing written", s.name);
        // A re-run starts over and lands whole.
        let r = s
            .system
            .reembed_store(&args, new_space(), &mut |_, _| {})
            .unwrap();
        assert_eq!(pin_of(&s), Some(r.new_pin), "[{}]", s.name);
    }
}

/// Writes a row into the store while it embeds: another writer mid-pass.
struct Meddler {
    store: Mutex<Option<Arc<dyn TripleStore>>>,
}

impl TextEmbedder for Meddler {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        if let Some(store) = self.store.lock().unwrap().take() {
            let mut row = TripleAssertion::new("ex:intruder", "dcterms:title", "Intruder");
            row.scope = "life".into();
            store.add(&[row]).unwrap();
        }
        new_space().embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        Some("letters-12".into())
    }
}

#[test]
fn a_store_that_changes_between_scan_and_swap_refuses_the_swap_with_nothing_swapped() {
    for (s, _dir) in stacks() {
        let pin = pin_of(&s);
        let meddler = Arc::new(Meddler {
            store: Mutex::new(Some(s.store.clone())),
        });
        let err = s
            .system
            .reembed_store(&ReembedStore::new(PAIR.1), meddler, &mut |_, _| {})
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Conflict, "[{}] {err}", s.name);
        assert_eq!(pin_of(&s), pin, "[{}] the old pin stands", s.name);
        assert!(
            vector_shape(&s)
                .iter()
                .all(|(_, l)| l.is_none_or(|l| l == 8)),
            "[{}] only old vectors",
            s.name
        );
    }
}

#[test]
fn reembed_refuses_a_zero_batch_and_a_blank_owner() {
    for (s, _dir) in stacks() {
        let before = untouched(&s);
        let mut zero = ReembedStore::new(PAIR.1);
        zero.batch_size = 0;
        let e = s
            .system
            .reembed_store(&zero, new_space(), &mut |_, _| {})
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        let e = s
            .system
            .reembed_store(&ReembedStore::new(" "), new_space(), &mut |_, _| {})
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert_eq!(untouched(&s), before, "[{}]", s.name);
    }
}

/// Diverges from 0.3.2, whose marker key `reembed|<owner>|<stamp>` makes a
/// second re-embed under the same clock instant a replay of the first (no
/// second marker): the key carries the journal's seq as well.
#[test]
fn two_reembeds_under_one_pinned_clock_leave_two_markers_on_both_stacks() {
    fn pinned() -> SystemOptions {
        SystemOptions {
            clock: Some(am_triples::fixed_clock(
                am_triples::Timestamp::parse("2026-03-01T12:00:00+00:00").unwrap(),
            )),
            ..SystemOptions::default()
        }
    }
    for (s, _dir) in stacks_with(pinned) {
        let first = s
            .system
            .reembed_store(&ReembedStore::new(PAIR.1), new_space(), &mut |_, _| {})
            .unwrap();
        let second = s
            .system
            .reembed_store(&ReembedStore::new(PAIR.1), old(), &mut |_, _| {})
            .unwrap();
        assert_ne!(
            first.marker_record_id, second.marker_record_id,
            "[{}]",
            s.name
        );
        let markers: std::collections::BTreeSet<String> = all_rows(&s)
            .into_iter()
            .filter(|a| a.attributes.get("maintenance").and_then(|m| m.as_str()) == Some("reembed"))
            .map(|a| a.subject)
            .collect();
        assert_eq!(markers.len(), 2, "[{}] {markers:?}", s.name);
        assert_eq!(pin_of(&s).unwrap().model_id.as_deref(), Some("letters-8"));
    }
}
