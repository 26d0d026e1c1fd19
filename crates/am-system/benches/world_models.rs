//! World models on a SQLite home of 100,000 formed records (issue 39's
//! targets): `world_model_update` of one target (≤ 20 ms), revising: one
//! new episode about the target added, untimed, before each call, so the
//! call forms revision N+1 (its evidence the newest-400-rows window) and
//! closes revision N; and `current_world_models` (≤ 5 ms) through the
//! system's card index; beside it, the spec's free function, a whole read
//! of the pair's rows.
//!
//! The home: 100,000 records in one pair, in batches of 1,000, every record
//! about one of 50 people (`person:<n % 50>`) with two keywords; every
//! person's card formed by one `world_model_update` (so the pair holds 50
//! cards); then 1,000 episodes about the target, the newest rows. (An
//! update with nothing new is not timed: the window counts rows, and a
//! revision's own card and edge rows push evidence out of it, so on a
//! window full of the target's evidence the next call revises again, in
//! 0.3.2 as here.)
//!
//! Beside 0.3.2 in the same run: when `AM_ORACLE_PYTHON` names the oracle
//! venv's python, `world_models_oracle.py` builds a home of 10,000 records
//! of the same shape with AbstractMemory 0.3.2 (`$AM_WM_ORACLE_RECORDS`
//! overrides; 0.3.2 takes minutes for 100,000), times 0.3.2's same two
//! calls on it, and writes its medians to `<target>/world_models_python.json`;
//! the group `world_models_vs_0_3_2` times ours on a home of the same
//! size built by this bench.
//!
//! `cargo bench -p am-system --bench world_models`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::config::SleepTuning;
use am_system::world_models::{CardsOf, WorldModelUpdate, current_world_models};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany, SystemOptions};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::Value;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const RECORDS: usize = 100_000;
const BATCH: usize = 1_000;
const PEOPLE: usize = 50;
const PAIR: (&str, &str) = ("life", "e1");
const TARGET: &str = "person:7";
/// The target's recent episodes, the newest rows of the home.
const RECENT: usize = 1_000;
const WORDS: [&str; 12] = [
    "pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel", "cache", "river",
    "ticket", "review",
];

fn batch(k: usize) -> Vec<MemoryRecordInput> {
    (0..BATCH)
        .map(|i| {
            let n = k * BATCH + i;
            MemoryRecordInput::new(
                if i % 3 == 0 {
                    RecordKind::Lesson
                } else {
                    RecordKind::Episode
                },
                &format!("Record {n}"),
                &format!(
                    "Record {n} says something about {}.",
                    WORDS[n % WORDS.len()]
                ),
            )
            .with_keywords(&[WORDS[n % WORDS.len()], WORDS[(n / 7) % WORDS.len()]])
            .with_participants(&[&format!("person:{}", n % PEOPLE)])
        })
        .collect()
}

/// A home of `records` records with every person's card formed.
/// With `$AM_WM_BENCH_HOME` naming a file, the 100k home is built there
/// once and opened as it stands by later runs (instruction counts under
/// callgrind, which would otherwise spend most of their run building it).
fn home(records: usize) -> (tempfile::TempDir, SqliteHome, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("AM_WM_BENCH_HOME")
        .filter(|_| records == RECORDS)
        .map(PathBuf::from);
    let built = kept.as_ref().is_some_and(|p| p.exists());
    let path = kept.unwrap_or_else(|| dir.path().join("bench.sqlite3"));
    let home = SqliteHome::open(&path).unwrap();
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
    let system = MemorySystem::over_home_with_options(
        Arc::new(memory_home),
        SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
    )
    .unwrap();
    if built {
        return (dir, home, system);
    }
    for k in 0..records / BATCH {
        system
            .remember_many(&RememberMany::new(
                batch(k),
                PAIR.0,
                PAIR.1,
                &format!("b{k}"),
            ))
            .unwrap();
    }
    let people: Vec<String> = (0..PEOPLE).map(|p| format!("person:{p}")).collect();
    let people: Vec<&str> = people.iter().map(String::as_str).collect();
    let every = WorldModelUpdate {
        tuning: SleepTuning {
            world_model_max_cards: PEOPLE,
            ..SleepTuning::default()
        },
        ..WorldModelUpdate::new(&[PAIR], PAIR.1, &people)
    };
    let r = system.world_model_update(&every, None).unwrap();
    assert_eq!(r.formed_count, PEOPLE, "every person's card");
    // The newest rows: the target's recent life, so its evidence fills the
    // update's newest-400-rows window (the cards' own rows sit in it too).
    let recent: Vec<MemoryRecordInput> = (0..RECENT).map(|n| visit(&format!("r{n}"))).collect();
    system
        .remember_many(&RememberMany::new(recent, PAIR.0, PAIR.1, "recent"))
        .unwrap();
    let r = system
        .world_model_update(&WorldModelUpdate::new(&[PAIR], PAIR.1, &[TARGET]), None)
        .unwrap();
    assert_eq!(r.formed_count, 1, "the target's card, current");
    (dir, home, system)
}

