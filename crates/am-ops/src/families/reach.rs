//! Reach (am-system `reach/`): `probe`, `probe_expand`, `familiarity`, and
//! concept anchoring's functions (`concept_terms`, `expand_by_concepts`).

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Host;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::reach::{Familiarity, FamiliarityReport, Probe, ProbeExpand, ProbeResult};
use am_system::{ConceptAnchorTuning, concept_terms, expand_by_concepts};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

fn yes() -> bool {
    true
}

/// `concept_terms`' arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConceptTermsArgs {
    /// The text.
    text: String,
    /// Adjacent-word bigrams join as concepts (default `true`).
    #[serde(default = "yes")]
    bigrams: bool,
}

/// `expand_by_concepts`' arguments: the seeds by id (either namespace).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpandByConceptsArgs {
    /// The seed records (row ids or graph ids; an unknown one is refused).
    seeds: Vec<String>,
    /// `[[scope, owner_id], ...]`: the field scanned.
    scope_pairs: Vec<(String, String)>,
    /// Row ids never admitted.
    #[serde(default)]
    excluded_ids: Vec<String>,
    /// The pass's tunables.
    #[serde(default)]
    tuning: ConceptAnchorTuning,
}

/// One admission of `expand_by_concepts` on the wire (the row by its id).
#[derive(Serialize, schemars::JsonSchema)]
struct AdmissionView {
    record_id: String,
    score: f64,
    concepts: Vec<String>,
}

/// `expand_by_concepts`' answer: `[admissions, warnings]` as the spec's tuple.
#[derive(Serialize, schemars::JsonSchema)]
struct ExpandAnswer(Vec<AdmissionView>, Vec<String>);

fn expand(home: &mut dyn Home, _: &Host, a: ExpandByConceptsArgs) -> OpResult<Answer> {
    let sys = home.system()?;
    let store = sys.store();
    let mut seeds = BTreeMap::new();
    for id in &a.seeds {
        let Some(row) = am_system::lookup::resolve_digest_assertion(&**store, id)? else {
            return Err(am_system::Error::invalid(format!(
                "expand_by_concepts: seed {id:?} resolves to no record in either id namespace"
            ))
            .into());
        };
        let rid = row.assertion_id.clone().unwrap_or_default();
        seeds.insert(rid, row);
    }
    let excluded: BTreeSet<String> = a.excluded_ids.into_iter().collect();
    let (admissions, notes) =
        expand_by_concepts(&**store, &seeds, &a.scope_pairs, &excluded, &a.tuning)?;
    let views: Vec<AdmissionView> = admissions
        .into_iter()
        .map(|x| AdmissionView {
            record_id: x.record_id,
            score: x.score,
            concepts: x.concepts,
        })
        .collect();
    Answer::of(&ExpandAnswer(views, notes))
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Reach;
    vec![
        Verb::declare(
            "probe",
            f,
            "One deliberate reach with a stated reason: relevance-ranked hits with why (journals its trace and inert listed events unless write_journal is false).",
        )
        .writes()
        .object()
        .answers::<ProbeResult>()
        .run(|h, _, a: Probe| Answer::of(&h.system()?.probe(&a)?)),
        Verb::declare(
            "probe_expand",
            f,
            "A bounded walk over record edges in both directions from chosen records (journals its trace and inert expanded events unless write_journal is false).",
        )
        .writes()
        .object()
        .answers::<ProbeResult>()
        .run(|h, _, a: ProbeExpand| Answer::of(&h.system()?.probe_expand(&a)?)),
        Verb::declare(
            "familiarity",
            f,
            "How much is held near a stimulus (none / weak / strong, counts per channel and scope), never what.",
        )
        .answers::<FamiliarityReport>()
        .run(|h, _, a: Familiarity| Answer::of(&h.system()?.familiarity(&a)?)),
        Verb::declare(
            "concept_terms",
            f,
            "A text's concept tokens: identifier-aware words, then adjacent-word bigrams joined with _.",
        )
        .shape(CallShape::PureFunction)
        .answers::<Vec<String>>()
        .run(|_, _, a: ConceptTermsArgs| Ok(Answer::value(json!(concept_terms(&a.text, a.bigrams))))),
        Verb::declare(
            "expand_by_concepts",
            f,
            "Records sharing a discriminative concept with the seeds: [admissions, warnings].",
        )
        .shape(CallShape::StoreJournalFunction)
        .answers::<ExpandAnswer>()
        .run(expand),
    ]
}
