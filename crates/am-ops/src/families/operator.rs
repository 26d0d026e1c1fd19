//! Operator (am-system `operator/`): `mind_mass_report` and
//! `redigestion_candidates`, pure reads over a whole home.
//!
//! Spec: api.md "Maintenance, health, and operator tools".

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Host;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::operator::{MindMass, MindMassReport, RedigestionCandidates, RedigestionDebt};

fn mass(home: &mut dyn Home, _: &Host, a: MindMass) -> OpResult<Answer> {
    // The exec op compares the pin with no wired embedder (the spec's
    // default `embedder=None`): the store's claim is read as it stands.
    Answer::of(&home.system()?.mind_mass_report(&a, None)?)
}

fn redigestion(home: &mut dyn Home, _: &Host, a: RedigestionCandidates) -> OpResult<Answer> {
    Answer::of(&home.system()?.redigestion_candidates(&a)?)
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Operator;
    vec![
        Verb::declare(
            "mind_mass_report",
            f,
            "Is this mind healthy: formation cadence, journal mass, duplicate mass, embedding-space integrity, review backlog and sleep recency over a window of days, every count with its unit, warnings as {word, detail} from the closed WARNING_WORDS. A pure read.",
        )
        .shape(CallShape::StoreJournalFunction)
        .answers::<MindMassReport>()
        .run(mass),
        Verb::declare(
            "redigestion_candidates",
            f,
            "The labelled mechanical-digest debt, worst first (poverty, then the most used): each record with its digest, the residue once act-frame markers are stripped, its verbatim's payload_ref and its use. Protected kinds never appear. A pure read.",
        )
        .answers::<RedigestionDebt>()
        .run(redigestion),
    ]
}
