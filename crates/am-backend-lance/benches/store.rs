//! Criterion benches of `LanceDBTripleStore` at 50,000 rows of 384-d vectors,
//! the same workload as `am-backend-sqlite`'s `store` bench
//! (`am_conformance::workload`) so `cargo xtask bench` prints the two side by side: a subject read, a scope+owner "latest
//! 50" read, a warm vector query (limit 10), opening a 50k-row store, and `add`
//! in batches of 500 (vectors precomputed, so embedding time is excluded; run
//! after the reads, since every batch grows the table), and the same `add` on a
//! copy of the 50k-row store whose store carries a trivial commit guard
//! (`add_batch_of_500_trivial_guard`, issue 18's <= 2 % beside `add_batch_of_500`).
//!
//! The criterion ids are the SQLite bench's under the group `lance_store`
//! (`lance_store/subject_read`, ...). No JSON->BLOB upgrade: LanceDB stores
//! vectors as Arrow fixed-size lists from the start.
//!
//! Run: `cargo bench -p am-backend-lance --bench store` (add `-- --quick` for a
//! short run). A release build of lancedb costs about 77 CPU-minutes the first
//! time. Issue 9 sets no targets of its own: the SQLite targets (issue 3) are the
//! reference (add >= 100,000 rows/s; reads <= 50 us; vector query <= 10 ms warm;
//! open <= 50 ms).

#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_triples::{TextEmbedder, TripleStore};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::path::Path;
use std::sync::Arc;

use am_conformance::workload::{
    BATCH, EXTRA_BATCHES, Precomputed, ROWS, embedder_for, fill, latest_query, next_batch,
    subject_query, vector_query,
};

fn open(uri: &str, embedder: Option<Arc<Precomputed>>) -> LanceDBTripleStore {
    LanceDBTripleStore::open(
        uri,
        embedder.map(|e| e as Arc<dyn TextEmbedder>),
        LanceStoreOptions::default(),
    )
    .expect("open")
}

/// Fill a fresh store with `ROWS` rows in batches of `BATCH`; the rate (rows/s).
fn build_store(uri: &str, embedder: Arc<Precomputed>) -> f64 {
    let store = open(uri, Some(embedder));
    let start = std::time::Instant::now();
    fill(&store);
    #[allow(clippy::cast_precision_loss, reason = "bench figure")]
    let rate = ROWS as f64 / start.elapsed().as_secs_f64();
    store.close().expect("close");
    rate
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let uri = dir.path().join("kg").to_string_lossy().into_owned();
    let embedder = embedder_for(0..ROWS + EXTRA_BATCHES * BATCH);
    let rate = build_store(&uri, embedder.clone());
    println!("lance_store/add_50k_in_batches_of_500: {rate:.0} rows/s (one pass)");
    // The guarded add's store: the same 50k rows, before any benched add.
    let guarded_uri = dir.path().join("kg-guarded").to_string_lossy().into_owned();
    copy_dir(Path::new(&uri), Path::new(&guarded_uri));

    let store = open(&uri, Some(embedder.clone()));
    let mut g = c.benchmark_group("lance_store");
    g.sample_size(20);

    g.throughput(Throughput::Elements(1));

    let subject = subject_query();
    assert_eq!(store.query(&subject).expect("query").len(), 10);
    g.bench_function("subject_read", |b| {
        b.iter(|| store.query(&subject).expect("query"))
    });

    let latest = latest_query();
    assert_eq!(store.query(&latest).expect("query").len(), 50);
    g.bench_function("scope_owner_latest_50", |b| {
        b.iter(|| store.query(&latest).expect("query"))
    });

    let vq = vector_query();
    assert_eq!(store.query(&vq).expect("warm").len(), 10);
    g.bench_function("vector_query_limit_10_warm", |b| {
        b.iter(|| store.query(&vq).expect("query"))
    });

    g.sample_size(10);
    g.bench_function("open_50k_home", |b| {
        b.iter(|| open(&uri, None));
    });
    // Last of the benches on this store: every batch grows it, and the reads
    // above are timed at 50,000 rows as the SQLite bench's are.
    g.sample_size(20);
    let mut next = ROWS;
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("add_batch_of_500", |b| {
        b.iter_batched(
            || next_batch(&mut next),
            |rows| store.add(&rows).expect("add"),
            BatchSize::PerIteration,
        );
    });
    store.close().expect("close");
    // Side by side (issue 18: a trivial commit guard costs at most 2 % of
    // `add`): the same batches on a copy of the 50k-row store taken before any
    // benched add, whose store carries a guard that always passes.
    let guarded = open(&guarded_uri, Some(embedder));
    guarded
        .install_commit_guard(&am_triples::CommitGuard::new(|_| Ok(())))
        .expect("install the guard");
    let mut next = ROWS;
    g.bench_function("add_batch_of_500_trivial_guard", |b| {
        b.iter_batched(
            || next_batch(&mut next),
            |rows| guarded.add(&rows).expect("add"),
            BatchSize::PerIteration,
        );
    });
    g.finish();
    guarded.close().expect("close");
}

/// Copy the directory `from` (a closed LanceDB store) to `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("list the store") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

criterion_group!(store_benches, benches);
criterion_main!(store_benches);
