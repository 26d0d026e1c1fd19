//! `situate` on both stacks, one test per contract sentence that can fail:
//! the three anchors, purity, the historical label, zero and negative
//! bounds, the moment, the period window, the tensions and the identity as
//! of the anchor, and the prompt block's fence.

use crate::common::{Stack, assert_refused, named, on_both, written};
use am_system::situate::{BLOCK_CLOSE, BLOCK_OPEN, Occurrence, Situate, SituateBudget, Situation};
use am_system::{
    CloseRecord, Engram, MemoryRecordInput, Reconstruct, RecordKind, Reinforce, RememberMany,
    Stimulus, situate::situate_prompt_block,
};
use am_triples::ErrorKind;
use serde_json::{Value, json};

const OWNER: &str = "entity:castor";
const PAIRS: &[(&str, &str)] = &[("notes", OWNER), ("self", OWNER)];

fn form(s: &Stack, key: &str, r: MemoryRecordInput) -> String {
    s.system
        .remember_many(&RememberMany::new(vec![r], "notes", OWNER, key))
        .unwrap()
        .value
        .remove(0)
}

fn note(title: &str, text: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Observation, title, text)
}

fn question(title: &str, text: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::Question, title, text)
}

fn situate(s: &Stack, args: &Situate) -> Situation {
    s.system.situate(args).unwrap()
}

fn graph_ids(items: &[am_system::situate::HistoricalHandle]) -> Vec<String> {
    items.iter().map(|h| h.graph_id.clone()).collect()
}

#[test]
fn a_seq_anchor_reads_the_records_formed_around_it_on_the_formation_axis() {
    on_both(|s| {
        let a = form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let anchor = s.system.current_seq().unwrap();
        let b = form(s, "b", note("Ferry", "The ferry leaves at nine."));
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        assert_eq!((r.anchor_kind.as_str(), r.anchor_seq), ("seq", anchor));
        assert_eq!(r.anchor, json!(anchor));
        assert_eq!(r.period_axis, "formation_seq");
        let ids = graph_ids(&r.period);
        assert!(ids.contains(&a) && ids.contains(&b), "[{}] {ids:?}", s.name);
        assert_eq!(r.pass_name, "situate");
    });
}

#[test]
fn a_window_of_two_takes_one_record_before_the_anchor_and_one_after() {
    on_both(|s| {
        form(s, "a", note("One", "First note of the day."));
        let b = form(s, "b", note("Two", "Second note of the day."));
        let anchor = s.system.current_seq().unwrap();
        let c = form(s, "c", note("Three", "Third note of the day."));
        form(s, "d", note("Four", "Fourth note of the day."));
        let mut args = Situate::at_seq(PAIRS, anchor);
        args.budget.window_records = 2;
        assert_eq!(graph_ids(&situate(s, &args).period), [b, c], "[{}]", s.name);
    });
}

#[test]
fn an_anchor_at_the_newest_edge_fills_the_window_from_the_past() {
    on_both(|s| {
        let a = form(s, "a", note("One", "First note of the day."));
        let b = form(s, "b", note("Two", "Second note of the day."));
        let c = form(s, "c", note("Three", "Third note of the day."));
        let mut args = Situate::at_seq(PAIRS, s.system.current_seq().unwrap());
        args.budget.window_records = 3;
        assert_eq!(
            graph_ids(&situate(s, &args).period),
            [c, b, a],
            "[{}]",
            s.name
        );
    });
}

#[test]
fn a_time_anchor_is_the_journal_seq_at_that_time() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let at = crate::common::PINNED_NOW;
        let r = situate(s, &Situate::at_time(PAIRS, at));
        assert_eq!(r.anchor_kind, "time");
        assert_eq!(r.anchor, json!(at));
        assert_eq!(r.anchor_seq, s.system.seq_at(at).unwrap());
    });
}

#[test]
fn a_time_before_the_life_began_is_refused_and_writes_nothing() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system
                .situate(&Situate::at_time(PAIRS, "2000-01-01T00:00:00+00:00")),
            ErrorKind::InvalidInput,
            &["situate", "2000-01-01"],
        );
    });
}

