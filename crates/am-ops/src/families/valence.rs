//! Valence (am-system `valence/`): `appraise`, `heal_scar`, `break_bond`,
//! `gradation`, `feelings_about`, `stimulus_feelings`.

use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::valence::{FeelingsAboutResult, StimulusFeeling};
use am_system::{
    Appraise, BreakBond, FeelingsAbout, Gradation, GradationScore, HealScar, OrderedMap,
    StimulusFeelings, feelings_about, stimulus_feelings,
};
use serde_json::json;

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Valence;
    let sj = CallShape::StoreJournalFunction;
    vec![
        Verb::declare(
            "appraise",
            f,
            "Record a feeling about a target (valence), optionally a scar or a bond.",
        )
        .writes()
        .answers::<Vec<String>>()
        .run(|h, _, a: Appraise| Ok(Answer::value(json!(h.system()?.appraise(&a)?)))),
        Verb::declare(
            "heal_scar",
            f,
            "Heal a scar with a reason; answers the healing event's id.",
        )
        .writes()
        .answers::<String>()
        .run(|h, _, a: HealScar| Ok(Answer::value(json!(h.system()?.heal_scar(&a)?)))),
        Verb::declare(
            "break_bond",
            f,
            "Break a bond with a reason; answers the event's id.",
        )
        .writes()
        .answers::<String>()
        .run(|h, _, a: BreakBond| Ok(Answer::value(json!(h.system()?.break_bond(&a)?)))),
        Verb::declare(
            "gradation",
            f,
            "The gradation (net feeling, scarred, bonded) of each target.",
        )
        .answers::<OrderedMap<GradationScore>>()
        .run(|h, _, a: Gradation| Answer::of(&h.system()?.gradation(&a)?)),
        Verb::declare(
            "feelings_about",
            f,
            "Every feeling about one target across scope pairs.",
        )
        .shape(sj)
        .object()
        .answers::<FeelingsAboutResult>()
        .run(|h, _, a: FeelingsAbout| {
            let sys = h.system()?;
            Answer::of(&feelings_about(Some(&**sys.journal()), &a)?)
        }),
        Verb::declare(
            "stimulus_feelings",
            f,
            "The feelings a stimulus touches (targets it names or matches).",
        )
        .shape(sj)
        .answers::<Vec<StimulusFeeling>>()
        .run(|h, _, a: StimulusFeelings| {
            let sys = h.system()?;
            Answer::warned(stimulus_feelings(
                &**sys.store(),
                Some(&**sys.journal()),
                &a,
            )?)
        }),
    ]
}
