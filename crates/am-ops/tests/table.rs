//! The verb table's own promises: every op declared once, every op's
//! arguments schema says what its parser takes (closed objects, the same
//! required arguments), and every answer schema is generated.

use am_ops::{Family, table};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

fn object(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("an object")
}

#[test]
fn every_op_is_declared_once() {
    let mut seen = BTreeSet::new();
    for v in table() {
        assert!(seen.insert(v.name), "{} is declared twice", v.name);
        assert!(!v.summary.trim().is_empty(), "{} has no summary", v.name);
    }
    assert!(seen.len() >= 90, "only {} ops", seen.len());
}

#[test]
fn the_queue_ops_and_only_they_need_the_task_queue() {
    for v in table() {
        // The ripple runs over the queue (api.md: "the home must be opened
        // with `task_queue=True`").
        assert_eq!(
            v.needs_queue,
            matches!(v.family, Family::Tasks | Family::Ripple),
            "{}",
            v.name
        );
    }
}

/// A closed object: the schema refuses what the parser refuses (an
/// argument the verb does not take).
#[test]
fn every_arguments_schema_is_a_closed_object_or_a_union_of_closed_objects() {
    for v in table() {
        let s = v.args_schema().to_value();
        let defs = s.get("$defs").cloned().unwrap_or(Value::Null);
        let resolve = |x: &Value| -> Value {
            match x.get("$ref").and_then(Value::as_str) {
                Some(r) => defs[r.trim_start_matches("#/$defs/")].clone(),
                None => x.clone(),
            }
        };
        let alternatives: Vec<Value> = match s.get("anyOf").and_then(Value::as_array) {
            Some(alts) => alts.iter().map(resolve).collect(),
            None => vec![s.clone()],
        };
        for alt in alternatives {
            assert_eq!(alt["type"], "object", "{}: {alt}", v.name);
            assert_eq!(
                alt["additionalProperties"],
                json!(false),
                "{}'s arguments schema is open: {alt}",
                v.name
            );
            // The parser refuses an unknown argument too.
            let mut args = Map::new();
            args.insert("colour".into(), json!("red"));
            let e = v.check_args(args).expect_err(v.name);
            assert!(e.message.contains("colour"), "{}: {e}", v.name);
        }
    }
}

/// The schema's `required` is what the parser cannot do without: `{}` is
/// read exactly when nothing is required, and otherwise the parser names a
/// required argument as missing.
#[test]
fn every_arguments_schema_requires_what_the_parser_requires() {
    for v in table() {
        let s = v.args_schema().to_value();
        if s.get("anyOf").is_some() {
            // `versions`: either form; `{}` is the journal reader's.
            assert!(v.check_args(Map::new()).is_ok(), "{}", v.name);
            continue;
        }
        let required: Vec<String> = s["required"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default();
        match v.check_args(Map::new()) {
            Ok(()) => assert!(
                required.is_empty(),
                "{} reads {{}} but its schema requires {required:?}",
                v.name
            ),
            Err(e) => assert!(
                required
                    .iter()
                    .any(|r| e.message.contains(&format!("`{r}`"))),
                "{} refuses {{}} ({e}) but its schema requires {required:?}",
                v.name
            ),
        }
    }
}

#[test]
fn every_answer_schema_is_generated() {
    for v in table() {
        let s = v.answer_schema().to_value();
        assert!(s.is_object() || s == json!(true), "{}: {s}", v.name);
        assert!(s.get("$schema").is_some(), "{} has no root schema", v.name);
    }
}

#[test]
fn a_verb_declaring_a_hook_reads_it_out_of_the_arguments_before_the_parser() {
    let engram = am_ops::find("engram").expect("engram");
    assert_eq!(engram.hooks, &[am_ops::Hook::Author]);
    let mut args = object(json!({"author": [], "colour": 1}));
    let host = am_ops::Host::default()
        .scripted("engram", engram.hooks, &mut args)
        .unwrap();
    assert!(host.author.is_some());
    assert!(!args.contains_key("author"));
}

#[test]
fn an_unknown_op_is_refused_listing_the_table_in_order() {
    let e = am_ops::unknown_op("frobnicate");
    let listed = e.message.split_once("known ops: ").unwrap().1;
    let names: Vec<&str> = listed.split(", ").collect();
    let table: Vec<&str> = am_ops::op_names().collect();
    assert_eq!(names, table);
}
