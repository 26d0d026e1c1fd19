//! The operator's tools on a SQLite home of 100,000 formed records (issue
//! 43 "Proof", speed): `reembed_store` of the home's 100,000 rows with the
//! offline embedder (≥ 20,000 rows/s; criterion throughput in rows) and
//! `mind_mass_report` over its one pair (≤ 1 s).
//!
//! The home: 100,000 records in one pair, in batches of 1,000, one row each
//! (no edges), each with two keywords and a participant, formed with the
//! offline embedder (so the home is pinned and every row holds a vector,
//! as a lived home's are). The re-embed moves the home into the offline
//! space again each iteration: every text embedded, every vector swapped
//! in one transaction, the pin and a marker written (the marker adds a row
//! per iteration, which the throughput does not count).
//!
//! Beside 0.3.2 in the same run: when `AM_ORACLE_PYTHON` names the oracle
//! venv's python (`cargo xtask bench` exports it when the venv exists),
//! `operator_oracle.py` builds a home of 10,000 records of the same shape
//! with AbstractMemory 0.3.2 (`$AM_OPERATOR_ORACLE_RECORDS` overrides the
//! count; 0.3.2 forms about a thousand records a second, so 100,000 would
//! take minutes to build and its re-embed minutes per round) and times
//! 0.3.2's `mind_mass_report` and `reembed_store` on it. 0.3.2 ships no
//! offline model, so its re-embed runs with a pure-Python 64-dimension
//! hashing embedder (cheaper per text than the offline model ours runs
//! with: the figure favours 0.3.2). The group `operator_vs_0_3_2` times our
//! same calls on copies of that very file (the re-embed on a fresh copy
//! per iteration, the copy untimed); 0.3.2's medians go to
//! `<target>/operator_python.json`, which `cargo xtask bench` prints beside
//! ours with the ratio.
//!
//! `cargo bench -p am-system --bench operator`. `$AM_OPERATOR_BENCH_HOME`
//! names a file to keep the 100k home in between runs (built there once,
//! copied for each run).

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::operator::{MindMass, ReembedStore};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany};
use am_triples::TextEmbedder;
use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

#[path = "common/cpu.rs"]
#[allow(dead_code, reason = "the operator bench reads only thread_cpu_ns")]
mod cpu;

const RECORDS: usize = 100_000;
const BATCH: usize = 1_000;
const PAIR: (&str, &str) = ("life", "e1");
const WORDS: [&str; 12] = [
    "pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel", "cache", "river",
    "ticket", "review",
];

fn offline() -> Arc<dyn TextEmbedder> {
    Arc::new(am_embed::OfflineEmbedder::new().expect("the bundled offline model"))
}

/// Batch `k` of the home (`operator_oracle.py`'s `batch`, record for record).
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
                    "Record {n} says something about {} and the {}.",
                    WORDS[n % WORDS.len()],
                    WORDS[(n / 7) % WORDS.len()]
                ),
            )
            .with_keywords(&[WORDS[n % WORDS.len()], WORDS[(n / 7) % WORDS.len()]])
            .with_participants(&[&format!("person:{}", n % 50)])
        })
        .collect()
}

