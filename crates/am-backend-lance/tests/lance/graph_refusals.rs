//! Every refusal of a revision on the LanceDB connector writes nothing: each
//! test compares every table of the mind (the log, history, provenance,
//! derivations and triple tables) and the journal before and after.
//!
//! Spec: api.md "`MemoryGraph`" (`apply_revision`: "any failure rolls all of it
//! back"; "Nothing is written on error"); the LanceDB connector's staged
//! transaction (a refusal drops the stage before the log row is written).

use crate::common::{
    Mind, claim, close, derived, open_mind, open_mind_with, prov, r1, rev, rev_as, step,
};
use am_graph::{NarrowOp, Revision, RevisionOp};
use am_triples::{ErrorKind, TextEmbedder, TripleAssertion};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Apply `r`, expect `kind`, and check nothing was written; returns the message.
fn refused(m: &Mind, r: &Revision, kind: ErrorKind) -> String {
    let before = crate::common::dump(m);
    let err = m
        .graph
        .apply_revision(r, false)
        .expect_err("the revision must be refused");
    assert_eq!(err.kind(), kind, "{err}");
    assert_eq!(
        crate::common::dump(m),
        before,
        "refusal of {} wrote something",
        r.revision_id()
    );
    err.to_string()
}

fn mind_with_r1() -> (tempfile::TempDir, Mind) {
    let dir = tempfile::tempdir().unwrap();
    let m = open_mind(dir.path(), None);
    m.graph.apply_revision(&r1(), false).unwrap();
    (dir, m)
}

#[test]
fn an_ungrounded_revision_is_provenance_required_and_writes_nothing() {
    let (_d, m) = mind_with_r1();
    let r = rev(
        "r0",
        vec![claim("x1", "ex:a", "ex:b", "ex:c")],
        prov(vec![], &[]),
    );
    refused(&m, &r, ErrorKind::ProvenanceRequired);
}

#[test]
fn a_derivation_cycle_is_provenance_required_and_writes_nothing() {
    let (_d, m) = mind_with_r1();
    // x1 derives from x2 which derives from x1: a chain to nothing.
    let r = rev(
        "cyc",
        vec![derived("x1", "one", &["x2"]), derived("x2", "two", &["x1"])],
        prov(vec![], &["x1"]),
    );
    refused(&m, &r, ErrorKind::ProvenanceRequired);
}

#[test]
fn a_changed_claim_under_a_held_id_is_invalid_input_and_writes_nothing() {
    let (_d, m) = mind_with_r1();
    let r = rev(
        "chg",
        vec![
            claim("n1", "ex:dana", "ex:likes", "ex:tea"),
            claim("c1", "ex:dana", "schema:worksFor", "ex:initech"),
        ],
        prov(vec![step("run-50", 1)], &[]),
    );
    refused(&m, &r, ErrorKind::InvalidInput);
}

#[test]
fn a_narrow_of_an_open_window_rolls_back_the_whole_revision() {
    let (_d, m) = mind_with_r1();
    let r = rev(
        "nar",
        vec![
            claim("n1", "ex:dana", "ex:likes", "ex:tea"),
            close("c2", "2026-01-10T00:00:00Z"),
            RevisionOp::Narrow(NarrowOp::new("c1", "2026-01-09T00:00:00Z")),
        ],
        prov(vec![step("run-50", 1)], &[]),
    );
    refused(&m, &r, ErrorKind::InvalidInput);
}

#[test]
fn a_close_before_valid_from_is_invalid_input_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_mind(dir.path(), None);
    let mut a = am_graph::AssertOp::claim("ex:dana", "ex:lives_in", "ex:paris");
    a.assertion.assertion_id = Some("w1".into());
    a.assertion.valid_from = Some("2026-01-10T00:00:00Z".into());
    m.graph
        .apply_revision(
            &rev(
                "w",
                vec![RevisionOp::Assert(a)],
                prov(vec![step("run-1", 1)], &[]),
            ),
            false,
        )
        .unwrap();
    let r = rev(
        "wc",
        vec![close("w1", "2026-01-01T00:00:00Z")],
        prov(vec![step("run-2", 1)], &[]),
    );
    refused(&m, &r, ErrorKind::InvalidInput);
}

#[test]
fn a_close_of_a_store_row_never_adopted_is_provenance_required() {
    let (_d, m) = mind_with_r1();
    use am_triples::TripleStore;
    let mut legacy = TripleAssertion::new("ex:old", "ex:was", "ex:here").with_scope("global");
    legacy.assertion_id = Some("legacy".into());
    m.store.add(&[legacy]).unwrap();
    let r = rev(
        "cl",
        vec![close("legacy", "2026-01-10T00:00:00Z")],
        prov(vec![step("run-3", 1)], &[]),
    );
    refused(&m, &r, ErrorKind::ProvenanceRequired);
}

#[test]
fn an_adoption_by_another_cause_is_invalid_input_and_writes_nothing() {
    let (_d, m) = mind_with_r1();
    use am_triples::TripleStore;
    let mut legacy = TripleAssertion::new("ex:old", "ex:was", "ex:here").with_scope("global");
    legacy.assertion_id = Some("legacy".into());
    legacy.owner_id = Some("person:ada".into());
    m.store.add(&[legacy]).unwrap();
    let stored = m
        .store
        .query(&am_triples::TripleQuery {
            assertion_ids: Some(vec!["legacy".into()]),
            ..am_triples::TripleQuery::default()
        })
        .unwrap()
        .remove(0);
    let r = rev_as(
        "adopt",
        "ingest",
        vec![RevisionOp::Assert(am_graph::AssertOp::from_assertion(
            stored,
        ))],
        prov(vec![step("run-3", 1)], &[]),
    );
    refused(&m, &r, ErrorKind::InvalidInput);
}

/// An embedder whose dimension is set from outside (it reports no identity, so
/// only the pin's dimension can refuse it).
struct Shifting(AtomicUsize);

impl TextEmbedder for Shifting {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        let d = self.0.load(Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.5_f32; d];
                v[t.len() % d] = 1.0;
                v
            })
            .collect())
    }
}

#[test]
fn a_revision_of_another_embedding_dimension_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let embedder = Arc::new(Shifting(AtomicUsize::new(8)));
    let m = open_mind_with(dir.path(), None, embedder.clone());
    m.graph.apply_revision(&r1(), false).unwrap();
    embedder.0.store(4, Ordering::SeqCst);
    let r = rev(
        "dim",
        vec![claim("z1", "ex:dana", "ex:likes", "ex:tea")],
        prov(vec![step("run-9", 1)], &[]),
    );
    refused(&m, &r, ErrorKind::DimensionMismatch);
}
