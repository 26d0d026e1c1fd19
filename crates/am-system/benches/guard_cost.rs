//! The commit guard's cost in instructions (issue 18: a trivial guard costs at
//! most 2 % of `add` and `remember_many`, measured side by side).
//!
//! Wall-clock benches move by ±10 % on a shared machine, so this measures
//! what does not move with the load: the instructions executed, counted by
//! valgrind's callgrind, inside one function (`measured_region`) that runs
//! the same writes on the same inputs with and without a guard that always
//! passes. Every run is its own process on a fresh home:
//!
//! - `add`: a `SQLiteTripleStore` holding [`HOME_ROWS`] rows of 384-d vectors
//!   (the store bench's rows, vectors precomputed), then [`ADD_BATCHES`]
//!   `add`s of 500 rows, counted;
//! - `remember_many`: a SQLite home (store and journal in one file, no
//!   embedder, the formation bench's records), [`WARM_BATCHES`] batches of
//!   100 records, then [`REMEMBER_BATCHES`] batches, counted.
//!
//! `cargo bench -p am-system --bench guard_cost` (what `cargo xtask bench`
//! runs) re-runs this binary under `valgrind --tool=callgrind
//! --collect-atstart=no --toggle-collect=*measured_region*` for each
//! workload, guarded and unguarded, prints the pair and the overhead against
//! the 2 % target, and writes them to `<target>/guard_cost.json` for the
//! xtask's table. Without valgrind it says so and measures nothing. One run:
//! `guard_cost --measure add guarded` (or `unguarded`, or `remember_many`).

#![allow(missing_docs, reason = "a bench binary: nothing is exported")]

use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_conformance::workload::{BATCH, embedder_for, next_batch};
use am_system::RememberMany;
use am_system::{MemorySystem, SystemOptions};
use am_triples::{CommitGuard, TripleAssertion, TripleStore};
use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

#[path = "common/records.rs"]
mod records;

/// Rows in the store before the counted `add`s.
const HOME_ROWS: usize = 5_000;
/// Counted `add` batches of [`BATCH`] rows.
const ADD_BATCHES: usize = 10;
/// `remember_many` batches before the counted ones (statement caches warm).
const WARM_BATCHES: u64 = 3;
/// Counted `remember_many` batches of [`RECORDS`] records.
const REMEMBER_BATCHES: u64 = 10;
/// Records per `remember_many`.
const RECORDS: usize = 100;
/// The largest overhead allowed, in percent of the unguarded count.
const MAX_PCT: f64 = 2.0;
/// The workloads, as `measure` names them.
const WORKLOADS: &[&str] = &["add", "remember_many"];

fn trivial_guard() -> CommitGuard {
    CommitGuard::new(|_| Ok(()))
}

/// The counted region: callgrind counts the instructions executed between
/// this function's entry and its return (`--toggle-collect`).
#[inline(never)]
fn measured_region(work: &mut dyn FnMut()) {
    work();
}

fn measure_add(dir: &Path, guarded: bool) {
    let embedder = embedder_for(0..HOME_ROWS + ADD_BATCHES * BATCH);
    let store = SQLiteTripleStore::open(
        dir.join("add.sqlite3"),
        Some(embedder),
        SqliteStoreOptions::default(),
    )
    .expect("open the store");
    if guarded {
        store
            .install_commit_guard(&trivial_guard())
            .expect("install the guard");
    }
    let mut next = 0;
    for _ in 0..HOME_ROWS / BATCH {
        store.add(&next_batch(&mut next)).expect("fill");
    }
    let batches: Vec<Vec<TripleAssertion>> =
        (0..ADD_BATCHES).map(|_| next_batch(&mut next)).collect();
    let mut it = batches.iter();
    measured_region(&mut || {
        for rows in it.by_ref() {
            black_box(store.add(rows).expect("add"));
        }
    });
}

fn measure_remember_many(dir: &Path, guarded: bool) {
    let home = SqliteHome::open(dir.join("remember.sqlite3")).expect("open the home");
    let memory_home = SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default())
        .expect("open the memory home");
    let options = SystemOptions {
        commit_guard: guarded.then(trivial_guard),
        ..SystemOptions::default()
    };
    let system = MemorySystem::over_home_with_options(Arc::new(memory_home), options)
        .expect("open the system");
    let call = |k: u64| {
        RememberMany::new(
            records::batch(RECORDS, k),
            "session",
            "s1",
            &format!("key-{k}"),
        )
    };
    for k in 0..WARM_BATCHES {
        system.remember_many(&call(k)).expect("warm up");
    }
    let calls: Vec<RememberMany> = (WARM_BATCHES..WARM_BATCHES + REMEMBER_BATCHES)
        .map(call)
        .collect();
    let mut it = calls.iter();
    measured_region(&mut || {
        for c in it.by_ref() {
            black_box(system.remember_many(c).expect("remember_many"));
        }
    });
}

