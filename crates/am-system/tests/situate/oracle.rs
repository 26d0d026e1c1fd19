//! Differential against AbstractMemory 0.3.2: `tests/oracle/situate_home.py`
//! lives a small home with 0.3.2 (encounters with two people, open and
//! later-settled tensions, prompt-active values, one retracted since, a
//! reconstruction with its snapshot, another owner's reconstruction, use),
//! copies it, and situates eight anchors (by seq, by time, by participant's
//! first and last encounter) under five budgets over two ladders. On a home
//! 0.3.2 lived and slept in (`lived`: `lived_home.py`'s life over three more
//! pairs and 0.3.2's own nights before and after the story), four more
//! anchors inside the lived past and two ladders reaching the lived pairs.
//! We open the copy on both stacks (the SQLite file, and every row and journal record of
//! it in an in-memory pair) and make the same calls.
//!
//! Compared value for value: every key of the answer; `deposits` is prose,
//! compared by structure. The prompt block's words are ours, so it is
//! compared by structure: the same number of lines, the same anchor bits
//! after the opening label, and every record line identical.
//!
//! Deliberate differences from 0.3.2 are left out of the calls: a zero
//! `token_budget` or `moment_trace_walk` (0.5.2: none of that section; 0.3.2
//! still admits one) and a pending title (`None`; this home has none). The
//! attention window is 0.3.2's 8192 events (ours defaults to the spec's 512)
//! so both folds read the same events.

use crate::common::oracle::{first_difference, open_copy, run_generator};
use am_system::config::AttentionConfig;
use am_system::situate::{Situate, situate_prompt_block};
use am_system::{MemorySystem, SystemOptions};
use serde_json::{Value, json};

fn deposits_by_structure(v: &mut Value) {
    if let Some(Value::String(s)) = v.get("deposits")
        && !s.trim().is_empty()
    {
        v["deposits"] = json!("<prose>");
    }
}

/// The block's structure: its line count, the anchor bits of its opening
/// label, and its record lines.
fn block_structure(block: &str) -> Value {
    let lines: Vec<&str> = block.lines().collect();
    let bits = lines[0]
        .split_once("; ")
        .map(|(_, rest)| rest.trim_end_matches(']').to_owned());
    let records: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("  ["))
        .collect();
    json!({"lines": lines.len(), "anchor_bits": bits, "records": records})
}

#[test]
fn every_situated_moment_answers_as_0_3_2_on_a_fresh_home() {
    differential("fresh", 80);
}

#[test]
fn every_situated_moment_answers_as_0_3_2_on_a_home_it_lived_and_slept_in() {
    differential("lived", 200);
}

/// Situate every call of the generator's `mode` home (at least `least`
/// calls) on both stacks.
fn differential(mode: &str, least: usize) {
    let dir = tempfile::tempdir().unwrap();
    let expected = run_generator(
        "situate_home.py",
        &["7", dir.path().to_str().unwrap(), mode],
    );
    let stacks = open_copy(dir.path());
    let calls = expected["calls"].as_array().unwrap();
    assert!(
        calls.len() >= least,
        "the generator made {} calls",
        calls.len()
    );
    for (name, store, journal) in &stacks.pairs {
        let system = MemorySystem::with_options(
            store.clone(),
            journal.clone(),
            SystemOptions {
                attention_config: AttentionConfig {
                    window_limit: 8192,
                    ..AttentionConfig::default()
                },
                ..SystemOptions::default()
            },
        )
        .unwrap();
        let before = journal.current_seq().unwrap();
        let mut seen_sections = [false; 5];
        for call in calls {
            let label = format!("[{mode} {name}] {}", call["name"]);
            let mut args = json!({"scopes": call["scopes"], "budget": call["budget"]});
            for (k, v) in call["anchor"].as_object().unwrap() {
                args[k] = v.clone();
            }
            let args: Situate = serde_json::from_value(args).unwrap();
            let ours = system.situate(&args).unwrap();
            let mut ours_v = serde_json::to_value(&ours).unwrap();
            let mut theirs = call["result"].clone();
            deposits_by_structure(&mut ours_v);
            deposits_by_structure(&mut theirs);
            if let Some(d) = first_difference(&ours_v, &theirs, "") {
                panic!("{label}: {d}");
            }
            assert_eq!(
                block_structure(&situate_prompt_block(&ours)),
                block_structure(call["block"].as_str().unwrap()),
                "{label}: the prompt block"
            );
            for (i, n) in [
                ours.activity.len(),
                ours.elected.len(),
                ours.identity_evolution.len(),
                ours.tensions_then.len(),
                usize::from(ours.moment.snapshot_display.is_some()),
            ]
            .into_iter()
            .enumerate()
            {
                seen_sections[i] |= n > 0;
            }
        }
        assert_eq!(
            seen_sections, [true; 5],
            "[{name}] a section was never exercised"
        );
        assert_eq!(
            journal.current_seq().unwrap(),
            before,
            "[{name}] situate wrote"
        );
    }
}
