//! Drives: what is alive and pressing. Drives are the standing open
//! questions, problems, commitments, incubating ideas, unexplored interests
//! and unresolved dreams: the diary's discharge folds
//! ([`crate::observe::diary`]), the standing dreams
//! ([`crate::sleep::unresolved_dreams`]) and the interest fold
//! (`interests.rs`: standing interests none explores).
//!
//! Five pure reads, none deposits anything:
//! - [`drive_pressure`] (`pressure.rs`): how much stands, counted, and where
//!   it concentrates;
//! - [`MemorySystem::alive_drives`](crate::MemorySystem::alive_drives)
//!   (`alive.rs`): what is alive right now, from the co-use trails' stored
//!   activation and the binding axis's recency;
//! - [`drive_groups`] and [`open_drive_partition`] (`grouping.rs`): the pure
//!   clustering and the one partition every grouping consumer reads;
//! - [`cognition_health`] (`health.rs`): the drive ratios.
//!
//! Machine rows never become or discharge a drive. Every read folds closures
//! and the pair's hidden bindings at the journal's head, over a view of the
//! ladder (`view.rs`): the free functions read it whole; a `MemorySystem`'s
//! own reads ([`MemorySystem::alive_drives`](crate::MemorySystem::alive_drives),
//! [`MemorySystem::drive_pressure`](crate::MemorySystem::drive_pressure),
//! [`MemorySystem::open_drive_partition`](crate::MemorySystem::open_drive_partition),
//! [`MemorySystem::cognition_health`](crate::MemorySystem::cognition_health))
//! read it through the drive index (`index.rs`), kept fresh from the store's
//! change feed and the journal's tail, with the same answers.
//!
//! Spec: api.md "Drives: what is alive and pressing", "Vocabularies and
//! tuning constants" (`DRIVE_PRESSURE_BOUND`, `GROUP_*`); 0.3.2's
//! `alive_drives`, `drive_pressure`, `drive_grouping` and `cognition_health`
//! settle what the text leaves open (the constants' values, the report
//! keys, the orders and tie-breaks).

pub mod alive;
pub mod args;
pub mod grouping;
pub mod health;
pub(crate) mod index;
pub(crate) mod interests;
pub mod pressure;
pub(crate) mod view;

pub use crate::config::{
    DRIVE_PRESSURE_BOUND, GROUP_BOOST_STEP, GROUP_MIN_SHARED_TERMS, GROUP_OFFER_FLOOR,
};
pub use alive::{AliveDrive, DigestTruncation};
pub use args::{AliveDrives, DriveGroups, DriveItem, DriveScopes};
pub use grouping::{DriveGroup, DrivePartition, drive_groups, open_drive_partition};
pub use health::{
    CognitionHealth, InterestRatio, PendingCandidates, ProblemRatio, QuestionRatio,
    cognition_health,
};
pub use pressure::{DrivePressure, FamilyGroup, PRESSURE_GROUPS, drive_pressure};
