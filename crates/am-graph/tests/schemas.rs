//! The hand-written JSON Schemas of `SourceRef`, `Provenance` and `Revision`
//! say what their `to_dict` writes and `from_dict` reads: the kinds and keys,
//! closedness, and exactly the keys whose absence `from_dict` refuses.

use am_graph::{
    AssertOp, CLOSE_KINDS, CloseKind, CloseOp, NarrowOp, PROVENANCE_KEYS, Provenance,
    REVISION_CAUSES, REVISION_OPS, Revision, RevisionDraft, RevisionOp, RevisionResult,
    SOURCE_KINDS, SkippedOp, SourceKind, SourceRef,
};
use schemars::{JsonSchema, schema_for};
use serde_json::{Value, json};

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).unwrap()
}

/// `node`, or the `$defs` entry its `$ref` names.
fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => &root["$defs"][r.strip_prefix("#/$defs/").unwrap()],
        None => node,
    }
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

/// Every key of `value` is a property of `s`, and every required key is there.
fn fits_top_level(s: &Value, value: &Value) {
    let props = keys(&s["properties"]);
    for k in keys(value) {
        assert!(props.contains(&k), "{k:?} is not a property of {s}");
    }
    for r in strings(&s["required"]) {
        assert!(value.get(&r).is_some(), "missing required {r:?} in {value}");
    }
}

/// A value of a property's schema (enough for `from_dict`).
fn sample(key: &str) -> Value {
    match key {
        "seq" => json!(3),
        "digest" => json!("ab".repeat(32)),
        _ => json!(format!("{key}-1")),
    }
}

