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

/// The engine manifest is generated from this table: every verb that
/// declares a cadence is a pass, with its flags read off its arguments'
/// schema (so a renamed default changes the manifest, never a copy of it).
#[test]
fn the_engine_manifest_lists_every_verb_declaring_a_cadence_with_its_schema_defaults() {
    let m = am_ops::engine_manifest();
    assert_eq!(m["manifest_version"], json!(am_ops::MANIFEST_VERSION));
    let passes = m["passes"].as_array().unwrap();
    let names: Vec<&str> = passes.iter().map(|p| p["name"].as_str().unwrap()).collect();
    let declared: Vec<&str> = table()
        .iter()
        .filter(|v| v.cadence.is_some())
        .map(|v| v.name)
        .collect();
    assert_eq!(names, declared);
    let ops: Vec<&str> = m["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(ops, am_ops::op_names().collect::<Vec<_>>());
    let mass = passes
        .iter()
        .find(|p| p["name"] == "mind_mass_report")
        .unwrap();
    assert_eq!(mass["cadence_class"], json!("glance-read"));
    assert_eq!(mass["flags"]["days"], json!(30));
    assert_eq!(mass["flags"]["vector_scan_limit"], json!(4000));
    assert!(
        mass["flags"].get("scopes").is_none(),
        "a required argument is no flag"
    );
    for p in passes {
        let h: Vec<&str> = p["honesty"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert!(!h.is_empty(), "{} declares no honesty property", p["name"]);
        assert!(h.windows(2).all(|w| w[0] < w[1]), "{h:?} is sorted");
    }
    assert!(am_ops::find("engine_manifest").is_some());
}

/// Compared with AbstractMemory 0.3.2's `engine_manifest()` (which builds
/// its manifest by introspecting Python modules) only on the vocabularies,
/// the pass names, their cadence classes and `MANIFEST_VERSION`. Every
/// difference is named here: none of 0.3.2's passes is missing, passes
/// this build lists beyond 0.3.2's table (its operator tools), a vocabulary not yet here (`reflection_form_kinds`), and the
/// vocabularies 0.5.2 grew (the `placed` audit event, the record kinds).
#[test]
fn the_engine_manifest_matches_abstractmemory_0_3_2_on_vocabularies_passes_cadences_and_version() {
    let python = std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!("AM_ORACLE_PYTHON is not set: this differential test needs abstractmemory==0.3.2")
    });
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "import json\nfrom abstractmemory.engine_manifest import engine_manifest\nprint(json.dumps(engine_manifest()))",
        ])
        .output()
        .expect("run the oracle");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = am_ops::engine_manifest();
    assert_eq!(ours["manifest_version"], theirs["manifest_version"]);
    assert_eq!(ours["manifest"], theirs["manifest"]);
    let cadence_of = |m: &Value| -> BTreeSet<(String, String)> {
        m["passes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_owned(),
                    p["cadence_class"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let (o, t) = (cadence_of(&ours), cadence_of(&theirs));
    let only_theirs: Vec<&str> = t.difference(&o).map(|p| p.0.as_str()).collect();
    let only_ours: Vec<&str> = o.difference(&t).map(|p| p.0.as_str()).collect();
    assert!(
        only_theirs.is_empty(),
        "0.3.2's passes missing here: {only_theirs:?}"
    );
    assert_eq!(
        only_ours,
        ["redigestion_candidates", "reembed_home", "reembed_store"]
    );
    // The cadence vocabulary is 0.3.2's closed set.
    let used: BTreeSet<&str> = t.iter().map(|p| p.1.as_str()).collect();
    let ours_vocab: BTreeSet<&str> = ours["vocabularies"]["cadence_classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(ours_vocab, used);
    let (ov, tv) = (
        ours["vocabularies"].as_object().unwrap(),
        theirs["vocabularies"].as_object().unwrap(),
    );
    let mut differing = Vec::new();
    for (k, v) in tv {
        match ov.get(k) {
            None => differing.push(k.as_str()),
            Some(x) if x != v => {
                // 0.5.2 grew these: ours is 0.3.2's plus exactly one name.
                let extra = match k.as_str() {
                    "record_kinds" => "community",
                    "event_kinds" => "placed",
                    other => panic!("vocabulary {other} differs: {x} vs {v}"),
                };
                let mut want: Vec<&str> = v
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap())
                    .chain([extra])
                    .collect();
                want.sort_unstable();
                assert_eq!(x, &json!(want), "{k}");
                differing.push(k.as_str());
            }
            Some(_) => {}
        }
    }
    assert_eq!(
        differing,
        ["record_kinds", "reflection_form_kinds", "event_kinds"],
        "vocabularies that differ from 0.3.2's"
    );
}