fn system_over(home: &SqliteHome, embedder: Option<Arc<dyn TextEmbedder>>) -> MemorySystem {
    let memory_home =
        SqliteMemoryHome::open(home, embedder, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home(Arc::new(memory_home))
}

/// Form the 100k home in the file at `path`.
fn build(path: &Path) {
    let home = SqliteHome::open(path).unwrap();
    let system = system_over(&home, Some(offline()));
    for k in 0..RECORDS / BATCH {
        system
            .remember_many(&RememberMany::new(
                batch(k),
                PAIR.0,
                PAIR.1,
                &format!("b{k}"),
            ))
            .unwrap();
    }
}

/// The 100k home, on a fresh file of this run's own (the re-embed writes
/// to it). With `$AM_OPERATOR_BENCH_HOME` naming a file, the home is built
/// there once and later runs copy it as it stands (instruction counts
/// under callgrind, which would otherwise spend most of their run forming
/// 100,000 records); the kept file itself is never written after it is
/// built.
fn home() -> (tempfile::TempDir, SqliteHome, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.sqlite3");
    match std::env::var_os("AM_OPERATOR_BENCH_HOME").map(PathBuf::from) {
        Some(kept) => {
            if !kept.exists() {
                build(&kept);
            }
            for suffix in ["", "-wal"] {
                let from = PathBuf::from(format!("{}{suffix}", kept.display()));
                if from.exists() {
                    std::fs::copy(&from, format!("{}{suffix}", path.display()))
                        .expect("copying the kept bench home");
                }
            }
        }
        None => build(&path),
    }
    let home = SqliteHome::open(&path).unwrap();
    let system = system_over(&home, Some(offline()));
    (dir, home, system)
}

fn mass_args() -> MindMass {
    serde_json::from_value(json!({"scopes": [[PAIR.0, PAIR.1]]})).unwrap()
}

fn operator(c: &mut Criterion) {
    let (_dir, _home, system) = home();
    let mut g = c.benchmark_group("operator");
    g.sample_size(10);
    let mass = mass_args();
    g.bench_function("mind_mass_report_100k", |b| {
        b.iter(|| {
            let r = system.mind_mass_report(&mass, None).unwrap();
            black_box(r)
        });
    });
    // The same call timed by this thread's time on a CPU instead of wall
    // time: on the shared machine, the work without the waits for a core.
    g.bench_function("mind_mass_report_100k_cpu_time", |b| {
        b.iter_custom(|iters| {
            let start = cpu::thread_cpu_ns().expect("this thread's CPU time (Linux)");
            for _ in 0..iters {
                black_box(system.mind_mass_report(&mass, None).unwrap());
            }
            let end = cpu::thread_cpu_ns().expect("this thread's CPU time (Linux)");
            Duration::from_nanos(end - start)
        });
    });
    // The report less its wake-cue dry run (`wake_cue_kind: null`), and the
    // dry run alone: where the report's time goes (no target).
    let mut bare = mass_args();
    bare.wake_cue_kind = None;
    g.bench_function("mind_mass_report_no_wake_cue_100k", |b| {
        b.iter(|| black_box(system.mind_mass_report(&bare, None).unwrap()));
    });
    let mut dry = am_system::sleep::WakeCueDedup::new(PAIR.0, PAIR.1, "bench");
    dry.report_only = true;
    g.bench_function("wake_cue_dedup_report_only_100k", |b| {
        b.iter(|| black_box(system.wake_cue_dedup_pass(&dry, None).unwrap()));
    });
    g.finish();

    // The re-embed: one whole move per iteration (seconds each). Its rows
    // (every row but the formation edges; the home has none) are counted
    // without moving the home, so a run filtered to the mass report does
    // not re-embed it; the first move (a warm-up, untimed) checks the count.
    let embedder = offline();
    let args = ReembedStore::new(PAIR.1);
    let rows = system
        .store()
        .query(&am_triples::TripleQuery {
            owner_id: Some(PAIR.1.to_owned()),
            limit: 0,
            ..am_triples::TripleQuery::default()
        })
        .unwrap()
        .len();
    assert!(rows >= RECORDS, "the home holds its 100,000 rows ({rows})");
    let mut g = c.benchmark_group("operator");
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Elements(rows as u64));
    let mut warm = false;
    g.bench_function("reembed_store_offline_100k", |b| {
        if !warm {
            let first = system
                .reembed_store(&args, embedder.clone(), &mut |_, _| {})
                .unwrap();
            assert_eq!(first.rows, rows, "the counted rows are the re-embed's");
            warm = true;
        }
        b.iter(|| {
            let r = system
                .reembed_store(&args, embedder.clone(), &mut |_, _| {})
                .unwrap();
            black_box(r.vectored)
        });
    });
    g.finish();
}

