//! Differential test of `sleep_pass` against AbstractMemory 0.3.2 on the
//! same home: `tests/oracle/sleep_pass_home.py` builds the home (fresh, or
//! after two of 0.3.2's own nights with a little life after each), copies
//! it, then runs 0.3.2's night over each pair: a dry night, a night, the
//! same night again. The Rust side runs the same nights in the same order on
//! the copy (the SQLite stack) and on a row-for-row, seq-for-seq copy in the
//! in-memory pair, and compares what both define, value for value (prose by
//! structure): the sub-phases' order and each sub-phase's dict
//! (`resolution`, `maintenance`, `world_models`, `dream`).
//!
//! Left out, and why:
//! - 0.3.2's `mining` and `identity` phases: the spec's night is four
//!   sub-phases; candidate mining and the identity review are the candidates
//!   issue's own verbs (`mine_candidates_pass`, `identity_review_pass`),
//!   which a host runs after the night (docs/operator.md, docs/exec.md
//!   "Sleep"). The test checks that 0.3.2's mining formed nothing on these
//!   homes and its identity review disposed nothing, so leaving them out
//!   changes nothing the other phases read (the dream's signals included).
//! - Ours only (the spec's): the summed `authoring` receipt and each
//!   phase's own, the dream's `signals` / `signals_omitted`, a formed card's
//!   `pending`, and the `completion` rows (0.3.2 records no completion).
//!   The records' title and summary (authored or pending here, 0.3.2's own
//!   words there) are not in the dicts; the records are compared by id.

use crate::oracle::{
    OracleStacks, Pair, dream_prose_by_structure, first_difference, prose_by_structure, run_script,
    stacks,
};
use am_system::sleep::{NightHooks, SleepPass};
use am_system::{MemorySystem, SystemOptions};
use serde_json::{Value, json};

fn system(pair: &Pair) -> MemorySystem {
    MemorySystem::with_options(
        pair.1.clone(),
        pair.2.clone(),
        SystemOptions {
            task_queue: true,
            ..SystemOptions::default()
        },
    )
    .unwrap()
}

/// Our night's dict, keyed as 0.3.2's: the spec's own keys set aside.
fn ours_comparable(night: &Value) -> Value {
    let mut v = night.clone();
    let m = v.as_object_mut().unwrap();
    m.remove("authoring");
    m.remove("completion");
    m["maintenance"]
        .as_object_mut()
        .unwrap()
        .remove("authoring");
    let wm = m["world_models"].as_object_mut().unwrap();
    wm.remove("authoring");
    for card in wm["formed"].as_array_mut().unwrap() {
        card.as_object_mut().unwrap().remove("pending");
    }
    let dream = m["dream"].as_object_mut().unwrap();
    for k in ["signals", "signals_omitted", "authoring"] {
        dream.remove(k);
    }
    v
}

/// 0.3.2's night without its `mining` and `identity` phases, after checking
/// they changed nothing.
fn theirs_comparable(night: &Value, at: &str) -> Value {
    let mut v = night.clone();
    let m = v.as_object_mut().unwrap();
    let mining = m.remove("mining").unwrap();
    assert_eq!(
        mining["created_count"], 0,
        "{at}: 0.3.2's mining formed nothing here"
    );
    let identity = m.remove("identity").unwrap();
    assert_eq!(
        identity["counts"]["disposed"], 0,
        "{at}: 0.3.2's identity review disposed nothing"
    );
    let phases: Vec<Value> = m["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| *p != "mining" && *p != "identity")
        .cloned()
        .collect();
    m.insert("phases".into(), Value::Array(phases));
    v
}

/// The title of a record one of our nights formed, in the dream's
/// structural report: authored or pending here, 0.3.2's own words there.
fn formed_titles_by_structure(v: &mut Value, formed: &std::collections::BTreeSet<String>) {
    if let Some(records) = v
        .pointer_mut("/dream/report/records")
        .and_then(Value::as_object_mut)
    {
        for (id, rec) in records.iter_mut() {
            if formed.contains(id) {
                rec["title"] = json!("<formed by the night: authored or pending>");
            }
        }
    }
}

/// Every string in `v` that names one of our dreams, renamed to the id
/// 0.3.2 gave the same night's dream.
fn rename(v: &mut Value, ids: &std::collections::BTreeMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(theirs) = ids.get(s.as_str()) {
                *s = theirs.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| rename(x, ids)),
        Value::Object(m) => m.values_mut().for_each(|x| rename(x, ids)),
        _ => {}
    }
}

fn by_structure(v: &mut Value) {
    if let Some(d) = v.get_mut("dream") {
        dream_prose_by_structure(d);
    }
    prose_by_structure(v);
}

#[test]
fn sleep_pass_answers_as_0_3_2_phase_for_phase_on_a_fresh_home_and_on_a_home_0_3_2_slept_in() {
    for nights in [0_u32, 2] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let expected = run_script(
            "sleep_pass_home.py",
            &["7", d, "small", &nights.to_string()],
        );
        let OracleStacks { home: _home, pairs } = stacks(dir.path());
        let mut dreamed = 0;
        for pair in &pairs {
            let name = pair.0;
            let sys = system(pair);
            let mut formed = std::collections::BTreeSet::new();
            // A dream's id hashes its night's fingerprint, which 0.3.2 takes
            // over the questions' prose too and ours over their structure
            // only (pair, facet): the same night's dream has another id
            // here. The first night that forms one pairs the two ids; every
            // later mention (the standing dreams, the parents) is compared
            // through that pairing.
            let mut dream_ids = std::collections::BTreeMap::new();
            for (i, run) in expected["runs"].as_array().unwrap().iter().enumerate() {
                let scope = run["scopes"][0][0].as_str().unwrap();
                let owner = run["owner_id"].as_str().unwrap();
                let at = format!(
                    "[{name} nights {nights}] run {i} {scope}/{owner} report_only {}",
                    run["report_only"]
                );
                let mut args = SleepPass::new(&[(scope, owner)], owner);
                args.report_only = run["report_only"].as_bool().unwrap();
                let r = sys
                    .sleep_pass(&args, None, &NightHooks::default())
                    .unwrap()
                    .value;
                assert_eq!(
                    r.completion.len(),
                    usize::from(!args.report_only),
                    "{at}: a whole night records its completion, a dry one nothing"
                );
                dreamed += usize::from(r.dream.created);
                formed.extend(r.authoring.failures.iter().map(|f| f.record_id.clone()));
                formed.extend(r.authoring.authored.iter().map(|a| a.record_id.clone()));
                let mut theirs = theirs_comparable(&run["result"], &at);
                if let (Some(o), Some(t)) = (
                    &r.dream.dream_record_id,
                    theirs["dream"]["dream_record_id"].as_str(),
                ) {
                    dream_ids.entry(o.clone()).or_insert_with(|| t.to_owned());
                }
                let mut ours = ours_comparable(&serde_json::to_value(&r).unwrap());
                rename(&mut ours, &dream_ids);
                assert_eq!(
                    ours["phases"],
                    json!(["resolution", "maintenance", "world_models", "dream"]),
                    "{at}"
                );
                for v in [&mut ours, &mut theirs] {
                    formed_titles_by_structure(v, &formed);
                    by_structure(v);
                }
                if let Some(diff) = first_difference(&ours, &theirs, "") {
                    panic!("{at}: {diff}");
                }
            }
        }
        assert!(dreamed > 0, "nights {nights}: a night dreamed");
    }
}
