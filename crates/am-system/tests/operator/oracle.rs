//! Differential against AbstractMemory 0.3.2: `tests/oracle/mind_mass_home.py`
//! lives a home with 0.3.2 (drives, a lived day, one night of sleep on the
//! first pair, a wake-cue loop of five near-identical episodes, three
//! records sharing a title, one of them closed), reads `mind_mass_report`
//! over six ladders, windows and bounds, and copies the home. We read the
//! same calls on both stacks, and `redigestion_candidates` over four
//! ladders and bounds of the home's mechanical-digest debt, (the SQLite file, and its rows and journal in
//! an in-memory pair) and compare value for value.
//!
//! Compared by structure, not by text: the warnings' `detail` sentences,
//! the `sources` sentences and `provenance` (ours are our own words; the
//! words and their order are compared). The in-memory stack keeps no file
//! meta, so its `compaction` says the backend exposes none (0.3.2's
//! in-memory store says the same).

use crate::common::oracle::{first_difference, in_memory_copy, run_generator};
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::operator::{MindMass, RedigestionCandidates};
use am_system::{MemorySystem, SystemOptions};
use am_triples::TripleStore;
use serde_json::{Value, json};
use std::sync::{Arc, OnceLock};

struct Oracle {
    dir: tempfile::TempDir,
    out: Value,
}

fn oracle() -> &'static Oracle {
    static ORACLE: OnceLock<Oracle> = OnceLock::new();
    ORACLE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = run_generator("mind_mass_home.py", &["7", dir.path().to_str().unwrap()]);
        Oracle { dir, out }
    })
}

/// The prose of a report replaced by its shape.
fn prose_out(v: &mut Value) {
    if let Some(ws) = v.get_mut("warnings").and_then(Value::as_array_mut) {
        for w in ws {
            let has = w["detail"].as_str().is_some_and(|d| !d.trim().is_empty());
            w["detail"] = json!(if has { "<prose>" } else { "<none>" });
        }
    }
    for section in ["duplicates", "review"] {
        if let Some(m) = v[section]["sources"].as_object_mut() {
            for x in m.values_mut() {
                *x = json!("<prose>");
            }
        }
    }
    v["provenance"] = json!("<prose>");
}

fn args_of(call: &Value) -> MindMass {
    serde_json::from_value(call.clone()).expect("the generator's call is our arguments")
}

fn systems() -> Vec<(&'static str, MemorySystem, tempfile::TempDir)> {
    let o = oracle();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    std::fs::copy(o.dir.path().join("rust.sqlite3"), &path).unwrap();
    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
    let journal: Arc<dyn am_journal::MemoryJournal> = mh.sqlite_journal().clone();
    let (mem_store, mem_journal) = in_memory_copy(store.as_ref(), journal.as_ref());
    let sqlite = MemorySystem::over_home_with_options(mh, SystemOptions::default()).unwrap();
    let memory =
        MemorySystem::with_options(mem_store, mem_journal, SystemOptions::default()).unwrap();
    vec![
        ("sqlite", sqlite, dir),
        ("memory", memory, tempfile::tempdir().unwrap()),
    ]
}

