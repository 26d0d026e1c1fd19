//! The digest-rewrite checks of the `stores` group (capability
//! `digest_rewrite`): a record digest row's reading is replaced in place,
//! its identity kept, and a rewrite whose row moved since it was read, or of
//! a row that is not a record digest, is refused with nothing written.
//!
//! Spec: stores.md "Shared behavior" ("The one mutable cell is a formed
//! record's digest row").

use crate::harness::{CheckResult, StoreFactory, ensure_eq, expect_kind, ok};
use crate::rows::{all_rows, snapshot, unchanged};
use am_triples::{
    CommitPoint, DigestRewrite, ErrorKind, TextEmbedder, TripleAssertion, TripleStore,
    canonical_text,
};
use std::sync::Arc;

const T0: &str = "2026-01-01T00:00:00.000000+00:00";

fn digest_row() -> TripleAssertion {
    let mut a = TripleAssertion::new_literal("ex:lesson-1", "dcterms:abstract", "Pools exhaust.")
        .with_id("d1")
        .with_scope("session")
        .with_owner("s1");
    a.observed_at = T0.into();
    a.attributes.insert("record_kind".into(), "lesson".into());
    a.attributes.insert("title".into(), "Pools".into());
    a
}

fn stored(s: &dyn TripleStore) -> Result<TripleAssertion, String> {
    all_rows(s)?
        .into_iter()
        .find(|r| r.assertion_id.as_deref() == Some("d1"))
        .ok_or_else(|| "the digest row is gone".to_owned())
}

fn rewrite_of(current: &TripleAssertion, object: &str, title: &str) -> DigestRewrite {
    let mut attributes = current.attributes.clone();
    attributes.insert("title".into(), title.into());
    DigestRewrite {
        assertion_id: "d1".into(),
        expected_object: current.object.clone(),
        expected_attributes: current.attributes.clone(),
        object: object.into(),
        attributes,
    }
}

/// A rewrite replaces the digest row's object, attributes and vector in
/// place: the row keeps its id, terms, scope, owner and time, no row is
/// added, and the vector is the embedder's for the new canonical text.
pub fn digest_rewrite_replaces_the_reading_in_place(f: &dyn StoreFactory) -> CheckResult {
    let embedder: Arc<dyn TextEmbedder> =
        Arc::new(crate::embedder::HashEmbedder::new(8, "conformance-rewrite"));
    let s = ok(
        "open a store with an embedder",
        f.open(Some(embedder.clone())),
    )?;
    ok("add the digest row", s.add(&[digest_row()]))?;
    let before = stored(&*s)?;
    let rw = rewrite_of(&before, "Size pools from the peak.", "Pool sizing");
    let prepared = ok("prepare_digest_rewrite", s.prepare_digest_rewrite(&rw))?;
    ok(
        "apply_digest_rewrite",
        s.apply_digest_rewrite(&prepared, CommitPoint::UnderstandingDigest),
    )?;
    let after = stored(&*s)?;
    ensure_eq("rows", all_rows(&*s)?.len(), 1)?;
    ensure_eq("object", after.object.as_str(), "Size pools from the peak.")?;
    ensure_eq("attributes", &after.attributes, &rw.attributes)?;
    ensure_eq(
        "identity",
        (
            &after.subject,
            &after.predicate,
            &after.scope,
            &after.owner_id,
            &after.observed_at,
        ),
        (
            &before.subject,
            &before.predicate,
            &before.scope,
            &before.owner_id,
            &before.observed_at,
        ),
    )?;
    if s.capabilities().vector_search {
        let expected = ok("embed", embedder.embed_texts(&[canonical_text(&after)]))?;
        ensure_eq(
            "the new vector",
            ok("stored_vector", s.stored_vector("d1"))?,
            expected.into_iter().next(),
        )?;
    }
    Ok(())
}

/// A rewrite whose row changed since it was read is refused with `Conflict`,
/// nothing written (the compare-and-set on the row as read).
pub fn digest_rewrite_refuses_a_row_that_moved(f: &dyn StoreFactory) -> CheckResult {
    let s = ok("open a store", f.open(None))?;
    ok("add the digest row", s.add(&[digest_row()]))?;
    let read = stored(&*s)?;
    let late = ok(
        "prepare the late rewrite",
        s.prepare_digest_rewrite(&rewrite_of(&read, "Late words.", "Late")),
    )?;
    let first = ok(
        "prepare the first rewrite",
        s.prepare_digest_rewrite(&rewrite_of(&read, "First words.", "First")),
    )?;
    ok(
        "apply the first rewrite",
        s.apply_digest_rewrite(&first, CommitPoint::UnderstandingDigest),
    )?;
    let before = snapshot(&*s)?;
    expect_kind(
        "a rewrite of a row that moved",
        s.apply_digest_rewrite(&late, CommitPoint::UnderstandingDigest),
        ErrorKind::Conflict,
    )?;
    unchanged("a refused rewrite", &*s, &before)
}

/// Only a record's digest row is rewritten: a plain assertion is refused with
/// `InvalidInput` before anything is written.
pub fn digest_rewrite_refuses_a_row_that_is_not_a_record_digest(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = ok("open a store", f.open(None))?;
    let plain = TripleAssertion::new("alice", "knows", "bob").with_id("d1");
    ok("add a plain row", s.add(&[plain]))?;
    let before = snapshot(&*s)?;
    let current = stored(&*s)?;
    expect_kind(
        "a rewrite of a plain row",
        s.prepare_digest_rewrite(&rewrite_of(&current, "x", "y")),
        ErrorKind::InvalidInput,
    )?;
    unchanged("a refused rewrite", &*s, &before)
}
