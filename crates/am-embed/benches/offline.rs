//! Texts per second of the offline embedder (potion-base-2M) on the LoCoMo dev
//! turns: the `am ingest` target is 2,960 turns in at most 5 s, storage included.
//!
//! The turns are read at bench time from `$AM_LOCOMO`, else from
//! `/work/shared/fixtures/locomo/locomo-dev.json` (never copied into the repo):
//! a list of samples whose `conversation.session_<N>` lists hold turns with `text`.
//!
//! Run: `cargo bench -p am-embed --bench offline`.

use am_embed::OfflineEmbedder;
use criterion::{Criterion, Throughput, criterion_main};
use serde_json::Value;
use std::hint::black_box;

const DEFAULT_LOCOMO: &str = "/work/shared/fixtures/locomo/locomo-dev.json";

/// Every turn's text, in file order (samples, then sessions by number, then turns).
fn locomo_turns() -> Vec<String> {
    let path = std::env::var("AM_LOCOMO").unwrap_or_else(|_| DEFAULT_LOCOMO.to_owned());
    let raw = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the LoCoMo dev file {path}: {e} (set AM_LOCOMO)"));
    let samples: Value = serde_json::from_str(&raw).expect("LoCoMo dev file is JSON");
    let mut out = Vec::new();
    for sample in samples.as_array().expect("a list of samples") {
        let conv = sample["conversation"]
            .as_object()
            .expect("conversation object");
        let mut sessions: Vec<(u32, &Vec<Value>)> = conv
            .iter()
            .filter_map(|(k, v)| {
                let n = k.strip_prefix("session_")?.parse().ok()?;
                Some((n, v.as_array()?))
            })
            .collect();
        sessions.sort_by_key(|(n, _)| *n);
        for (_, turns) in sessions {
            out.extend(
                turns
                    .iter()
                    .filter_map(|t| t["text"].as_str().map(str::to_owned)),
            );
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let turns = locomo_turns();
    let embedder = OfflineEmbedder::new().expect("embedded model loads");
    let mut g = c.benchmark_group("offline_potion_base_2m");
    g.sample_size(10);
    g.throughput(Throughput::Elements(turns.len() as u64));
    g.bench_function(format!("locomo_dev_{}_turns", turns.len()), |b| {
        b.iter(|| black_box(embedder.embed(black_box(&turns))));
    });
    let batch: Vec<String> = turns.iter().take(64).cloned().collect();
    g.throughput(Throughput::Elements(batch.len() as u64));
    g.bench_function("locomo_dev_batch_of_64", |b| {
        b.iter(|| black_box(embedder.embed(black_box(&batch))));
    });
    g.finish();
    // A cold load parses the tokenizer and the weights; `new()` does it once per
    // process, `from_dir` every time, from the same bytes.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/model/potion-base-2M");
    let mut g = c.benchmark_group("offline_potion_base_2m_load");
    g.sample_size(10);
    g.bench_function("from_dir", |b| {
        b.iter(|| black_box(OfflineEmbedder::from_dir(dir).expect("loads")));
    });
    g.finish();
}

/// The criterion entry points (the macro's generated fn carries no docs).
mod harness {
    #![allow(missing_docs, reason = "criterion_group! generates an undocumented fn")]
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
