//! `drive_pressure`: how much stands. The standing drive sets of a ladder
//! counted in one read (open questions, problems and commitments,
//! incubating ideas, unexplored interests, unresolved dreams), each count
//! journal-folded, so a retracted question is not pressure, plus the groups
//! where the pressure concentrates (the one partition, largest first, at
//! most [`PRESSURE_GROUPS`]).
//!
//! Pressure is data for a lifecycle gate, never a verdict: the read applies
//! no threshold ([`crate::config::DRIVE_PRESSURE_BOUND`] is declared for
//! the gate) and renders no health judgement.

use super::args::{DriveScopes, required_ladder};
use super::grouping::{DriveGroup, partition_of};
use super::interests::InterestFold;
use super::view::DriveView;
use crate::error::Result;
use crate::observe::diary::{ideas_among, unresolved_among};
use crate::sleep::dreams::standing_dreams_among;
use am_journal::MemoryJournal;
use am_triples::{TripleAssertion, TripleStore};
use serde::{Deserialize, Serialize};

/// The most groups `drive_pressure` lists.
pub const PRESSURE_GROUPS: usize = 20;

/// What `drive_pressure` stands by.
const PRESSURE_NOTE: &str = "a standing pull, never a verdict: open drives are the design (never \
all resolved); the lifecycle gate decides which phase answers the pressure, the store only \
reports what stands; groups show where the pressure concentrates (their size is the signal), a \
view over the counts that adds no drive";

/// One group of [`DrivePressure::groups`]: a partition group and its family.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FamilyGroup {
    /// `question`, `problem` or `interest`.
    pub family: String,
    /// The group.
    #[serde(flatten)]
    pub group: DriveGroup,
}

/// `drive_pressure`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DrivePressure {
    /// Open questions (no believed entry answers or resolves them).
    pub open_questions: usize,
    /// Open problems.
    pub open_problems: usize,
    /// Open commitments (none fulfilled).
    pub open_commitments: usize,
    /// Incubating ideas.
    pub incubating_ideas: usize,
    /// Interests none explores.
    pub unexplored_interests: usize,
    /// Standing dreams (unresolved or continued).
    pub unresolved_tensions: usize,
    /// The sum of the six.
    pub total_open: usize,
    /// Where the pressure concentrates: the partition's groups, largest
    /// first (ties by family, then exemplar), at most [`PRESSURE_GROUPS`].
    pub groups: Vec<FamilyGroup>,
    /// What the counts are and are not.
    pub note: String,
}

/// The standing drive rows of pair `p` of a view, each labelled with its
/// family (`question`, `problem`, `commitment`, `idea`, `dream`), in that
/// order: the diary's discharge folds and the standing dreams, each folded
/// with the pair's own closure and hidden folds.
pub(crate) fn standing_of_pair(
    view: &DriveView,
    p: usize,
) -> Vec<(&'static str, Vec<TripleAssertion>)> {
    let rows = &view.rows[p];
    let excludes = |id: &str| view.excludes_in(p, id);
    let lifecycle = |record: &str| view.lifecycle[p].get(record).copied();
    let both = ["answers", "resolves"];
    vec![
        (
            "question",
            unresolved_among(rows, Some(&excludes), "question", &both, 0),
        ),
        (
            "problem",
            unresolved_among(rows, Some(&excludes), "problem", &both, 0),
        ),
        (
            "commitment",
            unresolved_among(rows, Some(&excludes), "commitment", &["fulfills"], 0),
        ),
        ("idea", ideas_among(rows, Some((&excludes, &lifecycle)), 0)),
        ("dream", standing_dreams_among(rows, Some(&excludes), 0)),
    ]
}

/// The standing drive sets of a ladder, counted (see the module doc). Pure
/// read.
///
/// # Errors
/// `InvalidInput` for a ladder with no pair; the store's or journal's
/// failure.
pub fn drive_pressure(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &DriveScopes,
) -> Result<DrivePressure> {
    let pairs = required_ladder("drive_pressure", &args.scopes)?;
    Ok(pressure_of(&DriveView::whole(store, journal, &pairs)?))
}

/// [`drive_pressure`] over a view.
pub(crate) fn pressure_of(view: &DriveView) -> DrivePressure {
    let (mut q, mut p, mut c, mut i, mut d) = (0, 0, 0, 0, 0);
    for pair in 0..view.pairs.len() {
        for (family, rows) in standing_of_pair(view, pair) {
            let n = rows.len();
            match family {
                "question" => q += n,
                "problem" => p += n,
                "commitment" => c += n,
                "idea" => i += n,
                _ => d += n,
            }
        }
    }
    let interests = InterestFold::of(view);
    let unexplored = interests.unexplored().len();
    let partition = partition_of(view, &interests);
    let mut groups: Vec<FamilyGroup> = partition
        .families()
        .into_iter()
        .flat_map(|(family, gs)| {
            gs.iter().map(move |g| FamilyGroup {
                family: family.to_owned(),
                group: g.clone(),
            })
        })
        .collect();
    groups.sort_by(|a, b| {
        b.group
            .size
            .cmp(&a.group.size)
            .then_with(|| a.family.cmp(&b.family))
            .then_with(|| a.group.exemplar.cmp(&b.group.exemplar))
    });
    groups.truncate(PRESSURE_GROUPS);
    DrivePressure {
        open_questions: q,
        open_problems: p,
        open_commitments: c,
        incubating_ideas: i,
        unexplored_interests: unexplored,
        unresolved_tensions: d,
        total_open: q + p + c + i + unexplored + d,
        groups,
        note: PRESSURE_NOTE.to_owned(),
    }
}

impl crate::MemorySystem {
    /// [`drive_pressure`] over this system's store and journal, read through
    /// the drive index (the same answer).
    ///
    /// # Errors
    /// As [`drive_pressure`].
    pub fn drive_pressure(&self, args: &DriveScopes) -> Result<DrivePressure> {
        let pairs = required_ladder("drive_pressure", &args.scopes)?;
        self.with_drive_view(&pairs, |view, _| Ok(pressure_of(view)))
    }

    /// [`open_drive_partition`](super::open_drive_partition) over this
    /// system's store and journal, read through the drive index (the same
    /// answer).
    ///
    /// # Errors
    /// The store's or journal's failure.
    pub fn open_drive_partition(&self, args: &DriveScopes) -> Result<super::DrivePartition> {
        let pairs = super::args::ladder(&args.scopes);
        if pairs.is_empty() {
            return Ok(super::DrivePartition::default());
        }
        self.with_drive_view(&pairs, |view, _| {
            Ok(partition_of(view, &InterestFold::of(view)))
        })
    }

    /// [`cognition_health`](super::cognition_health) over this system's
    /// store and journal, read through the drive index (the same answer).
    ///
    /// # Errors
    /// As [`cognition_health`](super::cognition_health).
    pub fn cognition_health(&self, args: &DriveScopes) -> Result<super::CognitionHealth> {
        let pairs = required_ladder("cognition_health", &args.scopes)?;
        self.with_drive_view(&pairs, |view, _| Ok(super::health::health_of(view)))
    }
}
