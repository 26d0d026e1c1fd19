//! The one fold of "which interests are open drives" (`drive_pressure`
//! counts them, `alive_drives` ranks them, `open_drive_partition` groups
//! them, `cognition_health` divides them): standing `interest` digest rows
//! (closure and hidden folds applied, a `rejected` lifecycle parked) that no
//! believed record `explores`. Machine rows (a maintenance candidate, a
//! bookkeeping row) never discharge: exploring is the entity's act.

use crate::error::Result;
use crate::pair_folds::PairFolds;
use crate::record::DigestRow;
use am_journal::{Lifecycle, MemoryJournal};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The interest fold of a ladder at the journal's head.
pub(crate) struct InterestFold {
    /// Standing interests (believed, not parked), pair by pair in store
    /// order.
    pub interests: Vec<TripleAssertion>,
    /// What believed non-machine rows `explores` (trimmed ids).
    pub explores: HashSet<String>,
    /// Standing review offers by `proposed_kind` (`consolidation` when
    /// none): believed maintenance candidates awaiting review, neither
    /// promoted nor rejected. Outside every ratio.
    pub candidates_pending: BTreeMap<String, usize>,
}

impl InterestFold {
    /// Read the fold of `pairs` (normalized) at the journal's head.
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub(crate) fn read(
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pairs: &[(String, String)],
    ) -> Result<Self> {
        let as_of = journal.current_seq()?;
        let folds = PairFolds::load_pairs(store, journal, pairs, as_of)?;
        let mut lifecycle: HashMap<&str, Lifecycle> = HashMap::new();
        for b in &folds.bindings {
            lifecycle.insert(b.record_id.as_str(), b.lifecycle);
        }
        let mut out = InterestFold {
            interests: Vec::new(),
            explores: HashSet::new(),
            candidates_pending: BTreeMap::new(),
        };
        for (scope, owner) in pairs {
            for a in store.query(&TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                predicate: Some("dcterms:abstract".into()),
                limit: 0,
                ..TripleQuery::default()
            })? {
                let row = DigestRow::of(&a);
                let believed = !a
                    .assertion_id
                    .as_deref()
                    .is_some_and(|id| folds.excludes(id))
                    && !folds.excludes(&a.subject);
                if !believed {
                    continue;
                }
                let life = lifecycle
                    .get(a.subject.as_str())
                    .copied()
                    .unwrap_or(Lifecycle::InactiveCandidate);
                let machine = row.flag("maintenance_candidate") || row.flag("bookkeeping");
                if row.flag("maintenance_candidate")
                    && row.flag("review_required")
                    && !matches!(life, Lifecycle::Promoted | Lifecycle::Rejected)
                {
                    let label = row
                        .nonempty("proposed_kind")
                        .unwrap_or("consolidation")
                        .to_owned();
                    *out.candidates_pending.entry(label).or_default() += 1;
                }
                if let Some(r) = row.text("explores")
                    && !machine
                {
                    out.explores.insert(r.to_owned());
                }
                if row.as_stored("record_kind") == Some("interest") && life != Lifecycle::Rejected {
                    out.interests.push(a);
                }
            }
        }
        Ok(out)
    }

    /// Whether a believed record explores `a` (by graph id or assertion id).
    pub(crate) fn explored(&self, a: &TripleAssertion) -> bool {
        self.explores.contains(&a.subject)
            || a.assertion_id
                .as_deref()
                .is_some_and(|id| self.explores.contains(id))
    }

    /// The interests none explores: the open drives.
    pub(crate) fn unexplored(&self) -> Vec<&TripleAssertion> {
        self.interests
            .iter()
            .filter(|a| !self.explored(a))
            .collect()
    }
}
