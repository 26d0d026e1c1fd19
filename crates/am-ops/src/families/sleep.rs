//! Sleep: the night's reports and its cadence, all pure reads (the reports
//! first, then the cadence), then the dream read and the night's write
//! passes (`unresolved_dreams`, `wake_cue_dedup_pass`, `consolidation_pass`,
//! `resolve_dreams_pass`, `dream_pass`, `sleep_pass`:
//! [`passes`]).
//!
//! Spec: api.md "Consolidation (sleep and dreams)", "Maintenance, health,
//! and operator tools".

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Hook;
use crate::verb::{Answer, Cadence as PassCadence, CallShape, Family, Verb};
use am_system::sleep::{
    Cadence, LastMaintenanceSeq, Maintenance, MaintenanceDue, MaintenanceReport,
    RecordsSinceMaintenance, SinceMaintenance, StructuralReport, Structure, last_maintenance_seq,
    maintenance_report, structural_report,
};
use am_system::sleep::{
    ConsolidationPass, ConsolidationResult, DreamPass, DreamResult, NightHooks, ResolveDreams,
    ResolveDreamsResult, SleepPass, SleepResult, UnresolvedDreams, WakeCueDedup,
    WakeCueDedupResult, unresolved_dreams,
};
use am_triples::TripleAssertion;
use serde::Deserialize;
use serde_json::Value;

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
.cadence(PassCadence::GlanceRead, &["pure-read", "components-and-isolated-only"])
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
.cadence(PassCadence::GlanceRead, &["pure-read", "deterministic-ordering"])
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

// ---------------------------------------------------------------- the passes

fn yes() -> bool {
    true
}

fn hundred() -> usize {
    100
}

/// `unresolved_dreams`'s arguments with the spec's `journal=` switch (the
/// session's journal, or none: a layer-1 read).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DreamsArgs {
    scope: String,
    owner_id: String,
    #[serde(default = "hundred")]
    limit: usize,
    #[serde(default = "yes")]
    journal: bool,
}

fn dreams(home: &mut dyn Home, d: DreamsArgs) -> OpResult<Answer> {
    let sys = home.system()?;
    let j = d.journal.then_some(&**sys.journal());
    let args = UnresolvedDreams {
        limit: d.limit,
        ..UnresolvedDreams::new(&d.scope, &d.owner_id)
    };
    let rows = unresolved_dreams(&**sys.store(), j, &args)?;
    Ok(Answer::value(Value::Array(
        rows.iter().map(TripleAssertion::to_dict).collect(),
    )))
}

fn dedup(home: &mut dyn Home, host: &crate::Host, a: WakeCueDedup) -> OpResult<Answer> {
    // A callable cannot travel in a JSON call: a call's `author` is the
    // callable's answers, scripted (Host::scripted).
    Answer::warned(
        home.system()?
            .wake_cue_dedup_pass(&a, host.author.as_deref())?,
    )
}

fn consolidate(home: &mut dyn Home, host: &crate::Host, a: ConsolidationPass) -> OpResult<Answer> {
    Answer::warned(
        home.system()?
            .consolidation_pass(&a, host.author.as_deref())?,
    )
}

fn dream(home: &mut dyn Home, host: &crate::Host, a: DreamPass) -> OpResult<Answer> {
    Answer::warned(home.system()?.dream_pass(&a, host.author.as_deref())?)
}

fn sleep(home: &mut dyn Home, host: &crate::Host, a: SleepPass) -> OpResult<Answer> {
    let should_continue = host.should_continue.clone();
    let cancelled = host.cancelled.clone();
    let go = move || should_continue.as_ref().is_none_or(|f| f());
    let stop = move || cancelled.as_ref().is_some_and(|f| f());
    let done = |phase: &str, _: &str| host.phase_done(phase);
    let hooks = NightHooks {
        should_continue: Some(&go),
        cancelled: Some(&stop),
        phase_done: Some(&done),
    };
    Answer::warned(
        home.system()?
            .sleep_pass(&a, host.author.as_deref(), &hooks)?,
    )
}

/// The night's dream read and its write passes (after the reports and the
/// cadence in docs/exec.md "Sleep").
pub(super) fn passes() -> Vec<Verb> {
    let f = Family::Sleep;
    vec![
        Verb::declare("unresolved_dreams", f, "The standing dreams (unresolved or continued), oldest first.")
            .shape(CallShape::StoreJournalFunction)
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, d: DreamsArgs| dreams(h, d)),
        Verb::declare("wake_cue_dedup_pass", f, "Collapse near-identical same-day records into one day summary, authored by the host's author or pending.")
.cadence(PassCadence::Doctoring, &["report-only-mode", "crash-replay-self-healing", "sources-superseded-never-erased"])
            .writes()
            .object()
            .hooks(&[Hook::Author])
            .answers::<WakeCueDedupResult>()
            .run(dedup),
        Verb::declare("consolidation_pass", f, "The tending write: low-risk duplicate-title groups into inactive, review-gated summary candidates, authored by the host's author or pending.")
.cadence(PassCadence::NightPhase, &["one-write-surface", "sources-byte-untouched", "review-gated-candidates", "idempotent-by-source-set"])
            .writes()
            .object()
            .hooks(&[Hook::Author])
            .answers::<ConsolidationResult>()
            .run(consolidate),
        Verb::declare("resolve_dreams_pass", f, "The day answers the night: standing dreams whose tensions lived experience settled close softly (supersede, the evidence as replacements).")
.cadence(PassCadence::NightPhase, &["closures-append-only", "waking-evidence-disposes"])
            .writes()
            .object()
            .answers::<ResolveDreamsResult>()
            .run(|h, _, a: ResolveDreams| Answer::warned(h.system()?.resolve_dreams_pass(&a)?)),
        Verb::declare("dream_pass", f, "The night's dream: bridge proposals and single-facet questions across islands, at most one review-gated dream record, authored by the host's author or pending.")
.cadence(PassCadence::NightlyOnly, &["one-dream-per-pass", "review-gated", "sleep-proposes-waking-disposes", "deposits-nothing", "novelty-gated"])
            .writes()
            .object()
            .hooks(&[Hook::Author])
            .answers::<DreamResult>()
            .run(dream),
        Verb::declare("sleep_pass", f, "ONE night: resolution, maintenance (tending), world_models, dream, in that order; each sub-phase's dict, the summed authoring receipt; the host ends it at a sub-phase boundary; a whole night records its completion.")
.cadence(PassCadence::NightlyComposition, &["idempotent", "graceful-cancellation-at-phase-boundaries", "as-of-write-refusal", "quiet-night-is-valid"])
            .writes()
            .object()
            .hooks(&[Hook::Author, Hook::Cancel])
            .answers::<SleepResult>()
            .run(sleep),
    ]
}
