//! The ripple's speed on a SQLite home (issue 41): `seed_ripple` on a
//! record with 1,000 neighbours (record edges of four relations: a quarter
//! `summarizes`, `supports`, `continues`, `mentions`), target <= 20 ms. Each
//! call opens a new ripple (the cause carries a counter): the owner's graph
//! (kept between calls), 1,000 gate decisions, the ripple row, the decision
//! rows and the 20 `ripple.reconsider` tasks of the budget, in one
//! transaction; only that call is timed, the host's 20 `unchanged`
//! settlements between calls are not. 0.3.2 has no ripple. A dry run (the
//! same plan, nothing written) is measured beside it, and the first form of
//! the bench (the ripples never drained, so the queue grows by 20 live tasks
//! on the same 20 memories per call) as `_undrained`.
//!
//! `cargo bench -p am-system --bench ripple`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::ripple::{ReconsiderOutcome, SeedRipple, SettleReconsideration};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany, SystemOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

const NEIGHBOURS: usize = 1_000;
const RELATIONS: [&str; 4] = ["summarizes", "supports", "continues", "mentions"];

/// A queued SQLite home holding the seed and its 1,000 neighbours.
fn home() -> (tempfile::TempDir, MemorySystem, String) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    let system = MemorySystem::over_home_with_options(
        Arc::new(memory_home),
        SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
    )
    .unwrap();
    let seed = system
        .remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(
                RecordKind::Episode,
                "Ada and plot 14",
                "Ada said she keeps plot 14 for another year.",
            )],
            "life",
            "entity:castor",
            "seed",
        ))
        .unwrap()
        .value
        .remove(0);
    for b in 0..NEIGHBOURS / 100 {
        let records = (0..100)
            .map(|j| {
                let i = b * 100 + j;
                let mut r = MemoryRecordInput::new(
                    RecordKind::Episode,
                    &format!("neighbour {i}"),
                    &format!("Neighbour {i} leans on what Ada said about plot 14."),
                );
                r.edges = vec![(RELATIONS[i % 4].to_owned(), seed.clone())];
                r
            })
            .collect();
        system
            .remember_many(&RememberMany::new(
                records,
                "life",
                "entity:castor",
                &format!("neighbours-{b}"),
            ))
            .unwrap();
    }
    (dir, system, seed)
}

fn bench(c: &mut Criterion) {
    let (_dir, system, seed) = home();
    let mut n = 0u64;
    let mut g = c.benchmark_group("ripple");
    g.sample_size(20);
    // The bound's figure: only `seed_ripple` is timed. Between calls, off
    // the clock, the host's reader keeps every reading (20 `unchanged`
    // settlements), as a host draining its queue does, so the queue does
    // not pile up 20 more live tasks on the same 20 memories per call.
    g.bench_function("seed_ripple_1000_neighbours", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                let a = SeedRipple::new(&seed, json!({"cause": "backfill", "n": n}));
                let t = Instant::now();
                let r = system.seed_ripple(&a).unwrap();
                spent += t.elapsed();
                assert!(r.value.opened);
                for id in &black_box(r).value.reconsider_task_ids {
                    system
                        .settle_reconsideration(&SettleReconsideration::new(
                            id,
                            "bench",
                            ReconsiderOutcome::Unchanged,
                        ))
                        .unwrap();
                }
            }
            spent
        });
    });
    g.bench_function("seed_ripple_1000_neighbours_dry_run", |b| {
        b.iter(|| {
            let mut a = SeedRipple::new(&seed, json!({"cause": "backfill", "n": 0}));
            a.dry_run = true;
            black_box(system.seed_ripple(&a).unwrap())
        });
    });
    // The same seeds never drained: each call leaves 20 more live tasks on
    // the same 20 memories, and each enqueue reads every live task of its
    // target, so the call grows with the run (the form the bench first had).
    g.bench_function("seed_ripple_1000_neighbours_undrained", |b| {
        b.iter(|| {
            n += 1;
            let a = SeedRipple::new(&seed, json!({"cause": "backfill", "n": n}));
            let r = system.seed_ripple(&a).unwrap();
            assert!(r.value.opened);
            black_box(r)
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
