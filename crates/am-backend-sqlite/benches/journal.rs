//! SQLiteJournal speed: batched appends (target ≥ 50,000 events/s), and
//! `selected_count`, `pair_selected_count` and the per-record binding fold at
//! 10,000 and 1,000,000 events (answered from indexes, so flat across sizes).
//!
//! `journal_commit` measures the floor under `commit_selection` (issue 6): an
//! empty `BEGIN IMMEDIATE` + `COMMIT`, a one-event append, and the journal
//! write of one commit (12 `selected` + 66 `co_selected` events with hashed
//! supplied ids, and its snapshot) through `append_selection`.
//!
//! `cargo bench -p am-backend-sqlite --bench journal`. The two homes are built
//! once, before measuring.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_journal::EventKind;
use am_journal::SearchState;
use am_journal::common::hash_hex;
use am_journal::{ActiveMemorySnapshot, BindingFilter, MemoryEvent, MemoryJournal, ScopeBinding};
use am_triples::JsonMap;
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
                0..=5 => {
                    MemoryEvent::on_record(EventKind::Selected, &format!("r{a}"), "session", "s1")
                }
                6..=8 => {
                    MemoryEvent::co_selected(&format!("r{a}"), &format!("r{b}"), "session", "s1")
                }
                _ => MemoryEvent::on_record(EventKind::Listed, &format!("r{a}"), "session", "s1"),
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
                    SearchState::Indexed,
                )
            })
            .collect();
        j.append_bindings(&bindings).unwrap();
        written += n;
    }
    j.append_binding(&ScopeBinding::new(
        "r42",
        "session",
        "s1",
        SearchState::Hidden,
    ))
    .unwrap();
    j.append_binding(&ScopeBinding::new(
        "r42",
        "global",
        "",
        SearchState::Indexed,
    ))
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

/// The journal write of one `commit_selection` of 12 records out of 2,000:
/// 12 `selected`, the 66 `co_selected` pairs, ids `H(trace|kind|key)[:32]`
/// (as `am_system::ids::selection_event_id`), and the snapshot.
fn selection(t: u64) -> (Vec<MemoryEvent>, ActiveMemorySnapshot) {
    let trace = format!("trace-{t}");
    let used: Vec<String> = (0..12u64)
        .map(|i| format!("ex:episode-{:026}", (t * 7 + i * 13) % 2_000))
        .collect();
    let mut events: Vec<MemoryEvent> = used
        .iter()
        .map(|rid| {
            let mut e = MemoryEvent::on_record(EventKind::Selected, rid, "session", "s1")
                .with_event_id(&hash_hex(&format!("{trace}|selected|{rid}"), 32));
            e.weight = 8.0;
            e.trace_id = Some(trace.clone());
            e
        })
        .collect();
    for (i, a) in used.iter().enumerate() {
        for b in &used[i + 1..] {
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            let mut e = MemoryEvent::co_selected(a, b, "session", "s1")
                .with_event_id(&hash_hex(&format!("{trace}|co_selected|{a}+{b}"), 32));
            e.weight = 4.0;
            e.trace_id = Some(trace.clone());
            events.push(e);
        }
    }
    let display = used
        .iter()
        .map(|rid| {
            let mut row = JsonMap::new();
            row.insert("record_id".into(), rid.clone().into());
            row.insert("title".into(), "record says something".into());
            row.insert("digest".into(), "Record says something about pools.".into());
            row.insert("token_estimate".into(), 9.into());
            row
        })
        .collect();
    let snapshot = ActiveMemorySnapshot {
        snapshot_id: hash_hex(&format!("{trace}|snapshot"), 32),
        seq: -1,
        trace_id: trace,
        used_record_ids: used,
        display,
        prompt_token_estimate: None,
        observed_at: String::new(),
        provenance: JsonMap::new(),
    };
    (events, snapshot)
}

/// The floor under `commit_selection` on this disk (see the module docs), on a
/// home holding 500 earlier commits.
fn commits(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("commits.sqlite3")).unwrap();
    let j = SQLiteJournal::open(&home).unwrap();
    let mut t = 0u64;
    for _ in 0..500 {
        t += 1;
        let (events, snapshot) = selection(t);
        j.append_selection(&events, &snapshot).unwrap();
    }
    let mut g = c.benchmark_group("journal_commit");
    g.bench_function("empty_immediate_transaction", |b| {
        let conn = home.conn();
        b.iter(|| {
            let mut conn = conn.lock().unwrap();
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            tx.commit().unwrap();
        });
    });
    g.bench_function("append_one_event", |b| {
        let event = [MemoryEvent::on_record(
            EventKind::Listed,
            "r1",
            "session",
            "s1",
        )];
        b.iter(|| j.append_events(black_box(&event)).unwrap());
    });
    g.bench_function("append_selection_12_records_66_pairs", |b| {
        b.iter_batched(
            || {
                t += 1;
                selection(t)
            },
            |(events, snapshot)| {
                j.append_selection(black_box(&events), black_box(&snapshot))
                    .unwrap()
            },
            criterion::BatchSize::SmallInput,
        );
    });
    g.finish();
}

criterion_group!(benches, appends, reads, commits);
criterion_main!(benches);
