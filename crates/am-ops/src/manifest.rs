//! `engine_manifest()`: the machine-readable inventory of what this build
//! contains, generated from the verb table and the engine's own constants,
//! so it cannot disagree with what ships.
//!
//! What is derived: the passes (every verb of the table that declares a
//! cadence class, with its family, whether it writes, and its flags: the
//! keyword arguments with a default, read off the arguments' schema), the
//! ops (every verb of the table), the vocabularies (the engine's own
//! constant lists), the tunables (each tuning struct's defaults, serialized)
//! and the constants. What is declared: each pass's cadence class and
//! honesty properties, in its verb-table entry (`Builder::cadence`), one
//! place per pass.
//!
//! Consumers version by field presence; `MANIFEST_VERSION` changes only on a
//! breaking reshape. Lists are sorted except `passes` and `ops` (table
//! order, docs/exec.md's). Pure and JSON-safe.
//!
//! Spec: api.md "Maintenance, health, and operator tools" (`engine_manifest`,
//! `MANIFEST_VERSION`). The payload's shape follows AbstractMemory 0.3.2,
//! which builds it by introspecting its Python modules; a vocabulary this
//! port does not have yet (`reflection_form_kinds`) is absent, not empty.

use crate::verb::{Cadence, Verb};
use serde_json::{Map, Value, json};

/// The engine manifest's schema version.
pub const MANIFEST_VERSION: i64 = 1;

fn sorted(items: &[&str]) -> Value {
    let mut v: Vec<&str> = items.to_vec();
    v.sort_unstable();
    v.dedup();
    json!(v)
}

/// The keyword arguments of `verb` that have a default, with it (from the
/// arguments' schema, so a renamed or dropped flag changes the manifest).
fn flags(verb: &Verb) -> Value {
    let schema = verb.args_schema();
    let mut out = Map::new();
    if let Some(props) = schema
        .as_value()
        .get("properties")
        .and_then(Value::as_object)
    {
        for (name, p) in props {
            if let Some(d) = p.get("default") {
                out.insert(name.clone(), d.clone());
            }
        }
    }
    Value::Object(out)
}

fn family_name(verb: &Verb) -> Value {
    serde_json::to_value(verb.family).unwrap_or(Value::Null)
}

fn tunable<T: serde::Serialize + Default>() -> Value {
    serde_json::to_value(T::default()).unwrap_or(Value::Null)
}

/// The engine inventory (see the module doc).
pub fn engine_manifest() -> Value {
    let table = crate::table();
    let passes: Vec<Value> = table
        .iter()
        .filter_map(|v| {
            v.cadence.map(|c| {
                json!({
                    "name": v.name,
                    "family": family_name(v),
                    "writes": v.writes,
                    "cadence_class": c,
                    "honesty": sorted(v.honesty),
                    "flags": flags(v),
                })
            })
        })
        .collect();
    let ops: Vec<Value> = table
        .iter()
        .map(|v| json!({"name": v.name, "family": family_name(v), "writes": v.writes}))
        .collect();
    let kind_ranks: Map<String, Value> = {
        let mut k: Vec<(&str, i64)> = am_system::kinds::KIND_RANKS.to_vec();
        k.sort_unstable();
        k.into_iter()
            .map(|(n, r)| (n.to_owned(), json!(r)))
            .collect()
    };
    let cadences: Vec<Value> = {
        let mut c: Vec<String> = Cadence::ALL
            .iter()
            .filter_map(|c| serde_json::to_value(c).ok())
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        c.sort();
        c.into_iter().map(Value::String).collect()
    };
    json!({
        "manifest": "abstractmemory-engine",
        "manifest_version": MANIFEST_VERSION,
        "passes": passes,
        "ops": ops,
        "vocabularies": {
            "record_kinds": sorted(am_system::kinds::MEMORY_RECORD_KINDS),
            "kind_ranks": kind_ranks,
            "diary_types": sorted(am_system::kinds::DIARY_TYPES),
            "consolidation_protected_kinds":
                sorted(&am_system::sleep::maintenance::CONSOLIDATION_PROTECTED_KINDS),
            "identity_kinds": sorted(am_system::kinds::IDENTITY_KINDS),
            "digest_methods": sorted(&am_system::tasks::MECHANICAL_DIGEST_METHODS),
            "warning_words": sorted(&am_system::operator::WARNING_WORDS),
            "disposal_relations": sorted(&am_system::candidates::DISPOSAL_RELATIONS),
            "valence_kinds": sorted(&am_journal::VALENCE_KINDS),
            "event_kinds": sorted(&am_journal::event::all_event_kinds()),
            "redigestion_protected_kinds":
                sorted(&am_system::operator::REDIGESTION_PROTECTED_KINDS),
            "cadence_classes": cadences,
        },
        "tunables": {
            "RecallBudget": tunable::<am_system::RecallBudget>(),
            "AttentionConfig": tunable::<am_system::AttentionConfig>(),
            "SleepTuning": tunable::<am_system::config::SleepTuning>(),
            "GradationConfig": tunable::<am_system::GradationConfig>(),
        },
        "constants": {
            "DRIVE_PRESSURE_BOUND": am_system::config::DRIVE_PRESSURE_BOUND,
            "SELF_FRACTION_FLOOR": am_system::SELF_FRACTION_FLOOR,
            "ENTITY_CONTEXT_FLOOR": am_system::ENTITY_CONTEXT_FLOOR,
            "ENTITY_CONTEXT_ACCEPTABLE": am_system::ENTITY_CONTEXT_ACCEPTABLE,
            "ENTITY_RECALL_CANDIDATE_CAP": am_system::ENTITY_RECALL_CANDIDATE_CAP,
            "GROUP_BOOST_STEP": am_system::config::GROUP_BOOST_STEP,
            "GROUP_MIN_SHARED_TERMS": am_system::config::GROUP_MIN_SHARED_TERMS,
            "GROUP_OFFER_FLOOR": am_system::config::GROUP_OFFER_FLOOR,
            "VECTOR_SCAN_LIMIT": am_system::operator::VECTOR_SCAN_LIMIT,
            "MANIFEST_VERSION": MANIFEST_VERSION,
        },
        "provenance": "Generated from the verb table (the passes, their flags from the arguments' schemas, the ops) and the engine's own constant lists and tuning defaults; each pass's cadence class and honesty properties are declared once, in its verb-table entry. Fetch or import it; a copy drifts.",
    })
}
