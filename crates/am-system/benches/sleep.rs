//! Sleep's reads on a SQLite home of 100,000 formed records (issue 38's
//! targets): `structural_report` (≤ 1 s), `maintenance_due` repeated with
//! nothing new (≤ 0.5 ms), and its first check on a fresh system (≤ 1 s);
//! beside them, the whole read of the pair's rows every report starts with.
//!
//! The home: 100,000 records in one pair, in batches of 1,000; every record
//! has two keywords and a participant, every fourth is isolated, the others
//! chained by a `supports` edge to their previous sibling (a component
//! relation), every tenth title repeats an earlier one, and every batch's
//! first record mentions the previous batch's first.
//!
//! Beside 0.3.2 in the same run (issue 38 "Proof", speed): when
//! `AM_ORACLE_PYTHON` names the oracle venv's python (`cargo xtask bench`
//! exports it when the venv exists), `sleep_oracle.py` builds a home of
//! 10,000 records of the same shape with AbstractMemory 0.3.2 (`$AM_SLEEP_ORACLE_RECORDS`
//! overrides the count), times 0.3.2's `structural_report`,
//! `maintenance_report`, `maintenance_due` (a first check),
//! `resolve_dreams_pass` and `consolidation_pass` (`report_only` and
//! writing, the writing forms on a fresh copy each round) on it, and the
//! group `sleep_vs_0_3_2` times our same calls on copies of that very file
//! (the writing passes on a fresh copy per iteration, the copy untimed);
//! `world_model_pass` (the world_models phase alone) is timed the same way.
//! 0.3.2's medians go to `<target>/sleep_python.json`, which
//! `cargo xtask bench` prints beside ours with the ratio.
//!
//! The night: 0.3.2's six phases run one by one on one fresh copy, as its
//! `sleep_pass` runs them, once (its dream phase weighs every pair of
//! records: minutes at 10,000); ours, `sleep_pass` on a fresh copy per
//! iteration, the whole night (`sleep_pass_<N>k`) and each sub-phase timed
//! where it ends (`night_<phase>_<N>k`, from the night's `phase_done`
//! sink).
//!
//! `cargo bench -p am-system --bench sleep`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::sleep::{
    ConsolidationPass, MaintenanceDue, MaintenanceReport, NightHooks, ResolveDreams, SleepPass,
    StructuralReport,
};
use am_system::world_models::WorldModelPass;
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany};
use criterion::{BatchSize, Criterion, SamplingMode, criterion_group, criterion_main};
use serde_json::Value;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const RECORDS: usize = 100_000;
const BATCH: usize = 1_000;
const PAIR: (&str, &str) = ("life", "e1");
const WORDS: [&str; 12] = [
    "pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel", "cache", "river",
    "ticket", "review",
];

fn batch(k: usize, previous_first: Option<&str>) -> Vec<MemoryRecordInput> {
    (0..BATCH)
        .map(|i| {
            let n = k * BATCH + i;
            let title = if n % 10 == 9 {
                format!("Record {}", n - 9)
            } else {
                format!("Record {n}")
            };
            let mut r = MemoryRecordInput::new(
                if i % 3 == 0 {
                    RecordKind::Lesson
                } else {
                    RecordKind::Episode
                },
                &title,
                &format!(
                    "Record {n} says something about {}.",
                    WORDS[n % WORDS.len()]
                ),
            )
            .with_keywords(&[WORDS[n % WORDS.len()], WORDS[(n / 7) % WORDS.len()]])
            .with_participants(&[&format!("person:{}", n % 50)]);
            if i > 0 && i % 4 != 0 {
                r = r.with_edge("supports", &format!("local:{}", i - 1));
            }
            if i == 0
                && let Some(p) = previous_first
            {
                r = r.with_edge("mentions", p);
            }
            r
        })
        .collect()
}

fn home() -> (tempfile::TempDir, SqliteHome, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("bench.sqlite3")).unwrap();
    let system = system_over(&home);
    let mut first: Option<String> = None;
    for k in 0..RECORDS / BATCH {
        let ids = system
            .remember_many(&RememberMany::new(
                batch(k, first.as_deref()),
                PAIR.0,
                PAIR.1,
                &format!("b{k}"),
            ))
            .unwrap()
            .value;
        first = Some(ids[0].clone());
    }
    (dir, home, system)
}