/// One measured run in this process.
fn measure(workload: &str, variant: &str) {
    let guarded = match variant {
        "guarded" => true,
        "unguarded" => false,
        other => panic!("the variant is guarded or unguarded, got {other:?}"),
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    match workload {
        "add" => measure_add(dir.path(), guarded),
        "remember_many" => measure_remember_many(dir.path(), guarded),
        other => panic!("the workload is one of {WORKLOADS:?}, got {other:?}"),
    }
}

/// The instructions callgrind counted in one run of this binary, and of
/// those the guard's own ([`guard_instructions`]).
fn count(exe: &Path, workload: &str, variant: &str, out: &Path) -> Result<(u64, u64), String> {
    let status = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=*measured_region*",
            "--quiet",
        ])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(["--measure", workload, variant])
        .status()
        .map_err(|e| format!("running valgrind: {e}"))?;
    if !status.success() {
        return Err(format!("valgrind {workload} {variant}: {status}"));
    }
    let text = std::fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let total = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .filter(|&n: &u64| n > 0)
        .ok_or_else(|| {
            format!(
                "{}: no instruction total (did --toggle-collect match measured_region?)",
                out.display()
            )
        })?;
    Ok((total, guard_instructions(&text)))
}

/// The instructions callgrind counted inside `am_triples`'s
/// `CommitGuard::check` (the guard call itself, the host's closure included)
/// in the callgrind file `text`: the inclusive cost of every call to it.
fn guard_instructions(text: &str) -> u64 {
    // Callgrind compresses names: `(N) name` on first use, `(N)` after.
    let Some(id) = text.lines().find_map(|l| {
        let rest = l.strip_prefix("fn=").or_else(|| l.strip_prefix("cfn="))?;
        let (id, name) = rest.split_once(' ')?;
        name.contains("CommitGuard::check").then(|| id.to_owned())
    }) else {
        return 0;
    };
    let mut total = 0;
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        let Some(rest) = l.strip_prefix("cfn=") else {
            continue;
        };
        if rest.split(' ').next() != Some(id.as_str()) {
            continue;
        }
        // `calls=<count> <target>`, then `<position> <inclusive cost>`.
        if lines.next().is_some_and(|c| c.starts_with("calls=")) {
            total += lines
                .next()
                .and_then(|c| c.split_whitespace().nth(1)?.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    total
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--measure") {
        let (workload, variant) = match (args.get(i + 1), args.get(i + 2)) {
            (Some(w), Some(v)) => (w.as_str(), v.as_str()),
            _ => panic!("--measure expects a workload and a variant"),
        };
        measure(workload, variant);
        return;
    }
    // Under `cargo bench` (criterion's arguments are ignored): every
    // workload, guarded and unguarded, each under callgrind.
    let exe = std::env::current_exe().expect("this binary's path");
    let result_file = am_conformance::side_by_side::target_dir(&exe).join("guard_cost.json");
    let _ = std::fs::remove_file(&result_file);
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("guard_cost: valgrind is not installed; the instruction counts were not measured");
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut rows = Vec::new();
    for workload in WORKLOADS {
        let mut counts = [(0u64, 0u64); 2];
        for (slot, variant) in ["unguarded", "guarded"].iter().enumerate() {
            let out = dir.path().join(format!("{workload}-{variant}.callgrind"));
            match count(&exe, workload, variant, &out) {
                Ok(n) => counts[slot] = n,
                Err(e) => {
                    eprintln!("guard_cost: {e}");
                    std::process::exit(1);
                }
            }
        }
        let [(base, _), (guarded, in_guard)] = counts;
        #[allow(clippy::cast_precision_loss, reason = "a percentage")]
        let pct = (guarded as f64 / base as f64 - 1.0) * 100.0;
        println!(
            "guard_cost/{workload}: {guarded} instructions guarded vs {base} unguarded: \
             {pct:+.4} %, {in_guard} of them in the guard calls (target <= +{MAX_PCT} %: {})",
            if pct <= MAX_PCT { "met" } else { "NOT met" }
        );
        rows.push(serde_json::json!({
            "workload": workload,
            "guarded": guarded,
            "unguarded": base,
            "overhead_pct": pct,
            "in_guard": in_guard,
        }));
    }
    std::fs::write(
        &result_file,
        serde_json::to_string_pretty(&rows).expect("JSON"),
    )
    .expect("write the result file");
    println!("guard_cost: wrote {}", result_file.display());
}
