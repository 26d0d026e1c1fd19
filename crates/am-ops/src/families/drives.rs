//! Drives (am-system `drives/`): `drive_pressure`, `alive_drives`,
//! `open_drive_partition`, `drive_groups`, `cognition_health`, all pure
//! reads.
//!
//! Spec: api.md "Drives: what is alive and pressing".

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Host;
use crate::verb::{Answer, Cadence, CallShape, Family, Verb};
use am_system::drives::{
    AliveDrive, AliveDrives, CognitionHealth, DriveGroup, DriveGroups, DrivePartition,
    DrivePressure, DriveScopes, drive_groups,
};

fn pressure(home: &mut dyn Home, _: &Host, a: DriveScopes) -> OpResult<Answer> {
    Answer::of(&home.system()?.drive_pressure(&a)?)
}

fn alive(home: &mut dyn Home, _: &Host, a: AliveDrives) -> OpResult<Answer> {
    Answer::of(&home.system()?.alive_drives(&a)?)
}

fn partition(home: &mut dyn Home, _: &Host, a: DriveScopes) -> OpResult<Answer> {
    Answer::of(&home.system()?.open_drive_partition(&a)?)
}

fn groups(_: &mut dyn Home, _: &Host, a: DriveGroups) -> OpResult<Answer> {
    Answer::of(&drive_groups(&a))
}

fn health(home: &mut dyn Home, _: &Host, a: DriveScopes) -> OpResult<Answer> {
    Answer::of(&home.system()?.cognition_health(&a)?)
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Drives;
    let sj = CallShape::StoreJournalFunction;
    vec![
        Verb::declare(
            "drive_pressure",
            f,
            "How much stands: open questions, problems, commitments, incubating ideas, unexplored interests and unresolved dreams counted across the ladder (journal-folded), and the groups where the pressure concentrates; a pull, never a verdict.",
        )
        .shape(sj)
        .answers::<DrivePressure>()
        .run(pressure),
        Verb::declare(
            "alive_drives",
            f,
            "The top-k alive drives, strongest first: aliveness from co-use trail activation and binding recency, groups folded into one item boosted by their size; dormant drives are absent. Deposits nothing.",
        )
        .answers::<Vec<AliveDrive>>()
        .run(alive),
        Verb::declare(
            "open_drive_partition",
            f,
            "The one partition over the open drive families (questions, problems, interests), each grouped by shared discriminative terms.",
        )
        .shape(sj)
        .answers::<DrivePartition>()
        .run(partition),
        Verb::declare(
            "drive_groups",
            f,
            "Cluster drive items by shared discriminative terms: pure, deterministic, order-independent; groups of two or more, largest first.",
        )
        .shape(CallShape::PureFunction)
        .answers::<Vec<DriveGroup>>()
        .run(groups),
        Verb::declare(
            "cognition_health",
            f,
            "The drive ratios: questions open against resolved, problems open against repaired, interests open against explored (None for an empty category), and the standing review offers apart.",
        )
.cadence(Cadence::GlanceRead, &["pure-read", "never-100%-by-design"])
        .shape(sj)
        .answers::<CognitionHealth>()
        .run(health),
    ]
}
