//! Differential against AbstractMemory 0.3.2: `tests/oracle/sleep_reports.py`
//! builds a home with 0.3.2 itself and reads the night's reports on it; the
//! Rust side opens the copy (the SQLite stack) and a copy of every row and
//! journal record in an in-memory pair (the other stack), makes the same
//! calls, and must answer value for value (prose by structure: a prose field
//! is a non-empty string on both sides). Two homes: a fresh one (the small
//! lived shape plus a crafted batch, never slept) and one 0.3.2 has slept in
//! (the lived shape, about 320 records, three `sleep_pass` nights per pair,
//! so dreams, consolidation candidates and world-model cards are in it).
//!
//! Needs `AM_ORACLE_PYTHON` (a python with `abstractmemory==0.3.2`).
//!
//! Deliberate differences from 0.3.2, asserted as such: the prose
//! (`action`, `reason`, `summary`, `review_action`, `caveat`, and
//! `maintenance_due`'s `reasons`) is ours, compared by structure.

pub(crate) use crate::common::oracle::{
    OracleStacks as Stacks, first_difference, open_copy as open, prose_by_structure, run_generator,
};
use am_system::sleep::{
    LastMaintenanceSeq, MaintenanceDue, MaintenanceReport, SleepTuning, StructuralReport,
    last_maintenance_seq, maintenance_due, maintenance_report, structural_report,
};
use am_system::{MemorySystem, SystemOptions};
use serde_json::{Value, json};
use std::path::Path;

/// Run the generator: `(seed, shape, nights)` into `dir`; its JSON.
pub(crate) fn build(seed: u64, shape: &str, nights: u32, dir: &Path) -> Value {
    run_generator(
        "sleep_reports.py",
        &[
            &seed.to_string(),
            dir.to_str().unwrap(),
            shape,
            &nights.to_string(),
        ],
    )
}

pub(crate) fn scopes_of(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_owned(),
                p[1].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

pub(crate) fn assert_same(ours: &Value, theirs: &Value, what: &str) {
    if let Some(d) = first_difference(ours, theirs, "") {
        panic!("{what}: {d}");
    }
}

fn structural_matches(oracle: &Value, stacks: &Stacks) {
    let calls = oracle["structural"].as_array().unwrap();
    assert!(!calls.is_empty());
    for (name, store, journal) in &stacks.pairs {
        for c in calls {
            let args = &c["args"];
            let call = StructuralReport {
                scopes: scopes_of(&args["scopes"]),
                as_of: args.get("as_of").and_then(Value::as_i64),
                evidence_grade: args
                    .get("evidence_grade")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            };
            let ours = serde_json::to_value(
                structural_report(store.as_ref(), journal.as_ref(), &call).unwrap(),
            )
            .unwrap();
            assert_same(
                &ours,
                &c["result"],
                &format!("[{name}] structural_report {args}"),
            );
        }
    }
}

fn maintenance_matches(oracle: &Value, stacks: &Stacks) {
    let calls = oracle["maintenance"].as_array().unwrap();
    assert!(!calls.is_empty());
    for (name, store, journal) in &stacks.pairs {
        for c in calls {
            let args = &c["args"];
            let call = MaintenanceReport {
                scopes: scopes_of(&args["scopes"]),
                as_of: args.get("as_of").and_then(Value::as_i64),
                scan_limit: args
                    .get("scan_limit")
                    .and_then(Value::as_u64)
                    .map(|n| usize::try_from(n).unwrap()),
                tuning: serde_json::from_value::<SleepTuning>(args["tuning"].clone()).unwrap(),
            };
            let mut ours = serde_json::to_value(
                maintenance_report(store.as_ref(), journal.as_ref(), &call).unwrap(),
            )
            .unwrap();
            let mut theirs = c["result"].clone();
            prose_by_structure(&mut ours);
            prose_by_structure(&mut theirs);
            assert_same(
                &ours,
                &theirs,
                &format!("[{name}] maintenance_report {args}"),
            );
        }
    }
}

fn cadence_matches(oracle: &Value, stacks: &Stacks) {
    let calls = oracle["due"].as_array().unwrap();
    assert!(!calls.is_empty());
    for (name, store, journal) in &stacks.pairs {
        let system =
            MemorySystem::with_options(store.clone(), journal.clone(), SystemOptions::default())
                .unwrap();
        for c in calls {
            let args = &c["args"];
            let mut call = MaintenanceDue::new(&[]);
            call.scopes = scopes_of(&args["scopes"]);
            call.since_seq = args.get("since_seq").and_then(Value::as_i64);
            if let Some(n) = args.get("min_new_records").and_then(Value::as_u64) {
                call.min_new_records = std::num::NonZeroU64::new(n).unwrap();
            }
            if let Some(n) = args.get("min_signal").and_then(Value::as_u64) {
                call.min_signal = n;
            }
            let mut theirs = c["result"].clone();
            prose_by_structure(&mut theirs);
            // the full scan, then the system's cursor-bounded check (twice:
            // the second from the fold)
            let whole = maintenance_due(store.as_ref(), journal.as_ref(), &call).unwrap();
            for ours in [
                whole,
                system.maintenance_due(&call).unwrap(),
                system.maintenance_due(&call).unwrap(),
            ] {
                let mut ours = serde_json::to_value(ours).unwrap();
                prose_by_structure(&mut ours);
                assert_same(&ours, &theirs, &format!("[{name}] maintenance_due {args}"));
            }
        }
        for c in oracle["last"].as_array().unwrap() {
            let call = LastMaintenanceSeq {
                scopes: scopes_of(&c["scopes"]),
            };
            assert_eq!(
                json!(last_maintenance_seq(store.as_ref(), journal.as_ref(), &call).unwrap()),
                c["result"],
                "[{name}] last_maintenance_seq {}",
                c["scopes"]
            );
        }
    }
}

/// The fresh home (never slept) and the slept-in one, built once per run
/// under the target's scratch directory (`CARGO_TARGET_TMPDIR`).
pub(crate) fn homes() -> &'static [(Value, std::path::PathBuf); 2] {
    static HOMES: std::sync::OnceLock<[(Value, std::path::PathBuf); 2]> =
        std::sync::OnceLock::new();
    HOMES.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sleep_reports");
        let (fresh, slept) = (root.join("fresh"), root.join("slept"));
        [
            (build(7, "small", 0, &fresh), fresh),
            (build(11, "lived", 3, &slept), slept),
        ]
    })
}

#[test]
fn structural_report_equals_0_3_2_on_a_fresh_home_and_a_slept_home() {
    for (oracle, dir) in homes() {
        structural_matches(oracle, &open(dir));
    }
}

#[test]
fn maintenance_report_equals_0_3_2_on_a_fresh_home_and_a_slept_home() {
    for (oracle, dir) in homes() {
        maintenance_matches(oracle, &open(dir));
    }
}

#[test]
fn the_slept_home_holds_the_nights_artifacts_the_reports_must_leave_out() {
    let (oracle, _) = &homes()[1];
    let all = &oracle["maintenance"][0]["result"];
    assert!(
        all["existing_candidates"].as_array().unwrap().len() >= 2,
        "0.3.2 formed consolidation candidates: {}",
        all["existing_candidates"]
    );
    assert!(
        oracle["structural"][0]["result"]["counts"]["candidate_edges"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(!oracle["slept"].as_array().unwrap().is_empty());
}

#[test]
fn maintenance_due_and_last_maintenance_seq_equal_0_3_2_on_a_fresh_home_and_a_slept_home() {
    for (oracle, dir) in homes() {
        cadence_matches(oracle, &open(dir));
    }
}
