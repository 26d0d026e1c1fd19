//! The memory graph's speed on a SQLite home of 50,000 assertions written
//! through the graph (6,250 revisions of 8 asserts; 16 revisions, 128 memories,
//! per run; 200 derived memories): `history`, `sources_of` (direct, and
//! transitive over a derived memory), `derived_from_source` by step and by run
//! (128 memories), a change-feed page of 100 revisions, and `apply_revision` of
//! a 10-op revision.
//!
//! Targets (issue 8): each read at most one fifth of the spec's Python figures
//! (`history` 0.02 ms, `sources_of` 0.04 ms / 0.10 ms transitive,
//! `derived_from_source` 0.05 ms by step / 0.8 ms by run, a page of 100
//! revisions 4 ms), `apply_revision` of 10 ops ≤ 0.5 ms.
//!
//! `cargo bench -p am-backend-sqlite --bench graph`. The home is built once,
//! before measuring.

#![allow(
    missing_docs,
    reason = "criterion_group! generates undocumented functions"
)]

use am_backend_sqlite::graph::open_graph;
use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_graph::graph::MemoryGraph;
use am_graph::{AssertOp, Provenance, Revision, RevisionDraft, RevisionOp, SourceRef};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const REVISIONS: usize = 6_250;
const PER_REVISION: usize = 8;
const REVISIONS_PER_RUN: usize = 16;
const DERIVED: usize = 200;

fn revision(id: &str, ops: Vec<RevisionOp>, provenance: Provenance) -> Revision {
    Revision::new(RevisionDraft {
        revision_id: id.into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops,
        provenance,
        recorded_at: None,
        summary: None,
    })
    .unwrap()
}

fn assert_op(id: &str, subject: &str, object: &str, provenance: Option<Provenance>) -> RevisionOp {
    let mut a = AssertOp::claim(subject, "ex:says", object);
    a.assertion.assertion_id = Some(id.into());
    if let Some(p) = provenance {
        a = a.with_provenance(p);
    }
    RevisionOp::Assert(a)
}

fn build() -> (tempfile::TempDir, MemoryGraph) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        SQLiteTripleStore::open(
            dir.path().join("bench.sqlite3"),
            None,
            SqliteStoreOptions::default(),
        )
        .unwrap(),
    );
    let journal = Arc::new(SQLiteJournal::open(store.home()).unwrap());
    let graph = open_graph(store, Some(journal)).unwrap();
    for r in 0..REVISIONS {
        let run = format!("run-{}", r / REVISIONS_PER_RUN);
        let seq = i64::try_from(r % REVISIONS_PER_RUN + 1).unwrap();
        let p = Provenance::new(
            vec![
                SourceRef::step(&run, seq).unwrap(),
                SourceRef::artifact(&format!("note-{r}")).unwrap(),
            ],
            vec![],
            "bench",
        )
        .unwrap();
        let ops = (0..PER_REVISION)
            .map(|i| {
                assert_op(
                    &format!("m{r}-{i}"),
                    &format!("ex:s{}", r % 997),
                    &format!("ex:o{r}-{i}"),
                    None,
                )
            })
            .collect();
        graph
            .apply_revision(&revision(&format!("r{r}"), ops, p), false)
            .unwrap();
    }
    for d in 0..DERIVED {
        let parents = vec![
            format!("m{d}-0"),
            format!("m{}-1", d + 1),
            format!("m{}-2", d + 2),
        ];
        let own = Provenance::new(vec![], parents, "bench").unwrap();
        let p = Provenance::new(
            vec![SourceRef::step("run-derive", i64::try_from(d + 1).unwrap()).unwrap()],
            vec![],
            "bench",
        )
        .unwrap();
        graph
            .apply_revision(
                &revision(
                    &format!("d{d}"),
                    vec![assert_op(
                        &format!("d{d}"),
                        "ex:summary",
                        &format!("ex:d{d}"),
                        Some(own),
                    )],
                    p,
                ),
                false,
            )
            .unwrap();
    }
    (dir, graph)
}

fn bench_graph(c: &mut Criterion) {
    let (_dir, graph) = build();
    let mut g = c.benchmark_group("graph_50k");
    g.bench_function("history", |b| {
        b.iter(|| black_box(graph.history("m3000-3", 200).unwrap()));
    });
    g.bench_function("sources_of", |b| {
        b.iter(|| black_box(graph.sources_of("m3000-3", false, 200).unwrap()));
    });
    g.bench_function("sources_of_transitive_derived", |b| {
        b.iter(|| black_box(graph.sources_of("d100", true, 200).unwrap()));
    });
    let step = SourceRef::step("run-200", 5).unwrap();
    g.bench_function("derived_from_source_step", |b| {
        b.iter(|| black_box(graph.derived_from_source(&step, 200).unwrap()));
    });
    let run = SourceRef::run("run-200").unwrap();
    assert_eq!(graph.derived_from_source(&run, 200).unwrap().len(), 128);
    g.bench_function("derived_from_source_run_128", |b| {
        b.iter(|| black_box(graph.derived_from_source(&run, 200).unwrap()));
    });
    g.bench_function("revisions_page_100", |b| {
        b.iter(|| black_box(graph.revisions(Some("3000"), 100).unwrap()));
    });
    let n = AtomicUsize::new(0);
    let p = Provenance::new(
        vec![SourceRef::step("run-apply", 1).unwrap()],
        vec![],
        "bench",
    )
    .unwrap();
    g.bench_function("apply_revision_10_ops", |b| {
        b.iter_batched(
            || {
                let k = n.fetch_add(1, Ordering::Relaxed);
                let ops = (0..10)
                    .map(|i| {
                        assert_op(
                            &format!("a{k}-{i}"),
                            &format!("ex:s{}", k % 997),
                            &format!("ex:a{k}-{i}"),
                            None,
                        )
                    })
                    .collect();
                revision(&format!("apply-{k}"), ops, p.clone())
            },
            |r| black_box(graph.apply_revision(&r, false).unwrap()),
            criterion::BatchSize::SmallInput,
        );
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench_graph
}
criterion_main!(benches);
