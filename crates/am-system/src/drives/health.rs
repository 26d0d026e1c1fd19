//! `cognition_health`: the drive ratios in one compact read. Questions open
//! against resolved (a believed diary entry `answers` or `resolves` them,
//! either key for either type, by graph id or book id), problems open
//! against repaired (the same fold), interests open against explored (a
//! believed, non-machine record's `explores` names them), and the standing
//! review offers apart from every ratio. A ratio is `done / (open + done)`
//! rounded to four places, `None` for an empty category (no questions yet is
//! no ratio, not a perfect one). Folds apply: a retracted question is not
//! open, a hidden interest is no drive. Never a verdict.

use super::args::{DriveScopes, required_ladder};
use super::interests::InterestFold;
use super::view::DriveView;
use crate::error::Result;
use crate::kinds::DIGEST_PREDICATE;
use crate::record::DigestRow;
use am_journal::MemoryJournal;
use am_triples::{TripleAssertion, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// Where `cognition_health`'s numbers come from.
const HEALTH_PROVENANCE: &str = "questions and problems by the answers/resolves convention; \
interests by attributes.explores (exploring moves the ratio and never closes the interest); \
candidates are the standing review offers, outside every ratio; closure and hidden folds \
applied; never all done by design: the drive stays alive";

/// Open against resolved questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionRatio {
    /// Standing open.
    pub open: usize,
    /// Answered or resolved by a believed entry.
    pub resolved: usize,
    /// `resolved / (open + resolved)`, four places; `None` when both are 0.
    pub ratio: Option<f64>,
}

/// Open against repaired problems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProblemRatio {
    /// Standing open.
    pub open: usize,
    /// Resolved by a believed entry.
    pub repaired: usize,
    /// `repaired / (open + repaired)`; `None` when both are 0.
    pub ratio: Option<f64>,
}

/// Open against explored interests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InterestRatio {
    /// Standing interests none explores.
    pub open: usize,
    /// Standing interests a believed record explores.
    pub explored: usize,
    /// `explored / (open + explored)`; `None` when both are 0.
    pub ratio: Option<f64>,
}

/// The standing review offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PendingCandidates {
    /// How many.
    pub pending: usize,
    /// How many per `proposed_kind` (`consolidation` when none), by name.
    pub by_proposed_kind: BTreeMap<String, usize>,
}

/// `cognition_health`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CognitionHealth {
    /// The questions' bar.
    pub questions: QuestionRatio,
    /// The problems' bar.
    pub problems: ProblemRatio,
    /// The interests' bar.
    pub interests: InterestRatio,
    /// The review offers awaiting a word.
    pub candidates: PendingCandidates,
    /// Where the numbers come from.
    pub provenance: String,
}

/// `x` rounded to four decimal places, half to even on its exact value.
pub(crate) fn round4(x: f64) -> f64 {
    format!("{x:.4}").parse().unwrap_or(x)
}

fn ratio(done: usize, open: usize) -> Option<f64> {
    let total = done + open;
    (total > 0).then(|| round4(done as f64 / total as f64))
}

/// `(open, done)` of the questions and of the problems of pair `p`.
fn diary_counts(view: &DriveView, p: usize) -> [(usize, usize); 2] {
    let rows: Vec<&TripleAssertion> = view.rows[p]
        .iter()
        .filter(|a| DigestRow::of(a).as_stored("record_kind") == Some("diary"))
        .filter(|a| view.believed_in(p, a))
        .collect();
    let resolved: HashSet<&str> = rows
        .iter()
        .flat_map(|a| ["answers", "resolves"].map(|k| DigestRow::of(a).text(k)))
        .flatten()
        .collect();
    let mut out = [(0, 0); 2];
    for a in &rows {
        let row = DigestRow::of(a);
        let slot = match row.as_stored("diary_type") {
            Some("question") => 0,
            Some("problem") => 1,
            _ => continue,
        };
        let entry = match row.get("entry_id") {
            Some(Value::String(s)) => s.trim().to_owned(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let done = resolved.contains(a.subject.as_str())
            || (!entry.is_empty() && resolved.contains(entry.as_str()));
        if done {
            out[slot].1 += 1;
        } else {
            out[slot].0 += 1;
        }
    }
    out
}

/// The drive ratios of a ladder (see the module doc). Pure read.
///
/// # Errors
/// `InvalidInput` for a ladder with no pair; the store's or journal's
/// failure.
pub fn cognition_health(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &DriveScopes,
) -> Result<CognitionHealth> {
    let pairs = required_ladder("cognition_health", &args.scopes)?;
    Ok(health_of(&DriveView::whole(store, journal, &pairs)?))
}

/// The attribute keys a review offer's fold reads of a row
/// ([`InterestFold`]'s, all of them): a narrow read feeding
/// [`pending_candidates`] keeps at least these (the mind-mass report's test
/// holds its read to them).
#[cfg(test)]
pub(crate) const CANDIDATE_KEYS: am_triples::Narrow<'static> = am_triples::Narrow {
    attributes: &[
        "maintenance_candidate",
        "review_required",
        "proposed_kind",
        "bookkeeping",
        "explores",
        "record_kind",
    ],
    provenance: &[],
};

/// Whether [`pending_candidates`] reads a row: a maintenance candidate's
/// digest row (the only rows a standing review offer is counted from).
pub(crate) fn candidate_row(predicate: &str, row: DigestRow<'_>) -> bool {
    predicate == DIGEST_PREDICATE && row.flag("maintenance_candidate")
}

/// [`cognition_health`]'s `candidates` over the ladder's maintenance
/// candidates' digest rows alone (`pairs` normalized as the ladder
/// normalizes them; `rows`, one list per pair in store order, each
/// holding at least [`CANDIDATE_KEYS`]; the rows [`candidate_row`] keeps):
/// the same fold, without reading the ladder's other rows or bindings.
///
/// # Errors
/// The store's or journal's failure.
pub(crate) fn pending_candidates(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    pairs: &[(String, String)],
    rows: Vec<Vec<TripleAssertion>>,
) -> Result<PendingCandidates> {
    if rows.iter().all(Vec::is_empty) {
        return Ok(PendingCandidates {
            pending: 0,
            by_proposed_kind: BTreeMap::new(),
        });
    }
    let view = DriveView::of_rows(store, journal, pairs, rows)?;
    let fold = InterestFold::of(&view);
    Ok(PendingCandidates {
        pending: fold.candidates_pending.values().sum(),
        by_proposed_kind: fold.candidates_pending,
    })
}

/// [`cognition_health`] over a view.
pub(crate) fn health_of(view: &DriveView) -> CognitionHealth {
    let (mut qo, mut qr, mut po, mut pr) = (0, 0, 0, 0);
    for p in 0..view.pairs.len() {
        let [(a, b), (c, d)] = diary_counts(view, p);
        qo += a;
        qr += b;
        po += c;
        pr += d;
    }
    let fold = InterestFold::of(view);
    let explored = fold.interests.iter().filter(|a| fold.explored(a)).count();
    let open = fold.interests.len() - explored;
    CognitionHealth {
        questions: QuestionRatio {
            open: qo,
            resolved: qr,
            ratio: ratio(qr, qo),
        },
        problems: ProblemRatio {
            open: po,
            repaired: pr,
            ratio: ratio(pr, po),
        },
        interests: InterestRatio {
            open,
            explored,
            ratio: ratio(explored, open),
        },
        candidates: PendingCandidates {
            pending: fold.candidates_pending.values().sum(),
            by_proposed_kind: fold.candidates_pending,
        },
        provenance: HEALTH_PROVENANCE.to_owned(),
    }
}
