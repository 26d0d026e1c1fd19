//! Formation (am-system `formation/`): `remember_many`, `remember`.

use crate::verb::{Answer, Family, Verb};
use am_system::{Remember, RememberMany};

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Formation;
    vec![
        Verb::declare(
            "remember_many",
            f,
            "Form records in one transaction (idempotent by key); answers their ids.",
        )
        .writes()
        .answers::<Vec<String>>()
        .run(|h, _, a: RememberMany| Answer::warned(h.system()?.remember_many(&a)?)),
        Verb::declare("remember", f, "Form one record; answers its id.")
            .writes()
            .answers::<String>()
            .run(|h, _, a: Remember| Answer::warned(h.system()?.remember(&a)?)),
    ]
}
