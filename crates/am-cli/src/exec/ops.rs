//! The exec verbs: each op takes the spec's argument names and answers the
//! spec's `to_dict()` shape. docs/exec.md lists them with their arguments.

use super::{Args, Session, to_json};
use crate::error::{CliError, CliResult};
use crate::query::query_from_json;
use am_journal::{
    BindingFilter, ClosureFilter, EventFilter, TraceFilter, ValenceFilter, VersionFilter,
};
use am_system::verbs::{
    Activation, Bind, CloseAssertions, CloseRecord, CommitSelection, Reconstruct, Refocus,
    Reinforce, Remember, RememberMany,
};
use am_triples::TripleAssertion;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Every op exec knows, in the order docs/exec.md lists them.
pub const OPS: &[&str] = &[
    "clock",
    "reopen",
    "write_barrier",
    "add",
    "query",
    "close_assertion",
    "narrow_assertion",
    "assertions_after",
    "embedding_pin",
    "remember_many",
    "remember",
    "reconstruct",
    "commit_selection",
    "reinforce",
    "attenuate",
    "refocus",
    "activation",
    "access_counts",
    "payload",
    "bind",
    "close_assertions",
    "close_record",
    "current_seq",
    "seq_at",
    "events",
    "bindings",
    "closures",
    "traces",
    "snapshots",
    "valence_events",
    "versions",
    "selected_count",
    "pair_selected_count",
    "rewrite_digest",
    "retitle",
    "narrate_dream",
    "revert_digest",
    "declare_pending",
    "rearm_pending",
    "current_of",
    "record_understanding",
    "understanding_fields",
    "reading_provenance",
];

fn list<T: Serialize>(items: &[T]) -> CliResult<Value> {
    to_json(&items)
}

// The arguments of the ops whose verb takes two arguments or fewer (the
// engine's own arguments structs cover the others). Each refuses an argument
// the verb does not take, as the engine's structs do.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteBarrierArgs {
    #[serde(default)]
    timeout_s: Option<f64>,
}

