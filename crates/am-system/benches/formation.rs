//! `MemorySystem` write-path speed on a SQLite home (store and journal in one
//! file, no embedder, so no embedding time): `remember_many` records per second
//! (target ≥ 20,000/s; 0.3.2: 1,076/s) and `commit_selection` latency with
//! 2,000 formed records (target ≤ 0.2 ms; 0.3.2: 3.1 ms). The same two on the
//! in-memory pair isolate the facade's own cost from the SQLite writes.
//!
//! On SQLite about three quarters of a commit is the journal transaction (78
//! events and the snapshot): its floor is measured by `cargo bench -p
//! am-backend-sqlite --bench journal -- journal_commit` (an empty `BEGIN
//! IMMEDIATE` + `COMMIT`, a one-event append, the commit's `append_selection`).
//! 0.3.2's own tables and indexes alone dirty about 154 pages (615 KiB of WAL)
//! per commit of this shape (hashed event ids, pair and record keys land on
//! random index pages), which keeps the 0.2 ms target out of reach.
//!
//! `cargo bench -p am-system --bench formation`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::{CommitSelection, RememberMany};
use am_system::{MemorySystem, SystemOptions, ids};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[path = "common/records.rs"]
mod records;
use records::batch;

const BATCH: usize = 100;
const HOME_RECORDS: usize = 2_000;
const SHELF: usize = 12;

fn memory_pair() -> MemorySystem {
    MemorySystem::new(
        Arc::new(am_triples::InMemoryTripleStore::new(None)),
        Arc::new(am_journal::InMemoryJournal::new()),
    )
}

fn home() -> (tempfile::TempDir, MemorySystem) {
    home_with(SystemOptions::default())
}

fn home_with(options: SystemOptions) -> (tempfile::TempDir, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    let system = MemorySystem::over_home_with_options(Arc::new(memory_home), options).unwrap();
    (dir, system)
}

/// Batch `k` of `BATCH` records formed in `system` under its own key.
fn form(system: &MemorySystem, k: u64) -> Vec<String> {
    let records = batch(BATCH, k);
    system
        .remember_many(&RememberMany::new(
            records.to_vec(),
            "session",
            "s1",
            &format!("key-{k}"),
        ))
        .unwrap()
        .value
}

/// Issue 18's wall-clock side by side, drift-proof: three fresh homes
/// (unguarded, an unguarded A/A control, one whose store and journal carry a
/// trivial guard) fed the same batches in interleaved rounds (they grow in
/// lockstep), each variant's median `remember_many` of 100 records.
fn side_by_side() {
    let (_base_dir, base) = home();
    let (_control_dir, control) = home();
    let (_guarded_dir, guarded) = home_with(SystemOptions {
        commit_guard: Some(am_triples::CommitGuard::new(|_| Ok(()))),
        ..SystemOptions::default()
    });
    let pair = am_conformance::side_by_side::interleave(
        200,
        |k| {
            black_box(form(&base, k as u64));
        },
        |k| {
            black_box(form(&control, k as u64));
        },
        |k| {
            black_box(form(&guarded, k as u64));
        },
    );
    am_conformance::side_by_side::record(
        "remember_many_100",
        &pair,
        am_conformance::side_by_side::Target::NotMeasurable,
    );
}

fn remember_many(c: &mut Criterion) {
    side_by_side();
    let (_dir, system) = home();
    let counter = AtomicU64::new(0);
    let mut g = c.benchmark_group("remember_many");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("sqlite_home_batch_100", |b| {
        b.iter(|| black_box(form(&system, counter.fetch_add(1, Ordering::Relaxed))))
    });
    // Side by side (issue 18: a trivial commit guard costs at most 2 % of
    // `remember_many`): a fresh home of the same kind whose store and journal
    // carry a guard that always passes.
    let (_guarded_dir, guarded) = home_with(SystemOptions {
        commit_guard: Some(am_triples::CommitGuard::new(|_| Ok(()))),
        ..SystemOptions::default()
    });
    g.bench_function("sqlite_home_batch_100_trivial_guard", |b| {
        b.iter(|| black_box(form(&guarded, counter.fetch_add(1, Ordering::Relaxed))))
    });
    let memory = memory_pair();
    g.bench_function("in_memory_pair_batch_100", |b| {
        b.iter(|| black_box(form(&memory, counter.fetch_add(1, Ordering::Relaxed))))
    });
    g.finish();
}

fn commit_selection(c: &mut Criterion) {
    let (_dir, sqlite) = home();
    let memory = memory_pair();
    let mut g = c.benchmark_group("commit_selection");
    for (name, system) in [
        ("sqlite_home_2000_records_shelf_12", &sqlite),
        ("in_memory_pair_2000_records_shelf_12", &memory),
    ] {
        commit_on(&mut g, name, system);
    }
    g.finish();
}

fn commit_on(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    system: &MemorySystem,
) {
    for k in 0..HOME_RECORDS / BATCH {
        system
            .remember_many(&RememberMany::new(
                batch(BATCH, k as u64).to_vec(),
                "session",
                "s1",
                &format!("home-{k}"),
            ))
            .unwrap();
    }
    let counter = AtomicU64::new(0);
    g.bench_function(name, |b| {
        b.iter(|| {
            let t = counter.fetch_add(1, Ordering::Relaxed);
            let used: Vec<String> = (0..SHELF)
                .map(|i| {
                    let n = (t as usize * 7 + i * 13) % HOME_RECORDS;
                    ids::digest_assertion_id(&format!("home-{}", n / BATCH), n % BATCH)
                })
                .collect();
            black_box(
                system
                    .commit_selection(&CommitSelection::new(&format!("trace-{t}"), &used))
                    .unwrap()
                    .value,
            )
        })
    });
}

criterion_group!(benches, remember_many, commit_selection);
criterion_main!(benches);
