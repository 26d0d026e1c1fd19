//! Vector ranking: the reference `rank_by_cosine` against `rank_by_cosine_fast`
//! (SIMD candidate selection + exact re-score) on 10,000 pseudo-random 384-d rows.
//! Run: `cargo bench -p am-triples --bench vector`.

#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use am_triples::vector::{rank_by_cosine, rank_by_cosine_fast};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// A small deterministic generator (xorshift), so runs compare like for like.
fn rows(n: usize, dim: usize) -> Vec<Vec<f32>> {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // 24 random bits mapped to [-1, 1).
        ((s >> 40) as f32 / 8_388_608.0) - 1.0
    };
    (0..n).map(|_| (0..dim).map(|_| next()).collect()).collect()
}

fn of(v: &Vec<f32>) -> Option<&[f32]> {
    Some(v.as_slice())
}

fn bench(c: &mut Criterion) {
    let data = rows(10_000, 384);
    let query = rows(1, 384).remove(0);
    let mut g = c.benchmark_group("rank_10k_x_384d_top10");
    g.bench_function("reference", |b| {
        b.iter(|| rank_by_cosine(black_box(&query), data.iter(), of, None, Some(10)))
    });
    g.bench_function("fast", |b| {
        b.iter(|| rank_by_cosine_fast(black_box(&query), data.iter(), of, None, Some(10)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