/// An op without arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockArgs {
    now: Option<String>,
    advance_s: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    /// `TripleAssertion` objects, read by `TripleAssertion::from_dict` (which
    /// refuses unknown fields) once the clock's `observed_at` is filled in.
    assertions: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QueryArgs {
    #[serde(default)]
    q: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowArgs {
    assertion_id: String,
    valid_until: String,
}

fn default_feed_limit() -> usize {
    am_triples::store::DEFAULT_FEED_LIMIT
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FeedArgs {
    #[serde(default)]
    cursor: i64,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    owner_id: Option<String>,
    #[serde(default = "default_feed_limit")]
    limit: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AccessCountsArgs {
    #[serde(default)]
    record_ids: Vec<String>,
    #[serde(default)]
    pairs: Vec<(String, String)>,
}

fn digest_tier() -> String {
    "digest".to_owned()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PayloadArgs {
    record_id: String,
    #[serde(default = "digest_tier")]
    tier: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeqAtArgs {
    iso_ts: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectedCountArgs {
    record_id: String,
    #[serde(default)]
    until_seq: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairSelectedCountArgs {
    pair: (String, String),
    #[serde(default)]
    until_seq: Option<i64>,
}

/// Run one op.
pub fn dispatch(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    match op {
        "clock" => {
            let ClockArgs { now, advance_s } = a.parse()?;
            match (now, advance_s) {
                (Some(n), None) => s.clock().set_iso(&n)?,
                (None, Some(x)) => s.clock().advance(x)?,
                (None, None) => {}
                (Some(_), Some(_)) => {
                    return Err(CliError::invalid(
                        "clock takes either \"now\" or \"advance_s\", not both",
                    ));
                }
            }
            Ok(json!({"now": s.clock().now()}))
        }
        "write_barrier" => {
            let WriteBarrierArgs { timeout_s } = a.parse()?;
            let timeout = match timeout_s {
                None => None,
                Some(t) if t.is_finite() && t >= 0.0 => Some(std::time::Duration::from_secs_f64(t)),
                Some(t) => {
                    return Err(CliError::invalid(format!(
                        "timeout_s must be a non-negative number of seconds (or null: wait), got {t}"
                    )));
                }
            };
            // Taken and released at once: the answer says what it held.
            let hold = s.engine()?.system.write_barrier(timeout)?;
            s.raised.borrow_mut().extend(hold.warnings.iter().cloned());
            Ok(json!({"locks": hold.locks, "files": hold.files, "uncovered": hold.uncovered}))
        }
        "reopen" => {
            let NoArgs {} = a.parse()?;
            let seq = s.reopen()?;
            Ok(json!({"current_seq": seq}))
        }
        _ => layer1(s, op, a),
    }
}

fn layer1(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    let sys = &s.engine()?.system;
    match op {
        "add" => {
            let AddArgs { assertions } = a.parse()?;
            let now = s.clock().now();
            let assertions = assertions
                .into_iter()
                .enumerate()
                .map(|(i, mut v)| {
                    if let Value::Object(m) = &mut v
                        && m.get("observed_at").is_none_or(Value::is_null)
                    {
                        m.insert("observed_at".into(), Value::String(now.clone()));
                    }
                    TripleAssertion::from_dict(&v)
                        .map_err(|e| CliError::from(e).context(&format!("add: assertions[{i}]")))
                })
                .collect::<CliResult<Vec<_>>>()?;
            Ok(json!(sys.add(&assertions)?))
        }
        "query" => {
            let QueryArgs { q } = a.parse()?;
            let q = query_from_json(&q.unwrap_or_else(|| json!({})))
                .map_err(|e| e.context("query: q"))?;
            let rows = sys.query(&q)?;
            Ok(Value::Array(
                rows.iter().map(TripleAssertion::to_dict).collect(),
            ))
        }
        "close_assertion" | "narrow_assertion" => {
            let WindowArgs {
                assertion_id,
                valid_until,
            } = a.parse()?;
            let changed = if op == "close_assertion" {
                sys.store().close_assertion(&assertion_id, &valid_until)?
            } else {
                sys.store().narrow_assertion(&assertion_id, &valid_until)?
            };
            Ok(json!(changed))
        }
        "assertions_after" => {
            let f: FeedArgs = a.parse()?;
            let page = sys.store().assertions_after(
                f.cursor,
                f.scope.as_deref(),
                f.owner_id.as_deref(),
                f.limit,
            )?;
            let rows: Vec<Value> = page
                .rows
                .iter()
                .map(|(pos, r)| json!([pos, r.to_dict()]))
                .collect();
            Ok(json!([rows, page.next_cursor]))
        }
        "embedding_pin" => {
            let NoArgs {} = a.parse()?;
            to_json(&sys.store().embedding_pin()?)
        }
        _ => system_ops(s, op, a),
    }
}

fn system_ops(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    let sys = &s.engine()?.system;
    match op {
        "remember_many" => s.warned(sys.remember_many(&a.parse::<RememberMany>()?)?),
        "remember" => s.warned(sys.remember(&a.parse::<Remember>()?)?),
        "reconstruct" => {
            // The result keeps its own `warnings` (the spec's dict); the
            // degraded paths also reach the answer line's `warnings`, where a
            // script looks for them (docs/exec.md).
            let result = sys.reconstruct(&a.parse::<Reconstruct>()?)?;
            s.raised
                .borrow_mut()
                .extend(result.warnings.iter().cloned());
            Ok(result.to_dict())
        }
        "commit_selection" => s.warned(sys.commit_selection(&a.parse::<CommitSelection>()?)?),
        "reinforce" => Ok(json!(sys.reinforce(&a.parse::<Reinforce>()?)?)),
        "attenuate" => Ok(json!(sys.attenuate(&a.parse::<Reinforce>()?)?)),
        "refocus" => Ok(json!(sys.refocus(&a.parse::<Refocus>()?)?)),
        "activation" => to_json(&sys.activation(&a.parse::<Activation>()?)?),
        "access_counts" => {
            let AccessCountsArgs { record_ids, pairs } = a.parse()?;
            let c = sys.access_counts(&record_ids, &pairs)?;
            let pairs: Vec<Value> = c
                .pairs
                .iter()
                .map(|((x, y), n)| json!([[x, y], n]))
                .collect();
            Ok(json!({"records": to_json(&c.records)?, "pairs": pairs}))
        }
        "payload" => {
            let PayloadArgs { record_id, tier } = a.parse()?;
            // An empty id is refused before the tier is read, as the spec's
            // payload checks its arguments in that order.
            let tier = if record_id.trim().is_empty() {
                am_system::PayloadTier::Digest
            } else {
                am_system::PayloadTier::requested(&tier)?
            };
            to_json(&sys.payload(&record_id, tier)?)
        }
        "bind" => to_json(&sys.bind(&a.parse::<Bind>()?)?),
        "close_assertions" => Ok(json!(sys.close_assertions(&a.parse::<CloseAssertions>()?)?)),
        "close_record" => Ok(json!(sys.close_record(&a.parse::<CloseRecord>()?)?)),
        "current_seq" => {
            let NoArgs {} = a.parse()?;
            Ok(json!(sys.current_seq()?))
        }
        "seq_at" => {
            let SeqAtArgs { iso_ts } = a.parse()?;
            Ok(json!(sys.seq_at(&iso_ts)?))
        }
        "versions" if super::understanding::is_system_versions(&a) => {
            super::understanding::understanding_op(sys, op, a)
        }
        op if super::understanding::OPS.contains(&op) => {
            super::understanding::understanding_op(sys, op, a)
        }
        _ => journal_ops(s, op, a),
    }
}

fn journal_ops(s: &mut Session, op: &str, a: Args) -> CliResult<Value> {
    let j = s.engine()?.system.journal();
    match op {
        "events" => list(&j.events(&a.parse::<EventFilter>()?)?),
        "bindings" => list(&j.bindings(&a.parse::<BindingFilter>()?)?),
        "closures" => list(&j.closures(&a.parse::<ClosureFilter>()?)?),
        "traces" => list(&j.traces(&a.parse::<TraceFilter>()?)?),
        "snapshots" => list(&j.snapshots(&a.parse::<TraceFilter>()?)?),
        "valence_events" => list(&j.valence_events(&a.parse::<ValenceFilter>()?)?),
        "versions" => list(&j.versions(&a.parse::<VersionFilter>()?)?),
        "selected_count" => {
            let SelectedCountArgs {
                record_id,
                until_seq,
            } = a.parse()?;
            Ok(json!(j.selected_count(&record_id, until_seq)?))
        }
        "pair_selected_count" => {
            let PairSelectedCountArgs {
                pair: (x, y),
                until_seq,
            } = a.parse()?;
            Ok(json!(j.pair_selected_count((&x, &y), until_seq)?))
        }
        other => Err(CliError::invalid(format!("unknown op {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::OPS;
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

    fn assert_refused_naming(s: &mut Session, line: &Value, field: &str) {
        assert_refused_as(s, line, field, "InvalidInput");
    }

    fn assert_refused_as(s: &mut Session, line: &Value, field: &str, kind: &str) {
        let seq = answer(s, &json!({"op": "current_seq"}))["ok"].clone();
        let a = answer(s, line);
        assert_eq!(a["error"]["kind"], kind, "{line} -> {a}");
        let message = a["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(field),
            "{line}: {message} names no {field}"
        );
        assert_eq!(
            answer(s, &json!({"op": "current_seq"}))["ok"],
            seq,
            "{line} wrote"
        );
    }

    fn form(s: &mut Session) -> Vec<String> {
        let a = answer(
            s,
            &json!({"op": "remember_many", "records": [
                {"kind": "episode", "title": "Ada", "digest": "Ada signed the lease on plot 14."},
                {"kind": "episode", "title": "Bram", "digest": "Bram builds raised beds."}],
                "scope": "life", "owner_id": "demo", "idempotency_key": "k"}),
        );
        serde_json::from_value(a["ok"].clone()).unwrap()
    }

    #[test]
    fn docs_exec_md_lists_every_op() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/exec.md"))
                .expect("docs/exec.md exists");
        for op in OPS {
            assert!(
                doc.contains(&format!("| `{op}` |")),
                "docs/exec.md lacks a row for {op}"
            );
        }
    }

    #[test]
    fn add_refuses_an_unknown_field_inside_a_triple_assertion() {
        let mut s = session();
        assert_refused_naming(
            &mut s,
            &json!({"op": "add", "assertions": [{"subject": "a", "predicate": "b", "object": "c", "colour": "red"}]}),
            "colour",
        );
        let q = answer(&mut s, &json!({"op": "query", "q": {"subject": "a"}}));
        assert_eq!(q["ok"], json!([]), "nothing was stored");
    }

    #[test]
    fn every_dataclass_argument_refuses_an_unknown_field_by_name() {
        let mut s = session();
        form(&mut s);
        let cases = [
            json!({"op": "query", "q": {"subject": "a", "colour": "red"}}),
            json!({"op": "remember", "record": {"kind": "episode", "title": "t", "digest": "d", "colour": "red"},
                   "scope": "life", "owner_id": "demo", "idempotency_key": "k2"}),
            json!({"op": "remember_many", "records": [{"kind": "episode", "title": "t", "digest": "d", "colour": "red"}],
                   "scope": "life", "owner_id": "demo", "idempotency_key": "k2"}),
            json!({"op": "reconstruct", "stimulus": {"cue_text": "lease", "colour": "red"}, "scopes": [["life", "demo"]]}),
            json!({"op": "reconstruct", "stimulus": {"cue_text": "lease"}, "scopes": [["life", "demo"]],
                   "budget": {"shelf_size": 3, "colour": "red"}}),
            json!({"op": "names_ref", "ref": {"kind": "step", "run_id": "r", "seq": 1, "colour": "red"}, "owner_ids": [""]}),
            json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z", "colour": "red",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b"}}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x"}}}),
            json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b"}, "colour": "red"}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x"}}}),
            json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b", "colour": "red"}}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x"}}}),
        ];
        for line in &cases {
            assert_refused_naming(&mut s, line, "colour");
        }
        // The graph refuses a malformed Provenance with its own kind (an
        // unknown key is a provenance the revision cannot be held to).
        assert_refused_as(
            &mut s,
            &json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b"}}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x", "colour": "red"}}}),
            "colour",
            "ProvenanceRequired",
        );
    }

    #[test]
    fn every_verb_refuses_an_argument_it_does_not_take_by_name() {
        let mut s = session();
        form(&mut s);
        for op in OPS.iter().chain(super::super::graph::GRAPH_OPS) {
            if *op == "reopen" {
                continue;
            }
            assert_refused_naming(&mut s, &json!({"op": op, "colour": "red"}), "colour");
        }
    }

    #[test]
    fn the_journal_counters_answer_as_of_until_seq() {
        let mut s = session();
        let ids = form(&mut s);
        let rows = answer(
            &mut s,
            &json!({"op": "query", "q": {"predicate": "dcterms:abstract", "order": "asc", "limit": 0}}),
        );
        let aid = |i: usize| rows["ok"][i]["assertion_id"].as_str().unwrap().to_owned();
        let (a, b) = (aid(0), aid(1));
        let before = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        let c = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "t1", "used_record_ids": ids}),
        );
        assert!(c.get("ok").is_some(), "{c}");
        assert_eq!(
            answer(&mut s, &json!({"op": "selected_count", "record_id": a}))["ok"],
            1
        );
        assert_eq!(
            answer(
                &mut s,
                &json!({"op": "selected_count", "record_id": a, "until_seq": before})
            )["ok"],
            0
        );
        assert_eq!(
            answer(
                &mut s,
                &json!({"op": "pair_selected_count", "pair": [b, a]})
            )["ok"],
            1
        );
        assert_eq!(
            answer(
                &mut s,
                &json!({"op": "pair_selected_count", "pair": [a, b], "until_seq": before})
            )["ok"],
            0
        );
        let e = answer(
            &mut s,
            &json!({"op": "selected_count", "record_id": a, "until_seq": 10_000}),
        );
        assert_eq!(e["error"]["kind"], "InvalidInput", "{e}");
        let e = answer(&mut s, &json!({"op": "pair_selected_count", "pair": [a]}));
        assert_eq!(e["error"]["kind"], "InvalidInput", "{e}");
    }

    #[test]
    fn an_answer_carries_the_warnings_its_verb_raised() {
        let mut s = session();
        let ids = form(&mut s);
        let first = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "t1", "used_record_ids": ids}),
        );
        assert!(first.get("warnings").is_none(), "{first}");
        let replay = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "t1", "used_record_ids": [ids[0]]}),
        );
        let w = replay["warnings"].as_array().expect("a warnings list");
        assert_eq!(w.len(), 1, "{replay}");
        assert!(w[0].as_str().unwrap().starts_with("#FALLBACK"), "{replay}");
        assert_eq!(
            replay["ok"], first["ok"],
            "the original snapshot, unchanged"
        );
        let next = answer(&mut s, &json!({"op": "current_seq"}));
        assert!(
            next.get("warnings").is_none(),
            "a warning travels once: {next}"
        );
    }

    #[test]
    fn a_reconstruct_answer_lifts_its_fallback_warnings_beside_ok() {
        let mut s = session();
        form(&mut s);
        let a = answer(
            &mut s,
            &json!({"op": "reconstruct", "stimulus": {"cue_text": "lease", "embedding": [1.0, 2.0]},
                    "scopes": [["life", "demo"]]}),
        );
        let inner = a["ok"]["warnings"]
            .as_array()
            .expect("the result's warnings");
        assert!(
            inner
                .iter()
                .any(|w| w.as_str().unwrap().starts_with("#FALLBACK")),
            "{a}"
        );
        assert_eq!(a["warnings"].as_array(), Some(inner), "{a}");
    }

    #[test]
    fn a_null_argument_is_an_absent_one() {
        let mut s = session();
        let ids = form(&mut s);
        let a = answer(
            &mut s,
            &json!({"op": "payload", "record_id": ids[0], "tier": null}),
        );
        assert_eq!(a["ok"]["tier"], "digest", "{a}");
    }

    /// docs/exec.md: a `null` is absent at every depth of a dataclass
    /// argument, while free-form JSON (a record's `attributes`) keeps its
    /// nulls and a `null` under a name the dataclass lacks is still refused.
    #[test]
    fn a_null_field_inside_a_dataclass_is_absent_and_attributes_keep_theirs() {
        let mut s = session();
        form(&mut s);
        let a = answer(
            &mut s,
            &json!({"op": "reconstruct", "scopes": [["life", "demo"]],
                    "stimulus": {"cue_text": "lease", "patterns": null, "participants": null,
                                 "anchor_record_ids": null, "as_of": null},
                    "budget": {"shelf_size": null}}),
        );
        assert!(a.get("error").is_none(), "{a}");
        let formed = answer(
            &mut s,
            &json!({"op": "remember_many", "scope": "life", "owner_id": "demo",
                    "idempotency_key": "nulls", "records": [{"kind": "lesson", "title": "Spring",
                    "topic": null,
                    "digest": "Leases renew in spring.", "keywords": null,
                    "attributes": {"mood": null}}]}),
        );
        let ids: Vec<String> = serde_json::from_value(formed["ok"].clone())
            .unwrap_or_else(|e| panic!("{e}: {formed}"));
        let got = answer(&mut s, &json!({"op": "query", "q": {"subject": ids[0]}}));
        let rows = got["ok"].as_array().expect("rows");
        assert!(
            rows.iter().any(|r| r["attributes"]
                .as_object()
                .is_some_and(|m| m.contains_key("mood") && m["mood"].is_null())),
            "{got}"
        );
        let refused = answer(
            &mut s,
            &json!({"op": "reconstruct", "scopes": [["life", "demo"]],
                    "stimulus": {"cue_text": "lease", "colour": null}}),
        );
        assert_eq!(refused["error"]["kind"], "InvalidInput", "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("colour"),
            "{refused}"
        );
    }
}
