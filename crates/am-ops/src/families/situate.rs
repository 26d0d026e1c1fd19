//! Situate (am-system `situate/`): `situate`, a pure read of one past
//! moment, and `situate_prompt_block`, its fenced rendering.
//!
//! Spec: api.md "Situating a past moment".

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Host;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::situate::{Situate, SituatePromptBlock, Situation, situate_prompt_block};

fn situate(home: &mut dyn Home, _: &Host, a: Situate) -> OpResult<Answer> {
    Answer::of(&home.system()?.situate(&a)?)
}

fn block(_: &mut dyn Home, _: &Host, a: SituatePromptBlock) -> OpResult<Answer> {
    Answer::of(&situate_prompt_block(&a.situation))
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Situate;
    vec![
        Verb::declare(
            "situate",
            f,
            "Rebuild the context of one past moment, addressed by journal seq, by time or by a participant's first or last encounter: the nearest reconstruction, the warm records, the records formed around it, the diary, who I was then and how I changed, what was still open. A pure read; every record-shaped item is labelled historical.",
        )
        .shape(CallShape::StoreJournalFunction)
        .answers::<Situation>()
        .run(situate),
        Verb::declare(
            "situate_prompt_block",
            f,
            "Render one situate result as a fenced, labelled prompt block (every record line dated); where it lands in the prompt is the caller's.",
        )
        .shape(CallShape::PureFunction)
        .answers::<String>()
        .run(block),
    ]
}
