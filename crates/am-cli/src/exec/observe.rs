//! The observability ops of `am exec`: the replay stream, the identity card
//! and the recall diagnostics (docs/exec.md, "Observing a mind"). All are
//! pure reads.

use super::to_json;
use super::{Args, Session};
use crate::error::{CliError, CliResult};
use am_system::card::EntityCard;
use am_system::diagnostics::{
    OriginDiversity, RecallHistory, RecentRecords, absence_diagnosis, explain_recall,
    origin_diversity, stable_render_order,
};
use am_system::replay::ExportReplay;
use am_system::seam::MemoryHandle;
use serde::Deserialize;
use serde_json::{Value, json};

/// The ops of this module, in the order docs/exec.md lists them.
pub const OBSERVE_OPS: &[&str] = &[
    "export_replay",
    "recall_history",
    "explain_recall",
    "absence_diagnosis",
    "origin_diversity",
    "stable_render_order",
    "recent_records",
    "entity_card",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplainArgs {
    record_id: String,
    #[serde(default)]
    trace_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AbsenceArgs {
    record_id: String,
    scope: String,
    #[serde(default)]
    owner_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RenderArgs {
    handles: Vec<MemoryHandle>,
}

/// Run one observability op.
pub fn dispatch(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    let sys = &s.engine()?.system;
    let (store, journal) = (sys.store().as_ref(), sys.journal().as_ref());
    match op {
        "export_replay" => {
            let envelopes = sys
                .export_replay(&a.parse::<ExportReplay>()?)?
                .collect::<Result<Vec<_>, _>>()?;
            to_json(&envelopes)
        }
        "recall_history" => to_json(&sys.recall_history(&a.parse::<RecallHistory>()?)?),
        "explain_recall" => {
            let ExplainArgs {
                record_id,
                trace_id,
            } = a.parse()?;
            to_json(&explain_recall(
                store,
                journal,
                &record_id,
                trace_id.as_deref(),
            )?)
        }
        "absence_diagnosis" => {
            let AbsenceArgs {
                record_id,
                scope,
                owner_id,
            } = a.parse()?;
            to_json(&absence_diagnosis(
                store,
                journal,
                &record_id,
                (&scope, &owner_id),
            )?)
        }
        "origin_diversity" => to_json(&origin_diversity(&a.parse::<OriginDiversity>()?)?),
        "stable_render_order" => {
            let RenderArgs { handles } = a.parse()?;
            let ordered: Vec<Value> = stable_render_order(&handles)
                .into_iter()
                .map(|(h, rank)| json!([h, rank]))
                .collect();
            Ok(Value::Array(ordered))
        }
        "recent_records" => to_json(&sys.recent_records(&a.parse::<RecentRecords>()?)?),
        "entity_card" => to_json(&sys.entity_card(&a.parse::<EntityCard>()?)?),
        other => Err(CliError::invalid(format!("unknown op {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::OBSERVE_OPS;
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::{Value, json};

    fn answer(s: &mut Session, line: &Value) -> Value {
        s.answer(&line.to_string()).expect("an answer").0
    }

    #[test]
    fn docs_exec_md_lists_every_observe_op() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/exec.md"))
                .expect("docs/exec.md exists");
        for op in OBSERVE_OPS {
            assert!(
                doc.contains(&format!("| `{op}` |")),
                "docs/exec.md lacks a row for {op}"
            );
        }
    }

    #[test]
    fn the_observe_ops_answer_and_write_nothing() {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s = Session::open(HomeSpec::Memory, None, clock).unwrap();
        let ids = answer(
            &mut s,
            &json!({"op": "remember_many", "records": [
                {"kind": "episode", "title": "Ada", "digest": "Ada signed the lease on plot 14."}],
                "scope": "life", "owner_id": "demo", "idempotency_key": "k"}),
        )["ok"]
            .clone();
        let rid = ids[0].as_str().unwrap();
        let r = answer(
            &mut s,
            &json!({"op": "reconstruct", "stimulus": {"cue_text": "lease plot"},
                    "scopes": [["life", "demo"]], "trace_id": "t1"}),
        );
        let handles = r["ok"]["handles"].clone();
        let seq = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        let replay = answer(&mut s, &json!({"op": "export_replay", "since_seq": 0}));
        assert_eq!(
            replay["ok"][0]["stream"], "abstractmemory.replay",
            "{replay}"
        );
        let lines = [
            json!({"op": "recall_history", "record_id": rid, "scope": "life", "owner_id": "demo"}),
            json!({"op": "explain_recall", "record_id": rid, "trace_id": "t1"}),
            json!({"op": "absence_diagnosis", "record_id": rid, "scope": "life", "owner_id": "demo"}),
            json!({"op": "origin_diversity", "handles": handles, "min_counted": 1}),
            json!({"op": "stable_render_order", "handles": handles}),
            json!({"op": "recent_records", "scopes": [["life", "demo"]], "since": "2025-01-01T00:00:00Z"}),
            json!({"op": "entity_card", "scope_pairs": [["life", "demo"]], "owner_id": "demo"}),
        ];
        for line in &lines {
            let a = answer(&mut s, line);
            assert!(a.get("ok").is_some(), "{line} -> {a}");
        }
        assert_eq!(
            answer(&mut s, &json!({"op": "current_seq"}))["ok"],
            seq,
            "the reads wrote nothing"
        );
        let a = answer(
            &mut s,
            &json!({"op": "explain_recall", "record_id": rid, "trace_id": "nope"}),
        );
        assert_eq!(a["error"]["kind"], "NotFound", "{a}");
        let a = answer(
            &mut s,
            &json!({"op": "export_replay", "families": ["gossip"]}),
        );
        assert_eq!(a["error"]["kind"], "InvalidInput", "{a}");
    }
}
