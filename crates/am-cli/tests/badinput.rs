//! The bad-input catalogue of `am exec` (issue 23 §6): well over 150 lines a
//! host might send by mistake or malice (malformed JSON, unknown ops and
//! arguments, missing required ones, wrong types, out-of-range and
//! non-finite numbers, oversized and blank strings, timestamps that are not
//! timestamps, ids of the other namespace or of nothing, scope/owner
//! mistakes), each run against a fresh copy of a home that holds records, a
//! trace and a revision. Every one must be answered with an error of some
//! kind (no crash, no panic, exit code 0 or 2) and leave the home's bytes
//! unchanged (the file and its WAL hashed before and after).
//!
//! Inputs found accepted, as 0.3.2 accepts them, and so not in the
//! catalogue: a `valid_until` before `valid_from` and a confidence outside
//! 0..1 on `add` and in a record; `close_assertion` / `narrow_assertion` of
//! an unknown id (answer `false`); a negative `assertions_after` cursor; a
//! negative `deadline_s` (not enforced); `commit_selection` on a trace the
//! journal does not hold (foreign traces are allowed) or with a negative
//! token estimate; `bind` with a blank scope; `close_record` naming unknown
//! replacement ids; `apply_revision` with no ops (the spec is silent; it
//! records an empty revision).
//!
//! `cargo xtask badinput` runs this test and prints the count and any case
//! that was accepted, crashed or changed the home.

mod common;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CLOCK: &str = "2026-01-01T00:00:00Z";

/// The ops `am exec` knows, derived from the binary's own op tables (its
/// unknown-op answer lists them), so an op added to `exec` is in the
/// catalogue without anyone copying its name here; the ops with a required
/// argument (docs/exec.md marks it in bold, checked by the newcomer test);
/// the ops of the task queue (refused without `--task-queue`, so run with
/// it).
struct Ops {
    known: Vec<String>,
    need_args: Vec<String>,
    no_args: Vec<String>,
    queued: Vec<String>,
}

/// The verb table as `am --json exec --list-ops` prints it: every op, which
/// ops require an argument (their schema's `required`), which take none and
/// which need the task queue.
fn ops(_dir: &Path) -> Ops {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_am"))
        .args(["--json", "exec", "--list-ops"])
        .output()
        .expect("am exec --list-ops runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON list");
    let names = |keep: &dyn Fn(&Value) -> bool| -> Vec<String> {
        table
            .iter()
            .filter(|v| keep(v))
            .map(|v| v["op"].as_str().expect("an op name").to_owned())
            .collect()
    };
    let known = names(&|_| true);
    assert!(known.len() >= 80, "only {} ops listed", known.len());
    // The unknown-op refusal lists the same table, in order.
    let (_, out, _) = exec_with(
        &_dir.join("ops-scratch.sqlite3"),
        r#"{"op": "no_such_op"}"#,
        false,
    );
    let answer: Value = serde_json::from_str(out.lines().next().expect("an answer")).unwrap();
    let message = answer["error"]["message"]
        .as_str()
        .expect("an unknown-op error");
    let listed: Vec<&str> = message
        .split_once("known ops: ")
        .expect("the unknown-op answer lists the known ops")
        .1
        .split(", ")
        .collect();
    assert_eq!(listed, known, "the unknown-op answer lists the table");
    let need_args = names(&|v| v["required"].as_array().is_some_and(|r| !r.is_empty()));
    let no_args = names(&|v| {
        am_ops::find(v["op"].as_str().unwrap_or_default()).is_some_and(|verb| verb.no_args)
    });
    let queued = names(&|v| v["needs_queue"] == Value::Bool(true));
    assert!(
        queued.iter().any(|o| o == "tasks.enqueue"),
        "no op answered as a queue op"
    );
    Ops {
        known,
        need_args,
        no_args,
        queued,
    }
}

/// The op a catalogue line names (`None` for a malformed line).
fn op_of(line: &str) -> Option<String> {
    serde_json::from_str::<Value>(line)
        .ok()?
        .get("op")?
        .as_str()
        .map(str::to_owned)
}

fn line(v: Value) -> String {
    v.to_string()
}

fn with(op: &str, args: Value) -> String {
    let mut m = args.as_object().cloned().unwrap_or_default();
    m.insert("op".into(), json!(op));
    Value::Object(m).to_string()
}

fn assertion() -> Value {
    json!({"subject": "ex:ada", "predicate": "knows", "object": "ex:bo", "scope": "life", "owner_id": "demo"})
}

fn record() -> Value {
    json!({"kind": "episode", "title": "Ada", "digest": "Ada signed the lease."})
}

fn revision() -> Value {
    json!({"revision_id": "rev-x", "scope": "life", "owner_id": "demo", "cause": "ingest",
           "occurred_at": "2026-01-05T09:00:00Z",
           "ops": [{"op": "assert", "payload": {"assertion_id": "gx", "subject": "ex:a",
                                               "predicate": "p", "object": "ex:b"}}],
           "provenance": {"sources": [{"kind": "artifact", "artifact_id": "n1"}], "actor": "t"}})
}

fn patched(mut base: Value, key: &str, value: Value) -> Value {
    base[key] = value;
    base
}

