//! What one durable commit of the write path costs on a SQLite home, in WAL
//! frames (4 KiB pages) and time: `remember_many` of 100 records (the formation
//! bench's batch) as the home grows to 16,000 records, then `commit_selection`
//! of a 12-record shelf (the bench's shape: 12 `selected`, 66 `co_selected`
//! and the snapshot).
//!
//! Each workload runs twice: on a home as [`SqliteHome::open`] sets it up
//! (autocheckpoint at 16,384 pages), then with the autocheckpoint off, so that
//! the WAL only grows: its frame count per commit is then exact, and the rate is
//! the ceiling of the write path when no commit pays for a checkpoint.
//!
//! `cargo run --release -p am-system --example write_amplification`

#![allow(clippy::print_stdout, reason = "a measurement tool prints its figures")]

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::{CommitSelection, RememberMany};
use am_system::{MemorySystem, ids};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

#[path = "../benches/common/records.rs"]
mod records;
use records::batch;

const BATCH: usize = 100;
const COMMITS_PER_ROUND: usize = 20;
const ROUNDS: usize = 8;
const SHELF: usize = 12;
/// Bytes of one WAL frame at 4 KiB pages (24-byte frame header).
const FRAME_BYTES: u64 = 4096 + 24;

fn wal_bytes(db: &Path) -> u64 {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).map_or(0, |m| m.len())
}

fn run(checkpoints: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).expect("open");
    if !checkpoints {
        home.conn()
            .lock()
            .expect("lock")
            .pragma_update(None, "wal_autocheckpoint", 0)
            .expect("pragma");
    }
    let memory_home =
        SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).expect("home");
    let system = MemorySystem::over_home(Arc::new(memory_home));
    println!(
        "== autocheckpoint {}",
        if checkpoints { "on (as opened)" } else { "off" }
    );
    let mut k = 0;
    for _ in 0..ROUNDS {
        let before = wal_bytes(&path);
        let t = Instant::now();
        for _ in 0..COMMITS_PER_ROUND {
            system
                .remember_many(&RememberMany::new(
                    batch(BATCH, k as u64).to_vec(),
                    "session",
                    "s1",
                    &format!("key-{k}"),
                ))
                .expect("remember_many");
            k += 1;
        }
        #[allow(clippy::cast_precision_loss, reason = "a printed rate")]
        let rate = (COMMITS_PER_ROUND * BATCH) as f64 / t.elapsed().as_secs_f64();
        let frames = wal_bytes(&path).saturating_sub(before) / FRAME_BYTES;
        print!(
            "remember_many, home at {:>6} records: {rate:>7.0} records/s",
            k * BATCH
        );
        if checkpoints {
            println!();
        } else {
            println!(
                ", {} WAL frames per commit",
                frames / COMMITS_PER_ROUND as u64
            );
        }
    }
    for t in 0..5 {
        let used: Vec<String> = (0..SHELF)
            .map(|i| {
                let n = (t * 7 + i * 13) % (k * BATCH);
                ids::digest_assertion_id(&format!("key-{}", n / BATCH), n % BATCH)
            })
            .collect();
        let before = wal_bytes(&path);
        let s = Instant::now();
        system
            .commit_selection(&CommitSelection::new(&format!("trace-{t}"), &used))
            .expect("commit_selection");
        let ms = s.elapsed().as_secs_f64() * 1e3;
        let frames = wal_bytes(&path).saturating_sub(before) / FRAME_BYTES;
        if checkpoints {
            println!("commit_selection of {SHELF}: {ms:.2} ms");
        } else {
            println!("commit_selection of {SHELF}: {ms:.2} ms, {frames} WAL frames");
        }
    }
}

fn main() {
    run(true);
    run(false);
}