#[test]
fn a_source_ref_is_one_closed_object_per_kind_the_code_accepts() {
    let s = schema::<SourceRef>();
    let variants = s["oneOf"].as_array().unwrap();
    let kinds: Vec<&str> = variants
        .iter()
        .map(|v| v["properties"]["kind"]["const"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, SOURCE_KINDS);
    for v in variants {
        let kind = SourceKind::parse(v["properties"]["kind"]["const"].as_str().unwrap()).unwrap();
        assert_eq!(keys(&v["properties"]), kind.dict_keys());
        assert_eq!(v["additionalProperties"], false);
        // The required keys alone make a ref; one fewer does not.
        let required = strings(&v["required"]);
        let mut dict = serde_json::Map::new();
        for r in &required {
            let value = if r == "kind" {
                json!(kind.as_str())
            } else {
                sample(r)
            };
            dict.insert(r.clone(), value);
        }
        SourceRef::from_dict(&Value::Object(dict.clone())).unwrap();
        for r in &required {
            let mut fewer = dict.clone();
            fewer.remove(r);
            assert!(
                SourceRef::from_dict(&Value::Object(fewer)).is_err(),
                "{kind} without {r}"
            );
        }
        // Every property together is a ref, and its to_dict fits.
        let mut full = dict.clone();
        for k in kind.dict_keys() {
            full.entry(k).or_insert_with(|| sample(k));
        }
        let r = SourceRef::from_dict(&Value::Object(full.clone())).unwrap();
        fits_top_level(v, &r.to_dict());
        // A key outside the properties is refused.
        full.insert("not_a_key".into(), json!("x"));
        assert!(SourceRef::from_dict(&Value::Object(full)).is_err());
    }
    assert!(SourceRef::from_dict(&json!({"kind": "tweet", "run_id": "r"})).is_err());
}

fn sourced() -> Provenance {
    Provenance::new(
        vec![SourceRef::step("run-42", 3).unwrap()],
        vec![],
        "abstractnote",
    )
    .unwrap()
    .with_reader(Some("reader-1"))
}

#[test]
fn provenance_names_its_keys_and_requires_the_actor() {
    let s = schema::<Provenance>();
    assert_eq!(keys(&s["properties"]), PROVENANCE_KEYS);
    assert_eq!(s["additionalProperties"], false);
    assert_eq!(strings(&s["required"]), ["actor"]);
    Provenance::from_dict(&json!({"actor": "a"})).unwrap();
    assert!(Provenance::from_dict(&json!({"sources": []})).is_err());
    assert!(Provenance::from_dict(&json!({"actor": "a", "run_id": "r"})).is_err());
    fits_top_level(&s, &sourced().to_dict());
    let source = resolve(&s, &s["properties"]["sources"]["items"]);
    assert_eq!(
        source["oneOf"].as_array().unwrap().len(),
        SOURCE_KINDS.len()
    );
}

fn revision() -> Revision {
    Revision::new(RevisionDraft {
        revision_id: "note-1-extract".into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: "2026-01-05T09:00:00Z".into(),
        ops: vec![
            RevisionOp::Assert(AssertOp::claim("ada", "knows", "bob")),
            RevisionOp::Close(
                CloseOp::new("a-1", "2026-01-05", CloseKind::Supersede, "why")
                    .with_replacements(vec!["a-3".into()])
                    .with_ripple("a-0", 1),
            ),
            RevisionOp::Narrow(NarrowOp::new("a-2", "2026-01-04")),
        ],
        provenance: sourced(),
        recorded_at: None,
        summary: Some("one".into()),
    })
    .unwrap()
}

#[test]
fn a_revision_requires_exactly_what_from_dict_refuses_without() {
    let s = schema::<Revision>();
    assert_eq!(s["additionalProperties"], false);
    let dict = revision().to_dict();
    assert_eq!(keys(&s["properties"]), keys(&dict));
    fits_top_level(&s, &dict);
    Revision::from_dict(&dict).unwrap();
    let required = strings(&s["required"]);
    for k in keys(&dict) {
        let mut fewer = dict.clone();
        fewer.as_object_mut().unwrap().remove(&k);
        assert_eq!(
            Revision::from_dict(&fewer).is_err(),
            required.contains(&k),
            "without {k:?}: required {required:?}"
        );
    }
    let mut extra = dict.clone();
    extra["not_a_key"] = json!(1);
    assert!(Revision::from_dict(&extra).is_err());
    assert_eq!(strings(&s["properties"]["cause"]["enum"]), REVISION_CAUSES);
}

#[test]
fn revision_ops_are_told_apart_by_op_with_closed_payloads() {
    let s = schema::<Revision>();
    let ops = s["properties"]["ops"]["items"]["oneOf"].as_array().unwrap();
    let names: Vec<&str> = ops
        .iter()
        .map(|o| o["properties"]["op"]["const"].as_str().unwrap())
        .collect();
    assert_eq!(names, REVISION_OPS);
    let dict = revision().to_dict();
    for (op, written) in ops.iter().zip(dict["ops"].as_array().unwrap()) {
        fits_top_level(op, written);
        let payload = &op["properties"]["payload"];
        let props = payload.get("properties").expect("a closed payload");
        assert_eq!(payload["additionalProperties"], false);
        if written["op"] == "assert" {
            // The TripleAssertion dict less what the revision supplies: its
            // null keys are left out, and only the triple is always there.
            let have = keys(props);
            for k in keys(&written["payload"]) {
                assert!(
                    have.contains(&k),
                    "{k} is not a property of the assert payload"
                );
            }
            assert_eq!(
                strings(&payload["required"]),
                ["subject", "predicate", "object"]
            );
        } else {
            assert_eq!(keys(props), keys(&written["payload"]));
        }
        fits_top_level(payload, &written["payload"]);
    }
    let close = &ops[1]["properties"]["payload"];
    assert_eq!(strings(&close["properties"]["kind"]["enum"]), CLOSE_KINDS);
}

#[test]
fn a_revision_result_fits_its_schema() {
    let r = RevisionResult {
        revision_id: "r".into(),
        applied: true,
        assertion_ids: vec!["a".into()],
        re_observed: vec![],
        closed: vec![],
        narrowed: vec![],
        skipped: vec![SkippedOp {
            op: "assert".into(),
            index: 0,
            assertion_id: "a".into(),
            why: "re-observed".into(),
        }],
        seq: 1,
        recorded_at: "2026-01-05T09:00:00.000000+00:00".into(),
    };
    let s = schema::<RevisionResult>();
    let dict = r.to_dict();
    assert_eq!(keys(&s["properties"]), keys(&dict));
    fits_top_level(&s, &dict);
    let skipped = resolve(&s, &s["properties"]["skipped"]["items"]);
    fits_top_level(skipped, &dict["skipped"][0]);
}
