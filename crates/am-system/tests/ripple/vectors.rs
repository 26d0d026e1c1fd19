//! The nearest digests by vector: `RIPPLE_NEAREST_K` (5) neighbours of the
//! source, each relying on it by `similarity_weight(cos)` (ours,
//! docs/ripple.md), on both stacks with the offline embedder.

use crate::common::Stack;
use crate::support::*;
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_embed::OfflineEmbedder;
use am_journal::{InMemoryJournal, MemoryJournal};
use am_system::config::RIPPLE_NEAREST_K;
use am_system::ripple::{Change, similarity_weight};
use am_system::{MemorySystem, SystemOptions};
use am_triples::{InMemoryTripleStore, TextEmbedder, TripleStore};
use std::sync::Arc;

fn options() -> SystemOptions {
    SystemOptions {
        task_queue: true,
        clock: Some(crate::common::pinned_clock()),
        ..SystemOptions::default()
    }
}

fn vectored_stacks() -> (Vec<Stack>, tempfile::TempDir) {
    let embedder: Arc<dyn TextEmbedder> = Arc::new(OfflineEmbedder::new().unwrap());
    let store: Arc<dyn TripleStore> = Arc::new(InMemoryTripleStore::new(Some(embedder.clone())));
    let journal: Arc<dyn MemoryJournal> = Arc::new(InMemoryJournal::new());
    let memory = Stack::over(
        "memory",
        store.clone(),
        journal.clone(),
        MemorySystem::with_options(store, journal, options()).unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let mh = Arc::new(
        SqliteMemoryHome::open(&home, Some(embedder), SqliteStoreOptions::default()).unwrap(),
    );
    let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
    let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
    let sqlite = Stack::over(
        "sqlite",
        store,
        journal,
        MemorySystem::over_home_with_options(mh, options()).unwrap(),
    );
    (vec![memory, sqlite], dir)
}

fn cosine(s: &Stack, a: &str, b: &str) -> f64 {
    let v = |id: &str| {
        let row = s.system.resolve_digest_assertion(id).unwrap().unwrap();
        let v = s
            .store
            .stored_vector(row.assertion_id.as_deref().unwrap())
            .unwrap()
            .unwrap();
        let n = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        v.iter().map(|x| f64::from(*x) / n).collect::<Vec<f64>>()
    };
    let (x, y) = (v(a), v(b));
    x.iter()
        .zip(&y)
        .map(|(p, q)| p * q)
        .sum::<f64>()
        .clamp(-1.0, 1.0)
}

#[test]
fn the_nearest_digests_by_vector_rely_on_the_source_by_similarity_weight() {
    let (stacks, _dir) = vectored_stacks();
    for s in &stacks {
        let s = &s;
        let seed_id = ep(s, "Ada waters the tomatoes on plot fourteen", &[]);
        // Seven near neighbours (the seed's words and one more), none linked.
        let near: Vec<String> = (0..7)
            .map(|i| {
                ep(
                    s,
                    &format!("Ada waters the tomatoes on plot fourteen word{i}"),
                    &[],
                )
            })
            .collect();
        let r = seed(s, &seeding(&seed_id, Change::Overturned));
        let similar: Vec<_> = r.decisions.iter().filter(|d| d.via == "similar").collect();
        assert_eq!(
            similar.len(),
            RIPPLE_NEAREST_K,
            "[{}] {:#?}",
            s.name,
            r.decisions
        );
        for d in &similar {
            assert!(near.contains(&d.record_id));
            let c = cosine(s, &seed_id, &d.record_id);
            assert!(
                close_to(d.reliance, similarity_weight(c))
                    || (d.reliance - similarity_weight(c)).abs() < 1e-6,
                "[{}] {d:#?} cos {c}",
                s.name
            );
            assert!((d.contribution - 1.0 * d.reliance * 0.5).abs() < 1e-12);
        }
        // The five kept are the five nearest.
        let mut by_cos: Vec<(f64, &String)> = near
            .iter()
            .map(|id| (cosine(s, &seed_id, id), id))
            .collect();
        by_cos.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let lowest_kept = similar
            .iter()
            .map(|d| cosine(s, &seed_id, &d.record_id))
            .fold(f64::INFINITY, f64::min);
        assert!(
            by_cos[RIPPLE_NEAREST_K].0 <= lowest_kept + 1e-6,
            "[{}]",
            s.name
        );
    }
}
