//! The exec ops of the entity capabilities: valence (`appraise`,
//! `heal_scar`, `break_bond`, `gradation`, `feelings_about`,
//! `stimulus_feelings`). Each reads the very arguments struct the engine's
//! verb or read takes; docs/exec.md lists them.

use super::{Args, Session};
use crate::error::{CliError, CliResult};
use am_system::{
    Appraise, BreakBond, FeelingsAbout, Gradation, HealScar, StimulusFeelings, feelings_about,
    stimulus_feelings,
};
use serde_json::{Value, json};

/// The entity ops, in the order docs/exec.md lists them.
pub const ENTITY_OPS: &[&str] = &[
    "appraise",
    "heal_scar",
    "break_bond",
    "gradation",
    "feelings_about",
    "stimulus_feelings",
];

/// Run one entity op.
///
/// # Errors
/// The op's refusal or a malformed line.
pub fn dispatch(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    let sys = &s.engine()?.system;
    match op {
        "appraise" => Ok(json!(sys.appraise(&a.parse::<Appraise>()?)?)),
        "heal_scar" => Ok(json!(sys.heal_scar(&a.parse::<HealScar>()?)?)),
        "break_bond" => Ok(json!(sys.break_bond(&a.parse::<BreakBond>()?)?)),
        "gradation" => super::ops::to_json(&sys.gradation(&a.parse::<Gradation>()?)?),
        "feelings_about" => {
            let args = a.parse::<FeelingsAbout>()?;
            super::ops::to_json(&feelings_about(Some(&**sys.journal()), &args)?)
        }
        "stimulus_feelings" => {
            let args = a.parse::<StimulusFeelings>()?;
            let r = stimulus_feelings(&**sys.store(), Some(&**sys.journal()), &args)?;
            s.warned(r)
        }
        other => Err(CliError::invalid(format!("unknown op {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::ENTITY_OPS;
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::{Value, json};

    fn session() -> Session {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        Session::open(HomeSpec::Memory, None, clock).unwrap()
    }

    fn answer(s: &mut Session, line: &Value) -> Value {
        s.answer(&line.to_string()).expect("an answer").0
    }

    #[test]
    fn docs_exec_md_lists_every_entity_op() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/exec.md"))
                .expect("docs/exec.md exists");
        for op in ENTITY_OPS {
            assert!(
                doc.contains(&format!("| `{op}` |")),
                "docs/exec.md lacks a row for {op}"
            );
        }
    }

    #[test]
    fn valence_ops_write_read_and_refuse_without_writing() {
        let mut s = session();
        let base = json!({"scope": "self", "owner_id": "entity:castor"});
        let with = |extra: Value| {
            let mut line = base.clone();
            line.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            line
        };
        let a = answer(
            &mut s,
            &with(
                json!({"op": "appraise", "target_id": "tool:x", "sign": -1, "magnitude": 9,
                         "reason": "lost work", "scar": true, "event_id": "w1", "actor": "operator"}),
            ),
        );
        assert_eq!(a["ok"], json!(["w1", "w1:scar"]), "{a}");
        let seq = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        for bad in [
            json!({"op": "appraise", "target_id": "tool:x", "sign": -1, "magnitude": 5, "reason": "r"}),
            json!({"op": "appraise", "target_id": "tool:x", "sign": 1, "magnitude": 1, "reason": "r", "colour": 1}),
            json!({"op": "heal_scar", "scar_event_id": "w1", "reason": "r"}),
            json!({"op": "break_bond", "bond_event_id": "w1:scar", "reason": "r"}),
        ] {
            let a = answer(&mut s, &with(bad.clone()));
            assert!(a["error"]["kind"].is_string(), "{bad} -> {a}");
            assert_eq!(
                answer(&mut s, &json!({"op": "current_seq"}))["ok"],
                seq,
                "{bad} wrote"
            );
        }
        let g = answer(
            &mut s,
            &with(json!({"op": "gradation", "target_ids": ["tool:x"]})),
        );
        assert_eq!(g["ok"]["tool:x"]["scarred"], json!(true), "{g}");
        let h = answer(
            &mut s,
            &with(json!({"op": "heal_scar", "scar_event_id": "w1:scar", "reason": "r"})),
        );
        assert_eq!(h["ok"], json!("heal:w1:scar"), "{h}");
        let f = answer(
            &mut s,
            &json!({"op": "feelings_about", "target": "tool:x", "scope_pairs": [["self", "entity:castor"]]}),
        );
        assert_eq!(f["ok"]["total_events"], json!(3), "{f}");
        let sf = answer(
            &mut s,
            &json!({"op": "stimulus_feelings", "stimulus": {"cue_text": "the x tool"},
                    "scope_pairs": [["self", "entity:castor"]], "min_net": 0.0}),
        );
        assert!(sf["ok"].is_array(), "{sf}");
    }
}
