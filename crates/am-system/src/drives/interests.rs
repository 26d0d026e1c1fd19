//! The one fold of "which interests are open drives" (`drive_pressure`
//! counts them, `alive_drives` ranks them, `open_drive_partition` groups
//! them, `cognition_health` divides them): standing `interest` digest rows
//! (closure and hidden folds applied, a `rejected` lifecycle parked) that no
//! believed record `explores`. Machine rows (a maintenance candidate, a
//! bookkeeping row) never discharge: exploring is the entity's act.

use super::index::is_machine;
use super::view::DriveView;
use crate::kinds::DIGEST_PREDICATE;
use crate::record::DigestRow;
use am_journal::Lifecycle;
use am_triples::TripleAssertion;
use std::collections::{BTreeMap, HashSet};

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
    /// The fold of a view's ladder at its head.
    pub(crate) fn of(view: &DriveView) -> Self {
        let mut out = InterestFold {
            interests: Vec::new(),
            explores: HashSet::new(),
            candidates_pending: BTreeMap::new(),
        };
        for a in view
            .rows
            .iter()
            .flatten()
            .filter(|a| a.predicate == DIGEST_PREDICATE)
        {
            let row = DigestRow::of(a);
            if !view.believed_anywhere(a) {
                continue;
            }
            let life = view
                .ladder_lifecycle(&a.subject)
                .unwrap_or(Lifecycle::InactiveCandidate);
            let machine = is_machine(row);
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
                out.interests.push(a.clone());
            }
        }
        out
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