#[test]
fn a_participant_anchor_is_the_first_or_last_record_stamped_with_them() {
    on_both(|s| {
        let first = form(
            s,
            "a",
            note("Met Ada", "Ada showed me the tide tables.").with_participants(&["person:ada"]),
        );
        form(s, "b", note("Alone", "A quiet afternoon."));
        let last = form(
            s,
            "c",
            note("Ada again", "Ada fixed the ferry radio.").with_participants(&["person:ada"]),
        );
        let r = situate(s, &Situate::meeting(PAIRS, "person:ada", Occurrence::First));
        assert_eq!(r.anchor_kind, "participant");
        assert_eq!(r.anchor, json!("person:ada"));
        assert_eq!(r.occurrence.as_deref(), Some("first"));
        assert_eq!(
            r.encounter_record_id.as_deref(),
            Some(first.as_str()),
            "[{}]",
            s.name
        );
        let r2 = situate(s, &Situate::meeting(PAIRS, "person:ada", Occurrence::Last));
        assert_eq!(
            r2.encounter_record_id.as_deref(),
            Some(last.as_str()),
            "[{}]",
            s.name
        );
        assert!(r2.anchor_seq > r.anchor_seq);
    });
}

#[test]
fn an_unknown_participant_is_refused_and_writes_nothing() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system
                .situate(&Situate::meeting(PAIRS, "person:nobody", Occurrence::First)),
            ErrorKind::InvalidInput,
            &["person:nobody"],
        );
    });
}

#[test]
fn not_exactly_one_anchor_is_refused_and_writes_nothing() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let before = written(s);
        let mut none = Situate::at_seq(PAIRS, 1);
        none.seq = None;
        assert_refused(
            s,
            &before,
            s.system.situate(&none),
            ErrorKind::InvalidInput,
            &["exactly one anchor", "none"],
        );
        let mut two = Situate::at_seq(PAIRS, 1);
        two.at = Some(crate::common::PINNED_NOW.to_owned());
        assert_refused(
            s,
            &before,
            s.system.situate(&two),
            ErrorKind::InvalidInput,
            &["exactly one anchor", "seq, at"],
        );
    });
}

#[test]
fn a_seq_outside_the_journal_is_refused_and_writes_nothing() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let before = written(s);
        let head = s.system.current_seq().unwrap();
        for seq in [-1, head + 1] {
            assert_refused(
                s,
                &before,
                s.system.situate(&Situate::at_seq(PAIRS, seq)),
                ErrorKind::InvalidInput,
                &["outside"],
            );
        }
    });
}

#[test]
fn no_scope_pair_is_refused_and_writes_nothing() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let before = written(s);
        assert_refused(
            s,
            &before,
            s.system.situate(&Situate::at_seq(&[(" ", OWNER)], 1)),
            ErrorKind::InvalidInput,
            &["pair"],
        );
    });
}

/// Sets one bound of a budget.
type Setter = fn(&mut SituateBudget);

#[test]
fn every_negative_bound_is_refused_by_name_and_writes_nothing() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let before = written(s);
        let setters: [(&str, Setter); 7] = [
            ("window_records", |b| b.window_records = -1),
            ("activity_top_k", |b| b.activity_top_k = -1),
            ("diary_entries", |b| b.diary_entries = -1),
            ("tensions", |b| b.tensions = -1),
            ("identity_delta", |b| b.identity_delta = -1),
            ("token_budget", |b| b.token_budget = -1),
            ("moment_trace_walk", |b| b.moment_trace_walk = -1),
        ];
        for (name, set) in setters {
            let mut args = Situate::at_seq(PAIRS, 1);
            set(&mut args.budget);
            assert_refused(
                s,
                &before,
                s.system.situate(&args),
                ErrorKind::InvalidInput,
                &[name, ">= 0"],
            );
        }
    });
}

/// A home with something in every section: identity, notes, a diary entry,
/// an open question, use, and a reconstruction trace.
fn lived(s: &Stack) -> (String, i64) {
    s.system.engram(&Engram::new(named(), OWNER), None).unwrap();
    let n = form(s, "a", note("Harbour", "The harbour opens at dawn."));
    let mut d = MemoryRecordInput::new(RecordKind::Diary, "Tides", "I keep wondering about tides.");
    d.attributes.insert("diary_type".into(), json!("question"));
    d.provenance.insert("source".into(), json!("owner-direct"));
    form(s, "d", d);
    let q = form(s, "q", question("Ferry", "When does the ferry leave?"));
    s.system
        .reinforce(&Reinforce::new(&n, "it mattered", "notes", OWNER))
        .unwrap();
    s.system
        .reconstruct(&Reconstruct::new(Stimulus::new("harbour at dawn"), PAIRS))
        .unwrap();
    (q, s.system.current_seq().unwrap())
}

