//! The entity identity card on a SQLite home (issue 22's target):
//! `entity_card` over a home of 100,000 formed records and 100,000 valence
//! events (target ≤ 50 ms).
//!
//! The home: an engrammed identity core in `self`, 100,000 records in `life`
//! (batches of 1,000, every third a lesson, one `follows` edge each after the
//! first), 200 private diary questions in `diary` (every other one answered), and
//! 100,000 appraisals over 10,000 targets (one in ten a record).
//!
//! Two figures: `entity_card` on a system that has composed a card before
//! (the figure of record: a system keeps its ladder mirror and valence index
//! between cards and reads only what is new), and the first card of a fresh
//! system over the same home (it builds both from the whole ladder).
//!
//! `cargo bench -p am-system --bench card`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::ValenceEvent;
use am_system::RecordKind;
use am_system::RememberMany;
use am_system::identity::Engram;
use am_system::observe::card::EntityCard;
use am_system::{MemoryRecordInput, MemorySystem};
use am_triples::JsonMap;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;

#[path = "common/records.rs"]
mod records;
use records::batch;

const RECORDS: usize = 100_000;
const EVENTS: usize = 100_000;
const TARGETS: usize = 10_000;
const EID: &str = "entity:bench";

fn spark() -> JsonMap {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/sparks.json"
    ))
    .unwrap();
    let all: JsonMap = serde_json::from_str(&text).unwrap();
    all["named"].as_object().unwrap().clone()
}

/// A system over the home file at `path`.
fn open(path: &std::path::Path) -> MemorySystem {
    let home = SqliteHome::open(path).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home(Arc::new(memory_home))
}

fn home() -> (tempfile::TempDir, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let sys = open(&dir.path().join("bench.sqlite3"));
    sys.engram(&Engram::new(spark(), EID), None).unwrap();
    let mut ids = Vec::new();
    for k in 0..(RECORDS / 1_000) as u64 {
        ids.extend(
            sys.remember_many(&RememberMany::new(
                batch(1_000, k),
                "life",
                EID,
                &format!("b{k}"),
            ))
            .unwrap()
            .value,
        );
    }
    let questions: Vec<MemoryRecordInput> = (0..200)
        .map(|i| {
            let r = MemoryRecordInput::new(
                RecordKind::Diary,
                &format!("Q{i}"),
                &format!("Question {i}?"),
            )
            .with_provenance("source", "diary-projection")
            .with_attribute("entry_id", format!("entry-{i}"))
            // Private: a public projection's summary must be authored.
            .with_attribute("private", true);
            if i % 2 == 0 {
                r.with_attribute("diary_type", "question")
            } else {
                r.with_attribute("diary_type", "reflection")
                    .with_attribute("answers", format!("entry-{}", i - 1))
            }
        })
        .collect();
    sys.remember_many(&RememberMany::new(questions, "diary", EID, "d"))
        .unwrap();
    for chunk in (0..EVENTS).collect::<Vec<_>>().chunks(5_000) {
        let events: Vec<ValenceEvent> = chunk
            .iter()
            .map(|i| {
                let t = i % TARGETS;
                let target = if t.is_multiple_of(10) {
                    ids[t].clone()
                } else {
                    format!("person:{t}")
                };
                ValenceEvent {
                    observed_at: "2026-03-01T12:00:00.000000+00:00".into(),
                    ..ValenceEvent::appraisal(
                        &target,
                        if i % 3 == 0 { -1 } else { 1 },
                        1.0 + (i % 3) as f64,
                        "felt",
                        "life",
                        EID,
                    )
                }
            })
            .collect();
        sys.journal().append_valence(&events).unwrap();
    }
    (dir, sys)
}

fn card(c: &mut Criterion) {
    let (dir, sys) = home();
    let args = EntityCard::new(&[("self", EID), ("diary", EID), ("life", EID)], EID);
    let first = sys.entity_card(&args).unwrap();
    assert!(first.age_and_context.records_total > RECORDS);
    assert_eq!(first.likes_dislikes.targets_total, TARGETS);
    let mut g = c.benchmark_group("card");
    g.sample_size(10);
    g.bench_function("entity_card_100k_records_100k_valence", |b| {
        b.iter(|| black_box(sys.entity_card(&args).unwrap()));
    });
    g.bench_function("entity_card_first_on_a_fresh_system", |b| {
        b.iter_batched(
            || open(&dir.path().join("bench.sqlite3")),
            |fresh| black_box(fresh.entity_card(&args).unwrap()),
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

criterion_group!(benches, card);
criterion_main!(benches);
