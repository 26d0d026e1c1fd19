//! Property-based fuzzing of every parser a host feeds (issue 23 §6), on
//! stable Rust with proptest: timestamps, `TripleQuery`, `TripleAssertion`,
//! `MemoryRecordInput` and `Stimulus` JSON, `SourceRef` / `Provenance`,
//! revision ops and revisions, and whole `am exec` scripts. Each target feeds
//! generated input (arbitrary text and JSON shaped like the real thing: the
//! parsers' own field names, hostile strings, extreme numbers) and requires
//! no panic and, for a refusal, an error with a message.
//!
//! A target runs 64 cases by default (CI); `AM_FUZZ_SECONDS` makes every
//! target run batches of fresh cases until that many seconds have passed
//! (`cargo xtask fuzz --minutes N`). Every case runs on its own thread
//! under a time bound (`AM_FUZZ_HANG_SECONDS`, default 30 s): a case still
//! running then fails the target as a hang, so "no hang" is checked, not
//! implied.

use am_graph::{Provenance, Revision, RevisionOp, SourceRef};
use am_system::{MemoryRecordInput, Stimulus};
use am_triples::timestamp::{normalize_timestamp, parse_timestamp};
use am_triples::{TripleAssertion, TripleQuery};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// Field names the parsers know, so generated objects reach past the first check.
const KEYS: &[&str] = &[
    "subject",
    "predicate",
    "object",
    "scope",
    "owner_id",
    "observed_at",
    "valid_from",
    "valid_until",
    "confidence",
    "provenance",
    "attributes",
    "assertion_id",
    "limit",
    "order",
    "since",
    "until",
    "active_at",
    "query_text",
    "query_vector",
    "assertion_ids",
    "min_confidence",
    "kind",
    "title",
    "digest",
    "keywords",
    "participants",
    "edges",
    "payload_ref",
    "topic",
    "intents",
    "outcomes",
    "cue_text",
    "patterns",
    "anchor_record_ids",
    "as_of",
    "embedding",
    "turn_id",
    "cue_source",
    "sources",
    "actor",
    "run_id",
    "seq",
    "artifact_id",
    "step",
    "revision_id",
    "cause",
    "occurred_at",
    "ops",
    "op",
    "payload",
    "recorded_at",
    "summary",
    "reason",
    "uri",
    "record_id",
    "trace_id",
    "stimulus",
    "scopes",
    "budget",
    "view",
    "records",
    "idempotency_key",
    "used_record_ids",
    "literal",
    "x",
];

const WORDS: &[&str] = &[
    "",
    " ",
    "2026-01-01T00:00:00Z",
    "2026-13-45T25:61:61Z",
    "yesterday",
    "episode",
    "lesson",
    "summary",
    "assert",
    "close",
    "narrow",
    "retract",
    "supersede",
    "ingest",
    "artifact",
    "step",
    "run",
    "local:0",
    "local:-1",
    "local:99999999999999999999",
    "ex:a",
    "\u{0}",
    "\u{202e}",
    "'; DROP TABLE triples; --",
    "\"",
    "\\",
    "NaN",
    "1e999",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "shelf",
    "working_set",
    "desc",
    "asc",
    "hidden",
    "indexed",
    "global",
    "current_seq",
    "add",
    "query",
    "reconstruct",
];

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just(0.0f64),
            Just(-0.0),
            Just(1.0),
            Just(-1.0),
            Just(0.5),
            Just(1e308),
            Just(-1e308),
            Just(f64::MIN_POSITIVE),
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
        ]
        .prop_map(Value::from),
        proptest::sample::select(WORDS).prop_map(Value::from),
        ".{0,40}".prop_map(Value::from),
    ]
    .boxed()
}

fn json() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop_oneof![
                            3 => proptest::sample::select(KEYS).prop_map(str::to_owned),
                            1 => ".{0,12}",
                        ],
                        inner
                    ),
                    0..8
                )
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
            ]
        })
        .boxed()
}

/// An object that starts from a plausible value of the type and is then
/// damaged: keys set to generated values.
fn damaged(base: Value) -> BoxedStrategy<Value> {
    prop::collection::vec(
        (
            proptest::sample::select(KEYS).prop_map(str::to_owned),
            json(),
        ),
        0..5,
    )
    .prop_map(move |edits| {
        let mut v = base.clone();
        if let Some(m) = v.as_object_mut() {
            for (k, x) in edits {
                m.insert(k, x);
            }
        }
        v
    })
    .boxed()
}