/// The records of the home 0.3.2 builds.
const ORACLE_RECORDS: usize = 10_000;
/// How many times 0.3.2 runs each call (its median is printed).
const ORACLE_ROUNDS: usize = 3;
/// The file 0.3.2's medians go to, under the target directory.
const PYTHON_FILE: &str = "operator_python.json";

/// A fresh copy of 0.3.2's home (checkpointed: the main file is the whole
/// home), opened as a system with no embedder (the mass report's wired
/// embedder is `None`, as the exec op's).
fn copy_of(src: &Path, dir: &Path, name: &str) -> (PathBuf, SqliteHome, MemorySystem) {
    let dst = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", dst.display()));
    }
    std::fs::copy(src, &dst).expect("copying 0.3.2's home");
    let home = SqliteHome::open(&dst).unwrap();
    let system = system_over(&home, None);
    (dst, home, system)
}

fn operator_vs_oracle(c: &mut Criterion) {
    let Some(python) = std::env::var_os("AM_ORACLE_PYTHON").map(PathBuf::from) else {
        println!(
            "operator_vs_0_3_2: AM_ORACLE_PYTHON is not set; 0.3.2 was not measured (cargo xtask bench sets it)"
        );
        return;
    };
    let records = std::env::var("AM_OPERATOR_ORACLE_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ORACLE_RECORDS);
    let exe = std::env::current_exe().expect("this binary's path");
    let result_file = am_conformance::side_by_side::target_dir(&exe).join(PYTHON_FILE);
    let _ = std::fs::remove_file(&result_file);
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/operator_oracle.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(records.to_string())
        .arg(ORACLE_ROUNDS.to_string())
        .arg(dir.path())
        .output()
        .expect("running operator_oracle.py");
    assert!(
        out.status.success(),
        "operator_oracle.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_slice(&out.stdout).expect("operator_oracle.py printed JSON");
    let src = dir.path().join("oracle.sqlite3");
    let size = format!("{}k", records / 1_000);
    let rows: Vec<Value> = report["figures"]
        .as_object()
        .expect("operator_oracle.py's figures")
        .iter()
        .map(|(call, f)| {
            json!({
                "id": format!("operator_vs_0_3_2/{call}_{size}"),
                "python_ns": f["median_ns"],
                "python_runs_ns": f["runs_ns"],
                "records": records,
                "rows": report["rows"],
                "python_build_s": report["build_s"],
            })
        })
        .collect();
    std::fs::write(&result_file, serde_json::to_vec_pretty(&rows).unwrap())
        .expect("writing operator_python.json");
    println!(
        "operator_vs_0_3_2: 0.3.2 built {records} records in {:.1} s; its medians are in {}",
        report["build_s"].as_f64().unwrap_or(f64::NAN),
        result_file.display()
    );

    let (_read_path, _read_home, system) = copy_of(&src, dir.path(), "ours-read.sqlite3");
    let mut g = c.benchmark_group("operator_vs_0_3_2");
    g.sample_size(10);
    let mass = mass_args();
    g.bench_function(format!("mind_mass_report_{size}"), |b| {
        b.iter(|| black_box(system.mind_mass_report(&mass, None).unwrap()));
    });
    let embedder = offline();
    let args = ReembedStore::new(PAIR.1);
    g.bench_function(format!("reembed_store_{size}"), |b| {
        b.iter_batched(
            || copy_of(&src, dir.path(), "ours-write.sqlite3"),
            |(p, h, fresh)| {
                let r = black_box(
                    fresh
                        .reembed_store(&args, embedder.clone(), &mut |_, _| {})
                        .unwrap(),
                );
                (r, p, h, fresh)
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

criterion_group!(benches, operator_vs_oracle, operator);
criterion_main!(benches);