#[test]
fn mind_mass_report_matches_abstractmemory_0_3_2_value_for_value_on_both_stacks() {
    let o = oracle();
    let calls = o.out["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 7, "the generator's seven calls");
    for (name, system, _dir) in systems() {
        for c in calls {
            let args = args_of(&c["call"]);
            let mut ours =
                serde_json::to_value(system.mind_mass_report(&args, None).unwrap()).unwrap();
            let mut theirs = c["result"].clone();
            if name == "memory" {
                theirs["journal"]["compaction"] = json!({
                    "available": false,
                    "detail": "store backend exposes no compaction meta",
                });
            }
            prose_out(&mut ours);
            prose_out(&mut theirs);
            if let Some(d) = first_difference(&ours, &theirs, "") {
                panic!("{name}, call {}: {d}", c["call"]);
            }
        }
    }
}

#[test]
fn the_oracle_home_exercises_every_section_the_differential_compares() {
    // So the differential above cannot pass on an empty home.
    let calls = oracle().out["calls"].as_array().unwrap();
    let first = &calls[0]["result"];
    assert!(first["formation"]["records_total"].as_u64().unwrap() > 100);
    assert!(first["duplicates"]["title_clusters"].as_u64().unwrap() > 0);
    assert_eq!(first["duplicates"]["wake_cue_clusters"], json!(1));
    assert!(first["review"]["unresolved_dreams"].as_u64().unwrap() > 0);
    assert!(first["review"]["candidates"]["pending"].as_u64().unwrap() > 0);
    assert!(first["sleep"]["last_artifact_seq"].as_i64().unwrap() > 0);
    let split = &calls[2]["result"];
    let formed: u64 = split["pairs"]["by_pair"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["formed_in_window"].as_u64().unwrap())
        .sum();
    let total: u64 = split["pairs"]["by_pair"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["records"].as_u64().unwrap())
        .sum();
    assert!(
        formed > 0 && formed < total,
        "the third call's window splits the home: {formed} of {total}"
    );
    let words: Vec<&str> = calls
        .iter()
        .flat_map(|c| c["result"]["warnings"].as_array().unwrap())
        .map(|w| w["word"].as_str().unwrap())
        .collect();
    for w in ["unpinned", "vector_scan_partial", "never_slept"] {
        assert!(words.contains(&w), "{w} in {words:?}");
    }
}

#[test]
fn redigestion_candidates_match_abstractmemory_0_3_2_value_for_value_on_both_stacks() {
    let o = oracle();
    let calls = o.out["redigestion"].as_array().unwrap();
    assert_eq!(calls.len(), 4);
    assert!(
        calls[0]["result"]["total_labeled"].as_u64().unwrap() >= 5,
        "the home holds debt"
    );
    for (name, system, _dir) in systems() {
        for c in calls {
            let args: RedigestionCandidates = serde_json::from_value(c["call"].clone()).unwrap();
            let mut ours =
                serde_json::to_value(system.redigestion_candidates(&args).unwrap()).unwrap();
            let mut theirs = c["result"].clone();
            ours["deposits"] = json!("<prose>");
            theirs["deposits"] = json!("<prose>");
            if let Some(d) = first_difference(&ours, &theirs, "") {
                panic!("{name}, call {}: {d}", c["call"]);
            }
        }
    }
}

/// The report reads each pair once and folds every section from that read;
/// each section must still be the read it summarizes, called on its own:
/// the standing dreams (`unresolved_dreams`, distinct across the pairs),
/// the review offers (`cognition_health`), the sleep recency
/// (`last_maintenance_seq`), the title clusters (the tending scan with the
/// closure fold) and the wake-cue dry run (`wake_cue_dedup_pass(report_only)`
/// of every pair, distinct member sets). Over every ladder of the
/// differential's calls, on both stacks.
#[test]
fn every_section_of_the_report_is_the_read_it_summarizes_on_both_stacks() {
    use am_system::drives::{DriveScopes, cognition_health};
    use am_system::sleep::{
        LastMaintenanceSeq, UnresolvedDreams, WakeCueDedup, last_maintenance_seq, tending_scan,
        unresolved_dreams,
    };
    use std::collections::{BTreeMap, BTreeSet, HashSet};
    let o = oracle();
    for (name, system, _dir) in systems() {
        let (store, journal) = (system.store().as_ref(), system.journal().as_ref());
        for c in o.out["calls"].as_array().unwrap() {
            let args = args_of(&c["call"]);
            let r = system.mind_mass_report(&args, None).unwrap();
            let pairs: Vec<(String, String)> = {
                let mut out: Vec<(String, String)> = Vec::new();
                for (s, o) in &args.scopes {
                    let p = (s.trim().to_lowercase(), o.trim().to_owned());
                    if !out.contains(&p) {
                        out.push(p);
                    }
                }
                out
            };
            let refs: Vec<(&str, &str)> = pairs
                .iter()
                .map(|(s, o)| (s.as_str(), o.as_str()))
                .collect();
            let at = format!("{name}, call {}", c["call"]);

            let mut dreams = BTreeSet::new();
            for (s, o) in &refs {
                let mut q = UnresolvedDreams::new(s, o);
                q.limit = 0;
                for d in unresolved_dreams(store, Some(journal), &q).unwrap() {
                    dreams.insert(d.assertion_id.clone().unwrap_or(d.subject));
                }
            }
            assert_eq!(r.review.unresolved_dreams, dreams.len(), "{at}");
            let health = cognition_health(store, journal, &DriveScopes::new(&refs)).unwrap();
            assert_eq!(r.review.candidates, health.candidates, "{at}");
            assert_eq!(
                r.sleep.last_artifact_seq,
                last_maintenance_seq(store, journal, &LastMaintenanceSeq::new(&refs)).unwrap(),
                "{at}"
            );

            let closed: HashSet<String> = journal
                .closures(&am_journal::ClosureFilter {
                    limit: 0,
                    ..am_journal::ClosureFilter::default()
                })
                .unwrap()
                .into_iter()
                .map(|c| c.assertion_id)
                .collect();
            let mut by_key: BTreeMap<(String, String), usize> = BTreeMap::new();
            for (rid, rec) in tending_scan(store, &pairs).unwrap().records {
                if closed.contains(&rid) || closed.contains(&rec.assertion_id) {
                    continue;
                }
                let key = am_triples::text::title_key(&rec.title);
                if !key.is_empty() {
                    *by_key.entry((rec.kind, key)).or_default() += 1;
                }
            }
            let groups: Vec<usize> = by_key.into_values().filter(|n| *n > 1).collect();
            assert_eq!(
                (
                    r.duplicates.title_clusters,
                    r.duplicates.title_cluster_records
                ),
                (groups.len(), groups.iter().sum()),
                "{at}"
            );

            if let Some(kind) = args.wake_cue_kind {
                let mut sets: BTreeSet<BTreeSet<String>> = BTreeSet::new();
                for (s, o) in &refs {
                    let mut dry = WakeCueDedup::new(s, o, "the test");
                    dry.kind = kind;
                    dry.report_only = true;
                    for cl in system
                        .wake_cue_dedup_pass(&dry, None)
                        .unwrap()
                        .value
                        .clusters
                    {
                        sets.insert(cl.members.into_iter().collect());
                    }
                }
                assert_eq!(r.duplicates.wake_cue_clusters, Some(sets.len()), "{at}");
                assert_eq!(
                    r.duplicates.wake_cue_members,
                    Some(sets.iter().map(BTreeSet::len).sum()),
                    "{at}"
                );
            }
        }
    }
}