/// How long one case may run before it counts as a hang
/// (`AM_FUZZ_HANG_SECONDS`, default 30: a debug build's `am exec` child on a
/// loaded 2-core machine answers a case in well under a second).
fn hang_limit() -> Duration {
    Duration::from_secs(
        std::env::var("AM_FUZZ_HANG_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(30),
    )
}

/// Run one case of `check` on its own thread and wait at most `limit`: a case
/// still running then fails as a hang (its thread is left behind; the target
/// fails), a panic fails as a panic, and otherwise the case's own answer.
fn bounded<T: Send + 'static>(
    limit: Duration,
    check: &Arc<impl Fn(T) -> Result<(), TestCaseError> + Send + Sync + 'static>,
    value: T,
) -> Result<(), TestCaseError> {
    let (tx, rx) = mpsc::channel();
    let check = Arc::clone(check);
    std::thread::spawn(move || {
        let _ = tx.send(check(value));
    });
    match rx.recv_timeout(limit) {
        Ok(answer) => answer,
        Err(mpsc::RecvTimeoutError::Timeout) => Err(TestCaseError::fail(format!(
            "a hang: the case was still running after {limit:?}"
        ))),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(TestCaseError::fail(
            "the case panicked (its message is above)",
        )),
    }
}

#[test]
fn a_case_still_running_after_the_limit_fails_as_a_hang() {
    let slow = Arc::new(|ms: u64| {
        std::thread::sleep(Duration::from_millis(ms));
        Ok(())
    });
    let hang = bounded(Duration::from_millis(50), &slow, 5_000).unwrap_err();
    assert!(hang.to_string().contains("a hang"), "{hang}");
    assert!(bounded(Duration::from_secs(5), &slow, 1).is_ok());
    let panics = Arc::new(|_: u64| -> Result<(), TestCaseError> { panic!("boom") });
    let panicked = bounded(Duration::from_secs(5), &panics, 0).unwrap_err();
    assert!(panicked.to_string().contains("panicked"), "{panicked}");
    let refuses = Arc::new(|_: u64| Err(TestCaseError::fail("no")));
    assert!(bounded(Duration::from_secs(5), &refuses, 0).is_err());
}

