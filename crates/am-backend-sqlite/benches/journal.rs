//! SQLiteJournal speed: batched appends (target ≥ 50,000 events/s), and
//! `selected_count`, `pair_selected_count` and the per-record binding fold at
//! 10,000 and 1,000,000 events (answered from indexes, so flat across sizes).
//!
//! `cargo bench -p am-backend-sqlite --bench journal`. The two homes are built
//! once, before measuring.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_journal::{BindingFilter, MemoryEvent, MemoryJournal, ScopeBinding};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const BATCH: usize = 1_000;
const RECORDS: u64 = 10_000;

/// A deterministic event mix: 60 % selected, 30 % co_selected, 10 % listed, over
/// `RECORDS` records picked by a linear congruential sequence.
fn events(start: u64, n: usize) -> Vec<MemoryEvent> {
    (0..n as u64)
        .map(|i| {
            let k = start + i;
            let a = (k
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407)
                >> 33)
                % RECORDS;
            let b = (a + 1 + k % 7) % RECORDS;
            match k % 10 {
                0..=5 => MemoryEvent::on_record("selected", &format!("r{a}"), "session", "s1"),
                6..=8 => {
                    MemoryEvent::co_selected(&format!("r{a}"), &format!("r{b}"), "session", "s1")
                }
                _ => MemoryEvent::on_record("listed", &format!("r{a}"), "session", "s1"),
            }
        })
        .collect()
}

/// A home holding `total` events (plus one binding per 50 events) and the
/// record `r42` with a fixed history (3 bindings in two scopes).
fn build(total: usize) -> (tempfile::TempDir, SQLiteJournal) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let j = SQLiteJournal::open(&home).unwrap();
    let mut written = 0;
    while written < total {
        let n = BATCH.min(total - written);
        j.append_events(&events(written as u64, n)).unwrap();
        let bindings: Vec<ScopeBinding> = (0..n / 50)
            .map(|i| {
                ScopeBinding::new(
                    &format!("r{}", (written + i * 50) as u64 % RECORDS),
                    "session",
                    "s1",
                    "indexed",
                )
            })
            .collect();
        j.append_bindings(&bindings).unwrap();
        written += n;
    }
    j.append_binding(&ScopeBinding::new("r42", "session", "s1", "hidden"))
        .unwrap();
    j.append_binding(&ScopeBinding::new("r42", "global", "", "indexed"))
        .unwrap();
    (dir, j)
}

/// Appends on the home as `SqliteHome::open` configures it (`default`), and with
/// the settings proposed to the home (`tuned`: `wal_autocheckpoint = 20000` pages,
/// `cache_size = 64 MiB`), which let one checkpoint absorb many batches.
fn appends(c: &mut Criterion) {
    let mut g = c.benchmark_group("journal_append");
    for (label, tuned) in [("default", false), ("tuned", true)] {
        for batch in [BATCH, 10 * BATCH] {
            let dir = tempfile::tempdir().unwrap();
            let home = SqliteHome::open(dir.path().join("appends.sqlite3")).unwrap();
            if tuned {
                let conn = home.conn();
                let conn = conn.lock().unwrap();
                conn.pragma_update(None, "wal_autocheckpoint", 20_000)
                    .unwrap();
                conn.pragma_update(None, "cache_size", -65_536).unwrap();
            }
            let j = SQLiteJournal::open(&home).unwrap();
            g.throughput(Throughput::Elements(batch as u64));
            let mut start = 0u64;
            let id = BenchmarkId::new(format!("append_events_batch_{label}"), batch);
            g.bench_with_input(id, &batch, |b, &batch| {
                b.iter_batched(
                    || {
                        start += batch as u64;
                        events(start, batch)
                    },
                    |events| j.append_events(black_box(&events)).unwrap(),
                    criterion::BatchSize::LargeInput,
                );
            });
        }
    }
    g.finish();
}

fn reads(c: &mut Criterion) {
    let homes: Vec<(usize, (tempfile::TempDir, SQLiteJournal))> = [10_000, 1_000_000]
        .into_iter()
        .map(|n| (n, build(n)))
        .collect();
    let mut g = c.benchmark_group("journal_read");
    for (n, (_dir, j)) in &homes {
        let hw = j.current_seq().unwrap();
        let anchor = hw / 2;
        g.bench_with_input(BenchmarkId::new("selected_count", n), n, |b, _| {
            b.iter(|| j.selected_count(black_box("r42"), None).unwrap());
        });
        g.bench_with_input(BenchmarkId::new("selected_count_as_of", n), n, |b, _| {
            b.iter(|| j.selected_count(black_box("r42"), Some(anchor)).unwrap());
        });
        g.bench_with_input(
            BenchmarkId::new("pair_selected_count_as_of", n),
            n,
            |b, _| {
                b.iter(|| {
                    j.pair_selected_count(black_box(("r42", "r43")), Some(anchor))
                        .unwrap()
                });
            },
        );
        g.bench_with_input(
            BenchmarkId::new("fold_bindings_one_record", n),
            n,
            |b, _| {
                b.iter(|| {
                    j.bindings(black_box(&BindingFilter::record("r42")))
                        .unwrap()
                });
            },
        );
        g.bench_with_input(
            BenchmarkId::new("fold_bindings_one_record_as_of", n),
            n,
            |b, _| {
                let f = BindingFilter {
                    until_seq: Some(anchor),
                    ..BindingFilter::record("r42")
                };
                b.iter(|| j.bindings(black_box(&f)).unwrap());
            },
        );
    }
    g.finish();
}

criterion_group!(benches, appends, reads);
criterion_main!(benches);