/// The catalogue: `(name, line)`. The cases every op gets (an unknown
/// argument; no arguments when it requires one) are named `{op}: unknown
/// argument` and `{op}: no arguments`; every other case is written for its
/// op.
fn catalogue(ids: &Ids, ops: &Ops) -> Vec<(String, String)> {
    let mut c: Vec<(String, String)> = Vec::new();
    let mut push = |name: &str, l: String| c.push((name.to_owned(), l));

    // Malformed lines.
    for (n, raw) in [
        ("not json", "this is not json"),
        ("open brace", "{"),
        ("trailing comma", r#"{"op": "current_seq",}"#),
        ("array", "[1, 2]"),
        ("string", r#""current_seq""#),
        ("number", "42"),
        ("null", "null"),
        ("op is a number", r#"{"op": 5}"#),
        ("op is null", r#"{"op": null}"#),
        ("no op", "{}"),
        ("unknown op", r#"{"op": "forget_everything"}"#),
        ("missing colon", r#"{"op" "add"}"#),
        ("NaN literal", r#"{"op": "clock", "advance_s": NaN}"#),
        (
            "Infinity literal",
            r#"{"op": "clock", "advance_s": Infinity}"#,
        ),
        ("single quotes", "{'op': 'current_seq'}"),
        ("op with spaces", r#"{"op": " add "}"#),
        ("op upper case", r#"{"op": "ADD"}"#),
        (
            "duplicate op key",
            r#"{"op": "current_seq", "op": "forget"}"#,
        ),
        (
            "unterminated string",
            r#"{"op": "add", "assertions": [{"subject": "x}]}"#,
        ),
        (
            "nested too deep",
            &format!(
                "{{\"op\": \"query\", \"q\": {}{}}}",
                "[".repeat(200),
                "]".repeat(200)
            ),
        ),
    ] {
        push(&format!("malformed: {n}"), raw.to_owned());
    }

    // An argument no op takes.
    for op in &ops.known {
        push(
            &format!("{op}: unknown argument"),
            with(op, json!({"frobnicate": 1})),
        );
    }
    // The required arguments missing.
    for op in &ops.need_args {
        push(&format!("{op}: no arguments"), with(op, json!({})));
    }

    // Layer 1.
    push(
        "add: assertions not a list",
        with("add", json!({"assertions": "x"})),
    );
    push(
        "add: an assertion is a number",
        with("add", json!({"assertions": [1]})),
    );
    push(
        "add: subject a number",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "subject", json!(5))]}),
        ),
    );
    push(
        "add: blank subject",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "subject", json!("   "))]}),
        ),
    );
    push(
        "add: blank predicate",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "predicate", json!(""))]}),
        ),
    );
    push(
        "add: no object",
        with(
            "add",
            json!({"assertions": [{"subject": "a", "predicate": "p"}]}),
        ),
    );
    push(
        "add: observed_at not a timestamp",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "observed_at", json!("yesterday"))]}),
        ),
    );
    push(
        "add: valid_from month 13",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "valid_from", json!("2026-13-45T00:00:00Z"))]}),
        ),
    );
    push(
        "add: confidence a string",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "confidence", json!("high"))]}),
        ),
    );
    push("add: confidence 1e999", r#"{"op": "add", "assertions": [{"subject": "a", "predicate": "p", "object": "o", "confidence": 1e999}]}"#.to_owned());
    push(
        "add: attributes a list",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "attributes", json!([1]))]}),
        ),
    );
    push(
        "add: provenance a string",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "provenance", json!("me"))]}),
        ),
    );
    push(
        "add: unknown assertion field",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "colour", json!("red"))]}),
        ),
    );
    push(
        "add: one good, one bad",
        with(
            "add",
            json!({"assertions": [assertion(), patched(assertion(), "observed_at", json!("noon"))]}),
        ),
    );
    push(
        "add: scope a list",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "scope", json!(["life"]))]}),
        ),
    );
    push(
        "add: owner a number",
        with(
            "add",
            json!({"assertions": [patched(assertion(), "owner_id", json!(7))]}),
        ),
    );
    push("query: q a number", with("query", json!({"q": 5})));
    push(
        "query: unknown query field",
        with("query", json!({"q": {"colour": "red"}})),
    );
    push(
        "query: limit a string",
        with("query", json!({"q": {"limit": "ten"}})),
    );
    push(
        "query: limit a float",
        with("query", json!({"q": {"limit": 1.5}})),
    );
    push(
        "query: since not a timestamp",
        with("query", json!({"q": {"since": "last week"}})),
    );
    push(
        "query: until not a timestamp",
        with("query", json!({"q": {"until": "2026-02-30T00:00:00Z"}})),
    );
    push(
        "query: active_at not a timestamp",
        with("query", json!({"q": {"active_at": "now"}})),
    );
    push(
        "query: order sideways",
        with("query", json!({"q": {"order": "sideways"}})),
    );
    push(
        "query: min_confidence a string",
        with("query", json!({"q": {"min_confidence": "x"}})),
    );
    push(
        "query: query_vector with a string",
        with("query", json!({"q": {"query_vector": ["a"]}})),
    );
    push(
        "query: query_vector empty",
        with("query", json!({"q": {"query_vector": []}})),
    );
    push(
        "query: query_vector 1e999",
        r#"{"op": "query", "q": {"query_vector": [1e999]}}"#.to_owned(),
    );
    push(
        "query: query_vector zero",
        with("query", json!({"q": {"query_vector": [0.0, 0.0]}})),
    );
    push(
        "query: query_text without an embedder",
        with("query", json!({"q": {"query_text": "lease"}})),
    );
    push(
        "query: assertion_ids a string",
        with("query", json!({"q": {"assertion_ids": "x"}})),
    );
    push(
        "close_assertion: valid_until not a timestamp",
        with(
            "close_assertion",
            json!({"assertion_id": ids.assertion, "valid_until": "soon"}),
        ),
    );
    push(
        "close_assertion: id a number",
        with(
            "close_assertion",
            json!({"assertion_id": 5, "valid_until": CLOCK}),
        ),
    );
    push(
        "close_assertion: no valid_until",
        with("close_assertion", json!({"assertion_id": ids.assertion})),
    );
    push(
        "narrow_assertion: valid_until not a timestamp",
        with(
            "narrow_assertion",
            json!({"assertion_id": ids.assertion, "valid_until": "later"}),
        ),
    );
    push(
        "assertions_after: cursor a string",
        with("assertions_after", json!({"cursor": "x"})),
    );
    push(
        "assertions_after: limit 0",
        with("assertions_after", json!({"limit": 0})),
    );
    push(
        "assertions_after: limit negative",
        with("assertions_after", json!({"limit": -1})),
    );
    push(
        "assertions_after: limit a bool",
        with("assertions_after", json!({"limit": true})),
    );

    // The engine.
    push(
        "clock: now not a timestamp",
        with("clock", json!({"now": "noon"})),
    );
    push(
        "clock: advance_s negative",
        with("clock", json!({"advance_s": -1})),
    );
    push(
        "clock: advance_s a string",
        with("clock", json!({"advance_s": "1"})),
    );
    push(
        "clock: advance_s 1e999",
        r#"{"op": "clock", "advance_s": 1e999}"#.to_owned(),
    );
    push(
        "clock: both now and advance_s",
        with("clock", json!({"now": CLOCK, "advance_s": 1})),
    );
    push(
        "seq_at: not a timestamp",
        with("seq_at", json!({"iso_ts": "abc"})),
    );
    push("seq_at: a number", with("seq_at", json!({"iso_ts": 5})));

    // Formation.
    let rm = |r: Value| {
        with(
            "remember_many",
            json!({"records": [r], "scope": "life", "owner_id": "demo", "idempotency_key": "bad"}),
        )
    };
    push(
        "remember_many: unknown kind",
        rm(patched(record(), "kind", json!("gossip"))),
    );
    push(
        "remember_many: blank title",
        rm(patched(record(), "title", json!(" "))),
    );
    push(
        "remember_many: blank digest",
        rm(patched(record(), "digest", json!(""))),
    );
    push(
        "remember_many: title a number",
        rm(patched(record(), "title", json!(3))),
    );
    push(
        "remember_many: unknown record field",
        rm(patched(record(), "mood", json!("sad"))),
    );
    push(
        "remember_many: edges not pairs",
        rm(patched(record(), "edges", json!(["derived_from"]))),
    );
    push(
        "remember_many: edge to itself",
        rm(patched(
            record(),
            "edges",
            json!([["derived_from", "local:0"]]),
        )),
    );
    push(
        "remember_many: edge out of range",
        rm(patched(
            record(),
            "edges",
            json!([["derived_from", "local:9"]]),
        )),
    );
    push(
        "remember_many: edge local:x",
        rm(patched(
            record(),
            "edges",
            json!([["derived_from", "local:x"]]),
        )),
    );
    push(
        "remember_many: summary without edges",
        rm(patched(record(), "kind", json!("summary"))),
    );
    push(
        "remember_many: keywords a string",
        rm(patched(record(), "keywords", json!("pool"))),
    );
    push(
        "remember_many: participants numbers",
        rm(patched(record(), "participants", json!([1, 2]))),
    );
    push(
        "remember_many: records not a list",
        with(
            "remember_many",
            json!({"records": {}, "scope": "life", "owner_id": "demo", "idempotency_key": "bad"}),
        ),
    );
    push(
        "remember_many: empty records",
        with(
            "remember_many",
            json!({"records": [], "scope": "life", "owner_id": "demo", "idempotency_key": "bad"}),
        ),
    );
    push(
        "remember_many: blank scope",
        with(
            "remember_many",
            json!({"records": [record()], "scope": " ", "owner_id": "demo", "idempotency_key": "bad"}),
        ),
    );
    push(
        "remember_many: blank idempotency_key",
        with(
            "remember_many",
            json!({"records": [record()], "scope": "life", "owner_id": "demo", "idempotency_key": ""}),
        ),
    );
    push(
        "remember_many: no owner_id",
        with(
            "remember_many",
            json!({"records": [record()], "scope": "life", "idempotency_key": "bad"}),
        ),
    );
    push(
        "remember_many: one good one bad",
        with(
            "remember_many",
            json!({"records": [record(), patched(record(), "kind", json!("gossip"))], "scope": "life", "owner_id": "demo", "idempotency_key": "bad"}),
        ),
    );
    push(
        "remember: record a list",
        with(
            "remember",
            json!({"record": [], "scope": "life", "owner_id": "demo", "idempotency_key": "bad"}),
        ),
    );
    push(
        "remember: unknown kind",
        with(
            "remember",
            json!({"record": patched(record(), "kind", json!("x")), "scope": "life", "owner_id": "demo", "idempotency_key": "bad"}),
        ),
    );

    // Recall.
    let rc = |extra: Value| {
        let mut m = json!({"stimulus": {"cue_text": "lease"}, "scopes": [["life", "demo"]], "trace_id": "bad-trace"});
        for (k, v) in extra.as_object().unwrap() {
            m[k] = v.clone();
        }
        with("reconstruct", m)
    };
    push("reconstruct: empty scope ladder", rc(json!({"scopes": []})));
    push(
        "reconstruct: blank scope",
        rc(json!({"scopes": [["", "demo"]]})),
    );
    push(
        "reconstruct: scope pair of three",
        rc(json!({"scopes": [["life", "demo", "x"]]})),
    );
    push(
        "reconstruct: scopes a string",
        rc(json!({"scopes": "life"})),
    );
    push(
        "reconstruct: broad scope without a reason",
        rc(json!({"scopes": [["global", ""]]})),
    );
    push(
        "reconstruct: view sideways",
        rc(json!({"view": "sideways"})),
    );
    push("reconstruct: blank trace_id", rc(json!({"trace_id": "  "})));
    push(
        "reconstruct: stimulus a string",
        rc(json!({"stimulus": "lease"})),
    );
    push(
        "reconstruct: unknown stimulus field",
        rc(json!({"stimulus": {"cue_text": "x", "mood": 1}})),
    );
    push(
        "reconstruct: cue_text a number",
        rc(json!({"stimulus": {"cue_text": 5}})),
    );
    push(
        "reconstruct: as_of beyond the journal",
        rc(json!({"stimulus": {"cue_text": "x", "as_of": 999_999}})),
    );
    push(
        "reconstruct: as_of negative",
        rc(json!({"stimulus": {"cue_text": "x", "as_of": -1}})),
    );
    push(
        "reconstruct: as_of a float",
        rc(json!({"stimulus": {"cue_text": "x", "as_of": 1.5}})),
    );
    push(
        "reconstruct: pattern not an object",
        rc(json!({"stimulus": {"cue_text": "x", "patterns": [5]}})),
    );
    push(
        "reconstruct: embedding with a string",
        rc(json!({"stimulus": {"cue_text": "x", "embedding": ["a"]}})),
    );
    push("reconstruct: embedding 1e999", r#"{"op": "reconstruct", "stimulus": {"cue_text": "x", "embedding": [1e999]}, "scopes": [["life", "demo"]]}"#.to_owned());
    push(
        "reconstruct: unknown budget field",
        rc(json!({"budget": {"colour": 1}})),
    );
    push(
        "reconstruct: shelf_size negative",
        rc(json!({"budget": {"shelf_size": -1}})),
    );
    push(
        "reconstruct: shelf_size a string",
        rc(json!({"budget": {"shelf_size": "12"}})),
    );
    push(
        "reconstruct: token_budget negative",
        rc(json!({"budget": {"token_budget": -5}})),
    );
    push(
        "reconstruct: self_fraction above 0.9",
        rc(json!({"budget": {"self_fraction": 2.0}})),
    );
    push(
        "reconstruct: self_fraction negative",
        rc(json!({"budget": {"self_fraction": -0.1}})),
    );
    push(
        "reconstruct: stm_fraction above 1",
        rc(json!({"budget": {"stm_fraction": 1.5}})),
    );
    push(
        "reconstruct: stm_fraction negative",
        rc(json!({"budget": {"stm_fraction": -0.5}})),
    );
    push(
        "reconstruct: max_hops negative",
        rc(json!({"budget": {"max_hops": -1}})),
    );
    push(
        "reconstruct: max_edges a float",
        rc(json!({"budget": {"max_edges": 1.5}})),
    );
    push(
        "reconstruct: min_activation a string",
        rc(json!({"budget": {"min_activation": "high"}})),
    );
    push(
        "reconstruct: journal a string",
        rc(json!({"journal": "yes"})),
    );
    push(
        "commit_selection: blank trace",
        with(
            "commit_selection",
            json!({"trace_id": "", "used_record_ids": [ids.record]}),
        ),
    );
    push(
        "commit_selection: id not in the trace",
        with(
            "commit_selection",
            json!({"trace_id": "tr-1", "used_record_ids": ["nope"]}),
        ),
    );
    push(
        "commit_selection: used ids a string",
        with(
            "commit_selection",
            json!({"trace_id": "tr-1", "used_record_ids": ids.record}),
        ),
    );
    push(
        "commit_selection: token estimate a string",
        with(
            "commit_selection",
            json!({"trace_id": "tr-1", "used_record_ids": [ids.record], "prompt_token_estimate": "many"}),
        ),
    );

    // Deliberate acts, bindings, closures.
    for op in ["reinforce", "attenuate"] {
        let act = |extra: Value| {
            let mut m = json!({"record_id": ids.record, "reason": "matters", "scope": "life", "owner_id": "demo"});
            for (k, v) in extra.as_object().unwrap() {
                m[k] = v.clone();
            }
            with(op, m)
        };
        push(
            &format!("{op}: unknown record"),
            act(json!({"record_id": "nope"})),
        );
        push(&format!("{op}: blank reason"), act(json!({"reason": " "})));
        push(
            &format!("{op}: weight a string"),
            act(json!({"weight": "heavy"})),
        );
        push(
            &format!("{op}: weight 1e999"),
            format!(
                r#"{{"op": "{op}", "record_id": "{}", "reason": "r", "scope": "life", "owner_id": "demo", "weight": 1e999}}"#,
                ids.record
            ),
        );
        push(
            &format!("{op}: ttl_activity negative"),
            act(json!({"ttl_activity": -1})),
        );
        push(&format!("{op}: blank scope"), act(json!({"scope": ""})));
        push(
            &format!("{op}: provenance a list"),
            act(json!({"provenance": [1]})),
        );
    }
    push(
        "refocus: blank reason",
        with(
            "refocus",
            json!({"reason": "", "scope": "life", "owner_id": "demo"}),
        ),
    );
    push(
        "refocus: blank scope",
        with(
            "refocus",
            json!({"reason": "shift", "scope": " ", "owner_id": "demo"}),
        ),
    );
    push(
        "refocus: weight (not taken)",
        with(
            "refocus",
            json!({"reason": "shift", "scope": "life", "owner_id": "demo", "weight": 3}),
        ),
    );
    let b = |extra: Value| {
        let mut m = json!({"record_id": ids.record, "scope": "life", "owner_id": "demo", "search_state": "hidden"});
        for (k, v) in extra.as_object().unwrap() {
            m[k] = v.clone();
        }
        with("bind", m)
    };
    push(
        "bind: unknown search_state",
        b(json!({"search_state": "invisible"})),
    );
    push(
        "bind: unknown prompt_state",
        b(json!({"search_state": "indexed", "prompt_state": "loud"})),
    );
    push(
        "bind: hidden and active",
        b(json!({"prompt_state": "active"})),
    );
    push("bind: unknown lifecycle", b(json!({"lifecycle": "zombie"})));
    push("bind: blank record id", b(json!({"record_id": ""})));
    push("bind: search_state a number", b(json!({"search_state": 1})));
    push(
        "close_assertions: unknown kind",
        with(
            "close_assertions",
            json!({"assertion_ids": [ids.assertion], "kind": "erase", "reason": "x"}),
        ),
    );
    push(
        "close_assertions: ids a string",
        with(
            "close_assertions",
            json!({"assertion_ids": ids.assertion, "kind": "retract", "reason": "x"}),
        ),
    );
    push(
        "close_assertions: empty ids",
        with(
            "close_assertions",
            json!({"assertion_ids": [], "kind": "retract", "reason": "x"}),
        ),
    );
    push(
        "close_assertions: unknown id",
        with(
            "close_assertions",
            json!({"assertion_ids": ["nope"], "kind": "retract", "reason": "x"}),
        ),
    );
    push(
        "close_assertions: supersede without replacement",
        with(
            "close_assertions",
            json!({"assertion_ids": [ids.assertion], "kind": "supersede", "reason": "x"}),
        ),
    );
    push(
        "close_record: unknown record",
        with("close_record", json!({"record_id": "nope", "reason": "x"})),
    );
    push(
        "close_record: unknown kind",
        with(
            "close_record",
            json!({"record_id": ids.record, "reason": "x", "kind": "erase"}),
        ),
    );
    push(
        "close_record: blank reason",
        with(
            "close_record",
            json!({"record_id": ids.record, "reason": ""}),
        ),
    );
    push(
        "payload: unknown record",
        with("payload", json!({"record_id": "nope"})),
    );
    push(
        "payload: unknown tier",
        with(
            "payload",
            json!({"record_id": ids.record, "tier": "everything"}),
        ),
    );
    push(
        "activation: record_ids a string",
        with(
            "activation",
            json!({"record_ids": "x", "scope": "life", "owner_id": "demo"}),
        ),
    );
    push(
        "activation: at_seq a string",
        with(
            "activation",
            json!({"scope": "life", "owner_id": "demo", "at_seq": "now"}),
        ),
    );
    push(
        "access_counts: pairs of one",
        with("access_counts", json!({"record_ids": [], "pairs": [["a"]]})),
    );
    push(
        "access_counts: record_ids a number",
        with("access_counts", json!({"record_ids": 5})),
    );

    // The journal's readers.
    push(
        "events: limit a string",
        with("events", json!({"limit": "all"})),
    );
    push(
        "events: kinds a string",
        with("events", json!({"kinds": "selected"})),
    );
    push(
        "events: since_seq a float",
        with("events", json!({"since_seq": 0.5})),
    );
    push(
        "bindings: fold a string",
        with("bindings", json!({"fold": "yes"})),
    );
    push(
        "closures: until_seq a string",
        with("closures", json!({"until_seq": "x"})),
    );
    push(
        "traces: limit a float",
        with("traces", json!({"limit": 2.5})),
    );
    push(
        "snapshots: trace_id a number",
        with("snapshots", json!({"trace_id": 5})),
    );
    push(
        "valence_events: target_id a list",
        with("valence_events", json!({"target_id": ["x"]})),
    );
    push(
        "versions: field a number",
        with("versions", json!({"field": 1})),
    );
    push(
        "selected_count: record_id a number",
        with("selected_count", json!({"record_id": 5})),
    );
    push(
        "pair_selected_count: pair of one",
        with("pair_selected_count", json!({"pair": ["a"]})),
    );

    // The memory graph.
    let rv = |key: &str, value: Value| {
        with(
            "apply_revision",
            json!({"revision": patched(patched(revision(), "revision_id", json!("rev-bad")), key, value)}),
        )
    };
    push(
        "apply_revision: revision a string",
        with("apply_revision", json!({"revision": "rev"})),
    );
    push(
        "apply_revision: blank revision_id",
        rv("revision_id", json!("")),
    );
    push("apply_revision: unknown cause", rv("cause", json!("whim")));
    push(
        "apply_revision: occurred_at not a timestamp",
        rv("occurred_at", json!("yesterday")),
    );
    push("apply_revision: ops not a list", rv("ops", json!({})));
    push(
        "apply_revision: unknown op",
        rv("ops", json!([{"op": "delete", "payload": {}}])),
    );
    push(
        "apply_revision: assert without subject",
        rv(
            "ops",
            json!([{"op": "assert", "payload": {"predicate": "p", "object": "o"}}]),
        ),
    );
    push(
        "apply_revision: close of nothing",
        rv(
            "ops",
            json!([{"op": "close", "payload": {"assertion_id": "nope", "valid_until": CLOCK, "kind": "retract", "reason": "x"}}]),
        ),
    );
    push(
        "apply_revision: provenance without sources",
        rv("provenance", json!({"actor": "t"})),
    );
    push(
        "apply_revision: source of unknown kind",
        rv(
            "provenance",
            json!({"sources": [{"kind": "rumour"}], "actor": "t"}),
        ),
    );
    push(
        "apply_revision: recorded_at not a timestamp",
        rv("recorded_at", json!("then")),
    );
    push(
        "apply_revision: replay a string",
        with(
            "apply_revision",
            json!({"revision": revision(), "replay": "yes"}),
        ),
    );
    push(
        "history: limit 0",
        with("history", json!({"memory_id": ids.assertion, "limit": 0})),
    );
    push(
        "history: limit negative",
        with("history", json!({"memory_id": ids.assertion, "limit": -3})),
    );
    push(
        "history: memory_id a number",
        with("history", json!({"memory_id": 7})),
    );
    push(
        "sources_of: limit a float",
        with(
            "sources_of",
            json!({"memory_id": ids.assertion, "limit": 1.5}),
        ),
    );
    push(
        "sources_of: transitive a string",
        with(
            "sources_of",
            json!({"memory_id": ids.assertion, "transitive": "yes"}),
        ),
    );
    push(
        "names_ref: ref a string",
        with("names_ref", json!({"ref": "x", "owner_ids": ["demo"]})),
    );
    push(
        "names_ref: ref of unknown kind",
        with(
            "names_ref",
            json!({"ref": {"kind": "rumour"}, "owner_ids": ["demo"]}),
        ),
    );
    push(
        "names_ref: owner_ids a string",
        with(
            "names_ref",
            json!({"ref": {"kind": "artifact", "artifact_id": "n1"}, "owner_ids": "demo"}),
        ),
    );
    push(
        "derived_from_source: ref without id",
        with("derived_from_source", json!({"ref": {"kind": "artifact"}})),
    );
    push(
        "revisions: cursor a number",
        with("revisions", json!({"after": 5})),
    );
    push(
        "revisions: cursor garbage",
        with("revisions", json!({"after": "not-a-cursor"})),
    );
    push("revisions: limit 0", with("revisions", json!({"limit": 0})));
    push(
        "repair: limit negative",
        with("repair", json!({"limit": -1})),
    );
    push(
        "replay_into: target_home a number",
        with("replay_into", json!({"target_home": 5})),
    );
    push(
        "replay_into: target_home blank",
        with("replay_into", json!({"target_home": ""})),
    );

    // Oversized strings.
    let big = "x".repeat(2_000_000);
    push(
        "add: a 2 MB subject with a bad timestamp",
        with(
            "add",
            json!({"assertions": [{"subject": big, "predicate": "p", "object": "o", "observed_at": "never"}]}),
        ),
    );
    push(
        "reconstruct: a 2 MB trace_id of blanks",
        rc(json!({"trace_id": " ".repeat(2_000_000)})),
    );
    more_cases(ids, &mut push);
    let _ = line(json!(null));
    c
}