/// Run `check` over `strategy`: the default case count, or batches of fresh
/// cases until `AM_FUZZ_SECONDS` have passed. Returns the cases run.
fn fuzz<T: std::fmt::Debug + Send + 'static>(
    name: &str,
    strategy: impl Strategy<Value = T>,
    check: impl Fn(T) -> Result<(), TestCaseError> + Send + Sync + 'static,
) {
    let limit = hang_limit();
    let check = Arc::new(check);
    let check = move |v: T| bounded(limit, &check, v);
    let budget = std::env::var("AM_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_secs);
    let start = Instant::now();
    let mut cases = 0u64;
    let mut round = 0u64;
    loop {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&round.to_le_bytes());
        seed[8..16].copy_from_slice(&(name.len() as u64).to_le_bytes());
        let config = Config {
            cases: 64,
            failure_persistence: None,
            // A hang found is shrunk for at most a minute, not case by case
            // at `hang_limit` each.
            max_shrink_time: 60_000,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        if let Err(e) = runner.run(&strategy, &check) {
            panic!("fuzz target {name}: {e}");
        }
        cases += 64;
        round += 1;
        match budget {
            Some(b) if start.elapsed() < b => continue,
            _ => break,
        }
    }
    println!(
        "fuzz {name}: {cases} cases, 0 failures, {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

fn refused_clearly(what: &str, message: String) -> Result<(), TestCaseError> {
    prop_assert!(
        !message.trim().is_empty(),
        "{what} refused with an empty message"
    );
    Ok(())
}

#[test]
fn fuzz_timestamps() {
    let strategy = prop_oneof![
        ".{0,40}",
        "[0-9]{1,5}-[0-9]{1,2}-[0-9]{1,2}([T ][0-9]{1,2}:[0-9]{1,2}(:[0-9]{1,2}(\\.[0-9]{0,12})?)?)?(Z|[+-][0-9]{1,2}(:?[0-9]{1,2})?)?",
    ];
    fuzz("timestamps", strategy, |s: String| {
        match normalize_timestamp(&s) {
            Ok(n) => {
                // The canonical form parses and is a fixed point.
                prop_assert_eq!(normalize_timestamp(&n).ok(), Some(n.clone()));
                prop_assert!(parse_timestamp(&n).is_ok());
            }
            Err(e) => refused_clearly("timestamp", e.to_string())?,
        }
        Ok(())
    });
}

#[test]
fn fuzz_triple_query_json() {
    fuzz("TripleQuery", json(), |v: Value| {
        if let Ok(q) = serde_json::from_value::<TripleQuery>(v) {
            let _ = q.canonicalized();
        }
        Ok(())
    });
}

#[test]
fn fuzz_triple_assertion_json() {
    let base = serde_json::json!({"subject": "ex:a", "predicate": "p", "object": "ex:b"});
    let strategy = prop_oneof![json(), damaged(base)];
    fuzz("TripleAssertion", strategy, |v: Value| {
        match TripleAssertion::from_dict(&v) {
            Ok(a) => {
                // What parsed round-trips.
                let again = TripleAssertion::from_dict(&a.to_dict());
                prop_assert!(
                    again.is_ok(),
                    "to_dict of a parsed assertion does not parse: {again:?}"
                );
            }
            Err(e) => refused_clearly("TripleAssertion", e.to_string())?,
        }
        if let Err(e) = serde_json::from_value::<TripleAssertion>(v) {
            refused_clearly("TripleAssertion (serde)", e.to_string())?;
        }
        Ok(())
    });
}

#[test]
fn fuzz_memory_record_input_json() {
    let base = serde_json::json!({"kind": "episode", "title": "T", "digest": "D."});
    fuzz(
        "MemoryRecordInput",
        prop_oneof![json(), damaged(base)],
        |v: Value| {
            if let Err(e) = serde_json::from_value::<MemoryRecordInput>(v) {
                refused_clearly("MemoryRecordInput", e.to_string())?;
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_stimulus_json() {
    let base = serde_json::json!({"cue_text": "pool"});
    fuzz(
        "Stimulus",
        prop_oneof![json(), damaged(base)],
        |v: Value| {
            match serde_json::from_value::<Stimulus>(v) {
                Ok(s) => {
                    let _ = s.normalized();
                }
                Err(e) => refused_clearly("Stimulus", e.to_string())?,
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_source_refs_and_provenance() {
    let source = serde_json::json!({"kind": "artifact", "artifact_id": "n1"});
    let prov = serde_json::json!({"sources": [source.clone()], "actor": "t"});
    let strategy = prop_oneof![json(), damaged(source), damaged(prov)];
    fuzz("SourceRef/Provenance", strategy, |v: Value| {
        if let Err(e) = SourceRef::from_dict(&v) {
            refused_clearly("SourceRef", e.to_string())?;
        }
        if let Err(e) = Provenance::from_dict(&v) {
            refused_clearly("Provenance", e.to_string())?;
        }
        Ok(())
    });
}

#[test]
fn fuzz_revision_ops_and_revisions() {
    let op = serde_json::json!({"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b"}});
    let rev = serde_json::json!({"revision_id": "r", "scope": "s", "owner_id": "o", "cause": "ingest",
        "occurred_at": "2026-01-05T09:00:00Z", "ops": [op.clone()],
        "provenance": {"sources": [{"kind": "artifact", "artifact_id": "n1"}], "actor": "t"}});
    let strategy = prop_oneof![json(), damaged(op), damaged(rev)];
    fuzz("RevisionOp/Revision", strategy, |v: Value| {
        if let Err(e) = RevisionOp::from_dict(&v) {
            refused_clearly("RevisionOp", e.to_string())?;
        }
        if let Err(e) = Revision::from_dict(&v) {
            refused_clearly("Revision", e.to_string())?;
        }
        Ok(())
    });
}

/// Whole `am exec` scripts: generated lines (JSON objects naming real ops
/// with generated arguments, and raw text) through one `am exec --memory`
/// process per case: it must exit 0 or 2, never panic, and answer every line.
#[test]
fn fuzz_exec_lines() {
    const OPS: &[&str] = &[
        "add",
        "query",
        "remember_many",
        "remember",
        "reconstruct",
        "commit_selection",
        "reinforce",
        "refocus",
        "bind",
        "close_record",
        "close_assertions",
        "events",
        "bindings",
        "traces",
        "apply_revision",
        "history",
        "sources_of",
        "revisions",
        "clock",
        "seq_at",
        "payload",
        "activation",
        "access_counts",
        "assertions_after",
        "current_seq",
    ];
    let line = prop_oneof![
        3 => (proptest::sample::select(OPS), json()).prop_map(|(op, args)| {
            let mut m = args.as_object().cloned().unwrap_or_default();
            m.insert("op".into(), Value::from(op));
            Value::Object(m).to_string()
        }),
        1 => "[^\n\r]{1,60}".prop_filter("not a comment or blank", |l: &String| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        }),
    ];
    fuzz(
        "exec lines",
        prop::collection::vec(line, 1..6),
        |lines: Vec<String>| {
            let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
                .args(["exec", "--memory", "--clock", "2026-01-01T00:00:00Z", "-"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the am binary runs");
            let script = lines.join("\n") + "\n";
            child
                .stdin
                .take()
                .unwrap()
                .write_all(script.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            prop_assert!(!stderr.contains("panicked"), "am exec panicked: {stderr}");
            let code = out.status.code();
            prop_assert!(
                code == Some(0) || code == Some(2),
                "exit {code:?}: {stderr}"
            );
            let answers = String::from_utf8_lossy(&out.stdout).lines().count();
            prop_assert_eq!(
                answers,
                lines.len(),
                "one answer per line; stderr: {}",
                stderr
            );
            Ok(())
        },
    );
}
