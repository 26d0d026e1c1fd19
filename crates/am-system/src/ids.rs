//! Every deterministic id layer 2 derives, identical to AbstractMemory's so
//! replays and idempotency keys agree across implementations.
//!
//! `H(x)` is the lowercase sha256 hex of the UTF-8 bytes of `x`; `[:n]` its
//! first `n` hex characters. Spec: algorithms.md §9 "Identity derivations".

use crate::kinds::RecordKind;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `H(payload)[:len]`.
pub fn derived_hex(payload: &str, len: usize) -> String {
    let mut h = hex::encode(Sha256::digest(payload.as_bytes()));
    h.truncate(len);
    h
}

/// The graph record id: `"ex:" + kind + "-" + H(key|position)[:26]`.
///
/// # Examples
/// ```
/// let id = am_system::ids::record_id_for(am_system::RecordKind::Lesson, "turn-1", 0);
/// assert!(id.starts_with("ex:lesson-") && id.len() == "ex:lesson-".len() + 26);
/// ```
pub fn record_id_for(kind: RecordKind, idempotency_key: &str, position: usize) -> String {
    format!(
        "ex:{kind}-{}",
        derived_hex(&format!("{idempotency_key}|{position}"), 26)
    )
}

/// The digest assertion id: `H(key|position|digest)[:32]`.
pub fn digest_assertion_id(idempotency_key: &str, position: usize) -> String {
    derived_hex(&format!("{idempotency_key}|{position}|digest"), 32)
}

/// An edge assertion id: `H(key|position|edge|relation|resolved_target)[:32]`
/// (the resolved target, so `local:<i>` and the concrete graph id dedupe).
pub fn edge_assertion_id(
    idempotency_key: &str,
    position: usize,
    relation: &str,
    target: &str,
) -> String {
    derived_hex(
        &format!("{idempotency_key}|{position}|edge|{relation}|{target}"),
        32,
    )
}

/// The formation binding id: `H(key|position|binding)[:32]`.
pub fn formation_binding_id(idempotency_key: &str, position: usize) -> String {
    derived_hex(&format!("{idempotency_key}|{position}|binding"), 32)
}

/// A `close_record` closure id: `H(graph_id|kind|assertion_id|closure)[:32]`
/// (reason, replacements and timestamps never enter the key).
pub fn closure_id(graph_id: &str, kind: am_journal::ClosureKind, assertion_id: &str) -> String {
    derived_hex(&format!("{graph_id}|{kind}|{assertion_id}|closure"), 32)
}

/// A commit event id: `H(trace_id|kind|key)[:32]`; `key` is the record id for
/// `selected` (and `listed`), `"a+b"` (the sorted pair) for `co_selected`.
pub fn selection_event_id(trace_id: &str, kind: am_journal::EventKind, key: &str) -> String {
    derived_hex(&format!("{trace_id}|{kind}|{key}"), 32)
}

/// The commit snapshot id (also the events' `context_ref`): `H(trace_id|snapshot)[:32]`.
pub fn selection_snapshot_id(trace_id: &str) -> String {
    derived_hex(&format!("{trace_id}|snapshot"), 32)
}

/// The query fingerprint of a stimulus: `H(json({"cue_text", "patterns"}))[:16]`
/// with sorted keys, non-ASCII kept and compact separators, as Python's
/// `json.dumps(..., sort_keys=True, ensure_ascii=False, separators=(",", ":"))`.
pub fn query_fingerprint(cue_text: &str, patterns: &[am_triples::JsonMap]) -> String {
    let value = serde_json::json!({
        "cue_text": cue_text,
        "patterns": patterns.iter().cloned().map(Value::Object).collect::<Vec<_>>(),
    });
    derived_hex(&sorted_json(&value), 16)
}

/// Compact JSON text with object keys sorted at every level (Python's
/// `sort_keys=True`; the workspace's serde_json keeps insertion order).
pub fn sorted_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let body: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        Value::String(k.clone()),
                        sorted_json(&map[k.as_str()])
                    )
                })
                .collect();
            format!("{{{}}}", body.join(","))
        }
        Value::Array(items) => {
            let body: Vec<String> = items.iter().map(sorted_json).collect();
            format!("[{}]", body.join(","))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sha256_prefixes_of_the_documented_payloads() {
        // sha256("k|0") computed independently.
        assert_eq!(derived_hex("k|0", 64), hex::encode(Sha256::digest(b"k|0")));
        assert_eq!(
            record_id_for(RecordKind::Memory, "k", 0),
            format!("ex:memory-{}", derived_hex("k|0", 26))
        );
        assert_eq!(digest_assertion_id("k", 1), derived_hex("k|1|digest", 32));
        assert_eq!(selection_snapshot_id("t"), derived_hex("t|snapshot", 32));
    }

    #[test]
    fn sorted_json_sorts_keys_at_every_level_and_keeps_non_ascii() {
        let v = serde_json::json!({"b": 1, "a": {"d": "é", "c": [1, {"z": null, "y": true}]}});
        assert_eq!(
            sorted_json(&v),
            r#"{"a":{"c":[1,{"y":true,"z":null}],"d":"é"},"b":1}"#
        );
    }
}
