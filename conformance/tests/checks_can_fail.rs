//! The checks can fail: each flawed store below breaks one contract sentence, and
//! the check named after that sentence must reject it while the honest in-memory
//! store passes. (A check that cannot fail would pin nothing.)

use am_conformance::{StoreFactory, stores, vectors};
use am_triples::{
    Capabilities, EmbeddingPin, InMemoryTripleStore, Order, TextEmbedder, TripleAssertion,
    TripleQuery, TripleStore,
};
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flaw {
    None,
    /// `limit <= 0` returns nothing instead of everything.
    ZeroLimitIsEmpty,
    /// Equal `observed_at` rows come back in reverse insertion order.
    TiesReversed,
    /// A batch with a bad row keeps the good rows written before it.
    PartialBatch,
    /// The owner filter is ignored.
    IgnoresOwner,
    /// `min_score` is ignored.
    IgnoresMinScore,
    /// `narrow_assertion` also widens.
    NarrowWidens,
    /// A digest rewrite ignores the row it expected (no compare-and-set).
    RewriteIgnoresExpected,
}

struct Flawed {
    inner: InMemoryTripleStore,
    flaw: Flaw,
}

impl TripleStore for Flawed {
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn add(&self, assertions: &[TripleAssertion]) -> am_triples::Result<Vec<String>> {
        if self.flaw == Flaw::PartialBatch {
            let mut ids = Vec::new();
            for a in assertions {
                ids.extend(self.inner.add(std::slice::from_ref(a))?);
            }
            return Ok(ids);
        }
        self.inner.add(assertions)
    }

    fn query(&self, q: &TripleQuery) -> am_triples::Result<Vec<TripleAssertion>> {
        let mut q = q.clone();
        match self.flaw {
            Flaw::ZeroLimitIsEmpty if q.limit <= 0 => return Ok(Vec::new()),
            Flaw::IgnoresOwner => q.owner_id = None,
            Flaw::IgnoresMinScore => q.min_score = None,
            Flaw::TiesReversed if !q.is_semantic() => {
                let mut rows = self.inner.query(&TripleQuery {
                    limit: 0,
                    ..q.clone()
                })?;
                // Reverse each run of equal observed_at.
                let mut out = Vec::new();
                while !rows.is_empty() {
                    let t = rows[0].observed_at.clone();
                    let n = rows.iter().take_while(|r| r.observed_at == t).count();
                    out.extend(rows.drain(..n).rev());
                }
                if let Some(n) = q.effective_limit() {
                    out.truncate(n);
                }
                return Ok(out);
            }
            _ => {}
        }
        self.inner.query(&q)
    }

    fn close(&self) -> am_triples::Result<()> {
        self.inner.close()
    }

    fn close_assertion(&self, id: &str, valid_until: &str) -> am_triples::Result<bool> {
        self.inner.close_assertion(id, valid_until)
    }

    fn narrow_assertion(&self, id: &str, valid_until: &str) -> am_triples::Result<bool> {
        if self.flaw == Flaw::NarrowWidens {
            let rows = self.inner.query(&TripleQuery {
                assertion_ids: Some(vec![id.trim().to_owned()]),
                limit: 0,
                order: Order::Asc,
                ..TripleQuery::default()
            })?;
            if let Some(r) = rows.first()
                && r.valid_until.is_some()
            {
                // Re-add is not possible (append-only); emulate a widening write by
                // reporting success for any later end.
                let end = am_triples::timestamp::normalize_timestamp(valid_until)?;
                if Some(end.as_str()) > r.valid_until.as_deref() {
                    return Ok(true);
                }
            }
        }
        self.inner.narrow_assertion(id, valid_until)
    }

    fn assertions_after(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
    ) -> am_triples::Result<am_triples::FeedPage> {
        self.inner.assertions_after(cursor, scope, owner_id, limit)
    }

    fn stored_vector(&self, id: &str) -> am_triples::Result<Option<Vec<f32>>> {
        self.inner.stored_vector(id)
    }

