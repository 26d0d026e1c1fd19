//! Differential test of `reconstruct` on lived-in homes written by
//! AbstractMemory 0.3.2 (issue 23 §1).
//!
//! `tests/oracle/lived_home.py` builds, with 0.3.2 itself and deterministically
//! (seeded ids, a clock that ticks per read), a home that has lived: records
//! of four kinds in three (scope, owner) pairs, edges inside and across
//! batches, journaled recalls with commits, reinforce / attenuate / refocus,
//! appraisals with a scar, hidden, prompt-active, cross-pair and restored
//! bindings, closures. It copies the home for us, then runs a battery of
//! recalls on its own copy (per pair and cue: journaled shelf and
//! working_set, `as_of`-anchored re-reads of both, a ladder and a broad
//! escalation, under several budgets) and prints each call with its result,
//! trace and `listed` events. Here the copy is opened as a 0.3.2 home and the
//! same calls are made in the same order: every field of every result, every
//! field of every trace (candidates with their scores, dropped rows with
//! reasons, `budget_spent`, edges) and every `listed` event must equal
//! 0.3.2's.
//!
//! Needs `AM_ORACLE_PYTHON` (a python with `abstractmemory==0.3.2`); the test
//! fails with a message saying so when it is unset.
//!
//! Deliberate differences (0.5.2 wins, or the store words its own refusal),
//! removed before comparing as in `reconstruct_oracle.rs`: the vector
//! channel's `#FALLBACK` warning (these homes have no embedder) carries the
//! store's refusal text; a dropped row's `duplicate_of` is kept on our trace.

mod common;

use am_backend_sqlite::journal::SQLiteJournal;
use am_backend_sqlite::{SQLiteTripleStore, SqliteHome, SqliteStoreOptions};
use am_journal::{EventFilter, MemoryJournal, TraceFilter};
use am_system::Reconstruct;
use am_system::{MemorySystem, RecallBudget, Stimulus, SystemOptions, View};
use am_triples::TripleStore;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn python() -> String {
    std::env::var("AM_ORACLE_PYTHON").unwrap_or_else(|_| {
        panic!(
            "AM_ORACLE_PYTHON is not set: point it at a python with abstractmemory==0.3.2 installed \
             (cargo xtask test sets it); this differential test cannot run without the oracle"
        )
    })
}

/// Build one lived-in home with 0.3.2 in `dir` and return what it printed.
fn build(shape: &str, seed: u64, dir: &Path) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/lived_home.py");
    let python = python();
    let out = Command::new(&python)
        .arg(script)
        .arg(shape)
        .arg(seed.to_string())
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("could not run {python} {script}: {e}"));
    assert!(
        out.status.success(),
        "the generator failed for {shape}/{seed}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the generator printed JSON")
}

/// Compare every key of 0.3.2's dict with ours; push one line per difference.
fn compare(what: &str, ours: &Value, theirs: &Value, diffs: &mut Vec<String>) {
    let (Some(o), Some(t)) = (ours.as_object(), theirs.as_object()) else {
        if ours != theirs {
            diffs.push(format!("{what}\n   ours: {ours}\n  0.3.2: {theirs}"));
        }
        return;
    };
    for (k, tv) in t {
        let ov = o.get(k).unwrap_or(&Value::Null);
        if ov != tv {
            diffs.push(format!("{what}.{k}\n   ours: {ov}\n  0.3.2: {tv}"));
        }
    }
}

