//! The exec ops of the entity capabilities: valence (`appraise`,
//! `heal_scar`, `break_bond`, `gradation`, `feelings_about`,
//! `stimulus_feelings`), identity (`lint_spark`, `canonical_spark_hash`,
//! `engram`, `self_records`) and the diary reads (`open_questions`,
//! `open_problems`, `open_ideas`, `open_commitments`,
//! `triggered_commitments`, `verify_diary_chain`). Each reads the very arguments struct the engine's
//! verb or read takes; docs/exec.md lists them.

use super::author::ScriptedAuthor;
use super::{Args, Session};
use crate::error::{CliError, CliResult};
use am_system::diary::{self, DiaryRead, TriggeredCommitments};
use am_system::identity::{Engram, SelfRecords, canonical_spark_hash, lint_spark};
use am_system::{
    Appraise, BreakBond, FeelingsAbout, Gradation, HealScar, StimulusFeelings, feelings_about,
    stimulus_feelings,
};
use am_triples::{JsonMap, TripleAssertion};
use serde::Deserialize;
use serde_json::{Value, json};

fn yes() -> bool {
    true
}

fn hundred() -> usize {
    100
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LintArgs {
    spark: JsonMap,
    #[serde(default = "yes")]
    framework: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HashArgs {
    spark: JsonMap,
}

/// An open-set read's arguments with the spec's `journal=` switch (the
/// session's journal, or none: a layer-1 read).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiaryArgs {
    scope: String,
    owner_id: String,
    #[serde(default = "hundred")]
    limit: usize,
    #[serde(default = "yes")]
    journal: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChainArgs {
    scope: String,
    owner_id: String,
}

fn rows(rows: &[TripleAssertion]) -> Value {
    Value::Array(rows.iter().map(TripleAssertion::to_dict).collect())
}

/// The entity ops, in the order docs/exec.md lists them.
pub const ENTITY_OPS: &[&str] = &[
    "appraise",
    "heal_scar",
    "break_bond",
    "gradation",
    "feelings_about",
    "stimulus_feelings",
    "lint_spark",
    "canonical_spark_hash",
    "engram",
    "self_records",
    "open_questions",
    "open_problems",
    "open_ideas",
    "open_commitments",
    "triggered_commitments",
    "verify_diary_chain",
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
        "gradation" => super::to_json(&sys.gradation(&a.parse::<Gradation>()?)?),
        "feelings_about" => {
            let args = a.parse::<FeelingsAbout>()?;
            super::to_json(&feelings_about(Some(&**sys.journal()), &args)?)
        }
        "stimulus_feelings" => {
            let args = a.parse::<StimulusFeelings>()?;
            let r = stimulus_feelings(&**sys.store(), Some(&**sys.journal()), &args)?;
            s.warned(r)
        }
        "lint_spark" => {
            let LintArgs { spark, framework } = a.parse()?;
            Ok(json!(lint_spark(&spark, framework)))
        }
        "canonical_spark_hash" => {
            let HashArgs { spark } = a.parse()?;
            Ok(json!(canonical_spark_hash(&spark)))
        }
        "engram" => {
            // A callable cannot travel in a line: the line's `author` is the
            // callable's answers, scripted (exec/author.rs).
            let mut a = a;
            let author = match a.take("author") {
                Some(v) => Some(ScriptedAuthor::from_value(a.op(), v)?),
                None => None,
            };
            let args = a.parse::<Engram>()?;
            let r = sys.engram(&args, author.as_ref().map(|x| x as &dyn am_system::Author))?;
            if let Some(unused) = author
                .as_ref()
                .map(ScriptedAuthor::unused)
                .filter(|n| *n > 0)
            {
                s.raised.borrow_mut().push(format!(
                    "engram: {unused} answer(s) of the line's author were not used (the engine asks once per unnamed item not yet formed)"
                ));
            }
            super::to_json(&r)
        }
        "self_records" => Ok(rows(&sys.self_records(&a.parse::<SelfRecords>()?)?)),
        "open_questions" | "open_problems" | "open_ideas" | "open_commitments" => {
            let d: DiaryArgs = a.parse()?;
            let j = d.journal.then_some(&**sys.journal());
            let args = DiaryRead {
                limit: d.limit,
                ..DiaryRead::new(&d.scope, &d.owner_id)
            };
            let read = match op {
                "open_questions" => diary::open_questions,
                "open_problems" => diary::open_problems,
                "open_ideas" => diary::open_ideas,
                _ => diary::open_commitments,
            };
            Ok(rows(&read(&**sys.store(), j, &args)?))
        }
        "triggered_commitments" => {
            let args = a.parse::<TriggeredCommitments>()?;
            let r = diary::triggered_commitments(&**sys.store(), Some(&**sys.journal()), &args)?;
            let items: Vec<Value> = r
                .value
                .iter()
                .map(|t| {
                    json!({"entry": t.entry.as_ref().map(TripleAssertion::to_dict),
                           "matched": t.matched, "line": t.line})
                })
                .collect();
            s.raised.borrow_mut().extend(r.warnings);
            Ok(Value::Array(items))
        }
        "verify_diary_chain" => {
            let ChainArgs { scope, owner_id } = a.parse()?;
            super::to_json(&diary::verify_diary_chain(
                &**sys.store(),
                &scope,
                &owner_id,
            )?)
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

#[cfg(test)]
mod identity_and_diary_tests {
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::{Value, json};

    fn answer(s: &mut Session, line: &Value) -> Value {
        s.answer(&line.to_string()).expect("an answer").0
    }

    #[test]
    fn identity_and_diary_ops_answer_and_refusals_write_nothing() {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s = Session::open(HomeSpec::Memory, None, clock).unwrap();
        let spark = json!({"name": "Castor", "origin": "A quiet start.",
            "values": [{"name": "shared_vulnerability", "class": "core", "statement": "Protect the shared substrate."},
                       {"name": "curiosity", "class": "revisable", "statement": "Ask about what you do not know."}],
            "purposes": [{"name": "helper", "statement": "Help the gardeners."}],
            "traits": [], "honesty": []});
        let lint = answer(&mut s, &json!({"op": "lint_spark", "spark": spark}));
        assert_eq!(lint["ok"], json!([]), "{lint}");
        let h = answer(
            &mut s,
            &json!({"op": "canonical_spark_hash", "spark": spark}),
        );
        assert_eq!(h["ok"].as_str().unwrap().len(), 64);
        let e = answer(
            &mut s,
            &json!({"op": "engram", "spark": spark, "owner_id": "entity:castor"}),
        );
        assert_eq!(e["ok"]["created"], json!(true), "{e}");
        let core = answer(
            &mut s,
            &json!({"op": "self_records", "scope": "self", "owner_id": "entity:castor"}),
        );
        assert_eq!(core["ok"].as_array().unwrap().len(), 3, "{core}");
        let seq = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        let mut unnamed = spark.clone();
        unnamed["purposes"] = json!([{"statement": "Help the gardeners."}]);
        for bad in [
            json!({"op": "engram", "spark": unnamed, "owner_id": "entity:castor"}),
            json!({"op": "engram", "spark": spark, "owner_id": "entity:castor", "author": "x"}),
        ] {
            let a = answer(&mut s, &bad);
            assert!(a["error"]["kind"].is_string(), "{a}");
            assert_eq!(
                answer(&mut s, &json!({"op": "current_seq"}))["ok"],
                seq,
                "{bad} wrote"
            );
        }
        let q = answer(
            &mut s,
            &json!({"op": "remember_many", "records": [{"kind": "diary", "title": "Q",
            "digest": "Why?", "attributes": {"diary_type": "question", "prev_entry_hash": ""},
            "provenance": {"source": "owner-direct"}}], "scope": "diary", "owner_id": "entity:castor",
            "idempotency_key": "q"}),
        );
        assert!(q["ok"].is_array(), "{q}");
        let open = answer(
            &mut s,
            &json!({"op": "open_questions", "scope": "diary", "owner_id": "entity:castor"}),
        );
        assert_eq!(open["ok"].as_array().unwrap().len(), 1, "{open}");
        let chain = answer(
            &mut s,
            &json!({"op": "verify_diary_chain", "scope": "diary", "owner_id": "entity:castor"}),
        );
        assert_eq!(
            chain["ok"],
            json!({"intact": true, "break_at": null, "entries": 1})
        );
        let t = answer(
            &mut s,
            &json!({"op": "triggered_commitments", "stimulus": {"cue_text": "x"},
            "scope": "diary", "owner_id": "entity:castor"}),
        );
        assert_eq!(t["ok"], json!([]), "{t}");
    }
}
