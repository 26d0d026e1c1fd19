//! The JSON Schemas of the layer-1 types (`schemars`) say their wire:
//! `TripleAssertion` (its `to_dict`/`from_dict` object), `TripleQuery`,
//! `Timestamp` (a string), the `vocabulary!` enums (a string enum).

use am_triples::{EmbeddingPin, Order, Timestamp, TripleAssertion, TripleQuery};
use schemars::{JsonSchema, schema_for};
use serde_json::{Value, json};

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).unwrap()
}

fn sorted(v: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = v.into_iter().collect();
    v.sort();
    v
}

fn properties(s: &Value) -> Vec<String> {
    sorted(s["properties"].as_object().unwrap().keys().cloned())
}

fn required(s: &Value) -> Vec<String> {
    sorted(
        s["required"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap().to_owned())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default(),
    )
}

/// Every key of `value` is a property of `s`, and every required key is there.
fn fits_top_level(s: &Value, value: &Value) {
    let obj = value.as_object().expect("an object");
    for r in required(s) {
        assert!(obj.contains_key(&r), "missing required {r:?} in {value}");
    }
    let props = properties(s);
    for k in obj.keys() {
        assert!(props.contains(k), "{k:?} is not a property of {s}");
    }
}

#[test]
fn triple_assertion_requires_its_terms_and_is_closed() {
    let s = schema::<TripleAssertion>();
    assert_eq!(s["type"], "object");
    assert_eq!(required(&s), ["object", "predicate", "subject"]);
    assert_eq!(s["additionalProperties"], false);
    assert_eq!(
        s["properties"]["confidence"]["type"],
        json!(["number", "null"])
    );
    assert_eq!(s["properties"]["attributes"]["type"], "object");
    // The schema's properties are exactly the keys `from_dict` accepts.
    let mut full = json!({"subject": "a", "predicate": "b", "object": "c"});
    for k in properties(&s) {
        full.as_object_mut()
            .unwrap()
            .entry(k)
            .or_insert(Value::Null);
    }
    TripleAssertion::from_dict(&full).unwrap();
    let mut extra = full.clone();
    extra["not_a_field"] = json!(1);
    assert!(TripleAssertion::from_dict(&extra).is_err());
    // A real `to_dict` fits.
    let a = TripleAssertion::new("a", "b", "c")
        .with_owner("o")
        .with_observed_at("2026-01-01");
    fits_top_level(&s, &a.to_dict());
}

#[test]
fn triple_query_is_closed_optional_and_orders_asc_or_desc() {
    let s = schema::<TripleQuery>();
    assert_eq!(s["additionalProperties"], false);
    assert!(required(&s).is_empty());
    let q = serde_json::to_value(TripleQuery::default()).unwrap();
    assert_eq!(
        properties(&s),
        sorted(q.as_object().unwrap().keys().cloned())
    );
    let order = &s["$defs"]["Order"];
    let names: Vec<&Value> = order["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["const"])
        .collect();
    assert_eq!(names, [&json!("asc"), &json!("desc")], "{s}");
    assert_eq!(serde_json::to_value(Order::Asc).unwrap(), "asc");
    assert_eq!(s["properties"]["limit"]["type"], "integer");
}

#[test]
fn timestamp_is_a_string_describing_its_forms() {
    let s = schema::<Timestamp>();
    assert_eq!(s["type"], "string");
    let d = s["description"].as_str().unwrap();
    assert!(d.contains("YYYY-MM-DDTHH:MM:SS.ffffff+00:00"), "{d}");
    let written = serde_json::to_value(Timestamp::parse("2026-01-01").unwrap()).unwrap();
    assert_eq!(written, s["examples"][0]);
}

am_triples::vocabulary! {
    /// A test vocabulary.
    pub enum Colour("colour") {
        /// Red.
        Red = "red",
        /// Dark blue.
        DarkBlue = "dark_blue",
    }
}

#[test]
fn a_vocabulary_is_a_string_enum_of_its_wire_names() {
    let s = schema::<Colour>();
    assert_eq!(s["type"], "string");
    assert_eq!(s["enum"], json!(["red", "dark_blue"]));
    for name in s["enum"].as_array().unwrap() {
        serde_json::from_value::<Colour>(name.clone()).unwrap();
    }
}

#[test]
fn an_embedding_pin_fits_its_schema() {
    let s = schema::<EmbeddingPin>();
    let pin: EmbeddingPin = serde_json::from_value(json!({
        "model_id": "m", "dimension": 3, "source": "creation",
        "pinned_at": "2026-01-01T00:00:00.000000+00:00"
    }))
    .unwrap_or_else(|e| panic!("{e}: {s}"));
    fits_top_level(&s, &serde_json::to_value(&pin).unwrap());
    assert_eq!(required(&s), ["pinned_at", "source"]);
}