fn system_over(home: &SqliteHome) -> MemorySystem {
    let memory_home = SqliteMemoryHome::open(home, None, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home(Arc::new(memory_home))
}

#[path = "common/cpu.rs"]
mod cpu;
use cpu::{cpu_per_call, thread_cpu_ns};

fn sleep(c: &mut Criterion) {
    let (_dir, home, system) = home();
    let mut g = c.benchmark_group("sleep");
    g.sample_size(10);
    // What every report reads first: the pair's rows, whole (no target:
    // the floor under structural_report's figure).
    g.bench_function("pair_rows_read_100k", |b| {
        b.iter(|| {
            let rows = system
                .store()
                .query(&am_triples::TripleQuery {
                    scope: Some(PAIR.0.to_owned()),
                    owner_id: Some(PAIR.1.to_owned()),
                    limit: 0,
                    ..am_triples::TripleQuery::default()
                })
                .unwrap();
            black_box(rows.len())
        });
    });
    let args = StructuralReport::new(&[PAIR]);
    g.bench_function("structural_report_100k", |b| {
        b.iter(|| {
            let r = system.structural_report(&args).unwrap();
            assert_eq!(r.counts.records, RECORDS);
            black_box(r)
        });
    });
    // The bound is judged on CPU time: wall time on the shared machine
    // adds the waits for a core.
    cpu_per_call("sleep/structural_report_100k", 3, || {
        black_box(system.structural_report(&args).unwrap());
    });
    let due = MaintenanceDue::new(&[PAIR]);
    g.bench_function("maintenance_due_first_check_100k", |b| {
        b.iter_batched(
            || system_over(&home),
            |fresh| black_box(fresh.maintenance_due(&due).unwrap()),
            BatchSize::PerIteration,
        );
    });
    g.finish();
    let mut g = c.benchmark_group("sleep");
    let warm = system.maintenance_due(&due).unwrap();
    assert_eq!(warm.new_records, RECORDS as u64);
    g.bench_function("maintenance_due_nothing_new_100k", |b| {
        b.iter(|| {
            let r = system.maintenance_due(&due).unwrap();
            assert_eq!(r, warm);
            black_box(r)
        });
    });
    g.finish();
}

/// The records of the home 0.3.2 builds (the comparison size).
const ORACLE_RECORDS: usize = 10_000;
/// How many times 0.3.2 runs each call (its median is printed).
const ORACLE_ROUNDS: usize = 3;
/// How many nights 0.3.2 runs (its dream phase weighs every pair of
/// records: one night on 10,000 records takes many minutes).
const NIGHT_ROUNDS: usize = 1;
/// The night's sub-phases, in the order `sleep_pass` runs them.
const PHASES: [&str; 4] = ["resolution", "maintenance", "world_models", "dream"];
/// The file 0.3.2's medians go to, under the target directory.
const PYTHON_FILE: &str = "sleep_python.json";

/// Run `sleep_oracle.py` with `python`: 0.3.2 builds its home in `dir` and
/// times its calls; returns its JSON.
fn oracle_home(python: &Path, dir: &Path, records: usize) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/sleep_oracle.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(records.to_string())
        .arg(ORACLE_ROUNDS.to_string())
        .arg(dir)
        .arg(NIGHT_ROUNDS.to_string())
        .output()
        .expect("running sleep_oracle.py");
    assert!(
        out.status.success(),
        "sleep_oracle.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("sleep_oracle.py printed JSON")
}

/// A fresh copy of 0.3.2's home (checkpointed: the main file is the whole
/// home), opened as a system; with `tasks`, with the task queue (a pass
/// given no author forms its candidates pending, with their tasks: the
/// spec's path for a host without an author; 0.3.2 writes a machine title).
fn copy_of(src: &Path, dir: &Path, name: &str, tasks: bool) -> (PathBuf, SqliteHome, MemorySystem) {
    let dst = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", dst.display()));
    }
    std::fs::copy(src, &dst).expect("copying 0.3.2's home");
    let home = SqliteHome::open(&dst).unwrap();
    let system = if tasks {
        let memory_home =
            SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap();
        MemorySystem::over_home_with_options(
            Arc::new(memory_home),
            am_system::SystemOptions {
                task_queue: true,
                ..am_system::SystemOptions::default()
            },
        )
        .unwrap()
    } else {
        system_over(&home)
    };
    (dst, home, system)
}