    fn prepare_digest_rewrite(
        &self,
        rewrite: &am_triples::DigestRewrite,
    ) -> am_triples::Result<am_triples::PreparedRewrite> {
        self.inner.prepare_digest_rewrite(rewrite)
    }
    fn apply_digest_rewrite(
        &self,
        prepared: &am_triples::PreparedRewrite,
        point: am_triples::CommitPoint,
    ) -> am_triples::Result<()> {
        if self.flaw != Flaw::RewriteIgnoresExpected {
            return self.inner.apply_digest_rewrite(prepared, point);
        }
        let current = self.inner.query(&TripleQuery {
            assertion_ids: Some(vec![prepared.rewrite.assertion_id.clone()]),
            limit: 1,
            ..TripleQuery::default()
        })?;
        let mut blind = prepared.clone();
        if let Some(row) = current.first() {
            blind.rewrite.expected_object.clone_from(&row.object);
            blind
                .rewrite
                .expected_attributes
                .clone_from(&row.attributes);
        }
        self.inner.apply_digest_rewrite(&blind, point)
    }
    fn embedding_pin(&self) -> am_triples::Result<Option<EmbeddingPin>> {
        self.inner.embedding_pin()
    }
}

struct Factory(Flaw);

impl StoreFactory for Factory {
    fn open(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        Ok(Box::new(Flawed {
            inner: InMemoryTripleStore::new(embedder),
            flaw: self.0,
        }))
    }

    fn open_with_pin(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: EmbeddingPin,
    ) -> am_triples::Result<Box<dyn TripleStore>> {
        Ok(Box::new(Flawed {
            inner: InMemoryTripleStore::with_pin(embedder, pin)?,
            flaw: self.0,
        }))
    }
}

type CheckFn = fn(&dyn StoreFactory) -> Result<(), String>;

fn rejects(flaw: Flaw, check: CheckFn, name: &str) {
    assert_eq!(
        check(&Factory(Flaw::None)),
        Ok(()),
        "{name} must pass the honest store"
    );
    let err = check(&Factory(flaw)).expect_err(name);
    assert!(!err.is_empty(), "{name}: an empty message names nothing");
}

#[test]
fn limit_check_rejects_a_store_that_treats_zero_as_empty() {
    rejects(
        Flaw::ZeroLimitIsEmpty,
        stores::limit_zero_is_unbounded,
        "limit_zero_is_unbounded",
    );
    rejects(
        Flaw::ZeroLimitIsEmpty,
        stores::negative_limit_is_unbounded,
        "negative_limit_is_unbounded",
    );
}

#[test]
fn tie_check_rejects_reversed_ties() {
    rejects(
        Flaw::TiesReversed,
        stores::ties_follow_insertion_order_in_query_direction,
        "ties_follow_insertion_order_in_query_direction",
    );
}

#[test]
fn refusal_check_rejects_a_partial_batch() {
    rejects(
        Flaw::PartialBatch,
        stores::refused_batch_writes_nothing,
        "refused_batch_writes_nothing",
    );
    rejects(
        Flaw::PartialBatch,
        vectors::mixed_dimension_batch_writes_zero_rows,
        "mixed_dimension_batch_writes_zero_rows",
    );
}

#[test]
fn owner_check_rejects_an_ignored_owner_filter() {
    rejects(
        Flaw::IgnoresOwner,
        stores::owner_none_means_any_owner,
        "owner_none_means_any_owner",
    );
}

#[test]
fn min_score_check_rejects_an_ignored_threshold() {
    rejects(
        Flaw::IgnoresMinScore,
        vectors::min_score_keeps_scores_at_or_above_it,
        "min_score_keeps_scores_at_or_above_it",
    );
}

#[test]
fn narrow_check_rejects_a_widening_narrow() {
    rejects(
        Flaw::NarrowWidens,
        stores::narrow_assertion_never_widens_comparing_instants,
        "narrow_assertion_never_widens_comparing_instants",
    );
}

#[test]
fn rewrite_check_rejects_a_rewrite_without_its_compare_and_set() {
    rejects(
        Flaw::RewriteIgnoresExpected,
        am_conformance::rewrites::digest_rewrite_refuses_a_row_that_moved,
        "digest_rewrite_refuses_a_row_that_moved",
    );
}
