//! The Rust side of the Python package's speed figure (issue 44,
//! docs/benchmarks.md "The Python package"): the same work
//! `crates/am-py/benches/bench_python.py` does, through the Rust API.
//!
//! Each LoCoMo dev conversation becomes a SQLite home: its turns formed as
//! episodes with `remember_many` in batches of 100 (one participant per
//! turn, the speaker), then every question recalled with `reconstruct` over
//! the conversation's pair, journaled, as the Python call does by default.
//! It prints one JSON object with the Python script's keys, so the two can be
//! compared key for key (`bench_python.py --rust-bin` does it).
//!
//! `cargo run --release -p am-system --example locomo_timing -- [--data PATH]
//! [--embedder offline|none] [--questions N]`. The data is read from the
//! fixtures, never copied into the repository (LoCoMo is CC BY-NC).

use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_embed::OfflineEmbedder;
use am_system::RecordKind;
use am_system::SystemOptions;
use am_system::{MemoryRecordInput, MemorySystem, Reconstruct, RememberMany, Stimulus};
use am_triples::TextEmbedder;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;

const DATA: &str = "/work/shared/fixtures/locomo/locomo-dev.json";

fn turns(sample: &Value) -> Vec<MemoryRecordInput> {
    let conv = &sample["conversation"];
    let mut out = Vec::new();
    let mut n = 1;
    while let Some(session) = conv.get(format!("session_{n}")).and_then(Value::as_array) {
        for t in session {
            let speaker = t["speaker"].as_str().unwrap_or_default();
            let title = format!("{speaker} {}", t["dia_id"].as_str().unwrap_or_default());
            let participant = format!("person:{}", speaker.to_lowercase());
            out.push(
                MemoryRecordInput::new(
                    RecordKind::Episode,
                    &title,
                    t["text"].as_str().unwrap_or_default(),
                )
                .with_participants(&[participant.as_str()]),
            );
        }
        n += 1;
    }
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut data = DATA.to_owned();
    let mut offline = true;
    let mut questions = 0usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--data" => data = args.next().ok_or("--data needs a path")?,
            "--embedder" => offline = args.next().ok_or("--embedder needs a value")? == "offline",
            "--questions" => questions = args.next().ok_or("--questions needs N")?.parse()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let samples: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&data)?)?;
    let dir = tempfile::tempdir()?;
    let (mut formed, mut form_s, mut recall_us) = (0usize, 0f64, Vec::<f64>::new());
    for (i, sample) in samples.iter().enumerate() {
        let home = SqliteHome::open(dir.path().join(format!("h{i}.sqlite3")))?;
        let embedder: Option<Arc<dyn TextEmbedder>> = if offline {
            Some(Arc::new(OfflineEmbedder::new()?))
        } else {
            None
        };
        let memory_home =
            SqliteMemoryHome::open(&home, embedder.clone(), SqliteStoreOptions::default())?;
        let system = MemorySystem::over_home_with_options(
            Arc::new(memory_home),
            SystemOptions {
                embedder,
                ..SystemOptions::default()
            },
        )?;
        let owner = sample["sample_id"].as_str().unwrap_or_default().to_owned();
        let recs = turns(sample);
        let t0 = Instant::now();
        for (b, chunk) in recs.chunks(100).enumerate() {
            system.remember_many(&RememberMany::new(
                chunk.to_vec(),
                "locomo",
                &owner,
                &format!("{owner}-{}", b * 100),
            ))?;
        }
        form_s += t0.elapsed().as_secs_f64();
        formed += recs.len();
        let qa = sample["qa"].as_array().cloned().unwrap_or_default();
        let take = if questions == 0 {
            qa.len()
        } else {
            questions.min(qa.len())
        };
        for q in &qa[..take] {
            let cue = q["question"].as_str().unwrap_or_default();
            let t0 = Instant::now();
            let r = system.reconstruct(&Reconstruct::new(
                Stimulus::new(cue),
                &[("locomo", owner.as_str())],
            ))?;
            recall_us.push(t0.elapsed().as_secs_f64() * 1e6);
            std::hint::black_box(r);
        }
    }
    let mut sorted = recall_us.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.is_empty() {
        0.0
    } else if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    };
    let p90 = sorted.get(sorted.len() * 9 / 10).copied().unwrap_or(0.0);
    let round1 = |x: f64| (x * 10.0).round() / 10.0;
    println!(
        "{}",
        json!({
            "module": "rust",
            "embedder": if offline { "offline" } else { "none" },
            "records": formed,
            "remember_many_records_per_s": (formed as f64 / form_s).round(),
            "reconstructs": recall_us.len(),
            "reconstruct_median_us": round1(median),
            "reconstruct_p90_us": round1(p90),
        })
    );
    Ok(())
}
