//! Entity read speed on a SQLite home (issue 21): `gradation` of one target
//! on a home of 100,000 valence events over 10,000 targets (target ≤ 1 ms),
//! `gradation` of every target there (≤ 200 ms), and `verify_diary_chain`
//! over a chain of 100,000 owner-direct entries (≥ 100,000 entries/s).
//!
//! The gradation figures are warm: the system's valence index has caught up
//! with the journal once, so a read folds only the targets asked for.
//!
//! `cargo bench -p am-system --bench entity`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::ValenceEvent;
use am_system::observe::diary::verify_diary_chain;
use am_system::{Gradation, MemorySystem, diary_entry_hash};
use am_triples::{JsonMap, TripleAssertion};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;

const EVENTS: usize = 100_000;
const TARGETS: usize = 10_000;
const ENTRIES: usize = 100_000;

fn sqlite_home(dir: &tempfile::TempDir) -> (MemorySystem, Arc<SqliteMemoryHome>) {
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let memory_home =
        Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    (MemorySystem::over_home(memory_home.clone()), memory_home)
}

fn valence_home(dir: &tempfile::TempDir) -> MemorySystem {
    let (sys, _) = sqlite_home(dir);
    for chunk in (0..EVENTS).collect::<Vec<_>>().chunks(5_000) {
        let batch: Vec<ValenceEvent> = chunk
            .iter()
            .map(|i| {
                let sign = if i % 3 == 0 { -1 } else { 1 };
                ValenceEvent {
                    observed_at: "2026-03-01T12:00:00.000000+00:00".into(),
                    ..ValenceEvent::appraisal(
                        &format!("person:{}", i % TARGETS),
                        sign,
                        1.0 + (i % 3) as f64,
                        "felt",
                        "self",
                        "entity:bench",
                    )
                }
            })
            .collect();
        sys.journal().append_valence(&batch).unwrap();
    }
    sys
}

fn gradation(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let sys = valence_home(&dir);
    let all = Gradation::new("self", "entity:bench");
    assert_eq!(sys.gradation(&all).unwrap().0.len(), TARGETS);
    let mut g = c.benchmark_group("gradation");
    let mut i = 0usize;
    g.bench_function("sqlite_home_100000_events_one_target", |b| {
        b.iter(|| {
            i = (i + 7919) % TARGETS;
            let args = Gradation {
                target_ids: Some(vec![format!("person:{i}")]),
                ..Gradation::new("self", "entity:bench")
            };
            black_box(sys.gradation(&args).unwrap());
        });
    });
    g.sample_size(10);
    g.bench_function("sqlite_home_100000_events_all_targets", |b| {
        b.iter(|| black_box(sys.gradation(&all).unwrap()));
    });
    g.finish();
}

fn diary_chain(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let (sys, _) = sqlite_home(&dir);
    let mut prev = String::new();
    let mut rows = Vec::with_capacity(ENTRIES);
    for i in 0..ENTRIES {
        let at = format!(
            "2026-03-01T{:02}:{:02}:{:02}.{:06}+00:00",
            i / 3_600_000,
            (i / 60_000) % 60,
            (i / 1_000) % 60,
            i % 1_000
        );
        let (title, digest) = (format!("Day {i}"), format!("Entry {i} of the diary."));
        let hash = diary_entry_hash(&title, &digest, &at);
        let mut attrs = JsonMap::new();
        attrs.insert("record_kind".into(), json!("diary"));
        // Kept as written (a non-literal object is a canonicalized term).
        attrs.insert("literal".into(), json!(true));
        attrs.insert("title".into(), json!(title));
        attrs.insert("diary_type".into(), json!("note"));
        attrs.insert("prev_entry_hash".into(), json!(prev));
        attrs.insert("entry_hash".into(), json!(hash));
        prev = hash;
        let row = json!({"subject": format!("ex:diary-{i:08}"), "predicate": "dcterms:abstract",
                         "object": digest, "scope": "diary", "owner_id": "entity:bench",
                         "observed_at": at, "attributes": attrs});
        rows.push(TripleAssertion::from_dict(&row).unwrap());
    }
    for chunk in rows.chunks(10_000) {
        sys.add(chunk).unwrap();
    }
    let report = verify_diary_chain(&**sys.store(), "diary", "entity:bench").unwrap();
    assert!(report.intact && report.entries == ENTRIES, "{report:?}");
    let mut g = c.benchmark_group("verify_diary_chain");
    g.sample_size(10);
    g.throughput(Throughput::Elements(ENTRIES as u64));
    g.bench_function("sqlite_home_100000_entries", |b| {
        b.iter(|| black_box(verify_diary_chain(&**sys.store(), "diary", "entity:bench").unwrap()));
    });
    g.finish();
}

criterion_group!(benches, gradation, diary_chain);
criterion_main!(benches);
