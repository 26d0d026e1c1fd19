//! `identity_review_pass`: the pending identity-amendment proposals
//! (`realization` records) and the bar each must hold before the entity may
//! adopt it. A pure read: the registrar never authors, promotes or rejects.
//!
//! Spec: api.md "Candidates, disposal, and deliberate acts". 0.3.2's
//! `identity_review.py` settles the one bar (evidence alive), the keys and
//! the order (by graph id).

use crate::candidates::args::{
    EvidenceCount, IdentityReview, IdentityReviewReport, PendingProposal, ReviewCounts,
};
use crate::error::Result;
use crate::pair_folds::PairFolds;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::Lifecycle;
use am_triples::{TripleAssertion, TripleQuery};
use std::collections::{BTreeMap, HashMap};

impl MemorySystem {
    /// The pending identity-amendment proposals of `scopes` and their bar
    /// states: formed, not closed or hidden, lifecycle not yet `promoted`,
    /// `rejected` or `superseded`. A proposal fails its bar when it has no
    /// `derived_from` evidence edge, or an evidence record no longer
    /// resolves or was closed. Writes nothing.
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub fn identity_review_pass(&self, args: &IdentityReview) -> Result<IdentityReviewReport> {
        let as_of = self.journal.current_seq()?;
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (s, o) in &args.scopes {
            let p = (s.trim().to_lowercase(), o.trim().to_owned());
            if !pairs.contains(&p) {
                pairs.push(p);
            }
        }
        let folds =
            PairFolds::load_pairs(self.store.as_ref(), self.journal.as_ref(), &pairs, as_of)?;
        let excluded = |id: &str| folds.closed.contains(id) || folds.hidden.contains(id);
        let mut lifecycle_of: HashMap<&str, Lifecycle> = HashMap::new();
        for b in &folds.bindings {
            lifecycle_of.insert(&b.record_id, b.lifecycle);
        }
        let mut proposals: BTreeMap<String, TripleAssertion> = BTreeMap::new();
        let mut edges_out: HashMap<String, Vec<TripleAssertion>> = HashMap::new();
        for (scope, owner) in &pairs {
            for a in self.store.query(&TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                limit: 0,
                ..TripleQuery::default()
            })? {
                let row = DigestRow::of(&a);
                if row.is_edge() {
                    edges_out.entry(a.subject.clone()).or_default().push(a);
                } else if row.as_stored("record_kind") == Some("realization") {
                    proposals.entry(a.subject.clone()).or_insert(a);
                }
            }
        }
        let mut pending = Vec::new();
        let (mut disposed, mut bars_failing) = (0, 0);
        for (rid, a) in &proposals {
            if a.assertion_id.as_deref().is_some_and(excluded) || excluded(rid) {
                disposed += 1;
                continue;
            }
            let lifecycle = lifecycle_of
                .get(rid.as_str())
                .copied()
                .unwrap_or(Lifecycle::InactiveCandidate);
            if matches!(
                lifecycle,
                Lifecycle::Promoted | Lifecycle::Rejected | Lifecycle::Superseded
            ) {
                disposed += 1;
                continue;
            }
            let evidence: Vec<&TripleAssertion> = edges_out
                .get(rid)
                .map(|v| v.iter().filter(|e| e.predicate == "derived_from").collect())
                .unwrap_or_default();
            let mut alive = 0;
            let mut failures = Vec::new();
            for edge in &evidence {
                let target = edge.object.as_str();
                match self.resolve_digest_assertion(target)? {
                    None => failures.push(format!(
                        "evidence record {target} does not resolve: the proposal cites a record \
                         this home does not hold"
                    )),
                    Some(t)
                        if t.assertion_id.as_deref().is_some_and(excluded)
                            || excluded(&t.subject)
                            || excluded(target) =>
                    {
                        failures.push(format!(
                            "evidence record {target} was closed after the proposal formed: \
                             check it again before adopting, the realization may stand on \
                             withdrawn ground"
                        ));
                    }
                    Some(_) => alive += 1,
                }
            }
            if evidence.is_empty() {
                failures.push(
                    "no derived_from evidence edges: a proposal without evidence cannot clear the \
                     adoption bar"
                        .to_owned(),
                );
            }
            if !failures.is_empty() {
                bars_failing += 1;
            }
            let row = DigestRow::of(a);
            pending.push(PendingProposal {
                record_id: rid.clone(),
                title: row.as_stored("title").unwrap_or("").to_owned(),
                formed_at: a.observed_at.clone(),
                session_id: row.nonempty("session_id").map(str::to_owned),
                phase: row.nonempty("phase").map(str::to_owned),
                evidence: EvidenceCount {
                    unit: "records".into(),
                    total: evidence.len(),
                    alive,
                },
                bar_failures: failures,
            });
        }
        Ok(IdentityReviewReport {
            pass_name: "identity_review_pass".into(),
            unit: "records".into(),
            counts: ReviewCounts {
                pending: pending.len(),
                bars_failing,
                disposed,
            },
            pending,
            provenance: "a pure read: adoption is the entity's waking act, so the review only \
                         reports; pending means formed, believed and not yet disposed; the \
                         verdicts are enact_realization and reject_candidate"
                .into(),
        })
    }
}
