//! Sleep's reads on a SQLite home of 100,000 formed records (issue 38's
//! targets): `structural_report` (≤ 1 s), `maintenance_due` repeated with
//! nothing new (≤ 0.5 ms), and its first check on a fresh system (≤ 1 s);
//! beside them, the whole read of the pair's rows every report starts with.
//!
//! The home: 100,000 records in one pair, in batches of 1,000; every record
//! has two keywords and a participant, every fourth is isolated, the others
//! chained by a `supports` edge to their previous sibling (a component
//! relation), every tenth title repeats an earlier one, and every batch's
//! first record mentions the previous batch's first.
//!
//! `cargo bench -p am-system --bench sleep`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::sleep::{MaintenanceDue, StructuralReport};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;

const RECORDS: usize = 100_000;
const BATCH: usize = 1_000;
const PAIR: (&str, &str) = ("life", "e1");
const WORDS: [&str; 12] = [
    "pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel", "cache", "river",
    "ticket", "review",
];

fn batch(k: usize, previous_first: Option<&str>) -> Vec<MemoryRecordInput> {
    (0..BATCH)
        .map(|i| {
            let n = k * BATCH + i;
            let title = if n % 10 == 9 {
                format!("Record {}", n - 9)
            } else {
                format!("Record {n}")
            };
            let mut r = MemoryRecordInput::new(
                if i % 3 == 0 {
                    RecordKind::Lesson
                } else {
                    RecordKind::Episode
                },
                &title,
                &format!(
                    "Record {n} says something about {}.",
                    WORDS[n % WORDS.len()]
                ),
            )
            .with_keywords(&[WORDS[n % WORDS.len()], WORDS[(n / 7) % WORDS.len()]])
            .with_participants(&[&format!("person:{}", n % 50)]);
            if i > 0 && i % 4 != 0 {
                r = r.with_edge("supports", &format!("local:{}", i - 1));
            }
            if i == 0
                && let Some(p) = previous_first
            {
                r = r.with_edge("mentions", p);
            }
            r
        })
        .collect()
}

fn home() -> (tempfile::TempDir, SqliteHome, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let system = system_over(&home);
    let mut first: Option<String> = None;
    for k in 0..RECORDS / BATCH {
        let ids = system
            .remember_many(&RememberMany::new(
                batch(k, first.as_deref()),
                PAIR.0,
                PAIR.1,
                &format!("b{k}"),
            ))
            .unwrap()
            .value;
        first = Some(ids[0].clone());
    }
    (dir, home, system)
}

fn system_over(home: &SqliteHome) -> MemorySystem {
    let memory_home = SqliteMemoryHome::open(home, None, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home(Arc::new(memory_home))
}

fn sleep(c: &mut Criterion) {
    let (_dir, home, system) = home();
    let mut g = c.benchmark_group("sleep");
    g.sample_size(10);
    // What every report reads first: the pair's rows, whole (no target:
    // the floor under structural_report's figure).
    g.bench_function("pair_rows_read_100k", |b| {
        b.iter(|| {
            let rows = system
                .store()
                .query(&am_triples::TripleQuery {
                    scope: Some(PAIR.0.to_owned()),
                    owner_id: Some(PAIR.1.to_owned()),
                    limit: 0,
                    ..am_triples::TripleQuery::default()
                })
                .unwrap();
            black_box(rows.len())
        });
    });
    let args = StructuralReport::new(&[PAIR]);
    g.bench_function("structural_report_100k", |b| {
        b.iter(|| {
            let r = system.structural_report(&args).unwrap();
            assert_eq!(r.counts.records, RECORDS);
            black_box(r)
        });
    });
    let due = MaintenanceDue::new(&[PAIR]);
    g.bench_function("maintenance_due_first_check_100k", |b| {
        b.iter_batched(
            || system_over(&home),
            |fresh| black_box(fresh.maintenance_due(&due).unwrap()),
            BatchSize::PerIteration,
        );
    });
    g.finish();
    let mut g = c.benchmark_group("sleep");
    let warm = system.maintenance_due(&due).unwrap();
    assert_eq!(warm.new_records, RECORDS as u64);
    g.bench_function("maintenance_due_nothing_new_100k", |b| {
        b.iter(|| {
            let r = system.maintenance_due(&due).unwrap();
            assert_eq!(r, warm);
            black_box(r)
        });
    });
    g.finish();
}

criterion_group!(benches, sleep);
criterion_main!(benches);
