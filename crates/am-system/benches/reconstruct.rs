//! `MemorySystem::reconstruct` latency on a SQLite home (store and journal in
//! one file) with 64-d vectors from the offline potion-base-2M embedder (store
//! and system embedder): the median of one journaled shelf recall with 2,000
//! formed records (target ≤ 2 ms; 0.3.2: 593 ms) and with 100,000 (target
//! ≤ 20 ms). Each home gets 50 commits first so the activation fold, STM and
//! co-use trails have work to do. The 100,000-record home is built once per
//! run into a temporary file. The `_unjournaled` variants run the same read
//! with `journal = false` (no trace or `listed` appends).
//!
//! `cargo bench -p am-system --bench reconstruct`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_embed::OfflineEmbedder;
use am_system::RecordKind;
use am_system::{CommitSelection, Reconstruct, RememberMany};
use am_system::{MemoryRecordInput, MemorySystem, Stimulus, SystemOptions};
use am_triples::TextEmbedder;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

const WORDS: &[&str] = &[
    "pool", "outage", "database", "restart", "deploy", "latency", "cache", "queue", "worker",
    "memory", "garden", "coffee", "river", "mountain", "letter", "meeting", "budget", "report",
    "invoice", "travel", "train", "kitchen", "recipe", "soup", "bread", "music", "piano", "guitar",
    "school", "lesson", "teacher", "friend", "sister", "doctor", "health", "running", "bicycle",
    "weather", "storm", "winter", "summer", "holiday", "ocean", "island", "market", "price",
    "server", "network", "router", "backup", "storage", "disk", "error", "warning", "release",
    "feature", "design", "review", "contract", "client", "project", "deadline", "morning",
    "evening", "dinner", "movie", "novel", "poem", "painting", "museum", "history", "science",
];

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }

    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| WORDS[self.next() % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn build_home(records: usize) -> (tempfile::TempDir, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let embedder: Arc<dyn TextEmbedder> = Arc::new(OfflineEmbedder::new().unwrap());
    let memory_home =
        SqliteMemoryHome::open(&home, Some(embedder.clone()), SqliteStoreOptions::default())
            .unwrap();
    let system = MemorySystem::over_home_with_options(
        Arc::new(memory_home),
        SystemOptions {
            embedder: Some(embedder),
            ..SystemOptions::default()
        },
    )
    .unwrap();
    let mut rng = Lcg(7);
    let batch = 500;
    for b in 0..records.div_ceil(batch) {
        let n = batch.min(records - b * batch);
        let recs: Vec<MemoryRecordInput> = (0..n)
            .map(|i| {
                let kind = [
                    RecordKind::Episode,
                    RecordKind::Lesson,
                    RecordKind::Memory,
                    RecordKind::Decision,
                ][i % 4];
                let r = MemoryRecordInput::new(kind, &rng.words(3), &format!("{}.", rng.words(12)));
                if i > 0 && i % 5 == 0 {
                    r.with_edge("follows", &format!("local:{}", i - 1))
                } else {
                    r
                }
            })
            .collect();
        system
            .remember_many(&RememberMany::new(
                recs.to_vec(),
                "session",
                "s1",
                &format!("bench-{b}"),
            ))
            .unwrap();
    }
    // Use: 50 recalls whose top three handles enter a context.
    for t in 0..50 {
        let cue = rng.words(3);
        let r = system
            .reconstruct(&Reconstruct {
                trace_id: Some(format!("warm-{t}")),
                ..Reconstruct::new(Stimulus::new(&cue), &[("session", "s1")])
            })
            .unwrap();
        let used: Vec<String> = r
            .handles
            .iter()
            .take(3)
            .map(|h| h.record_id.clone())
            .collect();
        if !used.is_empty() {
            system
                .commit_selection(&CommitSelection::new(&format!("warm-{t}"), &used))
                .unwrap();
        }
    }
    (dir, system)
}

fn recall(system: &MemorySystem, counter: &AtomicU64, journal: bool) {
    let n = counter.fetch_add(1, Ordering::Relaxed);
    let cue = [
        "database pool outage",
        "coffee in the morning",
        "release review deadline",
    ][(n % 3) as usize];
    let r = system
        .reconstruct(&Reconstruct {
            journal,
            ..Reconstruct::new(Stimulus::new(cue), &[("session", "s1")])
        })
        .unwrap();
    black_box(r);
}

fn reconstruct(c: &mut Criterion) {
    let mut g = c.benchmark_group("reconstruct");
    g.sample_size(30);
    for records in [2_000usize, 100_000] {
        // Built on first use, so a filtered run never builds the other home.
        let home = std::cell::OnceCell::new();
        let counter = AtomicU64::new(0);
        g.bench_function(format!("sqlite_home_{records}_records_shelf"), |b| {
            let (_dir, system) = home.get_or_init(|| build_home(records));
            b.iter(|| recall(system, &counter, true));
        });
        // The same read with journal=false: the pipeline without the trace and
        // `listed` appends (two journal transactions, each a durable commit).
        g.bench_function(
            format!("sqlite_home_{records}_records_shelf_unjournaled"),
            |b| {
                let (_dir, system) = home.get_or_init(|| build_home(records));
                b.iter(|| recall(system, &counter, false));
            },
        );
    }
    g.finish();
}

criterion_group!(benches, reconstruct);
criterion_main!(benches);
