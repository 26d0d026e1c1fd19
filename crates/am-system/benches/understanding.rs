//! The understanding verbs' speed on a SQLite home (store and journal in one
//! file, no embedder, so embedding is excluded): `rewrite_digest` on a home
//! of 50,000 formed records (target: median <= 1 ms), `versions` of a record
//! with 100 versions (<= 0.2 ms), and `current_of` through a 10-hop
//! supersede chain (<= 0.2 ms). AbstractMemory 0.3.2 has none of these verbs.
//!
//! `cargo bench -p am-system --bench understanding`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::ClosureKind;
use am_system::RecordKind;
use am_system::{CloseRecord, RememberMany, RewriteDigest};
use am_system::{MemoryRecordInput, MemorySystem, Outcome};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;

#[path = "common/records.rs"]
mod records;
use records::batch;

const HOME_RECORDS: usize = 50_000;
const REWRITTEN: usize = 1_000;

fn home() -> (tempfile::TempDir, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    (dir, MemorySystem::over_home(Arc::new(memory_home)))
}

fn operator() -> am_system::AuthorRef {
    am_system::AuthorRef::new(am_system::AuthorKind::Operator, "bench")
}

fn form(system: &MemorySystem, n: usize) -> Vec<String> {
    let mut ids = Vec::with_capacity(n);
    for k in 0..n.div_ceil(500) {
        let size = 500.min(n - k * 500);
        let args = RememberMany::new(batch(size, k as u64), "session", "s1", &format!("b-{k}"));
        ids.extend(system.remember_many(&args).unwrap().into_value());
    }
    ids
}

fn rewrite(system: &MemorySystem, id: &str, text: &str, expected: i64) {
    let r = system
        .rewrite_digest(&RewriteDigest::new(
            id,
            text,
            operator(),
            json!("operator"),
            expected,
        ))
        .unwrap();
    assert_eq!(r.outcome, Outcome::Applied, "{r:?}");
}

fn rewrite_digest(c: &mut Criterion) {
    let (_dir, system) = home();
    let ids = form(&system, HOME_RECORDS);
    let mut versions = vec![0i64; REWRITTEN];
    let mut k = 0usize;
    let mut g = c.benchmark_group("rewrite_digest");
    g.bench_function("sqlite_home_50000_records", |b| {
        b.iter(|| {
            let i = k % REWRITTEN;
            let id = &ids[i * (HOME_RECORDS / REWRITTEN)];
            rewrite(
                &system,
                id,
                &format!("Reading {k} of the pools."),
                versions[i],
            );
            versions[i] += 1;
            k += 1;
        });
    });
    g.finish();
}

fn versions(c: &mut Criterion) {
    let (_dir, system) = home();
    let ids = form(&system, 100);
    for v in 0..99 {
        rewrite(&system, &ids[0], &format!("Reading {v}."), v);
    }
    assert_eq!(system.versions(&ids[0], None).unwrap().len(), 100);
    let mut g = c.benchmark_group("versions");
    g.bench_function("sqlite_home_100_versions", |b| {
        b.iter(|| black_box(system.versions(black_box(&ids[0]), None).unwrap()));
    });
    g.finish();
}

fn current_of(c: &mut Criterion) {
    let (_dir, system) = home();
    let chain: Vec<MemoryRecordInput> = (0..11)
        .map(|i| {
            MemoryRecordInput::new(
                RecordKind::Claim,
                &format!("Claim {i}"),
                &format!("The pool holds {i}."),
            )
        })
        .collect();
    let ids = system
        .remember_many(&RememberMany::new(chain, "session", "s1", "chain"))
        .unwrap()
        .into_value();
    form(&system, 2_000);
    for w in ids.windows(2) {
        system
            .close_record(
                &CloseRecord::new(&w[0], ClosureKind::Supersede, "measured again")
                    .replaced_by(&[w[1].clone()]),
            )
            .unwrap();
    }
    assert_eq!(system.current_of(&ids[0]).unwrap().hops, 10);
    let mut g = c.benchmark_group("current_of");
    g.bench_function("sqlite_home_10_hops", |b| {
        b.iter(|| black_box(system.current_of(black_box(&ids[0])).unwrap()));
    });
    g.finish();
}

criterion_group!(benches, rewrite_digest, versions, current_of);
criterion_main!(benches);