#[test]
fn situate_is_a_pure_read_that_writes_nothing() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let before = written(s);
        situate(s, &Situate::at_seq(PAIRS, anchor));
        situate(s, &Situate::at_seq(PAIRS, 1));
        assert_eq!(written(s), before, "[{}] situate wrote", s.name);
    });
}

#[test]
fn every_record_shaped_result_is_labelled_historical() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        assert!(!r.activity.is_empty(), "[{}] no activity", s.name);
        assert!(!r.period.is_empty() && !r.elected.is_empty());
        assert!(!r.then_identity.is_empty() && !r.tensions_then.is_empty());
        let v = serde_json::to_value(&r).unwrap();
        for section in [
            "activity",
            "period",
            "elected",
            "then_identity",
            "tensions_then",
        ] {
            for item in v[section].as_array().unwrap() {
                assert_eq!(
                    item["admission"],
                    json!("historical"),
                    "[{}] {section}",
                    s.name
                );
            }
        }
        assert!(r.deposits.starts_with("none"));
    });
}

#[test]
fn a_bound_of_zero_means_nothing_of_that_section() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let mut args = Situate::at_seq(PAIRS, anchor);
        args.budget = SituateBudget {
            window_records: 0,
            activity_top_k: 0,
            diary_entries: 0,
            tensions: 0,
            identity_delta: 0,
            token_budget: 0,
            moment_trace_walk: 0,
        };
        let r = situate(s, &args);
        assert!(r.period.is_empty() && r.elected.is_empty() && r.activity.is_empty());
        assert!(r.tensions_then.is_empty() && r.identity_evolution.is_empty());
        assert_eq!(r.moment.trace_id, None, "[{}]", s.name);
        // Only the token bound at zero: the window is read, the period is empty.
        let mut args = Situate::at_seq(PAIRS, anchor);
        args.budget.token_budget = 0;
        let r = situate(s, &args);
        assert!(
            r.period.is_empty() && r.budget.token_exhausted,
            "[{}]",
            s.name
        );
    });
}

#[test]
fn the_moment_is_the_nearest_reconstruction_at_or_before_the_anchor() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        assert_eq!(
            r.moment.cue.as_deref(),
            Some("harbour at dawn"),
            "[{}]",
            s.name
        );
        assert!(r.moment.trace_id.is_some());
        // Before the reconstruction there was none.
        let r = situate(s, &Situate::at_seq(PAIRS, 1));
        assert_eq!(r.moment.trace_id, None, "[{}]", s.name);
    });
}

#[test]
fn a_reconstruction_of_other_scopes_is_not_this_moment() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let r = situate(
            s,
            &Situate::at_seq(&[("elsewhere", "entity:pollux")], anchor),
        );
        assert_eq!(r.moment.trace_id, None, "[{}]", s.name);
    });
}

#[test]
fn the_activity_is_the_activation_at_the_anchor_strongest_first() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        let vals: Vec<f64> = r.activity.iter().map(|a| a.activation).collect();
        assert!(
            vals.windows(2).all(|w| w[0] >= w[1]),
            "[{}] {vals:?}",
            s.name
        );
        assert!(vals.iter().all(|v| *v > 0.0));
        // Before any use nothing was warm.
        let r = situate(s, &Situate::at_seq(PAIRS, 1));
        assert!(r.activity.is_empty(), "[{}]", s.name);
    });
}

#[test]
fn a_question_answered_after_the_anchor_was_still_open_then() {
    on_both(|s| {
        let (q, anchor) = lived(s);
        let mut a = note("Ferry times", "The ferry leaves at nine.");
        a.attributes.insert("answers".into(), json!(q));
        form(s, "ans", a);
        let then = situate(s, &Situate::at_seq(PAIRS, anchor));
        assert!(graph_ids(&then.tensions_then).contains(&q), "[{}]", s.name);
        let now = situate(s, &Situate::at_seq(PAIRS, s.system.current_seq().unwrap()));
        assert!(!graph_ids(&now.tensions_then).contains(&q), "[{}]", s.name);
    });
}