fn sleep_vs_oracle(c: &mut Criterion) {
    let Some(python) = std::env::var_os("AM_ORACLE_PYTHON").map(PathBuf::from) else {
        println!(
            "sleep_vs_0_3_2: AM_ORACLE_PYTHON is not set; 0.3.2 was not measured (cargo xtask bench sets it)"
        );
        return;
    };
    let records = std::env::var("AM_SLEEP_ORACLE_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ORACLE_RECORDS);
    let exe = std::env::current_exe().expect("this binary's path");
    let result_file = am_conformance::side_by_side::target_dir(&exe).join(PYTHON_FILE);
    let _ = std::fs::remove_file(&result_file);
    let dir = tempfile::tempdir().unwrap();
    let report = oracle_home(&python, dir.path(), records);
    let src = dir.path().join("oracle.sqlite3");
    let size = format!("{}k", records / 1_000);
    let rows: Vec<Value> = report["figures"]
        .as_object()
        .expect("sleep_oracle.py's figures")
        .iter()
        .map(|(call, f)| {
            serde_json::json!({
                "id": format!("sleep_vs_0_3_2/{call}_{size}"),
                "python_ns": f["median_ns"],
                "python_runs_ns": f["runs_ns"],
                "python_cpu_ns": f["cpu_ns"],
                "records": records,
                "python_build_s": report["build_s"],
            })
        })
        .collect();
    for (call, f) in report["figures"].as_object().into_iter().flatten() {
        if let Some(cpu) = f["cpu_ns"].as_f64() {
            println!(
                "sleep_vs_0_3_2/{call}_{size}: 0.3.2 {:.3} ms CPU time per call (median)",
                cpu / 1e6
            );
        }
    }
    std::fs::write(&result_file, serde_json::to_vec_pretty(&rows).unwrap())
        .expect("writing sleep_python.json");
    println!(
        "sleep_vs_0_3_2: 0.3.2 built {records} records in {:.1} s; its medians are in {}",
        report["build_s"].as_f64().unwrap_or(f64::NAN),
        result_file.display()
    );

    let (_read_path, read_home, system) = copy_of(&src, dir.path(), "ours-read.sqlite3", false);
    let scopes = [PAIR];
    let mut g = c.benchmark_group("sleep_vs_0_3_2");
    g.sample_size(10);
    let structural = StructuralReport::new(&scopes);
    g.bench_function(format!("structural_report_{size}"), |b| {
        b.iter(|| black_box(system.structural_report(&structural).unwrap()));
    });
    let maintenance = MaintenanceReport::new(&scopes);
    g.bench_function(format!("maintenance_report_{size}"), |b| {
        b.iter(|| black_box(system.maintenance_report(&maintenance).unwrap()));
    });
    let due = MaintenanceDue::new(&scopes);
    g.bench_function(format!("maintenance_due_{size}"), |b| {
        b.iter_batched(
            || system_over(&read_home),
            |fresh| black_box(fresh.maintenance_due(&due).unwrap()),
            BatchSize::PerIteration,
        );
    });
    let mut resolve = ResolveDreams::new(&scopes, PAIR.1);
    resolve.report_only = true;
    g.bench_function(format!("resolve_dreams_pass_report_only_{size}"), |b| {
        b.iter(|| black_box(system.resolve_dreams_pass(&resolve).unwrap()));
    });
    let mut consolidate = ConsolidationPass::new(&scopes, PAIR.1);
    consolidate.report_only = true;
    g.bench_function(format!("consolidation_pass_report_only_{size}"), |b| {
        b.iter(|| black_box(system.consolidation_pass(&consolidate, None).unwrap()));
    });
    // The writing passes: a fresh copy each iteration (the copy, and the
    // drop of the system over it, untimed).
    let resolve = ResolveDreams::new(&scopes, PAIR.1);
    g.bench_function(format!("resolve_dreams_pass_{size}"), |b| {
        b.iter_batched(
            || copy_of(&src, dir.path(), "ours-write.sqlite3", true),
            |(p, h, fresh)| {
                let r = black_box(fresh.resolve_dreams_pass(&resolve).unwrap());
                (r, p, h, fresh)
            },
            BatchSize::PerIteration,
        );
    });
    let consolidate = ConsolidationPass::new(&scopes, PAIR.1);
    g.bench_function(format!("consolidation_pass_{size}"), |b| {
        b.iter_batched(
            || copy_of(&src, dir.path(), "ours-write.sqlite3", true),
            |(p, h, fresh)| {
                let r = black_box(fresh.consolidation_pass(&consolidate, None).unwrap());
                (r, p, h, fresh)
            },
            BatchSize::PerIteration,
        );
    });
    // The world_models phase alone (issue 39's `world_model_pass`, with the
    // task queue: its cards form pending their authored words).
    let cards = WorldModelPass::new(&scopes, PAIR.1);
    g.bench_function(format!("world_model_pass_{size}"), |b| {
        b.iter_batched(
            || copy_of(&src, dir.path(), "ours-write.sqlite3", true),
            |(p, h, fresh)| {
                let r = black_box(fresh.world_model_pass(&cards, None).unwrap());
                (r, p, h, fresh)
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
    // CPU time per call of the writing passes (each on a fresh copy, the
    // copy and the open outside the count), beside 0.3.2's `cpu_ns`.
    let cpu_on_copies = |label: &str, pass: &dyn Fn(&MemorySystem)| {
        let rounds = 5u32;
        let mut spent = 0u64;
        for _ in 0..rounds {
            let (p, h, fresh) = copy_of(&src, dir.path(), "ours-write.sqlite3", true);
            let Some(start) = thread_cpu_ns() else {
                return;
            };
            pass(&fresh);
            let Some(end) = thread_cpu_ns() else {
                return;
            };
            spent += end - start;
            drop((fresh, h, p));
        }
        println!(
            "sleep_vs_0_3_2/{label}_{size}: {:.3} ms CPU time per call (mean of {rounds}, fresh copy each)",
            spent as f64 / f64::from(rounds) / 1e6
        );
    };
    cpu_on_copies("consolidation_pass", &|s| {
        black_box(s.consolidation_pass(&consolidate, None).unwrap());
    });
    cpu_on_copies("world_model_pass", &|s| {
        black_box(s.world_model_pass(&cards, None).unwrap());
    });

    // The night: `sleep_pass` on a fresh copy per iteration (the copy
    // untimed), its phases timed where they end (the night's `phase_done`
    // sink); 0.3.2's night is its phases run one by one as its
    // `sleep_pass` runs them (`sleep_oracle.py`). One night per sample.
    let mut g = c.benchmark_group("sleep_vs_0_3_2");
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    let night = SleepPass::new(&scopes, PAIR.1);
    let run_night = |phase: Option<&str>| -> Duration {
        let (p, h, fresh) = copy_of(&src, dir.path(), "ours-night.sqlite3", true);
        let ends: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());
        let sink =
            |name: &str, _: &str| ends.lock().unwrap().push((name.to_owned(), Instant::now()));
        let hooks = NightHooks {
            phase_done: Some(&sink),
            ..NightHooks::default()
        };
        let start = Instant::now();
        let r = black_box(fresh.sleep_pass(&night, None, &hooks).unwrap());
        let end = Instant::now();
        let ends = ends.into_inner().unwrap();
        let took = match phase {
            None => end - start,
            Some(name) => {
                let at = ends
                    .iter()
                    .position(|(n, _)| n == name)
                    .expect("the phase ran");
                let from = if at == 0 { start } else { ends[at - 1].1 };
                ends[at].1 - from
            }
        };
        drop((r, fresh, h, p));
        took
    };
    g.bench_function(format!("sleep_pass_{size}"), |b| {
        b.iter_custom(|iters| (0..iters).map(|_| run_night(None)).sum());
    });
    for phase in PHASES {
        g.bench_function(format!("night_{phase}_{size}"), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| run_night(Some(phase))).sum());
        });
    }
    g.finish();

    // Each sub-phase's CPU time, from the same sink (3 nights, each on a
    // fresh copy), beside 0.3.2's `night_<phase>` `cpu_ns`.
    let nights = 3u32;
    let mut spent = [0u64; PHASES.len()];
    for _ in 0..nights {
        let (p, h, fresh) = copy_of(&src, dir.path(), "ours-night.sqlite3", true);
        let ends: Mutex<Vec<(String, Option<u64>)>> = Mutex::new(Vec::new());
        let sink = |name: &str, _: &str| {
            ends.lock()
                .unwrap()
                .push((name.to_owned(), thread_cpu_ns()));
        };
        let hooks = NightHooks {
            phase_done: Some(&sink),
            ..NightHooks::default()
        };
        let start = thread_cpu_ns();
        black_box(fresh.sleep_pass(&night, None, &hooks).unwrap());
        let mut from = start;
        for (name, at) in ends.into_inner().unwrap() {
            if let (Some(i), Some(a), Some(f)) = (PHASES.iter().position(|p| *p == name), at, from)
            {
                spent[i] += a - f;
            }
            from = at;
        }
        drop((fresh, h, p));
    }
    for (phase, ns) in PHASES.iter().zip(spent) {
        println!(
            "sleep_vs_0_3_2/night_{phase}_{size}: {:.3} ms CPU time per night (mean of {nights})",
            ns as f64 / f64::from(nights) / 1e6
        );
    }
}

criterion_group!(benches, sleep_vs_oracle, sleep);
criterion_main!(benches);
