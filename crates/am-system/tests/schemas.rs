//! The JSON Schemas of the verbs' arguments and answers (`schemars`) say the
//! wire serde reads and writes: every arguments struct's closedness and
//! required keys agree with what deserializing refuses, the hand-written
//! schemas name the keys their types write, and real results validate
//! (top-level keys) against their schemas.

use am_system::outcome::{Outcome, Reason, UnderstandingResult};
use am_system::{
    ActivationParts, Admission, BudgetSpent, DropReason, DroppedEntry, EdgeView, MemoryHandle,
    OrderedMap, PayloadTier, ReconstructionResult, Stimulus, StmTrailEdge, StopReason, View,
};
use schemars::{JsonSchema, schema_for};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The schema of `T` as JSON.
fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).unwrap()
}

/// `node`, or the `$defs` entry its `$ref` names (one level).
fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/$defs/").expect("a local $ref");
            &root["$defs"][name]
        }
        None => node,
    }
}

/// The property names of an object schema.
fn properties(s: &Value) -> Vec<String> {
    s["properties"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// The required keys of an object schema.
fn required(s: &Value) -> Vec<String> {
    s["required"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// Whether `value`'s top-level keys fit the object schema `s`: every required
/// key is present, and no key outside `properties` when the schema is closed.
fn fits_top_level(s: &Value, value: &Value) -> Result<(), String> {
    let obj = value.as_object().ok_or("not an object")?;
    for r in required(s) {
        if !obj.contains_key(&r) {
            return Err(format!("missing required {r:?}"));
        }
    }
    if s["additionalProperties"] == json!(false) {
        let props = properties(s);
        for k in obj.keys() {
            if !props.contains(k) {
                return Err(format!("{k:?} is not a property"));
            }
        }
    }
    Ok(())
}

/// An arguments struct's schema agrees with its `Deserialize`: closed exactly
/// when an unknown key is refused, and `{}` is refused naming a required key
/// (or accepted when nothing is required).
fn check_arguments<T: JsonSchema + DeserializeOwned>() {
    let s = schema::<T>();
    let name = s["title"].as_str().unwrap_or("?").to_owned();
    assert_eq!(s["type"], "object", "{name}: {s}");
    assert!(!properties(&s).is_empty(), "{name} has no properties");
    let unknown = serde_json::from_value::<T>(json!({"__not_a_field__": 1}));
    let refuses_unknown = matches!(&unknown, Err(e) if e.to_string().contains("unknown field"));
    assert_eq!(
        s["additionalProperties"] == json!(false),
        refuses_unknown,
        "{name}: additionalProperties {} but deserializing an unknown key gave {:?}",
        s["additionalProperties"],
        unknown.err().map(|e| e.to_string())
    );
    let req = required(&s);
    match serde_json::from_value::<T>(json!({})) {
        Ok(_) => assert!(
            req.is_empty(),
            "{name}: {{}} reads but {req:?} are required"
        ),
        Err(e) => {
            let text = e.to_string();
            let missing = text
                .split('`')
                .nth(1)
                .unwrap_or_else(|| panic!("{name}: {{}} refused without a field: {text}"));
            assert!(
                text.contains("missing field") && req.iter().any(|r| r == missing),
                "{name}: {{}} refused for {missing:?} ({text}) but required is {req:?}"
            );
        }
    }
}

macro_rules! arguments {
    ($($t:ty),+ $(,)?) => {$( check_arguments::<$t>(); )+};
}

#[test]
fn every_arguments_struct_is_closed_and_requires_what_serde_requires() {
    use am_system::observe::{diagnostics, diary, replay};
    use am_system::{formation, identity, recall, tasks, understanding, valence};
    arguments!(
        formation::args::RememberMany,
        formation::args::Remember,
        recall::args::Reconstruct,
        recall::args::CommitSelection,
        recall::args::Reinforce,
        recall::args::Refocus,
        recall::args::Activation,
        recall::args::Bind,
        recall::args::CloseAssertions,
        recall::args::CloseRecord,
        understanding::args::RewriteDigest,
        understanding::args::Retitle,
        understanding::args::NarrateDream,
        understanding::args::RevertDigest,
        understanding::args::DeclarePending,
        understanding::args::RearmPending,
        tasks::args::Enqueue,
        tasks::args::EnqueueMany,
        tasks::args::SelectForWindow,
        tasks::args::Claim,
        tasks::args::Ack,
        tasks::args::Release,
        tasks::args::ListTasks,
        tasks::args::Prioritize,
        tasks::debt::UnderstandingDebt,
        tasks::debt::EnqueueDebt,
        tasks::reads::PendingRecords,
        identity::Engram,
        identity::SelfRecords,
        valence::Appraise,
        valence::HealScar,
        valence::BreakBond,
        valence::Gradation,
        valence::feelings::FeelingsAbout,
        valence::feelings::StimulusFeelings,
        diary::DiaryRead,
        diary::TriggeredCommitments,
        diagnostics::RecallHistory,
        diagnostics::OriginDiversity,
        diagnostics::RecentRecords,
        replay::ExportReplay,
        am_system::observe::card::EntityCard,
        Stimulus,
    );
}

#[test]
fn remember_many_is_closed_and_lists_its_required_fields() {
    let s = schema::<am_system::RememberMany>();
    assert_eq!(s["additionalProperties"], false);
    let mut req = required(&s);
    req.sort();
    assert_eq!(req, ["idempotency_key", "owner_id", "records", "scope"]);
    assert!(properties(&s).contains(&"turn_id".to_owned()));
    let records = resolve(&s, &s["properties"]["records"]["items"]);
    assert_eq!(records["type"], "object", "{records}");
}

#[test]
fn stimulus_cue_text_is_a_string_and_nothing_is_required() {
    let s = schema::<Stimulus>();
    assert_eq!(s["properties"]["cue_text"]["type"], "string");
    assert_eq!(s["additionalProperties"], false);
    assert!(required(&s).is_empty());
    let embedding = &s["properties"]["embedding"];
    assert_eq!(embedding["type"], json!(["array", "null"]), "{embedding}");
}

#[test]
fn vocabularies_are_string_enums_of_their_wire_names() {
    let s = schema::<StopReason>();
    assert_eq!(s["type"], "string");
    assert_eq!(s["enum"], json!(StopReason::NAMES));
    let s = schema::<am_system::tasks::args::LeftOutReason>();
    assert_eq!(
        s["enum"],
        json!(am_system::tasks::args::LeftOutReason::NAMES)
    );
    // A vocabulary used in a struct is a reference to that enum.
    let h = schema::<MemoryHandle>();
    let tiers = resolve(&h, &h["properties"]["payload_tiers"]["items"]);
    assert_eq!(tiers["enum"], json!(PayloadTier::NAMES));
}

#[test]
fn ordered_map_is_an_object_of_its_value_schema() {
    let s = schema::<OrderedMap<f64>>();
    assert_eq!(s["type"], "object");
    assert_eq!(s["additionalProperties"]["type"], "number");
    let h = schema::<MemoryHandle>();
    assert_eq!(h["properties"]["relevance"]["type"], "object");
}

#[test]
fn left_out_names_the_keys_it_writes() {
    let s = schema::<am_system::tasks::args::LeftOut>();
    let mut props = properties(&s);
    props.sort();
    assert_eq!(
        props,
        [
            "activation",
            "cost_seconds",
            "kind",
            "reason",
            "target_id",
            "task_id"
        ]
    );
    assert_eq!(required(&s).len(), 6);
    let w = schema::<am_system::tasks::args::WindowSelection>();
    let left_out = resolve(&w, &w["properties"]["left_out"]["items"]);
    assert_eq!(left_out["required"], s["required"]);
}

fn handle() -> MemoryHandle {
    let mut relevance = OrderedMap::new();
    relevance.insert("exact", 1.0);
    MemoryHandle {
        record_id: "r".into(),
        kind: "memory".into(),
        title: None,
        digest: "d".into(),
        token_estimate: 1,
        relevance,
        activation: ActivationParts::default(),
        cues: vec!["exact".into()],
        binding: "indexed+inactive".into(),
        scope: "s".into(),
        owner_id: String::new(),
        provenance: Default::default(),
        payload_tiers: vec![PayloadTier::Digest],
        admission: Admission::Stimulus,
    }
}

#[test]
fn a_reconstruction_result_fits_its_schema() {
    let r = ReconstructionResult {
        trace_id: "t".into(),
        view: View::WorkingSet,
        as_of_seq: 3,
        handles: vec![handle()],
        edges: vec![EdgeView::StmTrail(StmTrailEdge {
            source: "stm_trail".into(),
            pair: ["a".into(), "b".into()],
            trail_activation: 1.5,
        })],
        dropped: vec![DroppedEntry {
            record_id: "x".into(),
            score: 0.1,
            reason: DropReason::BelowShelf,
        }],
        selector_route: "heuristic".into(),
        stop_reason: StopReason::Enough,
        warnings: vec![],
        budget_spent: BudgetSpent::default(),
    };
    // The exec answer is `to_dict()`, the serde form: one schema says both.
    let dict = r.to_dict();
    assert_eq!(dict, serde_json::to_value(&r).unwrap());
    let s = schema::<ReconstructionResult>();
    fits_top_level(&s, &dict).unwrap();
    let mut props = properties(&s);
    let mut keys: Vec<String> = dict.as_object().unwrap().keys().cloned().collect();
    props.sort();
    keys.sort();
    assert_eq!(props, keys);
    let h = resolve(&s, &s["properties"]["handles"]["items"]);
    fits_top_level(h, &dict["handles"][0]).unwrap();
    let mut hp = properties(h);
    hp.sort();
    let mut hk: Vec<String> = dict["handles"][0]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    hk.sort();
    assert_eq!(hp, hk);
    let b = resolve(&s, &s["properties"]["budget_spent"]);
    fits_top_level(b, &dict["budget_spent"]).unwrap();
}

#[test]
fn the_understanding_envelope_schema_is_its_wire_form() {
    let r = UnderstandingResult::new(Outcome::Refused(Reason::Stale), "ex:1", "digest");
    let v = serde_json::to_value(&r).unwrap();
    let s = schema::<UnderstandingResult>();
    fits_top_level(&s, &v).unwrap();
    for k in [
        "applied",
        "outcome",
        "reason",
        "record_id",
        "field",
        "version",
    ] {
        assert!(properties(&s).contains(&k.to_owned()), "{k} in {s}");
    }
    // `extra` rides flattened: the envelope is open, not a nested `extra` key.
    assert!(!properties(&s).contains(&"extra".to_owned()));
    assert_ne!(s["additionalProperties"], json!(false));
    assert_eq!(s["properties"]["applied"]["type"], "boolean");
}
