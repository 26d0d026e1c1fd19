//! Communities on a SQLite home of 100,000 vectored records (issue 40's
//! targets): `communities_pass` (≤ 10 s, a first version written on a fresh
//! copy of the home each iteration, the copy untimed) and
//! `community_keys_of` for 50 ids, warm (≤ 10 µs), and placement's cost on
//! `remember_many` (≤ 10 %): a batch of 20 records formed on the home after
//! its first version (every record placed) and the same batch on a copy of
//! the home without a version (placement inactive), interleaved, the order
//! alternating; the ratio is printed beside criterion's figure (the placed
//! home's).
//!
//! The home: 100,000 episodes in one pair, in batches of 1,000, each about
//! one of 50 topics; a synthetic 64-d embedder puts a record at its topic's
//! seeded direction plus a text-derived offset (cosine to the centre about
//! 0.8); every fourth record is chained by a `supports` edge to its
//! previous sibling.
//!
//! `cargo bench -p am-system --bench communities`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::communities::{CommunitiesPass, CommunityKeysOf};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany, SystemOptions};
use am_triples::TextEmbedder;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "common/cpu.rs"]
mod cpu;
use cpu::cpu_per_call;

/// The home's records (`AM_COMMUNITIES_BENCH_RECORDS` overrides, in
/// thousands, for a profile under callgrind).
fn records() -> usize {
    std::env::var("AM_COMMUNITIES_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(100_000, |k| k * BATCH)
}
const BATCH: usize = 1_000;
const TOPICS: usize = 50;
const DIM: usize = 64;
const PAIR: (&str, &str) = ("life", "e1");

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[allow(clippy::cast_precision_loss)]
fn unit_from(seed: u64, k: usize) -> f32 {
    (mix(seed ^ (k as u64).wrapping_mul(0x1000_0000_01b3)) >> 40) as f32 / (1u64 << 24) as f32 * 2.0
        - 1.0
}

/// Topic `t`'s direction plus a text-derived offset.
struct Synthetic;

impl TextEmbedder for Synthetic {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let topic = t
                    .split("topic-")
                    .nth(1)
                    .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|d| d.parse::<u64>().ok())
                    .unwrap_or(0);
                let h = t.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                });
                (0..DIM)
                    .map(|k| unit_from(topic + 1, k) + 0.45 * unit_from(h, k))
                    .collect()
            })
            .collect())
    }
    fn model_id(&self) -> Option<String> {
        Some("synthetic-64".into())
    }
    fn dimension(&self) -> Option<usize> {
        Some(DIM)
    }
}

fn batch(k: usize) -> Vec<MemoryRecordInput> {
    (0..BATCH)
        .map(|i| {
            let n = k * BATCH + i;
            let mut r = MemoryRecordInput::new(
                RecordKind::Episode,
                &format!("Record {n}"),
                &format!("Record {n} about topic-{} and more.", n % TOPICS),
            );
            if i >= TOPICS && i % 4 == 0 {
                r = r.with_edge("supports", &format!("local:{}", i - TOPICS));
            }
            r
        })
        .collect()
}

/// The records of placement's comparison per `remember_many`.
const SMALL: usize = 20;

/// Batch `k` of [`SMALL`] records (numbered after the home's).
fn small_batch(k: usize) -> Vec<MemoryRecordInput> {
    (0..SMALL)
        .map(|i| {
            let n = k * SMALL + i;
            MemoryRecordInput::new(
                RecordKind::Episode,
                &format!("Record {n}"),
                &format!("Record {n} about topic-{} and more.", n % TOPICS),
            )
        })
        .collect()
}

fn system_over(home: &SqliteHome) -> MemorySystem {
    let mh = SqliteMemoryHome::open(
        home,
        Some(Arc::new(Synthetic)),
        SqliteStoreOptions::default(),
    )
    .unwrap();
    MemorySystem::over_home_with_options(
        Arc::new(mh),
        SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
    )
    .unwrap()
}