/// The cases of the ops the first catalogue lacked: the task queue's (run
/// with `--task-queue`), the understanding, valence, identity, diary and
/// diagnostics families, and the barrier.
#[allow(clippy::too_many_lines)] // one table
fn more_cases(ids: &Ids, push: &mut dyn FnMut(&str, String)) {
    let enq = || {
        json!({"kind": "digest.rewrite", "target_id": ids.record, "scope": "life", "owner_id": "demo",
               "basis": "b1", "strength": 0.5, "cause": "backfill"})
    };
    let e = |key: &str, v: Value| with("tasks.enqueue", patched(enq(), key, v));
    let cases: Vec<(&str, String)> = vec![
        (
            "tasks.enqueue: unknown kind",
            e("kind", json!("title.write")),
        ),
        ("tasks.enqueue: kind a number", e("kind", json!(3))),
        ("tasks.enqueue: strength 1.5", e("strength", json!(1.5))),
        (
            "tasks.enqueue: strength negative",
            e("strength", json!(-0.1)),
        ),
        (
            "tasks.enqueue: strength a string",
            e("strength", json!("high")),
        ),
        (
            "tasks.enqueue: strength 1e999",
            with("tasks.enqueue", enq()).replace("0.5", "1e999"),
        ),
        (
            "tasks.enqueue: blank target_id",
            e("target_id", json!("   ")),
        ),
        ("tasks.enqueue: blank basis", e("basis", json!(""))),
        ("tasks.enqueue: blank scope", e("scope", json!(" "))),
        ("tasks.enqueue: max_attempts 0", e("max_attempts", json!(0))),
        (
            "tasks.enqueue: max_attempts negative",
            e("max_attempts", json!(-2)),
        ),
        (
            "tasks.enqueue: cost_hint negative",
            e("cost_hint", json!(-1.0)),
        ),
        (
            "tasks.enqueue: basis_version negative",
            e("basis_version", json!(-1)),
        ),
        ("tasks.enqueue: cause a number", e("cause", json!(5))),
        ("tasks.enqueue: cause blank", e("cause", json!("  "))),
        (
            "tasks.enqueue: cause a mapping without cause",
            e("cause", json!({"why": "x"})),
        ),
        (
            "tasks.enqueue: unknown window",
            e("windows", json!(["weekend"])),
        ),
        (
            "tasks.enqueue: dream.narrate in a turn window",
            with(
                "tasks.enqueue",
                patched(
                    patched(enq(), "kind", json!("dream.narrate")),
                    "windows",
                    json!(["turn"]),
                ),
            ),
        ),
        (
            "tasks.enqueue: not_before not a timestamp",
            e("not_before", json!("tomorrow")),
        ),
        (
            "tasks.enqueue: now not a timestamp",
            e("now", json!("noon")),
        ),
        ("tasks.enqueue: priority a float", e("priority", json!(1.5))),
        (
            "tasks.enqueue: depends_on a string",
            e("depends_on", json!("t1")),
        ),
        ("tasks.enqueue: hop a string", e("hop", json!("one"))),
        (
            "tasks.enqueue_many: tasks a string",
            with("tasks.enqueue_many", json!({"tasks": "x"})),
        ),
        (
            "tasks.enqueue_many: one good, one bad",
            with(
                "tasks.enqueue_many",
                json!({"tasks": [enq(), patched(enq(), "strength", json!(2.0))]}),
            ),
        ),
        (
            "tasks.enqueue_many: a task missing its basis",
            with(
                "tasks.enqueue_many",
                json!({"tasks": [{"kind": "digest.rewrite", "target_id": "ex:x",
                "scope": "life", "owner_id": "demo", "strength": 0.5, "cause": "c"}]}),
            ),
        ),
        (
            "tasks.select_for_window: budget negative",
            with("tasks.select_for_window", json!({"budget_seconds": -1})),
        ),
        (
            "tasks.select_for_window: budget a string",
            with("tasks.select_for_window", json!({"budget_seconds": "lots"})),
        ),
        (
            "tasks.select_for_window: budget 1e999",
            r#"{"op": "tasks.select_for_window", "budget_seconds": 1e999}"#.to_owned(),
        ),
        (
            "tasks.select_for_window: sensitivity negative",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "sensitivity": -1}),
            ),
        ),
        (
            "tasks.select_for_window: unknown window",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "window": "weekend"}),
            ),
        ),
        (
            "tasks.select_for_window: unknown capability",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "capabilities": ["dreams"]}),
            ),
        ),
        (
            "tasks.select_for_window: unknown kind",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "kinds": ["nap.take"]}),
            ),
        ),
        (
            "tasks.select_for_window: cost_of negative",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "cost_of": {"digest.rewrite": -1}}),
            ),
        ),
        (
            "tasks.select_for_window: cost_of of an unknown kind",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "cost_of": {"nap.take": 1}}),
            ),
        ),
        (
            "tasks.select_for_window: hard_cap negative",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "hard_cap": -1}),
            ),
        ),
        (
            "tasks.select_for_window: scopes a string",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "scopes": "life"}),
            ),
        ),
        (
            "tasks.select_for_window: now not a timestamp",
            with(
                "tasks.select_for_window",
                json!({"budget_seconds": 60, "now": "later"}),
            ),
        ),
        (
            "tasks.claim: blank holder",
            with("tasks.claim", json!({"tasks": ["t1"], "holder": " "})),
        ),
        (
            "tasks.claim: lease 0",
            with(
                "tasks.claim",
                json!({"tasks": ["t1"], "holder": "d", "lease_seconds": 0}),
            ),
        ),
        (
            "tasks.claim: lease negative",
            with(
                "tasks.claim",
                json!({"tasks": ["t1"], "holder": "d", "lease_seconds": -5}),
            ),
        ),
        (
            "tasks.claim: tasks a number",
            with("tasks.claim", json!({"tasks": 5, "holder": "d"})),
        ),
        (
            "tasks.claim: unknown window",
            with(
                "tasks.claim",
                json!({"tasks": ["t1"], "holder": "d", "window": "weekend"}),
            ),
        ),
        (
            "tasks.claim: now not a timestamp",
            with(
                "tasks.claim",
                json!({"tasks": ["t1"], "holder": "d", "now": "x"}),
            ),
        ),
        (
            "tasks.ack: blank holder",
            with("tasks.ack", json!({"task_id": "t1", "holder": ""})),
        ),
        (
            "tasks.ack: task_id a number",
            with("tasks.ack", json!({"task_id": 5, "holder": "d"})),
        ),
        (
            "tasks.ack: now not a timestamp",
            with(
                "tasks.ack",
                json!({"task_id": "t1", "holder": "d", "now": "soon"}),
            ),
        ),
        (
            "tasks.release: blank holder",
            with(
                "tasks.release",
                json!({"task_id": "t1", "holder": " ", "outcome": "retry", "reason": "r"}),
            ),
        ),
        (
            "tasks.release: blank reason",
            with(
                "tasks.release",
                json!({"task_id": "t1", "holder": "d", "outcome": "retry", "reason": ""}),
            ),
        ),
        (
            "tasks.release: unknown outcome",
            with(
                "tasks.release",
                json!({"task_id": "t1", "holder": "d", "outcome": "abandon", "reason": "r"}),
            ),
        ),
        (
            "tasks.release: until not a timestamp",
            with(
                "tasks.release",
                json!({"task_id": "t1", "holder": "d", "outcome": "defer", "reason": "r", "until": "soon"}),
            ),
        ),
        (
            "tasks.left_out: unknown window",
            with("tasks.left_out", json!({"window": "weekend"})),
        ),
        (
            "tasks.left_out: holder a number",
            with("tasks.left_out", json!({"holder": 5})),
        ),
        (
            "tasks.task: task_id a number",
            with("tasks.task", json!({"task_id": 5})),
        ),
        (
            "tasks.tasks: unknown status",
            with("tasks.tasks", json!({"status": "dead"})),
        ),
        (
            "tasks.tasks: unknown kind",
            with("tasks.tasks", json!({"kind": "nap.take"})),
        ),
        (
            "tasks.tasks: limit negative",
            with("tasks.tasks", json!({"limit": -1})),
        ),
        (
            "tasks.tasks: now not a timestamp",
            with("tasks.tasks", json!({"now": "x"})),
        ),
        (
            "tasks.log: task_id a list",
            with("tasks.log", json!({"task_id": ["t1"]})),
        ),
        (
            "tasks.cost_of: an unknown task",
            with("tasks.cost_of", json!({"task_id": "no-such-task"})),
        ),
        (
            "tasks.cost_of: task_id a number",
            with("tasks.cost_of", json!({"task_id": 5})),
        ),
        (
            "tasks.supersede_target: blank target",
            with(
                "tasks.supersede_target",
                json!({"target_id": " ", "reason": "r"}),
            ),
        ),
        (
            "tasks.supersede_target: blank reason",
            with(
                "tasks.supersede_target",
                json!({"target_id": ids.record, "reason": ""}),
            ),
        ),
        (
            "tasks.prioritize: blank reason",
            with(
                "tasks.prioritize",
                json!({"target_ids": [ids.record], "kinds": ["digest.rewrite"], "priority": 1, "reason": " "}),
            ),
        ),
        (
            "tasks.prioritize: unknown kind",
            with(
                "tasks.prioritize",
                json!({"target_ids": [ids.record], "kinds": ["nap.take"], "priority": 1, "reason": "r"}),
            ),
        ),
        (
            "tasks.prioritize: priority a string",
            with(
                "tasks.prioritize",
                json!({"target_ids": [ids.record], "kinds": ["digest.rewrite"], "priority": "high", "reason": "r"}),
            ),
        ),
        (
            "tasks.prioritize: target_ids a string",
            with(
                "tasks.prioritize",
                json!({"target_ids": ids.record, "kinds": ["digest.rewrite"], "priority": 1, "reason": "r"}),
            ),
        ),
        (
            "tasks.prioritize: now not a timestamp",
            with(
                "tasks.prioritize",
                json!({"target_ids": [ids.record], "kinds": ["digest.rewrite"], "priority": 1, "reason": "r", "now": "x"}),
            ),
        ),
        (
            "tasks.record_maintenance: no scopes",
            with("tasks.record_maintenance", json!({"scopes": []})),
        ),
        (
            "tasks.record_maintenance: a blank scope",
            with(
                "tasks.record_maintenance",
                json!({"scopes": [[" ", "demo"]]}),
            ),
        ),
        (
            "tasks.record_maintenance: detail a string",
            with(
                "tasks.record_maintenance",
                json!({"scopes": [["life", "demo"]], "detail": "done"}),
            ),
        ),
        (
            "tasks.record_maintenance: unknown kind",
            with(
                "tasks.record_maintenance",
                json!({"scopes": [["life", "demo"]], "kind": "nap"}),
            ),
        ),
        (
            "tasks.record_maintenance: now not a timestamp",
            with(
                "tasks.record_maintenance",
                json!({"scopes": [["life", "demo"]], "now": "tonight"}),
            ),
        ),
        (
            "tasks.last_maintenance: unknown kind",
            with("tasks.last_maintenance", json!({"kind": "weekend"})),
        ),
        (
            "tasks.last_maintenance: a scope without its owner",
            with("tasks.last_maintenance", json!({"scopes": [["life"]]})),
        ),
        (
            "confirm_relation: a relation outside DISPOSAL_RELATIONS",
            with(
                "confirm_relation",
                json!({"source_id": ids.record, "relation": "mentions", "target_id": ids.record, "evidence_ids": [ids.record], "reason": "x"}),
            ),
        ),
        (
            "confirm_relation: no evidence",
            with(
                "confirm_relation",
                json!({"source_id": ids.record, "relation": "supports", "target_id": ids.record, "evidence_ids": [], "reason": "x"}),
            ),
        ),
        (
            "confirm_relation: a blank reason",
            with(
                "confirm_relation",
                json!({"source_id": ids.record, "relation": "supports", "target_id": ids.record, "evidence_ids": [ids.record], "reason": " "}),
            ),
        ),
        (
            "promote_candidate: min_origins 0",
            with(
                "promote_candidate",
                json!({"record_id": ids.record, "scope": "life", "owner_id": "demo", "corroborating_ids": [], "reason": "x", "min_origins": 0}),
            ),
        ),
        (
            "promote_candidate: an unknown record",
            with(
                "promote_candidate",
                json!({"record_id": "nope", "scope": "life", "owner_id": "demo", "corroborating_ids": [], "reason": "x"}),
            ),
        ),
        (
            "reject_candidate: a blank reason",
            with(
                "reject_candidate",
                json!({"record_id": ids.record, "scope": "life", "owner_id": "demo", "reason": ""}),
            ),
        ),
        (
            "enact_realization: not a realization",
            with(
                "enact_realization",
                json!({"realization_id": ids.record, "supersession_record_id": ids.record, "reason": "x"}),
            ),
        ),
        (
            "dispose_dream: an unknown disposition",
            with(
                "dispose_dream",
                json!({"dream_id": ids.record, "disposition": "forgotten", "reason": "x"}),
            ),
        ),
        (
            "dispose_dream: not a dream",
            with(
                "dispose_dream",
                json!({"dream_id": ids.record, "disposition": "dissolved", "reason": "x"}),
            ),
        ),
        (
            "parse_tend_block: a cap of 0",
            with(
                "parse_tend_block",
                json!({"text": "pin: x — reason: y", "max_elections": 0}),
            ),
        ),
        (
            "apply_tend_elections: a blank actor",
            with(
                "apply_tend_elections",
                json!({"elections": [{"verb": "pin", "target": ids.record, "reason": "y", "line": "pin"}], "scope": "life", "owner_id": "demo", "actor": " ", "channel": "entity-reflection"}),
            ),
        ),
        (
            "apply_tend_elections: a revisit depth of 0",
            with(
                "apply_tend_elections",
                json!({"elections": [], "scope": "life", "owner_id": "demo", "actor": "entity-reflection", "revisit_depth": 0}),
            ),
        ),
        (
            "mine_candidates_pass: as_of given",
            with(
                "mine_candidates_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "as_of": 1, "report_only": true}),
            ),
        ),
        (
            "resolve_questions_pass: scopes a string",
            with("resolve_questions_pass", json!({"scopes": "life"})),
        ),
        (
            "identity_review_pass: a scope without its owner",
            with(
                "identity_review_pass",
                json!({"scopes": [["life"]], "owner_id": "demo"}),
            ),
        ),
        (
            "seed_ripple: a cause outside REWRITE_CAUSES",
            with(
                "seed_ripple",
                json!({"seed_id": ids.record, "cause": "gossip"}),
            ),
        ),
        (
            "seed_ripple: an evidence cause without its evidence",
            with(
                "seed_ripple",
                json!({"seed_id": ids.record, "cause": {"cause": "evidence"}}),
            ),
        ),
        (
            "seed_ripple: a refined change opens no ripple",
            with(
                "seed_ripple",
                json!({"seed_id": ids.record, "cause": "backfill", "change": "refined"}),
            ),
        ),
        (
            "seed_ripple: an unknown change",
            with(
                "seed_ripple",
                json!({"seed_id": ids.record, "cause": "backfill", "change": "shaken"}),
            ),
        ),
        (
            "seed_ripple: a magnitude over 1",
            with(
                "seed_ripple",
                json!({"seed_id": ids.record, "cause": "backfill", "magnitude": 1.5}),
            ),
        ),
        (
            "seed_ripple: a cosine distance over 2",
            with(
                "seed_ripple",
                json!({"seed_id": ids.record, "cause": "backfill", "cosine_distance": 3.0}),
            ),
        ),
        (
            "seed_ripple: a negative budget",
            with(
                "seed_ripple",
                json!({"seed_id": ids.record, "cause": "backfill", "budget": -1}),
            ),
        ),
        (
            "settle_reconsideration: an unknown task",
            with(
                "settle_reconsideration",
                json!({"task_id": "nope", "holder": "h", "outcome": "unchanged"}),
            ),
        ),
        (
            "settle_reconsideration: an unknown outcome",
            with(
                "settle_reconsideration",
                json!({"task_id": "nope", "holder": "h", "outcome": "maybe"}),
            ),
        ),
        (
            "form_consolidation: an unknown task",
            with(
                "form_consolidation",
                json!({"task_id": "nope", "holder": "h", "text": "What this changes.",
                       "title": "A change", "author": {"kind": "operator", "id": "op"}}),
            ),
        ),
        (
            "form_consolidation: without its author",
            with(
                "form_consolidation",
                json!({"task_id": "nope", "holder": "h", "text": "What this changes.",
                       "title": "A change"}),
            ),
        ),
        (
            "form_consolidation: an unknown author kind",
            with(
                "form_consolidation",
                json!({"task_id": "nope", "holder": "h", "text": "What this changes.",
                       "title": "A change", "author": {"kind": "ghost", "id": "op"}}),
            ),
        ),
        (
            "revert_ripple: an unknown ripple",
            with("revert_ripple", json!({"ripple_id": "nope"})),
        ),
        (
            "revert_ripple: an unknown key",
            with("revert_ripple", json!({"ripple_id": "nope", "force": true})),
        ),
        (
            "refresh_ripples: now not a timestamp",
            with("refresh_ripples", json!({"now": "at dusk"})),
        ),
        (
            "ripples: an unknown status",
            with("ripples", json!({"status": "closed"})),
        ),
        (
            "ripple: the id a number",
            with("ripple", json!({"ripple_id": 7})),
        ),
        (
            "structural_report: no scopes",
            with("structural_report", json!({"scopes": []})),
        ),
        (
            "structural_report: as_of past the head",
            with(
                "structural_report",
                json!({"scopes": [["life", "demo"]], "as_of": 1_000_000}),
            ),
        ),
        (
            "maintenance_report: a floor outside [0, 1]",
            with(
                "maintenance_report",
                json!({"scopes": [["life", "demo"]], "tuning": {"near_dup_jaccard_floor": 1.5}}),
            ),
        ),
        (
            "maintenance_report: an unknown tuning field",
            with(
                "maintenance_report",
                json!({"scopes": [["life", "demo"]], "tuning": {"jaccard": 0.5}}),
            ),
        ),
        (
            "maintenance_report: scan_limit negative",
            with(
                "maintenance_report",
                json!({"scopes": [["life", "demo"]], "scan_limit": -1}),
            ),
        ),
        (
            "last_maintenance_seq: a blank scope",
            with("last_maintenance_seq", json!({"scopes": [[" ", "demo"]]})),
        ),
        (
            "maintenance_due: min_new_records 0",
            with(
                "maintenance_due",
                json!({"scopes": [["life", "demo"]], "min_new_records": 0}),
            ),
        ),
        (
            "maintenance_due: since_seq negative",
            with(
                "maintenance_due",
                json!({"scopes": [["life", "demo"]], "since_seq": -1}),
            ),
        ),
        (
            "records_since_maintenance: after not a timestamp",
            with(
                "records_since_maintenance",
                json!({"after": "last tuesday"}),
            ),
        ),
        (
            "records_since_maintenance: no pair",
            with("records_since_maintenance", json!({"scopes": []})),
        ),
        (
            "drive_pressure: a ladder with no pair",
            with("drive_pressure", json!({"scopes": [[" ", "demo"]]})),
        ),
        (
            "drive_pressure: scopes a string",
            with("drive_pressure", json!({"scopes": "life"})),
        ),
        (
            "alive_drives: k negative",
            with(
                "alive_drives",
                json!({"scopes": [["life", "demo"]], "k": -1}),
            ),
        ),
        (
            "alive_drives: no pair",
            with("alive_drives", json!({"scopes": []})),
        ),
        (
            "open_drive_partition: a scope pair of three",
            with(
                "open_drive_partition",
                json!({"scopes": [["life", "demo", "x"]]}),
            ),
        ),
        (
            "drive_groups: items not a list",
            with("drive_groups", json!({"items": {"record_id": "a"}})),
        ),
        (
            "drive_groups: min_shared_terms negative",
            with("drive_groups", json!({"items": [], "min_shared_terms": -2})),
        ),
        (
            "cognition_health: no pair",
            with("cognition_health", json!({"scopes": []})),
        ),
        (
            "cognition_health: an unknown argument",
            with(
                "cognition_health",
                json!({"scopes": [["life", "demo"]], "journal": false}),
            ),
        ),
        (
            "mind_mass_report: days zero",
            with(
                "mind_mass_report",
                json!({"scopes": [["life", "demo"]], "days": 0}),
            ),
        ),
        (
            "mind_mass_report: an unknown wake-cue kind",
            with(
                "mind_mass_report",
                json!({"scopes": [["life", "demo"]], "wake_cue_kind": "loop"}),
            ),
        ),
        (
            "mind_mass_report: a negative scan limit",
            with(
                "mind_mass_report",
                json!({"scopes": [["life", "demo"]], "vector_scan_limit": -1}),
            ),
        ),
        (
            "redigestion_candidates: no pair",
            with("redigestion_candidates", json!({"scopes": []})),
        ),
        (
            "redigestion_candidates: methods a string",
            with(
                "redigestion_candidates",
                json!({"scopes": [["life", "demo"]], "methods": "mechanical-v1"}),
            ),
        ),
        (
            "reembed_store: an embedder spec no front end reads",
            with(
                "reembed_store",
                json!({"embedder": "word2vec", "owner_id": "demo"}),
            ),
        ),
        (
            "reembed_store: no owner",
            with("reembed_store", json!({"embedder": "offline"})),
        ),
        (
            "reembed_home: a negative batch size",
            with(
                "reembed_home",
                json!({"embedder": "offline", "owner_id": "demo", "batch_size": -4}),
            ),
        ),
        (
            "reembed_store: no embedder",
            with("reembed_store", json!({"owner_id": "demo"})),
        ),
        (
            "journal_cold_cut: a source that is no home file",
            with(
                "journal_cold_cut",
                json!({"src_path": "/nonexistent-am/src.sqlite3", "dst_path": "/nonexistent-am/dst.sqlite3", "archive_ref": "archive://a"}),
            ),
        ),
        (
            "journal_cold_cut: a blank archive_ref",
            with(
                "journal_cold_cut",
                json!({"src_path": "/nonexistent-am/src.sqlite3", "dst_path": "/nonexistent-am/dst.sqlite3", "archive_ref": " "}),
            ),
        ),
        (
            "journal_cold_cut: a negative cut",
            with(
                "journal_cold_cut",
                json!({"src_path": "/nonexistent-am/src.sqlite3", "dst_path": "/nonexistent-am/dst.sqlite3", "archive_ref": "archive://a", "cut_seq": -1}),
            ),
        ),
        (
            "journal_cold_cut: a pair cut without its seq",
            with(
                "journal_cold_cut",
                json!({"src_path": "/nonexistent-am/src.sqlite3", "dst_path": "/nonexistent-am/dst.sqlite3", "archive_ref": "archive://a", "pair_cuts": [["life", "demo"]]}),
            ),
        ),
        (
            "journal_cold_cut: a blank destination",
            with(
                "journal_cold_cut",
                json!({"src_path": "/nonexistent-am/src.sqlite3", "dst_path": "", "archive_ref": "archive://a"}),
            ),
        ),
        (
            "verify_cold_cut: files that are no home files",
            with(
                "verify_cold_cut",
                json!({"src_path": "/nonexistent-am/src.sqlite3", "dst_path": "/nonexistent-am/dst.sqlite3"}),
            ),
        ),
        (
            "read_embedding_pin: a blank path",
            with("read_embedding_pin", json!({"path": "  "})),
        ),
        (
            "read_embedding_pin: a table name that is no SQL identifier",
            with(
                "read_embedding_pin",
                json!({"path": "/nonexistent-am/home.sqlite3", "table_name": "triples; DROP TABLE triples"}),
            ),
        ),
        (
            "read_embedding_pin: the path a number",
            with("read_embedding_pin", json!({"path": 7})),
        ),
        (
            "build_pin: neither a model nor a dimension",
            with("build_pin", json!({"source": "creation"})),
        ),
        (
            "build_pin: a blank model and no dimension",
            with(
                "build_pin",
                json!({"model_id": "   ", "source": "creation"}),
            ),
        ),
        (
            "build_pin: dimension 0",
            with(
                "build_pin",
                json!({"model_id": "m", "dimension": 0, "source": "creation"}),
            ),
        ),
        (
            "build_pin: a negative dimension",
            with(
                "build_pin",
                json!({"model_id": "m", "dimension": -64, "source": "creation"}),
            ),
        ),
        (
            "build_pin: no source",
            with("build_pin", json!({"model_id": "m", "dimension": 64})),
        ),
        (
            "apply_redigestion: entries an object",
            with(
                "apply_redigestion",
                json!({"entries": {"record_id": "x"}, "actor": "op"}),
            ),
        ),
        (
            "apply_redigestion: no actor",
            with("apply_redigestion", json!({"entries": []})),
        ),
        (
            "engine_manifest: an argument it does not take",
            with("engine_manifest", json!({"verbose": true})),
        ),
        (
            "situate: no anchor",
            with("situate", json!({"scopes": [["life", "demo"]]})),
        ),
        (
            "situate: two anchors",
            with(
                "situate",
                json!({"scopes": [["life", "demo"]], "seq": 0, "participant": "person:ada"}),
            ),
        ),
        (
            "situate: a negative budget bound",
            with(
                "situate",
                json!({"scopes": [["life", "demo"]], "seq": 0, "budget": {"window_records": -1}}),
            ),
        ),
        (
            "situate: an unknown occurrence",
            with(
                "situate",
                json!({"scopes": [["life", "demo"]], "participant": "person:ada", "occurrence": "middle"}),
            ),
        ),
        (
            "situate: no pair",
            with("situate", json!({"scopes": [], "seq": 0})),
        ),
        (
            "situate_prompt_block: not a situation",
            with(
                "situate_prompt_block",
                json!({"situation": {"anchor_seq": 1}}),
            ),
        ),
        (
            "unresolved_dreams: limit negative",
            with(
                "unresolved_dreams",
                json!({"scope": "life", "owner_id": "demo", "limit": -1}),
            ),
        ),
        (
            "unresolved_dreams: a blank scope",
            with(
                "unresolved_dreams",
                json!({"scope": " ", "owner_id": "demo"}),
            ),
        ),
        (
            "wake_cue_dedup_pass: no actor",
            with(
                "wake_cue_dedup_pass",
                json!({"scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "wake_cue_dedup_pass: a blank actor",
            with(
                "wake_cue_dedup_pass",
                json!({"scope": "life", "owner_id": "demo", "actor": "  "}),
            ),
        ),
        (
            "wake_cue_dedup_pass: min_cluster 1",
            with(
                "wake_cue_dedup_pass",
                json!({"scope": "life", "owner_id": "demo", "actor": "op", "min_cluster": 1}),
            ),
        ),
        (
            "wake_cue_dedup_pass: jaccard_floor above 1",
            with(
                "wake_cue_dedup_pass",
                json!({"scope": "life", "owner_id": "demo", "actor": "op", "jaccard_floor": 1.5}),
            ),
        ),
        (
            "wake_cue_dedup_pass: unknown kind",
            with(
                "wake_cue_dedup_pass",
                json!({"scope": "life", "owner_id": "demo", "actor": "op", "kind": "loop"}),
            ),
        ),
        (
            "consolidation_pass: max_candidates outside the band",
            with(
                "consolidation_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "max_candidates": 9}),
            ),
        ),
        (
            "consolidation_pass: a write at as_of",
            with(
                "consolidation_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "as_of": 1}),
            ),
        ),
        (
            "consolidation_pass: no scopes",
            with(
                "consolidation_pass",
                json!({"scopes": [], "owner_id": "demo"}),
            ),
        ),
        (
            "consolidation_pass: an unknown tuning field",
            with(
                "consolidation_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "tuning": {"floor": 1}}),
            ),
        ),
        (
            "resolve_dreams_pass: a write at as_of",
            with(
                "resolve_dreams_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "as_of": 1}),
            ),
        ),
        (
            "resolve_dreams_pass: resolution_fraction above 1",
            with(
                "resolve_dreams_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "tuning": {"resolution_fraction": 2.0}}),
            ),
        ),
        (
            "resolve_dreams_pass: author is not its argument",
            with(
                "resolve_dreams_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "author": []}),
            ),
        ),
        (
            "dream_pass: a write at as_of",
            with(
                "dream_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "as_of": 1}),
            ),
        ),
        (
            "dream_pass: a blank owner",
            with(
                "dream_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "  "}),
            ),
        ),
        (
            "dream_pass: a similarity floor outside a cosine",
            with(
                "dream_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "embedder_similarity_floor": 3.0}),
            ),
        ),
        (
            "dream_pass: salience_floor a string",
            with(
                "dream_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "salience_floor": "two"}),
            ),
        ),
        (
            "sleep_pass: a write at as_of",
            with(
                "sleep_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "as_of": 1}),
            ),
        ),
        (
            "sleep_pass: max_candidates outside the band",
            with(
                "sleep_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "max_candidates": 0}),
            ),
        ),
        (
            "sleep_pass: cancel_after not a phase name",
            with(
                "sleep_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "cancel_after": 2}),
            ),
        ),
        (
            "sleep_pass: include_dream a string",
            with(
                "sleep_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "include_dream": "no"}),
            ),
        ),
        (
            "sleep_pass: an unknown keyword (0.3.2's include_identity is not a sub-phase here)",
            with(
                "sleep_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "include_identity": false}),
            ),
        ),
        (
            "wake_cue_dedup_pass: author not a list",
            with(
                "wake_cue_dedup_pass",
                json!({"scope": "life", "owner_id": "demo", "actor": "op", "author": "me"}),
            ),
        ),
        (
            "pending_records: scopes a string",
            with("pending_records", json!({"scopes": "life"})),
        ),
        (
            "pending_records: a scope without its owner",
            with("pending_records", json!({"scopes": [["life"]]})),
        ),
        (
            "pending_records: live_task a string",
            with("pending_records", json!({"live_task": "yes"})),
        ),
        (
            "declare_pending: record_id a number",
            with("declare_pending", json!({"record_id": 5})),
        ),
        (
            "declare_pending: fields a string",
            with(
                "declare_pending",
                json!({"record_id": ids.record, "fields": "title"}),
            ),
        ),
        (
            "rearm_pending: record_id a list",
            with("rearm_pending", json!({"record_id": [ids.record]})),
        ),
        (
            "rearm_pending: reason a number",
            with(
                "rearm_pending",
                json!({"record_id": ids.record, "reason": 5}),
            ),
        ),
        (
            "understanding_debt: scopes a string",
            with("understanding_debt", json!({"scopes": "life"})),
        ),
        (
            "understanding_debt: methods a string",
            with(
                "understanding_debt",
                json!({"scopes": [["life", "demo"]], "methods": "mechanical-v1"}),
            ),
        ),
        (
            "enqueue_debt: scopes a string",
            with("enqueue_debt", json!({"scopes": "life", "dry_run": false})),
        ),
        (
            "enqueue_debt: priority a string",
            with(
                "enqueue_debt",
                json!({"scopes": [["life", "demo"]], "priority": "high", "dry_run": false}),
            ),
        ),
        (
            "enqueue_debt: dry_run a string",
            with(
                "enqueue_debt",
                json!({"scopes": [["life", "demo"]], "dry_run": "no"}),
            ),
        ),
        (
            "task_packet: task_id a number",
            with("task_packet", json!({"task_id": 5})),
        ),
        (
            "task_packet: token_budget negative",
            with("task_packet", json!({"task_id": "t1", "token_budget": -1})),
        ),
        (
            "write_barrier: timeout a string",
            with("write_barrier", json!({"timeout_s": "long"})),
        ),
        (
            "reinforce: weight an object",
            with(
                "reinforce",
                json!({"record_id": ids.record, "reason": "r", "scope": "life", "owner_id": "demo", "weight": {"w": 1}}),
            ),
        ),
        (
            "reinforce: record_id a number",
            with(
                "reinforce",
                json!({"record_id": 5, "reason": "r", "scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "attenuate: scope a number",
            with(
                "attenuate",
                json!({"record_id": ids.record, "reason": "r", "scope": 5, "owner_id": "demo"}),
            ),
        ),
        (
            "rewrite_digest: record_id a number",
            with(
                "rewrite_digest",
                json!({"record_id": 5, "text": "t", "author": {"kind": "agent", "id": "a"}, "cause": "formation", "expected_version": 0}),
            ),
        ),
        (
            "rewrite_digest: expected_version a string",
            with(
                "rewrite_digest",
                json!({"record_id": ids.record, "text": "t", "author": {"kind": "agent", "id": "a"}, "cause": "formation", "expected_version": "zero"}),
            ),
        ),
        (
            "rewrite_digest: understood_at not a timestamp",
            with(
                "rewrite_digest",
                json!({"record_id": ids.record, "text": "t", "author": {"kind": "agent", "id": "a"}, "cause": "formation", "expected_version": 0, "understood_at": "yesterday"}),
            ),
        ),
        (
            "retitle: title a number",
            with(
                "retitle",
                json!({"record_id": ids.record, "title": 7, "author": {"kind": "agent", "id": "a"}, "cause": "formation", "expected_version": 0}),
            ),
        ),
        (
            "retitle: author kind outside the four",
            with(
                "retitle",
                json!({"record_id": ids.record, "title": "T", "author": {"kind": "rant", "id": "a"}, "cause": "repair", "expected_version": 0}),
            ),
        ),
        (
            "remember_many: a title neither given nor pending",
            with(
                "remember_many",
                json!({"records": [{"kind": "episode", "digest": "d"}], "scope": "life", "owner_id": "demo", "idempotency_key": "no-title"}),
            ),
        ),
        (
            "narrate_dream: dream_id a list",
            with(
                "narrate_dream",
                json!({"dream_id": [], "text": "t", "author": {"kind": "agent", "id": "a"}}),
            ),
        ),
        (
            "revert_digest: to_version a string",
            with(
                "revert_digest",
                json!({"record_id": ids.record, "to_version": "first", "expected_version": 1}),
            ),
        ),
        (
            "current_of: record_id a number",
            with("current_of", json!({"record_id": 5})),
        ),
        (
            "record_understanding: record_id a list",
            with("record_understanding", json!({"record_id": [ids.record]})),
        ),
        (
            "understanding_fields: version_count a string",
            with(
                "understanding_fields",
                json!({"record_id": ids.record, "version_count": "many"}),
            ),
        ),
        (
            "reading_provenance: record_id a number",
            with("reading_provenance", json!({"record_id": 5})),
        ),
        (
            "appraise: sign a string",
            with(
                "appraise",
                json!({"target_id": ids.record, "sign": "up", "scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "heal_scar: scar_event_id a number",
            with(
                "heal_scar",
                json!({"scar_event_id": 5, "reason": "r", "scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "break_bond: bond_event_id a number",
            with(
                "break_bond",
                json!({"bond_event_id": 5, "reason": "r", "scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "gradation: at_seq a string",
            with(
                "gradation",
                json!({"scope": "life", "owner_id": "demo", "at_seq": "latest"}),
            ),
        ),
        (
            "feelings_about: scope_pairs a string",
            with(
                "feelings_about",
                json!({"target": ids.record, "scope_pairs": "life"}),
            ),
        ),
        (
            "stimulus_feelings: stimulus a string",
            with(
                "stimulus_feelings",
                json!({"stimulus": "lease", "scope_pairs": [["life", "demo"]]}),
            ),
        ),
        (
            "lint_spark: spark a number",
            with("lint_spark", json!({"spark": 5})),
        ),
        (
            "canonical_spark_hash: spark a list",
            with("canonical_spark_hash", json!({"spark": [1]})),
        ),
        (
            "engram: spark a number",
            with("engram", json!({"spark": 5, "owner_id": "demo"})),
        ),
        (
            "self_records: scope a number",
            with("self_records", json!({"scope": 5, "owner_id": "demo"})),
        ),
        (
            "standing_world_models: journal a string",
            with(
                "standing_world_models",
                json!({"scope": "life", "owner_id": "demo", "journal": "yes"}),
            ),
        ),
        (
            "current_world_models: scope a number",
            with(
                "current_world_models",
                json!({"scope": 5, "owner_id": "demo"}),
            ),
        ),
        (
            "probe: a blank reason",
            with(
                "probe",
                json!({"stimulus": {"cue_text": "pool"}, "scopes": [["session", "s1"]], "reason": " "}),
            ),
        ),
        (
            "probe: an unknown effort",
            with(
                "probe",
                json!({"stimulus": {"cue_text": "pool"}, "scopes": [["session", "s1"]], "reason": "why", "effort": "heroic"}),
            ),
        ),
        (
            "probe_expand: an unknown root",
            with(
                "probe_expand",
                json!({"record_ids": ["nowhere"], "reason": "why"}),
            ),
        ),
        (
            "probe_expand: depth zero",
            with(
                "probe_expand",
                json!({"record_ids": ["nowhere"], "reason": "why", "depth": 0}),
            ),
        ),
        (
            "familiarity: strong_threshold zero",
            with(
                "familiarity",
                json!({"stimulus": {"cue_text": "pool"}, "scopes": [["session", "s1"]], "strong_threshold": 0}),
            ),
        ),
        (
            "concept_terms: text a number",
            with("concept_terms", json!({"text": 5})),
        ),
        (
            "expand_by_concepts: min_sources one",
            with(
                "expand_by_concepts",
                json!({"seeds": [], "scope_pairs": [["session", "s1"]], "tuning": {"min_sources": 1}}),
            ),
        ),
        (
            "alias_map: owner_id a list",
            with("alias_map", json!({"scope": "life", "owner_id": ["demo"]})),
        ),
        (
            "alias_candidates: overlap_floor above 1",
            with(
                "alias_candidates",
                json!({"by_target": {"person:a": ["r1", "r2"]}, "overlap_floor": 1.5}),
            ),
        ),
        (
            "alias_candidates: by_target a list",
            with("alias_candidates", json!({"by_target": ["person:a"]})),
        ),
        (
            "communities_pass: scopes a string",
            with(
                "communities_pass",
                json!({"scopes": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "communities_pass: budget negative",
            with(
                "communities_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "budget": -1}),
            ),
        ),
        (
            "communities_pass: an unknown detect kind",
            with(
                "communities_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "detect_kinds": ["topic"]}),
            ),
        ),
        (
            "embed_missing: record_ids a string",
            with(
                "embed_missing",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "record_ids": "ex:episode-1"}),
            ),
        ),
        (
            "communities: version a string",
            with(
                "communities",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "version": "v1"}),
            ),
        ),
        (
            "community_of: record_id a number",
            with("community_of", json!({"record_id": 7})),
        ),
        (
            "community_memberships_of: an unknown field",
            with(
                "community_memberships_of",
                json!({"record_ids": [], "scopes": [["life", "demo"]], "owner_id": "demo", "ids": []}),
            ),
        ),
        (
            "community_keys_of: record_ids a string",
            with(
                "community_keys_of",
                json!({"record_ids": "ex:a", "scopes": [["life", "demo"]], "owner_id": "demo"}),
            ),
        ),
        (
            "world_model_pass: blank owner",
            with(
                "world_model_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "  "}),
            ),
        ),
        (
            "world_model_pass: scopes a string",
            with(
                "world_model_pass",
                json!({"scopes": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "world_model_pass: an unknown tuning field",
            with(
                "world_model_pass",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "tuning": {"cards": 3}}),
            ),
        ),
        (
            "world_model_update: no target",
            with(
                "world_model_update",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "targets": []}),
            ),
        ),
        (
            "world_model_update: scan_limit negative",
            with(
                "world_model_update",
                json!({"scopes": [["life", "demo"]], "owner_id": "demo", "targets": ["person:ada"], "scan_limit": -1}),
            ),
        ),
        (
            "author_world_model: blank text",
            with(
                "author_world_model",
                json!({"target": "person:ada", "text": " ", "scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "author_world_model: no standing card",
            with(
                "author_world_model",
                json!({"target": "person:nobody", "text": "Words.", "scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "author_world_model: in_place a string",
            with(
                "author_world_model",
                json!({"target": "person:ada", "text": "Words.", "scope": "life", "owner_id": "demo", "in_place": "no"}),
            ),
        ),
        (
            "alias_world_model: blank reason",
            with(
                "alias_world_model",
                json!({"primary": "person:ada", "alias": "person:al", "scope": "life", "owner_id": "demo", "reason": " "}),
            ),
        ),
        (
            "alias_world_model: a self-alias",
            with(
                "alias_world_model",
                json!({"primary": "person:ada", "alias": "person:ada", "scope": "life", "owner_id": "demo", "reason": "same"}),
            ),
        ),
        (
            "rekey_world_model: equal keys",
            with(
                "rekey_world_model",
                json!({"old_key": "person:ada", "new_key": "person:ada", "scope": "life", "owner_id": "demo", "author": {"kind": "operator", "id": "op"}, "cause": "repair"}),
            ),
        ),
        (
            "rekey_world_model: no author",
            with(
                "rekey_world_model",
                json!({"old_key": "person:ada", "new_key": "person:al", "scope": "life", "owner_id": "demo", "cause": "repair"}),
            ),
        ),
        (
            "rekey_world_model: a cause outside REWRITE_CAUSES",
            with(
                "rekey_world_model",
                json!({"old_key": "person:ada", "new_key": "person:al", "scope": "life", "owner_id": "demo", "author": {"kind": "operator", "id": "op"}, "cause": "whim"}),
            ),
        ),
        (
            "open_questions: limit negative",
            with(
                "open_questions",
                json!({"scope": "life", "owner_id": "demo", "limit": -1}),
            ),
        ),
        (
            "open_problems: journal a string",
            with(
                "open_problems",
                json!({"scope": "life", "owner_id": "demo", "journal": "yes"}),
            ),
        ),
        (
            "open_ideas: owner_id a number",
            with("open_ideas", json!({"scope": "life", "owner_id": 5})),
        ),
        (
            "open_commitments: limit a float",
            with(
                "open_commitments",
                json!({"scope": "life", "owner_id": "demo", "limit": 1.5}),
            ),
        ),
        (
            "triggered_commitments: stimulus a number",
            with(
                "triggered_commitments",
                json!({"stimulus": 5, "scope": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "triggered_commitments: now not a timestamp",
            with(
                "triggered_commitments",
                json!({"stimulus": {"cue_text": "x"}, "scope": "life", "owner_id": "demo", "now": "noon"}),
            ),
        ),
        (
            "recent_records: until not a timestamp",
            with(
                "recent_records",
                json!({"scopes": [["life", "demo"]], "since": "2026-01-01T00:00:00Z", "until": "later"}),
            ),
        ),
        (
            "diary_entry_hash: observed_at a number",
            with(
                "diary_entry_hash",
                json!({"title": "Q", "digest": "d", "observed_at": 3}),
            ),
        ),
        (
            "verify_diary_chain: scope a list",
            with(
                "verify_diary_chain",
                json!({"scope": [], "owner_id": "demo"}),
            ),
        ),
        (
            "entity_card: scope_pairs a string",
            with(
                "entity_card",
                json!({"scope_pairs": "life", "owner_id": "demo"}),
            ),
        ),
        (
            "entity_card: top_n negative",
            with(
                "entity_card",
                json!({"scope_pairs": [["life", "demo"]], "owner_id": "demo", "top_n": -1}),
            ),
        ),
        (
            "entity_card: current_window_events 0",
            with(
                "entity_card",
                json!({"scope_pairs": [["life", "demo"]], "owner_id": "demo",
                       "current_window_events": 0}),
            ),
        ),
        (
            "export_replay: since_seq a string",
            with("export_replay", json!({"since_seq": "start"})),
        ),
        (
            "recall_history: limit_traces negative",
            with(
                "recall_history",
                json!({"record_id": ids.record, "limit_traces": -1}),
            ),
        ),
        (
            "explain_recall: record_id a number",
            with("explain_recall", json!({"record_id": 5})),
        ),
        (
            "absence_diagnosis: record_id a number",
            with(
                "absence_diagnosis",
                json!({"record_id": 5, "scope": "life"}),
            ),
        ),
        (
            "origin_diversity: handles a string",
            with("origin_diversity", json!({"handles": "h"})),
        ),
        (
            "stable_render_order: handles a number",
            with("stable_render_order", json!({"handles": 5})),
        ),
        (
            "origin_diversity: min_counted 0",
            with("origin_diversity", json!({"handles": [], "min_counted": 0})),
        ),
        (
            "recent_records: limit 0",
            with(
                "recent_records",
                json!({"scopes": [["life", "demo"]], "since": "2026-01-01T00:00:00Z", "limit": 0}),
            ),
        ),
        (
            "recent_records: since not a timestamp",
            with(
                "recent_records",
                json!({"scopes": [["life", "demo"]], "since": "last week"}),
            ),
        ),
        (
            "recent_records: scopes a string",
            with(
                "recent_records",
                json!({"scopes": "life", "since": "2026-01-01T00:00:00Z"}),
            ),
        ),
    ];
    for (name, l) in cases {
        push(name, l);
    }
}

/// Ids the template home holds.
struct Ids {
    record: String,
    assertion: String,
}

fn hash(path: &Path) -> String {
    let mut h = Sha256::new();
    for suffix in ["", "-wal"] {
        let p = PathBuf::from(format!("{}{suffix}", path.display()));
        if let Ok(bytes) = std::fs::read(&p) {
            h.update(suffix.as_bytes());
            h.update(&bytes);
        }
    }
    format!("{:x}", h.finalize())
}

fn exec(home: &Path, input: &str) -> (i32, String, String) {
    exec_with(home, input, false)
}

/// `am exec` over `home`, with its task queue when `queued`.
fn exec_with(home: &Path, input: &str, queued: bool) -> (i32, String, String) {
    // The lived-in template is vectorless (the catalogue has cases for a
    // home without an embedder): the embedder is named, not defaulted.
    let mut args = vec![
        "exec",
        "--home",
        home.to_str().unwrap(),
        "--embedder",
        "none",
        "--clock",
        CLOCK,
    ];
    if queued {
        args.push("--task-queue");
    }
    args.push("-");
    let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the am binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn copy_home(from: &Path, to: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let f = PathBuf::from(format!("{}{suffix}", from.display()));
        let t = PathBuf::from(format!("{}{suffix}", to.display()));
        let _ = std::fs::remove_file(&t);
        if f.exists() {
            std::fs::copy(&f, &t).unwrap();
        }
    }
}

/// A home with records, a layer-1 row, a journaled recall and a revision.
fn template(dir: &Path) -> (PathBuf, Ids) {
    let home = dir.join("template.sqlite3");
    let script = [
        json!({"op": "remember_many", "records": [record(), {"kind": "lesson", "title": "Lease", "digest": "Read the lease first.", "edges": [["derived_from", "local:0"]]}], "scope": "life", "owner_id": "demo", "idempotency_key": "t1"}),
        json!({"op": "add", "assertions": [patched(assertion(), "assertion_id", json!("a1"))]}),
        json!({"op": "reconstruct", "stimulus": {"cue_text": "lease"}, "scopes": [["life", "demo"]], "trace_id": "tr-1"}),
        json!({"op": "apply_revision", "revision": revision()}),
        json!({"op": "tasks.enqueue", "kind": "digest.rewrite", "target_id": "ex:t", "scope": "life",
               "owner_id": "demo", "basis": "b0", "strength": 0.8, "cause": "backfill"}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    // Opened with its queue: the `memq_*` tables exist before any case runs.
    let (code, out, err) = exec_with(&home, &script, true);
    assert_eq!(code, 0, "the template script failed: {out}\n{err}");
    let answers: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for a in &answers {
        assert!(a.get("ok").is_some(), "template step refused: {a}");
    }
    let recall = &answers[2]["ok"]["handles"];
    let record = recall[0]["record_id"].as_str().unwrap().to_owned();
    (
        home,
        Ids {
            record,
            assertion: "a1".into(),
        },
    )
}

#[test]
fn every_bad_exec_input_is_refused_with_an_error_kind_and_leaves_the_home_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (template, ids) = template(dir.path());
    // The control: a read leaves the bytes as they were.
    let control = dir.path().join("control.sqlite3");
    copy_home(&template, &control);
    let before = hash(&control);
    let (code, out, _) = exec(&control, r#"{"op": "current_seq"}"#);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        hash(&control),
        before,
        "a plain read changed the home's bytes"
    );
    let (code, out, _) = exec_with(&control, r#"{"op": "tasks.counts"}"#, true);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        hash(&control),
        before,
        "opening the queue and reading it changed the home's bytes"
    );

    let ops = ops(dir.path());
    let cases = catalogue(&ids, &ops);
    let mut names: Vec<&str> = cases.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    let twice: Vec<&str> = names
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    assert!(twice.is_empty(), "case names are unique: {twice:?}");
    assert!(
        cases.len() >= 150,
        "the catalogue holds {} cases",
        cases.len()
    );
    let mut accepted: Vec<String> = Vec::new();
    let mut crashed: Vec<String> = Vec::new();
    let mut changed: Vec<String> = Vec::new();
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    // Issue 37: a refusal never shows Rust's debug form of a value
    // (`Some(String("rant"))`): values are shown as JSON.
    let debug_form = regex::Regex::new(r"\b(Some|String|Number|Bool|Array)\(|Object \{").unwrap();
    let mut rust_debug: Vec<String> = Vec::new();
    for (i, (name, input)) in cases.iter().enumerate() {
        let home = dir.path().join(format!("case-{i}.sqlite3"));
        copy_home(&template, &home);
        let before = hash(&home);
        let queued = op_of(input).is_some_and(|op| ops.queued.contains(&op));
        let (code, out, err) = exec_with(&home, input, queued);
        if !(code == 0 || code == 2) || err.contains("panicked") {
            crashed.push(format!(
                "{name}: exit {code}: {}",
                err.lines().last().unwrap_or("")
            ));
        } else {
            match out
                .lines()
                .next()
                .and_then(|l| serde_json::from_str::<Value>(l).ok())
            {
                Some(a) if a["error"]["kind"].as_str().is_some_and(|k| !k.is_empty()) => {
                    let message = a["error"]["message"].as_str().unwrap_or_default();
                    if debug_form.is_match(message) {
                        let shown: String = message.chars().take(300).collect();
                        rust_debug.push(format!("{name}: {shown}"));
                    }
                    *kinds
                        .entry(a["error"]["kind"].as_str().unwrap().to_owned())
                        .or_default() += 1;
                }
                other => accepted.push(format!(
                    "{name}: {}",
                    other.map_or("no answer".into(), |a| a
                        .to_string()
                        .chars()
                        .take(200)
                        .collect::<String>())
                )),
            }
        }
        if hash(&home) != before {
            changed.push(name.clone());
        }
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", home.display()));
        }
    }
    println!(
        "badinput: {} cases, {} refused ({kinds:?}), {} accepted, {} crashed, {} changed the home",
        cases.len(),
        cases.len() - accepted.len() - crashed.len(),
        accepted.len(),
        crashed.len(),
        changed.len()
    );
    assert!(
        rust_debug.is_empty(),
        "refusals showing Rust's debug form of a value:\n{}",
        rust_debug.join("\n")
    );
    for a in &accepted {
        println!("  ACCEPTED {a}");
    }
    for c in &crashed {
        println!("  CRASHED  {c}");
    }
    for c in &changed {
        println!("  CHANGED  {c}");
    }
    assert!(
        accepted.is_empty() && crashed.is_empty() && changed.is_empty(),
        "{} accepted, {} crashed, {} changed the home (listed above)",
        accepted.len(),
        crashed.len(),
        changed.len()
    );
}

#[test]
fn every_exec_op_has_a_bad_input_case_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let ops = ops(dir.path());
    let ids = Ids {
        record: "ex:episode-x".into(),
        assertion: "a1".into(),
    };
    let cases = catalogue(&ids, &ops);
    let generated =
        |name: &str| name.ends_with(": unknown argument") || name.ends_with(": no arguments");
    let missing: Vec<&String> = ops
        .known
        .iter()
        .filter(|op| !ops.no_args.contains(op))
        .filter(|op| {
            !cases
                .iter()
                .any(|(name, l)| !generated(name) && op_of(l).as_deref() == Some(op.as_str()))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ops taking arguments with no bad-input case written for them (add one to badinput.rs): {missing:?}"
    );
    for op in &ops.known {
        assert!(
            cases
                .iter()
                .any(|(name, _)| *name == format!("{op}: unknown argument")),
            "{op} has no unknown-argument case"
        );
    }
}
