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
use std::hint::black_box;

#[path = "common/locomo.rs"]
mod locomo;
use locomo::locomo_turns;

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
