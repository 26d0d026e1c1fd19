//! `alive_drives` on a SQLite home of 100,000 formed records (issue 42's
//! target: ≤ 5 ms). The home: 100,000 records in `life` (batches of 1,000,
//! every third a lesson, one `follows` edge each after the first), and in
//! `diary` 200 owner-direct questions (every fifth answered), 20 commitments
//! and 20 interests; 50 reinforcements of diary drives. The ladder is
//! `diary`, `life` (every scan reads the whole `life` scope).
//!
//! 0.3.2 is not timed here yet (see docs/benchmarks.md "Drives").
//!
//! `cargo bench -p am-system --bench drives`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::drives::AliveDrives;
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, Reinforce, RememberMany};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;

#[path = "common/records.rs"]
mod records;
use records::batch;

const RECORDS: usize = 100_000;
const EID: &str = "entity:bench";

fn home() -> (tempfile::TempDir, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    let sys = MemorySystem::over_home(Arc::new(memory_home));
    for k in 0..(RECORDS / 1_000) as u64 {
        sys.remember_many(&RememberMany::new(
            batch(1_000, k),
            "life",
            EID,
            &format!("b{k}"),
        ))
        .unwrap();
    }
    let mut drives: Vec<MemoryRecordInput> = Vec::new();
    for i in 0..200 {
        let r = MemoryRecordInput::new(
            RecordKind::Diary,
            &format!("Question {i}"),
            &format!("Why does kiln {} crawl at cone {}?", i % 13, i % 7),
        )
        .with_provenance("source", "owner-direct")
        .with_attribute("entry_id", format!("q-{i}"));
        drives.push(if i % 5 == 4 {
            r.with_attribute("diary_type", "note")
                .with_attribute("answers", format!("q-{}", i - 1))
        } else {
            r.with_attribute("diary_type", "question")
        });
    }
    for i in 0..20 {
        drives.push(
            MemoryRecordInput::new(RecordKind::Diary, &format!("Promise {i}"), "I will call.")
                .with_provenance("source", "owner-direct")
                .with_attribute("diary_type", "commitment"),
        );
        drives.push(MemoryRecordInput::new(
            RecordKind::Interest,
            &format!("Interest {i}"),
            &format!("Tides and harbour {i}"),
        ));
    }
    let ids = sys
        .remember_many(&RememberMany::new(drives, "diary", EID, "drives"))
        .unwrap()
        .value;
    for id in ids.iter().step_by(5).take(50) {
        sys.reinforce(&Reinforce::new(id, "keeps coming back", "diary", EID))
            .unwrap();
    }
    (dir, sys)
}

fn drives(c: &mut Criterion) {
    let (_dir, sys) = home();
    let args = AliveDrives::new(&[("diary", EID), ("life", EID)]);
    assert!(!sys.alive_drives(&args).unwrap().is_empty());
    let mut g = c.benchmark_group("drives");
    g.sample_size(10);
    g.bench_function("alive_drives_100k_records", |b| {
        b.iter(|| black_box(sys.alive_drives(&args).unwrap()));
    });
    g.finish();
}

criterion_group!(benches, drives);
criterion_main!(benches);
