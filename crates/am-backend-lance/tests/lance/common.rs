//! Shared helpers of the LanceDB graph tests: a mind in a temporary directory
//! (a `LanceDBTripleStore` with a deterministic embedder and a `SQLiteJournal`
//! in another file), a fixed record-time clock, revisions, and a dump of every
//! table and of the journal.

#![allow(dead_code, reason = "helpers kept for the graph tests to come")]

use am_backend_lance::graph::{CommitHook, LanceGraphBackend};
use am_backend_lance::{LanceDBTripleStore, LanceStoreOptions};
use am_backend_sqlite::SqliteHome;
use am_backend_sqlite::journal::SQLiteJournal;
use am_conformance::HashEmbedder;
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_graph::{
    AssertOp, CloseKind, CloseOp, Provenance, Revision, RevisionDraft, RevisionOp, SourceRef,
};
use am_journal::{ClosureFilter, MemoryJournal};
use am_triples::TextEmbedder;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The record time every test graph stamps.
pub(crate) const RECORDED: &str = "2026-02-01T10:00:00.000000+00:00";

/// One mind's handles.
pub(crate) struct Mind {
    pub store: Arc<LanceDBTripleStore>,
    pub journal: Arc<SQLiteJournal>,
    pub graph: MemoryGraph,
    /// Another connector of the same mind (the tables' dump).
    pub probe: LanceGraphBackend,
}

/// Open the mind under `dir` (created on first use), with `hook` as the
/// graph's commit failpoint.
pub(crate) fn open_mind(dir: &Path, hook: Option<CommitHook>) -> Mind {
    open_mind_with(dir, hook, Arc::new(HashEmbedder::new(8, "hash-8")))
}

/// As [`open_mind`] with another embedder.
pub(crate) fn open_mind_with(
    dir: &Path,
    hook: Option<CommitHook>,
    embedder: Arc<dyn TextEmbedder>,
) -> Mind {
    let uri = dir.join("mind");
    let store = Arc::new(
        LanceDBTripleStore::open(
            &uri.to_string_lossy(),
            Some(embedder),
            LanceStoreOptions::default(),
        )
        .expect("open the store"),
    );
    let home = SqliteHome::open(dir.join("journal.sqlite3")).expect("open the journal file");
    let journal = Arc::new(SQLiteJournal::open(&home).expect("open the journal"));
    let gj = GraphJournal::new(Arc::clone(&journal));
    let mut backend = LanceGraphBackend::open(Arc::clone(&store), Some(&gj)).expect("connector");
    if let Some(h) = hook {
        backend = backend.with_commit_hook(h);
    }
    let graph = MemoryGraph::with_backend(Box::new(backend), Some(gj)).with_clock(
        am_triples::fixed_clock(am_triples::Timestamp::parse(RECORDED).unwrap()),
    );
    let probe = LanceGraphBackend::open(Arc::clone(&store), None).expect("probe connector");
    Mind {
        store,
        journal,
        graph,
        probe,
    }
}

pub(crate) fn step(run: &str, seq: i64) -> SourceRef {
    SourceRef::step(run, seq).expect("a valid step ref")
}

pub(crate) fn prov(sources: Vec<SourceRef>, parents: &[&str]) -> Provenance {
    Provenance::new(
        sources,
        parents.iter().map(|s| (*s).to_owned()).collect(),
        "abstractnote",
    )
    .expect("a valid provenance")
}

pub(crate) fn claim(id: &str, s: &str, p: &str, o: &str) -> RevisionOp {
    let mut a = AssertOp::claim(s, p, o);
    a.assertion.assertion_id = Some(id.to_owned());
    RevisionOp::Assert(a)
}

pub(crate) fn derived(id: &str, o: &str, parents: &[&str]) -> RevisionOp {
    let mut a = AssertOp::claim("ex:dana", "ex:note", o);
    a.assertion.assertion_id = Some(id.to_owned());
    RevisionOp::Assert(a.with_provenance(prov(vec![], parents)))
}

pub(crate) fn close(id: &str, until: &str) -> RevisionOp {
    RevisionOp::Close(CloseOp::new(id, until, CloseKind::Retract, "wrong"))
}

pub(crate) fn rev_as(id: &str, cause: &str, ops: Vec<RevisionOp>, p: Provenance) -> Revision {
    Revision::new(RevisionDraft {
        revision_id: id.into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: cause.into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops,
        provenance: p,
        recorded_at: None,
        summary: None,
    })
    .expect("a valid revision")
}

pub(crate) fn rev(id: &str, ops: Vec<RevisionOp>, p: Provenance) -> Revision {
    rev_as(id, "ingest", ops, p)
}

/// The first revision: two memories from a step, one derived from them.
pub(crate) fn r1() -> Revision {
    rev(
        "r1",
        vec![
            claim("c1", "ex:dana", "schema:worksFor", "ex:acme"),
            claim("c2", "ex:dana", "schema:knows", "ex:bob"),
            derived("d1", "dana works with bob", &["c1", "c2"]),
        ],
        prov(vec![step("run-42", 3)], &[]),
    )
}

/// The second revision: every kind of projection at once (a new row, a close
/// of an older row, history, provenance and lineage rows).
pub(crate) fn r2() -> Revision {
    rev(
        "r2",
        vec![
            claim("c3", "ex:dana", "schema:worksFor", "ex:globex"),
            derived("d2", "dana moved to globex", &["c3", "d1"]),
            close("c1", "2026-01-20T00:00:00Z"),
        ],
        prov(vec![step("run-43", 1)], &[]),
    )
}

/// The third revision: a re-observation of an open claim.
pub(crate) fn r3() -> Revision {
    rev(
        "r3",
        vec![claim("c9", "ex:dana", "schema:knows", "ex:bob")],
        prov(vec![step("run-44", 7)], &[]),
    )
}

/// Every table of the mind and the journal's closures and seq.
pub(crate) fn dump(m: &Mind) -> BTreeMap<String, Vec<String>> {
    let mut out = m.probe.dump_tables().expect("dump the tables");
    let closures = m
        .journal
        .closures(&ClosureFilter::default())
        .expect("read the closures")
        .iter()
        .map(|c| format!("{c:?}"))
        .collect();
    out.insert("journal closures".into(), closures);
    out.insert(
        "journal seq".into(),
        vec![m.journal.current_seq().expect("journal seq").to_string()],
    );
    out
}
