//! Texts per second of the `minilm` feature's all-MiniLM-L6-v2 (candle, CPU) on
//! the LoCoMo dev turns, for comparison with the offline default.
//!
//! Needs `AM_MINILM_DIR` (a directory with `config.json`, `tokenizer.json`,
//! `model.safetensors`). Run:
//! `AM_MINILM_DIR=... cargo bench -p am-embed --features minilm --bench minilm`.

use am_embed::MiniLmEmbedder;
use criterion::{Criterion, Throughput, criterion_main};
use std::hint::black_box;

#[path = "common/locomo.rs"]
mod locomo;
use locomo::locomo_turns;

fn bench(c: &mut Criterion) {
    let dir = std::env::var("AM_MINILM_DIR").expect("set AM_MINILM_DIR to the model directory");
    let embedder = MiniLmEmbedder::from_dir(dir).expect("the model loads");
    let turns = locomo_turns();
    let mut g = c.benchmark_group("minilm_l6_v2");
    g.sample_size(10);
    let batch: Vec<String> = turns.iter().take(256).cloned().collect();
    g.throughput(Throughput::Elements(batch.len() as u64));
    g.bench_function("locomo_dev_first_256_turns", |b| {
        b.iter(|| black_box(embedder.embed(black_box(&batch)).expect("embeds")));
    });
    g.finish();
}

/// The criterion entry points (the macro's generated fn carries no docs).
mod harness {
    #![allow(missing_docs, reason = "criterion_group! generates an undocumented fn")]
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
