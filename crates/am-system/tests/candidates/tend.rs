//! `parse_tend_block` against AbstractMemory 0.3.2 (`tests/oracle/tend_parse.py`):
//! a corpus of block bodies (separators, case, fences, line breaks of every
//! kind, refocus, dispose with its extras, caps). Compared value for value:
//! every election (verb, target, reason, line, disposition, args) and every
//! refused line in order; the refusal sentences are ours (by structure).
//! `max_elections < 1` is `InvalidInput` where 0.3.2 raised `ValueError`.
//! The corpus holds no `revise` line (0.5.2's verb, which 0.3.2 refuses as
//! unknown; `revise_lines_parse_with_their_extras_a_0_5_2_verb` covers it).

use crate::common::oracle::{first_difference, run_generator};
use am_system::candidates::{
    IDENTITY_SCOPE_PENDING_RULING, ParseTendBlock, TEND_VERBS, parse_tend_block,
};
use am_triples::ErrorKind;
use serde_json::json;

#[test]
fn parse_tend_block_matches_abstractmemory_0_3_2_refusals_are_data() {
    let o = run_generator("tend_parse.py", &[]);
    let blocks = o["blocks"].as_array().unwrap();
    let mut refusals = 0;
    for (i, b) in blocks.iter().enumerate() {
        let args = ParseTendBlock {
            text: b["text"].as_str().unwrap().to_owned(),
            max_elections: b["max_elections"].as_i64().unwrap(),
        };
        let mut ours = serde_json::to_value(parse_tend_block(&args).unwrap()).unwrap();
        let mut theirs = b["answer"].clone();
        for v in [&mut ours, &mut theirs] {
            for r in v["refusals"].as_array_mut().unwrap() {
                assert!(
                    r["reason"].as_str().is_some_and(|s| !s.trim().is_empty()),
                    "block {i}: a refusal names its rule"
                );
                r["reason"] = json!("<prose>");
            }
        }
        refusals += theirs["refusals"].as_array().unwrap().len();
        assert!(
            first_difference(&ours, &theirs, "").is_none(),
            "block {i}: {}",
            first_difference(&ours, &theirs, "").unwrap()
        );
    }
    assert!(
        refusals >= 20,
        "the corpus exercises the refusals ({refusals})"
    );
    for e in o["errors"].as_array().unwrap() {
        let args = ParseTendBlock {
            max_elections: e["max_elections"].as_i64().unwrap(),
            ..ParseTendBlock::new("pin: ex:a — reason: x")
        };
        assert_eq!(
            parse_tend_block(&args).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
    // 0.3.2's seven verbs in its order, then 0.5.2's `revise` (a revise
    // election seeds a ripple; 0.3.2 has none).
    assert_eq!(json!(TEND_VERBS[..7]), o["verbs"]);
    assert_eq!(TEND_VERBS[7], "revise");
    // Each side carries its own refusal constant (the ruling of issue 43:
    // never 0.3.2's sentence): both are a stable, non-blank line, ours is not
    // theirs.
    let theirs = o["identity_scope_pending_ruling"].as_str().unwrap();
    assert!(!theirs.trim().is_empty());
    assert!(!IDENTITY_SCOPE_PENDING_RULING.trim().is_empty());
    assert!(!IDENTITY_SCOPE_PENDING_RULING.contains('\n'));
    assert_ne!(IDENTITY_SCOPE_PENDING_RULING, theirs);
}

#[test]
fn revise_lines_parse_with_their_extras_a_0_5_2_verb() {
    let parsed = parse_tend_block(&ParseTendBlock::new(
        "revise: ex:a — reason: I saw it wrong\n\
         revise: ex:a change=overturned evidence=ex:e1,,ex:e2 — reason: it no longer holds\n\
         revise: — reason: no record\n\
         revise: ex:a change=refined — reason: not a change\n\
         revise: ex:a ex:b — reason: two records",
    ))
    .unwrap();
    assert_eq!(parsed.elections.len(), 2);
    assert_eq!(parsed.elections[0].target.as_deref(), Some("ex:a"));
    assert_eq!(parsed.elections[0].args, None);
    assert_eq!(
        serde_json::to_value(&parsed.elections[1].args).unwrap(),
        json!({"change": "overturned", "evidence_ids": ["ex:e1", "ex:e2"]})
    );
    assert_eq!(parsed.refusals.len(), 3);
}
