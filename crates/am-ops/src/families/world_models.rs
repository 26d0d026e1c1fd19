//! World models (am-system `world_models/`): `standing_world_models`,
//! `current_world_models`, `alias_map`, `alias_candidates`,
//! `world_model_pass`, `world_model_update`, `author_world_model`,
//! `alias_world_model`, `rekey_world_model`.

use crate::error::OpResult;
use crate::home::Home;
use crate::host::{Hook, Host};
use crate::verb::{Answer, Cadence, CallShape, Family, Verb};
use am_system::UnderstandingResult;
use am_system::world_models::{
    AliasBound, AliasCandidates, AliasProposal, AliasWorldModel, AuthorWorldModel, AuthoredCard,
    CardsOf, RekeyWorldModel, WorldModelPass, WorldModelReport, WorldModelUpdate, alias_candidates,
    alias_map, current_world_models, standing_world_models,
};
use am_triples::TripleAssertion;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// A card read's arguments with the spec's `journal=` switch: `true` folds
/// closures with the session's journal; the default, `false`, is the
/// spec's `journal=None`, the layer-1 read.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CardRead {
    /// The cards' scope.
    scope: String,
    /// The cards' owner.
    owner_id: String,
    /// Fold closures with the session's journal (default `false`).
    #[serde(default)]
    journal: bool,
}

impl CardRead {
    fn args(&self) -> CardsOf {
        CardsOf::new(&self.scope, &self.owner_id)
    }
}

fn standing(home: &mut dyn Home, _: &Host, a: CardRead) -> OpResult<Answer> {
    let sys = home.system()?;
    let j = a.journal.then_some(&**sys.journal());
    let m = standing_world_models(&**sys.store(), j, &a.args())?;
    let out: Map<String, Value> = m
        .iter()
        .map(|(t, rows)| {
            (
                t.clone(),
                Value::Array(rows.iter().map(TripleAssertion::to_dict).collect()),
            )
        })
        .collect();
    Ok(Answer::value(Value::Object(out)))
}

fn current(home: &mut dyn Home, _: &Host, a: CardRead) -> OpResult<Answer> {
    let sys = home.system()?;
    let j = a.journal.then_some(&**sys.journal());
    let m = current_world_models(&**sys.store(), j, &a.args())?;
    let out: Map<String, Value> = m.iter().map(|(t, r)| (t.clone(), r.to_dict())).collect();
    Ok(Answer::value(Value::Object(out)))
}

fn aliases(home: &mut dyn Home, _: &Host, a: CardRead) -> OpResult<Answer> {
    let sys = home.system()?;
    let j = a.journal.then_some(&**sys.journal());
    Answer::of(&alias_map(&**sys.store(), j, &a.args())?)
}

fn pass(home: &mut dyn Home, host: &Host, a: WorldModelPass) -> OpResult<Answer> {
    // A callable cannot travel in a JSON call: a call's `author` is the
    // callable's answers, scripted (Host::scripted).
    Answer::of(
        &home
            .system()?
            .world_model_pass(&a, host.author.as_deref())?,
    )
}

fn update(home: &mut dyn Home, host: &Host, a: WorldModelUpdate) -> OpResult<Answer> {
    Answer::of(
        &home
            .system()?
            .world_model_update(&a, host.author.as_deref())?,
    )
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::WorldModels;
    let sj = CallShape::StoreJournalFunction;
    vec![
        Verb::declare(
            "standing_world_models",
            f,
            "Target -> every standing world-model card, revision ascending (journal: fold closures).",
        )
        .shape(sj)
        .answers::<BTreeMap<String, Vec<TripleAssertion>>>()
        .run(standing),
        Verb::declare(
            "current_world_models",
            f,
            "Target -> its current world-model card (the highest standing revision).",
        )
        .shape(sj)
        .answers::<BTreeMap<String, TripleAssertion>>()
        .run(current),
        Verb::declare(
            "alias_map",
            f,
            "Alias -> primary target, read from the current cards.",
        )
        .shape(sj)
        .answers::<BTreeMap<String, String>>()
        .run(aliases),
        Verb::declare(
            "alias_candidates",
            f,
            "Merge proposals from evidence overlap (report data only; nothing forms).",
        )
        .shape(CallShape::PureFunction)
        .answers::<Vec<AliasProposal>>()
        .run(|_, _, a: AliasCandidates| Ok(Answer::value(json!(alias_candidates(&a)?)))),
        Verb::declare(
            "world_model_pass",
            f,
            "The sleep phase: form or revise every supported card, pending its authored title and summary.",
        )
.cadence(Cadence::NightPhase, &["orientation-never-authority", "revision-chained", "report-excluded-derived-artifacts"])
        .writes()
        .hooks(&[Hook::Author])
        .answers::<WorldModelReport>()
        .run(pass),
        Verb::declare(
            "world_model_update",
            f,
            "The per-turn update of the named targets' cards from a newest-window scan.",
        )
        .writes()
        .hooks(&[Hook::Author])
        .answers::<WorldModelReport>()
        .run(update),
        Verb::declare(
            "author_world_model",
            f,
            "Replace a card's words with authored prose, in place (the previous text a version of field card) or as revision N+1.",
        )
        .writes()
        .answers::<AuthoredCard>()
        .run(|h, _, a: AuthorWorldModel| Answer::of(&h.system()?.author_world_model(&a)?)),
        Verb::declare(
            "alias_world_model",
            f,
            "Bind an alias to a primary card: revision N+1 with the alias, the alias's own card folded in.",
        )
        .writes()
        .answers::<AliasBound>()
        .run(|h, _, a: AliasWorldModel| Answer::of(&h.system()?.alias_world_model(&a)?)),
        Verb::declare(
            "rekey_world_model",
            f,
            "Move a standing card to a new key in place, the old key kept as an alias (a version of field target).",
        )
        .writes()
        .answers::<UnderstandingResult>()
        .run(|h, _, a: RekeyWorldModel| Answer::of(&h.system()?.rekey_world_model(&a)?)),
    ]
}