fn communities(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.sqlite3");
    {
        let home = SqliteHome::open(&path).unwrap();
        let system = system_over(&home);
        for k in 0..records() / BATCH {
            system
                .remember_many(&RememberMany::new(
                    batch(k),
                    PAIR.0,
                    PAIR.1,
                    &format!("b{k}"),
                ))
                .unwrap();
        }
    }
    // The home before any version, for placement's comparison.
    let unplaced_path = dir.path().join("unplaced.sqlite3");
    std::fs::copy(&path, &unplaced_path).unwrap();
    let never = || false;
    let args = CommunitiesPass::new(&[PAIR], PAIR.1);
    let mut g = c.benchmark_group("communities");
    g.sample_size(10);
    g.bench_function("communities_pass_first_version_100k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for i in 0..iters {
                let copy = dir.path().join(format!("copy-{i}.sqlite3"));
                std::fs::copy(&path, &copy).unwrap();
                let home = SqliteHome::open(&copy).unwrap();
                let system = system_over(&home);
                let t = Instant::now();
                let r = system.communities_pass(&args, None, &never).unwrap();
                total += t.elapsed();
                assert!(!r.written.is_empty());
                eprintln!(
                    "communities_pass: {} topics, {} unplaced, timings {:?}",
                    r.written.len(),
                    r.unplaced,
                    r.timings_ms
                );
                drop(system);
                drop(home);
                let _ = std::fs::remove_file(&copy);
            }
            total
        });
    });
    // The home after one night, for the reads.
    let home = SqliteHome::open(&path).unwrap();
    let system = system_over(&home);
    system.communities_pass(&args, None, &never).unwrap();
    let ids: Vec<String> = system
        .store()
        .query(&am_triples::TripleQuery {
            scope: Some(PAIR.0.into()),
            predicate: Some("dcterms:abstract".into()),
            limit: 0,
            ..am_triples::TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .filter(|a| a.attributes.get("record_kind").and_then(|k| k.as_str()) == Some("episode"))
        .map(|a| a.subject)
        .take(50)
        .collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let keys_args = CommunityKeysOf::new(&refs, &[PAIR], PAIR.1);
    let warm = system.community_keys_of(&keys_args).unwrap();
    assert_eq!(warm.len(), 50);
    eprintln!(
        "community_keys_of: {} of 50 ids in a topic",
        warm.values().filter(|k| k.is_some()).count()
    );
    cpu_per_call(
        "communities/community_keys_of_50_ids_warm_100k",
        20_000,
        || {
            black_box(system.community_keys_of(&keys_args).unwrap());
        },
    );
    g.sample_size(50);
    g.bench_function("community_keys_of_50_ids_warm_100k", |b| {
        b.iter(|| black_box(system.community_keys_of(&keys_args).unwrap()));
    });
    // Placement's cost: the same batches on the home with a version and on
    // the copy without one, interleaved.
    let placed_path = dir.path().join("placed.sqlite3");
    drop(system);
    drop(home);
    std::fs::copy(&path, &placed_path).unwrap();
    let placed_home = SqliteHome::open(&placed_path).unwrap();
    let placed = system_over(&placed_home);
    let unplaced_home = SqliteHome::open(&unplaced_path).unwrap();
    let unplaced = system_over(&unplaced_home);
    let mut next = records() / SMALL;
    g.sample_size(20);
    g.bench_function("remember_many_20_placed_100k", |b| {
        b.iter_custom(|iters| {
            let (mut tp, mut tu) = (Duration::ZERO, Duration::ZERO);
            for i in 0..iters {
                let records = small_batch(next);
                let form = |sys: &MemorySystem, tag: &str| {
                    let t = Instant::now();
                    sys.remember_many(&RememberMany::new(
                        records.clone(),
                        PAIR.0,
                        PAIR.1,
                        &format!("{tag}{next}"),
                    ))
                    .unwrap();
                    t.elapsed()
                };
                if i % 2 == 0 {
                    tp += form(&placed, "p");
                    tu += form(&unplaced, "u");
                } else {
                    tu += form(&unplaced, "u");
                    tp += form(&placed, "p");
                }
                next += 1;
            }
            #[allow(clippy::cast_precision_loss)]
            let per = |d: Duration| d.as_secs_f64() * 1e3 / iters as f64;
            eprintln!(
                "placement: {iters} batches of {SMALL}: placed {:.3} ms, unplaced {:.3} ms, ratio {:.3}",
                per(tp),
                per(tu),
                tp.as_secs_f64() / tu.as_secs_f64()
            );
            tp
        });
    });
    g.finish();
}

criterion_group!(benches, communities);
criterion_main!(benches);