fn run_shape(shape: &str, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut oracle = build(shape, seed, dir.path());
    common::normalize_oracle(&mut oracle);
    let pinned = oracle["pinned"].as_str().unwrap().to_owned();
    let home = SqliteHome::open(dir.path().join("rust.sqlite3")).unwrap();
    let store: Arc<dyn TripleStore> =
        Arc::new(SQLiteTripleStore::with_home(&home, None, SqliteStoreOptions::default()).unwrap());
    let journal: Arc<dyn MemoryJournal> = Arc::new(SQLiteJournal::open(&home).unwrap());
    let system = MemorySystem::with_options(
        store,
        journal.clone(),
        SystemOptions {
            clock: Some(am_triples::fixed_clock(
                am_triples::Timestamp::parse(&pinned).unwrap(),
            )),
            ..SystemOptions::default()
        },
    )
    .unwrap();
    let figures = &oracle["figures"];
    assert_eq!(
        system.current_seq().unwrap(),
        figures["current_seq"].as_i64().unwrap(),
        "[{shape}/{seed}] the copied home's journal seq"
    );
    let mut diffs: Vec<String> = Vec::new();
    let recalls = oracle["recalls"].as_array().unwrap();
    assert!(
        recalls.len() >= 50,
        "the battery is {} recalls",
        recalls.len()
    );
    for row in recalls {
        let call = &row["call"];
        let name = call["name"].as_str().unwrap();
        let parts: Vec<&str> = call["participants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let mut stimulus = Stimulus::new(call["cue"].as_str().unwrap()).with_participants(&parts);
        if let Some(a) = call["as_of"].as_i64() {
            stimulus = stimulus.with_as_of(a);
        }
        let scopes: Vec<(String, String)> = call["scopes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap().to_owned(),
                    p[1].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let scope_refs: Vec<(&str, &str)> = scopes
            .iter()
            .map(|(s, o)| (s.as_str(), o.as_str()))
            .collect();
        let budget: RecallBudget = serde_json::from_value(call["budget"].clone()).unwrap();
        let view = if call["view"] == "shelf" {
            View::Shelf
        } else {
            View::WorkingSet
        };
        let journaled = call["journal"].as_bool().unwrap();
        let result = system
            .reconstruct(&Reconstruct {
                budget: budget.clone(),
                view,
                escalation_reason: call["reason"].as_str().map(str::to_owned),
                journal: journaled,
                trace_id: Some(name.into()),
                ..Reconstruct::new(stimulus.clone(), &scope_refs)
            })
            .unwrap_or_else(|e| panic!("[{shape}/{seed}] recall {name}: {e}"));
        let mut ours = result.to_dict();
        common::normalize_oracle(&mut ours);
        compare(
            &format!("[{shape}/{seed}] {name} result"),
            &ours,
            &row["result"],
            &mut diffs,
        );
        if journaled {
            let trace = journal
                .traces(&TraceFilter {
                    trace_id: Some(name.into()),
                    limit: 1,
                    ..TraceFilter::default()
                })
                .unwrap()
                .remove(0);
            let mut ours = serde_json::to_value(&trace).unwrap();
            common::normalize_oracle(&mut ours);
            compare(
                &format!("[{shape}/{seed}] {name} trace"),
                &ours,
                &row["trace"],
                &mut diffs,
            );
            let mut listed: Vec<Value> = Vec::new();
            for (s, o) in &scopes {
                let mut f = EventFilter::new(s, o);
                f.kinds = vec!["listed".into()];
                f.limit = 0;
                listed.extend(
                    journal
                        .events(&f)
                        .unwrap()
                        .into_iter()
                        .filter(|e| e.trace_id.as_deref() == Some(name))
                        .map(|e| serde_json::to_value(&e).unwrap()),
                );
            }
            let theirs = row["listed"].as_array().unwrap();
            if listed.len() != theirs.len() {
                diffs.push(format!(
                    "[{shape}/{seed}] {name} listed: {} events here, {} in 0.3.2",
                    listed.len(),
                    theirs.len()
                ));
            }
            for (i, (o, t)) in listed.iter().zip(theirs).enumerate() {
                compare(
                    &format!("[{shape}/{seed}] {name} listed[{i}]"),
                    o,
                    t,
                    &mut diffs,
                );
            }
        }
    }
    if system.current_seq().unwrap() != oracle["final_seq"].as_i64().unwrap() {
        diffs.push(format!(
            "[{shape}/{seed}] journal seq after the battery: {} here, {} in 0.3.2",
            system.current_seq().unwrap(),
            oracle["final_seq"]
        ));
    }
    let mut differing: Vec<&str> = diffs
        .iter()
        .filter_map(|d| d.split_whitespace().nth(1))
        .collect();
    differing.dedup();
    assert!(
        diffs.is_empty(),
        "[{shape}/{seed}] {} difference(s) from 0.3.2 (figures {figures}) in recalls {differing:?}; the first ones:\n{}",
        diffs.len(),
        diffs
            .iter()
            .take(12)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn small_lived_home_recalls_match_abstractmemory_0_3_2() {
    run_shape("small", 1);
}

#[test]
fn lived_home_of_300_records_recalls_match_abstractmemory_0_3_2() {
    run_shape("lived", 1);
    run_shape("lived", 2);
}

#[test]
fn hidden_heavy_home_recalls_match_abstractmemory_0_3_2() {
    run_shape("hidden_heavy", 1);
}

#[test]
fn dense_edge_home_recalls_match_abstractmemory_0_3_2() {
    run_shape("dense_edges", 1);
}
