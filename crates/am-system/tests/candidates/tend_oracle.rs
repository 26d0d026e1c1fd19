//! Differential against AbstractMemory 0.3.2: `tests/oracle/tend_home.py`
//! forms a home (the garden, the orchard, a lesson derived from the garden,
//! two dreams, another owner's record, a value in the `self` scope, a scar
//! and a bond), copies it, then applies tend blocks with 0.3.2. We parse
//! and apply the same blocks on the copy, on both stacks, and compare.
//!
//! Compared value for value: which elections were applied and which
//! refused, in order; each applied act's kind, pair, resolved marker and
//! healing or break id, `dispose_dream`'s answer (edge id, closure ids);
//! each revisit's seed (ids, title, kind, pair) and its neighbours (graph
//! ids and cues); and the journal records written after the copy, as a
//! multiset of (family, kind, record, target, reason, actor). Not compared:
//! event and trace ids of the attention and revisit acts (0.3.2 mints
//! uuids; ours derive from the batch so a replay writes nothing twice),
//! times, refusal prose (each side's own; an identity-scope refusal is each
//! side's own `IDENTITY_SCOPE_PENDING_RULING`).
//!
//! The one deliberate difference (0.5.2's spec, which 0.3.2 lacks): a
//! `revise` line is an election that seeds a ripple; 0.3.2's parser refuses
//! it as an unknown verb. The last batch asserts exactly that.

use crate::common::oracle::{first_difference, open_copy, run_generator};
use crate::home::system_over;
use am_system::candidates::{
    ApplyTendElections, IDENTITY_SCOPE_PENDING_RULING, ParseTendBlock, TendReport, parse_tend_block,
};
use serde_json::{Value, json};
use std::collections::HashMap;

