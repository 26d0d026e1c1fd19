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
use crate::error::Result;
use crate::observe::diary::{
    DiaryRead, open_commitments, open_ideas, open_problems, open_questions,
};
use crate::sleep::{UnresolvedDreams, unresolved_dreams};
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

/// The standing drive rows of one pair, each labelled with its family
/// (`question`, `problem`, `commitment`, `idea`, `dream`), in that order.
pub(crate) fn standing_of_pair(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    scope: &str,
    owner: &str,
) -> Result<Vec<(&'static str, Vec<TripleAssertion>)>> {
    let read = DiaryRead {
        limit: 0,
        ..DiaryRead::new(scope, owner)
    };
    let dreams = UnresolvedDreams {
        limit: 0,
        ..UnresolvedDreams::new(scope, owner)
    };
    Ok(vec![
        ("question", open_questions(store, Some(journal), &read)?),
        ("problem", open_problems(store, Some(journal), &read)?),
        ("commitment", open_commitments(store, Some(journal), &read)?),
        ("idea", open_ideas(store, Some(journal), &read)?),
        ("dream", unresolved_dreams(store, Some(journal), &dreams)?),
    ])
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
    let (mut q, mut p, mut c, mut i, mut d) = (0, 0, 0, 0, 0);
    for (scope, owner) in &pairs {
        for (family, rows) in standing_of_pair(store, journal, scope, owner)? {
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
    let interests = InterestFold::read(store, journal, &pairs)?;
    let unexplored = interests.unexplored().len();
    let partition = partition_of(store, journal, &pairs, Some(&interests))?;
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
    Ok(DrivePressure {
        open_questions: q,
        open_problems: p,
        open_commitments: c,
        incubating_ideas: i,
        unexplored_interests: unexplored,
        unresolved_tensions: d,
        total_open: q + p + c + i + unexplored + d,
        groups,
        note: PRESSURE_NOTE.to_owned(),
    })
}
