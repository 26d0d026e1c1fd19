//! The observability reads on a SQLite home (issue 22's targets):
//! `export_replay` with enrichment over 100,000 journal records (target
//! ≥ 100,000 envelopes/s), a tail poll with nothing new (≤ 0.1 ms),
//! `explain_recall` (≤ 5 ms) and `recent_records` (≤ 2 ms).
//!
//! The home: 10,000 formed records (batches of 100, so 10,000 formation
//! bindings), 20 journaled recalls, and attention events naming the formed
//! records until the journal holds 100,000 records.
//!
//! `cargo bench -p am-system --bench observe`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::EventKind;
use am_journal::MemoryEvent;
use am_system::observe::diagnostics::RecentRecords;
use am_system::observe::replay::ExportReplay;
use am_system::{MemorySystem, Stimulus};
use am_system::{Reconstruct, RememberMany};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;

#[path = "common/records.rs"]
mod records;
use records::batch;

const RECORDS: usize = 10_000;
const JOURNAL: i64 = 100_000;

fn home() -> (tempfile::TempDir, MemorySystem, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    let system = MemorySystem::over_home(Arc::new(memory_home));
    let mut ids = Vec::new();
    for k in 0..(RECORDS / 100) as u64 {
        let formed = system
            .remember_many(&RememberMany::new(
                batch(100, k),
                "life",
                "e1",
                &format!("b{k}"),
            ))
            .unwrap()
            .value;
        ids.extend(formed);
    }
    for t in 0..20 {
        system
            .reconstruct(&Reconstruct {
                trace_id: Some(format!("t{t}")),
                ..Reconstruct::new(Stimulus::new("pool outage"), &[("life", "e1")])
            })
            .unwrap();
    }
    let rows: Vec<String> = ids
        .iter()
        .map(|g| {
            system
                .resolve_digest_assertion(g)
                .unwrap()
                .unwrap()
                .assertion_id
                .unwrap()
        })
        .collect();
    let mut i = 0;
    while system.current_seq().unwrap() < JOURNAL {
        let left = usize::try_from(JOURNAL - system.current_seq().unwrap()).unwrap();
        let events: Vec<MemoryEvent> = (0..left.min(2_000))
            .map(|_| {
                i += 1;
                MemoryEvent::on_record(EventKind::Listed, &rows[i % rows.len()], "life", "e1")
            })
            .collect();
        system.journal().append_events(&events).unwrap();
    }
    (dir, system, rows)
}

fn observe(c: &mut Criterion) {
    let (_dir, system, rows) = home();
    let hw = system.current_seq().unwrap();
    let mut g = c.benchmark_group("observe");
    g.sample_size(10);
    g.throughput(Throughput::Elements(u64::try_from(hw).unwrap()));
    g.bench_function("export_replay_100k_enriched", |b| {
        b.iter(|| {
            let mut n = 0;
            for e in system.export_replay(&ExportReplay::default()).unwrap() {
                black_box(e.unwrap());
                n += 1;
            }
            assert_eq!(n as i64, hw);
        });
    });
    g.finish();
    let mut g = c.benchmark_group("observe");
    g.bench_function("tail_poll_nothing_new", |b| {
        b.iter(|| {
            let n = system
                .export_replay(&ExportReplay::since(hw))
                .unwrap()
                .count();
            assert_eq!(n, 0);
        });
    });
    g.bench_function("explain_recall", |b| {
        b.iter(|| black_box(system.explain_recall(&rows[rows.len() / 2], None).unwrap()));
    });
    g.bench_function("recent_records", |b| {
        let args = RecentRecords::new(&[("life", "e1")], "2000-01-01T00:00:00Z".parse().unwrap());
        b.iter(|| black_box(system.recent_records(&args).unwrap()));
    });
    g.finish();
}

criterion_group!(benches, observe);
criterion_main!(benches);
