//! Sleep: the night's reports and its cadence, all pure reads (the reports
//! first, then the cadence; the night's passes join here as they land).
//!
//! Spec: api.md "Consolidation (sleep and dreams)", "Maintenance, health,
//! and operator tools".

use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::sleep::{
    Cadence, LastMaintenanceSeq, Maintenance, MaintenanceDue, MaintenanceReport,
    RecordsSinceMaintenance, SinceMaintenance, StructuralReport, Structure, last_maintenance_seq,
    maintenance_report, structural_report,
};

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Sleep;
    let sj = CallShape::StoreJournalFunction;
    vec![
        // -- the reports
        Verb::declare(
            "structural_report",
            f,
            "The record graph's shape: components over the component relations only, isolated records, duplicate titles, facet coverage, adjacency; context pairs, unknown relations and co-use trails apart.",
        )
        .shape(sj)
        .answers::<Structure>()
        .run(|h, _, a: StructuralReport| {
            let sys = h.system()?;
            Answer::of(&structural_report(
                sys.store().as_ref(),
                sys.journal().as_ref(),
                &a,
            )?)
        }),
        Verb::declare(
            "maintenance_report",
            f,
            "The night's phase-1 analysis: metadata gaps, duplicates, near-duplicates, shared sources, link and edge-suppression candidates, consolidation proposals; proposes, deposits nothing.",
        )
        .shape(sj)
        .answers::<Maintenance>()
        .run(|h, _, a: MaintenanceReport| {
            let sys = h.system()?;
            Answer::of(&maintenance_report(
                sys.store().as_ref(),
                sys.journal().as_ref(),
                &a,
            )?)
        }),
        // -- the cadence
        Verb::declare(
            "last_maintenance_seq",
            f,
            "The journal seq of the newest sleep artifact's formation over the pairs (0: never slept).",
        )
        .shape(sj)
        .answers::<i64>()
        .run(|h, _, a: LastMaintenanceSeq| {
            let sys = h.system()?;
            Answer::of(&last_maintenance_seq(
                sys.store().as_ref(),
                sys.journal().as_ref(),
                &a,
            )?)
        }),
        Verb::declare(
            "maintenance_due",
            f,
            "Whether a night would find new material: enough new records, or new material plus fragmentation (with tasks: true, pending night-only tasks too).",
        )
        .shape(sj)
        .answers::<Cadence>()
        .run(|h, _, a: MaintenanceDue| Answer::of(&h.system()?.maintenance_due(&a)?)),
        Verb::declare(
            "records_since_maintenance",
            f,
            "How much the home lived since its last completed night: count, boundary and the fragmented share.",
        )
        .answers::<SinceMaintenance>()
        .run(|h, _, a: RecordsSinceMaintenance| {
            Answer::of(&h.system()?.records_since_maintenance(&a)?)
        }),
    ]
}
