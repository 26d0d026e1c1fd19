//! `alive_drives` on a SQLite home of 100,000 formed records (issue 42's
//! target: ≤ 5 ms). The home: 100,000 records in `life` (batches of 1,000,
//! every third a lesson, one `follows` edge each after the first), and in
//! `diary` 200 owner-direct questions (every fifth answered), 20 commitments
//! and 20 interests; 50 reinforcements of diary drives. The ladder is
//! `diary`, `life` (every scan reads the whole `life` scope).
//!
//! `drive_pressure` (the system's own read, through the drive index) is timed
//! on the same home.
//!
//! Beside 0.3.2 in the same run (issue 42 "Proof": ≥ 50× faster): when
//! `AM_ORACLE_PYTHON` names the oracle venv's python, `drives_oracle.py`
//! builds a home of 10,000 records of the same shape with AbstractMemory
//! 0.3.2 (`$AM_DRIVES_ORACLE_RECORDS` overrides the count), times 0.3.2's
//! `alive_drives` and `drive_pressure` on it, and the group `drives_vs_0_3_2`
//! times ours on a copy of that very file. 0.3.2's medians go to
//! `<target>/drives_python.json` and are printed with the ratios.
//!
//! `cargo bench -p am-system --bench drives`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::drives::{AliveDrives, DriveScopes};
use am_system::{MemoryRecordInput, MemorySystem, RecordKind, Reinforce, RememberMany};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

#[path = "common/records.rs"]
mod records;
use records::batch;

const RECORDS: usize = 100_000;
const EID: &str = "entity:bench";

fn system_over(home: &SqliteHome) -> MemorySystem {
    let memory_home = SqliteMemoryHome::open(home, None, SqliteStoreOptions::default()).unwrap();
    MemorySystem::over_home(Arc::new(memory_home))
}

/// The 100k home. With `$AM_DRIVES_BENCH_HOME` naming a file, it is built
/// there once and opened as it stands by later runs (instruction counts
/// under callgrind, which would otherwise spend most of their run building
/// it).
fn home() -> (tempfile::TempDir, MemorySystem) {
    let dir = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("AM_DRIVES_BENCH_HOME").map(PathBuf::from);
    let built = kept.as_ref().is_some_and(|p| p.exists());
    let path = kept.unwrap_or_else(|| dir.path().join("bench.sqlite3"));
    let home = SqliteHome::open(&path).unwrap();
    let sys = system_over(&home);
    if built {
        return (dir, sys);
    }
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

#[path = "common/cpu.rs"]
mod cpu;
use cpu::cpu_per_call;

fn drives(c: &mut Criterion) {
    let (_dir, sys) = home();
    let args = AliveDrives::new(&[("diary", EID), ("life", EID)]);
    assert!(!sys.alive_drives(&args).unwrap().is_empty());
    for _ in 0..5 {
        sys.alive_drives(&args).unwrap();
    }
    cpu_per_call("drives/alive_drives_100k_records", 100, || {
        black_box(sys.alive_drives(&args).unwrap());
    });
    let mut g = c.benchmark_group("drives");
    g.sample_size(10);
    g.bench_function("alive_drives_100k_records", |b| {
        b.iter(|| black_box(sys.alive_drives(&args).unwrap()));
    });
    let scopes = DriveScopes {
        scopes: args.scopes.clone(),
    };
    g.bench_function("drive_pressure_100k_records", |b| {
        b.iter(|| black_box(sys.drive_pressure(&scopes).unwrap()));
    });
    g.finish();
}

/// The records of the home 0.3.2 builds.
const ORACLE_RECORDS: usize = 10_000;
/// How many times 0.3.2 runs each read (its median is printed).
const ORACLE_ROUNDS: usize = 3;
/// The file 0.3.2's medians go to, under the target directory.
const PYTHON_FILE: &str = "drives_python.json";

fn oracle_home(python: &Path, dir: &Path, records: usize) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/drives_oracle.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(records.to_string())
        .arg(ORACLE_ROUNDS.to_string())
        .arg(dir)
        .output()
        .expect("running drives_oracle.py");
    assert!(
        out.status.success(),
        "drives_oracle.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("drives_oracle.py printed JSON")
}

/// Our median of `f` over 101 calls, in ns.
fn median_ns(mut f: impl FnMut()) -> f64 {
    let mut runs: Vec<f64> = (0..101)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn drives_vs_oracle(c: &mut Criterion) {
    let Some(python) = std::env::var_os("AM_ORACLE_PYTHON").map(PathBuf::from) else {
        println!(
            "drives_vs_0_3_2: AM_ORACLE_PYTHON is not set; 0.3.2 was not measured (cargo xtask bench sets it)"
        );
        return;
    };
    let records = std::env::var("AM_DRIVES_ORACLE_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ORACLE_RECORDS);
    let exe = std::env::current_exe().expect("this binary's path");
    let result_file = am_conformance::side_by_side::target_dir(&exe).join(PYTHON_FILE);
    let _ = std::fs::remove_file(&result_file);
    let dir = tempfile::tempdir().unwrap();
    let report = oracle_home(&python, dir.path(), records);
    let dst = dir.path().join("ours.sqlite3");
    std::fs::copy(dir.path().join("oracle.sqlite3"), &dst).expect("copying 0.3.2's home");
    let home = SqliteHome::open(&dst).unwrap();
    let system = system_over(&home);
    let alive = AliveDrives::new(&[("diary", EID), ("life", EID)]);
    let scopes = DriveScopes {
        scopes: alive.scopes.clone(),
    };
    assert!(!system.alive_drives(&alive).unwrap().is_empty());
    let size = format!("{}k", records / 1_000);
    let ours = [
        (
            "alive_drives",
            median_ns(|| {
                black_box(system.alive_drives(&alive).unwrap());
            }),
        ),
        (
            "drive_pressure",
            median_ns(|| {
                black_box(system.drive_pressure(&scopes).unwrap());
            }),
        ),
    ];
    let mut rows = Vec::new();
    for (name, ours_ns) in ours {
        let python_ns = report["figures"][name]["median_ns"]
            .as_f64()
            .expect("0.3.2's median");
        println!(
            "drives_vs_0_3_2: 0.3.2 built {records} records in {:.1} s; {name}: 0.3.2 {:.3} ms, ours {:.3} ms, {:.0}x",
            report["build_s"].as_f64().unwrap_or(f64::NAN),
            python_ns / 1e6,
            ours_ns / 1e6,
            python_ns / ours_ns
        );
        rows.push(serde_json::json!({
            "id": format!("drives_vs_0_3_2/{name}_{size}"),
            "python_ns": python_ns,
            "python_runs_ns": report["figures"][name]["runs_ns"],
            "records": records,
            "python_build_s": report["build_s"],
            "ours_median_ns": ours_ns,
        }));
    }
    std::fs::write(&result_file, serde_json::to_vec_pretty(&rows).unwrap())
        .expect("writing drives_python.json");
    let mut g = c.benchmark_group("drives_vs_0_3_2");
    g.bench_function(format!("alive_drives_{size}"), |b| {
        b.iter(|| black_box(system.alive_drives(&alive).unwrap()));
    });
    g.bench_function(format!("drive_pressure_{size}"), |b| {
        b.iter(|| black_box(system.drive_pressure(&scopes).unwrap()));
    });
    g.finish();
}

criterion_group!(benches, drives, drives_vs_oracle);
criterion_main!(benches);