/// A block with its names replaced by graph ids (Python's `str.format`).
fn fill(text: &str, ids: &HashMap<String, String>) -> String {
    let mut out = text.to_owned();
    for (k, v) in ids {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// What is compared of one report: per election, applied or refused, and
/// the applied act's comparable keys; the revisit paths' seeds and
/// neighbours.
fn shape(report: &Value, ruling: &str) -> Value {
    let mut order: Vec<(String, Value)> = Vec::new();
    for a in report["applied"].as_array().unwrap() {
        let r = &a["result"];
        let kind = r["kind"].as_str().map(str::to_owned);
        let act = match kind.as_deref() {
            Some("pinned" | "silenced" | "refocus") => {
                json!({"kind": kind, "scope": r["scope"], "owner_id": r["owner_id"]})
            }
            Some("heal_scar" | "break_bond") => json!({
                "kind": kind, "event_id": r["event_id"],
                "scar_event_id": r.get("scar_event_id"), "bond_event_id": r.get("bond_event_id"),
            }),
            Some("revisit") => json!({"kind": "revisit", "paths_found": r["paths_found"]}),
            _ => json!({
                "dream_id": r["dream_id"], "disposition": r["disposition"],
                "edge": r["edge"], "closure_ids": r["closure_ids"],
            }),
        };
        order.push((
            a["election"]["line"].as_str().unwrap().to_owned(),
            json!({"applied": act}),
        ));
    }
    for f in report["refused"].as_array().unwrap() {
        let reason = f["reason"].as_str().unwrap();
        assert!(!reason.trim().is_empty(), "a refusal names its rule");
        let identity = reason == ruling;
        order.push((
            f["election"]["line"].as_str().unwrap().to_owned(),
            json!({"refused": if identity { "identity_scope" } else { "<prose>" }}),
        ));
    }
    order.sort_by(|a, b| a.0.cmp(&b.0));
    let paths: Vec<Value> = report["revisit_paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = &p["seed"];
            json!({
                "seed": {"record_id": s["record_id"], "graph_id": s["graph_id"], "title": s["title"],
                         "kind": s["kind"], "scope": s["scope"], "owner_id": s["owner_id"]},
                "paths": p["paths"].as_array().unwrap().iter()
                    .map(|h| json!({"graph_id": h["graph_id"], "cues": h["cues"]}))
                    .collect::<Vec<_>>(),
                "iterations": p["iterations"],
            })
        })
        .collect();
    json!({"elections": order.into_iter().map(|(l, v)| json!([l, v])).collect::<Vec<_>>(), "revisit_paths": paths})
}

/// The comparable fields of one journal record.
fn record_key(family: &str, r: &Value) -> String {
    let f = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
    json!([
        family,
        f("kind"),
        f("record_id"),
        f("target_id"),
        f("reason"),
        f("actor")
    ])
    .to_string()
}

#[test]
fn apply_tend_elections_matches_abstractmemory_0_3_2_on_both_stacks_revise_is_0_5_2s() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_generator("tend_home.py", &["11", dir.path().to_str().unwrap()]);
    let ids: HashMap<String, String> = serde_json::from_value(o["ids"].clone()).unwrap();
    let seq0 = o["seq0"].as_i64().unwrap();
    let batches = o["batches"].as_array().unwrap();
    let reports = o["reports"].as_array().unwrap();
    let stacks = open_copy(dir.path());
    for (name, store, journal) in &stacks.pairs {
        let system = system_over(store, journal);
        assert_eq!(
            journal.current_seq().unwrap(),
            seq0,
            "[{name}] the copy's axis"
        );
        let last = batches.len() - 1;
        for (i, (batch, theirs)) in batches.iter().zip(reports).enumerate() {
            let text = fill(batch[0].as_str().unwrap(), &ids);
            let parsed = parse_tend_block(&ParseTendBlock {
                text,
                max_elections: 10,
            })
            .unwrap();
            let mut args = ApplyTendElections::new(
                parsed.elections.clone(),
                "life",
                "entity:castor",
                "entity-reflection",
            );
            let kw = &batch[1];
            if let Some(c) = kw.get("channel").and_then(Value::as_str) {
                args.channel = Some(c.to_owned());
            }
            if let Some(p) = kw.get("self_pairs") {
                args.self_pairs = serde_json::from_value(p.clone()).unwrap();
            }
            let ours: TendReport = system.apply_tend_elections(&args).unwrap().value;
            let ours = serde_json::to_value(&ours).unwrap();
            if i == last {
                // 0.5.2's revise: 0.3.2's parser refuses the line; ours
                // applies it as a ripple seed. The pin beside it matches.
                let refused = theirs["parsed"]["refusals"].as_array().unwrap();
                assert_eq!(refused.len(), 1, "[{name}] 0.3.2 refuses revise");
                assert!(refused[0]["line"].as_str().unwrap().starts_with("revise:"));
                assert!(parsed.refusals.is_empty());
                assert_eq!(ours["applied"][0]["result"]["kind"], "revise", "[{name}]");
                assert_eq!(ours["applied"][0]["result"]["opened"], true);
                assert_eq!(ours["applied"][1]["result"]["kind"], "pinned");
                assert_eq!(theirs["report"]["applied"][0]["result"]["kind"], "pinned");
                continue;
            }
            let their_ruling = theirs["report"]["refused"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|r| r["reason"].as_str())
                .find(|r| r.contains("ruling"))
                .unwrap_or("")
                .to_owned();
            let a = shape(&ours, IDENTITY_SCOPE_PENDING_RULING);
            let b = shape(&theirs["report"], &their_ruling);
            assert!(
                first_difference(&a, &b, "").is_none(),
                "[{name}] batch {i}: {}",
                first_difference(&a, &b, "").unwrap()
            );
        }
        // The journal records written after the copy, as a multiset; the
        // revise batch's ripple lives in the queue's tables, not the journal.
        let mut ours: Vec<String> = journal
            .replay_records(seq0, None)
            .unwrap()
            .into_iter()
            .map(|r| {
                let family = r.family();
                let v = match r {
                    am_journal::JournalRecord::Event(e) => serde_json::to_value(e),
                    am_journal::JournalRecord::Closure(c) => serde_json::to_value(c),
                    am_journal::JournalRecord::Valence(v) => serde_json::to_value(v),
                    am_journal::JournalRecord::Trace(t) => serde_json::to_value(t),
                    other => panic!("unexpected record {other:?}"),
                }
                .unwrap();
                record_key(family, &v)
            })
            .collect();
        let mut theirs: Vec<String> = o["journal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| record_key(r[0].as_str().unwrap(), &r[1]))
            .collect();
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "[{name}] the journal records written");
    }
}
