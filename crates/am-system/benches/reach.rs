//! Reach on a SQLite home of 100,000 formed records (issue 42's target):
//! `probe` at effort `standard` (≤ 2 ms), journal off (a pure read) and
//! journaled (the trace and its listed events in one write), and
//! `familiarity` at effort `quick`.
//!
//! The home is the `sleep` bench's shape: 100,000 records in one pair, in
//! batches of 1,000, two keywords and a participant each, most chained by a
//! `supports` edge.
//!
//! Beside 0.3.2 in the same run (issue 42 "Proof": ≥ 50× faster): when
//! `AM_ORACLE_PYTHON` names the oracle venv's python (`cargo xtask bench`
//! exports it when the venv exists), `reach_oracle.py` builds a home of
//! 10,000 records of the same shape with AbstractMemory 0.3.2
//! (`$AM_REACH_ORACLE_RECORDS` overrides the count; 0.3.2's 100,000-record
//! home takes far longer to build), times 0.3.2's `probe` on it, and the group
//! `reach_vs_0_3_2` times ours on a copy of that very file. 0.3.2's median
//! goes to `<target>/reach_python.json` and is printed with the ratio.
//!
//! `cargo bench -p am-system --bench reach`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::reach::{EffortName, Familiarity, Probe, ProbeEffort};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, RememberMany, Stimulus};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

const RECORDS: usize = 100_000;
const BATCH: usize = 1_000;
const PAIR: (&str, &str) = ("life", "e1");
const WORDS: [&str; 12] = [
    "pool", "outage", "harbor", "signal", "tea", "garden", "piano", "kernel", "cache", "river",
    "ticket", "review",
];
const CUE: &str = "what happened with the harbor signal and the kernel cache";

/// The `sleep` bench's batch, record for record (and `reach_oracle.py`'s).
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

fn system_over(home: &SqliteHome) -> MemorySystem {
    let memory_home = SqliteMemoryHome::open(home, None, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home(Arc::new(memory_home))
}

/// The 100k home. With `$AM_REACH_BENCH_HOME` naming a file, it is built
/// there once and opened as it stands by later runs (instruction counts
/// under callgrind, which would otherwise spend most of their run building
/// it).
fn home() -> (tempfile::TempDir, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("AM_REACH_BENCH_HOME").map(PathBuf::from);
    let built = kept.as_ref().is_some_and(|p| p.exists());
    let path = kept.unwrap_or_else(|| dir.path().join("bench.sqlite3"));
    let home = SqliteHome::open(&path).unwrap();
    let system = system_over(&home);
    if built {
        return (dir, system);
    }
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
    (dir, system)
}

fn probe_args(write_journal: bool) -> Probe {
    Probe {
        effort: ProbeEffort::Preset(EffortName::Standard),
        write_journal,
        ..Probe::new(Stimulus::new(CUE), &[PAIR], "the bench reaches")
    }
}

#[path = "common/cpu.rs"]
mod cpu;
use cpu::cpu_per_call;

fn reach(c: &mut Criterion) {
    let (_dir, system) = home();
    let quiet = probe_args(false);
    let warm = system.probe(&quiet).unwrap();
    assert!(!warm.hits.is_empty());
    for _ in 0..5 {
        system.probe(&quiet).unwrap();
    }
    cpu_per_call("reach/probe_standard_100k", 200, || {
        black_box(system.probe(&quiet).unwrap());
    });
    let mut g = c.benchmark_group("reach");
    g.bench_function("probe_standard_100k", |b| {
        b.iter(|| black_box(system.probe(&quiet).unwrap()));
    });
    let journaled = probe_args(true);
    g.bench_function("probe_standard_journaled_100k", |b| {
        b.iter(|| black_box(system.probe(&journaled).unwrap()));
    });
    let fam = Familiarity::new(Stimulus::new(CUE), &[PAIR]);
    g.bench_function("familiarity_quick_100k", |b| {
        b.iter(|| black_box(system.familiarity(&fam).unwrap()));
    });
    g.finish();
}

/// The records of the home 0.3.2 builds.
const ORACLE_RECORDS: usize = 10_000;
/// How many times 0.3.2 runs the probe (its median is printed).
const ORACLE_ROUNDS: usize = 15;
/// The file 0.3.2's median goes to, under the target directory.
const PYTHON_FILE: &str = "reach_python.json";

fn oracle_home(python: &Path, dir: &Path, records: usize) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/reach_oracle.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(records.to_string())
        .arg(ORACLE_ROUNDS.to_string())
        .arg(dir)
        .output()
        .expect("running reach_oracle.py");
    assert!(
        out.status.success(),
        "reach_oracle.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("reach_oracle.py printed JSON")
}

fn reach_vs_oracle(c: &mut Criterion) {
    let Some(python) = std::env::var_os("AM_ORACLE_PYTHON").map(PathBuf::from) else {
        println!(
            "reach_vs_0_3_2: AM_ORACLE_PYTHON is not set; 0.3.2 was not measured (cargo xtask bench sets it)"
        );
        return;
    };
    let records = std::env::var("AM_REACH_ORACLE_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ORACLE_RECORDS);
    let exe = std::env::current_exe().expect("this binary's path");
    let result_file = am_conformance::side_by_side::target_dir(&exe).join(PYTHON_FILE);
    let _ = std::fs::remove_file(&result_file);
    let dir = tempfile::tempdir().unwrap();
    let report = oracle_home(&python, dir.path(), records);
    let python_ns = report["figures"]["probe_standard"]["median_ns"]
        .as_f64()
        .expect("0.3.2's median");
    let size = format!("{}k", records / 1_000);
    let id = format!("reach_vs_0_3_2/probe_standard_{size}");
    let dst = dir.path().join("ours.sqlite3");
    std::fs::copy(dir.path().join("oracle.sqlite3"), &dst).expect("copying 0.3.2's home");
    let home = SqliteHome::open(&dst).unwrap();
    let system = system_over(&home);
    let quiet = probe_args(false);
    system.probe(&quiet).unwrap();
    // Our median over the same number of calls, for the printed ratio.
    let mut ours: Vec<f64> = (0..101)
        .map(|_| {
            let t = Instant::now();
            black_box(system.probe(&quiet).unwrap());
            t.elapsed().as_nanos() as f64
        })
        .collect();
    ours.sort_by(f64::total_cmp);
    let ours_ns = ours[ours.len() / 2];
    std::fs::write(
        &result_file,
        serde_json::to_vec_pretty(&serde_json::json!([{
            "id": id,
            "python_ns": python_ns,
            "python_runs_ns": report["figures"]["probe_standard"]["runs_ns"],
            "records": records,
            "python_build_s": report["build_s"],
            "ours_median_ns": ours_ns,
        }]))
        .unwrap(),
    )
    .expect("writing reach_python.json");
    println!(
        "reach_vs_0_3_2: 0.3.2 built {records} records in {:.1} s; probe standard: 0.3.2 {:.3} ms, ours {:.3} ms, {:.0}x",
        report["build_s"].as_f64().unwrap_or(f64::NAN),
        python_ns / 1e6,
        ours_ns / 1e6,
        python_ns / ours_ns
    );
    let mut g = c.benchmark_group("reach_vs_0_3_2");
    g.bench_function(format!("probe_standard_{size}"), |b| {
        b.iter(|| black_box(system.probe(&quiet).unwrap()));
    });
    g.finish();
}

criterion_group!(benches, reach, reach_vs_oracle);
criterion_main!(benches);