#[test]
fn a_question_retracted_after_the_anchor_was_still_open_then() {
    on_both(|s| {
        let (q, anchor) = lived(s);
        s.system
            .close_record(&CloseRecord::retract(&q, "asked by mistake"))
            .unwrap();
        let then = situate(s, &Situate::at_seq(PAIRS, anchor));
        assert!(graph_ids(&then.tensions_then).contains(&q), "[{}]", s.name);
        let now = situate(s, &Situate::at_seq(PAIRS, s.system.current_seq().unwrap()));
        assert!(!graph_ids(&now.tensions_then).contains(&q), "[{}]", s.name);
    });
}

#[test]
fn an_identity_record_closed_since_is_who_i_was_and_how_i_changed() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let then = situate(s, &Situate::at_seq(PAIRS, anchor));
        let value = then
            .then_identity
            .iter()
            .find(|h| h.kind == "value")
            .unwrap()
            .clone();
        s.system
            .close_record(&CloseRecord::retract(&value.record_id, "outgrown"))
            .unwrap();
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        assert!(
            graph_ids(&r.then_identity).contains(&value.graph_id),
            "[{}]",
            s.name
        );
        let change = r
            .identity_evolution
            .iter()
            .find(|e| e.handle.graph_id == value.graph_id)
            .map(|e| e.change.as_str());
        assert_eq!(change, Some("closed_since"), "[{}]", s.name);
    });
}

#[test]
fn an_identity_record_formed_after_the_anchor_is_added_since() {
    on_both(|s| {
        form(s, "a", note("Harbour", "The harbour opens at dawn."));
        let anchor = s.system.current_seq().unwrap();
        s.system.engram(&Engram::new(named(), OWNER), None).unwrap();
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        assert!(r.then_identity.is_empty(), "[{}]", s.name);
        assert!(!r.identity_evolution.is_empty());
        assert!(
            r.identity_evolution
                .iter()
                .all(|e| e.change == "added_since")
        );
    });
}

#[test]
fn the_prompt_block_is_fenced_and_every_record_line_is_dated() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        let block = situate_prompt_block(&r);
        let lines: Vec<&str> = block.lines().collect();
        assert!(lines[0].starts_with(BLOCK_OPEN), "{block}");
        assert!(lines[0].contains(&format!("as of journal seq {anchor}")));
        assert_eq!(*lines.last().unwrap(), BLOCK_CLOSE);
        let records: Vec<&&str> = lines.iter().filter(|l| l.starts_with("  [")).collect();
        let expected = r.period.len()
            + r.elected.len()
            + r.then_identity.len()
            + r.identity_evolution.len()
            + r.tensions_then.len();
        assert_eq!(records.len(), expected, "{block}");
        assert!(
            records.iter().all(|l| l.contains(" 2026-03-01]")),
            "{block}"
        );
        assert!(block.contains("What I was attending to then: harbour at dawn"));
    });
}

#[test]
fn a_time_anchored_block_names_the_moment_asked() {
    on_both(|s| {
        lived(s);
        let at = crate::common::PINNED_NOW;
        let block = situate_prompt_block(&situate(s, &Situate::at_time(PAIRS, at)));
        assert!(
            block
                .lines()
                .next()
                .unwrap()
                .contains(&format!("moment {at}"))
        );
    });
}

#[test]
fn the_budget_report_echoes_the_bounds_and_the_tokens_spent() {
    on_both(|s| {
        let (_, anchor) = lived(s);
        let r = situate(s, &Situate::at_seq(PAIRS, anchor));
        let v: Value = serde_json::to_value(&r.budget).unwrap();
        assert_eq!(v["window_records"], json!(24));
        assert_eq!(v["token_budget"], json!(2400));
        let spent: usize = r.period.iter().map(|h| h.token_estimate).sum();
        assert_eq!(r.budget.tokens_used, spent);
        assert!(!r.budget.token_exhausted);
    });
}
