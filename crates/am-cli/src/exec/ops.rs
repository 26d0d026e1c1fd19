//! The exec verbs: each op takes the spec's argument names and answers the
//! spec's `to_dict()` shape. docs/exec.md lists them with their arguments.

use super::{Args, Session, dataclass};
use crate::error::{CliError, CliResult};
use crate::query::query_from_json;
use am_journal::{
    BindingFilter, ClosureFilter, EventFilter, TraceFilter, ValenceFilter, VersionFilter,
};
use am_system::{BindArgs, DeliberateAct, MemoryRecordInput, RecallBudget, Stimulus, View};
use am_triples::TripleAssertion;
use serde::Serialize;
use serde_json::{Value, json};

/// Every op exec knows, in the order docs/exec.md lists them.
pub const OPS: &[&str] = &[
    "clock",
    "reopen",
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
];

fn to_json<T: Serialize>(v: &T) -> CliResult<Value> {
    serde_json::to_value(v).map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))
}

fn list<T: Serialize>(items: &[T]) -> CliResult<Value> {
    to_json(&items)
}

/// Run one op.
pub fn dispatch(s: &mut Session, op: &str, mut a: Args) -> CliResult<Value> {
    match op {
        "clock" => {
            let now = a.opt_str("now")?;
            let advance = a.opt_f64("advance_s")?;
            a.done()?;
            match (now, advance) {
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
        "reopen" => {
            a.done()?;
            let seq = s.reopen()?;
            Ok(json!({"current_seq": seq}))
        }
        _ => layer1(s, op, a),
    }
}

fn layer1(s: &mut Session, op: &str, mut a: Args) -> CliResult<Value> {
    let sys = &s.engine()?.system;
    match op {
        "add" => {
            let Some(Value::Array(items)) = a.take("assertions") else {
                return Err(CliError::invalid(
                    "add: missing required argument \"assertions\" (a list of TripleAssertion objects)",
                ));
            };
            a.done()?;
            let now = s.clock().now();
            let assertions = items
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
            let q = a.take("q").unwrap_or_else(|| json!({}));
            a.done()?;
            let q = query_from_json(&q).map_err(|e| e.context("query: q"))?;
            let rows = sys.query(&q)?;
            Ok(Value::Array(
                rows.iter().map(TripleAssertion::to_dict).collect(),
            ))
        }
        "close_assertion" | "narrow_assertion" => {
            let id = a.req_str("assertion_id")?;
            let until = a.req_str("valid_until")?;
            a.done()?;
            let changed = if op == "close_assertion" {
                sys.store().close_assertion(&id, &until)?
            } else {
                sys.store().narrow_assertion(&id, &until)?
            };
            Ok(json!(changed))
        }
        "assertions_after" => {
            let cursor = a.opt_i64("cursor")?.unwrap_or(0);
            let scope = a.opt_str("scope")?;
            let owner = a.opt_str("owner_id")?;
            let limit = a
                .opt_usize("limit")?
                .unwrap_or(am_triples::store::DEFAULT_FEED_LIMIT);
            a.done()?;
            let page =
                sys.store()
                    .assertions_after(cursor, scope.as_deref(), owner.as_deref(), limit)?;
            let rows: Vec<Value> = page
                .rows
                .iter()
                .map(|(pos, r)| json!([pos, r.to_dict()]))
                .collect();
            Ok(json!([rows, page.next_cursor]))
        }
        "embedding_pin" => {
            a.done()?;
            to_json(&sys.store().embedding_pin()?)
        }
        _ => system_ops(s, op, a),
    }
}

fn act(a: &mut Args, with_record: bool) -> CliResult<(Option<String>, DeliberateAct)> {
    let record_id = if with_record {
        Some(a.req_str("record_id")?)
    } else {
        None
    };
    let reason = a.req_str("reason")?;
    let scope = a.req_str("scope")?;
    let owner = a.req_str("owner_id")?;
    let mut d = DeliberateAct::new(&reason, &scope, &owner);
    if with_record {
        if let Some(w) = a.opt_f64("weight")? {
            d.weight = w;
        }
        d.ttl_activity = a.opt_i64("ttl_activity")?;
    }
    d.event_id = a.opt_str("event_id")?;
    if let Some(actor) = a.opt_str("actor")? {
        d.actor = actor;
    }
    if let Some(p) = a.opt_obj("provenance")? {
        d.provenance = p;
    }
    Ok((record_id, d))
}

fn system_ops(s: &mut Session, op: &str, mut a: Args) -> CliResult<Value> {
    let sys = &s.engine()?.system;
    match op {
        "remember_many" | "remember" => {
            let records: Vec<MemoryRecordInput> = if op == "remember" {
                let r = a.take("record").ok_or_else(|| {
                    CliError::invalid("remember: missing required argument \"record\" (a MemoryRecordInput object)")
                })?;
                vec![dataclass("MemoryRecordInput", r)?]
            } else {
                match a.take("records") {
                    Some(Value::Array(items)) => items
                        .into_iter()
                        .map(|r| dataclass("MemoryRecordInput", r))
                        .collect::<CliResult<Vec<_>>>()?,
                    _ => {
                        return Err(CliError::invalid(
                            "remember_many: missing required argument \"records\" (a list of MemoryRecordInput objects)",
                        ));
                    }
                }
            };
            let scope = a.req_str("scope")?;
            let owner = a.req_str("owner_id")?;
            let key = a.req_str("idempotency_key")?;
            let turn = a.opt_str("turn_id")?;
            a.done()?;
            let ids = sys.remember_many(&records, &scope, &owner, &key, turn.as_deref())?;
            if op == "remember" {
                Ok(json!(ids.into_iter().next()))
            } else {
                Ok(json!(ids))
            }
        }
        "reconstruct" => {
            let stimulus: Stimulus = match a.take("stimulus") {
                Some(v) => dataclass("Stimulus", v)?,
                None => {
                    return Err(CliError::invalid(
                        "reconstruct: missing required argument \"stimulus\" (a Stimulus object)",
                    ));
                }
            };
            let scopes = a.pairs("scopes")?;
            let budget: RecallBudget = match a.take("budget") {
                Some(v) => dataclass("RecallBudget", v)?,
                None => RecallBudget::default(),
            };
            let view = View::parse(&a.opt_str("view")?.unwrap_or_else(|| "shelf".into()))?;
            let escalation = a.opt_str("escalation_reason")?;
            let journal = a.opt_bool("journal")?.unwrap_or(true);
            let trace_id = a.opt_str("trace_id")?;
            a.done()?;
            let ladder: Vec<(&str, &str)> = scopes
                .iter()
                .map(|(x, y)| (x.as_str(), y.as_str()))
                .collect();
            let r = sys.reconstruct(
                &stimulus,
                &ladder,
                &budget,
                view,
                escalation.as_deref(),
                journal,
                trace_id.as_deref(),
            )?;
            Ok(r.to_dict())
        }
        "commit_selection" => {
            let trace = a.req_str("trace_id")?;
            let used = a.req_str_list("used_record_ids")?;
            let tokens = a.opt_i64("prompt_token_estimate")?;
            a.done()?;
            to_json(&sys.commit_selection(&trace, &used, tokens)?)
        }
        "reinforce" | "attenuate" => {
            let (rid, d) = act(&mut a, true)?;
            a.done()?;
            let rid = rid.unwrap_or_default();
            let id = if op == "reinforce" {
                sys.reinforce(&rid, &d)?
            } else {
                sys.attenuate(&rid, &d)?
            };
            Ok(json!(id))
        }
        "refocus" => {
            let (_, d) = act(&mut a, false)?;
            a.done()?;
            Ok(json!(sys.refocus(&d)?))
        }
        "activation" => {
            let ids = a.opt_str_list("record_ids")?;
            let scope = a.req_str("scope")?;
            let owner = a.req_str("owner_id")?;
            let at = a.opt_i64("at_seq")?;
            a.done()?;
            to_json(&sys.activation(ids.as_deref(), &scope, &owner, at)?)
        }
        "access_counts" => {
            let ids = a.str_list("record_ids")?;
            let pairs = a.pairs("pairs")?;
            a.done()?;
            let c = sys.access_counts(&ids, &pairs)?;
            let pairs: Vec<Value> = c
                .pairs
                .iter()
                .map(|((x, y), n)| json!([[x, y], n]))
                .collect();
            Ok(json!({"records": to_json(&c.records)?, "pairs": pairs}))
        }
        "payload" => {
            let rid = a.req_str("record_id")?;
            let tier = a.opt_str("tier")?.unwrap_or_else(|| "digest".into());
            a.done()?;
            Ok(Value::Object(sys.payload(&rid, &tier)?))
        }
        "bind" => {
            let rid = a.req_str("record_id")?;
            let mut b = BindArgs::new(
                &a.req_str("scope")?,
                &a.req_str("owner_id")?,
                &a.req_str("search_state")?,
            );
            if let Some(v) = a.opt_str("prompt_state")? {
                b.prompt_state = v;
            }
            if let Some(v) = a.opt_str("lifecycle")? {
                b.lifecycle = v;
            }
            if let Some(v) = a.opt_str("source")? {
                b.source = v;
            }
            b.reason = a.opt_str("reason")?;
            b.binding_id = a.opt_str("binding_id")?;
            a.done()?;
            to_json(&sys.bind(&rid, &b)?)
        }
        "close_assertions" => {
            let ids = a.req_str_list("assertion_ids")?;
            let kind = a.req_str("kind")?;
            let repl = a.str_list("replacement_ids")?;
            let reason = a.req_str("reason")?;
            a.done()?;
            Ok(json!(sys.close_assertions(&ids, &kind, &repl, &reason)?))
        }
        "close_record" => {
            let rid = a.req_str("record_id")?;
            let reason = a.req_str("reason")?;
            let kind = a.opt_str("kind")?.unwrap_or_else(|| "retract".into());
            let repl = a.str_list("replacement_ids")?;
            a.done()?;
            Ok(json!(sys.close_record(&rid, &reason, &kind, &repl)?))
        }
        "current_seq" => {
            a.done()?;
            Ok(json!(sys.current_seq()?))
        }
        "seq_at" => {
            let ts = a.req_str("iso_ts")?;
            a.done()?;
            Ok(json!(sys.seq_at(&ts)?))
        }
        _ => journal_ops(s, op, a),
    }
}

fn journal_ops(s: &mut Session, op: &str, mut a: Args) -> CliResult<Value> {
    let j = s.engine()?.system.journal();
    match op {
        "events" => {
            let mut f = EventFilter::new(&a.req_str("scope")?, &a.req_str("owner_id")?);
            f.record_id = a.opt_str("record_id")?;
            f.kinds = a.str_list("kinds")?;
            f.since_seq = a.opt_i64("since_seq")?;
            f.until_seq = a.opt_i64("until_seq")?;
            if let Some(l) = a.opt_usize("limit")? {
                f.limit = l;
            }
            a.done()?;
            list(&j.events(&f)?)
        }
        "bindings" => {
            let f = BindingFilter {
                record_id: a.opt_str("record_id")?,
                scope: a.opt_str("scope")?,
                owner_id: a.opt_str("owner_id")?,
                fold: a.opt_bool("fold")?.unwrap_or(true),
                until_seq: a.opt_i64("until_seq")?,
            };
            a.done()?;
            list(&j.bindings(&f)?)
        }
        "closures" => {
            let mut f = ClosureFilter {
                assertion_id: a.opt_str("assertion_id")?,
                until_seq: a.opt_i64("until_seq")?,
                ..ClosureFilter::default()
            };
            if let Some(l) = a.opt_usize("limit")? {
                f.limit = l;
            }
            a.done()?;
            list(&j.closures(&f)?)
        }
        "traces" | "snapshots" => {
            let mut f = TraceFilter {
                trace_id: a.opt_str("trace_id")?,
                until_seq: a.opt_i64("until_seq")?,
                ..TraceFilter::default()
            };
            if let Some(l) = a.opt_usize("limit")? {
                f.limit = l;
            }
            a.done()?;
            if op == "traces" {
                list(&j.traces(&f)?)
            } else {
                list(&j.snapshots(&f)?)
            }
        }
        "valence_events" => {
            let mut f = ValenceFilter::new(&a.req_str("scope")?, &a.req_str("owner_id")?);
            f.target_id = a.opt_str("target_id")?;
            f.since_seq = a.opt_i64("since_seq")?;
            f.until_seq = a.opt_i64("until_seq")?;
            if let Some(l) = a.opt_usize("limit")? {
                f.limit = l;
            }
            a.done()?;
            list(&j.valence_events(&f)?)
        }
        "versions" => {
            let f = VersionFilter {
                record_id: a.opt_str("record_id")?,
                assertion_id: a.opt_str("assertion_id")?,
                field: a.opt_str("field")?,
                until_seq: a.opt_i64("until_seq")?,
                limit: a.opt_usize("limit")?.unwrap_or(0),
            };
            a.done()?;
            list(&j.versions(&f)?)
        }
        other => Err(CliError::invalid(format!("unknown op {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::OPS;

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
}
