//! A refusing commit guard: every write verb is refused at its commit point
//! with the host's own error, and the table is unchanged (rows, feed head).

use crate::{Test, database};
use am_backend_postgres::testing::TempServer;
use am_backend_postgres::{PostgresStoreOptions, PostgresTripleStore};
use am_conformance::RecordingGuard;
use am_conformance::guard::assert_refused_at;
use am_triples::{CommitPoint, DigestRewrite, TripleAssertion, TripleQuery, TripleStore};

pub(crate) const TESTS: &[Test] = &[(
    "refusals::a_refused_commit_writes_nothing_at_each_write_verb",
    a_refused_commit_writes_nothing_at_each_write_verb,
)];

fn state(s: &dyn TripleStore) -> (Vec<TripleAssertion>, i64) {
    let rows = s
        .query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    let head = s
        .assertions_after(0, None, None, 10_000)
        .unwrap()
        .next_cursor;
    (rows, head)
}

fn a_refused_commit_writes_nothing_at_each_write_verb(server: &TempServer) {
    let db = database(server);
    let s = PostgresTripleStore::open(&db, None, PostgresStoreOptions::default()).unwrap();
    let host = RecordingGuard::new();
    s.install_commit_guard(&host.guard()).unwrap();
    let mut digest =
        TripleAssertion::new_literal("ex:l1", "dcterms:abstract", "Pools exhaust.").with_id("d1");
    digest
        .attributes
        .insert("record_kind".into(), "lesson".into());
    let mut closed = TripleAssertion::new("a", "b", "c").with_id("w1");
    closed.valid_until = Some("2026-01-02T00:00:00.000000+00:00".into());
    let open = TripleAssertion::new("a", "b", "d").with_id("w2");
    s.add(&[digest.clone(), closed, open]).unwrap();
    assert_eq!(host.take(), [CommitPoint::StoreAdd.as_str()]);
    let stored = s
        .query(&TripleQuery {
            assertion_ids: Some(vec!["d1".into()]),
            ..TripleQuery::default()
        })
        .unwrap()
        .remove(0);
    let mut attributes = stored.attributes.clone();
    attributes.insert("title".into(), "Pools".into());
    let prepared = s
        .prepare_digest_rewrite(&DigestRewrite {
            assertion_id: "d1".into(),
            expected_object: stored.object.clone(),
            expected_attributes: stored.attributes.clone(),
            object: "Size pools from the peak.".into(),
            attributes,
        })
        .unwrap();
    let before = state(&s);
    host.refuse(true);
    let err = s
        .add(&[TripleAssertion::new("new", "row", "x")])
        .unwrap_err();
    assert_refused_at(&err, CommitPoint::StoreAdd, "add");
    let err = s.close_assertion("w2", "2026-03-01T00:00:00Z").unwrap_err();
    assert_refused_at(&err, CommitPoint::StoreCloseAssertion, "close_assertion");
    let err = s
        .narrow_assertion("w1", "2026-01-01T12:00:00Z")
        .unwrap_err();
    assert_refused_at(&err, CommitPoint::StoreNarrowAssertion, "narrow_assertion");
    let err = s
        .apply_digest_rewrite(&prepared, CommitPoint::UnderstandingDigest)
        .unwrap_err();
    assert_refused_at(
        &err,
        CommitPoint::UnderstandingDigest,
        "apply_digest_rewrite",
    );
    assert_eq!(
        state(&s),
        before,
        "nothing written, the feed head unchanged"
    );
    // Allowed again, the same writes go through and the feed has no gap.
    host.refuse(false);
    s.add(&[TripleAssertion::new("new", "row", "x")]).unwrap();
    assert_eq!(state(&s).1, before.1 + 1);
}