/// An episode about the target.
fn visit(n: &str) -> MemoryRecordInput {
    let mut r = MemoryRecordInput::new(
        RecordKind::Episode,
        &format!("Visit {n}"),
        &format!("Seven came by again ({n})."),
    );
    r.participants = vec![TARGET.to_owned()];
    r
}

/// One more episode about the target (a revision's new evidence).
fn one_more(system: &MemorySystem, n: usize) {
    system
        .remember_many(&RememberMany::new(
            vec![visit(&n.to_string())],
            PAIR.0,
            PAIR.1,
            &format!("more-{n}"),
        ))
        .unwrap();
}

/// The calls timed, in the group `group`, with ids suffixed `size`.
fn calls(c: &mut Criterion, group: &str, size: &str, system: &MemorySystem) {
    let pair = CardsOf::new(PAIR.0, PAIR.1);
    let update = WorldModelUpdate::new(&[PAIR], PAIR.1, &[TARGET]);
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    let n = AtomicUsize::new(0);
    g.bench_function(format!("world_model_update_revising_{size}"), |b| {
        b.iter_batched(
            || one_more(system, n.fetch_add(1, Ordering::Relaxed)),
            |()| {
                let r = system.world_model_update(&update, None).unwrap();
                assert_eq!(r.formed_count, 1);
                black_box(r)
            },
            BatchSize::PerIteration,
        );
    });
    g.bench_function(format!("current_world_models_{size}"), |b| {
        b.iter(|| {
            let m = system.current_cards(&pair).unwrap();
            assert_eq!(m.len(), PEOPLE);
            black_box(m)
        });
    });
    g.finish();
}

fn world_models(c: &mut Criterion) {
    let (_dir, _home, system) = home(RECORDS);
    calls(c, "world_models", "100k", &system);
    // The spec's free function: a whole read of the pair's rows (no
    // target: the floor the card index avoids).
    let pair = CardsOf::new(PAIR.0, PAIR.1);
    let mut g = c.benchmark_group("world_models");
    g.sample_size(10);
    g.bench_function("current_world_models_whole_read_100k", |b| {
        b.iter(|| {
            black_box(
                current_world_models(
                    system.store().as_ref(),
                    Some(system.journal().as_ref()),
                    &pair,
                )
                .unwrap(),
            )
        });
    });
    g.finish();
}

/// The records of the home 0.3.2 builds.
const ORACLE_RECORDS: usize = 10_000;
/// How many times 0.3.2 runs each call (its median is printed).
const ORACLE_ROUNDS: usize = 5;
/// The file 0.3.2's medians go to, under the target directory.
const PYTHON_FILE: &str = "world_models_python.json";

fn oracle(python: &Path, dir: &Path, records: usize) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/world_models_oracle.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(records.to_string())
        .arg(ORACLE_ROUNDS.to_string())
        .arg(dir)
        .output()
        .expect("running world_models_oracle.py");
    assert!(
        out.status.success(),
        "world_models_oracle.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("world_models_oracle.py printed JSON")
}

fn world_models_vs_oracle(c: &mut Criterion) {
    let Some(python) = std::env::var_os("AM_ORACLE_PYTHON").map(PathBuf::from) else {
        println!(
            "world_models_vs_0_3_2: AM_ORACLE_PYTHON is not set; 0.3.2 was not measured (cargo xtask bench sets it)"
        );
        return;
    };
    let records = std::env::var("AM_WM_ORACLE_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ORACLE_RECORDS);
    let exe = std::env::current_exe().expect("this binary's path");
    let result_file = am_conformance::side_by_side::target_dir(&exe).join(PYTHON_FILE);
    let _ = std::fs::remove_file(&result_file);
    let dir = tempfile::tempdir().unwrap();
    let report = oracle(&python, dir.path(), records);
    let size = format!("{}k", records / 1_000);
    let rows: Vec<Value> = report["figures"]
        .as_object()
        .expect("world_models_oracle.py's figures")
        .iter()
        .map(|(call, f)| {
            serde_json::json!({
                "id": format!("world_models_vs_0_3_2/{call}_{size}"),
                "python_ns": f["median_ns"],
                "python_runs_ns": f["runs_ns"],
                "records": records,
                "python_build_s": report["build_s"],
            })
        })
        .collect();
    std::fs::write(&result_file, serde_json::to_vec_pretty(&rows).unwrap())
        .expect("writing world_models_python.json");
    println!(
        "world_models_vs_0_3_2: 0.3.2 built {records} records in {:.1} s; its medians are in {}",
        report["build_s"].as_f64().unwrap_or(f64::NAN),
        result_file.display()
    );
    let (_dir, _home, system) = home(records);
    calls(c, "world_models_vs_0_3_2", &size, &system);
}

criterion_group!(benches, world_models_vs_oracle, world_models);
criterion_main!(benches);
