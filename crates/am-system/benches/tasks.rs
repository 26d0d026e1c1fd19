//! The memory task queue's speed on a SQLite home (issue 20):
//! `select_for_window` with 10,000 live tasks (target <= 5 ms), `enqueue` of
//! 1,000 tasks in one call (>= 20,000 tasks/s), and `remember_many` of
//! pending records beside plain formation (no slower than 1.5x). 0.3.2 has
//! no task queue.
//!
//! The pending/plain ratio is judged on [`side_by_side`]: three homes (plain,
//! a plain A/A control, pending) fed the same batches in interleaved rounds,
//! so the machine's load and the disk's other writers fall on all three
//! alike (each home's checkpoints land in its own calls). The criterion pair
//! below runs one bench after the other and prints each rate.
//!
//! `cargo bench -p am-system --bench tasks`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::TaskKind;
use am_system::RememberMany;
use am_system::tasks::{Enqueue, SelectForWindow};
use am_system::{MemoryRecordInput, MemorySystem, SystemOptions};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[path = "common/records.rs"]
mod records;
use records::batch;

fn home() -> (tempfile::TempDir, MemorySystem) {
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
    (dir, system)
}

fn tasks(from: u64, n: u64) -> Vec<Enqueue> {
    (from..from + n)
        .map(|i| {
            let mut e = Enqueue::new(
                TaskKind::DigestRewrite,
                &format!("ex:episode-{i}"),
                ("session", "s1"),
                &format!("ex:episode-{i}@v0"),
                ((i % 10) as f64) / 10.0,
                "backfill",
            );
            e.cost_hint = Some(5.0);
            e
        })
        .collect()
}

fn queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("tasks");
    let (_dir, system) = home();
    let q = system.tasks().unwrap();
    for chunk in 0..10 {
        q.enqueue_many(&tasks(chunk * 1_000, 1_000)).unwrap();
    }
    g.bench_function("select_for_window_10000_live", |b| {
        b.iter(|| black_box(q.select_for_window(&SelectForWindow::new(600.0)).unwrap()))
    });
    let next = AtomicU64::new(1_000_000);
    g.throughput(Throughput::Elements(1_000));
    g.bench_function("enqueue_1000_one_call", |b| {
        b.iter(|| {
            let from = next.fetch_add(1_000, Ordering::Relaxed);
            black_box(q.enqueue_many(&tasks(from, 1_000)).unwrap())
        })
    });
    g.finish();
}

fn pending(records: Vec<MemoryRecordInput>) -> Vec<MemoryRecordInput> {
    records
        .into_iter()
        .map(|mut r| {
            r.title = None;
            r.with_pending(&["title"])
        })
        .collect()
}

/// One batch of 100 records formed on `system` (its titles pending when
/// `is_pending`), batch `k` of the shared sequence.
fn form(system: &MemorySystem, k: u64, is_pending: bool) {
    let records = batch(100, k);
    let records = if is_pending {
        pending(records)
    } else {
        records
    };
    black_box(
        system
            .remember_many(&RememberMany::new(
                records,
                "session",
                "s1",
                &format!("key-{k}"),
            ))
            .unwrap()
            .value,
    );
}

/// Issue 20's "`remember_many` of pending records no slower than 1.5x plain
/// formation", wall clock: a plain home, a second plain home (the A/A
/// control) and a pending home, each fed batch `r` of 100 records in round
/// `r` (the six orders in turn), 300 rounds; each home's median and mean
/// batch, both held to +50 %.
fn side_by_side() {
    let (_plain_dir, plain) = home();
    let (_control_dir, control) = home();
    let (_pending_dir, with_pending) = home();
    let pair = am_conformance::side_by_side::interleave(
        300,
        |r| form(&plain, r as u64, false),
        |r| form(&control, r as u64, false),
        |r| form(&with_pending, r as u64, true),
    );
    am_conformance::side_by_side::record(
        "remember_many_pending_100",
        &pair,
        am_conformance::side_by_side::Target::AtMostPct(50.0),
    );
}

fn formation(c: &mut Criterion) {
    side_by_side();
    let mut g = c.benchmark_group("tasks");
    g.throughput(Throughput::Elements(100));
    let counter = AtomicU64::new(0);
    for (name, is_pending) in [
        ("remember_many_plain_batch_100", false),
        ("remember_many_pending_batch_100", true),
    ] {
        let (_dir, system) = home();
        g.bench_function(name, |b| {
            b.iter(|| form(&system, counter.fetch_add(1, Ordering::Relaxed), is_pending))
        });
    }
    g.finish();
}

criterion_group!(benches, queue, formation);
criterion_main!(benches);
