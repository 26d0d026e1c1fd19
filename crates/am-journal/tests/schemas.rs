//! The journal records' JSON Schemas (`schemars`) say their serde wire: real
//! records' keys are the schema's properties, and the `vocabulary!` enums are
//! string enums of their wire names.

use am_journal::{ClosureKind, ClosureRecord, JournalRecord, TaskKind, TaskStatus, Window};
use schemars::{JsonSchema, schema_for};
use serde_json::{Value, json};

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).unwrap()
}

#[test]
fn vocabularies_are_string_enums_of_their_wire_names() {
    assert_eq!(schema::<ClosureKind>()["enum"], json!(ClosureKind::NAMES));
    assert_eq!(schema::<TaskKind>()["enum"], json!(TaskKind::NAMES));
    assert_eq!(schema::<TaskStatus>()["enum"], json!(TaskStatus::NAMES));
    assert_eq!(schema::<Window>()["type"], "string");
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn a_closure_record_fits_its_schema_and_every_key_is_optional() {
    let s = schema::<ClosureRecord>();
    let record = ClosureRecord {
        assertion_id: "a-1".into(),
        kind: ClosureKind::Retract,
        reason: "wrong".into(),
        ..ClosureRecord::default()
    };
    let written = serde_json::to_value(&record).unwrap();
    assert_eq!(keys(&s["properties"]), keys(&written));
    // `#[serde(default)]`: nothing is required, and `{}` reads.
    assert!(s.get("required").is_none(), "{s}");
    serde_json::from_value::<ClosureRecord>(json!({})).unwrap();
    assert_eq!(s["properties"]["seq"]["type"], "integer");
}

#[test]
fn a_journal_record_is_one_of_its_families_untagged() {
    let s = schema::<JournalRecord>();
    let variants = s["anyOf"].as_array().expect("untagged: anyOf");
    assert_eq!(variants.len(), 7);
    let closure = ClosureRecord {
        assertion_id: "a-1".into(),
        ..ClosureRecord::default()
    };
    let written = serde_json::to_value(JournalRecord::Closure(closure)).unwrap();
    let closure_schema = schema::<ClosureRecord>();
    assert_eq!(keys(&written), keys(&closure_schema["properties"]));
    assert!(
        variants
            .iter()
            .any(|v| v["$ref"] == "#/$defs/ClosureRecord"),
        "{s}"
    );
}
